/* lifecycle.c: an allocation's record from its start (track) to the end of its
 * protection (untrack, unprotect), the end of a context's gpuft state, host functions queued into the epoch's log, and the
 * wiring of what the floors below tell the recovery stores (ft_obs). */
#include <stdlib.h>

#include "policy.h"

static uint64_t g_alloc_seq;

/* (its code in d's context, where gpuft's kernels for it run) */
ft_alloc_t *ft_alloc_track(ft_dev_t *d, CUdeviceptr p, size_t size, int managed) FT_REQUIRES(ft_eng_lock) {
  if (!p || !size) return NULL;
  ft_alloc_t *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->base = p;
  a->size = size;
  a->dev = d;
  if (ft_drv.cuCtxGetCurrent) ft_drv.cuCtxGetCurrent(&a->ctx);
  a->managed = managed;
  a->id = ++g_alloc_seq;
  a->t_state = ft_now();
  a->state = FT_ST_UNPROT;
  ft_st.allocations++;
  if (!managed && d) {
    size_t cb = ft_code_bytes(size);
    CUdeviceptr code = 0;
    if (ft_own_alloc(&code, cb) == CUDA_SUCCESS) {
      a->code = code;
      a->code_bytes = cb;
      a->state = FT_ST_UNINIT;
      ft_st.bytes_protected += size;
      if (ft_st.bytes_protected > ft_st.bytes_protected_peak)
        ft_st.bytes_protected_peak = ft_st.bytes_protected;
    } else {
      FT_WARN_CAPPED(3, "no device memory left for the code of a %zu-byte allocation: it is not "
                     "protected", size);
    }
  }
  if (a->state == FT_ST_UNPROT) ft_st.allocations_unprotected++;
  FT_DEBUG("allocation #%ju: %#llx, %zu bytes, code %#llx", (uintmax_t)a->id, (unsigned long long)p,
           size, (unsigned long long)a->code);
  if (ft_reg_insert(a) != 0) {
    /* an entry gpuft did not see freed overlaps: drop the stale one */
    ft_alloc_t *old = ft_reg_find(p);
    if (!old) old = ft_reg_find(p + size - 1);
    FT_WARN_CAPPED(3, "allocation %#llx overlaps one gpuft still tracks; forgetting the old one",
                   (unsigned long long)p);
    if (old) ft_alloc_untrack(old); /* (its jobs too: registry.c) */
    if (ft_reg_insert(a) != 0) {
      if (a->code) ft_own_free(a->code);
      free(a);
      return NULL;
    }
  }
  return a;
}

/* What protecting a holds: its jobs, log entries, snapshot, shadow, code and
 * checkpoint. */
static void release_protection(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  ft_jobs_forget(NULL, a); /* a job that never completed must not outlive its record */
  ft_epoch_forget_alloc(a);
  ft_snap_forget_alloc(a);
  ft_shadow_release(a);
  ft_set_state(a, FT_ST_UNPROT);
  if (a->code) {
    ft_own_free(a->code);
    ft_st.bytes_protected -= a->size;
    a->code = 0;
    a->code_bytes = 0;
  }
  if (a->mirror) {
    ft_jobs_fix_drain(a); /* a repair before use may still copy from it */
    ft_own_host_free(a->mirror);
    ft_st.bytes_checkpoint -= ft_mirror_bytes(a);
    a->mirror = NULL;
    a->mirror_dev = 0;
    a->mirror_valid = 0;
  }
}

/* The end of a record out of the registry. */
static void drop(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  release_protection(a);
  free(a->ptrs);
  free(a);
}

void ft_alloc_drop(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) { drop(a); }

/* The records a release concerns: the allocation at base lo, or (runs) every run of
 * mapped memory touching [lo, hi]. */
static int released(const ft_alloc_t *a, CUdeviceptr lo, CUdeviceptr hi, int runs) {
  return runs ? ft_run_touches(a, lo, hi) : a->base == lo;
}

void ft_release_drain(CUdeviceptr lo, CUdeviceptr hi, int runs) {
  /* (records found again after each wait: by address, never by pointer) */
  for (size_t k = 0;; k++) { /* a snapshot copy of the k-th may still be reading it */
    ft_lock();
    CUevent ev = NULL;
    int found = 0;
    for (size_t i = 0, seen = 0; i < ft_reg_count() && !found; i++) {
      ft_alloc_t *a = ft_reg_at(i);
      if (!released(a, lo, hi, runs) || seen++ < k) continue;
      a->freeing = 1; /* no new snapshot copy of it */
      ev = ft_snap_copying(a);
      found = 1;
    }
    ft_unlock();
    if (!found) break;
    if (ev) ft_own_event_sync(ev);
  }
  for (;;) { /* a repair before use may still copy from a checkpoint */
    ft_lock();
    CUevent ev = NULL;
    for (size_t i = 0; i < ft_reg_count() && !ev; i++) {
      ft_alloc_t *a = ft_reg_at(i);
      if (released(a, lo, hi, runs)) ev = ft_jobs_fix_copying(a);
    }
    ft_unlock();
    if (!ev) break;
    ft_own_event_sync(ev);
  }
}

int ft_free_begin(CUdeviceptr p) {
  if (!p) return 0;
  ft_lock();
  ft_alloc_t *a = ft_reg_find_base(p);
  int used = a && !a->held && (a->pending || a->rp_epoch == ft_epoch || ft_epoch_ops());
  ft_unlock();
  ft_release_drain(p, p, 0);
  return used;
}

void ft_free_end(CUdeviceptr p, int freed) {
  if (!p) return;
  ft_lock();
  ft_alloc_t *a = ft_reg_find_base(p);
  if (a && freed) ft_alloc_untrack(a);
  else if (a) a->freeing = 0; /* the driver refused: it stays */
  ft_unlock();
}

/* ---- Frees held for the snapshot's log ----
 * A free of memory the log since the snapshot needs (its operations read or wrote
 * it: a replay from the snapshot runs them again) would break the log, and every
 * uncorrectable error in data the GPU produced would be unrecoverable until the next
 * snapshot (a program freeing one device's buffers before reading back another's).
 * gpuft holds such memory instead: the program's call succeeds, the record stays
 * (protected, at rest, in no new snapshot), and the memory goes back to the driver
 * once no log needs it (a snapshot taken after the free is promoted), or at once
 * when an allocation fails for want of memory. */
static uint64_t g_held_bytes;
static int g_nheld;

/* a no longer held (its memory goes back, or went with its context). */
static void unhold(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  a->held = 0;
  g_held_bytes -= a->size;
  __atomic_store_n(&g_nheld, g_nheld - 1, __ATOMIC_RELAXED);
}

int ft_free_held(CUdeviceptr p) {
  ft_alloc_t *a = ft_reg_find_base(p);
  return a && a->held;
}

int ft_free_hold(CUdeviceptr p) {
  ft_alloc_t *a = ft_reg_find_base(p);
  if (!a || !ft_protected(a) || a->held || a->vmm || a->managed || !a->dev || a->pending) return 0;
  CUdeviceptr lo = a->base, hi = a->base + a->size;
  if (!ft_snap_log_needs(lo, hi) && !ft_epoch_needs(lo, hi)) return 0;
  if (g_held_bytes + a->size > (uint64_t)FT_OPT(FREE_HOLD_MAX)) {
    FT_WARN_CAPPED(1, "GPUFT_FREE_HOLD_MAX=%s reached: freed memory the snapshot's log needs is "
                   "given back, and data the GPU produced before it is not recoverable until the next "
                   "snapshot", FT_OPT_S(FREE_HOLD_MAX));
    return 0;
  }
  a->held = 1;
  a->freeing = 0; /* (at rest: a snapshot may be taken, without it) */
  g_held_bytes += a->size;
  __atomic_store_n(&g_nheld, g_nheld + 1, __ATOMIC_RELAXED);
  ft_st.frees_held++;
  FT_DEBUG("allocation #%ju: freed by the program, held while the snapshot's log needs it", (uintmax_t)a->id);
  return 1;
}

int ft_held_release(int all) {
  if (!__atomic_load_n(&g_nheld, __ATOMIC_RELAXED)) return 0;
  enum { MAX = 64 };
  CUdeviceptr base[MAX];
  CUcontext ctx[MAX];
  int n = 0;
  ft_lock();
  /* (held memory becomes free to go only when a log loses operations: the
   * snapshot's cut, or an epoch closed; a commit that did neither has nothing to
   * look at) */
  static uint64_t cuts_seen = UINT64_MAX, epoch_seen = UINT64_MAX;
  uint64_t cuts = ft_snap_log_cuts();
  if (!all && cuts == cuts_seen && ft_epoch == epoch_seen) {
    ft_unlock();
    return 0;
  }
  cuts_seen = cuts, epoch_seen = ft_epoch;
  for (size_t i = ft_reg_count(); i-- > 0 && n < MAX;) {
    ft_alloc_t *a = ft_reg_at(i);
    if (!a->held) continue;
    CUdeviceptr lo = a->base, hi = a->base + a->size;
    int needed = ft_snap_log_needs(lo, hi) || ft_epoch_needs(lo, hi);
    if (needed && !all) continue;
    if (needed) ft_st.frees_held_given_up++; /* (the log breaks: its record goes) */
    else ft_st.frees_held_returned++;
    base[n] = a->base, ctx[n++] = a->ctx;
    unhold(a);
    ft_alloc_untrack(a);
  }
  if (n == MAX) cuts_seen = UINT64_MAX; /* (perhaps more: looked at again next time) */
  ft_unlock();
  for (int i = 0; i < n; i++) { /* (the program's memory: its free without the lock, in its context) */
    CUcontext was = NULL;
    int pushed = ctx[i] && ft_drv.cuCtxPushCurrent_v2(ctx[i]) == CUDA_SUCCESS;
    ft_own_free(base[i]);
    if (pushed) ft_drv.cuCtxPopCurrent_v2(&was);
  }
  return n;
}

void ft_held_forget_ctx(CUcontext c) {
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (a->held && a->ctx == c) unhold(a);
  }
}

int ft_alloc_resize(ft_alloc_t *a, size_t size) FT_REQUIRES(ft_eng_lock) {
  ft_dev_t *d = a->dev;
  size_t old = a->size, old_cb = a->code_bytes;
  /* at rest, nothing of it pending, no restore point of an open epoch */
  if (!ft_protected(a) || !d || a->pending || a->busy || a->state == FT_ST_INFLIGHT ||
      a->rp_epoch == ft_epoch || old % FT_GROUP_BYTES || size % FT_GROUP_BYTES)
    return -1;
  CUdeviceptr code = 0;
  size_t cb = ft_code_bytes(size);
  int in = ft_dev_enter(d);
  CUresult r = ft_own_alloc(&code, cb);
  ft_dev_leave(in);
  if (r != CUDA_SUCCESS) return -1;
  uint64_t keep = ft_groups_of(size < old ? size : old);
  if (ft_code_copy(d, a->code, old, 0, keep, code, size, 0, d->stream) != 0 ||
      ft_own_stream_sync(d->stream) != CUDA_SUCCESS || ft_coded_resize(a, size) != 0) {
    ft_own_free(code);
    return -1;
  }
  ft_reg_remove(a); /* (in order again below: its generation changes, caches of it go) */
  ft_own_free(a->code);
  a->code = code;
  a->code_bytes = cb;
  ft_st.bytes_protected += size - old;
  if (ft_st.bytes_protected > ft_st.bytes_protected_peak) ft_st.bytes_protected_peak = ft_st.bytes_protected;
  ft_shadow_release(a);
  int kept = ft_ckpt_resized(a, old, old_cb) == 0;
  ft_snap_resized(a, old, old_cb, kept); /* (a snapshot may rely on the checkpoint) */
  ft_runs_clip(&a->owed, ft_groups_of(size));
  ft_content_changed(a);
  if (ft_reg_insert(a) != 0) { /* (never: the range it grew into holds no record) */
    FT_WARN("allocation #%ju: lost from gpuft's registry while it grew: it is not protected",
            (uintmax_t)a->id);
    drop(a);
  }
  return 0;
}

void ft_alloc_untrack(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  ft_reg_remove(a);
  drop(a);
}

void ft_alloc_unprotect(ft_alloc_t *a, const char *why) FT_REQUIRES(ft_eng_lock) {
  if (a->state == FT_ST_UNPROT) return;
  if (why) FT_WARN("allocation #%ju (%zu bytes) is no longer protected: %s", (uintmax_t)a->id, a->size, why);
  release_protection(a);
  if (why) ft_st.allocations_unprotected++;
}

void ft_dev_release(ft_dev_t *d) FT_REQUIRES(ft_eng_lock) {
  ft_snap_dev_release(d);
  ft_staging_release_all(d);
  ft_dev_teardown(d);
}

ft_hostfn_t *ft_host_fn_queue(CUstream s, CUhostFn fn, CUstreamCallback cb, void *user) {
  ft_lock();
  ft_rest_owed_before(s);
  uint64_t seq = 0;
  ft_hostfn_t *h = ft_host_fn_make(s, fn, cb, user, &seq);
  if (h) ft_epoch_host_fn(seq, ft_ord_op(s));
  ft_unlock();
  return h;
}

void ft_graph_forget(CUgraphExec g) {
  ft_oplog_forget_graph(g);
  ft_snap_forget_graph(g);
}

void ft_engine_wire(void) {
  ft_obs.written = ft_snap_written;
  ft_obs.before_upload = ft_snap_before_upload;
  ft_obs.before_write = ft_snap_before_write;
}

void ft_ctx_untrack(CUcontext c) {
  ft_held_forget_ctx(c); /* (their memory goes with the context) */
  for (size_t i = ft_reg_count(); i-- > 0;) {
    ft_alloc_t *a = ft_reg_at(i);
    if (a->ctx == c) ft_alloc_untrack(a); /* (its jobs too: registry.c) */
  }
}
