/* test_replay.c: rollback and replay on the simulator: flips in data that kernels
 * then read (before they read it), and the program's results must still be bit
 * for bit those of a fault-free run; permanent faults; learning write sets. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gprun.h"
#include "runner.h"

#ifdef APP_SGEMM
#define HAVE_APPS 1
#else
#define HAVE_APPS 0
#define APP_SGEMM ""
#define APP_JACOBI ""
#define APP_MULTISTREAM ""
#define APP_VECADD ""
#endif
#define NEED_APPS() \
  if (!HAVE_APPS) return TEST_SKIPF("nvcc not found: the example programs were not built")

/* Every flip of `specs` in a run of argv under gpuft: bit-exact with the golden
 * run, reported recovered; the same flip without gpuft changes the result. */
static int recover_all(const char *const argv[], const char *const *specs, int n) {
  uint64_t gold = gp_golden(argv);
  int bit = 0;
  for (int i = 0; i < n; i++) {
    run_t p, g;
    gp_run(argv, 0, specs[i], NULL, &p);
    gp_run(argv, 1, specs[i], NULL, &g);
    if (g.status != 0 || !g.has_checksum || g.checksum != gold)
      FT_FAIL_("%s: %s: not recovered bit for bit (status %d)\n%s", argv[0], specs[i], g.status,
               g.err);
    if (gp_get(&g, "detected") == 0) FT_FAIL_("%s: %s: nothing detected", argv[0], specs[i]);
    ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
    ASSERT_GE(gp_get(&g, "recovered"), 1u);
    ASSERT_GE(gp_get(&g, "replays"), 1u);
    bit += !p.has_checksum || p.checksum != gold;
    gp_free(&p);
    gp_free(&g);
  }
  return bit;
}

TEST_IMPL(sgemm_input_flips_bit_exact) {
  NEED_APPS();
  const char *argv[] = {APP_SGEMM, "96", NULL};
  char buf[64][96];
  const char *specs[64];
  int n = 0;
  /* single bits and double bits, in A and in B, across the buffers */
  for (int arg = 0; arg < 2; arg++)
    for (size_t off = 0; off < 36864 && n < 60; off += 2311) {
      int b = (int)(off % 8);
      if (n % 3 == 2)
        snprintf(buf[n], sizeof buf[n], "before=launch:sgemm:1,arg=%d,offset=%zu,bits=%d+%d", arg,
                 off, b, (b + 3) % 8);
      else
        snprintf(buf[n], sizeof buf[n], "before=launch:sgemm:1,arg=%d,offset=%zu,bits=%d", arg,
                 off, b);
      specs[n] = buf[n];
      n++;
    }
  int bit = recover_all(argv, specs, n);
  printf("# %d flips in sgemm's inputs, all recovered bit for bit (%d changed the result "
         "without gpuft)\n", n, bit);
  ASSERT_GT(bit, n / 2);
  return TEST_OK;
}

TEST_IMPL(jacobi_grid_flips_bit_exact) {
  NEED_APPS();
  /* u after the sweeps of iteration k, just before the residual kernel reads it;
   * and f, which every kernel reads */
  const char *argv[] = {APP_JACOBI, "64", "12", NULL};
  char buf[32][128];
  const char *specs[32];
  int n = 0;
  for (int k = 1; k <= 12; k += 2)
    for (int arg = 0; arg < 2; arg++) {
      size_t off = (size_t)(k * 977 + arg * 5000) % (64 * 64 * 4);
      snprintf(buf[n], sizeof buf[n], "before=launch:residual_partial:%d,arg=%d,offset=%zu,bits=%d",
               k, arg, off, (k + arg) % 8);
      specs[n] = buf[n];
      n++;
    }
  int bit = recover_all(argv, specs, n);
  printf("# %d flips in jacobi's grids, all recovered bit for bit (%d changed the result "
         "without gpuft)\n", n, bit);
  ASSERT_GT(bit, 0);
  return TEST_OK;
}

TEST_IMPL(multistream_flips_bit_exact) {
  NEED_APPS();
  const char *argv[] = {APP_MULTISTREAM, NULL};
  char buf[16][128];
  const char *specs[16];
  int n = 0;
  for (int k = 1; k <= 4; k++) {
    snprintf(buf[n], sizeof buf[n], "before=launch:square_kernel:%d,arg=0,offset=%d,bits=%d", k,
             k * 40, k % 8);
    specs[n] = buf[n];
    n++;
    /* y crosses streams through an event before add_offset reads it */
    snprintf(buf[n], sizeof buf[n], "before=launch:add_offset:%d,arg=0,offset=%d,bits=%d", k,
             k * 52 + 4, (k + 4) % 8);
    specs[n] = buf[n];
    n++;
  }
  recover_all(argv, specs, n);
  return TEST_OK;
}

/* A host function queued behind a read-back of damaged data is held back; a commit
 * that began before the damage was found must leave it held (running it at its end
 * let the function see the damaged read-back, and the epoch was lost: about 1 run in
 * 70). Many runs, every launch of the input's kernel, since it is a race. */
TEST_IMPL(held_host_fn_waits_for_its_replay) {
  NEED_APPS();
  const char *argv[] = {APP_MULTISTREAM, "2", "4", NULL};
  uint64_t gold = gp_golden(argv);
  int runs = 0;
  /* sanitizer builds run about 10x slower: fewer repetitions */
  int reps = ft_test_timeout_scale() > 1 ? 4 : 20;
  for (int rep = 0; rep < reps; rep++)
    for (int k = 1; k <= 8; k++) {
      /* gpuft's injector: the flip lands as the launch is issued, the way the
       * campaign that found this does it */
      char spec[128];
      snprintf(spec, sizeof spec,
               "GPUFT_INJECT=at=launch:square_kernel:%d,target=arg:0,bits=1,seed=%d", k,
               1000 * rep + k);
      const char *extra[] = {spec, NULL};
      run_t g;
      gp_run(argv, 1, NULL, extra, &g);
      if (g.status != 0 || !g.has_checksum || g.checksum != gold ||
          gp_get(&g, "uncorrectable") != 0)
        FT_FAIL_("%s: a single bit ended the run (status %d)\n%s", spec, g.status, g.err);
      ASSERT_GE(gp_get(&g, "recovered") + gp_get(&g, "corrected"), 1u);
      gp_free(&g);
      runs++;
    }
  printf("# %d runs, every one recovered\n", runs);
  return TEST_OK;
}

TEST_IMPL(stuck_bit_is_permanent) {
  NEED_APPS();
  const char *argv[] = {APP_SGEMM, "96", NULL};
  const char *spec = "before=launch:sgemm:1,arg=0,offset=400,bits=3,stuck";
  static const struct {
    const char *env;
    int want_status; /* -1: any non-zero but not a signal */
  } modes[] = {{"GPUFT_ON_FAIL=error", -1}, {"GPUFT_ON_FAIL=warn", 0}, {"GPUFT_ON_FAIL=abort", 128 + SIGABRT}};
  for (int m = 0; m < 3; m++) {
    const char *extra[] = {modes[m].env, NULL};
    run_t g;
    gp_run(argv, 1, spec, extra, &g);
    if (modes[m].want_status == -1) {
      ASSERT(g.status != 0 && g.status < 128);
      ASSERT(strstr(g.err, "cudaErrorECCUncorrectable") != NULL);
    } else {
      ASSERT_EQ(g.status, modes[m].want_status);
    }
    ASSERT(strstr(g.err, "uncorrectable memory error in allocation #1") != NULL);
    if (m != 2) { /* abort leaves no report */
      ASSERT_GE(gp_get(&g, "permanent"), 1u);
      ASSERT(strstr(g.json, "permanent fault") != NULL);
      /* bounded: GPUFT_MAX_RETRIES replays, not more */
      ASSERT_LE(gp_get(&g, "replays"), 3u);
    }
    gp_free(&g);
  }
  return TEST_OK;
}

TEST_IMPL(written_set_learned_by_replay) {
  const char *argv[] = {EXE_RCASES, "learn", NULL};
  run_t p, g;
  gp_run(argv, 0, NULL, NULL, &p);
  ASSERT_EQ(p.status, 0);
  gp_run(argv, 1, NULL, NULL, &g);
  if (g.status != 0) FT_FAIL_("learn under gpuft:\n%s\n%s", g.out, g.err);
  ASSERT_STR_EQ(g.out, "learn: 0 wrong words\n");
  ASSERT_EQ(gp_get(&g, "learned_writes"), 1u);
  /* learned after one replay; the later launches raise no alarm */
  ASSERT_LE(gp_get(&g, "replays"), 2u);
  ASSERT_EQ(gp_count(g.json, "const argument written by its kernel"), 1);
  ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
  gp_free(&p);
  gp_free(&g);
  return TEST_OK;
}

TEST_IMPL(epochs_with_frees_readbacks_memsets) {
  const char *argv[] = {EXE_RCASES, "epochs", NULL};
  for (int k = 1; k <= 6; k++) {
    char spec[128];
    snprintf(spec, sizeof spec, "before=launch:scale:%d,arg=0,offset=%d,bits=%d", k, k * 4099, k % 8);
    run_t p, g;
    gp_run(argv, 0, spec, NULL, &p);
    ASSERT_NE(p.status, 0); /* the flip bites */
    gp_run(argv, 1, spec, NULL, &g);
    if (g.status != 0) FT_FAIL_("%s:\n%s\n%s", spec, g.out, g.err);
    ASSERT_STR_EQ(g.out, "epochs: 0 wrong\n");
    ASSERT_GE(gp_get(&g, "replays"), 1u);
    gp_free(&p);
    gp_free(&g);
  }
  return TEST_OK;
}

TEST_IMPL(many_threads_replay) {
  const char *argv[] = {EXE_RCASES, "threads", "6", "5", NULL};
  for (int k = 1; k <= 30; k += 7) {
    char spec[128];
    snprintf(spec, sizeof spec, "before=launch:scale:%d,arg=0,offset=%d,bits=%d", k, k * 1000, k % 8);
    run_t g;
    gp_run(argv, 1, spec, NULL, &g);
    if (g.status != 0) FT_FAIL_("%s:\n%s\n%s", spec, g.out, g.err);
    ASSERT_STR_EQ(g.out, "threads: 6 x 5 rounds, 0 wrong\n");
    ASSERT_GE(gp_get(&g, "recovered"), 1u);
    gp_free(&g);
  }
  return TEST_OK;
}

TEST_IMPL(fault_free_no_replay) {
  NEED_APPS();
  static const char *const progs[][4] = {
      {APP_SGEMM, "130", NULL}, {APP_JACOBI, "100", "30"}, {APP_MULTISTREAM, NULL}, {APP_VECADD, "70000", NULL}};
  for (size_t i = 0; i < 4; i++) {
    run_t p, g;
    gp_run(progs[i], 0, NULL, NULL, &p);
    gp_run(progs[i], 1, NULL, NULL, &g);
    ASSERT_EQ(g.status, 0);
    ASSERT_STR_EQ(g.out, p.out);
    ASSERT_EQ(gp_get(&g, "replays"), 0u);
    ASSERT_EQ(gp_get(&g, "detected"), 0u);
    ASSERT_EQ(gp_get(&g, "unconfirmed"), 0u);
    gp_free(&p);
    gp_free(&g);
  }
  /* No check flags anything in a run without faults, even one the host finds clean
   * again: a reader on a stream that waited for the writer once stood for the write,
   * and a host function on another thread's stream checked the output while its
   * writer ran (1 run in 10 of these flagged every group of one buffer). */
  const char *ms[] = {APP_MULTISTREAM, "4", "4", NULL};
  for (int rep = 0; rep < 16; rep++) {
    run_t g;
    gp_run(ms, 1, NULL, NULL, &g);
    ASSERT_EQ(g.status, 0);
    ASSERT_EQ(gp_get(&g, "detected"), 0u);
    ASSERT_EQ(gp_get(&g, "unconfirmed"), 0u);
    gp_free(&g);
  }
  const char *argv[] = {EXE_RCASES, "threads", "4", "5", NULL};
  run_t g;
  gp_run(argv, 1, NULL, NULL, &g);
  ASSERT_EQ(g.status, 0);
  ASSERT_EQ(gp_get(&g, "replays"), 0u);
  gp_free(&g);
  return TEST_OK;
}

TEST_IMPL(correct_mode_does_not_replay) {
  NEED_APPS();
  const char *argv[] = {APP_SGEMM, "96", NULL};
  const char *extra[] = {"GPUFT_MODE=correct", NULL};
  run_t g;
  gp_run(argv, 1, "before=launch:sgemm:1,arg=0,offset=77,bits=1", extra, &g);
  ASSERT_EQ(gp_get(&g, "replays"), 0u);
  /* the kernel had read the flipped input: its output is not repaired, and the
   * program is told (GPUFT_ON_FAIL=error), never a silent "corrected": the one
   * error has that one outcome */
  ASSERT_EQ(gp_get(&g, "corrected"), 0u);
  ASSERT_EQ(gp_get(&g, "uncorrectable"), 1u);
  ASSERT_EQ(gp_get(&g, "detected"), 1u);
  ASSERT(g.status != 0);
  gp_free(&g);
  return TEST_OK;
}

/* Two bits in one block of sgemm's C just before it is read back: the code cannot
 * correct it, but C was written since the last synchronisation, so the replay
 * computes it again. */
TEST_IMPL(double_flip_in_output_recomputed) {
  NEED_APPS();
  const char *argv[] = {APP_SGEMM, "96", NULL};
  char buf[16][128];
  const char *specs[16];
  int n = 0;
  for (size_t off = 7; off < 36864 && n < 12; off += 3301, n++) {
    snprintf(buf[n], sizeof buf[n], "before=d2h:1,src,offset=%zu,bits=%d+%d", off, (int)(off % 8),
             (int)((off + 5) % 8));
    specs[n] = buf[n];
  }
  recover_all(argv, specs, n);
  return TEST_OK;
}

/* Two bits in jacobi's grid at rest between iterations, landing just before the
 * next sweep: its restore point copies the damage, which neither the code nor a
 * replay of the epoch can undo. Without snapshots (tests/snapshot recovers it
 * with them) it must be reported, never passed off as recovered. */
TEST_IMPL(damaged_restore_point_is_reported) {
  NEED_APPS();
  const char *argv[] = {APP_JACOBI, "64", "20", NULL};
  for (int k = 3; k <= 21; k += 6) { /* odd: the first sweep of an iteration */
    char inj[160];
    snprintf(inj, sizeof inj, "GPUFT_INJECT=at=launch:rb_sweep:%d,target=arg:0,bits=2,seed=%d", k, k);
    const char *extra[] = {inj, "GPUFT_ON_FAIL=warn", "GPUFT_SNAPSHOT=0", NULL};
    run_t g;
    gp_run(argv, 1, NULL, extra, &g);
    ASSERT(strstr(g.json, "\"applied\": true") != NULL);
    ASSERT(strstr(g.json, "\"size\": 17424,") != NULL); /* u: 66 x 66 floats */
    ASSERT_GE(gp_get(&g, "detected"), 1u);
    ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
    ASSERT_EQ(gp_get(&g, "recovered"), 0u);
    ASSERT(strstr(g.err, "restore point is damaged too") != NULL);
    gp_free(&g);
  }
  return TEST_OK;
}

/* One run of `rcases freed` (gp: under gpuft) that must end with `status` and
 * print `out`; its report's frees_held* counters checked against held, returned and
 * given_up (-1: not checked). The run stays in *g. */
static void freed_run(const char *const *argv, int gp, const char *const *extra, int status, const char *out,
                      int held, int returned, int given_up, run_t *g) {
  gp_run(argv, gp, NULL, extra, g);
  if (g->status != status || strcmp(g->out, out))
    FT_FAIL_("%s (gpuft %d): status %d\n%s\n%s", argv[3] ? "big" : "small", gp, g->status, g->out, g->err);
  if (held >= 0) ASSERT_EQ(gp_get(g, "frees_held"), (uint64_t)held);
  if (returned >= 0) ASSERT_EQ(gp_get(g, "frees_held_returned"), (uint64_t)returned);
  if (given_up >= 0) ASSERT_EQ(gp_get(g, "frees_held_given_up"), (uint64_t)given_up);
}

/* The program frees the input of a kernel whose output is read back later (as a
 * two-device program frees one device's buffers before reading the other's back):
 * the log since the snapshot needs it for a replay, so gpuft holds the memory (the
 * program's free succeeds; a second free fails as the driver's does, natively too)
 * and 2 bits flipped in the output at rest are recovered by replaying from the
 * start of the run (before: the free broke the log, detected and unrecoverable).
 * Then with 16 MiB of device memory and an allocation after the free that fits only
 * if the freed memory goes back: it does (the allocation succeeds), the log gives up
 * what it needed, and the same damage is reported uncorrectable, never repaired
 * wrongly. Without snapshots nothing is held. */
TEST_IMPL(freed_memory_held_for_the_log) {
  static const char wrong[] = "freed: second free 1, read-back 0, 1 wrong\n",
                    right[] = "freed: second free 1, read-back 0, 0 wrong\n";
  const char *argv[] = {EXE_RCASES, "freed", "2", NULL};
  run_t g;
  freed_run(argv, 0, NULL, 1, wrong, -1, -1, -1, &g);
  gp_free(&g);
  freed_run(argv, 1, NULL, 0, right, 1, -1, 0, &g);
  ASSERT_GE(gp_get(&g, "recovered"), 1u);
  ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
  gp_free(&g);
  /* with a snapshot at every epoch boundary, the epochs after the read-back take
   * one that no longer needs the freed input: its memory goes back to the driver */
  const char *often[] = {"GPUFT_SNAPSHOT_INTERVAL_MS=0", NULL};
  freed_run(argv, 1, often, 0, right, 1, 1, 0, &g);
  /* and snapshots go on after the second free (one after each later epoch) */
  ASSERT_GE(gp_get(&g, "taken"), 4u);
  gp_free(&g);
  /* without snapshots no log outlives the epoch the free commits: nothing is held
   * (and the damage is reported, as before) */
  const char *nosnap[] = {"GPUFT_SNAPSHOT=0", NULL};
  freed_run(argv, 1, nosnap, 1, "freed: second free 1, read-back 214, 0 wrong\n", 0, 0, 0, &g);
  gp_free(&g);
  const char *big[] = {EXE_RCASES, "freed", "2", "big", NULL};
  const char *small[] = {"SIMCUDA_MEM_GB=0.015625", NULL};
  freed_run(big, 0, small, 1, wrong, -1, -1, -1, &g);
  gp_free(&g);
  freed_run(big, 1, small, 1, "freed: second free 1, read-back 214, 0 wrong\n", 1, 0, 1, &g);
  ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
  gp_free(&g);
  return TEST_OK;
}

/* A synchronous read-back the program received, and then reused or freed, before
 * a replay of its epoch: the replay must leave the buffer alone (it checks that the
 * source gives the same bytes instead). Flips at several places of the input. */
TEST_IMPL(replay_never_writes_taken_back_readback) {
  static const char *const modes[] = {"reuse", "free"};
  for (int m = 0; m < 2; m++)
    for (int k = 0; k < 6; k++) {
      const char *argv[] = {EXE_RCASES, "takeback", modes[m], NULL};
      char spec[128], want[64];
      snprintf(spec, sizeof spec, "before=launch:scale:1,arg=0,offset=%d,bits=%d", 13 + k * 10007,
               (k * 3) % 8);
      run_t g;
      gp_run(argv, 1, spec, NULL, &g);
      snprintf(want, sizeof want, "takeback %s: sync 0, 0 wrong\n", modes[m]);
      if (g.status != 0 || strcmp(g.out, want))
        FT_FAIL_("%s %s: status %d\n%s\n%s", modes[m], spec, g.status, g.out, g.err);
      ASSERT_GE(gp_get(&g, "replays"), 1u);
      ASSERT_GE(gp_get(&g, "recovered"), 1u);
      ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
      gp_free(&g);
    }
  return TEST_OK;
}

/* The same, but the read-back's source changed after the program received it: a
 * replay would give it different bytes, so the epoch is not recoverable, and that
 * is what the program and the report are told. */
TEST_IMPL(replay_unreproducible_readback_is_reported) {
  for (int k = 0; k < 4; k++) {
    const char *argv[] = {EXE_RCASES, "takeback", "change", NULL};
    const char *extra[] = {"GPUFT_ON_FAIL=error", NULL};
    char spec[128];
    snprintf(spec, sizeof spec, "before=launch:scale:1,arg=0,offset=%d,bits=%d", 99 + k * 13001, k);
    run_t g;
    gp_run(argv, 1, spec, extra, &g);
    if (!strstr(g.out, "takeback change: sync 214, 0 wrong\n"))
      FT_FAIL_("%s: status %d\n%s\n%s", spec, g.status, g.out, g.err);
    ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
    ASSERT_EQ(gp_get(&g, "recovered"), 0u);
    ASSERT(strstr(g.err, "bit for bit") != NULL);
    gp_free(&g);
  }
  return TEST_OK;
}

/* A synchronous read-back whose source needed a repair is copied again; a flip
 * landing just before a later copy (the second one among them) must be caught as
 * well: the program gets the right bytes, or is told it did not. Never silent. */
TEST_IMPL(repaired_readback_copy_is_verified) {
  NEED_APPS();
  const char *argv[] = {APP_SGEMM, "96", NULL};
  uint64_t gold = gp_golden(argv);
  int recovered = 0;
  for (int k = 2; k <= 9; k++) {
    char spec[160];
    snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%d,bits=%d;before=d2h:%d,src,offset=%d,bits=%d",
             100 + k * 64, k % 8, k, 9000 + k * 1000, (k + 3) % 8);
    run_t g;
    gp_run(argv, 1, spec, NULL, &g);
    int right = g.has_checksum && g.checksum == gold;
    if (g.status == 0 && !right)
      FT_FAIL_("%s: a wrong result with exit status 0\n%s", spec, g.err);
    if (!right) ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
    recovered += right;
    gp_free(&g);
  }
  ASSERT_GT(recovered, 0);
  return TEST_OK;
}

/* Stuck bits, one or two per block, in sgemm's read-only inputs: the same bits
 * failing again after gpuft rewrote them are a permanent fault, reported as
 * such; never learned as the kernel's own write (which would accept them as data). */
TEST_IMPL(stuck_input_never_learned_as_write) {
  NEED_APPS();
  const char *argv[] = {APP_SGEMM, "96", NULL};
  uint64_t gold = gp_golden(argv);
  for (int k = 0; k < 8; k++) {
    char spec[128];
    int b = k % 8;
    if (k % 2)
      snprintf(spec, sizeof spec, "before=launch:sgemm:1,arg=%d,offset=%d,bits=%d+%d,stuck", k % 3 == 0,
               200 + k * 4001, b, (b + 5) % 8);
    else
      snprintf(spec, sizeof spec, "before=launch:sgemm:1,arg=%d,offset=%d,bits=%d,stuck", k % 3 == 0,
               200 + k * 4001, b);
    run_t g;
    gp_run(argv, 1, spec, NULL, &g);
    if (g.status == 0 && (!g.has_checksum || g.checksum != gold))
      FT_FAIL_("%s: a wrong result with exit status 0\n%s", spec, g.err);
    ASSERT_EQ(gp_get(&g, "learned_writes"), 0u);
    ASSERT_GE(gp_get(&g, "permanent"), 1u);
    ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
    ASSERT(g.status != 0);
    gp_free(&g);
  }
  return TEST_OK;
}

/* A flipped bit in a buffer at rest, in a group a write then partly overwrites and
 * gpuft re-encodes (2-D memset, 2-D copy, stream write, graph launch): corrected
 * (a graph launch: recovered, see below)
 * (a stream write, which gpuft must not wait before, may instead have it reported);
 * never taken in as data. Bits at several places outside what the write covers. */
TEST_IMPL(partial_rewrite_verifies_first) {
  static const char *const ops[] = {"memset2d", "copy2d", "writevalue", "graph"};
  int corrected = 0, n = 0;
  for (int o = 0; o < 4; o++)
    for (int k = 0; k < 4; k++) {
      char off[32], bit[8];
      /* bytes 16..255 of the first rows lie between what the 2-D writes cover */
      snprintf(off, sizeof off, "%d", 20 + k * 256 + k * 13);
      snprintf(bit, sizeof bit, "%d", (k * 3 + o) % 8);
      const char *argv[] = {EXE_RCASES, "rewrite", ops[o], off, bit, NULL};
      const char *extra[] = {"GPUFT_ON_FAIL=error", NULL};
      run_t g;
      gp_run(argv, 1, NULL, extra, &g);
      char ok[64];
      snprintf(ok, sizeof ok, "rewrite %s: sync 0, read 0, 0 wrong\n", ops[o]);
      if (!strcmp(g.out, ok)) {
        corrected++;
        /* a graph gpuft reads is protected as the launch it holds: the bit, in what
         * the launch writes, is caught by the check before it and the launch
         * re-executed from its verified restore point (recovered) */
        if (o == 3) ASSERT_GE(gp_get(&g, "corrected") + gp_get(&g, "recovered"), 1u);
        else ASSERT_GE(gp_get(&g, "corrected"), 1u);
      } else if (o != 2) {
        /* verified and repaired before the write: a single bit is corrected */
        FT_FAIL_("%s at byte %s, bit %s: not corrected\n%s\n%s", ops[o], off, bit, g.out, g.err);
      } else if (!strstr(g.out, ": sync 214") && !strstr(g.out, ", read 214")) {
        FT_FAIL_("%s at byte %s, bit %s: neither corrected nor reported\n%s\n%s", ops[o], off, bit,
                 g.out, g.err);
      } else {
        ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
      }
      ASSERT_GE(gp_get(&g, "detected"), 1u);
      n++;
      gp_free(&g);
    }
  printf("# %d of %d flips corrected, the others reported\n", corrected, n);
  return TEST_OK;
}

/* Epochs with side effects a replay cannot undo (a kernel accumulating into managed
 * or mapped host memory) and damaged input used in them: never replayed as if pure
 * and reported recovered; what the program got is reported not repaired. A host
 * function acting on a read-back of damaged data is held back until the replay
 * made it right: it sees the right bytes. Without a fault: right results, no replay. */
TEST_IMPL(side_effects_are_not_replayed) {
  static const char *const kinds[] = {"managed", "mapped", "hostfn"};
  for (int s = 0; s < 3; s++)
    for (int k = 0; k < 4; k++) {
      const char *argv[] = {EXE_RCASES, "side", kinds[s], NULL};
      const char *extra[] = {"GPUFT_ON_FAIL=error", NULL};
      char spec[128], want[64];
      snprintf(spec, sizeof spec, "before=launch:%s:1,arg=0,offset=%d,bits=%d",
               s == 2 ? "scale" : "accum", 40 + k * 12007, (k * 5 + s) % 8);
      run_t g;
      gp_run(argv, 1, k ? spec : NULL, extra, &g);
      if (!k || s == 2) {
        snprintf(want, sizeof want, "side %s: sync 0, 0 wrong\n", kinds[s]);
        if (strcmp(g.out, want)) FT_FAIL_("%s %s:\n%s\n%s", kinds[s], spec, g.out, g.err);
        ASSERT_EQ(gp_get(&g, "replays") > 0, k > 0);
        ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
      } else {
        snprintf(want, sizeof want, "side %s: sync 214,", kinds[s]);
        if (strncmp(g.out, want, strlen(want)))
          FT_FAIL_("%s %s: not reported\n%s\n%s", kinds[s], spec, g.out, g.err);
        ASSERT_GE(gp_get(&g, "uncorrectable"), 1u);
        ASSERT_EQ(gp_get(&g, "recovered"), 0u);
        ASSERT_EQ(gp_get(&g, "replays"), 0u);
      }
      gp_free(&g);
    }
  return TEST_OK;
}

/* The report's counters on every run of a small campaign (programs x faults x
 * modes): each damaged group has one final outcome, so
 *   detected == corrected + recovered + uncorrectable,
 * restored_from_checkpoint is a part of recovered,
 * and recovered only by a replay (so never in GPUFT_MODE=correct or detect).
 * docs/report.md. */
TEST_IMPL(report_counters_add_up) {
  NEED_APPS();
  static const char *const progs[][5] = {
      {APP_SGEMM, "96", NULL}, {APP_JACOBI, "64", "12", NULL}, {APP_MULTISTREAM, NULL},
      {EXE_RCASES, "epochs", NULL}, {EXE_RCASES, "side", "hostfn", NULL}};
  static const char *const kernels[] = {"sgemm", "rb_sweep", "square_kernel", "scale", "scale"};
  static const char *const modes[] = {"GPUFT_MODE=recover", "GPUFT_MODE=correct", "GPUFT_MODE=detect"};
  int runs = 0, with_errors = 0;
  for (int p = 0; p < 5; p++)
    for (int k = 0; k < 6; k++)
      for (int m = 0; m < 3; m++) {
        char spec[160];
        int off = 12 + k * 997;
        switch (k) {
          case 0: snprintf(spec, sizeof spec, "before=launch:%s:1,arg=0,offset=%d,bits=%d", kernels[p], off, k); break;
          case 1: snprintf(spec, sizeof spec, "before=launch:%s:2,arg=1,offset=%d,bits=3+6", kernels[p], off); break;
          case 2: snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%d,bits=5", off); break;
          case 3: snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%d,bits=1+2", off); break;
          case 4: snprintf(spec, sizeof spec, "before=launch:%s:1,arg=0,offset=%d,bits=7,stuck", kernels[p], off); break;
          default: snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%d,bits=0;before=d2h:3,src,offset=%d,bits=4", off, off + 4100);
        }
        /* warn: the programs run to their end (one stopped by an ECC error while
         * other threads' kernels run can crash the simulator's teardown) */
        const char *extra[] = {modes[m], "GPUFT_ON_FAIL=warn", NULL};
        run_t g;
        gp_run(progs[p], 1, spec, extra, &g);
        uint64_t det = gp_get(&g, "detected"), cor = gp_get(&g, "corrected"),
                 res = gp_get(&g, "restored_from_checkpoint"), rec = gp_get(&g, "recovered"),
                 unc = gp_get(&g, "uncorrectable"), rep = gp_get(&g, "replays");
        if (det != cor + rec + unc || res > rec || (rec > res && !rep) || (m && rec > res))
          FT_FAIL_("%s %s, %s: detected %ju, corrected %ju, restored %ju, recovered %ju, "
                   "uncorrectable %ju, replays %ju, exit %d\n%s", progs[p][0], spec, modes[m],
                   (uintmax_t)det, (uintmax_t)cor, (uintmax_t)res, (uintmax_t)rec, (uintmax_t)unc,
                   (uintmax_t)rep, g.status, g.err);
        runs++;
        with_errors += det > 0;
        gp_free(&g);
      }
  printf("# %d runs, %d with errors: the counters add up in every one\n", runs, with_errors);
  ASSERT_GT(with_errors, runs / 2);
  return TEST_OK;
}

/* A graph launch gpuft reads is an operation of the epoch like a kernel launch
 * (issue 24): its input damaged at rest (1 and 2 bits) is found after the launch
 * read it, what the launch wrote is restored and the graph relaunched on gpuft's
 * stream, each launch with the node parameters it had (the program changes both
 * nodes between two launches of the epoch); the results are those of a fault-free
 * run, in both modes. */
TEST_IMPL(graph_input_flips_replayed) {
  static const char *const modes[] = {"GPUFT_CHECK=launch", "GPUFT_CHECK=epoch"};
  for (int m = 0; m < 2; m++)
    for (int bits = 0; bits <= 2; bits++) {
      char b[8];
      snprintf(b, sizeof b, "%d", bits);
      const char *argv[] = {EXE_RCASES, "graph", b, NULL};
      const char *extra[] = {modes[m], NULL};
      run_t g;
      gp_run(argv, 1, NULL, extra, &g);
      char ok[64];
      snprintf(ok, sizeof ok, "graph %d: sync 0, 0 wrong\n", bits);
      if (strcmp(g.out, ok)) FT_FAIL_("%s, %d bits:\n%s\n%s", modes[m], bits, g.out, g.err);
      ASSERT_EQ(gp_get(&g, "graph_launches_protected"), 3u); /* (node changes followed) */
      ASSERT_EQ(gp_get(&g, "unprotected_ops"), 0u);
      ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
      if (bits) {
        ASSERT_GE(gp_get(&g, "detected"), 1u);
        ASSERT_GE(gp_get(&g, "recovered"), 1u);
        ASSERT_GE(gp_get(&g, "replays"), 1u);
      } else {
        ASSERT_EQ(gp_get(&g, "detected"), 0u);
      }
      gp_free(&g);
    }
  return TEST_OK;
}

/* A graph with a copy to the host (jacobi's iteration with its residual's read-back
 * captured, as NVIDIA's jacobiCudaGraphs does) is protected as its nodes (with the
 * check before use): every launch counted protected, none an unknown writer, the
 * result bit for bit. A flip that strikes inside a launch (in f, before the fifth
 * residual node reads it) is found after the node read it and recovered by
 * relaunching the graph, which rewrites the residual before the program can have
 * looked at it (the synchronisation that shows it has not returned yet). As an
 * unknown writer it went unseen, encoded as the data; protected but not replayable
 * (2026-11-27 before this), it was told uncorrectable. */
TEST_IMPL(graph_with_read_back_protected) {
  NEED_APPS();
  const char *argv[] = {APP_JACOBI, "64", "12", "graph-readback", NULL};
  uint64_t golden = gp_golden(argv);
  static const char *const modes[] = {"GPUFT_CHECK=launch", "GPUFT_CHECK=epoch"};
  for (int m = 0; m < 2; m++)
    for (int flip = 0; flip < 2; flip++) {
      const char *extra[] = {modes[m], NULL};
      run_t g;
      gp_run(argv, 1, flip ? "at=launch:residual_partial:5,target=arg:1,offset=7000,bit=2" : NULL, extra, &g);
      ASSERT_EQ(gp_get(&g, "unknown_writers"), 0u);
      ASSERT_EQ(gp_get(&g, "replays"), flip ? 1u : 0u);
      if (!flip) {
        if (g.status != 0 || !g.has_checksum || g.checksum != golden)
          FT_FAIL_("%s: status %d\n%s\n%s", modes[m], g.status, g.out, g.err);
        ASSERT_EQ(gp_get(&g, "graph_launches_protected"), 12u);
        ASSERT_EQ(gp_get(&g, "unprotected_ops"), 0u);
        ASSERT_EQ(gp_get(&g, "detected"), 0u);
      } else {
        ASSERT_GE(gp_get(&g, "detected"), 1u);
        ASSERT_GE(gp_get(&g, "recovered"), 1u);
        ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
        if (g.status != 0 || !g.has_checksum || g.checksum != golden)
          FT_FAIL_("%s: a flip inside the graph not recovered: status %d\n%s\n%s", modes[m], g.status, g.out, g.err);
      }
      gp_free(&g);
    }
  return TEST_OK;
}

/* A campaign on the graph case: 1- and 2-bit faults at rest in the graph's input at
 * bytes and bits drawn from 12 seeds, in both modes: every run gives the fault-free
 * results, every fault is detected and recovered (a relaunch of the graph). */
TEST_IMPL(graph_campaign_at_rest) {
  static const char *const modes[] = {"GPUFT_CHECK=launch", "GPUFT_CHECK=epoch"};
  int runs = 0;
  for (int m = 0; m < 2; m++)
    for (int bits = 1; bits <= 2; bits++)
      for (int seed = 1; seed <= 12; seed++) {
        char b[8], sd[8];
        snprintf(b, sizeof b, "%d", bits);
        snprintf(sd, sizeof sd, "%d", seed);
        const char *argv[] = {EXE_RCASES, "graph", b, sd, NULL};
        const char *extra[] = {modes[m], NULL};
        run_t g;
        gp_run(argv, 1, NULL, extra, &g);
        char ok[64];
        snprintf(ok, sizeof ok, "graph %d: sync 0, 0 wrong\n", bits);
        if (strcmp(g.out, ok) || gp_get(&g, "uncorrectable") || !gp_get(&g, "detected") ||
            gp_get(&g, "recovered") + gp_get(&g, "corrected") < 1)
          FT_FAIL_("%s, %d bits, seed %d: %ju detected, %ju recovered, %ju uncorrectable\n%s\n%s", modes[m],
                   bits, seed, (uintmax_t)gp_get(&g, "detected"), (uintmax_t)gp_get(&g, "recovered"),
                   (uintmax_t)gp_get(&g, "uncorrectable"), g.out, g.err);
        runs++;
        gp_free(&g);
      }
  printf("# %d runs, every fault recovered bit for bit\n", runs);
  return TEST_OK;
}
