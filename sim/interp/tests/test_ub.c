/* test_ub.c: what the interpreter does where PTX leaves a result undefined, and
 * the undefined-behaviour check (hz_check_ub, SIMCUDA_CHECK_UB in the driver):
 * shfl reads of lanes outside the member mask give 0 (the reduction pattern of
 * NVIDIA's samples), member masks naming diverged lanes are refused, and partial
 * barriers, shared-memory races between warps, collectives with predicated-off
 * member lanes and aligned barriers after divergent recursion are reported by
 * kernel, PC and lanes; lanes in groups of their own at one collective get their
 * group's result. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "runner.h"

#define HDR ".version 7.5\n.target sm_75\n.address_size 64\n"
#define ENTRY ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n.reg .pred %p<8>;\n" \
              ".shared .align 4 .b8 sh[256];\n"                                                            \
              "ld.param.u64 %rd0, [out];\nmov.u32 %r0, %tid.x;\nmul.wide.u32 %rd1, %r0, 4;\nadd.s64 %rd2, %rd0, %rd1;\n"

static int run_ub(const char *ptx, unsigned threads, void *out, size_t n, char *msg, int check) {
  hz_clear_buffers();
  hz_add_buffer(out, n);
  uint64_t p = (uintptr_t)out;
  hz_launch_t l = {{1, 1, 1}, {threads, 1, 1}, 0};
  hz_check_ub = check;
  int r = hz_run(ptx, "k", &l, &p, msg, 512, NULL);
  hz_check_ub = 0;
  return r;
}

/* Lanes 0..7 (a ballot mask of 0xff) sum their values with shfl.down by 16, 8, 4,
 * 2, 1 as reduction kernel 7 does: reads beyond lane 7 give 0, so lane 0 holds
 * 1+2+...+8 = 36 (with the last values of those lanes it would not). */
TEST_IMPL(shfl_outside_mask_gives_zero) {
  const char *ptx = HDR ENTRY
      "add.u32 %r1, %r0, 1000;\n" /* every lane's register holds a value before the branch */
      "setp.lt.u32 %p0, %r0, 8;\nvote.sync.ballot.b32 %r2, %p0, -1;\n@!%p0 bra END;\n"
      "add.u32 %r1, %r0, 1;\n"
      "shfl.sync.down.b32 %r3, %r1, 16, 31, %r2;\nadd.u32 %r1, %r1, %r3;\n"
      "shfl.sync.down.b32 %r3, %r1, 8, 31, %r2;\nadd.u32 %r1, %r1, %r3;\n"
      "shfl.sync.down.b32 %r3, %r1, 4, 31, %r2;\nadd.u32 %r1, %r1, %r3;\n"
      "shfl.sync.down.b32 %r3, %r1, 2, 31, %r2;\nadd.u32 %r1, %r1, %r3;\n"
      "shfl.sync.down.b32 %r3, %r1, 1, 31, %r2;\nadd.u32 %r1, %r1, %r3;\n"
      "END:\nst.global.u32 [%rd2], %r1;\nret;\n}\n";
  uint32_t out[32];
  char msg[512];
  for (int check = 0; check <= 1; check++) {
    memset(out, 0, sizeof out);
    int r = run_ub(ptx, 32, out, sizeof out, msg, check);
    if (r) FT_FAIL_("launch: %d %s", r, msg);
    ASSERT_EQ(out[0], 36u);
    /* lane 7 read lanes 23, 15, 11, 9, 8: all outside its mask */
    ASSERT_EQ(out[7], 8u);
    ASSERT_EQ(out[8], 1008u);
    if (!check) {
      ASSERT_EQ(hz_ub_reports, 0u);
    } else {
      ASSERT(hz_ub_reports >= 5);
      if (!strstr(hz_ub_log, "undefined behaviour: kernel k, block (0,0,0), pc ") ||
          !strstr(hz_ub_log, "warp 0, lanes 0x000000ff: shfl.sync reads lanes that do not execute it"))
        FT_FAIL_("report: %s", hz_ub_log);
    }
  }
  /* The UB check's strict mode fails the launch. */
  int r = run_ub(ptx, 32, out, sizeof out, msg, 2);
  ASSERT_EQ(r, 719);
  ASSERT(strstr(msg, "shfl.sync reads lanes"));
  return TEST_OK;
}

/* A member mask naming lanes that diverged: a GPU waits for them; the simulator
 * refuses the launch, naming the lanes, instead of inventing their values. */
TEST_IMPL(mask_naming_diverged_lanes_refused) {
  static const char *ops[] = {
      "shfl.sync.bfly.b32 %r3, %r1, 16, 31, -1;\n",
      "vote.sync.ballot.b32 %r3, %p0, -1;\n",
      "match.any.sync.b32 %r3, %r1, -1;\n",
      "redux.sync.add.u32 %r3, %r1, -1;\n",
      "bar.warp.sync -1;\n",
  };
  for (unsigned i = 0; i < sizeof ops / sizeof *ops; i++) {
    char ptx[2048];
    snprintf(ptx, sizeof ptx, "%s%s%s%s", HDR ENTRY,
             "mov.u32 %r1, %r0;\nmov.u32 %r3, 0;\nsetp.lt.u32 %p0, %r0, 8;\n@!%p0 bra END;\n", ops[i],
             "END:\nst.global.u32 [%rd2], %r3;\nret;\n}\n");
    uint32_t out[32];
    char msg[512];
    int r = run_ub(ptx, 32, out, sizeof out, msg, 0);
    ASSERT_EQ(r, 801);
    if (!strstr(msg, "names lanes 0xffffff00 that diverged") || !strstr(msg, "lanes 0x000000ff"))
      FT_FAIL_("%s: %s", ops[i], msg);
  }
  return TEST_OK;
}

/* bar.sync that part of the block skips (predicated off) is reported; threads
 * that exited before it are not missing. */
TEST_IMPL(partial_barrier_reported) {
  const char *ptx_off = HDR ENTRY
      "setp.lt.u32 %p0, %r0, 40;\n@%p0 bar.sync 0;\nst.global.u32 [%rd2], %r0;\nret;\n}\n";
  const char *ptx_exit = HDR ENTRY
      "setp.ge.u32 %p0, %r0, 40;\n@%p0 exit;\nbar.sync 0;\nst.global.u32 [%rd2], %r0;\nret;\n}\n";
  uint32_t out[64];
  char msg[512];
  int r = run_ub(ptx_off, 64, out, sizeof out, msg, 1);
  if (r) FT_FAIL_("launch: %d %s", r, msg);
  ASSERT_EQ(hz_ub_reports, 1u);
  if (!strstr(hz_ub_log, "warp 1, lanes 0xffffff00: barrier reached by part of the block")) FT_FAIL_("%s", hz_ub_log);
  r = run_ub(ptx_exit, 64, out, sizeof out, msg, 1);
  if (r) FT_FAIL_("launch: %d %s", r, msg);
  ASSERT_EQ(hz_ub_reports, 0u);
  return TEST_OK;
}

/* Warp 1 reads (or overwrites) a shared word warp 0 stored, with no barrier
 * between: a race a GPU can expose. With a barrier, or with atomics, none. */
TEST_IMPL(shared_race_reported) {
  static const struct {
    const char *body;
    unsigned reports;
    const char *what;
  } cases[] = {
      {"setp.ne.u32 %p0, %r0, 0;\n@!%p0 st.shared.u32 [sh], 5;\nsetp.ne.u32 %p1, %r0, 32;\n"
       "@!%p1 ld.shared.u32 %r1, [sh];\n", 1, "warp 1, lanes 0x00000001: data race on shared memory: this load and an access by warp 0"},
      {"setp.ne.u32 %p0, %r0, 0;\n@!%p0 ld.shared.u32 %r1, [sh+4];\nsetp.ne.u32 %p1, %r0, 33;\n"
       "@!%p1 st.shared.u16 [sh+6], %r0;\n", 1, "warp 1, lanes 0x00000002: data race on shared memory: this store"},
      {"setp.ne.u32 %p0, %r0, 0;\n@!%p0 st.shared.u32 [sh], 5;\nbar.sync 0;\nsetp.ne.u32 %p1, %r0, 32;\n"
       "@!%p1 ld.shared.u32 %r1, [sh];\n", 0, NULL},
      {"atom.shared.add.u32 %r1, [sh+8], 1;\nbar.sync 0;\nld.shared.u32 %r1, [sh+8];\n", 0, NULL},
      /* both warps store the same words (warp 1 second): one report; each warp's
       * load of its own store is none */
      {"and.b32 %r2, %r0, 31;\nshl.b32 %r2, %r2, 2;\nst.shared.u32 [%r2], %r0;\nld.shared.u32 %r1, [%r2];\n", 1,
       "data race on shared memory: this store and an access by warp 0"},
  };
  for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
    char ptx[2048];
    snprintf(ptx, sizeof ptx, "%s%s%s%s", HDR ENTRY, "mov.u32 %r1, 0;\n", cases[i].body,
             "st.global.u32 [%rd2], %r1;\nret;\n}\n");
    uint32_t out[64];
    char msg[512];
    int r = run_ub(ptx, 64, out, sizeof out, msg, 1);
    if (r) FT_FAIL_("case %u: launch: %d %s", i, r, msg);
    if (hz_ub_reports != cases[i].reports || (cases[i].what && !strstr(hz_ub_log, cases[i].what)))
      FT_FAIL_("case %u: %ju reports (expected %u):\n%s", i, (uintmax_t)hz_ub_reports, cases[i].reports, hz_ub_log);
  }
  return TEST_OK;
}

/* Two half-warps at one collective, each naming its own half (cooperative groups'
 * tiled_partition<16> compiles its tile's ballot, sum and sync so): each lane's
 * result is its own group's, and no undefined behaviour is reported (it was, and
 * every lane got the lower half's result). Masks that name lanes holding another
 * mask are reported. Values: lane t votes t % 3 == 0 and adds t + 1. */
TEST_IMPL(collectives_per_member_group) {
  const char *ptx = HDR ENTRY
      "setp.lt.u32 %p1, %r0, 16;\nselp.b32 %r2, 65535, -65536, %p1;\n" /* 0x0000ffff or 0xffff0000 */
      "rem.u32 %r3, %r0, 3;\nsetp.eq.u32 %p0, %r3, 0;\n"
      "vote.sync.ballot.b32 %r4, %p0, %r2;\n"
      "add.u32 %r5, %r0, 1;\nredux.sync.add.u32 %r6, %r5, %r2;\n"
      "vote.sync.any.pred %p2, %p0, %r2;\nselp.b32 %r7, 1, 0, %p2;\n"
      "and.b32 %r8, %r0, 16;\nmatch.any.sync.b32 %r9, %r8, %r2;\n"
      "bar.warp.sync %r2;\n"
      "st.global.u32 [%rd2], %r4;\nst.global.u32 [%rd2+128], %r6;\nst.global.u32 [%rd2+256], %r7;\n"
      "st.global.u32 [%rd2+384], %r9;\nret;\n}\n";
  uint32_t out[128];
  char msg[512];
  uint32_t lo = 0, hi = 0;
  for (unsigned t = 0; t < 32; t++)
    if (t % 3 == 0) *(t < 16 ? &lo : &hi) |= 1u << t;
  for (int check = 0; check <= 1; check++) {
    memset(out, 0, sizeof out);
    int r = run_ub(ptx, 32, out, sizeof out, msg, check);
    if (r) FT_FAIL_("launch: %d %s", r, msg);
    for (unsigned t = 0; t < 32; t++) {
      ASSERT_EQ(out[t], t < 16 ? lo : hi);          /* ballot over the lane's half */
      ASSERT_EQ(out[32 + t], t < 16 ? 136u : 392u); /* 1+..+16, 17+..+32 */
      ASSERT_EQ(out[64 + t], 1u);
      ASSERT_EQ(out[96 + t], t < 16 ? 0x0000ffffu : 0xffff0000u);
    }
    ASSERT_EQ(hz_ub_reports, 0u);
  }
  /* lanes 0..15 name the whole warp while lanes 16..31 name their half: reported */
  const char *bad = HDR ENTRY
      "setp.lt.u32 %p1, %r0, 16;\nselp.b32 %r2, -1, -65536, %p1;\n"
      "bar.warp.sync %r2;\nst.global.u32 [%rd2], %r2;\nret;\n}\n";
  int r = run_ub(bad, 32, out, sizeof out, msg, 1);
  if (r) FT_FAIL_("launch: %d %s", r, msg);
  if (hz_ub_reports != 1 || !strstr(hz_ub_log, "lanes 0x0000ffff: bar.warp.sync: these lanes' member masks name lanes "
                                               "with another member mask"))
    FT_FAIL_("%ju reports:\n%s", (uintmax_t)hz_ub_reports, hz_ub_log);
  return TEST_OK;
}

/* A collective whose member mask names lanes that are predicated off. */
TEST_IMPL(collective_member_predicated_off_reported) {
  const char *ptx = HDR ENTRY
      "setp.lt.u32 %p0, %r0, 30;\n@%p0 vote.sync.ballot.b32 %r1, %p0, -1;\nst.global.u32 [%rd2], %r1;\nret;\n}\n";
  uint32_t out[32];
  char msg[512];
  int r = run_ub(ptx, 32, out, sizeof out, msg, 1);
  if (r) FT_FAIL_("launch: %d %s", r, msg);
  ASSERT_EQ(out[0], 0x3fffffffu);
  ASSERT_EQ(hz_ub_reports, 1u);
  if (!strstr(hz_ub_log, "lanes 0xc0000000: vote.sync: lanes of the member mask predicated off")) FT_FAIL_("%s", hz_ub_log);
  return TEST_OK;
}

/* A barrier or warp collective after lanes took different paths through a recursive
 * call (f recurses tid % 4 deep): an H200 let the early lanes through bar.sync,
 * through barrier.sync (ptxas compiles both to one instruction), through three
 * barriers in a row and through vote, and ptxas dropped the __syncwarp before them
 * (docs/gpu-results.md). Every one is reported, and the results stay the
 * reconverged ones. A recursion only lane 0 enters (the others wait at the join of
 * a branch, as for any branch) is not reported. */
TEST_IMPL(barrier_after_divergent_recursion_reported) {
  static const char *func =
      ".func (.param .b32 ret) f(.param .b32 n)\n{\n.reg .b32 %a<4>;\n.reg .pred %q;\n"
      "ld.param.b32 %a0, [n];\nsetp.lt.s32 %q, %a0, 1;\n@%q bra ZERO;\nsub.s32 %a1, %a0, 1;\n"
      "{\n.param .b32 pn;\n.param .b32 pr;\nst.param.b32 [pn], %a1;\ncall (pr), f, (pn);\nld.param.b32 %a2, [pr];\n}\n"
      "add.s32 %a3, %a2, 1;\nst.param.b32 [ret], %a3;\nret;\n"
      "ZERO:\nmov.b32 %a3, 0;\nst.param.b32 [ret], %a3;\nret;\n}\n";
  static const struct {
    const char *sync;
    unsigned reports;
  } cases[] = {{"bar.sync 0;\n", 1},
               {"bar.warp.sync -1;\nbar.sync 0;\n", 2},
               {"barrier.sync 0;\n", 1},
               {"bar.sync 0;\nbar.sync 0;\nbar.sync 0;\n", 3},
               {"setp.eq.u32 %p1, %r0, %r0;\nvote.sync.all.pred %p2, %p1, -1;\n", 1}};
  for (unsigned i = 0; i < sizeof cases / sizeof *cases + 1; i++) {
    /* the last: only lane 0 calls (f 3 deep, alone in the recursion), the others
     * wait at the join as at any branch: no divergence inside the recursion */
    int lone = i == sizeof cases / sizeof *cases;
    char ptx[4096];
    snprintf(ptx, sizeof ptx, "%s%s%s%s%s%s", HDR, func, ENTRY,
             lone ? "mov.u32 %r2, %r0;\nsetp.ne.u32 %p3, %r0, 0;\n@%p3 bra JOIN;\nmov.u32 %r1, 3;\n"
                    "{\n.param .b32 pn;\n.param .b32 pr;\nst.param.b32 [pn], %r1;\n"
                    "call (pr), f, (pn);\nld.param.b32 %r2, [pr];\n}\nJOIN:\n"
                  : "and.b32 %r1, %r0, 3;\n{\n.param .b32 pn;\n.param .b32 pr;\nst.param.b32 [pn], %r1;\n"
                    "call (pr), f, (pn);\nld.param.b32 %r2, [pr];\n}\n",
             lone ? "bar.sync 0;\n" : cases[i].sync, "st.global.u32 [%rd2], %r2;\nret;\n}\n");
    uint32_t out[32];
    char msg[512];
    int r = run_ub(ptx, 32, out, sizeof out, msg, 1);
    if (r) FT_FAIL_("case %u: launch: %d %s", i, r, msg);
    for (unsigned t = 0; t < 32; t++) ASSERT_EQ(out[t], lone ? (t ? t : 3) : t % 4);
    if (lone) {
      if (hz_ub_reports) FT_FAIL_("lone caller: %ju reports:\n%s", (uintmax_t)hz_ub_reports, hz_ub_log);
      continue;
    }
    if (hz_ub_reports != cases[i].reports ||
        !strstr(hz_ub_log, "lanes 0xffffffff: ") ||
        !strstr(hz_ub_log, "after lanes of this warp took different paths through a recursive call: a GPU does not "
                           "reconverge them"))
      FT_FAIL_("case %u: %ju reports (expected %u):\n%s", i, (uintmax_t)hz_ub_reports, cases[i].reports, hz_ub_log);
  }
  return TEST_OK;
}
