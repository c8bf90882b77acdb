/* hook_bench: what gpuft's interposition adds per driver call. Runs itself twice
 * in the same invocation, without and with LD_PRELOAD=libgpuft.so, and prints
 * nanoseconds per call for empty-kernel launches, small host-to-device copies
 * and stream queries, the baseline, the difference and the ratio.
 *   hook_bench [--iters N] [--reps R] [--lib path/libgpuft.so] [--json]
 * Runs on the simulator (LD_LIBRARY_PATH=build/sim) or a real GPU. */
#define _GNU_SOURCE
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rerun.h"
#include "twin_fill.h"

enum { OP_LAUNCH, OP_COPY, OP_QUERY, N_OPS };
static const char *const op_name[N_OPS] = {"launch (empty kernel)", "H2D copy (64 B)",
                                           "cuStreamQuery"};
static const char *const op_key[N_OPS] = {"launch", "copy64", "query"};

#define CK(x)                                                     \
  do {                                                            \
    CUresult r_ = (x);                                            \
    if (r_ != CUDA_SUCCESS) {                                     \
      fprintf(stderr, "hook_bench: %s failed: %d\n", #x, (int)r_); \
      exit(1);                                                    \
    }                                                             \
  } while (0)

/* Child: measure, print "key ns" lines. */
static int measure(long iters, int reps) {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fill, empty;
  CUstream s;
  CUdeviceptr d;
  char host[64] = {0};
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(tf_load2(&mod, &fill, &empty));
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CK(cuMemAlloc(&d, 4096));
  for (int op = 0; op < N_OPS; op++) {
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
      double t0 = bench_now();
      for (long i = 0; i < iters; i++) {
        if (op == OP_LAUNCH) {
          CK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
          if ((i & 63) == 63) CK(cuStreamSynchronize(s)); /* bounded queue */
        } else if (op == OP_COPY) {
          CK(cuMemcpyHtoD(d, host, sizeof host));
        } else {
          CUresult q = cuStreamQuery(s);
          if (q != CUDA_SUCCESS && q != CUDA_ERROR_NOT_READY) CK(q);
        }
      }
      CK(cuStreamSynchronize(s));
      double dt = (bench_now() - t0) / (double)iters;
      if (dt < best) best = dt;
    }
    printf("%s %.1f\n", op_key[op], best * 1e9);
  }
  CK(cuMemFree(d));
  CK(cuStreamDestroy(s));
  CK(cuModuleUnload(mod));
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "--child")) return measure(atol(argv[2]), atoi(argv[3]));
  bench_opts_t o = {20000, 5, 0, GPUFT_LIB};
  if (bench_opts(argc, argv, &o)) return 2;
  long iters = o.iters;
  int reps = o.reps, json = o.json;
  double base[N_OPS], with[N_OPS];
  /* best of 3 alternating rounds */
  if (bench_alternate(&o, 3, N_OPS, base, with)) return 1;
  if (json) {
    printf("{\"iters\": %ld, \"reps\": %d", iters, reps);
    for (int op = 0; op < N_OPS; op++)
      printf(", \"%s\": {\"baseline_ns\": %.1f, \"gpuft_ns\": %.1f, \"added_ns\": %.1f, "
             "\"ratio\": %.3f}",
             op_key[op], base[op], with[op], with[op] - base[op], with[op] / base[op]);
    printf("}\n");
  } else {
    printf("hook_bench: %ld calls per measurement, best of %d x 3 alternating rounds, ns per call\n\n", iters, reps);
    printf("%-24s %12s %12s %12s %8s\n", "", "without", "with gpuft", "added", "ratio");
    for (int op = 0; op < N_OPS; op++)
      printf("%-24s %12.1f %12.1f %12.1f %8.3f\n", op_name[op], base[op], with[op],
             with[op] - base[op], with[op] / base[op]);
  }
  return 0;
}
