/* capture.c: stream capture. Work a program enqueues on a capturing stream becomes
 * graph nodes and runs only when the graph is launched; gpuft enqueues nothing of
 * its own there and allocates nothing (either would invalidate the capture, or run
 * at the wrong time), and checks the graph's launch as an unknown writer. */
#include "engine.h"
#include "hooks.h"

void ft_captured_call(void) { __atomic_fetch_add(&ft_st.captured_ops, 1, __ATOMIC_RELAXED); }

/* Captures open: one more when a capture begins, one fewer when it ends (an
 * invalidated capture too: the program ends it all the same). */
#define BEGIN(name, PTSZ, ARGS, CALL)                                                \
  CUresult ft_on_##name ARGS {                                                   \
    ft_capture_gate_close(); /* (no synchronisation of gpuft's under way) */     \
    ft_lock();                                                                   \
    ft_ord_capture_before(FT_STREAM(s, PTSZ), !__atomic_load_n(&ft_captures_open, __ATOMIC_RELAXED)); \
    ft_unlock();                                                                 \
    CUresult r = CALL;                                                           \
    if (r == CUDA_SUCCESS) __atomic_fetch_add(&ft_captures_open, 1, __ATOMIC_RELEASE); \
    ft_capture_gate_open();                                                      \
    return r;                                                                    \
  }
BEGIN(cuStreamBeginCapture_v2, 0, (CUstream s, CUstreamCaptureMode m), ft_real.cuStreamBeginCapture_v2(s, m))
BEGIN(cuStreamBeginCapture_v2_ptsz, 1, (CUstream s, CUstreamCaptureMode m),
      ft_real.cuStreamBeginCapture_v2_ptsz(s, m))
BEGIN(cuStreamBeginCaptureToGraph, 0,
      (CUstream s, CUgraph g, const CUgraphNode *dep, const CUgraphEdgeData *ed, size_t n, CUstreamCaptureMode m),
      ft_real.cuStreamBeginCaptureToGraph(s, g, dep, ed, n, m))
BEGIN(cuStreamBeginCaptureToGraph_ptsz, 1,
      (CUstream s, CUgraph g, const CUgraphNode *dep, const CUgraphEdgeData *ed, size_t n, CUstreamCaptureMode m),
      ft_real.cuStreamBeginCaptureToGraph_ptsz(s, g, dep, ed, n, m))

/* The capture ended (made a graph, or was invalidated or left unjoined: it ends all
 * the same); any other answer ended nothing (not capturing, another thread's). */
static CUresult ended(CUstream s, CUresult r) {
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED || r == CUDA_ERROR_STREAM_CAPTURE_UNJOINED) {
    ft_lock();
    ft_ord_capture_end(s);
    ft_unlock();
    if (__atomic_load_n(&ft_captures_open, __ATOMIC_RELAXED) > 0)
      __atomic_fetch_sub(&ft_captures_open, 1, __ATOMIC_RELAXED);
  }
  return r;
}
/* (no gate: an end never waits for a synchronisation of gpuft's, which may wait for
 * host functions of the program's that wait for this thread) */
CUresult ft_on_cuStreamEndCapture(CUstream s, CUgraph *g) {
  return ended(FT_STREAM(s, 0), ft_real.cuStreamEndCapture(s, g));
}
CUresult ft_on_cuStreamEndCapture_ptsz(CUstream s, CUgraph *g) {
  return ended(FT_STREAM(s, 1), ft_real.cuStreamEndCapture_ptsz(s, g));
}
