/* hostfn.c: host functions in streams (cuLaunchHostFunc, cuStreamAddCallback):
 * the program's own code, run when the stream reaches it. It may look at what the
 * epoch read back and act on it, which a replay cannot take back. gpuft queues a trampoline instead: when the verifications issued before it
 * found nothing, the program's function runs at once, and the read-backs before it
 * count as seen (a replay must give them the same bytes, else the epoch is lost).
 * When they found damage, it is held back and runs at the end of the commit that
 * settles the epoch (after its replay), before that synchronisation returns: it never
 * sees damaged data. (Work queued after it in its stream may then run before it.)
 * Kernels writing host-visible memory make the epoch unreplayable (launch.c). */
#include <stdlib.h>

#include "mech.h"

struct ft_hostfn_s {
  CUhostFn fn;         /* cuLaunchHostFunc, or */
  CUstreamCallback cb; /* cuStreamAddCallback */
  CUstream stream;
  CUresult status;
  void *user;
  uint64_t seq;
  size_t njobs;
  const ftk_job_t **jobs; /* verifications pending when it was queued */
  struct ft_hostfn_s *next;
};
typedef struct ft_hostfn_s hostfn_t;

/* Which functions have run, by seq: slot seq % RAN_SLOTS keeps the highest seq that
 * ran there. Exact while fewer than RAN_SLOTS functions are queued in an epoch;
 * beyond, an older function sharing a slot with a newer one that ran reads as run:
 * its read-backs count as seen, and a replay must reproduce them bit for bit (the
 * safe side: a flag per slot, cleared by the newer one, made a seen read-back
 * look unseen). */
#define RAN_SLOTS 4096
static uint64_t g_ran[RAN_SLOTS];
static uint64_t g_fn_seq;
static hostfn_t *g_held; /* held back, newest first */

int ft_host_fn_ran(uint64_t seq) { return __atomic_load_n(&g_ran[seq % RAN_SLOTS], __ATOMIC_ACQUIRE) >= seq; }
int ft_host_fn_deferred(void) { return __atomic_load_n(&g_held, __ATOMIC_ACQUIRE) != NULL; }

static void call(hostfn_t *h) {
  uint64_t *slot = &g_ran[h->seq % RAN_SLOTS], had = __atomic_load_n(slot, __ATOMIC_RELAXED);
  while (had < h->seq && !__atomic_compare_exchange_n(slot, &had, h->seq, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
  if (h->fn) h->fn(h->user);
  else h->cb(h->stream, h->status, h->user);
  free(h->jobs);
  free(h);
}

/* In the driver's callback thread: no driver call, no gpuft lock. */
static void run_or_hold(hostfn_t *h) {
  /* damage a commit already took in (its jobs are no longer pending, so not in
   * h->jobs) and has not replayed yet holds it too */
  int hold = ft_replay_owed();
  for (size_t i = 0; i < h->njobs && !hold; i++)
    hold = __atomic_load_n(&h->jobs[i]->done, __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&h->jobs[i]->n_bad, __ATOMIC_RELAXED);
  if (hold) {
    h->next = __atomic_load_n(&g_held, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&g_held, &h->next, h, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
    return;
  }
  call(h);
}
void CUDA_CB ft_host_fn_tramp(void *u) { run_or_hold(u); }
void CUDA_CB ft_host_fn_tramp_cb(CUstream s, CUresult st, void *u) {
  ((hostfn_t *)u)->status = st;
  (void)s;
  run_or_hold(u);
}

ft_hostfn_t *ft_host_fn_take_held(void) {
  return __atomic_exchange_n(&g_held, NULL, __ATOMIC_ACQ_REL);
}

/* Back under those held since (newer: the list stays newest first). */
void ft_host_fn_put_back(ft_hostfn_t *h) {
  if (!h) return;
  for (;;) {
    hostfn_t *newer = __atomic_exchange_n(&g_held, NULL, __ATOMIC_ACQ_REL);
    if (newer) {
      hostfn_t *last = newer;
      while (last->next) last = last->next;
      last->next = h;
      h = newer;
    }
    hostfn_t *none = NULL;
    if (__atomic_compare_exchange_n(&g_held, &none, h, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) return;
  }
}

void ft_host_fn_run(ft_hostfn_t *h) {
  hostfn_t *fwd = NULL;
  while (h) { /* oldest first */
    hostfn_t *n = h->next;
    h->next = fwd;
    fwd = h;
    h = n;
  }
  while (fwd) {
    hostfn_t *n = fwd->next;
    call(fwd);
    fwd = n;
  }
}

hostfn_t *ft_host_fn_make(CUstream s, CUhostFn fn, CUstreamCallback cb, void *user, uint64_t *seq) {
  hostfn_t *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->fn = fn;
  h->cb = cb;
  h->stream = s;
  h->user = user;
  size_t n = (size_t)ft_jobs_pending();
  h->jobs = n ? malloc(n * sizeof *h->jobs) : NULL;
  h->njobs = h->jobs ? ft_jobs_snapshot(h->jobs, n) : 0;
  if (n && !h->jobs) {
    free(h);
    return NULL;
  }
  *seq = h->seq = ++g_fn_seq;
  return h;
}

void ft_host_fn_discard(hostfn_t *h) {
  free(h->jobs);
  free(h);
}
