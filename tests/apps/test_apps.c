/* test_apps.c: runs the example programs on the simulator (see test_list.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "run_app.h"
#include "runner.h"

#ifndef APP_VECADD
#define APP_VECADD NULL
#define APP_SGEMM NULL
#define APP_JACOBI NULL
#define APP_MULTISTREAM NULL
#define APP_MULTISTREAM_PTDS NULL
#define APP_POOL NULL
#endif

#define NEED_APP(exe)                                           \
  do {                                                          \
    const char *why_ = app_skip_reason(exe);                    \
    if (why_) return TEST_SKIPF("%s", why_);                    \
  } while (0)

static void show(const char *what, const app_result_t *r) {
  fprintf(stderr, "--- %s: status %d\n--- stdout:\n%s--- stderr:\n%s---\n", what, r->status,
          r->out, r->err);
}

/* Runs and requires a given exit status; returns the result for more checks. */
static app_result_t run_expect(const char *const argv[], const char *flip, int want) {
  app_result_t r;
  char what[512];
  snprintf(what, sizeof what, "%s %s %s flip=%s", argv[0], argv[1] ? argv[1] : "",
           argv[1] && argv[2] ? argv[2] : "", flip ? flip : "-");
  if (app_run(argv, flip, &r) != 0) FT_FAIL_("could not run %s", argv[0]);
  if (r.status != want) {
    show(what, &r);
    FT_FAIL_("%s: exit status %d, expected %d", what, r.status, want);
  }
  /* A wrong answer must be the program's own verdict, not some other failure. */
  if (want == 1 && !strstr(r.err, "wrong") && !strstr(r.err, "mismatch")) {
    show(what, &r);
    FT_FAIL_("%s: exit status 1 without the program's wrong-answer report", what);
  }
  if (!r.has_checksum) {
    show(what, &r);
    FT_FAIL_("%s: no checksum line", what);
  }
  return r;
}

TEST_IMPL(vecadd_sizes) {
  NEED_APP(APP_VECADD);
  const char *sizes[] = {"1", "255", "1000", "65539", "1048576"};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    run_expect((const char *const[]){APP_VECADD, sizes[i], NULL}, NULL, 0);
  return TEST_OK;
}

TEST_IMPL(sgemm_sizes) {
  NEED_APP(APP_SGEMM);
  /* Not multiples of the 16 x 16 tile too. */
  const char *sizes[] = {"1", "15", "16", "17", "100", "256"};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    run_expect((const char *const[]){APP_SGEMM, sizes[i], NULL}, NULL, 0);
  return TEST_OK;
}

TEST_IMPL(jacobi_sizes) {
  NEED_APP(APP_JACOBI);
  const char *cases[][2] = {{"2", "3"}, {"17", "10"}, {"64", "40"}, {"128", "50"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    run_expect((const char *const[]){APP_JACOBI, cases[i][0], cases[i][1], NULL}, NULL, 0);
  return TEST_OK;
}

TEST_IMPL(multistream_runs) {
  NEED_APP(APP_MULTISTREAM);
  const char *cases[][3] = {{"1", "1", "1000"}, {"2", "4", "65536"}, {"4", "3", "12345"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    run_expect((const char *const[]){APP_MULTISTREAM, cases[i][0], cases[i][1], cases[i][2], NULL},
               NULL, 0);
  return TEST_OK;
}

/* Built with --default-stream per-thread: launches go through __cudaLaunchKernel_ptsz
 * and copies through the *_ptsz entry points; results equal the legacy build's. */
TEST_IMPL(multistream_ptds) {
  NEED_APP(APP_MULTISTREAM_PTDS);
  FILE *f = fopen(APP_MULTISTREAM_PTDS, "rb");
  ASSERT(f != NULL);
  static char bin[64 << 20];
  size_t n = fread(bin, 1, sizeof bin, f);
  fclose(f);
  ASSERT(memmem(bin, n, "__cudaLaunchKernel_ptsz", 23) != NULL);
  ASSERT(memmem(bin, n, "cudaMemcpyAsync_ptsz", 20) != NULL);
  app_result_t a = run_expect((const char *const[]){APP_MULTISTREAM_PTDS, "3", "2", "5000", NULL}, NULL, 0);
  app_result_t b = run_expect((const char *const[]){APP_MULTISTREAM, "3", "2", "5000", NULL}, NULL, 0);
  ASSERT_EQ(a.checksum, b.checksum);
  return TEST_OK;
}

TEST_IMPL(deterministic_reruns) {
  NEED_APP(APP_SGEMM);
  const char *const progs[][4] = {{APP_SGEMM, "100", NULL, NULL},
                                  {APP_JACOBI, "40", "20", NULL},
                                  {APP_VECADD, "100000", NULL, NULL}};
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    app_result_t a = run_expect(progs[i], NULL, 0);
    app_result_t b = run_expect(progs[i], NULL, 0);
    ASSERT_EQ(a.checksum, b.checksum);
  }
  return TEST_OK;
}

/* Every twinned kernel of the example programs, run through its twin and through
 * the PTX interpreter (SIMCUDA_TWINS=0): the outputs agree bit for bit. */
TEST_IMPL(twins_vs_interpreter) {
  NEED_APP(APP_SGEMM);
  const char *const progs[][4] = {{APP_SGEMM, "100", NULL, NULL},
                                  {APP_JACOBI, "40", "20", NULL},
                                  {APP_VECADD, "100000", NULL, NULL},
                                  {APP_MULTISTREAM, NULL, NULL, NULL},
                                  {APP_MULTISTREAM_PTDS, NULL, NULL, NULL},
                                  {APP_POOL, "4", "3", NULL}};
  setenv("SIMCUDA_STATS", "1", 1); /* the counters say which path ran */
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    unsetenv("SIMCUDA_TWINS");
    app_result_t a = run_expect(progs[i], NULL, 0);
    setenv("SIMCUDA_TWINS", "0", 1);
    app_result_t b = run_expect(progs[i], NULL, 0);
    unsetenv("SIMCUDA_TWINS");
    if (strstr(b.err, "cannot launch") || strstr(b.err, "no twin")) FT_FAIL_("%s: %s", progs[i][0], b.err);
    ASSERT(strstr(a.err, " kernels_interpreted=0"));  /* twins ran */
    ASSERT(strstr(b.err, " kernels_interpreted=") && !strstr(b.err, " kernels_interpreted=0"));
    ASSERT_EQ(a.has_checksum, b.has_checksum);
    if (a.has_checksum) ASSERT_EQ(a.checksum, b.checksum);
    ASSERT(strcmp(a.out, b.out) == 0);
  }
  return TEST_OK;
}

/* vecadd's c read back by its only D2H copy, hit just before the copy. */
TEST_IMPL(vecadd_flip_d2h) {
  NEED_APP(APP_VECADD);
  const unsigned offsets[] = {3, 4 * 1000 + 2, 4 * 4095 + 3};
  const unsigned bits[] = {6, 1, 7};
  for (size_t i = 0; i < 3; i++) {
    char spec[256];
    /* Element values are >= 1 except c[0] = 0: flipping any listed bit changes them. */
    snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%u,bits=%u", offsets[i], bits[i]);
    run_expect((const char *const[]){APP_VECADD, "4096", NULL}, spec, 1);
  }
  return TEST_OK;
}

/* Bit 30 (byte 3, bit 6) is the top exponent bit of a float: flipping it changes any
 * value (0 becomes 2), so the check must fail wherever it lands. */
TEST_IMPL(sgemm_flip_d2h_c) {
  NEED_APP(APP_SGEMM);
  const int n = 100;
  const unsigned elems[] = {0, 17, n * n / 2 + 3, n * n - 1};
  const char *bits[] = {"6", "6+2", "6+7"};
  for (size_t i = 0; i < 4; i++)
    for (size_t b = 0; b < 3; b++) {
      char spec[256];
      snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%u,bits=%s", elems[i] * 4 + 3, bits[b]);
      run_expect((const char *const[]){APP_SGEMM, "100", NULL}, spec, 1);
    }
  return TEST_OK;
}

/* A and B (launch arguments 0 and 1) hit before the launch reads them. */
TEST_IMPL(sgemm_flip_launch_ab) {
  NEED_APP(APP_SGEMM);
  const int n = 64;
  const unsigned elems[] = {0, 65, n * n / 3, n * n - 1};
  for (int arg = 0; arg < 2; arg++)
    for (size_t i = 0; i < 4; i++) {
      char spec[256];
      snprintf(spec, sizeof spec, "before=launch:sgemm:1,arg=%d,offset=%u,bits=6", arg,
               elems[i] * 4 + 3);
      run_expect((const char *const[]){APP_SGEMM, "64", NULL}, spec, 1);
    }
  return TEST_OK;
}

/* The in-place grid u hit before a sweep, early and late in the run. */
TEST_IMPL(jacobi_flip_launch_u) {
  NEED_APP(APP_JACOBI);
  const int n = 32, w = n + 2;
  const unsigned cells[] = {(unsigned)(w * (n / 2) + n / 2), (unsigned)(w + 1),
                            (unsigned)(w * n + n)};
  const unsigned when[] = {1, 7, 39};
  for (size_t i = 0; i < 3; i++)
    for (size_t k = 0; k < 3; k++) {
      char spec[256];
      snprintf(spec, sizeof spec, "before=launch:rb_sweep:%u,arg=0,offset=%u,bits=6", when[k],
               cells[i] * 4 + 3);
      run_expect((const char *const[]){APP_JACOBI, "32", "20", NULL}, spec, 1);
    }
  return TEST_OK;
}

/* y (argument 0 of add_offset) hit between the two streams' kernels. */
TEST_IMPL(multistream_flip) {
  NEED_APP(APP_MULTISTREAM);
  const unsigned offsets[] = {0, 4 * 100 + 1, 4 * 999 + 3};
  const unsigned bits[] = {0, 5, 7};
  for (size_t i = 0; i < 3; i++)
    for (unsigned k = 1; k <= 3; k += 2) {
      char spec[256];
      snprintf(spec, sizeof spec, "before=launch:add_offset:%u,arg=0,offset=%u,bits=%u", k,
               offsets[i], bits[i]);
      run_expect((const char *const[]){APP_MULTISTREAM, "2", "2", "1000", NULL}, spec, 1);
    }
  return TEST_OK;
}

/* Control: a flip in the destination of an H2D copy just before the copy is
 * overwritten by it: the answer is unchanged, so the failures above are the flips'. */
TEST_IMPL(flip_off_target_is_harmless) {
  NEED_APP(APP_SGEMM);
  app_result_t clean = run_expect((const char *const[]){APP_SGEMM, "64", NULL}, NULL, 0);
  for (unsigned k = 1; k <= 2; k++) {
    char spec[128];
    snprintf(spec, sizeof spec, "before=h2d:%u,dst,offset=%u,bits=6", k, 4 * 10 + 3);
    app_result_t r = run_expect((const char *const[]){APP_SGEMM, "64", NULL}, spec, 0);
    ASSERT_EQ(clean.checksum, r.checksum);
  }
  return TEST_OK;
}
