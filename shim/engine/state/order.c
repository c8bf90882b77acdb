/* order.c: what the program's own streams, events and synchronisations say about
 * the order of its work (DESIGN.md 6.2): vector clocks per stream, so that gpuft
 * knows when a range is at rest without ever adding a wait between two streams. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

/* A stream's clock: vc[i] is the last operation of stream i that every
 * operation issued on this stream from now on is ordered after. Streams beyond
 * FT_ORD_STREAMS are not tracked: work on them is ordered with nothing until the
 * whole context synchronises.
 * Streams are per context: each context has its own legacy default stream (and
 * per-thread streams), ordered with the blocking streams of that context only, and
 * a context synchronisation covers that context's streams only. One table for all
 * contexts let a cuCtxSynchronize in one context (or a legacy-stream sync, which
 * took in every context's blocking streams) mark another context's running
 * kernels as complete: a commit then encoded data while a kernel still wrote it
 * (a data race found by ThreadSanitizer in robust_test's stress program, and false
 * uncorrectable errors). */
typedef struct {
  CUstream s;
  CUcontext ctx;    /* the context it belongs to (current when first seen) */
  int legacy;       /* the context's legacy default stream */
  pthread_t thread; /* the per-thread default stream is one stream per thread */
  int blocking;     /* synchronises with the legacy default stream */
  int flags_known;  /* blocking has been asked (blocking_of) */
  int gone;         /* destroyed (or its context): never looked up again */
  int cap_known;    /* a capture began on it (ft_ord_capture_before) ... */
  uint64_t cap_tick; /* ... when its own clock stood here, */
  CUevent cap_ev;    /* ... recorded on its work then (NULL: seen finished; kept past
                      * the capture, released by the next mark_before_capture) */
  uint64_t vc[FT_ORD_STREAMS];
} ord_stream_t;

static ord_stream_t g_st[FT_ORD_STREAMS];
static int g_nst;
static uint64_t g_host[FT_ORD_STREAMS]; /* what the host has seen complete */
uint64_t ft_ord_ctx_syncs;              /* whole-context synchronisations so far */

/* Events: the clock of the stream when the event was recorded. */
#define EV_BUCKETS 256
typedef struct ev_s {
  CUevent e;
  uint64_t vc[FT_ORD_STREAMS];
  struct ev_s *next;
} ev_t;
static ev_t *g_ev[EV_BUCKETS];

static void merge(uint64_t *dst, const uint64_t *src) {
  for (int i = 0; i < g_nst; i++)
    if (src[i] > dst[i]) dst[i] = src[i];
}

static CUcontext current_ctx(void) {
  CUcontext c = NULL;
  if (!ft_drv.cuCtxGetCurrent || ft_drv.cuCtxGetCurrent(&c) != CUDA_SUCCESS) c = NULL;
  return c;
}

/* The legacy stream of context c, or -1. */
static int legacy_of(CUcontext c) {
  for (int i = 0; i < g_nst; i++)
    if (g_st[i].legacy && g_st[i].ctx == c) return i;
  return -1;
}

/* An entry of a destroyed stream whose work the host has seen complete: nothing
 * gpuft still tracks can wait on it. -1 if none. */
static int recyclable(void) {
  for (int i = 0; i < g_nst; i++)
    if (g_st[i].gone && g_host[i] >= g_st[i].vc[i]) return i;
  return -1;
}

static int lookup(CUstream s, int create) {
  int per_thread = s == CU_STREAM_PER_THREAD;
  int legacy = s == CU_STREAM_LEGACY || s == 0;
  pthread_t self = per_thread ? pthread_self() : (pthread_t)0;
  /* a stream handle names one stream of one context; only the special handles
   * (legacy, per-thread) need the current context to say which */
  CUcontext c = legacy || per_thread ? current_ctx() : NULL;
  for (int i = 0; i < g_nst; i++) {
    if (g_st[i].gone) continue;
    if (legacy ? !g_st[i].legacy || g_st[i].ctx != c : g_st[i].s != s) continue;
    if (per_thread && (g_st[i].ctx != c || !pthread_equal(g_st[i].thread, self))) continue;
    return i;
  }
  if (!create) return -1;
  int n = g_nst < FT_ORD_STREAMS ? g_nst : recyclable();
  if (n < 0) return -1;
  if (!legacy && !per_thread) c = current_ctx(); /* work on a stream needs its context current */
  ord_stream_t *o = &g_st[n];
  /* a recycled entry keeps its own tick: uses and clocks that name its earlier
   * stream's operations stay below every operation of the new one */
  uint64_t tick = n < g_nst ? o->vc[n] : 0;
  /* (a capture's event, kept past its capture: released once no capture is open, when
   * no synchronisation of gpuft's can be waiting for it; else left) */
  if (n < g_nst && o->cap_ev && !__atomic_load_n(&ft_captures_open, __ATOMIC_ACQUIRE))
    ft_drv.cuEventDestroy_v2(o->cap_ev);
  memset(o, 0, sizeof *o);
  o->vc[n] = tick;
  o->s = legacy ? CU_STREAM_LEGACY : s;
  o->ctx = c;
  o->legacy = legacy;
  o->thread = self;
  o->blocking = per_thread;
  o->flags_known = per_thread || legacy;
  if (n == g_nst) g_nst++;
  return n;
}

int ft_stream_capturing(CUstream s) {
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!ft_drv.cuStreamIsCapturing) return 0;
  return ft_drv.cuStreamIsCapturing(s, &st) != CUDA_SUCCESS || st != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* Whether o's stream synchronises with the legacy stream. Its flags cannot be asked
 * while it is being captured: an H100's driver answers cuStreamGetFlags with
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the program's capture
 * (docs/gpu-results.md). Until they are known it counts as non-blocking, which
 * claims no order the flags might not give (the safe side). */
static int blocking_of(ord_stream_t *o) {
  if (o->flags_known || o->gone) return o->blocking; /* (a destroyed handle is never asked) */
  if (ft_stream_capturing(o->s)) return 0; /* asked again later */
  unsigned flags = 0;
  o->blocking = ft_drv.cuStreamGetFlags && ft_drv.cuStreamGetFlags(o->s, &flags) == CUDA_SUCCESS &&
                !(flags & CU_STREAM_NON_BLOCKING);
  o->flags_known = 1;
  return o->blocking;
}

int ft_ord_op(CUstream s) {
  int i = lookup(s, 1);
  if (i < 0) return -1;
  ord_stream_t *o = &g_st[i];
  /* the host issues this after everything it has seen complete */
  merge(o->vc, g_host);
  if (o->legacy) {
    for (int k = 0; k < g_nst; k++)
      if (g_st[k].ctx == o->ctx && blocking_of(&g_st[k])) merge(o->vc, g_st[k].vc);
  } else if (blocking_of(o)) {
    int l = legacy_of(o->ctx);
    if (l >= 0) merge(o->vc, g_st[l].vc);
  }
  o->vc[i]++;
  return i;
}

/* After work already enqueued on s: a tick of s alone. Its clock takes in nothing
 * from other streams: what they did since that work was enqueued is not ordered
 * before it (a legacy-stream tick taken after an upload had let go of the lock
 * took in a kernel another thread launched meanwhile on a blocking stream; a sync
 * of a stream ordered after the legacy one then marked that kernel complete). */
int ft_ord_advance(CUstream s) {
  int i = lookup(s, 1);
  if (i >= 0) g_st[i].vc[i]++;
  return i;
}

int ft_ord_stream_index(CUstream s) { return lookup(s, 0); }

uint64_t ft_ord_tick(int i) { return i >= 0 ? g_st[i].vc[i] : 0; }

int ft_ord_covers(int i, int by, uint64_t t) {
  if (by < 0) return 0;
  if (by == i) return 1;
  return i >= 0 && g_st[i].vc[by] >= t;
}

int ft_ord_host_covers(int by, uint64_t t) { return by >= 0 && g_host[by] >= t; }

static ev_t *ev_find(CUevent e, int create) {
  size_t h = ((uintptr_t)e >> 4) % EV_BUCKETS;
  for (ev_t *v = g_ev[h]; v; v = v->next)
    if (v->e == e) return v;
  if (!create) return NULL;
  ev_t *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->e = e;
  v->next = g_ev[h];
  g_ev[h] = v;
  return v;
}

void ft_ord_record_vc(CUevent e, const uint64_t *vc) {
  ev_t *v = ev_find(e, 1);
  if (v) memcpy(v->vc, vc, sizeof v->vc); /* (an untracked stream's: zero, orders nothing) */
}

void ft_ord_wait_vc(CUstream s, const uint64_t *vc) {
  int i = ft_ord_advance(s); /* the wait is enqueued on s */
  if (i >= 0) merge(g_st[i].vc, vc);
}

/* A synchronisation covers what was issued before it began, not what other
 * threads issue while it waits: take the clocks first, merge them once it returns. */
void ft_ord_snap_ctx(CUcontext c, uint64_t *vc) {
  if (!c) c = current_ctx();
  memset(vc, 0, sizeof(uint64_t) * FT_ORD_STREAMS);
  for (int i = 0; i < g_nst; i++)
    if (g_st[i].ctx == c) merge(vc, g_st[i].vc);
}

void ft_ord_snap_all(uint64_t *vc) { ft_ord_snap_ctx(NULL, vc); }

void ft_ord_snap_stream(CUstream s, uint64_t *vc) {
  int i = lookup(s, 0);
  memset(vc, 0, sizeof(uint64_t) * FT_ORD_STREAMS);
  if (i >= 0) memcpy(vc, g_st[i].vc, sizeof g_st[i].vc);
}

void ft_ord_snap_event(CUevent e, uint64_t *vc) {
  ev_t *v = ev_find(e, 0);
  memset(vc, 0, sizeof(uint64_t) * FT_ORD_STREAMS);
  if (v) memcpy(vc, v->vc, sizeof v->vc);
}

/* Per context, the value of ft_ord_ctx_syncs at its last whole synchronisation:
 * a use lost in one context (rest.c) is found again by a synchronisation of that
 * context, not of another. A context beyond the table is never credited (its
 * lost uses stay lost until it is back in the table: conservative). */
#define CSYNC_MAX 32
static struct {
  CUcontext c;
  uint64_t at;
} g_csync[CSYNC_MAX];
static int g_ncsync;

uint64_t ft_ord_ctx_synced_at(CUcontext c) {
  for (int i = 0; i < g_ncsync; i++)
    if (g_csync[i].c == c) return g_csync[i].at;
  return 0;
}

void ft_ord_ctx_synced(CUcontext c, const uint64_t *vc) {
  merge(g_host, vc);
  if (!c) c = current_ctx();
  uint64_t at = ++ft_ord_ctx_syncs;
  int k = 0;
  for (int i = 0; i < g_ncsync; i++) {
    if (g_csync[i].c == c) {
      g_csync[i].at = at;
      return;
    }
    if (g_csync[i].at < g_csync[k].at) k = i;
  }
  if (g_ncsync < CSYNC_MAX) k = g_ncsync++; /* else: replace the longest unsynchronised */
  g_csync[k].c = c;
  g_csync[k].at = at;
}

void ft_ord_synced(const uint64_t *vc, int whole_context) {
  if (whole_context) ft_ord_ctx_synced(NULL, vc);
  else merge(g_host, vc);
}

void ft_ord_forget_stream(CUstream s) {
  if (!s || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return;
  int i = lookup(s, 0);
  if (i >= 0) g_st[i].gone = 1; /* its work may still run: covered by its context's syncs */
}

void ft_ord_forget_ctx(CUcontext c) {
  for (int i = 0; i < g_nst; i++)
    if (!g_st[i].gone && g_st[i].ctx == c) {
      g_st[i].gone = 1;
      g_host[i] = g_st[i].vc[i]; /* the context's work is over with it */
    }
}

void ft_ord_forget_event(CUevent e) {
  size_t h = ((uintptr_t)e >> 4) % EV_BUCKETS;
  for (ev_t **p = &g_ev[h]; *p; p = &(*p)->next)
    if ((*p)->e == e) {
      ev_t *v = *p;
      *p = v->next;
      free(v);
      return;
    }
}

/* Whether stream o is being captured (a per-thread stream of another thread cannot
 * be asked: it counts as captured). */
static int captured(const ord_stream_t *o) {
  if (o->s == CU_STREAM_PER_THREAD && !pthread_equal(o->thread, pthread_self())) return 1;
  return ft_stream_capturing(o->s);
}

/* An event recorded on stream i's work so far, for a capture about to begin. */
static void mark_before_capture(int i) {
  ord_stream_t *o = &g_st[i];
  if (o->cap_ev) ft_drv.cuEventDestroy_v2(o->cap_ev);
  o->cap_ev = NULL;
  o->cap_tick = o->vc[i];
  o->cap_known = 1;
  if (g_host[i] >= o->vc[i]) return; /* (seen finished: nothing to wait for) */
  if (ft_drv.cuEventCreate(&o->cap_ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) o->cap_ev = NULL;
  else if (ft_drv.cuEventRecord(o->cap_ev, o->s) != CUDA_SUCCESS) {
    ft_drv.cuEventDestroy_v2(o->cap_ev);
    o->cap_ev = NULL;
    o->cap_known = 0;
  }
}

void ft_ord_capture_before(CUstream s, int first) {
  int i = lookup(s, 1);
  /* (not on a stream already capturing: the driver refuses the second capture, and
   * the event would be captured) */
  if (i >= 0 && !g_st[i].legacy && !captured(&g_st[i])) mark_before_capture(i);
  /* the legacy stream cannot be asked during a blocking stream's capture, nor used:
   * its work from before the first capture is all it will have meanwhile */
  int l = first ? legacy_of(current_ctx()) : -1;
  if (l >= 0) mark_before_capture(l);
}

/* (its event is kept: a synchronisation of gpuft's may be waiting for it, and the
 * end of a capture does not wait for those; it is released when the stream's next
 * capture begins, with the gate closed) */
void ft_ord_capture_end(CUstream s) {
  int i = lookup(s, 0);
  if (i >= 0) g_st[i].cap_known = 0;
}

/* Stream i cannot be synchronised now: what it ran before its capture (or, for the
 * legacy stream, before the first capture) waited for by the event recorded then.
 * A captured stream's ticks since are captured work, never run; the legacy
 * stream's would be real work, not covered. */
static void wait_before(int i, CUevent *ev, int *nev, int max, int *unknown) {
  const ord_stream_t *o = &g_st[i];
  if (!o->cap_known || (o->legacy && o->vc[i] != o->cap_tick)) {
    *unknown = 1;
    return;
  }
  if (g_host[i] >= o->cap_tick) return; /* seen finished */
  if (!o->cap_ev || *nev == max) *unknown = 1;
  else ev[(*nev)++] = o->cap_ev;
}

int ft_ord_unfinished(CUcontext c, CUstream *out, CUevent *ev, int max, int *nev, int *unknown) {
  int n = 0, legacy = -1, blocking_capture = 0;
  *unknown = 0;
  *nev = 0;
  for (int i = 0; i < g_nst; i++) {
    ord_stream_t *o = &g_st[i];
    if (o->gone || o->ctx != c) continue;
    if (o->legacy) { /* its status cannot be asked while a blocking stream captures */
      if (g_host[i] < o->vc[i]) legacy = i;
      continue;
    }
    int cap = captured(o);
    /* (flags not known yet: it may be blocking) */
    if (cap && (!o->flags_known || o->blocking)) blocking_capture = 1;
    if (g_host[i] >= o->vc[i]) continue;
    if (cap) wait_before(i, ev, nev, max, unknown);
    else if (n < max) out[n++] = o->s;
    else *unknown = 1;
  }
  if (legacy >= 0) {
    if (blocking_capture) wait_before(legacy, ev, nev, max, unknown);
    else if (n < max) out[n++] = CU_STREAM_LEGACY;
    else *unknown = 1;
  }
  return n;
}
