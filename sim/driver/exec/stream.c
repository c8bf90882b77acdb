/* stream.c: streams as worker threads that run queued operations in order, with
 * legacy default-stream semantics (implicit dependencies between the NULL stream
 * and blocking streams), per-thread default streams, and the stream API. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static atomic_ullong next_stream_id = 3; /* 0..2 read as the special handles */

/* ---- operations ---- */
sim_op_t *sim_op_new(sim_optype_t type) {
  sim_op_t *op = calloc(1, sizeof *op);
  if (!op) abort();
  op->type = type;
  return op;
}

void sim_op_add_dep(sim_op_t *op, sim_stream_t *s, uint64_t seq) {
  sim_obj_ref(&s->obj);
  if (op->n_deps < sizeof op->deps / sizeof op->deps[0]) {
    op->deps[op->n_deps++] = (sim_dep_t){s, seq};
    return;
  }
  op->more_deps = realloc(op->more_deps, (op->n_more + 1) * sizeof *op->more_deps);
  if (!op->more_deps) abort();
  op->more_deps[op->n_more++] = (sim_dep_t){s, seq};
}

void sim_op_free(sim_op_t *op) {
  for (size_t i = 0; i < op->n_deps; i++) sim_obj_unref(&op->deps[i].s->obj);
  for (size_t i = 0; i < op->n_more; i++) sim_obj_unref(&op->more_deps[i].s->obj);
  free(op->more_deps);
  if (op->type == SIM_OP_LAUNCH) sim_launch_free(op->u.launch);
  if (op->type == SIM_OP_EVENT) sim_obj_unref(&op->u.event.ev->obj);
  if (op->type == SIM_OP_COPY) sim_copy_release(&op->u.copy);
  if (op->type == SIM_OP_TASK) op->u.task.release(op->u.task.data);
  free(op->owned);
  free(op);
}

void sim_op_execute(sim_op_t *op, sim_stream_t *s) {
  sim_ctx_t *ctx = s->obj.ctx;
  /* After a fatal error the context executes no more device work. */
  bool dead = atomic_load(&ctx->sticky) != CUDA_SUCCESS;
  switch (op->type) {
    case SIM_OP_NOP: break;
    case SIM_OP_COPY:
      if (!dead) sim_copy_execute(&op->u.copy);
      else sim_copy_skip(&op->u.copy);
      break;
    case SIM_OP_MEMSET: if (!dead) sim_memset_execute(&op->u.memset); break;
    case SIM_OP_LAUNCH: {
      /* SIMCUDA_KERNEL_US: a GPU runs a kernel without the host's CPU; so many
       * microseconds at least, slept, let streams overlap as on a GPU (mt_bench) */
      double t0 = sim_opt.kernel_s > 0 ? sim_now() : 0;
      if (!dead) sim_launch_execute(op->u.launch);
      if (t0 > 0 && !dead) sim_sleep_until(t0 + sim_opt.kernel_s);
      sim_launch_retire(op->u.launch);
      break;
    }
    case SIM_OP_HOSTFN: op->u.hostfn.fn(op->u.hostfn.data); break;
    case SIM_OP_CALLBACK:
      op->u.cb.fn(op->u.cb.h, (CUresult)atomic_load(&ctx->sticky), op->u.cb.data);
      break;
    case SIM_OP_EVENT: sim_event_complete(op->u.event.ev, op->u.event.gen); break;
    case SIM_OP_FREE:
      sim_pool_released(op->u.free.ptr);
      sim_mem_free_device(op->u.free.ptr, false);
      break;
    case SIM_OP_MEMOP: if (!dead) sim_memop_execute(&op->u.memop, ctx); break;
    case SIM_OP_TASK: op->u.task.run(op->u.task.data, s); break;
  }
}

/* ---- the worker ---- */
static void *worker(void *arg) {
  sim_stream_t *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (!s->head && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
    if (!s->head) break;
    sim_op_t *op = s->head;
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < op->n_deps; i++) sim_stream_wait_seq(op->deps[i].s, op->deps[i].seq);
    for (size_t i = 0; i < op->n_more; i++) sim_stream_wait_seq(op->more_deps[i].s, op->more_deps[i].seq);
    sim_op_execute(op, s);
    pthread_mutex_lock(&s->mu);
    s->head = op->next;
    if (!s->head) s->tail = NULL;
    s->done_seq = op->seq;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    sim_op_free(op);
    pthread_mutex_lock(&s->mu);
  }
  pthread_mutex_unlock(&s->mu);
  sim_obj_unref(&s->obj);
  return NULL;
}

static void stream_free(sim_obj_t *o) {
  sim_stream_t *s = (sim_stream_t *)o;
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv);
  free(s);
}

CUresult sim_stream_create(sim_ctx_t *ctx, unsigned flags, int prio, bool legacy, sim_stream_t **out) {
  sim_stream_t *s = calloc(1, sizeof *s);
  if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
  sim_obj_init(&s->obj, SIM_OBJ_STREAM, ctx, stream_free);
  s->flags = flags;
  s->priority = prio;
  s->attrs[CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY].syncPolicy = CU_SYNC_POLICY_AUTO;
  s->legacy = legacy;
  s->id = legacy ? 1 : atomic_fetch_add(&next_stream_id, 1);
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  sim_obj_ref(&s->obj); /* the worker's */
  pthread_t thr;
  if (pthread_create(&thr, &at, worker, s) != 0) {
    pthread_attr_destroy(&at);
    free(s);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  pthread_attr_destroy(&at);
  pthread_mutex_lock(&ctx->mu);
  if (ctx->n_streams == ctx->cap_streams) {
    ctx->cap_streams = ctx->cap_streams ? ctx->cap_streams * 2 : 8;
    ctx->streams = realloc(ctx->streams, ctx->cap_streams * sizeof *ctx->streams);
    if (!ctx->streams) abort();
  }
  ctx->streams[ctx->n_streams++] = s; /* holds the creation reference */
  pthread_mutex_unlock(&ctx->mu);
  *out = s;
  return CUDA_SUCCESS;
}

void sim_stream_shutdown(sim_stream_t *s) {
  pthread_mutex_lock(&s->mu);
  s->stop = true;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

/* Removes a user stream: no new work; queued work still completes (as on the real
 * driver, cuStreamDestroy returns at once). */
void sim_stream_destroy(sim_stream_t *s) {
  sim_ctx_t *ctx = s->obj.ctx;
  bool listed = false;
  pthread_mutex_lock(&ctx->mu);
  for (size_t i = 0; i < ctx->n_streams; i++) {
    if (ctx->streams[i] == s) {
      ctx->streams[i] = ctx->streams[--ctx->n_streams];
      listed = true;
      break;
    }
  }
  pthread_mutex_unlock(&ctx->mu);
  sim_capture_stream_gone(s);
  sim_handle_remove(&s->obj);
  sim_stream_shutdown(s);
  if (listed) sim_obj_unref(&s->obj);
}

/* ---- ordering ---- */
static void dep_if_pending(sim_op_t *op, sim_stream_t *b) {
  pthread_mutex_lock(&b->mu);
  uint64_t e = b->enq_seq, d = b->done_seq;
  pthread_mutex_unlock(&b->mu);
  if (e > d) sim_op_add_dep(op, b, e);
}

uint64_t sim_stream_enqueue(sim_stream_t *s, sim_op_t *op) {
  /* On a capturing stream the op becomes a graph node (seq 0: nothing to wait for). */
  if (atomic_load(&s->capturing) && sim_capture_take(s, op)) return 0;
  sim_ctx_t *ctx = s->obj.ctx;
  /* Dependencies are captured before the op is queued, so they only point at
   * earlier work and can never form a cycle. */
  pthread_mutex_lock(&ctx->mu);
  if (s->legacy) {
    for (size_t i = 0; i < ctx->n_streams; i++) {
      sim_stream_t *b = ctx->streams[i];
      if (b != s && !(b->flags & CU_STREAM_NON_BLOCKING)) dep_if_pending(op, b);
    }
  } else if (!(s->flags & CU_STREAM_NON_BLOCKING) && ctx->legacy) {
    dep_if_pending(op, ctx->legacy);
  }
  pthread_mutex_unlock(&ctx->mu);
  pthread_mutex_lock(&s->mu);
  op->seq = ++s->enq_seq;
  if (s->tail) s->tail->next = op;
  else s->head = op;
  s->tail = op;
  uint64_t seq = op->seq;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return seq;
}

void sim_stream_wait_seq(sim_stream_t *s, uint64_t seq) {
  pthread_mutex_lock(&s->mu);
  while (s->done_seq < seq) pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
}

bool sim_stream_done(sim_stream_t *s, uint64_t seq) {
  pthread_mutex_lock(&s->mu);
  bool d = s->done_seq >= seq;
  pthread_mutex_unlock(&s->mu);
  return d;
}

void sim_stream_sync(sim_stream_t *s) {
  if (s->legacy) {
    /* The legacy stream also waits for earlier work of all blocking streams. */
    sim_stream_wait_seq(s, sim_stream_enqueue(s, sim_op_new(SIM_OP_NOP)));
    return;
  }
  pthread_mutex_lock(&s->mu);
  uint64_t e = s->enq_seq;
  pthread_mutex_unlock(&s->mu);
  sim_stream_wait_seq(s, e);
}

/* ---- handles ---- */
#define PT_MAX 8
typedef struct { sim_ctx_t *ctx; sim_stream_t *s; } pt_entry_t;
/* A heap block per thread behind pt_key, not __thread data: see ctx.c's tls_t. */
static pthread_key_t pt_key;
static pthread_once_t pt_once = PTHREAD_ONCE_INIT;

/* Thread exit: its per-thread default streams finish their work and go away. */
static void pt_release(void *block) {
  pt_entry_t *pt = block;
  for (int i = 0; i < PT_MAX; i++) {
    if (!pt[i].s) continue;
    sim_stream_t *s = pt[i].s;
    pt[i] = (pt_entry_t){0};
    sim_obj_t *live = sim_handle_get(s, SIM_OBJ_STREAM);
    if (live) {
      sim_stream_destroy(s);
      sim_obj_unref(live);
    }
  }
  free(pt);
}
static void pt_key_make(void) { pthread_key_create(&pt_key, pt_release); }

static CUresult per_thread(sim_ctx_t *ctx, sim_stream_t **out) {
  pthread_once(&pt_once, pt_key_make);
  pt_entry_t *pt_streams = pthread_getspecific(pt_key);
  if (!pt_streams) {
    if (!(pt_streams = calloc(PT_MAX, sizeof *pt_streams))) return CUDA_ERROR_OUT_OF_MEMORY;
    if (pthread_setspecific(pt_key, pt_streams) != 0) {
      free(pt_streams);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
  }
  int freei = -1;
  for (int i = 0; i < PT_MAX; i++) {
    if (pt_streams[i].ctx == ctx && pt_streams[i].s) {
      sim_obj_t *o = sim_handle_get(pt_streams[i].s, SIM_OBJ_STREAM);
      if (o && o->ctx == ctx) {
        *out = (sim_stream_t *)o;
        return CUDA_SUCCESS;
      }
      if (o) sim_obj_unref(o);
      pt_streams[i] = (pt_entry_t){0}; /* its context was torn down */
    }
    if (!pt_streams[i].s && freei < 0) freei = i;
  }
  if (freei < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  sim_stream_t *s;
  CUresult r = sim_stream_create(ctx, 0, 0, false, &s);
  if (r) return r;
  s->per_thread = true;
  s->id = 2;
  sim_obj_ref(&s->obj); /* the handle table's (the context list keeps its own) */
  sim_handle_add(&s->obj);
  pt_streams[freei] = (pt_entry_t){ctx, s}; /* validated through the table on use */
  sim_obj_ref(&s->obj); /* the caller's */
  *out = s;
  return CUDA_SUCCESS;
}

static CUresult stream_resolve(sim_ctx_t *ctx, CUstream h, int ptds, sim_stream_t **out) {
  if (h == CU_STREAM_PER_THREAD || (!h && ptds)) return per_thread(ctx, out);
  if (!h || h == CU_STREAM_LEGACY) {
    pthread_mutex_lock(&ctx->mu);
    sim_stream_t *s = ctx->legacy;
    if (s) sim_obj_ref(&s->obj);
    pthread_mutex_unlock(&ctx->mu);
    if (!s) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    *out = s;
    return CUDA_SUCCESS;
  }
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_STREAM);
  if (!o) return CUDA_ERROR_INVALID_HANDLE;
  if (o->ctx != ctx) {
    sim_obj_unref(o);
    return CUDA_ERROR_INVALID_HANDLE; /* a stream of another context */
  }
  *out = (sim_stream_t *)o;
  return CUDA_SUCCESS;
}

/* For queueing work: also the errors of stream capture (capture.c). */
CUresult sim_stream_get(sim_ctx_t *ctx, CUstream h, int ptds, sim_stream_t **out) {
  CUresult r = stream_resolve(ctx, h, ptds, out);
  if (!r && (r = sim_capture_check_enqueue(*out))) sim_obj_unref(&(*out)->obj);
  return r;
}

CUresult sim_stream_get_any(CUstream h, int ptds, sim_stream_t **out) {
  if (!h || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
    sim_ctx_t *ctx;
    CUresult r = sim_ctx_current_nosticky(&ctx);
    if (r) return r;
    return stream_resolve(ctx, h, ptds, out);
  }
  SIM_CHECK_INIT();
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_STREAM);
  if (!o) return CUDA_ERROR_INVALID_HANDLE;
  *out = (sim_stream_t *)o;
  return CUDA_SUCCESS;
}

/* ---- API ---- */
CUresult cuStreamCreateWithPriority(CUstream *ph, unsigned int flags, int priority) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!ph || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING)) return CUDA_ERROR_INVALID_VALUE;
  /* Out-of-range priorities are clamped, as documented. */
  if (priority > 0) priority = 0;
  if (priority < -5) priority = -5;
  sim_stream_t *s;
  r = sim_stream_create(ctx, flags, priority, false, &s);
  if (r) return r;
  sim_obj_ref(&s->obj);
  sim_handle_add(&s->obj);
  *ph = (CUstream)s;
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *ph, unsigned int flags) { return cuStreamCreateWithPriority(ph, flags, 0); }

CUresult cuStreamDestroy_v2(CUstream h) {
  SIM_CHECK_INIT();
  if (!h || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) return CUDA_ERROR_INVALID_HANDLE;
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_STREAM);
  if (!o) return CUDA_ERROR_INVALID_HANDLE;
  sim_stream_t *s = (sim_stream_t *)o;
  if (s->per_thread) {
    sim_obj_unref(o);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  sim_stream_destroy(s);
  sim_obj_unref(o);
  return CUDA_SUCCESS;
}

static CUresult stream_sync(CUstream h, int ptds) {
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (r) return r;
  if ((r = sim_capture_check_sync(s)) || (r = sim_capture_check_unsafe("cuStreamSynchronize"))) {
    /* nothing of a capture runs before its launch; a wait is "potentially unsafe" */
    sim_obj_unref(&s->obj);
    return r;
  }
  sim_stream_sync(s);
  r = (CUresult)atomic_load(&s->obj.ctx->sticky);
  sim_obj_unref(&s->obj);
  sim_count_sync();
  return r;
}
CUresult cuStreamSynchronize(CUstream h) { return stream_sync(h, 0); }
CUresult cuStreamSynchronize_ptsz(CUstream h) { return stream_sync(h, 1); }

static CUresult stream_query(CUstream h, int ptds) {
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (r) return r;
  if ((r = sim_capture_check_sync(s)) || (r = sim_capture_check_unsafe("cuStreamQuery"))) {
    sim_obj_unref(&s->obj);
    return r;
  }
  pthread_mutex_lock(&s->mu);
  bool idle = s->done_seq == s->enq_seq;
  pthread_mutex_unlock(&s->mu);
  r = (CUresult)atomic_load(&s->obj.ctx->sticky);
  sim_obj_unref(&s->obj);
  if (r) return r;
  return idle ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
CUresult cuStreamQuery(CUstream h) { return stream_query(h, 0); }
CUresult cuStreamQuery_ptsz(CUstream h) { return stream_query(h, 1); }

static CUresult stream_wait_event(CUstream h, CUevent e, unsigned flags, int ptds) {
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (r) return r;
  sim_event_t *ev = (sim_event_t *)sim_handle_get(e, SIM_OBJ_EVENT);
  bool taken = false;
  if (!ev || (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL) ||
      (r = sim_capture_event_wait(s, ev, flags, &taken)) || taken) {
    if (ev) sim_obj_unref(&ev->obj);
    sim_obj_unref(&s->obj);
    return !ev ? CUDA_ERROR_INVALID_HANDLE : r || taken ? r : CUDA_ERROR_INVALID_VALUE;
  }
  sim_op_t *op = sim_op_new(SIM_OP_NOP);
  /* Waits for the most recent record at the time of this call; an event never
   * recorded is complete. */
  pthread_mutex_lock(&ev->mu);
  if (ev->stream) sim_op_add_dep(op, ev->stream, ev->seq);
  pthread_mutex_unlock(&ev->mu);
  sim_stream_enqueue(s, op);
  sim_obj_unref(&ev->obj);
  sim_obj_unref(&s->obj);
  return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream h, CUevent e, unsigned int f) { return stream_wait_event(h, e, f, 0); }
CUresult cuStreamWaitEvent_ptsz(CUstream h, CUevent e, unsigned int f) { return stream_wait_event(h, e, f, 1); }

static CUresult stream_flags(CUstream h, unsigned *flags, int ptds) {
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (r) return r;
  /* An H100's driver (580.159) refuses the flags of a capturing stream, and the
   * capture is invalidated (docs/gpu-results.md) */
  if ((r = sim_capture_refuse(s, "cuStreamGetFlags"))) {
    sim_obj_unref(&s->obj);
    return r;
  }
  if (flags) *flags = s->flags;
  sim_obj_unref(&s->obj);
  return flags ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuStreamGetFlags(CUstream h, unsigned int *f) { return stream_flags(h, f, 0); }
CUresult cuStreamGetFlags_ptsz(CUstream h, unsigned int *f) { return stream_flags(h, f, 1); }

static CUresult stream_prio(CUstream h, int *p, int ptds) {
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (r) return r;
  pthread_mutex_lock(&s->mu);
  if (p) *p = s->priority;
  pthread_mutex_unlock(&s->mu);
  sim_obj_unref(&s->obj);
  return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuStreamGetPriority(CUstream h, int *p) { return stream_prio(h, p, 0); }
CUresult cuStreamGetPriority_ptsz(CUstream h, int *p) { return stream_prio(h, p, 1); }

/* ---- stream attributes (the launch attributes valid for streams) ---- */
static bool stream_attr_ok(CUstreamAttrID id) {
  switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
      return true;
    default: return false;
  }
}

/* A value the device would accept (limits of the device attributes: a 128 MiB
 * access-policy window, one memory synchronisation domain). */
static bool stream_attr_valid(CUstreamAttrID id, const CUlaunchAttributeValue *v) {
  switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: {
      const CUaccessPolicyWindow *w = &v->accessPolicyWindow;
      return w->num_bytes <= 134213632 && w->hitRatio >= 0.0f && w->hitRatio <= 1.0f &&
             w->hitProp <= CU_ACCESS_PROPERTY_PERSISTING && w->missProp <= CU_ACCESS_PROPERTY_STREAMING;
    }
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
      return v->syncPolicy >= CU_SYNC_POLICY_AUTO && v->syncPolicy <= CU_SYNC_POLICY_BLOCKING_SYNC;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: return v->memSyncDomainMap.default_ == 0 && v->memSyncDomainMap.remote == 0;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: return v->memSyncDomain <= CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING: return v->nvlinkUtilCentricScheduling <= 1;
    default: return true;
  }
}

static CUresult stream_attr(CUstream h, CUstreamAttrID id, CUlaunchAttributeValue *get,
                            const CUlaunchAttributeValue *set, int ptds) {
  if ((!get && !set) || !stream_attr_ok(id) || (set && !stream_attr_valid(id, set))) return CUDA_ERROR_INVALID_VALUE;
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (r) return r;
  pthread_mutex_lock(&s->mu);
  if (id == CU_LAUNCH_ATTRIBUTE_PRIORITY) {
    if (set) s->priority = set->priority > 0 ? 0 : set->priority < -5 ? -5 : set->priority; /* clamped as at creation */
    else {
      memset(get, 0, sizeof *get);
      get->priority = s->priority;
    }
  } else if (set) {
    s->attrs[id] = *set;
  } else {
    *get = s->attrs[id];
  }
  pthread_mutex_unlock(&s->mu);
  sim_obj_unref(&s->obj);
  return CUDA_SUCCESS;
}
CUresult cuStreamGetAttribute(CUstream h, CUstreamAttrID a, CUstreamAttrValue *v) { return stream_attr(h, a, v, NULL, 0); }
CUresult cuStreamGetAttribute_ptsz(CUstream h, CUstreamAttrID a, CUstreamAttrValue *v) {
  return stream_attr(h, a, v, NULL, 1);
}
CUresult cuStreamSetAttribute(CUstream h, CUstreamAttrID a, const CUstreamAttrValue *v) {
  return stream_attr(h, a, NULL, v, 0);
}
CUresult cuStreamSetAttribute_ptsz(CUstream h, CUstreamAttrID a, const CUstreamAttrValue *v) {
  return stream_attr(h, a, NULL, v, 1);
}

static CUresult stream_copy_attrs(CUstream dst, CUstream src, int ptds) {
  sim_stream_t *d, *s;
  CUresult r = sim_stream_get_any(src, ptds, &s);
  if (r) return r;
  r = sim_stream_get_any(dst, ptds, &d);
  if (r) {
    sim_obj_unref(&s->obj);
    return r;
  }
  CUlaunchAttributeValue copy[sizeof s->attrs / sizeof *s->attrs];
  pthread_mutex_lock(&s->mu);
  memcpy(copy, s->attrs, sizeof copy);
  int prio = s->priority;
  pthread_mutex_unlock(&s->mu);
  pthread_mutex_lock(&d->mu);
  memcpy(d->attrs, copy, sizeof copy);
  d->priority = prio;
  pthread_mutex_unlock(&d->mu);
  sim_obj_unref(&s->obj);
  sim_obj_unref(&d->obj);
  return CUDA_SUCCESS;
}
CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) { return stream_copy_attrs(dst, src, 0); }
CUresult cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src) { return stream_copy_attrs(dst, src, 1); }

static CUresult stream_ctx(CUstream h, CUcontext *pctx, int ptds) {
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (r) return r;
  if (pctx) *pctx = (CUcontext)s->obj.ctx;
  sim_obj_unref(&s->obj);
  return pctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuStreamGetCtx(CUstream h, CUcontext *c) { return stream_ctx(h, c, 0); }
CUresult cuStreamGetCtx_ptsz(CUstream h, CUcontext *c) { return stream_ctx(h, c, 1); }

static CUresult stream_id(CUstream h, unsigned long long *id, int ptds) {
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (r) return r;
  if (id) *id = s->id;
  sim_obj_unref(&s->obj);
  return id ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuStreamGetId(CUstream h, unsigned long long *id) { return stream_id(h, id, 0); }
CUresult cuStreamGetId_ptsz(CUstream h, unsigned long long *id) { return stream_id(h, id, 1); }

static CUresult add_callback(CUstream h, CUstreamCallback cb, void *data, unsigned flags, int ptds) {
  if (!cb || flags != 0) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (!r && ((r = sim_capture_check_enqueue(s)) || (r = sim_capture_refuse(s, "cuStreamAddCallback"))))
    sim_obj_unref(&s->obj);
  if (r) return r;
  sim_op_t *op = sim_op_new(SIM_OP_CALLBACK);
  op->u.cb.fn = cb;
  op->u.cb.data = data;
  op->u.cb.h = h;
  sim_stream_enqueue(s, op);
  sim_obj_unref(&s->obj);
  return CUDA_SUCCESS;
}
CUresult cuStreamAddCallback(CUstream h, CUstreamCallback cb, void *d, unsigned int f) {
  return add_callback(h, cb, d, f, 0);
}
CUresult cuStreamAddCallback_ptsz(CUstream h, CUstreamCallback cb, void *d, unsigned int f) {
  return add_callback(h, cb, d, f, 1);
}

static CUresult launch_host(CUstream h, CUhostFn fn, void *data, int ptds) {
  if (!fn) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_stream_t *s;
  r = sim_stream_get(ctx, h, ptds, &s);
  if (r) return r;
  sim_op_t *op = sim_op_new(SIM_OP_HOSTFN);
  op->u.hostfn.fn = fn;
  op->u.hostfn.data = data;
  sim_stream_enqueue(s, op);
  sim_obj_unref(&s->obj);
  return CUDA_SUCCESS;
}
CUresult cuLaunchHostFunc(CUstream h, CUhostFn fn, void *d) { return launch_host(h, fn, d, 0); }
CUresult cuLaunchHostFunc_ptsz(CUstream h, CUhostFn fn, void *d) { return launch_host(h, fn, d, 1); }

static CUresult stream_ctx2(CUstream h, CUcontext *pctx, CUgreenCtx *green, int ptds) {
  if (!pctx && !green) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(h, ptds, &s);
  if (r) return r;
  if (pctx) *pctx = (CUcontext)s->obj.ctx;
  if (green) *green = NULL; /* no green contexts */
  sim_obj_unref(&s->obj);
  return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx_v2(CUstream h, CUcontext *c, CUgreenCtx *g) { return stream_ctx2(h, c, g, 0); }
CUresult cuStreamGetCtx_v2_ptsz(CUstream h, CUcontext *c, CUgreenCtx *g) { return stream_ctx2(h, c, g, 1); }
