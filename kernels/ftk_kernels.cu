/* ftk_kernels.cu: gpuft's device kernels (contract: ftk.h), one warp per group of
 * 32 blocks (ftk_warp.h). Built device-only into a fatbin: no CUDA runtime. */
#include "ftk_warp.h"

/* At least 4 blocks (32 warps, 128 KiB of loads in flight) per SM: caps registers
 * at 64, which encode and verify fit without spilling on every architecture
 * (ptxas -v). verify_copy holds its eight chunks until they are stored: at least 3
 * blocks (85 registers) is what it fits in without spilling on sm_100 and sm_120
 * (80 there; left to ptxas, it took 64 and spilled 8 bytes). */
#define FTK_MIN_BLOCKS_PER_SM 4

/* Grid-stride loop of each warp over its groups, then the job protocol of ftk.h:
 * every thread fences its writes system-wide before the block counts itself done,
 * and the block completing the count fences again before setting `done`, so a host
 * that sees done == 1 sees every other field of the job final. */
static __device__ __forceinline__ void ftk_run(const ftk_span_t &s, int mode) {
  ftk_ctx_t c;
  ftk_job_t *host = (ftk_job_t *)s.job, *dev = s.job && s.djob ? (ftk_job_t *)s.djob : NULL;
  /* results gather where atomics are cheap: the device accumulator when there is one */
  ftk_ctx_init(&c, &s, (const void *)s.data, (void *)s.dst, (void *)s.code, dev ? dev : host);
  const unsigned wpb = blockDim.x >> 5;
  unsigned flags = 0;
  const uint64_t stride = ftk_warp_stride(gridDim.x, wpb);
  for (uint64_t g = ftk_warp_first(&s, blockIdx.x, threadIdx.x >> 5, wpb); g < c.g_end; g += stride)
    flags |= ftk_warp_group(&c, g, mode);
  if (!c.job) return;
  /* One write of `changed` per block at most: mapped host memory is across PCIe.
   * Several blocks may set it: an atomic, not a racing plain store (the same value,
   * but a data race all the same; ThreadSanitizer flags it on the interpreter). */
  const int changed = __syncthreads_or((flags & FTK_F_CHANGED) != 0);
  if (threadIdx.x == 0 && changed) atomicOr((unsigned *)&c.job->changed, 1u);
  if (dev) {
    /* this block's bad[] stores and atomics are visible device-wide before it
     * counts itself; the last block publishes (ftk.h) */
    __threadfence();
    __syncthreads();
    /* >=: a count a flip raised still publishes (early, but the job completes) */
    if (threadIdx.x == 0 && atomicAdd((unsigned *)&dev->blocks_done, 1u) + 1u >= gridDim.x) {
      __threadfence();
      const uint32_t n_bad = atomicAdd((unsigned *)&dev->n_bad, 0u);
      host->changed = atomicAdd((unsigned *)&dev->changed, 0u);
      host->n_bad = n_bad;
      host->blocks_done = gridDim.x;
      for (uint32_t i = 0; i < n_bad && i < FTK_JOB_BAD; i++)
        host->bad[i] = *(volatile uint64_t *)&dev->bad[i];
      dev->changed = dev->n_bad = dev->blocks_done = 0u; /* every other block is done */
      __threadfence_system();
      *(volatile uint32_t *)&host->done = 1u;
    }
    return;
  }
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t total = *(volatile uint32_t *)&c.job->blocks_total;
    if (atomicAdd((unsigned *)&c.job->blocks_done, 1u) + 1u == total) {
      __threadfence_system();
      *(volatile uint32_t *)&c.job->done = 1u;
    }
  }
}

extern "C" __global__ void __launch_bounds__(FTK_THREADS, FTK_MIN_BLOCKS_PER_SM) ftk_encode(ftk_span_t s) {
  ftk_run(s, FTK_MODE_ENCODE);
}

extern "C" __global__ void __launch_bounds__(FTK_THREADS, FTK_MIN_BLOCKS_PER_SM) ftk_verify(ftk_span_t s) {
  ftk_run(s, FTK_MODE_VERIFY);
}

extern "C" __global__ void __launch_bounds__(FTK_THREADS, 3) ftk_verify_copy(ftk_span_t s) {
  ftk_run(s, FTK_MODE_VERIFY_COPY);
}

extern "C" __global__ void __launch_bounds__(FTK_THREADS, FTK_MIN_BLOCKS_PER_SM) ftk_verify_fix(ftk_span_t s) {
  ftk_run(s, FTK_MODE_VERIFY_FIX);
}

extern "C" __global__ void __launch_bounds__(FTK_THREADS, 3) ftk_verify_copy_fix(ftk_span_t s) {
  ftk_run(s, FTK_MODE_VERIFY_COPY_FIX);
}
