/* inject.h: GPUFT_INJECT, fault injection into real device memory (inject.c). */
#ifndef FT_INJECT_H
#define FT_INJECT_H

#include <stdio.h>

#include "ft.h"
#include "json_writer.h"

void ft_inject_init(void);
int ft_inject_active(void);
/* Hooks: every intercepted call; before a launch (its argument bytes and layout);
 * before a device-to-host copy. None may be called with the engine lock held. */
void ft_inject_call(void);
void ft_inject_launch(const char *kernel, const uint8_t *params, size_t len,
                      const uint32_t *param_off, const uint32_t *param_size, int nparams);
void ft_inject_d2h(CUdeviceptr src, size_t n);
/* The program's device-to-host copy is issued next on this thread: on the simulator,
 * it alone counts for SIMCUDA_FLIP's at=d2h:<k> (gpuft's own copies, which vary from
 * run to run, do not), so that d2h:<k> is the same copy in both injectors. */
void ft_inject_d2h_issue(void);
/* At start-up: the simulator's simcudaProgramCopy, if the driver is the simulator. */
void ft_inject_bind_sim(void (*program_copy)(int next));
/* At exit: one warning for each requested fault that was never applied, with why (a
 * misspelt kernel name, fewer events than asked): a hand test must not mistake it for
 * a fault the program survived. */
void ft_inject_warn_unapplied(void);
/* The "injections" member of the JSON report. */
void ft_inject_report(ft_jw_t *w);

#endif
