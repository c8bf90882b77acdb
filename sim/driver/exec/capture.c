/* capture.c: stream capture (CUDA 13 semantics): operations queued on a capturing
 * stream become graph nodes instead of running; events fork and join other
 * streams into a capture; the errors and the invalidation the driver gives for
 * calls that are illegal during capture; the capture modes of threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

/* cuda.h maps these names to their newest ABIs; every ABI is defined here. */
#undef cuStreamBeginCapture
#undef cuStreamGetCaptureInfo
#undef cuStreamUpdateCaptureDependencies

struct sim_capture_s {
  sim_graph_t *graph;         /* ref; a handle while the capture lives */
  bool own_graph;             /* made by the capture (not cuStreamBeginCaptureToGraph) */
  CUstreamCaptureMode mode;
  pthread_t thread;
  unsigned long long id;
  sim_stream_t *origin;
  bool invalid;
  sim_stream_t **streams;     /* every stream in the capture, origin first (refs) */
  size_t n_streams;
  sim_event_t **events;       /* events recorded by it (refs) */
  size_t n_events;
  CUgraphEdgeData *zero_edges; /* default edge data handed out by GetCaptureInfo */
  size_t n_zero;
};

/* One lock for every capture, the capture fields of streams and events, and the
 * list of live captures. Taken after a graph's or an event's lock, never before. */
static pthread_mutex_t cap_mu = PTHREAD_MUTEX_INITIALIZER;
static sim_capture_t **caps;
static size_t n_caps;
static atomic_size_t n_caps_live; /* read without the lock on the hot path */
static unsigned long long next_id = 1;
static uint64_t mark_gen;         /* node marks for the join check */

/* ---- the thread's capture mode (cuThreadExchangeStreamCaptureMode) ---- */
/* Kept as the value of a pthread key (mode + 1; 0: never set, the default GLOBAL):
 * no per-thread memory to free (see ctx.c on __thread data in a dlopened library). */
static pthread_key_t mode_key;
static pthread_once_t mode_once = PTHREAD_ONCE_INIT;
static void mode_key_make(void) { pthread_key_create(&mode_key, NULL); }
static CUstreamCaptureMode thread_mode(void) {
  pthread_once(&mode_once, mode_key_make);
  uintptr_t v = (uintptr_t)pthread_getspecific(mode_key);
  return v ? (CUstreamCaptureMode)(v - 1) : CU_STREAM_CAPTURE_MODE_GLOBAL;
}

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  SIM_CHECK_INIT();
  if (!mode || *mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
  CUstreamCaptureMode old = thread_mode();
  pthread_setspecific(mode_key, (void *)(uintptr_t)(*mode + 1));
  *mode = old;
  return CUDA_SUCCESS;
}

/* ---- helpers (cap_mu held) ---- */
static void deps_set(sim_gnode_t ***deps, size_t *n, sim_gnode_t *const *from, size_t k) {
  free(*deps);
  *deps = NULL;
  *n = 0;
  if (!k) return;
  if (!(*deps = malloc(k * sizeof **deps))) abort();
  memcpy(*deps, from, k * sizeof *from);
  *n = k;
}

static void deps_add(sim_gnode_t ***deps, size_t *n, sim_gnode_t *const *from, size_t k) {
  for (size_t i = 0; i < k; i++) {
    bool have = false;
    for (size_t j = 0; j < *n && !have; j++) have = (*deps)[j] == from[i];
    if (have) continue;
    sim_gnode_t **nd = realloc(*deps, (*n + 1) * sizeof *nd);
    if (!nd) abort();
    *deps = nd;
    (*deps)[(*n)++] = from[i];
  }
}

static void invalidate(sim_capture_t *c, const char *why) {
  if (!c->invalid) sim_log("stream capture %llu invalidated: %s", c->id, why);
  c->invalid = true;
}

static void join(sim_capture_t *c, sim_stream_t *s) {
  sim_stream_t **ns = realloc(c->streams, (c->n_streams + 1) * sizeof *ns);
  if (!ns) abort();
  c->streams = ns;
  sim_obj_ref(&s->obj);
  c->streams[c->n_streams++] = s;
  s->cap = c;
  atomic_store(&s->capturing, true);
}

/* A node of s's capture after its current dependencies; they become the node. */
static sim_gnode_t *cap_add(sim_stream_t *s, CUgraphNodeType t) {
  sim_gnode_t *n = sim_graph_add(s->cap->graph, t, s->cap_deps, s->n_cap_deps);
  deps_set(&s->cap_deps, &s->n_cap_deps, &n, 1);
  return n;
}

/* Captures of blocking streams of ctx: the legacy stream would depend on them. */
static bool legacy_blocked(sim_ctx_t *ctx, bool inval) {
  bool hit = false;
  for (size_t i = 0; i < n_caps; i++)
    for (size_t k = 0; k < caps[i]->n_streams; k++) {
      sim_stream_t *t = caps[i]->streams[k];
      if (t->obj.ctx == ctx && !(t->flags & CU_STREAM_NON_BLOCKING) && t->cap == caps[i]) {
        hit = true;
        if (inval) invalidate(caps[i], "the legacy stream was used while a blocking stream captures");
      }
    }
  return hit;
}

static void capture_end(sim_capture_t *c) {
  for (size_t i = 0; i < c->n_streams; i++) {
    sim_stream_t *t = c->streams[i];
    if (t->cap == c) {
      t->cap = NULL;
      atomic_store(&t->capturing, false);
      deps_set(&t->cap_deps, &t->n_cap_deps, NULL, 0);
    }
    sim_obj_unref(&t->obj);
  }
  for (size_t i = 0; i < c->n_events; i++) {
    sim_event_t *ev = c->events[i];
    if (ev->cap == c) {
      ev->cap = NULL;
      deps_set(&ev->cap_deps, &ev->n_cap_deps, NULL, 0);
    }
    sim_obj_unref(&ev->obj);
  }
  for (size_t i = 0; i < n_caps; i++)
    if (caps[i] == c) caps[i] = caps[--n_caps];
  atomic_store(&n_caps_live, n_caps);
  free(c->streams);
  free(c->events);
  free(c->zero_edges);
  free(c);
}

/* ---- hooks for the entry points that queue work ---- */
CUresult sim_capture_check_enqueue(sim_stream_t *s) {
  if (!atomic_load(&s->capturing) && !(s->legacy && atomic_load(&n_caps_live))) return CUDA_SUCCESS;
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&cap_mu);
  if (s->legacy && legacy_blocked(s->obj.ctx, true)) r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  else if (s->cap && s->cap->invalid) r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  pthread_mutex_unlock(&cap_mu);
  return r;
}

CUresult sim_capture_check_sync(sim_stream_t *s) {
  if (!atomic_load(&s->capturing) && !(s->legacy && atomic_load(&n_caps_live))) return CUDA_SUCCESS;
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&cap_mu);
  if (s->legacy && legacy_blocked(s->obj.ctx, true)) {
    r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  } else if (s->cap) {
    invalidate(s->cap, "a capturing stream was synchronised or queried");
    r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  pthread_mutex_unlock(&cap_mu);
  return r;
}

CUresult sim_capture_check_ctx(sim_ctx_t *ctx) {
  if (!atomic_load(&n_caps_live)) return CUDA_SUCCESS;
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&cap_mu);
  for (size_t i = 0; i < n_caps; i++)
    if (caps[i]->origin->obj.ctx == ctx) {
      invalidate(caps[i], "its context was synchronised");
      r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
  pthread_mutex_unlock(&cap_mu);
  return r;
}

/* A potentially unsafe call (cuMemAlloc, cuMemFree...) under the thread's capture
 * mode: prohibited by this thread's own non-relaxed capture, and in GLOBAL mode
 * also by another thread's GLOBAL capture. */
CUresult sim_capture_check_unsafe(const char *call) {
  if (!atomic_load(&n_caps_live)) return CUDA_SUCCESS;
  CUstreamCaptureMode mine = thread_mode();
  if (mine == CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_SUCCESS;
  pthread_t self = pthread_self();
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&cap_mu);
  for (size_t i = 0; i < n_caps; i++) {
    sim_capture_t *c = caps[i];
    bool local = pthread_equal(c->thread, self) && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED;
    bool global = mine == CU_STREAM_CAPTURE_MODE_GLOBAL && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL;
    if (local || global) {
      sim_log("%s during stream capture %llu (capture mode %s): not permitted", call, c->id,
              c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL ? "global" : "thread-local");
      invalidate(c, "a potentially unsafe call was made");
      r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
  }
  pthread_mutex_unlock(&cap_mu);
  return r;
}

CUresult sim_capture_refuse(sim_stream_t *s, const char *what) {
  if (!atomic_load(&s->capturing)) return CUDA_SUCCESS;
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&cap_mu);
  if (s->cap) {
    char why[160];
    snprintf(why, sizeof why, "%s cannot be captured", what);
    invalidate(s->cap, why);
    r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  pthread_mutex_unlock(&cap_mu);
  return r;
}

CUresult sim_capture_check_copy(sim_stream_t *s, bool at_call) {
  return at_call ? sim_capture_refuse(s, "a copy whose source is read at the call (a batch's access order)")
                 : CUDA_SUCCESS;
}

/* The CUDA_MEMCPY3D a captured copy is reported as (cuGraphMemcpyNodeGetParams). */
static void copy_params(const sim_copy_t *c, CUDA_MEMCPY3D *p) {
  memset(p, 0, sizeof *p);
  p->srcMemoryType = c->src_dev ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  p->srcDevice = c->src_dev;
  p->srcHost = c->src_dev ? NULL : c->src;
  p->srcPitch = c->spitch;
  p->srcHeight = c->spitch ? c->sslice / c->spitch : 0;
  p->dstMemoryType = c->dst_dev ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  p->dstDevice = c->dst_dev;
  p->dstHost = c->dst_dev ? NULL : c->dst;
  p->dstPitch = c->dpitch;
  p->dstHeight = c->dpitch ? c->dslice / c->dpitch : 0;
  p->WidthInBytes = c->width;
  p->Height = c->height;
  p->Depth = c->depth;
}

static const char *op_name(sim_optype_t t) {
  switch (t) {
    case SIM_OP_MEMOP: return "a stream memory operation (cuStreamWriteValue/WaitValue/BatchMemOp)";
    case SIM_OP_FREE: return "a stream-ordered free";
    case SIM_OP_TASK: return "a conditional node of a graph launched into the capture";
    default: return "an event record of a graph launched into the capture";
  }
}

bool sim_capture_take(sim_stream_t *s, sim_op_t *op) {
  pthread_mutex_lock(&cap_mu);
  sim_capture_t *c = s->cap;
  if (!c) {
    pthread_mutex_unlock(&cap_mu);
    return false; /* the capture ended meanwhile: the op runs */
  }
  sim_gnode_t *n;
  if (!c->invalid) switch (op->type) {
    case SIM_OP_NOP: break; /* an ordering point: the capture's edges order it */
    case SIM_OP_LAUNCH:
      n = cap_add(s, CU_GRAPH_NODE_TYPE_KERNEL);
      n->u.launch = op->u.launch;
      op->u.launch = NULL;
      op->type = SIM_OP_NOP;
      break;
    case SIM_OP_COPY:
      n = cap_add(s, CU_GRAPH_NODE_TYPE_MEMCPY);
      n->u.copy.c = op->u.copy; /* never staged: a pageable side is used when the node runs */
      copy_params(&op->u.copy, &n->u.copy.p);
      break;
    case SIM_OP_MEMSET: {
      const sim_memset_t *m = &op->u.memset;
      n = cap_add(s, CU_GRAPH_NODE_TYPE_MEMSET);
      n->u.memset.m = *m;
      n->u.memset.p = (CUDA_MEMSET_NODE_PARAMS){m->dst_dev ? m->dst_dev : (CUdeviceptr)(uintptr_t)m->dst, m->pitch,
                                                m->value, m->elem, m->width, m->height};
      break;
    }
    case SIM_OP_HOSTFN:
      n = cap_add(s, CU_GRAPH_NODE_TYPE_HOST);
      n->u.host = (CUDA_HOST_NODE_PARAMS){op->u.hostfn.fn, op->u.hostfn.data};
      break;
    default: {
      char why[160];
      snprintf(why, sizeof why, "%s is not captured by the simulator", op_name(op->type));
      invalidate(c, why);
    }
  }
  pthread_mutex_unlock(&cap_mu);
  if (op->type == SIM_OP_EVENT) sim_event_complete(op->u.event.ev, op->u.event.gen); /* never waited for */
  sim_op_free(op);
  return true;
}

CUresult sim_capture_event_record(sim_stream_t *s, sim_event_t *ev, unsigned flags, bool *taken) {
  *taken = false;
  CUresult r = sim_capture_check_enqueue(s);
  if (r) return r;
  pthread_mutex_lock(&cap_mu);
  if (ev->cap && ev->cap != s->cap) deps_set(&ev->cap_deps, &ev->n_cap_deps, NULL, 0);
  if (!s->cap) {
    ev->cap = NULL; /* an ordinary record again */
  } else if (flags & CU_EVENT_RECORD_EXTERNAL) {
    sim_gnode_t *n = cap_add(s, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
    sim_obj_ref(&ev->obj);
    n->u.event = ev;
    *taken = true;
  } else {
    sim_capture_t *c = s->cap;
    if (ev->cap != c) {
      sim_event_t **ne = realloc(c->events, (c->n_events + 1) * sizeof *ne);
      if (!ne) abort();
      c->events = ne;
      sim_obj_ref(&ev->obj);
      c->events[c->n_events++] = ev;
      ev->cap = c;
    }
    deps_set(&ev->cap_deps, &ev->n_cap_deps, s->cap_deps, s->n_cap_deps);
    *taken = true;
  }
  pthread_mutex_unlock(&cap_mu);
  return r;
}

CUresult sim_capture_event_wait(sim_stream_t *s, sim_event_t *ev, unsigned flags, bool *taken) {
  *taken = false;
  if (!atomic_load(&s->capturing) && !atomic_load(&n_caps_live)) return CUDA_SUCCESS;
  CUresult r = sim_capture_check_enqueue(s);
  if (r) return r;
  pthread_mutex_lock(&cap_mu);
  sim_capture_t *c = ev->cap;
  if (c && c->invalid) {
    r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  } else if (c) {
    *taken = true;
    if (s->legacy) {
      r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    } else if (!s->cap) { /* a fork: s joins the capture */
      join(c, s);
      deps_set(&s->cap_deps, &s->n_cap_deps, ev->cap_deps, ev->n_cap_deps);
    } else if (s->cap == c) {
      deps_add(&s->cap_deps, &s->n_cap_deps, ev->cap_deps, ev->n_cap_deps);
    } else {
      invalidate(s->cap, "it waited on an event of another capture");
      invalidate(c, "another capture waited on its event");
      r = CUDA_ERROR_STREAM_CAPTURE_MERGE;
    }
  } else if (s->cap) {
    *taken = true;
    if (flags & CU_EVENT_WAIT_EXTERNAL) {
      sim_gnode_t *n = cap_add(s, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
      sim_obj_ref(&ev->obj);
      n->u.event = ev;
    } else {
      invalidate(s->cap, "it waited on an event recorded outside the capture");
      r = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
    }
  }
  pthread_mutex_unlock(&cap_mu);
  return r;
}

bool sim_capture_event_is_captured(sim_event_t *ev) {
  if (!atomic_load(&n_caps_live)) return false;
  pthread_mutex_lock(&cap_mu);
  bool c = ev->cap != NULL;
  pthread_mutex_unlock(&cap_mu);
  return c;
}

CUresult sim_capture_alloc(sim_stream_t *s, size_t size, uint64_t *out, bool *taken) {
  *taken = false;
  if (!atomic_load(&s->capturing)) return CUDA_SUCCESS;
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&cap_mu);
  if (s->cap) {
    *taken = true;
    sim_gnode_t *n = sim_graph_add_alloc(s->cap->graph, s->cap_deps, s->n_cap_deps, s->obj.ctx, s->obj.ctx->dev, size, &r);
    if (n) {
      deps_set(&s->cap_deps, &s->n_cap_deps, &n, 1);
      *out = n->u.mem->ptr;
    }
  }
  pthread_mutex_unlock(&cap_mu);
  return r;
}

CUresult sim_capture_free(sim_stream_t *s, uint64_t ptr, bool *taken) {
  *taken = false;
  bool graph_mem = sim_gmem_find(ptr);
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&cap_mu);
  if (s->cap) {
    *taken = true;
    if (!graph_mem) {
      r = CUDA_ERROR_INVALID_VALUE; /* only graph memory has a free node */
    } else {
      sim_gnode_t *n = cap_add(s, CU_GRAPH_NODE_TYPE_MEM_FREE);
      n->u.free_ptr = ptr;
    }
  }
  pthread_mutex_unlock(&cap_mu);
  if (!*taken && graph_mem) { /* graph memory freed outside a graph, in stream order */
    *taken = true;
    if (!sim_gmem_release(ptr, s)) r = CUDA_ERROR_INVALID_VALUE; /* not allocated now */
  }
  return r;
}

/* A stream that joined a capture may be destroyed before the capture ends: its
 * nodes stay in the graph, and the capture keeps it (a ref) to ask at the end
 * whether its work was joined back (NVIDIA's graphMemoryNodes destroys its forked
 * stream once joined; invalidating that failed the sample). The origin's
 * destruction ends nothing well: the capture is invalidated. */
void sim_capture_stream_gone(sim_stream_t *s) {
  if (!atomic_load(&s->capturing)) return;
  pthread_mutex_lock(&cap_mu);
  if (s->cap && s->cap->origin == s) invalidate(s->cap, "its origin stream was destroyed");
  pthread_mutex_unlock(&cap_mu);
}

/* ---- API ---- */
static CUresult begin(CUstream hs, CUstreamCaptureMode mode, int ptds, sim_graph_t *into, sim_gnode_t **deps,
                      size_t n_deps) {
  if (mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
  sim_stream_t *s;
  CUresult r = sim_stream_get_any(hs, ptds, &s);
  if (r) return r;
  if (s->legacy) {
    sim_obj_unref(&s->obj);
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* documented: the legacy stream cannot be captured */
  }
  pthread_mutex_lock(&cap_mu);
  if (s->cap) {
    r = CUDA_ERROR_ILLEGAL_STATE;
  } else {
    sim_capture_t *c = calloc(1, sizeof *c);
    sim_capture_t **nc = realloc(caps, (n_caps + 1) * sizeof *nc);
    if (!c || !nc) abort();
    caps = nc;
    caps[n_caps++] = c;
    atomic_store(&n_caps_live, n_caps);
    c->own_graph = !into;
    c->graph = into ? into : sim_graph_new();
    if (into) sim_obj_ref(&into->obj);
    else {
      sim_obj_ref(&c->graph->obj);
      sim_handle_add(&c->graph->obj); /* GetCaptureInfo hands it out */
    }
    c->mode = mode;
    c->thread = pthread_self();
    c->id = next_id++;
    c->origin = s;
    join(c, s);
    deps_set(&s->cap_deps, &s->n_cap_deps, deps, n_deps);
  }
  pthread_mutex_unlock(&cap_mu);
  sim_obj_unref(&s->obj);
  return r;
}
CUresult cuStreamBeginCapture_v2(CUstream h, CUstreamCaptureMode m) { return begin(h, m, 0, NULL, NULL, 0); }
CUresult cuStreamBeginCapture_v2_ptsz(CUstream h, CUstreamCaptureMode m) { return begin(h, m, 1, NULL, NULL, 0); }

static CUresult begin_to_graph(CUstream hs, CUgraph hg, const CUgraphNode *deps, const CUgraphEdgeData *e, size_t n,
                               CUstreamCaptureMode mode, int ptds) {
  SIM_CHECK_INIT();
  for (size_t i = 0; e && i < n; i++)
    if (e[i].from_port || e[i].to_port || e[i].type) return CUDA_ERROR_NOT_SUPPORTED;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(hg, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  sim_gnode_t **d;
  CUresult r = sim_graph_deps(g, deps, n, true, &d);
  if (!r) r = begin(hs, mode, ptds, g, d, n);
  free(d);
  sim_obj_unref(&g->obj);
  return r;
}
CUresult cuStreamBeginCaptureToGraph(CUstream hs, CUgraph g, const CUgraphNode *d, const CUgraphEdgeData *e, size_t n,
                                     CUstreamCaptureMode m) {
  return begin_to_graph(hs, g, d, e, n, m, 0);
}
CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream hs, CUgraph g, const CUgraphNode *d, const CUgraphEdgeData *e,
                                          size_t n, CUstreamCaptureMode m) {
  return begin_to_graph(hs, g, d, e, n, m, 1);
}

/* Every other stream of the capture must have been joined back into the origin:
 * its last nodes are ancestors of (or among) the origin's. */
static bool all_joined(sim_capture_t *c) {
  uint64_t mark = ++mark_gen;
  sim_graph_t *g = c->graph;
  pthread_mutex_lock(&g->mu);
  sim_gnode_t **stack = malloc((g->n + 1) * sizeof *stack);
  if (!stack) abort();
  size_t sp = 0;
  for (size_t i = 0; i < c->origin->n_cap_deps; i++) stack[sp++] = c->origin->cap_deps[i];
  while (sp) { /* each node is pushed once: marked when pushed */
    sim_gnode_t *n = stack[--sp];
    n->mark = mark;
    for (size_t d = 0; d < n->n_deps; d++)
      if (n->deps[d]->mark != mark) {
        n->deps[d]->mark = mark;
        stack[sp++] = n->deps[d];
      }
  }
  free(stack);
  bool ok = true;
  for (size_t i = 1; i < c->n_streams && ok; i++) {
    sim_stream_t *t = c->streams[i];
    if (t->cap != c) continue;
    for (size_t k = 0; k < t->n_cap_deps && ok; k++) ok = t->cap_deps[k]->mark == mark;
  }
  pthread_mutex_unlock(&g->mu);
  return ok;
}

/* The stream of a capture query (out: its required output), with the lock taken. */
static CUresult locked_stream(CUstream hs, int ptds, const void *out, sim_stream_t **s) {
  if (!out) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUresult r = sim_stream_get_any(hs, ptds, s);
  if (!r) pthread_mutex_lock(&cap_mu);
  return r;
}

static CUresult unlock_stream(sim_stream_t *s, CUresult r) {
  pthread_mutex_unlock(&cap_mu);
  sim_obj_unref(&s->obj);
  return r;
}

static CUresult end_capture(CUstream hs, CUgraph *pg, int ptds) {
  sim_stream_t *s;
  CUresult r = locked_stream(hs, ptds, pg, &s);
  if (r) return r;
  *pg = NULL;
  sim_graph_t *drop = NULL;
  sim_capture_t *c = s->cap;
  if (!c) {
    r = CUDA_ERROR_ILLEGAL_STATE; /* not capturing */
  } else if (c->origin != s) {
    invalidate(c, "cuStreamEndCapture was called on a stream that did not begin it");
    r = CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
  } else if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self())) {
    r = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  } else {
    if (c->invalid) r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    else if (!all_joined(c)) r = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
    drop = c->graph;
    bool own = c->own_graph;
    capture_end(c);
    if (!r) *pg = (CUgraph)drop; /* the handle table keeps it (the program destroys it) */
    else if (own) sim_handle_remove(&drop->obj);
  }
  unlock_stream(s, r);
  /* The capture's reference, dropped unlocked: freeing graph memory drains the context. */
  if (drop) sim_obj_unref(&drop->obj);
  return r;
}
CUresult cuStreamEndCapture(CUstream h, CUgraph *g) { return end_capture(h, g, 0); }
CUresult cuStreamEndCapture_ptsz(CUstream h, CUgraph *g) { return end_capture(h, g, 1); }

static CUresult capture_info(CUstream hs, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
                             const CUgraphNode **deps, const CUgraphEdgeData **edata, size_t *n, int ptds) {
  sim_stream_t *s;
  CUresult r = locked_stream(hs, ptds, status, &s);
  if (r) return r;
  sim_capture_t *c = s->cap;
  if (s->legacy && legacy_blocked(s->obj.ctx, false)) {
    r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  } else if (!c) {
    *status = CU_STREAM_CAPTURE_STATUS_NONE;
  } else {
    *status = c->invalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    if (id) *id = c->id;
    if (graph) *graph = (CUgraph)c->graph;
    if (deps) *deps = (const CUgraphNode *)s->cap_deps;
    if (edata) {
      if (c->n_zero < s->n_cap_deps) {
        free(c->zero_edges);
        if (!(c->zero_edges = calloc(s->n_cap_deps, sizeof *c->zero_edges))) abort();
        c->n_zero = s->n_cap_deps;
      }
      *edata = c->zero_edges;
    }
    if (n) *n = s->n_cap_deps;
  }
  return unlock_stream(s, r);
}
CUresult cuStreamGetCaptureInfo(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id) {
  return capture_info(h, st, id, NULL, NULL, NULL, NULL, 0);
}
CUresult cuStreamGetCaptureInfo_ptsz(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id) {
  return capture_info(h, st, id, NULL, NULL, NULL, NULL, 1);
}
CUresult cuStreamGetCaptureInfo_v2(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,
                                   const CUgraphNode **d, size_t *n) {
  return capture_info(h, st, id, g, d, NULL, n, 0);
}
CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,
                                        const CUgraphNode **d, size_t *n) {
  return capture_info(h, st, id, g, d, NULL, n, 1);
}
CUresult cuStreamGetCaptureInfo_v3(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,
                                   const CUgraphNode **d, const CUgraphEdgeData **e, size_t *n) {
  return capture_info(h, st, id, g, d, e, n, 0);
}
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,
                                        const CUgraphNode **d, const CUgraphEdgeData **e, size_t *n) {
  return capture_info(h, st, id, g, d, e, n, 1);
}
CUresult cuStreamIsCapturing(CUstream h, CUstreamCaptureStatus *st) {
  return capture_info(h, st, NULL, NULL, NULL, NULL, NULL, 0);
}
CUresult cuStreamIsCapturing_ptsz(CUstream h, CUstreamCaptureStatus *st) {
  return capture_info(h, st, NULL, NULL, NULL, NULL, NULL, 1);
}

static CUresult update_deps(CUstream hs, CUgraphNode *deps, const CUgraphEdgeData *e, size_t n, unsigned flags,
                            int ptds) {
  SIM_CHECK_INIT();
  if (flags > CU_STREAM_SET_CAPTURE_DEPENDENCIES || (n && !deps)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; e && i < n; i++)
    if (e[i].from_port || e[i].to_port || e[i].type) return CUDA_ERROR_NOT_SUPPORTED;
  sim_stream_t *s;
  CUresult r = locked_stream(hs, ptds, &flags, &s);
  if (r) return r;
  sim_capture_t *c = s->cap;
  sim_gnode_t **d = NULL;
  if (!c) r = CUDA_ERROR_ILLEGAL_STATE;
  else if (c->invalid) r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  else r = sim_graph_deps(c->graph, deps, n, true, &d);
  if (!r) {
    if (flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES) deps_set(&s->cap_deps, &s->n_cap_deps, d, n);
    else deps_add(&s->cap_deps, &s->n_cap_deps, d, n);
  }
  free(d);
  return unlock_stream(s, r);
}
CUresult cuStreamUpdateCaptureDependencies(CUstream h, CUgraphNode *d, size_t n, unsigned int f) {
  return update_deps(h, d, NULL, n, f, 0);
}
CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream h, CUgraphNode *d, size_t n, unsigned int f) {
  return update_deps(h, d, NULL, n, f, 1);
}
CUresult cuStreamUpdateCaptureDependencies_v2(CUstream h, CUgraphNode *d, const CUgraphEdgeData *e, size_t n,
                                              unsigned int f) {
  return update_deps(h, d, e, n, f, 0);
}
CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream h, CUgraphNode *d, const CUgraphEdgeData *e, size_t n,
                                                   unsigned int f) {
  return update_deps(h, d, e, n, f, 1);
}
