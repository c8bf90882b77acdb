// grid_sync: grid-wide synchronisation the way NVIDIA's reductionMultiBlockCG and
// conjugateGradientMultiBlockCG samples use it: cooperative launches sized from the
// occupancy calculator, cooperative_groups::this_grid().sync() between phases, each
// result checked against the host. Also: a grid one block larger than can be
// resident is refused (cudaErrorCooperativeLaunchTooLarge), and with an argument, a
// kernel that cannot complete its grid sync fails as a GPU would:
//   noncoop     grid.sync() in a <<<>>> launch (no grid workspace: the kernel traps)
//   early_exit  a block returns before the grid.sync() the others wait at
//   fault       a block faults (an illegal address) while the others wait
// Built with GRID_SYNC_GRAPHS (nvcc's static runtime: the simulator's has no graph
// API), a captured cooperative launch runs as a graph too.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>
#include "samples.h"

namespace cg = cooperative_groups;

// ---- reductionMultiBlockCG: one pass, partial sums per block, then block 0 ----

// The block's values in sdata summed into sdata[0] (per warp, then warp 0's sums).
__device__ void blockSum(double *sdata, const cg::thread_block &block) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  double v = cg::reduce(warp, sdata[block.thread_rank()], cg::plus<double>());
  cg::sync(block);
  if (warp.thread_rank() == 0) sdata[block.thread_rank()] = v;
  cg::sync(block);
  if (block.thread_rank() == 0) {
    double s = 0;
    for (unsigned i = 0; i < block.size(); i += warp.size()) s += sdata[i];
    sdata[0] = s;
  }
  cg::sync(block);
}

__global__ void reduceSinglePass(const float *in, double *partial, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  cg::grid_group grid = cg::this_grid();
  extern __shared__ double sdata[];
  double s = 0;
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) s += in[i];
  sdata[block.thread_rank()] = s;
  cg::sync(block);
  blockSum(sdata, block);
  if (block.thread_rank() == 0) partial[blockIdx.x] = sdata[0];
  grid.sync();
  if (grid.thread_rank() == 0)
    for (unsigned b = 1; b < gridDim.x; b++) partial[0] += partial[b];
}

// ---- conjugateGradientMultiBlockCG: the whole solver in one kernel ----

// A dot product every thread of the grid gets: per-block partial sums, then each
// thread adds them in block order (the same result whatever order blocks ran in).
__device__ double gridDot(const float *a, const float *b, int n, double *partial, const cg::thread_block &block,
                          const cg::grid_group &grid) {
  extern __shared__ double sdata[];
  double s = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) s += (double)a[i] * b[i];
  sdata[block.thread_rank()] = s;
  cg::sync(block);
  blockSum(sdata, block);
  if (block.thread_rank() == 0) partial[blockIdx.x] = sdata[0];
  grid.sync();
  double t = 0;
  for (unsigned k = 0; k < gridDim.x; k++) t += partial[k];
  grid.sync();  // everyone has read the partials before they are written again
  return t;
}

__device__ void spmv(const int *rowPtr, const int *col, const float *val, int rows, const float *x, float *y,
                     const cg::grid_group &grid) {
  for (int i = grid.thread_rank(); i < rows; i += grid.size()) {
    float s = 0;
    for (int j = rowPtr[i]; j < rowPtr[i + 1]; j++) s += val[j] * x[col[j]];
    y[i] = s;
  }
}

__global__ void conjugateGradient(const int *rowPtr, const int *col, const float *val, float *x, float *r,
                                  float *p, float *Ax, double *partial, int n, float tol, int maxIter,
                                  int *iterations, double *residual) {
  cg::thread_block block = cg::this_thread_block();
  cg::grid_group grid = cg::this_grid();
  for (int i = grid.thread_rank(); i < n; i += grid.size()) r[i] = 1.0f, x[i] = 0.0f;
  grid.sync();
  double r1 = gridDot(r, r, n, partial, block, grid), r0 = 0;
  int k = 1;
  while (r1 > (double)tol * tol && k <= maxIter) {
    float b = (float)(r1 / r0);  // (first round: p = r)
    for (int i = grid.thread_rank(); i < n; i += grid.size()) p[i] = k > 1 ? r[i] + b * p[i] : r[i];
    grid.sync();
    spmv(rowPtr, col, val, n, p, Ax, grid);
    grid.sync();
    double a = r1 / gridDot(p, Ax, n, partial, block, grid);
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
      x[i] += (float)a * p[i];
      r[i] -= (float)a * Ax[i];
    }
    r0 = r1;
    grid.sync();
    r1 = gridDot(r, r, n, partial, block, grid);
    k++;
  }
  if (grid.thread_rank() == 0) *iterations = k - 1, *residual = sqrt(r1);
}

// ---- every block reads its neighbour's data between syncs ----

// Each round every element moves one block along the ring: read, sync, write, sync
// (the second one split into arrive and wait). A block that ran on past a sync
// would read a value not yet moved.
__global__ void ringShift(int *a, int rounds) {
  cg::grid_group grid = cg::this_grid();
  unsigned long long total = grid.size(), me = grid.thread_rank();
  for (int k = 0; k < rounds; k++) {
    int v = a[(me + blockDim.x) % total];
    grid.sync();
    a[me] = v;
    auto token = grid.barrier_arrive();
    grid.barrier_wait(std::move(token));
  }
}

// ---- failures ----

__global__ void syncAnyway(int *a) {
  a[blockIdx.x] = 1;
  cg::this_grid().sync();
  a[blockIdx.x] = 2;
}

__global__ void oneBlockLeaves(int *a) {
  if (blockIdx.x == 2) return;
  cg::this_grid().sync();
  a[blockIdx.x] = 1;
}

__global__ void oneBlockFaults(int *a) {
  if (blockIdx.x == 1) a = nullptr;
  a[threadIdx.x] = 1;
  cg::this_grid().sync();
  a[threadIdx.x] = 2;
}

static int failure(const char *mode) {
  int *d;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  cudaError_t want, e;
  if (strcmp(mode, "noncoop") == 0) {
    syncAnyway<<<4, 64>>>(d);
    want = cudaErrorIllegalInstruction;  // cooperative groups trap without a workspace
  } else if (strcmp(mode, "early_exit") == 0) {
    void *args[] = {&d};
    CHECK(cudaLaunchCooperativeKernel((void *)oneBlockLeaves, 4, 64, args, 0, 0));
    want = cudaErrorLaunchTimeout;  // a GPU would wait forever
  } else {
    void *args[] = {&d};
    CHECK(cudaLaunchCooperativeKernel((void *)oneBlockFaults, 4, 64, args, 0, 0));
    want = cudaErrorIllegalAddress;
  }
  e = cudaDeviceSynchronize();
  printf("%s: %s\n", mode, cudaGetErrorName(e));
  return verdict("grid_sync", EXPECT(e == want));
}

// A symmetric, diagonally dominant tridiagonal matrix (CSR), as the samples make it.
static void tridiag(int n, std::vector<int> &rowPtr, std::vector<int> &col, std::vector<float> &val) {
  srand(7);
  rowPtr.assign(1, 0);
  std::vector<float> off(n);
  for (int i = 0; i < n; i++) off[i] = (float)rand() / RAND_MAX;
  for (int i = 0; i < n; i++) {
    if (i > 0) col.push_back(i - 1), val.push_back(off[i - 1]);
    col.push_back(i), val.push_back((float)rand() / RAND_MAX + 10.0f);
    if (i + 1 < n) col.push_back(i + 1), val.push_back(off[i]);
    rowPtr.push_back((int)col.size());
  }
}

template <typename T>
static T *upload(const std::vector<T> &h) {
  T *d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

int main(int argc, char **argv) {
  if (argc > 1) return failure(argv[1]);
  bool ok = true;
  int dev = 0, coop = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));  // what NVIDIA's samples check
  ok &= EXPECT(coop == 1 && prop.cooperativeLaunch == 1);

  // Reduction: blocks from the occupancy calculator, no more than the data needs.
  const unsigned n = 1 << 18, threads = 512;
  std::vector<float> h(n);
  for (unsigned i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 1000) / 100.0f - 5.0f;
  float *dIn = upload(h);
  size_t smem = threads * sizeof(double);
  int perSm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, reduceSinglePass, threads, smem));
  unsigned blocks = std::min((unsigned)(perSm * sms), (n + threads - 1) / threads);
  double *dPartial;
  CHECK(cudaMalloc(&dPartial, (size_t)perSm * sms * sizeof(double)));
  unsigned len = n;
  void *rargs[] = {&dIn, &dPartial, &len};
  CHECK(cudaLaunchCooperativeKernel((void *)reduceSinglePass, blocks, threads, rargs, smem, 0));
  double sum = 0, want = 0;
  CHECK(cudaMemcpy(&sum, dPartial, sizeof sum, cudaMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; i++) want += h[i];
  printf("reduction of %u floats on %u blocks: %.17g (host %.17g)\n", n, blocks, sum, want);
  ok &= EXPECT(fabs(sum - want) <= 1e-6 * fabs(want) + 1e-6);

  // The same with cudaLaunchKernelEx and the cooperative attribute.
  cudaLaunchAttribute at;
  at.id = cudaLaunchAttributeCooperative;
  at.val.cooperative = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.attrs = &at;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, reduceSinglePass, (const float *)dIn, dPartial, len));
  double sum2 = 0;
  CHECK(cudaMemcpy(&sum2, dPartial, sizeof sum2, cudaMemcpyDeviceToHost));
  ok &= EXPECT(sum2 == sum);

  // Conjugate gradient on a tridiagonal system, the solver in one cooperative kernel.
  const int N = 2048, cgThreads = 64;
  std::vector<int> rowPtr, col;
  std::vector<float> val;
  tridiag(N, rowPtr, col, val);
  int *dRow = upload(rowPtr), *dCol = upload(col);
  float *dVal = upload(val), *dX, *dR, *dP, *dAx;
  CHECK(cudaMalloc(&dX, N * sizeof(float)));
  CHECK(cudaMalloc(&dR, N * sizeof(float)));
  CHECK(cudaMalloc(&dP, N * sizeof(float)));
  CHECK(cudaMalloc(&dAx, N * sizeof(float)));
  int *dIter;
  double *dRes;
  CHECK(cudaMalloc(&dIter, sizeof(int)));
  CHECK(cudaMalloc(&dRes, sizeof(double)));
  size_t cgSmem = cgThreads * sizeof(double);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, conjugateGradient, cgThreads, cgSmem));
  unsigned cgBlocks = std::min((unsigned)(perSm * sms), (unsigned)(N + cgThreads - 1) / cgThreads);
  int nn = N, maxIter = 200;
  float tol = 1e-5f;
  void *cargs[] = {&dRow, &dCol, &dVal, &dX, &dR, &dP, &dAx, &dPartial, &nn, &tol, &maxIter, &dIter, &dRes};
  CHECK(cudaLaunchCooperativeKernel((void *)conjugateGradient, cgBlocks, cgThreads, cargs, cgSmem, 0));
  std::vector<float> x(N);
  int iters = 0;
  double res = 0;
  CHECK(cudaMemcpy(x.data(), dX, N * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&iters, dIter, sizeof iters, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&res, dRes, sizeof res, cudaMemcpyDeviceToHost));
  double err = 0;  // |b - A x| on the host, b = 1
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = rowPtr[i]; j < rowPtr[i + 1]; j++) s += (double)val[j] * x[col[j]];
    err = std::max(err, fabs(1.0 - s));
  }
  printf("conjugate gradient, n %d on %u blocks: %d iterations, residual %.9g, max |b - Ax| %.3g, x[0] %.9g\n", N,
         cgBlocks, iters, res, err, x[0]);
  ok &= EXPECT(iters > 1 && iters < maxIter && res <= tol && err < 1e-4);

  // The largest grid that can be resident (occupancy x multiprocessors) shifts data
  // between blocks across syncs; one block more is refused.
  const int ringThreads = 1024, rounds = 2;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, ringShift, ringThreads, 0));
  int maxBlocks = perSm * sms;
  size_t total = (size_t)maxBlocks * ringThreads;
  std::vector<int> ring(total);
  for (size_t i = 0; i < total; i++) ring[i] = (int)i;
  int *dRing = upload(ring);
  int rr = rounds;
  void *gargs[] = {&dRing, &rr};
  CHECK(cudaLaunchCooperativeKernel((void *)ringShift, maxBlocks, ringThreads, gargs, 0, 0));
  CHECK(cudaMemcpy(ring.data(), dRing, total * sizeof(int), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t i = 0; i < total; i++) bad += ring[i] != (int)((i + (size_t)rounds * ringThreads) % total);
  printf("ring shift on %d blocks (%d per multiprocessor): %zu misplaced\n", maxBlocks, perSm, bad);
  ok &= EXPECT(bad == 0);
#ifdef GRID_SYNC_GRAPHS
  // A cooperative launch captured into a graph stays cooperative: the graph, launched
  // twice, moves the data two more rounds.
  cudaStream_t s;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaLaunchCooperativeKernel((void *)ringShift, maxBlocks, ringThreads, gargs, 0, s));
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 2; i++) CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(ring.data(), dRing, total * sizeof(int), cudaMemcpyDeviceToHost));
  bad = 0;
  for (size_t i = 0; i < total; i++) bad += ring[i] != (int)((i + (size_t)3 * rounds * ringThreads) % total);
  printf("ring shift by a captured cooperative launch, twice: %zu misplaced\n", bad);
  ok &= EXPECT(bad == 0);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
#endif
  cudaError_t e = cudaLaunchCooperativeKernel((void *)ringShift, maxBlocks + 1, ringThreads, gargs, 0, 0);
  printf("%d blocks: %s\n", maxBlocks + 1, cudaGetErrorName(e));
  ok &= EXPECT(e == cudaErrorCooperativeLaunchTooLarge);
  ok &= EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
  ok &= EXPECT(cudaDeviceSynchronize() == cudaSuccess);  // refused at the call: nothing broken

  for (void *p : {(void *)dIn, (void *)dPartial, (void *)dRow, (void *)dCol, (void *)dVal, (void *)dX, (void *)dR,
                  (void *)dP, (void *)dAx, (void *)dIter, (void *)dRes, (void *)dRing})
    CHECK(cudaFree(p));
  return verdict("grid_sync", ok);
}
