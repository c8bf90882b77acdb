// index_walk: kernels that follow indices held in device memory, the way sparse and
// graph codes do: a CSR matrix-vector product (row pointers, column indices), a
// gather through an index table, a loop whose trip count is read from device memory,
// and a table of pointers. A flipped bit in any of them sends a thread out of bounds
// (an illegal address, the context lost) or into a very long loop. Iterated with a
// deterministic reduction read back every step, so its output is bit for bit. The
// pointer table is used only with the argument "table": a kernel that loads
// pointers is taken to reach (and so maybe write) every buffer gpuft cannot scan,
// which costs the others their checkpoints (docs/design.md, "Verify before use").
#include <cstdint>
#include <cstring>
#include <vector>
#include "samples.h"

__global__ void spmv(const int *rowptr, const int *col, const double *val, const double *x, double *y,
                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0;
  for (int k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * x[col[k]];
  y[i] = s;
}

__global__ void gather(const int *idx, const double *src, double *dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[idx[i]];
}

// trip count from device memory; the step reads x[i + k * stride] within bounds
__global__ void smooth(const int *steps, const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0;
  for (int k = 0; k < steps[0]; k++) s += x[(i + k) % n];
  y[i] = s / steps[0];
}

// blocks read the table of pointers, each row of a block its own array
__global__ void through_table(const double *const *table, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += table[i % 4][i];
}

// one block: the sum in a fixed order (bit for bit every run)
__global__ void sum(const double *x, double *out, int n) {
  __shared__ double part[256];
  double s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i];
  part[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int k = 0; k < (int)blockDim.x; k++) t += part[k];
    out[0] = t;
  }
}

__global__ void scale(double *x, const double *by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] / by[0] * n;
}

int main(int argc, char **argv) {
  const bool use_table = argc > 1 && strcmp(argv[1], "table") == 0;
  const int g = 48, n = g * g;
  std::vector<int> rp(1, 0), col, idx(n), steps(1, 3);
  std::vector<double> val, x(n);
  for (int y = 0; y < g; y++)
    for (int xx = 0; xx < g; xx++) {
      int i = y * g + xx;
      if (y > 0) col.push_back(i - g), val.push_back(-1);
      if (xx > 0) col.push_back(i - 1), val.push_back(-1);
      col.push_back(i), val.push_back(4.5);
      if (xx < g - 1) col.push_back(i + 1), val.push_back(-1);
      if (y < g - 1) col.push_back(i + g), val.push_back(-1);
      rp.push_back((int)col.size());
    }
  for (int i = 0; i < n; i++) idx[i] = (int)((i * 7919u + 13u) % (unsigned)n), x[i] = 1.0 + (i % 17) * 0.25;
  int *drp, *dcol, *didx, *dsteps;
  double *dval, *dx, *dy, *dz, *dsum, *dt[4];
  CHECK(cudaMalloc(&drp, rp.size() * 4));
  CHECK(cudaMalloc(&dcol, col.size() * 4));
  CHECK(cudaMalloc(&didx, n * 4));
  CHECK(cudaMalloc(&dsteps, 4));
  CHECK(cudaMalloc(&dval, val.size() * 8));
  CHECK(cudaMalloc(&dx, n * 8));
  CHECK(cudaMalloc(&dy, n * 8));
  CHECK(cudaMalloc(&dz, n * 8));
  CHECK(cudaMalloc(&dsum, 8));
  for (int k = 0; k < 4; k++) {
    CHECK(cudaMalloc(&dt[k], n * 8));
    std::vector<double> t(n, 0.001 * (k + 1));
    CHECK(cudaMemcpy(dt[k], t.data(), n * 8, cudaMemcpyHostToDevice));
  }
  double **dtable;
  CHECK(cudaMalloc(&dtable, sizeof dt));
  CHECK(cudaMemcpy(dtable, dt, sizeof dt, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(drp, rp.data(), rp.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dcol, col.data(), col.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(didx, idx.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dsteps, steps.data(), 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dval, val.data(), val.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
  int nb = (n + 127) / 128;
  double total = 0;
  for (int it = 0; it < 24; it++) {
    spmv<<<nb, 128>>>(drp, dcol, dval, dx, dy, n);
    gather<<<nb, 128>>>(didx, dy, dz, n);
    smooth<<<nb, 128>>>(dsteps, dz, dy, n);
    if (use_table) through_table<<<nb, 128>>>(dtable, dy, n);
    sum<<<1, 256>>>(dy, dsum, n);
    double s;
    CHECK(cudaMemcpy(&s, dsum, 8, cudaMemcpyDeviceToHost));  // read back every step
    scale<<<nb, 128>>>(dy, dsum, n);
    CHECK(cudaMemcpy(dx, dy, n * 8, cudaMemcpyDeviceToDevice));
    total += s;
  }
  CHECK(cudaMemcpy(x.data(), dx, n * 8, cudaMemcpyDeviceToHost));
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < n; i++) {
    uint64_t b;
    memcpy(&b, &x[i], 8);
    h = (h ^ b) * 1099511628211ull;
  }
  printf("index_walk: sum of sums %.17g, hash %016llx\n", total, (unsigned long long)h);
  bool ok = total > 0 && x[0] == x[0];
  CHECK(cudaFree(drp));
  return verdict("index_walk", ok);
}
