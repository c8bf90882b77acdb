/* gprun.c: see gprun.h. */
#define _GNU_SOURCE
#include "gprun.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "runner.h"

void gp_free(run_t *r) {
  free(r->out);
  free(r->err);
  free(r->json);
  memset(r, 0, sizeof *r);
}

void gp_run(const char *const argv[], int gp, const char *flip, const char *const *extra,
            run_t *out) {
  static int seq;
  char rep[256], env_rep[300], env_flip[1024];
  snprintf(rep, sizeof rep, "/tmp/gpuft-test-%d-%d.json", (int)getpid(), ++seq);
  unlink(rep);
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  snprintf(env_flip, sizeof env_flip, "SIMCUDA_FLIP=%s", flip ? flip : "");
  const char *env[16];
  int k = 0;
  env[k++] = "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR;
  env[k++] = gp ? "LD_PRELOAD=" GPUFT_LIB : "LD_PRELOAD";
  env[k++] = gp ? env_rep : "GPUFT_REPORT";
  env[k++] = flip ? env_flip : "SIMCUDA_FLIP";
  for (int i = 0; extra && extra[i] && k < 15; i++) env[k++] = extra[i];
  env[k] = NULL;
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 120, &r), 0);
  memset(out, 0, sizeof *out);
  out->status = r.status;
  out->out = r.out;
  out->err = r.err;
  const char *c = strstr(r.out, "checksum: ");
  if (c && sscanf(c + 10, "%" SCNx64, &out->checksum) == 1) out->has_checksum = 1;
  out->json = gp ? read_file(rep) : NULL;
  unlink(rep);
}

uint64_t gp_get(const run_t *r, const char *key) {
  uint64_t v = 0;
  if (!r->json || json_u64(r->json, key, &v) != 0)
    FT_FAIL_("report lacks \"%s\" (status %d)\n%s", key, r->status, r->err ? r->err : "");
  return v;
}

int gp_count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

uint64_t gp_golden(const char *const argv[]) {
  run_t p;
  gp_run(argv, 0, NULL, NULL, &p);
  ASSERT_EQ(p.status, 0);
  ASSERT(p.has_checksum);
  uint64_t c = p.checksum;
  gp_free(&p);
  return c;
}
