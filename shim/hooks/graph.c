/* graph.c: CUDA graphs seen from inside (issue 24, DESIGN.md 6.6). At instantiation
 * gpuft keeps a clone of the graph; at each launch of the executable graph it reads
 * the clone's nodes and protects the launch as the launches it holds: what kernel,
 * copy and memset nodes may write gets restore points and checks before it and is
 * re-encoded after it, what they only read is verified after it, and the launch is
 * logged for replay (relaunched on gpuft's stream). A graph the driver cannot clone
 * (conditional or memory nodes) is copied flat instead: its nodes, its child graphs'
 * and its conditional nodes' bodies (which no getter returns: kept from the
 * cuGraphAddNode that made them) in one graph of gpuft's; what any body may do
 * counts, whichever runs and however often. An executable graph whose nodes were changed since (exec
 * updates), or holding a node gpuft cannot read (a conditional node made by a clone
 * of a graph, a kernel with unreadable arguments), is an unknown writer, as every
 * graph launch was before. */
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "hooks.h"

/* ---- conditional nodes: their bodies, from the call that made them ---- */

/* A conditional node made by cuGraphAddNode: the graph it is in and its bodies
 * (owned by the node: they go with it, or with its graph). Engine lock. */
#define MAX_BODIES 8
typedef struct cond_s {
  CUgraphNode node;
  CUgraph parent;
  CUgraph body[MAX_BODIES];
  unsigned n; /* 0: more bodies than kept (a large switch): not known */
  struct cond_s *next;
} cond_t;
static cond_t *g_cond;

static void forget_graph(CUgraph g) FT_REQUIRES(ft_eng_lock);

/* The record of node n (and of the nodes in its bodies) goes. */
static void forget_node(CUgraphNode n) FT_REQUIRES(ft_eng_lock) {
  for (cond_t **p = &g_cond; *p; p = &(*p)->next)
    if ((*p)->node == n) {
      cond_t *c = *p;
      *p = c->next;
      for (unsigned i = 0; i < c->n; i++) forget_graph(c->body[i]);
      free(c);
      return;
    }
}

/* The records of g's conditional nodes go (g is destroyed: its handles may come back). */
static void forget_graph(CUgraph g) FT_REQUIRES(ft_eng_lock) {
  for (cond_t *c = g_cond, *next; c; c = next) {
    next = c->next;
    if (c->parent == g) {
      forget_node(c->node);
      next = g_cond; /* (the list changed: from the start) */
    }
  }
}

static CUresult added(CUresult r, const CUgraphNode *ph, CUgraph g, const CUgraphNodeParams *np) {
  if (r != CUDA_SUCCESS || !ph || !np || np->type != CU_GRAPH_NODE_TYPE_CONDITIONAL) return r;
  ft_lock();
  forget_node(*ph); /* (a handle given again: the node it named is gone) */
  cond_t *c = calloc(1, sizeof *c);
  if (c) {
    c->node = *ph;
    c->parent = g;
    unsigned k = np->conditional.size;
    if (np->conditional.phGraph_out && k <= MAX_BODIES) {
      c->n = k;
      memcpy(c->body, np->conditional.phGraph_out, k * sizeof *c->body);
    }
    c->next = g_cond, g_cond = c;
  }
  ft_unlock();
  return r;
}

CUresult ft_on_cuGraphAddNode(CUgraphNode *ph, CUgraph g, const CUgraphNode *dep, size_t ndep,
                              CUgraphNodeParams *np) {
  return added(ft_real.cuGraphAddNode(ph, g, dep, ndep, np), ph, g, np);
}
CUresult ft_on_cuGraphAddNode_v2(CUgraphNode *ph, CUgraph g, const CUgraphNode *dep, const CUgraphEdgeData *ed,
                                 size_t ndep, CUgraphNodeParams *np) {
  return added(ft_real.cuGraphAddNode_v2(ph, g, dep, ed, ndep, np), ph, g, np);
}
CUresult ft_on_cuGraphDestroyNode(CUgraphNode n) {
  ft_lock();
  forget_node(n);
  ft_unlock();
  return ft_real.cuGraphDestroyNode(n);
}
CUresult ft_on_cuGraphDestroy(CUgraph g) {
  ft_lock();
  forget_graph(g);
  ft_unlock();
  return ft_real.cuGraphDestroy(g);
}

/* The known record of conditional node n of graph g, or NULL. */
static const cond_t *cond_of(CUgraphNode n, CUgraph g) FT_REQUIRES(ft_eng_lock) {
  for (const cond_t *c = g_cond; c; c = c->next)
    if (c->node == n && c->parent == g) return c->n ? c : NULL;
  return NULL;
}

/* Adds g's nodes to `to` (gpuft's own graph, never launched: read at launches as a
 * clone is), child graphs' and conditional nodes' bodies flattened into it, for a
 * graph the driver cannot clone (conditional and memory nodes: the driver refuses).
 * Dependencies are not kept: the uses of the nodes are what is read. 0, or -1 when
 * a node cannot be read or copied (a conditional node gpuft did not see made). */
static int flat_copy(CUgraph g, CUgraph to, CUcontext ctx, int depth) FT_REQUIRES(ft_eng_lock) {
  size_t k = 0;
  if (depth > 8 || ft_drv.cuGraphGetNodes(g, NULL, &k) != CUDA_SUCCESS) return -1;
  CUgraphNode *v = k ? malloc(k * sizeof *v) : NULL;
  if (k && (!v || ft_drv.cuGraphGetNodes(g, v, &k) != CUDA_SUCCESS)) {
    free(v);
    return -1;
  }
  int rc = 0;
  for (size_t i = 0; i < k && rc == 0; i++) {
    CUgraphNodeType t;
    CUgraphNode n;
    if (ft_drv.cuGraphNodeGetType(v[i], &t) != CUDA_SUCCESS) {
      rc = -1;
      continue;
    }
    switch (t) {
      case CU_GRAPH_NODE_TYPE_KERNEL: {
        CUDA_KERNEL_NODE_PARAMS p;
        rc = ft_drv.cuGraphKernelNodeGetParams_v2(v[i], &p) != CUDA_SUCCESS ||
             ft_drv.cuGraphAddKernelNode_v2(&n, to, NULL, 0, &p) != CUDA_SUCCESS;
        break;
      }
      case CU_GRAPH_NODE_TYPE_MEMCPY: {
        CUDA_MEMCPY3D c;
        rc = ft_drv.cuGraphMemcpyNodeGetParams(v[i], &c) != CUDA_SUCCESS ||
             ft_drv.cuGraphAddMemcpyNode(&n, to, NULL, 0, &c, ctx) != CUDA_SUCCESS;
        break;
      }
      case CU_GRAPH_NODE_TYPE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS m;
        rc = ft_drv.cuGraphMemsetNodeGetParams(v[i], &m) != CUDA_SUCCESS ||
             ft_drv.cuGraphAddMemsetNode(&n, to, NULL, 0, &m, ctx) != CUDA_SUCCESS;
        break;
      }
      case CU_GRAPH_NODE_TYPE_HOST: {
        CUDA_HOST_NODE_PARAMS h;
        rc = ft_drv.cuGraphHostNodeGetParams(v[i], &h) != CUDA_SUCCESS ||
             ft_drv.cuGraphAddHostNode(&n, to, NULL, 0, &h) != CUDA_SUCCESS;
        break;
      }
      case CU_GRAPH_NODE_TYPE_GRAPH: {
        CUgraph child;
        rc = ft_drv.cuGraphChildGraphNodeGetGraph(v[i], &child) != CUDA_SUCCESS ? -1
                                                                                 : flat_copy(child, to, ctx, depth + 1);
        break;
      }
      case CU_GRAPH_NODE_TYPE_CONDITIONAL: { /* what any body may do, whichever runs, however often */
        const cond_t *c = cond_of(v[i], g);
        rc = c ? 0 : -1;
        for (unsigned b = 0; c && b < c->n && rc == 0; b++) rc = flat_copy(c->body[b], to, ctx, depth + 1);
        break;
      }
      case CU_GRAPH_NODE_TYPE_EMPTY: /* no uses */
      case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
      case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      case CU_GRAPH_NODE_TYPE_MEM_ALLOC: /* graph memory: gpuft does not track it */
      case CU_GRAPH_NODE_TYPE_MEM_FREE:
        break;
      default:
        rc = -1;
    }
  }
  free(v);
  return rc;
}

/* gpuft's copy of g to read at its executable graph's launches: a clone, or where
 * the driver cannot clone it, a flat copy. NULL if neither can be made. */
static CUgraph copy_of(CUgraph g) FT_REQUIRES(ft_eng_lock) {
  CUgraph c = NULL;
  if (ft_drv.cuGraphClone(&c, g) == CUDA_SUCCESS) return c;
  CUcontext ctx = NULL;
  if (ft_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ft_drv.cuGraphCreate(&c, 0) != CUDA_SUCCESS) return NULL;
  if (flat_copy(g, c, ctx, 0) == 0) return c;
  ft_real.cuGraphDestroy(c);
  return NULL;
}

/* An executable graph gpuft instantiated a clone for (engine lock). */
#define MAX_SET 32
typedef struct gx_s {
  CUgraphExec exec;
  CUgraph clone; /* NULL: not known (changed since, or no copy); a flat copy where
                  * the driver cannot clone (flat_copy: its nodes are found in
                  * no clone, so a change to them drops it) */
  /* kernel nodes whose parameters the program set since instantiation: the node of
   * the graph it was instantiated from and the clone's; each epoch that launches it
   * logs their parameters first (a replay sets them again) */
  CUgraphNode set_orig[MAX_SET], set_clone[MAX_SET];
  int nset;
  uint64_t set_epoch; /* the epoch whose log has them */
  struct gx_s *next;
} gx_t;
static gx_t *g_gx;

static gx_t **find(CUgraphExec e) FT_REQUIRES(ft_eng_lock) {
  gx_t **p = &g_gx;
  while (*p && (*p)->exec != e) p = &(*p)->next;
  return p;
}

/* e is destroyed: its record and clone go, and no log may launch it again. (Changes
 * to it: changed(), below.) */
static void destroyed(CUgraphExec e) {
  CUgraph clone = NULL;
  ft_lock();
  gx_t **p = find(e);
  if (*p) {
    gx_t *x = *p;
    clone = x->clone;
    *p = x->next;
    free(x);
  }
  ft_graph_forget(e);
  ft_unlock();
  if (clone) ft_real.cuGraphDestroy(clone);
}

static CUresult instantiated(CUresult r, CUgraphExec *pe, CUgraph g) {
  if (r != CUDA_SUCCESS || !pe || !*pe) return r;
  ft_lock();
  CUgraph clone = copy_of(g);
  gx_t **p = find(*pe); /* (a handle the driver gives again: the old one was destroyed) */
  gx_t *x = *p ? *p : calloc(1, sizeof *x);
  CUgraph old = NULL;
  if (x) {
    old = x->clone;
    x->exec = *pe;
    x->clone = clone;
    x->nset = 0; /* (nodes of the clone taken again) */
    if (!*p) x->next = g_gx, g_gx = x;
  } else {
    old = clone;
  }
  ft_unlock();
  if (old) ft_real.cuGraphDestroy(old);
  return r;
}

CUresult ft_on_cuGraphInstantiateWithFlags(CUgraphExec *pe, CUgraph g, unsigned long long flags) {
  return instantiated(ft_real.cuGraphInstantiateWithFlags(pe, g, flags), pe, g);
}
CUresult ft_on_cuGraphInstantiateWithParams(CUgraphExec *pe, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
  return instantiated(ft_real.cuGraphInstantiateWithParams(pe, g, p), pe, g);
}
CUresult ft_on_cuGraphInstantiateWithParams_ptsz(CUgraphExec *pe, CUgraph g,
                                                 CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
  return instantiated(ft_real.cuGraphInstantiateWithParams_ptsz(pe, g, p), pe, g);
}
CUresult ft_on_cuGraphExecDestroy(CUgraphExec e) {
  if (e) destroyed(e);
  return ft_real.cuGraphExecDestroy(e);
}

/* Changes to an executable graph's nodes. A logged launch of it could not be
 * replayed with the parameters it ran with: no log may launch it again. What gpuft
 * reads at its launches follows the change: made to the clone's node too (found by
 * the node of the graph it was instantiated from), the clone taken again from the
 * graph an update brings; a change gpuft cannot follow drops the clone (launches are
 * unknown writers from then on). apply: the change made to the clone's node n, 0 if it
 * took. */
typedef int (*apply_fn)(CUgraphNode n, const void *p);
static void changed(CUgraphExec e, CUgraphNode node, apply_fn apply, const void *p) {
  CUgraph drop = NULL;
  ft_lock();
  ft_graph_forget(e);
  gx_t *x = *find(e);
  CUgraphNode cn = NULL;
  if (x && x->clone &&
      (!apply || ft_drv.cuGraphNodeFindInClone(&cn, node, x->clone) != CUDA_SUCCESS || apply(cn, p) != 0))
    drop = x->clone, x->clone = NULL;
  ft_unlock();
  if (drop) ft_real.cuGraphDestroy(drop);
}
static int set_kernel(CUgraphNode n, const void *p) {
  return ft_drv.cuGraphKernelNodeSetParams_v2(n, p) != CUDA_SUCCESS;
}
static int set_memcpy(CUgraphNode n, const void *p) { return ft_drv.cuGraphMemcpyNodeSetParams(n, p) != CUDA_SUCCESS; }
static int set_memset(CUgraphNode n, const void *p) { return ft_drv.cuGraphMemsetNodeSetParams(n, p) != CUDA_SUCCESS; }
static int set_host(CUgraphNode n, const void *p) { return ft_drv.cuGraphHostNodeSetParams(n, p) != CUDA_SUCCESS; }
static int set_none(CUgraphNode n, const void *p) { return (void)n, (void)p, 0; }

/* Logs the parameters of kernel node `orig` (clone node cn) as they are now. 0, or -1. */
static int log_params(gx_t *x, CUgraphNode orig, CUgraphNode cn, int first) FT_REQUIRES(ft_eng_lock) {
  CUDA_KERNEL_NODE_PARAMS p;
  uint8_t buf[FT_MAX_PARAM_BYTES];
  size_t len = 0;
  if (ft_drv.cuGraphKernelNodeGetParams_v2(cn, &p) != CUDA_SUCCESS) return -1;
  CUfunction f = p.func ? p.func : (CUfunction)p.kern;
  ft_func_t *fn = ft_func_get(f);
  if (!fn || !fn->layout_ok || ft_param_bytes(fn, p.kernelParams, p.extra, buf, &len) != 0) return -1;
  const unsigned grid[3] = {p.gridDimX, p.gridDimY, p.gridDimZ}, block[3] = {p.blockDimX, p.blockDimY, p.blockDimZ};
  ft_log_graph_set(x->exec, orig, f, grid, block, p.sharedMemBytes, buf, len, fn, first);
  return 0;
}

/* A kernel node's new parameters: made to the clone's node too, and logged, so that
 * a replay runs each logged launch with the parameters it had (jacobiCudaGraphs sets
 * them before every launch). What cannot be followed so falls back to changed(). */
CUresult ft_on_cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p) {
  CUresult r = ft_real.cuGraphExecKernelNodeSetParams_v2(e, n, p);
  if (r != CUDA_SUCCESS) return r;
  ft_lock();
  gx_t *x = *find(e);
  CUgraphNode cn = NULL;
  int k = 0, ok = x && x->clone && ft_drv.cuGraphNodeFindInClone(&cn, n, x->clone) == CUDA_SUCCESS;
  while (ok && k < x->nset && x->set_orig[k] != n) k++;
  if (ok && k == x->nset) {
    ok = k < MAX_SET;
    if (ok) x->set_orig[k] = n, x->set_clone[k] = cn, x->nset++;
    /* launched in this epoch with the parameters it had until now: those first */
    if (ok && x->set_epoch == ft_epoch) ok = log_params(x, n, cn, 1) == 0;
  }
  ok = ok && set_kernel(cn, p) == 0;
  /* (logged only once the epoch's log has the parameters it started with) */
  if (ok && x->set_epoch == ft_epoch) ok = log_params(x, n, cn, 0) == 0;
  ft_unlock();
  if (!ok) changed(e, n, NULL, NULL);
  return r;
}
CUresult ft_on_cuGraphExecMemcpyNodeSetParams(CUgraphExec e, CUgraphNode n, const CUDA_MEMCPY3D *p, CUcontext c) {
  CUresult r = ft_real.cuGraphExecMemcpyNodeSetParams(e, n, p, c);
  if (r == CUDA_SUCCESS) changed(e, n, set_memcpy, p);
  return r;
}
CUresult ft_on_cuGraphExecMemsetNodeSetParams(CUgraphExec e, CUgraphNode n, const CUDA_MEMSET_NODE_PARAMS *p,
                                              CUcontext c) {
  CUresult r = ft_real.cuGraphExecMemsetNodeSetParams(e, n, p, c);
  if (r == CUDA_SUCCESS) changed(e, n, set_memset, p);
  return r;
}
CUresult ft_on_cuGraphExecHostNodeSetParams(CUgraphExec e, CUgraphNode n, const CUDA_HOST_NODE_PARAMS *p) {
  CUresult r = ft_real.cuGraphExecHostNodeSetParams(e, n, p);
  if (r == CUDA_SUCCESS) changed(e, n, set_host, p);
  return r;
}
/* (a node switched off or on: the clone keeps every node, what runs is a part of it) */
CUresult ft_on_cuGraphNodeSetEnabled(CUgraphExec e, CUgraphNode n, unsigned on) {
  CUresult r = ft_real.cuGraphNodeSetEnabled(e, n, on);
  if (r == CUDA_SUCCESS) changed(e, n, set_none, NULL);
  return r;
}
/* (gpuft does not follow these: a child graph swapped, the generic setter) */
CUresult ft_on_cuGraphExecChildGraphNodeSetParams(CUgraphExec e, CUgraphNode n, CUgraph g) {
  CUresult r = ft_real.cuGraphExecChildGraphNodeSetParams(e, n, g);
  if (r == CUDA_SUCCESS) changed(e, n, NULL, NULL);
  return r;
}
CUresult ft_on_cuGraphExecNodeSetParams(CUgraphExec e, CUgraphNode n, CUgraphNodeParams *p) {
  CUresult r = ft_real.cuGraphExecNodeSetParams(e, n, p);
  if (r == CUDA_SUCCESS) changed(e, n, NULL, NULL);
  return r;
}
/* The executable graph takes the parameters of g: the clone is taken again from g
 * (a later change names nodes of the graph it was instantiated from: not found in
 * this clone, the clone drops). */
CUresult ft_on_cuGraphExecUpdate_v2(CUgraphExec e, CUgraph g, CUgraphExecUpdateResultInfo *info) {
  CUresult r = ft_real.cuGraphExecUpdate_v2(e, g, info);
  if (r == CUDA_SUCCESS) {
    changed(e, NULL, NULL, NULL);
    (void)instantiated(CUDA_SUCCESS, &e, g);
  }
  return r;
}

/* ---- a launch ---- */

#define MAX_NODES 4096

/* The nodes of a graph and of its child graphs, flattened. 0, or -1 when one
 * cannot be read. */
static int nodes_of(CUgraph g, CUgraphNode *out, size_t *n, int depth) FT_REQUIRES(ft_eng_lock) {
  size_t k = 0;
  if (depth > 8 || ft_drv.cuGraphGetNodes(g, NULL, &k) != CUDA_SUCCESS || *n + k > MAX_NODES) return -1;
  if (ft_drv.cuGraphGetNodes(g, out + *n, &k) != CUDA_SUCCESS) return -1;
  size_t first = *n;
  *n += k;
  for (size_t i = first; i < first + k; i++) {
    CUgraphNodeType t;
    CUgraph child;
    if (ft_drv.cuGraphNodeGetType(out[i], &t) != CUDA_SUCCESS) return -1;
    if (t == CU_GRAPH_NODE_TYPE_GRAPH &&
        (ft_drv.cuGraphChildGraphNodeGetGraph(out[i], &child) != CUDA_SUCCESS ||
         nodes_of(child, out, n, depth + 1) != 0))
      return -1;
  }
  return 0;
}

/* All of the allocation holding p, read or written by a copy or memset node. */
static int use_whole(CUdeviceptr p, int write, ft_ref_t *refs, int n) FT_REQUIRES(ft_eng_lock) {
  ft_alloc_t *a = p ? ft_reg_find(p) : NULL;
  if (!ft_protected(a)) return n;
  int k = 0;
  while (k < n && refs[k].a != a) k++;
  if (k == n) {
    if (n == FT_MAX_REFS) return -1;
    memset(&refs[n], 0, sizeof refs[n]);
    refs[n].a = a;
    refs[n].acc = FT_ACC_READ;
    refs[n].slot = -1;
    n++;
  }
  refs[k].whole[0] = 1;
  if (write) refs[k].acc = FT_ACC_WRITE, refs[k].whole[1] = 1;
  return n;
}

static CUdeviceptr copy_end(CUmemorytype t, CUdeviceptr dev, size_t x, size_t y, size_t z, size_t pitch,
                            size_t height, int *host) {
  if (t == CU_MEMORYTYPE_HOST) *host = 1;
  if (t != CU_MEMORYTYPE_DEVICE && t != CU_MEMORYTYPE_UNIFIED) return 0;
  CUdeviceptr p = dev + x + y * pitch + z * pitch * height;
  /* unified (cudaMemcpyDefault): host memory unless the driver says device */
  unsigned type = 0;
  if (t == CU_MEMORYTYPE_UNIFIED &&
      (ft_drv.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS ||
       type != CU_MEMORYTYPE_DEVICE))
    *host = 1;
  return p;
}

/* The merged uses of the nodes: their count, or -1 (unknown). *side: why the launch
 * cannot be replayed (host nodes, copies from host memory, impure kernels);
 * *host_writes: nodes copy to host memory (replayable until the program may look). */
static int graph_refs(ft_dev_t *d, const CUgraphNode *nodes, size_t nn, ft_ref_t *refs, const char **side,
                      int *facts, int *host_writes) FT_REQUIRES(ft_eng_lock) {
  int n = 0;
  for (size_t i = 0; i < nn && n >= 0; i++) {
    CUgraphNodeType t;
    if (ft_drv.cuGraphNodeGetType(nodes[i], &t) != CUDA_SUCCESS) return -1;
    switch (t) {
      case CU_GRAPH_NODE_TYPE_KERNEL: {
        CUDA_KERNEL_NODE_PARAMS p;
        if (ft_drv.cuGraphKernelNodeGetParams_v2(nodes[i], &p) != CUDA_SUCCESS) return -1;
        CUfunction f = p.func ? p.func : (CUfunction)p.kern;
        const unsigned grid[3] = {p.gridDimX, p.gridDimY, p.gridDimZ};
        const unsigned block[3] = {p.blockDimX, p.blockDimY, p.blockDimZ};
        n = ft_kernel_refs(d, f, p.kernelParams, p.extra, grid, block, refs, n, FT_MAX_REFS, side, facts);
        break;
      }
      case CU_GRAPH_NODE_TYPE_MEMCPY: {
        CUDA_MEMCPY3D c;
        if (ft_drv.cuGraphMemcpyNodeGetParams(nodes[i], &c) != CUDA_SUCCESS) return -1;
        int from_host = 0, to_host = 0;
        CUdeviceptr src = copy_end(c.srcMemoryType, c.srcDevice, c.srcXInBytes, c.srcY, c.srcZ,
                                   c.srcPitch, c.srcHeight, &from_host);
        CUdeviceptr dst = copy_end(c.dstMemoryType, c.dstDevice, c.dstXInBytes, c.dstY, c.dstZ,
                                   c.dstPitch, c.dstHeight, &to_host);
        /* (a relaunch would read what the program may have changed since) */
        if (from_host && !*side) *side = "a graph copying from host memory";
        if (to_host) *host_writes = 1;
        n = use_whole(src, 0, refs, n);
        if (n >= 0) n = use_whole(dst, 1, refs, n);
        break;
      }
      case CU_GRAPH_NODE_TYPE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS m;
        if (ft_drv.cuGraphMemsetNodeGetParams(nodes[i], &m) != CUDA_SUCCESS) return -1;
        n = use_whole(m.dst, 1, refs, n);
        break;
      }
      case CU_GRAPH_NODE_TYPE_HOST:
        if (!*side) *side = "a graph with a host node";
        break;
      case CU_GRAPH_NODE_TYPE_GRAPH: /* its nodes are in the list */
      case CU_GRAPH_NODE_TYPE_EMPTY:
      case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
      case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      case CU_GRAPH_NODE_TYPE_MEM_ALLOC: /* graph memory: gpuft does not track it */
      case CU_GRAPH_NODE_TYPE_MEM_FREE:
        break;
      default: /* conditional nodes (a flat copy has their bodies instead), external
                * semaphores, batch memory operations */
        return -1;
    }
  }
  return n;
}

typedef struct {
  CUgraphExec g;
  CUstream s;
  int ptsz;
} gl_t;

static CUresult real_graph(const void *p) {
  const gl_t *c = p;
  return (c->ptsz ? ft_real.cuGraphLaunch_ptsz : ft_real.cuGraphLaunch)(c->g, c->s);
}

CUresult ft_graph_launch(CUgraphExec g, CUstream s, int ptsz, ft_hook_id_t id) {
  gl_t call = {g, s, ptsz};
  CUstream st = FT_STREAM(s, ptsz);
  CUgraphNode *nodes = malloc(MAX_NODES * sizeof *nodes);
  while (nodes) { /* (once: break to the unknown writer's path) */
    FT_OP_BEGIN();
    ft_lock();
    ft_dev_t *d = ft_dev_current();
    gx_t *x = *find(g);
    size_t nn = 0;
    ft_ref_t refs[FT_MAX_REFS];
    const char *side = NULL;
    int facts = 1, host_writes = 0;
    /* (the clone's nodes are gpuft's own: read under the lock, as destroyed() and changed() drop it) */
    int n = d && x && x->clone && nodes_of(x->clone, nodes, &nn, 0) == 0
                ? graph_refs(d, nodes, nn, refs, &side, &facts, &host_writes)
                : -1;
    if (n < 0) {
      FT_DEBUG("graph %p: %s", (void *)g, !d || !x ? "not instantiated under gpuft"
                                         : !x->clone ? "changed in a way gpuft does not follow"
                                                     : "a node gpuft cannot read");
      ft_unlock();
      ft_op_end();
      break;
    }
    if ((side || host_writes || !ft_epoch_replayable()) && !FT_OPT(VERIFY_BEFORE_USE)) {
      /* it cannot be replayed (its nodes reach host memory or run host code, or the
       * epoch already cannot), and what its nodes read is checked only after them:
       * damage they read could not be undone, so it stays an unknown writer,
       * everything at rest checked before it. With the check before use (the
       * default) it is protected as its nodes, unreplayable: what they read is
       * checked before the graph runs, what they write encoded after, nothing else */
      FT_DEBUG("graph %p: %s", (void *)g, side ? side : "in an epoch that cannot be replayed");
      ft_unlock();
      ft_op_end();
      break;
    }
    if (x->nset && x->set_epoch != ft_epoch) {
      /* the parameters this epoch starts with, for its replay */
      int ok = 1;
      for (int k = 0; k < x->nset && ok; k++) ok = log_params(x, x->set_orig[k], x->set_clone[k], 0) == 0;
      if (!ok) ft_epoch_unreplayable("a graph whose node parameters gpuft could not log");
      x->set_epoch = ft_epoch;
    }
    free(nodes);
    ft_st.launches++;
    ft_st.graph_launches_protected++; /* (launches_protected: ft_protect_refs) */
    ft_count_call(id);
    const ft_logged_t lg = {.graph = g, .facts = facts, .host_writes = host_writes};
    CUresult r = ft_protect_refs(d, NULL, refs, n, st, real_graph, &call, side, &lg);
    ft_unlock();
    ft_op_end();
    return r;
  }
  free(nodes);
  /* not known: an unknown writer, what is pending committed first */
  ft_count_unprotected(id);
  CUresult v = ft_unknown_writer_before(st, 1);
  ft_op_begin();
  CUresult r = real_graph(&call);
  if (r == CUDA_SUCCESS) ft_unknown_writer_after(st);
  ft_op_end();
  return r != CUDA_SUCCESS ? r : v;
}
