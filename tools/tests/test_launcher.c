/* test_launcher.c: the gpuft launcher run as a user would: help and version generated
 * from the options table, bad values refused with the library's message, programs run
 * with their exit status, stdout and environment, a CUDA program on the simulator, and
 * the layout `cmake --install` produces. */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "proc.h"
#include "runner.h"

#define SIMPATH "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR
#ifndef APP_VECADD
#define APP_VECADD NULL
#endif
/* What the launcher puts before the library (a sanitized build's runtime). */
#ifdef GPUFT_SAN_RUNTIME
#define SAN_FIRST GPUFT_SAN_RUNTIME ":"
#define SAN_RUNTIME_ONLY GPUFT_SAN_RUNTIME
#else
#define SAN_FIRST ""
#define SAN_RUNTIME_ONLY ""
#endif

/* Runs the launcher (or `exe`) with args; env as proc_run's. (test_newcomer.c too) */
proc_result_t launch(const char *exe, const char *const args[], const char *const env[]) {
  const char *argv[32] = {exe ? exe : GPUFT_LAUNCHER};
  int n = 1;
  for (; args && args[n - 1] && n < 31; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  /* A sanitized launcher started with a foreign LD_PRELOAD (as some tests do on
   * purpose) would refuse to run: that check is about the launcher, not gpuft. */
  const char *envx[32];
  int k = 0;
  for (; env && env[k] && k < 30; k++) envx[k] = env[k];
  envx[k++] = "ASAN_OPTIONS=verify_asan_link_order=0";
  envx[k] = NULL;
  proc_result_t r;
  if (proc_run(argv, envx, 120, &r) != 0) FT_FAIL_("cannot run %s", argv[0]);
  return r;
}

static void lower_flag(const char *name, char *out) {
  strcpy(out, "--");
  for (out += 2; *name; name++) *out++ = *name == '_' ? '-' : (char)(*name | (*name >= 'A' && *name <= 'Z' ? 32 : 0));
  *out = 0;
}

#define HAS(text, needle)                                                                  \
  do {                                                                                     \
    if (!strstr((text), (needle))) FT_FAIL_("\"%s\" not in:\n%s", (needle), (text));       \
  } while (0)

TEST_IMPL(help_lists_every_option) {
  const char *args[] = {"--help", NULL};
  proc_result_t r = launch(NULL, args, NULL);
  ASSERT_EQ(r.status, 0);
  for (int i = 0; i < FT_N_OPTIONS; i++) {
    char flag[80], env[80], def[120];
    lower_flag(ft_options[i].name, flag);
    snprintf(env, sizeof env, "[GPUFT_%s, default %s]", ft_options[i].name,
             ft_options[i].def[0] ? ft_options[i].def : "\"\"");
    snprintf(def, sizeof def, "%s=", flag);
    HAS(r.out, def);
    HAS(r.out, env);
    HAS(r.out, ft_options[i].doc);
  }
  HAS(r.out, "usage: gpuft");
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(version) {
  const char *args[] = {"--version", NULL};
  proc_result_t r = launch(NULL, args, NULL);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "gpuft " GPUFT_VERSION "\n");
  char lib[PATH_MAX];
  ASSERT(realpath(GPUFT_LIB, lib));
  HAS(r.out, lib);
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(bad_values_exit_2) {
  static const struct {
    const char *arg, *message;
  } cases[] = {
      {"--mode=bogus", "GPUFT_MODE=\"bogus\" is not valid (one of detect|correct|recover)"},
      {"--ckpt-max=lots", "GPUFT_CKPT_MAX=\"lots\" is not valid (expected a size"},
      {"--max-retries=-1", "GPUFT_MAX_RETRIES=\"-1\" is not valid (expected a non-negative integer"},
      {"--enable=maybe", "GPUFT_ENABLE=\"maybe\" is not valid (expected 1/0/true/false"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *args[] = {cases[i].arg, "--", "/bin/sh", "-c", "echo started", NULL};
    proc_result_t r = launch(NULL, args, NULL);
    ASSERT_EQ(r.status, 2);
    HAS(r.err, cases[i].message);
    HAS(r.err, "the program was not started");
    ASSERT(!strstr(r.out, "started"));
    proc_free(&r);
  }
  return TEST_OK;
}

TEST_IMPL(usage_errors) {
  const char *unknown[] = {"--no-such-option", "--", "/bin/true", NULL};
  proc_result_t r = launch(NULL, unknown, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "unknown option '--no-such-option'");
  proc_free(&r);
  const char *none[] = {"--mode=detect", NULL};
  r = launch(NULL, none, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "no program given");
  proc_free(&r);
  const char *novalue[] = {"--report", NULL};
  r = launch(NULL, novalue, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "needs a value");
  proc_free(&r);
  const char *missing[] = {"--", "/no/such/program", NULL};
  r = launch(NULL, missing, NULL);
  ASSERT_EQ(r.status, 127);
  HAS(r.err, "cannot run /no/such/program");
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(campaign_stub) {
  /* the subcommand is reached (tools/tests/test_campaign.c tests the campaigns) */
  const char *args[] = {"campaign", "--runs=3", NULL};
  proc_result_t r = launch(NULL, args, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "gpuft campaign: no program given");
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(exit_status_and_stdout) {
  /* with and without "--", quiet or not: the program's status and output come through */
  const char *a1[] = {"--", "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
  proc_result_t r = launch(NULL, a1, NULL);
  ASSERT_EQ(r.status, 3);
  ASSERT_STR_EQ(r.out, "out\n");
  HAS(r.err, "err\n");
  proc_free(&r);
  const char *a2[] = {"-q", "/bin/sh", "-c", "printf 'a b'", NULL};
  r = launch(NULL, a2, NULL);
  ASSERT_EQ(r.status, 0);
  ASSERT_STR_EQ(r.out, "a b");
  ASSERT_STR_EQ(r.err, ""); /* quiet, and a program without CUDA: nothing from gpuft */
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(signal_status) {
  const char *args[] = {"-q", "--", "/bin/sh", "-c", "kill -TERM $$", NULL};
  proc_result_t r = launch(NULL, args, NULL);
  ASSERT_EQ(r.status, 128 + SIGTERM);
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(options_become_environment) {
  const char *args[] = {"--mode=detect", "--ckpt-max", "1GiB", "--enable", "-q", "--",
                        "/bin/sh", "-c", "echo $GPUFT_MODE $GPUFT_CKPT_MAX $GPUFT_ENABLE ${GPUFT_CHUNK-unset}",
                        NULL};
  const char *env[] = {"GPUFT_MODE=correct", "GPUFT_CHUNK", NULL}; /* the command line wins */
  proc_result_t r = launch(NULL, args, env);
  ASSERT_EQ(r.status, 0);
  ASSERT_STR_EQ(r.out, "detect 1GiB 1 unset\n");
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(preload_prepended) {
  char lib[PATH_MAX], want[PATH_MAX * 2 + 64];
  ASSERT(realpath(GPUFT_LIB, lib));
  const char *args[] = {"-q", "--", "/bin/sh", "-c", "echo \"$LD_PRELOAD\"", NULL};
  const char *env1[] = {"LD_PRELOAD=libm.so.6", NULL};
  proc_result_t r = launch(NULL, args, env1);
  ASSERT_EQ(r.status, 0);
  snprintf(want, sizeof want, SAN_FIRST "%s:libm.so.6\n", lib);
  ASSERT_STR_EQ(r.out, want);
  proc_free(&r);
  const char *env2[] = {"LD_PRELOAD", NULL};
  r = launch(NULL, args, env2);
  snprintf(want, sizeof want, SAN_FIRST "%s\n", lib);
  ASSERT_STR_EQ(r.out, want);
  proc_free(&r);
  if (SAN_FIRST[0]) return TEST_OK; /* a sanitized gpuft cannot come after libm */
  char already[PATH_MAX * 2]; /* already preloaded: not twice */
  snprintf(already, sizeof already, "LD_PRELOAD=libm.so.6 %s", lib);
  const char *env3[] = {already, NULL};
  r = launch(NULL, args, env3);
  snprintf(want, sizeof want, "libm.so.6 %s\n", lib);
  ASSERT_STR_EQ(r.out, want);
  proc_free(&r);
  return TEST_OK;
}

static int vecadd_skip(void) {
  if (!APP_VECADD) return TEST_SKIPF("nvcc not found: the example programs were not built");
  if (access(SIMCUDA_LIB_DIR "/libcuda.so.1", R_OK) != 0)
    return TEST_SKIPF("the simulator is not built");
  return 0;
}

TEST_IMPL(cuda_program_on_simulator) {
  int skip = vecadd_skip();
  if (skip) return skip;
  const char *args[] = {"--", APP_VECADD, "5000", NULL};
  const char *env[] = {SIMPATH, "GPUFT_REPORT", NULL};
  proc_result_t r = launch(NULL, args, env);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "checksum: ");
  HAS(r.err, "launches checked");
  HAS(r.err, "errors: 0 detected");
  ASSERT(!strstr(r.err, "report: ")); /* temporary, removed: not named */
  /* one summary, the library's */
  ASSERT_EQ(strstr(strstr(r.err, "errors: ") + 1, "errors: "), NULL);
  proc_free(&r);
  /* a failing CUDA program's status comes through too: vecadd rejects a bad size */
  const char *bad[] = {"-q", APP_VECADD, "not-a-number", NULL};
  r = launch(NULL, bad, env);
  ASSERT_EQ(r.status, 64);
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(report_option) {
  int skip = vecadd_skip();
  if (skip) return skip;
  char path[128], arg[160];
  snprintf(path, sizeof path, "/tmp/gpuft-launcher-%d.json", (int)getpid());
  snprintf(arg, sizeof arg, "--report=%s", path);
  unlink(path);
  const char *args[] = {arg, "--mode=detect", APP_VECADD, "3000", NULL};
  const char *env[] = {SIMPATH, NULL};
  proc_result_t r = launch(NULL, args, env);
  ASSERT_EQ(r.status, 0);
  HAS(r.err, "errors: 0 detected");
  HAS(r.err, "report: ");
  HAS(r.err, path);
  char *js = read_file(path);
  ASSERT(js);
  uint64_t launches = 0;
  ASSERT_EQ(json_u64(js, "launches", &launches), 0);
  ASSERT_GE(launches, (uint64_t)1);
  HAS(js, "\"mode\": \"detect\"");
  free(js);
  unlink(path);
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(installed_layout) {
  char prefix[] = "/tmp/gpuft-install-XXXXXX";
  ASSERT(mkdtemp(prefix));
  const char *inst[] = {CMAKE_COMMAND, "--install", BUILD_DIR, "--prefix", prefix, NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(inst, NULL, 120, &r), 0);
  if (r.status != 0) FT_FAIL_("cmake --install failed (%d):\n%s%s", r.status, r.out, r.err);
  proc_free(&r);
  char exe[PATH_MAX], lib[PATH_MAX], doc[PATH_MAX], want[PATH_MAX * 2 + 64];
  snprintf(exe, sizeof exe, "%s/bin/gpuft", prefix);
  snprintf(lib, sizeof lib, "%s/lib/libgpuft.so", prefix);
  snprintf(doc, sizeof doc, "%s/share/doc/gpuft/launcher.md", prefix);
  ASSERT_EQ(access(exe, X_OK), 0);
  ASSERT_EQ(access(lib, R_OK), 0);
  ASSERT_EQ(access(doc, R_OK), 0);
  const char *ver[] = {"--version", NULL};
  r = launch(exe, ver, NULL);
  ASSERT_EQ(r.status, 0);
  snprintf(want, sizeof want, "library: %s\n", lib);
  HAS(r.out, want);
  proc_free(&r);
  const char *pre[] = {"-q", "/bin/sh", "-c", "echo \"$LD_PRELOAD\"", NULL};
  const char *noenv[] = {"LD_PRELOAD", NULL};
  r = launch(exe, pre, noenv);
  snprintf(want, sizeof want, SAN_FIRST "%s\n", lib);
  ASSERT_STR_EQ(r.out, want);
  proc_free(&r);
  if (!vecadd_skip()) { /* the installed library protects a CUDA program */
    const char *args[] = {APP_VECADD, "2000", NULL};
    const char *env[] = {SIMPATH, "GPUFT_REPORT", NULL};
    r = launch(exe, args, env);
    ASSERT_EQ(r.status, 0);
    HAS(r.err, "launches checked");
    proc_free(&r);
  }
  /* what other builds use: the CMake package, pkg-config, the man page */
  static const char *const files[] = {"lib/cmake/gpuft/gpuftConfig.cmake",
                                      "lib/cmake/gpuft/gpuftConfigVersion.cmake",
                                      "lib/pkgconfig/gpuft.pc", "share/man/man1/gpuft.1",
                                      "include/gpuft.h", "share/gpuft/campaign_plot.py"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char f[PATH_MAX];
    snprintf(f, sizeof f, "%s/%s", prefix, files[i]);
    if (access(f, R_OK) != 0) FT_FAIL_("not installed: %s", f);
  }
  char man[PATH_MAX + 16];
  snprintf(man, sizeof man, "%s/share/man/man1/gpuft.1", prefix);
  char *page = read_file(man);
  ASSERT(page);
  for (int i = 0; i < FT_N_OPTIONS; i++) { /* every option of the table, as --help has it */
    char env[80];
    snprintf(env, sizeof env, "\\fBGPUFT_%s\\fR", ft_options[i].name);
    HAS(page, env);
  }
  free(page);
  /* a project built against the installed tree: find_package(gpuft) and pkg-config */
  char cmd[4 * PATH_MAX];
  snprintf(cmd, sizeof cmd,
           "set -e; d=%s/consumer; '%s' -S '%s' -B $d -DCMAKE_PREFIX_PATH='%s' >/dev/null; "
           "'%s' --build $d >/dev/null; LD_PRELOAD='%s' $d/consumer; "
           "if command -v pkg-config >/dev/null; then PKG_CONFIG_PATH='%s/lib/pkgconfig' "
           "pkg-config --cflags --libs gpuft; fi",
           prefix, CMAKE_COMMAND, CONSUMER_DIR, prefix, CMAKE_COMMAND,
           /* a sanitized libgpuft.so needs its runtime loaded first */
           SAN_FIRST[0] ? SAN_RUNTIME_ONLY : "", prefix);
  const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
  ASSERT_EQ(proc_run(sh, NULL, 170, &r), 0);
  if (r.status != 0) FT_FAIL_("consumer build failed (%d):\n%s%s", r.status, r.out, r.err);
  HAS(r.out, "consumer: gpuft " GPUFT_VERSION);
  if (strstr(r.out, "-lgpuft")) {
    char want_i[PATH_MAX + 8];
    snprintf(want_i, sizeof want_i, "-I%s/", prefix);
    HAS(r.out, want_i);
  }
  proc_free(&r);
  /* gpuft demo from the installed tree (the simulator component) */
  if (!vecadd_skip()) {
    const char *demo[] = {"demo", NULL};
    r = launch(exe, demo, NULL);
    if (r.status != 0) FT_FAIL_("gpuft demo: %d\n%s%s", r.status, r.out, r.err);
    HAS(r.out, "WRONG, silently");
    HAS(r.out, "the fault-free result");
    HAS(r.out, "1 recovered"); /* corrected, but the kernel had read it: replayed */
    proc_free(&r);
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", prefix);
  ASSERT_EQ(system(cmd), 0);
  return TEST_OK;
}

TEST_IMPL(demo_in_build_tree) {
  int skip = vecadd_skip();
  if (skip) return skip;
  const char *demo[] = {"demo", NULL};
  proc_result_t r = launch(NULL, demo, NULL);
  if (r.status != 0) FT_FAIL_("gpuft demo: %d\n%s%s", r.status, r.out, r.err);
  HAS(r.out, "WRONG, silently");
  HAS(r.out, "the fault-free result");
  HAS(r.err, "data bit in allocation #1 (+1000, bit 3) corrected"); /* logged at warn */
  proc_free(&r);
  const char *help[] = {"demo", "--help", NULL};
  r = launch(NULL, help, NULL);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "usage: gpuft demo");
  proc_free(&r);
  return TEST_OK;
}
