// jacobi: red-black SOR for -laplace(u) = 1 on the unit square (u = 0 on the border),
// updating one grid in place (red pass, then black pass). Each iteration reduces the
// squared residual on the device (per-block tree sums, then one block sums those in a
// fixed order: deterministic), copies it to the host and synchronises.
// Usage: jacobi [n] [iterations] [graph|graph-readback]  (defaults 128, 50): n x n
// interior points; `graph`: an iteration's four kernels captured once into a CUDA
// graph (stream capture, as jacobiCudaGraphs does) and the graph launched every
// iteration; `graph-readback`: the residual's read-back captured into it too.
#include <cuda.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "app_common.h"

#define BS 16 /* 16 x 16 threads per block */
#define RED_THREADS 256

__global__ void rb_sweep(float *u, const float *f, int n, int color, float omega, float h2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  const int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i > n || j > n || ((i + j) & 1) != color) return;
  const int w = n + 2;
  const size_t k = (size_t)i * w + j;
  float s = u[k - w] + u[k + w];
  s = s + u[k - 1];
  s = s + u[k + 1];
  const float gs = 0.25f * (s + h2 * f[k]);
  u[k] = u[k] + omega * (gs - u[k]);
}

__global__ void residual_partial(const float *u, const float *f, int n, float inv_h2,
                                 float *partial) {
  __shared__ float sh[BS * BS];
  const int tid = threadIdx.y * BS + threadIdx.x;
  const int j = blockIdx.x * BS + threadIdx.x + 1, i = blockIdx.y * BS + threadIdx.y + 1;
  float r2 = 0.0f;
  if (i <= n && j <= n) {
    const int w = n + 2;
    const size_t k = (size_t)i * w + j;
    const float lap = 4.0f * u[k] - u[k - w] - u[k + w] - u[k - 1] - u[k + 1];
    const float r = f[k] - lap * inv_h2;
    r2 = r * r;
  }
  sh[tid] = r2;
  __syncthreads();
  for (int s = BS * BS / 2; s > 0; s >>= 1) {
    if (tid < s) sh[tid] = sh[tid] + sh[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.y * gridDim.x + blockIdx.x] = sh[0];
}

__global__ void reduce_final(const float *partial, int m, float *out) {
  __shared__ float sh[RED_THREADS];
  const int tid = threadIdx.x;
  float s = 0.0f;
  for (int i = tid; i < m; i += RED_THREADS) s = s + partial[i];
  sh[tid] = s;
  __syncthreads();
  for (int st = RED_THREADS / 2; st > 0; st >>= 1) {
    if (tid < st) sh[tid] = sh[tid] + sh[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[0] = sh[0];
}

// The same float operations in the same order as rb_sweep (no contraction on either side).
static void cpu_sweep(std::vector<float> &u, const std::vector<float> &f, int n, int color,
                      float omega, float h2) {
  const int w = n + 2;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= n; j++) {
      if (((i + j) & 1) != color) continue;
      const size_t k = (size_t)i * w + j;
      float s = u[k - w] + u[k + w];
      s = s + u[k - 1];
      s = s + u[k + 1];
      const float gs = 0.25f * (s + h2 * f[k]);
      u[k] = u[k] + omega * (gs - u[k]);
    }
}

static double cpu_residual(const std::vector<float> &u, const std::vector<float> &f, int n,
                           float inv_h2) {
  const int w = n + 2;
  double sum = 0.0;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= n; j++) {
      const size_t k = (size_t)i * w + j;
      const float lap = 4.0f * u[k] - u[k - w] - u[k + w] - u[k - 1] - u[k + 1];
      const float r = f[k] - lap * inv_h2;
      sum += (double)(r * r);
    }
  return sum;
}

int main(int argc, char **argv) {
  const int n = (int)app_arg(argc, argv, 1, 128, 2, 4096);
  const int iters = (int)app_arg(argc, argv, 2, 50, 1, 100000);
  const int w = n + 2;
  const size_t cells = (size_t)w * w, bytes = cells * sizeof(float);
  const float h = 1.0f / (float)(n + 1), h2 = h * h, inv_h2 = 1.0f / h2, omega = 1.5f;
  std::vector<float> u(cells, 0.0f), f(cells, 1.0f), ref(cells, 0.0f);

  float *du, *df, *dpart, *dres;
  const dim3 block(BS, BS), grid((n + BS - 1) / BS, (n + BS - 1) / BS);
  const int nblocks = (int)(grid.x * grid.y);
  APP_CK(cudaMalloc(&du, bytes));
  APP_CK(cudaMalloc(&df, bytes));
  APP_CK(cudaMalloc(&dpart, nblocks * sizeof(float)));
  APP_CK(cudaMalloc(&dres, sizeof(float)));
  APP_CK(cudaMemcpy(du, u.data(), bytes, cudaMemcpyHostToDevice));
  APP_CK(cudaMemcpy(df, f.data(), bytes, cudaMemcpyHostToDevice));

  std::vector<float> res(iters);
  // graph-readback: the residual's read-back captured into the graph too (into pinned
  // memory), as NVIDIA's jacobiCudaGraphs does: a graph with a copy to the host
  const bool readback = argc > 3 && !strcmp(argv[3], "graph-readback");
  const bool as_graph = readback || (argc > 3 && !strcmp(argv[3], "graph"));
  float *hres = NULL;
  if (readback) APP_CK(cudaMallocHost(&hres, sizeof(float)));
  cudaStream_t s = 0;
  CUgraphExec ge = NULL;
  CUgraph g = NULL;
  if (as_graph) { // (the driver's capture and graph calls: the runtime's stream is its stream)
    APP_CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (cuStreamBeginCapture((CUstream)s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS) return 3;
  }
  for (int it = 0; it < (as_graph ? 1 : iters); it++) {
    rb_sweep<<<grid, block, 0, s>>>(du, df, n, 0, omega, h2);
    APP_CK_LAUNCH();
    rb_sweep<<<grid, block, 0, s>>>(du, df, n, 1, omega, h2);
    APP_CK_LAUNCH();
    residual_partial<<<grid, block, 0, s>>>(du, df, n, inv_h2, dpart);
    APP_CK_LAUNCH();
    reduce_final<<<1, RED_THREADS, 0, s>>>(dpart, nblocks, dres);
    APP_CK_LAUNCH();
    if (readback) APP_CK(cudaMemcpyAsync(hres, dres, sizeof(float), cudaMemcpyDeviceToHost, s));
    if (as_graph) break;
    APP_CK(cudaMemcpyAsync(&res[it], dres, sizeof(float), cudaMemcpyDeviceToHost, 0));
    APP_CK(cudaStreamSynchronize(0));
  }
  if (as_graph) {
    if (cuStreamEndCapture((CUstream)s, &g) != CUDA_SUCCESS || cuGraphInstantiate(&ge, g, 0) != CUDA_SUCCESS)
      return 3;
    for (int it = 0; it < iters; it++) {
      if (cuGraphLaunch(ge, (CUstream)s) != CUDA_SUCCESS) return 3;
      if (!readback) APP_CK(cudaMemcpyAsync(&res[it], dres, sizeof(float), cudaMemcpyDeviceToHost, s));
      APP_CK(cudaStreamSynchronize(s));
      if (readback) res[it] = *hres;
    }
    cuGraphExecDestroy(ge);
    cuGraphDestroy(g);
    APP_CK(cudaStreamDestroy(s));
    if (hres) APP_CK(cudaFreeHost(hres));
  }
  APP_CK(cudaMemcpy(u.data(), du, bytes, cudaMemcpyDeviceToHost));
  APP_CK(cudaFree(du));
  APP_CK(cudaFree(df));
  APP_CK(cudaFree(dpart));
  APP_CK(cudaFree(dres));

  long bad = 0;
  float umax = 0.0f;
  for (int it = 0; it < iters; it++) {
    cpu_sweep(ref, f, n, 0, omega, h2);
    cpu_sweep(ref, f, n, 1, omega, h2);
    const double r = cpu_residual(ref, f, n, inv_h2);
    if (!(std::fabs(res[it] - r) <= 1e-3 * r + 1e-12)) {
      if (bad < 5) fprintf(stderr, "jacobi: residual %d = %.9g, expected %.9g\n", it, res[it], r);
      bad++;
    }
  }
  for (size_t k = 0; k < cells; k++) umax = std::fmax(umax, std::fabs(ref[k]));
  for (size_t k = 0; k < cells; k++)
    if (!(std::fabs(u[k] - ref[k]) <= 1e-5f * umax)) {
      if (bad < 10)
        fprintf(stderr, "jacobi: u[%zu] = %.9g, expected %.9g\n", k, u[k], ref[k]);
      bad++;
    }
  // (SOR's residual norm need not fall monotonically: the reference is the check.)
  if (!std::isfinite(res[iters - 1])) {
    fprintf(stderr, "jacobi: residual is not finite\n");
    bad++;
  }
  uint64_t h64 = app_fnv1a(APP_FNV_INIT, u.data(), bytes);
  h64 = app_fnv1a(h64, res.data(), res.size() * sizeof(float));
  printf("checksum: %016llx\n", (unsigned long long)h64);
  if (bad) {
    fprintf(stderr, "jacobi: %ld mismatches\n", bad);
    return 1;
  }
  printf("jacobi: n=%d iterations=%d residual %g -> %g ok\n", n, iters, res[0], res[iters - 1]);
  return 0;
}
