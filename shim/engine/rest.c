/* rest.c: rest intervals (DESIGN.md 6.2). A range is at rest when no issued work
 * can touch it; only then does its code describe it. Each allocation keeps the
 * uses since it was last known at rest; order.c says whether they are ordered
 * before new work, and commits bring what has come to rest back under a code. */
#include "access.h"

int ft_rest_owed_hint;

void ft_rest_mark_owed(void) { __atomic_store_n(&ft_rest_owed_hint, 1, __ATOMIC_RELAXED); }

void ft_rest_read_owed(ft_alloc_t *a, uint64_t g0, uint64_t g1) {
  if (!a->read_owed) a->owed.n = 0;
  ft_runs_add(&a->owed, g0, g1, NULL, NULL);
  a->read_owed = 1;
  ft_rest_mark_owed();
}

void ft_rest_verify_owed(ft_alloc_t *a) {
  if (a->state != FT_ST_CLEAN) return; /* in flight: its encode at rest covers it */
  ft_rest_read_owed(a, 0, ft_groups_of(a->size));
}

/* At rest and clean: what reads left owed is verified on d's stream. 0, or -1 (a
 * full ledger: owed until the next commit). */
static int verify_owed(ft_dev_t *d, ft_alloc_t *a) {
  for (int i = 0; i < a->owed.n; i++)
    if (ft_job_issue(d, FT_WHY_READ_AFTER, a, a->owed.r[i][0], a->owed.r[i][1], d->stream, NULL, -1))
      return -1; /* (those issued are verified twice next time: harmless) */
  return 0;
}

/* Lost uses are found again by a synchronisation of the allocation's own context. */
static int lost(const ft_alloc_t *a) {
  return a->uses_lost && a->uses_lost > ft_ord_ctx_synced_at(a->ctx);
}

int ft_rest_ordered(const ft_alloc_t *a, int i, int writes_only) {
  if (lost(a)) return 0;
  for (int k = 0; k < a->nuses; k++) {
    const ft_use_t *u = &a->uses[k];
    if (writes_only && !u->w) continue;
    if (!ft_ord_covers(i, u->s, u->t)) return 0;
  }
  return 1;
}

void ft_rest_use(ft_alloc_t *a, int i, int write) {
  if (i < 0) {
    a->uses_lost = ft_ord_ctx_syncs + 1;
    return;
  }
  uint64_t t = ft_ord_tick(i);
  /* a later use on the same stream covers the earlier ones: clocks only grow */
  for (int k = 0; k < a->nuses; k++)
    if (a->uses[k].s == i) {
      a->uses[k].t = t;
      a->uses[k].w |= (uint8_t)write;
      return;
    }
  /* drop uses that work on stream i is already ordered after */
  int n = 0;
  for (int k = 0; k < a->nuses; k++)
    if (!ft_ord_covers(i, a->uses[k].s, a->uses[k].t)) a->uses[n++] = a->uses[k];
  a->nuses = n;
  if (n == FT_REST_USERS) {
    a->uses_lost = ft_ord_ctx_syncs + 1;
    return;
  }
  a->uses[n] = (ft_use_t){(int16_t)i, (uint8_t)write, t};
  a->nuses = n + 1;
}

/* Writes the calling thread's operation has begun and not yet enqueued. Their
 * clock tick is taken first (it orders them after earlier work); until the work is
 * issued, another thread's synchronisation may cover that tick without covering
 * the work: their allocations are not at rest until the operation ends
 * (ft_rest_issued), and the use is taken again then. */
#define ISSUING_MAX 8
static __thread struct {
  CUdeviceptr base;
  uint64_t id;
  CUstream s;
} t_iss[ISSUING_MAX];
static __thread int t_niss;
static __thread int t_all, t_all_known; /* an unseen writer, on t_all_s */
static __thread CUstream t_all_s;
static int g_issuing_all; /* unseen writers being issued by all threads */

static void issuing_all(CUstream s, int known) {
  if (!t_all) g_issuing_all++;
  t_all = 1;
  t_all_s = s;
  t_all_known = known;
}

static void issuing(ft_alloc_t *a, CUstream s) {
  if (t_niss == ISSUING_MAX) {
    issuing_all(s, 1); /* more at once than the list holds: none at rest meanwhile */
    return;
  }
  a->busy++;
  t_iss[t_niss].base = a->base;
  t_iss[t_niss].id = a->id;
  t_iss[t_niss].s = s;
  t_niss++;
}

void ft_rest_issued(void) {
  if (!t_niss && !t_all) return;
  ft_lock();
  for (int i = 0; i < t_niss; i++) {
    ft_alloc_t *a = ft_reg_find(t_iss[i].base);
    if (!a || a->id != t_iss[i].id) continue; /* freed meanwhile */
    if (a->busy) a->busy--;
    ft_rest_use(a, ft_ord_advance(t_iss[i].s), 1);
  }
  t_niss = 0;
  if (t_all) {
    g_issuing_all--;
    t_all = 0;
    ft_dev_t *d = ft_dev_current();
    int j = t_all_known ? ft_ord_advance(t_all_s) : -1;
    for (size_t i = 0; d && i < ft_reg_count(); i++) {
      ft_alloc_t *a = ft_reg_at(i);
      if (a->dev == d && a->code && a->state != FT_ST_UNPROT) ft_rest_use(a, j, 1);
    }
  }
  ft_unlock();
}

int ft_rest_seen_done(const ft_alloc_t *a) {
  if (lost(a) || a->busy || g_issuing_all) return 0;
  for (int k = 0; k < a->nuses; k++)
    if (!ft_ord_host_covers(a->uses[k].s, a->uses[k].t)) return 0;
  return 1;
}

int ft_rest_done(ft_alloc_t *a) {
  if (!ft_rest_seen_done(a)) return 0;
  a->nuses = 0;
  a->uses_lost = 0;
  return 1;
}

void ft_rest_encode(ft_alloc_t *a, CUstream s) {
  ft_runs_t runs = a->dirty;
  if (a->state != FT_ST_INFLIGHT || !a->dirty_part) ft_runs_one(&runs, 0, ft_groups_of(a->size));
  ft_set_state(a, FT_ST_CLEAN);
  for (int i = 0; i < runs.n && a->state == FT_ST_CLEAN; i++)
    ft_reencode(a->dev, a, runs.r[i][0], runs.r[i][1], s); /* back to in flight (all of it) if it fails */
  ft_content_changed(a);
}

void ft_rest_commit(void) {
  if (!__atomic_load_n(&ft_rest_owed_hint, __ATOMIC_RELAXED)) return;
  __atomic_store_n(&ft_rest_owed_hint, 0, __ATOMIC_RELAXED);
  ft_dev_t *used[8];
  int nused = 0, owed = 0;
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (!a->dev || !a->code || a->state == FT_ST_UNPROT) continue;
    if (a->state != FT_ST_INFLIGHT && !a->read_owed) continue;
    if (a->freeing) continue; /* another thread is freeing it: its memory may be gone */
    if (!ft_rest_done(a)) {
      FT_DEBUG("allocation #%ju still in use by unfinished work (lost %d, busy %d, %d uses, first %d:%ju)",
               (uintmax_t)a->id, lost(a), a->busy, a->nuses, a->nuses ? a->uses[0].s : -1,
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
    int k;
    for (k = 0; k < nused && used[k] != d; k++) {
    }
    if (k == nused && nused < 8) used[nused++] = d;
    else if (k == nused) ft_real.cuStreamSynchronize(d->stream); /* no room to remember it */
  }
  /* what was enqueued here must be finished before the program's next work can
   * touch these ranges: gpuft never makes a program stream wait for its own */
  for (int k = 0; k < nused; k++) ft_real.cuStreamSynchronize(used[k]->stream);
  if (owed) ft_rest_mark_owed();
}

int ft_rest_write_begin(ft_alloc_t *a, CUstream s, int whole, size_t off, size_t n) {
  int j = ft_ord_op(s);
  int rest = ft_rest_ordered(a, j, 1);
  if (a->state == FT_ST_INFLIGHT && rest) ft_rest_encode(a, s);
  /* (all of a: what a copy leaves in flight is encoded whole when it comes to rest) */
  if (!ft_rest_ordered(a, j, 0)) ft_jobs_void_unordered(a, j, 0, ft_groups_of(a->size));
  ft_snap_before_write(a, s, ft_group_of(off), ft_groups_of(off + n));
  if (rest) ft_restore_point(a->dev, a, s, whole, NULL, -1, ft_group_of(off), ft_groups_of(off + n));
  else ft_restore_point_unread(a);
  ft_rest_use(a, j, 1);
  issuing(a, s);
  return j;
}

/* (The use is taken again, after the last piece is enqueued, when the operation
 * ends: ft_rest_issued.) */
void ft_rest_write_end(ft_alloc_t *a, CUstream s) {
  a->written_epoch = ft_epoch;
  if (!ft_rest_ordered(a, ft_ord_stream_index(s), 1)) {
    /* another stream may be writing it too: in flight until both are done */
    ft_set_state(a, FT_ST_INFLIGHT);
    ft_rest_mark_owed();
  }
}

int ft_rest_read(ft_alloc_t *a, CUstream s) {
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
  if (!only) issuing_all(s, known);
  else if (one) issuing(one, s);
  ft_unlock();
  ft_snap_drain();
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
  CUresult v = ft_commit_all();
  int issued = 0;
  ft_lock();
  ft_dev_t *d = ft_dev_current();
  ft_alloc_t *one = only ? ft_reg_find(only) : NULL;
  if (only && !one) d = NULL; /* not protected memory: nothing to verify */
  for (size_t i = 0; d && i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if ((one && a != one) || a->dev != d || !a->code || a->state != FT_ST_CLEAN || !ft_rest_done(a))
      continue;
    if (ft_job_issue(d, FT_WHY_AT_REST, a, 0, ft_groups_of(a->size), d->stream, NULL, -1) == 0)
      issued = 1;
    else /* counted in verifications_refused */
      FT_WARN_CAPPED(1, "a verification before an unseen write could not be issued: what the "
                        "write leaves of allocation #%ju is re-encoded unchecked",
                     (uintmax_t)a->id);
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
    if (a->dev != d || !a->code || a->state == FT_ST_UNPROT) continue;
    if (a->state != FT_ST_CLEAN) ft_set_state(a, FT_ST_CLEAN);
    ft_reencode(d, a, 0, ft_groups_of(a->size), s);
    ft_content_changed(a);
  }
  ft_unlock();
}
