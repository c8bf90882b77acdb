/* twin_fill.h: two tiny kernels for driver-API test and benchmark programs,
 * `fill(unsigned *p, unsigned v)` (p[global thread index] = v) and `empty()`,
 * as PTX for a real GPU and as host twins for the simulator. tf_load() tries the
 * PTX first and the twin image second: which image loads is the only difference
 * between the two (the simulator rejects PTX, a real driver rejects the image). */
#ifndef TWIN_FILL_H
#define TWIN_FILL_H

#include <cuda.h>
#include <stdint.h>

#include "simcuda.h"

static const char tf_ptx[] =
    ".version 9.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry fill(.param .u64 fill_param_0, .param .u32 fill_param_1)\n{\n"
    ".reg .b32 %r<6>;\n.reg .b64 %rd<5>;\n"
    "ld.param.u64 %rd1, [fill_param_0];\nld.param.u32 %r1, [fill_param_1];\n"
    "cvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\n"
    "mov.u32 %r4, %tid.x;\nmad.lo.s32 %r5, %r2, %r3, %r4;\nmul.wide.u32 %rd3, %r5, 4;\n"
    "add.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r1;\nret;\n}\n"
    ".visible .entry empty()\n{\nret;\n}\n";

static void tf_fill_twin(const simcuda_block_t *blk, void **params) {
  const char *dev = *(char *const *)params[0];
  unsigned v = *(unsigned *)params[1];
  size_t base = (size_t)blk->blockIdx.x * blk->blockDim.x;
  /* the block's first and last word, translated as the device would fault on
   * either (a grid larger than the buffer is an illegal address, not a host crash) */
  unsigned *p = (unsigned *)simcuda_ptr(blk, dev + base * 4);
  if (!p || !blk->blockDim.x || !simcuda_ptr(blk, dev + (base + blk->blockDim.x) * 4 - 1)) return;
  for (unsigned t = 0; t < blk->blockDim.x; t++) p[t] = v;
}

static void tf_empty_twin(const simcuda_block_t *blk, void **params) {
  (void)blk;
  (void)params;
}

static const uint16_t tf_fill_size[] = {8, 4}, tf_fill_align[] = {8, 4};
static const simcuda_kernel_t tf_kernels[] = {
    {"fill", tf_fill_twin, 2, tf_fill_size, tf_fill_align},
    {"empty", tf_empty_twin, 0, NULL, NULL},
};
static const simcuda_image_t tf_image = {SIMCUDA_IMAGE_MAGIC, SIMCUDA_IMAGE_VERSION, 2, tf_kernels};

/* Loads the module (PTX, else twins) into the current context. */
static inline CUresult tf_load2(CUmodule *mod, CUfunction *fill, CUfunction *empty) {
  CUresult r = cuModuleLoadData(mod, tf_ptx);
  if (r != CUDA_SUCCESS) r = cuModuleLoadData(mod, &tf_image);
  if (r != CUDA_SUCCESS) return r;
  r = cuModuleGetFunction(fill, *mod, "fill");
  if (r == CUDA_SUCCESS && empty) r = cuModuleGetFunction(empty, *mod, "empty");
  return r;
}

static inline CUresult tf_load(CUmodule *mod, CUfunction *fill) {
  return tf_load2(mod, fill, NULL);
}

#endif
