/* unseen.c: writes gpuft cannot see into (graph launches, kernels with unreadable
 * arguments, 2-D/3-D copies and memsets): what they may write is verified and taken
 * in first (a commit), then re-encoded after them. */
#include "policy.h"

/* An operation that may write any protected memory, unseen: results pending are
 * taken first, every protected allocation of the context is re-encoded after. What
 * it leaves unwritten is verified (and repaired) first: the re-encode would take
 * an error there in as data. Only allocations the host has seen at rest: others
 * may be written by work still running. */
CUresult ft_unknown_writer_before(CUstream s, int known) { return ft_rewrite_before(0, s, known); }

/* The write about to be issued on s (known 0: on streams gpuft cannot order): what
 * it may touch is not at rest (no snapshot copies it, nothing is encoded under it)
 * until the operation has issued it and the host has seen it done. A snapshot
 * taken before may still be copying: its copies land first (gpuft's own copies: no
 * lock held, no program stream made to wait). */
static void unseen_write_issued(CUdeviceptr only, CUstream s, int known) {
  ft_lock();
  ft_alloc_t *one = only ? ft_reg_find(only) : NULL;
  if (!only) ft_rest_issuing_all(s, known);
  else if (one) ft_rest_issuing(one, s);
  ft_unlock();
  ft_snap_drain();
}

int ft_verify_at_rest(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  if (!ft_protected(a) || a->state != FT_ST_CLEAN || !ft_rest_done(a)) return 0;
  if (ft_job_issue(a->dev, FT_WHY_AT_REST, a, 0, ft_groups_of(a->size), a->dev->stream, NULL, -1) == 0)
    return 1;
  /* (counted in verifications_refused) */
  FT_WARN_CAPPED(1, "a verification of allocation #%ju at rest could not be issued: it is checked "
                    "after it is used instead", (uintmax_t)a->id);
  return 0;
}

CUresult ft_rewrite_before(CUdeviceptr only, CUstream s, int known) {
  if (only) {
    ft_lock();
    ft_alloc_t *a = ft_reg_find(only);
    int prot = a && a->code && a->state == FT_ST_CLEAN;
    ft_unlock();
    if (!prot) {
      unseen_write_issued(only, s, known);
      return CUDA_SUCCESS; /* nothing under a code to lose: no commit */
    }
  }
  /* everything at rest, the program's own work seen done (an upload the host has
   * not seen finish is not at rest, so it would not be verified, and the re-encode
   * after would take an error in it in as data) */
  CUresult v = ft_commit_settled();
  int issued = 0;
  ft_lock();
  ft_dev_t *d = ft_dev_current();
  ft_alloc_t *one = only ? ft_reg_find(only) : NULL;
  if (only && !one) d = NULL; /* not protected memory: nothing to verify */
  for (size_t i = 0; d && i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if ((one && a != one) || a->dev != d) continue;
    issued |= ft_verify_at_rest(a);
  }
  ft_unlock();
  CUresult w = issued ? ft_commit_all() : CUDA_SUCCESS;
  /* (after the commits: a use recorded earlier would have kept them from verifying) */
  unseen_write_issued(only, s, known);
  CUresult e = v != CUDA_SUCCESS ? v : w;
  if (only && e != CUDA_SUCCESS) ft_rest_issued(); /* the caller returns without writing */
  return e;
}

void ft_unknown_writer_after(CUstream s) {
  ft_lock();
  ft_epoch_unreplayable("an operation gpuft cannot see into (graph, unreadable kernel arguments)");
  ft_dev_t *d = ft_dev_current();
  for (size_t i = 0; d && i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (a->dev != d || !ft_protected(a)) continue;
    ft_reencode_written(a, s);
  }
  ft_unlock();
}
