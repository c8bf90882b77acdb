/* interp_bench.c: speed of the PTX interpreter in thread-instructions per second on
 * one host core (an integer/float arithmetic loop kernel, 64 blocks of 256 threads),
 * against a plain C loop doing the same arithmetic in the same run; then the same
 * grid with its blocks on every core (as the driver's pool runs them), against the
 * one-core run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static const char *ptx =
    ".version 7.5\n.target sm_75\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 iters)\n{\n"
    ".reg .b32 %r<12>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n"
    "mov.u32 %r0, %tid.x;\nmov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmad.lo.s32 %r3, %r1, %r2, %r0;\n"
    "ld.param.u32 %r4, [iters];\nmov.u32 %r5, 0;\nmov.u32 %r6, %r3;\ncvt.rn.f32.u32 %f0, %r3;\n"
    "LOOP:\n"
    "mad.lo.s32 %r6, %r6, 1664525, 1013904223;\n"
    "shr.u32 %r7, %r6, 7;\n"
    "xor.b32 %r6, %r6, %r7;\n"
    "fma.rn.f32 %f0, %f0, 0f3F7FFFF0, 0f3DCCCCCD;\n"
    "add.s32 %r5, %r5, 1;\n"
    "setp.lt.u32 %p0, %r5, %r4;\n"
    "@%p0 bra LOOP;\n"
    "mov.b32 %r8, %f0;\nxor.b32 %r6, %r6, %r8;\n"
    "ld.param.u64 %rd0, [out];\nmul.wide.u32 %rd1, %r3, 4;\nadd.s64 %rd2, %rd0, %rd1;\nst.global.u32 [%rd2], %r6;\n"
    "ret;\n}\n";

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* The same arithmetic per thread in C: 7 instructions per iteration, as in the PTX. */
static __attribute__((noinline)) uint32_t c_thread(uint32_t id, uint32_t iters) {
  uint32_t x = id;
  float f = (float)id;
  for (volatile uint32_t i = 0; i < iters; i++) {
    x = x * 1664525u + 1013904223u;
    x ^= x >> 7;
    f = __builtin_fmaf(f, 0.99999905f, 0.1f);
  }
  uint32_t u;
  memcpy(&u, &f, 4);
  return x ^ u;
}

int main(void) {
  enum { BLOCKS = 64, THREADS = 256, N = BLOCKS * THREADS };
  uint32_t iters = 1000;
  uint32_t *out = calloc(N, 4), *ref = calloc(N, 4);
  if (!out || !ref) return 1;
  hz_add_buffer(out, N * 4);
  struct __attribute__((packed)) { uint64_t p; uint32_t iters; } params = {(uintptr_t)out, iters};
  hz_launch_t l = {{BLOCKS, 1, 1}, {THREADS, 1, 1}, 0};
  char msg[512];
  uint64_t insns = 0;
  double t0 = now();
  int r = hz_run(ptx, "k", &l, &params, msg, sizeof msg, &insns);
  double ti = now() - t0;
  if (r) {
    fprintf(stderr, "interp_bench: launch failed: %s\n", msg);
    return 1;
  }
  t0 = now();
  for (uint32_t i = 0; i < N; i++) ref[i] = c_thread(i, iters);
  double tc = now() - t0;
  for (uint32_t i = 0; i < N; i++)
    if (out[i] != ref[i]) {
      fprintf(stderr, "interp_bench: thread %u: %08x, C loop %08x\n", i, out[i], ref[i]);
      return 1;
    }
  double c_ops = (double)N * iters * 7; /* the same instruction count as the kernel's loop */
  printf("interp_bench: %llu thread-instructions in %.3f s: %.1f M thread-instr/s (one core)\n",
         (unsigned long long)insns, ti, insns / ti / 1e6);
  printf("interp_bench: baseline C loop, same arithmetic: %.1f M ops/s\n", c_ops / tc / 1e6);
  printf("interp_bench: interpreter / C loop = 1 / %.1f\n", (c_ops / tc) / (insns / ti));
  /* Blocks in parallel: same grid, same results, every core; one core and all
   * cores alternate, best of three each (the machine may be shared). */
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned nthreads = ncpu < 1 ? 1 : (unsigned)ncpu;
  double best1 = ti, bestp = 1e30, cpu1 = 1e30, cpup = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    for (int par = 0; par < 2; par++) {
      hz_threads = par ? nthreads : 1;
      memset(out, 0, N * 4);
      double c0 = cpu_now();
      t0 = now();
      r = hz_run(ptx, "k", &l, &params, msg, sizeof msg, &insns);
      double t = now() - t0, cpu = cpu_now() - c0;
      if (r || memcmp(out, ref, N * 4) != 0) {
        fprintf(stderr, "interp_bench: blocks on %u threads: %s\n", hz_threads, r ? msg : "other results");
        return 1;
      }
      if (par) bestp = t < bestp ? t : bestp, cpup = cpu < cpup ? cpu : cpup;
      else best1 = t < best1 ? t : best1, cpu1 = cpu < cpu1 ? cpu : cpu1;
    }
  }
  hz_threads = 1;
  printf("interp_bench: blocks on %u threads: %.3f s, %.1f M thread-instr/s; baseline one thread %.3f s "
         "(best of 3 each): speed-up %.2fx\n", nthreads, bestp, insns / bestp / 1e6, best1, best1 / bestp);
  /* On a shared machine the wall-clock speed-up is bounded by the cores other
   * work leaves free; the CPU time says whether running blocks in parallel costs
   * extra work (contention) or not. */
  printf("interp_bench: CPU time on %u threads %.3f s, on one %.3f s: parallel overhead %+.0f%%\n", nthreads, cpup,
         cpu1, (cpup / cpu1 - 1) * 100);
  free(out);
  free(ref);
  return 0;
}
