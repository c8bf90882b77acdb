/* test_campaign.c: `gpuft campaign`: the Wilson interval against published values, the
 * classification on crafted observations and on crafted programs (one per outcome),
 * --json, independence from the number of parallel runs, flips at a rate (--rate) with
 * and without gpuft (--native), and the CI campaign over the example programs on the
 * simulator with both injectors. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign.h"
#include "report_json.h"
#include "proc.h"
#include "runner.h"

#define SIMPATH "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR
#ifndef APP_VECADD
#define APP_VECADD ""
#endif
#ifndef APP_SGEMM
#define APP_SGEMM ""
#endif
#ifndef APP_JACOBI
#define APP_JACOBI ""
#endif
#ifndef APP_MULTISTREAM
#define APP_MULTISTREAM ""
#endif
#ifndef APP_RATE_HOLD
#define APP_RATE_HOLD ""
#endif
#ifndef APP_CG_CSR
#define APP_CG_CSR ""
#endif

#define HAS(text, needle)                                                                  \
  do {                                                                                     \
    if (!strstr((text), (needle))) FT_FAIL_("\"%s\" not in:\n%s", (needle), (text));       \
  } while (0)

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int have(const char *app) { return app[0] && access(app, X_OK) == 0; }

/* `gpuft campaign ARGS...` on the simulator; extra: one more environment entry. */
static proc_result_t campaign(const char *const args[], const char *extra, int timeout_s) {
  const char *argv[64] = {GPUFT_LAUNCHER, "campaign"};
  int n = 2;
  for (; args[n - 2] && n < 63; n++) argv[n] = args[n - 2];
  argv[n] = NULL;
  /* extra: one NAME=value, or two separated by a space */
  char e1[256] = "", *e2 = NULL;
  if (extra) {
    snprintf(e1, sizeof e1, "%s", extra);
    e2 = strchr(e1, ' ');
    if (e2) *e2++ = 0;
  }
  /* handle_segv=0: a sanitizer runtime preloaded into /bin/sh would turn the crafted
   * "kill -SEGV" into exit 1, and the crash test is about the signal */
  const char *env[] = {SIMPATH,
                       "APP=" APP_VECADD,
                       "ASAN_OPTIONS=verify_asan_link_order=0:handle_segv=0",
                       "TSAN_OPTIONS=handle_segv=0",
                       extra ? e1 : NULL,
                       e2,
                       NULL};
  proc_result_t r;
  if (proc_run(argv, env, timeout_s, &r) != 0) FT_FAIL_("cannot run %s", argv[0]);
  return r;
}

/* "count" of an outcome in --json output. */
static uint64_t count_of(const char *json, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": {\"count\": ", key);
  const char *p = strstr(json, pat);
  if (!p) FT_FAIL_("no %s in:\n%s", key, json);
  return strtoull(p + strlen(pat), NULL, 10);
}

static uint64_t field(const char *json, const char *key) {
  uint64_t v;
  if (json_u64(json, key, &v) != 0) FT_FAIL_("no \"%s\" in:\n%s", key, json);
  return v;
}

/* Brackets and braces balance outside strings, strings close: well-formed enough to
 * catch a broken writer (the fields are checked one by one). */
static void check_structure(const char *js) {
  int depth = 0, in_str = 0;
  for (const char *p = js; *p; p++) {
    if (in_str) {
      if (*p == '\\') p++;
      else if (*p == '"') in_str = 0;
      else if ((unsigned char)*p < 0x20) FT_FAIL_("control character in a string");
    } else if (*p == '"') {
      in_str = 1;
    } else if (*p == '{' || *p == '[') {
      depth++;
    } else if (*p == '}' || *p == ']') {
      if (--depth < 0) FT_FAIL_("unbalanced JSON:\n%s", js);
    }
  }
  if (depth || in_str) FT_FAIL_("unbalanced JSON:\n%s", js);
  ASSERT_EQ(js[0], '{');
}

static char *outcomes(const char *js);

TEST_IMPL(wilson_known_values) {
  /* Newcombe, "Two-sided confidence intervals for the single proportion" (Stat. Med.
   * 1998), table I, method 3 (score interval without continuity correction). */
  static const struct {
    uint64_t k, n;
    double lo, hi;
  } v[] = {{81, 263, 0.2553, 0.3662}, {15, 148, 0.0624, 0.1605}, {0, 20, 0.0, 0.1611},
           {1, 29, 0.0061, 0.1718},   {5, 10, 0.2366, 0.7634},   {0, 10, 0.0, 0.2775},
           {1000, 1000, 0.9962, 1.0}};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    double lo, hi;
    ft_wilson(v[i].k, v[i].n, 1.96, &lo, &hi);
    if (fabs(lo - v[i].lo) > 5e-5 || fabs(hi - v[i].hi) > 5e-5)
      FT_FAIL_("%ju/%ju: [%.5f, %.5f], expected [%.4f, %.4f]", (uintmax_t)v[i].k,
               (uintmax_t)v[i].n, lo, hi, v[i].lo, v[i].hi);
  }
  double lo = 1, hi = 1;
  ft_wilson(0, 0, 1.96, &lo, &hi);
  ASSERT(lo == 0 && hi == 0);
  return TEST_OK;
}

TEST_IMPL(classify_cases) {
  const ft_obs_t ok = {.same_output = 1, .injected = 1};
  ft_obs_t o = ok;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_MASKED);
  o.detected = o.corrected = 1;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_CORRECTED);
  o.replays = 1; /* corrected, then replayed because a kernel had read the bad word */
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_RECOVERED);
  o = ok;
  o.recovered = 1; /* restored from a checkpoint without a replay */
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_RECOVERED);
  o = ok;
  o.same_output = 0;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_SDC);
  o.corrected = 1; /* something was done, but the output still differs */
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_SDC);
  o.uncorrectable = 1; /* ... reported: not silent (GPUFT_ON_FAIL=warn) */
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_DUE);
  o = ok;
  o.code = 2;
  o.same_output = 0;
  o.detected = 1; /* the program stopped on an error gpuft detected and did not repair */
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_DUE);
  o.corrected = 1; /* ... it was repaired: the failure is nobody's explanation */
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_CRASH);
  ASSERT_EQ((int)ft_classify(2, &o), (int)FT_OUT_SDC); /* same failing status as the golden run, other output */
  o = ok;
  o.signal = 6;
  o.uncorrectable = 1; /* GPUFT_ON_FAIL=abort: the report is written at the abort */
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_DUE);
  o.uncorrectable = 0;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_CRASH);
  o = ok;
  o.code = 0;
  ASSERT_EQ((int)ft_classify(1, &o), (int)FT_OUT_SDC); /* status 0 where the golden run failed */
  o = ok;
  o.timed_out = 1;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_HANG);
  o.injected = 0; /* never reached the event: whatever happened is not the fault's */
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_NOT_INJECTED);
  o = ok;
  o.injected = -1; /* cannot tell: counted */
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_MASKED);

  /* --native: no gpuft, so a report (a stray one) neither repairs nor explains */
  const ft_obs_t bare = {.same_output = 1, .injected = 1, .native = 1};
  o = bare;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_MASKED);
  o.detected = o.corrected = o.replays = o.recovered = 1;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_MASKED);
  o.uncorrectable = 1;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_MASKED);
  o.same_output = 0;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_SDC);
  o.code = 2;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_CRASH);
  o = bare;
  o.signal = 11;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_CRASH);
  o = bare;
  o.timed_out = 1;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_HANG);
  o.injected = 0;
  ASSERT_EQ((int)ft_classify(0, &o), (int)FT_OUT_NOT_INJECTED);
  return TEST_OK;
}

TEST_IMPL(report_and_stderr) {
  const char *rep =
      "{\n  \"gpuft_version\": \"0.1.0\",\n"
      "  \"errors\": {\"detected\": 2, \"corrected\": 1, \"recovered\": 1, "
      "\"restored_from_checkpoint\": 1, \"uncorrectable\": 0, \"permanent\": 0},\n"
      "  \"replays\": 3,\n  \"injections\": [\n    {\"applied\": true, \"allocation\": 1, "
      "\"offset\": 5, \"where\": \"x\", \"bits\": [40]},\n    {\"applied\": false}\n  ],\n"
      "  \"events\": [{\"allocation\": 1, \"outcome\": \"uncorrectable\"}]\n}\n";
  ft_obs_t o = {0};
  int listed = 0, applied = 0;
  ASSERT_EQ(ft_obs_add_report(&o, rep, &listed, &applied), 0);
  ASSERT_EQ(ft_obs_add_report(&o, rep, &listed, &applied), 0); /* a forked child's */
  ASSERT_EQ(o.reports, 2);
  ASSERT_EQ(o.detected, 4u);
  ASSERT_EQ(o.corrected, 2u);
  ASSERT_EQ(o.recovered, 2u);
  ASSERT_EQ(o.uncorrectable, 0u); /* an event's outcome is not the counter */
  ASSERT_EQ(o.replays, 6u);
  ASSERT_EQ(listed, 4);
  ASSERT_EQ(applied, 2);
  ASSERT_EQ(ft_obs_add_report(&o, "not a report", NULL, NULL), -1);

  /* the same counters whatever the key order and spacing (a JSON parser reads it) */
  const char *reordered = "{\"replays\":3,\"errors\":{\"uncorrectable\":0,\"recovered\":1,"
                          "\"corrected\":1,\"detected\":2},\"gpuft_version\":\"x\"}";
  ft_obs_t o2 = {0};
  ASSERT_EQ(ft_obs_add_report(&o2, reordered, NULL, NULL), 0);
  ASSERT_EQ(o2.detected, 2u);
  ASSERT_EQ(o2.corrected, 1u);
  ASSERT_EQ(o2.replays, 3u);
  /* a message that quotes a key is not a report */
  ASSERT_EQ(ft_obs_add_report(&o2, "gpuft: \"errors\": {\"detected\": 5}", NULL, NULL), -1);
  ASSERT_EQ(o2.detected, 2u);

  int dropped = 1;
  ASSERT_EQ(ft_obs_scan_stderr("gpuft: GPUFT_INJECT: flipped 1 bit(s) of allocation #1\n",
                               FT_INJ_GPUFT, &dropped), 1);
  ASSERT_EQ(dropped, 0);
  const char *sim = "simcuda: flip before=d2h:1,src,offset=5,bits=0: addr=0x1 mask=0x01\n"
                    "simcuda: flip before=d2h:1,src,offset=9,bits=3: addr=0x2 mask=0x08\n"
                    "simcuda: fault \"before=d2h:1,src,offset=99999,bits=0\" dropped: offset 99999 "
                    "leaves the allocation\n"
                    "simcuda: flip rate: addr=0x3 mask=0x01 0x00->0x01\n" /* not the campaign's */
                    "simcuda: flip rate 15000 flips/GiB/s, seed 5\n";   /* the setting, no flip */
  ASSERT_EQ(ft_obs_scan_stderr(sim, FT_INJ_SIM, &dropped), 2);
  ASSERT_EQ(dropped, 1);
  /* --rate: the spontaneous flips only */
  ASSERT_EQ(ft_obs_scan_stderr(sim, FT_INJ_RATE, NULL), 1);
  ASSERT_EQ(ft_obs_scan_stderr("simcuda: flip rate 0 flips/GiB/s, seed 9\n", FT_INJ_RATE, NULL), 0);
  return TEST_OK;
}

TEST_IMPL(usage_errors) {
  static const char *const cases[][8] = {
      {"--bits", "3", "-n", "2", "--", "/bin/true", NULL},
      {"-n", "0", "--", "/bin/true", NULL},
      {"-n", "2", NULL},
      {"--at", "launch:k", "-n", "2", "--", "/bin/true", NULL},
      {"--at", "call", "--injector", "sim", "-n", "2", "/bin/true", NULL},
      {"--frobnicate", "-n", "2", "/bin/true", NULL},
      {"--bits", "zero,stuck", "-n", "2", "--", "/bin/true", NULL},
      {"--bits", "word,bit=3", "-n", "2", "--", "/bin/true", NULL},
  };
  static const char *const says[] = {"--bits takes: 1 | 2 | burst:K | byte | word | sector | zero", "invalid value for -n",
                                     "no program given",
                                     "--at launch:k: launch:KERNEL:K needs a kernel-name substring",
                                     "the simulator aims at a pointer argument", "unknown option",
                                     "stuck cells are the simulator's (--injector sim)",
                                     "the model only (the campaign draws the rest)"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    proc_result_t r = campaign(cases[i], NULL, 30);
    if (r.status != 2) FT_FAIL_("case %zu: status %d, stderr:\n%s", i, r.status, r.err);
    HAS(r.err, says[i]);
    proc_free(&r);
  }
  /* a program whose output changes between two runs without a fault */
  const char *a[] = {"-n", "2", "--", "/bin/sh", "-c", "\"$APP\" 4096 >/dev/null; date +%N", NULL};
  if (have(APP_VECADD)) {
    proc_result_t r = campaign(a, NULL, 60);
    ASSERT_EQ(r.status, 2);
    HAS(r.err, "differs between two runs without a fault");
    proc_free(&r);
  }
  const char *h[] = {"--help", NULL};
  proc_result_t r = campaign(h, NULL, 30);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "--timeout-factor");
  proc_free(&r);
  return TEST_OK;
}

/* A campaign of n runs on a shell script that runs vecadd (so that gpuft has something
 * to inject into) and then does what `then` says when a fault was asked for. */
static char *crafted(int n, const char *then, const char *const extra[], int *status) {
  char script[512], nbuf[16];
  snprintf(script, sizeof script,
           "\"$APP\" 4096 >/dev/null; if [ -n \"$GPUFT_INJECT\" ]; then %s; fi; echo same", then);
  snprintf(nbuf, sizeof nbuf, "%d", n);
  const char *args[24] = {"-n", nbuf, "--json", "--at", "launch:vecadd:1,arg=0|1"};
  int k = 5;
  for (; extra && extra[k - 5]; k++) args[k] = extra[k - 5];
  const char *tail[] = {"--", "/bin/sh", "-c", script, NULL};
  for (int t = 0; t < 5; t++) args[k++] = tail[t];
  proc_result_t r = campaign(args, NULL, 110);
  *status = r.status;
  if (r.status != 0 && r.status != 1) FT_FAIL_("campaign failed (%d):\n%s", r.status, r.err);
  check_structure(r.out);
  free(r.err);
  return r.out;
}

TEST_IMPL(crafted_sdc) {
  if (!have(APP_VECADD)) return TEST_SKIPF("vecadd is not built (no nvcc)");
  int st;
  char *js = crafted(4, "echo changed", NULL, &st);
  ASSERT_EQ(st, 0); /* a silent data corruption is a result, not a failure... */
  ASSERT_EQ(count_of(js, "sdc"), 4u);
  ASSERT_EQ(field(js, "injected"), 4u);
  free(js);
  const char *fail[] = {"--fail-on-sdc", NULL};
  js = crafted(2, "echo changed", fail, &st);
  ASSERT_EQ(st, 1); /* ... unless asked */
  ASSERT_EQ(count_of(js, "sdc"), 2u);
  free(js);
  js = crafted(2, "true", fail, &st); /* same output: gpuft repaired the flips */
  ASSERT_EQ(st, 0);
  ASSERT_EQ(count_of(js, "sdc"), 0u);
  ASSERT_EQ(count_of(js, "corrected") + count_of(js, "recovered"), 2u);
  free(js);
  return TEST_OK;
}

TEST_IMPL(crafted_crash) {
  if (!have(APP_VECADD)) return TEST_SKIPF("vecadd is not built (no nvcc)");
  int st;
  char *js = crafted(3, "kill -SEGV $$", NULL, &st);
  ASSERT_EQ(count_of(js, "crash"), 3u);
  HAS(js, "\"signal\": 11");
  free(js);
  js = crafted(2, "exit 3", NULL, &st); /* a failure no reported error explains */
  ASSERT_EQ(count_of(js, "crash"), 2u);
  free(js);
  return TEST_OK;
}

TEST_IMPL(crafted_hang) {
  if (!have(APP_VECADD)) return TEST_SKIPF("vecadd is not built (no nvcc)");
  int st;
  double t0 = now_s();
  const char *f[] = {"--timeout-factor", "1", NULL};
  char *js = crafted(2, "sleep 30", f, &st);
  ASSERT_EQ(count_of(js, "hang"), 2u);
  ASSERT_LT(now_s() - t0, 25.0); /* killed at the timeout, with the sleep of its group */
  free(js);
  return TEST_OK;
}

TEST_IMPL(not_injected) {
  if (!have(APP_VECADD)) return TEST_SKIPF("vecadd is not built (no nvcc)");
  /* an --at that never happens stops the campaign before its runs, whatever the injector */
  static const char *const at[] = {"launch:no_such_kernel:1", "d2h:99", "launch:vecadd:2,arg=0"};
  for (int i = 0; i < 3; i++)
    for (int sim = 0; sim < 2; sim++) {
      if (sim && i == 0) continue; /* the simulator needs an argument */
      const char *args[] = {"-n", "3", "--json", "--injector", sim ? "sim" : "gpuft", "--at", at[i],
                            "--", APP_VECADD, "4096", NULL};
      proc_result_t r = campaign(args, NULL, 60);
      if (r.status != 2) FT_FAIL_("--at %s: status %d\n%s", at[i], r.status, r.err);
      HAS(r.err, "never happens in this program");
      ASSERT_STR_EQ(r.out, "");
      proc_free(&r);
    }
  /* a range that reaches past the last launch: the runs beyond it are "not injected" */
  const char *args[] = {"-n", "8", "--json", "--at", "launch:vecadd:1-2,arg=0", "--", APP_VECADD, "4096", NULL};
  proc_result_t r = campaign(args, NULL, 100);
  ASSERT_EQ(r.status, 0);
  ASSERT_GT(field(r.out, "not_injected"), 0u);
  ASSERT_GT(field(r.out, "injected"), 0u);
  ASSERT_EQ(field(r.out, "injected") + field(r.out, "not_injected"), 8u);
  proc_free(&r);
  return TEST_OK;
}

/* A program that prints a timing line, as NVIDIA's samples do: compared as it is, every
 * run differs; with --ignore, --compare=exit, --compare=file: or --check it does not. */
TEST_IMPL(compare_ignore_check) {
  if (!have(APP_VECADD)) return TEST_SKIPF("vecadd is not built (no nvcc)");
  char dir[] = "/tmp/gpuft-campaign-cmp-XXXXXX", check[300], file[300], fileopt[320], cmd[1024];
  ASSERT(mkdtemp(dir));
  snprintf(file, sizeof file, "%s/out.txt", dir);
  snprintf(fileopt, sizeof fileopt, "--compare=file:%s", file);
  /* the checker accepts when the line "result: ..." is the same */
  snprintf(check, sizeof check, "%s/check.sh", dir);
  FILE *f = fopen(check, "w");
  ASSERT(f);
  fprintf(f, "#!/bin/sh\n[ \"$(grep '^result' \"$1\")\" = \"$(grep '^result' \"$2\")\" ]\n");
  fclose(f);
  ASSERT_EQ(chmod(check, 0755), 0);
  snprintf(cmd, sizeof cmd, "\"$APP\" 4096 > %s; echo result: $(grep checksum %s); echo \"time: $(date +%%N) ms\"",
           file, file);
  static const struct {
    const char *opt;
    int ok;
  } cases[] = {{NULL, 0}, {"--ignore=^time: [0-9]+ ms$", 1}, {"--compare=exit", 1}, {"file", 1},
               {"check", 1}, {"--ignore=^nothing$", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char opt[400];
    const char *o = cases[i].opt;
    if (o && !strcmp(o, "file")) o = fileopt;
    else if (o && !strcmp(o, "check")) snprintf(opt, sizeof opt, "--check=%s", check), o = opt;
    /* -j 1: every run writes the same file */
    const char *args[] = {"-n", "3", "-j", "1", "--json", "--at", "launch:vecadd:1,arg=0|1", o ? o : "--json",
                          "--", "/bin/sh", "-c", cmd, NULL};
    proc_result_t r = campaign(args, NULL, 100);
    if (!cases[i].ok) {
      if (r.status != 2) FT_FAIL_("%s: status %d", o ? o : "(stdout)", r.status);
      HAS(r.err, "differs between two runs without a fault");
      HAS(r.err, "--ignore=REGEX");
    } else {
      if (r.status != 0) FT_FAIL_("%s: status %d\n%s", o, r.status, r.err);
      if (count_of(r.out, "sdc") || count_of(r.out, "corrected") + count_of(r.out, "recovered") != 3)
        FT_FAIL_("%s:\n%s", o, r.out);
    }
    proc_free(&r);
  }
  /* --check that rejects everything: each run is a silent data corruption */
  const char *rej[] = {"-n", "2", "--json", "--check=/bin/false", "--", APP_VECADD, "4096", NULL};
  proc_result_t r = campaign(rej, NULL, 100);
  ASSERT_EQ(r.status, 2); /* ... already the golden runs differ by its verdict */
  proc_free(&r);
  const char *bad[] = {"-n", "2", "--ignore=(", "--", "/bin/true", NULL};
  r = campaign(bad, NULL, 30);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "invalid value for --ignore");
  proc_free(&r);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ASSERT_EQ(system(cmd), 0);
  return TEST_OK;
}

/* --results: finished runs are kept, an interrupted campaign resumes, the outcomes are
 * those of one uninterrupted campaign, another campaign's file is refused. */
TEST_IMPL(results_resume) {
  if (!have(APP_VECADD)) return TEST_SKIPF("vecadd is not built (no nvcc)");
  char dir[] = "/tmp/gpuft-campaign-res-XXXXXX", res[300], opt[320], cmd[2048];
  ASSERT(mkdtemp(dir));
  snprintf(res, sizeof res, "%s/results.jsonl", dir);
  snprintf(opt, sizeof opt, "--results=%s", res);
  const char *full[] = {"-n", "8", "--json", "--seed", "5", "--at", "launch:vecadd:1,arg=0|1",
                        "--", APP_VECADD, "4096", NULL};
  proc_result_t r = campaign(full, NULL, 120);
  ASSERT_EQ(r.status, 0);
  char *want = outcomes(r.out);
  proc_free(&r);
  const char *part[] = {"-n", "3", "--json", "--seed", "5", opt, "--at", "launch:vecadd:1,arg=0|1",
                        "--", APP_VECADD, "4096", NULL};
  r = campaign(part, NULL, 120);
  ASSERT_EQ(r.status, 0);
  proc_free(&r);
  const char *rest[] = {"-n", "8", "--json", "--seed", "5", opt, "--at", "launch:vecadd:1,arg=0|1",
                        "--", APP_VECADD, "4096", NULL};
  r = campaign(rest, NULL, 120);
  ASSERT_EQ(r.status, 0);
  HAS(r.err, "3 of 8 runs already done");
  char *got = outcomes(r.out);
  ASSERT_STR_EQ(got, want);
  free(got);
  proc_free(&r);
  /* the file has a header and one line per run */
  snprintf(cmd, sizeof cmd, "wc -l < %s", res);
  FILE *p = popen(cmd, "r");
  int lines = 0;
  ASSERT(p && fscanf(p, "%d", &lines) == 1);
  pclose(p);
  ASSERT_EQ(lines, 9);
  /* another campaign (other seed) refuses the file */
  const char *other[] = {"-n", "2", "--seed", "6", opt, "--at", "launch:vecadd:1,arg=0|1", "--",
                         APP_VECADD, "4096", NULL};
  r = campaign(other, NULL, 60);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "holds the results of another campaign");
  proc_free(&r);
  /* Ctrl-C in the middle: the finished runs stay, the same command finishes the rest */
  unlink(res);
  snprintf(cmd, sizeof cmd,
           "%s campaign -n 40 -j 1 --seed 5 %s --at launch:vecadd:1,arg=0 -- \"$APP\" 4096 >/dev/null & p=$!; "
           "while [ \"$(wc -l < %s 2>/dev/null || echo 0)\" -lt 3 ]; do sleep 0.05; done; kill -INT $p; "
           "wait $p; echo status=$?",
           GPUFT_LAUNCHER, opt, res);
  const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
  const char *env[] = {SIMPATH, "APP=" APP_VECADD, NULL};
  ASSERT_EQ(proc_run(sh, env, 200, &r), 0);
  HAS(r.out, "status=130");
  HAS(r.err, "interrupted after");
  HAS(r.err, "the same command resumes the campaign");
  proc_free(&r);
  snprintf(cmd, sizeof cmd, "wc -l < %s", res);
  p = popen(cmd, "r");
  ASSERT(p && fscanf(p, "%d", &lines) == 1);
  pclose(p);
  ASSERT(lines >= 3 && lines < 41);
  const char *again[] = {"-n", "40", "-j", "1", "--json", "--seed", "5", opt, "--at", "launch:vecadd:1,arg=0",
                         "--", APP_VECADD, "4096", NULL};
  r = campaign(again, NULL, 200);
  ASSERT_EQ(r.status, 0);
  char done[64];
  snprintf(done, sizeof done, "%d of 40 runs already done", lines - 1);
  HAS(r.err, done);
  ASSERT_EQ(field(r.out, "injected") + field(r.out, "not_injected"), 40u);
  proc_free(&r);
  free(want);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ASSERT_EQ(system(cmd), 0);
  return TEST_OK;
}

/* The progress line: on a terminal only. */
TEST_IMPL(progress_on_terminal) {
  if (!have(APP_VECADD)) return TEST_SKIPF("vecadd is not built (no nvcc)");
  if (access("/usr/bin/script", X_OK) != 0) return TEST_SKIPF("no script(1) to give the campaign a terminal");
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s campaign -n 3 --at launch:vecadd:1,arg=0 -- \"$APP\" 4096", GPUFT_LAUNCHER);
  const char *tty[] = {"/usr/bin/script", "-qec", cmd, "/dev/null", NULL};
  const char *env[] = {SIMPATH, "APP=" APP_VECADD, NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(tty, env, 100, &r), 0);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "run 3/3:");
  HAS(r.out, "ETA");
  proc_free(&r);
  const char *args[] = {"-n", "3", "--at", "launch:vecadd:1,arg=0", "--", APP_VECADD, "4096", NULL};
  r = campaign(args, NULL, 100); /* stderr is a file: quiet */
  ASSERT_EQ(r.status, 0);
  ASSERT(!strstr(r.err, "ETA"));
  proc_free(&r);
  return TEST_OK;
}

/* --plot: a PNG of the outcome bars (matplotlib, installed by .ci/run). */
TEST_IMPL(plot_png) {
  if (!have(APP_VECADD)) return TEST_SKIPF("vecadd is not built (no nvcc)");
  if (system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") != 0 &&
      system("python3 -c 'import matplotlib' 2>/dev/null") != 0)
    return TEST_SKIPF("matplotlib is not installed (apt-get install python3-matplotlib)");
  char png[128];
  snprintf(png, sizeof png, "/tmp/gpuft-campaign-plot-%d.png", (int)getpid());
  unlink(png);
  char opt[160];
  snprintf(opt, sizeof opt, "--plot=%s", png);
  const char *args[] = {"-n", "4", opt, "--at", "launch:vecadd:1,arg=0", "--", APP_VECADD, "4096", NULL};
  proc_result_t r = campaign(args, NULL, 100);
  if (r.status != 0) FT_FAIL_("status %d:\n%s", r.status, r.err);
  HAS(r.out, "plot written to");
  FILE *f = fopen(png, "rb");
  ASSERT(f);
  unsigned char sig[8];
  ASSERT_EQ(fread(sig, 1, 8, f), 8u);
  fseek(f, 0, SEEK_END);
  ASSERT_GT(ftell(f), 10000); /* bars, labels and a title, not an empty canvas */
  fclose(f);
  ASSERT_MEM_EQ(sig, "\x89PNG\r\n\x1a\n", 8);
  unlink(png);
  proc_free(&r);
  return TEST_OK;
}

/* One injection grammar: the same spec text, given to gpuft (GPUFT_INJECT) and to the
 * simulator (SIMCUDA_FLIP), flips the same bits, which gpuft then finds at the same
 * place; the simulator's older spelling still works. */
static char *events_of(const char *spec_var, const char *spec, const char *log) {
  char rep[128], env_rep[160], env_spec[400];
  snprintf(rep, sizeof rep, "/tmp/gpuft-grammar-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  snprintf(env_spec, sizeof env_spec, "%s=%s", spec_var, spec);
  const char *argv[] = {APP_SGEMM, "64", NULL};
  /* (gpuft's injector flips before gpuft looks, the simulator's as the kernel starts:
   * after a check before use, which would tell them apart by what gpuft did, not by
   * where they flipped) */
  const char *env[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB_PRELOAD, env_rep, env_spec, "GPUFT_VERIFY_BEFORE_USE=0",
                       log, NULL};
  proc_result_t r;
  if (proc_run(argv, env, 60, &r) != 0 || r.status != 0) FT_FAIL_("sgemm with %s failed:\n%s", env_spec, r.err);
  char err[256];
  json_t *js = ft_report_load(rep, err, sizeof err);
  if (!js) FT_FAIL_("%s", err);
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(js, "events"), i, e) json_object_del(e, "base"); /* ASLR */
  char *ev = json_dumps(json_object_get(js, "events"), JSON_COMPACT);
  if (!strcmp(spec_var, "GPUFT_INJECT")) { /* it also says which bits it flipped */
    json_t *bits = json_object_get(json_array_get(json_object_get(js, "injections"), 0), "bits");
    char *b = json_dumps(bits, JSON_COMPACT);
    printf("  GPUFT_INJECT=%s flipped %s\n", spec, b);
    free(b);
  }
  if (log && !strstr(r.err, "old spelling")) FT_FAIL_("no deprecation note for %s:\n%s", spec, r.err);
  json_decref(js);
  proc_free(&r);
  unlink(rep);
  return ev;
}

TEST_IMPL(one_injection_grammar) {
  if (!have(APP_SGEMM)) return TEST_SKIPF("sgemm is not built (no nvcc)");
  static const struct {
    int arg, offset;
    const char *bit;
  } cases[] = {{0, 1000, "3"}, {1, 64, "0"}, {0, 4095, "7"}, {1, 2048, "1+6"}, {0, 12, "2+5"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char spec[200], old[200];
    snprintf(spec, sizeof spec, "at=launch:sgemm:1,target=arg:%d,offset=%d,bit=%s", cases[i].arg,
             cases[i].offset, cases[i].bit);
    snprintf(old, sizeof old, "before=launch:sgemm:1,arg=%d,offset=%d,bits=%s", cases[i].arg,
             cases[i].offset, cases[i].bit);
    char *g = events_of("GPUFT_INJECT", spec, NULL), *sim = events_of("SIMCUDA_FLIP", spec, NULL),
         *o = events_of("SIMCUDA_FLIP", old, "SIMCUDA_LOG=1");
    if (strcmp(g, sim) || strcmp(sim, o) || !strcmp(g, "[]"))
      FT_FAIL_("%s: gpuft's injector %s\nthe simulator's %s\nold spelling %s", spec, g, sim, o);
    free(g);
    free(sim);
    free(o);
  }
  return TEST_OK;
}

TEST_IMPL(uncorrectable_reported) {
  if (!have(APP_SGEMM)) return TEST_SKIPF("sgemm is not built (no nvcc)");
  /* Two bits in C just before it is read back, without replay (GPUFT_MODE=correct:
   * in the default mode a replay recomputes C): gpuft can only report it (the
   * program fails with the ECC error). */
  const char *args[] = {"-n", "3", "--json", "--bits", "2", "--at", "d2h:1", "--", APP_SGEMM, "64", NULL};
  proc_result_t r = campaign(args, "GPUFT_MODE=correct", 100);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(count_of(r.out, "detected_uncorrectable"), 3u);
  HAS(r.out, "\"exit\": 2");
  proc_free(&r);
  r = campaign(args, "GPUFT_ON_FAIL=abort GPUFT_MODE=correct", 100);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(count_of(r.out, "detected_uncorrectable"), 3u);
  HAS(r.out, "\"signal\": 6");
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(json_fields) {
  if (!have(APP_VECADD)) return TEST_SKIPF("vecadd is not built (no nvcc)");
  const char *args[] = {"-n", "5", "--json", "--seed", "7", "--at", "launch:vecadd:1,arg=0|1", "--",
                        APP_VECADD, "4096", NULL};
  proc_result_t r = campaign(args, NULL, 100);
  ASSERT_EQ(r.status, 0);
  check_structure(r.out);
  ASSERT_EQ(field(r.out, "runs"), 5u);
  ASSERT_EQ(field(r.out, "seed"), 7u);
  ASSERT_EQ(field(r.out, "injected") + field(r.out, "not_injected"), 5u);
  ASSERT_GT(field(r.out, "driver_calls"), 0u);
  uint64_t sum = 0;
  for (int k = 0; k < FT_OUT_NOT_INJECTED; k++) sum += count_of(r.out, ft_outcome_keys[k]);
  ASSERT_EQ(sum, field(r.out, "injected"));
  HAS(r.out, "\"injector\": \"gpuft\"");
  HAS(r.out, "\"at\": [\"launch:vecadd:1,arg=0|1\"]");
  HAS(r.out, "\"run\": 5, \"outcome\": ");
  HAS(r.out, "\"fault\": \"at=launch:vecadd:1,target=arg:");
  /* one process: each injected run applied its one fault */
  HAS(r.out, "\"runs_with_several_faults\": 0,");
  HAS(r.out, "\"faults_applied\": 1, \"restarts\": 0, \"fault\": ");
  proc_free(&r);
  return TEST_OK;
}

/* The outcomes and faults of a --json run list, without the times. */
static char *outcomes(const char *js) {
  size_t cap = strlen(js) + 1, n = 0;
  char *s = malloc(cap);
  for (const char *p = js; s && (p = strstr(p, "\"outcome\": \"")); p++) {
    const char *f = strstr(p, "\"fault\": \""), *e = f ? strchr(f + 10, '"') : NULL;
    const char *oe = strchr(p + 12, '"');
    if (!e || !oe) break;
    n += (size_t)snprintf(s + n, cap - n, "%.*s %.*s\n", (int)(oe - p - 12), p + 12,
                          (int)(e - f - 10), f + 10);
  }
  if (s) s[n] = 0;
  return s;
}

TEST_IMPL(jobs_do_not_change_results) {
  if (!have(APP_JACOBI)) return TEST_SKIPF("jacobi is not built (no nvcc)");
  char *seen[2];
  for (int j = 0; j < 2; j++) {
    const char *args[] = {"-n", "16", "--json", "--seed", "3", "-j", j ? "2" : "1", "--bits", "2",
                          "--", APP_JACOBI, "32", "20", NULL};
    proc_result_t r = campaign(args, NULL, 170);
    ASSERT_EQ(r.status, 0);
    seen[j] = outcomes(r.out);
    proc_free(&r);
  }
  ASSERT_STR_EQ(seen[0], seen[1]);
  ASSERT(strlen(seen[0]) > 16 * 10);
  free(seen[0]);
  free(seen[1]);
  return TEST_OK;
}

TEST_IMPL(real_campaign_sgemm) {
  if (!have(APP_SGEMM)) return TEST_SKIPF("sgemm is not built (no nvcc)");
  for (int sim = 0; sim < 2; sim++) {
    const char *args[] = {"-n", "16", "--json", "--bits", sim ? "2" : "1", "--injector",
                          sim ? "sim" : "gpuft", "--at", "launch:sgemm:1,arg=0|1", "--",
                          APP_SGEMM, "64", NULL};
    proc_result_t r = campaign(args, NULL, 170);
    ASSERT_EQ(r.status, 0);
    ASSERT_EQ(field(r.out, "not_injected"), 0u);
    ASSERT_EQ(count_of(r.out, "sdc"), 0u);
    ASSERT_EQ(count_of(r.out, "crash") + count_of(r.out, "hang"), 0u);
    /* inputs read by the kernel: every flip is found and undone */
    ASSERT_EQ(count_of(r.out, "corrected") + count_of(r.out, "recovered"), 16u);
    if (sim) HAS(r.out, "\"fault\": \"at=launch:sgemm:1,target=arg:");
    proc_free(&r);
  }
  return TEST_OK;
}

TEST_IMPL(ci_campaign) {
  if (!have(APP_VECADD) || !have(APP_SGEMM) || !have(APP_JACOBI) || !have(APP_MULTISTREAM))
    return TEST_SKIPF("the example programs are not built (no nvcc)");
  /* Faults in data at rest under a code: inputs before the kernels that read them,
   * outputs before they are read back. Both injectors, 1 and 2 bits. */
  static const struct {
    const char *name, *app, *arg1, *arg2, *at1, *at2;
    int runs_gpuft, runs_sim;
  } cfg[] = {
      {"vecadd", APP_VECADD, "65536", NULL, "launch:vecadd:1,arg=0|1", "d2h:1", 64, 40},
      {"sgemm", APP_SGEMM, "128", NULL, "launch:sgemm:1,arg=0|1", "d2h:1", 64, 40},
      {"jacobi", APP_JACOBI, "64", "20", "launch:residual_partial:1-20,arg=0|1", NULL, 64, 40},
      {"multistream", APP_MULTISTREAM, "2", "4", "launch:square_kernel:1-8,arg=0", NULL, 64, 40},
  };
  uint64_t total[3] = {0}, sdc = 0, broken = 0;
  printf("| program | injector | bits | runs | masked | corrected | recovered | "
         "detected-uncorrectable | SDC | crash | hang | not injected |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < sizeof cfg / sizeof *cfg; i++)
    for (int sim = 0; sim < 2; sim++)
      for (int bits = 1; bits <= 2; bits++) {
        char n[16], b[4];
        snprintf(n, sizeof n, "%d", sim ? cfg[i].runs_sim : cfg[i].runs_gpuft);
        snprintf(b, sizeof b, "%d", bits);
        const char *args[32] = {"-n", n, "--json", "--fail-on-sdc", "--seed", "1", "--bits", b,
                                "--injector", sim ? "sim" : "gpuft", "--at", cfg[i].at1};
        int k = 12;
        if (cfg[i].at2) {
          args[k++] = "--at";
          args[k++] = cfg[i].at2;
        }
        args[k++] = "--";
        args[k++] = cfg[i].app;
        args[k++] = cfg[i].arg1;
        args[k++] = cfg[i].arg2;
        proc_result_t r = campaign(args, NULL, 200);
        if (r.status != 0 && r.status != 1) FT_FAIL_("%s: status %d:\n%s", cfg[i].name, r.status, r.err);
        printf("| %s | %s | %d | %ju |", cfg[i].name, sim ? "sim" : "gpuft", bits,
               (uintmax_t)field(r.out, "injected"));
        for (int o = 0; o < FT_OUT_NOT_INJECTED; o++) printf(" %ju |", (uintmax_t)count_of(r.out, ft_outcome_keys[o]));
        printf(" %ju |\n", (uintmax_t)field(r.out, "not_injected"));
        fflush(stdout);
        total[bits] += field(r.out, "injected");
        sdc += count_of(r.out, "sdc");
        /* a fault in data at rest must never end or stall the program */
        broken += count_of(r.out, "crash") + count_of(r.out, "hang");
        /* every fault must land: otherwise this campaign tests less than it says */
        ASSERT_EQ(field(r.out, "not_injected"), 0u);
        proc_free(&r);
      }
  printf("single-bit runs: %ju, double-bit runs: %ju, silent data corruptions: %ju\n",
         (uintmax_t)total[1], (uintmax_t)total[2], (uintmax_t)sdc);
  ASSERT_EQ(sdc, 0u);
  ASSERT_EQ(broken, 0u);
  ASSERT_GE(total[1], 200u);
  ASSERT_GE(total[2], 200u);
  return TEST_OK;
}

/* ---- --rate and --native (issue 28) ---- */

/* Combinations that mean nothing are refused by name, before any run. */
TEST_IMPL(rate_native_usage) {
  static const struct {
    const char *args[8], *says;
  } cases[] = {
      {{"--rate", "100", "--injector", "gpuft"}, "--rate: the simulator flips random bits"},
      {{"--rate", "100", "--injector", "gpuft"}, "not with --injector gpuft"},
      {{"--rate", "100", "--at", "d2h:1"}, "not with --at"},
      {{"--rate", "100", "--bits", "2"}, "not with --bits"},
      {{"--rate", "-1"}, "invalid value for --rate: '-1'"},
      {{"--rate", "1e3x"}, "invalid value for --rate"},
      {{"--rate", "inf"}, "invalid value for --rate"},
      {{"--rate", "15000,seed=3"}, "invalid value for --rate"},
      {{"--native"}, "the default injector (gpuft) has nothing to place its faults with"},
      {{"--native", "--injector", "gpuft"}, "--native runs the program without gpuft, so --injector gpuft"},
      {{"--native", "--injector", "gpuft", "--rate", "1"}, "not with --injector gpuft"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *args[16] = {"-n", "2"};
    int k = 2;
    for (int a = 0; cases[i].args[a]; a++) args[k++] = cases[i].args[a];
    args[k++] = "--";
    args[k++] = "/bin/true";
    proc_result_t r = campaign(args, NULL, 30);
    if (r.status != 2) FT_FAIL_("case %zu: status %d, stderr:\n%s", i, r.status, r.err);
    HAS(r.err, cases[i].says);
    ASSERT_STR_EQ(r.out, "");
    proc_free(&r);
  }
  /* a baseline "without gpuft" that gpuft is preloaded into is none */
  const char *args[] = {"-n", "2", "--native", "--rate", "1", "--", "/bin/true", NULL};
  proc_result_t r = campaign(args, "LD_PRELOAD=" GPUFT_LIB_PRELOAD, 30);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "LD_PRELOAD already loads gpuft");
  proc_free(&r);
  const char *h[] = {"--help", NULL};
  r = campaign(h, NULL, 30);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "--rate R");
  HAS(r.out, "--native");
  proc_free(&r);
  return TEST_OK;
}

/* What every --json of a campaign says, whatever the flips did: the runs add up, and
 * without gpuft the classes that need it are not there. */
static void check_invariants(const char *js, int n, int native) {
  check_structure(js);
  ASSERT_EQ(field(js, "runs"), (uint64_t)n);
  ASSERT_EQ(field(js, "injected") + field(js, "not_injected"), (uint64_t)n);
  uint64_t sum = 0;
  for (int k = 0; k < FT_OUT_NOT_INJECTED; k++) {
    int needs_gpuft = k == FT_OUT_CORRECTED || k == FT_OUT_RECOVERED || k == FT_OUT_DUE;
    char key[64];
    snprintf(key, sizeof key, "\"%s\": {\"count\": ", ft_outcome_keys[k]);
    if (native && needs_gpuft) {
      if (strstr(js, key)) FT_FAIL_("%s in a campaign without gpuft:\n%s", ft_outcome_keys[k], js);
      continue;
    }
    sum += count_of(js, ft_outcome_keys[k]);
  }
  ASSERT_EQ(sum, field(js, "injected"));
  HAS(js, native ? "\"gpuft\": false" : "\"gpuft\": true");
}

/* A campaign of n runs with args (ending in "-- program ..."), natively or under gpuft:
 * it ran, and its --json holds the invariants. Returns the JSON (malloc'ed). */
static char *run_mode(const char *const args[], int n, int native, const char *extra) {
  const char *all[24] = {"--json", native ? "--native" : "--json"};
  int k = 2;
  for (; args[k - 2] && k < 23; k++) all[k] = args[k - 2];
  all[k] = NULL;
  proc_result_t r = campaign(all, extra, 110);
  if (r.status != 0) FT_FAIL_("%s: status %d:\n%s", native ? "native" : "under gpuft", r.status, r.err);
  check_invariants(r.out, n, native);
  free(r.err);
  return r.out;
}

/* --rate 0: the simulator flips nothing, so no run is faulted, with gpuft or without. */
TEST_IMPL(rate_zero_not_injected) {
  if (!have(APP_RATE_HOLD)) return TEST_SKIPF("rate_hold is not built (no simulator)");
  const char *args[] = {"-n", "3", "--rate", "0", "--", APP_RATE_HOLD, "10", NULL};
  for (int native = 0; native < 2; native++) {
    char *js = run_mode(args, 3, native, NULL);
    ASSERT_EQ(field(js, "not_injected"), 3u);
    ASSERT_EQ(field(js, "flips"), 0u);
    HAS(js, "\"injector\": \"rate\"");
    HAS(js, "\"rate\": 0,");
    HAS(js, "\"fault\": \"0,seed=");
    free(js);
  }
  /* the table says which runs count */
  const char *table[] = {"-n", "2", "--rate", "0", "--native", "--", APP_RATE_HOLD, "10", NULL};
  proc_result_t r = campaign(table, NULL, 60);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "random flips at 0 per GiB per second (simulator), seed 1, without gpuft (native)");
  HAS(r.out, "golden run without gpuft: exit 0");
  HAS(r.out, "total (faulted runs)          0");
  HAS(r.out, "(no flip landed: not in the percentages)");
  HAS(r.out, "(needs gpuft)");
  proc_free(&r);
  return TEST_OK;
}

/* 1 MiB at rest for 200 ms at 10,000 flips per GiB per second: about 2 flips a run in
 * it (more on a slower machine: the time decides; under TSan about 5 times as many,
 * still far from the hundreds a run at which double flips in a block make gpuft give
 * up). Without gpuft each flip reaches the checksum the program prints; under gpuft
 * they are repaired before the read-back. Asserted: that flips landed (no flip in 8
 * runs: e^-16) and what each mode can and cannot produce, not how many. */
TEST_IMPL(rate_native_and_gpuft) {
  if (!have(APP_RATE_HOLD)) return TEST_SKIPF("rate_hold is not built (no simulator)");
  const char *args[] = {"-n", "8", "--seed", "4", "--rate", "10000", "--", APP_RATE_HOLD, "200", NULL};
  for (int native = 1; native >= 0; native--) {
    char *js = run_mode(args, 8, native, NULL);
    uint64_t repaired = native ? 0 : count_of(js, "corrected") + count_of(js, "recovered");
    printf("  %s: %ju faulted runs, %ju flips, %ju sdc, %ju corrected or recovered\n",
           native ? "native" : "gpuft", (uintmax_t)field(js, "injected"), (uintmax_t)field(js, "flips"),
           (uintmax_t)count_of(js, "sdc"), (uintmax_t)repaired);
    ASSERT_GT(field(js, "injected"), 0u);
    ASSERT_GE(field(js, "flips"), field(js, "injected"));
    HAS(js, "\"fault\": \"10000,seed=");
    if (native) ASSERT_GT(count_of(js, "sdc"), 0u); /* nothing stands between a flip and the output */
    else ASSERT_GT(repaired, 0u);
    free(js);
  }
  return TEST_OK;
}

/* --native with a placed fault (the simulator's): what the fault does alone. One flip
 * in the source of the read-back: without gpuft always a wrong checksum, under gpuft
 * always corrected. */
TEST_IMPL(native_placed_fault) {
  if (!have(APP_RATE_HOLD)) return TEST_SKIPF("rate_hold is not built (no simulator)");
  const char *args[] = {"-n", "3", "--injector", "sim", "--at", "d2h:1", "--", APP_RATE_HOLD, "0", NULL};
  for (int native = 1; native >= 0; native--) {
    char *js = run_mode(args, 3, native, NULL);
    ASSERT_EQ(field(js, "injected"), 3u);
    ASSERT_EQ(count_of(js, native ? "sdc" : "corrected"), 3u);
    HAS(js, "\"injector\": \"sim\"");
    HAS(js, "\"rate\": null");
    free(js);
  }
  return TEST_OK;
}

/* The issue's solver, two runs each way: the campaign runs and its counts add up
 * (docs/campaign.md has the 300-run figures). One simulator thread: its dot product's
 * atomicAdd order, and so the printed residual, is then the same in every run. */
TEST_IMPL(rate_cg_csr) {
  if (!have(APP_CG_CSR)) return TEST_SKIPF("the cg_csr sample is not built (no nvcc)");
  const char *args[] = {"-n", "2", "--rate", "15000", "--", APP_CG_CSR, NULL};
  for (int native = 1; native >= 0; native--) free(run_mode(args, 2, native, "SIMCUDA_THREADS=1"));
  return TEST_OK;
}
