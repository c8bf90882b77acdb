/* test_rest.c: multi-stream programs under gpuft without false alarms in both
 * checking modes, flips at rest in one stream's part, and flips in inputs that
 * kernels only read through non-const or struct-held pointers (detected from
 * the kernels' PTX, recovered bit for bit). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gprun.h"
#include "runner.h"

#if defined(APP_SIMPLESTREAMS) && defined(APP_USERPATTERNS)
#define HAVE_APPS 1
#else
#define HAVE_APPS 0
#define APP_SIMPLESTREAMS ""
#define APP_USERPATTERNS ""
#endif
#define NEED_APPS() \
  if (!HAVE_APPS) return TEST_SKIPF("nvcc not found: the example programs were not built")

static const char *const modes[] = {"GPUFT_CHECK=launch", "GPUFT_CHECK=epoch"};

/* Fault-free: same checksum as without gpuft, nothing detected, every mode. */
static int fault_free(const char *const argv[]) {
  uint64_t gold = gp_golden(argv);
  for (int m = 0; m < 2; m++) {
    const char *extra[] = {modes[m], NULL};
    run_t g;
    gp_run(argv, 1, NULL, extra, &g);
    if (g.status != 0 || !g.has_checksum || g.checksum != gold)
      FT_FAIL_("%s %s (%s): status %d, checksum %s\n%s", argv[0], argv[1] ? argv[1] : "",
               modes[m], g.status, g.has_checksum && g.checksum == gold ? "same" : "differs", g.err);
    if (gp_get(&g, "detected") != 0)
      FT_FAIL_("%s (%s): %ju false detections\n%s", argv[0], modes[m],
               (uintmax_t)gp_get(&g, "detected"), g.err);
    ASSERT_EQ(gp_get(&g, "replays"), 0u);
    gp_free(&g);
  }
  return TEST_OK;
}

TEST_IMPL(simplestreams_fault_free_both_modes) {
  NEED_APPS();
  /* n ints, streams, reps, pinned */
  const char *cases[][4] = {{"65536", "4", "3", "1"}, {"65536", "4", "3", "0"},
                            {"262144", "8", "2", "1"}, {"131072", "2", "4", "0"},
                            {"65536", "1", "2", "1"}};
  for (int rep = 0; rep < 3; rep++)
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      const char *argv[] = {APP_SIMPLESTREAMS, cases[i][0], cases[i][1], cases[i][2], cases[i][3],
                            NULL};
      int r = fault_free(argv);
      if (r != TEST_OK) return r;
    }
  return TEST_OK;
}

/* A flip in one stream's part of the array, at rest before that stream's kernel
 * reads it (the factor, read by every stream, too): the right answer, and no
 * other stream's data harmed. */
TEST_IMPL(simplestreams_flip_at_rest) {
  NEED_APPS();
  const char *argv[] = {APP_SIMPLESTREAMS, "65536", "4", "2", "1", NULL};
  uint64_t gold = gp_golden(argv);
  char spec[160];
  const char *const bits[] = {"0", "3", "7", "2+5"};
  for (int m = 0; m < 2; m++)
    for (int k = 0; k < 4; k++) {
      const char *extra[] = {modes[m], NULL};
      /* launch 1 is the whole-array kernel; launches 2..5 are the streams' kernels.
       * The flip lands in the factor just before a stream's kernel reads it. */
      snprintf(spec, sizeof spec, "before=launch:init_array:%d,arg=1,offset=%d,bits=%s", 2 + k,
               k % 4, bits[k]);
      run_t g;
      gp_run(argv, 1, spec, extra, &g);
      if (g.status != 0 || !g.has_checksum || g.checksum != gold)
        FT_FAIL_("%s (%s): status %d, %s\n%s", spec, modes[m], g.status,
                 g.has_checksum && g.checksum == gold ? "same checksum" : "wrong answer", g.err);
      if (gp_get(&g, "detected") == 0) FT_FAIL_("%s (%s): not detected\n%s", spec, modes[m], g.err);
      ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
      gp_free(&g);
    }
  return TEST_OK;
}

/* gpuft adds no wait between two of the program's streams: the streamed version
 * still overlaps its kernels (the simulator runs each stream on its own worker;
 * with 8 streams the streamed part is faster than 8 times one stream's part). */
TEST_IMPL(streams_still_overlap) {
  NEED_APPS();
  /* Measured by the simulator's own event timing inside the program would be a
   * timing threshold; instead gpuft's report must show no synchronisation of its
   * own between the program's streams: no commit happened before the program's
   * first synchronisation, and every stream's kernel was launched without gpuft
   * verifying the shared array while another stream wrote it. */
  const char *argv[] = {APP_SIMPLESTREAMS, "131072", "8", "2", "1", NULL};
  const char *extra[] = {"GPUFT_LOG=debug", NULL};
  run_t g;
  gp_run(argv, 1, NULL, extra, &g);
  ASSERT_EQ(g.status, 0);
  /* the array is written by 8 unordered streams: it stays in flight and comes to
   * rest (encoded once) at the program's own synchronisation */
  if (gp_count(g.err, "came to rest: encoded") == 0)
    FT_FAIL_("the shared array never came back to rest under a code\n%s", g.err);
  ASSERT_EQ(gp_get(&g, "detected"), 0u);
  gp_free(&g);
  return TEST_OK;
}

/* Inputs read through non-const pointers (matrixMul's signature), and the input of
 * a kernel that writes only half of its output: flips just before the kernel
 * reads them (after gpuft's check at the launch) are detected after the kernel
 * and recovered bit for bit; the same flips without gpuft change the answer. */
TEST_IMPL(read_only_inputs_flipped_before_read) {
  NEED_APPS();
  const char *argv[] = {APP_USERPATTERNS, "4096", "3", NULL};
  uint64_t gold = gp_golden(argv);
  const char *targets[] = {"matmul_nonconst:%d,arg=1", "matmul_nonconst:%d,arg=2",
                           "write_half:%d,arg=1", "count_positive:%d,arg=0"};
  const int offsets[] = {0, 44, 1000, 4092, 12000};
  const char *const bits[] = {"3", "6", "1+4"};
  char spec[200], where[120];
  int n = 0;
  for (int t = 0; t < 4; t++)
    for (int o = 0; o < 5; o++) {
      snprintf(where, sizeof where, targets[t], 1 + (o % 3));
      snprintf(spec, sizeof spec, "before=launch:%s,offset=%d,bits=%s", where, offsets[o],
               bits[(t + o) % 3]);
      run_t p, g;
      gp_run(argv, 0, spec, NULL, &p);
      gp_run(argv, 1, spec, NULL, &g);
      if (g.status != 0 || !g.has_checksum || g.checksum != gold)
        FT_FAIL_("%s: not recovered (status %d)\n%s", spec, g.status, g.err);
      if (p.status == 0 && p.has_checksum && p.checksum == gold) {
        /* the flip did not matter to the program (e.g. a sign bit of a zero count) */
      } else {
        if (gp_get(&g, "detected") == 0) FT_FAIL_("%s: wrong without gpuft, undetected with", spec);
        n++;
      }
      ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
      gp_free(&p);
      gp_free(&g);
    }
  if (n < 10) FT_FAIL_("only %d of 20 flips changed the answer without gpuft", n);
  return TEST_OK;
}

/* Flips in buffers reached only through pointers inside a struct argument
 * (GPUFT_INJECT's target=arg:<i>.<byte>): x, read-only and uploaded, and y,
 * updated in place (from the second round on, data the GPU produced). One and two
 * bits, before the kernel reads them: detected, and the answer is the fault-free one. */
TEST_IMPL(struct_field_flips_recovered) {
  NEED_APPS();
  const char *argv[] = {APP_USERPATTERNS, "4096", "3", NULL};
  uint64_t gold = gp_golden(argv);
  for (int field = 0; field <= 8; field += 8)
    for (int round = 1; round <= 3; round++)
      for (int bits = 1; bits <= 2; bits++) {
        char inj[200];
        snprintf(inj, sizeof inj,
                 "GPUFT_INJECT=at=launch:axpy_struct:%d,target=arg:0.%d,offset=%d,bits=%d,seed=%d",
                 round, field, 512 * round + 4 * field, bits, round * 10 + bits);
        const char *extra[] = {inj, NULL};
        run_t g;
        gp_run(argv, 1, NULL, extra, &g);
        ASSERT(strstr(g.json, "\"applied\": true") != NULL);
        if (g.status != 0 || !g.has_checksum || g.checksum != gold || gp_get(&g, "detected") == 0 ||
            gp_get(&g, "uncorrectable") != 0)
          FT_FAIL_("%s: status %d, checksum %s, detected %ju\n%s", inj, g.status,
                   g.has_checksum && g.checksum == gold ? "right" : "WRONG",
                   (uintmax_t)gp_get(&g, "detected"), g.err);
        gp_free(&g);
      }
  return TEST_OK;
}

/* A kernel loaded from PTX with cuModuleLoadData: its access facts come from that
 * PTX (the non-const `in` is READ, verified after the kernel, never re-encoded),
 * and flips in `in` before the kernel reads it are corrected, output right. */
TEST_IMPL(module_loaded_at_run_time_is_analysed) {
#ifndef EXE_MODLOAD
  return TEST_SKIPF("nvcc not found: modload not built");
#else
  const char *argv[] = {EXE_MODLOAD, MODKERNEL_PTX, "16384", NULL};
  uint64_t gold = gp_golden(argv);
  for (int k = 0; k < 6; k++) {
    char inj[160];
    snprintf(inj, sizeof inj, "GPUFT_INJECT=at=launch:scale_copy:%d,target=arg:1,offset=%d,bits=%d,seed=%d",
             1 + k % 3, 4096 * k + 40, 1 + k % 2, k);
    const char *extra[] = {k ? inj : "GPUFT_CHECK=launch", NULL};
    run_t g;
    gp_run(argv, 1, NULL, extra, &g);
    if (g.status != 0 || !g.has_checksum || g.checksum != gold || gp_get(&g, "uncorrectable") != 0)
      FT_FAIL_("%s: status %d\n%s", extra[0], g.status, g.err);
    ASSERT_EQ(gp_get(&g, "kernels_with_ptx_facts"), 1u);
    ASSERT_EQ(gp_get(&g, "kernels_conservative"), 0u);
    ASSERT_EQ(gp_get(&g, "places_conservative"), 0u);
    if (k) ASSERT_GE(gp_get(&g, "detected"), 1u);
    gp_free(&g);
  }
  return TEST_OK;
#endif
}

/* A destroyed stream's handle given to a new stream of another context: the old
 * context's synchronisation must not count as the new stream's (order.c used to
 * keep the old stream's clock and context: a commit encoded data a kernel was
 * still writing, and the program was told its memory was damaged). */
TEST_IMPL(stream_handle_reused_by_another_context) {
#ifndef EXE_REUSE
  return TEST_SKIPF("nvcc not found: reuse not built");
#else
  const char *argv[] = {EXE_REUSE, SLOWKERNEL_PTX, NULL};
  /* (ASan's quarantine would keep a freed stream's memory, and so its handle, from
   * coming back) */
  const char *asan = "ASAN_OPTIONS=quarantine_size_mb=0:thread_local_quarantine_size_kb=0";
  const char *plain_env[] = {asan, NULL};
  run_t plain;
  gp_run(argv, 0, NULL, plain_env, &plain);
  if (plain.status == 3) {
    gp_free(&plain);
    return TEST_SKIPF("the simulator never gave a destroyed stream's handle back");
  }
  ASSERT_EQ(plain.status, 0);
  ASSERT(plain.has_checksum);
  const char *modes[] = {"GPUFT_CHECK=epoch", "GPUFT_CHECK=launch"};
  int checked = 0;
  for (int m = 0; m < 2; m++) {
    const char *extra[] = {modes[m], asan, NULL};
    run_t g;
    gp_run(argv, 1, NULL, extra, &g);
    if (g.status == 3) {
      gp_free(&g);
      continue; /* this run got no handle back: nothing to check */
    }
    if (g.status != 0 || !g.has_checksum || g.checksum != plain.checksum)
      FT_FAIL_("%s: status %d\n%s", modes[m], g.status, g.err);
    ASSERT_EQ(gp_get(&g, "detected"), 0u);
    ASSERT_EQ(gp_get(&g, "uncorrectable"), 0u);
    gp_free(&g);
    checked++;
  }
  gp_free(&plain);
  if (!checked) return TEST_SKIPF("the simulator gave no destroyed stream's handle back under gpuft");
  return TEST_OK;
#endif
}

TEST_IMPL(userpatterns_fault_free_both_modes) {
  NEED_APPS();
  const char *sizes[] = {"64", "4096", "65536"};
  for (int i = 0; i < 3; i++) {
    const char *argv[] = {APP_USERPATTERNS, sizes[i], "3", NULL};
    int r = fault_free(argv);
    if (r != TEST_OK) return r;
  }
  return TEST_OK;
}

/* The classes come from the kernels' PTX: struct fields and non-const pointers
 * included, names not consulted. */
TEST_IMPL(facts_from_ptx_not_names) {
  NEED_APPS();
  const char *argv[] = {APP_USERPATTERNS, "64", "1", NULL};
  const char *extra[] = {"GPUFT_LOG=debug", NULL};
  run_t g;
  gp_run(argv, 1, NULL, extra, &g);
  ASSERT_EQ(g.status, 0);
  const char *k[] = {"_Z11axpy_struct8AxpyArgs", "_Z15matmul_nonconstPfS_S_ii",
                     "_Z13scale_inplacePffi", "_Z10write_halfPfPKfi", "_Z14count_positivePKfPii"};
  for (int i = 0; i < 5; i++) {
    char want[200];
    snprintf(want, sizeof want, "kernel %s: access facts from its PTX", k[i]);
    if (!strstr(g.err, want)) FT_FAIL_("no PTX facts for %s\n%s", k[i], g.err);
  }
  gp_free(&g);
  return TEST_OK;
}
