/* memset.c: cuMemsetD8/16/32 and the 2-D forms, sync and async: checks at the call,
 * the fill in stream order. */
#include <string.h>

#include "exec.h"

void sim_memset_execute(sim_memset_t *m) {
  for (size_t y = 0; y < m->height; y++) {
    uint8_t *row = m->dst + y * m->pitch;
    switch (m->elem) {
      case 1: memset(row, (int)(m->value & 0xff), m->width); break;
      case 2: for (size_t i = 0; i < m->width; i++) memcpy(row + 2 * i, &(uint16_t){(uint16_t)m->value}, 2); break;
      default: for (size_t i = 0; i < m->width; i++) memcpy(row + 4 * i, &m->value, 4); break;
    }
  }
  size_t bytes = m->width * m->elem * m->height;
  SIM_COUNT(memsets, 1);
  SIM_COUNT(bytes_memset, bytes);
  if (m->dst_dev)
    sim_stuck_apply(m->dst_dev, m->dst_dev + (m->height - 1) * m->pitch + m->width * m->elem);
}

CUresult sim_memset_resolve(uint64_t dst, size_t pitch, uint32_t value, unsigned elem, size_t width, size_t height,
                            sim_memset_t *out) {
  if (!width || !height || (elem != 1 && elem != 2 && elem != 4)) return CUDA_ERROR_INVALID_VALUE;
  if (dst % elem) return CUDA_ERROR_INVALID_VALUE; /* D16/D32 need an aligned destination */
  if (height > 1 && (pitch < width * elem || pitch % elem)) return CUDA_ERROR_INVALID_VALUE;
  if (height == 1) pitch = width * elem;
  void *host;
  bool is_dev;
  if (sim_mem_resolve(dst, (height - 1) * pitch + width * elem, &host, &is_dev)) return CUDA_ERROR_INVALID_VALUE;
  *out = (sim_memset_t){host, is_dev ? dst : 0, pitch, width, height, elem, value};
  return CUDA_SUCCESS;
}

static CUresult memset2d(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned elem, size_t width, size_t height,
                         CUstream h, int ptds, bool async) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_stream_t *s;
  r = sim_stream_get(ctx, h, ptds, &s);
  if (r) return r;
  if (width == 0 || height == 0) goto out; /* nothing to do: success */
  sim_memset_t m;
  if ((r = sim_memset_resolve(dst, pitch, value, elem, width, height, &m))) goto out;
  sim_op_t *op = sim_op_new(SIM_OP_MEMSET);
  op->u.memset = m;
  uint64_t seq = sim_stream_enqueue(s, op);
  /* Asynchronous to the host unless the destination is pinned host memory. */
  if (!async && !m.dst_dev) {
    sim_stream_wait_seq(s, seq);
    r = (CUresult)atomic_load(&ctx->sticky);
  }
out:
  sim_obj_unref(&s->obj);
  return r;
}

#define SET1(name, T, elem, ptds, async)                                         \
  CUresult name(CUdeviceptr d, T v, size_t n) { return memset2d(d, 0, v, elem, n, 1, NULL, ptds, async); }
#define SET1A(name, T, elem, ptds)                                               \
  CUresult name(CUdeviceptr d, T v, size_t n, CUstream h) { return memset2d(d, 0, v, elem, n, 1, h, ptds, true); }
#define SET2(name, T, elem, ptds)                                                \
  CUresult name(CUdeviceptr d, size_t p, T v, size_t w, size_t ht) { return memset2d(d, p, v, elem, w, ht, NULL, ptds, false); }
#define SET2A(name, T, elem, ptds)                                               \
  CUresult name(CUdeviceptr d, size_t p, T v, size_t w, size_t ht, CUstream h) { return memset2d(d, p, v, elem, w, ht, h, ptds, true); }

SET1(cuMemsetD8_v2, unsigned char, 1, 0, false)
SET1(cuMemsetD8_v2_ptds, unsigned char, 1, 1, false)
SET1(cuMemsetD16_v2, unsigned short, 2, 0, false)
SET1(cuMemsetD16_v2_ptds, unsigned short, 2, 1, false)
SET1(cuMemsetD32_v2, unsigned int, 4, 0, false)
SET1(cuMemsetD32_v2_ptds, unsigned int, 4, 1, false)
SET1A(cuMemsetD8Async, unsigned char, 1, 0)
SET1A(cuMemsetD8Async_ptsz, unsigned char, 1, 1)
SET1A(cuMemsetD16Async, unsigned short, 2, 0)
SET1A(cuMemsetD16Async_ptsz, unsigned short, 2, 1)
SET1A(cuMemsetD32Async, unsigned int, 4, 0)
SET1A(cuMemsetD32Async_ptsz, unsigned int, 4, 1)
SET2(cuMemsetD2D8_v2, unsigned char, 1, 0)
SET2(cuMemsetD2D8_v2_ptds, unsigned char, 1, 1)
SET2(cuMemsetD2D16_v2, unsigned short, 2, 0)
SET2(cuMemsetD2D16_v2_ptds, unsigned short, 2, 1)
SET2(cuMemsetD2D32_v2, unsigned int, 4, 0)
SET2(cuMemsetD2D32_v2_ptds, unsigned int, 4, 1)
SET2A(cuMemsetD2D8Async, unsigned char, 1, 0)
SET2A(cuMemsetD2D8Async_ptsz, unsigned char, 1, 1)
SET2A(cuMemsetD2D16Async, unsigned short, 2, 0)
SET2A(cuMemsetD2D16Async_ptsz, unsigned short, 2, 1)
SET2A(cuMemsetD2D32Async, unsigned int, 4, 0)
SET2A(cuMemsetD2D32Async_ptsz, unsigned int, 4, 1)
