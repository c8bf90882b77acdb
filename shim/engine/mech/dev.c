/* dev.c: per-context device state: gpuft's kernels (module), its own stream, the
 * ledger (mapped pinned memory the kernels write their results to) and the
 * staging buffers for uploads beyond the checkpoint budget (upload.c). Created on first use
 * in a context; if anything is missing, protection is off in that context, with
 * one warning, and every call passes through. Released with its context (ctx.c). */
#include <stdlib.h>
#include <string.h>

#include "mech.h"
#include "quarantine.h"

#define MAX_DEVS 16
static ft_dev_t g_devs[MAX_DEVS];
static int g_ndevs;
ftk_driver_t ft_kdrv;

static int setup(ft_dev_t *d) {
  ft_kdrv.moduleLoadData = ft_drv.cuModuleLoadData;
  ft_kdrv.moduleGetFunction = ft_drv.cuModuleGetFunction;
  ft_kdrv.moduleUnload = ft_drv.cuModuleUnload;
  ft_kdrv.launchKernel = ft_real.cuLaunchKernel;
  if (!ft_drv_complete || !ft_real.cuLaunchKernel) {
    FT_WARN("the driver lacks entry points gpuft needs: protection is off (pass-through)");
    return -1;
  }
  CUresult r = ftk_module_load(&d->mod, &ft_kdrv);
  if (r != CUDA_SUCCESS) {
    FT_WARN("cannot load gpuft's device kernels in this context (error %d): protection is off "
            "(pass-through)", (int)r);
    return -1;
  }
  if ((r = ft_drv.cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) goto fail;
  /* peak memory bandwidth (DDR: two transfers a clock), for the exposure model */
  CUdevice dv;
  int clk = 0, bus = 0;
  if (ft_drv.cuCtxGetDevice(&dv) == CUDA_SUCCESS &&
      ft_drv.cuDeviceGetAttribute(&clk, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dv) == CUDA_SUCCESS &&
      ft_drv.cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dv) == CUDA_SUCCESS)
    d->mem_bps = 2.0 * (double)clk * 1e3 * (double)bus / 8.0;
  size_t jb = sizeof(ftk_job_t) * FT_LEDGER_SLOTS;
  void *jobs = NULL;
  r = ft_own_host_alloc(&jobs, jb, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
  if (r != CUDA_SUCCESS) goto fail;
  memset(jobs, 0, jb);
  d->jobs = jobs;
  if ((r = ft_drv.cuMemHostGetDevicePointer_v2(&d->jobs_dev, jobs, 0)) != CUDA_SUCCESS) goto fail;
  /* the kernels' device-side accumulators, one per slot (ftk.h), zeroed on the job's
   * own stream before each launch (ledger.c): a zeroing here, on the legacy stream,
   * would be unordered with gpuft's non-blocking stream */
  if ((r = ft_own_alloc(&d->djobs, jb)) != CUDA_SUCCESS) goto fail;
  return 0;
fail:
  FT_WARN("cannot set up gpuft's device state (error %d): protection is off (pass-through)",
          (int)r);
  return -1;
}

ft_dev_t *ft_dev_find(CUcontext ctx) {
  for (int i = 0; ctx && i < g_ndevs; i++)
    if (g_devs[i].ctx == ctx) return &g_devs[i];
  return NULL;
}

int ft_dev_count(void) {
  int n = 0;
  for (int i = 0; i < g_ndevs; i++) n += g_devs[i].ctx && g_devs[i].ok;
  return n;
}

/* While a capture is open: the current context's streams one by one (above). */
static CUresult sync_by_streams(void) {
  CUcontext ctx = NULL;
  if (ft_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) return CUDA_ERROR_INVALID_CONTEXT;
  CUstream s[FT_ORD_STREAMS + 2];
  CUevent ev[FT_ORD_STREAMS];
  int unknown = 0, nev = 0;
  ft_lock();
  int n = ft_ord_unfinished(ctx, s, ev, FT_ORD_STREAMS, &nev, &unknown);
  ft_dev_t *d = ft_dev_find(ctx);
  if (d) { /* gpuft's own: never captured */
    if (d->stream) s[n++] = d->stream;
    if (d->snap_stream) s[n++] = d->snap_stream;
  }
  ft_unlock();
  if (unknown) return CUDA_ERROR_NOT_READY;
  /* (the events are released only with the gate closed, or with no capture open:
   * not while this waits) */
  CUresult r = CUDA_SUCCESS;
  for (int i = 0; i < nev && r == CUDA_SUCCESS; i++) r = ft_own_event_sync(ev[i]);
  for (int i = 0; i < n && r == CUDA_SUCCESS; i++) r = ft_own_stream_sync(s[i]);
  return r;
}

CUresult ft_dev_ctx_sync(void) {
  ft_capture_gate_pass();
  CUresult r = __atomic_load_n(&ft_captures_open, __ATOMIC_ACQUIRE) > 0 ? sync_by_streams()
                                                                         : ft_own_ctx_sync();
  ft_capture_gate_done();
  return r;
}

int ft_dev_sync_all(void) {
  CUcontext c[MAX_DEVS];
  int n = 0;
  ft_lock();
  for (int i = 0; i < g_ndevs; i++)
    if (g_devs[i].ctx && g_devs[i].ok) c[n++] = g_devs[i].ctx;
  ft_unlock();
  if (n <= 1) return ft_dev_ctx_sync() == CUDA_SUCCESS; /* (the current one, as before) */
  int ok = 1;
  for (int i = 0; i < n; i++) {
    CUcontext was;
    if (ft_drv.cuCtxPushCurrent_v2(c[i]) != CUDA_SUCCESS) {
      ok = 0;
      continue;
    }
    ok &= ft_dev_ctx_sync() == CUDA_SUCCESS;
    ft_drv.cuCtxPopCurrent_v2(&was);
  }
  return ok;
}

int ft_dev_enter(const ft_dev_t *d) {
  CUcontext cur = NULL;
  if (!d->ctx || ft_drv.cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur == d->ctx) return 0;
  return ft_drv.cuCtxPushCurrent_v2(d->ctx) == CUDA_SUCCESS;
}

void ft_dev_leave(int entered) {
  CUcontext was;
  if (entered) ft_drv.cuCtxPopCurrent_v2(&was);
}

void ft_dev_teardown(ft_dev_t *d) {
  if (d->ok) {
    ftk_module_unload(&d->mod, &ft_kdrv);
    if (d->stream) ft_drv.cuStreamDestroy_v2(d->stream);
  }
  if (d->jobs) ft_own_host_free(d->jobs);
  for (int i = 0; d->fix_ev && i < FT_LEDGER_SLOTS; i++)
    if (d->fix_ev[i]) ft_drv.cuEventDestroy_v2(d->fix_ev[i]);
  free(d->fix_ev);
  if (d->djobs) ft_own_free(d->djobs);
  memset(d, 0, sizeof *d); /* the slot is free for a later context */
}

/* gpuft's kernels for an allocation run in its context. The program's stream s may
 * belong to the context that is current, another one (a peer copy into another
 * device's memory, a kernel reading a peer's): the kernel then runs on d's own
 * stream, ordered after what s holds so far and before what s gets next, by events.
 * Returns the stream to launch on; *in for ft_dev_leave_for. */
CUstream ft_dev_enter_for(ft_dev_t *d, CUstream s, int *in) {
  CUcontext cur = NULL;
  int other = d->ctx && ft_drv.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur && cur != d->ctx &&
              s != d->stream;
  CUevent before = NULL;
  if (other && ft_drv.cuEventCreate(&before, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS &&
      ft_drv.cuEventRecord(before, s) != CUDA_SUCCESS) {
    ft_drv.cuEventDestroy_v2(before);
    before = NULL;
  }
  *in = ft_dev_enter(d);
  if (!other) return s;
  if (before) {
    ft_drv.cuStreamWaitEvent(d->stream, before, 0);
    ft_drv.cuEventDestroy_v2(before); /* (released once it completes) */
  }
  return d->stream;
}

void ft_dev_leave_for(CUstream s, CUstream used, int in) {
  CUevent after = NULL;
  if (used != s && ft_drv.cuEventCreate(&after, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS &&
      ft_drv.cuEventRecord(after, used) != CUDA_SUCCESS) {
    ft_drv.cuEventDestroy_v2(after);
    after = NULL;
  }
  ft_dev_leave(in);
  if (after) {
    ft_drv.cuStreamWaitEvent(s, after, 0);
    ft_drv.cuEventDestroy_v2(after);
  }
}

ft_dev_t *ft_dev_current(void) {
  CUcontext ctx = NULL;
  if (!ft_drv.cuCtxGetCurrent || ft_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) return NULL;
  ft_dev_t *d = ft_dev_find(ctx);
  if (d) return d->ok ? d : NULL;
  for (int i = 0; i < g_ndevs && !d; i++)
    if (!g_devs[i].ctx) d = &g_devs[i]; /* released by a destroyed context */
  if (!d && g_ndevs == MAX_DEVS) {
    FT_WARN_CAPPED(1, "more than %d CUDA contexts alive at once: the others are not protected",
                   MAX_DEVS);
    return NULL;
  }
  if (!d) d = &g_devs[g_ndevs++];
  memset(d, 0, sizeof *d);
  d->ctx = ctx;
  d->ok = setup(d) == 0;
  if (d->ok) ft_history_ctx_start(ctx); /* known bad words, quarantine (docs/gpu.md) */
  if (d->ok)
    FT_DEBUG("context %p: kernels loaded (%s)", (void *)ctx,
             d->mod.twins ? "simulator twins" : "device code");
  return d->ok ? d : NULL;
}
