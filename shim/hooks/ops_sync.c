/* ops_sync.c: synchronisation (commit points), graph launches and the writers gpuft
 * does not model. A successful synchronising call or query commits; an
 * unrecoverable error found then is returned per GPUFT_ON_FAIL. Graph launches
 * and unmodelled writers are counted as unprotected operations; what they may
 * have written is re-encoded so that it is not mistaken for corruption. */
#include <stdlib.h>

#include "engine.h"
#include "hooks.h"

/* Clocks taken before the driver call (snap, engine lock held) and applied once it
 * succeeded (apply): what other threads issue while it runs is on neither side.
 * Declares vc_ (the clocks) and r (the driver's result) in the caller. */
#define ORDERED(r, snap, call, apply) \
  uint64_t vc_[FT_ORD_STREAMS];       \
  ft_lock();                          \
  snap;                               \
  ft_unlock();                        \
  CUresult r = (call);                \
  if (r == CUDA_SUCCESS) {            \
    ft_lock();                        \
    apply;                            \
    ft_unlock();                      \
  }

/* What the host will know to be finished once the call returns (order.c): the
 * clocks as they were when it began; then the commit. */
#define SYNCED(snap, whole, call)                              \
  do {                                                         \
    ORDERED(r_, snap, call, ft_ord_synced(vc_, whole));        \
    return ft_after_sync(r_);                                  \
  } while (0)

CUresult ft_on_cuCtxSynchronize(void) { SYNCED(ft_ord_snap_all(vc_), 1, ft_real.cuCtxSynchronize()); }
CUresult ft_on_cuCtxSynchronize_v2(CUcontext c) {
  /* context c's streams, not the current context's */
  ORDERED(r, ft_ord_snap_ctx(c, vc_), ft_real.cuCtxSynchronize_v2(c), ft_ord_ctx_synced(c, vc_));
  return ft_after_sync(r);
}
CUresult ft_on_cuStreamSynchronize(CUstream s) {
  SYNCED(ft_ord_snap_stream(FT_STREAM(s, 0), vc_), 0, ft_real.cuStreamSynchronize(s));
}
CUresult ft_on_cuStreamSynchronize_ptsz(CUstream s) {
  SYNCED(ft_ord_snap_stream(FT_STREAM(s, 1), vc_), 0, ft_real.cuStreamSynchronize_ptsz(s));
}
CUresult ft_on_cuEventSynchronize(CUevent e) {
  SYNCED(ft_ord_snap_event(e, vc_), 0, ft_real.cuEventSynchronize(e));
}
/* A query that reports completion is a synchronisation the program relies on. */
CUresult ft_on_cuStreamQuery(CUstream s) {
  SYNCED(ft_ord_snap_stream(FT_STREAM(s, 0), vc_), 0, ft_real.cuStreamQuery(s));
}
CUresult ft_on_cuStreamQuery_ptsz(CUstream s) {
  SYNCED(ft_ord_snap_stream(FT_STREAM(s, 1), vc_), 0, ft_real.cuStreamQuery_ptsz(s));
}
CUresult ft_on_cuEventQuery(CUevent e) { SYNCED(ft_ord_snap_event(e, vc_), 0, ft_real.cuEventQuery(e)); }

/* ---- events: how the program orders its streams (order.c) ---- */
/* A record takes its stream's clock before the call (one taken after could claim
 * work other threads issue meanwhile), a wait the event's (a later record of it
 * is not what the wait waits for). */
#define EV_RECORD(call, e, st)                                                        \
  do {                                                                                \
    ORDERED(r_, (ft_ord_op(st), ft_ord_snap_stream(st, vc_)), call,                   \
            ft_ord_record_vc(e, vc_));                                                \
    return r_;                                                                        \
  } while (0)
#define EV_WAIT(call, st, e)                                                          \
  do {                                                                                \
    /* later work on st comes after the event */                                      \
    ORDERED(r_, ft_ord_snap_event(e, vc_), call, ft_ord_wait_vc(st, vc_));            \
    return r_;                                                                        \
  } while (0)

CUresult ft_on_cuEventRecord(CUevent e, CUstream s) {
  EV_RECORD(ft_real.cuEventRecord(e, s), e, FT_STREAM(s, 0));
}
CUresult ft_on_cuEventRecord_ptsz(CUevent e, CUstream s) {
  EV_RECORD(ft_real.cuEventRecord_ptsz(e, s), e, FT_STREAM(s, 1));
}
CUresult ft_on_cuEventRecordWithFlags(CUevent e, CUstream s, unsigned flags) {
  EV_RECORD(ft_real.cuEventRecordWithFlags(e, s, flags), e, FT_STREAM(s, 0));
}
CUresult ft_on_cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned flags) {
  EV_RECORD(ft_real.cuEventRecordWithFlags_ptsz(e, s, flags), e, FT_STREAM(s, 1));
}
CUresult ft_on_cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) {
  EV_WAIT(ft_real.cuStreamWaitEvent(s, e, flags), FT_STREAM(s, 0), e);
}
CUresult ft_on_cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned flags) {
  EV_WAIT(ft_real.cuStreamWaitEvent_ptsz(s, e, flags), FT_STREAM(s, 1), e);
}
/* A destroyed stream's handle may come back for a new stream (of another context,
 * with other flags): its clock is not the new stream's. */
CUresult ft_on_cuStreamDestroy_v2(CUstream s) {
  CUresult r = ft_real.cuStreamDestroy_v2(s);
  if (r == CUDA_SUCCESS) {
    ft_lock();
    ft_ord_forget_stream(s);
    ft_unlock();
  }
  return r;
}

CUresult ft_on_cuEventDestroy_v2(CUevent e) {
  CUresult r = ft_real.cuEventDestroy_v2(e);
  if (r == CUDA_SUCCESS) {
    ft_lock();
    ft_ord_forget_event(e);
    ft_unlock();
  }
  return r;
}

/* ---- host functions (engine/hostfn.c holds them back from damaged data) ---- */
/* Queue the trampoline; without memory for it, the function itself and an epoch
 * that can no longer be replayed. */
#define HOSTFN(name, ptsz, ARGS, FN, CB, REAL, TRAMP)                     \
  CUresult ft_on_##name ARGS {                                            \
    if (!(FN) && !(CB)) return REAL; /* the driver's answer to a bad call */ \
    FT_CAPTURED(FT_STREAM(s, ptsz), REAL); /* a host node: runs at each graph launch */ \
    ft_op_begin();                                                        \
    ft_hostfn_t *h = ft_host_fn_queue(FT_STREAM(s, ptsz), FN, CB, u);                         \
    CUresult r;                                                           \
    if (h) {                                                              \
      r = TRAMP;                                                          \
      if (r != CUDA_SUCCESS) ft_host_fn_discard(h);                      \
    } else {                                                              \
      r = REAL;                                                           \
      ft_lock();                                                          \
      ft_epoch_unreplayable("a host function gpuft could not follow");    \
      ft_unlock();                                                        \
    }                                                                     \
    ft_op_end();                                                          \
    return r;                                                             \
  }
HOSTFN(cuLaunchHostFunc, 0, (CUstream s, CUhostFn fn, void *u), fn, NULL, ft_real.cuLaunchHostFunc(s, fn, u),
       ft_real.cuLaunchHostFunc(s, ft_host_fn_tramp, h))
HOSTFN(cuLaunchHostFunc_ptsz, 1, (CUstream s, CUhostFn fn, void *u), fn, NULL,
       ft_real.cuLaunchHostFunc_ptsz(s, fn, u), ft_real.cuLaunchHostFunc_ptsz(s, ft_host_fn_tramp, h))
HOSTFN(cuStreamAddCallback, 0, (CUstream s, CUstreamCallback cb, void *u, unsigned flags), NULL, cb,
       ft_real.cuStreamAddCallback(s, cb, u, flags), ft_real.cuStreamAddCallback(s, ft_host_fn_tramp_cb, h, flags))
HOSTFN(cuStreamAddCallback_ptsz, 1, (CUstream s, CUstreamCallback cb, void *u, unsigned flags), NULL, cb,
       ft_real.cuStreamAddCallback_ptsz(s, cb, u, flags),
       ft_real.cuStreamAddCallback_ptsz(s, ft_host_fn_tramp_cb, h, flags))

/* ---- graphs: protected as the launches they hold (graph.c) ---- */
#define GRAPH(name, ptsz)                                             \
  CUresult ft_on_##name(CUgraphExec g, CUstream s) {                  \
    FT_CAPTURED(FT_STREAM(s, ptsz), (ft_count_call(FT_ID_##name), ft_real.name(g, s))); /* a child graph */ \
    return ft_graph_launch(g, s, ptsz, FT_ID_##name);                 \
  }
GRAPH(cuGraphLaunch, 0)
GRAPH(cuGraphLaunch_ptsz, 1)

/* ---- writers with a known destination: re-encode the allocation written ---- */
/* Before: it is re-encoded whole after, so it is verified first (what the write
 * leaves would otherwise be taken in as data, errors included). */
static void touching(CUdeviceptr p, CUstream s) {
  ft_lock();
  ft_write_unmodelled_begin(p, s);
  ft_unlock();
}

static void touched(CUdeviceptr p, CUstream s) {
  ft_lock();
  ft_write_unmodelled_end(p, s);
  ft_unlock();
}

/* touching (after = 0) or touched (1) for each distinct allocation among n device
 * addresses: a batch may name one allocation many times (each written once, and
 * re-encoded once), and may reach more allocations than one operation's ledger
 * reservation (FT_JOBS_PER_OP) covers, so room is made as it goes. */
static void touch_all(const CUdeviceptr *p, size_t n, CUstream s, int after) {
  uint64_t *seen = n > 1 ? malloc(n * sizeof *seen) : NULL;
  size_t nseen = 0;
  for (size_t i = 0; p && i < n; i++) {
    ft_lock();
    uint64_t id = ft_alloc_id_at(p[i]);
    ft_unlock();
    int dup = 0;
    for (size_t k = 0; id && seen && k < nseen && !dup; k++) dup = seen[k] == id;
    if (dup) continue;
    if (id && seen) seen[nseen++] = id;
    if (after) {
      touched(p[i], s);
    } else {
      ft_jobs_make_room();
      touching(p[i], s);
    }
  }
  free(seen);
}

/* The destinations of a batch, for touch_all: malloc'd (NULL, n = 0 without memory). */
static CUdeviceptr *batch_dests(size_t count, size_t *n) {
  *n = 0;
  return count ? malloc(count * sizeof(CUdeviceptr)) : NULL;
}

#define WRITEVAL(name, T, ptsz)                                                   \
  CUresult ft_on_##name(CUstream s, CUdeviceptr addr, T value, unsigned flags) {  \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(s, addr, value, flags));         \
    ft_op_begin();                                                                \
    touching(addr, FT_STREAM(s, ptsz));                                           \
    CUresult r = ft_real.name(s, addr, value, flags);                             \
    if (r == CUDA_SUCCESS) touched(addr, FT_STREAM(s, ptsz));                     \
    ft_op_end();                                                                  \
    return r;                                                                     \
  }
WRITEVAL(cuStreamWriteValue32_v2, cuuint32_t, 0)
WRITEVAL(cuStreamWriteValue32_v2_ptsz, cuuint32_t, 1)
WRITEVAL(cuStreamWriteValue64_v2, cuuint64_t, 0)
WRITEVAL(cuStreamWriteValue64_v2_ptsz, cuuint64_t, 1)

#define WAITVAL(name, T)                                                          \
  CUresult ft_on_##name(CUstream s, CUdeviceptr addr, T value, unsigned flags) {  \
    ft_rest_value_wait();                                                         \
    return ft_real.name(s, addr, value, flags);                                   \
  }
WAITVAL(cuStreamWaitValue32_v2, cuuint32_t)
WAITVAL(cuStreamWaitValue32_v2_ptsz, cuuint32_t)
WAITVAL(cuStreamWaitValue64_v2, cuuint64_t)
WAITVAL(cuStreamWaitValue64_v2_ptsz, cuuint64_t)

#define BATCHMEMOP(name, ptsz)                                                               \
  CUresult ft_on_##name(CUstream s, unsigned count, CUstreamBatchMemOpParams *ops, unsigned flags) { \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(s, count, ops, flags));                     \
    FT_OP_BEGIN();                                                                           \
    size_t n;                                                                                \
    CUdeviceptr *d = batch_dests(ops ? count : 0, &n);                                       \
    for (unsigned i = 0; ops && i < count; i++)                                              \
      if (ops[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_32 ||                              \
          ops[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_64)                                \
        ft_rest_value_wait();                                                                \
    for (unsigned i = 0; d && i < count; i++)                                                \
      if (ops[i].operation == CU_STREAM_MEM_OP_WRITE_VALUE_32 ||                             \
          ops[i].operation == CU_STREAM_MEM_OP_WRITE_VALUE_64)                               \
        d[n++] = ops[i].writeValue.address;                                                  \
    touch_all(d, n, FT_STREAM(s, ptsz), 0);                                                  \
    CUresult r = ft_real.name(s, count, ops, flags);                                         \
    if (r == CUDA_SUCCESS) touch_all(d, n, FT_STREAM(s, ptsz), 1);                           \
    free(d);                                                                                 \
    ft_op_end();                                                                             \
    return r;                                                                                \
  }
BATCHMEMOP(cuStreamBatchMemOp_v2, 0)
BATCHMEMOP(cuStreamBatchMemOp_v2_ptsz, 1)

/* The batch copies, in both ABIs: CUDA 12.8's (with failIdx) and 13.0's (_v2). The
 * runtime may be handed either by cuGetProcAddress, whatever the header's default. */
#define FT_FAILIDX_P , size_t *fail
#define FT_FAILIDX_A , fail
#define BATCH(name, ptsz, FP, FA)                                                            \
  CUresult ft_on_##name(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,   \
                        CUmemcpyAttributes *attrs, size_t *idx, size_t nattrs FP, CUstream s) { \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(dsts, srcs, sizes, count, attrs, idx, nattrs FA, s)); \
    FT_OP_BEGIN();                                                                           \
    touch_all(dsts, dsts ? count : 0, FT_STREAM(s, ptsz), 0);                                \
    CUresult r = ft_real.name(dsts, srcs, sizes, count, attrs, idx, nattrs FA, s);           \
    if (r == CUDA_SUCCESS) touch_all(dsts, dsts ? count : 0, FT_STREAM(s, ptsz), 1);         \
    ft_op_end();                                                                             \
    return r;                                                                                \
  }
BATCH(cuMemcpyBatchAsync_v2, 0, , )
BATCH(cuMemcpyBatchAsync_v2_ptsz, 1, , )
BATCH(cuMemcpyBatchAsync, 0, FT_FAILIDX_P, FT_FAILIDX_A)
BATCH(cuMemcpyBatchAsync_ptsz, 1, FT_FAILIDX_P, FT_FAILIDX_A)

#define BATCH3D(name, ptsz, FP, FA)                                                          \
  CUresult ft_on_##name(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops FP, unsigned long long flags,  \
                        CUstream s) {                                                        \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(n, ops FA, flags, s));                      \
    FT_OP_BEGIN();                                                                           \
    size_t nd;                                                                               \
    CUdeviceptr *d = batch_dests(ops ? n : 0, &nd);                                          \
    for (size_t i = 0; d && i < n; i++)                                                      \
      if (ops[i].dst.type == CU_MEMCPY_OPERAND_TYPE_POINTER) d[nd++] = ops[i].dst.op.ptr.ptr; \
    touch_all(d, nd, FT_STREAM(s, ptsz), 0);                                                 \
    CUresult r = ft_real.name(n, ops FA, flags, s);                                          \
    if (r == CUDA_SUCCESS) touch_all(d, nd, FT_STREAM(s, ptsz), 1);                          \
    free(d);                                                                                 \
    ft_op_end();                                                                             \
    return r;                                                                                \
  }
BATCH3D(cuMemcpy3DBatchAsync_v2, 0, , )
BATCH3D(cuMemcpy3DBatchAsync_v2_ptsz, 1, , )
BATCH3D(cuMemcpy3DBatchAsync, 0, FT_FAILIDX_P, FT_FAILIDX_A)
BATCH3D(cuMemcpy3DBatchAsync_ptsz, 1, FT_FAILIDX_P, FT_FAILIDX_A)

CUresult ft_on_cuMemcpyAtoD_v2(CUdeviceptr dst, CUarray src, size_t off, size_t n) {
  ft_op_begin();
  touching(dst, CU_STREAM_LEGACY);
  CUresult r = ft_real.cuMemcpyAtoD_v2(dst, src, off, n);
  if (r == CUDA_SUCCESS) touched(dst, CU_STREAM_LEGACY);
  ft_op_end();
  return r;
}
CUresult ft_on_cuMemcpyAtoD_v2_ptds(CUdeviceptr dst, CUarray src, size_t off, size_t n) {
  ft_op_begin();
  touching(dst, CU_STREAM_PER_THREAD);
  CUresult r = ft_real.cuMemcpyAtoD_v2_ptds(dst, src, off, n);
  if (r == CUDA_SUCCESS) touched(dst, CU_STREAM_PER_THREAD);
  ft_op_end();
  return r;
}

CUresult ft_on_cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *l, unsigned n, unsigned f) {
  CUresult v = ft_unknown_writer_before(NULL, 0); /* several streams */
  ft_op_begin();
  CUresult r = ft_real.cuLaunchCooperativeKernelMultiDevice(l, n, f);
  if (r == CUDA_SUCCESS)
    for (unsigned i = 0; l && i < n; i++) ft_unknown_writer_after(l[i].hStream);
  ft_op_end();
  return r != CUDA_SUCCESS ? r : v;
}
