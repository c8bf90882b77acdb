/* graph_cond_run.c: conditional graph nodes in stream order: the handles' defaults
 * at the start of a launch, and each node run on the stream's worker from the
 * launch's own copy of its bodies. */
#include <stdlib.h>

#include "graph.h"

typedef struct {
  size_t n;
  sim_cond_t *h[];
} defaults_t;

static void defaults_run(void *data, sim_stream_t *s) {
  (void)s;
  defaults_t *d = data;
  for (size_t i = 0; i < d->n; i++) atomic_store(&d->h[i]->value, d->h[i]->def);
}

static void defaults_release(void *data) {
  defaults_t *d = data;
  for (size_t i = 0; i < d->n; i++) sim_cond_unref(d->h[i]);
  free(d);
}

void sim_cond_launch_begins(sim_cond_t *const *hs, size_t n, sim_stream_t *s) {
  defaults_t *d = malloc(sizeof *d + n * sizeof *d->h);
  if (!d) abort();
  d->n = 0;
  for (size_t i = 0; i < n; i++)
    if (hs[i]->assign_default) {
      atomic_fetch_add(&hs[i]->refs, 1);
      d->h[d->n++] = hs[i];
    }
  if (!d->n) {
    free(d);
    return;
  }
  sim_op_t *op = sim_op_new(SIM_OP_TASK);
  op->u.task.run = defaults_run;
  op->u.task.release = defaults_release;
  op->u.task.data = d;
  sim_stream_enqueue(s, op);
}

static void run_cond(const sim_gnode_t *n, sim_stream_t *s, uint64_t ticket);

/* Runs the nodes of a private copy (topological order) on s's worker, one after
 * another. */
static void run_graph(sim_graph_t *g, sim_stream_t *s, uint64_t ticket) {
  for (size_t i = 0; i < g->n; i++) {
    sim_gnode_t *n = g->nodes[i];
    if (n->disabled) continue;
    if (n->type == CU_GRAPH_NODE_TYPE_GRAPH) {
      run_graph(n->u.child, s, ticket);
    } else if (n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
      run_cond(n, s, ticket);
    } else {
      sim_op_t *op = sim_gnode_op(n, ticket);
      if (op) {
        sim_op_execute(op, s);
        sim_op_free(op);
      }
    }
  }
}

/* The value is read when the node is reached and, for a while node, before every
 * iteration (the first included). */
static void run_cond(const sim_gnode_t *n, sim_stream_t *s, uint64_t ticket) {
  sim_ctx_t *ctx = s->obj.ctx;
  for (;;) {
    /* after a fault the context runs no kernel: a loop waiting for one would not end */
    if (atomic_load(&ctx->sticky) != CUDA_SUCCESS) return;
    unsigned v = atomic_load(&n->u.cond.h->value);
    switch (n->u.cond.type) {
      case CU_GRAPH_COND_TYPE_IF:
        if (v || n->u.cond.size == 2) run_graph(n->u.cond.body[v ? 0 : 1], s, ticket);
        return;
      case CU_GRAPH_COND_TYPE_SWITCH:
        if (v < n->u.cond.size) run_graph(n->u.cond.body[v], s, ticket);
        return;
      default: /* WHILE */
        if (!v) return;
        run_graph(n->u.cond.body[0], s, ticket);
    }
  }
}

/* A launch's own copy of the node (its bodies as they are at the launch: later
 * changes to the executable graph reach only later launches, as documented). */
typedef struct {
  sim_gnode_t node;
  uint64_t ticket;
  struct sim_decl_s *decl; /* what gpuft declared unwritten by the launch (SIMCUDA_CHECK_ACCESS) */
} cond_task_t;

static void cond_run(void *data, sim_stream_t *s) {
  cond_task_t *t = data;
  struct sim_decl_s *was = sim_acheck_graph_swap(t->decl);
  run_cond(&t->node, s, t->ticket);
  sim_acheck_graph_swap(was);
}

static void cond_release(void *data) {
  cond_task_t *t = data;
  sim_cond_release(&t->node);
  sim_acheck_decl_free(t->decl);
  free(t);
}

void sim_cond_enqueue(const sim_gnode_t *n, sim_stream_t *s, uint64_t ticket) {
  cond_task_t *t = calloc(1, sizeof *t);
  if (!t) abort();
  t->node.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  t->node.u = n->u;
  sim_cond_copy(&t->node, n);
  t->ticket = ticket;
  t->decl = sim_acheck_graph_declared();
  sim_op_t *op = sim_op_new(SIM_OP_TASK);
  op->u.task.run = cond_run;
  op->u.task.release = cond_release;
  op->u.task.data = t;
  sim_stream_enqueue(s, op);
}
