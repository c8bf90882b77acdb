/* ftk_twins.c: C twins of gpuft's kernels (encode, verify, the copying and repairing
 * verifies) for the CUDA simulator (sim): one call runs one thread block, its warps one
 * after the other, each through the same warp code as the GPU (ftk_warp.h, 32 emulated
 * lanes). */
#include <string.h>

/* gpuft's kernels read a whole allocation on the stream of the operation that
 * found it at rest, and a later operation on another, unordered stream of the
 * program may write part of it while they run: gpuft then voids the verification
 * (ledger.c, ft_jobs_void_unordered) and leaves the allocation in flight, so that
 * the encode's code is replaced by the one its next commit computes at rest
 * (launch.c, rest.c). On a GPU that is a read racing a write in device memory,
 * which yields stale or torn values and nothing worse. The thread sanitizer would
 * report it as a data race between two stream workers, so the twins hide their
 * reads of device memory from it (only their reads: what they write, codes,
 * shadow copies and job results, stays visible). */
#if defined(__SANITIZE_THREAD__)
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define TWIN_READS_RACY_BEGIN() AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define TWIN_READS_RACY_END() AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#else
#define TWIN_READS_RACY_BEGIN() ((void)0)
#define TWIN_READS_RACY_END() ((void)0)
#endif

/* A repair before use (ftk_verify_fix) writes data another stream's kernel may be
 * reading (ftk_warp.h): hidden from the sanitizer like the reads above. */
#if defined(__SANITIZE_THREAD__)
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define FTK_REPAIR_RACY_BEGIN() AnnotateIgnoreWritesBegin(__FILE__, __LINE__)
#define FTK_REPAIR_RACY_END() AnnotateIgnoreWritesEnd(__FILE__, __LINE__)
#endif

#include "ftk_twins.h"
#include "ftk_warp.h"

/* Host view of [addr, addr + bytes): NULL unless both ends translate into one
 * contiguous mapping (the simulator then fails the launch with an illegal address,
 * as a GPU would fault). */
static void *twin_range(const simcuda_block_t *blk, uint64_t addr, uint64_t bytes) {
  uint8_t *a = (uint8_t *)simcuda_ptr(blk, (const void *)(uintptr_t)addr);
  if (!a || bytes <= 1) return a;
  uint8_t *b = (uint8_t *)simcuda_ptr(blk, (const void *)(uintptr_t)(addr + bytes - 1));
  return b == a + bytes - 1 ? a : NULL;
}

static void twin_run(const simcuda_block_t *blk, void **params, int mode) {
  ftk_span_t s;
  memcpy(&s, params[0], sizeof s);
  ftk_job_t *job = NULL, *dev = NULL;
  if (s.job && !(job = twin_range(blk, s.job, sizeof *job))) return;
  if (job && s.djob && !(dev = twin_range(blk, s.djob, sizeof *dev))) return;
  const unsigned wpb = blk->blockDim.x / 32u;
  const uint64_t first = ftk_warp_first(&s, blk->blockIdx.x, 0, wpb);
  unsigned flags = 0;
  if (first < ftk_span_end(&s)) {
    /* Only a block with work touches the buffers (a GPU block without work would
     * not dereference them either). */
    uint64_t off[6];
    void *data = twin_range(blk, s.data, s.len);
    void *code = twin_range(blk, s.code, ft_code_layout(s.len, off));
    int copy = mode == FTK_MODE_VERIFY_COPY || mode == FTK_MODE_VERIFY_COPY_FIX;
    int from = mode == FTK_MODE_VERIFY_FIX && s.dst; /* repairs copy from s.dst */
    void *dst = copy   ? twin_range(blk, s.dst, s.len)
                : from ? twin_range(blk, s.dst, ft_blocks_bytes(s.len) + ft_code_layout(s.len, off))
                       : NULL;
    if (!data || !code || ((copy || from) && !dst)) return;
    ftk_ctx_t c;
    ftk_ctx_init(&c, &s, data, dst, code, dev ? dev : job);
    const uint64_t stride = ftk_warp_stride(blk->gridDim.x, wpb);
    TWIN_READS_RACY_BEGIN();
    for (unsigned w = 0; w < wpb; w++)
      for (uint64_t g = ftk_warp_first(&s, blk->blockIdx.x, w, wpb); g < c.g_end; g += stride)
        flags |= ftk_warp_group(&c, g, mode);
    TWIN_READS_RACY_END();
  }
  if (!job) return;
  /* The job protocol of ftk.h, with C11 atomics for the fences. */
  if (dev) {
    if (flags & FTK_F_CHANGED) __atomic_store_n(&dev->changed, 1u, __ATOMIC_RELAXED);
    if (__atomic_add_fetch(&dev->blocks_done, 1u, __ATOMIC_ACQ_REL) < blk->gridDim.x) return;
    uint32_t n_bad = __atomic_load_n(&dev->n_bad, __ATOMIC_RELAXED);
    job->changed = __atomic_load_n(&dev->changed, __ATOMIC_RELAXED);
    job->n_bad = n_bad;
    job->blocks_done = blk->gridDim.x;
    for (uint32_t i = 0; i < n_bad && i < FTK_JOB_BAD; i++) job->bad[i] = dev->bad[i];
    __atomic_store_n(&dev->changed, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&dev->n_bad, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&dev->blocks_done, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&job->done, 1u, __ATOMIC_RELEASE);
    return;
  }
  if (flags & FTK_F_CHANGED) __atomic_store_n(&job->changed, 1u, __ATOMIC_RELAXED);
  uint32_t total = __atomic_load_n(&job->blocks_total, __ATOMIC_RELAXED);
  if (__atomic_add_fetch(&job->blocks_done, 1u, __ATOMIC_ACQ_REL) == total)
    __atomic_store_n(&job->done, 1u, __ATOMIC_RELEASE);
}

static void twin_encode(const simcuda_block_t *blk, void **params) {
  twin_run(blk, params, FTK_MODE_ENCODE);
}
static void twin_verify(const simcuda_block_t *blk, void **params) {
  twin_run(blk, params, FTK_MODE_VERIFY);
}
static void twin_verify_copy(const simcuda_block_t *blk, void **params) {
  twin_run(blk, params, FTK_MODE_VERIFY_COPY);
}
static void twin_verify_fix(const simcuda_block_t *blk, void **params) {
  twin_run(blk, params, FTK_MODE_VERIFY_FIX);
}
static void twin_verify_copy_fix(const simcuda_block_t *blk, void **params) {
  twin_run(blk, params, FTK_MODE_VERIFY_COPY_FIX);
}

static const uint16_t twin_size[] = {sizeof(ftk_span_t)}, twin_align[] = {8};
static const simcuda_kernel_t twin_kernels[] = {
    {FTK_NAME_ENCODE, twin_encode, 1, twin_size, twin_align},
    {FTK_NAME_VERIFY, twin_verify, 1, twin_size, twin_align},
    {FTK_NAME_VERIFY_COPY, twin_verify_copy, 1, twin_size, twin_align},
    {FTK_NAME_VERIFY_FIX, twin_verify_fix, 1, twin_size, twin_align},
    {FTK_NAME_VERIFY_COPY_FIX, twin_verify_copy_fix, 1, twin_size, twin_align},
};
const simcuda_image_t ftk_twin_image = {SIMCUDA_IMAGE_MAGIC, SIMCUDA_IMAGE_VERSION, 5,
                                        twin_kernels};
