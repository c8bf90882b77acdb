/* snapshot_bench: what snapshots of device-produced data cost, and how long a
 * recovery from one takes, on the simulator with its PCIe model
 * (SIMCUDA_PCIE_GBPS=25). For an in-place CG solver and a ping-pong stencil: run
 * time without gpuft, under gpuft without snapshots (the baseline of the ratio),
 * and with snapshots at two intervals, best of 3 each, all in this run; then the
 * recovery latency per replayed epoch after a two-bit flip at rest late in the run. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Best wall time of 3 runs of argv with the extra settings; the last report in
 * *json when gpuft is loaded (caller frees). */
static double best_of(const char *const argv[], int gp, const char *const *extra, char **json) {
  char rep[128], env_rep[160];
  snprintf(rep, sizeof rep, "/tmp/snapshot-bench-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *env[16] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_PCIE_GBPS=25",
                         gp ? "LD_PRELOAD=" GPUFT_LIB : "LD_PRELOAD", env_rep, "GPUFT_SUMMARY=0"};
  int n = 5;
  for (int i = 0; extra && extra[i] && n < 15; i++) env[n++] = extra[i];
  env[n] = NULL;
  double best = 1e30;
  for (int rep_i = 0; rep_i < 3; rep_i++) {
    proc_result_t r;
    double t0 = now();
    if (proc_run(argv, env, 600, &r) != 0 || r.status != 0) {
      fprintf(stderr, "snapshot_bench: %s failed (status %d)\n%s", argv[0], r.status, r.err);
      exit(1);
    }
    double t = now() - t0;
    if (t < best) best = t;
    proc_free(&r);
  }
  if (json) *json = gp ? read_file(rep) : NULL;
  unlink(rep);
  return best;
}

static uint64_t get(const char *json, const char *key) {
  uint64_t v = 0;
  return json && json_u64(json, key, &v) == 0 ? v : 0;
}

static double getf(const char *json, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = json ? strstr(json, pat) : NULL;
  return p ? strtod(p + strlen(pat), NULL) : 0.0;
}

static void program(const char *name, const char *const argv[], const char *late_fault) {
  const char *nosnap[] = {"GPUFT_SNAPSHOT=0", NULL};
  const char *snap_def[] = {"GPUFT_SNAPSHOT=1", NULL};
  const char *snap_fast[] = {"GPUFT_SNAPSHOT=1", "GPUFT_SNAPSHOT_INTERVAL_MS=250", NULL};
  char *j1 = NULL, *j2 = NULL;
  double plain = best_of(argv, 0, NULL, NULL);
  double off = best_of(argv, 1, nosnap, NULL);
  double def = best_of(argv, 1, snap_def, &j1);
  double fast = best_of(argv, 1, snap_fast, &j2);
  printf("%-8s %8.3f %10.3f %12.3f (%2ju snap.) %12.3f (%2ju snap.)   %5.3f   %5.3f\n", name, plain,
         off, def, (uintmax_t)get(j1, "taken"), fast, (uintmax_t)get(j2, "taken"), def / off,
         fast / off);
  printf("%-8s snapshot copies: %.1f MiB at 2 s, %.1f MiB at 250 ms; writes that waited for one: "
         "%ju, %ju\n", "", get(j1, "bytes_copied") / 1048576.0, get(j2, "bytes_copied") / 1048576.0,
         (uintmax_t)get(j1, "writes_that_waited"), (uintmax_t)get(j2, "writes_that_waited"));
  free(j1);
  free(j2);
  /* recovery: a flip at rest near the end, replayed from the snapshot taken early */
  const char *rec[] = {late_fault, "GPUFT_SNAPSHOT=1", NULL};
  char *jr = NULL;
  best_of(argv, 1, rec, &jr);
  uint64_t ep = get(jr, "epochs_replayed");
  double secs = getf(jr, "recovery_seconds");
  printf("%-8s recovery: %ju recovered, %ju uncorrectable; %ju epochs replayed in %.3f s (%.2f ms "
         "per epoch; the run without a fault: %.3f s)\n", "", (uintmax_t)get(jr, "recovered"),
         (uintmax_t)get(jr, "uncorrectable"), (uintmax_t)ep, secs,
         ep ? secs * 1e3 / (double)ep : 0.0, def);
  free(jr);
}

int main(void) {
  printf("simulator, SIMCUDA_PCIE_GBPS=25, best of 3 wall seconds; ratio = with snapshots / "
         "gpuft without snapshots\n");
  printf("%-8s %8s %10s %25s %25s   %5s   %5s\n", "program", "no gpuft", "no snap.",
         "snapshots (2 s)", "snapshots (250 ms)", "ratio", "ratio");
  const char *solver[] = {SNAP_SOLVER, "160", "150", NULL};
  program("solver", solver, "GPUFT_INJECT=at=launch:xpay:140,target=arg:2,bits=2,seed=7");
  const char *stencil[] = {SNAP_STENCIL, "384", "300", "10", NULL};
  /* step 291 opens an epoch (a read-back every 10 steps): its input is step 290's
   * output, written in the epoch before */
  program("stencil", stencil, "GPUFT_INJECT=at=launch:step:291,target=arg:0,bits=2,seed=7");
  return 0;
}
