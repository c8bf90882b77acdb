// matmul: the paper's first workload (section 4.1): single-precision n x n matrix
// multiply with the shared-memory tiled kernel (16x16 tiles, as in the CUDA guide) and
// with cuBLAS SGEMM; kernel-only (events) and end-to-end (H2D + kernel + D2H) times.
//   matmul [--sizes 1024,2048,4096,8192] [--reps 5] [--impl tiled,cublas] [--json]
#include <cublas_v2.h>
#include <math.h>

#include "common/bench.h"

#include "sgemm_tiled.cuh"

namespace {

struct problem {
  int n;
  std::vector<float> A, B, C;
  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
};

// Maximum over sampled entries of |C - ref| / sum |a_ik b_kj| (reference in double).
double check(const problem &p) {
  const int n = p.n;
  double worst = 0;
  unsigned s = 12345;
  for (int k = 0; k < 64; k++) {
    s = s * 1103515245u + 12345u;
    const int i = (int)((s >> 8) % (unsigned)n), j = (int)((s >> 3) % (unsigned)n);
    double ref = 0, mag = 0;
    for (int q = 0; q < n; q++) {
      double t = (double)p.A[(size_t)i * n + q] * p.B[(size_t)q * n + j];
      ref += t;
      mag += fabs(t);
    }
    double e = fabs(p.C[(size_t)i * n + j] - ref) / (mag > 0 ? mag : 1);
    if (!(e <= worst)) worst = e;  // NaN propagates as the worst
  }
  return worst;
}

enum impl_t { TILED, CUBLAS };

// One repetition: H2D of A and B, the multiply between two events, D2H of C.
void run_once(problem &p, impl_t impl, cublasHandle_t h, cudaEvent_t e0, cudaEvent_t e1,
              double *kernel_ms, double *e2e_ms) {
  const size_t bytes = (size_t)p.n * p.n * sizeof(float);
  const double t0 = bench_now();
  BENCH_CK(cudaMemcpy(p.dA, p.A.data(), bytes, cudaMemcpyHostToDevice));
  BENCH_CK(cudaMemcpy(p.dB, p.B.data(), bytes, cudaMemcpyHostToDevice));
  BENCH_CK(cudaEventRecord(e0));
  if (impl == TILED) {
    dim3 block(TILE, TILE), grid((p.n + TILE - 1) / TILE, (p.n + TILE - 1) / TILE);
    sgemm_tiled<<<grid, block>>>(p.dA, p.dB, p.dC, p.n);
    BENCH_CK(cudaGetLastError());
  } else {
    // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.n, p.n, &one, p.dB, p.n,
                                    p.dA, p.n, &zero, p.dC, p.n);
    if (st != CUBLAS_STATUS_SUCCESS) {
      fprintf(stderr, "matmul: cublasSgemm failed: %d\n", (int)st);
      exit(2);
    }
  }
  BENCH_CK(cudaEventRecord(e1));
  BENCH_CK(cudaMemcpy(p.C.data(), p.dC, bytes, cudaMemcpyDeviceToHost));
  *e2e_ms = (bench_now() - t0) * 1e3;
  float ms = 0;
  BENCH_CK(cudaEventElapsedTime(&ms, e0, e1));
  *kernel_ms = ms;
}

void usage(const char *argv0) {
  fprintf(stderr,
          "usage: %s [--sizes N,N,...] [--reps R] [--impl tiled,cublas] [--json]\n"
          "  single-precision n x n matrix multiply; default sizes 1024,2048,4096,8192, 5 reps\n",
          argv0);
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<long> sizes = {1024, 2048, 4096, 8192};
  std::string impls = "tiled,cublas";
  int reps = 5;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      if (!bench_parse_list(argv[++i], 1, 32768, &sizes)) {
        fprintf(stderr, "matmul: bad --sizes '%s'\n", argv[i]);
        return 64;
      }
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
      if (reps < 1 || reps > 1000) {
        fprintf(stderr, "matmul: --reps must be in [1, 1000]\n");
        return 64;
      }
    } else if (!strcmp(argv[i], "--impl") && i + 1 < argc) {
      impls = argv[++i];
    } else if (!strcmp(argv[i], "--json")) {
      json = true;
    } else {
      usage(argv[0]);
      return !strcmp(argv[i], "--help") ? 0 : 64;
    }
  }

  std::vector<bench_row> rows;
  std::vector<bench_skip> skips;
  cublasHandle_t handle = nullptr;
  bool use_cublas = bench_list_has(impls, "cublas");
  if (use_cublas && bench_on_simulator()) {
    skips.push_back({"cublas", "cuBLAS needs a real GPU (the simulator runs only kernels with C twins)"});
    use_cublas = false;
  } else if (use_cublas) {
    cublasStatus_t st = cublasCreate(&handle);
    if (st != CUBLAS_STATUS_SUCCESS) {
      skips.push_back({"cublas", "cublasCreate failed (status " + std::to_string((int)st) +
                                     "): no usable GPU for cuBLAS"});
      use_cublas = false;
      handle = nullptr;
    }
  }
  if (!json)
    for (const bench_skip &s : skips) fprintf(stderr, "matmul: %s skipped: %s\n", s.impl.c_str(), s.reason.c_str());

  cudaEvent_t e0, e1;
  BENCH_CK(cudaEventCreate(&e0));
  BENCH_CK(cudaEventCreate(&e1));
  bool all_ok = true;
  for (long n : sizes) {
    problem p;
    p.n = (int)n;
    const size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    p.A.resize(nn);
    p.B.resize(nn);
    p.C.assign(nn, 0.0f);
    unsigned s = 1;
    for (size_t i = 0; i < nn; i++) {
      s = s * 1664525u + 1013904223u;
      p.A[i] = (float)((int)(s >> 9) % 2001 - 1000) / 1000.0f;
      s = s * 1664525u + 1013904223u;
      p.B[i] = (float)((int)(s >> 9) % 2001 - 1000) / 1000.0f;
    }
    BENCH_CK(cudaMalloc(&p.dA, bytes));
    BENCH_CK(cudaMalloc(&p.dB, bytes));
    BENCH_CK(cudaMalloc(&p.dC, bytes));
    for (impl_t impl : {TILED, CUBLAS}) {
      if (impl == TILED && !bench_list_has(impls, "tiled")) continue;
      if (impl == CUBLAS && !use_cublas) continue;
      std::vector<double> k, e;
      for (int r = 0; r <= reps; r++) {  // repetition 0 warms up (module load, heuristics)
        double km, em;
        run_once(p, impl, handle, e0, e1, &km, &em);
        if (r > 0) k.push_back(km), e.push_back(em);
      }
      bench_row row;
      row.impl = impl == TILED ? "tiled" : "cublas";
      row.n = n;
      row.kernel_ms = bench_summarise(k);
      row.e2e_ms = bench_summarise(e);
      row.work = 2.0 * (double)n * n * n;
      row.max_err = check(p);
      // Float accumulation of n products: far below n * eps unless the result is wrong.
      row.ok = row.max_err <= 4.0 * (double)n * 6e-8 + 1e-6;
      all_ok = all_ok && row.ok;
      rows.push_back(row);
    }
    BENCH_CK(cudaFree(p.dA));
    BENCH_CK(cudaFree(p.dB));
    BENCH_CK(cudaFree(p.dC));
  }
  if (handle) cublasDestroy(handle);
  BENCH_CK(cudaEventDestroy(e0));
  BENCH_CK(cudaEventDestroy(e1));
  if (json)
    bench_print_json("matmul", reps, rows, skips);
  else
    bench_print_table("matmul: single-precision n x n matrix multiply", reps, rows, skips);
  return all_ok ? 0 : 1;
}
