// graph_memnodes: the graphMemoryNodes pattern: graph memory from stream capture
// (cudaMallocAsync/cudaFreeAsync inside the capture, forked over two streams) and
// from explicit nodes (cudaGraphAddMemAllocNode, a free left to a second graph
// holding only cudaGraphAddMemFreeNode, or to cudaFreeAsync after the launch);
// the device's graph memory attributes around them; every result checked.
#include <cstring>
#include "samples.h"

__global__ void fill(int *a, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = v + i;
}

__global__ void add(const int *a, const int *b, int *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static bool check(const int *h, int n, int v) {
  for (int i = 0; i < n; i++)
    if (h[i] != 2 * (v + i) + 1) {
      printf("h[%d] = %d, expected %d\n", i, h[i], 2 * (v + i) + 1);
      return false;
    }
  return true;
}

int main() {
  const int n = 1 << 14, blocks = n / 256;
  const size_t bytes = n * sizeof(int);
  int *h;
  CHECK(cudaMallocHost(&h, bytes));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreate(&fork));
  CHECK(cudaEventCreate(&join));
  bool ok = true;

  // 1. captured: a and b allocated on two streams, c = a + b, all freed in the graph
  int *a, *b, *c;
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  CHECK(cudaMallocAsync(&a, bytes, s1));
  CHECK(cudaMallocAsync(&b, bytes, s2));
  fill<<<blocks, 256, 0, s1>>>(a, 5, n);
  fill<<<blocks, 256, 0, s2>>>(b, 6, n);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  CHECK(cudaMallocAsync(&c, bytes, s1));
  add<<<blocks, 256, 0, s1>>>(a, b, c, n);
  CHECK(cudaMemcpyAsync(h, c, bytes, cudaMemcpyDeviceToHost, s1));
  CHECK(cudaFreeAsync(a, s1));
  CHECK(cudaFreeAsync(b, s1));
  CHECK(cudaFreeAsync(c, s1));
  CHECK(cudaStreamEndCapture(s1, &g));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int i = 0; i < 4; i++) {
    memset(h, 0, bytes);
    CHECK(cudaGraphLaunch(e, s1));
    CHECK(cudaStreamSynchronize(s1));
    ok = ok && check(h, n, 5);  // 5 + i + 6 + i = 2 (5 + i) + 1
  }
  unsigned long long used = 1, reserved = 0;
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
  printf("after the captured graph: graph memory used %llu, reserved %llu\n", (unsigned long long)used,
         (unsigned long long)reserved);
  // graph memory stays mapped after the graph freed it (32 MiB at a time on an H100):
  // used and reserved read alike until a trim
  ok &= EXPECT(used == reserved && reserved >= 3 * bytes);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
  printf("after destroying it: used %llu, reserved %llu\n", used, reserved);

  // 2. explicit: alloc nodes, no free node; the memory outlives the launch
  cudaGraph_t ga;
  CHECK(cudaGraphCreate(&ga, 0));
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = bytes;
  cudaGraphNode_t an, kn;
  CHECK(cudaGraphAddMemAllocNode(&an, ga, NULL, 0, &ap));
  int *d = (int *)ap.dptr;
  int v = 20, nn = n;
  void *args[] = {&d, &v, &nn};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)fill;
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(256);
  kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&kn, ga, &an, 1, &kp));
  // the graph that frees it
  cudaGraph_t gf;
  cudaGraphNode_t fn;
  CHECK(cudaGraphCreate(&gf, 0));
  CHECK(cudaGraphAddMemFreeNode(&fn, gf, NULL, 0, d));
  cudaGraphExec_t ea, ef;
  CHECK(cudaGraphInstantiate(&ea, ga, 0));
  CHECK(cudaGraphInstantiate(&ef, gf, 0));
  for (int i = 0; i < 3; i++) {
    CHECK(cudaGraphLaunch(ea, s1));
    CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s1));  // allocated between the graphs
    CHECK(cudaStreamSynchronize(s1));
    for (int k = 0; k < n && ok; k++) ok = h[k] == 20 + k;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    printf("explicit graph, launch %d: used %llu\n", i, used);
    ok &= EXPECT(used >= bytes);
    if (i % 2 == 0) CHECK(cudaGraphLaunch(ef, s1));  // freed by the free graph
    else CHECK(cudaFreeAsync(d, s1));                 // or in stream order
  }
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  printf("all freed: used %llu\n", used);
  CHECK(cudaDeviceGraphMemTrim(0));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
  printf("after the trim: used %llu, reserved %llu\n", used, reserved);
  ok &= EXPECT(used == 0 && reserved == 0);
  CHECK(cudaGraphExecDestroy(ea));
  CHECK(cudaGraphExecDestroy(ef));
  CHECK(cudaGraphDestroy(ga));
  CHECK(cudaGraphDestroy(gf));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFreeHost(h));
  return verdict("graph_memnodes", ok);
}
