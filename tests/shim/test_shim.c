/* test_shim.c: libgpuft.so preloaded onto real programs, on the simulator (and the
 * example programs on a GPU): identical behaviour, every hook reached, the three doors,
 * threads, fork, a missing driver, non-CUDA programs, options. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "proc.h"
#include "runner.h"

#define PRELOAD "LD_PRELOAD=" GPUFT_LIB
#define SIMPATH "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR

/* Names of every hook, from the one list. */
static const char *const hook_names[] = {
#define FT_HOOK(cls, name, pfn, params, args) #name,
#include "hooks.def"
#undef FT_HOOK
};
static const char *const hook_classes[] = {
#define FT_HOOK(cls, name, pfn, params, args) #cls,
#include "hooks.def"
#undef FT_HOOK
};
#define N_HOOK_NAMES (sizeof hook_names / sizeof *hook_names)

/* GPUFT_TEST_DRIVER=real (tools/gpu-acceptance): the example programs are compared
 * with and without gpuft on the GPU; the driver-API programs here are linked against
 * the simulator's libcuda and its kernel twins, and skip. */
#define SIM_ONLY()                                                                        \
  do {                                                                                    \
    if (proc_real_driver()) return TEST_SKIPF("a program built for the simulator (GPUFT_TEST_DRIVER=real)"); \
  } while (0)

static void run(const char *const argv[], const char *const env[], proc_result_t *r) {
  ASSERT_EQ(proc_run(argv, env, 120, r), 0);
}

static void tmp_path(char *buf, size_t n, const char *tag) {
  snprintf(buf, n, "/tmp/gpuft-test-%d-%s.json", (int)getpid(), tag);
  unlink(buf);
}

/* ---- the example programs, with and without gpuft ---- */

typedef struct {
  const char *exe;
  const char *args[3];
} app_t;

static int apps(const app_t **out) {
  static const app_t list[] = {
#ifdef APP_VECADD
      {APP_VECADD, {"100000", NULL}},
      {APP_SGEMM, {"96", NULL}},
      {APP_SGEMM, {"130", NULL}},
      {APP_JACOBI, {NULL}},
      {APP_MULTISTREAM, {NULL}},
      {APP_MULTISTREAM_PTDS, {NULL}},
#endif
      {NULL, {NULL}}};
  *out = list;
  return (int)(sizeof list / sizeof *list) - 1;
}

static void compare_apps(const char *const extra_env[]) {
  const app_t *a;
  int n = apps(&a);
  for (int i = 0; i < n; i++) {
    const char *argv[5] = {a[i].exe, a[i].args[0], a[i].args[0] ? a[i].args[1] : NULL, NULL};
    const char *plain_env[] = {SIMPATH, "LD_PRELOAD", "GPUFT_REPORT", NULL};
    const char *gp_env[8] = {SIMPATH, PRELOAD};
    int k = 2;
    for (int j = 0; extra_env[j]; j++) gp_env[k++] = extra_env[j];
    gp_env[k] = NULL;
    proc_result_t p, g;
    run(argv, plain_env, &p);
    run(argv, gp_env, &g);
    if (p.status != 0) FT_FAIL_("%s failed without gpuft: %s", a[i].exe, p.err);
    ASSERT_EQ(g.status, p.status);
    ASSERT_STR_EQ(g.out, p.out);
    proc_free(&p);
    proc_free(&g);
  }
}

TEST_IMPL(apps_identical_output_under_gpuft) {
  const app_t *a;
  if (apps(&a) == 0) return TEST_SKIPF("nvcc not found: the example programs were not built");
  char rep[256];
  tmp_path(rep, sizeof rep, "apps");
  char env_rep[300];
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *env[] = {env_rep, NULL};
  compare_apps(env);
  /* the last program's report shows it was intercepted */
  char *json = read_file(rep);
  ASSERT(json != NULL);
  uint64_t launches = 0;
  ASSERT_EQ(json_u64(json, "driver_calls", &launches), 0);
  ASSERT_GT(launches, 0u);
  free(json);
  unlink(rep);
  return TEST_OK;
}

TEST_IMPL(apps_identical_output_gpuft_disabled) {
  const app_t *a;
  if (apps(&a) == 0) return TEST_SKIPF("nvcc not found: the example programs were not built");
  char rep[256], env_rep[300];
  tmp_path(rep, sizeof rep, "disabled");
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *env[] = {"GPUFT_ENABLE=0", env_rep, NULL};
  compare_apps(env);
  ASSERT_EQ(access(rep, F_OK), -1); /* disabled: no report, nothing counted */
  return TEST_OK;
}

/* ---- every hook ---- */

TEST_IMPL(exercise_runs_without_gpuft) {
  SIM_ONLY();
  const char *argv[] = {EXE_EXERCISE, NULL};
  const char *env[] = {SIMPATH, "LD_PRELOAD", NULL};
  proc_result_t r;
  run(argv, env, &r);
  if (r.status != 0) FT_FAIL_("exercise failed on the simulator:\n%s", r.err);
  ASSERT_STR_EQ(r.out, "exercise: ok\n");
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(every_hook_reached) {
  SIM_ONLY();
  char rep[256], env_rep[300];
  tmp_path(rep, sizeof rep, "every");
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *argv[] = {EXE_EXERCISE, NULL};
  const char *env[] = {SIMPATH, PRELOAD, env_rep, NULL};
  proc_result_t r;
  run(argv, env, &r);
  if (r.status != 0) FT_FAIL_("exercise failed under gpuft:\n%s", r.err);
  ASSERT_STR_EQ(r.out, "exercise: ok\n");
  char *json = read_file(rep);
  ASSERT(json != NULL);
  int missing = 0;
  uint64_t unprot_expected = 0;
  for (size_t i = 0; i < N_HOOK_NAMES; i++) {
    uint64_t c = 0;
    if (json_u64(json, hook_names[i], &c) != 0 || c == 0) {
      fprintf(stderr, "hook %s was not reached\n", hook_names[i]);
      missing++;
    }
    if (!strcmp(hook_classes[i], "UNPROT") || !strcmp(hook_classes[i], "GRAPH"))
      unprot_expected += c;
  }
  ASSERT_EQ(missing, 0);
  uint64_t unprot = 0;
  ASSERT_EQ(json_u64(json, "unprotected_ops", &unprot), 0);
  /* graph launches are unprotected only where gpuft cannot read the graph: the
   * exercise launches 6 graphs it can read (one with a host node and host copies,
   * protected as its nodes but unreplayable; one with a conditional node; the last
   * one captured from two batch copies) and 1 it changed since (graph.c) */
  uint64_t graphs = 0, captured = 0;
  ASSERT_EQ(json_u64(json, "graph_launches_protected", &graphs), 0);
  ASSERT_EQ(graphs, 6u);
  /* the batch copies on the capturing stream were passed through, untouched: gpuft's
   * own work there (a commit, an event) invalidates a real driver's capture */
  ASSERT_EQ(json_u64(json, "captured_ops", &captured), 0);
  ASSERT_GE(captured, 2u);
  ASSERT_EQ(unprot, unprot_expected - graphs);
  ASSERT_GT(unprot, 0u);
  uint64_t refused = 1;
  ASSERT_EQ(json_u64(json, "verifications_refused", &refused), 0);
  ASSERT_EQ(refused, 0u); /* a batch copy into 1,100 allocations made room as it went */
  printf("# %zu hooks reached; %ju unprotected operations counted\n", N_HOOK_NAMES,
         (uintmax_t)unprot);
  free(json);
  unlink(rep);
  proc_free(&r);
  return TEST_OK;
}

/* ---- doors ---- */

/* The "info" lines: where non-CUDA look-ups land. */
static void info_lines(const char *out, char *buf, size_t n) {
  size_t used = 0;
  for (const char *p = out; (p = strstr(p, "info ")) != NULL;) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p + 1) : strlen(p);
    size_t take = len < n - 1 - used ? len : n - 1 - used;
    memcpy(buf + used, p, take);
    used += take;
    p += len;
  }
  buf[used] = 0;
}

static void doors(int with) {
  const char *argv[] = {EXE_DOORS, with ? "gpuft" : "plain", NULL};
  const char *argv_plain[] = {EXE_DOORS, "plain", NULL};
  const char *env_with[] = {SIMPATH, PRELOAD, NULL};
  const char *env_without[] = {SIMPATH, "LD_PRELOAD", NULL};
  proc_result_t r, p;
  run(argv, with ? env_with : env_without, &r);
  if (r.status != 0) FT_FAIL_("doors %s:\n%s\n%s", argv[1], r.out, r.err);
  ASSERT(strstr(r.out, "doors: 0 failures") != NULL);
  /* non-CUDA look-ups land where they land without gpuft */
  run(argv_plain, env_without, &p);
  char a[4096], b[4096];
  info_lines(r.out, a, sizeof a);
  info_lines(p.out, b, sizeof b);
  ASSERT(strlen(a) > 0);
  ASSERT_STR_EQ(a, b);
  proc_free(&r);
  proc_free(&p);
}

TEST_IMPL(doors_without_gpuft) {
  SIM_ONLY();
  doors(0);
  return TEST_OK;
}
TEST_IMPL(doors_with_gpuft) {
  SIM_ONLY();
  doors(1);
  return TEST_OK;
}

/* ---- threads ---- */

TEST_IMPL(many_threads) {
  SIM_ONLY();
  char rep[256], env_rep[300];
  tmp_path(rep, sizeof rep, "threads");
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *argv[] = {EXE_THREADS, "8", "40", NULL};
  const char *env[] = {SIMPATH, PRELOAD, env_rep, NULL};
  proc_result_t r;
  run(argv, env, &r);
  if (r.status != 0) FT_FAIL_("threads under gpuft:\n%s\n%s", r.out, r.err);
  ASSERT_STR_EQ(r.out, "threads: 8 x 40 iterations, 0 errors\n");
  char *json = read_file(rep);
  ASSERT(json != NULL);
  uint64_t c = 0;
  /* every call of every thread was counted once */
  ASSERT_EQ(json_u64(json, "cuMemAlloc_v2", &c), 0);
  ASSERT_EQ(c, 320u);
  ASSERT_EQ(json_u64(json, "cuLaunchKernel", &c), 0);
  ASSERT_EQ(c, 320u);
  ASSERT_EQ(json_u64(json, "cuMemcpyHtoDAsync_v2", &c), 0);
  ASSERT_EQ(c, 320u);
  ASSERT_EQ(json_u64(json, "cuMemFree_v2", &c), 0);
  ASSERT_EQ(c, 320u);
  free(json);
  unlink(rep);
  proc_free(&r);
  return TEST_OK;
}

/* ---- programs gpuft must leave alone ---- */

TEST_IMPL(program_without_cuda_untouched) {
  char rep[256], env_rep[300];
  tmp_path(rep, sizeof rep, "nocuda");
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *argv[] = {EXE_NOCUDA, NULL};
  const char *env_with[] = {SIMPATH, PRELOAD, env_rep, "GPUFT_LOG=debug", NULL};
  const char *env_without[] = {SIMPATH, "LD_PRELOAD", NULL};
  proc_result_t g, p;
  run(argv, env_with, &g);
  run(argv, env_without, &p);
  ASSERT_EQ(p.status, 3);
  ASSERT_EQ(g.status, 3);
  ASSERT_STR_EQ(g.out, p.out);
  ASSERT_STR_EQ(g.err, "");
  ASSERT_EQ(access(rep, F_OK), -1);
  proc_free(&g);
  proc_free(&p);
  return TEST_OK;
}

TEST_IMPL(fork_child_leaves_report_alone) {
  SIM_ONLY();
  char rep[256], env_rep[300];
  tmp_path(rep, sizeof rep, "fork");
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  const char *argv[] = {EXE_FORKER, NULL};
  const char *env[] = {SIMPATH, PRELOAD, env_rep, NULL};
  proc_result_t r;
  run(argv, env, &r);
  if (r.status != 0) FT_FAIL_("forker:\n%s\n%s", r.out, r.err);
  int parent = 0;
  const char *p = strstr(r.out, "parent ");
  ASSERT(p != NULL);
  parent = atoi(p + 7);
  ASSERT(strstr(r.out, "child\n") != NULL);
  char *json = read_file(rep);
  ASSERT(json != NULL);
  uint64_t pid = 0, frees = 0;
  ASSERT_EQ(json_u64(json, "pid", &pid), 0);
  ASSERT_EQ(pid, (uint64_t)parent);
  ASSERT_EQ(json_u64(json, "cuMemFree_v2", &frees), 0);
  ASSERT_EQ(frees, 1u);
  free(json);
  unlink(rep);
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(missing_driver_never_called) {
  SIM_ONLY();
  const char *argv[] = {EXE_NODRIVER, NULL};
  const char *env[] = {"LD_LIBRARY_PATH=/nonexistent", PRELOAD, NULL};
  proc_result_t r;
  run(argv, env, &r);
  if (r.status != 0) FT_FAIL_("nodriver:\n%s\n%s", r.out, r.err);
  proc_free(&r);
  return TEST_OK;
}

/* ---- options ---- */

TEST_IMPL(invalid_options_warn_and_keep_defaults) {
  SIM_ONLY();
  static const struct {
    const char *env, *warn, *shown;
  } cases[] = {
      {"GPUFT_MAX_RETRIES=abc", "GPUFT_MAX_RETRIES=\"abc\" is not valid", "GPUFT_MAX_RETRIES    = 3 "},
      {"GPUFT_MAX_RETRIES=-1", "GPUFT_MAX_RETRIES=\"-1\" is not valid", "GPUFT_MAX_RETRIES    = 3 "},
      {"GPUFT_CHUNK=99999999999999999999G", "GPUFT_CHUNK=\"99999999999999999999G\" is not valid",
       "GPUFT_CHUNK          = 8MiB"},
      {"GPUFT_CHUNK=8XB", "GPUFT_CHUNK=\"8XB\" is not valid", "GPUFT_CHUNK          = 8MiB"},
      {"GPUFT_MODE=fix-everything", "GPUFT_MODE=\"fix-everything\" is not valid (one of detect|",
       "GPUFT_MODE           = recover"},
      {"GPUFT_ENABLE=maybe", "GPUFT_ENABLE=\"maybe\" is not valid", "GPUFT_ENABLE         = 1 "},
      {"GPUFT_EPOCH_LAUNCHES=", "GPUFT_EPOCH_LAUNCHES=\"\" is not valid",
       "GPUFT_EPOCH_LAUNCHES = 64"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *argv[] = {EXE_THREADS, "1", "2", NULL};
    const char *env[] = {SIMPATH, PRELOAD, "GPUFT_LOG=debug", cases[i].env, NULL};
    proc_result_t r;
    run(argv, env, &r);
    if (r.status != 0) FT_FAIL_("threads with %s:\n%s", cases[i].env, r.err);
    if (!strstr(r.err, cases[i].warn)) FT_FAIL_("no warning for %s:\n%s", cases[i].env, r.err);
    if (!strstr(r.err, cases[i].shown)) FT_FAIL_("default not kept for %s:\n%s", cases[i].env, r.err);
    /* exactly one warning line for the bad value */
    const char *w = strstr(r.err, cases[i].warn);
    ASSERT(strstr(w + 1, cases[i].warn) == NULL);
    proc_free(&r);
  }
  /* A hostile log level keeps "warn": the bad value is itself reported. */
  const char *argv[] = {EXE_THREADS, "1", "2", NULL};
  const char *env[] = {SIMPATH, PRELOAD, "GPUFT_LOG=verbose\x01", NULL};
  proc_result_t r;
  run(argv, env, &r);
  ASSERT_EQ(r.status, 0);
  ASSERT(strstr(r.err, "GPUFT_LOG=") != NULL);
  ASSERT(strstr(r.err, "debug:") == NULL);
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(option_parsing) {
  int64_t v;
  ASSERT_EQ(ft_option_parse(FT_OPT_CKPT_MAX, "512MiB", &v), 0);
  ASSERT_EQ(v, (int64_t)512 << 20);
  ASSERT_EQ(ft_option_parse(FT_OPT_CKPT_MAX, "2g", &v), 0);
  ASSERT_EQ(v, (int64_t)2 << 30);
  ASSERT_EQ(ft_option_parse(FT_OPT_CKPT_MAX, "4096", &v), 0);
  ASSERT_EQ(v, 4096);
  ASSERT_EQ(ft_option_parse(FT_OPT_CKPT_MAX, "1.5G", &v), -1);
  ASSERT_EQ(ft_option_parse(FT_OPT_CKPT_MAX, "9223372036854775807K", &v), -1);
  ASSERT_EQ(ft_option_parse(FT_OPT_CKPT_MAX, " 5", &v), -1);
  ASSERT_EQ(ft_option_parse(FT_OPT_ENABLE, "off", &v), 0);
  ASSERT_EQ(v, 0);
  ASSERT_EQ(ft_option_parse(FT_OPT_ENABLE, "TRUE", &v), 0);
  ASSERT_EQ(v, 1);
  ASSERT_EQ(ft_option_parse(FT_OPT_ENABLE, "2", &v), -1);
  ASSERT_EQ(ft_option_parse(FT_OPT_ON_FAIL, "warn", &v), 0);
  ASSERT_EQ(v, FT_ONFAIL_WARN);
  ASSERT_EQ(ft_option_parse(FT_OPT_ON_FAIL, "war", &v), -1);
  ASSERT_EQ(ft_option_parse(FT_OPT_ON_FAIL, "warning", &v), -1);
  ASSERT_EQ(ft_option_parse(FT_OPT_MODE, "DETECT", &v), 0);
  ASSERT_EQ(v, FT_MODE_DETECT);
  ASSERT_EQ(ft_option_parse(FT_OPT_EPOCH_LAUNCHES, "12x", &v), -1);
  ASSERT_EQ(ft_option_parse(-1, "1", &v), -1);
  ASSERT_EQ(ft_option_parse(FT_N_OPTIONS, "1", &v), -1);
  /* every default in the table parses */
  for (int i = 0; i < FT_N_OPTIONS; i++) ASSERT_EQ(ft_option_parse(i, ft_options[i].def, &v), 0);
  return TEST_OK;
}

TEST_IMPL(options_documented) {
  char *doc = read_file(DOCS_DIR "/options.md");
  ASSERT(doc != NULL);
  for (int i = 0; i < FT_N_OPTIONS; i++) {
    char name[64];
    snprintf(name, sizeof name, "`GPUFT_%s`", ft_options[i].name);
    if (!strstr(doc, name)) FT_FAIL_("docs/options.md does not describe %s", name);
  }
  free(doc);
  return TEST_OK;
}
