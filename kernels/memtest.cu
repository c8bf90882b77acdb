/* memtest.cu: gpuft's memory-test kernels (contract: memtest.h): grid-stride fill and
 * check of 32-bit words. Built device-only into a fatbin: no CUDA runtime. */
#include "memtest.h"

extern "C" __global__ void __launch_bounds__(FTM_THREADS) ftm_fill(uint32_t *base, uint64_t n,
                                                                  ftm_pat_t p) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t addr = (uint64_t)(uintptr_t)base;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint32_t w = ftm_expect(&p, addr, i);
    if (p.mode == FTM_MOD20 && i % 20u != p.b) /* the complement, written twice */
      *(volatile uint32_t *)&base[i] = w;
    *(volatile uint32_t *)&base[i] = w;
  }
}

/* Record a bad word: count it, keep the first FTM_MAX_REC (in any order). */
static __device__ void ftm_record(ftm_res_t *res, uint64_t i, uint32_t got, uint32_t want) {
  atomicAdd(&res->n_err, 1ull);
  unsigned long long slot = atomicAdd(&res->n_rec, 1ull);
  if (slot < FTM_MAX_REC) {
    res->rec[slot].index = i;
    res->rec[slot].got = got;
    res->rec[slot].want = want;
  }
}

extern "C" __global__ void __launch_bounds__(FTM_THREADS) ftm_check(uint32_t *base, uint64_t n,
                                                                   ftm_pat_t p, ftm_res_t *res) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t addr = (uint64_t)(uintptr_t)base;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (!ftm_checked(&p, i)) continue;
    const uint32_t want = ftm_want(&p, addr, i);
    const uint32_t got = *(volatile uint32_t *)&base[i];
    if (got != want) ftm_record(res, i, got, want);
    if (p.flags & FTM_F_INVERT) *(volatile uint32_t *)&base[i] = ~want;
  }
}
