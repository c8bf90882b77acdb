/* test_fast.c: the faster paths against the reference interpreter and the host:
 * register reuse (reads before any write, guarded writes, loops, a source dying
 * where a destination is born), full-warp vector and argument loads, the AVX2 fma,
 * and faults in full-warp accesses. hz_run compares every launch with the
 * reference; these kernels make sure the paths are taken. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "lower.h"
#include "runner.h"

#define HDR ".version 7.5\n.target sm_75\n.address_size 64\n"

/* Lane t: r2 = t + a register never written (0); r4 = sum over i < t%5 of
 * (i*scale + 3) ^ i; r14 = fma(in[4t], in[4t+1], 1) as f32 bits; r31 = 7 for even
 * t (a guarded write only), else 0; r15, r16 = in[4t+2], in[4t+3] through a 64-bit
 * pack and unpack; rd5, rd6 = the record lane t^1 stored in shared memory, read
 * into the register that held its address; lane 0's r14 and in[3], read by every
 * lane from one address; in[t], in[4t+1] and in[2t..2t+1] (consecutive lanes,
 * consecutive 4- and 8-byte elements: vector loads; a stride of 16: a gather).
 * 64 bytes a lane. */
static const char *fast_ptx =
    HDR ".visible .entry k(.param .u64 out, .param .u64 in, .param .u32 scale)\n{\n"
    ".reg .b32 %r<40>;\n.reg .b64 %rd<20>;\n.reg .f32 %f<10>;\n.reg .pred %p<4>;\n"
    ".shared .align 16 .b8 sh[1024];\n"
    "ld.param.u64 %rd0, [out];\nld.param.u64 %rd1, [in];\nld.param.u32 %r1, [scale];\n"
    "mov.u32 %r0, %tid.x;\nadd.u32 %r2, %r30, %r0;\n"
    "and.b32 %r3, %r0, 1;\nsetp.eq.u32 %p0, %r3, 0;\n@%p0 mov.u32 %r31, 7;\n"
    "mov.u32 %r4, 0;\nmov.u32 %r5, 0;\nrem.u32 %r6, %r0, 5;\n"
    "L:\nsetp.ge.u32 %p1, %r5, %r6;\n@%p1 bra E;\n"
    "mul.lo.u32 %r7, %r5, %r1;\nadd.u32 %r8, %r7, 3;\nxor.b32 %r9, %r8, %r5;\nadd.u32 %r4, %r4, %r9;\n"
    "add.u32 %r5, %r5, 1;\nbra L;\n"
    "E:\nmul.wide.u32 %rd2, %r0, 16;\nadd.s64 %rd3, %rd1, %rd2;\n"
    "ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd3];\n"
    "mov.b32 %f0, %r10;\nmov.b32 %f1, %r11;\nfma.rn.f32 %f2, %f0, %f1, 0f3F800000;\nmov.b32 %r14, %f2;\n"
    "mov.b64 %rd4, {%r12, %r13};\nmov.b64 {%r15, %r16}, %rd4;\n"
    "mov.u32 %r17, sh;\nshl.b32 %r18, %r0, 4;\nadd.u32 %r19, %r17, %r18;\n"
    "st.shared.v4.u32 [%r19], {%r2, %r4, %r14, %r31};\nbar.sync 0;\n"
    "xor.b32 %r20, %r0, 1;\nshl.b32 %r21, %r20, 4;\nadd.u32 %r22, %r17, %r21;\ncvt.u64.u32 %rd5, %r22;\n"
    "ld.shared.v2.u64 {%rd5, %rd6}, [%rd5];\n"
    "mul.wide.u32 %rd7, %r0, 64;\nadd.s64 %rd8, %rd0, %rd7;\n"
    "st.global.v4.u32 [%rd8], {%r2, %r4, %r14, %r31};\nst.global.v2.u64 [%rd8+16], {%rd5, %rd6};\n"
    "st.global.v2.u32 [%rd8+32], {%r15, %r16};\n"
    "ld.shared.u32 %r23, [sh+8];\nld.global.u32 %r24, [%rd1+12];\nst.global.v2.u32 [%rd8+40], {%r23, %r24};\n"
    "mul.wide.u32 %rd9, %r0, 4;\nadd.s64 %rd10, %rd1, %rd9;\nld.global.u32 %r25, [%rd10];\n"
    "add.s64 %rd11, %rd10, %rd9;\nld.global.u64 %rd12, [%rd11];\nld.global.u32 %r26, [%rd3+4];\n"
    "st.global.v2.u32 [%rd8+48], {%r25, %r26};\nst.global.u64 [%rd8+56], %rd12;\n"
    "ret;\n}\n";

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static uint32_t canon_fma(uint32_t a, uint32_t b) {
  float x, y;
  memcpy(&x, &a, 4);
  memcpy(&y, &b, 4);
  float r = fmaf(x, y, 1.0f);
  return isnan(r) ? 0x7fffffffu : f32_bits(r);
}

static int check_fast(unsigned threads) {
  enum { MAXT = 64 };
  uint32_t in[4 * MAXT] __attribute__((aligned(16)));
  uint32_t out[16 * MAXT] __attribute__((aligned(16)));
  for (unsigned t = 0; t < MAXT; t++) {
    in[4 * t] = t % 7 == 3 ? 0x7fa00000u : f32_bits((float)t * 0.5f); /* a signalling NaN now and then */
    in[4 * t + 1] = t % 11 == 5 ? 0x7f800000u : f32_bits(2.0f);       /* inf */
    in[4 * t + 2] = 0x01020304u * t;
    in[4 * t + 3] = ~t;
  }
  in[1] = 0x7f800000u; /* lane 0: 0 * inf */
  memset(out, 0, sizeof out);
  hz_clear_buffers();
  hz_add_buffer(out, sizeof out);
  hz_add_buffer(in, sizeof in);
  struct __attribute__((packed)) { uint64_t out, in; uint32_t scale; } p = {(uintptr_t)out, (uintptr_t)in, 37};
  hz_launch_t l = {{1, 1, 1}, {threads, 1, 1}, 0};
  char msg[512];
  int r = hz_run(fast_ptx, "k", &l, &p, msg, sizeof msg, NULL);
  if (r) FT_FAIL_("%u threads: %d %s", threads, r, msg);
  uint32_t rec[MAXT][4];
  for (unsigned t = 0; t < threads; t++) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < t % 5; i++) sum += (i * 37 + 3) ^ i;
    rec[t][0] = t, rec[t][1] = sum, rec[t][2] = canon_fma(in[4 * t], in[4 * t + 1]), rec[t][3] = t % 2 ? 0 : 7;
  }
  for (unsigned t = 0; t < threads; t++) {
    const uint32_t *o = out + 16 * t, *nb = rec[t ^ 1];
    for (unsigned k = 0; k < 4; k++) ASSERT_EQ(o[k], rec[t][k]);
    for (unsigned k = 0; k < 4; k++) ASSERT_EQ(o[4 + k], nb[k]); /* two u64: the neighbour's words in order */
    ASSERT_EQ(o[8], in[4 * t + 2]);
    ASSERT_EQ(o[9], in[4 * t + 3]);
    ASSERT_EQ(o[10], rec[0][2]);
    ASSERT_EQ(o[11], in[3]);
    ASSERT_EQ(o[12], in[t]);
    ASSERT_EQ(o[13], in[4 * t + 1]);
    ASSERT_EQ(o[14], in[2 * t]);
    ASSERT_EQ(o[15], in[2 * t + 1]);
  }
  return TEST_OK;
}

/* Full warps, and a block whose second warp has 16 lanes. */
TEST_IMPL(fast_paths_match_reference) {
  int r = check_fast(64);
  return r != TEST_OK ? r : check_fast(48);
}

/* Full-warp loads that fault: lanes from 20 on read past the buffer (thread 20 is
 * named), a .v4 load 4 bytes off its alignment (thread 0). */
TEST_IMPL(fast_faults_match_reference) {
  static const char *ptx[2] = {
      HDR ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n"
          "ld.param.u64 %rd0, [out];\nld.param.u64 %rd1, [in];\nmov.u32 %r0, %tid.x;\n"
          "mul.wide.u32 %rd2, %r0, 4;\nadd.s64 %rd3, %rd1, %rd2;\nld.global.u32 %r1, [%rd3];\n"
          "add.s64 %rd4, %rd0, %rd2;\nst.global.u32 [%rd4], %r1;\nret;\n}\n",
      HDR ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n"
          "ld.param.u64 %rd0, [out];\nld.param.u64 %rd1, [in];\nmov.u32 %r0, %tid.x;\n"
          "mul.wide.u32 %rd2, %r0, 16;\nadd.s64 %rd3, %rd1, %rd2;\nld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd3+4];\n"
          "add.s64 %rd4, %rd0, %rd2;\nst.global.u32 [%rd4], %r1;\nret;\n}\n"};
  static const struct { int err; const char *who; } want[2] = {{700, "thread (20,0,0)"}, {716, "thread (0,0,0)"}};
  uint32_t in[20 * 4] __attribute__((aligned(16))), out[32 * 4] __attribute__((aligned(16)));
  for (int k = 0; k < 2; k++) {
    hz_clear_buffers();
    hz_add_buffer(out, sizeof out);
    hz_add_buffer(in, k == 0 ? 20 * 4 : sizeof in);
    struct __attribute__((packed)) { uint64_t out, in; } p = {(uintptr_t)out, (uintptr_t)in};
    hz_launch_t l = {{1, 1, 1}, {32, 1, 1}, 0};
    char msg[512];
    int r = hz_run(ptx[k], "k", &l, &p, msg, sizeof msg, NULL);
    ASSERT_EQ(r, want[k].err); /* -3 would mean the two interpreters differ */
    if (!strstr(msg, want[k].who)) FT_FAIL_("kernel %d: %s", k, msg);
  }
  return TEST_OK;
}

/* A chain of temporaries, each read once: with reuse they take a few slots, the
 * reference keeps one each (register 0 keeps a slot to itself). */
TEST_IMPL(register_reuse_shares_slots) {
  char ptx[8192];
  int n = snprintf(ptx, sizeof ptx, HDR ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %%r<64>;\n.reg .b64 %%rd<2>;\n"
                                        "ld.param.u64 %%rd0, [out];\nmov.u32 %%r0, %%tid.x;\n");
  for (int i = 1; i < 60; i++) n += snprintf(ptx + n, sizeof ptx - n, "add.u32 %%r%d, %%r%d, %d;\n", i, i - 1, i);
  snprintf(ptx + n, sizeof ptx - n, "st.global.u32 [%%rd0], %%r59;\nret;\n}\n");
  ft_ptx_module_t *m = NULL;
  char err[256];
  ASSERT_EQ(ft_ptx_parse(ptx, strlen(ptx), &m, err, sizeof err), 0);
  uint32_t slots[2];
  for (int plain = 0; plain < 2; plain++) {
    sim_kprog_t *prog = NULL;
    sim_interp_plain = plain;
    int r = sim_interp_lower(m, ft_ptx_find_function(m, "k"), NULL, &prog, err, sizeof err);
    sim_interp_plain = false;
    if (r) FT_FAIL_("lowering: %s", err);
    slots[plain] = prog->const_base; /* the variable registers' slots come first */
    sim_kprog_free(prog);
  }
  ft_ptx_module_free(m);
  ASSERT(slots[1] >= 60);
  ASSERT(slots[0] <= 5);
  /* and it runs the same (hz_run compares) */
  uint32_t out = 0;
  hz_clear_buffers();
  hz_add_buffer(&out, sizeof out);
  uint64_t p = (uintptr_t)&out;
  hz_launch_t l = {{1, 1, 1}, {1, 1, 1}, 0};
  ASSERT_EQ(hz_run(ptx, "k", &l, &p, err, sizeof err, NULL), 0);
  ASSERT_EQ(out, 59u * 60u / 2u);
  return TEST_OK;
}

/* Special registers in a 3-D block of two warps over a 2-D grid, on one host
 * thread (blocks after the first keep the constant registers and refill only the
 * per-block ones): each thread's tid, ctaid, ntid, laneid, lanemask_lt, warpid. */
TEST_IMPL(special_registers_every_block) {
  const char *ptx =
      HDR ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<16>;\n.reg .b64 %rd<4>;\n"
      "ld.param.u64 %rd0, [out];\n"
      "mov.u32 %r0, %tid.x;\nmov.u32 %r1, %tid.y;\nmov.u32 %r2, %tid.z;\nmov.u32 %r3, %ctaid.x;\n"
      "mov.u32 %r4, %ctaid.y;\nmov.u32 %r5, %ntid.x;\nmov.u32 %r6, %laneid;\nmov.u32 %r7, %lanemask_lt;\n"
      "mov.u32 %r8, %nctaid.x;\nmov.u32 %r9, %ntid.y;\n"
      /* linear thread id in the grid: ((ctaid.y * nctaid.x + ctaid.x) * 64) + (tid.z * 4 + tid.y) * 8 + tid.x */
      "mad.lo.u32 %r10, %r4, %r8, %r3;\nmad.lo.u32 %r11, %r2, %r9, %r1;\nmad.lo.u32 %r11, %r11, %r5, %r0;\n"
      "shl.b32 %r12, %r10, 6;\nadd.u32 %r12, %r12, %r11;\nmul.wide.u32 %rd1, %r12, 32;\nadd.s64 %rd2, %rd0, %rd1;\n"
      "st.global.v4.u32 [%rd2], {%r0, %r1, %r2, %r3};\nst.global.v4.u32 [%rd2+16], {%r4, %r5, %r6, %r7};\nret;\n}\n";
  enum { GX = 3, GY = 2, N = GX * GY * 64 };
  static uint32_t out[N * 8] __attribute__((aligned(16)));
  memset(out, 0xff, sizeof out);
  hz_clear_buffers();
  hz_add_buffer(out, sizeof out);
  uint64_t p = (uintptr_t)out;
  hz_launch_t l = {{GX, GY, 1}, {8, 4, 2}, 0};
  char msg[512];
  int r = hz_run(ptx, "k", &l, &p, msg, sizeof msg, NULL);
  if (r) FT_FAIL_("%d %s", r, msg);
  for (unsigned by = 0; by < GY; by++)
    for (unsigned bx = 0; bx < GX; bx++)
      for (unsigned t = 0; t < 64; t++) {
        const uint32_t *o = out + ((by * GX + bx) * 64 + t) * 8;
        unsigned lane = t % 32;
        uint32_t want[8] = {t % 8, t / 8 % 4, t / 32, bx, by, 8, lane, (1u << lane) - 1};
        for (unsigned k = 0; k < 8; k++)
          if (o[k] != want[k]) FT_FAIL_("block (%u,%u) thread %u word %u: %u, want %u", bx, by, t, k, o[k], want[k]);
      }
  return TEST_OK;
}

/* A loop reading one allocation and writing another in turn (NVIDIA's simpleStreams:
 * `g_data[idx] += *factor`): the warp keeps both cached, the host thread's later
 * warps find them without asking (2 lookups in all, where each access asked), and
 * each block hands its bytes over once per allocation (2 per block, where each
 * warp did); every byte is still counted, on one host thread and on two. */
TEST_IMPL(two_allocations_in_turn_looked_up_once) {
  static const char ptx[] =
      HDR ".visible .entry k(.param .u64 out, .param .u64 factor, .param .u32 iters)\n{\n"
          ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
          "ld.param.u64 %rd0, [out];\nld.param.u64 %rd1, [factor];\nld.param.u32 %r5, [iters];\n"
          "mov.u32 %r0, %ctaid.x;\nmov.u32 %r1, %ntid.x;\nmov.u32 %r2, %tid.x;\nmad.lo.s32 %r3, %r0, %r1, %r2;\n"
          "mul.wide.u32 %rd2, %r3, 4;\nadd.s64 %rd3, %rd0, %rd2;\nmov.u32 %r6, 0;\n"
          "LOOP:\nld.global.u32 %r4, [%rd1];\nld.global.u32 %r7, [%rd3];\nadd.s32 %r7, %r7, %r4;\n"
          "st.global.u32 [%rd3], %r7;\nadd.s32 %r6, %r6, 1;\nsetp.lt.u32 %p0, %r6, %r5;\n@%p0 bra LOOP;\nret;\n}\n";
  enum { BLOCKS = 8, THREADS = 64, ITERS = 5 };
  static uint32_t out[BLOCKS * THREADS];
  static uint32_t factor[4] = {3};
  for (unsigned threads = 1; threads <= 2; threads++) {
    for (unsigned i = 0; i < BLOCKS * THREADS; i++) out[i] = i;
    hz_clear_buffers();
    hz_add_buffer(out, sizeof out);
    hz_add_buffer(factor, sizeof factor);
    struct __attribute__((packed)) { uint64_t out, factor; uint32_t iters; } p = {(uintptr_t)out, (uintptr_t)factor, ITERS};
    hz_launch_t l = {{BLOCKS, 1, 1}, {THREADS, 1, 1}, 0};
    char msg[512];
    hz_threads = threads;
    int r = hz_run(ptx, "k", &l, &p, msg, sizeof msg, NULL);
    hz_threads = 1;
    if (r) FT_FAIL_("threads %u: %d %s", threads, r, msg);
    /* the reference ran first from the same contents: the default lowering's result */
    for (unsigned i = 0; i < BLOCKS * THREADS; i++) ASSERT_EQ(out[i], i + 3u * ITERS);
    ASSERT_EQ((uint64_t)hz_counted[0], (uint64_t)BLOCKS * THREADS * ITERS * 8);
    ASSERT_EQ((uint64_t)hz_counted[1], (uint64_t)BLOCKS * THREADS * ITERS * 4);
    if (hz_lookups > 2 * threads) FT_FAIL_("threads %u: %ju lookups", threads, (uintmax_t)hz_lookups);
    ASSERT_EQ((uint64_t)hz_hand_overs, (uint64_t)2 * BLOCKS);
  }
  return TEST_OK;
}
