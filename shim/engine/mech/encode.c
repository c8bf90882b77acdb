/* encode.c: gpuft's encodes of device data (no ledger slot: an encode has no result
 * to read): a range re-encoded after a write, never-written groups covered before a
 * copy checks them, an allocation that came to rest brought back under its code. */
#include "mech.h"

void ft_reencode(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream stream) {
  if (g1 <= g0 || !a->code) return;
  if (a->dev) d = a->dev;
  if (ft_obs.written) ft_obs.written(a, g0, g1); /* new content, for the snapshot store */
  if (g0 == 0 && g1 >= ft_groups_of(a->size)) ft_code_fresh(a);
  ftk_span_t sp = {a->base, a->size, a->code, g0, g1, 0, 0, 0};
  int in;
  CUstream on = ft_dev_enter_for(d, stream, &in);
  CUresult r = ftk_launch(&d->mod, &ft_kdrv, FTK_ENCODE, &sp, NULL, on);
  ft_dev_leave_for(stream, on, in);
  if (r != CUDA_SUCCESS) {
    FT_WARN_CAPPED(3, "cannot launch a gpuft kernel (error %d): the allocation stays in flight "
                   "until a later commit encodes it", (int)r);
    if (a->state != FT_ST_UNPROT) {
      ft_set_state(a, FT_ST_INFLIGHT);
      ft_rest_mark_owed();
    }
    return;
  }
  uint64_t bytes = ft_groups_len(a->size, g0, g1);
  ft_st.bytes_encoded_device += bytes;
  ft_st.encodes++;
  ft_coded_mark(a, g0, g1);
}

void ft_coded_cover(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream s) FT_REQUIRES(ft_eng_lock) {
  /* never written: the encode takes in what the memory holds, which nothing reads as
   * data, so that a copy of these groups can be checked and brought back whole */
  for (uint64_t u0 = g0, u1; ft_uncoded_next(a, &u0, &u1, g1); u0 = u1) {
    ft_reencode(d, a, u0, u1, s);
    if (!a->cmap) return;
  }
}

void ft_rest_encode(ft_alloc_t *a, CUstream s) FT_REQUIRES(ft_eng_lock) {
  ft_runs_t runs = a->dirty;
  if (a->state != FT_ST_INFLIGHT || !a->dirty_part) ft_runs_one(&runs, 0, ft_groups_of(a->size));
  ft_set_state(a, FT_ST_CLEAN);
  for (int i = 0; i < runs.n && a->state == FT_ST_CLEAN; i++)
    ft_reencode(a->dev, a, runs.r[i][0], runs.r[i][1], s); /* back to in flight (all of it) if it fails */
  ft_content_changed(a);
}

void ft_reencode_written(ft_alloc_t *a, CUstream s) {
  if (a->state != FT_ST_CLEAN) ft_set_state(a, FT_ST_CLEAN);
  ft_reencode(a->dev, a, 0, ft_groups_of(a->size), s);
  ft_content_changed(a);
}
