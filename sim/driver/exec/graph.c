/* graph.c: minimal CUDA graphs: kernel nodes only. A graph launch queues its
 * nodes' launches in insertion order (a valid topological order, since a node's
 * dependencies must exist before it), with the arguments captured at node creation. */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

typedef struct sim_graph_s sim_graph_t;
typedef struct {
  sim_obj_t obj;
  sim_graph_t *graph;
  sim_launch_t *tmpl;
} sim_node_t;
struct sim_graph_s {
  sim_obj_t obj;
  pthread_mutex_t mu;
  sim_node_t **nodes;
  size_t n;
};
typedef struct {
  sim_obj_t obj;
  sim_launch_t **tmpl;
  size_t n;
} sim_exec_t;

static void node_free(sim_obj_t *o) {
  sim_node_t *n = (sim_node_t *)o;
  sim_launch_free(n->tmpl);
  free(n);
}

static void graph_free(sim_obj_t *o) {
  sim_graph_t *g = (sim_graph_t *)o;
  for (size_t i = 0; i < g->n; i++) {
    sim_handle_remove(&g->nodes[i]->obj);
    sim_obj_unref(&g->nodes[i]->obj);
  }
  free(g->nodes);
  pthread_mutex_destroy(&g->mu);
  free(g);
}

static sim_launch_t *clone_launch(const sim_launch_t *t) {
  sim_launch_t *l = calloc(1, sizeof *l);
  size_t bytes = t->func->lay.param_bytes, np = t->func->lay.k->n_params;
  if (!l) abort();
  *l = (sim_launch_t){.func = t->func, .grid = t->grid, .block = t->block, .shared = t->shared, .ctx = t->ctx};
  l->args = malloc(bytes ? bytes : 1);
  l->params = calloc(np ? np : 1, sizeof *l->params);
  if (!l->args || !l->params) abort();
  memcpy(l->args, t->args, bytes);
  for (size_t p = 0; p < np; p++) l->params[p] = l->args + t->func->lay.offsets[p];
  sim_obj_ref(&l->func->obj);
  return l;
}

static void exec_free(sim_obj_t *o) {
  sim_exec_t *e = (sim_exec_t *)o;
  for (size_t i = 0; i < e->n; i++) sim_launch_free(e->tmpl[i]);
  free(e->tmpl);
  free(e);
}

CUresult cuGraphCreate(CUgraph *ph, unsigned int flags) {
  SIM_CHECK_INIT();
  if (!ph || flags) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = calloc(1, sizeof *g);
  if (!g) return CUDA_ERROR_OUT_OF_MEMORY;
  sim_obj_init(&g->obj, SIM_OBJ_GRAPH, NULL, graph_free);
  pthread_mutex_init(&g->mu, NULL);
  sim_handle_add(&g->obj);
  *ph = (CUgraph)g;
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph h) {
  SIM_CHECK_INIT();
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_GRAPH);
  if (!o) return CUDA_ERROR_INVALID_VALUE;
  sim_handle_remove(o);
  sim_obj_unref(o);
  return CUDA_SUCCESS;
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *ph, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
                                 const CUDA_KERNEL_NODE_PARAMS *p) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!ph || !p || (ndeps && !deps)) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(hg, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < ndeps && !r; i++) {
    sim_node_t *d = (sim_node_t *)sim_handle_get(deps[i], SIM_OBJ_NODE);
    if (!d || d->graph != g) r = CUDA_ERROR_INVALID_VALUE;
    if (d) sim_obj_unref(&d->obj);
  }
  if (p->ctx && p->ctx != (CUcontext)ctx) r = CUDA_ERROR_INVALID_CONTEXT;
  sim_func_t *fn = NULL;
  if (!r) r = sim_func_resolve(ctx, p->func ? p->func : (CUfunction)p->kern, &fn);
  sim_launch_t *l = NULL;
  if (!r) {
    r = sim_launch_prepare(ctx, fn, (simcuda_dim3){p->gridDimX, p->gridDimY, p->gridDimZ},
                           (simcuda_dim3){p->blockDimX, p->blockDimY, p->blockDimZ}, p->sharedMemBytes,
                           p->kernelParams, p->extra, &l);
    sim_obj_unref(&fn->obj);
  }
  if (!r) {
    sim_node_t *n = calloc(1, sizeof *n);
    if (!n) abort();
    sim_obj_init(&n->obj, SIM_OBJ_NODE, NULL, node_free);
    n->graph = g;
    n->tmpl = l;
    pthread_mutex_lock(&g->mu);
    sim_node_t **nn = realloc(g->nodes, (g->n + 1) * sizeof *nn);
    if (!nn) abort();
    g->nodes = nn;
    g->nodes[g->n++] = n; /* the graph's reference */
    pthread_mutex_unlock(&g->mu);
    sim_obj_ref(&n->obj);
    sim_handle_add(&n->obj);
    *ph = (CUgraphNode)n;
  }
  sim_obj_unref(&g->obj);
  return r;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *pe, CUgraph hg, unsigned long long flags) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!pe) return CUDA_ERROR_INVALID_VALUE;
  if (flags & ~(unsigned long long)CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(hg, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  sim_exec_t *e = calloc(1, sizeof *e);
  if (!e) abort();
  sim_obj_init(&e->obj, SIM_OBJ_GRAPHEXEC, ctx, exec_free);
  pthread_mutex_lock(&g->mu);
  e->n = g->n;
  e->tmpl = calloc(e->n ? e->n : 1, sizeof *e->tmpl);
  if (!e->tmpl) abort();
  for (size_t i = 0; i < e->n; i++) e->tmpl[i] = clone_launch(g->nodes[i]->tmpl);
  pthread_mutex_unlock(&g->mu);
  sim_obj_unref(&g->obj);
  sim_handle_add(&e->obj);
  *pe = (CUgraphExec)e;
  return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec h) {
  SIM_CHECK_INIT();
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_GRAPHEXEC);
  if (!o) return CUDA_ERROR_INVALID_VALUE;
  sim_handle_remove(o);
  sim_obj_unref(o);
  return CUDA_SUCCESS;
}

static CUresult graph_launch(CUgraphExec h, CUstream hs, int ptds) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_exec_t *e = (sim_exec_t *)sim_handle_get(h, SIM_OBJ_GRAPHEXEC);
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  sim_stream_t *s;
  r = sim_stream_get(ctx, hs, ptds, &s);
  if (!r) {
    for (size_t i = 0; i < e->n; i++) {
      sim_op_t *op = sim_op_new(SIM_OP_LAUNCH);
      op->u.launch = clone_launch(e->tmpl[i]);
      op->u.launch->ticket = sim_mem_free_ticket();
      sim_stream_enqueue(s, op);
    }
    sim_obj_unref(&s->obj);
  }
  sim_obj_unref(&e->obj);
  return r;
}
CUresult cuGraphLaunch(CUgraphExec h, CUstream s) { return graph_launch(h, s, 0); }
CUresult cuGraphLaunch_ptsz(CUgraphExec h, CUstream s) { return graph_launch(h, s, 1); }
