// sticky_reset: what a process can still do after a kernel faults (issue 28, bringing
// back a lost context). A kernel stores through a wild pointer: the context gets a
// sticky CUDA_ERROR_ILLEGAL_ADDRESS. Then, one question per line:
//   sticky:    does the error stay on later calls?
//   reset:     does a primary-context reset (cudaDeviceReset) succeed?
//   new work:  after it, do an allocation, a kernel and a copy run?
//   same va:   can a VMM reservation be had again at the address used before the fault
//              (gpuft would map the program's allocations back where they were)?
// NVIDIA documents these errors as leaving "the process in an inconsistent state":
// "to continue using CUDA, the process must be terminated and relaunched". The
// simulator does so (a reset does not clear the error). This program asks a real driver
// (tools/gpu-acceptance runs it). It prints its answers; the exit status is 0 when it
// ran to the end, whatever they are. `sticky_reset --die`: a program whose bug faults
// every time: it stops at the fault with exit status 1 (gpuft --restarts gives up).
#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include "samples.h"

__global__ void wild_store(int *p) { p[threadIdx.x] = 1; }
__global__ void fill(int *p, int v) { p[threadIdx.x] = v + (int)threadIdx.x; }

static const char *name(cudaError_t e) { return e == cudaSuccess ? "success" : cudaGetErrorName(e); }

// A reservation of `size` bytes at `at` (0: anywhere), mapped and accessible: its
// address, or 0 (why on stderr).
static CUdeviceptr reserve_at(CUdeviceptr at, size_t size) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t gran = 0;
  if (cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || !gran)
    return 0;
  size = (size + gran - 1) / gran * gran;
  CUdeviceptr va = 0;
  CUmemGenericAllocationHandle h;
  CUresult r = cuMemAddressReserve(&va, size, 0, at, 0);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "sticky_reset: cuMemAddressReserve: %d\n", (int)r);
    return 0;
  }
  CUmemAccessDesc acc = {};
  acc.location = prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (cuMemCreate(&h, size, &prop, 0) != CUDA_SUCCESS || cuMemMap(va, size, 0, h, 0) != CUDA_SUCCESS ||
      cuMemSetAccess(va, size, &acc, 1) != CUDA_SUCCESS) {
    fprintf(stderr, "sticky_reset: cannot map the reservation\n");
    return 0;
  }
  return va;
}

int main(int argc, char **argv) {
  const bool die = argc > 1 && argv[1][0] == '-' && argv[1][1] == '-' && argv[1][2] == 'd';
  CHECK(cudaFree(0)); // the primary context
  const size_t size = 1 << 21;
  CUdeviceptr before = reserve_at(0, size);
  printf("sticky_reset: reservation before the fault at 0x%llx\n", (unsigned long long)before);
  wild_store<<<1, 32>>>((int *)(uintptr_t)0x10); // a page no allocation holds
  cudaError_t fault = cudaDeviceSynchronize();
  printf("fault:    %s\n", name(fault));
  if (die) return 1;
  int *probe = nullptr;
  cudaError_t later = cudaMalloc(&probe, 64);
  printf("sticky:   %s (a later cudaMalloc: %s)\n", later != cudaSuccess ? "yes" : "no", name(later));
  cudaError_t reset = cudaDeviceReset();
  printf("reset:    %s\n", name(reset));
  int *d = nullptr, h[32] = {0};
  cudaError_t e = cudaMalloc(&d, sizeof h);
  if (e == cudaSuccess) {
    fill<<<1, 32>>>(d, 100);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  bool right = e == cudaSuccess && h[0] == 100 && h[31] == 131;
  printf("new work: %s (%s)\n", right ? "yes" : "no", name(e));
  CUdeviceptr again = right && before ? reserve_at(before, size) : 0;
  printf("same va:  %s (0x%llx)\n", again && again == before ? "yes" : "no", (unsigned long long)again);
  printf("sticky_reset: done\n");
  return 0;
}
