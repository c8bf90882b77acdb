/* ftk_launch.h: loading gpuft's kernels into a context and launching them, through
 * the real driver entry points handed in (never exported symbols, no runtime). */
#ifndef FTK_LAUNCH_H
#define FTK_LAUNCH_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stddef.h>

#include "ftk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { /* real driver entry points, typed (cudaTypedefs.h) */
  PFN_cuModuleLoadData_v2000 moduleLoadData;
  PFN_cuModuleGetFunction_v2000 moduleGetFunction;
  PFN_cuModuleUnload_v2000 moduleUnload;
  PFN_cuLaunchKernel_v4000 launchKernel;
} ftk_driver_t;

enum { FTK_ENCODE, FTK_VERIFY, FTK_VERIFY_COPY, FTK_VERIFY_FIX, FTK_VERIFY_COPY_FIX, FTK_NKERNELS };
typedef struct {
  CUmodule mod;
  CUfunction fn[FTK_NKERNELS]; /* fn[FTK_ENCODE..] */
  int twins;        /* 1 if the simulator's twin image was loaded */
} ftk_module_t;

/* Load into the current context: the embedded fatbin first; if the driver rejects
 * it (no code for this device: e.g. the simulator) and twins are compiled in, the
 * twin image. On failure returns the fatbin's error (CUDA_ERROR_NO_BINARY_FOR_GPU
 * when the library was built without nvcc) and leaves *m zeroed. */
CUresult ftk_module_load(ftk_module_t *m, const ftk_driver_t *d);
void ftk_module_unload(ftk_module_t *m, const ftk_driver_t *d);

/* Grid (blocks of FTK_THREADS) chosen for `ngroups` groups: enough warps for one
 * group each, at most FTK_MAX_BLOCKS (grid-stride beyond), at least 1. */
#define FTK_MAX_BLOCKS 512u
unsigned ftk_grid_for(uint64_t ngroups);

/* Zero *job_host (may be NULL), set job_host->blocks_total to the grid chosen for
 * span->g1 - span->g0 groups, and launch kernel `which` on `stream`. span->job must
 * be the device address of job_host (or 0 with job_host NULL). The job must not be
 * in use by an earlier launch still running. */
FT_MUST_CHECK CUresult ftk_launch(const ftk_module_t *m, const ftk_driver_t *d, int which,
                                  const ftk_span_t *span, ftk_job_t *job_host, CUstream stream);
/* Same with an explicit grid (0: ftk_grid_for), for tests and tuning. */
CUresult ftk_launch_grid(const ftk_module_t *m, const ftk_driver_t *d, int which,
                         const ftk_span_t *span, ftk_job_t *job_host, CUstream stream,
                         unsigned grid);

/* The embedded fatbin (ftk_fatbin_size == 0 when built without nvcc). */
extern const unsigned char ftk_fatbin[];
extern const size_t ftk_fatbin_size;

#ifdef __cplusplus
}
#endif
#endif
