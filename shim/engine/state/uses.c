/* uses.c: the uses of each allocation since it was last known at rest (DESIGN.md
 * 6.2): which streams used it at which tick, writes being issued by the calling
 * thread, and what verifications are owed. order.c says whether the uses are ordered
 * before new work; commits (policy/rest.c) bring what came to rest back under a code. */
#include "state.h"

int ft_rest_owed_hint;
int ft_values_awaited;

int ft_repairs_before_use(void) {
  return FT_OPT(VERIFY_BEFORE_USE) && FT_OPT(MODE) != FT_MODE_DETECT &&
         !__atomic_load_n(&ft_values_awaited, __ATOMIC_RELAXED);
}

void ft_rest_mark_owed(void) { __atomic_store_n(&ft_rest_owed_hint, 1, __ATOMIC_RELAXED); }

void ft_rest_read_owed(ft_alloc_t *a, uint64_t g0, uint64_t g1) {
  if (!a->read_owed) a->owed.n = 0, a->owed_epoch = ft_epoch;
  ft_runs_add(&a->owed, g0, g1, NULL, NULL);
  a->read_owed = 1;
  ft_rest_mark_owed();
}

void ft_rest_verify_owed(ft_alloc_t *a) {
  if (a->state != FT_ST_CLEAN) return; /* in flight: its encode at rest covers it */
  ft_rest_read_owed(a, 0, ft_groups_of(a->size));
}

/* Lost uses are found again by a synchronisation of the allocation's own context. */
int ft_rest_lost(const ft_alloc_t *a) {
  return a->uses_lost && a->uses_lost > ft_ord_ctx_synced_at(a->ctx);
}

int ft_rest_ordered(const ft_alloc_t *a, int i, int writes_only) {
  if (ft_rest_lost(a)) return 0;
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
  /* drop uses that work on stream i is already ordered after; but a read does not
   * stand for a write before it: a reader on another stream that waited for the
   * writer erased the write, and "every write is before X" then held for a third
   * stream X that never waited (a check on it raced the writer; every group of the
   * output read as damaged). At most one use per stream either way. */
  int n = 0;
  for (int k = 0; k < a->nuses; k++)
    if (!ft_ord_covers(i, a->uses[k].s, a->uses[k].t) || (a->uses[k].w && !write)) a->uses[n++] = a->uses[k];
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

void ft_rest_issuing_all(CUstream s, int known) {
  if (!t_all) g_issuing_all++;
  t_all = 1;
  t_all_s = s;
  t_all_known = known;
}

void ft_rest_issuing(ft_alloc_t *a, CUstream s) {
  if (t_niss == ISSUING_MAX) {
    ft_rest_issuing_all(s, 1); /* more at once than the list holds: none at rest meanwhile */
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
    /* (the allocations of the current context: those gpuft's state for it protects) */
    CUcontext cur = NULL;
    if (ft_drv.cuCtxGetCurrent && ft_drv.cuCtxGetCurrent(&cur) != CUDA_SUCCESS) cur = NULL;
    int j = t_all_known ? ft_ord_advance(t_all_s) : -1;
    for (size_t i = 0; cur && i < ft_reg_count(); i++) {
      ft_alloc_t *a = ft_reg_at(i);
      if (ft_protected(a) && a->dev->ctx == cur) ft_rest_use(a, j, 1);
    }
  }
  ft_unlock();
}

static int seen_done(const ft_alloc_t *a, int writes_only) {
  if (ft_rest_lost(a) || a->busy || g_issuing_all) return 0;
  for (int k = 0; k < a->nuses; k++)
    if ((a->uses[k].w || !writes_only) && !ft_ord_host_covers(a->uses[k].s, a->uses[k].t)) return 0;
  return 1;
}

int ft_rest_seen_done(const ft_alloc_t *a) { return seen_done(a, 0); }

int ft_rest_writes_seen_done(const ft_alloc_t *a) { return seen_done(a, 1); }

int ft_rest_done(ft_alloc_t *a) {
  if (!ft_rest_seen_done(a)) return 0;
  a->nuses = 0;
  a->uses_lost = 0;
  return 1;
}

