/* interp_bench.c: speed of the PTX interpreter in thread-instructions per second on
 * one host core (an integer/float arithmetic loop kernel, 64 blocks of 256 threads),
 * against a plain C loop doing the same arithmetic in the same run; then the same
 * grid with its blocks on every core (as the driver's pool runs them), against the
 * one-core run; then NVIDIA's matrixMul and scan kernels (bench_kernels.cu, as nvcc
 * compiles them), each beside its baseline, the reference interpreter (no register
 * reuse, no AVX2 executors, ld/st lane by lane), results checked against the host. Arguments pick
 * parts: loop, matrixMul, scan (default: all); --once [--plain]: one run each. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_kernels.h"
#include "harness.h"
#include "lower.h"

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

/* --once: one run of each kernel on one thread, lowered by default or (--plain)
 * for the reference interpreter (for valgrind --tool=callgrind). */
static bool once, once_plain, once_jit;

/* One kernel of bench_kernels.h, alternating: the reference interpreter (no
 * register reuse, no AVX2 executors, ld/st lane by lane: the baseline) on one host thread, the default
 * lowering on one thread and on `nthreads`; best of `reps` each (the machine may
 * be shared); every run's output checked against the host's. */
static int bench_pair(const char *what, const char *kernel, const hz_launch_t *l, const void *params, void *out,
                      const void *ref, size_t out_bytes, unsigned nthreads, int reps) {
  enum { PLAIN, ONE, ALL, JIT_ONE, JIT_ALL, N_RUNS };
  double best[N_RUNS], cpu[N_RUNS];
  for (int k = 0; k < N_RUNS; k++) best[k] = cpu[k] = 1e30;
  uint64_t insns = 0;
  char msg[512];
  for (int rep = 0; rep < (once ? 1 : reps); rep++)
    for (int k = 0; k < N_RUNS; k++) {
      if (once && k != (once_plain ? PLAIN : once_jit ? JIT_ONE : ONE)) continue;
      hz_threads = k == ALL || k == JIT_ALL ? nthreads : 1;
      sim_interp_plain = k == PLAIN;
      sim_jit_config.mode = k >= JIT_ONE ? 2 : 0;
      memset(out, 0, out_bytes);
      uint64_t x, failed0, failed;
      sim_jit_stats(&x, &x, &failed0);
      int r = hz_run(bench_kernels_ptx, kernel, l, params, msg, sizeof msg, &insns);
      sim_jit_stats(&x, &x, &failed);
      sim_interp_plain = false;
      sim_jit_config.mode = 0;
      if (failed != failed0) {
        fprintf(stderr, "interp_bench: %s: the translation failed (see the .log in the cache directory)\n", kernel);
        return 1;
      }
      if (r || memcmp(out, ref, out_bytes) != 0) {
        fprintf(stderr, "interp_bench: %s on %u threads: %s\n", kernel, hz_threads, r ? msg : "wrong results");
        return 1;
      }
      if (hz_run_seconds < best[k]) best[k] = hz_run_seconds;
      if (hz_run_cpu_seconds < cpu[k]) cpu[k] = hz_run_cpu_seconds;
    }
  hz_threads = 1;
  printf("interp_bench: %s: %.1f M thread-instructions (best of %d each)\n", what, insns / 1e6, once ? 1 : reps);
  static const char *name[N_RUNS] = {"reference interpreter, one thread", "default, one thread", "default",
                                     "translated (jit.c), one thread", "translated"};
  for (int k = 0; k < N_RUNS; k++) {
    if (best[k] == 1e30) continue;
    printf("interp_bench:   %s", name[k]);
    if (k == ALL || k == JIT_ALL) printf(", %u threads", nthreads);
    printf(" %.3f s: %.1f M thread-instr/s (%.1f M per CPU-second)", best[k], insns / best[k] / 1e6,
           insns / cpu[k] / 1e6);
    if ((k == ONE || k == JIT_ONE) && best[PLAIN] < 1e30)
      printf("; %.2fx the reference (per CPU-second %.2fx)", best[PLAIN] / best[k], cpu[PLAIN] / cpu[k]);
    if (k == JIT_ONE && best[ONE] < 1e30)
      printf("; %.2fx the default (per CPU-second %.2fx)", best[ONE] / best[k], cpu[ONE] / cpu[k]);
    if (k == ALL) printf("; speed-up over one thread %.2fx", best[ONE] / best[ALL]);
    if (k == JIT_ALL) printf("; speed-up over one thread %.2fx", best[JIT_ONE] / best[JIT_ALL]);
    printf("\n");
  }
  return 0;
}

/* matrixMul as the sample runs it: A 320x320, B 640x320, blocks of 32x32. */
static int bench_matmul(unsigned nthreads) {
  enum { WA = 320, HA = 320, WB = 640 };
  float *a = malloc(sizeof(float) * WA * HA), *b = malloc(sizeof(float) * WB * WA);
  float *c = malloc(sizeof(float) * WB * HA), *ref = malloc(sizeof(float) * WB * HA);
  if (!a || !b || !c || !ref) return 1;
  uint32_t x = 12345;
  for (size_t i = 0; i < (size_t)WA * HA; i++) a[i] = (float)((x = x * 1664525u + 1013904223u) >> 8) / 16777216.0f;
  for (size_t i = 0; i < (size_t)WB * WA; i++) b[i] = (float)((x = x * 1664525u + 1013904223u) >> 8) / 16777216.0f;
  /* The kernel's own order: one fma per k, k ascending. */
  for (size_t i = 0; i < HA; i++)
    for (size_t j = 0; j < WB; j++) {
      float acc = 0;
      for (size_t k = 0; k < WA; k++) acc = fmaf(a[i * WA + k], b[k * WB + j], acc);
      ref[i * WB + j] = acc;
    }
  hz_clear_buffers();
  hz_add_buffer(a, sizeof(float) * WA * HA);
  hz_add_buffer(b, sizeof(float) * WB * WA);
  hz_add_buffer(c, sizeof(float) * WB * HA);
  struct __attribute__((packed)) { uint64_t c, a, b; int32_t wa, wb; } params = {
      (uintptr_t)c, (uintptr_t)a, (uintptr_t)b, WA, WB};
  hz_launch_t l = {{WB / 32, HA / 32, 1}, {32, 32, 1}, 0};
  int r = bench_pair("matrixMul 320x320 by 640x320 (200 blocks of 1024)", "matrixMul", &l, &params, c, ref,
                     sizeof(float) * WB * HA, nthreads, 3);
  free(a), free(b), free(c), free(ref);
  return r;
}

/* scan's scanExclusiveShared: 4096 blocks of 256 threads, 1024 elements each. */
static int bench_scan(unsigned nthreads) {
  enum { BLOCKS = 4096, CHUNK = 1024, N = BLOCKS * CHUNK };
  uint32_t *src = malloc(4u * N), *dst = malloc(4u * N), *ref = malloc(4u * N);
  if (!src || !dst || !ref) return 1;
  uint32_t x = 777;
  for (size_t i = 0; i < N; i++) src[i] = (x = x * 1664525u + 1013904223u) >> 12;
  for (size_t i = 0; i < N; i += CHUNK)
    for (uint32_t s = 0, k = 0; k < CHUNK; s += src[i + k], k++) ref[i + k] = s;
  hz_clear_buffers();
  hz_add_buffer(src, 4u * N);
  hz_add_buffer(dst, 4u * N);
  struct __attribute__((packed)) { uint64_t dst, src; uint32_t size; } params = {(uintptr_t)dst, (uintptr_t)src, CHUNK};
  hz_launch_t l = {{BLOCKS, 1, 1}, {256, 1, 1}, 0};
  int r = bench_pair("scan exclusive, 4M elements (4096 blocks of 256)", "scanExclusiveShared", &l, &params, dst,
                     ref, 4u * N, nthreads, 3);
  free(src), free(dst), free(ref);
  return r;
}

static bool wanted(int argc, char **argv, const char *part) {
  if (argc < 2) return true;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], part)) return true;
  return false;
}

static int bench_loop(void);

static int usage(void) {
  fprintf(stderr, "usage: interp_bench [--once [--plain|--jit]] [loop] [matrixMul] [scan]\n");
  return 2;
}

int main(int argc, char **argv) {
  hz_compare_plain = 0; /* timed runs: one lowering each (bench_pair picks) */
  for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
    if (!strcmp(argv[1], "--plain")) once_plain = true;
    else if (!strcmp(argv[1], "--jit")) once_jit = true;
    else if (strcmp(argv[1], "--once")) return usage();
    once = true;
  }
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "loop") && strcmp(argv[i], "matrixMul") && strcmp(argv[i], "scan")) return usage();
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned nthreads = ncpu < 1 ? 1 : (unsigned)ncpu;
  if (wanted(argc, argv, "loop") && bench_loop()) return 1;
  if (wanted(argc, argv, "matrixMul") && bench_matmul(nthreads)) return 1;
  if (wanted(argc, argv, "scan") && bench_scan(nthreads)) return 1;
  return 0;
}

static int bench_loop(void) {
  enum { BLOCKS = 64, THREADS = 256, N = BLOCKS * THREADS };
  uint32_t iters = 1000;
  uint32_t *out = calloc(N, 4), *ref = calloc(N, 4);
  if (!out || !ref) return 1;
  hz_clear_buffers();
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
