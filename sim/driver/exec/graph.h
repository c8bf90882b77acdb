/* graph.h: CUDA graphs inside the exec room: graphs and their nodes (graph.c,
 * graph_nodes.c), executable graphs (graph_exec.c), stream capture (capture.c). */
#ifndef SIM_GRAPH_H
#define SIM_GRAPH_H

#include "exec.h"

typedef struct sim_graph_s sim_graph_t;
typedef struct sim_gnode_s sim_gnode_t;
typedef struct sim_capture_s sim_capture_t;

/* Graph memory of an alloc node: reserved when the node is made, so that its
 * address is known then and the same at every launch, as with the driver; the
 * alloc node fills it with poison, the free node poisons it again. */
typedef struct {
  atomic_int refs;
  uint64_t ptr;
  size_t size;
  sim_ctx_t *ctx;  /* ref */
  int dev;        /* the device whose memory it is */
  bool live;      /* allocated by a launch and not freed since (graph_nodes.c's lock) */
} sim_gmem_t;

/* A conditional handle (cuGraphConditionalHandleCreate, graph_cond.c): the value
 * conditional nodes read and kernels set (cudaGraphSetConditional). One value per
 * handle, shared by the graph and its executable graph: a graph with conditional
 * nodes has one executable graph at a time, whose launches are ordered, so a
 * kernel's value lands in the launch that runs it. */
typedef struct sim_cond_s {
  atomic_int refs;
  sim_ctx_t *ctx;         /* ref: kernels of other contexts cannot set it */
  unsigned def;           /* the default (initial) value */
  bool assign_default;    /* CU_GRAPH_COND_ASSIGN_DEFAULT: def again at each launch */
  bool used;              /* a conditional node was made with it (graph_cond.c's lock) */
  atomic_uint value;
} sim_cond_t;

struct sim_gnode_s {
  sim_obj_t obj;
  sim_graph_t *graph;     /* owner (not a reference) */
  CUgraphNodeType type;
  sim_gnode_t **deps;     /* incoming edges */
  size_t n_deps;
  const sim_gnode_t *orig; /* in a copy (clone, executable graph): the node it was made from */
  uint64_t mark;          /* graph walks (capture.c, under its lock) */
  bool disabled;          /* in an executable graph: cuGraphNodeSetEnabled(0) */
  union {
    sim_launch_t *launch;                   /* KERNEL */
    struct { sim_copy_t c; CUDA_MEMCPY3D p; } copy; /* MEMCPY: resolved, and as given */
    struct { sim_memset_t m; CUDA_MEMSET_NODE_PARAMS p; } memset;
    CUDA_HOST_NODE_PARAMS host;
    sim_graph_t *child;                     /* GRAPH: an owned copy */
    sim_event_t *event;                     /* EVENT_RECORD / WAIT_EVENT (ref) */
    sim_gmem_t *mem;                        /* MEM_ALLOC (ref) */
    uint64_t free_ptr;                      /* MEM_FREE */
    struct {                                /* CONDITIONAL (graph_cond.c) */
      sim_cond_t *h;                        /* ref */
      CUgraphConditionalNodeType type;
      unsigned size;
      sim_graph_t **body;                   /* size owned graphs (handles in the user's graph) */
      CUgraph *out;                         /* phGraph_out as handed out (NULL in copies) */
    } cond;
  } u;
};

struct sim_graph_s {
  sim_obj_t obj;
  pthread_mutex_t mu;
  sim_gnode_t **nodes; /* insertion order (each holds the graph's reference) */
  size_t n;
  atomic_int n_execs;  /* live executable graphs made from it (memory nodes allow one) */
  sim_graph_t *up;     /* a conditional node's body: the node's graph (not a reference;
                        * NULL once the node is gone) */
  sim_cond_t **conds;  /* conditional handles made for it (refs, graph_cond.c's lock) */
  size_t n_conds;
};

/* ---- graph.c ---- */
sim_graph_t *sim_graph_new(void);
/* Appends a node of the given type after deps (all of graph g); the graph owns it. */
sim_gnode_t *sim_graph_add(sim_graph_t *g, CUgraphNodeType type, sim_gnode_t *const *deps, size_t n_deps);
/* Checks the node handles of an entry point (nodes of g; unique: no repeats)
 * into an array the caller frees (NULL when n is 0). */
CUresult sim_graph_deps(sim_graph_t *g, const CUgraphNode *deps, size_t n, bool unique, sim_gnode_t ***out);
void sim_gnode_release(sim_gnode_t *n); /* frees what the node's parameters hold */
/* Copies node parameters (references taken) from src into dst (same type). */
void sim_gnode_copy_params(sim_gnode_t *dst, const sim_gnode_t *src);
/* A deep copy of g, nodes in topological order; map[i] = copy of g->nodes[i] if map. */
sim_graph_t *sim_graph_clone(sim_graph_t *g, sim_gnode_t ***map);
/* Does g (deep: or a child graph of it) hold a node of type t? */
bool sim_graph_has_type(sim_graph_t *g, CUgraphNodeType t, bool deep);
sim_launch_t *sim_launch_clone(const sim_launch_t *t);
/* The node of copy c made from orig (NULL if none). */
sim_gnode_t *sim_graph_find_copy(sim_graph_t *c, const sim_gnode_t *orig);
void sim_gmem_unref(sim_gmem_t *m);

/* ---- graph_nodes.c ---- */
bool sim_gmem_find(uint64_t ptr); /* the base of graph memory? */
/* Graph memory at ptr: sets its allocated state if set >= 0; returns the old one. */
bool sim_gmem_live(uint64_t ptr, int set);
/* Graph memory at ptr is freed in stream order on s (poisoned there); false if it
 * was not allocated (a double free). */
bool sim_gmem_release(uint64_t ptr, sim_stream_t *s);
void sim_gmem_allocate(sim_gmem_t *m, sim_stream_t *s); /* the alloc node runs on s */
/* A MEM_ALLOC node with size bytes of new graph memory (NULL and *r on failure). */
sim_gnode_t *sim_graph_add_alloc(sim_graph_t *g, sim_gnode_t *const *deps, size_t n_deps, sim_ctx_t *ctx, int dev,
                                 size_t size, CUresult *r);
void sim_gnode_kernel_params(const sim_gnode_t *n, CUDA_KERNEL_NODE_PARAMS *p);

/* ---- graph_cond.c: conditional handles and nodes (graph_cond_run.c: running them) ---- */
void sim_cond_unref(sim_cond_t *c);
/* A CONDITIONAL node's parameters from the API's (its bodies made, p->phGraph_out
 * filled); the node is added to g. Nothing is held on failure. */
CUresult sim_cond_make(sim_graph_t *g, CUDA_CONDITIONAL_NODE_PARAMS *p, sim_gnode_t *tmp);
void sim_cond_copy(sim_gnode_t *dst, const sim_gnode_t *src); /* deep: the bodies copied */
void sim_cond_release(sim_gnode_t *n);
void sim_cond_graph_free(sim_graph_t *g); /* g's handles and its place as a body */
/* Instantiation of user (copy: its private copy): bodies hold only what conditional
 * bodies may hold, in the handles' context, and every handle made for user is used;
 * on failure *res says why and *err is the offending node of user's (or NULL). */
CUresult sim_cond_check(sim_graph_t *user, sim_graph_t *copy, sim_gnode_t **err, CUgraphInstantiateResult *res);
/* The handles the conditional nodes of g use (deep; g private or locked), refs
 * taken; their number. */
size_t sim_cond_collect(sim_graph_t *g, sim_cond_t ***out);
/* graph_cond_run.c: a launch begins on s: handles with CU_GRAPH_COND_ASSIGN_DEFAULT
 * take their default. */
void sim_cond_launch_begins(sim_cond_t *const *hs, size_t n, sim_stream_t *s);
/* Queues the conditional node n (of an executable graph, as it is now) on s. */
void sim_cond_enqueue(const sim_gnode_t *n, sim_stream_t *s, uint64_t ticket);

/* ---- graph_exec.c ---- */
/* The stream operation that runs node n (kernel, memcpy, memset, host, event wait;
 * NULL for the other types); ticket: sim_mem_free_ticket() of the launch. */
sim_op_t *sim_gnode_op(const sim_gnode_t *n, uint64_t ticket);
/* Queues one launch of the executable graph on stream s (as ops in topological order). */
void sim_graph_exec_enqueue(CUgraphExec h, sim_stream_t *s);
/* The node of executable graph he made from orig; *hold: a reference the caller drops. */
CUresult sim_graph_exec_node(CUgraphExec he, const sim_gnode_t *orig, sim_gnode_t **n, sim_obj_t **hold);

/* ---- capture.c ---- */
/* Stream capture state lives in sim_stream_t (cap, cap_deps): see stream.c. */
/* The op queued on a capturing stream becomes a node; true when it was taken (and freed). */
bool sim_capture_take(sim_stream_t *s, sim_op_t *op);
/* For an entry point about to queue work on s: the capture errors (legacy stream
 * during capture, an invalidated capture). */
CUresult sim_capture_check_enqueue(sim_stream_t *s);
/* Synchronising or querying s (or its context) while a capture involves it. */
CUresult sim_capture_check_sync(sim_stream_t *s);
/* cuEventRecord on s: during capture the event takes the capture's current
 * dependencies (or, EXTERNAL, a record node is added); *taken tells which. */
CUresult sim_capture_event_record(sim_stream_t *s, sim_event_t *ev, unsigned flags, bool *taken);
/* cuStreamWaitEvent(s, ev): joins s to ev's capture, or captures an external wait. */
CUresult sim_capture_event_wait(sim_stream_t *s, sim_event_t *ev, unsigned flags, bool *taken);
/* An event last recorded by a capture cannot be queried or waited on by the host. */
bool sim_capture_event_is_captured(sim_event_t *ev);
/* cuMemAllocAsync / cuMemFreeAsync on a capturing stream: mem nodes. */
CUresult sim_capture_alloc(sim_stream_t *s, size_t size, uint64_t *out, bool *taken);
CUresult sim_capture_free(sim_stream_t *s, uint64_t ptr, bool *taken);
/* An operation the simulator does not capture, queued on s: during capture the
 * capture is invalidated and CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED returned. */
CUresult sim_capture_refuse(sim_stream_t *s, const char *what);
/* A copy whose source must be read at the call (at_call) cannot be captured; one
 * with a pageable host side can (its node uses it when it runs). */
CUresult sim_capture_check_copy(sim_stream_t *s, bool at_call);
void sim_capture_stream_gone(sim_stream_t *s);
/* A context synchronisation while one of its streams captures. */
CUresult sim_capture_check_ctx(sim_ctx_t *ctx);
/* A potentially unsafe call (allocation, free) under the thread's capture mode. */
CUresult sim_capture_check_unsafe(const char *call);

#endif
