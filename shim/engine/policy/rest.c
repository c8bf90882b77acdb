/* rest.c: rest intervals at work (DESIGN.md 6.2). A range is at rest when no issued
 * work can touch it; only then does its code describe it. Commits bring what came
 * to rest back under a code and issue the verifications reads left owed; copies and
 * memsets write through the protocol here (restore point, then in flight when
 * another stream may write too). The uses themselves: state/uses.c. */
#include "policy.h"

/* At rest and clean: what reads left owed is verified on d's stream. 0, or -1 (a
 * full ledger: owed until the next commit). */
static int verify_owed(ft_dev_t *d, ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  int rc = 0;
  ft_jobs_reads_from(a->owed_epoch);
  for (int i = 0; i < a->owed.n && !rc; i++)
    if (ft_job_issue(d, FT_WHY_READ_AFTER, a, a->owed.r[i][0], a->owed.r[i][1], d->stream, NULL, -1))
      rc = -1; /* (those issued are verified twice next time: harmless) */
  ft_jobs_reads_from(0);
  return rc;
}

/* d's stream has work of this commit to wait for. */
static void used_dev(ft_dev_t **used, int *nused, ft_dev_t *d) {
  int k;
  for (k = 0; k < *nused && used[k] != d; k++) {
  }
  if (k == *nused && *nused < 8) used[(*nused)++] = d;
  else if (k == *nused) ft_own_stream_sync(d->stream); /* no room to remember it */
}

void ft_rest_commit(void) FT_REQUIRES(ft_eng_lock) {
  if (!__atomic_load_n(&ft_rest_owed_hint, __ATOMIC_RELAXED)) return;
  __atomic_store_n(&ft_rest_owed_hint, 0, __ATOMIC_RELAXED);
  ft_dev_t *used[8];
  int nused = 0, owed = 0;
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (!ft_protected(a)) continue;
    if (a->state != FT_ST_INFLIGHT && !a->read_owed) continue;
    if (a->freeing) continue; /* another thread is freeing it: its memory may be gone */
    if (a->state == FT_ST_CLEAN && a->read_owed && !ft_rest_seen_done(a) && ft_rest_writes_seen_done(a)) {
      /* read before a read-back this commit settles, and still read by work not
       * finished: checked now (readers do not change it), and again once at rest */
      if (verify_owed(a->dev, a) == 0) used_dev(used, &nused, a->dev);
      owed = 1;
      continue;
    }
    if (!ft_rest_done(a)) {
      FT_DEBUG("allocation #%ju still in use by unfinished work (lost %d, busy %d, %d uses, first %d:%ju)",
               (uintmax_t)a->id, ft_rest_lost(a), a->busy, a->nuses, a->nuses ? a->uses[0].s : -1,
               (uintmax_t)(a->nuses ? a->uses[0].t : 0));
      owed = 1; /* still in use by work the host has not seen finish */
      continue;
    }
    ft_dev_t *d = a->dev;
    FT_DEBUG("allocation #%ju came to rest: %s", (uintmax_t)a->id,
             a->state == FT_ST_INFLIGHT ? "encoded" : "verified after its readers");
    if (a->state == FT_ST_INFLIGHT) {
      /* encoded whole, what was read is taken in as it is; over what launches
       * wrote, the groups only read keep their code and are verified */
      if (!a->dirty_part) a->read_owed = 0;
      ft_rest_encode(a, d->stream);
    }
    if (a->state == FT_ST_CLEAN && a->read_owed && verify_owed(d, a) == 0) a->read_owed = 0;
    if (a->state == FT_ST_INFLIGHT || a->read_owed) owed = 1;
    used_dev(used, &nused, d);
  }
  /* what was enqueued here must be finished before the program's next work can
   * touch these ranges: gpuft never makes a program stream wait for its own */
  for (int k = 0; k < nused; k++) ft_own_stream_sync(used[k]->stream);
  if (owed) ft_rest_mark_owed();
}

void ft_rest_value_wait(void) {
  if (!__atomic_exchange_n(&ft_values_awaited, 1, __ATOMIC_RELAXED) && FT_OPT(VERIFY_BEFORE_USE))
    FT_INFO("the program waits on values in streams: verify before use checks without repairing from now on");
}

void ft_rest_owed_before(CUstream s) FT_REQUIRES(ft_eng_lock) {
  if (!__atomic_load_n(&ft_rest_owed_hint, __ATOMIC_RELAXED)) return;
  int i = ft_ord_stream_index(s);
  if (i < 0) return; /* (unknown order: the commit checks them) */
  for (size_t k = 0; k < ft_reg_count(); k++) {
    ft_alloc_t *a = ft_reg_at(k);
    if (!ft_protected(a) || a->state != FT_ST_CLEAN || !a->read_owed || a->freeing) continue;
    if (!ft_rest_ordered(a, i, 1)) continue; /* a write s is not after: not now */
    int all = ft_rest_ordered(a, i, 0);     /* every reader is before s */
    ft_jobs_reads_from(a->owed_epoch);
    for (int r = 0; r < a->owed.n; r++)
      if (ft_job_issue(a->dev, FT_WHY_READ_AFTER, a, a->owed.r[r][0], a->owed.r[r][1], s, NULL, -1))
        all = 0; /* (refused: still owed) */
    ft_jobs_reads_from(0);
    if (all) a->read_owed = 0;
  }
}

int ft_rest_write_begin(ft_alloc_t *a, CUstream s, int whole, size_t off, size_t n) FT_REQUIRES(ft_eng_lock) {
  int j = ft_ord_op(s);
  int rest = ft_rest_ordered(a, j, 1);
  if (a->state == FT_ST_INFLIGHT && rest) ft_rest_encode(a, s);
  /* (all of a: what a copy leaves in flight is encoded whole when it comes to rest) */
  if (!ft_rest_ordered(a, j, 0)) ft_jobs_void_unordered(a, j, s, 0, ft_groups_of(a->size));
  ft_snap_before_write(a, s, ft_group_of(off), ft_groups_of(off + n));
  if (rest) ft_restore_point(a->dev, a, s, whole, NULL, -1, ft_group_of(off), ft_groups_of(off + n));
  else ft_restore_point_unread(a);
  ft_rest_use(a, j, 1);
  ft_rest_issuing(a, s);
  return j;
}

/* (The use is taken again, after the last piece is enqueued, when the operation
 * ends: ft_rest_issued.) */
void ft_rest_write_end(ft_alloc_t *a, CUstream s) FT_REQUIRES(ft_eng_lock) {
  a->written_epoch = ft_epoch;
  if (!ft_rest_ordered(a, ft_ord_stream_index(s), 1)) {
    /* another stream may be writing it too: in flight until both are done */
    ft_set_state(a, FT_ST_INFLIGHT);
    ft_rest_mark_owed();
  }
}

int ft_rest_read(ft_alloc_t *a, CUstream s) FT_REQUIRES(ft_eng_lock) {
  int j = ft_ord_advance(s); /* (called once the read is enqueued) */
  int rest = ft_rest_ordered(a, j, 1);
  ft_rest_use(a, j, 0);
  if (!rest) return 0;
  if (a->state == FT_ST_INFLIGHT) {
    /* read back or copied from: it has come to rest, and the code follows */
    ft_rest_encode(a, s);
    return 0;
  }
  return a->state == FT_ST_CLEAN;
}

