/* test_robust.c: programs that stress what gpuft must never break (threads,
 * contexts, fork, hostile settings) run on the simulator with gpuft preloaded;
 * each must finish, succeed and compute what it computes without gpuft. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "runner.h"

#define PRELOAD "LD_PRELOAD=" GPUFT_LIB
#define SIMPATH "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR

/* Runs argv (with or without gpuft, plus `extra` settings); fails the test unless
 * it exits 0 within timeout_s. */
static void run_ok(const char *const argv[], int gp, const char *const *extra, int timeout_s,
                   proc_result_t *r) {
  const char *env[24];
  int n = 0;
  env[n++] = SIMPATH;
  env[n++] = gp ? PRELOAD : "LD_PRELOAD";
  for (int i = 0; extra && extra[i] && n < 23; i++) env[n++] = extra[i];
  env[n] = NULL;
  /* sanitizer builds are slower: the runner's scale applies here too */
  const char *sc = getenv("FT_TEST_TIMEOUT_SCALE");
  double k = sc ? atof(sc) : 1;
  if (k > 1 && k < 100) timeout_s = (int)(timeout_s * k);
  ASSERT_EQ(proc_run(argv, env, timeout_s, r), 0);
  if (r->status != 0)
    FT_FAIL_("%s (gpuft %s) exited %d\nstdout: %s\nstderr: %.4000s", argv[0], gp ? "on" : "off",
             r->status, r->out, r->err);
}

/* ---- uploads beyond the checkpoint budget from several threads ---- */

TEST_IMPL(concurrent_uploads_without_checkpoint) {
  /* No checkpoint at all, small chunks: every upload goes through staging, in
   * several chunks, from 6 threads at once; each read back must be exact. */
  static const char *const settings[][3] = {
      {"GPUFT_CKPT_MAX=0", "GPUFT_CHUNK=64KiB", NULL},
      {"GPUFT_CKPT_MAX=1", "GPUFT_CHUNK=4KiB", NULL},
      {"GPUFT_CKPT_MAX=600KiB", "GPUFT_CHUNK=128KiB", NULL}, /* some with, some without */
  };
  const char *sizes[] = {"300000", "1048576", "4100"};
  for (int rep = 0; rep < 3; rep++)
    for (size_t s = 0; s < sizeof settings / sizeof *settings; s++) {
      const char *argv[] = {EXE_RB_UPLOAD, "6", "12", sizes[(rep + s) % 3], NULL};
      proc_result_t r;
      run_ok(argv, 1, settings[s], 240, &r);
      ASSERT(strstr(r.out, " 0 wrong, 0 failed"));
      proc_free(&r);
    }
  return TEST_OK;
}

/* The example programs with no checkpoint budget print what they print without
 * gpuft (GPUFT_CKPT_MAX=1 once gave a wrong answer: the shared staging ring). */
TEST_IMPL(apps_without_checkpoint_budget) {
#ifdef APP_MULTISTREAM
  static const char *const apps[][3] = {{APP_MULTISTREAM, NULL}, {APP_MULTISTREAM_PTDS, NULL},
                                        {APP_VECADD, "100000"},   {APP_SGEMM, "130"},
                                        {APP_JACOBI, NULL}};
  for (size_t i = 0; i < sizeof apps / sizeof *apps; i++) {
    const char *argv[] = {apps[i][0], apps[i][1], NULL};
    proc_result_t ref;
    run_ok(argv, 0, NULL, 120, &ref);
    for (int rep = 0; rep < 4; rep++) {
      const char *extra[] = {rep & 1 ? "GPUFT_CKPT_MAX=1" : "GPUFT_CKPT_MAX=0",
                             rep & 2 ? "GPUFT_CHUNK=4KiB" : "GPUFT_CHUNK=8MiB", NULL};
      proc_result_t r;
      run_ok(argv, 1, extra, 120, &r);
      ASSERT_STR_EQ(r.out, ref.out);
      proc_free(&r);
    }
    proc_free(&ref);
  }
  return TEST_OK;
#else
  return TEST_SKIPF("the example programs are not built (no nvcc)");
#endif
}

/* ---- context lifecycle and fork ---- */

TEST_IMPL(context_lifecycle) {
  static const char *const modes[] = {"create", "many", "primary", "fork"};
  for (int rep = 0; rep < 3; rep++)
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
      const char *argv[] = {EXE_RB_CTX, modes[m], NULL};
      proc_result_t plain, r;
      run_ok(argv, 0, NULL, 120, &plain);
      char rep_path[128], rep_env[160];
      snprintf(rep_path, sizeof rep_path, "/tmp/gpuft-robust-%d-ctx.json", (int)getpid());
      snprintf(rep_env, sizeof rep_env, "GPUFT_REPORT=%s", rep_path);
      const char *extra[] = {rep_env, NULL};
      run_ok(argv, 1, extra, 120, &r);
      ASSERT_STR_EQ(r.out, plain.out);
      /* every context, the 17th and later included, is protected: no warning */
      if (strstr(r.err, "warning")) FT_FAIL_("rb_ctx %s warned:\n%s", modes[m], r.err);
      char *json = read_file(rep_path);
      ASSERT(json != NULL);
      uint64_t launches = 0, prot = 0;
      ASSERT_EQ(json_u64(json, "launches", &launches), 0);
      ASSERT_EQ(json_u64(json, "launches_protected", &prot), 0);
      ASSERT_GT(launches, 0u);
      ASSERT_EQ(prot, launches);
      free(json);
      unlink(rep_path);
      proc_free(&plain);
      proc_free(&r);
    }
  return TEST_OK;
}

/* ---- stress: threads x streams x contexts, with a watchdog ---- */

TEST_IMPL(stress_threads_streams_contexts) {
  /* two fixed seeds and two new ones each run (printed, to replay a failure) */
  unsigned long long seeds[4] = {1, 2, (unsigned long long)time(NULL), (unsigned long long)getpid()};
  for (int i = 0; i < 4; i++) {
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", seeds[i]);
    printf("# seed %s\n", seed);
    fflush(stdout);
    const char *argv[] = {EXE_RB_STRESS, seed, "4", "2", "150", NULL};
    /* little checkpoint budget: uploads beyond it go through staging */
    const char *extra[] = {"GPUFT_CKPT_MAX=256KiB", "GPUFT_CHUNK=64KiB", NULL};
    proc_result_t r;
    run_ok(argv, 1, extra, 280, &r);
    ASSERT(strstr(r.out, " 0 wrong, 0 failed"));
    proc_free(&r);
  }
  return TEST_OK;
}

/* ---- frees while other threads commit damage (issue 23) ----
 * A commit that finds damage lets go of the engine lock to replay (the operation lock
 * taken exclusively, the context synchronised); other threads' cuMemFree run in that
 * window. What the commit found must not be reached through a freed record: it keeps
 * allocations by id. Threads allocate, free, upload, launch and read back while bits
 * flip at random in device memory; under ASan a read of a freed record fails the run.
 * Results may be wrong where flips beat the code (several in a block, or in memory
 * gpuft does not protect): only memory safety, the watchdog and damage seen are
 * asserted. */
TEST_IMPL(frees_while_commits_replay_flips) {
  uint64_t detected = 0;
  for (int i = 0; i < 3; i++) {
    char seed[32], rep_path[128], rep_env[160], flip[64];
    snprintf(seed, sizeof seed, "%d", 11 + i);
    snprintf(rep_path, sizeof rep_path, "/tmp/gpuft-robust-%d-uaf.json", (int)getpid());
    snprintf(rep_env, sizeof rep_env, "GPUFT_REPORT=%s", rep_path);
    snprintf(flip, sizeof flip, "SIMCUDA_FLIP_RATE=200000,seed=%d", 5 + i);
    const char *argv[] = {EXE_RB_STRESS, seed, "4", "2", "120", NULL};
    const char *env[] = {SIMPATH, PRELOAD, rep_env, flip, "GPUFT_CKPT_MAX=256KiB", NULL};
    int timeout = 280;
    const char *sc = getenv("FT_TEST_TIMEOUT_SCALE");
    if (sc && atof(sc) > 1 && atof(sc) < 100) timeout = (int)(timeout * atof(sc));
    proc_result_t r;
    ASSERT_EQ(proc_run(argv, env, timeout, &r), 0);
    if (r.status != 0 && r.status != 1) /* 3: the watchdog; 128+n: a signal */
      FT_FAIL_("rb_stress seed %s: status %d\n%s", seed, r.status, r.err);
    if (strstr(r.err, "Sanitizer")) FT_FAIL_("rb_stress seed %s:\n%s", seed, r.err);
    char *json = read_file(rep_path);
    ASSERT(json != NULL);
    uint64_t d = 0;
    ASSERT_EQ(json_u64(json, "detected", &d), 0);
    detected += d;
    free(json);
    unlink(rep_path);
    proc_free(&r);
  }
  printf("# %ju errors detected over the runs\n", (uintmax_t)detected);
  ASSERT_GT(detected, 0u); /* the commits did find damage while threads freed memory */
  return TEST_OK;
}
