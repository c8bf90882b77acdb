/* test_hostile.c: every GPUFT_* option and every SIMCUDA_* variable set to hostile
 * values (empty, negative, nan, huge, overflowing, garbage): the program must not
 * crash or hang, must compute the right answer, and the value must be warned
 * about exactly once when it is invalid or out of range. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "proc.h"
#include "runner.h"

#define PRELOAD "LD_PRELOAD=" GPUFT_LIB
#define SIMPATH "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR

static const char *const hostile[] = {
    "", "-1", "nan", "1000000", "99999999999999999999999", "3junk", "\x01\xff", "1e400",
    "-nan", "inf", "9223372036854775807", "18446744073709551616", "0x10", " 7", "0", "1e-300",
};
/* Sanitizer builds (a timeout scale above 1) start each process ten times slower:
 * there the first 8 values, one of each kind, keep CI within its time. */
static size_t n_hostile(void) {
  const char *sc = getenv("FT_TEST_TIMEOUT_SCALE");
  return sc && atof(sc) > 1 ? 8 : sizeof hostile / sizeof *hostile;
}
#define N_HOSTILE n_hostile()

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
  return n;
}

/* Lines of err that warn about the value of `name` ("GPUFT_X="). */
static int warnings(const char *err, const char *name) {
  int n = 0;
  for (const char *p = err; (p = strstr(p, name)); p++) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(len < 511 ? len : 511), p);
    n += strstr(line, "is not valid") || strstr(line, "out of range");
  }
  return n;
}

/* Runs the threads program (upload, kernel, read back, compare) with `setting`;
 * returns its result for the caller to judge. Never a signal, never a hang. */
static void run_with(const char *setting, int gp, proc_result_t *r) {
  const char *argv[] = {EXE_THREADS, "3", "4", NULL};
  const char *env[] = {SIMPATH, gp ? PRELOAD : "LD_PRELOAD", setting, NULL};
  ASSERT_EQ(proc_run(argv, env, 60, r), 0);
  if (r->status >= 128)
    FT_FAIL_("with %s the program %s (status %d)\n%.3000s", setting,
             r->status == 128 + 9 ? "hung" : "crashed", r->status, r->err);
}

TEST_IMPL(hostile_gpuft_options) {
  int runs = 0;
  for (int i = 0; i < FT_N_OPTIONS; i++) {
    const ft_option_t *o = &ft_options[i];
    for (size_t k = 0; k < N_HOSTILE; k++) {
      char setting[128], name[64];
      snprintf(name, sizeof name, "GPUFT_%s=", o->name);
      snprintf(setting, sizeof setting, "%s%s", name, hostile[k]);
      /* A report path or an injection: test those elsewhere (they write files or
       * flip bits on purpose); what matters here is that nothing breaks. */
      int judged = o->kind != FT_OPTK_STR;
      proc_result_t r;
      run_with(setting, 1, &r);
      runs++;
      if (judged && r.status != 0)
        FT_FAIL_("%s: wrong answer or failure (status %d)\n%.3000s", setting, r.status, r.err);
      if (judged) {
        int64_t v;
        int invalid = ft_option_parse(i, hostile[k], &v) != 0;
        int out = !invalid && (o->kind == FT_OPTK_INT || o->kind == FT_OPTK_SIZE) &&
                  (v < o->min || v > o->max);
        int warned = warnings(r.err, name);
        if (warned != (invalid || out))
          FT_FAIL_("%s: %d warning(s), expected %d\n%.3000s", setting, warned, invalid || out,
                   r.err);
      }
      proc_free(&r);
    }
  }
  printf("# %d runs with hostile GPUFT_* values\n", runs);
  return TEST_OK;
}

TEST_IMPL(hostile_simulator_options) {
  static const char *const vars[] = {"SIMCUDA_MEM_GB", "SIMCUDA_THREADS", "SIMCUDA_PCIE_GBPS",
                                     "SIMCUDA_LOG",    "SIMCUDA_STATS",   "SIMCUDA_POISON",
                                     "SIMCUDA_FLIP",   "SIMCUDA_FLIP_RATE"};
  int runs = 0;
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    for (size_t k = 0; k < N_HOSTILE; k++)
      for (int gp = 0; gp < 2; gp++) {
        char setting[128];
        snprintf(setting, sizeof setting, "%s=%s", vars[i], hostile[k]);
        proc_result_t r;
        run_with(setting, gp, &r);
        runs++;
        /* Faults on purpose (a flip rate) or too little memory may make the program
         * fail cleanly; any other variable must leave its answer right. */
        int may_fail = strstr(vars[i], "FLIP") || strstr(vars[i], "MEM_GB");
        if (!may_fail && r.status != 0)
          FT_FAIL_("%s (gpuft %s): status %d\n%.3000s", setting, gp ? "on" : "off", r.status,
                   r.err);
        /* Never more than one warning about the value itself. */
        char name[64];
        snprintf(name, sizeof name, "%s=", vars[i]);
        if (count(r.err, name) > 1)
          FT_FAIL_("%s: warned %d times\n%.3000s", setting, count(r.err, name), r.err);
        proc_free(&r);
      }
  printf("# %d runs with hostile SIMCUDA_* values\n", runs);
  return TEST_OK;
}
