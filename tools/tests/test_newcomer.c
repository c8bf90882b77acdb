/* test_newcomer.c: a newcomer's first hour (issue 26): set-up in one command,
 * misspelt variables and flags named with the nearest valid one, every subcommand
 * discoverable, clean messages for the mistakes people make. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "runner.h"

#define HAS(text, needle)                                                                  \
  do {                                                                                     \
    if (!strstr((text), (needle))) FT_FAIL_("\"%s\" not in:\n%s", (needle), (text));       \
  } while (0)
#define HASNT(text, needle)                                                                \
  do {                                                                                     \
    if (strstr((text), (needle))) FT_FAIL_("\"%s\" unexpectedly in:\n%s", (needle), (text)); \
  } while (0)

/* test_launcher.c: the launcher (or exe) with args and env */
proc_result_t launch(const char *exe, const char *const args[], const char *const env[]);
static proc_result_t run_args(const char *const argv[], const char *const env[]) {
  return launch(argv[0], argv + 1, env);
}

/* A configure with no library visible to pkg-config names them all at once, with the
 * one install command (before: libzstd and liblz4 only, then jansson on a second try). */
TEST_IMPL(setup_deps_reported_at_once) {
  char dir[] = "/tmp/gpuft-cfg-XXXXXX";
  ASSERT(mkdtemp(dir));
  const char *argv[] = {CMAKE_COMMAND, "-S", SOURCE_DIR, "-B", dir, NULL};
  const char *env[] = {"PKG_CONFIG_LIBDIR=/nonexistent", "PKG_CONFIG_PATH", NULL};
  proc_result_t r = run_args(argv, env);
  char rm[PATH_MAX + 16];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  if (system(rm) != 0) { /* best effort */
  }
  ASSERT_NE(r.status, 0);
  HAS(r.err, "libzstd");
  HAS(r.err, "liblz4");
  HAS(r.err, "jansson");
  HAS(r.err, "tools/dev/install-deps");
  HAS(r.err, "libjansson-dev");
  proc_free(&r);
  return TEST_OK;
}

/* One package list: .ci/run and the README run tools/dev/install-deps, which holds it. */
TEST_IMPL(setup_one_install_script) {
  char *ci = read_file(SOURCE_DIR "/.ci/run"), *readme = read_file(SOURCE_DIR "/README.md");
  ASSERT(ci && readme);
  HAS(ci, "tools/dev/install-deps");
  HASNT(ci, "apt-get install");
  HAS(readme, "    tools/dev/install-deps\n");
  free(ci);
  free(readme);
  const char *argv[] = {SOURCE_DIR "/tools/dev/install-deps", "--print", NULL};
  proc_result_t r = run_args(argv, NULL);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "libzstd-dev");
  HAS(r.out, "liblz4-dev");
  HAS(r.out, "libjansson-dev");
  HAS(r.out, "pkg-config");
  proc_free(&r);
  return TEST_OK;
}

#ifndef APP_VECADD
#define APP_VECADD NULL
#endif
#define SIMPATH "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR

static int sim_skip(void) {
  if (!APP_VECADD) return TEST_SKIPF("nvcc not found: the example programs were not built");
  if (access(SIMCUDA_LIB_DIR "/libcuda.so.1", R_OK) != 0) return TEST_SKIPF("the simulator is not built");
  return 0;
}

/* GPUFT_TEST_DRIVER=real (tools/gpu-acceptance on a GPU): the checks of the
 * simulator's own behaviour (its variables, its fault seam, a run without a driver)
 * skip; the rest run against the real driver. */
static int sim_only(void) {
  if (proc_real_driver()) return TEST_SKIPF("checks the simulator itself (GPUFT_TEST_DRIVER=real)");
  return sim_skip();
}

static proc_result_t gpuft(const char *const args[], const char *const env[]) {
  return launch(NULL, args, env);
}

static int report_path(char *dir, char *path, size_t cap, char *env_out, size_t ecap);

/* A misspelt variable is named with the nearest valid one, by the library and by the
 * simulator (before: ignored without a word, the run went on in the default mode). */
TEST_IMPL(misspelt_variables_named) {
  int skip = sim_skip();
  if (skip) return skip;
  const char *argv[] = {APP_VECADD, "1000", NULL};
  const char *env[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, "GPUFT_MOD=detect", "SIMCUDA_FLPI=x",
                       "GPUFT_REPORT", "GPUFT_TOTALLY_UNRELATED_THING=1", NULL};
  proc_result_t r = run_args(argv, env);
  ASSERT_EQ(r.status, 0);
  HAS(r.err, "GPUFT_MOD is not a gpuft option (did you mean GPUFT_MODE?)");
  if (!proc_real_driver()) HAS(r.err, "SIMCUDA_FLPI is not a simulator variable (did you mean SIMCUDA_FLIP?)");
  HAS(r.err, "GPUFT_TOTALLY_UNRELATED_THING is not a gpuft option (docs/options.md");
  proc_free(&r);
  return TEST_OK;
}

/* Values: the same message with the nearest choice, from a flag or the environment,
 * and the same refusal through the launcher; a misspelt flag gets a "did you mean". */
TEST_IMPL(misspelt_values_and_flags) {
  const char *flag[] = {"--mode=corect", "--", "/bin/sh", "-c", "echo started", NULL};
  proc_result_t r = gpuft(flag, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "GPUFT_MODE=\"corect\" is not valid (one of detect|correct|recover; did you mean \"correct\"?)");
  HASNT(r.out, "started");
  proc_free(&r);
  const char *plain[] = {"--", "/bin/sh", "-c", "echo started", NULL};
  const char *env[] = {"GPUFT_MODE=corect", NULL};
  r = gpuft(plain, env);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "GPUFT_MODE=\"corect\" is not valid (one of detect|correct|recover; did you mean \"correct\"?)");
  HAS(r.err, "the program was not started");
  proc_free(&r);
  const char *typo[] = {"--modee=detect", "/bin/true", NULL};
  r = gpuft(typo, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "unknown option '--modee=detect' (did you mean --mode?)");
  proc_free(&r);
  const char *typo2[] = {"--ckpt-mx", "1G", "/bin/true", NULL};
  r = gpuft(typo2, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "did you mean --ckpt-max?");
  proc_free(&r);
  return TEST_OK;
}

/* `gpuft ./missing`: the error, and no "made no CUDA call" line after it. */
TEST_IMPL(missing_program_one_message) {
  const char *args[] = {"./no-such-program-here", NULL};
  proc_result_t r = gpuft(args, NULL);
  ASSERT_EQ(r.status, 127);
  HAS(r.err, "cannot run ./no-such-program-here");
  HASNT(r.err, "CUDA call");
  HASNT(r.err, "no report");
  proc_free(&r);
  return TEST_OK;
}

/* --help and the man page list every subcommand and --sim. */
TEST_IMPL(every_subcommand_listed) {
  const char *args[] = {"--help", NULL};
  proc_result_t r = gpuft(args, NULL);
  ASSERT_EQ(r.status, 0);
  char *man = read_file(BUILD_DIR "/share/man/man1/gpuft.1");
  ASSERT(man);
  static const char *const subs[] = {"campaign", "report", "demo", "selftest", "memtest", "history"};
  for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
    char want[64];
    snprintf(want, sizeof want, "gpuft %s ", subs[i]);
    HAS(r.out, want);
    snprintf(want, sizeof want, ".B %s\n", subs[i]);
    HAS(man, want);
  }
  HAS(r.out, "--sim");
  HAS(man, "\\-\\-sim");
  free(man);
  proc_free(&r);
  const char *chelp[] = {"campaign", "--help", NULL};
  r = gpuft(chelp, NULL);
  ASSERT_EQ(r.status, 0);
  static const char *const opts[] = {"--ignore", "--check", "--results", "--plot",
                                     "--compare stdout|exit|file:PATH"};
  for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) HAS(r.out, opts[i]);
  proc_free(&r);
  return TEST_OK;
}

/* `gpuft report` on a file that is not JSON, or is missing: one clean line. */
TEST_IMPL(report_clean_errors) {
  char path[] = "/tmp/gpuft-notjson-XXXXXX";
  int fd = mkstemp(path);
  ASSERT(fd >= 0);
  ASSERT_EQ(write(fd, "hello\n", 6), 6);
  close(fd);
  const char *a1[] = {"report", path, NULL};
  proc_result_t r = gpuft(a1, NULL);
  unlink(path);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "not a gpuft report (not JSON");
  HASNT(r.err, "(line");
  HASNT(r.err, "expected near");
  proc_free(&r);
  const char *a2[] = {"report", "/tmp/no/such/report.json", NULL};
  r = gpuft(a2, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "/tmp/no/such/report.json: cannot read it: No such file or directory");
  HASNT(r.err, "(line");
  proc_free(&r);
  return TEST_OK;
}

/* No driver: the error says what to do (--sim), and --sim runs the program. */
TEST_IMPL(no_driver_says_sim) {
  int skip = sim_skip();
  if (skip) return skip;
  const char *args[] = {APP_VECADD, "1000", NULL};
  const char *env[] = {"LD_LIBRARY_PATH", "GPUFT_REPORT", NULL};
  proc_result_t r = gpuft(args, env);
  if (r.status == 0) {
    proc_free(&r);
    return TEST_SKIPF("a CUDA driver is installed here");
  }
  HAS(r.err, "no NVIDIA driver here");
  HAS(r.err, "gpuft --sim -- PROGRAM");
  proc_free(&r);
  const char *sim[] = {"--sim", APP_VECADD, "1000", NULL};
  r = gpuft(sim, env);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "checksum: ");
  HAS(r.err, "launches checked");
  proc_free(&r);
  return TEST_OK;
}

/* A campaign whose golden run cannot use CUDA: exit 2, a clear message, no table of
 * intervals for n = 0 (before: 5 "not injected", intervals, exit 0). */
TEST_IMPL(campaign_golden_fails) {
  int skip = sim_only();
  if (skip) return skip;
  const char *args[] = {"campaign", "-n", "3", "--", APP_VECADD, "1000", NULL};
  const char *env[] = {"LD_LIBRARY_PATH", NULL};
  proc_result_t r = gpuft(args, env);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "gpuft campaign: the golden run (exit");
  HAS(r.err, "no fault can be injected");
  HASNT(r.out, "Wilson");
  HASNT(r.out, "not injected");
  proc_free(&r);
  return TEST_OK;
}

#ifndef APP_SGEMM
#define APP_SGEMM NULL
#endif

/* "simcuda: flip ...: addr=0x... mask=0x.." lines of a SIMCUDA_LOG=1 run, joined. */
static void flip_lines(const char *err, char *out, size_t cap) {
  size_t n = 0;
  out[0] = 0;
  for (const char *p = err; (p = strstr(p, "simcuda: flip ")); p++) {
    const char *a = strstr(p, "addr="), *nl = strchr(p, '\n');
    if (!a || (nl && a > nl)) continue;
    size_t len = strcspn(a, " \n");
    const char *m = strstr(a, "mask=");
    size_t mlen = m ? strcspn(m, " \n") : 0;
    n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%.*s %.*s;", (int)len, a, (int)mlen, m ? m : "");
  }
}

/* One grammar, one meaning: bit=9 is bit 1 of the byte after offset in both injectors
 * (the simulator's parser stopped at bit 7), and bits=3 is refused by both, naming the
 * field and showing the grammar. */
TEST_IMPL(one_grammar_both_injectors) {
  int skip = sim_only();
  if (skip) return skip;
  if (!APP_SGEMM) return TEST_SKIPF("sgemm not built");
  const char *argv[] = {APP_SGEMM, "64", NULL};
  /* the simulator: offset=8,bit=9 flips what offset=9,bit=1 flips */
  const char *e1[] = {SIMPATH, "SIMCUDA_LOG=1", "SIMCUDA_FLIP=at=d2h:1,target=src,offset=8,bit=9", "LD_PRELOAD", NULL};
  const char *e2[] = {SIMPATH, "SIMCUDA_LOG=1", "SIMCUDA_FLIP=at=d2h:1,target=src,offset=9,bit=1", "LD_PRELOAD", NULL};
  proc_result_t r1 = run_args(argv, e1), r2 = run_args(argv, e2);
  char f1[512], f2[512];
  flip_lines(r1.err, f1, sizeof f1);
  flip_lines(r2.err, f2, sizeof f2);
  if (!f1[0]) FT_FAIL_("no flip logged:\n%s", r1.err);
  /* the copy's source is 256-byte aligned: byte 9 of it, bit 1, in both (the base
   * address itself differs from run to run) */
  HAS(f1, "09 mask=0x02;");
  HAS(f2, "09 mask=0x02;");
  ASSERT_EQ(strlen(f1), strlen(f2));
  proc_free(&r1);
  proc_free(&r2);
  /* gpuft: the same text flips bit 73 of the allocation ((8 + 1) * 8 + 1) */
  char rep[] = "/tmp/gpuft-grammar-XXXXXX";
  ASSERT(mkdtemp(rep));
  char path[64], envrep[96];
  snprintf(path, sizeof path, "%s/r.json", rep);
  snprintf(envrep, sizeof envrep, "GPUFT_REPORT=%s", path);
  const char *e3[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, "GPUFT_INJECT=at=d2h:1,target=src,offset=8,bit=9", envrep, NULL};
  proc_result_t r3 = run_args(argv, e3);
  char *js = read_file(path);
  unlink(path);
  rmdir(rep);
  if (!js) FT_FAIL_("no report:\n%s", r3.err);
  HAS(js, "\"bits\": [73]");
  free(js);
  proc_free(&r3);
  /* bits= is a count in both: bits=3 is refused with the field named */
  const char *e4[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, "GPUFT_INJECT=at=d2h:1,target=src,bits=3",
                      "SIMCUDA_FLIP=at=d2h:1,target=src,offset=0,bits=3", "GPUFT_REPORT", NULL};
  proc_result_t r4 = run_args(argv, e4);
  HAS(r4.err, "GPUFT_INJECT: \"at=d2h:1,target=src,bits=3\" ignored: bits=3: bits= is how many bits");
  HAS(r4.err, "The grammar: at=launch:<kernel>:<k>");
  HAS(r4.err, "simcuda: bad fault spec \"at=d2h:1,target=src,offset=0,bits=3\": bits=3: bits= is how many bits");
  proc_free(&r4);
  return TEST_OK;
}

/* A requested fault that never struck is named at exit (before: only "applied": false
 * in the JSON, and a hand test looked like a survived fault). */
TEST_IMPL(unapplied_fault_warned) {
  int skip = sim_skip();
  if (skip) return skip;
  const char *argv[] = {APP_VECADD, "1000", NULL};
  const char *env[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, "GPUFT_REPORT",
                       "GPUFT_INJECT=at=launch:vecadddd:1,target=arg:0;at=d2h:7,target=src", NULL};
  proc_result_t r = run_args(argv, env);
  ASSERT_EQ(r.status, 0);
  HAS(r.err, "GPUFT_INJECT: the fault \"at=launch:vecadddd:1,target=arg:0\" was never applied: the program "
             "made 0 launch(es) of kernels whose name contains \"vecadddd\"");
  HAS(r.err, "GPUFT_INJECT: the fault \"at=d2h:7,target=src\" was never applied: the program made 1 "
             "device-to-host copies");
  proc_free(&r);
  return TEST_OK;
}

/* campaign --at: the GPUFT_INJECT spelling of targets (target=arg:I, arg:I.BYTE), and
 * a malformed one refused with what is wrong and the grammar (before: "invalid value"). */
TEST_IMPL(campaign_at_grammar) {
  static const struct {
    const char *at, *says;
  } cases[] = {
      {"launch:step", "launch:KERNEL:K needs a kernel-name substring and a count"},
      {"launch:step:0", "counts start at 1"},
      {"5-2", "the event is call, launch or d2h"},
      {"d2h:5-2", "a range LO-HI needs LO <= HI"},
      {"h2d:1", "campaigns aim at call, launch or d2h events"},
      {"launch:step:1;d2h:1", "one alternative per --at: repeat --at for each"},
      {"d2h:1,target=arg:0", "target=arg: only with launch events"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *args[] = {"campaign", "-n", "1", "--at", cases[i].at, "--", "/bin/true", NULL};
    proc_result_t r = gpuft(args, NULL);
    ASSERT_EQ(r.status, 2);
    HAS(r.err, cases[i].says);
    HAS(r.err, "--at takes: call[:N] | launch:KERNEL:K[,target=arg:I[.BYTE][|J...]]");
    HASNT(r.err, "version");
    proc_free(&r);
  }
  int skip = sim_skip();
  if (skip) return skip;
  /* the new spelling runs a campaign; a struct field is aimed at like GPUFT_INJECT's */
  const char *ok[] = {"campaign", "-n", "2", "--json", "--at", "launch:vecadd:1,target=arg:0|1", "--",
                      APP_VECADD, "4096", NULL};
  const char *env[] = {SIMPATH, NULL};
  proc_result_t r = gpuft(ok, env);
  if (r.status != 0) FT_FAIL_("campaign: %d\n%s", r.status, r.err);
  HAS(r.out, "target=arg:");
  proc_free(&r);
  const char *field[] = {"campaign", "-n", "1", "--at", "launch:vecadd:1,target=arg:0.8", "--", APP_VECADD,
                         "4096", NULL};
  r = gpuft(field, env);
  /* vecadd's argument 0 is a pointer, not a struct: the probe says the target never
   * happens (parsed, then aimed at byte 8 of an 8-byte argument) */
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "never happens in this program");
  proc_free(&r);
  return TEST_OK;
}

/* gpuft demo prints its fault in the current grammar. */
TEST_IMPL(demo_current_grammar) {
  const char *args[] = {"demo", "--help", NULL};
  proc_result_t r = gpuft(args, NULL);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "at=launch:sgemm:1,target=arg:0,offset=1000,bit=3");
  HASNT(r.out, "before=");
  proc_free(&r);
  /* and so do the examples of the docs the issue named (docs/gpu.md's memtest) */
  static const char *const docs[] = {SOURCE_DIR "/docs/gpu.md", SOURCE_DIR "/README.md", SOURCE_DIR "/docs/kernels.md"};
  for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
    char *text = read_file(docs[i]);
    ASSERT(text);
    HASNT(text, "SIMCUDA_FLIP=before=");
    HASNT(text, "SIMCUDA_FLIP=\"before=");
    HASNT(text, "GPUFT_INJECT=\"before=");
    HASNT(text, "_FLIP='before=");
    free(text);
  }
  return TEST_OK;
}

/* A single flipped bit in a buffer a kernel only read is named (offset, bit), not
 * "bit -1", in every mode; detect mode's message does not speak of a correction it
 * never makes. In a loop over modes, offsets and bits. */
TEST_IMPL(detect_mode_names_the_bit) {
  int skip = sim_only();
  if (skip) return skip;
  if (!APP_SGEMM) return TEST_SKIPF("sgemm not built");
  static const char *const modes[] = {"detect", "correct", "recover"};
  static const int where[][2] = {{1000, 3}, {4, 0}, {65532, 31}, {20480, 17}};
  const char *argv[] = {APP_SGEMM, "256", NULL};
  for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
    for (size_t w = 0; w < sizeof where / sizeof *where; w++) {
      char dir[] = "/tmp/gpuft-detect-XXXXXX", path[64], envrep[96], mode[32], flip[128], want[64];
      ASSERT_EQ(report_path(dir, path, sizeof path, envrep, sizeof envrep), 0);
      snprintf(mode, sizeof mode, "GPUFT_MODE=%s", modes[m]);
      /* bit b of the 32-bit word at offset: bit b%8 of its byte b/8 */
      snprintf(flip, sizeof flip, "SIMCUDA_FLIP=at=launch:sgemm:1,target=arg:0,offset=%d,bit=%d", where[w][0],
               where[w][1]);
      const char *env[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, mode, envrep, flip, NULL};
      proc_result_t r = run_args(argv, env);
      char *js = read_file(path);
      unlink(path);
      rmdir(dir);
      if (!js) FT_FAIL_("%s %s: no report:\n%s", mode, flip, r.err);
      snprintf(want, sizeof want, "\"offset\": %d, \"bit\": %d", where[w][0], where[w][1]);
      HAS(js, want);
      HASNT(js, "\"bit\": -1");
      snprintf(want, sizeof want, "offset %d, bit %d", where[w][0], where[w][1]);
      HAS(r.err, want);
      if (m == 0) {
        HASNT(r.err, "before it was corrected");
        HAS(r.err, "GPUFT_MODE=detect: nothing is repaired");
      }
      free(js);
      proc_free(&r);
    }
  return TEST_OK;
}

/* SIMCUDA_LOG=1 under gpuft: gpuft's own kernel image (PTX for newer targets only,
 * a twin image beside it) gets a note, not what reads like an error (before: "no
 * PTX to interpret"). */
TEST_IMPL(sim_log_own_image_a_note) {
  int skip = sim_only();
  if (skip) return skip;
  const char *argv[] = {APP_VECADD, "1000", NULL};
  const char *env[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, "SIMCUDA_LOG=1", NULL};
  proc_result_t r = run_args(argv, env);
  ASSERT_EQ(r.status, 0);
  HASNT(r.err, "no PTX to interpret");
  HAS(r.err, "note: PTX only for newer targets than sm_89, not interpreted here");
  proc_free(&r);
  return TEST_OK;
}

/* gpuft report's table: the GPU column tells boards apart (the end of the UUID; before:
 * "GPU-53494d43-", the same for every device). */
TEST_IMPL(report_gpu_column) {
  char dir[] = "/tmp/gpuft-gpucol-XXXXXX";
  ASSERT(mkdtemp(dir));
  char p1[64], p2[64];
  snprintf(p1, sizeof p1, "%s/a.json", dir);
  snprintf(p2, sizeof p2, "%s/b.json", dir);
  static const char *const uuid[] = {"GPU-53494d43-5544-412d-6770-7566742d0001",
                                     "GPU-53494d43-5544-412d-6770-7566742d0002"};
  const char *paths[] = {p1, p2};
  for (int i = 0; i < 2; i++) {
    FILE *f = fopen(paths[i], "w");
    ASSERT(f);
    fprintf(f, "{\"gpuft_version\": \"0.1.0\", \"schema\": 1, \"pid\": %d, \"host\": \"h\", "
               "\"gpu\": {\"name\": \"sim\", \"uuid\": \"%s\"}, \"errors\": {}}\n", 100 + i, uuid[i]);
    fclose(f);
  }
  const char *args[] = {"report", p1, p2, NULL};
  proc_result_t r = gpuft(args, NULL);
  unlink(p1);
  unlink(p2);
  rmdir(dir);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "7566742d0001");
  HAS(r.out, "7566742d0002");
  proc_free(&r);
  return TEST_OK;
}

/* The installed tree alone: `gpuft --sim selftest` runs on the installed simulator and
 * checks the hooks on the installed libexec/gpuft/sgemm (before: a program of the build
 * tree, "no program to run" once it was gone). */
TEST_IMPL(installed_selftest_and_sim) {
  int skip = sim_skip();
  if (skip) return skip;
  if (!APP_SGEMM) return TEST_SKIPF("sgemm not built");
  char prefix[] = "/tmp/gpuft-inst-XXXXXX";
  ASSERT(mkdtemp(prefix));
  const char *inst[] = {CMAKE_COMMAND, "--install", BUILD_DIR, "--prefix", prefix, NULL};
  proc_result_t r = run_args(inst, NULL);
  if (r.status != 0) FT_FAIL_("cmake --install: %d\n%s%s", r.status, r.out, r.err);
  proc_free(&r);
  char exe[PATH_MAX], want[PATH_MAX + 64], rm[PATH_MAX + 16];
  snprintf(exe, sizeof exe, "%s/bin/gpuft", prefix);
  snprintf(want, sizeof want, "hooks end to end (%s/libexec/gpuft/sgemm)", prefix);
  const char *args[] = {"--sim", "selftest", "--quick", NULL};
  const char *env[] = {"LD_LIBRARY_PATH", "GPUFT_REPORT", NULL};
  r = launch(exe, args, env);
  snprintf(rm, sizeof rm, "rm -rf %s", prefix);
  if (system(rm) != 0) { /* best effort */
  }
  if (r.status != 0) FT_FAIL_("gpuft --sim selftest: %d\n%s%s", r.status, r.out, r.err);
  HAS(r.out, want);
  HAS(r.out, "selftest: all checks passed");
  proc_free(&r);
  return TEST_OK;
}

#ifndef APP_JACOBI
#define APP_JACOBI NULL
#endif

/* A report in a fresh folder: path gets its name, env_out "GPUFT_REPORT=path". */
static int report_path(char *dir, char *path, size_t cap, char *env_out, size_t ecap) {
  if (!mkdtemp(dir)) return -1;
  snprintf(path, cap, "%s/r.json", dir);
  snprintf(env_out, ecap, "GPUFT_REPORT=%s", path);
  return 0;
}

static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

/* The bit numbers (from the allocation's start) a GPUFT_INJECT report's first
 * injection flipped, sorted. */
static int report_bits(const char *js, int *out, int cap) {
  const char *p = js ? strstr(js, "\"bits\": [") : NULL;
  int n = 0;
  for (p = p ? p + 9 : NULL; p && *p && *p != ']' && n < cap;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p) break;
    out[n++] = (int)v;
    p = end + strspn(end, ", ");
  }
  qsort(out, (size_t)n, sizeof *out, cmp_int);
  return n;
}

/* The bits the simulator changed (its SIMCUDA_LOG flip lines: addr, old->new), from
 * the start of the allocation gpuft's debug log names #1, sorted. */
static int sim_bits(const char *err, int *out, int cap) {
  const char *a = strstr(err, "allocation #1: 0x");
  if (!a) return -1;
  unsigned long long base = strtoull(a + 15, NULL, 16);
  int n = 0;
  for (const char *p = err; (p = strstr(p, "simcuda: flip ")); p++) {
    const char *ad = strstr(p, "addr=0x"), *ch = ad ? strstr(ad, " 0x") : NULL;
    if (!ch) break;
    unsigned long long addr = strtoull(ad + 5, NULL, 16);
    unsigned old = (unsigned)strtoul(ch + 1, NULL, 16), now = (unsigned)strtoul(strstr(ch, "->") + 2, NULL, 16);
    for (int k = 0; k < 8 && n < cap; k++)
      if ((old ^ now) >> k & 1) out[n++] = (int)((addr - base) * 8 + (unsigned long long)k);
  }
  qsort(out, (size_t)n, sizeof *out, cmp_int);
  return n;
}

/* Fault models beyond one and two bits (bursts, a byte, a word, a sector, a zeroed
 * block), the same text in both injectors: GPUFT_INJECT and SIMCUDA_FLIP change the
 * very same bits (one placement, common/faultspec.c), in a loop over models and seeds. */
TEST_IMPL(fault_models_both_injectors) {
  int skip = sim_only();
  if (skip) return skip;
  if (!APP_SGEMM) return TEST_SKIPF("sgemm not built");
  static const char *const models[] = {"1", "2", "burst:7", "byte", "word", "sector", "zero"};
  const char *argv[] = {APP_SGEMM, "64", NULL};
  static int g[2048], s[2048];
  for (size_t m = 0; m < sizeof models / sizeof *models; m++)
    for (int seed = 1; seed <= 3; seed++) {
      char spec[128], inj[160], flip[160], dir[] = "/tmp/gpuft-models-XXXXXX", path[64], envrep[96];
      snprintf(spec, sizeof spec, "at=launch:sgemm:1,target=arg:0,bits=%s,seed=%d", models[m], seed);
      snprintf(inj, sizeof inj, "GPUFT_INJECT=%s", spec);
      snprintf(flip, sizeof flip, "SIMCUDA_FLIP=%s", spec);
      ASSERT_EQ(report_path(dir, path, sizeof path, envrep, sizeof envrep), 0);
      const char *e1[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, inj, envrep, NULL};
      proc_result_t r1 = run_args(argv, e1);
      char *js = read_file(path);
      unlink(path);
      rmdir(dir);
      if (!js) FT_FAIL_("%s: no report:\n%s", spec, r1.err);
      int ng = report_bits(js, g, 2048);
      free(js);
      const char *e2[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, "GPUFT_LOG=debug", "SIMCUDA_LOG=1", flip,
                          "GPUFT_REPORT", NULL};
      proc_result_t r2 = run_args(argv, e2);
      int ns = sim_bits(r2.err, s, 2048);
      if (ng < 1 || ns != ng || memcmp(g, s, (size_t)ng * sizeof *g))
        FT_FAIL_("%s: GPUFT_INJECT changed %d bits (first %d), SIMCUDA_FLIP %d (first %d)\n%s", spec, ng,
                 ng ? g[0] : -1, ns, ns > 0 ? s[0] : -1, r1.err);
      /* what gpuft made of it: never a silent wrong answer on these inputs */
      HAS(r1.out, "sgemm: n=64 ok");
      proc_free(&r1);
      proc_free(&r2);
    }
  /* what an injector cannot do is refused by name */
  const char *e3[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, "GPUFT_REPORT",
                      "GPUFT_INJECT=at=launch:sgemm:1,target=arg:0,bits=zero,stuck", NULL};
  proc_result_t r3 = run_args(argv, e3);
  HAS(r3.err, "stuck: a stuck bit is the simulator's");
  proc_free(&r3);
  return TEST_OK;
}

/* The "events" of a report without the run's addresses ("base"). */
static void events_text(const char *js, char *out, size_t cap) {
  const char *p = js ? strstr(js, "\"events\": [") : NULL, *e = p ? strstr(p, "]") : NULL;
  size_t n = 0;
  out[0] = 0;
  for (; p && p < e && n + 1 < cap; p++) {
    if (!strncmp(p, "\"base\": \"", 9)) {
      p = strchr(p + 9, '"');
      continue;
    }
    out[n++] = *p;
    out[n] = 0;
  }
}

/* d2h:<k> is the program's k-th device-to-host copy in both injectors (before: the
 * simulator counted gpuft's own copies too, which vary from run to run), and a drawn
 * fault lands in the bytes that copy reads: the same text strikes the same byte and
 * bit of the same copy, in a loop over copies and seeds; then a campaign with the
 * simulator's injector counts every run (before: offsets drawn from the first copy's
 * size for every copy, faults outside the data counted as "masked"). */
TEST_IMPL(sim_d2h_is_the_programs_copy) {
  int skip = sim_only();
  if (skip) return skip;
  if (!APP_JACOBI) return TEST_SKIPF("jacobi not built");
  const char *argv[] = {APP_JACOBI, "64", "5", NULL};
  for (int k = 1; k <= 3; k++)
    for (int seed = 1; seed <= 3; seed++) {
      char ev[2][1024];
      for (int v = 0; v < 2; v++) {
        char spec[160], dir[] = "/tmp/gpuft-d2h-XXXXXX", path[64], envrep[96];
        snprintf(spec, sizeof spec, "%s=at=d2h:%d,target=src,bits=1,seed=%d", v ? "SIMCUDA_FLIP" : "GPUFT_INJECT",
                 k, seed);
        ASSERT_EQ(report_path(dir, path, sizeof path, envrep, sizeof envrep), 0);
        const char *env[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, spec, envrep, NULL};
        proc_result_t r = run_args(argv, env);
        char *js = read_file(path);
        unlink(path);
        rmdir(dir);
        if (!js) FT_FAIL_("%s: no report:\n%s", spec, r.err);
        events_text(js, ev[v], sizeof ev[v]);
        if (!strstr(ev[v], "\"bit\"")) FT_FAIL_("%s: gpuft saw no error:\n%s\n%s", spec, js, r.err);
        free(js);
        proc_free(&r);
      }
      if (strcmp(ev[0], ev[1])) FT_FAIL_("d2h:%d seed %d: GPUFT_INJECT gave\n%s\nSIMCUDA_FLIP gave\n%s", k, seed, ev[0], ev[1]);
    }
  const char *camp[] = {"campaign", "-n", "12", "--json", "--injector", "sim", "--at", "d2h:1-3", "--", APP_JACOBI,
                        "64", "5", NULL};
  const char *env[] = {SIMPATH, NULL};
  proc_result_t r = gpuft(camp, env);
  if (r.status != 0) FT_FAIL_("campaign: %d\n%s", r.status, r.err);
  HAS(r.out, "\"injected\": 12, \"not_injected\": 0");
  HAS(r.out, "\"masked\": {\"count\": 0");
  HAS(r.out, "\"sdc\": 0");
  proc_free(&r);
  return TEST_OK;
}

/* CUDA_INJECTION64_PATH: the simulator loads the library at cuInit and calls its
 * InitializeInjection once, as a driver does. gpuft loaded only that way cannot take
 * over the program's calls: it says the process is not protected and stays out of the
 * way (no report, the program's own result); preloaded as well, it works as always. */
TEST_IMPL(injection_path_loads_and_warns) {
  int skip = sim_only();
  if (skip) return skip;
  const char *argv[] = {APP_VECADD, "1000", NULL};
  char dir[] = "/tmp/gpuft-inj-XXXXXX", path[64], envrep[96];
  ASSERT_EQ(report_path(dir, path, sizeof path, envrep, sizeof envrep), 0);
  const char *alone[] = {SIMPATH, "LD_PRELOAD", "CUDA_INJECTION64_PATH=" GPUFT_LIB, "SIMCUDA_LOG=1", envrep, NULL};
  proc_result_t r = run_args(argv, alone);
  char *js = read_file(path);
  unlink(path);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "vecadd: n=1000 ok");
  HAS(r.err, "loaded through CUDA_INJECTION64_PATH but not preloaded: this process is NOT protected");
  HAS(r.err, "InitializeInjection returned 1");
  HASNT(r.err, "launches checked"); /* no summary claims protection */
  if (js) FT_FAIL_("a report was written though gpuft saw nothing:\n%s", js);
  /* once, however often the program calls cuInit */
  const char *once = strstr(r.err, "InitializeInjection returned");
  ASSERT(once && !strstr(once + 1, "InitializeInjection returned"));
  proc_free(&r);
  const char *both[] = {SIMPATH, "LD_PRELOAD=" GPUFT_LIB, "CUDA_INJECTION64_PATH=" GPUFT_LIB, envrep, NULL};
  r = run_args(argv, both);
  js = read_file(path);
  unlink(path);
  rmdir(dir);
  ASSERT_EQ(r.status, 0);
  HASNT(r.err, "NOT protected");
  HAS(r.err, "1 of 1 launches checked");
  if (!js) FT_FAIL_("no report with LD_PRELOAD:\n%s", r.err);
  free(js);
  proc_free(&r);
  const char *bad[] = {SIMPATH, "LD_PRELOAD", "CUDA_INJECTION64_PATH=/nonexistent/libnothing.so", NULL};
  r = run_args(argv, bad);
  ASSERT_EQ(r.status, 0);
  HAS(r.err, "simcuda: CUDA_INJECTION64_PATH=/nonexistent/libnothing.so cannot be loaded");
  proc_free(&r);
  return TEST_OK;
}

/* gpuft campaign --bits takes every fault model, with either injector; stuck cells
 * only with the simulator's. On sgemm's inputs at rest, none is silent. */
TEST_IMPL(campaign_fault_models) {
  int skip = sim_only();
  if (skip) return skip;
  if (!APP_SGEMM) return TEST_SKIPF("sgemm not built");
  static const char *const models[] = {"1", "2", "burst:8", "byte", "word", "sector", "zero", "zero,stuck"};
  const char *env[] = {SIMPATH, NULL};
  for (size_t m = 0; m < sizeof models / sizeof *models; m++)
    for (int sim = 0; sim < 2; sim++) {
      const char *args[] = {"campaign", "-n", "4", "--json", "--bits", models[m], "--injector", sim ? "sim" : "gpuft",
                            "--at", "launch:sgemm:1,target=arg:0|1", "--", APP_SGEMM, "64", NULL};
      proc_result_t r = gpuft(args, env);
      if (strstr(models[m], "stuck") && !sim) {
        ASSERT_EQ(r.status, 2);
        HAS(r.err, "stuck cells are the simulator's");
      } else {
        if (r.status != 0) FT_FAIL_("--bits %s --injector %s: %d\n%s", models[m], sim ? "sim" : "gpuft", r.status, r.err);
        char want[64];
        snprintf(want, sizeof want, "\"bits\": \"%s\"", models[m]);
        HAS(r.out, want);
        HAS(r.out, "\"injected\": 4, \"not_injected\": 0");
        HAS(r.out, "\"sdc\": 0");
      }
      proc_free(&r);
    }
  return TEST_OK;
}
