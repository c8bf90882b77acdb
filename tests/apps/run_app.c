/* run_app.c: runs an example program on the simulator (LD_LIBRARY_PATH set to the
 * simulator's folder, SIMCUDA_FLIP set or removed) through tests/common/proc.c. */
#define _GNU_SOURCE
#include "run_app.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"

#ifndef SIMCUDA_LIB_DIR
#error "SIMCUDA_LIB_DIR must be defined"
#endif

const char *app_skip_reason(const char *exe) {
  if (!exe) return "nvcc was not found at configure time: the example programs were not built";
  return NULL;
}

int app_run(const char *const argv[], const char *flip, app_result_t *r) {
  return app_run_in(argv, flip, NULL, r);
}

static void keep(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap) n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

int app_run_in(const char *const argv[], const char *flip, const char *libdir, app_result_t *r) {
  memset(r, 0, sizeof *r);
  char ld[4096], fl[1024];
  snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s", libdir ? libdir : SIMCUDA_LIB_DIR);
  snprintf(fl, sizeof fl, "SIMCUDA_FLIP=%s", flip ? flip : "");
  const char *env[] = {ld, flip ? fl : "SIMCUDA_FLIP", NULL};
  proc_result_t p;
  if (proc_run(argv, env, 600, &p) != 0) return -1;
  r->status = p.status;
  keep(r->out, sizeof r->out, p.out);
  keep(r->err, sizeof r->err, p.err);
  proc_free(&p);
  const char *c = strstr(r->out, "checksum: ");
  if (c && sscanf(c + 10, "%" SCNx64, &r->checksum) == 1) r->has_checksum = 1;
  return 0;
}
