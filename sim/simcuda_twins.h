/* simcuda_twins.h: what a program's twin file (C) needs to describe its kernels'
 * host twins and register them with the simulator's runtime, only when it is there. */
#ifndef SIMCUDA_TWINS_H
#define SIMCUDA_TWINS_H

#include <dlfcn.h>
#include <stdint.h>

#include "simcuda.h"

/* One entry of a twin table: the kernel's mangled name exactly as nvcc emits it
 * (see `cuobjdump -symbols` or `nm` of the object: _Z...), the twin, and two
 * uint16_t arrays with the size and alignment of each parameter, in order. */
#define SIMCUDA_KERNEL(mangled, twin, sizes, aligns) \
  { (mangled), (twin), (unsigned)(sizeof(sizes) / sizeof((sizes)[0])), (sizes), (aligns) }

/* SIMCUDA_REGISTER_TWINS(table): registers a static table of simcuda_kernel_t from a
 * constructor. dlsym(RTLD_DEFAULT) finds simcudaRegisterTwins only in the
 * simulator's libcudart; with the real runtime nothing happens. Order against
 * nvcc's own registration code does not matter: matching is done at first use. */
#define SIMCUDA_REGISTER_TWINS(table)                                               \
  __attribute__((constructor)) static void simcuda_register_twins_ctor_(void) {    \
    simcuda_register_twins_fn fn_;                                                  \
    void *sym_ = dlsym(RTLD_DEFAULT, "simcudaRegisterTwins");                       \
    if (!sym_) return;                                                              \
    /* POSIX: a data pointer from dlsym converts to a function pointer. */         \
    __builtin_memcpy(&fn_, &sym_, sizeof fn_);                                      \
    fn_((table), (unsigned)(sizeof(table) / sizeof((table)[0])));                   \
  }

/* Block-local helpers for twins: the linear thread loop of a block. */
#define SIMCUDA_FOR_THREADS(blk, tx, ty, tz)                        \
  for (unsigned tz = 0; tz < (blk)->blockDim.z; tz++)               \
    for (unsigned ty = 0; ty < (blk)->blockDim.y; ty++)             \
      for (unsigned tx = 0; tx < (blk)->blockDim.x; tx++)

#endif
