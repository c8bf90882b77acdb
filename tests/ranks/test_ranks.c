/* test_ranks.c: an MPI job under gpuft (tests/ranks/halo_mpi.cu: two ranks, one
 * simulated device each, halos through host buffers and MPI every step), run the way
 * a user runs it: `mpirun -np 2 gpuft --report='run-%r.json' -- ./halo_mpi`. The
 * output equals the native run's, each rank writes its own report, `gpuft report`
 * merges them; a fault in rank 1 is recovered and shows on rank 1's row; with
 * GPUFT_ON_FAIL=exit an uncorrectable error ends rank 1 with status 75, which the job
 * launcher passes on. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "report_json.h"
#include "runner.h"

#define HAS(text, needle)                                                            \
  do {                                                                               \
    if (!strstr((text), (needle))) FT_FAIL_("\"%s\" not in:\n%s", (needle), (text)); \
  } while (0)

static int need_mpi(void) {
  if (!HALO_MPI[0]) return TEST_SKIPF("%s", WHY_NOT);
  if (access(SIMCUDA_LIB_DIR "/libcuda.so.1", R_OK) != 0) return TEST_SKIPF("the simulator is not built");
  return 0;
}

static void tmp_dir(char *out, size_t cap) {
  snprintf(out, cap, "/tmp/gpuft-ranks-test-%d-XXXXXX", (int)getpid());
  if (!mkdtemp(out)) FT_FAIL_("mkdtemp");
}

static void rm_rf(const char *dir) {
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) FT_FAIL_("cannot remove %s", dir);
}

/* mpirun WORDS... on the simulator with two devices. CI runs as root (Open MPI
 * refuses that unless told) on 2 cores (--oversubscribe); mpirun's own --timeout
 * ends every rank of a stuck job, which killing mpirun would not. Under
 * AddressSanitizer the ranks run without its leak check: Open MPI leaves memory
 * allocated at MPI_Finalize (libmpi, libpmix and components it has unloaded by then,
 * so that no suppression can name them); gpuft's own leaks are checked by every
 * other test. */
static proc_result_t mpirun(const char *const *words) {
  const char *argv[64] = {MPIEXEC, "--oversubscribe", "--timeout", "100"};
  int n = 4;
  for (; *words && n < 63; words++) argv[n++] = *words;
  argv[n] = NULL;
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR,
                       "SIMCUDA_DEVICES=2",
                       "SIMCUDA_TWINS=0",
                       "LD_PRELOAD",
                       "GPUFT_REPORT",
                       "GPUFT_INJECT",
                       "GPUFT_ON_FAIL",
                       "OMPI_ALLOW_RUN_AS_ROOT=1",
                       "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                       "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0",
                       NULL};
  proc_result_t r;
  if (proc_run(argv, env, 150, &r) != 0) FT_FAIL_("cannot run %s", MPIEXEC);
  return r;
}

/* The native job's stdout (rank 0 prints the checksum and the verdict). */
static char *native_output(void) {
  const char *words[] = {"-np", "2", HALO_MPI, NULL};
  proc_result_t r = mpirun(words);
  if (r.status != 0 || !strstr(r.out, "halo_mpi: PASSED"))
    FT_FAIL_("native job: status %d\n%s%s", r.status, r.out, r.err);
  HAS(r.out, "over 2 ranks");
  char *out = strdup(r.out);
  proc_free(&r);
  return out;
}

static json_t *load(const char *dir, const char *name) {
  char path[PATH_MAX], err[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  json_t *js = ft_report_load(path, err, sizeof err);
  if (!js) FT_FAIL_("%s", err);
  return js;
}

/* `gpuft report DIR/run-*.json`: its table. */
static proc_result_t merged(const char *dir) {
  char cmd[PATH_MAX + 256];
  snprintf(cmd, sizeof cmd, "'%s' report '%s'/run-*.json", GPUFT_LAUNCHER, dir);
  const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
  proc_result_t r;
  if (proc_run(sh, NULL, 60, &r) != 0 || r.status != 0) FT_FAIL_("gpuft report: %d\n%s", r.status, r.err);
  return r;
}

/* The merged table's row for a rank: its columns after host and pid. */
static void row_of(const char *table, int rank, uint64_t *launches, uint64_t *detected, uint64_t *recovered,
                   uint64_t *uncorrectable) {
  char start[16];
  snprintf(start, sizeof start, "\n%-6d ", rank);
  const char *p = strstr(table, start);
  if (!p) FT_FAIL_("no row for rank %d:\n%s", rank, table);
  char host[64], gpu[64];
  unsigned long long pid, l, chk, det, cor, rec, unc;
  if (sscanf(p + strlen(start), "%63s %llu %63s %llu %llu %llu %llu %llu %llu", host, &pid, gpu, &l, &chk, &det,
             &cor, &rec, &unc) != 9)
    FT_FAIL_("rank %d's row not understood:\n%s", rank, table);
  *launches = l, *detected = det, *recovered = cor + rec, *uncorrectable = unc;
}

/* The job with rank 1 given the launcher's `flags` (mpirun's MPMD form: one context
 * per rank), each rank's report in dir/run-<rank>.json. */
static proc_result_t rank1_job(const char *dir, const char *const *flags) {
  char rep[256];
  snprintf(rep, sizeof rep, "--report=%s/run-%%r.json", dir);
  const char *words[32] = {"-np", "1", GPUFT_LAUNCHER, rep, "--", HALO_MPI, ":", "-np", "1", GPUFT_LAUNCHER, rep};
  int n = 11;
  for (; *flags && n < 28; flags++) words[n++] = *flags;
  words[n++] = "--";
  words[n++] = HALO_MPI;
  words[n] = NULL;
  return mpirun(words);
}

TEST_IMPL(native) {
  int skip = need_mpi();
  if (skip) return skip;
  free(native_output());
  return TEST_OK;
}

/* Fault-free under gpuft: the native output, one report per rank (the template's %r,
 * and ".<rank>" appended to a template without one), nothing detected, every launch
 * checked, each rank on its own device; `gpuft report` merges them. */
TEST_IMPL(under_gpuft) {
  int skip = need_mpi();
  if (skip) return skip;
  char *want = native_output();
  char dir[128], rep[256], plain[256];
  tmp_dir(dir, sizeof dir);
  snprintf(rep, sizeof rep, "--report=%s/run-%%r.json", dir);
  const char *words[] = {"-np", "2", GPUFT_LAUNCHER, rep, "--", HALO_MPI, NULL};
  proc_result_t r = mpirun(words);
  if (r.status != 0) FT_FAIL_("status %d\n%s%s", r.status, r.out, r.err);
  ASSERT_STR_EQ(r.out, want);
  HAS(r.err, "gpuft: [rank 0] pid ");
  HAS(r.err, "gpuft: [rank 1] pid ");
  proc_free(&r);
  for (int k = 0; k < 2; k++) {
    char name[32], rank[8];
    snprintf(name, sizeof name, "run-%d.json", k);
    snprintf(rank, sizeof rank, "%d", k);
    json_t *js = load(dir, name);
    ASSERT_STR_EQ(ft_jstr(js, "rank", "(none)"), rank);
    ASSERT_EQ(ft_ju64(js, "gpu.device"), (uint64_t)k); /* rank r on device r */
    ASSERT_EQ(ft_ju64(js, "errors.detected"), 0u);
    ASSERT_GT(ft_ju64(js, "launches"), 0u);
    ASSERT_EQ(ft_ju64(js, "launches_protected"), ft_ju64(js, "launches"));
    ASSERT_EQ(ft_ju64(js, "allocations_unprotected"), 0u);
    json_decref(js);
  }
  r = merged(dir);
  uint64_t l0, d0, rec0, u0, l1, d1, rec1, u1;
  row_of(r.out, 0, &l0, &d0, &rec0, &u0);
  row_of(r.out, 1, &l1, &d1, &rec1, &u1);
  ASSERT_GT(l0, 0u);
  ASSERT_EQ(l0, l1);
  ASSERT_EQ(d0 + d1 + u0 + u1, 0u);
  HAS(r.out, "\ntotal ");
  HAS(r.out, "2 reports");
  proc_free(&r);
  /* a template that names no rank: every rank still writes its own file */
  snprintf(plain, sizeof plain, "--report=%s/job.json", dir);
  words[3] = plain;
  r = mpirun(words);
  if (r.status != 0) FT_FAIL_("status %d\n%s%s", r.status, r.out, r.err);
  proc_free(&r);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/job.json", dir);
  ASSERT(access(path, F_OK) != 0);
  json_t *j0 = load(dir, "job.json.0"), *j1 = load(dir, "job.json.1");
  ASSERT_STR_EQ(ft_jstr(j0, "rank", ""), "0");
  ASSERT_STR_EQ(ft_jstr(j1, "rank", ""), "1");
  json_decref(j0);
  json_decref(j1);
  free(want);
  rm_rf(dir);
  return TEST_OK;
}

/* One fault at rest in rank 1's memory (1 and 2 bits, before a kernel reads it), the
 * launcher's --inject given to that rank only (mpirun's MPMD form): the output is the
 * native one, and the merged table shows the repair on rank 1's row alone. */
TEST_IMPL(fault_in_rank1_recovered) {
  int skip = need_mpi();
  if (skip) return skip;
  char *want = native_output();
  for (int bits = 1; bits <= 2; bits++) {
    char dir[128], inject[128];
    tmp_dir(dir, sizeof dir);
    snprintf(inject, sizeof inject, "--inject=at=launch:step_kernel:3,target=arg:0,bits=%d,seed=5", bits);
    const char *flags[] = {inject, NULL};
    proc_result_t r = rank1_job(dir, flags);
    if (r.status != 0) FT_FAIL_("%d bits: status %d\n%s%s", bits, r.status, r.out, r.err);
    ASSERT_STR_EQ(r.out, want);
    proc_free(&r);
    json_t *js = load(dir, "run-1.json");
    ASSERT(json_is_true(ft_jget(json_array_get(json_object_get(js, "injections"), 0), "applied")));
    uint64_t det = ft_ju64(js, "errors.detected");
    ASSERT_GE(det, 1u);
    ASSERT_EQ(ft_ju64(js, "errors.uncorrectable"), 0u);
    ASSERT_EQ(det, ft_ju64(js, "errors.corrected") + ft_ju64(js, "errors.recovered"));
    json_decref(js);
    r = merged(dir);
    uint64_t l, d0, rec0, u0, d1, rec1, u1;
    row_of(r.out, 0, &l, &d0, &rec0, &u0);
    row_of(r.out, 1, &l, &d1, &rec1, &u1);
    if (d0 || u0 || u1 || d1 != det || rec1 != det)
      FT_FAIL_("%d bits: the merged table does not show rank 1's repair alone:\n%s", bits, r.out);
    proc_free(&r);
    rm_rf(dir);
  }
  free(want);
  return TEST_OK;
}

/* GPUFT_ON_FAIL=exit: an error rank 1 cannot repair (two bits in an input, in detect
 * mode, which repairs nothing) ends it with status 75 as soon as it is found; mpirun
 * ends the job and passes the status on. Rank 1's report is written at that exit and
 * says what was lost. */
TEST_IMPL(exit_on_fail) {
  int skip = need_mpi();
  if (skip) return skip;
  char dir[128];
  tmp_dir(dir, sizeof dir);
  const char *flags[] = {"--on-fail=exit", "--mode=detect", "--inject=at=launch:step_kernel:3,target=arg:0,bits=2,seed=5",
                         NULL};
  proc_result_t r = rank1_job(dir, flags);
  if (r.status != 75) FT_FAIL_("mpirun's status %d, want rank 1's 75\n%s%s", r.status, r.out, r.err);
  ASSERT(!strstr(r.out, "PASSED"));
  HAS(r.err, "exiting with status 75 (GPUFT_ON_FAIL=exit)");
  HAS(r.err, "gpuft: [rank 1] pid ");
  proc_free(&r);
  json_t *js = load(dir, "run-1.json");
  ASSERT_STR_EQ(ft_jstr(js, "rank", ""), "1");
  ASSERT_STR_EQ(ft_jstr(js, "ended.how", ""), "exit");
  ASSERT_GE(ft_ju64(js, "errors.uncorrectable"), 1u);
  json_decref(js);
  rm_rf(dir);
  return TEST_OK;
}
