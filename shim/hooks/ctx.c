/* ctx.c: context lifecycle (cuCtxDestroy, cuDevicePrimaryCtxRelease/Reset): before
 * a context goes, gpuft takes in the results of its own work there, stops tracking
 * the context's allocations and releases its module, stream, ledger and staging,
 * so that nothing stale is used by a later context (which may get the same handle
 * or the same addresses). */
#include "engine.h"

#define MAX_DEVICES 64
static CUcontext g_primary[MAX_DEVICES]; /* as last retained, engine lock */

/* Does gpuft hold anything in context c? */
static int known(CUcontext c) {
  if (!c) return 0;
  ft_lock();
  int k = ft_dev_find(c) != NULL;
  for (size_t i = 0; !k && i < ft_reg_count(); i++) k = ft_reg_at(i)->ctx == c;
  ft_unlock();
  return k;
}

/* Results of gpuft's jobs in c are taken in now (a commit point, as a free is);
 * the synchronisation is made with no gpuft lock held. */
static void quiesce(CUcontext c) {
  CUcontext prev = NULL;
  int pushed = ft_drv.cuCtxPushCurrent_v2(c) == CUDA_SUCCESS;
  ft_commit_all();
  if (pushed) ft_drv.cuCtxPopCurrent_v2(&prev);
}

/* Forget everything gpuft holds in c and release what is still there to release
 * (after the context is gone, the driver refuses the frees: harmless). */
static void forget(CUcontext c) {
  ft_lock();
  ft_dev_t *d = ft_dev_find(c);
  if (d) ft_jobs_forget(d, NULL);
  ft_ctx_untrack(c);
  if (d) ft_dev_release(d);
  ft_ord_forget_ctx(c);
  ft_unlock();
  FT_DEBUG("context %p: gpuft's state released", (void *)c);
}

/* Its streams' clocks (handles may come back in a later context). */
static void forget_streams(CUcontext c) {
  if (!c) return;
  ft_lock();
  ft_ord_forget_ctx(c);
  ft_unlock();
}

static void teardown(CUcontext c) {
  if (!known(c)) {
    forget_streams(c);
    return;
  }
  quiesce(c);
  CUcontext prev = NULL;
  int pushed = ft_drv.cuCtxPushCurrent_v2(c) == CUDA_SUCCESS; /* frees in their context */
  forget(c);
  if (pushed) ft_drv.cuCtxPopCurrent_v2(&prev);
}

CUresult ft_on_cuCtxDestroy_v2(CUcontext c) {
  teardown(c);
  return ft_real.cuCtxDestroy_v2(c);
}

CUresult ft_on_cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  CUresult r = ft_real.cuDevicePrimaryCtxRetain(pctx, dev);
  if (r == CUDA_SUCCESS && pctx && dev >= 0 && dev < MAX_DEVICES) {
    ft_lock();
    g_primary[dev] = *pctx;
    ft_unlock();
  }
  return r;
}

/* The primary context of dev as gpuft saw it retained, else as the driver has it
 * (NVIDIA's static runtime retains it through a private entry point gpuft does
 * not see); NULL: none active. */
static CUcontext primary(CUdevice dev) {
  if (dev < 0 || dev >= MAX_DEVICES) return NULL;
  ft_lock();
  CUcontext c = g_primary[dev];
  ft_unlock();
  unsigned flags = 0;
  int active = 0;
  if (!c && ft_drv.cuDevicePrimaryCtxGetState &&
      ft_drv.cuDevicePrimaryCtxGetState(dev, &flags, &active) == CUDA_SUCCESS && active &&
      ft_real.cuDevicePrimaryCtxRetain && ft_real.cuDevicePrimaryCtxRelease_v2 &&
      ft_real.cuDevicePrimaryCtxRetain(&c, dev) == CUDA_SUCCESS)
    ft_real.cuDevicePrimaryCtxRelease_v2(dev); /* only its handle was wanted */
  return c;
}

/* Whether a release destroys the context depends on retains gpuft cannot count
 * (the driver keeps the count): commit before, and forget after if it is gone. */
static CUresult release(CUdevice dev, PFN_cuDevicePrimaryCtxRelease_v11000 real) {
  CUcontext c = primary(dev);
  int k = known(c);
  if (k) quiesce(c);
  CUresult r = real(dev);
  unsigned flags = 0;
  int active = 1;
  if (r == CUDA_SUCCESS &&
      ft_drv.cuDevicePrimaryCtxGetState(dev, &flags, &active) == CUDA_SUCCESS && !active) {
    if (k) forget(c);
    else forget_streams(c);
  }
  return r;
}

CUresult ft_on_cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return release(dev, ft_real.cuDevicePrimaryCtxRelease_v2);
}
CUresult ft_on_cuDevicePrimaryCtxRelease(CUdevice dev) { return release(dev, ft_real.cuDevicePrimaryCtxRelease); }

CUresult ft_on_cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  teardown(primary(dev));
  return ft_real.cuDevicePrimaryCtxReset_v2(dev);
}
CUresult ft_on_cuDevicePrimaryCtxReset(CUdevice dev) {
  teardown(primary(dev));
  return ft_real.cuDevicePrimaryCtxReset(dev);
}
