// vmm_pool.cu: a caching allocator's expandable segment, the way PyTorch's
// (expandable_segments:True) builds one: a large virtual range reserved once,
// physical chunks of the allocation granularity created, mapped and made
// accessible at its end as tensors need them, while earlier tensors live and hold
// data kernels produced; tensors cross chunk boundaries; then the tail is unmapped
// and the live tensors are used again. Integer arithmetic: the host checks every
// word. Optional argument: steps (default 6). Mode `alias` maps one physical chunk at
// two addresses, writes through one and reads through the other; mode `holes` maps
// chunks 0 and 2 first, fills the hole between them while both hold data, then
// unmaps it again.
#include <cuda.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "samples.h"

__host__ __device__ static uint32_t hash32(uint32_t i, uint32_t seed) {
  uint32_t h = i * 2654435761u ^ seed;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  return h ^ (h >> 12);
}

__global__ void fill(uint32_t *x, uint32_t seed, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = hash32((uint32_t)i, seed);
}

__global__ void mix(uint32_t *x, const uint32_t *y, uint32_t k, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 3u + y[i] + k;
}

// One expandable segment: [base, base + mapped) is mapped and accessible.
struct Segment {
  CUdeviceptr base = 0;
  size_t reserved = 0, mapped = 0, used = 0, gran = 0;
  std::vector<CUmemGenericAllocationHandle> chunks;
  CUmemAllocationProp prop = {};

  void init(size_t reserve) {
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    reserved = (reserve + gran - 1) / gran * gran;
    CU(cuMemAddressReserve(&base, reserved, 0, 0, 0));
  }
  void map_to(size_t bytes) {
    while (mapped < bytes) {
      CUmemGenericAllocationHandle h;
      CU(cuMemCreate(&h, gran, &prop, 0));
      CU(cuMemMap(base + mapped, gran, 0, h, 0));
      CUmemAccessDesc acc = {};
      acc.location = prop.location;
      acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      CU(cuMemSetAccess(base + mapped, gran, &acc, 1));
      chunks.push_back(h);
      mapped += gran;
    }
  }
  void unmap_to(size_t bytes) {
    while (mapped >= bytes + gran) {
      mapped -= gran;
      CU(cuMemUnmap(base + mapped, gran));
      CU(cuMemRelease(chunks.back()));
      chunks.pop_back();
    }
  }
  uint32_t *alloc(size_t words) {
    size_t off = (used + 511) / 512 * 512;
    used = off + words * 4;
    map_to(used);
    return (uint32_t *)(base + off);
  }
  void release() {
    unmap_to(0);
    CU(cuMemAddressFree(base, reserved));
  }
};

struct Tensor {
  uint32_t *d;
  std::vector<uint32_t> h;
};

static void launch_fill(Tensor &t, uint32_t seed) {
  size_t n = t.h.size();
  fill<<<(unsigned)((n + 255) / 256), 256>>>(t.d, seed, n);
  for (size_t i = 0; i < n; i++) t.h[i] = hash32((uint32_t)i, seed);
}

static void launch_mix(Tensor &x, const Tensor &y, uint32_t k) {
  size_t n = x.h.size();
  mix<<<(unsigned)((n + 255) / 256), 256>>>(x.d, y.d, k, n);
  for (size_t i = 0; i < n; i++) x.h[i] = x.h[i] * 3u + y.h[i] + k;
}

static bool same(const Tensor &t, const char *what) {
  std::vector<uint32_t> back(t.h.size());
  CHECK(cudaMemcpy(back.data(), t.d, back.size() * 4, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < back.size(); i++)
    if (back[i] != t.h[i]) {
      printf("%s: word %zu is %#x, expected %#x\n", what, i, back[i], t.h[i]);
      return false;
    }
  return true;
}

static int pool(int steps) {
  Segment seg;
  seg.init((size_t)64 << 20);
  const size_t words = (size_t)3 << 18; // 3 MiB: every other tensor crosses a chunk boundary
  std::vector<Tensor> live;
  bool ok = true;
  // an uploaded tensor and a device-produced one
  Tensor w{seg.alloc(words), std::vector<uint32_t>(words)};
  for (size_t i = 0; i < words; i++) w.h[i] = hash32((uint32_t)i, 77u) | 1u;
  CHECK(cudaMemcpy(w.d, w.h.data(), words * 4, cudaMemcpyHostToDevice));
  live.push_back(w);
  for (int s = 0; s < steps; s++) {
    // the segment grows while the earlier tensors hold their data
    Tensor t{seg.alloc(words), std::vector<uint32_t>(words)};
    launch_fill(t, (uint32_t)s + 1);
    live.push_back(t);
    for (size_t k = 1; k < live.size(); k++) launch_mix(live[k], live[k - 1], (uint32_t)(s * 7 + k));
    CHECK(cudaDeviceSynchronize());
  }
  for (size_t k = 0; k < live.size(); k++) ok = ok && same(live[k], "after growing");
  printf("%zu tensors in %zu MiB of %zu MiB mapped\n", live.size(), seg.mapped >> 20, seg.reserved >> 20);
  // the tail goes (as a cache's empty_cache would): the tensors left keep their data
  size_t keep = live.size() / 2 + 1;
  live.resize(keep);
  seg.used = (size_t)((char *)(live.back().d + words) - (char *)seg.base);
  seg.unmap_to(seg.used);
  for (int s = 0; s < 3; s++)
    for (size_t k = 1; k < live.size(); k++) launch_mix(live[k], live[k - 1], (uint32_t)(100 + s + k));
  CHECK(cudaDeviceSynchronize());
  for (size_t k = 0; k < live.size(); k++) ok = ok && same(live[k], "after shrinking");
  printf("%zu tensors in %zu MiB mapped after the tail was unmapped\n", live.size(), seg.mapped >> 20);
  seg.release();
  return verdict("vmm_pool", ok);
}

// One physical chunk at two addresses: a kernel writes through one mapping, the host
// reads through the other (a program may do this; gpuft must not take it for damage).
static int alias() {
  Segment a, b;
  a.init((size_t)2 << 20);
  b.init((size_t)2 << 20);
  a.map_to(a.gran);
  CU(cuMemMap(b.base, b.gran, 0, a.chunks[0], 0));
  CUmemAccessDesc acc = {};
  acc.location = a.prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(b.base, b.gran, &acc, 1));
  size_t n = a.gran / 4;
  Tensor x{(uint32_t *)a.base, std::vector<uint32_t>(n)}, y{(uint32_t *)b.base, std::vector<uint32_t>(n)};
  launch_fill(x, 5);
  CHECK(cudaDeviceSynchronize());
  y.h = x.h;
  launch_mix(y, y, 9); // through the second mapping
  CHECK(cudaDeviceSynchronize());
  x.h = y.h;
  bool ok = same(x, "first mapping") && same(y, "second mapping");
  CU(cuMemUnmap(b.base, b.gran));
  CU(cuMemAddressFree(b.base, b.reserved));
  a.release();
  return verdict("vmm_pool alias", ok);
}

// Chunks 0 and 2, then the hole between them, then the hole unmapped again: the data
// on both sides survives each change.
static int holes() {
  Segment seg;
  seg.init((size_t)6 << 20);
  size_t g = seg.gran, n = g / 4;
  CUmemAccessDesc acc = {};
  acc.location = seg.prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CUmemGenericAllocationHandle h[3];
  for (int c = 0; c < 3; c += 2) {
    CU(cuMemCreate(&h[c], g, &seg.prop, 0));
    CU(cuMemMap(seg.base + c * g, g, 0, h[c], 0));
    CU(cuMemSetAccess(seg.base + c * g, g, &acc, 1));
  }
  Tensor a{(uint32_t *)seg.base, std::vector<uint32_t>(n)}, c{(uint32_t *)(seg.base + 2 * g), std::vector<uint32_t>(n)};
  launch_fill(a, 1);
  launch_fill(c, 2);
  launch_mix(c, a, 3);
  CHECK(cudaDeviceSynchronize());
  bool ok = same(a, "chunk 0") && same(c, "chunk 2");
  CU(cuMemCreate(&h[1], g, &seg.prop, 0));
  CU(cuMemMap(seg.base + g, g, 0, h[1], 0));
  CU(cuMemSetAccess(seg.base + g, g, &acc, 1));
  // one tensor over all three chunks
  Tensor all{(uint32_t *)seg.base, std::vector<uint32_t>(3 * n)};
  memcpy(all.h.data(), a.h.data(), n * 4);
  for (size_t i = 0; i < n; i++) all.h[n + i] = hash32((uint32_t)i, 4u);
  CHECK(cudaMemcpy((uint32_t *)(seg.base + g), all.h.data() + n, g, cudaMemcpyHostToDevice));
  memcpy(all.h.data() + 2 * n, c.h.data(), n * 4);
  Tensor twice{all.d, all.h};
  launch_mix(all, twice, 5);
  CHECK(cudaDeviceSynchronize());
  ok = ok && same(all, "three chunks");
  memcpy(a.h.data(), all.h.data(), n * 4);
  memcpy(c.h.data(), all.h.data() + 2 * n, n * 4);
  CU(cuMemUnmap(seg.base + g, g));
  CU(cuMemRelease(h[1]));
  launch_mix(a, c, 7);
  CHECK(cudaDeviceSynchronize());
  ok = ok && same(a, "chunk 0, hole unmapped") && same(c, "chunk 2, hole unmapped");
  CU(cuMemUnmap(seg.base, g));
  CU(cuMemUnmap(seg.base + 2 * g, g));
  CU(cuMemRelease(h[0]));
  CU(cuMemRelease(h[2]));
  CU(cuMemAddressFree(seg.base, seg.reserved));
  return verdict("vmm_pool holes", ok);
}

int main(int argc, char **argv) {
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(0));
  int vmm = 0;
  CU(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
  if (!vmm) {
    printf("no virtual memory management on device 0\n");
    return 2;
  }
  if (argc > 1 && !strcmp(argv[1], "alias")) return alias();
  if (argc > 1 && !strcmp(argv[1], "holes")) return holes();
  return pool(argc > 1 ? atoi(argv[1]) : 6);
}
