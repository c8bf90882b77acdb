/* reach_bench: what gpuft's conservative paths for kernels that reach memory other
 * than through their argument places cost (docs/ptx.md, "Soundness"): for each
 * adversarial kernel of tests/soundness, with MIB MiB of other uploaded data the
 * case never touches, the device bytes gpuft adds (its kernels' encodes and
 * verifications, its shadow copies) per byte the case's kernels loaded and stored
 * (the interpreter's exact counters, from a run without gpuft in this invocation),
 * in both GPUFT_CHECK modes, and how gpuft bounded the reach.
 *   reach_bench [MIB]   (default 16; finds the simulator in the build tree) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

/* One run of a case: natively (check NULL) the kernels' bytes, else gpuft's added
 * device bytes and its reach counters. 0 or -1. */
static int run(const char *name, const char *mib, const char *check, uint64_t *bytes, uint64_t *scan,
               uint64_t *all, uint64_t *params) {
  char rep[128], env_rep[160], chk[64];
  snprintf(rep, sizeof rep, "/tmp/gpuft-reach-bench-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  snprintf(chk, sizeof chk, "GPUFT_CHECK=%s", check ? check : "launch");
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "SIMCUDA_STATS=1",
                       check ? "LD_PRELOAD=" GPUFT_LIB : "LD_PRELOAD", env_rep, chk, NULL};
  const char *argv[] = {EXE_ADVERSARIAL, name, mib, NULL};
  proc_result_t r;
  unlink(rep);
  if (proc_run(argv, env, 300, &r) != 0 || r.status != 0) {
    fprintf(stderr, "%s failed:\n%s", name, r.err ? r.err : "");
    return -1;
  }
  if (!check) {
    *bytes = sim_stat(r.err, "kernel_bytes_loaded") + sim_stat(r.err, "kernel_bytes_stored");
    proc_free(&r);
    return 0;
  }
  proc_free(&r);
  char *json = read_file(rep);
  unlink(rep);
  if (!json) return -1;
  uint64_t enc = 0, ver = 0, sh = 0;
  json_u64(json, "encoded_device", &enc);
  json_u64(json, "verified_device", &ver);
  json_u64(json, "shadow", &sh);
  json_u64(json, "launches_pointer_scanned", scan);
  json_u64(json, "launches_reaching_everything", all);
  json_u64(json, "launches_parameters_scanned", params);
  free(json);
  *bytes = enc + ver + sh;
  return 0;
}

int main(int argc, char **argv) {
  const char *mib = argc > 1 ? argv[1] : "16";
  const char *list[] = {EXE_ADVERSARIAL, "--list", NULL};
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "LD_PRELOAD", NULL};
  proc_result_t r;
  if (proc_run(list, env, 30, &r) != 0 || r.status != 0) {
    fprintf(stderr, "reach_bench: cannot list the cases\n");
    return 1;
  }
  printf("reach_bench: gpuft's added device bytes per byte the kernels moved, with %s MiB of\n"
         "other uploaded data (simulator counters; baseline: the same case without gpuft)\n\n", mib);
  printf("%-16s %12s %12s %12s  %s\n", "case", "kernel B", "launch", "epoch", "reach");
  int failed = 0;
  for (char *name = strtok(r.out, "\n"); name; name = strtok(NULL, "\n")) {
    uint64_t kb = 0, gl = 0, ge = 0, scan = 0, all = 0, par = 0, s2, a2, p2;
    if (run(name, mib, NULL, &kb, &scan, &all, &par) || run(name, mib, "launch", &gl, &scan, &all, &par) ||
        run(name, mib, "epoch", &ge, &s2, &a2, &p2)) {
      failed = 1;
      continue;
    }
    const char *how = all ? "everything" : scan ? "pointer scan of its buffers"
                      : par ? "pointer scan of its parameters" : "its arguments";
    printf("%-16s %12ju %12.3f %12.3f  %s\n", name, (uintmax_t)kb, kb ? (double)gl / (double)kb : 0.0,
           kb ? (double)ge / (double)kb : 0.0, how);
  }
  proc_free(&r);
  return failed;
}
