/* simrt.h: internals shared by the files of the simulator's libcudart.so.13: the
 * driver table, lazy initialisation, error recording and the kernel registry. */
#ifndef SIMRT_H
#define SIMRT_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>

#include "simcuda.h"

/* Exported entry points; everything else is hidden (CMake visibility preset) and
 * the version script gives the exports the `libcudart.so.13` version. */
#define SIMRT_API __attribute__((visibility("default")))

/* ---- driver table (driver.c) ---- */
typedef struct {
#define SIMRT_DRV(name, pfn, ptds) pfn name;
#include "drv.def"
#undef SIMRT_DRV
} simrt_drv_t;

/* Loads libcuda.so.1 and resolves both tables once; cudaSuccess or the error a
 * real runtime gives without a usable driver. */
cudaError_t simrt_driver_load(void);
/* The table for legacy (ptds=0) or per-thread (ptds=1) default-stream calls. Valid
 * only after simrt_driver_load() succeeded. Members may be NULL (missing symbol). */
const simrt_drv_t *simrt_drv(int ptds);
/* The driver's cuGetProcAddress_v2 (for cudaGetDriverEntryPoint). */
PFN_cuGetProcAddress_v12000 simrt_getproc(void);

/* Calls a driver entry point of table `t`, never through a NULL pointer. */
#define SIMRT_DCALL(t, fn, ...) \
  ((t)->fn ? (t)->fn(__VA_ARGS__) : simrt_missing_entry(#fn))
CUresult simrt_missing_entry(const char *name);

/* ---- errors (error.c) ---- */
cudaError_t simrt_from_cu(CUresult r);
/* Records a result as the calling thread's last error (sticky errors also for the
 * process) and returns it; cudaSuccess and cudaErrorNotReady are not recorded. */
cudaError_t simrt_ret(cudaError_t e);
static inline cudaError_t simrt_ret_cu(CUresult r) { return simrt_ret(simrt_from_cu(r)); }
/* The process-wide sticky error, cudaSuccess if none. */
cudaError_t simrt_sticky(void);
void simrt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- initialisation and contexts (context.c) ---- */
/* Driver loaded and cuInit done (no context). */
cudaError_t simrt_init(void);
/* A simulator-only symbol of the driver (simcuda*), NULL when absent. */
void *simrt_driver_sym(const char *name);
/* The primary context of the calling thread's device is current (retained on first
 * use, as the real runtime does lazily). Fails with the sticky error once one is set. */
cudaError_t simrt_ctx(void);
int simrt_current_device(void);
/* The runtime's retained primary context of dev (cudaErrorInvalidDevice if none). */
cudaError_t simrt_primary_of(int dev, CUcontext *out);
cudaError_t simrt_set_device(int dev);
/* Drops the runtime's cached per-device state after cudaDeviceReset. */
void simrt_forget_device(int dev);

/* ---- kernels (registry.c) ---- */
/* The CUkernel for a host stub (or for a CUkernel cast to void*), loading the
 * fatbin's module on first use. Fails with cudaErrorInvalidDeviceFunction for an
 * unknown function, cudaErrorNoKernelImageForDevice for one without a twin. */
cudaError_t simrt_kernel_of_func(const void *func, CUkernel *out);
/* Same for a handle that __cudaGetKernel returned (a CUkernel or a stand-in for a
 * function without twin). */
cudaError_t simrt_kernel_of_handle(cudaKernel_t h, CUkernel *out);

/* ---- launch (launch.c) ---- */
cudaError_t simrt_launch(CUkernel k, dim3 grid, dim3 block, void **args, size_t shmem,
                         cudaStream_t stream, int ptds);

#endif
