/* memasync.c: stream-ordered allocation (cuMemAllocAsync, cuMemAllocFromPoolAsync,
 * cuMemFreeAsync) on the device's default pool. The memory is reserved at the call
 * (it is valid for work queued after it in any order the program establishes);
 * the release happens in stream order: cuMemFreeAsync marks it `freeing` (new
 * work may not name it) and stamps the free's ticket, so that kernels queued
 * before the free still translate it until the SIM_OP_FREE runs (launch.c). */
#include "exec.h"

static CUresult alloc_async(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream h, int ptds) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!dptr || !size) return CUDA_ERROR_INVALID_VALUE;
  if (pool) {
    sim_obj_t *p = sim_handle_get(pool, SIM_OBJ_POOL);
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    sim_obj_unref(p);
  }
  sim_stream_t *s;
  r = sim_stream_get(ctx, h, ptds, &s);
  if (r) return r;
  uint64_t d;
  r = sim_mem_alloc_device(ctx, size, &d);
  if (r == CUDA_SUCCESS) {
    /* Ordered in the stream like the real allocation, so that a wait on an event
     * recorded after it orders other streams after the allocation. */
    sim_stream_enqueue(s, sim_op_new(SIM_OP_NOP));
    *dptr = d;
  }
  sim_obj_unref(&s->obj);
  return r;
}

CUresult cuMemAllocAsync(CUdeviceptr *d, size_t n, CUstream h) { return alloc_async(d, n, NULL, h, 0); }
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *d, size_t n, CUstream h) { return alloc_async(d, n, NULL, h, 1); }
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *d, size_t n, CUmemoryPool p, CUstream h) {
  if (!p) { SIM_CHECK_INIT(); return CUDA_ERROR_INVALID_VALUE; }
  return alloc_async(d, n, p, h, 0);
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *d, size_t n, CUmemoryPool p, CUstream h) {
  if (!p) { SIM_CHECK_INIT(); return CUDA_ERROR_INVALID_VALUE; }
  return alloc_async(d, n, p, h, 1);
}

static CUresult free_async(CUdeviceptr d, CUstream h, int ptds) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_stream_t *s;
  r = sim_stream_get(ctx, h, ptds, &s);
  if (r) return r;
  if (!d || sim_mem_free_device(d, true) != CUDA_SUCCESS) {
    sim_obj_unref(&s->obj);
    return CUDA_ERROR_INVALID_VALUE;
  }
  /* Marked `freeing` above: no new work may name it, a second free fails. */
  sim_op_t *op = sim_op_new(SIM_OP_FREE);
  op->u.free.ptr = d;
  sim_stream_enqueue(s, op);
  sim_obj_unref(&s->obj);
  return CUDA_SUCCESS;
}

CUresult cuMemFreeAsync(CUdeviceptr d, CUstream h) { return free_async(d, h, 0); }
CUresult cuMemFreeAsync_ptsz(CUdeviceptr d, CUstream h) { return free_async(d, h, 1); }
