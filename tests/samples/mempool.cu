// mempool: the default memory pool as programs tune and watch it: a release
// threshold (the usual "keep everything" idiom), reuse policies, the used and
// reserved sizes and their high watermarks around stream-ordered allocations and
// frees, a watermark reset, values that cannot be set, and a trim.
#include <cstdint>
#include <vector>
#include "samples.h"

__global__ void fill(int *p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

static uint64_t attr64(cudaMemPool_t pool, cudaMemPoolAttr a) {
  uint64_t v = 0;
  CHECK(cudaMemPoolGetAttribute(pool, a, &v));
  return v;
}

int main() {
  bool ok = true;
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  uint64_t keep_all = UINT64_MAX;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
  ok &= EXPECT(attr64(pool, cudaMemPoolAttrReleaseThreshold) == UINT64_MAX);
  int follow = 1, opportunistic = 0;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &opportunistic));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &opportunistic));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &follow));
  ok &= EXPECT(opportunistic == 0 && follow == 1);

  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const int n1 = 1 << 18, n2 = 3 << 18;  // 1 MiB and 3 MiB of ints
  int *a, *b;
  CHECK(cudaMallocAsync(&a, n1 * 4, s));
  CHECK(cudaMallocAsync(&b, n2 * 4, s));
  fill<<<n1 / 256, 256, 0, s>>>(a, n1, 7);
  fill<<<n2 / 256, 256, 0, s>>>(b, n2, 9);
  CHECK(cudaStreamSynchronize(s));
  uint64_t used = attr64(pool, cudaMemPoolAttrUsedMemCurrent), high = attr64(pool, cudaMemPoolAttrUsedMemHigh);
  printf("after 4 MiB: used %llu, high %llu, reserved %llu\n", (unsigned long long)used, (unsigned long long)high,
         (unsigned long long)attr64(pool, cudaMemPoolAttrReservedMemCurrent));
  ok &= EXPECT(used == 4u << 20 && high == 4u << 20 && attr64(pool, cudaMemPoolAttrReservedMemCurrent) >= used);
  std::vector<int> h(n2);
  CHECK(cudaMemcpyAsync(h.data(), b, n2 * 4, cudaMemcpyDeviceToHost, s));
  CHECK(cudaFreeAsync(b, s));
  CHECK(cudaStreamSynchronize(s));
  ok &= EXPECT(h[0] == 9 && h[n2 - 1] == 9);
  used = attr64(pool, cudaMemPoolAttrUsedMemCurrent);
  high = attr64(pool, cudaMemPoolAttrUsedMemHigh);
  printf("after freeing 3 MiB: used %llu, high %llu\n", (unsigned long long)used, (unsigned long long)high);
  ok &= EXPECT(used == 1u << 20 && high == 4u << 20);
  uint64_t zero = 0, one = 1;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));  // reset to the current size
  printf("high after its reset: %llu\n", (unsigned long long)attr64(pool, cudaMemPoolAttrUsedMemHigh));
  ok &= EXPECT(attr64(pool, cudaMemPoolAttrUsedMemHigh) == 1u << 20);
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
  // A watermark can only be reset, and the current sizes are read-only.
  ok &= EXPECT(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &one) == cudaErrorInvalidValue);
  ok &= EXPECT(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &zero) == cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaMemPoolTrimTo(pool, 0));
  CHECK(cudaFree(a));  // a synchronous free of a pool allocation counts too
  printf("after cudaFree: used %llu, reserved %llu\n", (unsigned long long)attr64(pool, cudaMemPoolAttrUsedMemCurrent),
         (unsigned long long)attr64(pool, cudaMemPoolAttrReservedMemCurrent));
  // (an H100 still counts the freed 1 MiB right after cudaFree: no more than that)
  ok &= EXPECT(attr64(pool, cudaMemPoolAttrUsedMemCurrent) <= 1u << 20);
  CHECK(cudaStreamDestroy(s));
  return verdict("mempool", ok);
}
