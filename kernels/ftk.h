/* ftk.h: contract of gpuft's own device kernels (encode, verify, fused
 * verify+copy), shared by their CUDA implementation, their C twins and the shim
 * that launches them. Usable from C and CUDA. */
#ifndef FTK_H
#define FTK_H

#include <stdint.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Results of one kernel launch ("job"), written by the device into mapped pinned
 * host memory (the ledger) and read by the host after the stream has passed it.
 * The host zeroes a job and sets `blocks_total` before launching.
 *
 * With a device-side accumulator (span.djob, an ftk_job_t in device memory, all
 * zero before the launch): blocks count themselves and gather changed / n_bad / bad
 * there, with device-scope atomics; the last block (blocks_done reaching gridDim.x,
 * or passing it when a flip raised the count) copies the results to the host job,
 * zeroes the accumulator, fences system-wide and sets `done` = 1. The accumulator
 * is device memory and its bits may flip: gpuft zeroes it before every launch and
 * takes a listed group outside the span as a reason to scan the span on the host
 * (shim/engine/ledger.c, commit.c). A count a flip lowered leaves the job
 * incomplete: its slot stays taken and that verification is lost. Mapped host memory is across
 * PCIe: an atomic per block there serialises (measured on an H200: about 1 ms for
 * 512 blocks, whatever the span's size; docs/gpu-results.md), one copy per launch
 * does not.
 *
 * Without one (djob == 0): every block adds 1 to the host job's `blocks_done`
 * when it has finished all its writes and the block that brings it to
 * blocks_total sets `done` = 1 after a system-wide fence. Either way a host that
 * sees done == 1 sees every other field final. */
#define FTK_JOB_BAD 16
typedef struct ftk_job_s {
  uint32_t blocks_total; /* set by the host */
  uint32_t blocks_done;  /* device: atomic */
  uint32_t done;         /* device: 1 when complete */
  uint32_t changed;      /* encode: 1 if some stored code word differed from the new one;
                          * verify_fix: the number of groups repaired */
  uint32_t n_bad;        /* verify: groups with any nonzero syndrome (level 1 or 2) */
  uint32_t pad_;
  uint64_t bad[FTK_JOB_BAD]; /* verify: the first FTK_JOB_BAD such group indices (any order) */
} ftk_job_t;

/* What a kernel works on: one protected allocation (or a range of its groups).
 * Addresses are device addresses (CUdeviceptr), passed as 64-bit integers.
 * The code buffer has the layout of ft_code_layout(len). Groups [g0, g1) are
 * processed; len is the allocation's length (bytes beyond it are zero). */
typedef struct ftk_span_s {
  uint64_t data; /* protected data */
  uint64_t len;  /* bytes of data (the whole allocation) */
  uint64_t code; /* its code buffer */
  uint64_t g0, g1;
  uint64_t dst;  /* verify_copy: where the data is copied (same length); verify_fix: the
                  * copy repairs come from (0: none); else 0 */
  uint64_t job;  /* ftk_job_t * in mapped host memory (device address); may be 0 */
  uint64_t djob; /* ftk_job_t * in device memory, zero before the launch and left zero
                  * after it (the accumulator above); may be 0 (used only with job) */
} ftk_span_t;

/* The kernels, by mangled-free names (extern "C"), each taking one ftk_span_t by
 * value (parameter 0, size sizeof(ftk_span_t), alignment 8):
 *
 * ftk_encode:      for every block of groups [g0, g1): V, D <- code of the data;
 *                  then the groups' level-2 words. If job: job->changed = 1 when a
 *                  new V or D word differs from the stored one.
 * ftk_verify:      for every group of [g0, g1): recompute its blocks' codes and the
 *                  level-2 codes of its stored V and D words, compare with the stored
 *                  ones; a group with any difference is counted in job->n_bad and
 *                  its index recorded in job->bad[] while there is room. Writes no
 *                  data and no code.
 * ftk_verify_copy: ftk_verify, and also copies the bytes of groups [g0, g1) (clipped
 *                  to len) from data to dst, in the same pass.
 * ftk_verify_fix:  ftk_verify, and every damaged group is repaired before the kernel
 *                  ends, so that a kernel after it on the stream reads it whole
 *                  (verify before use, docs/design.md): when dst is nonzero it is
 *                  the device address of a copy of the allocation known to equal
 *                  what should be there (the host checkpoint: len bytes of data
 *                  padded to whole blocks, then its code in the ft_code_layout),
 *                  and the group's data and code words are copied from it;
 *                  otherwise the group is repaired where the decoder proves what
 *                  flipped (ft_decode_group: one bit per block, code words), and
 *                  left as it is when it cannot. A repaired group's entry in
 *                  job->bad[] carries FTK_BAD_REPAIRED (and FTK_BAD_FROM_COPY when
 *                  copied); job->changed counts the groups repaired.
 * ftk_verify_copy_fix: ftk_verify_copy, and every damaged group the decoder can
 *                  repair (as ftk_verify_fix without a copy) is repaired in place and
 *                  copied to dst again; flags and changed as ftk_verify_fix.
 *
 * Launch shape: blockDim.x = FTK_THREADS; any gridDim.x >= 1 (grid-stride over
 * groups). One warp per group: FTK_THREADS / 32 groups per block per step. */
#define FTK_THREADS 256u
#define FTK_GROUPS_PER_BLOCK (FTK_THREADS / 32u)

#define FTK_NAME_ENCODE "ftk_encode"
#define FTK_NAME_VERIFY "ftk_verify"
#define FTK_NAME_VERIFY_COPY "ftk_verify_copy"
#define FTK_NAME_VERIFY_FIX "ftk_verify_fix"
#define FTK_NAME_VERIFY_COPY_FIX "ftk_verify_copy_fix"

/* A job->bad[] entry written by ftk_verify_fix / ftk_verify_copy_fix: the group in the
 * low 40 bits; repaired (from the copy); and where the first data bit it repaired
 * was, when it knows (LOCATED: 32-bit word of the group, bit of the word). */
#define FTK_BAD_REPAIRED (1ull << 63)
#define FTK_BAD_FROM_COPY (1ull << 62)
#define FTK_BAD_LOCATED (1ull << 61)
#define FTK_BAD_GROUP(e) ((e) & ((1ull << 40) - 1))
#define FTK_BAD_AT(word, bit) (FTK_BAD_LOCATED | ((uint64_t)(word) << 40) | ((uint64_t)(bit) << 50))
#define FTK_BAD_WORD(e) ((unsigned)((e) >> 40) & 1023u)
#define FTK_BAD_BIT(e) ((unsigned)((e) >> 50) & 31u)

#ifdef __cplusplus
}
#endif
#endif
