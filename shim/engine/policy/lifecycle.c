/* lifecycle.c: the end of an allocation's protection (untrack, unprotect), the end
 * of a context's gpuft state, host functions queued into the epoch's log, and the
 * wiring of what the floors below tell the recovery stores (ft_obs). */
#include <stdlib.h>

#include "policy.h"

/* What protecting a holds: its jobs, log entries, snapshot, shadow, code and
 * checkpoint. */
static void release_protection(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  ft_jobs_forget(NULL, a); /* a job that never completed must not outlive its record */
  ft_epoch_forget_alloc(a);
  ft_snap_forget_alloc(a);
  ft_shadow_release(a);
  ft_set_state(a, FT_ST_UNPROT);
  if (a->code) {
    ft_real.cuMemFree_v2(a->code);
    ft_st.bytes_protected -= a->size;
    a->code = 0;
    a->code_bytes = 0;
  }
  if (a->mirror) {
    ft_jobs_fix_drain(a); /* a repair before use may still copy from it */
    ft_drv.cuMemFreeHost(a->mirror);
    ft_st.bytes_checkpoint -= ft_mirror_bytes(a);
    a->mirror = NULL;
    a->mirror_dev = 0;
    a->mirror_valid = 0;
  }
}

void ft_alloc_untrack(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  release_protection(a);
  ft_reg_remove(a);
  free(a->ptrs);
  free(a);
}

void ft_alloc_unprotect(ft_alloc_t *a, const char *why) FT_REQUIRES(ft_eng_lock) {
  if (a->state == FT_ST_UNPROT) return;
  FT_WARN("allocation #%ju (%zu bytes) is no longer protected: %s", (uintmax_t)a->id, a->size, why);
  release_protection(a);
  ft_st.allocations_unprotected++;
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
