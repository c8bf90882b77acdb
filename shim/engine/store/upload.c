/* upload.c: host-to-device copies of protected memory (DESIGN.md 6.1). CPU threads
 * copy the user's bytes into pinned memory and compute the codes in the same pass
 * (ft_copy_encode); the DMA of chunk i runs while chunk i+1 is encoded; codes go
 * up with the data. The pinned memory is the allocation's checkpoint when the
 * budget (GPUFT_CKPT_MAX) allows, else a two-slot staging ring. Blocks at the
 * edges of a copy that is not group-aligned are re-encoded on the device. */
#include <stdlib.h>
#include <string.h>

#include "store.h"

static size_t chunk_bytes(void) {
  size_t c = (size_t)FT_OPT(CHUNK);
  if (c < FT_GROUP_BYTES) c = FT_GROUP_BYTES;
  return ft_group_start(ft_group_of(c));
}

/* Pinned checkpoint (data then code) for a, within the budget; NULL if refused. */
static uint8_t *mirror_for(ft_alloc_t *a) {
  if (a->mirror) return a->mirror;
  uint64_t need = ft_mirror_bytes(a);
  if (ft_st.bytes_checkpoint + need > (uint64_t)FT_OPT(CKPT_MAX)) {
    if (!ft_st.ckpt_refused++)
      FT_WARN("checkpoint budget GPUFT_CKPT_MAX=%s reached: further allocations are protected "
              "without a host checkpoint (detection and single-bit correction still work)",
              FT_OPT_S(CKPT_MAX));
    return NULL;
  }
  void *p = NULL;
  /* mapped: a repair before use copies from it on the device (ftk_verify_fix) */
  if (ft_own_host_alloc(&p, need, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) !=
      CUDA_SUCCESS) {
    FT_WARN_CAPPED(1, "cannot pin %ju bytes for a checkpoint: uploads go through staging",
                   (uintmax_t)need);
    return NULL;
  }
  a->mirror = p;
  if (ft_drv.cuMemHostGetDevicePointer_v2(&a->mirror_dev, p, 0) != CUDA_SUCCESS) a->mirror_dev = 0;
  a->mirror_valid = 0;
  ft_st.bytes_checkpoint += need;
  if (ft_st.bytes_checkpoint > ft_st.bytes_checkpoint_peak)
    ft_st.bytes_checkpoint_peak = ft_st.bytes_checkpoint;
  return a->mirror;
}

/* Staging: each upload beyond the checkpoint budget owns a two-slot ring of chunk
 * data + code while it runs; threads uploading at once never share one (a shared
 * ring let one thread's data and codes overwrite another's before its DMA). A free
 * ring is reused only once its last DMAs have completed (a query, never a wait: the
 * stream of its previous user may be waiting for this thread). */
#define MAX_STAGING 8

static void staging_free(ft_staging_t *st) {
  if (st->mem) ft_own_host_free(st->mem);
  for (int i = 0; i < 2; i++)
    if (st->done[i]) ft_drv.cuEventDestroy_v2(st->done[i]);
  free(st);
}

/* A ring of at least `per` bytes a slot, marked busy; NULL if none can be had (the
 * upload then goes straight from the program's memory). Engine lock held. */
static ft_staging_t *staging_claim(ft_dev_t *d, size_t per) {
  for (ft_staging_t *st = d->staging; st; st = st->next)
    if (!st->busy && st->bytes >= 2 * per && ft_real.cuEventQuery &&
        ft_own_event_query(st->done[0]) == CUDA_SUCCESS &&
        ft_own_event_query(st->done[1]) == CUDA_SUCCESS)
      return st->busy = 1, st;
  if (d->n_staging >= MAX_STAGING) return NULL;
  ft_staging_t *st = calloc(1, sizeof *st);
  if (!st) return NULL;
  void *p = NULL;
  if (ft_own_host_alloc(&p, 2 * per, CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS ||
      ft_drv.cuEventCreate(&st->done[0], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS ||
      ft_drv.cuEventCreate(&st->done[1], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
    st->mem = p;
    staging_free(st);
    return NULL;
  }
  st->mem = p;
  st->bytes = 2 * per;
  st->busy = 1;
  st->next = d->staging;
  d->staging = st;
  d->n_staging++;
  return st;
}

void ft_staging_release_all(ft_dev_t *d) {
  while (d->staging) {
    ft_staging_t *st = d->staging;
    d->staging = st->next;
    staging_free(st);
  }
  d->n_staging = 0;
}

/* Device copies of the codes of groups [g0, g1) from a host code view whose
 * arrays start at block g0*32 / group g0. */
static CUresult upload_codes(ft_alloc_t *a, const ft_code_t *view, uint64_t g0, uint64_t g1,
                             CUstream s) FT_REQUIRES(ft_eng_lock) {
  uint64_t off[6];
  ft_code_group_offsets(a->size, g0, off);
  uint64_t nb_all = ft_blocks_of(a->size);
  uint64_t b0 = g0 * FT_GROUP_BLOCKS, b1 = g1 * FT_GROUP_BLOCKS;
  if (b1 > nb_all) b1 = nb_all;
  const uint32_t *src[6] = {view->v, view->d, view->l2v_v, view->l2v_d, view->l2d_v, view->l2d_d};
  for (int k = 0; k < 6; k++) {
    uint64_t count = k < 2 ? b1 - b0 : g1 - g0;
    CUresult r = ft_real.cuMemcpyHtoDAsync_v2(a->code + off[k], src[k], count * 4, s);
    if (r != CUDA_SUCCESS) return r;
  }
  ft_coded_mark(a, g0, g1);
  return CUDA_SUCCESS;
}

int ft_ckpt_resized(ft_alloc_t *a, uint64_t old_size, uint64_t old_code_bytes) FT_REQUIRES(ft_eng_lock) {
  if (!a->mirror) return 0;
  uint64_t was = ft_blocks_bytes(old_size) + old_code_bytes, need = ft_mirror_bytes(a);
  void *p = NULL;
  int ok = ft_st.bytes_checkpoint - was + need <= (uint64_t)FT_OPT(CKPT_MAX) &&
           ft_own_host_alloc(&p, need, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) ==
               CUDA_SUCCESS && p && ft_ckpt_copy_host(a->mirror, old_size, p, a->size) == 0;
  ft_jobs_fix_drain(a); /* a repair before use may still copy from the old one */
  ft_own_host_free(a->mirror);
  ft_st.bytes_checkpoint -= was;
  a->mirror = NULL;
  a->mirror_dev = 0;
  if (!ok) {
    if (p) ft_own_host_free(p);
    a->mirror_valid = 0;
    return -1;
  }
  /* grown, it no longer equals all of a (a new group's bytes were never written) */
  if (a->size > old_size) a->mirror_valid = 0;
  a->mirror = p;
  if (ft_drv.cuMemHostGetDevicePointer_v2(&a->mirror_dev, p, 0) != CUDA_SUCCESS) a->mirror_dev = 0;
  ft_st.bytes_checkpoint += need;
  if (ft_st.bytes_checkpoint > ft_st.bytes_checkpoint_peak)
    ft_st.bytes_checkpoint_peak = ft_st.bytes_checkpoint;
  return 0;
}

/* A code view for data starting at group g0 of a, inside its mirror's code. */
static void mirror_view(const ft_alloc_t *a, uint64_t g0, ft_code_t *v) {
  ft_code_bind_at(v, a->mirror + ft_mirror_code_off(a), a->size, g0);
}

/* Deferred copy+encode for an asynchronous copy from pinned memory: runs on the
 * stream, in order, so it reads the source when the stream reaches the copy. */
typedef struct {
  uint8_t *dst;
  const uint8_t *src;
  size_t n;
  ft_code_t view;
  int encode;
} deferred_t;

static void CUDA_CB deferred_run(void *p) {
  deferred_t *t = p;
  if (t->encode) {
    ft_code_t v = t->view;
    v.len = t->n;
    v.nblocks = ft_blocks_of(t->n);
    v.ngroups = ft_groups_of(t->n);
    ft_copy_encode(t->dst, t->src, t->n, &v);
  } else {
    memcpy(t->dst, t->src, t->n);
  }
  free(t);
}

/* Copy (and encode) one piece [o, o+len) of the upload into host memory hdst,
 * now or, when deferred, on the stream. */
static CUresult stage_piece(uint8_t *hdst, const uint8_t *src, size_t len, const ft_code_t *view,
                            int encode, int deferred, CUstream s) {
  if (!deferred) {
    if (encode) {
      ft_code_t v = *view;
      v.len = len;
      v.nblocks = ft_blocks_of(len);
      v.ngroups = ft_groups_of(len);
      ft_copy_encode(hdst, src, len, &v);
    } else {
      memcpy(hdst, src, len);
    }
    return CUDA_SUCCESS;
  }
  deferred_t *t = malloc(sizeof *t);
  if (!t) return CUDA_ERROR_OUT_OF_MEMORY;
  t->dst = hdst;
  t->src = src;
  t->n = len;
  if (view) t->view = *view;
  t->encode = encode;
  CUresult r = ft_drv.cuLaunchHostFunc(s, deferred_run, t);
  if (r != CUDA_SUCCESS) free(t);
  return r;
}

static int is_pinned(const void *p) {
  unsigned type = 0;
  return ft_drv.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_HOST;
}

/* The lock let go for a wait and taken back: the record is found again by address
 * and id. Another thread may have freed the allocation meanwhile (the program's own
 * race: a free while a copy into it runs); then the upload stops with the error the
 * driver gives a copy into freed memory. */
#define RELOCK(call)                                                   \
  do {                                                                 \
    CUdeviceptr base_ = a->base;                                       \
    uint64_t id_ = a->id;                                              \
    ft_unlock();                                                       \
    call;                                                              \
    ft_lock();                                                         \
    a = *ap = ft_reg_find_base(base_);                                 \
    if (!a || a->id != id_) {                                          \
      *ap = NULL;                                                      \
      if (st) st->busy = 0;                                            \
      return CUDA_ERROR_INVALID_VALUE;                                 \
    }                                                                  \
  } while (0)

CUresult ft_upload_relocking(ft_dev_t *d, ft_alloc_t **ap, size_t off, const void *src_, size_t n,
                             CUstream s, int sync) {
  ft_alloc_t *a = *ap;
  ft_staging_t *st = NULL;
  const uint8_t *src = src_;
  size_t end = off + n;
  FT_ASSERT(end <= a->size && n > 0);
  a->content_gen++; /* what reach.c found in its content is stale */
  int deferred = !sync && is_pinned(src);
  if (!deferred) {
    /* As the driver does for pageable memory: the copy starts after the work
     * already in the stream (which may still be writing the source). */
    CUresult r;
    RELOCK(r = ft_own_stream_sync(s));
    if (r != CUDA_SUCCESS) return r;
  }
  /* a repair before use may still copy from the checkpoint this upload rewrites */
  for (CUevent ev; a->mirror && (ev = ft_jobs_fix_copying(a));) {
    CUresult r;
    RELOCK(r = ft_own_event_sync(ev));
    (void)r; /* (an error there is the program's, seen by its next call) */
  }
  double t0 = ft_cpu_now(), wall0 = ft_now();
  int whole = off == 0 && end == a->size;
  if (ft_obs.before_upload) ft_obs.before_upload(a); /* the checkpoint is about to change */
  if (ft_obs.before_write) ft_obs.before_write(a, s, ft_group_of(off), ft_groups_of(end));
  /* part of a never-written allocation (a tensor in a pool): only it is encoded */
  if (!whole) ft_coded_begin(a);
  /* Host-encodable range: whole groups, or up to the allocation's end. */
  size_t hs = ft_group_start(ft_groups_of(off));
  size_t he = end == a->size ? end : ft_group_start(ft_group_of(end));
  int host_enc = a->state != FT_ST_UNPROT && a->code && (a->state == FT_ST_CLEAN || whole) && hs < he;
  uint8_t *mir = a->state != FT_ST_UNPROT ? mirror_for(a) : NULL;
  size_t cb = chunk_bytes(), per = cb + ft_code_bytes(cb);
  st = mir ? NULL : staging_claim(d, per);
  if (!mir && !st) {
    CUresult r;
    RELOCK(r = ft_real.cuMemcpyHtoDAsync_v2(a->base + off, src, n, s));
    if (r == CUDA_SUCCESS && a->code) ft_reencode(d, a, 0, ft_groups_of(a->size), s);
    return r;
  }
  CUresult r = CUDA_SUCCESS;
  int slot = 0;
  /* pieces: [off, hs) plain, [hs, he) encoded in chunks, [he, end) plain */
  size_t cuts[3][2] = {{off, host_enc ? hs : end}, {host_enc ? hs : end, host_enc ? he : end},
                       {host_enc ? he : end, end}};
  for (int piece = 0; piece < 3 && r == CUDA_SUCCESS; piece++) {
    size_t p0 = cuts[piece][0], p1 = cuts[piece][1];
    int encode = piece == 1;
    for (size_t c0 = p0; c0 < p1 && r == CUDA_SUCCESS;) {
      size_t c1 = encode ? (c0 + cb < p1 ? c0 + cb : p1) : p1;
      if (!mir && c1 - c0 > cb) c1 = c0 + cb;
      uint8_t *host;
      ft_code_t view;
      if (mir) {
        host = mir + c0;
        mirror_view(a, ft_group_of(c0), &view);
      } else {
        uint8_t *base = st->mem + slot * per;
        /* the slot's previous DMA (this upload's) must be finished before it is
         * overwritten; the ring is this thread's alone */
        RELOCK(r = ft_own_event_sync(st->done[slot]));
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_HANDLE) break;
        r = CUDA_SUCCESS;
        host = base;
        ft_code_bind(&view, base + cb, c1 - c0);
      }
      r = stage_piece(host, src + (c0 - off), c1 - c0, encode ? &view : NULL, encode, deferred, s);
      if (r != CUDA_SUCCESS) break;
      r = ft_real.cuMemcpyHtoDAsync_v2(a->base + c0, host, c1 - c0, s);
      if (r != CUDA_SUCCESS) break;
      if (encode) {
        r = upload_codes(a, &view, ft_group_of(c0), ft_groups_of(c1), s);
        ft_st.bytes_encoded_host += c1 - c0;
      }
      if (!mir) {
        ft_drv.cuEventRecord(st->done[slot], s);
        slot ^= 1;
      }
      c0 = c1;
    }
  }
  if (st) st->busy = 0;
  if (r != CUDA_SUCCESS) {
    /* Part of the data may be on the device without its code. */
    if (a->state == FT_ST_CLEAN) ft_set_state(a, FT_ST_UNINIT);
    ft_content_changed(a);
    return r;
  }
  if (ft_protected(a)) {
    if (host_enc) {
      if (off < hs) ft_reencode(d, a, ft_group_of(off), ft_group_of(hs), s);
      if (he < end) ft_reencode(d, a, ft_group_of(he), ft_groups_of(end), s);
    } else {
      /* nothing encoded on the host: encode the affected groups (or all of a
       * never fully written allocation) on the device */
      uint64_t g0 = a->state == FT_ST_CLEAN ? ft_group_of(off) : 0;
      uint64_t g1 = a->state == FT_ST_CLEAN ? ft_groups_of(end) : ft_groups_of(a->size);
      ft_reencode(d, a, g0, g1, s);
    }
    if (a->state != FT_ST_CLEAN) ft_set_state(a, FT_ST_CLEAN);
  }
  if (mir) a->mirror_valid = whole ? 1 : a->mirror_valid;
  if (whole && ft_protected(a)) ft_code_fresh(a);
  a->content_gen++; /* a scan made while it was being written is stale too */
  /* a device re-encode changed code words the mirror does not have */
  if (mir && (off < hs || he < end || !host_enc)) a->mirror_valid = a->mirror_valid && !a->code;
  ft_st.cpu_seconds += ft_cpu_now() - t0;
  FT_DEBUG("upload of %zu bytes to allocation #%ju + %zu (%s%s): staging %.3f ms", n, (uintmax_t)a->id, off,
           mir ? "checkpoint" : "staging", deferred ? ", on the stream" : "", (ft_now() - wall0) * 1e3);
  return r;
}

/* Replay of an upload: the data from the checkpoint, the codes of its whole groups
 * as computed on the host when it was first uploaded (a device re-encode would
 * take in whatever the device holds, a stuck bit included), edge groups
 * re-encoded on the device as the first time. */
CUresult ft_upload_replay(ft_dev_t *d, ft_alloc_t *a, size_t off, size_t n, CUstream s) FT_REQUIRES(ft_eng_lock) {
  CUresult r = ft_real.cuMemcpyHtoDAsync_v2(a->base + off, a->mirror + off, n, s);
  if (r != CUDA_SUCCESS) return r;
  /* encoded on the device: the checkpoint holds codes only for the groups an upload
   * encoded on the host (not one into a never-written allocation, encoded on the
   * device): codes from it could be stale, and a "correction" by them would damage
   * what the replay restored */
  ft_reencode(d, a, ft_group_of(off), ft_groups_of(off + n), s);
  return CUDA_SUCCESS;
}
