/* test_devtools.c: gpuft selftest, memtest and history on the simulator, run as a user
 * runs them (the launcher in a child process), and the history's engine side: permanent
 * faults recorded, bad pages held back from the program with GPUFT_QUARANTINE=1. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "history.h"
#include "proc.h"
#include "runner.h"

#define SIMPATH "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR
#define SIM_UUID "GPU-53494d43-5544-412d-6770-7566742d0001" /* sim/driver/api/init.c */

#define HAS(text, needle)                                                            \
  do {                                                                               \
    if (!strstr((text), (needle))) FT_FAIL_("\"%s\" not in:\n%s", (needle), (text)); \
  } while (0)

/* GPUFT_TEST_DRIVER=real (tools/gpu-acceptance on a GPU): the tests that need the
 * simulator's fault seam skip; the others run against the real driver. */
#define NEEDS_SIM()                                                                        \
  do {                                                                                     \
    if (proc_real_driver())                                                                     \
      return TEST_SKIPF("needs the simulator's fault seam (SIMCUDA_FLIP) or its addresses"); \
  } while (0)

/* The one history file a run wrote into dir (named by the device's UUID). */
static void only_history(const char *dir, char *path, size_t cap) {
  DIR *d = opendir(dir);
  ASSERT(d != NULL);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l > 6 && !strcmp(e->d_name + l - 6, ".jsonl")) {
      snprintf(path, cap, "%s/%s", dir, e->d_name);
      n++;
    }
  }
  closedir(d);
  ASSERT_EQ(n, 1);
}

static proc_result_t gpuft(const char *const args[], const char *const env[]) {
  const char *argv[40] = {GPUFT_LAUNCHER};
  int n = 1;
  for (; args[n - 1] && n < 39; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  const char *envx[40] = {SIMPATH, "ASAN_OPTIONS=verify_asan_link_order=0", "GPUFT_INJECT",
                          "GPUFT_QUARANTINE", "GPUFT_HISTORY_DIR", "SIMCUDA_FLIP"};
  int k = 6;
  for (; env && env[k - 6] && k < 39; k++) envx[k] = env[k - 6];
  envx[k] = NULL;
  proc_result_t r;
  if (proc_run(argv, envx, 280, &r) != 0) FT_FAIL_("cannot run %s", GPUFT_LAUNCHER);
  return r;
}

static void tmpdir(char *out, size_t cap) {
  snprintf(out, cap, "/tmp/gpuft-devtools-%d-XXXXXX", (int)getpid());
  if (!mkdtemp(out)) FT_FAIL_("mkdtemp");
}

TEST_IMPL(selftest_passes) {
  /* --no-bw-check: a test asserts results, not speed (the suite runs tests side by
   * side on one GPU); the acceptance run's own selftest holds the kernels to the target */
  const char *args[] = {"selftest", "--bw-size=2MiB", "--no-bw-check", NULL};
  proc_result_t r = gpuft(args, NULL);
  printf("%s", r.out);
  ASSERT_EQ(r.status, 0);
  static const char *const lines[] = {
      "host codec: ", "measured encode:", "comparisons: ok", "clean run",
      "1 detected, 1 corrected/recovered: ok", "device-to-device copy (baseline)",
      "ftk_verify_copy (fused)", "selftest: all checks passed",
      "[simulator: kernels run as C twins on the CPU]",      /* these two: simulator only */
      "[simulator: these are the CPU's figures, not a GPU's]"};
  for (size_t i = 0; i < sizeof lines / sizeof *lines - 2 * proc_real_driver(); i++) HAS(r.out, lines[i]);
  proc_free(&r);
  /* the override wins over the measurement */
  const char *env[] = {"GPUFT_CODEC=scalar", NULL};
  const char *quick[] = {"selftest", "--quick", "--bw-size=1MiB", "--no-bw-check", NULL};
  r = gpuft(quick, env);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "host codec: scalar (GPUFT_CODEC)");
  proc_free(&r);
  return TEST_OK;
}

/* A bit stuck in the first buffer the kernels see: the comparison with the CPU codec
 * must fail, and so must the exit status. */
TEST_IMPL(selftest_fails_on_a_stuck_bit) {
  NEEDS_SIM();
  const char *env[] = {"SIMCUDA_FLIP=before=h2d:1,dst,offset=0,bits=0,stuck", NULL};
  const char *args[] = {"selftest", "--quick", "--bw-size=1MiB", NULL};
  proc_result_t r = gpuft(args, env);
  ASSERT_EQ(r.status, 1);
  HAS(r.err, "selftest: FAIL");
  HAS(r.out, "comparisons: FAIL");
  HAS(r.out, "selftest: FAILED");
  proc_free(&r);
  return TEST_OK;
}

TEST_IMPL(memtest_clean_run_finds_nothing) {
  char dir[96], opt[128];
  tmpdir(dir, sizeof dir);
  snprintf(opt, sizeof opt, "--history-dir=%s", dir);
  const char *args[] = {"memtest", "--size=2MiB", "--fade=0", "--iterations=2", opt, NULL};
  proc_result_t r = gpuft(args, NULL);
  printf("%s", r.out);
  ASSERT_EQ(r.status, 0);
  const char *pats[] = {"MI10", "MIR", "1W0", "1W1", "4W0", "4W1", "M20", "RB", "ADDR", "FADE", "L ", "L4"};
  for (size_t i = 0; i < sizeof pats / sizeof *pats; i++) {
    char *row = strstr(r.out, pats[i]);
    ASSERT(row != NULL);
    unsigned long long passes, bytes, errors;
    char name[8];
    ASSERT_EQ(sscanf(row, "%7s %llu %llu %llu", name, &passes, &bytes, &errors), 4);
    ASSERT_EQ(errors, 0ull);
    ASSERT_GE(passes, 2ull);
  }
  HAS(r.out, "result: no errors");
  proc_free(&r);
  char path[256];
  only_history(dir, path, sizeof path); /* the device's UUID names it: any GPU's */
  ft_hist_t h;
  ASSERT_EQ(ft_history_read(path, &h), 0);
  ASSERT_EQ(h.runs_aggregate, 1ull);
  ASSERT_EQ(h.n_faults, (size_t)0);
  ASSERT_EQ(h.bytes_last, 2ull << 20);
  ft_history_free(&h);
  unlink(path);
  rmdir(dir);
  return TEST_OK;
}

/* Errors of pattern `name` in memtest's table. */
static unsigned long long row_errors(const char *out, const char *name) {
  char key[16];
  snprintf(key, sizeof key, "\n%s ", name);
  const char *row = strstr(out, key);
  unsigned long long passes, bytes, errors;
  char n[8];
  if (!row || sscanf(row + 1, "%7s %llu %llu %llu", n, &passes, &bytes, &errors) != 4) return ~0ull;
  return errors;
}

/* A stuck bit (stuck at what the flip left: the simulator's poison 0xA5 flipped) at
 * several offsets and bits: every pattern that writes both values of that bit finds it,
 * at the right word and bit; the logic test (all zeros) finds only stuck-at-1; the run
 * is recorded in the history with its address. */
TEST_IMPL(memtest_finds_stuck_bits) {
  NEEDS_SIM();
  static const struct { unsigned offset, bit; } cases[] = {
      {0, 0}, {4100, 1}, {4101, 0}, {777777, 6}, {(2u << 20) - 1, 7}, {1234567, 3}};
  char dir[96], opt[128];
  tmpdir(dir, sizeof dir);
  snprintf(opt, sizeof opt, "--history-dir=%s", dir);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    char flip[160], env0[200], want[96];
    unsigned off = cases[c].offset, bit = cases[c].bit;
    int stuck_one = !((0xA5u >> bit) & 1u); /* the flip makes the poison's bit the other value */
    snprintf(flip, sizeof flip, "before=launch:ftm_fill:1,arg=0,offset=%u,bits=%u,stuck", off, bit);
    snprintf(env0, sizeof env0, "SIMCUDA_FLIP=%s", flip);
    const char *env[] = {env0, NULL};
    const char *args[] = {"memtest", "--size=2MiB", "--fade=0", opt, NULL};
    proc_result_t r = gpuft(args, env);
    ASSERT_EQ(r.status, 1);
    HAS(r.out, "result: ERRORS FOUND");
    snprintf(want, sizeof want, "  +%u  bits 0x%08x", off & ~3u, 1u << ((off & 3u) * 8 + bit));
    HAS(r.out, want);
    ASSERT(!strstr(r.out, "... ")); /* one bad word, nothing else */
    const char *must[] = {"MI10", "MIR", "1W0", "1W1", "4W0", "4W1", "M20", "ADDR", "FADE"};
    for (size_t i = 0; i < sizeof must / sizeof *must; i++)
      if (row_errors(r.out, must[i]) == 0 || row_errors(r.out, must[i]) == ~0ull)
        FT_FAIL_("%s missed the stuck bit %u of byte %u:\n%s", must[i], bit, off, r.out);
    int in_lcg = off < (1u << 20);
    ASSERT_EQ(row_errors(r.out, "L") > 0, stuck_one && in_lcg);
    ASSERT_EQ(row_errors(r.out, "L4") > 0, stuck_one && in_lcg);
    ASSERT(row_errors(r.out, "RB") <= 1);
    proc_free(&r);
  }
  char path[256];
  snprintf(path, sizeof path, "%s/%s.jsonl", dir, SIM_UUID);
  ft_hist_t h;
  ASSERT_EQ(ft_history_read(path, &h), 0);
  ASSERT_EQ(h.runs_aggregate, (uint64_t)(sizeof cases / sizeof *cases));
  ASSERT_EQ(h.bad_lines, 0ull);
  ASSERT_GE(h.n_faults, (size_t)1);
  for (size_t i = 0; i < h.n_faults; i++) HAS(h.faults[i].src, "memtest:");
  ft_history_free(&h);
  unlink(path);
  rmdir(dir);
  return TEST_OK;
}

TEST_IMPL(memtest_usage_errors) {
  const char *bad_pattern[] = {"memtest", "--patterns=MI10,XYZ", NULL};
  proc_result_t r = gpuft(bad_pattern, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "unknown pattern 'XYZ'");
  proc_free(&r);
  const char *bad_size[] = {"memtest", "--size=120%", "--no-history", NULL};
  r = gpuft(bad_size, NULL);
  ASSERT_EQ(r.status, 2);
  HAS(r.err, "bad --size");
  proc_free(&r);
  const char *some[] = {"memtest", "--size=1MiB", "--patterns=mi10,rb", "--no-history", NULL};
  r = gpuft(some, NULL);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "\nMI10 ");
  HAS(r.out, "\nRB ");
  ASSERT(!strstr(r.out, "\nM20 "));
  proc_free(&r);
  return TEST_OK;
}

/* Processes appending at once: every record arrives whole, none lost. */
TEST_IMPL(history_concurrent_appends) {
  char dir[96], path[160];
  tmpdir(dir, sizeof dir);
  ASSERT_EQ(ft_history_path(dir, "GPU-test", path, sizeof path), 0);
  enum { WRITERS = 8, EACH = 200 };
  for (int w = 0; w < WRITERS; w++) {
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
      char f[128];
      int bad = 0;
      for (int i = 0; i < EACH; i++) {
        snprintf(f, sizeof f, "\"type\": \"fault\", \"src\": \"runtime\", \"addr\": %d, \"bits\": 1",
                 4096 * (w * EACH + i));
        bad |= ft_history_append(path, f);
      }
      _exit(bad ? 1 : 0);
    }
  }
  for (int w = 0; w < WRITERS; w++) {
    int st;
    ASSERT(wait(&st) > 0);
    ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  ft_hist_t h;
  ASSERT_EQ(ft_history_read(path, &h), 0);
  ASSERT_EQ(h.bad_lines, 0ull);
  ASSERT_EQ(h.n_faults, (size_t)(WRITERS * EACH));
  ASSERT_EQ(h.runtime_aggregate, (uint64_t)(WRITERS * EACH));
  for (size_t i = 0; i < h.n_faults; i++) ASSERT_EQ(h.faults[i].addr, 4096ull * i);
  ft_history_free(&h);
  unlink(path);
  rmdir(dir);
  return TEST_OK;
}

/* Records of this boot and of another: volatile counts only this boot's. */
TEST_IMPL(history_printed_volatile_and_aggregate) {
  char dir[96], path[160], opt[128];
  tmpdir(dir, sizeof dir);
  ASSERT_EQ(ft_history_path(dir, "GPU-abc", path, sizeof path), 0);
  FILE *f = fopen(path, "w");
  ASSERT(f);
  fprintf(f, "{\"v\": 1, \"t\": 1000, \"boot\": \"old-boot\", \"type\": \"memtest\", \"bytes\": 1048576, "
             "\"errors\": 3}\n");
  fprintf(f, "{\"v\": 1, \"t\": 1001, \"boot\": \"old-boot\", \"type\": \"fault\", \"src\": \"memtest:M20\", "
             "\"addr\": 4198400, \"bits\": 2}\n");
  fprintf(f, "not json at all\n");
  fclose(f);
  ASSERT_EQ(ft_history_append(path, "\"type\": \"memtest\", \"bytes\": 2097152, \"errors\": 1"), 0);
  ASSERT_EQ(ft_history_append(path, "\"type\": \"fault\", \"src\": \"runtime\", \"addr\": 4198402, \"bits\": 16"), 0);
  snprintf(opt, sizeof opt, "--history-dir=%s", dir);
  const char *args[] = {"history", opt, NULL};
  proc_result_t r = gpuft(args, NULL);
  printf("%s", r.out);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "GPU GPU-abc");
  HAS(r.out, "Volatile                          : 1 runs, 1 word errors");
  HAS(r.out, "Aggregate                         : 2 runs, 4 word errors");
  HAS(r.out, "Address 0x000000401000              : bits 0x00000012, volatile 1, aggregate 2");
  HAS(r.out, "runtime");
  HAS(r.out, "Page 0x000000400000");
  HAS(r.out, "(1 unreadable lines skipped)");
  proc_free(&r);
  const char *one[] = {"history", opt, "--uuid=GPU-none", NULL};
  r = gpuft(one, NULL);
  ASSERT_EQ(r.status, 0);
  HAS(r.out, "Aggregate                         : 0 runs");
  proc_free(&r);
  unlink(path);
  rmdir(dir);
  return TEST_OK;
}

/* A stuck bit in a program's input: the engine finds it does not take a write
 * (permanent), and appends it to the device's history with its address. */
TEST_IMPL(engine_records_permanent_faults) {
  NEEDS_SIM();
#ifndef APP_VECADD
  return TEST_SKIPF("tests/apps/vecadd is not built (no nvcc)");
#else
  char dir[96], opt[128];
  tmpdir(dir, sizeof dir);
  snprintf(opt, sizeof opt, "--history-dir=%s", dir);
  const char *env[] = {"SIMCUDA_FLIP=before=launch:vecadd:1,arg=0,offset=100,bits=3,stuck", NULL};
  const char *args[] = {opt, "--report=/dev/null", APP_VECADD, "5000", NULL};
  proc_result_t r = gpuft(args, env);
  HAS(r.err, "permanent fault");
  proc_free(&r);
  char path[256];
  snprintf(path, sizeof path, "%s/%s.jsonl", dir, SIM_UUID);
  ft_hist_t h;
  ASSERT_EQ(ft_history_read(path, &h), 0);
  ASSERT_EQ(h.n_faults, (size_t)1);
  ASSERT_EQ(h.runtime_aggregate, 1ull);
  ASSERT_EQ(h.faults[0].bits, 1u << 3);
  ASSERT_EQ(h.faults[0].addr % 256, 100u); /* allocations are 256-byte aligned */
  ASSERT_STR_EQ(h.faults[0].src, "runtime");
  ft_history_free(&h);
  unlink(path);
  rmdir(dir);
  return TEST_OK;
#endif
}

static int first_ptrs(const char *out, unsigned long long p[3]) {
  const char *s = out;
  for (int i = 0; i < 3; i++) {
    s = strstr(s, "ptr ");
    if (!s || sscanf(s, "ptr %llx", &p[i]) != 1) return -1;
    s += 4;
  }
  return 0;
}

/* The program's allocations avoid the 2 MiB page of a known bad word with
 * GPUFT_QUARANTINE=1, and land in it without (the control). Device addresses of the
 * simulator follow the process's mmap layout: address randomisation is turned off for
 * the children so that a fresh process gets the same addresses, as with a real driver. */
TEST_IMPL(quarantine_keeps_bad_pages_from_the_program) {
  NEEDS_SIM();
  int old = personality(0xffffffff);
  if (old < 0 || personality((unsigned long)old | ADDR_NO_RANDOMIZE) < 0)
    return TEST_SKIPF("cannot turn off address randomisation (personality)");
  char dir[96], opt[128];
  tmpdir(dir, sizeof dir);
  snprintf(opt, sizeof opt, "--history-dir=%s", dir);
  unsigned long long a[3], b[3], c[3], q[3];
  const char *plain[] = {"-q", opt, ALLOC_PROBE, NULL};
  proc_result_t r = gpuft(plain, NULL);
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(first_ptrs(r.out, a), 0);
  proc_free(&r);
  r = gpuft(plain, NULL);
  ASSERT_EQ(first_ptrs(r.out, b), 0);
  proc_free(&r);
  if (a[0] != b[0]) {
    personality((unsigned long)old);
    return TEST_SKIPF("device addresses differ between runs (%#llx, %#llx)", a[0], b[0]);
  }
  /* a bad word in the middle of the program's first buffer */
  uint64_t bad = a[0] + 4096, page = bad & ~((2ull << 20) - 1);
  char path[256], rec[160];
  snprintf(path, sizeof path, "%s/%s.jsonl", dir, SIM_UUID);
  snprintf(rec, sizeof rec, "\"type\": \"fault\", \"src\": \"memtest:MI10\", \"addr\": %llu, \"bits\": 4",
           (unsigned long long)bad);
  ASSERT_EQ(ft_history_append(path, rec), 0);
  r = gpuft(plain, NULL); /* control: the history alone moves nothing */
  ASSERT_EQ(first_ptrs(r.out, c), 0);
  ASSERT_EQ(c[0], a[0]);
  proc_free(&r);
  const char *env[] = {"GPUFT_LOG=info", NULL};
  const char *quar[] = {"-q", opt, "--quarantine", ALLOC_PROBE, NULL};
  r = gpuft(quar, env);
  personality((unsigned long)old);
  ASSERT_EQ(r.status, 0);
  HAS(r.err, "is held by gpuft");
  ASSERT_EQ(first_ptrs(r.out, q), 0);
  for (int i = 0; i < 3; i++)
    if (q[i] < page + (2ull << 20) && q[i] + (1u << 20) > page)
      FT_FAIL_("allocation %#llx overlaps the quarantined page %#llx", q[i], (unsigned long long)page);
  proc_free(&r);
  unlink(path);
  rmdir(dir);
  return TEST_OK;
}

/* Base address of the first allocation in a report, and its "permanent" count. */
static int report_base(const char *path, unsigned long long *base, uint64_t *permanent) {
  char *js = read_file(path);
  const char *b = js ? strstr(js, "\"base\": \"") : NULL;
  int ok = b && sscanf(b + 9, "%llx", base) == 1 && json_u64(js, "permanent", permanent) == 0;
  free(js);
  return ok ? 0 : -1;
}

/* A bit flipped in a word the history lists as bad is classed permanent at once (the
 * first time it is corrected), and recorded; the same flip elsewhere is a plain
 * correction. Addresses as in the quarantine test: randomisation off for the children. */
TEST_IMPL(known_bad_word_is_permanent_at_once) {
  NEEDS_SIM();
#ifndef APP_VECADD
  return TEST_SKIPF("tests/apps/vecadd is not built (no nvcc)");
#else
  int old = personality(0xffffffff);
  if (old < 0 || personality((unsigned long)old | ADDR_NO_RANDOMIZE) < 0)
    return TEST_SKIPF("cannot turn off address randomisation (personality)");
  static const struct { unsigned offset, bit; } cases[] = {{100, 3}, {4000, 0}, {17, 7}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    char dir[96], opt[128], rep[160], ropt[192], flip[160], path[256], rec[160];
    tmpdir(dir, sizeof dir);
    snprintf(opt, sizeof opt, "--history-dir=%s", dir);
    snprintf(rep, sizeof rep, "%s/report.json", dir);
    snprintf(ropt, sizeof ropt, "--report=%s", rep);
    snprintf(flip, sizeof flip, "SIMCUDA_FLIP=before=launch:vecadd:1,arg=0,offset=%u,bits=%u",
             cases[c].offset, cases[c].bit);
    const char *env[] = {flip, NULL};
    const char *args[] = {"-q", opt, ropt, APP_VECADD, "5000", NULL};
    unsigned long long base[2];
    uint64_t perm[2];
    for (int run = 0; run < 2; run++) {
      proc_result_t r = gpuft(args, env);
      ASSERT_EQ(r.status, 0); /* corrected either way: the output is right */
      ASSERT_EQ(report_base(rep, &base[run], &perm[run]), 0);
      proc_free(&r);
      if (run == 0) { /* now the history lists the word */
        snprintf(path, sizeof path, "%s/%s.jsonl", dir, SIM_UUID);
        snprintf(rec, sizeof rec, "\"type\": \"fault\", \"src\": \"memtest:MI10\", \"addr\": %llu, "
                 "\"bits\": %u", base[0] + cases[c].offset, 1u << ((cases[c].offset & 3) * 8 + cases[c].bit));
        ASSERT_EQ(ft_history_append(path, rec), 0);
      }
    }
    if (base[0] != base[1]) {
      personality((unsigned long)old);
      return TEST_SKIPF("device addresses differ between runs (%#llx, %#llx)", base[0], base[1]);
    }
    ASSERT_EQ(perm[0], 0ull);
    ASSERT_EQ(perm[1], 1ull);
    char *js = read_file(rep);
    ASSERT(js && strstr(js, "data bit in a word of the error history (permanent fault)"));
    free(js);
    ft_hist_t h;
    ASSERT_EQ(ft_history_read(path, &h), 0);
    ASSERT_EQ(h.n_faults, (size_t)1);
    ASSERT_EQ(h.runtime_aggregate, 1ull); /* and recorded again, from run time */
    ft_history_free(&h);
    unlink(path);
    unlink(rep);
    rmdir(dir);
  }
  personality((unsigned long)old);
  return TEST_OK;
#endif
}
