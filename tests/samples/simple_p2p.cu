// simple_p2p.cu: peer-to-peer between two GPUs, written the way NVIDIA's simpleP2P
// is: peer capability, peer access enabled both ways, copies between the GPUs
// under unified addressing, and a kernel on each GPU reading the other's memory.
// With --without-peer-access the kernel reads the peer's memory without enabling
// access first and must fail with cudaErrorIllegalAddress, as on a GPU.
#include <cstring>
#include <vector>

#include "samples.h"

__global__ void SimpleKernel(const float *src, float *dst) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  dst[idx] = src[idx] * 2.0f;
}

int main(int argc, char **argv) {
  int gpu_n = 0;
  CHECK(cudaGetDeviceCount(&gpu_n));
  printf("CUDA-capable device count: %i\n", gpu_n);
  if (gpu_n < 2) {
    printf("Two or more GPUs with Peer-to-Peer access capability are required for %s.\nWaiving test.\n", argv[0]);
    return 2;
  }
  int can01 = 0, can10 = 0, can00 = 1;
  CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
  CHECK(cudaDeviceCanAccessPeer(&can10, 1, 0));
  CHECK(cudaDeviceCanAccessPeer(&can00, 0, 0));
  printf("> Peer access from GPU0 -> GPU1 : %s\n", can01 ? "Yes" : "No");
  printf("> Peer access from GPU1 -> GPU0 : %s\n", can10 ? "Yes" : "No");
  if (!can01 || !can10 || can00) return verdict("simple_p2p", false);
  const int N = 1024 * 1024;
  const size_t buf_size = N * sizeof(float);
  float *g0, *g1, *h0;
  CHECK(cudaSetDevice(0));
  CHECK(cudaMalloc(&g0, buf_size));
  CHECK(cudaSetDevice(1));
  CHECK(cudaMalloc(&g1, buf_size));
  CHECK(cudaMallocHost(&h0, buf_size));
  if (argc > 1 && strcmp(argv[1], "--without-peer-access") == 0) {
    SimpleKernel<<<N / 512, 512>>>(g0, g1); // GPU1 reads GPU0's memory, no access
    cudaError_t e = cudaDeviceSynchronize();
    printf("kernel on GPU1 reading GPU0 without peer access: %s\n", cudaGetErrorName(e));
    return verdict("simple_p2p", e == cudaErrorIllegalAddress);
  }
  printf("Enabling peer access between GPU0 and GPU1...\n");
  CHECK(cudaSetDevice(0));
  CHECK(cudaDeviceEnablePeerAccess(1, 0));
  if (cudaDeviceEnablePeerAccess(1, 0) != cudaErrorPeerAccessAlreadyEnabled) return verdict("simple_p2p", false);
  (void)cudaGetLastError();
  CHECK(cudaSetDevice(1));
  CHECK(cudaDeviceEnablePeerAccess(0, 0));
  // Unified addressing: each pointer names its device.
  cudaPointerAttributes a0, a1;
  CHECK(cudaPointerGetAttributes(&a0, g0));
  CHECK(cudaPointerGetAttributes(&a1, g1));
  printf("> g0 on device %d, g1 on device %d\n", a0.device, a1.device);
  bool ok = a0.device == 0 && a1.device == 1 && a0.type == cudaMemoryTypeDevice;
  // Ping-pong copies between the GPUs (cudaMemcpyDefault: UVA infers the direction).
  for (int i = 0; i < N; i++) h0[i] = float(i % 4096);
  CHECK(cudaMemcpy(g0, h0, buf_size, cudaMemcpyDefault));
  for (int i = 0; i < 10; i++) {
    if (i % 2 == 0) CHECK(cudaMemcpy(g1, g0, buf_size, cudaMemcpyDefault));
    else CHECK(cudaMemcpy(g0, g1, buf_size, cudaMemcpyDefault));
  }
  // A kernel on GPU1 reads GPU0's memory and writes its own; then the reverse.
  printf("Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...\n");
  CHECK(cudaSetDevice(1));
  SimpleKernel<<<N / 512, 512>>>(g0, g1);
  CHECK(cudaDeviceSynchronize());
  printf("Run kernel on GPU0, taking source data from GPU1 and writing to GPU0...\n");
  CHECK(cudaSetDevice(0));
  SimpleKernel<<<N / 512, 512>>>(g1, g0);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h0, g0, buf_size, cudaMemcpyDefault));
  int errors = 0;
  for (int i = 0; i < N; i++)
    if (h0[i] != float(i % 4096) * 4.0f && errors++ < 5)
      fprintf(stderr, "Verification error @ element %i: val = %f, ref = %f\n", i, h0[i], float(i % 4096) * 4.0f);
  // An explicit peer copy back to GPU1, checked there.
  CHECK(cudaMemcpyPeer(g1, 1, g0, 0, buf_size));
  std::vector<float> back(N);
  CHECK(cudaMemcpy(back.data(), g1, buf_size, cudaMemcpyDeviceToHost));
  ok = ok && errors == 0 && memcmp(back.data(), h0, buf_size) == 0;
  printf("Disabling peer access...\n");
  CHECK(cudaSetDevice(0));
  CHECK(cudaDeviceDisablePeerAccess(1));
  ok = ok && cudaDeviceDisablePeerAccess(1) == cudaErrorPeerAccessNotEnabled;
  (void)cudaGetLastError();
  CHECK(cudaSetDevice(1));
  CHECK(cudaDeviceDisablePeerAccess(0));
  CHECK(cudaFreeHost(h0));
  CHECK(cudaFree(g1));
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(g0));
  return verdict("simple_p2p", ok);
}
