/* run_app.h: runs an example program on the simulator (fork + exec with
 * LD_LIBRARY_PATH = SIMCUDA_LIB_DIR, optional SIMCUDA_FLIP) and captures its output. */
#ifndef RUN_APP_H
#define RUN_APP_H

#include <stdint.h>

typedef struct {
  int status;        /* exit code, or 128 + signal number */
  char out[8192];    /* stdout (truncated) */
  char err[16384];   /* stderr (truncated) */
  uint64_t checksum; /* from the "checksum: <hex>" line; valid if has_checksum */
  int has_checksum;
} app_result_t;

/* argv[0] is the program; NULL-terminated. flip: SIMCUDA_FLIP value or NULL (then
 * any inherited SIMCUDA_FLIP is removed). Returns 0, or -1 if it could not run. */
int app_run(const char *const argv[], const char *flip, app_result_t *r);
/* Same with another library folder in LD_LIBRARY_PATH (NULL: SIMCUDA_LIB_DIR). */
int app_run_in(const char *const argv[], const char *flip, const char *libdir, app_result_t *r);

/* Why a test cannot run here (no nvcc, no simulator driver), or NULL. */
const char *app_skip_reason(const char *exe);

#endif
