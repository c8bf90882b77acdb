/* test_staticrt.c: runs tests/staticrt/static_app (linked with libcudart_static.a)
 * on the simulator, natively and under gpuft, and checks its verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "runner.h"

TEST_IMPL(runs_on_interpreter) {
  if (!*STATIC_APP) return TEST_SKIPF("static_app not built (no nvcc)");
  const char *argv[] = {STATIC_APP, NULL};
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "SIMCUDA_STATS=1",
                       "LD_PRELOAD", NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 50, &r), 0);
  if (r.status != 0 || !strstr(r.out, "PASSED"))
    FT_FAIL_("static_app exited %d\nstdout:\n%s\nstderr:\n%s", r.status, r.out, r.err);
  ASSERT(strstr(r.out, "runtime 13000"));
  /* two kernels, two rounds (a device reset between them), all interpreted */
  ASSERT_EQ(sim_stat(r.err, "kernels_interpreted"), 4u);
  ASSERT(sim_stat(r.err, "kernel_bytes_stored") > 0);
  ASSERT(!strstr(r.err, "does not emulate"));
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(unemulated_entry_named) {
  if (!*STATIC_APP) return TEST_SKIPF("static_app not built (no nvcc)");
  const char *argv[] = {STATIC_APP, "--private", NULL};
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "LD_PRELOAD", NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 50, &r), 0);
  ASSERT_EQ(r.status, 0);
  ASSERT(strstr(r.out, "private slot: CUresult 801")); /* CUDA_ERROR_NOT_SUPPORTED */
  if (!strstr(r.err, "simcuda: the static CUDA runtime called private driver entry cudart[1], "
                     "which the simulator does not emulate; rebuild the program with -cudart shared"))
    FT_FAIL_("no message naming the entry:\n%s", r.err);
  proc_free(&r);
  return TEST_OK;
}

/* One run under gpuft with `extra` (and `extra2`, may be NULL) in the environment;
 * the report's counters. */
static int under_gpuft2(const char *extra, const char *extra2, proc_result_t *r, uint64_t *detected,
                        uint64_t *corrected, uint64_t *uncorrectable, uint64_t *launches) {
  char rep[128], env_rep[160];
  snprintf(rep, sizeof rep, "/tmp/gpuft-staticrt-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD=" GPUFT_LIB,
                       env_rep, extra, extra2, NULL};
  const char *argv[] = {STATIC_APP, NULL};
  if (proc_run(argv, env, 100, r) != 0) return -1;
  char *json = read_file(rep);
  unlink(rep);
  int ok = json && json_u64(json, "detected", detected) == 0 && json_u64(json, "corrected", corrected) == 0 &&
           json_u64(json, "uncorrectable", uncorrectable) == 0 &&
           json_u64(json, "launches_protected", launches) == 0;
  free(json);
  return ok ? 0 : -1;
}

static int under_gpuft(const char *extra, proc_result_t *r, uint64_t *detected, uint64_t *corrected,
                       uint64_t *uncorrectable, uint64_t *launches) {
  return under_gpuft2(extra, NULL, r, detected, corrected, uncorrectable, launches);
}

/* GPUFT_MODE=detect: the flipped bit is reported uncorrectable, the program sees
 * the error and gives up with its own exit code. On its way out NVIDIA's runtime
 * unloads its library while the second round's launch may still be queued, then
 * releases the primary context, which runs that launch: once a use after free in
 * the simulator (signal 11, most runs). */
TEST_IMPL(detect_mode_flip_exits_cleanly) {
  if (!*STATIC_APP) return TEST_SKIPF("static_app not built (no nvcc)");
  for (int rep = 0; rep < 5; rep++) {
    proc_result_t f;
    uint64_t det = 0, cor = 0, unc = 0, launches = 0;
    if (under_gpuft2("GPUFT_MODE=detect", "GPUFT_INJECT=at=d2h:1,target=src,bits=1,seed=11", &f, &det, &cor,
                     &unc, &launches) != 0)
      FT_FAIL_("run %d: exit %d, no report\n%s", rep, f.status, f.err);
    if (f.status != 2 || det != 1 || unc != 1 || cor != 0)
      FT_FAIL_("run %d: exit %d (expected 2: the program's own error exit), %ju detected, %ju corrected, "
               "%ju uncorrectable\n%s%s", rep, f.status, (uintmax_t)det, (uintmax_t)cor, (uintmax_t)unc, f.out,
               f.err);
    ASSERT(strstr(f.err, "uncorrectable ECC error"));
    proc_free(&f);
  }
  return TEST_OK;
}

TEST_IMPL(under_gpuft) {
  if (!*STATIC_APP) return TEST_SKIPF("static_app not built (no nvcc)");
  static const char *const modes[] = {"GPUFT_CHECK=launch", "GPUFT_CHECK=epoch"};
  for (int m = 0; m < 2; m++) {
    proc_result_t g;
    uint64_t det = 0, cor = 0, unc = 0, launches = 0;
    if (under_gpuft(modes[m], &g, &det, &cor, &unc, &launches) != 0)
      FT_FAIL_("%s: no report\n%s", modes[m], g.err);
    if (g.status != 0 || !strstr(g.out, "PASSED"))
      FT_FAIL_("%s: exit %d\n%s%s", modes[m], g.status, g.out, g.err);
    if (det) FT_FAIL_("%s: %ju false detections\n%s", modes[m], (uintmax_t)det, g.err);
    ASSERT_EQ(launches, 4u); /* every launch was seen and protected */
    proc_free(&g);
  }
  /* one bit of the first read-back's source, at rest under its code */
  proc_result_t f;
  uint64_t det = 0, cor = 0, unc = 0, launches = 0;
  if (under_gpuft("GPUFT_INJECT=at=d2h:1,target=src,bits=1,seed=11", &f, &det, &cor, &unc, &launches) != 0)
    FT_FAIL_("flip: no report\n%s", f.err);
  if (f.status != 0 || !strstr(f.out, "PASSED") || det == 0 || unc != 0)
    FT_FAIL_("one flipped bit before a read-back: exit %d, %ju detected, %ju uncorrectable\n%s%s", f.status,
             (uintmax_t)det, (uintmax_t)unc, f.out, f.err);
  proc_free(&f);
  return TEST_OK;
}

#ifndef STATIC_SAMPLES
#define STATIC_SAMPLES 0
#endif

TEST_IMPL(samples_linked_statically) {
  if (!STATIC_SAMPLES) return TEST_SKIPF("samples not built (no nvcc)");
#if STATIC_SAMPLES
  static const char *const paths[] = {STATIC_SAMPLE_0, STATIC_SAMPLE_1, STATIC_SAMPLE_2, STATIC_SAMPLE_3,
                                      STATIC_SAMPLE_4, STATIC_SAMPLE_5, STATIC_SAMPLE_6, STATIC_SAMPLE_7,
                                      STATIC_SAMPLE_8, STATIC_SAMPLE_9};
  for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
    const char *argv[] = {paths[i], NULL};
    const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "SIMCUDA_STATS=1", "LD_PRELOAD",
                         NULL};
    proc_result_t r;
    ASSERT_EQ(proc_run(argv, env, 50, &r), 0);
    if (r.status != 0 || !strstr(r.out, "PASSED") || !sim_stat(r.err, "kernels_interpreted"))
      FT_FAIL_("%s exited %d\nstdout:\n%s\nstderr:\n%s", paths[i], r.status, r.out, r.err);
    proc_free(&r);
    char rep[128], env_rep[160];
    snprintf(rep, sizeof rep, "/tmp/gpuft-staticrt-s-%d.json", (int)getpid());
    snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
    const char *genv[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD=" GPUFT_LIB, env_rep,
                          NULL};
    ASSERT_EQ(proc_run(argv, genv, 100, &r), 0);
    char *json = read_file(rep);
    unlink(rep);
    uint64_t det = 1, launches = 0;
    int ok = json && json_u64(json, "detected", &det) == 0 && json_u64(json, "launches_protected", &launches) == 0;
    free(json);
    if (!ok || r.status != 0 || !strstr(r.out, "PASSED") || det || !launches)
      FT_FAIL_("%s under gpuft: exit %d, %ju detected, %ju launches protected\n%s%s", paths[i], r.status,
               (uintmax_t)det, (uintmax_t)launches, r.out, r.err);
    proc_free(&r);
  }
#endif
  return TEST_OK;
}

/* The samples of several devices, VMM and IPC built the default way: NVIDIA's
 * static runtime finds the peer, VMM and IPC entry points through cuGetProcAddress,
 * and its integrity check covers every device. */
TEST_IMPL(device_samples_linked_statically) {
#ifndef STATIC_DEV_simple_p2p
  return TEST_SKIPF("samples not built (no nvcc)");
#else
  static const struct { const char *path, *devices; } runs[] = {
      {STATIC_DEV_simple_p2p, "SIMCUDA_DEVICES=2"}, {STATIC_DEV_halo_multi_gpu, "SIMCUDA_DEVICES=2"},
      {STATIC_DEV_vector_add_mmap, "SIMCUDA_DEVICES=2"}, {STATIC_DEV_simple_ipc, "SIMCUDA_DEVICES=1"}};
  for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
    const char *argv[] = {runs[i].path, NULL};
    const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", runs[i].devices, NULL};
    proc_result_t r;
    ASSERT_EQ(proc_run(argv, env, 50, &r), 0);
    if (r.status != 0 || !strstr(r.out, "PASSED"))
      FT_FAIL_("%s (%s) exited %d\nstdout:\n%s\nstderr:\n%s", runs[i].path, runs[i].devices, r.status, r.out, r.err);
    proc_free(&r);
  }
  return TEST_OK;
#endif
}
