// graph_jacobi: the jacobiCudaGraphs pattern: a Jacobi solver of a diagonally
// dominant system whose iteration pair (memset of the residual, two sweeps, the
// residual copied back) runs as a graph: once built explicitly and relaunched with
// cudaGraphExecKernelNodeSetParams, once captured and refreshed with
// cudaGraphExecUpdate; both checked against a host Jacobi of the same steps.
#include <cmath>
#include <vector>
#include "samples.h"

#define N 256
#define ROWS_PER_BLOCK 64

// x_new = (b - (A - D) x) / D, and the sum of |x_new - x| into *res.
__global__ void jacobi(const float *A, const double *b, const double *x, double *x_new, double *res) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  double s = 0;
  for (int j = 0; j < N; j++)
    if (j != i) s += (double)A[i * N + j] * x[j];
  double v = (b[i] - s) / (double)A[i * N + i];
  x_new[i] = v;
  atomicAdd(res, fabs(v - x[i]));
}

static void host_sweep(const std::vector<float> &A, const std::vector<double> &b, const std::vector<double> &x,
                       std::vector<double> &xn) {
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j < N; j++)
      if (j != i) s += (double)A[i * N + j] * x[j];
    xn[i] = (b[i] - s) / (double)A[i * N + i];
  }
}

// One iteration pair, captured: residual cleared, two sweeps, residual read back.
static cudaGraph_t capture_pair(cudaStream_t s, const float *A_d, const double *b_d, double *x_d, double *xn_d,
                                double *res_d, double *res_h) {
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(res_d, 0, sizeof(double), s));
  jacobi<<<N / ROWS_PER_BLOCK, ROWS_PER_BLOCK, 0, s>>>(A_d, b_d, x_d, xn_d, res_d);
  jacobi<<<N / ROWS_PER_BLOCK, ROWS_PER_BLOCK, 0, s>>>(A_d, b_d, xn_d, x_d, res_d);
  CHECK(cudaMemcpyAsync(res_h, res_d, sizeof(double), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamEndCapture(s, &g));
  return g;
}

int main() {
  std::vector<float> A(N * N);
  std::vector<double> b(N);
  for (int i = 0; i < N; i++) {
    double off = 0;
    for (int j = 0; j < N; j++) {
      A[i * N + j] = j == i ? 0.0f : (float)((i * 7 + j * 3) % 5) / 50.0f;
      off += A[i * N + j];
    }
    A[i * N + i] = (float)(off + 1.0 + i % 3);
    b[i] = (double)(i % 11) - 5.0;
  }
  float *A_d;
  double *b_d, *x_d, *xn_d, *res_d, *res_h;
  CHECK(cudaMalloc(&A_d, N * N * sizeof(float)));
  CHECK(cudaMalloc(&b_d, N * sizeof(double)));
  CHECK(cudaMalloc(&x_d, N * sizeof(double)));
  CHECK(cudaMalloc(&xn_d, N * sizeof(double)));
  CHECK(cudaMalloc(&res_d, sizeof(double)));
  CHECK(cudaMallocHost(&res_h, sizeof(double)));
  CHECK(cudaMemcpy(A_d, A.data(), N * N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b_d, b.data(), N * sizeof(double), cudaMemcpyHostToDevice));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int iters = 40;  // pairs of sweeps
  bool ok = true;

  // host reference
  std::vector<double> xr(N, 0.0), xt(N);
  for (int k = 0; k < 2 * iters; k++) {
    host_sweep(A, b, xr, xt);
    xr.swap(xt);
  }

  for (int method = 0; method < 2; method++) {
    CHECK(cudaMemsetAsync(x_d, 0, N * sizeof(double), s));
    CHECK(cudaMemsetAsync(xn_d, 0, N * sizeof(double), s));
    cudaGraph_t g;
    cudaGraphExec_t e;
    cudaGraphNode_t k1 = NULL;
    cudaKernelNodeParams kp = {};
    void *args1[] = {&A_d, &b_d, &x_d, &xn_d, &res_d}, *args2[] = {&A_d, &b_d, &xn_d, &x_d, &res_d};
    if (method == 0) {  // explicit: memset -> sweep -> sweep -> copy back
      CHECK(cudaGraphCreate(&g, 0));
      cudaGraphNode_t ms, k2, cp;
      cudaMemsetParams mp = {};
      mp.dst = res_d;
      mp.elementSize = 4;
      mp.width = 2;
      mp.height = 1;
      CHECK(cudaGraphAddMemsetNode(&ms, g, NULL, 0, &mp));
      kp.func = (void *)jacobi;
      kp.gridDim = dim3(N / ROWS_PER_BLOCK);
      kp.blockDim = dim3(ROWS_PER_BLOCK);
      kp.kernelParams = args1;
      CHECK(cudaGraphAddKernelNode(&k1, g, &ms, 1, &kp));
      kp.kernelParams = args2;
      CHECK(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp));
      CHECK(cudaGraphAddMemcpyNode1D(&cp, g, &k2, 1, res_h, res_d, sizeof(double), cudaMemcpyDeviceToHost));
      CHECK(cudaGraphInstantiate(&e, g, 0));
    } else {  // captured
      g = capture_pair(s, A_d, b_d, x_d, xn_d, res_d, res_h);
      CHECK(cudaGraphInstantiate(&e, g, 0));
    }
    double last = 0;
    for (int k = 0; k < iters; k++) {
      if (method == 0 && k == iters / 2) {
        // the same parameters set again between launches (the sample's own use)
        kp.kernelParams = args1;
        CHECK(cudaGraphExecKernelNodeSetParams(e, k1, &kp));
      }
      if (method == 1 && k == iters / 2) {
        // recapture and update the executable graph in place
        cudaGraph_t g2 = capture_pair(s, A_d, b_d, x_d, xn_d, res_d, res_h);
        cudaGraphExecUpdateResultInfo info;
        CHECK(cudaGraphExecUpdate(e, g2, &info));
        CHECK(cudaGraphDestroy(g2));
      }
      CHECK(cudaGraphLaunch(e, s));
      CHECK(cudaStreamSynchronize(s));
      last = *res_h;
    }
    std::vector<double> x(N);
    CHECK(cudaMemcpy(x.data(), x_d, N * sizeof(double), cudaMemcpyDeviceToHost));
    double err = 0;
    for (int i = 0; i < N; i++) err = fmax(err, fabs(x[i] - xr[i]));
    printf("method %d: residual %.3e, max difference from the host %.3e\n", method, last, err);
    ok = ok && err < 1e-9 && last < 1e-4;
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
  }
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(A_d));
  CHECK(cudaFree(b_d));
  CHECK(cudaFree(x_d));
  CHECK(cudaFree(xn_d));
  CHECK(cudaFree(res_d));
  CHECK(cudaFreeHost(res_h));
  return verdict("graph_jacobi", ok);
}
