/* context.c: lazy initialisation like the real runtime: cuInit on the first call
 * that needs the driver, the device's primary context on the first that needs one. */
#include <pthread.h>

#include "simrt.h"

#define SIMRT_MAX_DEVICES 64

static pthread_once_t simrt_init_once = PTHREAD_ONCE_INIT;
static cudaError_t simrt_init_err;
static int simrt_ndev;

static pthread_mutex_t simrt_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext simrt_primary[SIMRT_MAX_DEVICES]; /* retained primary contexts */

static _Thread_local int simrt_tls_dev; /* cudaSetDevice is per thread; default 0 */
/* The context this runtime last made current on this thread: if the thread's current
 * context is still that one (or none), the runtime may replace it. */
static _Thread_local CUcontext simrt_tls_bound;

static void simrt_do_init(void) {
  simrt_init_err = simrt_driver_load();
  if (simrt_init_err != cudaSuccess) return;
  const simrt_drv_t *d = simrt_drv(0);
  CUresult r = SIMRT_DCALL(d, cuInit, 0);
  if (r == CUDA_SUCCESS) r = SIMRT_DCALL(d, cuDeviceGetCount, &simrt_ndev);
  if (r == CUDA_SUCCESS && simrt_ndev == 0) r = CUDA_ERROR_NO_DEVICE;
  if (simrt_ndev > SIMRT_MAX_DEVICES) simrt_ndev = SIMRT_MAX_DEVICES;
  simrt_init_err = simrt_from_cu(r);
}

cudaError_t simrt_init(void) {
  pthread_once(&simrt_init_once, simrt_do_init);
  return simrt_init_err;
}

int simrt_current_device(void) { return simrt_tls_dev; }

/* The retained primary context of dev, retaining it on first use. */
cudaError_t simrt_primary_of(int dev, CUcontext *out) {
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return e;
  if (dev < 0 || dev >= simrt_ndev) return cudaErrorInvalidDevice;
  pthread_mutex_lock(&simrt_ctx_lock);
  CUresult r = CUDA_SUCCESS;
  if (!simrt_primary[dev]) {
    const simrt_drv_t *d = simrt_drv(0);
    CUdevice cudev;
    r = SIMRT_DCALL(d, cuDeviceGet, &cudev, dev);
    if (r == CUDA_SUCCESS) r = SIMRT_DCALL(d, cuDevicePrimaryCtxRetain, &simrt_primary[dev], cudev);
  }
  *out = simrt_primary[dev];
  pthread_mutex_unlock(&simrt_ctx_lock);
  return simrt_from_cu(r);
}

cudaError_t simrt_ctx(void) {
  cudaError_t e = simrt_sticky();
  if (e != cudaSuccess) return e;
  CUcontext want;
  e = simrt_primary_of(simrt_tls_dev, &want);
  if (e != cudaSuccess) return e;
  const simrt_drv_t *d = simrt_drv(0);
  CUcontext cur = NULL;
  CUresult r = SIMRT_DCALL(d, cuCtxGetCurrent, &cur);
  /* Like the real runtime: a context the program made current itself is used as
   * is; a thread without one, or with one this runtime bound that is no longer the
   * device's primary (after cudaDeviceReset or cudaSetDevice), gets the primary. */
  if (r == CUDA_SUCCESS && cur != want && (cur == NULL || cur == simrt_tls_bound)) {
    r = SIMRT_DCALL(d, cuCtxSetCurrent, want);
    if (r == CUDA_SUCCESS) simrt_tls_bound = want;
  }
  return simrt_from_cu(r);
}

cudaError_t simrt_set_device(int dev) {
  CUcontext c;
  /* CUDA 12+: cudaSetDevice initialises the device's primary context at once. */
  cudaError_t e = simrt_primary_of(dev, &c);
  if (e != cudaSuccess) return e;
  simrt_tls_dev = dev;
  CUresult r = SIMRT_DCALL(simrt_drv(0), cuCtxSetCurrent, c);
  if (r == CUDA_SUCCESS) simrt_tls_bound = c;
  return simrt_from_cu(r);
}

/* After a reset the primary context is retained again on next use (the driver may
 * hand out a new handle); threads still bound to the old one rebind in simrt_ctx. */
void simrt_forget_device(int dev) {
  if (dev < 0 || dev >= SIMRT_MAX_DEVICES) return;
  pthread_mutex_lock(&simrt_ctx_lock);
  CUcontext old = simrt_primary[dev];
  simrt_primary[dev] = NULL;
  pthread_mutex_unlock(&simrt_ctx_lock);
  if (old && simrt_tls_bound == old) {
    /* This thread's binding is stale: unbind so the next call binds afresh. */
    (void)SIMRT_DCALL(simrt_drv(0), cuCtxSetCurrent, NULL);
    simrt_tls_bound = NULL;
  }
}

SIMRT_API cudaError_t cudaGetDeviceCount(int *count) {
  if (!count) return simrt_ret(cudaErrorInvalidValue);
  cudaError_t e = simrt_init();
  *count = e == cudaSuccess ? simrt_ndev : 0;
  return simrt_ret(e);
}

SIMRT_API cudaError_t cudaGetDevice(int *device) {
  if (!device) return simrt_ret(cudaErrorInvalidValue);
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return simrt_ret(e);
  *device = simrt_tls_dev;
  return cudaSuccess;
}

SIMRT_API cudaError_t cudaSetDevice(int device) { return simrt_ret(simrt_set_device(device)); }
