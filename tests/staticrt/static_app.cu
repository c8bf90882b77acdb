// static_app.cu: an ordinary CUDA program built the default way (nvcc links the
// static runtime, libcudart_static.a), checking its own result: kernels with
// shared memory and atomics, a __constant__ table, streams, events and async
// copies from pinned memory, device properties, a device reset and a second run.
//   static_app            the program; prints PASSED
//   static_app --private  calls a private driver entry the simulator does not emulate
#include <cstdio>
#include <cstring>
#include <cuda.h>

__constant__ float scale[4];

__global__ void saxpy(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale[i & 3] * x[i] + y[i];
}

__global__ void block_sums(const float *y, float *sums, unsigned *count, int n) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? y[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = part[0];
    atomicAdd(count, 1u);
  }
}

#define CHECK(call)                                                             \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
              cudaGetErrorString(e_));                                          \
      return 2;                                                                 \
    }                                                                           \
  } while (0)

static int run(int round) {
  const int n = 1 << 14, threads = 256, blocks = n / threads;
  const float sc[4] = {1.0f, 2.0f, 0.5f, -1.0f};
  float *hx, *hy, hs[64];
  CHECK(cudaMallocHost(&hx, n * sizeof(float)));
  CHECK(cudaMallocHost(&hy, n * sizeof(float)));
  for (int i = 0; i < n; i++) hx[i] = (float)(i % 7), hy[i] = (float)(i % 5);
  float *dx, *dy, *ds;
  unsigned *dc, hc = 0;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&ds, blocks * sizeof(float)));
  CHECK(cudaMalloc(&dc, sizeof(unsigned)));
  CHECK(cudaMemcpyToSymbol(scale, sc, sizeof sc));
  cudaStream_t s;
  cudaEvent_t a, b;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaEventRecord(a, s));
  CHECK(cudaMemcpyAsync(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice, s));
  CHECK(cudaMemcpyAsync(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice, s));
  CHECK(cudaMemsetAsync(dc, 0, sizeof(unsigned), s));
  saxpy<<<blocks, threads, 0, s>>>(dx, dy, n);
  CHECK(cudaGetLastError());
  block_sums<<<blocks, threads, 0, s>>>(dy, ds, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaMemcpyAsync(hs, ds, blocks * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaMemcpyAsync(&hc, dc, sizeof hc, cudaMemcpyDeviceToHost, s));
  CHECK(cudaEventRecord(b, s));
  CHECK(cudaEventSynchronize(b));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  int bad = ms < 0 || hc != (unsigned)blocks;
  for (int blk = 0; blk < blocks; blk++) {
    float sum = 0;
    for (int t = 0; t < threads; t++) {
      int i = blk * threads + t;
      float y = sc[i & 3] * (float)(i % 7) + (float)(i % 5);
      if (hy[i] != y) bad = 1;
      sum += y;
    }
    if (hs[blk] != sum) bad = 1; // small integers and halves: exact in any order
  }
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(ds));
  CHECK(cudaFree(dc));
  CHECK(cudaFreeHost(hx));
  CHECK(cudaFreeHost(hy));
  printf("round %d: %s (%d blocks counted)\n", round, bad ? "WRONG" : "right", hc);
  return bad;
}

// A private export-table slot the simulator does not emulate, reached the way the
// runtime reaches it (cuGetExportTable through the driver entry-point query).
static int call_private(void) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuGetExportTable", &fn, 13000, cudaEnableDefault, &q));
  const CUuuid cudart_interface = {{0x6b, (char)0xd5, (char)0xfb, 0x6c, 0x5b, (char)0xf4, (char)0xe7, 0x4a,
                                    (char)0x89, (char)0x87, (char)0xd9, 0x39, 0x12, (char)0xfd, (char)0x9d,
                                    (char)0xf9}};
  const void *tab = nullptr;
  CUresult r = ((CUresult(*)(const void **, const CUuuid *))fn)(&tab, &cudart_interface);
  if (r != CUDA_SUCCESS || !tab) return printf("no table: %d\n", (int)r), 1;
  r = ((CUresult(*)(void))((void *const *)tab)[1])();
  printf("private slot: CUresult %d\n", (int)r);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--private")) return call_private();
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int rt = 0;
  CHECK(cudaRuntimeGetVersion(&rt));
  printf("device: %s (sm_%d%d), runtime %d\n", p.name, p.major, p.minor, rt);
  int bad = run(1);
  CHECK(cudaDeviceReset()); // the runtime's per-context state must start over
  bad |= run(2);
  printf("%s\n", bad ? "FAILED" : "PASSED");
  return bad;
}
