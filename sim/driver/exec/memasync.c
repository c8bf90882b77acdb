/* memasync.c: stream-ordered allocation (cuMemAllocAsync, cuMemAllocFromPoolAsync,
 * cuMemFreeAsync) on the device's default pool, and that pool's attributes
 * (cuMemPoolGet/SetAttribute, cuMemPoolTrimTo). The memory is reserved at the call
 * (it is valid for work queued after it in any order the program establishes);
 * the release happens in stream order: cuMemFreeAsync marks it `freeing` (new
 * work may not name it) and stamps the free's ticket, so that kernels queued
 * before the free still translate it until the SIM_OP_FREE runs (launch.c). */
#include <stdlib.h>

#include "graph.h"

/* ---- the pool's accounting: its live allocations and attributes ---- */
typedef struct {
  uint64_t ptr, size;
} pool_blk_t;
static struct {
  pthread_mutex_t mu;
  pool_blk_t *blk;
  size_t n, cap;
  int reuse[3]; /* CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES .. _ALLOW_INTERNAL_DEPENDENCIES */
  uint64_t threshold, used, used_high, reserved_high;
} pool = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, {1, 1, 1}, 0, 0, 0, 0};

static void pool_add(uint64_t p, uint64_t n) {
  pthread_mutex_lock(&pool.mu);
  if (pool.n == pool.cap) {
    size_t cap = pool.cap ? pool.cap * 2 : 64;
    pool_blk_t *b = realloc(pool.blk, cap * sizeof *b);
    if (!b) abort();
    pool.blk = b, pool.cap = cap;
  }
  pool.blk[pool.n++] = (pool_blk_t){p, n};
  pool.used += n;
  if (pool.used > pool.used_high) pool.used_high = pool.used;
  if (pool.used > pool.reserved_high) pool.reserved_high = pool.used;
  pthread_mutex_unlock(&pool.mu);
}

void sim_pool_released(uint64_t p) {
  pthread_mutex_lock(&pool.mu);
  for (size_t i = 0; i < pool.n; i++)
    if (pool.blk[i].ptr == p) {
      pool.used -= pool.blk[i].size;
      pool.blk[i] = pool.blk[--pool.n];
      break;
    }
  pthread_mutex_unlock(&pool.mu);
}

static bool pool_valid(CUmemoryPool p) {
  sim_obj_t *o = p ? sim_handle_get(p, SIM_OBJ_POOL) : NULL;
  if (!o) return false;
  sim_obj_unref(o);
  return true;
}

/* The simulator caches no freed memory (each allocation returns to the device when
 * freed), so the reserved memory is the used memory; the release threshold and
 * reuse policies are recorded. The high watermarks can only be reset (to 0: the
 * current size); the current sizes are read-only. */
static CUresult pool_attr(CUmemoryPool p, CUmemPool_attribute a, void *v, bool set) {
  SIM_CHECK_INIT();
  if (!v || !pool_valid(p)) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = CUDA_SUCCESS;
  uint64_t *u64 = v;
  pthread_mutex_lock(&pool.mu);
  switch (a) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: {
      int *reuse = &pool.reuse[a - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES];
      if (set) *reuse = *(const int *)v != 0;
      else *(int *)v = *reuse;
      break;
    }
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
      if (set) pool.threshold = *u64;
      else *u64 = pool.threshold;
      break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: case CU_MEMPOOL_ATTR_USED_MEM_HIGH: {
      uint64_t *high = a == CU_MEMPOOL_ATTR_USED_MEM_HIGH ? &pool.used_high : &pool.reserved_high;
      if (!set) *u64 = *high;
      else if (*u64) r = CUDA_ERROR_INVALID_VALUE;
      else *high = pool.used;
      break;
    }
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
      if (set) r = CUDA_ERROR_INVALID_VALUE;
      else *u64 = pool.used;
      break;
    default: r = CUDA_ERROR_INVALID_VALUE; break;
  }
  pthread_mutex_unlock(&pool.mu);
  return r;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool p, CUmemPool_attribute a, void *v) { return pool_attr(p, a, v, true); }
CUresult cuMemPoolGetAttribute(CUmemoryPool p, CUmemPool_attribute a, void *v) { return pool_attr(p, a, v, false); }

/* Nothing freed is kept, so there is nothing to trim. */
CUresult cuMemPoolTrimTo(CUmemoryPool p, size_t keep) {
  SIM_CHECK_INIT();
  (void)keep;
  return pool_valid(p) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

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
  /* The one pool object is device 0's (api/device.c): memory from it lives there;
   * without a pool the stream's device allocates, outside that pool's numbers. */
  int dev = pool ? 0 : ctx->dev;
  bool taken; /* during capture: a graph alloc node */
  if ((r = sim_capture_alloc(s, size, &d, &taken)) || taken) {
    if (!r) *dptr = d;
    sim_obj_unref(&s->obj);
    return r;
  }
  r = sim_mem_alloc_device(ctx, dev, size, &d);
  if (r == CUDA_SUCCESS) {
    /* Ordered in the stream like the real allocation, so that a wait on an event
     * recorded after it orders other streams after the allocation. */
    sim_stream_enqueue(s, sim_op_new(SIM_OP_NOP));
    if (dev == 0) pool_add(d, size);
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
  bool taken; /* graph memory: a free node during capture, else freed in stream order */
  if (d && ((r = sim_capture_free(s, d, &taken)) || taken)) {
    sim_obj_unref(&s->obj);
    return r;
  }
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
