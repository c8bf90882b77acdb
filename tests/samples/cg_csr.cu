// cg_csr: conjugate gradients on a CSR matrix (2-D Poisson), the matrix passed to
// the kernels by value as a struct holding device pointers.
#include <cmath>
#include <vector>
#include "samples.h"

struct Csr {
  int n;
  const int *rowptr;
  const int *col;
  const double *val;
};

__global__ void spmv(Csr a, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  double s = 0;
  for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++) s += a.val[k] * x[a.col[k]];
  y[i] = s;
}

__global__ void dot(const double *a, const double *b, double *out, int n) {
  __shared__ double part[8];
  double s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += a[i] * b[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); w++) t += part[w];
    atomicAdd(out, t);
  }
}

__global__ void axpy(double alpha, const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += alpha * x[i];
}

__global__ void xpby(const double *x, double beta, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + beta * y[i];
}

static double ddot(const double *a, const double *b, double *dtmp, int n) {
  CHECK(cudaMemset(dtmp, 0, sizeof(double)));
  dot<<<16, 256>>>(a, b, dtmp, n);
  double r;
  CHECK(cudaMemcpy(&r, dtmp, sizeof r, cudaMemcpyDeviceToHost));
  return r;
}

int main() {
  const int g = 24, n = g * g;
  std::vector<int> rp(1, 0), col;
  std::vector<double> val;
  for (int y = 0; y < g; y++)
    for (int x = 0; x < g; x++) {
      int i = y * g + x;
      if (y > 0) col.push_back(i - g), val.push_back(-1);
      if (x > 0) col.push_back(i - 1), val.push_back(-1);
      col.push_back(i), val.push_back(4);
      if (x < g - 1) col.push_back(i + 1), val.push_back(-1);
      if (y < g - 1) col.push_back(i + g), val.push_back(-1);
      rp.push_back((int)col.size());
    }
  std::vector<double> b(n, 1.0), x(n, 0.0);
  int *drp, *dcol;
  double *dval, *dx, *dr, *dp, *dap, *dtmp;
  CHECK(cudaMalloc(&drp, rp.size() * 4));
  CHECK(cudaMalloc(&dcol, col.size() * 4));
  CHECK(cudaMalloc(&dval, val.size() * 8));
  CHECK(cudaMalloc(&dx, n * 8));
  CHECK(cudaMalloc(&dr, n * 8));
  CHECK(cudaMalloc(&dp, n * 8));
  CHECK(cudaMalloc(&dap, n * 8));
  CHECK(cudaMalloc(&dtmp, 8));
  CHECK(cudaMemcpy(drp, rp.data(), rp.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dcol, col.data(), col.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dval, val.data(), val.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dr, b.data(), n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dp, b.data(), n * 8, cudaMemcpyHostToDevice));
  Csr a = {n, drp, dcol, dval};
  int nb = (n + 127) / 128, it = 0;
  double rr = ddot(dr, dr, dtmp, n), rr0 = rr;
  while (it < 200 && rr > 1e-20 * rr0) {
    spmv<<<nb, 128>>>(a, dp, dap);
    double alpha = rr / ddot(dp, dap, dtmp, n);
    axpy<<<nb, 128>>>(alpha, dp, dx, n);
    axpy<<<nb, 128>>>(-alpha, dap, dr, n);
    double rr1 = ddot(dr, dr, dtmp, n);
    xpby<<<nb, 128>>>(dr, rr1 / rr, dp, n);
    rr = rr1;
    it++;
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(x.data(), dx, n * 8, cudaMemcpyDeviceToHost));
  // The true residual, computed on the host.
  double res = 0;
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[col[k]];
    res += (b[i] - s) * (b[i] - s);
  }
  res = sqrt(res);
  printf("cg: %d iterations, residual %g\n", it, res);
  bool ok = res < 1e-8 && it < 200;
  cudaFree(drp);
  cudaFree(dcol);
  cudaFree(dval);
  cudaFree(dx);
  cudaFree(dr);
  cudaFree(dp);
  cudaFree(dap);
  cudaFree(dtmp);
  return verdict("cg_csr", ok);
}
