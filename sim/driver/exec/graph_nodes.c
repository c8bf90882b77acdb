/* graph_nodes.c: graph nodes by type: adding them (cuGraphAdd*Node, cuGraphAddNode),
 * their parameters (get/set), copies and release, graph memory. Conditional nodes'
 * own parameters: graph_cond.c. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

#undef cuGraphAddNode /* cuda.h maps it to _v2; both ABIs are defined here */

/* ---- graph memory ---- */
/* Live graph allocations, so that a free (a free node, cuMemFreeAsync) can tell
 * graph memory from other memory. */
static pthread_mutex_t gmem_mu = PTHREAD_MUTEX_INITIALIZER;
static sim_gmem_t **gmem_live;
static size_t n_gmem;

bool sim_gmem_find(uint64_t ptr) {
  bool found = false;
  pthread_mutex_lock(&gmem_mu);
  for (size_t i = 0; i < n_gmem && !found; i++) found = gmem_live[i]->ptr == ptr;
  pthread_mutex_unlock(&gmem_mu);
  return found;
}

/* ---- graph memory attributes of the device ---- */
/* Physical memory behind graph allocations, as an H100's driver (580.159) reports it
 * (docs/gpu-results.md): mapped in 32 MiB pieces when a launch allocates, and kept
 * (after the allocations are freed and the graphs destroyed) until
 * cuDeviceGraphMemTrim; the used and reserved sizes both read as what is mapped. */
#define SIM_GMEM_CHUNK ((uint64_t)32 << 20)
static uint64_t used_high[SIM_MAX_DEVICES], reserved_high[SIM_MAX_DEVICES]; /* under gmem_mu */
static uint64_t mapped[SIM_MAX_DEVICES];

static uint64_t live_bytes(int d) {
  uint64_t u = 0;
  for (size_t i = 0; i < n_gmem; i++)
    if (gmem_live[i]->dev == d && gmem_live[i]->live) u += gmem_live[i]->size;
  return u;
}
static uint64_t chunks(uint64_t n) { return (n + SIM_GMEM_CHUNK - 1) / SIM_GMEM_CHUNK * SIM_GMEM_CHUNK; }

/* Graph memory of device dev now (used, reserved); a launch's allocations map more
 * (grow), a trim keeps what live allocations need; the high watermarks follow. */
static void gmem_sums(int dev, uint64_t *used, uint64_t *reserved, int grow, int trim) {
  for (int d = 0; d < SIM_MAX_DEVICES; d++) {
    uint64_t need = chunks(live_bytes(d));
    if ((grow && need > mapped[d]) || (trim && d == dev)) mapped[d] = need;
    if (mapped[d] > used_high[d]) used_high[d] = mapped[d];
    if (mapped[d] > reserved_high[d]) reserved_high[d] = mapped[d];
    if (d == dev) *used = mapped[d], *reserved = mapped[d];
  }
}

static CUresult graph_mem_attr(CUdevice dev, CUgraphMem_attribute a, cuuint64_t *v, bool set) {
  SIM_CHECK_INIT();
  if (!sim_dev_ok(dev)) return CUDA_ERROR_INVALID_DEVICE;
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = CUDA_SUCCESS;
  uint64_t used = 0, reserved = 0;
  pthread_mutex_lock(&gmem_mu);
  gmem_sums(dev, &used, &reserved, 0, 0);
  switch (a) {
    case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT: if (set) r = CUDA_ERROR_INVALID_VALUE; else *v = used; break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT: if (set) r = CUDA_ERROR_INVALID_VALUE; else *v = reserved; break;
    /* the high watermarks can only be reset (to 0: to the current value) */
    case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
      if (set && *v) r = CUDA_ERROR_INVALID_VALUE;
      else if (set) used_high[dev] = used;
      else *v = used_high[dev];
      break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
      if (set && *v) r = CUDA_ERROR_INVALID_VALUE;
      else if (set) reserved_high[dev] = reserved;
      else *v = reserved_high[dev];
      break;
    default: r = CUDA_ERROR_INVALID_VALUE;
  }
  pthread_mutex_unlock(&gmem_mu);
  return r;
}
CUresult cuDeviceGetGraphMemAttribute(CUdevice d, CUgraphMem_attribute a, void *v) { return graph_mem_attr(d, a, v, false); }
CUresult cuDeviceSetGraphMemAttribute(CUdevice d, CUgraphMem_attribute a, void *v) { return graph_mem_attr(d, a, v, true); }

/* What no live graph allocation needs is unmapped. */
CUresult cuDeviceGraphMemTrim(CUdevice dev) {
  SIM_CHECK_INIT();
  if (!sim_dev_ok(dev)) return CUDA_ERROR_INVALID_DEVICE;
  uint64_t used, reserved;
  pthread_mutex_lock(&gmem_mu);
  gmem_sums(dev, &used, &reserved, 0, 1);
  pthread_mutex_unlock(&gmem_mu);
  return CUDA_SUCCESS;
}

bool sim_gmem_live(uint64_t ptr, int set) {
  bool was = false;
  pthread_mutex_lock(&gmem_mu);
  for (size_t i = 0; i < n_gmem; i++)
    if (gmem_live[i]->ptr == ptr) {
      was = gmem_live[i]->live;
      if (set >= 0) gmem_live[i]->live = set;
    }
  uint64_t used, reserved;
  gmem_sums(-1, &used, &reserved, set == 1, 0); /* mapped for a launch's allocation; the high watermarks */
  pthread_mutex_unlock(&gmem_mu);
  return was;
}

static void poison(uint64_t ptr, size_t size, sim_stream_t *s) {
  if (!sim_opt.poison || size < 4) return;
  sim_op_t *op = sim_op_new(SIM_OP_MEMSET);
  sim_memset_resolve(ptr, 0, 0xA5A5A5A5u, 4, size / 4, 1, &op->u.memset);
  sim_stream_enqueue(s, op);
}

bool sim_gmem_release(uint64_t ptr, sim_stream_t *s) {
  size_t size = 0;
  bool was = false;
  pthread_mutex_lock(&gmem_mu);
  for (size_t i = 0; i < n_gmem; i++)
    if (gmem_live[i]->ptr == ptr) {
      was = gmem_live[i]->live;
      gmem_live[i]->live = false;
      size = gmem_live[i]->size;
    }
  pthread_mutex_unlock(&gmem_mu);
  /* Freed memory keeps its address (the next launch allocates it there again):
   * poisoned, so that a use after the free reads garbage, as it may on a GPU. */
  if (was) poison(ptr, size, s);
  return was;
}

void sim_gmem_allocate(sim_gmem_t *m, sim_stream_t *s) {
  sim_gmem_live(m->ptr, 1);
  poison(m->ptr, m->size, s); /* fresh memory holds no earlier contents */
}

void sim_gmem_unref(sim_gmem_t *m) {
  if (!m || atomic_fetch_sub(&m->refs, 1) != 1) return;
  pthread_mutex_lock(&gmem_mu);
  for (size_t i = 0; i < n_gmem; i++)
    if (gmem_live[i] == m) gmem_live[i] = gmem_live[--n_gmem];
  pthread_mutex_unlock(&gmem_mu);
  /* Queued launches of the graph may still use it: the context drains first. */
  if (atomic_load(&m->ctx->alive)) {
    sim_ctx_sync(m->ctx);
    sim_mem_free_device(m->ptr, false);
  } /* else the context's teardown released it */
  sim_obj_unref(&m->ctx->obj);
  free(m);
}

/* ---- parameters ---- */
void sim_gnode_release(sim_gnode_t *n) {
  switch (n->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: sim_launch_free(n->u.launch); break;
    case CU_GRAPH_NODE_TYPE_GRAPH:
      sim_handle_remove(&n->u.child->obj);
      sim_obj_unref(&n->u.child->obj);
      break;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: sim_obj_unref(&n->u.event->obj); break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: sim_gmem_unref(n->u.mem); break;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: sim_cond_release(n); break;
    default: break;
  }
}

static sim_graph_t *child_copy(sim_graph_t *g) {
  sim_graph_t *c = sim_graph_clone(g, NULL);
  sim_obj_ref(&c->obj);
  sim_handle_add(&c->obj); /* cuGraphChildGraphNodeGetGraph hands it out */
  return c;
}

void sim_gnode_copy_params(sim_gnode_t *dst, const sim_gnode_t *src) {
  dst->u = src->u;
  switch (src->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: dst->u.launch = sim_launch_clone(src->u.launch); break;
    case CU_GRAPH_NODE_TYPE_GRAPH: dst->u.child = child_copy(src->u.child); break;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: sim_obj_ref(&src->u.event->obj); break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: atomic_fetch_add(&src->u.mem->refs, 1); break;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: sim_cond_copy(dst, src); break;
    default: break;
  }
}

sim_launch_t *sim_launch_clone(const sim_launch_t *t) {
  sim_launch_t *l = calloc(1, sizeof *l);
  size_t bytes = t->func->lay.param_bytes, np = t->func->lay.k->n_params;
  if (!l) abort();
  *l = (sim_launch_t){.func = t->func, .grid = t->grid, .block = t->block, .shared = t->shared, .ctx = t->ctx,
                      .coop = t->coop};
  l->args = malloc(bytes ? bytes : 1);
  l->params = calloc(np ? np : 1, sizeof *l->params);
  if (!l->args || !l->params) abort();
  memcpy(l->args, t->args, bytes);
  for (size_t p = 0; p < np; p++) l->params[p] = l->args + t->func->lay.offsets[p];
  sim_obj_ref(&l->func->obj);
  return l;
}

/* A kernel node's launch from its parameters (checked as cuLaunchKernel checks them). */
static CUresult kernel_launch(const CUDA_KERNEL_NODE_PARAMS *p, sim_launch_t **out) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  if (p->ctx && p->ctx != (CUcontext)ctx) return CUDA_ERROR_INVALID_CONTEXT;
  sim_func_t *fn;
  if ((r = sim_func_resolve(ctx, p->func ? p->func : (CUfunction)p->kern, &fn))) return r;
  if (!fn->lay.k->fn && !fn->prog) {
    sim_log("cannot add a kernel node for %s: %s", fn->lay.k->name, fn->prog_err ? fn->prog_err : "no code");
    sim_obj_unref(&fn->obj);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  r = sim_launch_prepare(ctx, fn, (simcuda_dim3){p->gridDimX, p->gridDimY, p->gridDimZ},
                         (simcuda_dim3){p->blockDimX, p->blockDimY, p->blockDimZ}, p->sharedMemBytes,
                         p->kernelParams, p->extra, out);
  sim_obj_unref(&fn->obj);
  if (!r) {
    sim_acheck_decl_free((*out)->declared); /* a declaration belongs to the next direct launch */
    (*out)->declared = NULL;
  }
  return r;
}

static CUresult memset_of(const CUDA_MEMSET_NODE_PARAMS *p, sim_memset_t *m) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  return sim_memset_resolve(p->dst, p->pitch, p->value, p->elementSize, p->width, p->height, m);
}

/* Fills n's parameters of its type from the API's; nothing is held on failure. */
typedef struct {
  const CUDA_KERNEL_NODE_PARAMS *kernel;
  const CUDA_MEMCPY3D *copy;
  const CUDA_MEMSET_NODE_PARAMS *memset;
  const CUDA_HOST_NODE_PARAMS *host;
  CUgraph child;
  CUevent event;
  CUDA_MEM_ALLOC_NODE_PARAMS *alloc;
  CUdeviceptr free_ptr;
  CUDA_CONDITIONAL_NODE_PARAMS *cond;
} params_t;

static CUresult params_make(CUgraphNodeType t, const params_t *p, sim_gnode_t *tmp) {
  CUresult r = CUDA_SUCCESS;
  switch (t) {
    case CU_GRAPH_NODE_TYPE_KERNEL: return kernel_launch(p->kernel, &tmp->u.launch);
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      if (!p->copy) return CUDA_ERROR_INVALID_VALUE;
      if ((r = sim_copy_resolve3d(p->copy, &tmp->u.copy.c))) return r;
      tmp->u.copy.p = *p->copy;
      return r;
    case CU_GRAPH_NODE_TYPE_MEMSET:
      if ((r = memset_of(p->memset, &tmp->u.memset.m))) return r;
      tmp->u.memset.p = *p->memset;
      return r;
    case CU_GRAPH_NODE_TYPE_HOST:
      if (!p->host || !p->host->fn) return CUDA_ERROR_INVALID_VALUE;
      tmp->u.host = *p->host;
      return r;
    case CU_GRAPH_NODE_TYPE_GRAPH: {
      sim_graph_t *c = (sim_graph_t *)sim_handle_get(p->child, SIM_OBJ_GRAPH);
      if (!c) return CUDA_ERROR_INVALID_VALUE;
      /* documented: a child graph may not hold memory or conditional nodes */
      if (sim_graph_has_type(c, CU_GRAPH_NODE_TYPE_MEM_ALLOC, true) ||
          sim_graph_has_type(c, CU_GRAPH_NODE_TYPE_MEM_FREE, true) ||
          sim_graph_has_type(c, CU_GRAPH_NODE_TYPE_CONDITIONAL, true))
        r = CUDA_ERROR_NOT_SUPPORTED;
      else
        tmp->u.child = child_copy(c);
      sim_obj_unref(&c->obj);
      return r;
    }
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: {
      sim_obj_t *e = sim_handle_get(p->event, SIM_OBJ_EVENT);
      if (!e) return CUDA_ERROR_INVALID_VALUE;
      tmp->u.event = (sim_event_t *)e; /* the node's reference */
      return r;
    }
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

static CUresult add_node(CUgraphNode *ph, CUgraph hg, const CUgraphNode *deps, size_t ndeps, CUgraphNodeType t,
                         const params_t *p) {
  SIM_CHECK_INIT();
  if (!ph) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(hg, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  sim_gnode_t **d = NULL, tmp = {.type = t};
  CUresult r = sim_graph_deps(g, deps, ndeps, true, &d);
  if (!r && t == CU_GRAPH_NODE_TYPE_CONDITIONAL) r = sim_cond_make(g, p->cond, &tmp);
  else if (!r && t != CU_GRAPH_NODE_TYPE_EMPTY) r = params_make(t, p, &tmp);
  if (!r) {
    sim_gnode_t *n = sim_graph_add(g, t, d, ndeps);
    n->u = tmp.u;
    *ph = (CUgraphNode)n;
  }
  free(d);
  sim_obj_unref(&g->obj);
  return r;
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, size_t n,
                                 const CUDA_KERNEL_NODE_PARAMS *p) {
  return add_node(ph, g, d, n, CU_GRAPH_NODE_TYPE_KERNEL, &(params_t){.kernel = p});
}
CUresult cuGraphAddMemcpyNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, size_t n, const CUDA_MEMCPY3D *p,
                              CUcontext ctx) {
  (void)ctx; /* one device: any context's copy is this device's */
  return add_node(ph, g, d, n, CU_GRAPH_NODE_TYPE_MEMCPY, &(params_t){.copy = p});
}
CUresult cuGraphAddMemsetNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, size_t n,
                              const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx) {
  (void)ctx;
  return add_node(ph, g, d, n, CU_GRAPH_NODE_TYPE_MEMSET, &(params_t){.memset = p});
}
CUresult cuGraphAddHostNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, size_t n, const CUDA_HOST_NODE_PARAMS *p) {
  return add_node(ph, g, d, n, CU_GRAPH_NODE_TYPE_HOST, &(params_t){.host = p});
}
CUresult cuGraphAddEmptyNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, size_t n) {
  return add_node(ph, g, d, n, CU_GRAPH_NODE_TYPE_EMPTY, &(params_t){0});
}
CUresult cuGraphAddChildGraphNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, size_t n, CUgraph child) {
  return add_node(ph, g, d, n, CU_GRAPH_NODE_TYPE_GRAPH, &(params_t){.child = child});
}
CUresult cuGraphAddEventRecordNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, size_t n, CUevent e) {
  return add_node(ph, g, d, n, CU_GRAPH_NODE_TYPE_EVENT_RECORD, &(params_t){.event = e});
}
CUresult cuGraphAddEventWaitNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, size_t n, CUevent e) {
  return add_node(ph, g, d, n, CU_GRAPH_NODE_TYPE_WAIT_EVENT, &(params_t){.event = e});
}

/* ---- memory nodes ---- */
sim_gnode_t *sim_graph_add_alloc(sim_graph_t *g, sim_gnode_t *const *deps, size_t n_deps, sim_ctx_t *ctx, int dev,
                                 size_t size, CUresult *r) {
  sim_gmem_t *m = calloc(1, sizeof *m);
  if (!m) abort();
  if ((*r = sim_mem_alloc_device(ctx, dev, size, &m->ptr))) {
    free(m);
    return NULL;
  }
  atomic_init(&m->refs, 1);
  m->size = size;
  m->ctx = ctx;
  m->dev = dev;
  sim_obj_ref(&ctx->obj);
  pthread_mutex_lock(&gmem_mu);
  sim_gmem_t **nl = realloc(gmem_live, (n_gmem + 1) * sizeof *nl);
  if (!nl) abort();
  gmem_live = nl;
  gmem_live[n_gmem++] = m;
  pthread_mutex_unlock(&gmem_mu);
  sim_gnode_t *n = sim_graph_add(g, CU_GRAPH_NODE_TYPE_MEM_ALLOC, deps, n_deps);
  n->u.mem = m;
  return n;
}

CUresult cuGraphAddMemAllocNode(CUgraphNode *ph, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                CUDA_MEM_ALLOC_NODE_PARAMS *p) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!ph || !p || !p->bytesize || p->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      p->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE || !sim_dev_ok(p->poolProps.location.id) ||
      p->poolProps.handleTypes != CU_MEM_HANDLE_TYPE_NONE || p->accessDescCount > 1)
    return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(hg, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  sim_gnode_t **d;
  if (!(r = sim_graph_deps(g, deps, ndeps, true, &d))) {
    sim_gnode_t *n = sim_graph_add_alloc(g, d, ndeps, ctx, p->poolProps.location.id, p->bytesize, &r);
    if (n) {
      p->dptr = n->u.mem->ptr;
      *ph = (CUgraphNode)n;
    }
    free(d);
  }
  sim_obj_unref(&g->obj);
  return r;
}

CUresult cuGraphAddMemFreeNode(CUgraphNode *ph, CUgraph hg, const CUgraphNode *deps, size_t ndeps, CUdeviceptr ptr) {
  SIM_CHECK_INIT();
  if (!ph) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(hg, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  sim_gnode_t **d;
  CUresult r = sim_graph_deps(g, deps, ndeps, true, &d);
  if (!r) {
    /* Only graph memory can be freed by a graph (of this graph or another one). */
    if (!sim_gmem_find(ptr)) r = CUDA_ERROR_INVALID_VALUE;
    if (!r) {
      sim_gnode_t *n = sim_graph_add(g, CU_GRAPH_NODE_TYPE_MEM_FREE, d, ndeps);
      n->u.free_ptr = ptr;
      *ph = (CUgraphNode)n;
    }
    free(d);
  }
  sim_obj_unref(&g->obj);
  return r;
}

/* ---- node parameter queries and updates ---- */
/* Node handle of the given type; +1 ref on the node's graph. */
static CUresult typed_node(CUgraphNode h, CUgraphNodeType t, sim_gnode_t **n) {
  SIM_CHECK_INIT();
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_NODE);
  if (!o) return CUDA_ERROR_INVALID_VALUE;
  *n = (sim_gnode_t *)o;
  sim_obj_ref(&(*n)->graph->obj);
  sim_obj_unref(o);
  if ((*n)->type != t) {
    sim_obj_unref(&(*n)->graph->obj);
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

void sim_gnode_kernel_params(const sim_gnode_t *n, CUDA_KERNEL_NODE_PARAMS *p) {
  const sim_launch_t *l = n->u.launch;
  memset(p, 0, sizeof *p);
  p->func = (CUfunction)l->func;
  p->gridDimX = l->grid.x, p->gridDimY = l->grid.y, p->gridDimZ = l->grid.z;
  p->blockDimX = l->block.x, p->blockDimY = l->block.y, p->blockDimZ = l->block.z;
  p->sharedMemBytes = (unsigned)l->shared;
  p->kernelParams = l->params; /* the node's own copy of the arguments */
  p->ctx = (CUcontext)l->ctx;
}

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode h, CUDA_KERNEL_NODE_PARAMS *p) {
  sim_gnode_t *n;
  CUresult r = typed_node(h, CU_GRAPH_NODE_TYPE_KERNEL, &n);
  if (r) return r;
  if (p) sim_gnode_kernel_params(n, p);
  sim_obj_unref(&n->graph->obj);
  return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Replaces the parameters of n (of a graph or an executable graph) from p. */
static CUresult gnode_set(sim_gnode_t *n, const params_t *p) {
  sim_gnode_t tmp = {.type = n->type};
  CUresult r = params_make(n->type, p, &tmp);
  if (r) return r;
  pthread_mutex_lock(&n->graph->mu);
  sim_gnode_t old = *n;
  n->u = tmp.u;
  pthread_mutex_unlock(&n->graph->mu);
  sim_gnode_release(&old);
  return CUDA_SUCCESS;
}

static CUresult node_set(CUgraphNode h, CUgraphNodeType t, const params_t *p) {
  sim_gnode_t *n;
  CUresult r = typed_node(h, t, &n);
  if (r) return r;
  r = gnode_set(n, p);
  sim_obj_unref(&n->graph->obj);
  return r;
}
CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS *p) {
  return node_set(h, CU_GRAPH_NODE_TYPE_KERNEL, &(params_t){.kernel = p});
}
CUresult cuGraphMemcpyNodeSetParams(CUgraphNode h, const CUDA_MEMCPY3D *p) {
  return node_set(h, CU_GRAPH_NODE_TYPE_MEMCPY, &(params_t){.copy = p});
}
CUresult cuGraphMemsetNodeSetParams(CUgraphNode h, const CUDA_MEMSET_NODE_PARAMS *p) {
  return node_set(h, CU_GRAPH_NODE_TYPE_MEMSET, &(params_t){.memset = p});
}
CUresult cuGraphHostNodeSetParams(CUgraphNode h, const CUDA_HOST_NODE_PARAMS *p) {
  return node_set(h, CU_GRAPH_NODE_TYPE_HOST, &(params_t){.host = p});
}
CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode h, CUevent e) {
  return node_set(h, CU_GRAPH_NODE_TYPE_EVENT_RECORD, &(params_t){.event = e});
}
CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode h, CUevent e) {
  return node_set(h, CU_GRAPH_NODE_TYPE_WAIT_EVENT, &(params_t){.event = e});
}

/* Getters of the parameters as the node holds them. */
#define NODE_GET(name, type, T, expr)                        \
  CUresult name(CUgraphNode h, T *out) {                     \
    sim_gnode_t *n;                                          \
    CUresult r = typed_node(h, type, &n);                    \
    if (r) return r;                                         \
    if (out) *out = (expr);                                  \
    sim_obj_unref(&n->graph->obj);                           \
    return out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;    \
  }
NODE_GET(cuGraphMemcpyNodeGetParams, CU_GRAPH_NODE_TYPE_MEMCPY, CUDA_MEMCPY3D, n->u.copy.p)
NODE_GET(cuGraphMemsetNodeGetParams, CU_GRAPH_NODE_TYPE_MEMSET, CUDA_MEMSET_NODE_PARAMS, n->u.memset.p)
NODE_GET(cuGraphHostNodeGetParams, CU_GRAPH_NODE_TYPE_HOST, CUDA_HOST_NODE_PARAMS, n->u.host)
NODE_GET(cuGraphChildGraphNodeGetGraph, CU_GRAPH_NODE_TYPE_GRAPH, CUgraph, (CUgraph)n->u.child)
NODE_GET(cuGraphEventRecordNodeGetEvent, CU_GRAPH_NODE_TYPE_EVENT_RECORD, CUevent, (CUevent)n->u.event)
NODE_GET(cuGraphEventWaitNodeGetEvent, CU_GRAPH_NODE_TYPE_WAIT_EVENT, CUevent, (CUevent)n->u.event)
NODE_GET(cuGraphMemFreeNodeGetParams, CU_GRAPH_NODE_TYPE_MEM_FREE, CUdeviceptr, n->u.free_ptr)

CUresult cuGraphMemAllocNodeGetParams(CUgraphNode h, CUDA_MEM_ALLOC_NODE_PARAMS *p) {
  sim_gnode_t *n;
  CUresult r = typed_node(h, CU_GRAPH_NODE_TYPE_MEM_ALLOC, &n);
  if (r) return r;
  if (p) {
    memset(p, 0, sizeof *p);
    p->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p->poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p->poolProps.location.id = n->u.mem->dev;
    p->bytesize = n->u.mem->size;
    p->dptr = n->u.mem->ptr;
  }
  sim_obj_unref(&n->graph->obj);
  return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- the generic forms (CUDA 12.2+) ---- */
/* A CUgraphNodeParams as the typed forms take it (storage for the converted ones). */
typedef struct {
  params_t p;
  CUDA_KERNEL_NODE_PARAMS k;
  CUDA_MEMSET_NODE_PARAMS ms;
  CUDA_HOST_NODE_PARAMS h;
} generic_t;

static CUresult params_of(CUgraphNodeParams *np, generic_t *g) {
  g->p = (params_t){0};
  switch (np->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
      memcpy(&g->k, &np->kernel, sizeof g->k); /* CUDA_KERNEL_NODE_PARAMS_v3 has the v2 layout */
      g->p.kernel = &g->k;
      return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_MEMCPY: g->p.copy = &np->memcpy.copyParams; return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_MEMSET:
      g->ms = (CUDA_MEMSET_NODE_PARAMS){np->memset.dst, np->memset.pitch, np->memset.value, np->memset.elementSize,
                                        np->memset.width, np->memset.height};
      g->p.memset = &g->ms;
      return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_HOST:
      g->h = (CUDA_HOST_NODE_PARAMS){np->host.fn, np->host.userData};
      g->p.host = &g->h;
      return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_GRAPH: g->p.child = np->graph.graph; return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: g->p.event = np->eventRecord.event; return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: g->p.event = np->eventWait.event; return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_EMPTY: return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: g->p.cond = &np->conditional; return CUDA_SUCCESS;
    default:
      sim_log("graph node type %d through cuGraphAddNode/cuGraphNodeSetParams is not simulated", (int)np->type);
      return CUDA_ERROR_NOT_SUPPORTED;
  }
}

CUresult cuGraphAddNode_v2(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, const CUgraphEdgeData *e, size_t n,
                           CUgraphNodeParams *np) {
  SIM_CHECK_INIT();
  if (!np) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; e && i < n; i++)
    if (e[i].from_port || e[i].to_port || e[i].type) return CUDA_ERROR_NOT_SUPPORTED;
  if (np->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
    CUDA_MEM_ALLOC_NODE_PARAMS a = {np->alloc.poolProps, np->alloc.accessDescs, np->alloc.accessDescCount,
                                    np->alloc.bytesize, 0};
    CUresult r = cuGraphAddMemAllocNode(ph, g, d, n, &a);
    np->alloc.dptr = a.dptr;
    return r;
  }
  if (np->type == CU_GRAPH_NODE_TYPE_MEM_FREE) return cuGraphAddMemFreeNode(ph, g, d, n, np->free.dptr);
  generic_t gp;
  CUresult r = params_of(np, &gp);
  if (r) return r;
  return add_node(ph, g, d, n, np->type, &gp.p);
}
CUresult cuGraphAddNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *d, size_t n, CUgraphNodeParams *np) {
  return cuGraphAddNode_v2(ph, g, d, NULL, n, np);
}

static CUresult exec_set(CUgraphExec he, CUgraphNode hn, CUgraphNodeType t, const params_t *p);

/* cuGraphNodeSetParams (e NULL) and cuGraphExecNodeSetParams. */
static CUresult generic_set(CUgraphExec e, CUgraphNode h, CUgraphNodeParams *np) {
  SIM_CHECK_INIT();
  if (!np) return CUDA_ERROR_INVALID_VALUE;
  generic_t gp;
  CUresult r = params_of(np, &gp);
  if (r) return r;
  if (np->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
    sim_log("%s: the parameters of a conditional node cannot be changed (its bodies are set through the graphs "
            "it handed out)", e ? "cuGraphExecNodeSetParams" : "cuGraphNodeSetParams");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (np->type == CU_GRAPH_NODE_TYPE_EMPTY || (!e && np->type == CU_GRAPH_NODE_TYPE_GRAPH))
    return CUDA_ERROR_INVALID_VALUE;
  return e ? exec_set(e, h, np->type, &gp.p) : node_set(h, np->type, &gp.p);
}
CUresult cuGraphNodeSetParams(CUgraphNode h, CUgraphNodeParams *np) { return generic_set(NULL, h, np); }

/* ---- executable graph nodes (cuGraphExec*SetParams) ---- */
static CUresult exec_set(CUgraphExec he, CUgraphNode hn, CUgraphNodeType t, const params_t *p) {
  sim_gnode_t *orig, *n;
  CUresult r = typed_node(hn, t, &orig);
  if (r) return r;
  sim_obj_t *hold;
  if (!(r = sim_graph_exec_node(he, orig, &n, &hold))) {
    /* The topology and the node kinds of an executable graph are fixed. */
    if (t == CU_GRAPH_NODE_TYPE_KERNEL && p->kernel && p->kernel->ctx &&
        p->kernel->ctx != (CUcontext)n->u.launch->ctx)
      r = CUDA_ERROR_INVALID_VALUE;
    if (!r) r = gnode_set(n, p);
    sim_obj_unref(hold);
  }
  sim_obj_unref(&orig->graph->obj);
  return r;
}
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS *p) {
  return exec_set(e, h, CU_GRAPH_NODE_TYPE_KERNEL, &(params_t){.kernel = p});
}
CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec e, CUgraphNode h, const CUDA_MEMCPY3D *p, CUcontext ctx) {
  (void)ctx;
  return exec_set(e, h, CU_GRAPH_NODE_TYPE_MEMCPY, &(params_t){.copy = p});
}
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec e, CUgraphNode h, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx) {
  (void)ctx;
  return exec_set(e, h, CU_GRAPH_NODE_TYPE_MEMSET, &(params_t){.memset = p});
}
CUresult cuGraphExecHostNodeSetParams(CUgraphExec e, CUgraphNode h, const CUDA_HOST_NODE_PARAMS *p) {
  return exec_set(e, h, CU_GRAPH_NODE_TYPE_HOST, &(params_t){.host = p});
}
CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec e, CUgraphNode h, CUgraph child) {
  return exec_set(e, h, CU_GRAPH_NODE_TYPE_GRAPH, &(params_t){.child = child});
}
CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec e, CUgraphNode h, CUevent ev) {
  return exec_set(e, h, CU_GRAPH_NODE_TYPE_EVENT_RECORD, &(params_t){.event = ev});
}
CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec e, CUgraphNode h, CUevent ev) {
  return exec_set(e, h, CU_GRAPH_NODE_TYPE_WAIT_EVENT, &(params_t){.event = ev});
}
CUresult cuGraphExecNodeSetParams(CUgraphExec e, CUgraphNode h, CUgraphNodeParams *np) { return generic_set(e, h, np); }
