/* test_soundness.c: runs the adversarial kernels of adversarial.cu natively and
 * under gpuft on the simulator's interpreter with SIMCUDA_CHECK_ACCESS, and checks
 * that gpuft never changes what they compute (issue 21). With GPUFT_TEST_DRIVER=real
 * the same runs go to the GPU, without the simulator's own counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "runner.h"

/* The case names (adversarial --list), into names[]; returns how many. */
static int list_cases(char names[][32], int cap) {
  const char *argv[] = {EXE_ADVERSARIAL, "--list", NULL};
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "LD_PRELOAD", NULL};
  proc_result_t r;
  if (proc_run(argv, env, 30, &r) != 0 || r.status != 0) return -1;
  int n = 0;
  for (char *line = strtok(r.out, "\n"); line && n < cap; line = strtok(NULL, "\n"))
    snprintf(names[n++], 32, "%s", line);
  proc_free(&r);
  return n;
}

typedef struct {
  int status;
  char out[256];
  uint64_t violations, shim_violations, shim_checked, interpreted, detected, reach_all, scanned;
  uint64_t range_checks, range_violations;
} outcome_t;

/* Runs one case; gpuft: NULL natively, else "MODE/CHECK"; check: the access-check mode;
 * flip: a GPUFT_INJECT spec or NULL. */
static int run_case(const char *name, const char *gpuft, const char *check, const char *flip,
                    outcome_t *o) {
  char rep[128], env_rep[160], mode[64], chk[64], chkm[64], inj[256];
  snprintf(rep, sizeof rep, "/tmp/gpuft-sound-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  snprintf(chkm, sizeof chkm, "SIMCUDA_CHECK_ACCESS=%s", check);
  const char *env[12] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "SIMCUDA_STATS=1", chkm};
  int k = 4;
  if (gpuft) {
    char m[32];
    snprintf(m, sizeof m, "%s", gpuft);
    char *slash = strchr(m, '/');
    *slash = 0;
    snprintf(mode, sizeof mode, "GPUFT_MODE=%s", m);
    snprintf(chk, sizeof chk, "GPUFT_CHECK=%s", slash + 1);
    env[k++] = "LD_PRELOAD=" GPUFT_LIB;
    env[k++] = env_rep;
    env[k++] = mode;
    env[k++] = chk;
    if (flip) {
      snprintf(inj, sizeof inj, "GPUFT_INJECT=%s", flip);
      env[k++] = inj;
    }
  } else {
    env[k++] = "LD_PRELOAD";
  }
  env[k] = NULL;
  unlink(rep);
  const char *argv[] = {EXE_ADVERSARIAL, name, NULL};
  proc_result_t r;
  if (proc_run(argv, env, 120, &r) != 0) return -1;
  memset(o, 0, sizeof *o);
  o->status = r.status;
  snprintf(o->out, sizeof o->out, "%s", r.out);
  o->violations = sim_stat(r.err, "analysis_violations");
  o->range_checks = sim_stat(r.err, "range_checks");
  o->range_violations = sim_stat(r.err, "range_violations");
  o->shim_violations = sim_stat(r.err, "shim_violations");
  o->shim_checked = sim_stat(r.err, "shim_launches_checked");
  o->interpreted = sim_stat(r.err, "kernels_interpreted");
  if (r.status != 0 || (gpuft && o->shim_violations) || o->violations)
    fprintf(stderr, "--- %s under %s:\n%s%s", name, gpuft ? gpuft : "native", r.out, r.err);
  proc_free(&r);
  if (gpuft) {
    char *json = read_file(rep);
    if (!json) return -1;
    json_u64(json, "detected", &o->detected);
    json_u64(json, "launches_reaching_everything", &o->reach_all);
    json_u64(json, "launches_pointer_scanned", &o->scanned);
    free(json);
    unlink(rep);
  }
  return 0;
}

static const char *const modes[] = {"detect/launch", "correct/launch", "recover/launch",
                                    "detect/epoch",  "correct/epoch",  "recover/epoch"};

TEST_IMPL(every_case_native_and_under_gpuft) {
  if (!*EXE_ADVERSARIAL) return TEST_SKIPF("adversarial kernels not built (no nvcc)");
  char names[64][32];
  int n = list_cases(names, 64);
  ASSERT_GE(n, 20);
  int real = proc_real_driver(); /* on a GPU: the same outputs, without the simulator's checks */
  uint64_t all = 0, scanned = 0, ranges = 0;
  /* sanitizer builds (several times slower): two modes, one of each check */
  size_t nmodes = ft_test_timeout_scale() > 1 ? 2 : sizeof modes / sizeof *modes;
  static const char *const few[] = {"recover/launch", "detect/epoch"};
  const char *const *ms = nmodes == 2 ? few : modes;
  for (int i = 0; i < n; i++) {
    outcome_t nat, g;
    ASSERT_EQ(run_case(names[i], NULL, "1", NULL, &nat), 0);
    if (nat.status != 0) FT_FAIL_("%s: wrong natively: %s", names[i], nat.out);
    if (!real) { /* the simulator's interpreter ran it and its access check agreed */
      ASSERT_GE(nat.interpreted, 1u);
      ASSERT_EQ(nat.violations, 0u);
      if (nat.range_violations) FT_FAIL_("%s: %ju accesses outside its places' byte ranges", names[i],
                                         (uintmax_t)nat.range_violations);
      ranges += nat.range_checks;
    }
    for (size_t m = 0; m < nmodes; m++) {
      ASSERT_EQ(run_case(names[i], ms[m], "1", NULL, &g), 0);
      if (g.status != 0 || strcmp(g.out, nat.out))
        FT_FAIL_("%s under gpuft %s: %s (native: %s)", names[i], ms[m], g.out, nat.out);
      if (g.shim_violations) FT_FAIL_("%s under gpuft %s: %ju stores gpuft treated as unwritten",
                                      names[i], ms[m], (uintmax_t)g.shim_violations);
      if (!real) {
        ASSERT_EQ(g.violations, 0u);
        ASSERT_GE(g.shim_checked, 1u); /* gpuft declared its decisions */
      }
      ASSERT_EQ(g.detected, 0u);
      all += g.reach_all;
      scanned += g.scanned;
      /* a table of pointers to matrices a kernel wrote: one level deep, the
       * matrices are not scanned; a small table a kernel built, read back once its
       * writer finished: no pass over everything for either */
      if ((!strcmp(names[i], "table_written") || !strcmp(names[i], "device_table")) && g.reach_all)
        FT_FAIL_("%s under %s: %ju launches reached everything", names[i], ms[m], (uintmax_t)g.reach_all);
    }
  }
  printf("# %ju access extents checked against byte ranges, natively\n", (uintmax_t)ranges);
  /* the conservative paths were taken (tables scanned, unknown origins: everything) */
  ASSERT_GE(scanned, 1u);
  ASSERT_GE(all, 1u);
  return TEST_OK;
}

TEST_IMPL(declaration_check_sees_stores) {
  if (!*EXE_ADVERSARIAL) return TEST_SKIPF("adversarial kernels not built (no nvcc)");
  if (proc_real_driver()) return TEST_SKIPF("checks the simulator's access check (GPUFT_TEST_DRIVER=real)");
  char names[64][32];
  int n = list_cases(names, 64);
  ASSERT_GE(n, 20);
  for (int i = 0; i < n; i++) {
    outcome_t g;
    ASSERT_EQ(run_case(names[i], "recover/launch", "2", NULL, &g), 0);
    ASSERT_GE(g.shim_checked, 1u);
    if (!g.shim_violations) FT_FAIL_("%s: the self-test saw no store", names[i]);
  }
  return TEST_OK;
}

TEST_IMPL(flips_in_inputs_repaired) {
  if (!*EXE_ADVERSARIAL) return TEST_SKIPF("adversarial kernels not built (no nvcc)");
  char names[64][32];
  int n = list_cases(names, 64);
  ASSERT_GE(n, 20);
  int runs = 0, repaired = 0, reported = 0, range_runs = 0, range_repaired = 0;
  for (int i = 0; i < n; i++) {
    /* cases whose first argument is not the input array */
    if (!strcmp(names[i], "list") || !strcmp(names[i], "jobs") || !strcmp(names[i], "device_table"))
      continue;
    outcome_t nat, g;
    ASSERT_EQ(run_case(names[i], NULL, "0", NULL, &nat), 0);
    /* one bit, then two bits of one byte, of the input before the first launch */
    for (int bits = 1; bits <= 2; bits++) {
      char spec[160];
      snprintf(spec, sizeof spec, "at=launch:k_:1,target=arg:0,offset=%d,bit=%d%s", 40 + 4 * i, i % 7,
               bits == 2 ? "+7" : "");
      ASSERT_EQ(run_case(names[i], "recover/launch", "1", spec, &g), 0);
      ASSERT_EQ(g.shim_violations, 0u);
      if (g.detected < 1) FT_FAIL_("%s with %s: the flip was not found\n%s", names[i], spec, g.out); 
      runs++;
      /* never a wrong answer: the native one, or an error the program is told of */
      if (strstr(g.out, "WRONG")) FT_FAIL_("%s with %s: a wrong answer: %s", names[i], spec, g.out);
      int range_case = !strncmp(names[i], "r_", 2);
      range_runs += range_case;
      if (g.status == 0) {
        if (strcmp(g.out, nat.out)) FT_FAIL_("%s with %s: %s (native: %s)", names[i], spec, g.out, nat.out);
        repaired++;
        range_repaired += range_case;
      } else {
        reported++;
      }
    }
  }
  printf("# %d runs: %d repaired, %d reported uncorrectable\n", runs, repaired, reported);
  /* Kernels that reach memory other than through their arguments make their epoch
   * unreplayable (docs/ptx.md, "Soundness"): a flip they consumed is reported, not
   * repaired. The others (rebase, xor, past_end, before_start, restrict_alias,
   * uintptr, offset_param, device_fn: 16 runs) are repaired. */
  ASSERT_GE(repaired, 12);
  /* The byte-range cases (r_*: tensors of one pool, a stride loop, a scatter, a tile,
   * two streams; a pool written only in part: tensors uploaded, set, copied and
   * written among never-written groups, a workspace carved from it, a gather through
   * an index table) reach memory only through their arguments: every flip repaired. */
  ASSERT_GE(range_runs, 20);
  ASSERT_EQ(range_repaired, range_runs);
  return TEST_OK;
}
