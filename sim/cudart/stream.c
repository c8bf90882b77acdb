/* stream.c: streams, events, stream callbacks and host functions. Runtime flags
 * (cudaStreamNonBlocking, cudaEvent*) have the values of their driver twins. */
#include <stdlib.h>

#include "simrt.h"

#define NEED_CTX()                                  \
  do {                                              \
    cudaError_t e_ = simrt_ctx();                   \
    if (e_ != cudaSuccess) return simrt_ret(e_);    \
  } while (0)

SIMRT_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                   int priority) {
  if (!pStream || (flags & ~(unsigned)cudaStreamNonBlocking)) return simrt_ret(cudaErrorInvalidValue);
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuStreamCreateWithPriority, (CUstream *)pStream,
                                  flags, priority));
}

SIMRT_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
  if (!pStream || (flags & ~(unsigned)cudaStreamNonBlocking)) return simrt_ret(cudaErrorInvalidValue);
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuStreamCreate, (CUstream *)pStream, flags));
}

SIMRT_API cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
  return cudaStreamCreateWithFlags(pStream, cudaStreamDefault);
}

SIMRT_API cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  NEED_CTX();
  /* The special streams cannot be destroyed. */
  if (stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return simrt_ret(cudaErrorInvalidResourceHandle);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuStreamDestroy, (CUstream)stream));
}

static cudaError_t simrt_stream_sync(cudaStream_t s, int ptds) {
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(ptds), cuStreamSynchronize, (CUstream)s));
}
SIMRT_API cudaError_t cudaStreamSynchronize(cudaStream_t s) { return simrt_stream_sync(s, 0); }
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t);
SIMRT_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return simrt_stream_sync(s, 1); }

static cudaError_t simrt_stream_query(cudaStream_t s, int ptds) {
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(ptds), cuStreamQuery, (CUstream)s));
}
SIMRT_API cudaError_t cudaStreamQuery(cudaStream_t s) { return simrt_stream_query(s, 0); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t);
SIMRT_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return simrt_stream_query(s, 1); }

static cudaError_t simrt_stream_wait(cudaStream_t s, cudaEvent_t ev, unsigned flags, int ptds) {
  NEED_CTX();
  return simrt_ret_cu(
      SIMRT_DCALL(simrt_drv(ptds), cuStreamWaitEvent, (CUstream)s, (CUevent)ev, flags));
}
SIMRT_API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned int flags) {
  return simrt_stream_wait(s, ev, flags, 0);
}
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t, cudaEvent_t, unsigned int);
SIMRT_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t ev,
                                               unsigned int flags) {
  return simrt_stream_wait(s, ev, flags, 1);
}

/* cudaStreamCallback_t takes a cudaError_t, the driver's callback a CUresult. */
typedef struct {
  cudaStreamCallback_t cb;
  void *user;
} simrt_cb_t;

static void CUDA_CB simrt_cb_tramp(CUstream s, CUresult status, void *p) {
  simrt_cb_t c = *(simrt_cb_t *)p;
  free(p);
  c.cb((cudaStream_t)s, simrt_from_cu(status), c.user);
}

static cudaError_t simrt_add_callback(cudaStream_t s, cudaStreamCallback_t cb, void *user,
                                      unsigned flags, int ptds) {
  if (!cb || flags != 0) return simrt_ret(cudaErrorInvalidValue);
  NEED_CTX();
  simrt_cb_t *c = malloc(sizeof *c);
  if (!c) return simrt_ret(cudaErrorMemoryAllocation);
  c->cb = cb;
  c->user = user;
  CUresult r = SIMRT_DCALL(simrt_drv(ptds), cuStreamAddCallback, (CUstream)s, simrt_cb_tramp, c, 0);
  if (r != CUDA_SUCCESS) free(c);
  return simrt_ret_cu(r);
}
SIMRT_API cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *user,
                                            unsigned int flags) {
  return simrt_add_callback(s, cb, user, flags, 0);
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t, cudaStreamCallback_t, void *, unsigned int);
SIMRT_API cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t s, cudaStreamCallback_t cb,
                                                 void *user, unsigned int flags) {
  return simrt_add_callback(s, cb, user, flags, 1);
}

static cudaError_t simrt_host_func(cudaStream_t s, cudaHostFn_t fn, void *user, int ptds) {
  if (!fn) return simrt_ret(cudaErrorInvalidValue);
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(ptds), cuLaunchHostFunc, (CUstream)s, fn, user));
}
SIMRT_API cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user) {
  return simrt_host_func(s, fn, user, 0);
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t, cudaHostFn_t, void *);
SIMRT_API cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn, void *user) {
  return simrt_host_func(s, fn, user, 1);
}

/* ---- events ---- */

SIMRT_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  const unsigned ok = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (!event || (flags & ~ok)) return simrt_ret(cudaErrorInvalidValue);
  /* An interprocess event must also disable timing. */
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
    return simrt_ret(cudaErrorInvalidValue);
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuEventCreate, (CUevent *)event, flags));
}

SIMRT_API cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

static cudaError_t simrt_event_record(cudaEvent_t ev, cudaStream_t s, int ptds) {
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(ptds), cuEventRecord, (CUevent)ev, (CUstream)s));
}
SIMRT_API cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s) {
  return simrt_event_record(ev, s, 0);
}
cudaError_t cudaEventRecord_ptsz(cudaEvent_t, cudaStream_t);
SIMRT_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t ev, cudaStream_t s) {
  return simrt_event_record(ev, s, 1);
}

SIMRT_API cudaError_t cudaEventSynchronize(cudaEvent_t ev) {
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuEventSynchronize, (CUevent)ev));
}

SIMRT_API cudaError_t cudaEventQuery(cudaEvent_t ev) {
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuEventQuery, (CUevent)ev));
}

SIMRT_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return simrt_ret(cudaErrorInvalidValue);
  NEED_CTX();
  return simrt_ret_cu(
      SIMRT_DCALL(simrt_drv(0), cuEventElapsedTime, ms, (CUevent)start, (CUevent)end));
}

SIMRT_API cudaError_t cudaEventDestroy(cudaEvent_t ev) {
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuEventDestroy, (CUevent)ev));
}

/* Stream attributes: cudaStreamAttrValue is the driver's CUstreamAttrValue (same
 * union, same attribute numbers). */
static cudaError_t simrt_stream_attr(cudaStream_t s, cudaStreamAttrID id, cudaStreamAttrValue *get,
                                     const cudaStreamAttrValue *set, int ptds) {
  NEED_CTX();
  if (set)
    return simrt_ret_cu(SIMRT_DCALL(simrt_drv(ptds), cuStreamSetAttribute, (CUstream)s, (CUstreamAttrID)id,
                                    (const CUstreamAttrValue *)set));
  return simrt_ret_cu(
      SIMRT_DCALL(simrt_drv(ptds), cuStreamGetAttribute, (CUstream)s, (CUstreamAttrID)id, (CUstreamAttrValue *)get));
}
SIMRT_API cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID id, cudaStreamAttrValue *v) {
  if (!v) return simrt_ret(cudaErrorInvalidValue);
  return simrt_stream_attr(s, id, v, NULL, 0);
}
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t, cudaStreamAttrID, cudaStreamAttrValue *);
SIMRT_API cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID id, cudaStreamAttrValue *v) {
  if (!v) return simrt_ret(cudaErrorInvalidValue);
  return simrt_stream_attr(s, id, v, NULL, 1);
}
SIMRT_API cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID id, const cudaStreamAttrValue *v) {
  if (!v) return simrt_ret(cudaErrorInvalidValue);
  return simrt_stream_attr(s, id, NULL, v, 0);
}
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t, cudaStreamAttrID, const cudaStreamAttrValue *);
SIMRT_API cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID id, const cudaStreamAttrValue *v) {
  if (!v) return simrt_ret(cudaErrorInvalidValue);
  return simrt_stream_attr(s, id, NULL, v, 1);
}
static cudaError_t simrt_stream_copy_attrs(cudaStream_t dst, cudaStream_t src, int ptds) {
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(ptds), cuStreamCopyAttributes, (CUstream)dst, (CUstream)src));
}
SIMRT_API cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  return simrt_stream_copy_attrs(dst, src, 0);
}
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t, cudaStream_t);
SIMRT_API cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) {
  return simrt_stream_copy_attrs(dst, src, 1);
}

static cudaError_t simrt_stream_prio(cudaStream_t s, int *p, int ptds) {
  if (!p) return simrt_ret(cudaErrorInvalidValue);
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(ptds), cuStreamGetPriority, (CUstream)s, p));
}
SIMRT_API cudaError_t cudaStreamGetPriority(cudaStream_t s, int *p) { return simrt_stream_prio(s, p, 0); }
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t, int *);
SIMRT_API cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t s, int *p) { return simrt_stream_prio(s, p, 1); }
static cudaError_t simrt_stream_flags(cudaStream_t s, unsigned *f, int ptds) {
  if (!f) return simrt_ret(cudaErrorInvalidValue);
  NEED_CTX();
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(ptds), cuStreamGetFlags, (CUstream)s, f));
}
SIMRT_API cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int *f) { return simrt_stream_flags(s, f, 0); }
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t, unsigned int *);
SIMRT_API cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t s, unsigned int *f) { return simrt_stream_flags(s, f, 1); }
