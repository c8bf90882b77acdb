/* oplog.c: the log of the current epoch (DESIGN.md 6.3): the operations gpuft
 * passes to the driver between two commits, with what it takes to re-issue them,
 * the read-backs the program may have looked at (settled), and the re-issue of
 * logged operations on gpuft's stream. epoch.c restores and replays through it;
 * snapshot.c keeps closed epochs' operations. Engine lock held throughout. */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "access.h"
#include "oplog.h"

typedef ft_op_t op_t;

static op_t *g_ops;
static size_t g_nops, g_cap;
static int g_unreplayable;
static const char *g_why;

/* Read without the lock by fast paths (a hint); written under it. */
size_t ft_epoch_ops(void) { return __atomic_load_n(&g_nops, __ATOMIC_RELAXED); }
static void set_nops(size_t n) { __atomic_store_n(&g_nops, n, __ATOMIC_RELAXED); }
int ft_epoch_replayable(void) { return !g_unreplayable; }

void ft_epoch_unreplayable(const char *why) {
  if (!g_unreplayable) {
    g_unreplayable = 1;
    g_why = why;
    FT_DEBUG("epoch %ju cannot be replayed: %s", (uintmax_t)ft_epoch, why);
  }
}

static CUcontext g_ctx; /* the context of the epoch's first operation */

static op_t *push(int kind) {
  if (g_unreplayable) return NULL;
  /* (a program driving two devices: each operation is replayed in its own context) */
  CUcontext c = NULL;
  if (ft_drv.cuCtxGetCurrent && ft_drv.cuCtxGetCurrent(&c) != CUDA_SUCCESS) c = NULL;
  if (!g_nops) g_ctx = c;
  if (g_nops == g_cap) {
    size_t nc = g_cap ? g_cap * 2 : 64;
    op_t *n = realloc(g_ops, nc * sizeof *n);
    if (!n) {
      ft_epoch_unreplayable("out of memory for the epoch log");
      return NULL;
    }
    g_ops = n;
    g_cap = nc;
  }
  op_t *o = &g_ops[g_nops];
  set_nops(g_nops + 1);
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->ctx = c;
  return o;
}

/* A kernel launch's parameters into o; 0, or -1 (out of memory: o is dropped). */
static int set_launch(op_t *o, CUfunction f, int coop, const unsigned grid[3], const unsigned block[3],
                      unsigned shmem, const uint8_t *params, size_t len, ft_func_t *fn) {
  o->f = f;
  o->fn = fn;
  o->coop = coop;
  memcpy(o->grid, grid, sizeof o->grid);
  memcpy(o->block, block, sizeof o->block);
  o->shmem = shmem;
  o->plen = len;
  o->params = len ? malloc(len) : NULL;
  if (len && !o->params) {
    set_nops(g_nops - 1);
    ft_epoch_unreplayable("out of memory for the epoch log");
    return -1;
  }
  if (len) memcpy(o->params, params, len);
  return 0;
}

void ft_log_launch(CUfunction f, int coop, const unsigned grid[3], const unsigned block[3],
                   unsigned shmem, const uint8_t *params, size_t len, ft_func_t *fn,
                   const ft_span_t *writes, int nwrites) {
  op_t *o = push(FT_OP_LAUNCH);
  if (!o) return;
  o->nw = nwrites >= 0 && nwrites <= FT_OP_WRITES ? nwrites : -1;
  if (o->nw > 0) memcpy(o->w, writes, (size_t)o->nw * sizeof *writes);
  (void)set_launch(o, f, coop, grid, block, shmem, params, len, fn);
}

void ft_log_graph_set(CUgraphExec g, CUgraphNode node, CUfunction f, const unsigned grid[3],
                      const unsigned block[3], unsigned shmem, const uint8_t *params, size_t len,
                      ft_func_t *fn, int first) {
  op_t *o = push(FT_OP_GRAPH_SET);
  if (!o || set_launch(o, f, 0, grid, block, shmem, params, len, fn) != 0) return;
  o->graph = g;
  o->node = node;
  if (!first) return;
  /* before the epoch's first operation on g: the parameters its launches had */
  size_t at = 0;
  while (at + 1 < g_nops && !((g_ops[at].kind == FT_OP_GRAPH || g_ops[at].kind == FT_OP_GRAPH_SET) &&
                              g_ops[at].graph == g))
    at++;
  op_t moved = g_ops[g_nops - 1];
  memmove(&g_ops[at + 1], &g_ops[at], (g_nops - 1 - at) * sizeof *g_ops);
  g_ops[at] = moved;
}

void ft_log_h2d(ft_alloc_t *a, size_t off, size_t n) {
  if (!a->mirror) {
    ft_epoch_unreplayable("an upload without a checkpoint (GPUFT_CKPT_MAX reached)");
    return;
  }
  op_t *o = push(FT_OP_H2D);
  if (!o) return;
  o->a = a;
  o->dst = a->base + off; /* (compared without reading a, which may be freed first) */
  o->off = off;
  o->n = n;
  a->h2d_epoch = ft_epoch;
  a->read_since_upload = 0;
}

int ft_log_h2d_supersede(ft_alloc_t *a, size_t off, size_t n) {
  size_t end = off + n;
  if (a->read_since_upload) return 0;
  for (size_t i = 0; i < g_nops; i++) {
    const op_t *o = &g_ops[i];
    /* one it does not cover whole (elsewhere in a pool, say): the epoch ends too.
     * (Keeping it would be sound, the checkpoint still holding its bytes, but that
     * commit is what lets several streams' read-backs be verified before the next
     * stream's writes to a are issued: their pending verifications would be voided,
     * an allocation's in-flight state being one for all of it.) */
    if (o->kind == FT_OP_H2D && o->a == a && (o->off < off || o->off + o->n > end)) return 0;
  }
  /* the earlier uploads it covers are replaced, as far as anyone could tell */
  size_t k = 0;
  for (size_t i = 0; i < g_nops; i++) {
    const op_t *o = &g_ops[i];
    if (o->kind == FT_OP_H2D && o->a == a && o->off >= off && o->off + o->n <= end) continue;
    g_ops[k++] = g_ops[i];
  }
  set_nops(k);
  return 1;
}

/* Events for settling read-backs, reused. */
static CUevent g_evpool[256];
static int g_nev;

static CUevent event_get(void) {
  if (g_nev) return g_evpool[--g_nev];
  CUevent e = NULL;
  if (ft_drv.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) return NULL;
  return e;
}

static void event_put(CUevent e) {
  if (!e) return;
  if (g_nev < 256) g_evpool[g_nev++] = e;
  else ft_drv.cuEventDestroy_v2(e);
}

/* When o's stream is known to the host to be past it (its order, or else an event
 * behind it): 0, or -1 (then nothing can tell: never replayed into the host). */
static int track_done(op_t *o, CUstream s, int tick) {
  o->ord_s = tick ? ft_ord_advance(s) : ft_ord_stream_index(s);
  o->ord_t = o->ord_s >= 0 ? ft_ord_tick(o->ord_s) : 0;
  o->done = event_get();
  if (o->done && ft_drv.cuEventRecord(o->done, s) == CUDA_SUCCESS) return 0;
  event_put(o->done);
  o->done = NULL;
  o->settled = 1;
  return -1;
}

void ft_log_d2h(void *host, CUdeviceptr src, size_t n, CUstream s, int sync) {
  op_t *o = push(FT_OP_D2H);
  if (!o) return;
  o->host = host;
  o->src = src;
  o->n = n;
  o->sync = sync;
  o->ord_s = -1;
  if (sync) return; /* settled by its caller, when it returns (ft_epoch_settle_sync) */
  /* (the read-back is enqueued); cannot tell when the program may use the buffer:
   * never replay into it */
  if (track_done(o, s, 1) != 0) ft_epoch_unreplayable("a read-back whose completion cannot be tracked");
}

/* A hash of the bytes the program received: a difference in a single 8-byte word
 * always changes it. Four independent lanes over consecutive words (each step a
 * bijection of its lane's state), folded at the end by h = h*K + lane with K odd,
 * injective in each lane when the others are fixed. One lane was a chain of
 * dependent multiplies (4.0 ms per 16 MiB read back, on the 2-core development
 * machine); four take 2.3-2.6 ms there, where memory bandwidth bounds them. */
uint64_t ft_bytes_hash(const void *p, size_t n) {
  const uint8_t *b = p;
  const uint64_t K = 0x100000001b3ull;
  uint64_t h[4] = {0xcbf29ce484222325ull ^ n, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
                   0x165667b19e3779f9ull};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    memcpy(w, b + i, 32);
    for (int k = 0; k < 4; k++) {
      h[k] = (h[k] ^ w[k]) * K;
      h[k] ^= h[k] >> 29;
    }
  }
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    h[0] = (h[0] ^ w) * K;
    h[0] ^= h[0] >> 29;
  }
  for (; i < n; i++) h[0] = (h[0] ^ b[i]) * K;
  return ((h[0] * K + h[1]) * K + h[2]) * K + h[3];
}

/* Operations that write host memory: read-backs, and graphs copying to the host. */
static int writes_host(const op_t *o) {
  return o->kind == FT_OP_D2H || (o->kind == FT_OP_GRAPH && o->host_writes);
}

/* The program may look at o's host buffer from now on: remember what it holds (a
 * graph's: nothing; it is never relaunched once settled). */
static void settle(op_t *o) {
  o->settled = 1;
  event_put(o->done);
  o->done = NULL;
  if (o->kind == FT_OP_GRAPH) return;
  if (ft_host_readable(o->host, o->n)) o->seen = ft_bytes_hash(o->host, o->n);
  else ft_epoch_unreplayable("a read-back into host memory gpuft cannot read");
}

void ft_epoch_settle(void) {
  for (size_t i = 0; i < g_nops; i++) {
    op_t *o = &g_ops[i];
    if (!writes_host(o) || o->settled || !o->done) continue;
    /* Not merely complete: the program learns that from a synchronisation covering
     * it (another thread's unrelated one does not tell it). Untracked streams: once
     * complete. */
    if (o->ord_s >= 0 ? ft_ord_host_covers(o->ord_s, o->ord_t)
                      : ft_own_event_query(o->done) == CUDA_SUCCESS)
      settle(o);
  }
}

void ft_epoch_host_fn(uint64_t seq, int si) {
  for (size_t i = 0; i < g_nops; i++) {
    op_t *o = &g_ops[i];
    /* only what its stream is ordered after can have completed when it runs */
    if (writes_host(o) && !o->sync && !o->settled && !o->fn_seen &&
        (o->ord_s < 0 || si < 0 || ft_ord_covers(si, o->ord_s, o->ord_t)))
      o->fn_seen = seq;
  }
}

void ft_epoch_settle_sync(const void *host) {
  for (size_t i = 0; i < g_nops; i++) {
    op_t *o = &g_ops[i];
    if (o->kind == FT_OP_D2H && o->sync && !o->settled && o->host == host) settle(o);
  }
}

int ft_oplog_d2h_recopied(void *host, size_t n) {
  /* the latest read-back into host: what the program now has */
  for (size_t i = g_nops; i-- > 0;) {
    op_t *o = &g_ops[i];
    if (o->kind != FT_OP_D2H || o->host != host || o->n != n) continue;
    if (o->settled) o->seen = ft_bytes_hash(host, n);
    return 1;
  }
  return 0;
}

void ft_log_d2d(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  op_t *o = push(FT_OP_D2D);
  if (!o) return;
  o->dst = dst;
  o->src = src;
  o->n = n;
}

void ft_log_memset(CUdeviceptr dst, uint32_t pattern, size_t n_elems, int elem_bytes) {
  op_t *o = push(FT_OP_MEMSET);
  if (!o) return;
  o->dst = dst;
  o->pattern = pattern;
  o->n = n_elems;
  o->elem = elem_bytes;
}

void ft_log_graph(CUgraphExec g, const ft_span_t *writes, int nwrites, CUstream s, int host_writes) {
  if (nwrites < 0) {
    ft_epoch_unreplayable("a graph launch writing more allocations than its log entry holds");
    return;
  }
  op_t *o = push(FT_OP_GRAPH);
  if (!o) return;
  o->graph = g;
  o->nw = nwrites;
  memcpy(o->w, writes, (size_t)nwrites * sizeof *writes);
  o->host_writes = host_writes;
  /* (its launch already advanced the stream's clock) */
  if (host_writes && track_done(o, s, 0) != 0)
    ft_epoch_unreplayable("a graph copying to host memory whose completion cannot be tracked");
}

int ft_oplog_forget_graph(CUgraphExec g) {
  for (size_t i = 0; i < g_nops && !g_unreplayable; i++)
    if ((g_ops[i].kind == FT_OP_GRAPH || g_ops[i].kind == FT_OP_GRAPH_SET) && g_ops[i].graph == g) {
      ft_epoch_unreplayable("an executable graph it launched was changed or destroyed");
      return 1;
    }
  return 0;
}

void ft_op_free(op_t *o) {
  free(o->params);
  free(o->bytes);
  free(o->scratch);
  event_put(o->done);
  memset(o, 0, sizeof *o);
}

ft_op_t *ft_oplog_take(int keep, size_t *n, const char **why) {
  if (keep && !g_unreplayable) {
    /* every job is finished: each read-back has completed, and the program has
     * not returned from the synchronisation that shows it */
    for (size_t i = 0; i < g_nops; i++) {
      op_t *o = &g_ops[i];
      /* (a graph that copied to the host cannot be compared in the snapshot's log:
       * the program saw what it wrote, and a relaunch would write it again) */
      if (o->kind == FT_OP_GRAPH && o->host_writes)
        ft_epoch_unreplayable("a graph copying to host memory (closed: the program may have looked)");
      if (o->kind == FT_OP_D2H && !o->settled) {
        /* complete (every job is done), though the program may not know it yet:
         * what it will see is in the buffer now */
        if (o->done && ft_own_event_query(o->done) != CUDA_SUCCESS)
          ft_epoch_unreplayable("a read-back still in flight when its epoch closed");
        else
          settle(o);
      }
    }
  }
  *why = g_unreplayable ? g_why : NULL;
  *n = g_nops;
  if (keep && !g_unreplayable) return g_ops;
  for (size_t i = 0; i < g_nops; i++) ft_op_free(&g_ops[i]);
  return NULL;
}

CUcontext ft_epoch_ctx(void) { return g_nops ? g_ctx : NULL; }

void ft_oplog_reset(void) {
  set_nops(0);
  g_unreplayable = 0;
  g_why = NULL;
}

const char *ft_epoch_why(void) { return g_why; }

/* ---- re-issue ---- */

/* After a replayed operation wrote [p, p+n): its code follows. */
static void reencode_range(ft_dev_t *d, CUdeviceptr p, size_t n) FT_REQUIRES(ft_eng_lock) {
  ft_alloc_t *a = ft_reg_find(p);
  if (!ft_protected(a)) return;
  uint64_t off = p - a->base;
  ft_reencode(d, a, ft_group_of(off), ft_groups_of(off + n), d->stream);
}

static void verify_range(ft_dev_t *d, CUdeviceptr p, size_t n, int why) FT_REQUIRES(ft_eng_lock) {
  ft_alloc_t *a = ft_reg_find(p);
  if (!a || !a->code || a->state != FT_ST_CLEAN) return;
  uint64_t off = p - a->base;
  if (ft_job_issue(d, why, a, ft_group_of(off), ft_groups_of(off + n), d->stream, NULL, -1))
    ft_rest_verify_owed(a); /* not issued (a full ledger): verified when it comes to rest */
}

/* A replayed launch's output, encoded over the groups it was logged to write of a
 * (as the launch itself did): 1, or 0 when they are not known. Only when the code
 * of a holds elsewhere (clean: restored, or not written by the epoch). */
static int replay_encode_spans(ft_dev_t *d, const op_t *o, ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  if (o->nw < 0 || a->state != FT_ST_CLEAN) return 0;
  int found = 0;
  for (int k = 0; k < o->nw; k++)
    if (o->w[k].base == a->base) {
      ft_reencode(d, a, o->w[k].g0, o->w[k].g1, d->stream);
      found = 1;
    }
  return found;
}

static CUresult replay_launch(ft_dev_t *d, const op_t *o, int check) FT_REQUIRES(ft_eng_lock) {
  CUresult r;
  if (o->coop) {
    void *args[FT_MAX_PARAMS];
    for (int i = 0; i < o->fn->nparams; i++) args[i] = o->params + o->fn->param_off[i];
    r = ft_real.cuLaunchCooperativeKernel(o->f, o->grid[0], o->grid[1], o->grid[2], o->block[0],
                                          o->block[1], o->block[2], o->shmem, d->stream, args);
  } else {
    size_t len = o->plen;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, o->params, CU_LAUNCH_PARAM_BUFFER_SIZE, &len,
                     CU_LAUNCH_PARAM_END};
    r = ft_real.cuLaunchKernel(o->f, o->grid[0], o->grid[1], o->grid[2], o->block[0], o->block[1],
                               o->block[2], o->shmem, d->stream, NULL, o->plen ? extra : NULL);
  }
  if (r != CUDA_SUCCESS) return r;
  /* the replayed launch is checked like the original one */
  for (size_t off = 0; off + 8 <= o->plen; off += 8) {
    uint64_t v;
    memcpy(&v, o->params + off, 8);
    ft_alloc_t *a = v >= 4096 ? ft_reg_find((CUdeviceptr)v) : NULL;
    if (!ft_protected(a)) continue;
    int acc = o->fn->slot_acc[off / 8];
    if (acc == FT_ACC_NONE || (acc == FT_ACC_READ && !check)) continue;
    if (acc == FT_ACC_READ) {
      if (ft_job_issue(d, FT_WHY_READ_AFTER, a, 0, ft_groups_of(a->size), d->stream, o->fn,
                       (int)(off / 8)))
        ft_rest_verify_owed(a); /* not issued (a full ledger): verified when it comes to rest */
    } else if (!replay_encode_spans(d, o, a)) {
      a->dirty_part = 0; /* the replay's writes are not bounded here: all of it */
      ft_rest_encode(a, d->stream);
    }
  }
  return CUDA_SUCCESS;
}

/* A read-back of the snapshot log, replayed: does it give the bytes the program
 * received (their hash)? */
static CUresult replay_compare(ft_dev_t *d, const op_t *o, int *differs) {
  uint8_t *tmp = malloc(o->n ? o->n : 1);
  if (!tmp) return CUDA_ERROR_OUT_OF_MEMORY;
  CUresult r = ft_real.cuMemcpyDtoHAsync_v2(tmp, o->src, o->n, d->stream);
  if (r == CUDA_SUCCESS) r = ft_own_stream_sync(d->stream);
  if (r == CUDA_SUCCESS && (!o->settled || ft_bytes_hash(tmp, o->n) != o->seen)) {
    *differs = 1;
    FT_INFO("a replayed read-back of %zu bytes differs from what the program received "
            "(the kernels are not deterministic)", o->n);
  }
  free(tmp);
  return r;
}

/* The context state the last replayed operation ran in (NULL: none yet). */
static ft_dev_t *g_replay_dev;

void ft_op_replay_begin(void) { g_replay_dev = NULL; }

int ft_op_replay_end(void) {
  ft_dev_t *d = g_replay_dev;
  g_replay_dev = NULL;
  return d ? ft_own_stream_sync(d->stream) == CUDA_SUCCESS : 1;
}

static CUresult op_replay(ft_dev_t *d, op_t *o, int mode, int *differs) FT_REQUIRES(ft_eng_lock);

CUresult ft_op_replay(ft_dev_t *d, op_t *o, int mode, int *differs) {
  /* in the context it was issued in, on that context's stream; across contexts in
   * the order issued: what ran on the last one is finished first */
  ft_dev_t *od = o->ctx ? ft_dev_find(o->ctx) : NULL;
  if (od && od->ok) d = od;
  if (g_replay_dev && g_replay_dev != d && ft_own_stream_sync(g_replay_dev->stream) != CUDA_SUCCESS)
    return CUDA_ERROR_LAUNCH_FAILED;
  g_replay_dev = d;
  int in = ft_dev_enter(d);
  CUresult r = op_replay(d, o, mode, differs);
  ft_dev_leave(in);
  return r;
}

static CUresult op_replay(ft_dev_t *d, op_t *o, int mode, int *differs) {
  CUstream s = d->stream;
  CUresult r = CUDA_SUCCESS;
  switch (o->kind) {
    case FT_OP_LAUNCH:
      return replay_launch(d, o, mode != FT_REPLAY_LOGGED);
    case FT_OP_H2D:
      if (!o->bytes) return ft_upload_replay(d, o->a, o->off, o->n, s);
      r = ft_real.cuMemcpyHtoDAsync_v2(o->a->base + o->off, o->bytes, o->n, s);
      if (r == CUDA_SUCCESS) reencode_range(d, o->a->base + o->off, o->n);
      return r;
    case FT_OP_D2H: {
      if (mode == FT_REPLAY_LOGGED) return replay_compare(d, o, differs);
      /* the program may have looked: its buffer is not written, the source must
       * give the same bytes again (checked once the replay finished) */
      void *dst = o->host;
      if (o->settled) {
        free(o->scratch);
        if (!(dst = o->scratch = malloc(o->n ? o->n : 1))) return CUDA_ERROR_OUT_OF_MEMORY;
      }
      r = ft_real.cuMemcpyDtoHAsync_v2(dst, o->src, o->n, s);
      if (r == CUDA_SUCCESS) verify_range(d, o->src, o->n, FT_WHY_D2H);
      return r;
    }
    case FT_OP_D2D:
      r = ft_real.cuMemcpyDtoDAsync_v2(o->dst, o->src, o->n, s);
      if (r == CUDA_SUCCESS) {
        reencode_range(d, o->dst, o->n);
        if (mode != FT_REPLAY_LOGGED) verify_range(d, o->src, o->n, FT_WHY_COPY_SRC);
      }
      return r;
    case FT_OP_GRAPH_SET: {
      /* a kernel node's parameters as the program set them between two launches */
      void *args[FT_MAX_PARAMS];
      for (int i = 0; i < o->fn->nparams; i++) args[i] = o->params + o->fn->param_off[i];
      CUDA_KERNEL_NODE_PARAMS kp;
      memset(&kp, 0, sizeof kp);
      kp.func = o->f;
      kp.gridDimX = o->grid[0], kp.gridDimY = o->grid[1], kp.gridDimZ = o->grid[2];
      kp.blockDimX = o->block[0], kp.blockDimY = o->block[1], kp.blockDimZ = o->block[2];
      kp.sharedMemBytes = o->shmem;
      kp.kernelParams = args;
      return ft_real.cuGraphExecKernelNodeSetParams_v2(o->graph, o->node, &kp);
    }
    case FT_OP_GRAPH:
      /* the same executable graph (never changed since: ft_oplog_forget_graph), on
       * gpuft's stream; what its nodes write is encoded as its launch did. One that
       * copied to the host is relaunched only while the program cannot have looked */
      if (o->host_writes && (o->settled || mode == FT_REPLAY_LOGGED)) return CUDA_ERROR_NOT_PERMITTED;
      r = ft_real.cuGraphLaunch(o->graph, s);
      for (int k = 0; r == CUDA_SUCCESS && k < o->nw; k++) {
        ft_alloc_t *a = ft_reg_find_base(o->w[k].base);
        if (!ft_protected(a)) continue;
        if (a->state == FT_ST_CLEAN) ft_reencode(d, a, o->w[k].g0, o->w[k].g1, s);
        else ft_rest_encode(a, s);
      }
      return r;
    case FT_OP_MEMSET:
      if (o->elem == 1) r = ft_real.cuMemsetD8Async(o->dst, (unsigned char)o->pattern, o->n, s);
      else if (o->elem == 2) r = ft_real.cuMemsetD16Async(o->dst, (unsigned short)o->pattern, o->n, s);
      else r = ft_real.cuMemsetD32Async(o->dst, o->pattern, o->n, s);
      if (r == CUDA_SUCCESS) reencode_range(d, o->dst, o->n * (size_t)o->elem);
      return r;
  }
  return r;
}

static void drop_scratch(void) {
  for (size_t i = 0; i < g_nops; i++) {
    free(g_ops[i].scratch);
    g_ops[i].scratch = NULL;
  }
}

/* After a replay: every read-back the program may have looked at got the same
 * bytes again; else what it saw cannot be made right and the epoch is lost. */
int ft_oplog_seen_again(void) {
  int same = 1;
  for (size_t i = 0; i < g_nops; i++) {
    op_t *o = &g_ops[i];
    if (o->kind != FT_OP_D2H || !o->scratch) continue;
    if (ft_bytes_hash(o->scratch, o->n) != o->seen) {
      same = 0;
      FT_DEBUG("read-back %zu of %zu (%zu bytes from %#llx, %s%s) differs on replay", i + 1, g_nops,
               o->n, (unsigned long long)o->src, o->sync ? "synchronous" : "asynchronous",
               o->fn_seen ? ", seen by a host function" : "");
    }
    free(o->scratch);
    o->scratch = NULL;
  }
  if (!same) {
    ft_epoch_unreplayable("the program already received a read-back that the replay does not "
                          "reproduce bit for bit");
    FT_WARN_CAPPED(8, "cannot replay: the program already received a read-back that the replay "
                      "does not reproduce bit for bit");
  }
  return same;
}

/* Read-backs a host function that has run may have looked at hold what it saw:
 * settled now, as if returned (one held back, ops_sync.c, runs after the replay). */
void ft_oplog_settle_seen(void) {
  for (size_t i = 0; i < g_nops; i++)
    if (writes_host(&g_ops[i]) && g_ops[i].fn_seen && !g_ops[i].settled &&
        ft_host_fn_ran(g_ops[i].fn_seen))
      settle(&g_ops[i]);
}

/* Re-issue the current epoch's operations in order. */
int ft_oplog_replay_all(ft_dev_t *d) FT_REQUIRES(ft_eng_lock) {
  ft_op_replay_begin();
  for (size_t i = 0; i < g_nops; i++) {
    CUresult r = ft_op_replay(d, &g_ops[i], FT_REPLAY_INTO_PROGRAM, NULL);
    if (r != CUDA_SUCCESS) {
      FT_WARN_CAPPED(8, "replaying operation %zu of %zu failed (error %d)", i + 1, g_nops, (int)r);
      ft_op_replay_end(); /* before its read-backs' buffers go */
      ft_own_stream_sync(d->stream);
      drop_scratch();
      return -1;
    }
  }
  ft_st.replayed_ops += g_nops;
  return ft_op_replay_end() ? 0 : -1;
}

int ft_epoch_replay_ops(ft_dev_t *d, int *differs) FT_REQUIRES(ft_eng_lock) {
  if (g_unreplayable) {
    FT_WARN_CAPPED(8, "cannot replay the operations since the last synchronisation: %s", g_why);
    return -1;
  }
  ft_oplog_settle_seen();
  if (ft_oplog_replay_all(d) != 0) return -1;
  if (ft_own_stream_sync(d->stream) != CUDA_SUCCESS) return -1;
  if (!ft_oplog_seen_again()) *differs = 1;
  return 0;
}

int ft_op_touches(const op_t *o, CUdeviceptr lo, CUdeviceptr hi) {
  if (o->kind == FT_OP_GRAPH || o->kind == FT_OP_GRAPH_SET) return 1; /* (what its nodes read is not logged: anything) */
#define IN(p) ((p) >= lo && (p) < hi)
  if ((o->kind == FT_OP_H2D && IN(o->dst)) || (o->kind == FT_OP_D2H && IN(o->src)) ||
      (o->kind == FT_OP_D2D && (IN(o->src) || IN(o->dst))) || (o->kind == FT_OP_MEMSET && IN(o->dst)))
    return 1;
  for (size_t off = 0; o->kind == FT_OP_LAUNCH && off + 8 <= o->plen; off += 8) {
    uint64_t v;
    memcpy(&v, o->params + off, 8);
    if (IN(v)) return 1;
  }
#undef IN
  return 0;
}

int ft_epoch_needs(CUdeviceptr lo, CUdeviceptr hi) {
  for (size_t i = 0; i < g_nops && !g_unreplayable; i++)
    if (ft_op_touches(&g_ops[i], lo, hi)) return 1;
  return 0;
}

/* `a` is being freed: an epoch whose log touches it can no longer be replayed. */
void ft_epoch_forget_alloc(const ft_alloc_t *a) {
  if (ft_epoch_needs(a->base, a->base + a->size))
    ft_epoch_unreplayable("memory it used was freed before it was committed");
}
