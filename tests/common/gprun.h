/* gprun.h: running a program on the simulator with or without gpuft, with faults
 * injected through SIMCUDA_FLIP, and reading its checksum and gpuft's report
 * (for the tests of protection and replay). The including test is compiled with
 * GPUFT_LIB and SIMCUDA_LIB_DIR defined. */
#ifndef FT_TEST_GPRUN_H
#define FT_TEST_GPRUN_H

#include <stdint.h>

typedef struct {
  int status;
  uint64_t checksum;
  int has_checksum;
  char *out, *err, *json; /* json: gpuft's report, or NULL */
} run_t;

/* Runs argv on the simulator; gpuft preloaded when `gp`; flip: SIMCUDA_FLIP or
 * NULL; extra: more NAME=value (NULL-terminated, may be NULL). Fails the test if
 * the program cannot be run at all. */
void gp_run(const char *const argv[], int gp, const char *flip, const char *const *extra,
            run_t *out);
void gp_free(run_t *r);
/* A number from the report (fails the test if absent). */
uint64_t gp_get(const run_t *r, const char *key);
/* Occurrences of needle in hay. */
int gp_count(const char *hay, const char *needle);
/* The checksum a fault-free run without gpuft prints. */
uint64_t gp_golden(const char *const argv[]);

#endif
