// bench.h: shared host code of the paper's workload benchmarks (matmul, fft3d):
// CUDA error checks, timers, best/median statistics, option parsing, simulator detection.
#ifndef GPUFT_BENCH_H
#define GPUFT_BENCH_H

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app_common.h"

// A failing CUDA call ends the benchmark with exit code 2, as in the example programs:
// a benchmark that silently carries on after an error would time nothing.
#define BENCH_CK(call) APP_CK(call)

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// The simulator's runtime exports simcudaRegisterTwins and nothing real does; on it,
// vendor libraries (cuBLAS, cuFFT: device code without twins) cannot run.
static inline bool bench_on_simulator(void) {
  return dlsym(RTLD_DEFAULT, "simcudaRegisterTwins") != nullptr;
}

struct bench_stats {
  double best, median;
};
static inline bench_stats bench_summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  bench_stats s = {0, 0};
  if (v.empty()) return s;
  s.best = v[0];
  size_t m = v.size() / 2;
  s.median = v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  return s;
}

// "1024,2048" -> {1024, 2048}; false on anything else or a value outside [lo, hi].
static inline bool bench_parse_list(const char *s, long lo, long hi, std::vector<long> *out) {
  out->clear();
  while (*s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < lo || v > hi || (*end && *end != ',')) return false;
    out->push_back(v);
    s = *end ? end + 1 : end;
  }
  return !out->empty();
}

// Comma-separated names ("tiled,cublas") contain `name`.
static inline bool bench_list_has(const std::string &list, const char *name) {
  size_t n = strlen(name);
  for (size_t p = 0; p <= list.size();) {
    size_t q = list.find(',', p);
    if (q == std::string::npos) q = list.size();
    if (q - p == n && list.compare(p, n, name) == 0) return true;
    p = q + 1;
  }
  return false;
}

static inline std::string bench_device_name(void) {
  int dev = 0;
  cudaDeviceProp p;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
  std::string s(p.name);
  for (char &c : s)
    if (c == '"' || c == '\\' || (unsigned char)c < 0x20) c = ' ';
  return s;
}

// One measured row, printed as a table line and as a JSON object.
struct bench_row {
  std::string impl;
  long n;
  bench_stats kernel_ms, e2e_ms;
  double work;        // flops (matmul) or the 5 N log2 N flop count of both FFTs
  double max_err;     // maximum relative error of the check
  bool ok;
};

struct bench_skip {
  std::string impl, reason;
};

static inline void bench_print_json(const char *bench, int reps, const std::vector<bench_row> &rows,
                                    const std::vector<bench_skip> &skips) {
  printf("{\"bench\": \"%s\", \"device\": \"%s\", \"simulator\": %s, \"reps\": %d, \"rows\": [",
         bench, bench_device_name().c_str(), bench_on_simulator() ? "true" : "false", reps);
  for (size_t i = 0; i < rows.size(); i++) {
    const bench_row &r = rows[i];
    printf("%s\n  {\"impl\": \"%s\", \"n\": %ld, \"kernel_ms\": {\"best\": %.6f, \"median\": %.6f}, "
           "\"e2e_ms\": {\"best\": %.6f, \"median\": %.6f}, \"flops\": %.6g, \"gflops_kernel\": %.3f, "
           "\"max_err\": %.3e, \"ok\": %s}",
           i ? "," : "", r.impl.c_str(), r.n, r.kernel_ms.best, r.kernel_ms.median, r.e2e_ms.best,
           r.e2e_ms.median, r.work, r.work / (r.kernel_ms.best * 1e-3) / 1e9, r.max_err,
           r.ok ? "true" : "false");
  }
  printf("%s], \"skipped\": [", rows.empty() ? "" : "\n");
  for (size_t i = 0; i < skips.size(); i++)
    printf("%s{\"impl\": \"%s\", \"reason\": \"%s\"}", i ? ", " : "", skips[i].impl.c_str(),
           skips[i].reason.c_str());
  printf("]}\n");
}

static inline void bench_print_table(const char *title, int reps, const std::vector<bench_row> &rows,
                                     const std::vector<bench_skip> &skips) {
  printf("%s on %s%s, %d repetitions (times in ms: best / median)\n\n", title,
         bench_device_name().c_str(), bench_on_simulator() ? " (simulator)" : "", reps);
  printf("%-20s %6s %21s %21s %10s %10s %s\n", "impl", "n", "kernel", "end-to-end", "GFLOP/s",
         "max err", "check");
  for (const bench_row &r : rows)
    printf("%-20s %6ld %10.3f / %8.3f %10.3f / %8.3f %10.2f %10.2e %s\n", r.impl.c_str(), r.n,
           r.kernel_ms.best, r.kernel_ms.median, r.e2e_ms.best, r.e2e_ms.median,
           r.work / (r.kernel_ms.best * 1e-3) / 1e9, r.max_err, r.ok ? "ok" : "WRONG");
  for (const bench_skip &s : skips) printf("%-20s skipped: %s\n", s.impl.c_str(), s.reason.c_str());
}

#endif
