// pool_bench: tensors carved out of one large allocation, as caching allocators
// hand them out (issue 22): two tensors in the middle of an n MiB pool, uploaded,
// `iters` axpy launches between two events (kernel time), one read-back
// (end-to-end: uploads + launches + read-back). What gpuft costs should follow the
// tensors, not the pool.
//   pool_bench [--n 512] [--tensor-kib 16] [--iters 50] [--reps 5] [--json]
#include <math.h>

#include "common/bench.h"

#include "pool_kernels.cuh"

namespace {

void usage(const char *argv0) {
  fprintf(stderr,
          "usage: %s [--n MiB] [--tensor-kib K] [--iters I] [--reps R] [--json]\n"
          "  two K KiB tensors in one n MiB allocation, I axpy launches; default 512, 16, 50, 5 reps\n",
          argv0);
}

}  // namespace

int main(int argc, char **argv) {
  long pool_mib = 512, kib = 16, iters = 50;
  int reps = 5;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    long *v = !strcmp(argv[i], "--n") ? &pool_mib : !strcmp(argv[i], "--tensor-kib") ? &kib
              : !strcmp(argv[i], "--iters") ? &iters : nullptr;
    if (v && i + 1 < argc) {
      *v = atol(argv[++i]);
      if (*v < 1 || *v > (1L << 20)) {
        fprintf(stderr, "pool_bench: %s must be in [1, 1048576]\n", argv[i - 1]);
        return 64;
      }
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
      if (reps < 1 || reps > 1000) {
        fprintf(stderr, "pool_bench: --reps must be in [1, 1000]\n");
        return 64;
      }
    } else if (!strcmp(argv[i], "--json")) {
      json = true;
    } else {
      usage(argv[0]);
      return !strcmp(argv[i], "--help") ? 0 : 64;
    }
  }
  const size_t pool = (size_t)pool_mib << 20, bytes = (size_t)kib << 10;
  const int n = (int)(bytes / sizeof(float));
  if (pool < pool / 2 + 2 * bytes) {
    fprintf(stderr, "pool_bench: a %ld MiB pool is too small for two %ld KiB tensors\n", pool_mib, kib);
    return 64;
  }
  char *base;
  BENCH_CK(cudaMalloc(&base, pool));
  float *x = (float *)(base + pool / 2), *y = (float *)(base + pool / 2 + bytes);
  std::vector<float> hx(n), hy(n), out(n);
  for (int i = 0; i < n; i++) {
    hx[i] = (float)(i % 977) * 0.25f;
    hy[i] = (float)((i * 13) % 101) * 0.5f;
  }
  cudaEvent_t e0, e1;
  BENCH_CK(cudaEventCreate(&e0));
  BENCH_CK(cudaEventCreate(&e1));
  std::vector<double> k, e;
  double worst = 0;
  const int threads = 256, blocks = (n + threads - 1) / threads;
  for (int r = 0; r <= reps; r++) {  // repetition 0 warms up
    const double t0 = bench_now();
    BENCH_CK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
    BENCH_CK(cudaMemcpy(y, hy.data(), bytes, cudaMemcpyHostToDevice));
    BENCH_CK(cudaEventRecord(e0));
    for (long it = 0; it < iters; it++) axpy<<<blocks, threads>>>(1.5f, x, y, n);
    BENCH_CK(cudaGetLastError());
    BENCH_CK(cudaEventRecord(e1));
    BENCH_CK(cudaMemcpy(out.data(), y, bytes, cudaMemcpyDeviceToHost));
    const double em = (bench_now() - t0) * 1e3;
    float km = 0;
    BENCH_CK(cudaEventElapsedTime(&km, e0, e1));
    if (r > 0) k.push_back(km), e.push_back(em);
    for (int i = 0; i < n; i++) {  // the same float operations on the host: exact
      float v = hy[i];
      for (long it = 0; it < iters; it++) v = 1.5f * hx[i] + v;
      double err = fabs((double)out[i] - v);
      if (!(err <= worst)) worst = err;
    }
  }
  BENCH_CK(cudaFree(base));
  BENCH_CK(cudaEventDestroy(e0));
  BENCH_CK(cudaEventDestroy(e1));
  bench_row row;
  row.impl = "axpy";
  row.n = pool_mib;
  row.kernel_ms = bench_summarise(k);
  row.e2e_ms = bench_summarise(e);
  row.work = 2.0 * n * (double)iters;
  row.max_err = worst;
  row.ok = worst == 0;
  std::vector<bench_row> rows = {row};
  std::vector<bench_skip> skips;
  if (json)
    bench_print_json("pool", reps, rows, skips);
  else
    bench_print_table("pool: two tensors in one n MiB allocation, axpy", reps, rows, skips);
  return row.ok ? 0 : 1;
}
