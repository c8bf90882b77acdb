/* h2d_bench: host-to-device copy time with gpuft (copy+encode pipeline, codes
 * uploaded with the data) against the same copies without it, measured in the
 * same invocation (the program runs itself twice, with and without LD_PRELOAD).
 *   h2d_bench [--sizes MiB,MiB,...] [--reps N] [--lib libgpuft.so] [--json]
 * On the simulator the link is modelled by SIMCUDA_PCIE_GBPS (set to 25 unless
 * already set); on a real GPU it is the real link. */
#define _GNU_SOURCE
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rerun.h"

#define MAX_SIZES 16

#define CK(x)                                                   \
  do {                                                          \
    CUresult r_ = (x);                                          \
    if (r_ != CUDA_SUCCESS) {                                   \
      fprintf(stderr, "h2d_bench: %s failed: %d\n", #x, (int)r_); \
      exit(1);                                                  \
    }                                                           \
  } while (0)

/* Child: best time of `reps` synchronous copies of each size from pageable memory. */
static int measure(int n, const size_t *mib, int reps) {
  CUdevice dev;
  CUcontext ctx;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  for (int i = 0; i < n; i++) {
    size_t bytes = mib[i] << 20;
    unsigned char *h = malloc(bytes);
    if (!h) return 1;
    for (size_t k = 0; k < bytes; k += 4096) h[k] = (unsigned char)k;
    memset(h, 3, bytes);
    CUdeviceptr d;
    CK(cuMemAlloc(&d, bytes));
    double best = 1e30;
    for (int r = 0; r < reps + 1; r++) { /* the first copy also sets things up */
      double t0 = bench_now();
      CK(cuMemcpyHtoD(d, h, bytes));
      double dt = bench_now() - t0;
      if (r > 0 && dt < best) best = dt;
    }
    printf("%zu %.6f\n", mib[i], best);
    CK(cuMemFree(d));
    free(h);
  }
  return 0;
}

static int run_child(const char *sizes, int reps, const char *preload, double *secs, int n) {
  char rp[32];
  snprintf(rp, sizeof rp, "%d", reps);
  const char *args[] = {"--child", sizes, rp, NULL};
  return bench_rerun(args, preload, secs, n) == n ? 0 : -1;
}

static int parse_sizes(const char *s, size_t *out) {
  int n = 0;
  while (*s && n < MAX_SIZES) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || v == 0) return -1;
    out[n++] = v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return -1;
  }
  return n;
}

int main(int argc, char **argv) {
  const char *sizes = "8,64,256";
  int reps = 3, json = 0;
  const char *lib = GPUFT_LIB;
  size_t mib[MAX_SIZES];
  if (argc == 4 && !strcmp(argv[1], "--child")) {
    int n = parse_sizes(argv[2], mib);
    return n > 0 ? measure(n, mib, atoi(argv[3])) : 2;
  }
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lib") && i + 1 < argc) lib = argv[++i];
    else if (!strcmp(argv[i], "--json")) json = 1;
    else {
      fprintf(stderr, "usage: %s [--sizes MiB,...] [--reps N] [--lib libgpuft.so] [--json]\n",
              argv[0]);
      return 2;
    }
  }
  int n = parse_sizes(sizes, mib);
  if (n <= 0 || reps <= 0) {
    fprintf(stderr, "h2d_bench: bad --sizes or --reps\n");
    return 2;
  }
  setenv("SIMCUDA_PCIE_GBPS", getenv("SIMCUDA_PCIE_GBPS") ? getenv("SIMCUDA_PCIE_GBPS") : "25", 1);
  double base[MAX_SIZES], with[MAX_SIZES];
  for (int i = 0; i < n; i++) base[i] = with[i] = 1e30;
  for (int round = 0; round < 2; round++) { /* alternate: drift hits both */
    double b[MAX_SIZES], w[MAX_SIZES];
    if (run_child(sizes, reps, NULL, b, n) || run_child(sizes, reps, lib, w, n)) {
      fprintf(stderr, "h2d_bench: a measurement run failed\n");
      return 1;
    }
    for (int i = 0; i < n; i++) {
      if (b[i] < base[i]) base[i] = b[i];
      if (w[i] < with[i]) with[i] = w[i];
    }
  }
  const char *link = getenv("SIMCUDA_PCIE_GBPS");
  if (json) {
    printf("{\"link_gbps_simulated\": %s, \"reps\": %d, \"sizes\": [", link, reps);
    for (int i = 0; i < n; i++)
      printf("%s{\"mib\": %zu, \"baseline_s\": %.6f, \"gpuft_s\": %.6f, \"ratio\": %.3f}",
             i ? ", " : "", mib[i], base[i], with[i], with[i] / base[i]);
    printf("]}\n");
  } else {
    printf("h2d_bench: synchronous host-to-device copies from pageable memory, best of %d "
           "(simulated link: %s GB/s)\n\n",
           reps, link);
    printf("%8s %14s %14s %10s %12s\n", "MiB", "without (ms)", "gpuft (ms)", "ratio", "gpuft GB/s");
    for (int i = 0; i < n; i++)
      printf("%8zu %14.2f %14.2f %10.3f %12.2f\n", mib[i], base[i] * 1e3, with[i] * 1e3,
             with[i] / base[i], (double)(mib[i] << 20) / with[i] / 1e9);
  }
  return 0;
}
