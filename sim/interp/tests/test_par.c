/* test_par.c: blocks of a grid on several host threads (as the driver's pool runs
 * them): global atomics of every integer kind stay exact under contention, a
 * deterministic kernel leaves the same memory and instruction count on 1 and 4
 * threads, the UB check's race tracking stays per block, and the fault reported
 * is the lowest-numbered faulting block's whatever the thread count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_kernels.h"
#include "harness.h"
#include "runner.h"

#define HDR ".version 7.5\n.target sm_75\n.address_size 64\n"
#define PAR_THREADS 4 /* more than this machine's cores: threads interleave anywhere */

enum { AT_BLOCKS = 64, AT_THREADS = 256, AT_N = AT_BLOCKS * AT_THREADS };

/* Each thread g: add 1 to u32 slot g&7 (words 0-7); add g + 2^32 to u64 slot g&7
 * (bytes 64-127); min.s32 1000-g (128); max.u32 3g (132); or 1<<(g&31) (136);
 * xor g (140); inc with bound 999 (144); +2 by a CAS loop on a u64 (152);
 * red.add 3 (160); a ticket from add (164), g stored at word 64 + ticket; the
 * block's shared add total, added by thread 0 (168). */
static const char *atomics_ptx =
    HDR ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<20>;\n.reg .b64 %rd<16>;\n.reg .pred %p<4>;\n"
    ".shared .align 4 .u32 cnt;\n"
    "ld.param.u64 %rd0, [out];\n"
    "mov.u32 %r0, %tid.x;\nmov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmad.lo.s32 %r3, %r1, %r2, %r0;\n"
    "setp.eq.u32 %p1, %r0, 0;\n"
    "@%p1 st.shared.u32 [cnt], 0;\nbar.sync 0;\n"
    "and.b32 %r4, %r3, 7;\nmul.wide.u32 %rd1, %r4, 4;\nadd.s64 %rd2, %rd0, %rd1;\n"
    "atom.global.add.u32 %r5, [%rd2], 1;\n"
    "mul.wide.u32 %rd3, %r4, 8;\nadd.s64 %rd4, %rd0, %rd3;\ncvt.u64.u32 %rd5, %r3;\n"
    "add.s64 %rd6, %rd5, 4294967296;\natom.global.add.u64 %rd7, [%rd4+64], %rd6;\n"
    "mov.u32 %r6, 1000;\nsub.s32 %r6, %r6, %r3;\natom.global.min.s32 %r7, [%rd0+128], %r6;\n"
    "mul.lo.u32 %r8, %r3, 3;\natom.global.max.u32 %r9, [%rd0+132], %r8;\n"
    "and.b32 %r10, %r3, 31;\nmov.u32 %r11, 1;\nshl.b32 %r11, %r11, %r10;\natom.global.or.b32 %r12, [%rd0+136], %r11;\n"
    "atom.global.xor.b32 %r12, [%rd0+140], %r3;\n"
    "atom.global.inc.u32 %r12, [%rd0+144], 999;\n"
    "CAS:\nld.global.u64 %rd8, [%rd0+152];\nadd.s64 %rd9, %rd8, 2;\n"
    "atom.global.cas.b64 %rd10, [%rd0+152], %rd8, %rd9;\nsetp.ne.u64 %p0, %rd10, %rd8;\n@%p0 bra CAS;\n"
    "red.global.add.u32 [%rd0+160], 3;\n"
    "atom.global.add.u32 %r13, [%rd0+164], 1;\nmul.wide.u32 %rd11, %r13, 4;\nadd.s64 %rd12, %rd0, %rd11;\n"
    "st.global.u32 [%rd12+256], %r3;\n"
    "atom.shared.add.u32 %r14, [cnt], 1;\nbar.sync 0;\n"
    "@%p1 ld.shared.u32 %r15, [cnt];\n@%p1 red.global.add.u32 [%rd0+168], %r15;\n"
    "ret;\n}\n";

static int check_atomics(unsigned threads) {
  size_t bytes = 256 + 4 * (size_t)AT_N;
  uint8_t *out = calloc(1, bytes);
  uint8_t *seen = calloc(AT_N, 1);
  if (!out || !seen) abort();
  uint32_t init_min = 0x7fffffff;
  memcpy(out + 128, &init_min, 4);
  hz_clear_buffers();
  hz_add_buffer(out, bytes);
  uint64_t p = (uintptr_t)out;
  hz_launch_t l = {{AT_BLOCKS, 1, 1}, {AT_THREADS, 1, 1}, 0};
  char msg[512];
  hz_threads = threads;
  int r = hz_run(atomics_ptx, "k", &l, &p, msg, sizeof msg, NULL);
  hz_threads = 1;
  if (r) FT_FAIL_("launch on %u threads: %d %s", threads, r, msg);
  uint32_t u32[48];
  memcpy(u32, out, sizeof u32);
  for (unsigned s = 0; s < 8; s++) {
    ASSERT_EQ(u32[s], (uint32_t)(AT_N / 8));
    uint64_t want = 0, got;
    for (uint64_t g = s; g < AT_N; g += 8) want += g + (1ull << 32);
    memcpy(&got, out + 64 + 8 * s, 8);
    ASSERT_EQ(got, want);
  }
  ASSERT_EQ((int32_t)u32[32], 1000 - (AT_N - 1));
  ASSERT_EQ(u32[33], 3u * (AT_N - 1));
  ASSERT_EQ(u32[34], 0xffffffffu);
  uint32_t x = 0;
  for (uint32_t g = 0; g < AT_N; g++) x ^= g;
  ASSERT_EQ(u32[35], x);
  ASSERT_EQ(u32[36], (uint32_t)(AT_N % 1000));
  uint64_t cas;
  memcpy(&cas, out + 152, 8);
  ASSERT_EQ(cas, 2ull * AT_N);
  ASSERT_EQ(u32[40], 3u * AT_N);
  ASSERT_EQ(u32[41], (uint32_t)AT_N);
  ASSERT_EQ(u32[42], (uint32_t)AT_N); /* every block's shared count, AT_THREADS each */
  /* Tickets: each thread got a distinct one, so words 64.. hold every g once. */
  for (size_t t = 0; t < AT_N; t++) {
    uint32_t g;
    memcpy(&g, out + 256 + 4 * t, 4);
    ASSERT_LT(g, (uint32_t)AT_N);
    ASSERT_EQ(seen[g], 0);
    seen[g] = 1;
  }
  free(out);
  free(seen);
  return TEST_OK;
}

TEST_IMPL(parallel_atomics_exact) {
  if (check_atomics(1) != TEST_OK) return 1; /* (failures exit in the helper) */
  for (int rep = 0; rep < 3; rep++)
    if (check_atomics(PAR_THREADS) != TEST_OK) return 1; /* (failures exit in the helper) */
  return TEST_OK;
}

/* Runs kernel over `n` output bytes at out (inputs already registered) on 1 and
 * PAR_THREADS threads: the same bytes and thread-instruction counts. */
static int same_on_threads(const char *kernel, const hz_launch_t *l, const void *params, uint8_t *out, size_t n) {
  uint8_t *first = malloc(n);
  if (!first) abort();
  uint64_t insns1 = 0, insns;
  char msg[512];
  for (unsigned i = 0; i < 3; i++) {
    hz_threads = i ? PAR_THREADS : 1;
    memset(out, 0x5a, n);
    int r = hz_run(bench_kernels_ptx, kernel, l, params, msg, sizeof msg, &insns);
    hz_threads = 1;
    if (r) FT_FAIL_("%s on %u threads: %d %s", kernel, i ? PAR_THREADS : 1, r, msg);
    if (!i) {
      memcpy(first, out, n);
      insns1 = insns;
      continue;
    }
    ASSERT_EQ(insns, insns1);
    ASSERT(memcmp(out, first, n) == 0);
  }
  free(first);
  return TEST_OK;
}

/* NVIDIA's matrixMul and scan kernels (bench_kernels.cu): shared memory, barriers,
 * vector loads; then scan again under the UB check, whose per-block race
 * tracking must find nothing when blocks run on several threads. */
TEST_IMPL(parallel_equals_serial) {
  enum { W = 128, SCAN_BLOCKS = 48, SCAN_N = SCAN_BLOCKS * 1024 };
  float *a = malloc(4 * W * W), *b = malloc(4 * W * W), *c = malloc(4 * W * W);
  uint32_t *src = malloc(4 * SCAN_N), *dst = malloc(4 * SCAN_N);
  if (!a || !b || !c || !src || !dst) abort();
  uint32_t x = 1;
  for (size_t i = 0; i < W * W; i++) {
    a[i] = (float)((x = x * 1664525u + 1013904223u) >> 8) / 65536.0f;
    b[i] = (float)((x = x * 1664525u + 1013904223u) >> 8) / 65536.0f;
  }
  for (size_t i = 0; i < SCAN_N; i++) src[i] = (x = x * 1664525u + 1013904223u) >> 10;
  hz_clear_buffers();
  hz_add_buffer(a, 4 * W * W);
  hz_add_buffer(b, 4 * W * W);
  hz_add_buffer(c, 4 * W * W);
  hz_add_buffer(src, 4 * SCAN_N);
  hz_add_buffer(dst, 4 * SCAN_N);
  struct __attribute__((packed)) { uint64_t c, a, b; int32_t wa, wb; } mp = {(uintptr_t)c, (uintptr_t)a, (uintptr_t)b, W, W};
  hz_launch_t ml = {{W / 32, W / 32, 1}, {32, 32, 1}, 0};
  if (same_on_threads("matrixMul", &ml, &mp, (uint8_t *)c, 4 * W * W) != TEST_OK) return 1; /* (failures exit in the helper) */
  struct __attribute__((packed)) { uint64_t dst, src; uint32_t size; } sp = {(uintptr_t)dst, (uintptr_t)src, 1024};
  hz_launch_t sl = {{SCAN_BLOCKS, 1, 1}, {256, 1, 1}, 0};
  if (same_on_threads("scanExclusiveShared", &sl, &sp, (uint8_t *)dst, 4 * SCAN_N) != TEST_OK) return 1; /* (failures exit in the helper) */
  for (size_t i = 0; i < SCAN_N; i += 1024) /* and right */
    for (uint32_t s = 0, k = 0; k < 1024; s += src[i + k], k++) ASSERT_EQ(dst[i + k], s);
  hz_check_ub = 1;
  hz_threads = PAR_THREADS;
  char msg[512];
  int r = hz_run(bench_kernels_ptx, "scanExclusiveShared", &sl, &sp, msg, sizeof msg, NULL);
  hz_threads = 1;
  hz_check_ub = 0;
  ASSERT_EQ(r, 0);
  if (hz_ub_reports) FT_FAIL_("%llu UB reports: %s", (unsigned long long)hz_ub_reports, hz_ub_log);
  free(a), free(b), free(c), free(src), free(dst);
  return TEST_OK;
}

/* Blocks first..63 in steps of `step` store to an address no buffer holds; the
 * launch reports block `first`, on one thread and on several, every time. */
TEST_IMPL(parallel_fault_lowest_block) {
  const char *ptx =
      HDR ".visible .entry k(.param .u64 out, .param .u32 first, .param .u32 step)\n{\n"
      ".reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n"
      "ld.param.u64 %rd0, [out];\nld.param.u32 %r1, [first];\nld.param.u32 %r2, [step];\n"
      "mov.u32 %r0, %ctaid.x;\nmov.u32 %r5, %tid.x;\n"
      /* work first, more in lower-numbered blocks: a higher-numbered block running
       * beside one of them faults first in time */
      "mov.u32 %r6, 0;\nmov.u32 %r7, 64;\nsub.u32 %r7, %r7, %r0;\nmul.lo.u32 %r7, %r7, 40;\n"
      "LOOP:\nadd.u32 %r6, %r6, 1;\nsetp.lt.u32 %p0, %r6, %r7;\n@%p0 bra LOOP;\n"
      "setp.lt.u32 %p0, %r0, %r1;\n@%p0 bra OK;\n"
      "sub.u32 %r3, %r0, %r1;\nrem.u32 %r4, %r3, %r2;\nsetp.ne.u32 %p0, %r4, 0;\n@%p0 bra OK;\n"
      "mov.u64 %rd1, 8;\nst.global.u32 [%rd1], %r5;\n"
      "OK:\nmul.wide.u32 %rd2, %r0, 4;\nadd.s64 %rd3, %rd0, %rd2;\nst.global.u32 [%rd3], %r5;\nret;\n}\n";
  uint32_t out[64];
  static const struct { uint32_t first, step; } cases[] = {{3, 5}, {40, 1}, {63, 1}, {0, 7}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (unsigned rep = 0; rep < 6; rep++) {
      hz_clear_buffers();
      hz_add_buffer(out, sizeof out);
      struct __attribute__((packed)) { uint64_t out; uint32_t first, step; } p = {(uintptr_t)out, cases[c].first, cases[c].step};
      hz_launch_t l = {{64, 1, 1}, {64, 1, 1}, 0};
      char msg[512], want[32];
      hz_threads = rep ? PAR_THREADS : 1;
      int r = hz_run(ptx, "k", &l, &p, msg, sizeof msg, NULL);
      hz_threads = 1;
      ASSERT_EQ(r, 700);
      snprintf(want, sizeof want, "block (%u,0,0), thread (0,0,0)", cases[c].first);
      if (!strstr(msg, want)) FT_FAIL_("first %u step %u, rep %u: %s", cases[c].first, cases[c].step, rep, msg);
    }
  return TEST_OK;
}
