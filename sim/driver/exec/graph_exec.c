/* graph_exec.c: executable graphs: instantiation (all variants), launch (the nodes
 * queued in a topological order on the launch stream, so that the next operation
 * of the stream waits for the whole graph, after the previous launch of the same
 * executable graph), upload, whole-graph update, destroy. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

typedef struct {
  sim_obj_t obj;
  sim_graph_t *g;   /* a private copy in topological order; node->orig: the user's node */
  sim_graph_t *src; /* the graph it was made from (ref): one exec at a time with memory or conditional nodes */
  bool has_mem, has_cond;
  unsigned long long flags;
  sim_cond_t **conds; /* the handles its conditional nodes use (refs; under g's lock) */
  size_t n_conds;
  /* its last launch (under g's lock): the next one is ordered after it */
  sim_stream_t *last; /* ref */
  uint64_t last_seq;
} sim_exec_t;

static void conds_drop(sim_exec_t *e) {
  for (size_t i = 0; i < e->n_conds; i++) sim_cond_unref(e->conds[i]);
  free(e->conds);
  e->conds = NULL;
  e->n_conds = 0;
}

static void exec_free(sim_obj_t *o) {
  sim_exec_t *e = (sim_exec_t *)o;
  sim_obj_unref(&e->g->obj);
  if (e->has_mem || e->has_cond) atomic_fetch_sub(&e->src->n_execs, 1);
  sim_obj_unref(&e->src->obj);
  conds_drop(e);
  if (e->last) sim_obj_unref(&e->last->obj);
  free(e);
}

static CUresult instantiate(CUgraphExec *pe, CUgraph hg, unsigned long long flags, CUgraphNode *err_node,
                            CUgraphInstantiateResult *res) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (err_node) *err_node = NULL;
  *res = CUDA_GRAPH_INSTANTIATE_ERROR;
  if (!pe) return CUDA_ERROR_INVALID_VALUE;
  if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) {
    sim_log("device-side graph launch (CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) is not simulated");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  unsigned long long known = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
                             CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
  if (flags & ~known) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(hg, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  bool has_mem = sim_graph_has_type(g, CU_GRAPH_NODE_TYPE_MEM_ALLOC, true) ||
                 sim_graph_has_type(g, CU_GRAPH_NODE_TYPE_MEM_FREE, true);
  bool has_cond = sim_graph_has_type(g, CU_GRAPH_NODE_TYPE_CONDITIONAL, true);
  /* documented: a graph with memory or conditional nodes has at most one
   * executable graph at a time */
  if ((has_mem || has_cond) && atomic_fetch_add(&g->n_execs, 1) != 0) {
    atomic_fetch_sub(&g->n_execs, 1);
    sim_obj_unref(&g->obj);
    return CUDA_ERROR_INVALID_VALUE;
  }
  sim_exec_t *e = calloc(1, sizeof *e);
  if (!e) abort();
  sim_obj_init(&e->obj, SIM_OBJ_GRAPHEXEC, ctx, exec_free);
  e->g = sim_graph_clone(g, NULL);
  e->src = g; /* the reference taken above */
  e->has_mem = has_mem;
  e->has_cond = has_cond;
  e->flags = flags;
  if (has_cond) {
    sim_gnode_t *bad;
    if ((r = sim_cond_check(g, e->g, &bad, res))) {
      if (err_node) *err_node = (CUgraphNode)bad;
      sim_obj_unref(&e->obj);
      return r;
    }
    e->n_conds = sim_cond_collect(e->g, &e->conds);
  }
  sim_handle_add(&e->obj);
  *pe = (CUgraphExec)e;
  *res = CUDA_GRAPH_INSTANTIATE_SUCCESS;
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *pe, CUgraph g, unsigned long long flags) {
  if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE; /* only cuGraphInstantiateWithParams takes it */
  }
  CUgraphInstantiateResult res;
  return instantiate(pe, g, flags, NULL, &res);
}

static CUresult instantiate_params(CUgraphExec *pe, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p, int ptds) {
  if (!p) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUgraphInstantiateResult res;
  CUresult r = instantiate(pe, g, p->flags, &p->hErrNode_out, &res);
  if (!r && (p->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD)) {
    sim_stream_t *s;
    sim_ctx_t *ctx;
    if (!(r = sim_ctx_current(&ctx)) && !(r = sim_stream_get(ctx, p->hUploadStream, ptds, &s)))
      sim_obj_unref(&s->obj); /* nothing to upload: nodes are host-side data here */
    if (r) cuGraphExecDestroy(*pe);
  }
  p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS
                  : res != CUDA_GRAPH_INSTANTIATE_ERROR && res != CUDA_GRAPH_INSTANTIATE_SUCCESS ? res
                  : r == CUDA_ERROR_NOT_SUPPORTED ? CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED
                  : CUDA_GRAPH_INSTANTIATE_ERROR;
  return r;
}
CUresult cuGraphInstantiateWithParams(CUgraphExec *pe, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
  return instantiate_params(pe, g, p, 0);
}
CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *pe, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
  return instantiate_params(pe, g, p, 1);
}

CUresult cuGraphExecDestroy(CUgraphExec h) {
  SIM_CHECK_INIT();
  return sim_handle_destroy(h, SIM_OBJ_GRAPHEXEC) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphExecGetFlags(CUgraphExec h, cuuint64_t *flags) {
  SIM_CHECK_INIT();
  sim_exec_t *e = (sim_exec_t *)sim_handle_get(h, SIM_OBJ_GRAPHEXEC);
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  if (flags) *flags = e->flags;
  sim_obj_unref(&e->obj);
  return flags ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult sim_graph_exec_node(CUgraphExec he, const sim_gnode_t *orig, sim_gnode_t **n, sim_obj_t **hold) {
  sim_exec_t *e = (sim_exec_t *)sim_handle_get(he, SIM_OBJ_GRAPHEXEC);
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  if (!(*n = sim_graph_find_copy(e->g, orig))) {
    sim_obj_unref(&e->obj);
    return CUDA_ERROR_INVALID_VALUE;
  }
  *hold = &e->obj;
  return CUDA_SUCCESS;
}

/* ---- launch ---- */
/* Graph memory still allocated from an earlier launch (no free since): relaunching
 * is an error unless the graph frees it on launch. */
static bool mem_unfreed(sim_graph_t *g) {
  bool busy = false;
  for (size_t i = 0; i < g->n && !busy; i++) {
    sim_gnode_t *n = g->nodes[i];
    if (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) busy = sim_gmem_live(n->u.mem->ptr, -1);
  }
  return busy;
}

sim_op_t *sim_gnode_op(const sim_gnode_t *n, uint64_t ticket) {
  sim_op_t *op = NULL;
  switch (n->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
      op = sim_op_new(SIM_OP_LAUNCH);
      op->u.launch = sim_launch_clone(n->u.launch);
      op->u.launch->ticket = ticket;
      op->u.launch->declared = sim_acheck_graph_declared(); /* (SIMCUDA_CHECK_ACCESS) */
      break;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      op = sim_op_new(SIM_OP_COPY);
      op->u.copy = n->u.copy.c;
      break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
      op = sim_op_new(SIM_OP_MEMSET);
      op->u.memset = n->u.memset.m;
      break;
    case CU_GRAPH_NODE_TYPE_HOST:
      op = sim_op_new(SIM_OP_HOSTFN);
      op->u.hostfn.fn = n->u.host.fn;
      op->u.hostfn.data = n->u.host.userData;
      break;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
      op = sim_op_new(SIM_OP_NOP);
      pthread_mutex_lock(&n->u.event->mu);
      if (n->u.event->stream) sim_op_add_dep(op, n->u.event->stream, n->u.event->seq);
      pthread_mutex_unlock(&n->u.event->mu);
      break;
    default: break;
  }
  return op;
}

static void enqueue_graph(sim_graph_t *g, sim_stream_t *s, uint64_t ticket) {
  for (size_t i = 0; i < g->n; i++) {
    sim_gnode_t *n = g->nodes[i];
    if (n->disabled) continue; /* an empty node until enabled again */
    switch (n->type) {
      case CU_GRAPH_NODE_TYPE_GRAPH: enqueue_graph(n->u.child, s, ticket); break;
      case CU_GRAPH_NODE_TYPE_EVENT_RECORD: sim_event_record_on(n->u.event, s); break;
      case CU_GRAPH_NODE_TYPE_MEM_ALLOC: sim_gmem_allocate(n->u.mem, s); break;
      case CU_GRAPH_NODE_TYPE_MEM_FREE: sim_gmem_release(n->u.free_ptr, s); break;
      case CU_GRAPH_NODE_TYPE_CONDITIONAL: sim_cond_enqueue(n, s, ticket); break;
      default: {
        sim_op_t *op = sim_gnode_op(n, ticket);
        if (op) sim_stream_enqueue(s, op);
      }
    }
  }
}

/* One launch of e on s (e->g's lock held): after e's previous launch, documented
 * to be ordered before it (the handles of conditional nodes depend on it too). */
static void enqueue_launch(sim_exec_t *e, sim_stream_t *s) {
  if (e->last && e->last != s) {
    sim_op_t *op = sim_op_new(SIM_OP_NOP);
    sim_op_add_dep(op, e->last, e->last_seq);
    sim_stream_enqueue(s, op);
  }
  if (e->n_conds) sim_cond_launch_begins(e->conds, e->n_conds, s);
  enqueue_graph(e->g, s, sim_mem_free_ticket());
  sim_obj_ref(&s->obj);
  if (e->last) sim_obj_unref(&e->last->obj);
  e->last = s;
  pthread_mutex_lock(&s->mu);
  e->last_seq = s->enq_seq;
  pthread_mutex_unlock(&s->mu);
}

static CUresult graph_launch(CUgraphExec h, CUstream hs, int ptds) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_exec_t *e = (sim_exec_t *)sim_handle_get(h, SIM_OBJ_GRAPHEXEC);
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  sim_stream_t *s;
  r = sim_stream_get(ctx, hs, ptds, &s);
  /* a graph with conditional nodes cannot be a child graph, so none is captured
   * (checked before the graph's lock is taken) */
  if (!r && e->has_cond && (r = sim_capture_refuse(s, "a launch of a graph with conditional nodes")))
    sim_obj_unref(&s->obj);
  if (!r) {
    pthread_mutex_lock(&e->g->mu);
    if (e->has_mem && mem_unfreed(e->g)) {
      if (e->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) {
        for (size_t i = 0; i < e->g->n; i++)
          if (e->g->nodes[i]->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) sim_gmem_release(e->g->nodes[i]->u.mem->ptr, s);
      } else {
        sim_log("cuGraphLaunch: graph memory of an earlier launch was not freed (documented: an error "
                "unless instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)");
        r = CUDA_ERROR_INVALID_VALUE;
      }
    }
    sim_acheck_graph_begin();
    if (!r) enqueue_launch(e, s);
    sim_acheck_graph_end();
    pthread_mutex_unlock(&e->g->mu);
    sim_obj_unref(&s->obj);
  }
  sim_obj_unref(&e->obj);
  return r;
}
CUresult cuGraphLaunch(CUgraphExec h, CUstream s) { return graph_launch(h, s, 0); }
CUresult cuGraphLaunch_ptsz(CUgraphExec h, CUstream s) { return graph_launch(h, s, 1); }

/* Nothing to upload (node data lives on the host side of the simulator); the
 * arguments are checked as the driver checks them. */
static CUresult graph_upload(CUgraphExec h, CUstream hs, int ptds) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_obj_t *e = sim_handle_get(h, SIM_OBJ_GRAPHEXEC);
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  sim_stream_t *s;
  if (!(r = sim_stream_get(ctx, hs, ptds, &s))) sim_obj_unref(&s->obj);
  sim_obj_unref(e);
  return r;
}
CUresult cuGraphUpload(CUgraphExec h, CUstream s) { return graph_upload(h, s, 0); }
CUresult cuGraphUpload_ptsz(CUgraphExec h, CUstream s) { return graph_upload(h, s, 1); }

/* ---- whole-graph update ---- */
/* Same topology: the same nodes in the same topological order, types and edges. */
static CUgraphExecUpdateResult same_shape(sim_graph_t *a, sim_graph_t *b, sim_gnode_t **err) {
  if (a->n != b->n) return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
  for (size_t i = 0; i < a->n; i++) {
    sim_gnode_t *x = a->nodes[i], *y = b->nodes[i];
    *err = y;
    if (x->type != y->type) return CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
    if (x->n_deps != y->n_deps) return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    for (size_t d = 0; d < x->n_deps; d++) {
      size_t ix = 0, iy = 0;
      while (a->nodes[ix] != x->deps[d]) ix++;
      while (b->nodes[iy] != y->deps[d]) iy++;
      if (ix != iy) return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    }
    if (x->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC || x->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
      return CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED; /* documented: memory nodes cannot be updated */
    if (x->type == CU_GRAPH_NODE_TYPE_KERNEL && x->u.launch->ctx != y->u.launch->ctx)
      return CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE;
    if (x->type != CU_GRAPH_NODE_TYPE_CONDITIONAL) continue;
    /* documented: a conditional node's parameters cannot change; its bodies follow these rules */
    if (x->u.cond.type != y->u.cond.type || x->u.cond.size != y->u.cond.size)
      return CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED;
    for (unsigned b = 0; b < x->u.cond.size; b++) {
      CUgraphExecUpdateResult r = same_shape(x->u.cond.body[b], y->u.cond.body[b], err);
      if (r != CU_GRAPH_EXEC_UPDATE_SUCCESS) return r;
    }
  }
  *err = NULL;
  return CU_GRAPH_EXEC_UPDATE_SUCCESS;
}

/* The parameters of src's nodes into dst's (same shape): a conditional node keeps
 * its bodies, whose nodes are updated in turn, and takes src's handle (its default
 * and flag: documented to follow the update). */
static void update_nodes(sim_graph_t *dst, sim_graph_t *src) {
  for (size_t i = 0; i < src->n; i++) {
    sim_gnode_t *x = dst->nodes[i], *y = src->nodes[i];
    if (x->type != CU_GRAPH_NODE_TYPE_CONDITIONAL) {
      sim_gnode_t old = *x;
      sim_gnode_copy_params(x, y);
      sim_gnode_release(&old);
      continue;
    }
    sim_cond_t *old = x->u.cond.h;
    atomic_fetch_add(&y->u.cond.h->refs, 1);
    x->u.cond.h = y->u.cond.h;
    sim_cond_unref(old);
    for (unsigned b = 0; b < x->u.cond.size; b++) {
      pthread_mutex_lock(&x->u.cond.body[b]->mu); /* launches copy the bodies under it */
      update_nodes(x->u.cond.body[b], y->u.cond.body[b]);
      pthread_mutex_unlock(&x->u.cond.body[b]->mu);
    }
  }
}

CUresult cuGraphExecUpdate_v2(CUgraphExec he, CUgraph hg, CUgraphExecUpdateResultInfo *info) {
  SIM_CHECK_INIT();
  if (!info) return CUDA_ERROR_INVALID_VALUE;
  *info = (CUgraphExecUpdateResultInfo){CU_GRAPH_EXEC_UPDATE_ERROR, NULL, NULL};
  sim_exec_t *e = (sim_exec_t *)sim_handle_get(he, SIM_OBJ_GRAPHEXEC);
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(hg, SIM_OBJ_GRAPH);
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (e && g) {
    sim_graph_t *c = sim_graph_clone(g, NULL); /* its topological order, like the exec's */
    sim_gnode_t *err = NULL;
    pthread_mutex_lock(&e->g->mu);
    info->result = same_shape(e->g, c, &err);
    if (info->result == CU_GRAPH_EXEC_UPDATE_SUCCESS) {
      update_nodes(e->g, c);
      if (e->has_cond) {
        conds_drop(e);
        e->n_conds = sim_cond_collect(e->g, &e->conds);
      }
      r = CUDA_SUCCESS;
    } else {
      info->errorNode = err ? (CUgraphNode)err->orig : NULL;
      r = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    pthread_mutex_unlock(&e->g->mu);
    sim_obj_unref(&c->obj);
  }
  if (e) sim_obj_unref(&e->obj);
  if (g) sim_obj_unref(&g->obj);
  return r;
}

/* Kernel, memcpy and memset nodes of an executable graph can be disabled. */
static CUresult node_enabled(CUgraphExec he, CUgraphNode hn, unsigned *get, unsigned set) {
  SIM_CHECK_INIT();
  sim_obj_t *o = sim_handle_get(hn, SIM_OBJ_NODE);
  if (!o) return CUDA_ERROR_INVALID_VALUE;
  sim_gnode_t *orig = (sim_gnode_t *)o, *n;
  sim_obj_t *hold;
  CUresult r = sim_graph_exec_node(he, orig, &n, &hold);
  sim_obj_unref(o);
  if (r) return r;
  if (n->type != CU_GRAPH_NODE_TYPE_KERNEL && n->type != CU_GRAPH_NODE_TYPE_MEMCPY &&
      n->type != CU_GRAPH_NODE_TYPE_MEMSET)
    r = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&n->graph->mu); /* launches read it under the executable graph's lock */
  if (!r && get) *get = !n->disabled;
  else if (!r) n->disabled = !set;
  pthread_mutex_unlock(&n->graph->mu);
  sim_obj_unref(hold);
  return r;
}
CUresult cuGraphNodeSetEnabled(CUgraphExec e, CUgraphNode n, unsigned int on) { return node_enabled(e, n, NULL, on); }
CUresult cuGraphNodeGetEnabled(CUgraphExec e, CUgraphNode n, unsigned int *on) {
  if (!on) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  return node_enabled(e, n, on, 0);
}
