/* launch.c: kernel launches: the <<<>>> call-configuration stack, nvcc's
 * __cudaLaunchKernel(_ptsz) and the public cudaLaunchKernel(_ptsz)/cudaLaunchKernelExC/
 * cudaLaunchCooperativeKernel. Every launch reaches the driver as cuLaunchKernel (or
 * cuLaunchKernelEx, with attributes) with a CUkernel cast to CUfunction. */
#include <string.h>

#include "simrt.h"

/* A stack: a <<<>>> argument may itself launch a kernel before the outer launch. */
#define SIMRT_CFG_DEPTH 32
typedef struct {
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
} simrt_cfg_t;
static _Thread_local simrt_cfg_t simrt_cfg[SIMRT_CFG_DEPTH];
static _Thread_local unsigned simrt_ncfg;

SIMRT_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                               struct CUstream_st *stream) {
  if (simrt_ncfg >= SIMRT_CFG_DEPTH) return 1;
  simrt_cfg[simrt_ncfg++] = (simrt_cfg_t){gridDim, blockDim, sharedMem, stream};
  return 0;
}

SIMRT_API cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                 size_t *sharedMem, void *stream) {
  if (simrt_ncfg == 0) return simrt_ret(cudaErrorMissingConfiguration);
  const simrt_cfg_t *c = &simrt_cfg[--simrt_ncfg];
  *gridDim = c->grid;
  *blockDim = c->block;
  *sharedMem = c->shmem;
  memcpy(stream, &c->stream, sizeof c->stream);
  return cudaSuccess;
}

/* Launch-configuration checks the real runtime makes before the driver sees the
 * launch (they give cudaErrorInvalidConfiguration, not the driver's InvalidValue). */
static cudaError_t simrt_check_config(dim3 grid, dim3 block) {
  if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
    return cudaErrorInvalidConfiguration;
  int dev = simrt_current_device(), v[6];
  static const CUdevice_attribute attrs[6] = {
      CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  const simrt_drv_t *d = simrt_drv(0);
  for (int i = 0; i < 6; i++) {
    CUresult r = SIMRT_DCALL(d, cuDeviceGetAttribute, &v[i], attrs[i], dev);
    if (r != CUDA_SUCCESS) return simrt_from_cu(r);
  }
  unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
  if (threads > (unsigned)v[0] || block.x > (unsigned)v[1] || block.y > (unsigned)v[2] ||
      block.z > (unsigned)v[3] || grid.y > (unsigned)v[4] || grid.z > (unsigned)v[5])
    return cudaErrorInvalidConfiguration;
  return cudaSuccess;
}

cudaError_t simrt_launch(CUkernel k, dim3 grid, dim3 block, void **args, size_t shmem,
                         cudaStream_t stream, int ptds) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return e;
  e = simrt_check_config(grid, block);
  if (e != cudaSuccess) return e;
  const simrt_drv_t *d = simrt_drv(ptds);
  CUresult r = SIMRT_DCALL(d, cuLaunchKernel, (CUfunction)k, grid.x, grid.y, grid.z, block.x,
                           block.y, block.z, (unsigned)shmem, (CUstream)stream, args, NULL);
  return simrt_from_cu(r);
}

static cudaError_t simrt_launch_handle(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                       size_t shmem, cudaStream_t stream, int ptds) {
  CUkernel k;
  cudaError_t e = simrt_kernel_of_handle(kernel, &k);
  if (e == cudaSuccess) e = simrt_launch(k, grid, block, args, shmem, stream, ptds);
  return simrt_ret(e);
}

SIMRT_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                         void **args, size_t sharedMem, cudaStream_t stream) {
  return simrt_launch_handle(kernel, gridDim, blockDim, args, sharedMem, stream, 0);
}

SIMRT_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                              void **args, size_t sharedMem,
                                              cudaStream_t stream) {
  return simrt_launch_handle(kernel, gridDim, blockDim, args, sharedMem, stream, 1);
}

static cudaError_t simrt_launch_func(const void *func, dim3 grid, dim3 block, void **args,
                                     size_t shmem, cudaStream_t stream, int ptds) {
  CUkernel k;
  cudaError_t e = simrt_kernel_of_func(func, &k);
  if (e == cudaSuccess) e = simrt_launch(k, grid, block, args, shmem, stream, ptds);
  return simrt_ret(e);
}

SIMRT_API cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                       void **args, size_t sharedMem, cudaStream_t stream) {
  return simrt_launch_func(func, gridDim, blockDim, args, sharedMem, stream, 0);
}

cudaError_t cudaLaunchKernel_ptsz(const void *, dim3, dim3, void **, size_t, cudaStream_t);
SIMRT_API cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                            void **args, size_t sharedMem, cudaStream_t stream) {
  return simrt_launch_func(func, gridDim, blockDim, args, sharedMem, stream, 1);
}

/* cudaLaunchAttribute and CUlaunchAttribute share their layout by design. */
_Static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute), "attribute layout");

static cudaError_t simrt_launch_ex(const cudaLaunchConfig_t *config, const void *func,
                                   void **args, int ptds) {
  if (!config) return simrt_ret(cudaErrorInvalidValue);
  if (config->numAttrs == 0)
    return simrt_launch_func(func, config->gridDim, config->blockDim, args,
                             config->dynamicSmemBytes, config->stream, ptds);
  CUkernel k;
  cudaError_t e = simrt_kernel_of_func(func, &k);
  if (e == cudaSuccess) e = simrt_ctx();
  if (e == cudaSuccess) e = simrt_check_config(config->gridDim, config->blockDim);
  if (e != cudaSuccess) return simrt_ret(e);
  CUlaunchConfig c = {
      .gridDimX = config->gridDim.x, .gridDimY = config->gridDim.y,
      .gridDimZ = config->gridDim.z, .blockDimX = config->blockDim.x,
      .blockDimY = config->blockDim.y, .blockDimZ = config->blockDim.z,
      .sharedMemBytes = (unsigned)config->dynamicSmemBytes, .hStream = (CUstream)config->stream,
      .attrs = (CUlaunchAttribute *)config->attrs, .numAttrs = config->numAttrs};
  const simrt_drv_t *d = simrt_drv(ptds);
  return simrt_ret_cu(SIMRT_DCALL(d, cuLaunchKernelEx, &c, (CUfunction)k, args, NULL));
}

SIMRT_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                          void **args) {
  return simrt_launch_ex(config, func, args, 0);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *, const void *, void **);
SIMRT_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
                                               const void *func, void **args) {
  return simrt_launch_ex(config, func, args, 1);
}

/* Cooperative launches reach the driver as cuLaunchKernelEx with the cooperative
 * attribute, which refuses a grid that cannot be resident all at once. */
static cudaError_t simrt_launch_coop(const void *func, dim3 grid, dim3 block, void **args,
                                     size_t shmem, cudaStream_t stream, int ptds) {
  cudaLaunchAttribute at = {.id = cudaLaunchAttributeCooperative, .val.cooperative = 1};
  cudaLaunchConfig_t c = {.gridDim = grid, .blockDim = block, .dynamicSmemBytes = shmem,
                          .stream = stream, .attrs = &at, .numAttrs = 1};
  return simrt_launch_ex(&c, func, args, ptds);
}

SIMRT_API cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                                  void **args, size_t sharedMem,
                                                  cudaStream_t stream) {
  return simrt_launch_coop(func, gridDim, blockDim, args, sharedMem, stream, 0);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *, dim3, dim3, void **, size_t, cudaStream_t);
SIMRT_API cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim,
                                                       dim3 blockDim, void **args,
                                                       size_t sharedMem, cudaStream_t stream) {
  return simrt_launch_coop(func, gridDim, blockDim, args, sharedMem, stream, 1);
}
