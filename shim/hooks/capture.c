/* capture.c: stream capture. Work a program enqueues on a capturing stream becomes
 * graph nodes and runs only when the graph is launched; gpuft enqueues nothing of
 * its own there and allocates nothing (either would invalidate the capture, or run
 * at the wrong time), and checks the graph's launch as an unknown writer. */
#include "engine.h"
#include "hooks.h"

int ft_capturing(CUstream s) {
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!ft_drv.cuStreamIsCapturing) return 0;
  CUresult r = ft_drv.cuStreamIsCapturing(s, &st);
  return r != CUDA_SUCCESS || st != CU_STREAM_CAPTURE_STATUS_NONE;
}

void ft_captured_call(void) { __atomic_fetch_add(&ft_st.captured_ops, 1, __ATOMIC_RELAXED); }
