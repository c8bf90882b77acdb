/* test_samples.c: runs each sample program on the simulator with SIMCUDA_TWINS=0
 * (every kernel through the PTX interpreter) and checks its verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "runner.h"

static int run_sample(const char *name, const char *path) {
  if (!*path) return TEST_SKIPF("sample %s not built (no nvcc)", name);
  const char *argv[] = {path, NULL};
  /* reduce_ballot has undefined behaviour on purpose (its own test below): it runs
   * without the UB check even where CI turns the check on for every test */
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD",
                       strcmp(name, "reduce_ballot") == 0 ? "SIMCUDA_CHECK_UB=0" : NULL, NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 50, &r), 0);
  if (r.status != 0 || !strstr(r.out, "PASSED"))
    FT_FAIL_("%s exited %d\nstdout:\n%s\nstderr:\n%s", name, r.status, r.out, r.err);
  /* scan's kernel prints with device printf (block 0 sums 256 values of (i % 17) - 8). */
  if (strcmp(name, "scan") == 0) ASSERT(strstr(r.out, "scan: first block total -8\n"));
  if (strcmp(name, "device_assert") == 0)
    ASSERT(strstr(r.err, "device_assert.cu:13: void check_positive(const int *, int *, int): block: [3,0,0], "
                         "thread: [9,0,0] Assertion `x[i] > 0` failed."));
  /* The kernels ran on the interpreter: nothing may have been refused. */
  ASSERT(!strstr(r.err, "cannot launch"));
  proc_free(&r);
  return TEST_OK;
}

#define SAMPLE_TEST(n) \
  TEST_IMPL(n) { return run_sample(#n, SAMPLE_##n); }

SAMPLE_TEST(matmul_tiled)
SAMPLE_TEST(reduce_shfl)
SAMPLE_TEST(scan)
SAMPLE_TEST(histogram)
SAMPLE_TEST(transpose)
SAMPLE_TEST(nbody)
SAMPLE_TEST(stencil2d)
SAMPLE_TEST(cg_csr)
SAMPLE_TEST(index_walk)
SAMPLE_TEST(shared_group)
SAMPLE_TEST(value_wait)
SAMPLE_TEST(streams)
SAMPLE_TEST(vote_ballot)
SAMPLE_TEST(reduce_ballot)
SAMPLE_TEST(diff_warp)
SAMPLE_TEST(diff_float)
SAMPLE_TEST(diff_int)
SAMPLE_TEST(diff_half)
SAMPLE_TEST(gemm_cp_async)
SAMPLE_TEST(gemm_mma)
SAMPLE_TEST(device_heap)
SAMPLE_TEST(virtual_calls)
SAMPLE_TEST(texture_blur)
SAMPLE_TEST(surface_array)
SAMPLE_TEST(surface_array_shared)
SAMPLE_TEST(device_assert)
SAMPLE_TEST(occupancy)
SAMPLE_TEST(stream_attrs)
SAMPLE_TEST(mempool)
SAMPLE_TEST(recursion)
SAMPLE_TEST(graphs_simple)
SAMPLE_TEST(graph_jacobi)
SAMPLE_TEST(graph_memnodes)

SAMPLE_TEST(graph_conditional)
SAMPLE_TEST(capture_threads)
SAMPLE_TEST(vmm_pool)
/* grid_sync (both builds) with SIMCUDA_THREADS=threads (NULL: the default) and an
 * optional argument; its time limit scales with sanitizer builds (a host thread per
 * block is slow to start under TSan). */
static int run_grid_sync(const char *path, const char *threads, const char *arg, proc_result_t *r) {
  const char *argv[] = {path, arg, NULL};
  char th[32];
  snprintf(th, sizeof th, "SIMCUDA_THREADS=%s", threads ? threads : "");
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", threads ? th : NULL, NULL};
  return proc_run(argv, env, (int)(100 * ft_test_timeout_scale()), r);
}

static int grid_sync_passes(const char *path) {
  if (!*path) return TEST_SKIPF("sample grid_sync not built (no nvcc)");
  proc_result_t r;
  ASSERT_EQ(run_grid_sync(path, NULL, NULL, &r), 0);
  if (r.status != 0 || !strstr(r.out, "PASSED") || strstr(r.err, "cannot launch"))
    FT_FAIL_("%s exited %d\nstdout:\n%s\nstderr:\n%s", path, r.status, r.out, r.err);
  proc_free(&r);
  return TEST_OK;
}
TEST_IMPL(grid_sync) { return grid_sync_passes(SAMPLE_grid_sync); }
TEST_IMPL(grid_sync_static) { return grid_sync_passes(SAMPLE_grid_sync_static); }

/* Cooperative grids run each block on a host thread of its own, SIMCUDA_THREADS of
 * them at a time: the program's deterministic results (printed to the last digit)
 * are the same on 1, 2 and 5 threads, with either runtime (the static build also
 * runs a captured cooperative launch, and says so). */
TEST_IMPL(grid_sync_on_any_thread_count) {
  if (!*SAMPLE_grid_sync) return TEST_SKIPF("sample grid_sync not built (no nvcc)");
  const char *paths[] = {SAMPLE_grid_sync, SAMPLE_grid_sync_static}, *threads[] = {"1", "2", "5"};
  char *first = NULL;
  for (int p = 0; p < 2; p++)
    for (int t = 0; t < 3; t++) {
      proc_result_t r;
      ASSERT_EQ(run_grid_sync(paths[p], threads[t], NULL, &r), 0);
      if (r.status != 0 || !strstr(r.out, "PASSED"))
        FT_FAIL_("%s on %s threads: exit %d\n%s%s", paths[p], threads[t], r.status, r.out, r.err);
      /* the static build's one more line: the captured launch */
      char *graph = strstr(r.out, "ring shift by a captured cooperative launch, twice: 0 misplaced\n");
      if (p == 1 && !graph) FT_FAIL_("%s: no captured launch\n%s", paths[p], r.out);
      if (graph) memmove(graph, strchr(graph, '\n') + 1, strlen(strchr(graph, '\n') + 1) + 1);
      if (!first) first = strdup(r.out);
      else if (strcmp(first, r.out) != 0)
        FT_FAIL_("%s on %s threads printed\n%s\nwhere the first run printed\n%s", paths[p], threads[t], r.out, first);
      proc_free(&r);
    }
  free(first);
  return TEST_OK;
}

/* A grid sync that cannot complete fails the launch, never hangs: in a launch that
 * is not cooperative (no workspace: cooperative groups trap, as on a GPU), when a
 * block ends without arriving (a GPU waits forever; the simulator names it), and
 * when a block faults while the others wait (its fault is the one reported). */
TEST_IMPL(grid_sync_failures) {
  if (!*SAMPLE_grid_sync) return TEST_SKIPF("sample grid_sync not built (no nvcc)");
  const char *paths[] = {SAMPLE_grid_sync, SAMPLE_grid_sync_static};
  for (int p = 0; p < 2; p++)
    for (int t = 0; t < 2; t++) {
      proc_result_t r;
      ASSERT_EQ(run_grid_sync(paths[p], t ? "3" : "1", "noncoop", &r), 0);
      if (r.status != 0 || !strstr(r.out, "noncoop: cudaErrorIllegalInstruction") || !strstr(r.err, "trap"))
        FT_FAIL_("noncoop: exit %d\n%s%s", r.status, r.out, r.err);
      proc_free(&r);
      ASSERT_EQ(run_grid_sync(paths[p], t ? "3" : "1", "early_exit", &r), 0);
      if (r.status != 0 || !strstr(r.out, "early_exit: cudaErrorLaunchTimeout") ||
          !strstr(r.err, "grid-wide barrier never completes: block (2,0,0) ended without arriving at it"))
        FT_FAIL_("early_exit: exit %d\n%s%s", r.status, r.out, r.err);
      proc_free(&r);
      ASSERT_EQ(run_grid_sync(paths[p], t ? "3" : "1", "fault", &r), 0);
      if (r.status != 0 || !strstr(r.out, "fault: cudaErrorIllegalAddress") ||
          !strstr(r.err, "kernel _Z14oneBlockFaultsPi, block (1,0,0), thread (0,0,0)"))
        FT_FAIL_("fault: exit %d\n%s%s", r.status, r.out, r.err);
      proc_free(&r);
    }
  return TEST_OK;
}

/* The samples of several devices, VMM and IPC: run with SIMCUDA_DEVICES=devices
 * (and one argument); exit status `want` (0: PASSED, 2: waived, saying so). */
static int run_devices(const char *name, const char *path, const char *arg, const char *devices, int want) {
  if (!*path) return TEST_SKIPF("sample %s not built (no nvcc)", name);
  const char *argv[] = {path, arg, NULL};
  char dev[32];
  snprintf(dev, sizeof dev, "SIMCUDA_DEVICES=%s", devices);
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", dev, NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 50, &r), 0);
  if (r.status != want || !strstr(r.out, want == 0 ? "PASSED" : "Waiving"))
    FT_FAIL_("%s %s (%s devices) exited %d, expected %d\nstdout:\n%s\nstderr:\n%s", name, arg ? arg : "",
             devices, r.status, want, r.out, r.err);
  ASSERT(!strstr(r.err, "cannot launch"));
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(simple_p2p) { return run_devices("simple_p2p", SAMPLE_simple_p2p, NULL, "2", 0); }
TEST_IMPL(simple_p2p_without_peer_access) {
  return run_devices("simple_p2p", SAMPLE_simple_p2p, "--without-peer-access", "2", 0);
}
TEST_IMPL(simple_p2p_one_device_waives) { return run_devices("simple_p2p", SAMPLE_simple_p2p, NULL, "1", 2); }
TEST_IMPL(halo_multi_gpu) { return run_devices("halo_multi_gpu", SAMPLE_halo_multi_gpu, NULL, "2", 0); }
TEST_IMPL(vector_add_mmap) { return run_devices("vector_add_mmap", SAMPLE_vector_add_mmap, NULL, "1", 0); }
TEST_IMPL(vector_add_mmap_two_devices) {
  return run_devices("vector_add_mmap", SAMPLE_vector_add_mmap, NULL, "2", 0);
}
TEST_IMPL(simple_ipc) { return run_devices("simple_ipc", SAMPLE_simple_ipc, NULL, "1", 0); }

TEST_IMPL(reduce_ballot_ub_reported) {
  if (!*SAMPLE_reduce_ballot) return TEST_SKIPF("sample reduce_ballot not built (no nvcc)");
  const char *argv[] = {SAMPLE_reduce_ballot, NULL};
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", "SIMCUDA_CHECK_UB=1", NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 50, &r), 0);
  /* reported, and the result is still the one GPUs give */
  if (r.status != 0 || !strstr(r.out, "PASSED"))
    FT_FAIL_("exit %d\nstdout:\n%s\nstderr:\n%s", r.status, r.out, r.err);
  /* (every block reports it; blocks run at once and reports are capped, so which
   * blocks' lines come first varies: block 0's is missing in about 1 run of 200) */
  const char *rep = strstr(r.err, "undefined behaviour: kernel _Z7reduce7IiLj256ELb1EEvPKT_PS0_j, block (");
  if (!rep) FT_FAIL_("no report for reduce7<int, 256>:\n%s", r.err);
  const char *eol = strchr(rep, '\n'),
             *what = strstr(rep, "warp 0, lanes 0x000000ff: shfl.sync reads lanes that do not execute it");
  ASSERT(what && eol && what < eol);
  ASSERT(strstr(r.err, "undefined-behaviour reports"));
  proc_free(&r);
  env[3] = "SIMCUDA_CHECK_UB=2";
  ASSERT_EQ(proc_run(argv, env, 50, &r), 0);
  ASSERT(r.status != 0);
  ASSERT(strstr(r.err, "kernel fault (CUresult 719)"));
  proc_free(&r);
  return TEST_OK;
}

/* A sample run with an argument under SIMCUDA_CHECK_UB=ub ("0", "1" or "2"). */
static int run_arg(const char *path, const char *arg, const char *ub, proc_result_t *r) {
  char env_ub[32];
  snprintf(env_ub, sizeof env_ub, "SIMCUDA_CHECK_UB=%s", ub);
  const char *argv[] = {path, arg, NULL};
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", env_ub, NULL};
  return proc_run(argv, env, 50, r);
}

/* `ub` mode of a sample: with the check off it passes unreported; with it on it
 * passes with `reports` reports (every message in `what` among those logged); with
 * SIMCUDA_CHECK_UB=2 its first report fails the launch. */
static int ub_mode(const char *name, const char *path, uint64_t reports, const char *const what[]) {
  if (!*path) return TEST_SKIPF("sample %s not built (no nvcc)", name);
  if (proc_real_driver()) return TEST_SKIPF("the simulator's UB check");
  proc_result_t r;
  ASSERT_EQ(run_arg(path, "ub", "0", &r), 0);
  if (r.status != 0 || !strstr(r.out, "PASSED") || strstr(r.err, "undefined behaviour"))
    FT_FAIL_("%s ub, check off: exit %d\nstdout:\n%s\nstderr:\n%s", name, r.status, r.out, r.err);
  proc_free(&r);
  ASSERT_EQ(run_arg(path, "ub", "1", &r), 0);
  char total[96];
  snprintf(total, sizeof total, "SIMCUDA_CHECK_UB: %llu undefined-behaviour reports\n", (unsigned long long)reports);
  if (r.status != 0 || !strstr(r.out, "PASSED") || !strstr(r.err, total))
    FT_FAIL_("%s ub: exit %d, expected %s\nstdout:\n%s\nstderr:\n%s", name, r.status, total, r.out, r.err);
  for (size_t i = 0; what[i]; i++)
    if (!strstr(r.err, what[i])) FT_FAIL_("%s ub: no report '%s':\n%s", name, what[i], r.err);
  proc_free(&r);
  ASSERT_EQ(run_arg(path, "ub", "2", &r), 0);
  if (r.status == 0 || !strstr(r.err, "kernel fault (CUresult 719)"))
    FT_FAIL_("%s ub under SIMCUDA_CHECK_UB=2: exit %d\nstderr:\n%s", name, r.status, r.err);
  proc_free(&r);
  return TEST_OK;
}

#define GLOBAL_WRITE "tex: reads memory a global store (st, atom, red) of this launch wrote"
TEST_IMPL(texture_blur_ub_reported) {
  /* 64 lanes fetching what st.global wrote; 32 lanes sampling what atom wrote and 32
   * what red wrote; 2 warps gathering from pitched memory. A kernel writing and the
   * next fetching is not reported (nor is any fetch in the default run). */
  static const char *const what[] = {"kernel _Z15fill_then_fetchyPiS_i, block (0,0,0), pc",
                                     "kernel _Z15add_then_sampleyPfmS_, block (0,0,0), pc",
                                     GLOBAL_WRITE,
                                     "kernel _Z14gather_pitchedyP6float4, block (0,0,0), pc",
                                     "tld4 of a texture that is not a CUDA array made with cudaArrayTextureGather",
                                     NULL};
  return ub_mode("texture_blur", SAMPLE_texture_blur, 64 + 32 + 32 + 2, what);
}

TEST_IMPL(surface_array_ub_reported) {
  /* 10 queries (one lane each), then 144 warps gathering from arrays made without
   * the gather flag (4 address modes x 4 components x 8 warps, and 2 x 8) */
  static const char *const what[] = {
      "txq.height: the PTX ISA gives no value for this object", "txq.depth: the PTX ISA gives no value",
      "txq.array_size: the PTX ISA gives no value", "txq.channel_data_type: the PTX ISA gives no value",
      "simulator's is 4306", /* 0x10D2, CL_UNORM_INT8 */
      "txq.channel_order: the PTX ISA gives no value", "txq.filter_mode: the PTX ISA gives no value",
      "txq.addr_mode_0: the PTX ISA gives no value", "suq.depth: the PTX ISA gives no value",
      "suq.channel_data_type: the PTX ISA gives no value", "suq.channel_order: the PTX ISA gives no value",
      "tld4 of a texture that is not a CUDA array made with cudaArrayTextureGather", NULL};
  return ub_mode("surface_array", SAMPLE_surface_array, 10 + 144, what);
}

/* Each case faults its launch with the error and words given (the simulator's
 * choice where a GPU reads some other object's header or the PTX ISA leaves it
 * undefined: it is never more forgiving than a GPU). */
TEST_IMPL(surface_array_faults) {
  if (!*SAMPLE_surface_array) return TEST_SKIPF("sample surface_array not built (no nvcc)");
  if (proc_real_driver()) return TEST_SKIPF("the simulator's faults");
  static const struct {
    const char *name, *err, *op, *words;
  } cases[] = {
      {"txq_on_surface", "cudaErrorIllegalAddress", ": txq: 0x", "is not a texture object of this context"},
      {"suq_on_texture", "cudaErrorIllegalAddress", ": suq: 0x", "is not a surface object of this context"},
      {"tld4_on_3d", "cudaErrorIllegalAddress", ": tld4: 0x", "is not a 2-D texture (a 2-D CUDA array or pitched memory)"},
      {"tld4_on_layered", "cudaErrorIllegalAddress", ": tex/tld4: 0x", "is layered"},
      {"sured_outside", "cudaErrorIllegalAddress", ": sured.trap: ", "(116, 0, 0) is outside the surface (116 bytes x 17 x 1)"},
      {"sured_misaligned", "cudaErrorMisalignedAddress", ": sured: ", "x = 2 bytes is not a multiple of the 4-byte access"},
      {"sured_on_texture", "cudaErrorIllegalAddress", ": suld/sust/sured: 0x", "is not a surface object of this context"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char arg[64], out[96];
    snprintf(arg, sizeof arg, "fault:%s", cases[i].name);
    snprintf(out, sizeof out, "%s: %s\n", cases[i].name, cases[i].err);
    proc_result_t r;
    ASSERT_EQ(run_arg(SAMPLE_surface_array, arg, "0", &r), 0);
    if (r.status != 3 || !strstr(r.out, out) || !strstr(r.err, cases[i].op) || !strstr(r.err, cases[i].words))
      FT_FAIL_("%s: exit %d\nstdout:\n%s\nstderr:\n%s", cases[i].name, r.status, r.out, r.err);
    proc_free(&r);
  }
  return TEST_OK;
}

/* ---- under gpuft ---- */

static const struct {
  const char *name, *path;
} samples[] = {
    {"matmul_tiled", SAMPLE_matmul_tiled}, {"reduce_shfl", SAMPLE_reduce_shfl},
    {"scan", SAMPLE_scan},                 {"histogram", SAMPLE_histogram},
    {"transpose", SAMPLE_transpose},       {"nbody", SAMPLE_nbody},
    {"stencil2d", SAMPLE_stencil2d},       {"cg_csr", SAMPLE_cg_csr},
    {"streams", SAMPLE_streams},           {"vote_ballot", SAMPLE_vote_ballot},
    {"index_walk", SAMPLE_index_walk},     {"grid_sync", SAMPLE_grid_sync_static},
};

/* Runs a sample under gpuft with `extra` environment; its report's counters. Time
 * limits here scale with sanitizer builds (FT_TEST_TIMEOUT_SCALE), as ctest's do. */
static int under_gpuft(const char *path, const char *const *extra, proc_result_t *r,
                       uint64_t *detected, uint64_t *uncorrectable) {
  char rep[128], env_rep[160];
  snprintf(rep, sizeof rep, "/tmp/gpuft-samples-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *env[8] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0",
                        "LD_PRELOAD=" GPUFT_LIB, env_rep, NULL};
  int n = 4;
  for (int i = 0; extra && extra[i] && n < 7; i++) env[n++] = extra[i];
  env[n] = NULL;
  const char *argv[] = {path, NULL};
  if (proc_run(argv, env, (int)(120 * ft_test_timeout_scale()), r) != 0) return -1;
  char *json = read_file(rep);
  unlink(rep);
  /* a check's finding the host then found clean counts as a detection: fault free,
   * there must be none (a check that raced a writer) */
  uint64_t unconfirmed = 0;
  int ok = json && json_u64(json, "detected", detected) == 0 &&
           json_u64(json, "uncorrectable", uncorrectable) == 0 && json_u64(json, "unconfirmed", &unconfirmed) == 0;
  *detected += unconfirmed;
  free(json);
  return ok ? 0 : -1;
}

TEST_IMPL(all_under_gpuft) {
  if (!*SAMPLE_matmul_tiled) return TEST_SKIPF("samples not built (no nvcc)");
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
    const char *argv[] = {samples[i].path, NULL};
    const char *plain_env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD",
                               NULL};
    proc_result_t p;
    ASSERT_EQ(proc_run(argv, plain_env, (int)(60 * ft_test_timeout_scale()), &p), 0);
    ASSERT_EQ(p.status, 0);
    static const char *const modes[] = {"GPUFT_CHECK=launch", "GPUFT_CHECK=epoch"};
    for (int m = 0; m < 2; m++) {
      const char *extra[] = {modes[m], NULL};
      proc_result_t g;
      uint64_t det = 0, unc = 0;
      if (under_gpuft(samples[i].path, extra, &g, &det, &unc) != 0)
        FT_FAIL_("%s (%s): no report\n%s", samples[i].name, modes[m], g.err);
      /* some samples sum with float atomics: their printed residuals vary from run
       * to run natively too, so the verdict is their own check */
      if (g.status != 0 || !strstr(g.out, "PASSED"))
        FT_FAIL_("%s (%s): exit %d\n%s%s", samples[i].name, modes[m], g.status, g.out, g.err);
      if (det) FT_FAIL_("%s (%s): %ju false detections\n%s", samples[i].name, modes[m],
                        (uintmax_t)det, g.err);
      proc_free(&g);
    }
    /* one bit of the first read-back's source, at rest under its code */
    const char *flip[] = {"GPUFT_INJECT=at=d2h:1,target=src,bits=1,seed=11", NULL};
    proc_result_t f;
    uint64_t det = 0, unc = 0;
    if (under_gpuft(samples[i].path, flip, &f, &det, &unc) != 0)
      FT_FAIL_("%s (flip): no report\n%s", samples[i].name, f.err);
    if (f.status != 0 || !strstr(f.out, "PASSED") || det == 0 || unc != 0)
      FT_FAIL_("%s (one flipped bit before a read-back): exit %d, %ju detected, %ju "
               "uncorrectable\n%s%s", samples[i].name, f.status, (uintmax_t)det, (uintmax_t)unc,
               f.out, f.err);
    proc_free(&f);
    proc_free(&p);
  }
  return TEST_OK;
}

/* A sample under gpuft (with `env`, may be NULL) in both checking modes, fault-free:
 * its own PASSED, nothing detected; with `flip` once more: detected and repaired. */
static void both_modes_and_flip(const char *name, const char *path, const char *env, const char *flip) {
  const char *modes[] = {"GPUFT_CHECK=launch", "GPUFT_CHECK=epoch", flip};
  for (int m = 0; m < 3 && modes[m]; m++) {
    const char *extra[] = {env ? env : modes[m], env ? modes[m] : NULL, NULL};
    proc_result_t g;
    uint64_t det = 0, unc = 0;
    if (under_gpuft(path, extra, &g, &det, &unc) != 0) FT_FAIL_("%s (%s): no report\n%s", name, modes[m], g.err);
    if (g.status != 0 || !strstr(g.out, "PASSED") || unc || (m < 2 && det) || (m == 2 && !det))
      FT_FAIL_("%s (%s): exit %d, %ju detected, %ju uncorrectable\n%s%s", name, modes[m], g.status,
               (uintmax_t)det, (uintmax_t)unc, g.out, g.err);
    proc_free(&g);
  }
}

/* The graph samples under gpuft (issue 24): what is captured passes through
 * untouched (gpuft enqueueing or allocating there would invalidate the capture), a
 * graph launch is protected as its nodes (one with conditional or memory nodes,
 * which the driver cannot clone, through gpuft's flat copy of it). graph_jacobi,
 * graph_conditional and graph_switch read their results back themselves (the others:
 * graph memcpy nodes), so they get the flip; graph_memnodes keeps its data in graph
 * memory, which gpuft does not track. */
TEST_IMPL(graphs_under_gpuft) {
  if (!*SAMPLE_graphs_simple) return TEST_SKIPF("samples not built (no nvcc)");
  both_modes_and_flip("graphs_simple", SAMPLE_graphs_simple, NULL, NULL);
  both_modes_and_flip("graph_jacobi", SAMPLE_graph_jacobi, NULL, "GPUFT_INJECT=at=d2h:1,target=src,bits=1,seed=11");
  both_modes_and_flip("graph_memnodes", SAMPLE_graph_memnodes, NULL, NULL);
  both_modes_and_flip("graph_conditional", SAMPLE_graph_conditional, NULL,
                      "GPUFT_INJECT=at=d2h:1,target=src,bits=1,seed=11");
  /* the rule for conditional nodes broken on purpose: bodies (nested if and while
   * nodes included) write buffers no other node names; one body left out of what
   * gpuft reads makes the program fail its own check (tried) */
  both_modes_and_flip("graph_switch", SAMPLE_graph_switch, NULL, "GPUFT_INJECT=at=d2h:7,target=src,bits=1,seed=11");
  return TEST_OK;
}

/* A step captured in global mode while another thread loads batches (the way
 * torch.cuda.graph captures beside a data loader): gpuft's own allocations and frees
 * beside the capture are made in the relaxed capture mode, and its synchronisations
 * wait stream by stream (a context synchronisation would invalidate the capture:
 * before, the program's cudaStreamEndCapture failed under gpuft). The flip strikes
 * the loader's third read-back during the capture and is recovered there. Once with
 * a non-blocking capture stream after a device synchronisation (as torch does), once
 * with a blocking one and legacy-stream work unfinished (waited for by the event
 * gpuft records before the capture begins). */
TEST_IMPL(capture_beside_other_threads) {
  if (!*SAMPLE_capture_threads) return TEST_SKIPF("samples not built (no nvcc)");
  const char *flip = "GPUFT_INJECT=at=d2h:3,target=src,bits=2,seed=11";
  both_modes_and_flip("capture_threads", SAMPLE_capture_threads, "CAPTURE_BLOCKING=0", flip);
  both_modes_and_flip("capture_threads", SAMPLE_capture_threads, "CAPTURE_BLOCKING=1", flip);
  return TEST_OK;
}

/* CUDA arrays under gpuft: array memory is no linear allocation, gpuft does not
 * protect it, and copies to and from arrays (its cuMemcpy2D/3D hooks) and the
 * launches with texture and surface objects must pass through untouched: the
 * sample's own PASSED and nothing detected in both modes. The flip strikes the
 * second read-back's source, a linear buffer a kernel wrote through a texture
 * (the first reads the array back): gpuft still protects those around arrays. */
TEST_IMPL(arrays_under_gpuft) {
  if (!*SAMPLE_surface_array) return TEST_SKIPF("samples not built (no nvcc)");
  both_modes_and_flip("surface_array", SAMPLE_surface_array, NULL, "GPUFT_INJECT=at=d2h:2,target=src,bits=1,seed=11");
  return TEST_OK;
}

/* A training-step-like graph under gpuft (issue 24): every launch is protected as
 * the launches it holds (what its nodes may write checked before and re-encoded
 * after, what they only read verified after), in both modes, and what gpuft does on
 * the device does not depend on the memory the graph never touches: the same with 4
 * and 16 MiB of other uploaded data (before, every graph launch verified and
 * re-encoded all of it). */
TEST_IMPL(graph_launches_protected_as_their_nodes) {
  if (!*SAMPLE_graph_step) return TEST_SKIPF("samples not built (no nvcc)");
  static const char *const modes[] = {"GPUFT_CHECK=launch", "GPUFT_CHECK=epoch"};
  for (int m = 0; m < 2; m++) {
    uint64_t work[2] = {0, 0};
    for (int w = 0; w < 2; w++) {
      char rep[128], env_rep[160];
      snprintf(rep, sizeof rep, "/tmp/gpuft-graphstep-%d.json", (int)getpid());
      snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
      const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD=" GPUFT_LIB,
                           env_rep, modes[m], NULL};
      const char *argv[] = {SAMPLE_graph_step, w ? "16" : "4", "50", NULL};
      proc_result_t r;
      ASSERT_EQ(proc_run(argv, env, 120, &r), 0);
      if (r.status != 0 || !strstr(r.out, "PASSED")) FT_FAIL_("graph_step (%s): exit %d\n%s%s", modes[m], r.status, r.out, r.err);
      char *json = read_file(rep);
      unlink(rep);
      ASSERT(json != NULL);
      uint64_t graphs = 0, unprot = 9, det = 9, enc = 0, ver = 0;
      ASSERT_EQ(json_u64(json, "graph_launches_protected", &graphs), 0);
      ASSERT_EQ(json_u64(json, "unprotected_ops", &unprot), 0);
      ASSERT_EQ(json_u64(json, "detected", &det), 0);
      ASSERT_EQ(json_u64(json, "encoded_device", &enc), 0);
      ASSERT_EQ(json_u64(json, "verified_device", &ver), 0);
      ASSERT_EQ(graphs, 50u);
      ASSERT_EQ(unprot, 0u);
      ASSERT_EQ(det, 0u);
      work[w] = enc + ver;
      printf("# %s, %s MiB untouched: %ju bytes encoded, %ju verified on the device\n", modes[m],
             w ? "16" : "4", (uintmax_t)enc, (uintmax_t)ver);
      free(json);
      proc_free(&r);
    }
    ASSERT_EQ(work[0], work[1]);
    ASSERT_LT(work[0], (uint64_t)(4u << 20)); /* (4 MiB would be one pass over the untouched data) */
  }
  return TEST_OK;
}

/* Two devices and another process under gpuft (issue 27, before gpuft's own per-device
 * work): gpuft's kernels for an allocation run in its device's context (a peer copy
 * into device 1's memory, issued on device 0's stream, used to launch them in the
 * wrong one: refused, then a false "uncorrectable", then an illegal address from a
 * shadow on the wrong device); memory exported to another process leaves protection
 * (the parent "recovered" the child's writes away). The flip: a bit of device 1's
 * buffer before its read-back, corrected. */
TEST_IMPL(devices_under_gpuft) {
  if (!*SAMPLE_halo_multi_gpu) return TEST_SKIPF("samples not built (no nvcc)");
  both_modes_and_flip("halo_multi_gpu", SAMPLE_halo_multi_gpu, "SIMCUDA_DEVICES=2",
                      "GPUFT_INJECT=at=d2h:2,target=src,bits=1,seed=11");
  both_modes_and_flip("simple_p2p", SAMPLE_simple_p2p, "SIMCUDA_DEVICES=2", NULL);
  /* (its vectors are VMM-mapped runs, striped over both devices: protected) */
  both_modes_and_flip("vector_add_mmap", SAMPLE_vector_add_mmap, "SIMCUDA_DEVICES=2",
                      "GPUFT_INJECT=at=d2h:1,target=src,bits=1,seed=11");
  both_modes_and_flip("simple_ipc", SAMPLE_simple_ipc, NULL, NULL);
  return TEST_OK;
}

/* A flip GPUFT_INJECT puts in memory gpuft stopped protecting says so in the report
 * (`injections[].protected`): simple_ipc's parent exports its buffer (its fault lands
 * there, unprotected: nothing can find it), the child's lands in its own buffer. */
TEST_IMPL(injection_says_unprotected) {
  if (!*SAMPLE_simple_ipc) return TEST_SKIPF("samples not built (no nvcc)");
  char dir[] = "/tmp/gpuft-ipcinj-XXXXXX", rep[96], env_rep[128];
  ASSERT(mkdtemp(dir) != NULL);
  snprintf(rep, sizeof rep, "%s/r-%%p.json", dir);
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD=" GPUFT_LIB, env_rep,
                       "GPUFT_INJECT=at=d2h:1,target=src,bits=1,seed=11", NULL};
  const char *argv[] = {SAMPLE_simple_ipc, NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 120, &r), 0);
  int prot = 0, unprot = 0, reports = 0;
  char cmd[160];
  snprintf(cmd, sizeof cmd, "ls %s", dir);
  FILE *ls = popen(cmd, "r");
  ASSERT(ls != NULL);
  char name[128];
  while (fgets(name, sizeof name, ls)) {
    name[strcspn(name, "\n")] = 0;
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *json = read_file(path);
    if (!json) continue;
    reports++;
    for (const char *p = json; (p = strstr(p, "\"protected\": ")); p++) {
      if (!strncmp(p + 13, "true", 4)) prot++;
      if (!strncmp(p + 13, "false", 5)) unprot++;
    }
    free(json);
    unlink(path);
  }
  pclose(ls);
  rmdir(dir);
  if (reports != 2 || prot != 1 || unprot != 1)
    FT_FAIL_("%d reports, %d protected and %d unprotected injections (want 2, 1, 1)\n%s", reports, prot, unprot, r.err);
  proc_free(&r);
  return TEST_OK;
}

/* ---- campaigns on two devices (issue 27) ---- */

/* `gpuft campaign ARGS...` on the simulator (SIMCUDA_DEVICES=devices): its --json. */
static proc_result_t campaign(const char *const *args, const char *devices, const char *extra) {
  const char *argv[48] = {GPUFT_LAUNCHER, "campaign"};
  int n = 2;
  for (; *args && n < 47; args++) argv[n++] = *args;
  argv[n] = NULL;
  char dev[32];
  snprintf(dev, sizeof dev, "SIMCUDA_DEVICES=%s", devices);
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", dev,
                       "ASAN_OPTIONS=verify_asan_link_order=0", extra, NULL};
  proc_result_t r;
  if (proc_run(argv, env, 280, &r) != 0) FT_FAIL_("cannot run %s", GPUFT_LAUNCHER);
  if (r.status != 0) FT_FAIL_("gpuft campaign: status %d\n%s", r.status, r.err);
  return r;
}

/* An outcome's count in the campaign's --json ("masked": {"count": N, ...}). */
static uint64_t outcome(const char *json, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": {", key);
  const char *p = strstr(json, pat);
  uint64_t v = 0;
  if (!p || json_u64(p, "count", &v) != 0) FT_FAIL_("no %s in:\n%s", key, json);
  return v;
}

static const char *const outcome_keys[] = {"masked", "corrected", "recovered", "detected_uncorrectable",
                                           "sdc", "crash", "hang"};

/* The head of the table campaign_row fills. */
static void campaign_header(void) {
  printf("| program | bits | injected | masked | corrected | recovered | detected-uncorrectable | SDC | crash "
         "| hang | not injected |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
}

/* One row of the table: the campaign's counts; c[] gets them in outcome_keys' order. */
static uint64_t campaign_row(const char *label, int bits, const char *json, uint64_t c[7]) {
  uint64_t injected = 0, not_injected = 0;
  ASSERT_EQ(json_u64(json, "injected", &injected), 0);
  ASSERT_EQ(json_u64(json, "not_injected", &not_injected), 0);
  printf("| %s | %d | %ju |", label, bits, (uintmax_t)injected);
  for (int o = 0; o < 7; o++) printf(" %ju |", (uintmax_t)(c[o] = outcome(json, outcome_keys[o])));
  printf(" %ju |\n", (uintmax_t)not_injected);
  fflush(stdout);
  /* every fault must land: otherwise the campaign tests less than it says */
  ASSERT_EQ(not_injected, 0u);
  return injected;
}

/* A campaign's rows for 1 and 2 bits on `path` (the --at alternatives, seed 27, as
 * many runs as the build allows: `runs` normally, `runs_san` under the sanitizers),
 * with SIMCUDA_DEVICES=devices. Fails on silent corruption, a crash or a hang, and on
 * a fault not repaired (detected-uncorrectable) at the bit counts in `repaired`
 * (bit b set: b bits). Every row: one fault per run. */
static void campaign_rows(const char *label, const char *path, const char *devices, const char *const *at,
                          int runs, int runs_san, unsigned repaired) {
  int nr = ft_test_timeout_scale() > 1 ? runs_san : runs;
  char n[16];
  snprintf(n, sizeof n, "%d", nr);
  for (int bits = 1; bits <= 2; bits++) {
    char b[4];
    snprintf(b, sizeof b, "%d", bits);
    const char *args[32] = {"-n", n, "--json", "--seed", "27", "--bits", b};
    int k = 7;
    for (int a = 0; at[a] && k < 28; a++) args[k++] = "--at", args[k++] = at[a];
    args[k++] = "--";
    args[k++] = path;
    proc_result_t r = campaign(args, devices, NULL);
    uint64_t c[7];
    ASSERT_EQ(campaign_row(label, bits, r.out, c), (uint64_t)nr);
    if (c[4] || c[5] || c[6]) FT_FAIL_("%s, %d bit(s): silent corruption, crash or hang:\n%s", label, bits, r.out);
    if ((repaired >> bits & 1) && c[3]) FT_FAIL_("%s, %d bit(s): a fault not repaired:\n%s", label, bits, r.out);
    uint64_t several = 1;
    ASSERT_EQ(json_u64(r.out, "runs_with_several_faults", &several), 0);
    ASSERT_EQ(several, 0u); /* one process: one fault per run */
    proc_free(&r);
  }
}

/* Faults at rest on each device of the 2-device halo exchange (halo_multi_gpu: step s
 * launches step_kernel on device 0, then on device 1, so launch 2s+1 is device 0's and
 * 2s+2 device 1's; its final read-backs are device 0's, then device 1's): each
 * kernel's input just before it reads it, and each device's result before it is read
 * back. And the IPC pair (simple_ipc): a fault before each process's first read-back
 * strikes both (GPUFT_INJECT is inherited by the child the program forks and execs):
 * the child's own buffer, protected, and the buffer the parent exported, which left
 * protection when exported (gpuft warns) — that fault reaches the program, whose own
 * check fails: the campaign counts it as the failure it is, never as repaired.
 * Asserted: every fault lands, no silent corruption, no hang; on the halo exchange no
 * crash either; every single- and double-bit fault repaired on both devices (an
 * epoch spanning both is replayed, each operation in its own context; snapshots
 * span both contexts; the 8 of 64 double-bit faults that struck after the program
 * freed device 0's buffers, which the log since the start of the run needs, were
 * detected and unrecoverable until gpuft held such frees, 2026-11-27:
 * docs/campaign.md, "Two devices and IPC", gives the tables). */
TEST_IMPL(devices_campaign) {
  if (!*SAMPLE_halo_multi_gpu || !*SAMPLE_simple_ipc) return TEST_SKIPF("samples not built (no nvcc)");
  static const char *const dev0[] = {"launch:step_kernel:1,target=arg:0", "launch:step_kernel:9,target=arg:0",
                                     "launch:step_kernel:15,target=arg:0", "d2h:1", NULL};
  static const char *const dev1[] = {"launch:step_kernel:2,target=arg:0", "launch:step_kernel:10,target=arg:0",
                                     "launch:step_kernel:16,target=arg:0", "d2h:2", NULL};
  campaign_header();
  campaign_rows("halo_multi_gpu, device 0", SAMPLE_halo_multi_gpu, "2", dev0, 32, 16, 3u << 1);
  campaign_rows("halo_multi_gpu, device 1", SAMPLE_halo_multi_gpu, "2", dev1, 32, 16, 3u << 1);
  for (int bits = 1; bits <= 2; bits++) {
    char b[4];
    snprintf(b, sizeof b, "%d", bits);
    const char *args[] = {"-n", "8", "--json", "--seed", "27", "--bits", b, "--at", "d2h:1", "--",
                          SAMPLE_simple_ipc, NULL};
    proc_result_t r = campaign(args, "1", NULL);
    uint64_t c[7];
    ASSERT_EQ(campaign_row("simple_ipc (parent: exported buffer; child: its own)", bits, r.out, c), 8u);
    /* both processes struck, and counted so */
    uint64_t several = 0;
    ASSERT_EQ(json_u64(r.out, "runs_with_several_faults", &several), 0);
    ASSERT_EQ(several, 8u);
    /* the exported buffer's damage reached the program: never counted as repaired */
    if (c[0] || c[1] || c[2] || c[4] || c[6] || c[5] != 8)
      FT_FAIL_("simple_ipc, %d bit(s): a fault in exported memory not counted as the failure it is:\n%s", bits,
               r.out);
    proc_free(&r);
  }
  return TEST_OK;
}

/* A report's counter, the test failing when it is missing. */
static uint64_t report_u64(const char *json, const char *key) {
  uint64_t v = 0;
  if (!json || json_u64(json, key, &v) != 0) FT_FAIL_("no %s in the report:\n%s", key, json ? json : "");
  return v;
}

/* A VMM-backed pool that grows while its tensors live and then shrinks (issue 27):
 * under gpuft in both modes, fault-free, the segment is one protected object all
 * along (one record, grown and shrunk in place: its codes copied, never re-encoded),
 * nothing detected; a flipped bit before a read-back is corrected. One physical
 * chunk mapped twice, written through one mapping and read through the other, is
 * left unprotected with a warning, and its result is right (gpuft never "repairs"
 * what the other mapping wrote). Two runs joined by the chunk mapped between them and
 * parted again by its unmap keep their data and codes (formed anew each time, the
 * codes copied): nothing detected, a flip after the parting corrected. */
TEST_IMPL(vmm_pool_under_gpuft) {
  if (!*SAMPLE_vmm_pool) return TEST_SKIPF("samples not built (no nvcc)");
  both_modes_and_flip("vmm_pool", SAMPLE_vmm_pool, NULL, "GPUFT_INJECT=at=d2h:1,target=src,bits=1,seed=11");
  char rep[128], env_rep[160];
  snprintf(rep, sizeof rep, "/tmp/gpuft-vmmpool-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD=" GPUFT_LIB, env_rep, NULL};
  static const char *const modes[] = {NULL, "alias", "holes", "holes"};
  for (int m = 0; m < 4; m++) {
    const char *argv[] = {SAMPLE_vmm_pool, modes[m], NULL};
    /* the last: a flip in chunk 0 after the hole beside it was unmapped */
    const char *fenv[] = {env[0], env[1], env[2], env[3], "GPUFT_INJECT=at=d2h:4,target=src,bits=1,seed=11", NULL};
    proc_result_t r;
    ASSERT_EQ(proc_run(argv, m == 3 ? fenv : env, 120, &r), 0);
    if (r.status != 0 || !strstr(r.out, "PASSED"))
      FT_FAIL_("vmm_pool %s: exit %d\n%s%s", modes[m] ? modes[m] : "", r.status, r.out, r.err);
    int alias = m == 1;
    char *json = read_file(rep);
    unlink(rep);
    ASSERT_EQ(report_u64(json, "detected"), m == 3 ? 1u : 0u);
    ASSERT_EQ(report_u64(json, "corrected"), m == 3 ? 1u : 0u);
    ASSERT_EQ(report_u64(json, "unprotected_ops"), 0u);
    if (m >= 2) {
      /* two runs, joined into one by the chunk between them, then two again: two
       * allocations, formed five times, each with the codes of the ones before */
      ASSERT_EQ(report_u64(json, "allocations"), 2u);
      ASSERT_EQ(report_u64(json, "allocations_unprotected"), 0u);
      ASSERT_EQ(report_u64(json, "vmm_runs"), 5u);
    } else if (!alias) {
      /* 11 chunks mapped one by one, 5 unmapped: one allocation, protected, 22 MiB at
       * its largest, every growth and shrink followed */
      ASSERT_EQ(report_u64(json, "allocations"), 1u);
      ASSERT_EQ(report_u64(json, "allocations_unprotected"), 0u);
      ASSERT_EQ(report_u64(json, "protected"), (uint64_t)22 << 20);
      ASSERT_EQ(report_u64(json, "vmm_runs"), 1u);
      ASSERT_EQ(report_u64(json, "launches_protected"), report_u64(json, "launches"));
    } else {
      ASSERT_EQ(report_u64(json, "allocations_unprotected"), report_u64(json, "allocations"));
      ASSERT(strstr(r.err, "mapped with the VMM API that another mapping or process can write"));
    }
    free(json);
    proc_free(&r);
  }
  return TEST_OK;
}

/* Campaigns of 1- and 2-bit faults at rest in the growing pool (issue 27, item 4):
 * a kernel's inputs just before it reads them, in the growth phase (each window from
 * the argument's tensor to the end of the run: later tensors and never-written
 * memory too), and a tensor before its read-back. Asserted: every fault lands, no
 * silent corruption, crash or hang, and every fault that mattered repaired. */
TEST_IMPL(vmm_pool_campaign) {
  if (!*SAMPLE_vmm_pool) return TEST_SKIPF("samples not built (no nvcc)");
  static const char *const at[] = {"launch:mix:3,target=arg:1", "launch:mix:10,target=arg:0",
                                   "launch:mix:20,target=arg:1", "d2h:3", NULL};
  campaign_header();
  campaign_rows("vmm_pool (growing VMM segment)", SAMPLE_vmm_pool, "1", at, 12, 6, 3u << 1);
  return TEST_OK;
}

/* A launch the driver refuses (a cooperative grid one block too large) neither ran
 * nor was checked: gpuft's report does not count it (it counted it as checked). */
TEST_IMPL(refused_launch_not_counted) {
  if (!*SAMPLE_grid_sync_static) return TEST_SKIPF("samples not built (no nvcc)");
  char rep[128], env_rep[160];
  snprintf(rep, sizeof rep, "/tmp/gpuft-refused-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD=" GPUFT_LIB, env_rep, NULL};
  const char *argv[] = {SAMPLE_grid_sync_static, NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 120 * ft_test_timeout_scale(), &r), 0);
  if (r.status != 0 || !strstr(r.out, "cudaErrorCooperativeLaunchTooLarge"))
    FT_FAIL_("grid_sync_static: exit %d\n%s%s", r.status, r.out, r.err);
  char *json = read_file(rep);
  unlink(rep);
  /* four cooperative launches ran (the reduction twice: cudaLaunchCooperativeKernel
   * and cudaLaunchKernelEx with the attribute; the CG solver; the ring shift) and the
   * captured graph twice; the refused one did not */
  ASSERT_EQ(report_u64(json, "launches"), 6u);
  ASSERT_EQ(report_u64(json, "launches_protected"), 6u);
  ASSERT_EQ(report_u64(json, "graph_launches_protected"), 2u);
  free(json);
  proc_free(&r);
  return TEST_OK;
}

/* Campaigns on the graph samples (issue 24, item 4): 1- and 2-bit faults at a random
 * driver call in a random protected allocation, through stream capture, conditional
 * while nodes (graph_conditional: protected as its nodes, the loop's body included,
 * relaunched by a replay) and graphs with host copies (graph_jacobi: protected as
 * their nodes, relaunched while the program has not seen their host copies).
 * Asserted: every fault lands, no silent corruption, crash or hang, every fault
 * repaired. Three things this found: an unknown writer
 * re-encoded an upload the host had not seen finish without checking it first (a flip
 * in it became data: the sample failed its own check); GPUFT_INJECT synchronised the
 * context during a capture and invalidated it (the program failed); a graph launch got
 * no check before use (a flip at rest was found only after the graph read it, and
 * such a graph could not be replayed: now it can, until the program may look at what
 * it copied to the host). graph_conditional, 2 bits: 2 of 12 detected-uncorrectable
 * while its launches were unknown writers (2026-11-27), none since. */
TEST_IMPL(graph_samples_campaign) {
  if (!*SAMPLE_graph_conditional || !*SAMPLE_graph_jacobi || !*SAMPLE_graph_switch || !*SAMPLE_capture_threads)
    return TEST_SKIPF("samples not built (no nvcc)");
  static const char *const cond[] = {"call:6-36", NULL}, *const jac[] = {"call:20-180", NULL},
                           *const sw[] = {"call:14-70", NULL};
  campaign_header();
  campaign_rows("graph_conditional (while node)", SAMPLE_graph_conditional, "1", cond, 12, 6, 3u << 1);
  campaign_rows("graph_switch (switch, nested if and while)", SAMPLE_graph_switch, "1", sw, 12, 6, 3u << 1);
  campaign_rows("graph_jacobi (host copies in the graph)", SAMPLE_graph_jacobi, "1", jac, 12, 6, 3u << 1);
  /* a capture beside a loader thread: faults in the loader's read-backs and before
   * its kernels during the capture (found and repaired there without ending it).
   * Not at a call number: the loader polls an event, so the count of calls varies
   * from run to run (call 518 of a 553-call golden run was never reached once) */
  static const char *const ct[] = {"d2h:1", "d2h:4", "d2h:7", "d2h:10", "d2h:12",
                                   "launch:normalise:2", "launch:normalise:9", NULL};
  campaign_rows("capture_threads (capture beside a loader)", SAMPLE_capture_threads, "1", ct, 12, 6, 3u << 1);
  return TEST_OK;
}

TEST_IMPL(clean_under_ub_check) {
  if (!*SAMPLE_matmul_tiled) return TEST_SKIPF("samples not built (no nvcc)");
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
    const char *argv[] = {samples[i].path, NULL};
    const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD",
                         "SIMCUDA_CHECK_UB=2", NULL};
    proc_result_t r;
    ASSERT_EQ(proc_run(argv, env, (int)(120 * ft_test_timeout_scale()), &r), 0);
    if (r.status != 0 || !strstr(r.out, "PASSED") || strstr(r.err, "undefined behaviour"))
      FT_FAIL_("%s under SIMCUDA_CHECK_UB=2: exit %d\nstdout:\n%s\nstderr:\n%s", samples[i].name, r.status,
               r.out, r.err);
    proc_free(&r);
  }
  return TEST_OK;
}

/* Every sample with every kernel translated to host code at its first block
 * (SIMCUDA_JIT=2, a cache of its own, the UB check off so that the translation's
 * own shared-memory accesses run): its own check passes, and no translation fails. */
TEST_IMPL(all_translated) {
  if (!*SAMPLE_matmul_tiled) return TEST_SKIPF("samples not built (no nvcc)");
  if (proc_real_driver()) return TEST_SKIPF("the simulator's translation");
  char dir[] = "/tmp/simcuda-jit-test-XXXXXX", env_dir[96], cmd[128];
  ASSERT(mkdtemp(dir) != NULL);
  snprintf(env_dir, sizeof env_dir, "SIMCUDA_JIT_CACHE=%s", dir);
  uint64_t translated = 0;
  /* at the first block (the launch waits), then (from the cache) on a thread of
   * its own beside the running kernel, which switches to it between blocks */
  static const char *const modes[2][2] = {{"SIMCUDA_JIT=2", "SIMCUDA_JIT_AFTER=1000000000"},
                                          {"SIMCUDA_JIT=1", "SIMCUDA_JIT_AFTER=0"}};
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
    for (int m = 0; m < 2; m++) {
      const char *argv[] = {samples[i].path, NULL};
      const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", "SIMCUDA_CHECK_UB=0",
                           modes[m][0], modes[m][1], "SIMCUDA_STATS=1", env_dir, NULL};
      proc_result_t r;
      ASSERT_EQ(proc_run(argv, env, (int)(300 * ft_test_timeout_scale()), &r), 0);
      const char *c = strstr(r.err, "jit_compiled="), *k = strstr(r.err, "jit_cached="), *f = strstr(r.err, "jit_failed=");
      if (r.status != 0 || !strstr(r.out, "PASSED") || !c || !k || !f || strtoull(f + 11, NULL, 10) != 0)
        FT_FAIL_("%s translated (%s): exit %d\nstdout:\n%s\nstderr:\n%s", samples[i].name, modes[m][0], r.status,
                 r.out, r.err);
      if (m == 0) translated += strtoull(c + 13, NULL, 10) + strtoull(k + 11, NULL, 10);
      proc_free(&r);
    }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ASSERT_EQ(system(cmd), 0);
  /* most samples' kernels have straight lines to translate (a kernel with none is
   * left to the interpreter, counted in neither) */
  ASSERT(translated >= sizeof samples / sizeof *samples);
  return TEST_OK;
}

/* Verify before use (issue 28): single and double flips at rest in what kernels
 * follow as indices (index_walk: CSR row pointers and column indices, a gather's
 * index table, a trip count in device memory; with "table", a table of pointers),
 * each just before a kernel reads it. Without the check before the read (the
 * baseline, GPUFT_VERIFY_BEFORE_USE=0, printed, not asserted) the kernel follows the
 * corrupted index: the context is lost or the loop runs on. With it: no crash, no
 * hang, no silent corruption, nothing left unrepaired: in the pointer table too,
 * since the analysis names the arguments a kernel loads its pointers from (before,
 * it was taken to reach every buffer, and two bits there crashed every run). */
TEST_IMPL(index_walk_campaign) {
  if (!*SAMPLE_index_walk) return TEST_SKIPF("sample index_walk not built (no nvcc)");
  static const struct {
    const char *label, *at, *arg;
    int bits_max;
  } t[] = {
      {"CSR row pointers", "launch:spmv:2-20,target=arg:0", NULL, 2},
      {"CSR column indices", "launch:spmv:2-20,target=arg:1", NULL, 2},
      {"gather index table", "launch:gather:2-20,target=arg:0", NULL, 2},
      {"trip count in device memory", "launch:smooth:2-20,target=arg:0", NULL, 2},
      {"table of pointers", "launch:through_table:2-20,target=arg:0", "table", 2},
  };
  const int runs = ft_test_timeout_scale() > 1 ? 6 : 16;
  char n[16];
  snprintf(n, sizeof n, "%d", runs);
  printf("| index data | bits | gpuft | injected | masked | corrected | recovered | detected-uncorrectable | SDC "
         "| crash | hang | not injected |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < sizeof t / sizeof *t; i++)
    for (int bits = 1; bits <= 2; bits++)
      for (int before = 0; before < 2; before++) {
        char b[4], label[96];
        snprintf(b, sizeof b, "%d", bits);
        snprintf(label, sizeof label, "%s | %d | %s", t[i].label, bits,
                 before ? "checked before use" : "checked after (baseline)");
        const char *args[] = {"-n", n, "--json", "--seed", "28", "--bits", b, "--at", t[i].at, "--",
                              SAMPLE_index_walk, t[i].arg, NULL};
        proc_result_t r = campaign(args, "1", before ? NULL : "GPUFT_VERIFY_BEFORE_USE=0");
        uint64_t c[7], injected = 0, not_injected = 0;
        ASSERT_EQ(json_u64(r.out, "injected", &injected), 0);
        ASSERT_EQ(json_u64(r.out, "not_injected", &not_injected), 0);
        printf("| %s | %ju |", label, (uintmax_t)injected);
        for (int o = 0; o < 7; o++) printf(" %ju |", (uintmax_t)(c[o] = outcome(r.out, outcome_keys[o])));
        printf(" %ju |\n", (uintmax_t)not_injected);
        fflush(stdout);
        ASSERT_EQ(not_injected, 0u);
        ASSERT_EQ(injected, (uint64_t)runs);
        if (before && bits <= t[i].bits_max && (c[3] || c[4] || c[5] || c[6] || c[1] + c[2] != (uint64_t)runs))
          FT_FAIL_("%s, %d bit(s), checked before use: not every fault repaired before the read:\n%s",
                   t[i].label, bits, r.out);
        proc_free(&r);
      }
  return TEST_OK;
}

/* Verify before use repairs on the device: a flip in the group two unordered streams
 * share (stream A reads its first bytes, stream B rewrites the rest, each round),
 * found by the check before A's kernel and repaired while B's kernel may be writing
 * the same group. B's stream waits for the repair (ledger.c, ft_jobs_void_unordered):
 * a repair could otherwise write old bytes over B's. 1- and 2-bit flips at several
 * places of the shared group, in A's bytes, each 4 times (timing varies). */
TEST_IMPL(repair_beside_unordered_writer) {
  if (!*SAMPLE_shared_group) return TEST_SKIPF("sample shared_group not built (no nvcc)");
  int runs = 0;
  for (int launch = 2; launch <= 5; launch++)
    for (int bits = 1; bits <= 2; bits++) {
      char inj[160];
      /* bytes 8192..8319 of the buffer: A's part of the third group */
      snprintf(inj, sizeof inj, "GPUFT_INJECT=at=launch:read_part:%d,target=arg:0,offset=%d,bit=%s", launch,
               8192 + 40 * launch, bits == 1 ? "5" : "3+70");
      const char *extra[] = {inj, NULL};
      for (int rep = 0; rep < 4; rep++) {
        proc_result_t r;
        uint64_t det = 0, unc = 0;
        if (under_gpuft(SAMPLE_shared_group, extra, &r, &det, &unc) != 0)
          FT_FAIL_("%s: exit %d, no report\n%s", inj, r.status, r.err);
        /* a single bit: repaired before the read (from the code), every time. Two
         * bits (no checkpoint: stream B rewrote the buffer): repaired, or the program
         * told (uncorrectable: the epoch cannot rewrite bytes only A reads); never a
         * wrong answer and never one said to be recovered */
        int passed = r.status == 0 && strstr(r.out, "PASSED");
        if (bits == 1 ? !passed || unc : !(passed ? unc == 0 : r.status != 0 && unc > 0))
          FT_FAIL_("%s: exit %d, %ju detected, %ju uncorrectable\n%s\n%s", inj, r.status, (uintmax_t)det,
                   (uintmax_t)unc, r.out, r.err);
        proc_free(&r);
        runs++;
      }
    }
  printf("# %d runs, every flip repaired beside the other stream's writes\n", runs);
  return TEST_OK;
}

/* GPUFT_MODE=detect never modifies data, checks before use included: a flip in the
 * gather's index table before each of several launches is found (reported, the
 * program told) and left as it is (no repair before use counted). */
/* A stream that waits on a value another stream writes later (value_wait): once the
 * program waits on values, a check before use only checks (a repair that a later
 * writer of the buffer were made to wait for could never run: the waiting stream
 * waits for that writer). Under gpuft the program ends, right, every time: fault
 * free, and with a flip in the index table (found before the gather and after it,
 * repaired after it, the epoch replayed: the gather's output is right again, or
 * the program is told). Never a hang, never a silent wrong answer. */
TEST_IMPL(value_waits_do_not_deadlock_repairs) {
  if (!*SAMPLE_value_wait) return TEST_SKIPF("sample value_wait not built (no nvcc)");
  const char *argv[] = {SAMPLE_value_wait, NULL};
  const char *nat_env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", NULL};
  proc_result_t nat;
  ASSERT_EQ(proc_run(argv, nat_env, 60, &nat), 0);
  ASSERT_EQ(nat.status, 0);
  for (int k = 0; k <= 4; k++) {
    char inj[128], rep[128], env_rep[160];
    /* k = 0: no fault; else one bit of the table as the k-th gather starts: the
     * simulator's injector (gpuft's makes the context idle first, which a stream
     * waiting on a value not written yet never is: it refuses, below) */
    snprintf(inj, sizeof inj, k ? "SIMCUDA_FLIP=before=launch:gather:%d,arg=0,offset=%d,bits=%d" : "GPUFT_X=%d%d%d",
             k + 1, 4 * (k * 331), 1 << (k % 3));
    snprintf(rep, sizeof rep, "/tmp/gpuft-vwait-%d.json", (int)getpid());
    snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
    const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD=" GPUFT_LIB, env_rep,
                         "GPUFT_LOG=info", inj, NULL};
    proc_result_t r;
    ASSERT_EQ(proc_run(argv, env, 60, &r), 0); /* (a deadlock: the runner's timeout) */
    char *json = read_file(rep);
    unlink(rep);
    uint64_t det = 0, unc = 0, fixed = 1;
    if (!json || json_u64(json, "detected", &det) || json_u64(json, "uncorrectable", &unc) ||
        json_u64(json, "repaired_before_use", &fixed))
      FT_FAIL_("%s: no report (exit %d)\n%s", inj, r.status, r.err);
    free(json);
    if (!strstr(r.err, "waits on values in streams"))
      FT_FAIL_("%s: the fallback was not announced\n%s", inj, r.err);
    if (fixed) FT_FAIL_("%s: %ju repaired before use while values are awaited\n%s", inj, (uintmax_t)fixed, r.err);
    if (k && det < 1) FT_FAIL_("%s: the flip was not found\n%s", inj, r.err);
    /* right, or told: never a wrong answer with exit 0 */
    if (r.status == 0 && strcmp(r.out, nat.out))
      FT_FAIL_("%s: a wrong answer\n%s\nnative:\n%s", inj, r.out, nat.out);
    if (r.status != 0 && !unc) FT_FAIL_("%s: exit %d without an uncorrectable error\n%s", inj, r.status, r.err);
    if (!k && (r.status != 0 || det)) FT_FAIL_("fault free: exit %d, %ju detected\n%s", r.status, (uintmax_t)det, r.err);
    printf("# %s: exit %d, %ju detected, %ju uncorrectable\n", k ? inj + 13 : "no fault", r.status, (uintmax_t)det,
           (uintmax_t)unc);
    proc_free(&r);
  }
  proc_free(&nat);
  /* gpuft's injector refuses, with its reason, and the run ends */
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD=" GPUFT_LIB,
                       "GPUFT_INJECT=at=launch:gather:2,target=arg:0,offset=8,bit=1", NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 60, &r), 0);
  ASSERT_EQ(r.status, 0);
  if (!strstr(r.err, "waits on values in streams (a flip at rest needs the context idle"))
    FT_FAIL_("gpuft's injector did not say why it struck nothing\n%s", r.err);
  proc_free(&r);
  return TEST_OK;
}

/* After a kernel fault, the simulator keeps the error (NVIDIA: "the process must be
 * terminated and relaunched"): a primary-context reset succeeds, new work does not
 * run. The same program asks a real driver in tools/gpu-acceptance (issue 28's
 * context resurrection depends on its answer). */
TEST_IMPL(sticky_error_survives_a_reset) {
  if (!*SAMPLE_sticky_reset) return TEST_SKIPF("sample sticky_reset not built (no nvcc)");
  const char *argv[] = {SAMPLE_sticky_reset, NULL};
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 60, &r), 0);
  ASSERT_EQ(r.status, 0);
  static const char *const want[] = {"fault:    cudaErrorIllegalAddress\n",
                                     "sticky:   yes (a later cudaMalloc: cudaErrorIllegalAddress)\n",
                                     "reset:    success\n", "new work: no (cudaErrorIllegalAddress)\n",
                                     "same va:  no", "sticky_reset: done\n"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    if (!strstr(r.out, want[i])) FT_FAIL_("expected \"%s\" in:\n%s%s", want[i], r.out, r.err);
  proc_free(&r);
  return TEST_OK;
}

/* gpuft --restarts=N (issue 28, item 2, as a GPU allows it: a process cannot use the
 * GPU again after a kernel's fault, docs/design.md "Bringing back a lost context"): a
 * flip in a CSR column index that the check before use is told not to catch sends
 * spmv out of bounds (illegal address); the report says the context was lost, and the
 * launcher runs the program again from the start, whose output is the fault-free
 * run's, byte for byte. A program that faults every time is run N + 1 times, then its
 * failure is the launcher's. */
TEST_IMPL(restart_after_lost_context) {
  if (!*SAMPLE_index_walk || !*SAMPLE_sticky_reset) return TEST_SKIPF("samples not built (no nvcc)");
  char rep[128], env_rep[160];
  snprintf(rep, sizeof rep, "/tmp/gpuft-restart-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *inj = "GPUFT_INJECT=at=launch:spmv:2,target=arg:1,offset=4,bit=30";
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", env_rep,
                       "GPUFT_VERIFY_BEFORE_USE=0", NULL, NULL};
  const char *plain[] = {GPUFT_LAUNCHER, "--", SAMPLE_index_walk, NULL};
  proc_result_t ok, r;
  ASSERT_EQ(proc_run(plain, env, 120, &ok), 0);
  ASSERT_EQ(ok.status, 0);
  ASSERT(strstr(ok.out, "index_walk: PASSED"));
  /* without restarts: the loss, in the summary and the report */
  env[5] = inj;
  ASSERT_EQ(proc_run(plain, env, 120, &r), 0);
  ASSERT(r.status != 0);
  if (!strstr(r.err, "gpuft: the GPU context was lost (CUDA_ERROR_ILLEGAL_ADDRESS"))
    FT_FAIL_("no word of the lost context:\n%s", r.err);
  char *json = read_file(rep);
  ASSERT(json != NULL);
  const char *cl = strstr(json, "\"context_lost\": {");
  if (!cl || !strstr(cl, "\"name\": \"CUDA_ERROR_ILLEGAL_ADDRESS\"")) FT_FAIL_("report:\n%s", json);
  free(json);
  proc_free(&r);
  /* with one restart: the second run is the fault-free one */
  const char *again[] = {GPUFT_LAUNCHER, "--restarts=1", "--", SAMPLE_index_walk, NULL};
  ASSERT_EQ(proc_run(again, env, 240, &r), 0);
  size_t lo = strlen(ok.out), lr = strlen(r.out);
  if (r.status != 0 || lr < lo || strcmp(r.out + lr - lo, ok.out) != 0 ||
      !strstr(r.err, "running it again from the start (restart 1 of 1)"))
    FT_FAIL_("exit %d\nstdout:\n%s\nfault-free:\n%s\nstderr:\n%s", r.status, r.out, ok.out, r.err);
  proc_free(&r);
  /* a fault every time: N + 1 runs, then the program's own exit status */
  env[5] = NULL;
  const char *die[] = {GPUFT_LAUNCHER, "--restarts=2", "--", SAMPLE_sticky_reset, "--die", NULL};
  ASSERT_EQ(proc_run(die, env, 240, &r), 0);
  if (r.status != 1 || !strstr(r.err, "(restart 2 of 2)") || strstr(r.err, "restart 3"))
    FT_FAIL_("exit %d\n%s", r.status, r.err);
  proc_free(&r);
  /* a program that ends well after the loss (sticky_reset goes on to probe) is done */
  const char *probe[] = {GPUFT_LAUNCHER, "--restarts=2", "--", SAMPLE_sticky_reset, NULL};
  ASSERT_EQ(proc_run(probe, env, 240, &r), 0);
  if (r.status != 0 || strstr(r.err, "running it again")) FT_FAIL_("exit %d\n%s", r.status, r.err);
  proc_free(&r);
  proc_free(&ok);
  unlink(rep);
  return TEST_OK;
}

/* gpuft campaign --restarts: the aimed CSR column-index flips of index_walk_campaign,
 * with the check before use turned off so that they crash the kernel: without
 * restarts most runs crash; with one, each run that lost its context runs again and
 * is counted recovered, none crashes, none is silent. */
TEST_IMPL(campaign_restarts_lost_contexts) {
  if (!*SAMPLE_index_walk) return TEST_SKIPF("sample index_walk not built (no nvcc)");
  uint64_t crash[2] = {0, 0}, restarted[2] = {0, 0};
  for (int rs = 0; rs < 2; rs++) {
    const char *args[] = {"-n", "8", "--json", "--seed", "28", "--bits", "2", "--at", "launch:spmv:2-20,target=arg:1",
                          "--restarts", rs ? "1" : "0", "--", SAMPLE_index_walk, NULL};
    proc_result_t r = campaign(args, "1", "GPUFT_VERIFY_BEFORE_USE=0");
    uint64_t injected = 0;
    ASSERT_EQ(json_u64(r.out, "injected", &injected), 0);
    ASSERT_EQ(injected, 8u);
    crash[rs] = outcome(r.out, "crash");
    ASSERT_EQ(json_u64(r.out, "restarted", &restarted[rs]), 0);
    ASSERT_EQ(outcome(r.out, "sdc"), 0u);
    if (rs && (crash[1] || outcome(r.out, "recovered") + outcome(r.out, "corrected") + outcome(r.out, "masked") != 8))
      FT_FAIL_("with restarts:\n%s", r.out);
    proc_free(&r);
  }
  printf("# without restarts %ju of 8 crashed; with one restart 0 crashed (%ju restarted)\n", (uintmax_t)crash[0],
         (uintmax_t)restarted[1]);
  ASSERT_GT(crash[0], 0u);
  ASSERT_EQ(restarted[0], 0u);
  ASSERT_EQ(restarted[1], crash[0]); /* the same seeds: the same runs lost their context */
  return TEST_OK;
}

TEST_IMPL(detect_mode_repairs_nothing_before_use) {
  if (!*SAMPLE_index_walk) return TEST_SKIPF("sample index_walk not built (no nvcc)");
  for (int launch = 2; launch <= 6; launch++) {
    char inj[128], rep[128], env_rep[160];
    snprintf(inj, sizeof inj, "GPUFT_INJECT=at=launch:gather:%d,target=arg:0,offset=%d,bit=%d", launch,
             4 * (launch * 97), launch % 8);
    snprintf(rep, sizeof rep, "/tmp/gpuft-detect-%d.json", (int)getpid());
    snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
    const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD=" GPUFT_LIB, env_rep,
                         inj, "GPUFT_MODE=detect", NULL};
    const char *argv[] = {SAMPLE_index_walk, NULL};
    proc_result_t r;
    ASSERT_EQ(proc_run(argv, env, 120, &r), 0);
    char *json = read_file(rep);
    unlink(rep);
    uint64_t det = 0, unc = 0, cor = 0, fixed = 1;
    if (!json || json_u64(json, "detected", &det) || json_u64(json, "uncorrectable", &unc) ||
        json_u64(json, "corrected", &cor) || json_u64(json, "repaired_before_use", &fixed))
      FT_FAIL_("%s: no report\n%s", inj, r.err);
    free(json);
    if (det < 1 || unc < 1 || cor || fixed || r.status == 0)
      FT_FAIL_("%s: exit %d, %ju detected, %ju uncorrectable, %ju corrected, %ju repaired before use\n%s",
               inj, r.status, (uintmax_t)det, (uintmax_t)unc, (uintmax_t)cor, (uintmax_t)fixed, r.err);
    proc_free(&r);
  }
  return TEST_OK;
}
