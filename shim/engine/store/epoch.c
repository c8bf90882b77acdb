/* epoch.c: rollback and replay (DESIGN.md 6.3). The operations gpuft passes to
 * the driver between two commits are logged with what it takes to re-issue them
 * (oplog.c); before the first write to an allocation in the epoch a restore point is taken
 * (its checkpoint if that still equals the content, else a shadow copy made by
 * the fused verify+copy kernel). When a commit finds that data read during the
 * epoch was damaged, everything the epoch wrote is restored and the log is
 * re-issued in order on gpuft's stream. Engine lock held throughout. */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "access.h"
#include "oplog.h"

typedef ft_op_t op_t;

static uint64_t g_shadow_bytes;

/* ---- restore points ---- */

static size_t shadow_bytes(const ft_alloc_t *a) { return ft_mirror_bytes(a); }

static int shadow_for(ft_alloc_t *a) {
  if (a->shadow) return 0;
  uint64_t need = shadow_bytes(a);
  if (g_shadow_bytes + need > (uint64_t)FT_OPT(SHADOW_MAX)) {
    FT_WARN_CAPPED(1, "shadow budget GPUFT_SHADOW_MAX=%s reached: some written buffers have no "
                   "restore point (their errors are detected and corrected, not replayed)",
                   FT_OPT_S(SHADOW_MAX));
    return -1;
  }
  /* in the allocation's context (its device): gpuft's copy kernel runs there */
  int in = a->dev ? ft_dev_enter(a->dev) : 0;
  CUresult r = ft_own_alloc(&a->shadow, need);
  ft_dev_leave(in);
  if (r != CUDA_SUCCESS) {
    a->shadow = 0;
    FT_WARN_CAPPED(1, "no device memory for a shadow copy: some written buffers have no "
                   "restore point");
    return -1;
  }
  g_shadow_bytes += need;
  ft_st.bytes_shadow = g_shadow_bytes > ft_st.bytes_shadow ? g_shadow_bytes : ft_st.bytes_shadow;
  return 0;
}

void ft_shadow_release(ft_alloc_t *a) {
  if (!a->shadow) return;
  ft_own_free(a->shadow);
  g_shadow_bytes -= shadow_bytes(a);
  a->shadow = 0;
}

/* Verify `a` on s before a write: what the write leaves must not be taken in as
 * data by the encode after it. A refused verification (counted in
 * verifications_refused) cannot be owed: the write comes first. */
static void verify_before_write(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream s,
                                ft_func_t *fn, int slot) FT_REQUIRES(ft_eng_lock) {
  /* what the write reads or leaves is repaired right away on the device, from a valid
   * checkpoint or by the code (verify before use: the kernel may follow an index it
   * holds) */
  int fix = ft_repairs_before_use();
  if (g0 < g1 && (fix ? ft_job_issue_fix(d, FT_WHY_BEFORE_WRITE, a, g0, g1, s, fn, slot)
                      : ft_job_issue(d, FT_WHY_BEFORE_WRITE, a, g0, g1, s, fn, slot)))
    FT_WARN_CAPPED(1,
                   "a verification before a write could not be issued: what the write leaves "
                   "of allocation #%ju is encoded unchecked",
                   (uintmax_t)a->id);
}

/* Copy the code words of groups [g0, g1) of `a` from code buffer src to dst (the
 * same layout), on s. */
static CUresult copy_group_codes(const ft_alloc_t *a, CUdeviceptr dst, CUdeviceptr src, uint64_t g0,
                                 uint64_t g1, CUstream s) {
  uint64_t off[6], bytes[6];
  ft_code_groups_span(a->size, g0, g1, off, bytes);
  CUresult r = CUDA_SUCCESS;
  for (int k = 0; k < 6 && r == CUDA_SUCCESS; k++)
    r = ft_real.cuMemcpyDtoDAsync_v2(dst + off[k], src + off[k], bytes[k], s);
  return r;
}

/* Copy into the shadow, on s, the codes of groups [g0, g1) and (verifying them on the
 * way) their data: 0, or -1 when it could not be issued. */
static int shadow_take(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream s, ft_func_t *fn,
                       int slot) FT_REQUIRES(ft_eng_lock) {
  if (g0 >= g1) return 0;
  /* (groups never written are not copied: the verification is issued per coded run.
   * A replay restores them as whatever the shadow holds, and re-encodes what it
   * rewrites: their content was undefined before the epoch too) */
  CUdeviceptr code = a->shadow + ft_mirror_code_off(a);
  if (copy_group_codes(a, code, a->code, g0, g1, s) != CUDA_SUCCESS) return -1;
  /* (verify before use: what the decoder can repair is repaired before the write) */
  return ft_job_issue_copy(d, FT_WHY_BEFORE_WRITE, a, g0, g1, a->shadow, s, fn, slot,
                           ft_repairs_before_use());
}

/* Whether groups [g0, g1) of `a` are under a valid code now: it is clean, or they
 * lie outside what launches left in flight. */
static int coded(const ft_alloc_t *a, uint64_t g0, uint64_t g1) {
  if (a->state == FT_ST_CLEAN) return 1;
  return a->state == FT_ST_INFLIGHT && a->dirty_part && !ft_runs_meets(&a->dirty, g0, g1);
}

/* A write of groups [g0, g1) in an epoch whose restore point is a shadow: what the
 * shadow lacks of them is copied while it still holds what the epoch began with
 * (every write of the epoch passes here first) and is under a valid code (with more
 * runs than fit, the groups between the two closest too). Else the checkpoint, or
 * no restore point. */
static void shadow_extend(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream s, ft_func_t *fn,
                          int slot) FT_REQUIRES(ft_eng_lock) {
  uint64_t miss[FT_RUNS + 2][2], m0, m1;
  int nm = ft_runs_missing(&a->rp_runs, g0, g1, miss), ok = 1;
  if (nm) {
    ft_runs_add(&a->rp_runs, g0, g1, &m0, &m1);
    miss[nm][0] = m0;
    miss[nm++][1] = m1;
  }
  for (int i = 0; i < nm && ok; i++)
    ok = miss[i][0] >= miss[i][1] ||
         (coded(a, miss[i][0], miss[i][1]) && shadow_take(d, a, miss[i][0], miss[i][1], s, fn, slot) == 0);
  if (!ok) a->rp = a->mirror && a->mirror_valid ? FT_RP_MIRROR : FT_RP_LOST;
}

void ft_restore_point(ft_dev_t *d, ft_alloc_t *a, CUstream s, int whole, ft_func_t *fn, int slot,
                      uint64_t g0, uint64_t g1) FT_REQUIRES(ft_eng_lock) {
  if (a->rp_epoch == ft_epoch && a->rp != FT_RP_NONE) {
    /* restore point already taken: a shadow grows to what this write may change;
     * still check what is about to be overwritten */
    if (a->rp == FT_RP_SHADOW && g0 < g1) shadow_extend(d, a, g0, g1, s, fn, slot);
    if (a->state == FT_ST_CLEAN && !whole) verify_before_write(d, a, g0, g1, s, fn, slot);
    return;
  }
  a->rp_epoch = ft_epoch;
  if (a->state == FT_ST_UNINIT || whole) {
    /* nothing valid to come back to, or nothing of it survives the write */
    a->rp = FT_RP_NOT_NEEDED;
    return;
  }
  if (a->state == FT_ST_INFLIGHT) {
    /* content without a code: a copy of it could not be trusted */
    a->rp = a->mirror && a->mirror_valid ? FT_RP_MIRROR : FT_RP_LOST;
    return;
  }
  if (a->mirror && a->mirror_valid) {
    a->rp = FT_RP_MIRROR;
    verify_before_write(d, a, g0, g1, s, fn, slot);
    return;
  }
  /* a shadow of the groups the write may read or change (verified while copied),
   * grown by later writes of the epoch */
  if (FT_OPT(MODE) == FT_MODE_RECOVER && shadow_for(a) == 0 && shadow_take(d, a, g0, g1, s, fn, slot) == 0) {
    a->rp = FT_RP_SHADOW;
    ft_runs_one(&a->rp_runs, g0, g1);
    return;
  }
  a->rp = FT_RP_LOST;
  verify_before_write(d, a, g0, g1, s, fn, slot);
}

void ft_restore_point_unread(ft_alloc_t *a) {
  if (a->rp_epoch == ft_epoch && a->rp == FT_RP_SHADOW &&
      !ft_runs_all(&a->rp_runs, ft_groups_of(a->size))) {
    /* a shadow of part of it, and a write of unknown extent that cannot read it now */
    a->rp = a->mirror && a->mirror_valid ? FT_RP_MIRROR : FT_RP_LOST;
    return;
  }
  if (a->rp_epoch == ft_epoch && a->rp != FT_RP_NONE) return;
  a->rp_epoch = ft_epoch;
  a->rp = a->state == FT_ST_UNINIT ? FT_RP_NOT_NEEDED
          : a->mirror && a->mirror_valid ? FT_RP_MIRROR : FT_RP_LOST;
}

int ft_restore_point_covers(const ft_alloc_t *a, uint64_t g) {
  if (a->rp_epoch != ft_epoch) return 0;
  return a->rp == FT_RP_NOT_NEEDED || a->rp == FT_RP_MIRROR ||
         (a->rp == FT_RP_SHADOW && ft_runs_meets(&a->rp_runs, g, g + 1));
}

/* ---- replay ---- */

static CUresult restore(ft_dev_t *d, ft_alloc_t *a) {
  CUstream s = d->stream;
  switch (a->rp) {
    case FT_RP_MIRROR: {
      CUresult r = ft_real.cuMemcpyHtoDAsync_v2(a->base, a->mirror, a->size, s);
      if (r == CUDA_SUCCESS)
        r = ft_real.cuMemcpyHtoDAsync_v2(a->code, a->mirror + ft_mirror_code_off(a),
                                         a->code_bytes, s);
      return r;
    }
    case FT_RP_SHADOW: { /* the groups it holds: the epoch wrote no others */
      CUresult r = CUDA_SUCCESS;
      for (int i = 0; i < a->rp_runs.n && r == CUDA_SUCCESS; i++) {
        uint64_t g0 = a->rp_runs.r[i][0], g1 = a->rp_runs.r[i][1], b0 = ft_group_start(g0);
        r = ft_real.cuMemcpyDtoDAsync_v2(a->base + b0, a->shadow + b0, ft_groups_len(a->size, g0, g1), s);
        if (r == CUDA_SUCCESS) r = copy_group_codes(a, a->code, a->shadow + ft_mirror_code_off(a), g0, g1, s);
      }
      return r;
    }
    case FT_RP_LOST:
      return CUDA_ERROR_ECC_UNCORRECTABLE;
    default:
      return CUDA_SUCCESS;
  }
}

void ft_epoch_close(void) FT_REQUIRES(ft_eng_lock) {
  FT_DEBUG("epoch %ju closed (%zu operations)", (uintmax_t)ft_epoch, ft_epoch_ops());
  const char *why = NULL;
  size_t n = 0;
  ft_op_t *ops = ft_oplog_take(ft_snap_keeps_log(), &n, &why);
  if (ops) ft_snap_log_epoch(ops, n, NULL);
  /* (an allocation it used may be gone: the log since the snapshot breaks) */
  else if (why) ft_snap_log_epoch(NULL, 0, why);
  ft_oplog_reset();
  ft_snap_epoch_closed();
  ft_epoch++;
}

void ft_log_d2h_recopied(void *host, size_t n) {
  if (!ft_oplog_d2h_recopied(host, n)) ft_snap_d2h_recopied(host, n);
}

/* ---- replay ---- */

int ft_epoch_replay(ft_dev_t *d) FT_REQUIRES(ft_eng_lock) {
  if (!ft_epoch_replayable()) {
    FT_WARN_CAPPED(8, "cannot replay the operations since the last synchronisation: %s", ft_epoch_why());
    return -1;
  }
  ft_oplog_settle_seen();
  /* everything the epoch wrote goes back to its state at the start of the epoch, on
   * its own context's stream (an epoch may span two devices) */
  ft_dev_t *used[8];
  int nused = 0;
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (!a->dev || a->rp_epoch != ft_epoch) continue;
    int in = ft_dev_enter(a->dev);
    CUresult r = restore(a->dev, a);
    ft_dev_leave(in);
    if (r != CUDA_SUCCESS) {
      FT_WARN_CAPPED(8, "allocation #%ju was written with no restore point: cannot replay",
                     (uintmax_t)a->id);
      return -1;
    }
    int k = 0;
    while (k < nused && used[k] != a->dev) k++;
    if (k == nused && nused < 8) used[nused++] = a->dev;
    else if (k == nused) ft_own_stream_sync(a->dev->stream);
    /* data and code as they were at the start of the epoch, under a valid code */
    if (a->rp == FT_RP_MIRROR || a->rp == FT_RP_SHADOW) ft_set_state(a, FT_ST_CLEAN);
  }
  /* (restored before any context's replayed operations read them) */
  for (int k = 0; k < nused; k++)
    if (used[k] != d && ft_own_stream_sync(used[k]->stream) != CUDA_SUCCESS) return -1;
  if (ft_oplog_replay_all(d) != 0) return -1;
  ft_st.replays++;
  FT_INFO("replayed %zu operations of epoch %ju", ft_epoch_ops(), (uintmax_t)ft_epoch);
  int ok = ft_own_stream_sync(d->stream) == CUDA_SUCCESS;
  return ft_oplog_seen_again() && ok ? 0 : -1;
}
