/* test_snapshot.c: two-bit flips at rest in buffers the GPU produced in earlier
 * epochs (an in-place CG solver, a ping-pong stencil), at many points in time:
 * with snapshots they are recovered and the final answer is the fault-free one bit
 * for bit; without snapshots, or beyond the budget, they are reported as
 * uncorrectable; a kernel whose result depends on block order is reported, never
 * passed off as recovered. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gprun.h"
#include "runner.h"

#if defined(SNAP_SOLVER) && defined(SNAP_STENCIL) && defined(SNAP_ATOMICS)
#define HAVE_PROGRAMS 1
#else
#define HAVE_PROGRAMS 0
#define SNAP_SOLVER ""
#define SNAP_STENCIL ""
#define SNAP_ATOMICS ""
#endif
#define NEED_PROGRAMS() \
  if (!HAVE_PROGRAMS) return TEST_SKIPF("nvcc not found: the test programs were not built")

/* A fault (GPUFT_INJECT: before gpuft looks at the launch, so at rest) lands;
 * the run must end with the fault-free answer and a recovery from the snapshot. */
static int expect_recovered(const char *const argv[], uint64_t gold, const char *inj,
                            const char *interval) {
  const char *extra[] = {inj, interval, "GPUFT_ON_FAIL=error", NULL};
  run_t g;
  gp_run(argv, 1, NULL, extra, &g);
  ASSERT(strstr(g.json, "\"applied\": true") != NULL);
  if (g.status != 0 || !g.has_checksum || g.checksum != gold || gp_get(&g, "uncorrectable") != 0 ||
      gp_get(&g, "recovered") == 0)
    FT_FAIL_("%s with %s (%s): status %d, checksum %s, recovered %ju, uncorrectable %ju\n%s",
             argv[0], inj, interval, g.status, g.has_checksum && g.checksum == gold ? "right" : "WRONG",
             (uintmax_t)gp_get(&g, "recovered"), (uintmax_t)gp_get(&g, "uncorrectable"), g.err);
  int from_snapshot = gp_get(&g, "recoveries") > 0;
  gp_free(&g);
  return from_snapshot;
}

/* Where the solver's device-produced vectors are at rest, just before a kernel
 * uses them in iteration `it` (>= 2: produced in earlier epochs). */
static void solver_fault(char *buf, size_t n, int which, int it, int seed) {
  static const char *const at[] = {
      "launch:axpy:%d,target=arg:2", /* x, updated in place (odd axpy launches) */
      "launch:axpy:%d,target=arg:2", /* r, updated in place (even axpy launches) */
      "launch:xpay:%d,target=arg:2", /* p, updated in place */
      "launch:laplace:%d,target=arg:0", /* p, only read */
  };
  int k = which == 0 ? 2 * it - 1 : which == 1 ? 2 * it : it;
  char where[64];
  snprintf(where, sizeof where, at[which], k);
  snprintf(buf, n, "GPUFT_INJECT=at=%s,bits=2,seed=%d", where, seed);
}

TEST_IMPL(solver_two_bits_at_rest_recovered) {
  NEED_PROGRAMS();
  const char *argv[] = {SNAP_SOLVER, "40", "24", NULL};
  uint64_t gold = gp_golden(argv);
  static const char *const intervals[] = {"GPUFT_SNAPSHOT_INTERVAL_MS=0",
                                          "GPUFT_SNAPSHOT_INTERVAL_MS=2000"};
  int runs = 0, snap = 0;
  for (int which = 0; which < 4; which++)
    for (int it = 3; it <= 21; it += 6)
      for (int iv = 0; iv < 2; iv++) {
        char inj[160];
        solver_fault(inj, sizeof inj, which, it, 11 * which + it + iv);
        snap += expect_recovered(argv, gold, inj, intervals[iv]);
        runs++;
      }
  printf("# %d runs recovered, %d of them from a snapshot\n", runs, snap);
  ASSERT_GE(snap, runs / 2); /* x, r and p at rest have no other restore point */
  return TEST_OK;
}

/* A long log: one snapshot early in the run (the default interval is longer than
 * the run), faults late: hundreds of epochs replayed, more launches than the
 * ledger has slots (a replay once committed from inside itself when it filled). */
TEST_IMPL(solver_long_log_recovered) {
  NEED_PROGRAMS();
  const char *argv[] = {SNAP_SOLVER, "64", "200", NULL};
  uint64_t gold = gp_golden(argv);
  for (int which = 0; which < 3; which++) {
    char inj[160];
    solver_fault(inj, sizeof inj, which, 150 + 20 * which, 17 + which);
    ASSERT_EQ(expect_recovered(argv, gold, inj, "GPUFT_SNAPSHOT_INTERVAL_MS=600000"), 1);
  }
  return TEST_OK;
}

TEST_IMPL(solver_without_snapshots_is_reported) {
  NEED_PROGRAMS();
  const char *argv[] = {SNAP_SOLVER, "40", "24", NULL};
  for (int which = 0; which < 3; which++) {
    char inj[160];
    solver_fault(inj, sizeof inj, which, 9, 5 + which);
    const char *extra[] = {inj, "GPUFT_SNAPSHOT=0", "GPUFT_ON_FAIL=error", NULL};
    run_t g;
    gp_run(argv, 1, NULL, extra, &g);
    ASSERT(strstr(g.json, "\"applied\": true") != NULL);
    /* detected and told: the program gets the ECC error and stops */
    ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
    ASSERT_EQ(gp_get(&g, "recoveries"), 0u);
    ASSERT(g.status != 0);
    gp_free(&g);
  }
  return TEST_OK;
}

TEST_IMPL(stencil_two_bits_at_rest_recovered) {
  NEED_PROGRAMS();
  const char *argv[] = {SNAP_STENCIL, "48", "24", "3", NULL};
  uint64_t gold = gp_golden(argv);
  int snap = 0, runs = 0;
  /* from step 4 on: before the first snapshot is promoted (a flip while its
   * copies are in flight lands in them too), the start of the run serves */
  for (int k = 4; k <= 22; k += 3)
    for (int off = 0; off < 2; off++) {
      char inj[160];
      /* the grid the previous step wrote, before this step reads it */
      snprintf(inj, sizeof inj, "GPUFT_INJECT=at=launch:step:%d,target=arg:0,offset=%d,bits=2,seed=%d",
               k, off ? 4096 + 8 * k : 64 * k, k + off);
      snap += expect_recovered(argv, gold, inj, off ? "GPUFT_SNAPSHOT_INTERVAL_MS=0" : "GPUFT_SNAPSHOT=1");
      runs++;
    }
  printf("# %d runs recovered, %d of them from a snapshot\n", runs, snap);
  ASSERT_GE(snap, runs / 2);
  return TEST_OK;
}

/* A scratch buffer allocated and freed between reports: a free the log touched
 * ends what the snapshot can replay until the next one. Every run must end with
 * the right answer, or be reported; never a silent wrong one. */
TEST_IMPL(stencil_with_frees_never_silent) {
  NEED_PROGRAMS();
  const char *argv[] = {SNAP_STENCIL, "48", "24", "3", "1", NULL};
  uint64_t gold = gp_golden(argv);
  int recovered = 0, reported = 0;
  for (int k = 4; k <= 22; k += 2) {
    char inj[160];
    snprintf(inj, sizeof inj, "GPUFT_INJECT=at=launch:step:%d,target=arg:0,bits=2,seed=%d", k, k);
    for (int iv = 0; iv < 2; iv++) {
      const char *extra[] = {inj, iv ? "GPUFT_SNAPSHOT_INTERVAL_MS=0" : "GPUFT_SNAPSHOT=1",
                             "GPUFT_ON_FAIL=error", NULL};
      run_t g;
      gp_run(argv, 1, NULL, extra, &g);
      ASSERT(strstr(g.json, "\"applied\": true") != NULL);
      if (g.status == 0) {
        if (!g.has_checksum || g.checksum != gold)
          FT_FAIL_("silent wrong answer with %s\n%s", inj, g.err);
        ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
        recovered++;
      } else {
        ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
        reported++;
      }
      gp_free(&g);
    }
  }
  printf("# %d recovered, %d reported\n", recovered, reported);
  ASSERT_GE(recovered, 1);
  return TEST_OK;
}

/* Block order changes at every launch (SIMCUDA_BLOCK_ORDER): the replayed
 * floating-point atomics give other bits than the program received. (Sums it has
 * not seen yet may come out different: that is a valid recovery.) */
TEST_IMPL(nondeterministic_atomics_reported) {
  NEED_PROGRAMS();
  const char *argv[] = {SNAP_ATOMICS, "8192", "12", NULL};
  for (int k = 4; k <= 10; k += 3) {
    char inj[160], order[48];
    snprintf(inj, sizeof inj, "GPUFT_INJECT=at=launch:evolve:%d,target=arg:0,bits=2,seed=%d", k, k);
    snprintf(order, sizeof order, "SIMCUDA_BLOCK_ORDER=%d", k);
    /* the log since the snapshot holds read-backs the program has seen (at the
     * default interval: one snapshot early in this short run) */
    const char *extra[] = {inj, order, "SIMCUDA_THREADS=1", "GPUFT_ON_FAIL=error", NULL};
    run_t g;
    gp_run(argv, 1, NULL, extra, &g);
    ASSERT(strstr(g.json, "\"applied\": true") != NULL);
    if (g.status == 0 || gp_get(&g, "uncorrectable") == 0 || gp_get(&g, "recovery_failures") == 0 ||
        !strstr(g.err, "differ"))
      FT_FAIL_("atomics, fault before evolve %d: status %d, uncorrectable %ju\n%s", k, g.status,
               (uintmax_t)gp_get(&g, "uncorrectable"), g.err);
    gp_free(&g);
  }
  return TEST_OK;
}

TEST_IMPL(budget_exhausted_is_reported) {
  NEED_PROGRAMS();
  const char *argv[] = {SNAP_SOLVER, "40", "16", NULL};
  char inj[160];
  solver_fault(inj, sizeof inj, 2, 8, 3);
  /* no room for a copy, nor for the log from the start of the run */
  const char *extra[] = {inj, "GPUFT_SNAPSHOT_HOST_MAX=4KiB", "GPUFT_SNAPSHOT_LOG_MAX=4KiB",
                         "GPUFT_ON_FAIL=error", NULL};
  run_t g;
  gp_run(argv, 1, NULL, extra, &g);
  ASSERT(strstr(g.json, "\"applied\": true") != NULL);
  ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
  ASSERT(g.status != 0);
  ASSERT_EQ(gp_count(g.err, "GPUFT_SNAPSHOT_HOST_MAX"), 1); /* one warning */
  gp_free(&g);
  return TEST_OK;
}

/* Without faults: the answer of a run without gpuft, nothing detected, snapshots
 * taken, nothing replayed. */
TEST_IMPL(fault_free_same_answer) {
  NEED_PROGRAMS();
  const char *const progs[][6] = {{SNAP_SOLVER, "40", "24", NULL},
                                  {SNAP_STENCIL, "48", "24", "3", "1", NULL},
                                  {SNAP_ATOMICS, "8192", "12", NULL}};
  for (int p = 0; p < 3; p++) {
    /* one simulator thread: the atomics' block order is then the same every run */
    const char *plain[] = {"SIMCUDA_THREADS=1", NULL};
    const char *extra[] = {"SIMCUDA_THREADS=1", "GPUFT_SNAPSHOT_INTERVAL_MS=0", NULL};
    run_t g;
    gp_run(progs[p], 0, NULL, plain, &g);
    ASSERT(g.status == 0 && g.has_checksum);
    uint64_t gold = g.checksum;
    gp_free(&g);
    gp_run(progs[p], 1, NULL, extra, &g);
    if (g.status != 0 || g.checksum != gold || gp_get(&g, "detected") != 0)
      FT_FAIL_("%s: status %d, checksum %s\n%s", progs[p][0], g.status,
               g.checksum == gold ? "same" : "differs", g.err);
    ASSERT_GE(gp_get(&g, "taken"), 2u);
    ASSERT_EQ(gp_get(&g, "replays"), 0u);
    ASSERT_EQ(gp_get(&g, "recoveries"), 0u);
    gp_free(&g);
  }
  return TEST_OK;
}
