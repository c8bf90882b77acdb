/* copies.c: the protocols of copies and memsets into and out of protected memory
 * (DESIGN.md 6.2): uploads through the upload pipeline, read-backs verified behind
 * their DMA, device-to-device copies carrying the codes over when aligned, memsets
 * with a closed-form code, strided and unmodelled writes re-encoded. The hooks
 * (ops_copy.c, ops_mem.c, ops_sync.c) make the driver's calls. */
#include "policy.h"

ft_alloc_t *ft_range_protected(CUdeviceptr p, size_t n) {
  ft_alloc_t *a = ft_reg_find(p);
  if (!ft_protected(a)) return NULL;
  if (n > a->size - (size_t)(p - a->base)) return NULL; /* the driver will refuse */
  return a;
}

uint64_t ft_alloc_id_at(CUdeviceptr p) {
  ft_alloc_t *a = ft_reg_find(p);
  return a ? a->id : 0;
}

/* ---- host to device ---- */

int ft_upload_again(CUdeviceptr dst, size_t n) {
  ft_alloc_t *a = ft_range_protected(dst, n);
  return a && a->h2d_epoch == ft_epoch && !ft_log_h2d_supersede(a, dst - a->base, n);
}

CUresult ft_copy_upload_relocking(CUdeviceptr dst, const void *src, size_t n, CUstream s, int sync,
                                  int *handled) {
  ft_alloc_t *a = ft_range_protected(dst, n);
  *handled = a != NULL;
  if (!a) return CUDA_SUCCESS;
  size_t off = (size_t)(dst - a->base);
  /* (not at rest until the operation ends: the upload lets go of the lock
   * between chunks) */
  ft_rest_write_begin(a, s, off == 0 && n == a->size, off, n);
  CUresult r = ft_upload_relocking(a->dev, &a, off, src, n, s, sync);
  if (a && r == CUDA_SUCCESS) ft_log_h2d(a, off, n);
  if (a) ft_rest_write_end(a, s);
  return r;
}

/* ---- device to host ---- */

ft_alloc_t *ft_copy_read(CUdeviceptr src, size_t n, CUstream s, int why) {
  ft_alloc_t *a = n ? ft_range_protected(src, n) : NULL;
  if (!a) return NULL;
  a->read_since_upload = 1;
  if (ft_rest_read(a, s)) {
    uint64_t off = src - a->base;
    if (ft_job_issue(a->dev, why, a, ft_group_of(off), ft_groups_of(off + n), s, NULL, -1) == 0)
      return a;
    ft_rest_verify_owed(a); /* not issued: verified when it comes to rest */
    return NULL;
  }
  /* what kernels read of it is owed a check (GPUFT_CHECK=epoch): a synchronous
   * read-back settles it first, and is copied again if a replay rewrote it */
  return a->read_owed ? a : NULL;
}

uint64_t ft_copy_read_unsettled(CUdeviceptr src) {
  ft_alloc_t *a = ft_reg_find(src);
  ft_st.detected++; /* found again after its last repair: an error event of its own */
  ft_st.uncorrectable++;
  if (!a) return 0; /* (freed meanwhile: the program's own race) */
  ft_event(a, src - a->base, -1, "damaged again at every copy of a read-back", FT_OUT_UNCORRECTABLE,
           "device-to-host copy");
  return a->id;
}

/* ---- device to device ---- */

void ft_copy_d2d_begin(CUdeviceptr dst, size_t n, CUstream s) {
  ft_alloc_t *da = n ? ft_range_protected(dst, n) : NULL;
  if (da) ft_rest_write_begin(da, s, dst == da->base && n == da->size, dst - da->base, n);
}

/* The destination of a device-to-device copy: the codes copied over when the
 * layouts match, else re-encoded. */
static void d2d_dst(ft_alloc_t *da, CUdeviceptr dst, ft_alloc_t *sa, CUdeviceptr src, size_t n, CUstream s,
                    int src_clean) FT_REQUIRES(ft_eng_lock) {
  uint64_t doff = dst - da->base, soff = sa ? src - sa->base : 1;
  int whole = doff == 0 && n == da->size;
  int aligned = src_clean && doff % FT_GROUP_BYTES == 0 && soff % FT_GROUP_BYTES == 0 &&
                (n % FT_GROUP_BYTES == 0 || (doff + n == da->size && soff + n == sa->size)) &&
                ft_coded_all_in(sa, ft_group_of(soff), ft_groups_of(soff + n));
  if (!whole) ft_coded_begin(da); /* never written: only the range */
  /* same block and group structure: the codes travel with the data, so an error in
   * the source stays detectable in the copy */
  if (aligned && (da->state == FT_ST_CLEAN || whole) &&
      ft_code_copy(NULL, sa->code, sa->size, ft_group_of(soff), ft_groups_of(soff + n), da->code, da->size,
                   ft_group_of(doff), s) == 0) {
    ft_coded_mark(da, ft_group_of(doff), ft_groups_of(doff + n));
  } else if (da->state == FT_ST_CLEAN || whole) {
    ft_reencode(da->dev, da, ft_group_of(doff), ft_groups_of(doff + n), s);
  } else {
    ft_reencode(da->dev, da, 0, ft_groups_of(da->size), s);
  }
  if (da->state != FT_ST_CLEAN) ft_set_state(da, FT_ST_CLEAN);
  ft_content_changed(da);
  ft_rest_write_end(da, s);
}

void ft_copy_d2d_end(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  if (!n) return;
  ft_log_d2d(dst, src, n);
  ft_alloc_t *da = ft_range_protected(dst, n), *sa = ft_range_protected(src, n);
  if (sa) sa->read_since_upload = 1;
  int src_clean = sa && ft_rest_read(sa, s);
  if (da) d2d_dst(da, dst, sa, src, n, s, src_clean);
  /* The source's check comes last on s, behind everything that reads the source
   * (the codes copied over): a commit repairs what it finds on gpuft's stream once
   * it sees the check done, and would otherwise write what a copy still reads */
  if (src_clean) {
    uint64_t off = src - sa->base;
    if (ft_job_issue(sa->dev, FT_WHY_COPY_SRC, sa, ft_group_of(off), ft_groups_of(off + n), s, NULL, -1))
      ft_rest_verify_owed(sa);
  }
}

/* ---- strided and unmodelled writes: re-encoded whole ---- */

void ft_copy_strided_end(CUdeviceptr dptr, CUdeviceptr sptr, CUstream s) {
  ft_epoch_unreplayable("a 2-D, 3-D or peer copy");
  ft_alloc_t *da = dptr ? ft_reg_find(dptr) : NULL, *sa = sptr ? ft_reg_find(sptr) : NULL;
  if (sa && sa->dev && sa->code && sa->state == FT_ST_CLEAN &&
      ft_job_issue(sa->dev, FT_WHY_COPY_SRC, sa, 0, ft_groups_of(sa->size), s, NULL, -1))
    ft_rest_verify_owed(sa);
  if (ft_protected(da)) ft_reencode_written(da, s);
}

void ft_write_unmodelled_begin(CUdeviceptr p, CUstream s) {
  ft_alloc_t *a = ft_reg_find(p);
  if (ft_protected(a)) ft_rest_write_begin(a, s, 0, 0, a->size);
}

void ft_write_unmodelled_end(CUdeviceptr p, CUstream s) {
  ft_epoch_unreplayable("an unmodelled write (stream memory operation, batch copy)");
  ft_alloc_t *a = ft_reg_find(p);
  if (ft_protected(a)) ft_reencode_written(a, s);
}

/* ---- memsets ----
 * A constant fill has a closed-form code: every full block of the fill has the
 * same V and D, every full group the same level-2 words, so the code arrays are
 * themselves filled (no device pass over the data). Groups at the edges of the
 * range are re-encoded on the device. */

static void fill_code(ft_dev_t *d, ft_alloc_t *a, size_t off, size_t end, uint32_t pattern,
                      CUstream s) FT_REQUIRES(ft_eng_lock) {
  /* groups touched: [gfirst, glast); groups wholly inside (all 4 KiB): [gi0, gi1) */
  uint64_t gfirst = ft_group_of(off), glast = ft_groups_of(end);
  uint64_t gi0 = ft_groups_of(off), gi1 = ft_group_of(end);
  if (gi1 <= gi0) {
    ft_reencode(d, a, gfirst, glast, s);
    return;
  }
  uint32_t w[FT_BLOCK_WORDS], vw[FT_GROUP_BLOCKS], dw[FT_GROUP_BLOCKS];
  for (unsigned i = 0; i < FT_BLOCK_WORDS; i++) w[i] = pattern;
  ft_pair_t blk = ft_encode_words(w, FT_BLOCK_WORDS);
  for (unsigned i = 0; i < FT_GROUP_BLOCKS; i++) vw[i] = blk.v, dw[i] = blk.d;
  ft_pair_t lv = ft_encode_words(vw, FT_GROUP_BLOCKS), ld = ft_encode_words(dw, FT_GROUP_BLOCKS);
  uint64_t lo[6];
  ft_code_group_offsets(a->size, gi0, lo);
  uint64_t nblk = (gi1 - gi0) * FT_GROUP_BLOCKS, ngrp = gi1 - gi0;
  const uint32_t val[6] = {blk.v, blk.d, lv.v, lv.d, ld.v, ld.d};
  for (int k = 0; k < 6; k++) {
    uint64_t count = k < 2 ? nblk : ngrp;
    ft_real.cuMemsetD32Async(a->code + lo[k], val[k], count, s);
  }
  ft_coded_mark(a, gi0, gi1);
  if (gfirst < gi0) ft_reencode(d, a, gfirst, gi0, s);
  if (gi1 < glast) ft_reencode(d, a, gi1, glast, s);
}

void ft_memset_begin(CUdeviceptr p, size_t bytes, CUstream s, int dense) {
  ft_alloc_t *a = ft_reg_find(p);
  if (bytes && ft_protected(a) && bytes <= a->size - (p - a->base))
    ft_rest_write_begin(a, s, dense && p == a->base && bytes == a->size, p - a->base, bytes);
}

void ft_memset_end(CUdeviceptr p, size_t bytes, uint32_t pattern, int pattern_ok, CUstream s) {
  if (!bytes) return;
  ft_alloc_t *a = ft_reg_find(p);
  ft_dev_t *d = a ? a->dev : NULL;
  if (!pattern_ok) ft_epoch_unreplayable("a 2-D memset");
  if (!d || !ft_protected(a)) return;
  size_t off = (size_t)(p - a->base), end = off + bytes;
  if (end > a->size) end = a->size;
  if (!(off == 0 && end == a->size)) ft_coded_begin(a); /* never written: only the range */
  if (a->state != FT_ST_CLEAN && !(off == 0 && end == a->size))
    ft_reencode(d, a, 0, ft_groups_of(a->size), s);
  else if (pattern_ok && off % 4 == 0)
    fill_code(d, a, off, end, pattern, s);
  else
    ft_reencode(d, a, ft_group_of(off), ft_groups_of(end), s);
  if (a->state != FT_ST_CLEAN) ft_set_state(a, FT_ST_CLEAN);
  ft_content_changed(a); /* the checkpoint no longer equals the content */
  ft_rest_write_end(a, s);
}
