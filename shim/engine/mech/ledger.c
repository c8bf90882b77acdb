/* ledger.c: jobs — gpuft's kernel launches whose results come back through the
 * ledger (a slot of mapped pinned memory per job). Issue order is kept so that
 * commit processes results in the order the work was enqueued. */
#include <stdlib.h>
#include <string.h>

#include "mech.h"

static ft_job_rec_t g_rec[FT_LEDGER_SLOTS];
static int g_free[FT_LEDGER_SLOTS], g_nfree = -1;
static ft_job_rec_t *g_head, *g_tail; /* pending, in issue order */
static uint64_t g_seq;
static int g_pending;
int ft_jobs_pending_hint; /* g_pending, readable without the lock */
int ft_replaying;         /* a commit is replaying (engine lock held throughout) */

static void init_free(void) {
  for (int i = 0; i < FT_LEDGER_SLOTS; i++) g_free[i] = FT_LEDGER_SLOTS - 1 - i;
  g_nfree = FT_LEDGER_SLOTS;
}

int ft_jobs_pending(void) { return g_pending; }

ft_job_rec_t *ft_job_head(void) { return g_head; }

/* Unlink a finished job (any position) and free its slot. */
void ft_job_retire(ft_job_rec_t *prev, ft_job_rec_t *j) {
  if (prev) prev->next = j->next;
  else g_head = j->next;
  if (g_tail == j) g_tail = prev;
  if (j->a) j->a->pending--;
  g_free[g_nfree++] = j->slot;
  g_pending--;
  __atomic_store_n(&ft_jobs_pending_hint, g_pending, __ATOMIC_RELAXED);
}

/* A context's jobs go with it (its kernels are gone). An allocation's jobs lose
 * their allocation but keep their slots: a free that does not synchronise
 * (cuMemFreeAsync) leaves their kernels still to run, and a slot given to another
 * job meanwhile would take their results. The commit retires them once done. */
void ft_jobs_forget(const ft_dev_t *d, ft_alloc_t *a) {
  for (ft_job_rec_t *prev = NULL, *j = g_head, *next; j; j = next) {
    next = j->next;
    if (d && j->dev == d) {
      ft_job_retire(prev, j);
      continue;
    }
    if (a && j->a == a) {
      a->pending--;
      j->a = NULL;
      j->voided = 1;
    }
    prev = j;
  }
}

/* The event behind a verify-before-use job (its slot's, created on first use). A
 * job whose event cannot be had is not issued: a writer could not wait for it. */
static CUresult record_fix(ft_dev_t *d, int slot, CUstream on) {
  if (!d->fix_ev && !(d->fix_ev = calloc(FT_LEDGER_SLOTS, sizeof *d->fix_ev)))
    return CUDA_ERROR_OUT_OF_MEMORY;
  CUresult r = CUDA_SUCCESS;
  if (!d->fix_ev[slot]) r = ft_drv.cuEventCreate(&d->fix_ev[slot], CU_EVENT_DISABLE_TIMING);
  if (r == CUDA_SUCCESS) r = ft_drv.cuEventRecord(d->fix_ev[slot], on);
  return r;
}

/* The epoch of the reads the next jobs check after, when owed (0: theirs). */
static uint64_t g_reads_from;

void ft_jobs_reads_from(uint64_t e) { g_reads_from = e; }

static int issue(ft_dev_t *d, int kind, int fix, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1,
                 CUdeviceptr dst, CUstream stream, ft_func_t *fn, int argslot) {
  if (g_nfree < 0) init_free();
  if (g1 <= g0 || !a->code) return 0;
  if (a->dev) d = a->dev; /* its kernels, ledger and stream: those of its context */
  /* Full: nothing enqueued (the caller degrades). Operations make room before
   * they start (ft_jobs_make_room), so this happens only inside a replay. */
  if (g_nfree == 0) {
    ft_st.verifications_refused++;
    return -1;
  }
  int slot = g_free[--g_nfree];
  ft_job_rec_t *j = &g_rec[slot];
  memset(j, 0, sizeof *j);
  j->kind = kind;
  j->why = why;
  j->a = a;
  j->dev = d;
  j->g0 = g0;
  j->g1 = g1;
  j->slot = slot;
  j->seq = ++g_seq;
  j->fn = fn;
  j->argslot = argslot;
  j->dst = dst;
  j->epoch = ft_epoch;
  j->ord_s = ft_ord_stream_index(stream);
  j->ord_t = j->ord_s >= 0 ? ft_ord_tick(j->ord_s) : 0;
  j->fix = fix;
  j->reads_before = a->cr_epoch == ft_epoch ? a->cr_n : 0;
  j->reads_epoch = g_reads_from && g_reads_from < ft_epoch ? g_reads_from : ft_epoch;
  ftk_span_t sp = {a->base, a->size, a->code, g0, g1, dst,
                   d->jobs_dev + (CUdeviceptr)slot * sizeof(ftk_job_t),
                   d->djobs + (CUdeviceptr)slot * sizeof(ftk_job_t)};
  int which = kind == FT_JOB_VERIFY_COPY ? (fix ? FTK_VERIFY_COPY_FIX : FTK_VERIFY_COPY)
                                          : (fix ? FTK_VERIFY_FIX : FTK_VERIFY);
  int in;
  CUstream on = ft_dev_enter_for(d, stream, &in);
  /* The accumulator is device memory, where bits flip too: zeroed before every
   * launch, whatever the last one left there (ftk.h). */
  CUresult r = ft_real.cuMemsetD8Async(sp.djob, 0, sizeof(ftk_job_t), on);
  if (r == CUDA_SUCCESS) r = ftk_launch(&d->mod, &ft_kdrv, which, &sp, &d->jobs[slot], on);
  if (r == CUDA_SUCCESS && fix) r = record_fix(d, slot, on);
  ft_dev_leave_for(stream, on, in);
  if (r != CUDA_SUCCESS) {
    g_free[g_nfree++] = slot;
    FT_WARN_CAPPED(3, "cannot launch a gpuft kernel (error %d)", (int)r);
    ft_st.verifications_refused++;
    return -1;
  }
  ft_st.bytes_verified_device += ft_groups_len(a->size, g0, g1);
  ft_st.verifications++;
  a->pending++;
  g_pending++;
  __atomic_store_n(&ft_jobs_pending_hint, g_pending, __ATOMIC_RELAXED);
  if (g_tail) g_tail->next = j;
  else g_head = j;
  g_tail = j;
  return 0;
}

void ft_checked_read(ft_alloc_t *a, CUstream s) {
  int i = ft_ord_stream_index(s);
  if (a->cr_epoch != ft_epoch) {
    a->cr_epoch = ft_epoch;
    a->cr_n = 0;
    a->cr_stream = i;
    a->cr_mixed = 0;
  }
  if (a->cr_stream != i || i < 0) a->cr_mixed = 1;
  a->cr_n++;
}

/* Only groups under a valid code are checked: one job per coded run (memory never
 * written holds nothing to check, and its code words are whatever they were). */
static int issue_coded(ft_dev_t *d, int kind, int fix, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1,
                       CUdeviceptr dst, CUstream stream, ft_func_t *fn, int argslot) FT_REQUIRES(ft_eng_lock) {
  int rc = 0;
  for (uint64_t c0 = g0, c1; ft_coded_next(a, &c0, &c1, g1); c0 = c1)
    if (issue(d, kind, fix, why, a, c0, c1, dst, stream, fn, argslot)) rc = -1;
  if (rc == 0 && fix) { /* a check before use: what follows on the stream reads it */
    ft_st.checks_before_use++;
    ft_checked_read(a, stream);
  }
  return rc;
}

int ft_job_issue(ft_dev_t *d, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream stream,
                 ft_func_t *fn, int argslot) {
  return issue_coded(d, FT_JOB_VERIFY, 0, why, a, g0, g1, 0, stream, fn, argslot);
}


int ft_job_issue_copy(ft_dev_t *d, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1,
                      CUdeviceptr dst, CUstream stream, ft_func_t *fn, int argslot, int fix) {
  return issue_coded(d, FT_JOB_VERIFY_COPY, fix, why, a, g0, g1, dst, stream, fn, argslot);
}

int ft_job_issue_fix(ft_dev_t *d, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream stream,
                     ft_func_t *fn, int argslot) {
  CUdeviceptr copy = a->mirror && a->mirror_valid ? a->mirror_dev : 0;
  return issue_coded(d, FT_JOB_VERIFY, 1, why, a, g0, g1, copy, stream, fn, argslot);
}

CUevent ft_jobs_fix_copying(const ft_alloc_t *a) {
  for (ft_job_rec_t *j = g_head; j; j = j->next)
    if (j->a == a && j->fix && j->kind == FT_JOB_VERIFY && j->dst && j->dev->fix_ev &&
        ft_own_event_query(j->dev->fix_ev[j->slot]) == CUDA_ERROR_NOT_READY)
      return j->dev->fix_ev[j->slot];
  return NULL;
}

void ft_jobs_fix_drain(const ft_alloc_t *a) {
  for (CUevent ev; (ev = ft_jobs_fix_copying(a));) ft_own_event_sync(ev);
}

void ft_jobs_void_unordered(ft_alloc_t *a, int i, CUstream s, uint64_t g0, uint64_t g1) {
  for (ft_job_rec_t *j = g_head; j; j = j->next)
    if (j->a == a && j->g0 < g1 && g0 < j->g1 && !ft_ord_covers(i, j->ord_s, j->ord_t)) {
      /* the groups it checks that the write does not reach are checked again at rest
       * (a check of a table beside a buffer another stream rewrites, voided whole
       * every time, never checked the table: value_waits_do_not_deadlock_repairs) */
      if (j->voided != 1 && j->g0 < g0) ft_rest_read_owed(a, j->g0, g0);
      if (j->voided != 1 && g1 < j->g1) ft_rest_read_owed(a, g1, j->g1);
      /* a check that repairs: the write waits for it, which it could otherwise undo.
       * Its result is dropped all the same: what it did not repair, the commit must
       * not take for damage in a group this epoch rewrites (a replay would count it
       * recovered without rewriting the bytes it found damaged) */
      int waited = j->fix && j->dev->fix_ev &&
                   ft_drv.cuStreamWaitEvent(s, j->dev->fix_ev[j->slot], 0) == CUDA_SUCCESS;
      if (j->voided != 1) j->voided = waited ? 2 : 1; /* 2: what it repaired, it did */
    }
}

/* The device state a job was issued in (for reading its slot). */
ftk_job_t *ft_job_result(ft_job_rec_t *j) { return &j->dev->jobs[j->slot]; }

size_t ft_jobs_snapshot(const ftk_job_t **out, size_t cap) {
  size_t n = 0;
  for (ft_job_rec_t *j = g_head; j && n < cap; j = j->next)
    if (!j->voided) out[n++] = ft_job_result(j);
  return n;
}
