/* report.h: the engine's top floor: what gpuft did, on stderr and in the JSON
 * report (docs/report.md). Internal to shim/ (names ft_). */
#ifndef FT_REPORT_H
#define FT_REPORT_H

#include "policy.h"

/* Write the JSON report to `path` (report.c); 0 on success. */
int ft_report_write_json(const char *path);
/* At the first CUDA call: the thread that writes the report when a signal stops the
 * program (the handler itself only wakes it and waits). */
void ft_report_arm(void);
/* The report so far, to GPUFT_REPORT, now (engine lock held). */
void ft_report_checkpoint(void) FT_REQUIRES(ft_eng_lock);
/* At load (the hooks' constructor): what must exist before any CUDA call. */
void ft_report_load(void);
/* The GPU's name and UUID for the report, asked now (a hook calls it at the program's
 * first allocation: at exit the driver may be shutting down). */
void ft_report_note_gpu(void);

#endif
