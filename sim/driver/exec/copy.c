/* copy.c: every cuMemcpy* entry point: argument and bounds checks at the call,
 * the host/device semantics of sync and async copies (staging of pageable
 * sources, synchronous pageable readback), and the copy operation itself.
 *
 * Staging, as the real driver does it: the calling thread copies a pageable
 * source chunk by chunk into a small set of reusable staging buffers, and the
 * stream worker's "DMA" (the copy into device memory, charged to the PCIe model)
 * reads each chunk from its buffer and hands the buffer back. The two overlap;
 * when every buffer is in flight the caller waits for the worker. Small
 * asynchronous sources (up to STAGE_INLINE bytes) travel inside the operation
 * itself, like the driver's inline push-buffer data, so they never wait. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

typedef struct {
  uint8_t *host;  /* host-accessible address of the first byte */
  uint64_t dev;   /* device address (0: host memory) */
  bool is_dev, pageable;
} side_t;

typedef enum { K_HOST, K_DEV, K_UNIFIED } sidekind_t;

/* Resolves one operand [p, p+n) given how the API names it. */
static CUresult side_get(sidekind_t k, uint64_t p, size_t n, side_t *s) {
  *s = (side_t){0};
  if (k == K_DEV) {
    void *h;
    bool d;
    if (sim_mem_resolve(p, n, &h, &d)) return CUDA_ERROR_INVALID_VALUE;
    *s = (side_t){h, d ? p : 0, d, false};
    return CUDA_SUCCESS;
  }
  if (k == K_HOST) {
    /* A host operand may be any host memory, but never a device address. */
    if (!p || sim_mem_in_device_range(p) || sim_mem_in_device_range(p + n - 1)) return CUDA_ERROR_INVALID_VALUE;
    sim_alloc_t a;
    bool pinned = sim_mem_find(p, n, &a) && !a.freeing && a.kind != SIM_MEM_DEVICE;
    *s = (side_t){(uint8_t *)(uintptr_t)p, 0, false, !pinned};
    return CUDA_SUCCESS;
  }
  void *h;
  switch (sim_mem_classify(p, n, &h)) {
    case SIM_PTR_DEVICE: *s = (side_t){h, p, true, false}; return CUDA_SUCCESS;
    case SIM_PTR_PINNED: *s = (side_t){h, 0, false, false}; return CUDA_SUCCESS;
    case SIM_PTR_PAGEABLE: *s = (side_t){h, 0, false, true}; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

static size_t extent(size_t width, size_t height, size_t depth, size_t pitch, size_t slice) {
  return (depth - 1) * slice + (height - 1) * pitch + width;
}

/* ---- staging buffers ---- */
#define STAGE_CHUNK ((size_t)2 << 20) /* bytes per staging buffer */
#define STAGE_BUFS 4                  /* buffers, shared by every copy */
#define STAGE_INLINE ((size_t)64 << 10)

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cv = PTHREAD_COND_INITIALIZER;
static uint8_t *pool_free[STAGE_BUFS];
static int pool_nfree, pool_made;

static uint8_t *pool_get(void) {
  pthread_mutex_lock(&pool_mu);
  while (!pool_nfree && pool_made == STAGE_BUFS) pthread_cond_wait(&pool_cv, &pool_mu);
  uint8_t *b = NULL;
  if (pool_nfree) b = pool_free[--pool_nfree];
  else pool_made++; /* made below, outside the lock; kept for good */
  pthread_mutex_unlock(&pool_mu);
  if (!b && !(b = malloc(STAGE_CHUNK))) abort();
  return b;
}

static void pool_put(uint8_t *b) {
  pthread_mutex_lock(&pool_mu);
  pool_free[pool_nfree++] = b;
  pthread_cond_signal(&pool_cv);
  pthread_mutex_unlock(&pool_mu);
}

/* One staged copy, shared by the caller (producer) and the op (consumer). At
 * most STAGE_BUFS chunks are ever in flight, so chunk i lives in slot i % STAGE_BUFS. */
struct sim_stage_s {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int refs;
  size_t bytes, n_chunks, staged, consumed;
  bool started;  /* the worker reached the op (everything before it is done) */
  uint8_t *slot[STAGE_BUFS];
};

static sim_stage_t *stage_new(size_t bytes) {
  sim_stage_t *st = calloc(1, sizeof *st);
  if (!st) return NULL;
  pthread_mutex_init(&st->mu, NULL);
  pthread_cond_init(&st->cv, NULL);
  atomic_init(&st->refs, 2); /* caller and op */
  st->bytes = bytes;
  st->n_chunks = (bytes + STAGE_CHUNK - 1) / STAGE_CHUNK;
  return st;
}

static void stage_unref(sim_stage_t *st) {
  if (atomic_fetch_sub(&st->refs, 1) != 1) return;
  pthread_mutex_destroy(&st->mu);
  pthread_cond_destroy(&st->cv);
  free(st);
}

/* Packed byte range [lo, lo+len) of a (width, height, depth) box, to or from
 * its pitched layout at base. */
static void box_range(uint8_t *base, size_t pitch, size_t slice, const sim_copy_t *c, size_t lo, uint8_t *packed,
                      size_t len, bool to_box) {
  while (len) {
    size_t row = lo / c->width, x = lo % c->width;
    size_t n = c->width - x < len ? c->width - x : len;
    uint8_t *p = base + row / c->height * slice + row % c->height * pitch + x;
    if (to_box) memmove(p, packed, n);
    else memcpy(packed, p, n);
    packed += n;
    lo += n;
    len -= n;
  }
}

/* Caller: after the stream sync if wait_start, copies the source through the
 * staging buffers (blocking while all of them are in flight). */
static void stage_produce(sim_stage_t *st, const sim_copy_t *c, bool wait_start) {
  if (wait_start) {
    pthread_mutex_lock(&st->mu);
    while (!st->started) pthread_cond_wait(&st->cv, &st->mu);
    pthread_mutex_unlock(&st->mu);
  }
  for (size_t i = 0; i < st->n_chunks; i++) {
    size_t lo = i * STAGE_CHUNK, len = st->bytes - lo < STAGE_CHUNK ? st->bytes - lo : STAGE_CHUNK;
    uint8_t *b = pool_get();
    box_range((uint8_t *)c->src, c->spitch, c->sslice, c, lo, b, len, false);
    pthread_mutex_lock(&st->mu);
    st->slot[i % STAGE_BUFS] = b;
    st->staged++;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
  }
}

/* Worker: takes chunk i once staged (NULL data: only the buffer is recycled). */
static uint8_t *stage_take(sim_stage_t *st, size_t i) {
  pthread_mutex_lock(&st->mu);
  while (st->staged <= i) pthread_cond_wait(&st->cv, &st->mu);
  uint8_t *b = st->slot[i % STAGE_BUFS];
  st->slot[i % STAGE_BUFS] = NULL;
  pthread_mutex_unlock(&st->mu);
  return b;
}

static void stage_done(sim_stage_t *st, uint8_t *b) {
  pthread_mutex_lock(&st->mu);
  st->consumed++;
  pthread_mutex_unlock(&st->mu);
  pool_put(b);
}

static void stage_start(sim_stage_t *st) {
  pthread_mutex_lock(&st->mu);
  st->started = true;
  pthread_cond_broadcast(&st->cv);
  pthread_mutex_unlock(&st->mu);
}

void sim_copy_skip(sim_copy_t *c) {
  if (!c->stage) return;
  stage_start(c->stage);
  for (size_t i = 0; i < c->stage->n_chunks; i++) stage_done(c->stage, stage_take(c->stage, i));
}

void sim_copy_release(sim_copy_t *c) {
  if (c->stage) stage_unref(c->stage);
  c->stage = NULL;
}

/* ---- execution (stream worker) ---- */
void sim_copy_execute(sim_copy_t *c) {
  if (c->dir == SIM_DIR_H2D || c->dir == SIM_DIR_D2H) sim_inject_on_copy(c);
  size_t bytes = c->width * c->height * c->depth;
  if (c->stage) {
    /* The DMA: chunk by chunk from the staging buffers, each charged to the link. */
    sim_stage_t *st = c->stage;
    stage_start(st);
    for (size_t i = 0; i < st->n_chunks; i++) {
      size_t lo = i * STAGE_CHUNK, len = bytes - lo < STAGE_CHUNK ? bytes - lo : STAGE_CHUNK;
      uint8_t *b = stage_take(st, i);
      double t0 = sim_now();
      box_range(c->dst, c->dpitch, c->dslice, c, lo, b, len, true);
      sim_bandwidth_charge(c->dir, len, t0);
      stage_done(st, b);
    }
  } else {
    double t0 = sim_now();
    for (size_t z = 0; z < c->depth; z++)
      for (size_t y = 0; y < c->height; y++)
        memmove(c->dst + z * c->dslice + y * c->dpitch, c->src + z * c->sslice + y * c->spitch, c->width);
    sim_bandwidth_charge(c->dir, bytes, t0);
  }
  switch (c->dir) {
    case SIM_DIR_H2D: SIM_COUNT(memcpy_h2d, 1); SIM_COUNT(bytes_h2d, bytes); break;
    case SIM_DIR_D2H: SIM_COUNT(memcpy_d2h, 1); SIM_COUNT(bytes_d2h, bytes); break;
    case SIM_DIR_D2D: SIM_COUNT(memcpy_d2d, 1); SIM_COUNT(bytes_d2d, bytes); break;
    case SIM_DIR_H2H: SIM_COUNT(memcpy_h2h, 1); break;
  }
  if (c->dst_dev)
    sim_stuck_apply(c->dst_dev, c->dst_dev + extent(c->width, c->height, c->depth, c->dpitch, c->dslice));
}

/* ---- submission ---- */
static void fill_sides(sim_copy_t *c, const side_t *src, const side_t *dst) {
  c->src = src->host;
  c->dst = dst->host;
  c->src_dev = src->dev;
  c->dst_dev = dst->dev;
  c->dir = src->is_dev ? (dst->is_dev ? SIM_DIR_D2D : SIM_DIR_D2H) : (dst->is_dev ? SIM_DIR_H2D : SIM_DIR_H2H);
}

/* stage_src: read the source at the call (cuMemcpyBatchAsync's
 * CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL / _ANY), whatever its kind. */
static CUresult submit_ex(sim_ctx_t *ctx, CUstream h, int ptds, bool async, bool stage_src, sim_copy_t *c,
                          const side_t *src, const side_t *dst) {
  sim_stream_t *s;
  CUresult r = sim_stream_get(ctx, h, ptds, &s);
  if (r) return r;
  /* A capture records the copy as a memcpy node, which reads or writes a pageable
   * host side when it runs, as an explicit one does (NVIDIA's simpleCudaGraphs and
   * graphMemoryNodes capture such copies); only a source that must be read at the
   * call (a batch's) cannot be captured. */
  if ((r = sim_capture_check_copy(s, stage_src))) {
    sim_obj_unref(&s->obj);
    return r;
  }
  bool captured = async && atomic_load(&s->capturing);
  fill_sides(c, src, dst);
  sim_op_t *op = sim_op_new(SIM_OP_COPY);
  size_t bytes = c->width * c->height * c->depth;
  bool wait, staged = false;
  if (async && captured) {
    wait = false; /* a node of the graph: neither staged nor copied now */
  } else if (async) {
    if ((src->pageable || stage_src) && !dst->pageable && bytes > STAGE_INLINE) {
      /* Pageable source: staged now (no stream sync), the call returns once the
       * last chunk is in a staging buffer; the DMA happens in stream order. */
      staged = true;
    } else if ((src->pageable || stage_src) && !dst->pageable) {
      /* Small: the data travels inside the operation. */
      uint8_t *buf = malloc(bytes);
      if (!buf) {
        free(op);
        sim_obj_unref(&s->obj);
        return CUDA_ERROR_OUT_OF_MEMORY;
      }
      for (size_t z = 0; z < c->depth; z++)
        for (size_t y = 0; y < c->height; y++)
          memcpy(buf + (z * c->height + y) * c->width, c->src + z * c->sslice + y * c->spitch, c->width);
      c->src = buf;
      c->spitch = c->width;
      c->sslice = c->width * c->height;
      op->owned = buf;
    }
    wait = dst->pageable; /* into pageable memory: synchronous, as documented */
  } else {
    wait = !(src->is_dev && dst->is_dev); /* device-to-device returns at once */
    /* Pageable to device: a stream sync, then staging (the call then waits for
     * the DMA too: stricter than the driver, which may return before it ends). */
    staged = src->pageable && dst->is_dev;
  }
  sim_stage_t *st = NULL;
  if (staged && !(st = stage_new(bytes))) {
    free(op);
    sim_obj_unref(&s->obj);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  op->u.copy = *c;
  op->u.copy.stage = st;
  op->u.copy.program = sim_inject_take_program_copy();
  uint64_t seq = sim_stream_enqueue(s, op); /* op may be freed from here on */
  if (st) {
    stage_produce(st, c, !async);
    stage_unref(st);
  }
  if (wait) {
    sim_stream_wait_seq(s, seq);
    r = (CUresult)atomic_load(&ctx->sticky);
  }
  sim_obj_unref(&s->obj);
  return r;
}

static CUresult submit(sim_ctx_t *ctx, CUstream h, int ptds, bool async, sim_copy_t *c, const side_t *src,
                       const side_t *dst) {
  return submit_ex(ctx, h, ptds, async, false, c, src, dst);
}

static CUresult copy1d(sidekind_t dk, uint64_t dst, sidekind_t sk, uint64_t src, size_t n, CUstream h, int ptds,
                       bool async) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (n == 0) { /* succeeds without touching the pointers, like the driver */
    sim_stream_t *s;
    r = sim_stream_get(ctx, h, ptds, &s);
    if (!r) sim_obj_unref(&s->obj);
    return r;
  }
  side_t d, s;
  if ((r = side_get(dk, dst, n, &d)) || (r = side_get(sk, src, n, &s))) return r;
  sim_copy_t c = {.width = n, .height = 1, .depth = 1, .dpitch = n, .spitch = n, .dslice = n, .sslice = n};
  return submit(ctx, h, ptds, async, &c, &s, &d);
}

#define U(p) ((uint64_t)(uintptr_t)(p))
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { return copy1d(K_DEV, d, K_HOST, U(s), n, NULL, 0, false); }
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void *s, size_t n) { return copy1d(K_DEV, d, K_HOST, U(s), n, NULL, 1, false); }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { return copy1d(K_HOST, U(d), K_DEV, s, n, NULL, 0, false); }
CUresult cuMemcpyDtoH_v2_ptds(void *d, CUdeviceptr s, size_t n) { return copy1d(K_HOST, U(d), K_DEV, s, n, NULL, 1, false); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { return copy1d(K_DEV, d, K_DEV, s, n, NULL, 0, false); }
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { return copy1d(K_DEV, d, K_DEV, s, n, NULL, 1, false); }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream h) { return copy1d(K_DEV, d, K_HOST, U(s), n, h, 0, true); }
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *s, size_t n, CUstream h) { return copy1d(K_DEV, d, K_HOST, U(s), n, h, 1, true); }
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(K_HOST, U(d), K_DEV, s, n, h, 0, true); }
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(K_HOST, U(d), K_DEV, s, n, h, 1, true); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(K_DEV, d, K_DEV, s, n, h, 0, true); }
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(K_DEV, d, K_DEV, s, n, h, 1, true); }
CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n) { return copy1d(K_UNIFIED, d, K_UNIFIED, s, n, NULL, 0, false); }
CUresult cuMemcpy_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { return copy1d(K_UNIFIED, d, K_UNIFIED, s, n, NULL, 1, false); }
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(K_UNIFIED, d, K_UNIFIED, s, n, h, 0, true); }
CUresult cuMemcpyAsync_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(K_UNIFIED, d, K_UNIFIED, s, n, h, 1, true); }

/* A peer operand: device memory of the named context's device (n bytes at p). */
static CUresult peer_side(CUcontext h, CUdeviceptr p, size_t n, sim_ctx_t **out) {
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_CTX);
  if (!o) return CUDA_ERROR_INVALID_CONTEXT;
  sim_ctx_t *c = (sim_ctx_t *)o;
  bool alive = atomic_load(&c->alive);
  sim_obj_unref(o); /* the handle table keeps it while it is alive */
  if (!alive) return CUDA_ERROR_INVALID_CONTEXT;
  *out = c;
  sim_alloc_t a;
  if (n && (!sim_mem_find(p, n, &a) || a.kind != SIM_MEM_DEVICE || a.dev != c->dev)) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

/* Copies between devices need no peer access (the driver stages them when there
 * is no link). The synchronous form is serialised with the work of both contexts,
 * as the runtime documents for cudaMemcpyPeer: their earlier work first, and the
 * copy done before the call returns. */
static CUresult peer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream h, int ptds,
                     bool async) {
  SIM_CHECK_INIT();
  sim_ctx_t *dctx, *sctx;
  CUresult r = peer_side(dc, d, n, &dctx);
  if (!r) r = peer_side(sc, s, n, &sctx);
  if (r) return r;
  if (!async) {
    sim_ctx_sync(dctx);
    sim_ctx_sync(sctx);
  }
  r = copy1d(K_DEV, d, K_DEV, s, n, h, ptds, async);
  if (!r && !async) {
    sim_ctx_t *cur;
    if (!sim_ctx_current(&cur)) r = sim_ctx_sync(cur);
  }
  return r;
}
CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n) { return peer(d, dc, s, sc, n, NULL, 0, false); }
CUresult cuMemcpyPeer_ptds(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n) { return peer(d, dc, s, sc, n, NULL, 1, false); }
CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream h) { return peer(d, dc, s, sc, n, h, 0, true); }
CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream h) { return peer(d, dc, s, sc, n, h, 1, true); }

/* ---- 2-D and 3-D ---- */
typedef struct {
  CUmemorytype type;
  const void *host;
  CUdeviceptr dev;
  size_t x, y, z, pitch, rows; /* rows: height of a slice (3-D) */
  CUarray arr;                 /* CU_MEMORYTYPE_ARRAY */
} desc_t;

/* An array operand becomes its memory (array.c's packed layout): the box must lie
 * inside the array, x and the width whole elements (as the driver requires). */
static CUresult array_desc(desc_t *d, size_t w, size_t h, size_t dep) {
  sim_array_info_t a;
  if (!sim_array_get(d->arr, &a)) return CUDA_ERROR_INVALID_VALUE;
  if (d->x % a.elem || w % a.elem || d->x + w > a.pitch || d->y + h > a.rows || d->z + dep > a.slices)
    return CUDA_ERROR_INVALID_VALUE;
  *d = (desc_t){CU_MEMORYTYPE_DEVICE, NULL, a.dev, d->x, d->y, d->z, a.pitch, a.rows, NULL};
  return CUDA_SUCCESS;
}

/* Resolves operand d of a (w, h, dep) box; its row pitch and slice pitch in *pitch, *slice. */
static CUresult side_desc(const desc_t *dp, size_t w, size_t h, size_t dep, side_t *s, size_t *pitch, size_t *slice) {
  desc_t da;
  const desc_t *d = dp;
  if (dp->type == CU_MEMORYTYPE_ARRAY) {
    da = *dp;
    CUresult r = array_desc(&da, w, h, dep);
    if (r) return r;
    d = &da;
  }
  if (h > 1 && d->pitch < w + d->x) return CUDA_ERROR_INVALID_VALUE;
  if (d->pitch > 2147483647u) return CUDA_ERROR_INVALID_VALUE;
  if (dep > 1 && d->rows < h + d->y) return CUDA_ERROR_INVALID_VALUE;
  *pitch = d->pitch;
  *slice = d->pitch * d->rows;
  size_t off = d->z * *slice + d->y * d->pitch + d->x;
  size_t n = extent(w, h, dep, d->pitch, *slice);
  switch (d->type) {
    case CU_MEMORYTYPE_HOST: return side_get(K_HOST, U(d->host) + off, n, s);
    case CU_MEMORYTYPE_DEVICE: return side_get(K_DEV, d->dev + off, n, s);
    case CU_MEMORYTYPE_UNIFIED: return side_get(K_UNIFIED, d->dev + off, n, s);
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

static CUresult copy3d(const desc_t *sd, const desc_t *dd, size_t w, size_t h, size_t dep, CUstream hs, int ptds,
                       bool async) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (w == 0 || h == 0 || dep == 0) {
    sim_stream_t *s;
    r = sim_stream_get(ctx, hs, ptds, &s);
    if (!r) sim_obj_unref(&s->obj);
    return r;
  }
  side_t s, d;
  size_t sp, dp, ss, ds;
  if ((r = side_desc(sd, w, h, dep, &s, &sp, &ss)) || (r = side_desc(dd, w, h, dep, &d, &dp, &ds))) return r;
  sim_copy_t c = {.width = w, .height = h, .depth = dep, .spitch = sp, .dpitch = dp, .sslice = ss, .dslice = ds};
  return submit(ctx, hs, ptds, async, &c, &s, &d);
}

static CUresult copy2d(const CUDA_MEMCPY2D *p, CUstream hs, int ptds, bool async) {
  if (!p) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  desc_t sd = {p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY, 0, p->srcPitch, p->Height, p->srcArray};
  desc_t dd = {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY, 0, p->dstPitch, p->Height, p->dstArray};
  if (p->Height <= 1) {
    if (!sd.pitch) sd.pitch = p->WidthInBytes + p->srcXInBytes;
    if (!dd.pitch) dd.pitch = p->WidthInBytes + p->dstXInBytes;
  }
  return copy3d(&sd, &dd, p->WidthInBytes, p->Height, 1, hs, ptds, async);
}
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p) { return copy2d(p, NULL, 0, false); }
CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *p) { return copy2d(p, NULL, 1, false); }
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p) { return copy2d(p, NULL, 0, false); }
CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *p) { return copy2d(p, NULL, 1, false); }
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream h) { return copy2d(p, h, 0, true); }
CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *p, CUstream h) { return copy2d(p, h, 1, true); }

/* A single-row copy may leave the pitches 0. */
static CUresult copy3d_params(desc_t sd, desc_t dd, size_t w, size_t h, size_t depth, CUstream hs,
                              int ptds, bool async) {
  if (h <= 1 && depth <= 1) {
    if (!sd.pitch) sd.pitch = w + sd.x;
    if (!dd.pitch) dd.pitch = w + dd.x;
  }
  return copy3d(&sd, &dd, w, h, depth, hs, ptds, async);
}
/* CUDA_MEMCPY3D and CUDA_MEMCPY3D_PEER name their common fields alike. */
#define COPY3D_OF(p, hs, ptds, async)                                                       \
  copy3d_params((desc_t){(p)->srcMemoryType, (p)->srcHost, (p)->srcDevice, (p)->srcXInBytes, \
                         (p)->srcY, (p)->srcZ, (p)->srcPitch, (p)->srcHeight, (p)->srcArray}, \
                (desc_t){(p)->dstMemoryType, (p)->dstHost, (p)->dstDevice, (p)->dstXInBytes, \
                         (p)->dstY, (p)->dstZ, (p)->dstPitch, (p)->dstHeight, (p)->dstArray}, \
                (p)->WidthInBytes, (p)->Height, (p)->Depth, hs, ptds, async)

static CUresult copy3d_api(const CUDA_MEMCPY3D *p, CUstream hs, int ptds, bool async) {
  if (!p || p->reserved0 || p->reserved1 || p->srcLOD || p->dstLOD) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  return COPY3D_OF(p, hs, ptds, async);
}
/* A graph memcpy node's copy, checked and resolved without queueing it (the
 * node runs it at each launch; a pageable host side is read then). */
CUresult sim_copy_resolve3d(const CUDA_MEMCPY3D *p, sim_copy_t *c) {
  if (!p || p->reserved0 || p->reserved1 || p->srcLOD || p->dstLOD) return CUDA_ERROR_INVALID_VALUE;
  desc_t sd = {p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY, p->srcZ, p->srcPitch, p->srcHeight,
               p->srcArray};
  desc_t dd = {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY, p->dstZ, p->dstPitch, p->dstHeight,
               p->dstArray};
  size_t w = p->WidthInBytes, h = p->Height, dep = p->Depth;
  if (!w || !h || !dep) return CUDA_ERROR_INVALID_VALUE; /* an empty node: the driver refuses it too */
  if (h <= 1 && dep <= 1) {
    if (!sd.pitch) sd.pitch = w + sd.x;
    if (!dd.pitch) dd.pitch = w + dd.x;
  }
  side_t s, d;
  size_t sp, dp, ss, ds;
  CUresult r;
  if ((r = side_desc(&sd, w, h, dep, &s, &sp, &ss)) || (r = side_desc(&dd, w, h, dep, &d, &dp, &ds))) return r;
  *c = (sim_copy_t){.width = w, .height = h, .depth = dep, .spitch = sp, .dpitch = dp, .sslice = ss, .dslice = ds};
  fill_sides(c, &s, &d);
  return CUDA_SUCCESS;
}

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) { return copy3d_api(p, NULL, 0, false); }
CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *p) { return copy3d_api(p, NULL, 1, false); }
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream h) { return copy3d_api(p, h, 0, true); }
CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *p, CUstream h) { return copy3d_api(p, h, 1, true); }

/* ---- 3-D peer copies (one device: the contexts are checked, then it is a 3-D copy) ---- */
static CUresult copy3d_peer(const CUDA_MEMCPY3D_PEER *p, CUstream hs, int ptds, bool async) {
  SIM_CHECK_INIT();
  if (!p || p->srcLOD || p->dstLOD) return CUDA_ERROR_INVALID_VALUE;
  sim_obj_t *a = sim_handle_get(p->srcContext, SIM_OBJ_CTX), *b = sim_handle_get(p->dstContext, SIM_OBJ_CTX);
  bool ok = a && b;
  if (a) sim_obj_unref(a);
  if (b) sim_obj_unref(b);
  if (!ok) return CUDA_ERROR_INVALID_CONTEXT;
  return COPY3D_OF(p, hs, ptds, async);
}
CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *p) { return copy3d_peer(p, NULL, 0, false); }
CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *p) { return copy3d_peer(p, NULL, 1, false); }
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *p, CUstream h) { return copy3d_peer(p, h, 0, true); }
CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *p, CUstream h) { return copy3d_peer(p, h, 1, true); }

/* ---- batches (CUDA 13 ABI) ---- */
/* "Must not be legacy NULL stream." */
static bool is_legacy(CUstream h, int ptds) { return h == CU_STREAM_LEGACY || (!h && !ptds); }

static bool order_ok(CUmemcpySrcAccessOrder o) {
  return o == CU_MEMCPY_SRC_ACCESS_ORDER_STREAM || o == CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL ||
         o == CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
}

typedef struct {
  sim_copy_t c;
  side_t s, d;
  bool stage; /* source read at the call */
} batch_item_t;

/* Queues checked items in order; the batch as a whole is in stream order. */
static CUresult batch_submit(sim_ctx_t *ctx, CUstream h, int ptds, batch_item_t *it, size_t n) {
  CUresult r = CUDA_SUCCESS;
  for (size_t i = 0; i < n && !r; i++) {
    if (!it[i].c.width) continue; /* empty copy */
    r = submit_ex(ctx, h, ptds, true, it[i].stage, &it[i].c, &it[i].s, &it[i].d);
  }
  return r;
}

static CUresult batch1d(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, CUmemcpyAttributes *attrs,
                        size_t *idxs, size_t n_attrs, CUstream h, int ptds) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!dsts || !srcs || !sizes || !count || !attrs || !idxs || !n_attrs || n_attrs > count || is_legacy(h, ptds))
    return CUDA_ERROR_INVALID_VALUE;
  /* attrsIdxs: starts at 0, strictly increasing, below count. */
  for (size_t k = 0; k < n_attrs; k++) {
    if ((k == 0 && idxs[0] != 0) || (k > 0 && idxs[k] <= idxs[k - 1]) || idxs[k] >= count)
      return CUDA_ERROR_INVALID_VALUE;
    if (!order_ok(attrs[k].srcAccessOrder) || (attrs[k].flags & ~(unsigned)CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE))
      return CUDA_ERROR_INVALID_VALUE;
  }
  sim_stream_t *s;
  if ((r = sim_stream_get(ctx, h, ptds, &s))) return r;
  sim_obj_unref(&s->obj);
  batch_item_t *it = calloc(count, sizeof *it);
  if (!it) return CUDA_ERROR_OUT_OF_MEMORY;
  size_t k = 0;
  for (size_t i = 0; i < count; i++) {
    while (k + 1 < n_attrs && idxs[k + 1] <= i) k++;
    size_t n = sizes[i];
    if (!n) continue;
    if ((r = side_get(K_UNIFIED, dsts[i], n, &it[i].d)) || (r = side_get(K_UNIFIED, srcs[i], n, &it[i].s))) break;
    it[i].c = (sim_copy_t){.width = n, .height = 1, .depth = 1, .dpitch = n, .spitch = n, .dslice = n, .sslice = n};
    it[i].stage = attrs[k].srcAccessOrder != CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  }
  if (!r) r = batch_submit(ctx, h, ptds, it, count);
  free(it);
  return r;
}
/* CUDA 12.8's ABI (cuda.h now maps the name to _v2): failIdx names the copy at fault;
 * the simulator reports SIZE_MAX, "not one copy in particular", which the driver
 * may also answer. */
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync
CUresult cuMemcpyBatchAsync(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a,
                            size_t *ai, size_t na, size_t *fail, CUstream h);
CUresult cuMemcpyBatchAsync_ptsz(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a,
                                 size_t *ai, size_t na, size_t *fail, CUstream h);
CUresult cuMemcpy3DBatchAsync(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail, unsigned long long f, CUstream h);
CUresult cuMemcpy3DBatchAsync_ptsz(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail, unsigned long long f,
                                   CUstream h);
static CUresult failed_at(CUresult r, size_t *fail) {
  if (r != CUDA_SUCCESS && fail) *fail = SIZE_MAX;
  return r;
}
CUresult cuMemcpyBatchAsync(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a,
                            size_t *ai, size_t na, size_t *fail, CUstream h) {
  return failed_at(batch1d(d, s, n, count, a, ai, na, h, 0), fail);
}
CUresult cuMemcpyBatchAsync_ptsz(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a,
                                 size_t *ai, size_t na, size_t *fail, CUstream h) {
  return failed_at(batch1d(d, s, n, count, a, ai, na, h, 1), fail);
}
CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a,
                               size_t *ai, size_t na, CUstream h) {
  return batch1d(d, s, n, count, a, ai, na, h, 0);
}
CUresult cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a,
                                    size_t *ai, size_t na, CUstream h) {
  return batch1d(d, s, n, count, a, ai, na, h, 1);
}

/* A pointer operand of a 3-D batch op (element size 1); arrays are not simulated. */
static CUresult operand(const CUmemcpy3DOperand *o, const CUextent3D *e, desc_t *d) {
  if (o->type != CU_MEMCPY_OPERAND_TYPE_POINTER) return CUDA_ERROR_INVALID_VALUE; /* arrays, garbage */
  size_t row = o->op.ptr.rowLength, layer = o->op.ptr.layerHeight;
  if ((row && row < e->width) || (layer && layer < e->height)) return CUDA_ERROR_INVALID_VALUE;
  *d = (desc_t){CU_MEMORYTYPE_UNIFIED, NULL, o->op.ptr.ptr, 0, 0, 0, row ? row : e->width,
                layer ? layer : e->height, NULL};
  return CUDA_SUCCESS;
}

static CUresult batch3d(size_t n_ops, CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long flags, CUstream h, int ptds) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!n_ops || !ops || flags || is_legacy(h, ptds)) return CUDA_ERROR_INVALID_VALUE;
  sim_stream_t *s;
  if ((r = sim_stream_get(ctx, h, ptds, &s))) return r;
  sim_obj_unref(&s->obj);
  batch_item_t *it = calloc(n_ops, sizeof *it);
  if (!it) return CUDA_ERROR_OUT_OF_MEMORY;
  for (size_t i = 0; i < n_ops && !r; i++) {
    const CUDA_MEMCPY3D_BATCH_OP *o = &ops[i];
    const CUextent3D *e = &o->extent;
    desc_t sd, dd;
    size_t sp, dp, ss, ds;
    if (!e->width || !e->height || !e->depth || !order_ok(o->srcAccessOrder) ||
        (o->flags & ~(unsigned)CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE)) {
      r = CUDA_ERROR_INVALID_VALUE;
      break;
    }
    if ((r = operand(&o->src, e, &sd)) || (r = operand(&o->dst, e, &dd))) break;
    if ((r = side_desc(&sd, e->width, e->height, e->depth, &it[i].s, &sp, &ss)) ||
        (r = side_desc(&dd, e->width, e->height, e->depth, &it[i].d, &dp, &ds)))
      break;
    it[i].c = (sim_copy_t){.width = e->width, .height = e->height, .depth = e->depth, .spitch = sp,
                           .dpitch = dp, .sslice = ss, .dslice = ds};
    it[i].stage = o->srcAccessOrder != CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  }
  if (!r) r = batch_submit(ctx, h, ptds, it, n_ops);
  free(it);
  return r;
}
CUresult cuMemcpy3DBatchAsync(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail, unsigned long long f, CUstream h) {
  return failed_at(batch3d(n, ops, f, h, 0), fail);
}
CUresult cuMemcpy3DBatchAsync_ptsz(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail, unsigned long long f,
                                   CUstream h) {
  return failed_at(batch3d(n, ops, f, h, 1), fail);
}
CUresult cuMemcpy3DBatchAsync_v2(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long f, CUstream h) {
  return batch3d(n, ops, f, h, 0);
}
CUresult cuMemcpy3DBatchAsync_v2_ptsz(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long f, CUstream h) {
  return batch3d(n, ops, f, h, 1);
}

/* ---- linear copies to and from arrays: a byte offset into the array's packed
 * elements (array.c's layout: rows, then slices, one after the other) ---- */
static CUresult array_at(CUarray h, size_t off, size_t n, uint64_t *p) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_array_info_t a;
  if (!sim_array_get(h, &a) || off > a.slice * a.slices || n > a.slice * a.slices - off) return CUDA_ERROR_INVALID_VALUE;
  *p = a.dev + off;
  return CUDA_SUCCESS;
}

static CUresult to_array(CUarray d, size_t off, sidekind_t sk, uint64_t src, size_t n, CUstream h, int ptds,
                         bool async) {
  uint64_t p;
  CUresult r = array_at(d, off, n, &p);
  return r ? r : copy1d(K_DEV, p, sk, src, n, h, ptds, async);
}

static CUresult from_array(sidekind_t dk, uint64_t dst, CUarray s, size_t off, size_t n, CUstream h, int ptds,
                           bool async) {
  uint64_t p;
  CUresult r = array_at(s, off, n, &p);
  return r ? r : copy1d(dk, dst, K_DEV, p, n, h, ptds, async);
}

static CUresult atoa(CUarray d, size_t doff, CUarray s, size_t soff, size_t n, int ptds) {
  uint64_t p;
  CUresult r = array_at(s, soff, n, &p);
  return r ? r : to_array(d, doff, K_DEV, p, n, NULL, ptds, false);
}

CUresult cuMemcpyHtoA_v2(CUarray d, size_t off, const void *s, size_t n) { return to_array(d, off, K_HOST, U(s), n, NULL, 0, false); }
CUresult cuMemcpyHtoA_v2_ptds(CUarray d, size_t off, const void *s, size_t n) { return to_array(d, off, K_HOST, U(s), n, NULL, 1, false); }
CUresult cuMemcpyHtoAAsync_v2(CUarray d, size_t off, const void *s, size_t n, CUstream h) { return to_array(d, off, K_HOST, U(s), n, h, 0, true); }
CUresult cuMemcpyHtoAAsync_v2_ptsz(CUarray d, size_t off, const void *s, size_t n, CUstream h) { return to_array(d, off, K_HOST, U(s), n, h, 1, true); }
CUresult cuMemcpyDtoA_v2(CUarray d, size_t off, CUdeviceptr s, size_t n) { return to_array(d, off, K_DEV, s, n, NULL, 0, false); }
CUresult cuMemcpyDtoA_v2_ptds(CUarray d, size_t off, CUdeviceptr s, size_t n) { return to_array(d, off, K_DEV, s, n, NULL, 1, false); }
CUresult cuMemcpyAtoH_v2(void *d, CUarray s, size_t off, size_t n) { return from_array(K_HOST, U(d), s, off, n, NULL, 0, false); }
CUresult cuMemcpyAtoH_v2_ptds(void *d, CUarray s, size_t off, size_t n) { return from_array(K_HOST, U(d), s, off, n, NULL, 1, false); }
CUresult cuMemcpyAtoHAsync_v2(void *d, CUarray s, size_t off, size_t n, CUstream h) { return from_array(K_HOST, U(d), s, off, n, h, 0, true); }
CUresult cuMemcpyAtoHAsync_v2_ptsz(void *d, CUarray s, size_t off, size_t n, CUstream h) { return from_array(K_HOST, U(d), s, off, n, h, 1, true); }
CUresult cuMemcpyAtoD_v2(CUdeviceptr d, CUarray s, size_t off, size_t n) { return from_array(K_DEV, d, s, off, n, NULL, 0, false); }
CUresult cuMemcpyAtoD_v2_ptds(CUdeviceptr d, CUarray s, size_t off, size_t n) { return from_array(K_DEV, d, s, off, n, NULL, 1, false); }
CUresult cuMemcpyAtoA_v2(CUarray d, size_t doff, CUarray s, size_t soff, size_t n) { return atoa(d, doff, s, soff, n, 0); }
CUresult cuMemcpyAtoA_v2_ptds(CUarray d, size_t doff, CUarray s, size_t soff, size_t n) { return atoa(d, doff, s, soff, n, 1); }
