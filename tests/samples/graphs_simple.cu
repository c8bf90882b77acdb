// graphs_simple: the simpleCudaGraphs pattern: a reduction built twice, once as an
// explicit graph (memcpy, memset, kernel and host nodes with dependencies) and once
// by stream capture forked over two streams and joined with events; both graphs
// instantiated, the second cloned, each launched several times and checked.
#include <vector>
#include "samples.h"

#define THREADS 256

__global__ void reduce(const float *in, double *partial, size_t n) {
  __shared__ double s[THREADS];
  double v = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void reduce_final(const double *partial, double *out, int n) {
  __shared__ double s[THREADS];
  double v = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += partial[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = s[0];
}

struct result {
  double *host_sum;  // pinned, written by the D2H copy node
  double expected;
  int checked, wrong;
};

static void CUDART_CB check_sum(void *p) {
  result *r = (result *)p;
  r->checked++;
  if (*r->host_sum != r->expected) {
    printf("sum %.17g, expected %.17g\n", *r->host_sum, r->expected);
    r->wrong++;
  }
  *r->host_sum = 0;
}

int main() {
  const size_t n = 1 << 16;
  const int blocks = 64;
  float *in_h, *in_d;
  double *partial_d, *sum_d;
  result r = {};
  CHECK(cudaMallocHost(&in_h, n * sizeof(float)));
  CHECK(cudaMallocHost(&r.host_sum, sizeof(double)));
  CHECK(cudaMalloc(&in_d, n * sizeof(float)));
  CHECK(cudaMalloc(&partial_d, blocks * sizeof(double)));
  CHECK(cudaMalloc(&sum_d, sizeof(double)));
  for (size_t i = 0; i < n; i++) in_h[i] = (float)(i % 17);
  for (size_t i = 0; i < n; i++) r.expected += in_h[i];

  // 1. the explicit graph
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t copy_in, clear, k1, k2, copy_out, host;
  cudaMemcpy3DParms mp = {};
  mp.srcPtr = make_cudaPitchedPtr(in_h, n * sizeof(float), n, 1);
  mp.dstPtr = make_cudaPitchedPtr(in_d, n * sizeof(float), n, 1);
  mp.extent = make_cudaExtent(n * sizeof(float), 1, 1);
  mp.kind = cudaMemcpyHostToDevice;
  CHECK(cudaGraphAddMemcpyNode(&copy_in, graph, NULL, 0, &mp));
  cudaMemsetParams ms = {};
  ms.dst = partial_d;
  ms.value = 0;
  ms.elementSize = 4;
  ms.width = blocks * 2;
  ms.height = 1;
  CHECK(cudaGraphAddMemsetNode(&clear, graph, NULL, 0, &ms));
  size_t nn = n;
  void *a1[] = {&in_d, &partial_d, &nn};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)reduce;
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(THREADS);
  kp.kernelParams = a1;
  std::vector<cudaGraphNode_t> deps = {copy_in, clear};
  CHECK(cudaGraphAddKernelNode(&k1, graph, deps.data(), deps.size(), &kp));
  int nb = blocks;
  void *a2[] = {&partial_d, &sum_d, &nb};
  kp.func = (void *)reduce_final;
  kp.gridDim = dim3(1);
  kp.kernelParams = a2;
  CHECK(cudaGraphAddKernelNode(&k2, graph, &k1, 1, &kp));
  CHECK(cudaGraphAddMemcpyNode1D(&copy_out, graph, &k2, 1, r.host_sum, sum_d, sizeof(double),
                                 cudaMemcpyDeviceToHost));
  cudaHostNodeParams hp = {check_sum, &r};
  CHECK(cudaGraphAddHostNode(&host, graph, &copy_out, 1, &hp));
  size_t count = 0;
  CHECK(cudaGraphGetNodes(graph, NULL, &count));
  bool ok = count == 6;

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 5; i++) CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));

  // 2. the same by stream capture, forked over two streams
  cudaStream_t s2;
  cudaEvent_t fork, join;
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&fork));
  CHECK(cudaEventCreate(&join));
  cudaGraph_t captured;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  CHECK(cudaMemcpyAsync(in_d, in_h, n * sizeof(float), cudaMemcpyHostToDevice, s));
  CHECK(cudaMemsetAsync(partial_d, 0, blocks * sizeof(double), s2));
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s, join, 0));
  reduce<<<blocks, THREADS, 0, s>>>(in_d, partial_d, n);
  reduce_final<<<1, THREADS, 0, s>>>(partial_d, sum_d, blocks);
  CHECK(cudaMemcpyAsync(r.host_sum, sum_d, sizeof(double), cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, check_sum, &r));
  CHECK(cudaStreamEndCapture(s, &captured));
  ok = ok && r.checked == 5;  // nothing ran during the capture
  CHECK(cudaGraphGetNodes(captured, NULL, &count));
  ok = ok && count == 6;
  cudaGraph_t cloned;
  CHECK(cudaGraphClone(&cloned, captured));
  cudaGraphExec_t exec2, exec3;
  CHECK(cudaGraphInstantiate(&exec2, captured, 0));
  CHECK(cudaGraphInstantiate(&exec3, cloned, 0));
  for (int i = 0; i < 5; i++) {
    CHECK(cudaGraphLaunch(exec2, s));
    CHECK(cudaGraphLaunch(exec3, s));
  }
  CHECK(cudaStreamSynchronize(s));
  ok = ok && r.checked == 15 && r.wrong == 0;
  printf("graph launches checked: %d\n", r.checked);

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphExecDestroy(exec2));
  CHECK(cudaGraphExecDestroy(exec3));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaGraphDestroy(captured));
  CHECK(cudaGraphDestroy(cloned));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFree(in_d));
  CHECK(cudaFree(partial_d));
  CHECK(cudaFree(sum_d));
  CHECK(cudaFreeHost(in_h));
  CHECK(cudaFreeHost(r.host_sum));
  return verdict("graphs_simple", ok);
}
