/* event.c: events: record (an operation in a stream), query, synchronize, elapsed
 * time; cuStreamWaitEvent lives in stream.c. */
#include <stdlib.h>

#include "graph.h"

static void event_free(sim_obj_t *o) {
  sim_event_t *ev = (sim_event_t *)o;
  if (ev->stream) sim_obj_unref(&ev->stream->obj);
  pthread_mutex_destroy(&ev->mu);
  pthread_cond_destroy(&ev->cv);
  free(ev);
}

void sim_event_complete(sim_event_t *ev, uint64_t gen) {
  double t = sim_now();
  pthread_mutex_lock(&ev->mu);
  if (gen > ev->done_gen) {
    ev->done_gen = gen;
    ev->time = t;
  }
  pthread_cond_broadcast(&ev->cv);
  pthread_mutex_unlock(&ev->mu);
}

CUresult cuEventCreate(CUevent *ph, unsigned int flags) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
  if (!ph || (flags & ~known)) return CUDA_ERROR_INVALID_VALUE;
  if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING)) return CUDA_ERROR_INVALID_VALUE;
  sim_event_t *ev = calloc(1, sizeof *ev);
  if (!ev) return CUDA_ERROR_OUT_OF_MEMORY;
  sim_obj_init(&ev->obj, SIM_OBJ_EVENT, ctx, event_free);
  ev->flags = flags;
  pthread_mutex_init(&ev->mu, NULL);
  pthread_cond_init(&ev->cv, NULL);
  sim_handle_add(&ev->obj);
  *ph = (CUevent)ev;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent h) {
  SIM_CHECK_INIT();
  /* (a pending record keeps the object alive) */
  return sim_handle_destroy(h, SIM_OBJ_EVENT) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

void sim_event_record_on(sim_event_t *ev, sim_stream_t *s) {
  sim_op_t *op = sim_op_new(SIM_OP_EVENT);
  sim_obj_ref(&ev->obj);
  op->u.event.ev = ev;
  pthread_mutex_lock(&ev->mu);
  op->u.event.gen = ++ev->rec_gen;
  ev->timed_valid = !(ev->flags & CU_EVENT_DISABLE_TIMING);
  if (ev->stream) sim_obj_unref(&ev->stream->obj);
  sim_obj_ref(&s->obj);
  ev->stream = s;
  ev->seq = sim_stream_enqueue(s, op);
  pthread_mutex_unlock(&ev->mu);
}

static CUresult record(CUevent h, CUstream hs, unsigned flags, int ptds) {
  SIM_CHECK_INIT();
  sim_event_t *ev = (sim_event_t *)sim_handle_get(h, SIM_OBJ_EVENT);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL) {
    sim_obj_unref(&ev->obj);
    return CUDA_ERROR_INVALID_VALUE;
  }
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(hs, ptds, &s);
  if (r) {
    sim_obj_unref(&ev->obj);
    return r;
  }
  bool taken = false;
  if (s->obj.ctx != ev->obj.ctx) {
    r = CUDA_ERROR_INVALID_HANDLE; /* event and stream must share a context */
  } else if (!(r = sim_capture_event_record(s, ev, flags, &taken)) && !taken) {
    sim_event_record_on(ev, s);
  }
  sim_obj_unref(&s->obj);
  sim_obj_unref(&ev->obj);
  return r;
}
CUresult cuEventRecord(CUevent e, CUstream s) { return record(e, s, 0, 0); }
CUresult cuEventRecord_ptsz(CUevent e, CUstream s) { return record(e, s, 0, 1); }
CUresult cuEventRecordWithFlags(CUevent e, CUstream s, unsigned int f) { return record(e, s, f, 0); }
CUresult cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned int f) { return record(e, s, f, 1); }

CUresult cuEventQuery(CUevent h) {
  SIM_CHECK_INIT();
  const char *name = "cuEventQuery";
  CUresult r0;
  sim_event_t *ev = (sim_event_t *)sim_handle_get(h, SIM_OBJ_EVENT);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if (sim_capture_event_is_captured(ev)) {
    sim_obj_unref(&ev->obj);
    return CUDA_ERROR_CAPTURED_EVENT;
  }
  if ((r0 = sim_capture_check_unsafe(name))) { /* (PyTorch's NCCL watchdog met this) */
    sim_obj_unref(&ev->obj);
    return r0;
  }
  pthread_mutex_lock(&ev->mu);
  bool done = ev->done_gen >= ev->rec_gen;
  pthread_mutex_unlock(&ev->mu);
  CUresult r = (CUresult)atomic_load(&ev->obj.ctx->sticky);
  sim_obj_unref(&ev->obj);
  if (r) return r;
  return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cuEventSynchronize(CUevent h) {
  SIM_CHECK_INIT();
  const char *name = "cuEventSynchronize";
  CUresult r0;
  sim_event_t *ev = (sim_event_t *)sim_handle_get(h, SIM_OBJ_EVENT);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if (sim_capture_event_is_captured(ev)) {
    sim_obj_unref(&ev->obj);
    return CUDA_ERROR_CAPTURED_EVENT;
  }
  if ((r0 = sim_capture_check_unsafe(name))) { /* (PyTorch's NCCL watchdog met this) */
    sim_obj_unref(&ev->obj);
    return r0;
  }
  pthread_mutex_lock(&ev->mu);
  uint64_t want = ev->rec_gen;
  while (ev->done_gen < want) pthread_cond_wait(&ev->cv, &ev->mu);
  pthread_mutex_unlock(&ev->mu);
  CUresult r = (CUresult)atomic_load(&ev->obj.ctx->sticky);
  sim_obj_unref(&ev->obj);
  sim_count_sync();
  return r;
}

CUresult cuEventElapsedTime_v2(float *ms, CUevent hs, CUevent he) {
  SIM_CHECK_INIT();
  if (!ms) return CUDA_ERROR_INVALID_VALUE;
  sim_event_t *a = (sim_event_t *)sim_handle_get(hs, SIM_OBJ_EVENT);
  sim_event_t *b = (sim_event_t *)sim_handle_get(he, SIM_OBJ_EVENT);
  CUresult r = CUDA_SUCCESS;
  if (!a || !b) {
    r = CUDA_ERROR_INVALID_HANDLE;
  } else {
    pthread_mutex_lock(&a->mu);
    uint64_t ar = a->rec_gen, ad = a->done_gen;
    double at = a->time;
    bool atv = a->timed_valid;
    pthread_mutex_unlock(&a->mu);
    pthread_mutex_lock(&b->mu);
    uint64_t br = b->rec_gen, bd = b->done_gen;
    double bt = b->time;
    bool btv = b->timed_valid;
    pthread_mutex_unlock(&b->mu);
    if (!ar || !br || !atv || !btv) r = CUDA_ERROR_INVALID_HANDLE;
    else if (ad < ar || bd < br) r = CUDA_ERROR_NOT_READY;
    else *ms = (float)((bt - at) * 1000.0);
  }
  if (a) sim_obj_unref(&a->obj);
  if (b) sim_obj_unref(&b->obj);
  return r;
}

/* The CUDA 2.0 ABI: same signature; cuda.h maps the name to _v2. */
#undef cuEventElapsedTime
CUresult cuEventElapsedTime(float *ms, CUevent hs, CUevent he) { return cuEventElapsedTime_v2(ms, hs, he); }
