/* graph.c: CUDA graphs as objects: creation, nodes and edges, deep copies
 * (cuGraphClone, child graphs, instantiation), destruction and the queries
 * (nodes, roots, edges, dependencies, type). Node parameters: graph_nodes.c. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

/* cuda.h maps these names to their newest ABIs; both are defined here. */
#undef cuGraphGetEdges
#undef cuGraphNodeGetDependencies
#undef cuGraphNodeGetDependentNodes
#undef cuGraphAddDependencies
#undef cuGraphRemoveDependencies

static void node_free(sim_obj_t *o) {
  sim_gnode_t *n = (sim_gnode_t *)o;
  sim_gnode_release(n);
  free(n->deps);
  free(n);
}

static void graph_free(sim_obj_t *o) {
  sim_graph_t *g = (sim_graph_t *)o;
  for (size_t i = 0; i < g->n; i++) {
    sim_handle_remove(&g->nodes[i]->obj);
    sim_obj_unref(&g->nodes[i]->obj);
  }
  free(g->nodes);
  sim_cond_graph_free(g);
  pthread_mutex_destroy(&g->mu);
  free(g);
}

sim_graph_t *sim_graph_new(void) {
  sim_graph_t *g = calloc(1, sizeof *g);
  if (!g) abort();
  sim_obj_init(&g->obj, SIM_OBJ_GRAPH, NULL, graph_free);
  pthread_mutex_init(&g->mu, NULL);
  return g;
}

sim_gnode_t *sim_graph_add(sim_graph_t *g, CUgraphNodeType type, sim_gnode_t *const *deps, size_t n_deps) {
  sim_gnode_t *n = calloc(1, sizeof *n);
  if (!n) abort();
  sim_obj_init(&n->obj, SIM_OBJ_NODE, NULL, node_free);
  n->graph = g;
  n->type = type;
  if (n_deps) {
    if (!(n->deps = malloc(n_deps * sizeof *n->deps))) abort();
    memcpy(n->deps, deps, n_deps * sizeof *deps);
    n->n_deps = n_deps;
  }
  pthread_mutex_lock(&g->mu);
  sim_gnode_t **nn = realloc(g->nodes, (g->n + 1) * sizeof *nn);
  if (!nn) abort();
  g->nodes = nn;
  g->nodes[g->n++] = n; /* the graph's reference */
  pthread_mutex_unlock(&g->mu);
  sim_obj_ref(&n->obj);
  sim_handle_add(&n->obj); /* the handle table's */
  return n;
}

CUresult sim_graph_deps(sim_graph_t *g, const CUgraphNode *deps, size_t n, bool unique, sim_gnode_t ***out) {
  *out = NULL;
  if (n && !deps) return CUDA_ERROR_INVALID_VALUE;
  if (!n) return CUDA_SUCCESS;
  sim_gnode_t **d = calloc(n, sizeof *d);
  if (!d) abort();
  CUresult r = CUDA_SUCCESS;
  for (size_t i = 0; i < n && !r; i++) {
    sim_obj_t *o = sim_handle_get(deps[i], SIM_OBJ_NODE);
    if (!o) { r = CUDA_ERROR_INVALID_VALUE; break; }
    d[i] = (sim_gnode_t *)o;
    sim_obj_unref(o); /* the graph holds it while g lives */
    if (d[i]->graph != g) r = CUDA_ERROR_INVALID_VALUE;
    for (size_t j = 0; unique && j < i && !r; j++)
      if (d[j] == d[i]) r = CUDA_ERROR_INVALID_VALUE; /* a duplicate edge */
  }
  if (r) free(d);
  else *out = d;
  return r;
}

static size_t index_of(sim_graph_t *g, const sim_gnode_t *n) {
  for (size_t i = 0; i < g->n; i++)
    if (g->nodes[i] == n) return i;
  return (size_t)-1;
}

/* A copy of g in topological order. Insertion order usually is one; edges added
 * later (cuGraphAddDependencies) may point forward, so the order is computed. */
sim_graph_t *sim_graph_clone(sim_graph_t *g, sim_gnode_t ***map_out) {
  sim_graph_t *c = sim_graph_new();
  pthread_mutex_lock(&g->mu);
  size_t n = g->n;
  sim_gnode_t **map = calloc(n ? n : 1, sizeof *map);
  bool *done = calloc(n ? n : 1, sizeof *done);
  if (!map || !done) abort();
  for (size_t made = 0; made < n;) {
    size_t before = made;
    for (size_t i = 0; i < n; i++) {
      if (done[i]) continue;
      sim_gnode_t *o = g->nodes[i];
      bool ready = true;
      for (size_t k = 0; k < o->n_deps && ready; k++) ready = done[index_of(g, o->deps[k])];
      if (!ready) continue;
      sim_gnode_t **deps = calloc(o->n_deps ? o->n_deps : 1, sizeof *deps);
      if (!deps) abort();
      for (size_t k = 0; k < o->n_deps; k++) deps[k] = map[index_of(g, o->deps[k])];
      map[i] = sim_graph_add(c, o->type, deps, o->n_deps); /* locks the copy only */
      free(deps);
      map[i]->orig = o->orig ? o->orig : o;
      map[i]->disabled = o->disabled;
      sim_gnode_copy_params(map[i], o);
      done[i] = true;
      made++;
    }
    if (made == before) break; /* a cycle: refused when the edge was added */
  }
  pthread_mutex_unlock(&g->mu);
  free(done);
  if (map_out) *map_out = map;
  else free(map);
  return c;
}

bool sim_graph_has_type(sim_graph_t *g, CUgraphNodeType t, bool deep) {
  bool found = false;
  pthread_mutex_lock(&g->mu);
  for (size_t i = 0; i < g->n && !found; i++) {
    const sim_gnode_t *n = g->nodes[i];
    found = n->type == t;
    if (!found && deep && n->type == CU_GRAPH_NODE_TYPE_GRAPH) found = sim_graph_has_type(n->u.child, t, true);
    for (unsigned b = 0; !found && deep && n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL && b < n->u.cond.size; b++)
      found = sim_graph_has_type(n->u.cond.body[b], t, true);
  }
  pthread_mutex_unlock(&g->mu);
  return found;
}

/* ---- API ---- */
CUresult cuGraphCreate(CUgraph *ph, unsigned int flags) {
  SIM_CHECK_INIT();
  if (!ph || flags) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = sim_graph_new();
  sim_handle_add(&g->obj);
  *ph = (CUgraph)g;
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph h) {
  SIM_CHECK_INIT();
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(h, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  bool body = g->up != NULL; /* a conditional node's body goes with the node */
  sim_obj_unref(&g->obj);
  return !body && sim_handle_destroy(h, SIM_OBJ_GRAPH) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphClone(CUgraph *out, CUgraph h) {
  SIM_CHECK_INIT();
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(h, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  if (sim_graph_has_type(g, CU_GRAPH_NODE_TYPE_MEM_ALLOC, true) ||
      sim_graph_has_type(g, CU_GRAPH_NODE_TYPE_MEM_FREE, true) ||
      sim_graph_has_type(g, CU_GRAPH_NODE_TYPE_CONDITIONAL, true)) {
    sim_obj_unref(&g->obj);
    return CUDA_ERROR_NOT_SUPPORTED; /* documented: graphs with memory or conditional nodes cannot be cloned */
  }
  sim_graph_t *c = sim_graph_clone(g, NULL);
  /* cuGraphNodeFindInClone maps by original: a clone's nodes are their own originals' copies */
  sim_obj_unref(&g->obj);
  sim_handle_add(&c->obj);
  *out = (CUgraph)c;
  return CUDA_SUCCESS;
}

CUresult cuGraphNodeFindInClone(CUgraphNode *out, CUgraphNode orig, CUgraph clone) {
  SIM_CHECK_INIT();
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *c = (sim_graph_t *)sim_handle_get(clone, SIM_OBJ_GRAPH);
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  sim_gnode_t *n = sim_graph_find_copy(c, (const sim_gnode_t *)orig);
  if (n) *out = (CUgraphNode)n;
  sim_obj_unref(&c->obj);
  return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* (The bodies of conditional nodes too: their nodes are set like any other.) */
sim_gnode_t *sim_graph_find_copy(sim_graph_t *c, const sim_gnode_t *orig) {
  sim_gnode_t *n = NULL;
  pthread_mutex_lock(&c->mu);
  for (size_t i = 0; i < c->n && !n; i++) {
    const sim_gnode_t *x = c->nodes[i];
    if (x->orig == orig) n = c->nodes[i];
    for (unsigned b = 0; !n && x->type == CU_GRAPH_NODE_TYPE_CONDITIONAL && b < x->u.cond.size; b++)
      n = sim_graph_find_copy(x->u.cond.body[b], orig);
  }
  pthread_mutex_unlock(&c->mu);
  return n;
}

/* Node handle and its (live) graph, +1 ref on the graph. */
static CUresult node_get(CUgraphNode h, sim_gnode_t **n, sim_graph_t **g) {
  SIM_CHECK_INIT();
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_NODE);
  if (!o) return CUDA_ERROR_INVALID_VALUE;
  *n = (sim_gnode_t *)o;
  *g = (*n)->graph;
  sim_obj_ref(&(*g)->obj);
  sim_obj_unref(o); /* held by its graph */
  return CUDA_SUCCESS;
}

CUresult cuGraphNodeGetType(CUgraphNode h, CUgraphNodeType *t) {
  sim_gnode_t *n;
  sim_graph_t *g;
  CUresult r = node_get(h, &n, &g);
  if (r) return r;
  if (t) *t = n->type;
  sim_obj_unref(&g->obj);
  return t ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The convention of every list query: NULL array -> count only; else up to *count
 * entries, *count set to the number written (the real count if smaller). */
static void list_out(CUgraphNode *arr, size_t *count, sim_gnode_t *const *items, size_t n) {
  if (!arr) {
    *count = n;
    return;
  }
  size_t k = n < *count ? n : *count;
  for (size_t i = 0; i < k; i++) arr[i] = (CUgraphNode)items[i];
  for (size_t i = k; i < *count; i++) arr[i] = NULL;
  *count = k;
}

static CUresult graph_list(CUgraph h, CUgraphNode *arr, size_t *count, bool roots) {
  SIM_CHECK_INIT();
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(h, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&g->mu);
  sim_gnode_t **items = calloc(g->n ? g->n : 1, sizeof *items);
  if (!items) abort();
  size_t k = 0;
  for (size_t i = 0; i < g->n; i++)
    if (!roots || !g->nodes[i]->n_deps) items[k++] = g->nodes[i];
  pthread_mutex_unlock(&g->mu);
  list_out(arr, count, items, k);
  free(items);
  sim_obj_unref(&g->obj);
  return CUDA_SUCCESS;
}
CUresult cuGraphGetNodes(CUgraph h, CUgraphNode *n, size_t *c) { return graph_list(h, n, c, false); }
CUresult cuGraphGetRootNodes(CUgraph h, CUgraphNode *n, size_t *c) { return graph_list(h, n, c, true); }

/* Edge data other than the default (all zero) is not simulated. */
static void zero_edges(CUgraphEdgeData *e, size_t n) {
  if (e) memset(e, 0, n * sizeof *e);
}

CUresult cuGraphGetEdges_v2(CUgraph h, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *edata, size_t *count) {
  SIM_CHECK_INIT();
  if (!count || (!from) != (!to) || (edata && !from)) return CUDA_ERROR_INVALID_VALUE;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(h, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  size_t k = 0;
  pthread_mutex_lock(&g->mu);
  for (size_t i = 0; i < g->n; i++)
    for (size_t d = 0; d < g->nodes[i]->n_deps; d++, k++)
      if (from && k < *count) {
        from[k] = (CUgraphNode)g->nodes[i]->deps[d];
        to[k] = (CUgraphNode)g->nodes[i];
      }
  pthread_mutex_unlock(&g->mu);
  if (from) {
    for (size_t i = k; i < *count; i++) from[i] = to[i] = NULL;
    zero_edges(edata, *count);
    if (k < *count) *count = k;
  } else {
    *count = k;
  }
  sim_obj_unref(&g->obj);
  return CUDA_SUCCESS;
}
CUresult cuGraphGetEdges(CUgraph h, CUgraphNode *from, CUgraphNode *to, size_t *count) {
  return cuGraphGetEdges_v2(h, from, to, NULL, count);
}

static CUresult node_neighbours(CUgraphNode h, CUgraphNode *arr, CUgraphEdgeData *edata, size_t *count, bool out) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  sim_gnode_t *n;
  sim_graph_t *g;
  CUresult r = node_get(h, &n, &g);
  if (r) return r;
  pthread_mutex_lock(&g->mu);
  sim_gnode_t **items = calloc(g->n ? g->n : 1, sizeof *items);
  if (!items) abort();
  size_t k = 0;
  if (!out) {
    memcpy(items, n->deps, n->n_deps * sizeof *items);
    k = n->n_deps;
  } else {
    for (size_t i = 0; i < g->n; i++)
      for (size_t d = 0; d < g->nodes[i]->n_deps; d++)
        if (g->nodes[i]->deps[d] == n) items[k++] = g->nodes[i];
  }
  pthread_mutex_unlock(&g->mu);
  list_out(arr, count, items, k);
  if (arr) zero_edges(edata, *count);
  free(items);
  sim_obj_unref(&g->obj);
  return CUDA_SUCCESS;
}
CUresult cuGraphNodeGetDependencies_v2(CUgraphNode h, CUgraphNode *d, CUgraphEdgeData *e, size_t *c) {
  return node_neighbours(h, d, e, c, false);
}
CUresult cuGraphNodeGetDependencies(CUgraphNode h, CUgraphNode *d, size_t *c) { return node_neighbours(h, d, NULL, c, false); }
CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode h, CUgraphNode *d, CUgraphEdgeData *e, size_t *c) {
  return node_neighbours(h, d, e, c, true);
}
CUresult cuGraphNodeGetDependentNodes(CUgraphNode h, CUgraphNode *d, size_t *c) { return node_neighbours(h, d, NULL, c, true); }

/* Is a reachable from b by following dependencies (a is an ancestor of b)? */
static bool reaches(const sim_gnode_t *a, const sim_gnode_t *b) {
  if (a == b) return true;
  for (size_t i = 0; i < b->n_deps; i++)
    if (reaches(a, b->deps[i])) return true;
  return false;
}

static CUresult edges_edit(CUgraph h, const CUgraphNode *from, const CUgraphNode *to, const CUgraphEdgeData *edata,
                           size_t n, bool add) {
  SIM_CHECK_INIT();
  if (n && (!from || !to)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; edata && i < n; i++)
    if (edata[i].from_port || edata[i].to_port || edata[i].type) return CUDA_ERROR_NOT_SUPPORTED;
  sim_graph_t *g = (sim_graph_t *)sim_handle_get(h, SIM_OBJ_GRAPH);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  sim_gnode_t **f = NULL, **t = NULL;
  CUresult r = sim_graph_deps(g, from, n, false, &f);
  if (!r) r = sim_graph_deps(g, to, n, false, &t);
  pthread_mutex_lock(&g->mu);
  for (size_t i = 0; i < n && !r; i++) {
    sim_gnode_t *a = f[i], *b = t[i];
    size_t at = (size_t)-1;
    for (size_t d = 0; d < b->n_deps; d++)
      if (b->deps[d] == a) at = d;
    if (add) {
      if (at != (size_t)-1 || reaches(b, a)) { r = CUDA_ERROR_INVALID_VALUE; break; } /* duplicate or cycle */
      sim_gnode_t **nd = realloc(b->deps, (b->n_deps + 1) * sizeof *nd);
      if (!nd) abort();
      b->deps = nd;
      b->deps[b->n_deps++] = a;
    } else {
      if (at == (size_t)-1) { r = CUDA_ERROR_INVALID_VALUE; break; }
      b->deps[at] = b->deps[--b->n_deps];
    }
  }
  pthread_mutex_unlock(&g->mu);
  free(f);
  free(t);
  sim_obj_unref(&g->obj);
  return r;
}
CUresult cuGraphAddDependencies_v2(CUgraph h, const CUgraphNode *f, const CUgraphNode *t, const CUgraphEdgeData *e,
                                   size_t n) {
  return edges_edit(h, f, t, e, n, true);
}
CUresult cuGraphAddDependencies(CUgraph h, const CUgraphNode *f, const CUgraphNode *t, size_t n) {
  return edges_edit(h, f, t, NULL, n, true);
}
CUresult cuGraphRemoveDependencies_v2(CUgraph h, const CUgraphNode *f, const CUgraphNode *t,
                                      const CUgraphEdgeData *e, size_t n) {
  return edges_edit(h, f, t, e, n, false);
}
CUresult cuGraphRemoveDependencies(CUgraph h, const CUgraphNode *f, const CUgraphNode *t, size_t n) {
  return edges_edit(h, f, t, NULL, n, false);
}

CUresult cuGraphDestroyNode(CUgraphNode h) {
  sim_gnode_t *n;
  sim_graph_t *g;
  CUresult r = node_get(h, &n, &g);
  if (r) return r;
  pthread_mutex_lock(&g->mu);
  size_t at = index_of(g, n);
  for (size_t i = 0; i < g->n; i++) { /* its edges go with it */
    sim_gnode_t *o = g->nodes[i];
    for (size_t d = 0; d < o->n_deps;)
      if (o->deps[d] == n) o->deps[d] = o->deps[--o->n_deps];
      else d++;
  }
  memmove(g->nodes + at, g->nodes + at + 1, (g->n - at - 1) * sizeof *g->nodes);
  g->n--;
  pthread_mutex_unlock(&g->mu);
  sim_handle_remove(&n->obj);
  sim_obj_unref(&n->obj);
  sim_obj_unref(&g->obj);
  return CUDA_SUCCESS;
}

/* Not simulated: the graph's text form. Named, so that a program learns which call. */
CUresult cuGraphDebugDotPrint(CUgraph h, const char *path, unsigned int flags) {
  (void)h, (void)path, (void)flags;
  SIM_CHECK_INIT();
  sim_log("cuGraphDebugDotPrint is not simulated");
  return CUDA_ERROR_NOT_SUPPORTED;
}
