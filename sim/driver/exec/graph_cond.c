/* graph_cond.c: conditional graph nodes (if, if/else, while, switch): their handles
 * (cuGraphConditionalHandleCreate, the value kernels set with cudaGraphSetConditional),
 * their body graphs and the checks at instantiation. Running them: graph_cond_run.c. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

/* Live handles, so that a handle value from a kernel is checked before it is used;
 * also guards the graphs' lists of handles. Taken after a graph's lock, never before. */
static pthread_mutex_t cond_mu = PTHREAD_MUTEX_INITIALIZER;
static sim_cond_t **live;
static size_t n_live;

static size_t live_index(uint64_t h) {
  for (size_t i = 0; i < n_live; i++)
    if ((uint64_t)(uintptr_t)live[i] == h) return i;
  return (size_t)-1;
}

/* The handle of value h, +1 ref; NULL if none lives. */
static sim_cond_t *cond_get(uint64_t h) {
  pthread_mutex_lock(&cond_mu);
  size_t i = live_index(h);
  sim_cond_t *c = i == (size_t)-1 ? NULL : live[i];
  if (c) atomic_fetch_add(&c->refs, 1);
  pthread_mutex_unlock(&cond_mu);
  return c;
}

/* The count drops under the lock, so that cond_get never revives a handle. */
void sim_cond_unref(sim_cond_t *c) {
  pthread_mutex_lock(&cond_mu);
  bool last = atomic_fetch_sub(&c->refs, 1) == 1;
  if (last) {
    size_t i = live_index((uint64_t)(uintptr_t)c);
    live[i] = live[--n_live];
  }
  pthread_mutex_unlock(&cond_mu);
  if (!last) return;
  sim_obj_unref(&c->ctx->obj);
  free(c);
}

/* A context argument: NULL is the current context; +1 ref. */
static CUresult ctx_arg(CUcontext h, sim_ctx_t **out) {
  if (!h) {
    CUresult r = sim_ctx_current(out);
    if (!r) sim_obj_ref(&(*out)->obj);
    return r;
  }
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_CTX);
  if (!o) return CUDA_ERROR_INVALID_CONTEXT;
  *out = (sim_ctx_t *)o;
  if (atomic_load(&(*out)->alive)) return CUDA_SUCCESS;
  sim_obj_unref(o);
  return CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *out, CUgraph hg, CUcontext hctx, unsigned int def,
                                        unsigned int flags) {
  SIM_CHECK_INIT();
  if (!out || (flags & ~(unsigned)CU_GRAPH_COND_ASSIGN_DEFAULT)) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(hg, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  sim_ctx_t *ctx;
  CUresult r = ctx_arg(hctx, &ctx);
  if (r) {
    sim_obj_unref(&g->obj);
    return r;
  }
  sim_cond_t *c = calloc(1, sizeof *c);
  if (!c) abort();
  atomic_init(&c->refs, 1); /* the graph's (the live list holds none) */
  c->ctx = ctx;
  c->def = def;
  c->assign_default = flags & CU_GRAPH_COND_ASSIGN_DEFAULT;
  atomic_init(&c->value, def); /* the initial value (documented), then whatever kernels set */
  pthread_mutex_lock(&cond_mu);
  sim_cond_t **nl = realloc(live, (n_live + 1) * sizeof *nl);
  sim_cond_t **nc = realloc(g->conds, (g->n_conds + 1) * sizeof *nc);
  if (!nl || !nc) abort();
  live = nl;
  live[n_live++] = c;
  g->conds = nc;
  g->conds[g->n_conds++] = c;
  pthread_mutex_unlock(&cond_mu);
  sim_obj_unref(&g->obj);
  *out = (CUgraphConditionalHandle)(uintptr_t)c;
  return CUDA_SUCCESS;
}

void sim_cond_graph_free(sim_graph_t *g) {
  for (size_t i = 0; i < g->n_conds; i++) sim_cond_unref(g->conds[i]);
  free(g->conds);
}

int sim_cond_interp_set(void *launch, uint64_t h, uint32_t value, const char **why) {
  const sim_launch_t *l = launch;
  int err = 0;
  pthread_mutex_lock(&cond_mu);
  size_t i = live_index(h);
  if (i == (size_t)-1) {
    *why = "not a conditional handle of a live graph";
    err = CUDA_ERROR_ILLEGAL_ADDRESS;
  } else if (live[i]->ctx != l->ctx) {
    *why = "the handle belongs to another context (documented: set only from its own)";
    err = CUDA_ERROR_ILLEGAL_ADDRESS;
  } else {
    atomic_store(&live[i]->value, value);
  }
  pthread_mutex_unlock(&cond_mu);
  return err;
}

/* ---- nodes ---- */
/* Was h made for g or for a graph g is (deep) a body of? (cond_mu held) */
static bool handle_of(const sim_graph_t *g, const sim_cond_t *h) {
  for (; g; g = g->up)
    for (size_t i = 0; i < g->n_conds; i++)
      if (g->conds[i] == h) return true;
  return false;
}

CUresult sim_cond_make(sim_graph_t *g, CUDA_CONDITIONAL_NODE_PARAMS *p, sim_gnode_t *tmp) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  sim_cond_t *h = cond_get(p->handle);
  if (!h) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&cond_mu);
  bool mine = handle_of(g, h);
  pthread_mutex_unlock(&cond_mu);
  /* documented: sizes 1 (while), 1 or 2 (if, if/else), any above 0 (switch); the
   * handle of this graph or one it is a body of; the handle's context */
  bool size_ok = (p->type == CU_GRAPH_COND_TYPE_IF && (p->size == 1 || p->size == 2)) ||
                 (p->type == CU_GRAPH_COND_TYPE_WHILE && p->size == 1) ||
                 (p->type == CU_GRAPH_COND_TYPE_SWITCH && p->size > 0);
  if (!mine || !size_ok || (p->ctx && p->ctx != (CUcontext)h->ctx)) {
    sim_cond_unref(h);
    return CUDA_ERROR_INVALID_VALUE;
  }
  sim_graph_t **body = calloc(p->size, sizeof *body);
  CUgraph *out = calloc(p->size, sizeof *out);
  if (!body || !out) {
    free(body);
    free(out);
    sim_cond_unref(h);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  for (unsigned i = 0; i < p->size; i++) {
    body[i] = sim_graph_new();
    body[i]->up = g;
    sim_obj_ref(&body[i]->obj);
    sim_handle_add(&body[i]->obj); /* the program fills it */
    out[i] = (CUgraph)body[i];
  }
  tmp->u.cond.h = h; /* the reference taken above */
  tmp->u.cond.type = p->type;
  tmp->u.cond.size = p->size;
  tmp->u.cond.body = body;
  tmp->u.cond.out = out;
  p->phGraph_out = out; /* documented: owned by the node, valid while it lives */
  return CUDA_SUCCESS;
}

void sim_cond_copy(sim_gnode_t *dst, const sim_gnode_t *src) {
  atomic_fetch_add(&src->u.cond.h->refs, 1);
  dst->u.cond.out = NULL;
  if (!(dst->u.cond.body = calloc(src->u.cond.size, sizeof *dst->u.cond.body))) abort();
  for (unsigned i = 0; i < src->u.cond.size; i++) {
    dst->u.cond.body[i] = sim_graph_clone(src->u.cond.body[i], NULL);
    dst->u.cond.body[i]->up = dst->graph;
  }
}

void sim_cond_release(sim_gnode_t *n) {
  for (unsigned i = 0; i < n->u.cond.size; i++) {
    sim_graph_t *b = n->u.cond.body[i];
    pthread_mutex_lock(&cond_mu); /* handle_of walks it */
    b->up = NULL;
    pthread_mutex_unlock(&cond_mu);
    sim_handle_remove(&b->obj); /* (copies have no handle) */
    sim_obj_unref(&b->obj);
  }
  free(n->u.cond.body);
  free(n->u.cond.out);
  sim_cond_unref(n->u.cond.h);
}

/* ---- instantiation ---- */
typedef struct {
  sim_cond_t **h;
  size_t n;
} hlist_t;

static void hlist_add(hlist_t *l, sim_cond_t *h) {
  for (size_t i = 0; i < l->n; i++)
    if (l->h[i] == h) return;
  sim_cond_t **nh = realloc(l->h, (l->n + 1) * sizeof *nh);
  if (!nh) abort();
  l->h = nh;
  l->h[l->n++] = h;
}

/* Handles the conditional nodes of g use (deep: bodies, and child graphs in them);
 * g is a private copy or its lock is held. */
static void used_handles(sim_graph_t *g, hlist_t *l) {
  for (size_t i = 0; i < g->n; i++) {
    sim_gnode_t *n = g->nodes[i];
    if (n->type == CU_GRAPH_NODE_TYPE_GRAPH) used_handles(n->u.child, l);
    if (n->type != CU_GRAPH_NODE_TYPE_CONDITIONAL) continue;
    hlist_add(l, n->u.cond.h);
    for (unsigned b = 0; b < n->u.cond.size; b++) used_handles(n->u.cond.body[b], l);
  }
}

/* Handles made for g and for the bodies of its conditional nodes. */
static void made_handles(sim_graph_t *g, hlist_t *l) {
  pthread_mutex_lock(&g->mu);
  pthread_mutex_lock(&cond_mu);
  for (size_t i = 0; i < g->n_conds; i++) hlist_add(l, g->conds[i]);
  pthread_mutex_unlock(&cond_mu);
  for (size_t i = 0; i < g->n; i++)
    if (g->nodes[i]->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
      for (unsigned b = 0; b < g->nodes[i]->u.cond.size; b++) made_handles(g->nodes[i]->u.cond.body[b], l);
  pthread_mutex_unlock(&g->mu);
}

static const char *type_name(CUgraphNodeType t) {
  switch (t) {
    case CU_GRAPH_NODE_TYPE_HOST: return "a host node";
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return "an event wait node";
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return "an event record node";
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: return "a memory alloc node";
    case CU_GRAPH_NODE_TYPE_MEM_FREE: return "a memory free node";
    default: return "a node of another type";
  }
}

/* A body of a conditional node in ctx (deep): documented, it holds only kernel,
 * empty, child graph, memset, memcpy and conditional nodes, all of ctx. Nodes of
 * the copy name their user's node (orig) in *err. */
static CUgraphInstantiateResult check_body(sim_graph_t *b, const sim_ctx_t *ctx, sim_gnode_t **err) {
  CUgraphInstantiateResult res = CUDA_GRAPH_INSTANTIATE_SUCCESS;
  for (size_t i = 0; i < b->n && !res; i++) {
    sim_gnode_t *n = b->nodes[i];
    *err = (sim_gnode_t *)n->orig;
    switch (n->type) {
      case CU_GRAPH_NODE_TYPE_KERNEL:
        if (n->u.launch->ctx != ctx) res = CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED;
        break;
      case CU_GRAPH_NODE_TYPE_EMPTY:
      case CU_GRAPH_NODE_TYPE_MEMSET:
      case CU_GRAPH_NODE_TYPE_MEMCPY: break;
      case CU_GRAPH_NODE_TYPE_GRAPH: res = check_body(n->u.child, ctx, err); break;
      case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        if (n->u.cond.h->ctx != ctx) res = CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED;
        for (unsigned k = 0; k < n->u.cond.size && !res; k++) res = check_body(n->u.cond.body[k], ctx, err);
        break;
      default:
        sim_log("graph instantiation: %s in the body of a conditional node (documented: kernel, empty, child "
                "graph, memset, memcpy and conditional nodes only)", type_name(n->type));
        res = CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED;
    }
  }
  return res;
}

/* The conditional nodes of g (deep) and their bodies. */
static CUgraphInstantiateResult check_graph(sim_graph_t *g, sim_gnode_t **err) {
  CUgraphInstantiateResult res = CUDA_GRAPH_INSTANTIATE_SUCCESS;
  for (size_t i = 0; i < g->n && !res; i++) {
    sim_gnode_t *n = g->nodes[i];
    if (n->type == CU_GRAPH_NODE_TYPE_GRAPH) res = check_graph(n->u.child, err);
    if (n->type != CU_GRAPH_NODE_TYPE_CONDITIONAL) continue;
    for (unsigned k = 0; k < n->u.cond.size && !res; k++) res = check_body(n->u.cond.body[k], n->u.cond.h->ctx, err);
    if (res == CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED)
      sim_log("graph instantiation: a node in the body of a conditional node belongs to another context than "
              "its handle (documented: all must belong to the same context)");
  }
  return res;
}

CUresult sim_cond_check(sim_graph_t *user, sim_graph_t *copy, sim_gnode_t **err, CUgraphInstantiateResult *res) {
  *err = NULL;
  *res = check_graph(copy, err); /* a private copy: no lock needed */
  if (*res == CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED) return CUDA_ERROR_NOT_SUPPORTED;
  if (*res) return CUDA_ERROR_INVALID_CONTEXT;
  hlist_t made = {0}, used = {0};
  made_handles(user, &made);
  used_handles(copy, &used);
  for (size_t i = 0; i < made.n && !*res; i++) {
    bool found = false;
    for (size_t k = 0; k < used.n && !found; k++) found = used.h[k] == made.h[i];
    if (!found) *res = CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED;
  }
  free(made.h);
  free(used.h);
  if (!*res) return CUDA_SUCCESS;
  *err = NULL;
  sim_log("graph instantiation: a conditional handle made for the graph is used by none of its conditional nodes");
  return CUDA_ERROR_INVALID_VALUE;
}

size_t sim_cond_collect(sim_graph_t *g, sim_cond_t ***out) {
  hlist_t l = {0};
  used_handles(g, &l);
  for (size_t i = 0; i < l.n; i++) atomic_fetch_add(&l.h[i]->refs, 1);
  *out = l.h;
  return l.n;
}
