/* ops_copy.c: copies (the COPY hooks). Host-to-device copies into protected memory
 * go through the upload pipeline; device-to-host copies are verified after the
 * DMA read the source (a synchronous one commits, repairs and copies again if the
 * source was bad); device-to-device copies carry the codes over when aligned and
 * re-encode otherwise; 2-D, 3-D and peer copies re-encode what they wrote and
 * verify what they read. Everything else passes through. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "hooks.h"
#include "inject.h"

static int is_host_memory(const void *p) {
  unsigned type = 0;
  CUresult r = ft_drv.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                            (CUdeviceptr)(uintptr_t)p);
  return r != CUDA_SUCCESS || type == CU_MEMORYTYPE_HOST; /* unknown to the driver: pageable */
}

/* ---- host to device ---- */

/* A synchronous copy returns once the work issued before it on its stream (and the
 * streams that stream waits for) has finished: as a stream sync, which the host
 * has seen when sync_end is called after it. */
static void sync_begin(CUstream s, uint64_t *vc) {
  ft_lock();
  ft_ord_op(s);
  ft_ord_snap_stream(s, vc);
  ft_unlock();
}
static void sync_end(const uint64_t *vc) {
  ft_lock();
  ft_ord_synced(vc, 0);
  ft_unlock();
}

static CUresult h2d(CUdeviceptr dst, const void *src, size_t n, CUstream s, int sync, int ptsz,
                    int *handled) {
  *handled = 0;
  /* nothing to protect, or a source gpuft must not read: the driver answers */
  if (!n || !ft_host_readable(src, n)) return CUDA_SUCCESS;
  ft_lock();
  int again = ft_upload_again(dst, n);
  ft_unlock();
  if (again) {
    /* a second upload to it in one epoch that does not replace the first: the
     * epoch ends here */
    CUresult v = ft_commit_all();
    if (v != CUDA_SUCCESS) return *handled = 1, v;
  }
  FT_OP_BEGIN();
  ft_lock();
  CUresult r = ft_copy_upload_relocking(dst, src, n, FT_STREAM(s, ptsz), sync, handled);
  ft_unlock();
  ft_op_end();
  if (sync && *handled && r == CUDA_SUCCESS) {
    /* the synchronous copy's wait, once the operation has ended (no gpuft lock held;
     * the write use its end took again included): the host sees it done, and later
     * work on any stream finds the allocation at rest */
    uint64_t vc[FT_ORD_STREAMS];
    sync_begin(FT_STREAM(s, ptsz), vc);
    r = ft_real.cuStreamSynchronize(FT_STREAM(s, ptsz));
    if (r == CUDA_SUCCESS) sync_end(vc);
  }
  return r;
}

#define H2D_SYNC(name, ptsz)                                              \
  CUresult ft_on_##name(CUdeviceptr dst, const void *src, size_t n) {     \
    int handled;                                                          \
    CUresult r = h2d(dst, src, n, 0, 1, ptsz, &handled);                  \
    if (handled) return r;                                                \
    FT_OP_BEGIN();                                                        \
    r = ft_real.name(dst, src, n);                                        \
    ft_op_end();                                                          \
    return r;                                                             \
  }
#define H2D_ASYNC(name, ptsz)                                                      \
  CUresult ft_on_##name(CUdeviceptr dst, const void *src, size_t n, CUstream s) {  \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(dst, src, n, s));                 \
    int handled;                                                                   \
    CUresult r = h2d(dst, src, n, s, 0, ptsz, &handled);                           \
    if (handled) return r;                                                         \
    FT_OP_BEGIN();                                                                 \
    r = ft_real.name(dst, src, n, s);                                              \
    ft_op_end();                                                                   \
    return r;                                                                      \
  }
H2D_SYNC(cuMemcpyHtoD_v2, 0)
H2D_SYNC(cuMemcpyHtoD_v2_ptds, 1)
H2D_ASYNC(cuMemcpyHtoDAsync_v2, 0)
H2D_ASYNC(cuMemcpyHtoDAsync_v2_ptsz, 1)

/* ---- device to host ---- */

/* After the DMA of [src, src+n) on stream s: verify the groups it read. */
static void verify_read(CUdeviceptr src, size_t n, CUstream s, int why, ft_alloc_t **out) {
  ft_lock();
  *out = ft_copy_read(src, n, s, why);
  ft_unlock();
}

/* After the read-back and its verification were enqueued on s. */
static void log_d2h(void *host, CUdeviceptr src, size_t n, CUstream s, int sync) {
  ft_lock();
  ft_log_d2h(host, src, n, s, sync);
  ft_unlock();
}

/* The source of a synchronous read-back needed repairing after every copy: what
 * the program received is not known good. */
static CUresult d2h_unsettled(CUdeviceptr src) {
  ft_lock();
  uint64_t id = ft_copy_read_unsettled(src);
  ft_unlock();
  FT_WARN_CAPPED(8, "a read-back from allocation #%ju was damaged at each of its copies: the "
                 "program may have received damaged bytes", (uintmax_t)id);
  if (FT_OPT(ON_FAIL) == FT_ONFAIL_ABORT) abort();
  if (FT_OPT(ON_FAIL) == FT_ONFAIL_EXIT) exit(FT_ONFAIL_EXIT_STATUS); /* (the report at exit) */
  return FT_OPT(ON_FAIL) == FT_ONFAIL_WARN ? CUDA_SUCCESS : CUDA_ERROR_ECC_UNCORRECTABLE;
}

/* A synchronous read-back: if it repaired the source,
 * copy again so that the program receives the correct bytes, and verify that copy
 * too (a flip during it would otherwise reach the program unseen). */
static CUresult d2h_settle(ft_alloc_t *a, CUstream s, void *dst, CUdeviceptr src, size_t n,
                           int ptsz) {
  CUresult verdict = CUDA_SUCCESS;
  int max = FT_OPT(MAX_RETRIES) > 0 ? (int)FT_OPT(MAX_RETRIES) : 1;
  for (int copies = 1; a; copies++) {
    uint64_t vc[FT_ORD_STREAMS];
    sync_begin(s, vc); /* the copy and its verification are done after this */
    CUresult r = ft_real.cuStreamSynchronize(s);
    if (r != CUDA_SUCCESS) return r;
    sync_end(vc);
    int repaired = 0;
    CUresult v = ft_commit_ex(a, &repaired);
    if (v != CUDA_SUCCESS) verdict = v;
    FT_DEBUG("read-back of %zu bytes at %#llx: verified%s", n, (unsigned long long)src,
             repaired ? ", repaired: copying again" : "");
    if (!repaired) break;
    if (copies > max) return d2h_unsettled(src);
    r = ptsz ? ft_real.cuMemcpyDtoH_v2_ptds(dst, src, n) : ft_real.cuMemcpyDtoH_v2(dst, src, n);
    if (r != CUDA_SUCCESS) return r;
    ft_lock();
    ft_log_d2h_recopied(dst, n); /* an epoch closed meanwhile logged the first copy */
    ft_unlock();
    verify_read(src, n, s, FT_WHY_D2H, &a);
  }
  return verdict;
}

/* A synchronous read-back returns: from now on the program may look at dst. */
static CUresult d2h_return(CUresult r, void *dst) {
  ft_lock();
  ft_epoch_settle_sync(dst);
  ft_unlock();
  return r;
}

#define D2H_SYNC(name, ptsz)                                           \
  CUresult ft_on_##name(void *dst, CUdeviceptr src, size_t n) {        \
    ft_inject_d2h(src, n);                                             \
    FT_OP_BEGIN();                                                     \
    uint64_t vc_[FT_ORD_STREAMS];                                      \
    sync_begin(FT_STREAM(0, ptsz), vc_);                               \
    ft_inject_d2h_issue();                                             \
    CUresult r = ft_real.name(dst, src, n);                            \
    if (r == CUDA_SUCCESS) sync_end(vc_);                              \
    ft_alloc_t *a = NULL;                                              \
    CUstream s = FT_STREAM(0, ptsz);                                   \
    if (r == CUDA_SUCCESS) {                                           \
      verify_read(src, n, s, FT_WHY_D2H, &a);                          \
      log_d2h(dst, src, n, s, 1);                                      \
    }                                                                  \
    ft_op_end();                                                       \
    if (r != CUDA_SUCCESS) return ft_note_result(r);                   \
    return d2h_return(d2h_settle(a, s, dst, src, n, ptsz), dst);       \
  }
#define D2H_ASYNC(name, ptsz)                                                  \
  CUresult ft_on_##name(void *dst, CUdeviceptr src, size_t n, CUstream s) {    \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(dst, src, n, s));             \
    ft_inject_d2h(src, n);                                                     \
    FT_OP_BEGIN();                                                             \
    ft_inject_d2h_issue();                                                     \
    CUresult r = ft_real.name(dst, src, n, s);                                 \
    ft_alloc_t *a;                                                             \
    if (r == CUDA_SUCCESS) verify_read(src, n, FT_STREAM(s, ptsz), FT_WHY_D2H, &a); \
    if (r == CUDA_SUCCESS) log_d2h(dst, src, n, FT_STREAM(s, ptsz), 0);        \
    ft_op_end();                                                               \
    return r;                                                                  \
  }
D2H_SYNC(cuMemcpyDtoH_v2, 0)
D2H_SYNC(cuMemcpyDtoH_v2_ptds, 1)
D2H_ASYNC(cuMemcpyDtoHAsync_v2, 0)
D2H_ASYNC(cuMemcpyDtoHAsync_v2_ptsz, 1)

/* ---- device to device ---- */

/* Before a device-to-device copy into [dst, dst+n) on stream s. */
static void before_d2d(CUdeviceptr dst, size_t n, CUstream s) {
  ft_lock();
  ft_copy_d2d_begin(dst, n, s);
  ft_unlock();
}

/* After [src, src+n) was copied to [dst, dst+n) on stream s. */
static void after_d2d(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  ft_lock();
  ft_copy_d2d_end(dst, src, n, s);
  ft_unlock();
}

#define D2D_SYNC(name, ptsz)                                             \
  CUresult ft_on_##name(CUdeviceptr dst, CUdeviceptr src, size_t n) {    \
    FT_OP_BEGIN();                                                       \
    before_d2d(dst, n, FT_STREAM(0, ptsz));                              \
    CUresult r = ft_real.name(dst, src, n);                              \
    if (r == CUDA_SUCCESS) after_d2d(dst, src, n, FT_STREAM(0, ptsz));   \
    ft_op_end();                                                         \
    return r;                                                            \
  }
#define D2D_ASYNC(name, ptsz)                                                       \
  CUresult ft_on_##name(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {   \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(dst, src, n, s));                  \
    FT_OP_BEGIN();                                                                  \
    before_d2d(dst, n, FT_STREAM(s, ptsz));                                         \
    CUresult r = ft_real.name(dst, src, n, s);                                      \
    if (r == CUDA_SUCCESS) after_d2d(dst, src, n, FT_STREAM(s, ptsz));              \
    ft_op_end();                                                                    \
    return r;                                                                       \
  }
D2D_SYNC(cuMemcpyDtoD_v2, 0)
D2D_SYNC(cuMemcpyDtoD_v2_ptds, 1)
D2D_ASYNC(cuMemcpyDtoDAsync_v2, 0)
D2D_ASYNC(cuMemcpyDtoDAsync_v2_ptsz, 1)

/* ---- unified-address copies: the direction comes from the pointers ---- */

static int tracked(CUdeviceptr p) {
  ft_lock();
  int t = ft_reg_find(p) != NULL;
  ft_unlock();
  return t;
}

#define UNIFIED(name, sync, ptsz, ARGS, CALL)                                     \
  CUresult ft_on_##name ARGS {                                                    \
    CUstream st = FT_STREAM(s_, ptsz);                                            \
    FT_CAPTURED(st, CALL);                                                        \
    int td = tracked(dst), ts = tracked(src);                                     \
    if (td && !ts && is_host_memory((const void *)(uintptr_t)src)) {              \
      int handled;                                                                \
      CUresult r = h2d(dst, (const void *)(uintptr_t)src, n, st, sync, ptsz, &handled); \
      if (handled) return r;                                                      \
    }                                                                             \
    FT_OP_BEGIN();                                                                \
    if (td) before_d2d(dst, n, st);                                               \
    CUresult r = CALL;                                                            \
    ft_alloc_t *a = NULL;                                                         \
    if (r == CUDA_SUCCESS && td) after_d2d(dst, src, n, st);                      \
    else if (r == CUDA_SUCCESS && ts) {                                           \
      verify_read(src, n, st, FT_WHY_D2H, &a);                                    \
      log_d2h((void *)(uintptr_t)dst, src, n, st, sync);                          \
    }                                                                             \
    ft_op_end();                                                                  \
    if (r == CUDA_SUCCESS && !td && ts && sync)                                   \
      return d2h_return(d2h_settle(a, st, (void *)(uintptr_t)dst, src, n, ptsz),  \
                        (void *)(uintptr_t)dst);                                  \
    return ft_note_result(r);                                                     \
  }
#define s_ 0
UNIFIED(cuMemcpy, 1, 0, (CUdeviceptr dst, CUdeviceptr src, size_t n), ft_real.cuMemcpy(dst, src, n))
UNIFIED(cuMemcpy_ptds, 1, 1, (CUdeviceptr dst, CUdeviceptr src, size_t n),
        ft_real.cuMemcpy_ptds(dst, src, n))
#undef s_
#define s_ s
UNIFIED(cuMemcpyAsync, 0, 0, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
        ft_real.cuMemcpyAsync(dst, src, n, s))
UNIFIED(cuMemcpyAsync_ptsz, 0, 1, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
        ft_real.cuMemcpyAsync_ptsz(dst, src, n, s))
#undef s_

/* ---- 2-D, 3-D and peer copies: re-encode what they write, verify what they read ---- */

static int on_device(CUmemorytype t) { return t == CU_MEMORYTYPE_DEVICE || t == CU_MEMORYTYPE_UNIFIED; }

/* Before a 2-D, 3-D or peer copy writes into dptr: it is re-encoded whole after,
 * so what the copy does not overwrite is verified and repaired first. */
static CUresult before_strided(const void *c, CUmemorytype dt, CUdeviceptr dptr, CUstream s) {
  if (!c || !on_device(dt)) return CUDA_SUCCESS;
  return ft_rewrite_before(dptr, s, 1);
}

static void after_strided(CUmemorytype dt, CUdeviceptr dptr, CUmemorytype st, CUdeviceptr sptr,
                          CUstream s) {
  ft_lock();
  ft_copy_strided_end(on_device(dt) ? dptr : 0, on_device(st) ? sptr : 0, s);
  ft_unlock();
}

static CUdeviceptr p2d_dst(const CUDA_MEMCPY2D *c) {
  return c->dstDevice + c->dstXInBytes + c->dstY * c->dstPitch;
}
static CUdeviceptr p2d_src(const CUDA_MEMCPY2D *c) {
  return c->srcDevice + c->srcXInBytes + c->srcY * c->srcPitch;
}

#define COPY2D(name, ptsz)                                                              \
  CUresult ft_on_##name(const CUDA_MEMCPY2D *c) {                                       \
    CUresult v = c ? before_strided(c, c->dstMemoryType, p2d_dst(c), FT_STREAM(0, ptsz)) : CUDA_SUCCESS; \
    if (v != CUDA_SUCCESS) return v;                                                    \
    FT_OP_BEGIN();                                                                      \
    CUresult r = ft_real.name(c);                                                       \
    if (r == CUDA_SUCCESS && c)                                                         \
      after_strided(c->dstMemoryType, p2d_dst(c), c->srcMemoryType, p2d_src(c),         \
                    FT_STREAM(0, ptsz));                                                \
    ft_op_end();                                                                        \
    return r;                                                                           \
  }
#define COPY2DA(name, ptsz)                                                             \
  CUresult ft_on_##name(const CUDA_MEMCPY2D *c, CUstream s) {                           \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(c, s));                                \
    CUresult v = c ? before_strided(c, c->dstMemoryType, p2d_dst(c), FT_STREAM(s, ptsz)) : CUDA_SUCCESS; \
    if (v != CUDA_SUCCESS) return v;                                                    \
    FT_OP_BEGIN();                                                                      \
    CUresult r = ft_real.name(c, s);                                                    \
    if (r == CUDA_SUCCESS && c)                                                         \
      after_strided(c->dstMemoryType, p2d_dst(c), c->srcMemoryType, p2d_src(c),         \
                    FT_STREAM(s, ptsz));                                                \
    ft_op_end();                                                                        \
    return r;                                                                           \
  }
COPY2D(cuMemcpy2D_v2, 0)
COPY2D(cuMemcpy2D_v2_ptds, 1)
COPY2D(cuMemcpy2DUnaligned_v2, 0)
COPY2D(cuMemcpy2DUnaligned_v2_ptds, 1)
COPY2DA(cuMemcpy2DAsync_v2, 0)
COPY2DA(cuMemcpy2DAsync_v2_ptsz, 1)

#define P3D_DST(c) ((c)->dstDevice + (c)->dstXInBytes + ((c)->dstY + (c)->dstZ * (c)->dstHeight) * (c)->dstPitch)
#define P3D_SRC(c) ((c)->srcDevice + (c)->srcXInBytes + ((c)->srcY + (c)->srcZ * (c)->srcHeight) * (c)->srcPitch)
#define COPY3D(name, T, ptsz)                                                               \
  CUresult ft_on_##name(const T *c) {                                                       \
    CUresult v = c ? before_strided(c, c->dstMemoryType, P3D_DST(c), FT_STREAM(0, ptsz)) : CUDA_SUCCESS; \
    if (v != CUDA_SUCCESS) return v;                                                        \
    FT_OP_BEGIN();                                                                          \
    CUresult r = ft_real.name(c);                                                           \
    if (r == CUDA_SUCCESS && c)                                                             \
      after_strided(c->dstMemoryType, P3D_DST(c), c->srcMemoryType, P3D_SRC(c),             \
                    FT_STREAM(0, ptsz));                                                    \
    ft_op_end();                                                                            \
    return r;                                                                               \
  }
#define COPY3DA(name, T, ptsz)                                                              \
  CUresult ft_on_##name(const T *c, CUstream s) {                                           \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(c, s));                                    \
    CUresult v = c ? before_strided(c, c->dstMemoryType, P3D_DST(c), FT_STREAM(s, ptsz)) : CUDA_SUCCESS; \
    if (v != CUDA_SUCCESS) return v;                                                        \
    FT_OP_BEGIN();                                                                          \
    CUresult r = ft_real.name(c, s);                                                        \
    if (r == CUDA_SUCCESS && c)                                                             \
      after_strided(c->dstMemoryType, P3D_DST(c), c->srcMemoryType, P3D_SRC(c),             \
                    FT_STREAM(s, ptsz));                                                    \
    ft_op_end();                                                                            \
    return r;                                                                               \
  }
COPY3D(cuMemcpy3D_v2, CUDA_MEMCPY3D, 0)
COPY3D(cuMemcpy3D_v2_ptds, CUDA_MEMCPY3D, 1)
COPY3DA(cuMemcpy3DAsync_v2, CUDA_MEMCPY3D, 0)
COPY3DA(cuMemcpy3DAsync_v2_ptsz, CUDA_MEMCPY3D, 1)
COPY3D(cuMemcpy3DPeer, CUDA_MEMCPY3D_PEER, 0)
COPY3D(cuMemcpy3DPeer_ptds, CUDA_MEMCPY3D_PEER, 1)
COPY3DA(cuMemcpy3DPeerAsync, CUDA_MEMCPY3D_PEER, 0)
COPY3DA(cuMemcpy3DPeerAsync_ptsz, CUDA_MEMCPY3D_PEER, 1)

#define PEER(name, ptsz)                                                                    \
  CUresult ft_on_##name(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n) { \
    FT_OP_BEGIN();                                                                          \
    before_d2d(dst, n, FT_STREAM(0, ptsz));                                                 \
    CUresult r = ft_real.name(dst, dc, src, sc, n);                                         \
    if (r == CUDA_SUCCESS) after_d2d(dst, src, n, FT_STREAM(0, ptsz));                      \
    ft_op_end();                                                                            \
    return r;                                                                               \
  }
#define PEERA(name, ptsz)                                                                   \
  CUresult ft_on_##name(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, \
                        CUstream s) {                                                       \
    FT_CAPTURED(FT_STREAM(s, ptsz), ft_real.name(dst, dc, src, sc, n, s));                  \
    FT_OP_BEGIN();                                                                          \
    before_d2d(dst, n, FT_STREAM(s, ptsz));                                                 \
    CUresult r = ft_real.name(dst, dc, src, sc, n, s);                                      \
    if (r == CUDA_SUCCESS) after_d2d(dst, src, n, FT_STREAM(s, ptsz));                      \
    ft_op_end();                                                                            \
    return r;                                                                               \
  }
PEER(cuMemcpyPeer, 0)
PEER(cuMemcpyPeer_ptds, 1)
PEERA(cuMemcpyPeerAsync, 0)
PEERA(cuMemcpyPeerAsync_ptsz, 1)
