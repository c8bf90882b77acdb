/* test_gridsync.c: cooperative grids on the interpreter: a grid barrier written as
 * cooperative groups write it (workspace from %envreg1:%envreg2, the masters'
 * atom.add.release.gpu, an ld.acquire.gpu poll for the flip of bit 31) orders
 * every block's stores before every block's loads, on 1 and several host threads;
 * without a cooperative launch the workspace is address 0; a barrier a block left
 * early fails the launch by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runner.h"

#define HDR ".version 7.5\n.target sm_75\n.address_size 64\n"

/* One grid barrier (labels suffixed S): %rd9 the barrier word, %r20 what this
 * block's master adds (all blocks' additions sum to 2^31). */
#define GRID_SYNC(S)                                                                  \
  "bar.sync 0;\n@!%p9 bra SKIP" S ";\n"                                               \
  "atom.add.release.gpu.u32 %r21, [%rd9], %r20;\n"                                    \
  "POLL" S ":\nld.acquire.gpu.u32 %r22, [%rd9];\nxor.b32 %r23, %r22, %r21;\n"         \
  "setp.gt.s32 %p8, %r23, -1;\n@%p8 bra POLL" S ";\nSKIP" S ":\nbar.sync 0;\n"

/* Each round every element moves one block along the ring (read, sync, write,
 * sync); LEAVE: code before the first sync (a way out for block 1). */
#define RING_PTX(LEAVE)                                                                                          \
  HDR ".visible .entry ring(.param .u64 a, .param .u32 rounds)\n{\n"                                           \
      ".reg .pred %p<10>;\n.reg .b32 %r<30>;\n.reg .b64 %rd<12>;\n"                                          \
      "ld.param.u64 %rd0, [a];\nld.param.u32 %r0, [rounds];\n"                                                \
      "mov.u32 %r1, %envreg1;\nmov.u32 %r2, %envreg2;\ncvt.u64.u32 %rd3, %r1;\nshl.b64 %rd3, %rd3, 32;\n"   \
      "cvt.u64.u32 %rd4, %r2;\nor.b64 %rd9, %rd3, %rd4;\nadd.u64 %rd9, %rd9, 4;\n"                          \
      "mov.u32 %r3, %tid.x;\nmov.u32 %r4, %ctaid.x;\nmov.u32 %r5, %ntid.x;\nmov.u32 %r6, %nctaid.x;\n" LEAVE \
      "setp.eq.u32 %p9, %r3, 0;\n"                                                                             \
      "mad.lo.u32 %r7, %r4, %r5, %r3;\nmul.lo.u32 %r8, %r6, %r5;\n"                                          \
      "add.u32 %r9, %r7, %r5;\nrem.u32 %r9, %r9, %r8;\n"                                                     \
      "mul.wide.u32 %rd1, %r7, 4;\nadd.u64 %rd1, %rd0, %rd1;\n"                                              \
      "mul.wide.u32 %rd2, %r9, 4;\nadd.u64 %rd2, %rd0, %rd2;\n"                                              \
      "mov.u32 %r24, 0x80000001;\nsub.u32 %r24, %r24, %r6;\n"                                                \
      "setp.eq.u32 %p7, %r4, 0;\nselp.b32 %r20, %r24, 1, %p7;\n"                                             \
      "mov.u32 %r10, 0;\nLOOP:\nsetp.ge.u32 %p1, %r10, %r0;\n@%p1 bra DONE;\n"                               \
      "ld.global.u32 %r11, [%rd2];\n" GRID_SYNC("A") "st.global.u32 [%rd1], %r11;\n" GRID_SYNC("B")          \
      "add.u32 %r10, %r10, 1;\nbra LOOP;\nDONE:\nret;\n}\n"

static const char *ring_ptx(bool leave) {
  return leave ? RING_PTX("setp.eq.u32 %p6, %r4, 1;\n@%p6 bra DONE;\n") : RING_PTX("");
}

enum { RING_BLOCKS = 24, RING_THREADS = 64, RING_N = RING_BLOCKS * RING_THREADS, RING_ROUNDS = 5 };

static int run_ring(bool coop, bool leave, uint32_t *a, char *msg, size_t n) {
  for (uint32_t i = 0; i < RING_N; i++) a[i] = i;
  hz_clear_buffers();
  hz_add_buffer(a, RING_N * sizeof *a);
  struct {
    uint64_t a;
    uint32_t rounds;
  } params = {(uint64_t)(uintptr_t)a, RING_ROUNDS};
  hz_launch_t l = {{RING_BLOCKS, 1, 1}, {RING_THREADS, 1, 1}, 0};
  hz_coop = coop;
  int r = hz_run(ring_ptx(leave), "ring", &l, &params, msg, n, NULL);
  hz_coop = false;
  return r;
}

TEST_IMPL(grid_barrier_orders_blocks) {
  static uint32_t a[RING_N];
  char msg[512];
  const unsigned threads[] = {1, 3, 8};
  for (unsigned t = 0; t < 3; t++) {
    hz_threads = threads[t];
    int r = run_ring(true, false, a, msg, sizeof msg);
    if (r) FT_FAIL_("%u threads: %d %s", threads[t], r, msg);
    for (uint32_t i = 0; i < RING_N; i++)
      if (a[i] != (i + RING_ROUNDS * RING_THREADS) % RING_N)
        FT_FAIL_("%u threads: a[%u] = %u, want %u", threads[t], i, a[i], (i + RING_ROUNDS * RING_THREADS) % RING_N);
  }
  hz_threads = 1;
  return TEST_OK;
}

/* Not cooperative: %envreg1:%envreg2 read 0, the arrival is a store to address 4. */
TEST_IMPL(grid_barrier_needs_cooperative_launch) {
  static uint32_t a[RING_N];
  char msg[512];
  int r = run_ring(false, false, a, msg, sizeof msg);
  ASSERT_EQ(r, 700);
  if (!strstr(msg, "block (0,0,0)") || !strstr(msg, "illegal 4-byte global store at 0x4")) FT_FAIL_("%s", msg);
  return TEST_OK;
}

/* Block 1 returns before the barrier: every other block waits at it forever on a
 * GPU; here the launch fails (CUDA_ERROR_LAUNCH_TIMEOUT) naming block 1. */
TEST_IMPL(grid_barrier_left_early_fails) {
  static uint32_t a[RING_N];
  char msg[512];
  const unsigned threads[] = {1, 4};
  for (unsigned t = 0; t < 2; t++) {
    hz_threads = threads[t];
    int r = run_ring(true, true, a, msg, sizeof msg);
    ASSERT_EQ(r, 702);
    if (!strstr(msg, "block (0,0,0)") ||
        !strstr(msg, "grid-wide barrier never completes: block (1,0,0) ended without arriving at it"))
      FT_FAIL_("%u threads: %s", threads[t], msg);
  }
  hz_threads = 1;
  return TEST_OK;
}
