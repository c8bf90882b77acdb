/* test_accesscheck.c: runs the programs of tests/apps, tests/samples and
 * tests/staticrt on the simulator's interpreter (SIMCUDA_TWINS=0) with
 * SIMCUDA_CHECK_ACCESS, and reads the simulator's verdict from its counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "runner.h"

typedef struct {
  const char *name;
  const char *argv[6];
} prog_t;

#define NOT_BUILT ""
#ifndef APP_VECADD
#define APP_VECADD NOT_BUILT
#define APP_SGEMM NOT_BUILT
#define APP_JACOBI NOT_BUILT
#define APP_MULTISTREAM NOT_BUILT
#define APP_MULTISTREAM_PTDS NOT_BUILT
#define APP_SIMPLESTREAMS NOT_BUILT
#define APP_USERPATTERNS NOT_BUILT
#endif
#ifndef SAMPLE_matmul_tiled
#define SAMPLE_matmul_tiled NOT_BUILT
#define SAMPLE_reduce_shfl NOT_BUILT
#define SAMPLE_scan NOT_BUILT
#define SAMPLE_histogram NOT_BUILT
#define SAMPLE_transpose NOT_BUILT
#define SAMPLE_nbody NOT_BUILT
#define SAMPLE_stencil2d NOT_BUILT
#define SAMPLE_cg_csr NOT_BUILT
#define SAMPLE_streams NOT_BUILT
#define SAMPLE_vote_ballot NOT_BUILT
#endif
#ifndef SAMPLE_reduce_ballot
#define SAMPLE_reduce_ballot NOT_BUILT
#endif
#ifndef SAMPLE_diff_warp
#define SAMPLE_diff_warp NOT_BUILT
#endif
#ifndef SAMPLE_diff_float
#define SAMPLE_diff_float NOT_BUILT
#endif
#ifndef SAMPLE_diff_int
#define SAMPLE_diff_int NOT_BUILT
#endif
#ifndef SAMPLE_diff_half
#define SAMPLE_diff_half NOT_BUILT
#endif
#ifndef SAMPLE_device_assert
#define SAMPLE_device_assert NOT_BUILT
#endif
#ifndef SAMPLE_occupancy
#define SAMPLE_occupancy NOT_BUILT
#endif
#ifndef SAMPLE_stream_attrs
#define SAMPLE_stream_attrs NOT_BUILT
#endif
#ifndef SAMPLE_mempool
#define SAMPLE_mempool NOT_BUILT
#endif
#ifndef SAMPLE_recursion
#define SAMPLE_recursion NOT_BUILT
#endif

#ifndef STATIC_APP
#define STATIC_APP NOT_BUILT
#endif
#ifndef SAMPLE_graphs_simple
#define SAMPLE_graphs_simple NOT_BUILT
#define SAMPLE_graph_jacobi NOT_BUILT
#define SAMPLE_graph_step NOT_BUILT
#define SAMPLE_graph_memnodes NOT_BUILT
#define SAMPLE_graph_conditional NOT_BUILT
#define SAMPLE_graph_switch NOT_BUILT
#define SAMPLE_capture_threads NOT_BUILT
#endif

static const prog_t apps[] = {
    {"vecadd", {APP_VECADD, "100000"}},
    {"sgemm", {APP_SGEMM, "128"}},
    {"jacobi", {APP_JACOBI, "128", "10"}},
    {"multistream", {APP_MULTISTREAM, "2", "3", "20000"}},
    {"multistream_ptds", {APP_MULTISTREAM_PTDS, "2", "3", "20000"}},
    {"simplestreams", {APP_SIMPLESTREAMS, "65536", "4", "2", "1"}},
    {"userpatterns", {APP_USERPATTERNS}},
};
static const prog_t samples[] = {
    {"matmul_tiled", {SAMPLE_matmul_tiled}}, {"reduce_shfl", {SAMPLE_reduce_shfl}},
    {"scan", {SAMPLE_scan}},                 {"histogram", {SAMPLE_histogram}},
    {"transpose", {SAMPLE_transpose}},       {"nbody", {SAMPLE_nbody}},
    {"stencil2d", {SAMPLE_stencil2d}},       {"cg_csr", {SAMPLE_cg_csr}},
    {"streams", {SAMPLE_streams}},           {"vote_ballot", {SAMPLE_vote_ballot}},
    {"reduce_ballot", {SAMPLE_reduce_ballot}},
    {"diff_warp", {SAMPLE_diff_warp}},
    {"diff_float", {SAMPLE_diff_float}},
    {"diff_int", {SAMPLE_diff_int}},
    {"diff_half", {SAMPLE_diff_half}},
    {"device_assert", {SAMPLE_device_assert}},
    {"occupancy", {SAMPLE_occupancy}},
    {"stream_attrs", {SAMPLE_stream_attrs}},
    {"mempool", {SAMPLE_mempool}},
    {"recursion", {SAMPLE_recursion}},
};
static const prog_t static_rt[] = {{"static_app", {STATIC_APP}}};
static const prog_t graphs[] = {
    {"graphs_simple", {SAMPLE_graphs_simple}},         {"graph_jacobi", {SAMPLE_graph_jacobi}},
    {"graph_step", {SAMPLE_graph_step}},               {"graph_memnodes", {SAMPLE_graph_memnodes}},
    {"graph_conditional", {SAMPLE_graph_conditional}}, {"graph_switch", {SAMPLE_graph_switch}},
    {"capture_threads", {SAMPLE_capture_threads}},
};

/* Runs p with SIMCUDA_CHECK_ACCESS=mode (natively when gpuft_check is NULL, else
 * under gpuft with GPUFT_CHECK=gpuft_check). The counters. */
static int run_checked_ex(const prog_t *p, const char *mode, const char *gpuft_check, uint64_t *checked,
                          uint64_t *violations, uint64_t *interpreted, proc_result_t *r) {
  char chk[64];
  snprintf(chk, sizeof chk, "GPUFT_CHECK=%s", gpuft_check ? gpuft_check : "launch");
  /* reduce_ballot has undefined behaviour on purpose (tests/samples checks that it
   * is reported): the check of undefined behaviour stays off for it */
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "SIMCUDA_STATS=1", mode,
                       gpuft_check ? "LD_PRELOAD=" GPUFT_LIB : "LD_PRELOAD", chk,
                       strcmp(p->name, "reduce_ballot") == 0 ? "SIMCUDA_CHECK_UB=0" : NULL, NULL};
  if (proc_run(p->argv, env, 100, r) != 0) return -1;
  *checked = sim_stat(r->err, "analysis_places_checked");
  *violations = sim_stat(r->err, "analysis_violations");
  *interpreted = sim_stat(r->err, "kernels_interpreted");
  return 0;
}

static int run_checked(const prog_t *p, const char *mode, uint64_t *checked, uint64_t *violations,
                       uint64_t *interpreted, proc_result_t *r) {
  return run_checked_ex(p, mode, NULL, checked, violations, interpreted, r);
}

/* Every program under gpuft, both GPUFT_CHECK modes: no store into an allocation
 * gpuft treated as unwritten by that launch (shim_violations), whatever the reason. */
static int no_unwritten_store_ex(const prog_t *progs, size_t n, int every);
static int no_unwritten_store(const prog_t *progs, size_t n) { return no_unwritten_store_ex(progs, n, 0); }
/* every: each interpreted launch (a graph's kernel nodes, conditional bodies
 * included) was checked against a declaration of gpuft's */
static int no_unwritten_store_ex(const prog_t *progs, size_t n, int every) {
  if (!*progs[0].argv[0]) return TEST_SKIPF("programs not built (no nvcc)");
  static const char *const checks[] = {"launch", "epoch"};
  for (size_t i = 0; i < n; i++)
    for (size_t c = 0; c < 2; c++) {
      proc_result_t r;
      uint64_t checked, violations, interpreted;
      ASSERT_EQ(run_checked_ex(&progs[i], "SIMCUDA_CHECK_ACCESS=1", checks[c], &checked, &violations,
                               &interpreted, &r), 0);
      if (r.status != 0) FT_FAIL_("%s under gpuft exited %d\n%s%s", progs[i].name, r.status, r.out, r.err);
      uint64_t shim = sim_stat(r.err, "shim_violations"), declared = sim_stat(r.err, "shim_launches_checked");
      if (shim || violations || strstr(r.err, "gpuft bug"))
        FT_FAIL_("%s (GPUFT_CHECK=%s): %ju stores into allocations gpuft treated as unwritten\n%s",
                 progs[i].name, checks[c], (uintmax_t)shim, r.err);
      if (!declared) FT_FAIL_("%s: gpuft declared no launch\n%s", progs[i].name, r.err);
      if (every && declared != interpreted)
        FT_FAIL_("%s (GPUFT_CHECK=%s): %ju of %ju interpreted launches checked against gpuft's decisions\n%s",
                 progs[i].name, checks[c], (uintmax_t)declared, (uintmax_t)interpreted, r.err);
      printf("# %s, GPUFT_CHECK=%s: %ju launches checked against gpuft's decisions, 0 violations\n",
             progs[i].name, checks[c], (uintmax_t)declared);
      proc_free(&r);
    }
  return TEST_OK;
}

TEST_IMPL(apps_under_gpuft_no_unwritten_store) { return no_unwritten_store(apps, sizeof apps / sizeof *apps); }
TEST_IMPL(samples_under_gpuft_no_unwritten_store) {
  return no_unwritten_store(samples, sizeof samples / sizeof *samples);
}
TEST_IMPL(static_runtime_under_gpuft_no_unwritten_store) { return no_unwritten_store(static_rt, 1); }
TEST_IMPL(graphs_under_gpuft_no_unwritten_store) {
  int v = no_unwritten_store_ex(graphs, sizeof graphs / sizeof *graphs, 1);
  if (v != TEST_OK) return v;
  /* the check sees a graph's stores: with gpuft's declaration taken as every
   * allocation (self-test), the kernel nodes of graph_conditional's while loop are
   * reported (before, graph launches were not checked at all) */
  proc_result_t r;
  uint64_t checked, violations, interpreted;
  ASSERT_EQ(run_checked_ex(&graphs[4], "SIMCUDA_CHECK_ACCESS=2", "launch", &checked, &violations, &interpreted, &r), 0);
  uint64_t shim = sim_stat(r.err, "shim_violations");
  if (!shim || !strstr(r.err, "gpuft bug: kernel ") || sim_stat(r.err, "shim_launches_checked") != interpreted)
    FT_FAIL_("graph_conditional: the self-test under gpuft reported %ju stores\n%s", (uintmax_t)shim, r.err);
  proc_free(&r);
  return TEST_OK;
}

static int no_read_place_written(const prog_t *progs, size_t n) {
  if (!*progs[0].argv[0]) return TEST_SKIPF("programs not built (no nvcc)");
  uint64_t total_checked = 0, total_ranges = 0;
  for (size_t i = 0; i < n; i++) {
    proc_result_t r;
    uint64_t checked, violations, interpreted;
    ASSERT_EQ(run_checked(&progs[i], "SIMCUDA_CHECK_ACCESS=1", &checked, &violations, &interpreted, &r), 0);
    if (r.status != 0) FT_FAIL_("%s exited %d\n%s%s", progs[i].name, r.status, r.out, r.err);
    uint64_t ranges = sim_stat(r.err, "range_checks"), outside = sim_stat(r.err, "range_violations");
    if (violations || outside || strstr(r.err, "analysis bug"))
      FT_FAIL_("%s: %ju launches stored into READ-only places' allocations, %ju accesses outside "
               "the places' byte ranges\n%s", progs[i].name, (uintmax_t)violations, (uintmax_t)outside, r.err);
    if (!interpreted) FT_FAIL_("%s: no kernel ran on the interpreter\n%s", progs[i].name, r.err);
    printf("# %s: %ju launches interpreted, %ju READ places checked, %ju access extents against "
           "byte ranges, 0 violations\n", progs[i].name, (uintmax_t)interpreted, (uintmax_t)checked,
           (uintmax_t)ranges);
    total_checked += checked;
    total_ranges += ranges;
    proc_free(&r);
  }
  ASSERT(total_checked > 0); /* the check looked at something */
  ASSERT(total_ranges > 0);  /* and so did the range check */
  return TEST_OK;
}

TEST_IMPL(apps_no_read_place_written) { return no_read_place_written(apps, sizeof apps / sizeof *apps); }
TEST_IMPL(samples_no_read_place_written) {
  return no_read_place_written(samples, sizeof samples / sizeof *samples);
}
TEST_IMPL(static_runtime_no_read_place_written) { return no_read_place_written(static_rt, 1); }

TEST_IMPL(self_test_reports_every_written_argument) {
  if (!*APP_VECADD || !*SAMPLE_histogram) return TEST_SKIPF("programs not built (no nvcc)");
  /* vecadd: one launch writing c; jacobi 128 x 10: every launch writes an argument
   * (sweeps and residual partials); histogram: atomics into its bins */
  const prog_t *progs[] = {&apps[0], &apps[2], &samples[3]};
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    proc_result_t r;
    uint64_t checked, violations, interpreted;
    ASSERT_EQ(run_checked(progs[i], "SIMCUDA_CHECK_ACCESS=2", &checked, &violations, &interpreted, &r), 0);
    ASSERT_EQ(r.status, 0);
    if (violations == 0 || !strstr(r.err, "analysis bug: kernel "))
      FT_FAIL_("%s: the self-test reported nothing\n%s", progs[i]->name, r.err);
    if (progs[i] == &apps[2] && violations != interpreted)
      FT_FAIL_("jacobi: %ju of %ju launches reported", (uintmax_t)violations, (uintmax_t)interpreted);
    /* every range taken as empty: every access extent checked is reported */
    uint64_t ranges = sim_stat(r.err, "range_checks"), outside = sim_stat(r.err, "range_violations");
    if (progs[i] != &samples[3] && (ranges == 0 || outside != ranges))
      FT_FAIL_("%s: range self-test: %ju of %ju extents reported\n%s", progs[i]->name, (uintmax_t)outside,
               (uintmax_t)ranges, r.err);
    proc_free(&r);
  }
  return TEST_OK;
}
