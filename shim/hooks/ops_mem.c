/* ops_mem.c: allocation, release and memsets of device memory (the ALLOC, FREE
 * and MEMSET hooks). A new allocation gets a device code buffer; managed memory
 * and allocations whose code cannot be allocated stay unprotected. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "hooks.h"

static CUresult after_alloc(CUresult r, CUdeviceptr *dptr, size_t size, int managed) {
  if (r != CUDA_SUCCESS || !dptr) return r;
  ft_report_note_gpu();
  ft_lock();
  ft_alloc_track(managed ? NULL : ft_dev_current(), *dptr, size, managed);
  ft_unlock();
  return r;
}

/* With GPUFT_QUARANTINE, gpuft's device state (and with it the pages it holds back,
 * quarantine.c) is set up before the program's first allocation in a context. */
static void before_alloc(void) {
  if (!FT_OPT(QUARANTINE)) return;
  ft_lock();
  ft_dev_current();
  ft_unlock();
}

/* An allocation that failed for want of memory is tried once more after memory
 * gpuft held for the snapshot's log went back (lifecycle.c): the program never
 * lacks memory it freed. */
#define RETRY_OOM(call) \
  ({ CUresult r_ = (call); \
     if (r_ == CUDA_ERROR_OUT_OF_MEMORY && ft_held_release(1)) r_ = (call); \
     r_; })

CUresult ft_on_cuMemAlloc_v2(CUdeviceptr *dptr, size_t n) {
  before_alloc();
  return after_alloc(RETRY_OOM(ft_real.cuMemAlloc_v2(dptr, n)), dptr, n, 0);
}
CUresult ft_on_cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t w, size_t h,
                                  unsigned elem) {
  before_alloc();
  CUresult r = RETRY_OOM(ft_real.cuMemAllocPitch_v2(dptr, pitch, w, h, elem));
  return after_alloc(r, dptr, r == CUDA_SUCCESS ? *pitch * h : 0, 0);
}
/* (on a capturing stream: a graph's memory node, alive only while a launch of the
 * graph runs: not tracked) */
CUresult ft_on_cuMemAllocAsync(CUdeviceptr *dptr, size_t n, CUstream s) {
  FT_CAPTURED(s, ft_real.cuMemAllocAsync(dptr, n, s));
  before_alloc();
  return after_alloc(RETRY_OOM(ft_real.cuMemAllocAsync(dptr, n, s)), dptr, n, 0);
}
CUresult ft_on_cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t n, CUstream s) {
  FT_CAPTURED(FT_STREAM(s, 1), ft_real.cuMemAllocAsync_ptsz(dptr, n, s));
  before_alloc();
  return after_alloc(RETRY_OOM(ft_real.cuMemAllocAsync_ptsz(dptr, n, s)), dptr, n, 0);
}
CUresult ft_on_cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t n, CUmemoryPool p, CUstream s) {
  FT_CAPTURED(s, ft_real.cuMemAllocFromPoolAsync(dptr, n, p, s));
  before_alloc();
  return after_alloc(RETRY_OOM(ft_real.cuMemAllocFromPoolAsync(dptr, n, p, s)), dptr, n, 0);
}
CUresult ft_on_cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t n, CUmemoryPool p,
                                            CUstream s) {
  FT_CAPTURED(FT_STREAM(s, 1), ft_real.cuMemAllocFromPoolAsync_ptsz(dptr, n, p, s));
  before_alloc();
  return after_alloc(RETRY_OOM(ft_real.cuMemAllocFromPoolAsync_ptsz(dptr, n, p, s)), dptr, n, 0);
}
CUresult ft_on_cuMemAllocManaged(CUdeviceptr *dptr, size_t n, unsigned flags) {
  return after_alloc(RETRY_OOM(ft_real.cuMemAllocManaged(dptr, n, flags)), dptr, n, 1);
}

/* Release (policy/lifecycle.c): results of work that read the allocation must be
 * in before its code goes (a commit point). */
static CUresult after_free(CUresult r, CUdeviceptr p, CUresult verdict) {
  ft_free_end(p, r == CUDA_SUCCESS);
  return r != CUDA_SUCCESS ? r : verdict;
}

/* Whether gpuft holds the memory at p instead of freeing it (lifecycle.c: the
 * snapshot's log needs it); a second free of held memory gets the driver's answer
 * to one (*r). */
static int held(CUdeviceptr p, CUresult *r) {
  /* (not while a capture is open: the driver's answer to the free, and the
   * synchronisation a held one makes, depend on the capture) */
  int capturing = __atomic_load_n(&ft_captures_open, __ATOMIC_ACQUIRE) > 0;
  ft_lock();
  int again = ft_free_held(p), hold = !again && !capturing && ft_free_hold(p);
  ft_unlock();
  if (again) {
    *r = CUDA_ERROR_INVALID_VALUE;
    ft_free_end(p, 0); /* (the record stays as it was: not being freed) */
  } else if (hold) {
    *r = ft_dev_ctx_sync(); /* (as the driver's free waits for the context) */
    if (*r == CUDA_ERROR_NOT_READY) *r = CUDA_SUCCESS; /* (a capture began meanwhile) */
  }
  return again || hold;
}

#define FREE(name, ARGS, CALL, STREAM, HOLD)              \
  CUresult ft_on_##name ARGS {                            \
    if (STREAM) FT_CAPTURED(STREAM, CALL);                \
    CUresult v = CUDA_SUCCESS;                            \
    if (ft_free_begin(p)) v = ft_commit_quiet();          \
    FT_OP_BEGIN();                                        \
    CUresult r;                                           \
    if (HOLD && held(p, &r)) r = r != CUDA_SUCCESS ? r : v; \
    else r = after_free(CALL, p, v);                      \
    ft_op_end();                                          \
    return r;                                             \
  }
/* (a free captured into a graph happens when the graph runs: the allocation stays
 * tracked until then, and a new one over it replaces it; a stream-ordered free is
 * never held) */
FREE(cuMemFree_v2, (CUdeviceptr p), ft_real.cuMemFree_v2(p), 0, 1)
FREE(cuMemFreeAsync, (CUdeviceptr p, CUstream s), ft_real.cuMemFreeAsync(p, s), s, 0)
FREE(cuMemFreeAsync_ptsz, (CUdeviceptr p, CUstream s), ft_real.cuMemFreeAsync_ptsz(p, s), FT_STREAM(s, 1), 0)

/* ---- Memory shared with other processes ----
 * Memory exported with cuIpcGetMemHandle can be written by another process, whose
 * calls gpuft does not see: a check would take those writes for damage, and a
 * checkpoint, snapshot or replay would undo them. It leaves protection. (Memory a
 * process imports, cuIpcOpenMemHandle, is not its allocation: never tracked.) */
CUresult ft_on_cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr p) {
  CUresult r = ft_real.cuIpcGetMemHandle(h, p);
  if (r != CUDA_SUCCESS) return r;
  ft_lock();
  ft_alloc_t *a = ft_reg_find(p);
  if (a) ft_alloc_unprotect(a, "exported to other processes (cuIpcGetMemHandle), which may write it unseen");
  ft_unlock();
  return r;
}

/* ---- Memsets: the engine's protocol around the driver's call (policy/copies.c) ---- */

static void before_memset(CUdeviceptr p, size_t bytes, CUstream s, int dense) {
  ft_lock();
  ft_memset_begin(p, bytes, s, dense);
  ft_unlock();
}

static void log_memset(CUdeviceptr p, uint32_t pattern, size_t n, int elem) {
  ft_lock();
  ft_log_memset(p, pattern, n, elem);
  ft_unlock();
}

static void after_memset(CUdeviceptr p, size_t bytes, uint32_t pattern, int pattern_ok,
                         CUstream s) {
  ft_lock();
  ft_memset_end(p, bytes, pattern, pattern_ok, s);
  ft_unlock();
}

static uint32_t rep8(unsigned char v) { return v * 0x01010101u; }
static uint32_t rep16(unsigned short v) { return v * 0x00010001u; }

#define MEMSET1D(name, T, rep, unit, stream)                                 \
  CUresult ft_on_##name(CUdeviceptr p, T v, size_t n) {                     \
    FT_OP_BEGIN();                                                          \
    before_memset(p, n * unit, stream, 1);                                     \
    CUresult r = ft_real.name(p, v, n);                                     \
    if (r == CUDA_SUCCESS && n) log_memset(p, v, n, unit);                  \
    if (r == CUDA_SUCCESS) after_memset(p, n * unit, rep(v), 1, stream);    \
    ft_op_end();                                                            \
    return r;                                                               \
  }
#define MEMSET1DA(name, T, rep, unit, ptsz)                                 \
  CUresult ft_on_##name(CUdeviceptr p, T v, size_t n, CUstream s) {         \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(p, v, n, s));              \
    FT_OP_BEGIN();                                                          \
    before_memset(p, n * unit, FT_STREAM(s, ptsz), 1);                         \
    CUresult r = ft_real.name(p, v, n, s);                                  \
    if (r == CUDA_SUCCESS && n) log_memset(p, v, n, unit);                  \
    if (r == CUDA_SUCCESS) after_memset(p, n * unit, rep(v), 1, FT_STREAM(s, ptsz)); \
    ft_op_end();                                                            \
    return r;                                                               \
  }
static uint32_t rep32(unsigned v) { return v; }
MEMSET1D(cuMemsetD8_v2, unsigned char, rep8, 1, CU_STREAM_LEGACY)
MEMSET1D(cuMemsetD8_v2_ptds, unsigned char, rep8, 1, CU_STREAM_PER_THREAD)
MEMSET1D(cuMemsetD16_v2, unsigned short, rep16, 2, CU_STREAM_LEGACY)
MEMSET1D(cuMemsetD16_v2_ptds, unsigned short, rep16, 2, CU_STREAM_PER_THREAD)
MEMSET1D(cuMemsetD32_v2, unsigned int, rep32, 4, CU_STREAM_LEGACY)
MEMSET1D(cuMemsetD32_v2_ptds, unsigned int, rep32, 4, CU_STREAM_PER_THREAD)
MEMSET1DA(cuMemsetD8Async, unsigned char, rep8, 1, 0)
MEMSET1DA(cuMemsetD8Async_ptsz, unsigned char, rep8, 1, 1)
MEMSET1DA(cuMemsetD16Async, unsigned short, rep16, 2, 0)
MEMSET1DA(cuMemsetD16Async_ptsz, unsigned short, rep16, 2, 1)
MEMSET1DA(cuMemsetD32Async, unsigned int, rep32, 4, 0)
MEMSET1DA(cuMemsetD32Async_ptsz, unsigned int, rep32, 4, 1)

/* 2-D memsets: the rows are strided; re-encode every group they touch, after
 * verifying what lies between the rows (before_memset). */
#define MEMSET2D(name, T, unit, stream)                                              \
  CUresult ft_on_##name(CUdeviceptr p, size_t pitch, T v, size_t w, size_t h) {       \
    CUresult v_ = w && h ? ft_rewrite_before(p, stream, 1) : CUDA_SUCCESS;                \
    if (v_ != CUDA_SUCCESS) return v_;                                                    \
    FT_OP_BEGIN();                                                                        \
    if (w && h) before_memset(p, pitch * (h - 1) + w * unit, stream, pitch == w * unit);   \
    CUresult r = ft_real.name(p, pitch, v, w, h);                                    \
    if (r == CUDA_SUCCESS && w && h) after_memset(p, pitch * (h - 1) + w * unit, 0, 0, stream); \
    ft_op_end();                                                                     \
    return r;                                                                        \
  }
#define MEMSET2DA(name, T, unit, ptsz)                                                    \
  CUresult ft_on_##name(CUdeviceptr p, size_t pitch, T v, size_t w, size_t h, CUstream s) { \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(p, pitch, v, w, h, s));                  \
    CUresult v_ = w && h ? ft_rewrite_before(p, FT_STREAM(s, ptsz), 1) : CUDA_SUCCESS;    \
    if (v_ != CUDA_SUCCESS) return v_;                                                    \
    FT_OP_BEGIN();                                                                        \
    if (w && h) before_memset(p, pitch * (h - 1) + w * unit, FT_STREAM(s, ptsz), pitch == w * unit); \
    CUresult r = ft_real.name(p, pitch, v, w, h, s);                                      \
    if (r == CUDA_SUCCESS && w && h)                                                      \
      after_memset(p, pitch * (h - 1) + w * unit, 0, 0, FT_STREAM(s, ptsz));              \
    ft_op_end();                                                                          \
    return r;                                                                             \
  }
MEMSET2D(cuMemsetD2D8_v2, unsigned char, 1, CU_STREAM_LEGACY)
MEMSET2D(cuMemsetD2D8_v2_ptds, unsigned char, 1, CU_STREAM_PER_THREAD)
MEMSET2D(cuMemsetD2D16_v2, unsigned short, 2, CU_STREAM_LEGACY)
MEMSET2D(cuMemsetD2D16_v2_ptds, unsigned short, 2, CU_STREAM_PER_THREAD)
MEMSET2D(cuMemsetD2D32_v2, unsigned int, 4, CU_STREAM_LEGACY)
MEMSET2D(cuMemsetD2D32_v2_ptds, unsigned int, 4, CU_STREAM_PER_THREAD)
MEMSET2DA(cuMemsetD2D8Async, unsigned char, 1, 0)
MEMSET2DA(cuMemsetD2D8Async_ptsz, unsigned char, 1, 1)
MEMSET2DA(cuMemsetD2D16Async, unsigned short, 2, 0)
MEMSET2DA(cuMemsetD2D16Async_ptsz, unsigned short, 2, 1)
MEMSET2DA(cuMemsetD2D32Async, unsigned int, 4, 0)
MEMSET2DA(cuMemsetD2D32Async_ptsz, unsigned int, 4, 1)
