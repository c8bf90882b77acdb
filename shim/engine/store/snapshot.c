/* snapshot.c: restore points for data the GPU produced (DESIGN.md 6.8). At epoch
 * boundaries, when due, the blocks written since the last snapshot are copied
 * with their codes into pinned host memory on a stream of gpuft's own (the copy
 * engine, overlapped with the program's kernels); the operations of every epoch
 * since are kept with the bytes of each upload and of each read-back. When damage
 * that nothing else can undo is found, the snapshot is restored, the log is
 * replayed, and every replayed read-back must equal what the program received.
 * Engine lock held throughout. */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "oplog.h"

enum { SRC_NONE, SRC_COPY, SRC_MIRROR };

typedef struct ft_snapent_s {
  uint8_t *buf[2]; /* pinned: data, then (128-byte aligned) code, as a checkpoint */
  /* the promoted snapshot: where the allocation's content at that point is */
  int in_gen, src, idx;
  /* the snapshot being taken */
  int in_pend, psrc, pidx, copying;
  ft_runs_t copied; /* what the pending copy into buf[pidx] brought up to date */
  /* buf[i] holds the content as of its last copy (filled), but for the groups
   * written since: a copy into it takes only those (issue 22) */
  int filled[2];
  ft_runs_t since[2];
} ft_snapent_t;

/* Groups [g0, g1) of a were written, or may have been, since every copy. */
static void written(ft_alloc_t *a, uint64_t g0, uint64_t g1) {
  for (int i = 0; i < 2; i++) ft_runs_add(&a->snap->since[i], g0, g1, NULL, NULL);
}

void ft_snap_written(ft_alloc_t *a, uint64_t g0, uint64_t g1) {
  if (a->snap) written(a, g0, g1);
}

/* A view of a's code in buf for groups [g0, g1) alone, their data at *b0, *len bytes. */
static void run_view(const ft_alloc_t *a, uint8_t *buf, uint64_t g0, uint64_t g1, ft_code_t *c, size_t *b0,
                     size_t *len) {
  ft_code_bind_at(c, buf + ft_mirror_code_off(a), a->size, g0);
  *b0 = ft_group_start(g0);
  *len = ft_groups_len(a->size, g0, g1);
  c->len = *len;
  c->nblocks = ft_blocks_of(*len);
  c->ngroups = g1 - g0;
}

/* Copy groups [g0, g1) of a, data and code, into buf on s: the bytes copied, or -1. */
static int64_t copy_groups(const ft_alloc_t *a, uint8_t *buf, uint64_t g0, uint64_t g1, CUstream s) {
  size_t b0 = ft_group_start(g0), len = ft_groups_len(a->size, g0, g1);
  if (ft_real.cuMemcpyDtoHAsync_v2(buf + b0, a->base + b0, len, s) != CUDA_SUCCESS) return -1;
  uint64_t off[6], bytes[6];
  ft_code_groups_span(a->size, g0, g1, off, bytes);
  uint8_t *code = buf + ft_mirror_code_off(a);
  for (int k = 0; k < 6; k++) {
    if (ft_real.cuMemcpyDtoHAsync_v2(code + off[k], a->code + off[k], bytes[k], s) != CUDA_SUCCESS) return -1;
    len += bytes[k];
  }
  return (int64_t)len;
}

/* buf = what `from` holds of a: all of it, or (written in part) its coded runs, the
 * only groups a copy ever filled. */
static void seed(const ft_alloc_t *a, uint8_t *buf, const uint8_t *from) {
  if (!a->cmap) {
    memcpy(buf, from, ft_mirror_bytes(a));
    return;
  }
  ft_runs_t runs;
  ft_coded_runs(a, &runs);
  size_t co = ft_mirror_code_off(a);
  for (int k = 0; k < runs.n; k++) {
    uint64_t g0 = runs.r[k][0], g1 = runs.r[k][1], off[6], bytes[6];
    size_t b0 = ft_group_start(g0);
    memcpy(buf + b0, from + b0, ft_groups_len(a->size, g0, g1));
    ft_code_groups_span(a->size, g0, g1, off, bytes);
    for (int c = 0; c < 6; c++) memcpy(buf + co + off[c], from + co + off[c], bytes[c]);
  }
}

static uint64_t g_gen;        /* snapshots promoted (0: none yet) */
static uint64_t g_gen_id_max; /* allocations with a larger id were made after it */
static uint64_t g_pend_id_max;
static int g_pending;         /* a snapshot whose copies are in flight */
/* the contexts whose copies of the pending snapshot are in flight (each records
 * its snap_ev behind them): a program may drive several devices */
#define SNAP_DEVS 8
static ft_dev_t *g_pdev[SNAP_DEVS];
static int g_npdev;
static double g_t_last;
static int g_off;             /* disabled for the rest of the run (said once) */
/* The log: operations of the epochs since the promoted snapshot; those from
 * g_cut on came after the pending one. */
static ft_op_t *g_log;
static size_t g_nlog, g_caplog, g_cut;
static uint64_t g_epochs, g_epochs_cut, g_log_bytes;
static const char *g_broken;       /* the log since the promoted snapshot cannot be replayed */
static const char *g_broken_after; /* ... since the pending one */

int ft_snap_logging(void) {
  return FT_OPT(SNAPSHOT) && FT_OPT(MODE) == FT_MODE_RECOVER && !g_off;
}

/* Before the first snapshot, the start of the run serves as one (every allocation
 * made after it, nothing to restore): the log then holds every epoch so far. */
int ft_snap_keeps_log(void) { return ft_snap_logging(); }

int ft_snap_log_room(size_t n) { return g_log_bytes + n <= (uint64_t)FT_OPT(SNAPSHOT_LOG_MAX); }

static void turn_off(const char *why) {
  FT_INFO("snapshots of device-produced data are off: %s", why);
  g_off = 1;
}

static size_t op_bytes(const ft_op_t *o) {
  return sizeof *o + o->plen + (o->bytes ? o->n : 0);
}

static uint64_t g_cuts; /* how many times the log lost operations from its start */

static void log_drop(size_t n) {
  if (n) g_cuts++;
  for (size_t i = 0; i < n; i++) {
    g_log_bytes -= op_bytes(&g_log[i]);
    ft_op_free(&g_log[i]);
  }
  if (g_nlog > n) memmove(g_log, g_log + n, (g_nlog - n) * sizeof *g_log);
  g_nlog -= n;
  g_cut = g_cut > n ? g_cut - n : 0;
}

/* Whether an operation of the log read or wrote [lo, hi). */
static int log_touches(CUdeviceptr lo, CUdeviceptr hi) {
  for (size_t i = 0; i < g_nlog; i++)
    if (ft_op_touches(&g_log[i], lo, hi)) return 1;
  return 0;
}

static void broken(const char *why) {
  if (!g_broken) FT_DEBUG("the log since the snapshot cannot be replayed: %s", why);
  g_broken = why;
  if (g_pending) g_broken_after = why;
  /* nothing of it can serve: let it go */
  log_drop(g_nlog);
}

void ft_snap_log_epoch(ft_op_t *ops, size_t n, const char *why) {
  int keep = ft_snap_logging() && !why;
  if (keep && g_nlog + n > g_caplog) {
    size_t nc = g_caplog ? g_caplog : 256;
    while (nc < g_nlog + n) nc *= 2;
    ft_op_t *nl = realloc(g_log, nc * sizeof *nl);
    if (nl) {
      g_log = nl;
      g_caplog = nc;
    } else {
      keep = 0;
      why = "out of memory for the log";
    }
  }
  uint64_t add = 0;
  for (size_t i = 0; i < n; i++) add += op_bytes(&ops[i]);
  if (keep && g_log_bytes + add > (uint64_t)FT_OPT(SNAPSHOT_LOG_MAX)) {
    keep = 0;
    why = "the log since the snapshot outgrew GPUFT_SNAPSHOT_LOG_MAX";
  }
  if (!keep) {
    for (size_t i = 0; i < n; i++) ft_op_free(&ops[i]);
    if (why) broken(why);
    return;
  }
  if (n) memcpy(g_log + g_nlog, ops, n * sizeof *ops);
  g_nlog += n;
  g_log_bytes += add;
  if (g_log_bytes > ft_st.snapshot_log_bytes_peak) ft_st.snapshot_log_bytes_peak = g_log_bytes;
  g_epochs++;
}

void ft_snap_forget_graph(CUgraphExec g) {
  for (size_t i = 0; i < g_nlog; i++)
    if ((g_log[i].kind == FT_OP_GRAPH || g_log[i].kind == FT_OP_GRAPH_SET) && g_log[i].graph == g) {
      broken("an executable graph the log launches was changed or destroyed");
      return;
    }
}

void ft_snap_d2h_recopied(void *host, size_t n) {
  for (size_t i = g_nlog; i-- > 0;) {
    ft_op_t *o = &g_log[i];
    if (o->kind != FT_OP_D2H || o->host != host || o->n != n) continue;
    o->seen = ft_bytes_hash(host, n);
    return;
  }
}

/* ---- the store ---- */

static ft_snapent_t *entry(ft_alloc_t *a) {
  if (!a->snap) a->snap = calloc(1, sizeof *a->snap);
  return a->snap;
}

/* Buffer i of a's entry, allocated on first use within the budget. */
static uint8_t *buffer(ft_alloc_t *a, int i) {
  ft_snapent_t *e = a->snap;
  if (e->buf[i]) return e->buf[i];
  size_t need = ft_mirror_bytes(a);
  if (ft_st.snapshot_store_bytes + need > (uint64_t)FT_OPT(SNAPSHOT_HOST_MAX)) {
    FT_WARN_CAPPED(1, "snapshot budget GPUFT_SNAPSHOT_HOST_MAX=%s reached: data the GPU produced "
                   "is not covered by a snapshot (its uncorrectable errors are detected, not "
                   "recovered)", FT_OPT_S(SNAPSHOT_HOST_MAX));
    return NULL;
  }
  void *p = NULL;
  if (ft_own_host_alloc(&p, need, 0) != CUDA_SUCCESS) return NULL;
  e->buf[i] = p;
  ft_st.snapshot_store_bytes += need;
  if (ft_st.snapshot_store_bytes > ft_st.snapshot_store_peak)
    ft_st.snapshot_store_peak = ft_st.snapshot_store_bytes;
  return p;
}

static void entry_free(ft_alloc_t *a) {
  ft_snapent_t *e = a->snap;
  if (!e) return;
  for (int i = 0; i < 2; i++)
    if (e->buf[i]) {
      ft_own_host_free(e->buf[i]);
      ft_st.snapshot_store_bytes -= ft_mirror_bytes(a);
    }
  free(e);
  a->snap = NULL;
}

/* Whether every protected allocation is at rest under its code: only then are the
 * copies one consistent state. */
static int all_at_rest(void) FT_REQUIRES(ft_eng_lock) {
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (!ft_protected(a) || !a->dev) continue;
    if (a->freeing) return 0;
    if (a->state == FT_ST_UNINIT) continue;
    /* (reads not verified yet: what they fed may be wrong, and be copied as right) */
    if (a->state != FT_ST_CLEAN || a->freeing || !ft_rest_seen_done(a) || a->read_owed) {
      FT_DEBUG("snapshot: allocation #%ju not at rest (state %d, %d uses)", (uintmax_t)a->id,
               a->state, a->nuses);
      return 0;
    }
  }
  return 1;
}

static void discard_pending(void) FT_REQUIRES(ft_eng_lock) {
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_snapent_t *e = ft_reg_at(i)->snap;
    if (!e || !e->in_pend) continue;
    if (e->copying) e->filled[e->pidx] = 0; /* partly copied */
    e->in_pend = e->copying = 0;
  }
  g_pending = 0;
  g_broken_after = NULL;
  ft_st.snapshots_discarded++;
}

/* d's stream and event for snapshot copies (made in its context), and d among the
 * contexts of the pending snapshot: 0, or -1. */
static int join(ft_dev_t *d) FT_REQUIRES(ft_eng_lock) {
  for (int k = 0; k < g_npdev; k++)
    if (g_pdev[k] == d) return 0;
  if (g_npdev == SNAP_DEVS) return -1;
  int in = ft_dev_enter(d), ok = 1;
  if (!d->snap_stream && ft_drv.cuStreamCreate(&d->snap_stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    d->snap_stream = NULL, ok = 0;
  if (ok && !d->snap_ev && ft_drv.cuEventCreate(&d->snap_ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
    d->snap_ev = NULL, ok = 0;
  /* The copies come after gpuft's own work in this context: a replay that gave up
   * can leave its restores in flight on gpuft's stream, and a copy beside them
   * would read half-restored data (snap_ev is recorded again behind the copies: a
   * wait takes the record current when it is made) */
  ok = ok && ft_drv.cuEventRecord(d->snap_ev, d->stream) == CUDA_SUCCESS &&
       ft_drv.cuStreamWaitEvent(d->snap_stream, d->snap_ev, 0) == CUDA_SUCCESS;
  ft_dev_leave(in);
  if (!ok) return -1;
  g_pdev[g_npdev++] = d;
  return 0;
}

/* Whether the pending snapshot's copies have landed on every context (wait: until
 * they have). */
static int landed(int wait) FT_REQUIRES(ft_eng_lock) {
  int all = 1;
  for (int k = 0; k < g_npdev; k++)
    all &= (wait ? ft_own_event_sync(g_pdev[k]->snap_ev)
                 : ft_own_event_query(g_pdev[k]->snap_ev)) == CUDA_SUCCESS;
  return all;
}

static void take(void) FT_REQUIRES(ft_eng_lock) {
  double t0 = ft_cpu_now();
  uint64_t idmax = 0, copied = 0;
  int ok = 1;
  g_npdev = 0;
  for (size_t i = 0; i < ft_reg_count() && ok; i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (a->id > idmax) idmax = a->id;
    if (!ft_protected(a) || !a->dev) continue;
    if (a->held) continue; /* freed by the program: no log after this snapshot uses it
                            * (its copy in the promoted one stays until this one is) */
    ft_dev_t *d = a->dev;
    if (join(d) != 0) {
      turn_off("no stream or event for the copies in a context, or more than 8 contexts");
      ok = 0;
      break;
    }
    ft_snapent_t *e = entry(a);
    if (!e) {
      ok = 0;
      break;
    }
    e->in_pend = 1;
    e->copying = 0;
    if (a->state == FT_ST_UNINIT) {
      e->psrc = SRC_NONE; /* nothing written yet: nothing to come back to */
    } else if (a->mirror && a->mirror_valid) {
      e->psrc = SRC_MIRROR; /* the checkpoint is a copy already */
    } else if (e->in_gen && e->src == SRC_COPY && !e->since[e->idx].n) {
      e->psrc = SRC_COPY; /* unchanged since the promoted copy */
      e->pidx = e->idx;
    } else {
      int b = e->in_gen && e->src == SRC_COPY ? 1 - e->idx : 0;
      uint8_t *buf = buffer(a, b);
      if (buf && !e->filled[b] && e->in_gen && e->src == SRC_COPY && e->filled[e->idx]) {
        /* the second buffer starts as a host copy of the promoted one: the device is
         * read only for what was written since (no second whole copy of a pool) */
        seed(a, buf, e->buf[e->idx]);
        e->filled[b] = 1;
        e->since[b] = e->since[e->idx];
      }
      if (!e->filled[b]) ft_coded_runs(a, &e->copied); /* never written: nothing to keep */
      else e->copied = e->since[b];
      int in = ft_dev_enter(d); /* (its copies on its own context's stream) */
      for (int k = 0; ok && k < e->copied.n; k++) {
        /* (groups never written between two runs: encoded, so that the copy checks) */
        if (buf) ft_coded_cover(d, a, e->copied.r[k][0], e->copied.r[k][1], d->snap_stream);
        int64_t got = buf ? copy_groups(a, buf, e->copied.r[k][0], e->copied.r[k][1], d->snap_stream) : -1;
        ok = got >= 0;
        copied += ok ? (uint64_t)got : 0;
      }
      ft_dev_leave(in);
      e->psrc = SRC_COPY;
      e->pidx = b;
      e->copying = 1;
      e->filled[b] = 1;
      e->since[b].n = 0;
    }
  }
  for (int k = 0; ok && k < g_npdev; k++) {
    int in = ft_dev_enter(g_pdev[k]);
    ok = ft_drv.cuEventRecord(g_pdev[k]->snap_ev, g_pdev[k]->snap_stream) == CUDA_SUCCESS;
    ft_dev_leave(in);
  }
  g_pending = 1; /* (discard_pending below undoes it when !ok) */
  if (!ok) {
    /* copies issued before the failure still write into the store: let them
     * land before anything can reuse or free their buffers */
    for (int k = 0; k < g_npdev; k++)
      if (g_pdev[k]->snap_stream) ft_own_stream_sync(g_pdev[k]->snap_stream);
    discard_pending();
    ft_st.snapshots_discarded--; /* never taken */
    return;
  }
  g_pend_id_max = idmax;
  g_cut = g_nlog;
  g_epochs_cut = g_epochs;
  g_broken_after = NULL;
  g_t_last = ft_now();
  ft_st.snapshot_bytes_copied += copied;
  ft_st.snapshot_issue_seconds += ft_cpu_now() - t0;
  FT_DEBUG("snapshot %ju taken after epoch %ju: %ju bytes copied", (uintmax_t)(g_gen + 1),
           (uintmax_t)ft_epoch, (uintmax_t)copied);
}

/* The pending snapshot's copies have landed: check them against their codes on the
 * host (a flip at rest before the copy, or during it, shows here) and promote. */
static void promote(void) FT_REQUIRES(ft_eng_lock) {
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    ft_snapent_t *e = a->snap;
    if (!e || !e->in_pend || !e->copying) continue;
    for (int k = 0; k < e->copied.n; k++) { /* what the copy brought: the rest was checked before */
      ft_code_t code;
      size_t b0, len;
      run_view(a, e->buf[e->pidx], e->copied.r[k][0], e->copied.r[k][1], &code, &b0, &len);
      uint8_t *buf = e->buf[e->pidx] + b0;
      uint64_t total = 0;
      ft_verify(buf, len, &code, NULL, 0, &total);
      if (!total) continue;
      ft_event_t ev[8];
      size_t nev = 0;
      ft_repair_t rep;
      if (ft_correct(buf, len, &code, ev, 8, &nev, &rep) == 0) continue;
      /* the device copy was damaged at rest: the checks that use it will find it,
       * and the promoted snapshot still covers it */
      FT_INFO("snapshot copy of allocation #%ju shows an uncorrectable error: snapshot "
              "dropped (the one before it, if any, stays)", (uintmax_t)a->id);
      discard_pending();
      return;
    }
  }
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_snapent_t *e = ft_reg_at(i)->snap;
    if (!e) continue;
    e->in_gen = e->in_pend;
    e->src = e->psrc;
    e->idx = e->pidx;
    e->in_pend = e->copying = 0;
  }
  log_drop(g_cut);
  g_epochs -= g_epochs_cut;
  g_broken = g_broken_after;
  g_broken_after = NULL;
  g_pending = 0;
  g_gen++;
  g_gen_id_max = g_pend_id_max;
  ft_st.snapshots++;
  /* an upper bound of the copy time: its end is seen at the next epoch boundary */
  ft_st.snapshot_landed_seconds += ft_now() - g_t_last;
}

static int poll_pending(void) FT_REQUIRES(ft_eng_lock) {
  if (g_pending && landed(0)) promote();
  return g_pending;
}

void ft_snap_epoch_closed(void) FT_REQUIRES(ft_eng_lock) {
  if (!ft_snap_logging()) return;
  if (poll_pending()) return; /* one snapshot in flight at a time */
  int any = 0;
  for (size_t i = 0; i < ft_reg_count() && !any; i++) any = ft_reg_at(i)->code && ft_reg_at(i)->dev;
  if (!any) return;
  double iv = (double)FT_OPT(SNAPSHOT_INTERVAL_MS) * 1e-3;
  /* The first one too waits an interval (from the first epoch boundary): until it,
   * the log since the start of the run is what recovers (a program that ends
   * sooner never pays for a copy of what it produced) */
  if (g_t_last == 0) g_t_last = ft_now();
  int due = g_broken || ft_now() - g_t_last >= iv ||
            g_log_bytes * 2 >= (uint64_t)FT_OPT(SNAPSHOT_LOG_MAX) ||
            g_epochs >= (uint64_t)FT_OPT(SNAPSHOT_EPOCHS);
  if (!due) return;
  if (!all_at_rest()) {
    FT_DEBUG("snapshot due, deferred: not every allocation is at rest");
    return; /* some data still in flight: at a later epoch boundary */
  }
  take();
}

void ft_snap_lose(const char *why) FT_REQUIRES(ft_eng_lock) { broken(why); }

uint64_t ft_snap_log_cuts(void) { return g_cuts; }

int ft_snap_log_needs(CUdeviceptr lo, CUdeviceptr hi) {
  return ft_snap_logging() && !g_broken && log_touches(lo, hi);
}

void ft_snap_before_write(ft_alloc_t *a, CUstream s, uint64_t g0, uint64_t g1) {
  ft_snapent_t *e = a->snap;
  if (!e) return;
  written(a, g0, g1);
  CUevent ev = a->dev ? a->dev->snap_ev : NULL;
  if (g_pending && e->in_pend && e->copying && ev && ft_own_event_query(ev) != CUDA_SUCCESS) {
    /* the copy is still reading it: this write must come after */
    ft_drv.cuStreamWaitEvent(s, ev, 0);
    ft_st.snapshot_waits++;
  }
}

/* Uploads of the log replay from the checkpoint, which holds the last upload:
 * before another one replaces it, they keep their bytes. */
static void keep_upload_bytes(ft_alloc_t *a) {
  for (size_t i = 0; i < g_nlog; i++) {
    ft_op_t *o = &g_log[i];
    if (o->kind != FT_OP_H2D || o->a != a || o->bytes || !o->n || !a->mirror) continue;
    if (!ft_snap_log_room(o->n) || !(o->bytes = malloc(o->n))) {
      broken("the log since the snapshot outgrew GPUFT_SNAPSHOT_LOG_MAX");
      return;
    }
    memcpy(o->bytes, a->mirror + o->off, o->n);
    g_log_bytes += o->n;
  }
}

void ft_snap_drain(void) {
  CUevent ev[SNAP_DEVS];
  int n = 0;
  ft_lock();
  for (int k = 0; g_pending && k < g_npdev; k++) ev[n++] = g_pdev[k]->snap_ev;
  ft_unlock();
  for (int k = 0; k < n; k++) ft_own_event_sync(ev[k]); /* gpuft's own copies only: no lock held */
}

void ft_snap_before_upload(ft_alloc_t *a) {
  keep_upload_bytes(a);
  ft_snapent_t *e = a->snap;
  int gen = e && e->in_gen && e->src == SRC_MIRROR, pend = e && e->in_pend && e->psrc == SRC_MIRROR;
  if (!gen && !pend) return;
  /* a snapshot relies on the checkpoint, which this upload replaces: keep its
   * content (both snapshots saw the same checkpoint) */
  int b = e->in_pend && e->psrc == SRC_COPY ? 1 - e->pidx : e->in_gen && e->src == SRC_COPY ? 1 - e->idx : 0;
  uint8_t *buf = buffer(a, b);
  if (!buf) {
    if (gen) broken("an upload replaced a checkpoint the snapshot needs");
    else g_broken_after = "an upload replaced a checkpoint the snapshot needs";
    return;
  }
  memcpy(buf, a->mirror, ft_mirror_bytes(a));
  /* (what was written since that snapshot is not known: all of it, next time) */
  e->filled[b] = 1;
  ft_runs_one(&e->since[b], 0, ft_groups_of(a->size));
  if (gen) e->src = SRC_COPY, e->idx = b;
  if (pend) e->psrc = SRC_COPY, e->pidx = b;
}

int ft_snap_resized(ft_alloc_t *a, uint64_t old_size, uint64_t old_code_bytes, int keep) FT_REQUIRES(ft_eng_lock) {
  CUdeviceptr cut = a->base + a->size, end = a->base + old_size;
  for (size_t i = 0; cut < end && i < g_nlog; i++)
    if (ft_op_touches(&g_log[i], cut, end)) {
      broken("memory the log since the snapshot used was unmapped");
      break;
    }
  ft_snapent_t *e = a->snap;
  if (!e) return 0;
  uint64_t was = ft_blocks_bytes(old_size) + old_code_bytes, need = ft_mirror_bytes(a);
  uint8_t *nb[2] = {NULL, NULL};
  for (int i = 0; keep && i < 2; i++) {
    void *p = NULL;
    if (!e->buf[i]) continue;
    if (ft_st.snapshot_store_bytes - was + need > (uint64_t)FT_OPT(SNAPSHOT_HOST_MAX) ||
        ft_own_host_alloc(&p, need, 0) != CUDA_SUCCESS || !p ||
        ft_ckpt_copy_host(e->buf[i], old_size, p, a->size) != 0)
      keep = 0;
    nb[i] = p;
  }
  for (int i = 0; i < 2; i++) {
    if (!e->buf[i]) continue;
    ft_own_host_free(e->buf[i]);
    ft_st.snapshot_store_bytes -= was;
    e->buf[i] = NULL;
    if (keep) {
      e->buf[i] = nb[i];
      ft_st.snapshot_store_bytes += need;
    } else if (nb[i]) {
      ft_own_host_free(nb[i]);
    }
  }
  if (!keep) {
    /* the snapshot no longer holds a: an error in it is detected, not recovered */
    free(e);
    a->snap = NULL;
    return -1;
  }
  if (ft_st.snapshot_store_bytes > ft_st.snapshot_store_peak)
    ft_st.snapshot_store_peak = ft_st.snapshot_store_bytes;
  uint64_t ng = ft_groups_of(a->size);
  ft_runs_clip(&e->copied, ng);
  for (int i = 0; i < 2; i++) ft_runs_clip(&e->since[i], ng);
  return 0;
}

CUevent ft_snap_copying(const ft_alloc_t *a) {
  return a->snap && g_pending && a->snap->copying && a->dev ? a->dev->snap_ev : NULL;
}

void ft_snap_forget_alloc(ft_alloc_t *a) {
  ft_snapent_t *e = a->snap;
  if (e && g_pending && e->copying && a->dev) ft_own_event_sync(a->dev->snap_ev); /* never copy freed memory */
  if (log_touches(a->base, a->base + a->size)) broken("memory the log since the snapshot used was freed");
  entry_free(a);
}

/* Whether the promoted snapshot (or the pending one) and the log since can give
 * back a's content: it was in the snapshot, or made after it (the log wrote all
 * of it). */
static int covers(const ft_alloc_t *a, int pending) {
  if (pending)
    return g_pending && !g_broken_after && (a->id > g_pend_id_max || (a->snap && a->snap->in_pend));
  /* (g_gen 0: the start of the run, g_gen_id_max 0: every allocation came after) */
  return !g_broken && (a->id > g_gen_id_max || (a->snap && a->snap->in_gen));
}

int ft_snap_can_recover(const ft_alloc_t *a) {
  if (!ft_snap_logging() || !a->dev || !ft_epoch_replayable())
    return 0;
  return covers(a, 0) || covers(a, 1);
}

static CUresult restore(ft_dev_t *d, ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  ft_snapent_t *e = a->snap;
  const uint8_t *from = e->src == SRC_COPY ? e->buf[e->idx] : a->mirror;
  CUresult r = ft_real.cuMemcpyHtoDAsync_v2(a->base, from, a->size, d->stream);
  if (r == CUDA_SUCCESS)
    r = ft_real.cuMemcpyHtoDAsync_v2(a->code, from + ft_mirror_code_off(a), a->code_bytes, d->stream);
  /* written in part: groups the snapshot never held came back as whatever its buffer
   * had, and some may be marked coded since; every group is encoded again */
  if (r == CUDA_SUCCESS && a->cmap) ft_reencode(d, a, 0, ft_groups_of(a->size), d->stream);
  return r;
}

int ft_snap_recover(ft_dev_t *d, const char **why) FT_REQUIRES(ft_eng_lock) {
  double t0 = ft_now();
  *why = NULL;
  if (g_pending) {
    /* Its copies have landed (the context is synchronised). Damage already there
     * when they were taken shows in their check against the codes, and the
     * snapshot is then dropped; damage that struck after them is not in them. */
    landed(1);
    promote();
    if (g_pending) discard_pending();
  }
  if (g_broken) {
    *why = g_broken;
    goto fail;
  }
  ft_dev_t *used[SNAP_DEVS];
  int nused = 0;
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    ft_snapent_t *e = a->snap;
    if (!a->dev || !e || !e->in_gen || e->src == SRC_NONE || !a->code) continue;
    /* on its own context's stream, finished before any replayed operation reads it */
    int k = 0, in = ft_dev_enter(a->dev);
    CUresult r = restore(a->dev, a);
    ft_dev_leave(in);
    while (k < nused && used[k] != a->dev) k++;
    if (k == nused && nused < SNAP_DEVS) used[nused++] = a->dev;
    else if (k == nused) ft_own_stream_sync(a->dev->stream);
    if (r != CUDA_SUCCESS) {
      *why = "the snapshot could not be copied back";
      goto fail;
    }
    ft_set_state(a, FT_ST_CLEAN);
    a->mirror_valid = e->src == SRC_MIRROR;
    written(a, 0, ft_groups_of(a->size)); /* and the replay below writes it unseen */
  }
  for (int k = 0; k < nused; k++)
    if (used[k] != d && ft_own_stream_sync(used[k]->stream) != CUDA_SUCCESS) {
      *why = "the snapshot could not be copied back";
      goto fail;
    }
  int differs = 0;
  ft_op_replay_begin();
  for (size_t i = 0; i < g_nlog; i++)
    if (ft_op_replay(d, &g_log[i], FT_REPLAY_LOGGED, &differs) != CUDA_SUCCESS) {
      ft_op_replay_end();
      *why = "an operation of the log since the snapshot could not be re-issued";
      goto fail;
    }
  if (!ft_op_replay_end()) {
    *why = "the replay failed on the device";
    goto fail;
  }
  if (ft_epoch_replay_ops(d, &differs) != 0) {
    *why = "the operations since the last synchronisation cannot be replayed";
    goto fail;
  }
  if (ft_own_stream_sync(d->stream) != CUDA_SUCCESS) {
    *why = "the replay failed on the device";
    goto fail;
  }
  if (differs) {
    *why = "replaying since the snapshot gave read-backs that differ from what the program "
           "received (kernels that are not deterministic, e.g. floating-point atomics)";
    goto fail;
  }
  ft_st.snapshot_recoveries++;
  ft_st.snapshot_epochs_replayed += g_epochs + 1;
  if (g_epochs + 1 > ft_st.snapshot_depth_max) ft_st.snapshot_depth_max = g_epochs + 1;
  ft_st.snapshot_recovery_seconds += ft_now() - t0;
  ft_st.replayed_ops += g_nlog;
  FT_INFO("restored the snapshot and replayed %ju epochs (%zu operations) in %.3f s",
          (uintmax_t)(g_epochs + 1), g_nlog, ft_now() - t0);
  return 0;
fail:
  ft_st.snapshot_recovery_failures++;
  ft_st.snapshot_recovery_seconds += ft_now() - t0;
  return -1;
}

void ft_snap_dev_release(ft_dev_t *d) FT_REQUIRES(ft_eng_lock) {
  if (d->snap_stream) {
    /* the context goes: its allocations are untracked by the caller, and a log that
     * used them cannot be replayed; snapshots start over */
    if (g_pending) {
      landed(1);
      discard_pending();
    }
    for (size_t i = 0; i < ft_reg_count(); i++)
      if (ft_reg_at(i)->dev == d) entry_free(ft_reg_at(i));
    log_drop(g_nlog);
    g_gen = 0;
    g_broken = g_broken_after = NULL;
  }
  int in = ft_dev_enter(d);
  if (d->snap_ev) ft_drv.cuEventDestroy_v2(d->snap_ev);
  d->snap_ev = NULL;
  if (d->snap_stream) ft_drv.cuStreamDestroy_v2(d->snap_stream);
  d->snap_stream = NULL;
  ft_dev_leave(in);
}
