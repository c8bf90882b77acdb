/* test_flow.c: the warp machinery: divergence and reconvergence, loops with
 * per-lane trip counts, shfl in every mode with its predicate, votes under
 * divergence, bar.red, calls, and faults (out of bounds, misaligned, an
 * unsupported instruction) reported as errors naming the kernel and thread. */
#include "harness.h"
#include "runner.h"

#define HDR ".version 7.5\n.target sm_75\n.address_size 64\n"

static int run1(const char *ptx, unsigned blocks, unsigned threads, void *out, size_t n, char *msg) {
  hz_clear_buffers();
  hz_add_buffer(out, n);
  uint64_t p = (uintptr_t)out;
  hz_launch_t l = {{blocks, 1, 1}, {threads, 1, 1}, 0};
  return hz_run(ptx, "k", &l, &p, msg, 512, NULL);
}

/* Lane l loops l times, then the warp reconverges and shuffles (needs every lane). */
TEST_IMPL(divergence_and_shfl) {
  const char *ptx = HDR
      ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n"
      "ld.param.u64 %rd0, [out];\nmov.u32 %r0, %tid.x;\nmov.u32 %r1, 0;\nmov.u32 %r2, 0;\n"
      "setp.eq.u32 %p0, %r0, 0;\n@%p0 bra JOIN;\n"
      "LOOP:\nadd.u32 %r1, %r1, %r0;\nadd.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, %r0;\n@%p1 bra LOOP;\n"
      "JOIN:\n"
      /* r1 = l*l; up/down/bfly/idx shuffles and their predicates */
      "shfl.sync.up.b32 %r3|%p2, %r1, 3, 0, -1;\n"
      "selp.u32 %r4, 1, 0, %p2;\n"
      "shfl.sync.down.b32 %r5, %r1, 5, 31, -1;\n"
      "shfl.sync.bfly.b32 %r6, %r1, 9, 31, -1;\n"
      "shfl.sync.idx.b32 %r7, %r1, 7, 0x181f, -1;\n" /* segments of 8 lanes: lane (l&~7)|7 */
      "mul.wide.u32 %rd1, %r0, 32;\nadd.s64 %rd2, %rd0, %rd1;\n"
      "st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};\nst.global.u32 [%rd2+16], %r7;\nret;\n}\n";
  uint32_t out[32 * 8] __attribute__((aligned(16)));
  memset(out, 0, sizeof out);
  char msg[512];
  int r = run1(ptx, 1, 32, out, sizeof out, msg);
  if (r) FT_FAIL_("launch: %d %s", r, msg);
  for (unsigned l = 0; l < 32; l++) {
    uint32_t v = l * l;
    uint32_t up = l >= 3 ? (l - 3) * (l - 3) : v, down = l + 5 <= 31 ? (l + 5) * (l + 5) : v;
    uint32_t b = l ^ 9, idx = (l & ~7u) | 7;
    ASSERT_EQ(out[l * 8 + 0], up);
    ASSERT_EQ(out[l * 8 + 1], l >= 3 ? 1u : 0u);
    ASSERT_EQ(out[l * 8 + 2], down);
    ASSERT_EQ(out[l * 8 + 3], b * b);
    ASSERT_EQ(out[l * 8 + 4], idx * idx);
  }
  return TEST_OK;
}

/* Votes inside a branch see only the lanes that took it; bar.red counts the block. */
TEST_IMPL(votes_and_bar_red) {
  const char *ptx = HDR
      ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n.reg .pred %p<6>;\n"
      "ld.param.u64 %rd0, [out];\nmov.u32 %r0, %tid.x;\nmov.u32 %r8, 0;\nmov.u32 %r9, 0;\n"
      "and.b32 %r1, %r0, 1;\nsetp.eq.u32 %p0, %r1, 1;\n@!%p0 bra SKIP;\n"
      "and.b32 %r2, %r0, 4;\nsetp.ne.u32 %p1, %r2, 0;\nvote.sync.ballot.b32 %r8, %p1, 0xaaaaaaaa;\n"
      "activemask.b32 %r9;\n"
      "SKIP:\n"
      "setp.lt.u32 %p2, %r0, 50;\nbar.red.popc.u32 %r3, 0, %p2;\n"
      "bar.red.and.pred %p3, 0, %p2;\nselp.u32 %r4, 1, 0, %p3;\n"
      "bar.red.or.pred %p4, 0, %p2;\nselp.u32 %r5, 1, 0, %p4;\n"
      "vote.sync.all.pred %p5, %p2, -1;\nselp.u32 %r6, 1, 0, %p5;\n"
      "mul.wide.u32 %rd1, %r0, 32;\nadd.s64 %rd2, %rd0, %rd1;\n"
      "st.global.v2.u32 [%rd2], {%r8, %r9};\nst.global.v4.u32 [%rd2+16], {%r3, %r4, %r5, %r6};\nret;\n}\n";
  enum { T = 96 };
  uint32_t out[T * 8] __attribute__((aligned(16)));
  memset(out, 0, sizeof out);
  char msg[512];
  int r = run1(ptx, 1, T, out, sizeof out, msg);
  if (r) FT_FAIL_("launch: %d %s", r, msg);
  for (unsigned t = 0; t < T; t++) {
    uint32_t odd = 0xaaaaaaaau, ballot = 0;
    for (unsigned l = 0; l < 32; l++)
      if ((l & 1) && (l & 4)) ballot |= 1u << l;
    ASSERT_EQ(out[t * 8 + 0], (t & 1) ? ballot : 0u);
    ASSERT_EQ(out[t * 8 + 1], (t & 1) ? odd : 0u);
    ASSERT_EQ(out[t * 8 + 4], 50u);
    ASSERT_EQ(out[t * 8 + 5], 0u);
    ASSERT_EQ(out[t * 8 + 6], 1u);
    ASSERT_EQ(out[t * 8 + 7], t < 32 ? 1u : 0u);
  }
  return TEST_OK;
}

/* A .func called with parameters and a return value, from divergent lanes. */
TEST_IMPL(calls) {
  const char *ptx = HDR
      ".func (.param .b32 ret) twice(.param .b32 x, .param .b32 y)\n{\n.reg .b32 %r<4>;\n"
      "ld.param.b32 %r0, [x];\nld.param.b32 %r1, [y];\nshl.b32 %r2, %r0, 1;\nadd.s32 %r2, %r2, %r1;\n"
      "st.param.b32 [ret], %r2;\nret;\n}\n"
      ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<6>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n"
      "ld.param.u64 %rd0, [out];\nmov.u32 %r0, %tid.x;\nmov.u32 %r3, 7;\nsetp.lt.u32 %p0, %r0, 5;\n@%p0 bra END;\n"
      "{\n.param .b32 a0;\n.param .b32 a1;\n.param .b32 rv;\nst.param.b32 [a0], %r0;\nst.param.b32 [a1], 100;\n"
      "call.uni (rv), twice, (a0, a1);\nld.param.b32 %r3, [rv];\n}\n"
      "END:\nmul.wide.u32 %rd1, %r0, 4;\nadd.s64 %rd2, %rd0, %rd1;\nst.global.u32 [%rd2], %r3;\nret;\n}\n";
  uint32_t out[64];
  char msg[512];
  int r = run1(ptx, 1, 64, out, sizeof out, msg);
  if (r) FT_FAIL_("launch: %d %s", r, msg);
  for (unsigned t = 0; t < 64; t++) ASSERT_EQ(out[t], t < 5 ? 7u : 2 * t + 100);
  return TEST_OK;
}

static const char *store_at(const char *off, const char *type) {
  static char ptx[1024];
  snprintf(ptx, sizeof ptx,
           HDR ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %%r<4>;\n.reg .b64 %%rd<4>;\n"
               "ld.param.u64 %%rd0, [out];\nmov.u32 %%r0, %%tid.x;\nmul.wide.u32 %%rd1, %%r0, 4;\n"
               "add.s64 %%rd2, %%rd0, %%rd1;\nst.global.%s [%%rd2+%s], %%r0;\nret;\n}\n",
           type, off);
  return ptx;
}

/* Faults are launch errors naming kernel, block, thread and address; nothing is
 * written outside the buffer (its guard words stay intact). */
TEST_IMPL(faults) {
  uint32_t buf[40];
  char msg[512];
  for (unsigned i = 0; i < 40; i++) buf[i] = 0xdeadbeefu;
  hz_clear_buffers();
  hz_add_buffer(buf + 4, 32 * 4);
  uint64_t p = (uintptr_t)(buf + 4);
  hz_launch_t l = {{2, 1, 1}, {32, 1, 1}, 0};
  int r = hz_run(store_at("4", "u32"), "k", &l, &p, msg, sizeof msg, NULL);
  ASSERT_EQ(r, 700); /* CUDA_ERROR_ILLEGAL_ADDRESS */
  ASSERT(strstr(msg, "kernel k") && strstr(msg, "thread (31,0,0)") && strstr(msg, "illegal"));
  for (unsigned i = 36; i < 40; i++) ASSERT_EQ(buf[i], 0xdeadbeefu);
  r = hz_run(store_at("2", "u32"), "k", &l, &p, msg, sizeof msg, NULL);
  ASSERT_EQ(r, 716); /* CUDA_ERROR_MISALIGNED_ADDRESS */
  ASSERT(strstr(msg, "misaligned"));
  /* An instruction form the interpreter lacks is refused by name. */
  const char *ptx = HDR ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n"
                        "bar.arrive 1, 64;\nret;\n}\n";
  r = hz_run(ptx, "k", &l, &p, msg, sizeof msg, NULL);
  if (r != -2 || !strstr(msg, "bar.arrive")) FT_FAIL_("%d: %s", r, msg);
  return TEST_OK;
}

/* Every instruction form the parser reads only for the analysis (matrix,
 * texture, bulk-copy, barrier, video, fp8 and packed conversions, wide
 * vectors, special registers it cannot supply) is refused when the kernel is
 * lowered, naming the instruction: parsed (not -1), never run (-2). */
TEST_IMPL(library_forms_refused) {
  static const struct { const char *body, *name; } cases[] = {
    {"bmsk.clamp.b32 %r0, %r1, %r2;", "bmsk"},
    {"szext.wrap.s32 %r0, %r1, %r2;", "szext"},
    {"dp2a.lo.u32.u32 %r0, %r1, %r2, %r3;", "dp2a"},
    {"vshr.u32.u32.u32.clamp.add %r0, %r1, %r2, %r3;", "vshr"},
    {"vadd.u32.u32.u32.sat %r0, %r1.b0, %r2.h1;", "vadd"},
    {"cvt.rn.satfinite.e4m3x2.f32 %h0, %f0, %f1;", "e4m3x2"},
    {"cvt.pack.sat.s8.s32.b32 %r0, %r1, %r2, %r3;", "pack"},
    {"cvt.rn.relu.satfinite.f16x2.f32 %r0, %f0, %f1;", "satfinite"},
    {"ld.global.v8.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd0];", "v8"},
    {"st.global.v8.f32 [%rd0], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};", "v8"},
    /* matrix forms matrix.c does not run (it runs the common ones: gemm_mma sample) */
    {"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r0, %r1}, [%rd0];", "ldmatrix"},
    {"stmatrix.sync.aligned.m8n8.x2.shared.b16 [%rd0], {%r0, %r1};", "stmatrix"},
    {"mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1}, "
     "{%r2, %r3}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};", "mma.m8n8k4.f32.f16.f16.f32"},
    {"mma.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, "
     "{%r0, %r1}, {%f0, %f1, %f2, %f3};", "mma.m16n8k16"},
    {"cp.async.ca.shared.global [%rd0], [%rd1], 2;", "cp.async"},
    {"wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1}, [%rd0], 16;", "wmma.load"},
    {"griddepcontrol.wait;", "griddepcontrol"},
    {"mbarrier.init.shared.b64 [%rd0], 1;", "mbarrier"},
    {"fence.proxy.async.shared::cta;", "fence.proxy"},
    {"cp.async.bulk.commit_group;", "cp.async.bulk.commit_group"},
    {"multimem.red.relaxed.sys.global.add.u32 [%rd0], %r0;", "multimem.red"},
    /* texture and surface forms texture.c, texquery.c and surface.c do not run
     * (cubemaps, levels, layered gathers and their offsets and depth compares,
     * formatted stores and reductions, reductions the PTX ISA does not list, queries
     * of mipmaps, samples, samplers, or ones the instruction does not have) */
    {"tex.cube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5, %f6, %f7}];", "tex"},
    {"tex.level.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5}], %f6;", "tex"},
    {"tld4.r.a2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%r0, %f4, %f5, %f6}];", "tld4"},
    {"tld4.r.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5}], %f6;", "tld4"},
    {"tld4.r.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5}], {%r0, %r1};", "tld4"},
    {"tld4.r.2d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd0, {%r0, %r1}];", "tld4"},
    {"sust.p.2d.v4.b32.trap [%rd0, {%r1, %r2}], {%r0, %r1, %r2, %r3};", "sust"},
    {"sured.p.add.2d.b32.trap [%rd0, {%r1, %r2}], %r3;", "sured"},
    {"sured.b.add.2d.s64.trap [%rd0, {%r1, %r2}], %rd1;", "sured"},
    {"sured.b.and.1d.u32.trap [%rd0, {%r1}], %r3;", "sured"},
    {"sured.b.xor.1d.b32.trap [%rd0, {%r1}], %r3;", "sured"},
    {"sured.b.add.a1d.u32.trap [%rd0, {%r1, %r2}], %r3;", "sured"},
    {"txq.num_mipmap_levels.b32 %r0, [%rd0];", "txq.num_mipmap_levels"},
    {"txq.num_samples.b32 %r0, [%rd0];", "txq.num_samples"},
    {"txq.level.width.b32 %r0, [%rd0], %r1;", "txq.level.width"},
    {"txq.memory_layout.b32 %r0, [%rd0];", "txq.memory_layout"},
    {"suq.filter_mode.b32 %r0, [%rd0];", "suq.filter_mode"},
    {"mov.u32 %r0, %reserved_smem_offset_begin;", "reserved_smem_offset_begin"},
    {"brx.idx %r0, $ts;", "brx.idx"},
  };
  uint32_t buf[4];
  char msg[512];
  hz_launch_t l = {{1, 1, 1}, {32, 1, 1}, 0};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char ptx[1024];
    snprintf(ptx, sizeof ptx,
             ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
             ".reg .b32 %%r<4>;\n.reg .f32 %%f<8>;\n.reg .f64 %%fd<4>;\n.reg .b64 %%rd<2>;\n.reg .b16 %%h<2>;\n"
             "$L0:\n$ts: .branchtargets $L0;\n%s\nret;\n}\n", cases[i].body);
    hz_clear_buffers();
    hz_add_buffer(buf, sizeof buf);
    uint64_t p = (uintptr_t)buf;
    int r = hz_run(ptx, "k", &l, &p, msg, sizeof msg, NULL);
    if (r != -2 || !strstr(msg, cases[i].name)) FT_FAIL_("case %zu (%s): %d '%s'", i, cases[i].name, r, msg);
  }
  return TEST_OK;
}

/* %envreg<N>: registers a driver sets before a launch; the simulator's driver sets
 * none, so every one reads 0 (a kernel using one as a pointer faults). */
TEST_IMPL(envreg_reads_zero) {
  const char *ptx = HDR
      ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
      "ld.param.u64 %rd0, [out];\nmov.u32 %r0, %tid.x;\nmov.u32 %r1, %envreg1;\nmov.u32 %r2, %envreg31;\n"
      "add.u32 %r3, %r1, %r2;\nadd.u32 %r3, %r3, %r0;\n"
      "mul.wide.u32 %rd1, %r0, 4;\nadd.s64 %rd2, %rd0, %rd1;\nst.global.u32 [%rd2], %r3;\nret;\n}\n";
  uint32_t out[32];
  memset(out, 0xff, sizeof out);
  char msg[512];
  int r = run1(ptx, 1, 32, out, sizeof out, msg);
  if (r) FT_FAIL_("launch: %d %s", r, msg);
  for (unsigned l = 0; l < 32; l++) ASSERT_EQ(out[l], l);
  return TEST_OK;
}

/* cp.async lands when the wait covering its group runs: before it the destination
 * still holds what was there (docs/simulator.md), after wait_group 1 only the
 * older group has landed, after wait_all both. */
TEST_IMPL(cp_async_lands_at_wait) {
  const char *ptx = ".version 7.5\n.target sm_80\n.address_size 64\n"
      ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n"
      ".shared .align 16 .b8 s[32];\n"
      "ld.param.u64 %rd0, [out];\nmov.u32 %r0, %tid.x;\nmov.u32 %r1, s;\nmov.u32 %r2, 7;\n"
      "st.shared.u32 [%r1], %r2;\nst.shared.u32 [%r1+16], %r2;\n"
      "cp.async.ca.shared.global [%r1], [%rd0], 4;\ncp.async.commit_group;\n"
      "cp.async.ca.shared.global [%r1+16], [%rd0+4], 4;\ncp.async.commit_group;\n"
      "ld.shared.u32 %r3, [%r1];\n"                       /* before any wait: 7 */
      "cp.async.wait_group 1;\nld.shared.u32 %r4, [%r1];\nld.shared.u32 %r5, [%r1+16];\n" /* 100, 7 */
      "cp.async.wait_all;\nld.shared.u32 %r6, [%r1+16];\n" /* 200 */
      "st.global.v4.u32 [%rd0+16], {%r3, %r4, %r5, %r6};\nret;\n}\n";
  uint32_t buf[8] __attribute__((aligned(16))) = {100, 200, 0, 0, 0, 0, 0, 0};
  char msg[512];
  int r = run1(ptx, 1, 1, buf, sizeof buf, msg);
  if (r) FT_FAIL_("launch: %d %s", r, msg);
  ASSERT_EQ(buf[4], 7u);
  ASSERT_EQ(buf[5], 100u);
  ASSERT_EQ(buf[6], 7u);
  ASSERT_EQ(buf[7], 200u);
  return TEST_OK;
}

/* A warp waiting for another warp of its block, as libcu++'s cuda::barrier waits
 * before sm_80: warp 1 stores a value, then releases a flag in shared memory; warp 0
 * polls the flag with acquire loads, then reads the value. A GPU runs the two warps
 * side by side; the simulator runs one warp at a time, so the waiting warp gives way
 * at a nanosleep and after a long run without a barrier (before, it spun forever:
 * NVIDIA's simpleAWBarrier never ended). The release/acquire pair orders the value's
 * store before its load: the UB check (on, failing the launch) reports no race. */
TEST_IMPL(warp_waiting_for_another_gives_way) {
  for (int sleep = 0; sleep < 2; sleep++) {
    char ptx[2048];
    snprintf(ptx, sizeof ptx,
             HDR ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %%r<8>;\n.reg .b64 %%rd<4>;\n.reg .pred %%p<4>;\n"
                 ".shared .align 4 .u32 flag;\n.shared .align 4 .u32 data;\n"
                 "ld.param.u64 %%rd0, [out];\nmov.u32 %%r0, %%tid.x;\nmov.u32 %%r5, flag;\nmov.u32 %%r6, data;\n"
                 "setp.eq.u32 %%p0, %%r0, 0;\n@%%p0 atom.shared.exch.b32 %%r1, [%%r5], 0;\nbar.sync 0;\n"
                 "setp.lt.u32 %%p1, %%r0, 32;\n@!%%p1 bra SETTER;\n"
                 "WAIT:\n%sld.acquire.cta.shared.u32 %%r2, [%%r5];\nsetp.eq.u32 %%p2, %%r2, 0;\n@%%p2 bra WAIT;\n"
                 "ld.shared.u32 %%r2, [%%r6];\nbra.uni DONE;\n"
                 "SETTER:\nsetp.eq.u32 %%p3, %%r0, 32;\n@%%p3 st.shared.u32 [%%r6], 7;\n"
                 "@%%p3 atom.release.cta.shared.exch.b32 %%r1, [%%r5], 1;\nmov.u32 %%r2, 7;\n"
                 "DONE:\nmul.wide.u32 %%rd1, %%r0, 4;\nadd.s64 %%rd2, %%rd0, %%rd1;\nst.global.u32 [%%rd2], %%r2;\nret;\n}\n",
             sleep ? "nanosleep.u32 100;\n" : "");
    uint32_t out[64];
    char msg[512];
    hz_check_ub = 2;
    int r = run1(ptx, 1, 64, out, sizeof out, msg);
    hz_check_ub = 0;
    if (r) FT_FAIL_("%s: %d %s", sleep ? "nanosleep" : "spin", r, msg);
    for (int t = 0; t < 64; t++) ASSERT_EQ(out[t], 7u);
  }
  return TEST_OK;
}
