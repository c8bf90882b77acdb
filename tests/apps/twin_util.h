/* twin_util.h: helpers for the example programs' twins (C11): turn a device pointer
 * argument into a host pointer, checking that the whole range a block touches lies
 * in one allocation (so an out-of-bounds kernel fails here as it would on a GPU). */
#ifndef TWIN_UTIL_H
#define TWIN_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "simcuda_twins.h"

/* The pointer argument i of a launch. */
#define TWIN_ARG(params, i, type) (*(type *)(params)[i])

/* Host view of [p, p + bytes): NULL (the launch is then marked as an illegal access
 * by the simulator) when either end is not device memory or the ends are not one
 * contiguous allocation. */
static inline void *twin_span(const simcuda_block_t *blk, const void *p, size_t bytes) {
  if (bytes == 0) return simcuda_ptr(blk, p);
  char *a = (char *)simcuda_ptr(blk, p);
  if (!a) return NULL;
  char *b = (char *)simcuda_ptr(blk, (const char *)p + bytes - 1);
  if (!b || b != a + bytes - 1) return NULL;
  return a;
}

#endif
