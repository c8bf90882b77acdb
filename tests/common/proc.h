/* proc.h: runs a program in a child process with a modified environment and
 * captures its exit status, stdout and stderr (for tests that run programs). */
#ifndef FT_TEST_PROC_H
#define FT_TEST_PROC_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  int status;     /* exit code, or 128 + signal number; -1 if it could not run */
  char *out, *err; /* NUL-terminated, malloc'ed (proc_free) */
  size_t out_len, err_len;
} proc_result_t;

/* argv: NULL-terminated, argv[0] a path. env: NULL-terminated "NAME=value" to set
 * and "NAME" to remove, applied to this process's environment. timeout_s: the
 * child is killed after it (status 128 + SIGKILL). Returns 0 if it ran. */
int proc_run(const char *const argv[], const char *const env[], int timeout_s, proc_result_t *r);
/* GPUFT_TEST_DRIVER=real (tools/gpu-acceptance on a GPU): the programs run against
 * the real driver (proc_run leaves the simulator's folder out). */
int proc_real_driver(void);
void proc_free(proc_result_t *r);

/* Value of `"key": <unsigned>` in a JSON text (first occurrence); -1 if absent. */
int json_u64(const char *json, const char *key, uint64_t *out);
/* A counter of the simulator's statistics line on a program's stderr
 * (SIMCUDA_STATS=1: " key=value"), 0 when absent. */
uint64_t sim_stat(const char *err, const char *key);
/* Whole file into a malloc'ed NUL-terminated buffer, or NULL. */
char *read_file(const char *path);

#endif
