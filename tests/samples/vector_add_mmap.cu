// vector_add_mmap.cu: vector addition on memory mapped with the virtual memory
// management API, the way NVIDIA's vectorAddMMAP does it: one virtual range striped
// over the physical memory of every device that can reach device 0 as a peer,
// made accessible to all of them with cuMemSetAccess, used by an ordinary kernel
// and ordinary copies; then unmapped and freed.
#include <cuda.h>

#include <cstring>
#include <vector>

#include "samples.h"

__global__ void VecAdd_kernel(const float *A, const float *B, float *C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

static size_t round_up(size_t x, size_t y) { return ((x + y - 1) / y) * y; }

// Reserves a range and backs it with one stripe per backing device; every mapping
// device gets read-write access.
static void simpleMallocMultiDeviceMmap(CUdeviceptr *dptr, size_t *allocationSize, size_t size,
                                        const std::vector<CUdevice> &backingDevices,
                                        const std::vector<CUdevice> &mappingDevices) {
  size_t min_granularity = 0;
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  for (CUdevice d : backingDevices) {
    size_t g = 0;
    prop.location.id = d;
    CU(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    if (g > min_granularity) min_granularity = g;
  }
  for (CUdevice d : mappingDevices) {
    size_t g = 0;
    prop.location.id = d;
    CU(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    if (g > min_granularity) min_granularity = g;
  }
  size = round_up(size, backingDevices.size() * min_granularity);
  size_t stripeSize = size / backingDevices.size();
  CU(cuMemAddressReserve(dptr, size, 0, 0, 0));
  for (size_t idx = 0; idx < backingDevices.size(); idx++) {
    CUmemGenericAllocationHandle h;
    prop.location.id = backingDevices[idx];
    CU(cuMemCreate(&h, stripeSize, &prop, 0));
    CU(cuMemMap(*dptr + stripeSize * idx, stripeSize, 0, h, 0));
    CU(cuMemRelease(h)); // the mapping keeps the memory
  }
  std::vector<CUmemAccessDesc> acc(mappingDevices.size());
  for (size_t idx = 0; idx < mappingDevices.size(); idx++) {
    acc[idx].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc[idx].location.id = mappingDevices[idx];
    acc[idx].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  CU(cuMemSetAccess(*dptr, size, acc.data(), acc.size()));
  *allocationSize = size;
}

static void simpleFreeMultiDeviceMmap(CUdeviceptr dptr, size_t size) {
  CU(cuMemUnmap(dptr, size));
  CU(cuMemAddressFree(dptr, size));
}

int main() {
  const int N = (1 << 20) + 12345; // spans the stripes of two devices
  const size_t size = N * sizeof(float);
  CHECK(cudaSetDevice(0));
  CUdevice cuDevice;
  CU(cuDeviceGet(&cuDevice, 0));
  int attributeVal = 0;
  CU(cuDeviceGetAttribute(&attributeVal, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, cuDevice));
  printf("Device %d VIRTUAL ADDRESS MANAGEMENT SUPPORTED = %d.\n", cuDevice, attributeVal);
  if (!attributeVal) {
    printf("Device %d doesn't support VIRTUAL ADDRESS MANAGEMENT.\n", cuDevice);
    return 2;
  }
  // Backing devices: device 0 and every device that can read it as a peer.
  int count = 0;
  CU(cuDeviceGetCount(&count));
  std::vector<CUdevice> backing{cuDevice};
  for (int d = 1; d < count; d++) {
    int can = 0;
    CU(cuDeviceCanAccessPeer(&can, cuDevice, d));
    if (can) backing.push_back(d);
  }
  std::vector<float> hA(N), hB(N), hC(N);
  for (int i = 0; i < N; i++) {
    hA[i] = float(i % 1000) * 0.5f;
    hB[i] = float(i % 777) * 0.25f;
  }
  CUdeviceptr dA, dB, dC;
  size_t allocationSize = 0;
  simpleMallocMultiDeviceMmap(&dA, &allocationSize, size, backing, backing);
  simpleMallocMultiDeviceMmap(&dB, &allocationSize, size, backing, backing);
  simpleMallocMultiDeviceMmap(&dC, &allocationSize, size, backing, backing);
  printf("%zu backing device(s), %zu bytes per vector\n", backing.size(), allocationSize);
  CHECK(cudaMemcpy((void *)dA, hA.data(), size, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy((void *)dB, hB.data(), size, cudaMemcpyHostToDevice));
  int threadsPerBlock = 256, blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
  VecAdd_kernel<<<blocksPerGrid, threadsPerBlock>>>((const float *)dA, (const float *)dB, (float *)dC, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hC.data(), (void *)dC, size, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < N; i++) ok = ok && hC[i] == hA[i] + hB[i];
  // The stripes lie on their devices.
  if (backing.size() > 1) {
    int ord = -1;
    CU(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dA + allocationSize - 1));
    ok = ok && ord == backing.back();
  }
  simpleFreeMultiDeviceMmap(dA, allocationSize);
  simpleFreeMultiDeviceMmap(dB, allocationSize);
  simpleFreeMultiDeviceMmap(dC, allocationSize);
  return verdict("vector_add_mmap", ok);
}
