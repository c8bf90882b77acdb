/* test_report.c: gpuft's report and summary as a user meets them: the JSON writer
 * (checked with jansson), path templates, the traceability fields, reports written
 * at SIGTERM and abort(), exit codes, the summary's advice, `gpuft report`, and
 * what the launcher says when there is no report. */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_writer.h"
#include "proc.h"
#include "report_json.h"
#include "report_path.h"
#include "runner.h"

#define SIMPATH "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR
#define PRELOAD "LD_PRELOAD=" GPUFT_PRELOAD

#define HAS(text, needle)                                                            \
  do {                                                                               \
    if (!strstr((text), (needle))) FT_FAIL_("\"%s\" not in:\n%s", (needle), (text)); \
  } while (0)

static int need_sim(void) {
  if (access(SIMCUDA_LIB_DIR "/libcuda.so.1", R_OK) != 0)
    return TEST_SKIPF("the simulator is not built");
  return 0;
}

static void tmp_dir(char *out, size_t cap) {
  snprintf(out, cap, "/tmp/gpuft-report-test-%d-XXXXXX", (int)getpid());
  if (!mkdtemp(out)) FT_FAIL_("mkdtemp");
}

static void rm_rf(const char *dir) {
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) FT_FAIL_("cannot remove %s", dir);
}

/* Runs cudaproc HOW under gpuft on the simulator with more env; report at path. */
static proc_result_t cudaproc(const char *how, const char *report, const char *const *more) {
  char rep[PATH_MAX + 32];
  snprintf(rep, sizeof rep, "GPUFT_REPORT=%s", report);
  const char *env[24] = {SIMPATH, PRELOAD, rep, "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
                         "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "GPUFT_LOG"};
  int k = 9;
  for (; more && *more && k < 23; more++) env[k++] = *more;
  env[k] = NULL;
  const char *argv[] = {EXE_CUDAPROC, how, NULL};
  proc_result_t r;
  if (proc_run(argv, env, 120, &r) != 0) FT_FAIL_("cannot run cudaproc");
  return r;
}

static json_t *load(const char *path) {
  char err[512];
  json_t *js = ft_report_load(path, err, sizeof err);
  if (!js) FT_FAIL_("%s", err);
  return js;
}

/* ---- the writer, read back by jansson ---- */

TEST_IMPL(writer_roundtrip) {
  static const char *const strings[] = {"", "plain", "quote \" and \\ backslash", "tab\tnew\nline",
                                        "\x01\x1f control", "utf-8 \xc3\xa9\xe2\x82\xac"};
  uint64_t seed = 12345;
  for (int round = 0; round < 200; round++) {
    ft_jw_t w;
    ft_jw_heap(&w);
    ft_jw_obj(&w, NULL);
    uint64_t u[8];
    int64_t iv[8];
    double d[8];
    for (int i = 0; i < 8; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      u[i] = i == 0 ? UINT64_MAX >> 1 : i == 1 ? 0 : seed >> (i * 7);
      iv[i] = (int64_t)(seed >> 3) * (i & 1 ? -1 : 1) >> (i * 5);
      d[i] = (double)(seed >> 20) / (double)(1ull << (i * 5)) * (i & 2 ? -1 : 1);
    }
    ft_jw_arr(&w, "u");
    for (int i = 0; i < 8; i++) ft_jw_u(&w, NULL, u[i]);
    ft_jw_end(&w);
    ft_jw_obj(&w, "nested");
    for (int i = 0; i < 8; i++) {
      char k[8] = {'i', (char)('0' + i)};
      ft_jw_i(&w, k, iv[i]);
      k[0] = 'd';
      ft_jw_f(&w, k, d[i], 6);
    }
    ft_jw_arr(&w, "objs");
    for (int i = 0; i < round % 4; i++) {
      ft_jw_obj(&w, NULL);
      ft_jw_s(&w, "s", strings[(round + i) % 6]);
      ft_jw_b(&w, "b", i & 1);
      ft_jw_null(&w, "n");
      ft_jw_end(&w);
    }
    ft_jw_end(&w);
    ft_jw_end(&w);
    ft_jw_s(&w, "str", strings[round % 6]);
    ft_jw_end(&w);
    ASSERT(!w.truncated);
    json_error_t je;
    json_t *js = json_loads(w.buf, 0, &je);
    if (!js) FT_FAIL_("round %d: %s at line %d:\n%s", round, je.text, je.line, w.buf);
    for (int i = 0; i < 8; i++) {
      ASSERT_EQ((uint64_t)json_integer_value(json_array_get(json_object_get(js, "u"), (size_t)i)), u[i]);
      char k[8] = {'i', (char)('0' + i)};
      ASSERT_EQ(json_integer_value(ft_jget(json_object_get(js, "nested"), k)), iv[i]);
      k[0] = 'd';
      double got = json_number_value(ft_jget(json_object_get(js, "nested"), k));
      double tol = 5e-7 + (d[i] < 0 ? -d[i] : d[i]) * 1e-9; /* six decimals, double's precision */
      if (got - d[i] > tol || d[i] - got > tol) FT_FAIL_("%.9f written, %.9f read", d[i], got);
    }
    ASSERT_STR_EQ(json_string_value(json_object_get(js, "str")), strings[round % 6]);
    ASSERT_EQ(json_array_size(ft_jget(js, "nested.objs")), (size_t)(round % 4));
    json_decref(js);
    free(w.buf);
  }
  /* a fixed buffer never overflows, and says it was too small */
  char small[40];
  ft_jw_t w;
  ft_jw_fixed(&w, small, sizeof small);
  ft_jw_obj(&w, NULL);
  for (int i = 0; i < 20; i++) ft_jw_u(&w, "key", 1234567);
  ft_jw_end(&w);
  ASSERT(w.truncated);
  ASSERT_EQ(strlen(small), sizeof small - 1);
  return TEST_OK;
}

/* ---- path templates ---- */

TEST_IMPL(path_templates) {
  char host[256];
  ASSERT_EQ(gethostname(host, sizeof host), 0);
  setenv("FT_TEST_RANK", "7", 1);
  unsetenv("FT_TEST_UNSET");
  char want[3][512];
  snprintf(want[0], sizeof want[0], "r-42-%s.json", host);
  snprintf(want[1], sizeof want[1], "%s/7/42", host);
  snprintf(want[2], sizeof want[2], "a%%p-%%7-%%z%%");
  static const char *const tmpl[] = {"r-%p-%h.json", "%h/%q{FT_TEST_RANK}/%p", "a%%p-%%%q{FT_TEST_RANK}-%z%",
                                     "plain.json", "x%q{FT_TEST_UNSET}y", "%q{unterminated",
                                     "%q{FT_TEST_RANK}%q{FT_TEST_RANK}"};
  const char *expect[] = {want[0], want[1], want[2], "plain.json", "xy", "%q{unterminated", "77"};
  for (size_t i = 0; i < sizeof tmpl / sizeof *tmpl; i++) {
    char out[512];
    ASSERT_EQ(ft_report_path_for(tmpl[i], 42, out, sizeof out), 0);
    ASSERT_STR_EQ(out, expect[i]);
  }
  char tiny[8];
  ASSERT_EQ(ft_report_path_for("r-%p-long.json", 123456, tiny, sizeof tiny), -1);
  /* %r: the first rank variable set; in a job of several ranks, a template naming
   * neither rank, pid nor variable gets ".<rank>", so that ranks never share a file */
  static const char *const rank_vars[] = {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                          "MV2_COMM_WORLD_RANK"};
  static const char *const size_vars[] = {"SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                          "MV2_COMM_WORLD_SIZE"};
  for (size_t i = 0; i < 5; i++) unsetenv(rank_vars[i]);
  for (size_t i = 0; i < 4; i++) unsetenv(size_vars[i]);
  char out[512];
  ASSERT_EQ(ft_report_path_for("run-%r.json", 42, out, sizeof out), 0);
  ASSERT_STR_EQ(out, "run-.json"); /* no rank: empty, as an unset %q{VAR} */
  for (size_t i = 0; i < 5; i++) {
    setenv(rank_vars[i], i == 1 ? "3" : "5", 1);
    if (i == 0) setenv(rank_vars[0], "", 1); /* set but empty: the next one counts */
    ASSERT_EQ(ft_report_path_for("run-%r.json", 42, out, sizeof out), 0);
    ASSERT_STR_EQ(out, i == 0 ? "run-.json" : i == 1 ? "run-3.json" : "run-3.json");
  }
  ASSERT_EQ(ft_report_path_for("job.json", 42, out, sizeof out), 0);
  ASSERT_STR_EQ(out, "job.json"); /* one rank (no size known): as written */
  for (size_t i = 0; i < 4; i++) {
    setenv(size_vars[i], "1", 1);
    ASSERT_EQ(ft_report_path_for("job.json", 42, out, sizeof out), 0);
    ASSERT_STR_EQ(out, "job.json"); /* a job of one rank */
    setenv(size_vars[i], "16", 1);
    ASSERT_EQ(ft_report_path_for("job.json", 42, out, sizeof out), 0);
    ASSERT_STR_EQ(out, "job.json.3");
    static const char *const named[][2] = {{"r%r.json", "r3.json"},
                                           {"r%p.json", "r42.json"},
                                           {"r%q{OMPI_COMM_WORLD_RANK}.json", "r3.json"},
                                           {"100%%.json", "100%.json.3"}};
    for (size_t k = 0; k < 4; k++) {
      ASSERT_EQ(ft_report_path_for(named[k][0], 42, out, sizeof out), 0);
      ASSERT_STR_EQ(out, named[k][1]);
    }
    unsetenv(size_vars[i]);
  }
  for (size_t i = 0; i < 5; i++) unsetenv(rank_vars[i]);
  return TEST_OK;
}

/* ---- what a report says about where it comes from ---- */

TEST_IMPL(traceability_fields) {
  int skip = need_sim();
  if (skip) return skip;
  char dir[128], path[256], host[256];
  tmp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/r.json", dir);
  ASSERT_EQ(gethostname(host, sizeof host), 0);
  /* the rank comes from whichever launcher's variable is set */
  static const char *const vars[] = {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                     "MV2_COMM_WORLD_RANK", NULL};
  for (int v = 0; v < 6; v++) {
    char rank[64];
    snprintf(rank, sizeof rank, "%s=%d", vars[v] ? vars[v] : "UNRELATED", 10 + v);
    const char *more[] = {rank, NULL};
    proc_result_t r = cudaproc("exit", path, more);
    if (r.status != 0) FT_FAIL_("cudaproc: %d\n%s", r.status, r.err);
    json_t *js = load(path);
    ASSERT_EQ(ft_ju64(js, "schema"), 1u);
    if (vars[v]) {
      char want[64];
      snprintf(want, sizeof want, "%d", 10 + v);
      ASSERT_STR_EQ(ft_jstr(js, "rank", "(none)"), want);
      snprintf(want, sizeof want, "gpuft: [rank %d] pid ", 10 + v);
      HAS(r.err, want); /* every summary line names it too */
      snprintf(want, sizeof want, "gpuft: [rank %d] report: ", 10 + v);
      HAS(r.err, want);
    } else {
      ASSERT(json_is_null(json_object_get(js, "rank")));
    }
    ASSERT_STR_EQ(ft_jstr(js, "host", ""), host);
    json_t *cmd = json_object_get(js, "command");
    ASSERT_EQ(json_array_size(cmd), 2u);
    ASSERT_STR_EQ(json_string_value(json_array_get(cmd, 0)), EXE_CUDAPROC);
    ASSERT_STR_EQ(json_string_value(json_array_get(cmd, 1)), "exit");
    const char *start = ft_jstr(js, "start", ""), *end = ft_jstr(js, "end", "");
    ASSERT_EQ(strlen(start), 24u); /* 2026-11-24T16:03:56.123Z */
    ASSERT(start[4] == '-' && start[10] == 'T' && start[23] == 'Z');
    ASSERT(strcmp(start, end) <= 0);
    ASSERT(ft_jnum(js, "seconds") >= 0);
    ASSERT_STR_EQ(ft_jstr(js, "ended.how", ""), "exit");
    ASSERT(json_is_true(ft_jget(js, "ended.complete")));
    ASSERT(!strncmp(ft_jstr(js, "gpu.uuid", ""), "GPU-", 4));
    ASSERT_EQ(strlen(ft_jstr(js, "gpu.uuid", "")), 40u);
    ASSERT(ft_jstr(js, "gpu.name", "")[0]);
    ASSERT_GT(ft_ju64(js, "gpu.driver_version"), 0u);
    /* the pid in the summary line is the report's */
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ju: errors: ", (uintmax_t)ft_ju64(js, "pid"));
    HAS(r.err, pid);
    HAS(r.err, "report: ");
    json_decref(js);
    proc_free(&r);
  }
  rm_rf(dir);
  return TEST_OK;
}

/* ---- reports at a signal ---- */

TEST_IMPL(signals_write_report) {
  int skip = need_sim();
  if (skip) return skip;
  static const struct {
    const char *how;
    int sig;
    const char *name;
  } cases[] = {{"term", SIGTERM, "SIGTERM"}, {"abort", SIGABRT, "SIGABRT"}};
  char dir[128], path[256];
  tmp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/r.json", dir);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    unlink(path);
    proc_result_t r = cudaproc(cases[i].how, path, NULL);
    ASSERT_EQ(r.status, 128 + cases[i].sig); /* still dies of its signal */
    json_t *js = load(path);
    ASSERT_STR_EQ(ft_jstr(js, "ended.how", ""), "signal");
    ASSERT_EQ(ft_ju64(js, "ended.signal"), (uint64_t)cases[i].sig);
    ASSERT_STR_EQ(ft_jstr(js, "ended.signal_name", ""), cases[i].name);
    ASSERT(json_is_false(ft_jget(js, "ended.complete")));
    ASSERT_EQ(ft_ju64(js, "allocations"), 1u);
    ASSERT_GE(ft_ju64(js, "calls.cuMemcpyHtoD_v2"), 1u);
    char want[64];
    snprintf(want, sizeof want, "stopped by %s", cases[i].name);
    HAS(r.err, want);
    json_decref(js);
    proc_free(&r);
  }
  /* a program's own handler is left alone: it exits, and the report says so */
  unlink(path);
  proc_result_t r = cudaproc("own-handler", path, NULL);
  ASSERT_EQ(r.status, 3);
  json_t *js = load(path);
  ASSERT_STR_EQ(ft_jstr(js, "ended.how", ""), "exit");
  json_decref(js);
  proc_free(&r);
  rm_rf(dir);
  return TEST_OK;
}

#ifdef APP_SGEMM
/* sgemm with an error gpuft cannot repair (two bits of one word of the input, in
 * detect mode, which repairs nothing), GPUFT_ON_FAIL=on_fail, one more variable; the
 * report at `path` (removed first). */
static proc_result_t unrepaired(const char *path, const char *on_fail, const char *more) {
  char rep[300], fail[64];
  unlink(path);
  snprintf(rep, sizeof rep, "GPUFT_REPORT=%s", path);
  snprintf(fail, sizeof fail, "GPUFT_ON_FAIL=%s", on_fail);
  const char *argv[] = {APP_SGEMM, "64", NULL};
  const char *env[] = {SIMPATH, PRELOAD, rep, fail, "GPUFT_MODE=detect",
                       "SIMCUDA_FLIP=before=launch:sgemm:1,arg=0,offset=100,bits=1+6", more, NULL};
  proc_result_t r;
  if (proc_run(argv, env, 120, &r) != 0) FT_FAIL_("cannot run sgemm");
  return r;
}
#endif

/* GPUFT_ON_FAIL=abort: the uncorrectable error that stops the program is in the
 * report written at the abort. */
TEST_IMPL(abort_mode_report) {
  int skip = need_sim();
  if (skip) return skip;
#ifndef APP_SGEMM
  return TEST_SKIPF("nvcc not found: sgemm was not built");
#else
  char dir[128], path[256];
  tmp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/r.json", dir);
  proc_result_t r = unrepaired(path, "abort", NULL);
  if (r.status != 128 + SIGABRT) FT_FAIL_("status %d:\n%s", r.status, r.err);
  HAS(r.err, "GPUFT_ON_FAIL=abort");
  json_t *js = load(path);
  ASSERT_STR_EQ(ft_jstr(js, "ended.signal_name", ""), "SIGABRT");
  ASSERT_GE(ft_ju64(js, "errors.detected") + ft_ju64(js, "errors.uncorrectable"), 1u);
  HAS(r.err, "stopped by SIGABRT");
  json_decref(js);
  proc_free(&r);
  rm_rf(dir);
  return TEST_OK;
#endif
}

/* GPUFT_ON_FAIL=exit: the error that cannot be repaired ends the process with
 * status 75 when it is found, through exit(): the report is the one written at exit,
 * and the summary is printed. GPUFT_ERROR_EXITCODE, applied at that exit, wins. */
TEST_IMPL(exit_mode_report) {
  int skip = need_sim();
  if (skip) return skip;
#ifndef APP_SGEMM
  return TEST_SKIPF("nvcc not found: sgemm was not built");
#else
  static const struct {
    const char *error_exitcode;
    int want;
  } cases[] = {{"GPUFT_ERROR_EXITCODE", 75}, {"GPUFT_ERROR_EXITCODE=42", 42}};
  char dir[128], path[256];
  tmp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/exit.json", dir);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    proc_result_t r = unrepaired(path, "exit", cases[c].error_exitcode);
    if (r.status != cases[c].want) FT_FAIL_("status %d, want %d:\n%s", r.status, cases[c].want, r.err);
    HAS(r.err, "exiting with status 75 (GPUFT_ON_FAIL=exit)");
    HAS(r.err, "1 uncorrectable"); /* the summary, printed at that exit */
    ASSERT(!strstr(r.out, "checksum")); /* the program did not go on */
    json_t *js = load(path);
    ASSERT_STR_EQ(ft_jstr(js, "ended.how", ""), "exit");
    ASSERT(json_is_true(ft_jget(js, "ended.complete")));
    ASSERT_GE(ft_ju64(js, "errors.uncorrectable"), 1u);
    json_decref(js);
    proc_free(&r);
  }
  rm_rf(dir);
  return TEST_OK;
#endif
}

/* ---- exit codes ---- */

TEST_IMPL(exit_codes) {
  int skip = need_sim();
  if (skip) return skip;
#ifndef APP_SGEMM
  return TEST_SKIPF("nvcc not found: sgemm was not built");
#else
  /* flip: none, one bit (corrected), two bits of a word in detect mode (not repaired,
   * GPUFT_ON_FAIL=warn lets the program finish) */
  static const char *const flips[] = {NULL, "before=launch:sgemm:1,arg=0,offset=100,bits=3",
                                      "before=launch:sgemm:1,arg=0,offset=100,bits=1+6"};
  static const struct {
    const char *error, *detection;
    int want[3];
  } cases[] = {
      {"GPUFT_ERROR_EXITCODE=0", "GPUFT_DETECTION_EXITCODE=0", {0, 0, 0}},
      {"GPUFT_ERROR_EXITCODE=42", "GPUFT_DETECTION_EXITCODE=0", {0, 0, 42}},
      {"GPUFT_ERROR_EXITCODE=0", "GPUFT_DETECTION_EXITCODE=17", {0, 17, 17}},
      {"GPUFT_ERROR_EXITCODE=42", "GPUFT_DETECTION_EXITCODE=17", {0, 17, 42}},
  };
  const char *argv[] = {APP_SGEMM, "64", NULL};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int f = 0; f < 3; f++) {
      char flip[160] = "SIMCUDA_FLIP";
      if (flips[f]) snprintf(flip, sizeof flip, "SIMCUDA_FLIP=%s", flips[f]);
      const char *env[] = {SIMPATH, PRELOAD, "GPUFT_REPORT", "GPUFT_ON_FAIL=warn",
                           f == 2 ? "GPUFT_MODE=detect" : "GPUFT_MODE=recover",
                           cases[c].error, cases[c].detection, flip, NULL};
      proc_result_t r;
      ASSERT_EQ(proc_run(argv, env, 120, &r), 0);
      if (r.status != cases[c].want[f])
        FT_FAIL_("%s %s, flip %s: status %d, want %d\n%s", cases[c].error, cases[c].detection,
                 flips[f] ? flips[f] : "none", r.status, cases[c].want[f], r.err);
      HAS(r.out, "checksum"); /* the program's own output is all there */
      proc_free(&r);
    }
  return TEST_OK;
#endif
}

/* ---- the summary's advice ---- */

TEST_IMPL(summary_advice) {
  int skip = need_sim();
  if (skip) return skip;
  char dir[128], path[256];
  tmp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/r.json", dir);
  proc_result_t r = cudaproc("noalloc", path, NULL);
  ASSERT_EQ(r.status, 0);
  HAS(r.err, "nothing was protected");
  HAS(r.err, "GPUFT_LOG=debug");
  proc_free(&r);
  /* one summary: the library's; GPUFT_SUMMARY=0 silences it */
  r = cudaproc("exit", path, NULL);
  ASSERT_EQ(r.status, 0);
  int lines = 0;
  for (const char *p = r.err; (p = strstr(p, "errors: ")); p++) lines++;
  ASSERT_EQ(lines, 1);
  ASSERT(!strstr(r.err, "nothing was protected"));
  proc_free(&r);
  const char *quiet[] = {"GPUFT_SUMMARY=0", NULL};
  r = cudaproc("exit", path, quiet);
  ASSERT_STR_EQ(r.err, "");
  proc_free(&r);
  rm_rf(dir);
  return TEST_OK;
}

/* GPUFT_LOG=debug names every kernel gpuft sees; a corrected flip is logged at warn. */
TEST_IMPL(log_kernels_and_corrections) {
  int skip = need_sim();
  if (skip) return skip;
#if !defined(APP_SGEMM) || !defined(APP_VECADD)
  return TEST_SKIPF("nvcc not found: the example programs were not built");
#else
  static const struct {
    const char *app, *arg, *kernel, *flip;
  } apps[] = {{APP_SGEMM, "64", "sgemm", "at=launch:sgemm:1,target=arg:0,offset=1000,bit=3"},
              {APP_VECADD, "4096", "vecadd", "at=launch:vecadd:1,target=arg:1,offset=400,bit=5"}};
  for (size_t i = 0; i < sizeof apps / sizeof *apps; i++) {
    char flip[200], want[160];
    snprintf(flip, sizeof flip, "SIMCUDA_FLIP=%s", apps[i].flip);
    const char *argv[] = {apps[i].app, apps[i].arg, NULL};
    const char *debug[] = {SIMPATH, PRELOAD, "GPUFT_REPORT", "GPUFT_LOG=debug", NULL};
    proc_result_t r;
    ASSERT_EQ(proc_run(argv, debug, 120, &r), 0);
    ASSERT_EQ(r.status, 0);
    snprintf(want, sizeof want, "gpuft: debug: kernel ");
    const char *k = strstr(r.err, want);
    if (!k || !strstr(k, apps[i].kernel)) FT_FAIL_("no debug line naming %s:\n%s", apps[i].kernel, r.err);
    proc_free(&r);
    const char *warn[] = {SIMPATH, PRELOAD, "GPUFT_REPORT", "GPUFT_LOG", flip, NULL};
    ASSERT_EQ(proc_run(argv, warn, 120, &r), 0);
    ASSERT_EQ(r.status, 0);
    HAS(r.err, "gpuft: warning: data bit in allocation #");
    HAS(r.err, " corrected (");
    proc_free(&r);
  }
  return TEST_OK;
#endif
}

/* ---- several ranks: one file each, merged by `gpuft report` ---- */

TEST_IMPL(ranks_merged) {
  int skip = need_sim();
  if (skip) return skip;
  char dir[128], tmpl[256];
  tmp_dir(dir, sizeof dir);
  snprintf(tmpl, sizeof tmpl, "%s/r-%%q{SLURM_PROCID}-%%p.json", dir);
  const int ranks = 4;
  for (int k = ranks - 1; k >= 0; k--) {
    char rank[32];
    snprintf(rank, sizeof rank, "SLURM_PROCID=%d", k);
    const char *more[] = {rank, NULL};
    proc_result_t r = cudaproc("exit", tmpl, more);
    ASSERT_EQ(r.status, 0);
    proc_free(&r);
  }
  char cmd[512];
  snprintf(cmd, sizeof cmd, "ls %s/r-*.json | wc -l", dir);
  FILE *ls = popen(cmd, "r");
  int n = 0;
  ASSERT(ls && fscanf(ls, "%d", &n) == 1);
  pclose(ls);
  ASSERT_EQ(n, ranks); /* one report per rank, none overwritten */
  snprintf(cmd, sizeof cmd, "%s report %s/r-*.json", GPUFT_LAUNCHER, dir);
  const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(sh, NULL, 60, &r), 0);
  if (r.status != 0) FT_FAIL_("gpuft report: %d\n%s", r.status, r.err);
  /* rows sorted by rank, then the totals */
  const char *p = r.out;
  for (int k = 0; k < ranks; k++) {
    char row[16];
    snprintf(row, sizeof row, "\n%-6d ", k);
    const char *q = strstr(p, row);
    if (!q) FT_FAIL_("no row for rank %d after the previous one:\n%s", k, r.out);
    p = q + 1;
  }
  HAS(p, "total");
  HAS(p, "4 reports");
  proc_free(&r);
  /* one report: in words */
  snprintf(cmd, sizeof cmd, "%s report $(ls %s/r-0-*.json)", GPUFT_LAUNCHER, dir);
  ASSERT_EQ(proc_run(sh, NULL, 60, &r), 0);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "rank 0");
  HAS(r.out, "gpu ");
  HAS(r.out, "ended by exit");
  proc_free(&r);
  /* not a report */
  snprintf(cmd, sizeof cmd, "echo '{\"a\": 1}' > %s/bad.json; %s report %s/bad.json", dir,
           GPUFT_LAUNCHER, dir);
  ASSERT_EQ(proc_run(sh, NULL, 60, &r), 0);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "not a gpuft report");
  proc_free(&r);
  rm_rf(dir);
  return TEST_OK;
}

/* ---- the launcher: what it says when the library could not ---- */

TEST_IMPL(launcher_says_what_happened) {
  int skip = need_sim();
  if (skip) return skip;
  char dir[128], ready[256], cmd[1024];
  tmp_dir(dir, sizeof dir);
  /* no CUDA: no report, and a hint */
  const char *nocuda[] = {GPUFT_LAUNCHER, "/bin/true", NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(nocuda, NULL, 60, &r), 0);
  ASSERT_EQ(r.status, 0);
  HAS(r.err, "no report: the program made no CUDA call");
  proc_free(&r);
  /* SIGKILL: cannot be caught, and the launcher says so */
  snprintf(ready, sizeof ready, "%s/ready", dir);
  snprintf(cmd, sizeof cmd,
           "%s -- %s wait %s & p=$!; while [ ! -e %s ]; do sleep 0.05; done; "
           "kill -KILL $(cat %s); wait $p; echo status=$?",
           GPUFT_LAUNCHER, EXE_CUDAPROC, ready, ready, ready);
  const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
  const char *env[] = {SIMPATH, NULL};
  ASSERT_EQ(proc_run(sh, env, 120, &r), 0);
  HAS(r.err, "killed by SIGKILL, which cannot be caught");
  HAS(r.out, "status=137");
  proc_free(&r);
  /* SIGTERM to the launcher (a batch system's time limit): passed on, report written */
  unlink(ready);
  snprintf(cmd, sizeof cmd,
           "%s --report=%s/r-%%p.json -- %s wait %s & p=$!; while [ ! -e %s ]; do sleep 0.05; "
           "done; kill -TERM $p; wait $p; echo status=$?; ls %s",
           GPUFT_LAUNCHER, dir, EXE_CUDAPROC, ready, ready, dir);
  ASSERT_EQ(proc_run(sh, env, 120, &r), 0);
  HAS(r.out, "status=143");
  HAS(r.err, "stopped by SIGTERM");
  HAS(r.err, "report: ");
  ASSERT(!strstr(r.err, "no report"));
  HAS(r.out, "r-"); /* the template, expanded with the program's pid */
  proc_free(&r);
  rm_rf(dir);
  return TEST_OK;
}

/* GPUFT_LOCK_PROFILE=1: at exit, where the engine lock was held, by file:line, the
 * longest first; the totals agree with the report's engine_lock_* figures. Off by
 * default: no such lines. */
TEST_IMPL(lock_profile_printed) {
  int skip = need_sim();
  if (skip) return skip;
#if !defined(APP_VECADD)
  return TEST_SKIPF("nvcc not found: the example programs were not built");
#else
  char dir[128], rep[256], rep_env[300];
  tmp_dir(dir, sizeof dir);
  snprintf(rep, sizeof rep, "%s/r.json", dir);
  snprintf(rep_env, sizeof rep_env, "GPUFT_REPORT=%s", rep);
  const char *argv[] = {APP_VECADD, "4096", NULL};
  const char *on[] = {SIMPATH, PRELOAD, rep_env, "GPUFT_LOG", "GPUFT_LOCK_PROFILE=1", NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, on, 120, &r), 0);
  ASSERT_EQ(r.status, 0);
  const char *head = strstr(r.err, "gpuft: warning: engine lock: taken ");
  if (!head) FT_FAIL_("no profile:\n%s", r.err);
  unsigned long long taken = 0;
  double held = -1, waited = -1;
  ASSERT_EQ(sscanf(head, "gpuft: warning: engine lock: taken %llu times, held %lf s, waited for %lf s", &taken, &held,
                   &waited), 3);
  ASSERT(taken > 0 && held > 0 && waited >= 0);
  /* the launch hook takes it: a place line names shim/hooks/launch.c with a line */
  const char *line = strstr(head, "shim/hooks/launch.c:");
  if (!line || !isdigit((unsigned char)line[strlen("shim/hooks/launch.c:")])) FT_FAIL_("no launch.c:N line:\n%s", head);
  /* the places' counts add up to the total (the profile's own final read included) */
  unsigned long long sum = 0;
  for (const char *p = strstr(head, "\n"); p && (p = strstr(p, "gpuft: warning:   ")); p++) {
    unsigned long long n;
    char where[200];
    if (sscanf(p, "gpuft: warning:   %199s %llu taken", where, &n) == 2) sum += n;
  }
  if (sum != taken) FT_FAIL_("places add up to %llu, total %llu:\n%s", sum, taken, head);
  /* the report has the same figures (written before the profile's own acquisition) */
  json_error_t je;
  json_t *j = json_load_file(rep, 0, &je);
  if (!j) FT_FAIL_("report %s: %s", rep, je.text);
  json_t *acq = json_object_get(j, "engine_lock_acquisitions");
  ASSERT(json_is_integer(acq) && (unsigned long long)json_integer_value(acq) <= taken);
  ASSERT(json_is_real(json_object_get(j, "engine_lock_held_seconds")));
  ASSERT(json_is_real(json_object_get(j, "engine_lock_wait_seconds")));
  json_decref(j);
  proc_free(&r);
  const char *off[] = {SIMPATH, PRELOAD, "GPUFT_REPORT", "GPUFT_LOG", "GPUFT_LOCK_PROFILE", NULL};
  ASSERT_EQ(proc_run(argv, off, 120, &r), 0);
  ASSERT_EQ(r.status, 0);
  ASSERT(!strstr(r.err, "engine lock:"));
  proc_free(&r);
  rm_rf(dir);
  return TEST_OK;
#endif
}

/* GPUFT_REPORT naming a FIFO (or a device: /dev/null, /dev/stdout) is written into,
 * never replaced by a regular file: the report was written beside the path and
 * renamed over it, which turned /dev/null into a regular file for the whole machine
 * when a test ran as root with --report=/dev/null. */
TEST_IMPL(report_into_a_fifo) {
  int skip = need_sim();
  if (skip) return skip;
#if !defined(APP_VECADD)
  return TEST_SKIPF("nvcc not found: the example programs were not built");
#else
  char dir[128], fifo[256], rep_env[300];
  tmp_dir(dir, sizeof dir);
  snprintf(fifo, sizeof fifo, "%s/r.fifo", dir);
  ASSERT_EQ(mkfifo(fifo, 0600), 0);
  int rd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so that gpuft's open finds one */
  ASSERT(rd >= 0);
  fcntl(rd, F_SETPIPE_SZ, 1 << 20); /* room for the whole report: nobody reads during the run */
  snprintf(rep_env, sizeof rep_env, "GPUFT_REPORT=%s", fifo);
  const char *argv[] = {APP_VECADD, "4096", NULL};
  const char *env[] = {SIMPATH, PRELOAD, rep_env, NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 120, &r), 0);
  ASSERT_EQ(r.status, 0);
  proc_free(&r);
  static char buf[1 << 20];
  ssize_t n = read(rd, buf, sizeof buf - 1);
  close(rd);
  struct stat st;
  ASSERT_EQ(stat(fifo, &st), 0);
  if (!S_ISFIFO(st.st_mode)) FT_FAIL_("%s is no longer a FIFO (mode %o)", fifo, (unsigned)st.st_mode);
  ASSERT(n > 0);
  buf[n] = 0;
  if (buf[0] != '{' || !strstr(buf, "\"detected\"")) FT_FAIL_("not a report:\n%.400s", buf);
  unlink(fifo);
  rmdir(dir);
  return TEST_OK;
#endif
}

