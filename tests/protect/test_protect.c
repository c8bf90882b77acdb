/* test_protect.c: gpuft's protection on the simulator — example programs and
 * driver-API cases run with and without LD_PRELOAD=libgpuft.so, faults injected
 * through the simulator (SIMCUDA_FLIP, simcudaFlipNow), outcomes read from the
 * programs' checksums and gpuft's JSON report. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gprun.h"
#include "proc.h"
#include "runner.h"
#include "layout.h"


#ifdef APP_SGEMM
#define HAVE_APPS 1
#else
#define HAVE_APPS 0
#define APP_VECADD ""
#define APP_SGEMM ""
#define APP_JACOBI ""
#define APP_MULTISTREAM ""
#define APP_MULTISTREAM_PTDS ""
#define APP_POOL ""
#endif
#define NEED_APPS() \
  if (!HAVE_APPS) return TEST_SKIPF("nvcc not found: the example programs were not built")

/* ---- fault-free ---- */

TEST_IMPL(fault_free_apps_identical) {
  NEED_APPS();
  static const struct {
    const char *exe, *a1, *a2;
  } cases[] = {
      {APP_VECADD, "1", NULL},      {APP_VECADD, "1000", NULL},   {APP_VECADD, "1048576", NULL},
      {APP_SGEMM, "1", NULL},       {APP_SGEMM, "17", NULL},      {APP_SGEMM, "64", NULL},
      {APP_SGEMM, "130", NULL},     {APP_JACOBI, "64", "10"},     {APP_JACOBI, "100", "30"},
      {APP_MULTISTREAM, NULL, NULL}, {APP_MULTISTREAM_PTDS, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *argv[] = {cases[i].exe, cases[i].a1, cases[i].a1 ? cases[i].a2 : NULL, NULL};
    run_t p, g;
    gp_run(argv, 0, NULL, NULL, &p);
    ASSERT_EQ(p.status, 0);
    for (int rep = 0; rep < 2; rep++) {
      gp_run(argv, 1, NULL, NULL, &g);
      if (g.status != 0) FT_FAIL_("%s %s under gpuft: %s", cases[i].exe, cases[i].a1, g.err);
      ASSERT_STR_EQ(g.out, p.out);
      ASSERT_EQ(gp_get(&g, "detected"), 0u);
      ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
      ASSERT_GT(gp_get(&g, "verifications") + gp_get(&g, "encodes"), 0u);
      ASSERT_GT(gp_get(&g, "protected"), 0u);
      gp_free(&g);
    }
    gp_free(&p);
  }
  return TEST_OK;
}

/* ---- single-bit flips at rest ---- */

static uint64_t golden(const char *exe, const char *arg) {
  const char *argv[] = {exe, arg, NULL};
  return gp_golden(argv);
}

TEST_IMPL(single_flip_at_rest_corrected) {
  NEED_APPS();
  /* sgemm's C (96 x 96 floats: 36,864 bytes, 9 groups) and vecadd's c, read back
   * by one device-to-host copy; flips land just before that copy */
  static const struct {
    const char *exe, *arg;
    size_t bytes;
  } apps[] = {{APP_SGEMM, "96", 96 * 96 * 4}, {APP_VECADD, "5000", 5000 * 4}};
  int runs = 0;
  for (size_t ai = 0; ai < 2; ai++) {
    uint64_t gold = golden(apps[ai].exe, apps[ai].arg);
    size_t n = apps[ai].bytes;
    size_t offs[] = {0, 1, 3, 127, 128, 129, 4095, 4096, 4097, 8191, n / 2, n - 129, n - 2, n - 1};
    for (size_t oi = 0; oi < sizeof offs / sizeof *offs; oi++) {
      for (int bit = 0; bit < 8; bit += 3) {
        char spec[128];
        snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%zu,bits=%d", offs[oi], bit);
        const char *argv[] = {apps[ai].exe, apps[ai].arg, NULL};
        run_t p, g;
        gp_run(argv, 0, spec, NULL, &p);
        ASSERT(p.has_checksum);
        if (p.checksum == gold) FT_FAIL_("%s: the flip did not bite", spec);
        gp_run(argv, 1, spec, NULL, &g);
        if (g.status != 0 || !g.has_checksum || g.checksum != gold)
          FT_FAIL_("%s %s, %s: not corrected (status %d)\n%s", apps[ai].exe, apps[ai].arg, spec,
                   g.status, g.err);
        ASSERT_EQ(gp_get(&g, "corrected"), 1u);
        ASSERT_EQ(gp_get(&g, "detected"), 1u);
        ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
        ASSERT(strstr(g.json, "\"outcome\": \"corrected\"") != NULL);
        ASSERT(strstr(g.json, "\"kind\": \"data bit\"") != NULL);
        char want[64];
        snprintf(want, sizeof want, "\"offset\": %zu, \"bit\": %zu", offs[oi] / 4 * 4,
                 (offs[oi] % 4) * 8 + (size_t)bit);
        if (!strstr(g.json, want)) FT_FAIL_("%s: event lacks %s:\n%s", spec, want, g.json);
        gp_free(&p);
        gp_free(&g);
        runs++;
      }
    }
  }
  printf("# %d single-bit flips at rest, all corrected\n", runs);
  return TEST_OK;
}

/* ---- double flips ---- */

TEST_IMPL(double_flip_one_block_never_miscorrected) {
  NEED_APPS();
  uint64_t gold = golden(APP_SGEMM, "96");
  static const struct {
    size_t o1;
    int b1;
    size_t o2;
    int b2;
  } pairs[] = {{0, 0, 0, 1}, {100, 3, 100, 7}, {100, 3, 120, 3}, {4096, 0, 4096 + 127, 7},
               {5000, 2, 5004, 2}, {36000, 6, 36001, 6}, {128, 0, 132, 1}, {20000, 5, 20064, 4}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    char spec[256];
    snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%zu,bits=%d;before=d2h:1,src,offset=%zu,bits=%d",
             pairs[i].o1, pairs[i].b1, pairs[i].o2, pairs[i].b2);
    if (pairs[i].o1 == pairs[i].o2)
      snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%zu,bits=%d+%d", pairs[i].o1,
               pairs[i].b1, pairs[i].b2);
    const char *argv[] = {APP_SGEMM, "96", NULL};
    /* the code's own verdict: without replay (which recomputes C, see the replay
     * tests) two bits in one block are reported, never "corrected" */
    const char *warn[] = {"GPUFT_ON_FAIL=warn", "GPUFT_MODE=correct", NULL};
    const char *err[] = {"GPUFT_ON_FAIL=error", "GPUFT_MODE=correct", NULL};
    run_t p, w, e;
    gp_run(argv, 0, spec, NULL, &p);
    ASSERT(p.has_checksum && p.checksum != gold);
    /* warn: the program goes on with exactly the data the flips left (gpuft
     * changed nothing), and the report says uncorrectable */
    gp_run(argv, 1, spec, warn, &w);
    ASSERT(w.has_checksum);
    if (w.checksum != p.checksum) FT_FAIL_("%s: data changed by gpuft (miscorrection)", spec);
    ASSERT_GE(gp_get(&w, "uncorrectable"), 1u);
    ASSERT_EQ(gp_get(&w, "corrected"), 0u);
    ASSERT(strstr(w.err, "uncorrectable memory error") != NULL);
    /* error (the default): the read-back call fails with the ECC error */
    gp_run(argv, 1, spec, err, &e);
    ASSERT_NE(e.status, 0);
    ASSERT(strstr(e.err, "cudaErrorECCUncorrectable") != NULL);
    ASSERT_GE(gp_get(&e, "uncorrectable"), 1u);
    gp_free(&p);
    gp_free(&w);
    gp_free(&e);
  }
  return TEST_OK;
}

TEST_IMPL(double_flip_two_groups_both_corrected) {
  NEED_APPS();
  uint64_t gold = golden(APP_SGEMM, "96");
  for (size_t o = 0; o < 36864 - 4096; o += 4096 + 1111) {
    char spec[256];
    snprintf(spec, sizeof spec, "before=d2h:1,src,offset=%zu,bits=2;before=d2h:1,src,offset=%zu,bits=5",
             o, o + 4096);
    const char *argv[] = {APP_SGEMM, "96", NULL};
    run_t g;
    gp_run(argv, 1, spec, NULL, &g);
    if (g.status != 0 || g.checksum != gold) FT_FAIL_("%s: not corrected\n%s", spec, g.err);
    ASSERT_EQ(gp_get(&g, "corrected"), 2u);
    gp_free(&g);
  }
  return TEST_OK;
}

TEST_IMPL(on_fail_abort) {
  NEED_APPS();
  const char *argv[] = {APP_SGEMM, "96", NULL};
  const char *ab[] = {"GPUFT_ON_FAIL=abort", "GPUFT_MODE=correct", NULL};
  run_t a;
  gp_run(argv, 1, "before=d2h:1,src,offset=300,bits=1+2", ab, &a);
  ASSERT_EQ(a.status, 128 + SIGABRT);
  ASSERT(strstr(a.err, "aborting (GPUFT_ON_FAIL=abort)") != NULL);
  gp_free(&a);
  return TEST_OK;
}

/* ---- a read-only input hit before the kernel reads it ---- */

TEST_IMPL(read_only_input_flip_detected_after_launch) {
  NEED_APPS();
  int runs = 0;
  for (int arg = 0; arg < 2; arg++) {
    for (size_t off = 0; off < 36864; off += 3001) {
      for (int bit = 1; bit < 8; bit += 5) {
        char spec[128];
        snprintf(spec, sizeof spec, "before=launch:sgemm:1,arg=%d,offset=%zu,bits=%d", arg, off, bit);
        const char *argv[] = {APP_SGEMM, "96", NULL};
        run_t g;
        gp_run(argv, 1, spec, NULL, &g);
        ASSERT_EQ(gp_get(&g, "detected"), 1u);
        /* corrected in place; the kernel had read it, so its final outcome is the
         * replay's (docs/report.md: one outcome per error) */
        ASSERT_EQ(gp_get(&g, "corrected") + gp_get(&g, "recovered"), 1u);
        ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
        if (!strstr(g.json, "\"where\": \"after launch (read-only argument)\""))
          FT_FAIL_("%s: not reported as a read-only argument hit:\n%s", spec, g.json);
        gp_free(&g);
        runs++;
      }
    }
  }
  printf("# %d flips in sgemm's inputs detected after the launch\n", runs);
  return TEST_OK;
}

/* ---- code words ---- */

TEST_IMPL(code_array_flips_are_code_errors) {
  const char *argv[] = {EXE_PCASES, "codeflip", NULL};
  run_t g;
  gp_run(argv, 1, NULL, NULL, &g);
  if (g.status != 0) FT_FAIL_("pcases codeflip: %s", g.err);
  int ok = 0, tries = -1;
  ASSERT_EQ(sscanf(g.out, "codeflip: %d of %d read-backs correct", &ok, &tries), 2);
  ASSERT_EQ(ok, tries);
  /* flips that hit real code words (not the padding between the arrays) */
  uint64_t len = 3 * 4096 + 1000, off[6], nb = ft_blocks_of(len), ng = ft_groups_of(len);
  uint64_t cb = ft_code_layout(len, off);
  int expect = 0;
  for (uint64_t w = 0; w < cb / 4; w += 3)
    for (int k = 0; k < 6; k++) {
      uint64_t first = off[k] / 4, cnt = k < 2 ? nb : ng;
      if (w >= first && w < first + cnt) expect += 3;
    }
  ASSERT_GT(expect, 0);
  ASSERT_EQ(gp_get(&g, "corrected"), (uint64_t)expect);
  ASSERT_EQ(gp_get(&g, "code_words"), (uint64_t)expect);
  ASSERT_EQ(gp_count(g.json, "\"kind\": \"data bit\""), 0);
  ASSERT_EQ(gp_count(g.json, "\"kind\": \"code bit\"") + gp_count(g.json, "\"kind\": \"level-2 code\""),
            expect);
  gp_free(&g);
  return TEST_OK;
}

/* ---- bad input ---- */

TEST_IMPL(bad_input_same_as_driver) {
  const char *argv[] = {EXE_PCASES, "badinput", NULL};
  run_t p, g;
  gp_run(argv, 0, NULL, NULL, &p);
  gp_run(argv, 1, NULL, NULL, &g);
  ASSERT_EQ(p.status, 0);
  ASSERT_EQ(g.status, 0);
  ASSERT_STR_EQ(g.out, p.out);
  ASSERT(strstr(g.out, "intact 1") != NULL);
  ASSERT(strstr(g.out, "freeA_again 0") == NULL); /* the driver refuses a double free */
  ASSERT_EQ(gp_get(&g, "detected"), 0u);
  gp_free(&p);
  gp_free(&g);
  return TEST_OK;
}

TEST_IMPL(unaligned_sizes_and_offsets) {
  const char *noflip[] = {EXE_PCASES, "unaligned", NULL};
  const char *flip[] = {EXE_PCASES, "unaligned", "flip", NULL};
  run_t p, pf, g, gf;
  gp_run(noflip, 0, NULL, NULL, &p);
  gp_run(flip, 0, NULL, NULL, &pf);
  gp_run(noflip, 1, NULL, NULL, &g);
  gp_run(flip, 1, NULL, NULL, &gf);
  ASSERT_EQ(gp_count(p.out, "match 1"), 7);
  ASSERT_STR_EQ(g.out, p.out);
  ASSERT_LT(gp_count(pf.out, "match 1"), 7); /* the flips bite */
  ASSERT_STR_EQ(gf.out, p.out);          /* and gpuft repairs them all */
  uint64_t flips = 0;
  static const size_t sizes[] = {1, 127, 129, 1000, 4097, 70001, 300000};
  for (size_t i = 0; i < 7; i++) flips += (sizes[i] + 4095) / 4096;
  ASSERT_EQ(gp_get(&gf, "corrected"), flips);
  ASSERT_EQ(gp_get(&g, "detected"), 0u);
  gp_free(&p);
  gp_free(&pf);
  gp_free(&g);
  gp_free(&gf);
  return TEST_OK;
}

TEST_IMPL(checkpoint_budget) {
  const char *argv[] = {EXE_PCASES, "budget", NULL};
  const char *env[] = {"GPUFT_CKPT_MAX=64KiB", NULL};
  run_t g;
  gp_run(argv, 1, NULL, env, &g);
  ASSERT_EQ(g.status, 0);
  ASSERT_STR_EQ(g.out, "budget: 6 of 6 read-backs correct\n");
  ASSERT_EQ(gp_count(g.err, "checkpoint budget GPUFT_CKPT_MAX"), 1);
  ASSERT_LE(gp_get(&g, "checkpoint"), 64u * 1024);
  ASSERT_EQ(gp_get(&g, "corrected"), 6u);
  gp_free(&g);
  return TEST_OK;
}

TEST_IMPL(detect_mode_does_not_modify) {
  NEED_APPS();
  const char *argv[] = {APP_SGEMM, "96", NULL};
  const char *env[] = {"GPUFT_MODE=detect", "GPUFT_ON_FAIL=warn", NULL};
  const char *spec = "before=d2h:1,src,offset=999,bits=4";
  run_t p, g;
  gp_run(argv, 0, spec, NULL, &p);
  gp_run(argv, 1, spec, env, &g);
  ASSERT(g.has_checksum && p.has_checksum);
  ASSERT_EQ(g.checksum, p.checksum);
  ASSERT_EQ(gp_get(&g, "detected"), 1u);
  ASSERT_EQ(gp_get(&g, "corrected"), 0u);
  ASSERT(strstr(g.json, "\"outcome\": \"detected\"") != NULL);
  gp_free(&p);
  gp_free(&g);
  return TEST_OK;
}

TEST_IMPL(report_json_fields) {
  NEED_APPS();
  const char *argv[] = {APP_SGEMM, "64", NULL};
  run_t g;
  gp_run(argv, 1, "before=d2h:1,src,offset=64,bits=0", NULL, &g);
  ASSERT(g.json != NULL);
  static const char *const keys[] = {
      "\"errors\": {",     "\"detected\": ",     "\"corrected\": ",   "\"recovered\": ",
      "\"uncorrectable\": ", "\"permanent\": ",  "\"bytes\": {",      "\"protected\": ",
      "\"checkpoint\": ",  "\"encoded_host\": ", "\"encoded_device\": ", "\"verified_device\": ",
      "\"launches\": ",    "\"unprotected_ops\": ", "\"events\": [",   "\"allocation\": ",
      "\"offset\": ",      "\"bit\": ",          "\"kind\": ",        "\"outcome\": ",
      "\"coverage\": ",    "\"cpu_seconds\": "};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    if (!strstr(g.json, keys[i])) FT_FAIL_("report lacks %s:\n%s", keys[i], g.json);
  ASSERT_EQ(gp_get(&g, "launches"), 1u);
  ASSERT_EQ(gp_get(&g, "encoded_host"), 2u * 64 * 64 * 4); /* A and B, encoded while copied */
  ASSERT_GT(gp_get(&g, "verified_device"), 0u);
  /* the stderr summary */
  ASSERT(strstr(g.err, "1 detected, 1 corrected") != NULL);
  gp_free(&g);
  return TEST_OK;
}

/* ---- tensors carved out of one pool (issue 22) ---- */

/* The pool program (tests/apps/pool.cu: a 16 MiB pool, 16 KiB tensors from its
 * middle and one at its end, 20 axpy launches): under gpuft in both check modes, the result is
 * native's, launches use the pool by range facts, and what gpuft's kernels read
 * follows the tensors, not the pool: beyond the one encode of all of it at its
 * first upload (per-group state is not built yet), a run that checked the pool per
 * launch would read 24 x 16 MiB or more. Then flips at rest, in both modes: in a tensor
 * before a launch reads it (corrected, or recovered: the pool is also written; with
 * GPUFT_CHECK=epoch what launches only read is checked at the commit, before a
 * read-back returns), and in pool bytes no tensor holds (no wrong result, nothing
 * uncorrectable). */
TEST_IMPL(pool_tensors_by_range) {
  NEED_APPS();
  const char *argv[] = {APP_POOL, "16", "16", "20", NULL};
  uint64_t gold = gp_golden(argv);
  static const char *const modes[] = {"GPUFT_CHECK=launch", "GPUFT_CHECK=epoch"};
  /* the same tensors and launches in a pool 16 times larger: gpuft's device work must
   * be the same, and snapshot copies must not grow with it (never-written groups are
   * neither encoded, verified nor copied) */
  const char *big[] = {APP_POOL, "256", "16", "20", NULL};
  for (int m = 0; m < 2; m++) {
    const char *extra[] = {modes[m], NULL};
    uint64_t read[2], snap[2];
    for (int b = 0; b < 2; b++) {
      run_t g;
      gp_run(b ? big : argv, 1, NULL, extra, &g);
      if (g.status != 0 || g.checksum != gold) FT_FAIL_("%s: status %d\n%s", modes[m], g.status, g.err);
      ASSERT_EQ(gp_get(&g, "detected"), 0u);
      ASSERT_GT(gp_get(&g, "launch_uses_bounded"), 0u);
      ASSERT_EQ(gp_get(&g, "launch_uses_whole"), 0u);
      read[b] = gp_get(&g, "verified_device") + gp_get(&g, "encoded_device");
      /* four 16 KiB tensors written (x, y, the scratch reused as z, w): the report
       * says how little of the pool holds anything to protect */
      ASSERT_EQ(gp_get(&g, "written"), 4u * 16384);
      if (!strstr(g.err, "(64.0 KiB of it written)")) FT_FAIL_("summary:\n%s", g.err);
      snap[b] = gp_get(&g, "bytes_copied");
      printf("# %s: pool %s MiB: gpuft's kernels read %ju bytes, snapshots copied %ju (24 launches)\n",
             modes[m], (b ? big : argv)[1], (uintmax_t)read[b], (uintmax_t)snap[b]);
      gp_free(&g);
    }
    /* a few passes over what the 24 launches are given (up to three 16 KiB tensors each) */
    ASSERT_LT(read[0], (uint64_t)4 * 24 * 3 * 16384);
    ASSERT_EQ(read[1], read[0]);
    /* how many snapshots land depends on timing; each copies the tensors written
     * since the last (with their codes), never the pool */
    for (int b = 0; b < 2; b++) ASSERT_LT(snap[b], (uint64_t)1 << 20);
  }
  /* (offsets from the argument's pointer) x and y lie at 8 MiB and 8 MiB + 16 KiB
   * of the pool (its allocator starts in the middle); the pool's first half holds
   * no tensor, nor does what follows the third one */
  static const struct {
    const char *flip;
    int corrected; /* lands in a tensor */
    int in_flight; /* in data written earlier in the epoch: GPUFT_CHECK=epoch leaves it
                      in flight, unprotected, until the epoch ends (docs/options.md) */
  } flips[] = {
      {"before=launch:axpy:5,arg=1,offset=103,bits=3", 1, 0},      /* x, read by the launch */
      {"before=launch:scale:2,arg=0,offset=11,bits=2", 1, 1},      /* y, read by scale and axpy, written by axpy */
      {"before=launch:scale:3,arg=0,offset=7,bits=6", 1, 1},       /* y as the far tensor is written from it */
      {"before=launch:axpy:15,arg=1,offset=4099,bits=5", 1, 0},    /* x, in the middle of the loop */
      {"before=launch:axpy:5,arg=1,offset=-1000000,bits=1", 0, 0}, /* no tensor there */
      {"before=launch:axpy:5,arg=2,offset=4000000,bits=2", 0, 0},  /* no tensor there */
      /* two bits in one block, beyond the code: a replay from a copy of what was written */
      {"at=launch:axpy:12,target=arg:1,offset=5000,bit=3+517", 1, 0},  /* x, uploaded, read only */
      {"at=launch:scale:2,target=arg:0,offset=9000,bit=30+800", 1, 1},  /* y, written earlier in the epoch */
  };
  for (size_t i = 0; i < sizeof flips / sizeof *flips; i++) {
    for (int m = 0; m < 2 - flips[i].in_flight; m++) {
      const char *extra[] = {modes[m], NULL};
      run_t g;
      gp_run(argv, 1, flips[i].flip, extra, &g);
      if (g.status != 0 || g.checksum != gold)
        FT_FAIL_("%s (%s): status %d, wrong result\n%s", flips[i].flip, modes[m], g.status, g.err);
      ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
      /* in a tensor: repaired in place, or (a group the launch writes) by a replay */
      if (flips[i].corrected) ASSERT_GT(gp_get(&g, "corrected") + gp_get(&g, "recovered"), 0u);
      gp_free(&g);
    }
    run_t p; /* the flip bites without gpuft when it lands in a tensor */
    gp_run(argv, 0, flips[i].flip, NULL, &p);
    if (flips[i].corrected && p.checksum == gold) FT_FAIL_("%s: the flip did not bite", flips[i].flip);
    if (!strstr(p.err, "dropped") == 0) FT_FAIL_("%s: not applied:\n%s", flips[i].flip, p.err);
    gp_free(&p);
  }
  return TEST_OK;
}
