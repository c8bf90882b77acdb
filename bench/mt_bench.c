/* mt_bench: what gpuft costs a program whose threads drive the GPU at once. T
 * threads (1, 2, 4, 8), each with its own stream and buffer, each launching small
 * kernels and copying 4 KiB up and down; wall time without and with gpuft (the
 * program run again as a child, alternating rounds, best of each), and their ratio
 * per T. A ratio that grows with T means gpuft serialises the program's threads.
 *   mt_bench [--iters N] [--reps R] [--lib path/libgpuft.so] [--json]
 * Under gpuft it also prints, per T, how long gpuft's engine lock was held and how
 * long the threads waited for it (its report's engine_lock_* figures, last round).
 * Runs on the simulator (LD_LIBRARY_PATH=build/sim) or a real GPU. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rerun.h"
#include "twin_fill.h"

#define MAX_T 8
static const int g_threads[] = {1, 2, 4, 8};
#define N_T ((int)(sizeof g_threads / sizeof *g_threads))
#define WORDS 16384 /* 64 KiB per thread's buffer */

#define CK(x)                                                    \
  do {                                                           \
    CUresult r_ = (x);                                           \
    if (r_ != CUDA_SUCCESS) {                                    \
      fprintf(stderr, "mt_bench: %s failed: %d\n", #x, (int)r_); \
      exit(1);                                                   \
    }                                                            \
  } while (0)

typedef struct {
  CUcontext ctx;
  CUfunction fill;
  long iters;
  int id;
} worker_t;

/* One program thread: its stream, its buffer; a launch, a copy up, every 16th
 * iteration a copy down and a synchronisation (as a training or solver loop). */
static void *work(void *p) {
  const worker_t *w = p;
  CK(cuCtxSetCurrent(w->ctx));
  CUstream s;
  CUdeviceptr d;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CK(cuMemAlloc(&d, WORDS * 4));
  unsigned host[1024];
  for (long i = 0; i < w->iters; i++) {
    unsigned v = (unsigned)(w->id * 1000003 + i);
    void *args[] = {&d, &v};
    CK(cuLaunchKernel(w->fill, WORDS / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
    for (int k = 0; k < 1024; k++) host[k] = v + (unsigned)k;
    CK(cuMemcpyHtoDAsync(d + 4096, host, sizeof host, s));
    if ((i & 15) == 15) {
      CK(cuMemcpyDtoHAsync(host, d, sizeof host, s));
      CK(cuStreamSynchronize(s));
      if (host[0] != v) {
        fprintf(stderr, "mt_bench: thread %d read %u, wrote %u\n", w->id, host[0], v);
        exit(1);
      }
    }
  }
  CK(cuStreamSynchronize(s));
  CK(cuMemFree(d));
  CK(cuStreamDestroy(s));
  return NULL;
}

/* Under gpuft (its gpuft_write_report is there): the report's engine-lock figures
 * {acquisitions, held s, wait s} now; false without gpuft. */
static int lock_figures(double out[3]) {
  int (*write_report)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "gpuft_write_report");
  char path[64];
  snprintf(path, sizeof path, "/tmp/mt_bench.%d.json", (int)getpid());
  if (!write_report || write_report(path) != 0) return 0;
  static const char *const keys[3] = {"\"engine_lock_acquisitions\":", "\"engine_lock_held_seconds\":",
                                      "\"engine_lock_wait_seconds\":"};
  char buf[1 << 16];
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  unlink(path);
  buf[n] = 0;
  for (int k = 0; k < 3; k++) {
    const char *p = strstr(buf, keys[k]);
    if (!p) return 0;
    out[k] = atof(p + strlen(keys[k]));
  }
  return 1;
}

/* Child: for each T, the best wall time of reps runs, one number a line. Under
 * gpuft, the engine lock's figures per T (over all reps) go to MT_BENCH_LOCKS. */
static int measure(long iters, int reps) {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fill, empty;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(tf_load2(&mod, &fill, &empty));
  const char *lock_path = getenv("MT_BENCH_LOCKS");
  FILE *locks = NULL;
  double before[3];
  if (lock_path && lock_figures(before)) locks = fopen(lock_path, "w");
  for (int t = 0; t < N_T; t++) {
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
      pthread_t th[MAX_T];
      worker_t w[MAX_T];
      double t0 = bench_now();
      for (int k = 0; k < g_threads[t]; k++) {
        w[k] = (worker_t){ctx, fill, iters, k};
        if (pthread_create(&th[k], NULL, work, &w[k])) return 1;
      }
      for (int k = 0; k < g_threads[t]; k++) pthread_join(th[k], NULL);
      double dt = bench_now() - t0;
      if (dt < best) best = dt;
    }
    printf("threads=%d %.6f\n", g_threads[t], best);
    double now[3];
    if (locks && lock_figures(now)) {
      fprintf(locks, "%d %.0f %.6f %.6f\n", g_threads[t], now[0] - before[0], now[1] - before[1], now[2] - before[2]);
      memcpy(before, now, sizeof now);
    }
  }
  if (locks) fclose(locks);
  CK(cuModuleUnload(mod));
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "--child")) return measure(atol(argv[2]), atoi(argv[3]));
  bench_opts_t o = {400, 3, 0, GPUFT_LIB};
  if (bench_opts(argc, argv, &o)) return 2;
  /* On the simulator a kernel costs the host's CPU, so T threads' launches compete
   * for this machine's cores natively already and the ratio measured noise (0.5 to
   * 2.5 between identical runs on 2 cores). A GPU runs them without the CPU: so does
   * the simulator with a kernel time, slept (the children inherit it; a real driver
   * ignores the variable). */
  if (!getenv("SIMCUDA_KERNEL_US")) setenv("SIMCUDA_KERNEL_US", "2000", 1);
  long iters = o.iters;
  int reps = o.reps, json = o.json;
  double base[N_T], with[N_T];
  char lock_path[64];
  snprintf(lock_path, sizeof lock_path, "/tmp/mt_bench_locks.%d", (int)getpid());
  setenv("MT_BENCH_LOCKS", lock_path, 1);
  /* the lock's times are measured with the profile on; its lines (and the summary)
   * are not printed, the figures come through the report */
  setenv("GPUFT_LOCK_PROFILE", "1", 1);
  setenv("GPUFT_SUMMARY", "0", 1);
  if (bench_alternate(&o, 2, N_T, base, with)) return 1;
  /* the last gpuft round's engine-lock figures per T (acquisitions, held, waited) */
  double lk[N_T][3] = {{0}};
  int have_locks = 0;
  FILE *lf = fopen(lock_path, "r");
  for (int t = 0; lf && t < N_T; t++) {
    int tt;
    if (fscanf(lf, "%d %lf %lf %lf", &tt, &lk[t][0], &lk[t][1], &lk[t][2]) == 4 && tt == g_threads[t]) have_locks++;
  }
  if (lf) fclose(lf);
  unlink(lock_path);
  have_locks = have_locks == N_T;
  if (json) {
    printf("{\"iters\": %ld, \"reps\": %d, \"kernel_us\": %g, \"threads\": [", iters, reps,
           atof(getenv("SIMCUDA_KERNEL_US")));
    for (int t = 0; t < N_T; t++)
      printf("%s{\"threads\": %d, \"baseline_s\": %.6f, \"gpuft_s\": %.6f, \"ratio\": %.3f, "
             "\"lock_acquisitions\": %.0f, \"lock_held_s\": %.6f, \"lock_wait_s\": %.6f}",
             t ? ", " : "", g_threads[t], base[t], with[t], with[t] / base[t], lk[t][0], lk[t][1], lk[t][2]);
    printf("]}\n");
  } else {
    printf("mt_bench: T threads, each with its own stream: %ld x (launch on 64 KiB, 4 KiB copy up; "
           "every 16th a 4 KiB copy down and a sync); wall seconds, best of %d x 2 alternating rounds\n"
           "(on the simulator every launch, gpuft's too, occupies its stream at least SIMCUDA_KERNEL_US=%s us)\n\n",
           iters, reps, getenv("SIMCUDA_KERNEL_US"));
    printf("%8s %12s %12s %8s %12s %12s %12s\n", "threads", "without", "with gpuft", "ratio", "lock takes",
           "lock held s", "lock wait s");
    for (int t = 0; t < N_T; t++) {
      printf("%8d %12.4f %12.4f %8.2f", g_threads[t], base[t], with[t], with[t] / base[t]);
      if (have_locks) printf(" %12.0f %12.4f %12.4f", lk[t][0], lk[t][1], lk[t][2]);
      printf("\n");
    }
    if (have_locks)
      printf("\n(lock: gpuft's engine lock over all %d repetitions of each T in the last gpuft round; held and "
             "waited summed over threads)\n", reps);
  }
  return 0;
}
