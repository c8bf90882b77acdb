/* exec.h: the simulator driver's execution room (contexts, streams and their operations,
 * events, graphs, modules and PTX images, launches, the access check); uses mem, base
 * and the interpreter (sim/interp).
 * Prototypes are grouped under a comment naming the file that defines them. */
#ifndef SIM_EXEC_H
#define SIM_EXEC_H

#include "mem.h"

/* ---- ctx.c ---- */
struct sim_ctx_s {
  sim_obj_t obj;
  CUdevice dev;
  unsigned flags;
  bool primary;
  atomic_bool alive;
  atomic_int sticky;                  /* CUresult of an asynchronous fatal error */
  unsigned long long id;
  struct sim_stream_s *legacy;        /* the NULL / CU_STREAM_LEGACY stream */
  pthread_mutex_t mu;                 /* guards the stream list */
  struct sim_stream_s **streams;
  size_t n_streams, cap_streams;
  size_t limits[16];
  CUfunc_cache cache_config;
  /* cuCtxEnablePeerAccess: ids of the contexts whose memory this one's kernels may
   * touch (0: free slot); written under mu, read without it by kernels. */
  atomic_ullong peers[8];
  /* The device heap (heap.c), made at the first device malloc. */
  struct sim_heap_s *_Atomic heap;
};
/* Current context with the usual errors (NOT_INITIALIZED, INVALID_CONTEXT,
 * CONTEXT_IS_DESTROYED, sticky error). Borrowed: the thread's stack holds a ref. */
CUresult sim_ctx_current(sim_ctx_t **out);
CUresult sim_ctx_current_nosticky(sim_ctx_t **out);
void sim_ctx_set_sticky(sim_ctx_t *ctx, CUresult err);
CUresult sim_ctx_sync(sim_ctx_t *ctx);
void sim_ctx_sync_all(void); /* every live context */
/* A hook run first when a context is torn down (set once, at load, by api/export.c:
 * it drops the static runtime's context-local state, which may use the context). */
void sim_ctx_on_teardown(void (*fn)(sim_ctx_t *c));

/* ---- peer.c: peer access (cuCtxEnablePeerAccess) ---- */
/* May work of ctx (kernels) touch allocation a? Memory of ctx's device, host memory
 * and a peer context's memory once enabled; VMM mappings per cuMemSetAccess. */
bool sim_ctx_reaches(sim_ctx_t *ctx, const sim_alloc_t *a);
void sim_ctx_peers_clear(sim_ctx_t *ctx);

/* ---- stream.c ---- */
typedef struct sim_stream_s sim_stream_t;
typedef struct sim_event_s sim_event_t;
typedef struct sim_func_s sim_func_t;
typedef enum {
  SIM_OP_NOP = 0, SIM_OP_COPY, SIM_OP_MEMSET, SIM_OP_LAUNCH, SIM_OP_HOSTFN, SIM_OP_CALLBACK,
  SIM_OP_EVENT, SIM_OP_FREE, SIM_OP_MEMOP, SIM_OP_TASK
} sim_optype_t;
typedef struct { sim_stream_t *s; uint64_t seq; } sim_dep_t;
typedef struct {
  uint8_t *dst; uint64_t dst_dev;
  size_t pitch, width, height;  /* width in elements */
  unsigned elem;                /* 1, 2, 4 */
  uint32_t value;
} sim_memset_t;
/* A stream memory operation (cuStreamWriteValue*, cuStreamWaitValue*, batches). */
typedef struct {
  uint8_t *host;      /* host-accessible address of the word */
  uint64_t dev;       /* device address (0: pinned host memory) */
  uint64_t value;
  unsigned size;      /* 4 or 8 */
  unsigned cond;      /* wait: CU_STREAM_WAIT_VALUE_GEQ/EQ/AND/NOR */
  bool wait;
} sim_memop_t;
typedef struct sim_launch_s sim_launch_t;
typedef struct sim_op_s sim_op_t;
struct sim_op_s {
  sim_op_t *next;
  sim_optype_t type;
  uint64_t seq;
  sim_dep_t deps[8];
  size_t n_deps;
  sim_dep_t *more_deps; size_t n_more;
  void *owned;                 /* freed after the op (staging buffer, launch) */
  union {
    sim_copy_t copy;
    sim_memset_t memset;
    sim_launch_t *launch;
    struct { CUhostFn fn; void *data; } hostfn;
    struct { CUstreamCallback fn; void *data; CUstream h; } cb;
    struct { sim_event_t *ev; uint64_t gen; } event;
    struct { uint64_t ptr; } free;
    sim_memop_t memop;
    /* work of the driver itself run in stream order (conditional graph nodes):
     * run on the stream's worker, release when the op is freed */
    struct { void (*run)(void *data, sim_stream_t *s); void (*release)(void *data); void *data; } task;
  } u;
};
struct sim_stream_s {
  sim_obj_t obj;
  unsigned flags;
  int priority;
  bool legacy, per_thread;
  unsigned long long id;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  sim_op_t *head, *tail;
  uint64_t enq_seq, done_seq;
  bool stop;
  /* cuStreamSetAttribute: the stream attributes' values (under mu; the priority
   * lives in `priority`), recorded: none changes how the simulator runs work. */
  CUlaunchAttributeValue attrs[CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING + 1];
  /* Stream capture (capture.c, under its lock): the capture the stream belongs
   * to and the nodes its next captured operation depends on. */
  struct sim_capture_s *cap;
  struct sim_gnode_s **cap_deps;
  size_t n_cap_deps;
  atomic_bool capturing; /* cap != NULL, read without the lock on the hot path */
};
#define SIM_STREAM_PTDS 1 /* entry point is a _ptsz/_ptds form */
/* memasync.c: device memory at p is released (by a stream-ordered free or
 * cuMemFree): the default pool stops counting it if it was the pool's. */
void sim_pool_released(uint64_t p);
CUresult sim_stream_create(sim_ctx_t *ctx, unsigned flags, int prio, bool legacy, sim_stream_t **out);
/* Resolves a CUstream (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or a handle)
 * for ctx; +1 ref. */
CUresult sim_stream_get(sim_ctx_t *ctx, CUstream h, int ptds, sim_stream_t **out);
/* Same for calls that need no current context when given a real handle (sync,
 * query, waits): the stream's own context is used. */
CUresult sim_stream_get_any(CUstream h, int ptds, sim_stream_t **out);
void sim_stream_destroy(sim_stream_t *s);
sim_op_t *sim_op_new(sim_optype_t type);
void sim_op_add_dep(sim_op_t *op, sim_stream_t *s, uint64_t seq);
/* Adds the implicit default-stream dependencies, queues op; returns its seq. */
uint64_t sim_stream_enqueue(sim_stream_t *s, sim_op_t *op);
void sim_stream_wait_seq(sim_stream_t *s, uint64_t seq);
bool sim_stream_done(sim_stream_t *s, uint64_t seq);
void sim_stream_sync(sim_stream_t *s);
void sim_stream_shutdown(sim_stream_t *s); /* no more work; the worker drains and ends */
void sim_op_free(sim_op_t *op);
void sim_op_execute(sim_op_t *op, sim_stream_t *s);

/* ---- event.c ---- */
struct sim_event_s {
  sim_obj_t obj;
  unsigned flags;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t rec_gen, done_gen;  /* record calls issued / completed */
  sim_stream_t *stream;        /* stream of the last record (ref), NULL if never */
  uint64_t seq;                /* its op */
  double time;                 /* completion time of the last record */
  bool timed_valid;
  /* Recorded by a capture (capture.c, under its lock): the capture and the nodes
   * a wait on the event depends on. */
  struct sim_capture_s *cap;
  struct sim_gnode_s **cap_deps;
  size_t n_cap_deps;
};
/* A record of ev queued on s (cuEventRecord, graph record nodes); caller holds nothing. */
void sim_event_record_on(sim_event_t *ev, sim_stream_t *s);
void sim_event_complete(sim_event_t *ev, uint64_t gen);

/* ---- copy.c / memset.c / memop.c ---- */
void sim_copy_execute(sim_copy_t *c);
void sim_copy_skip(sim_copy_t *c);    /* not executed (dead context): consume its staging */
void sim_copy_release(sim_copy_t *c); /* the op is freed */
void sim_memset_execute(sim_memset_t *m);
/* Checks a memset and resolves its destination (memset.c; graph memset nodes too). */
CUresult sim_memset_resolve(uint64_t dst, size_t pitch, uint32_t value, unsigned elem, size_t width, size_t height,
                            sim_memset_t *out);
/* A CUDA_MEMCPY3D checked and resolved into a copy, not queued (graph memcpy nodes). */
CUresult sim_copy_resolve3d(const CUDA_MEMCPY3D *p, sim_copy_t *c);
void sim_memop_execute(sim_memop_t *m, sim_ctx_t *ctx);

/* ---- module.c ---- */
typedef struct sim_module_s sim_module_t;
typedef struct sim_library_s sim_library_t;
typedef struct sim_kernel_s sim_kernel_t;
typedef struct {
  const simcuda_kernel_t *k;
  size_t *offsets;    /* per parameter */
  size_t param_bytes; /* size of the packed argument buffer */
} sim_layout_t;
struct sim_kprog_s;      /* the interpreter's lowered kernel (sim/interp) */
typedef struct sim_ptxsrc_s sim_ptxsrc_t;
/* A function holds a reference on its module, so that its code, kernel table and
 * module variables outlive an unload while launches or graphs still hold it (a
 * queued launch then runs as it would on a GPU); the module lists its functions
 * without owning them (their handles go with the module's). */
struct sim_func_s {
  sim_obj_t obj;
  sim_module_t *mod;          /* ref */
  const struct sim_kprog_s *prog; /* PTX kernel without twin: the interpreter runs it */
  const char *prog_err;       /* why it cannot be interpreted (unsupported instruction) */
  sim_kernel_t *kernel;       /* when the module belongs to a library */
  sim_layout_t lay;
  atomic_int max_dyn_shared;  /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
  atomic_int cache_config;
  atomic_int carveout;
};
struct sim_module_s {
  sim_obj_t obj;              /* obj.ctx: its context (ref, read when it is freed) */
  unsigned long long ctx_id;  /* that context's incarnation (a reset primary is another) */
  const simcuda_image_t *img; /* src's kernel table */
  sim_ptxsrc_t *src;          /* the loaded image (ref): parsed PTX or a twin table's copy */
  uint64_t *var_addr;         /* module .global/.const variables in this context */
  struct sim_kprog_s **progs; /* per kernel, NULL when it cannot be interpreted */
  char **prog_err;
  sim_library_t *lib;
  unsigned n;
  sim_func_t **funcs;         /* not owned: valid while their handles are live */
};
struct sim_kernel_s {
  sim_obj_t obj;
  sim_library_t *lib;
  unsigned idx;
  sim_layout_t lay;
  atomic_int max_dyn_shared;
};
struct sim_library_s {
  sim_obj_t obj;
  const simcuda_image_t *img; /* src's kernel table */
  sim_ptxsrc_t *src;          /* the loaded image (ref) */
  unsigned n;
  sim_kernel_t **kernels;
  pthread_mutex_t mu;
  sim_module_t **mods; /* one per context that used it */
  size_t n_mods;
};
/* Resolves a CUfunction that may be a CUkernel handle (CUDA 12+ runtimes launch
 * those directly) to the function of the current context. +1 ref. */
CUresult sim_func_resolve(sim_ctx_t *ctx, CUfunction f, sim_func_t **out);
void sim_module_forget_ctx(sim_ctx_t *ctx);
int sim_func_max_dyn_shared(sim_func_t *f);

/* ---- ptximg.c: loaded images (PTX text, fatbins, nvcc wrappers; twin tables) ---- */
/* A twin image's kernel table, copied (names and parameter arrays too). */
CUresult sim_ptxsrc_copy_twins(const simcuda_image_t *img, sim_ptxsrc_t **out);
/* Parses the PTX an image carries; its kernels as a twin-style image (twin
 * functions filled in from the twin registry unless SIMCUDA_TWINS=0).
 * CUDA_ERROR_NO_BINARY_FOR_GPU for SASS-only images, INVALID_PTX when the text
 * does not parse, INVALID_IMAGE for anything else (all with a message). */
CUresult sim_ptxsrc_open(const void *image, sim_ptxsrc_t **out);
const simcuda_image_t *sim_ptxsrc_image(const sim_ptxsrc_t *s);
/* Its parsed PTX; NULL for a twin image (or no image). */
const struct ft_ptx_module_s *sim_ptxsrc_module(const sim_ptxsrc_t *s);
/* The PTX target the module's code came from (75 for compute_75), 0 for twins. */
unsigned sim_ptxsrc_sm(const sim_ptxsrc_t *s);
void sim_ptxsrc_ref(sim_ptxsrc_t *s);
void sim_ptxsrc_unref(sim_ptxsrc_t *s);
/* A module of a real image in a context: variables allocated and initialised,
 * kernels lowered (a kernel that cannot be lowered keeps its message). */
CUresult sim_ptxmod_load(sim_module_t *m, sim_ctx_t *ctx);
void sim_ptxmod_unload(sim_module_t *m);
void sim_ptxfunc_free(sim_func_t *f); /* its lowered kernel and message */
/* Module variable by name: address and size. */
bool sim_ptxmod_global(const sim_module_t *m, const char *name, uint64_t *addr, size_t *size);
/* Twin registry: twin images loaded and the runtime's simcudaRegisterTwins add to it. */
void sim_twins_add(const simcuda_kernel_t *k, unsigned n);
bool sim_twins_enabled(void);

/* ---- launch.c ---- */
struct sim_launch_s {
  sim_func_t *func;  /* ref */
  simcuda_dim3 grid, block;
  size_t shared;
  uint8_t *args;     /* packed argument buffer (lay.param_bytes) */
  void **params;     /* pointers into args, one per parameter */
  sim_ctx_t *ctx;
  atomic_int error;  /* CUresult raised by translate */
  uint64_t ticket;   /* sim_mem_free_ticket() when queued */
  struct sim_acheck_s *acheck; /* SIMCUDA_CHECK_ACCESS: its stores per allocation */
  struct sim_decl_s *declared; /* what gpuft declared it treats as unwritten, or NULL */
  bool coop;         /* cooperative: blocks co-resident, grid-wide sync (launch.c) */
};
void sim_launch_execute(sim_launch_t *l);
/* The interpreter's translation of hot kernels, as the options say (at cuInit). */
void sim_launch_jit_init(void);

/* ---- heap.c: the device heap (malloc/free in kernels) ---- */
uint64_t sim_heap_malloc(sim_ctx_t *ctx, uint64_t n); /* 0: no room */
bool sim_heap_free(sim_ctx_t *ctx, uint64_t p);       /* false: not a block of the heap */
void sim_heap_release(sim_ctx_t *ctx);                /* at context teardown */
uint64_t sim_heap_interp_malloc(void *launch, uint64_t n); /* sim_mem_iface_t services */
bool sim_heap_interp_free(void *launch, uint64_t p);

/* ---- graph_cond.c: cudaGraphSetConditional in kernels (sim_mem_iface_t.set_cond) ---- */
int sim_cond_interp_set(void *launch, uint64_t handle, uint32_t value, const char **why);

/* ---- texobj.c: texture and surface objects (cuTexObject*, cuSurfObject*) ---- */
struct sim_tex_s; /* sim/interp/interp.h */
/* sim_mem_iface_t.tex: texture and surface objects share one table of handles. */
bool sim_texobj_interp_find(void *launch, uint64_t h, struct sim_tex_s *out);
/* Whether a texture object on linear or pitched memory is live (in any context): a
 * launch under the UB check then records its global stores (texwrite.c). */
bool sim_texobj_linear_live(void);
/* The interpreter's SIM_TEXFMT_* of an array format, and its size in bytes (0: not modelled). */
unsigned sim_texfmt_of(CUarray_format f, unsigned *size);

/* ---- array.c: CUDA arrays ---- */
typedef struct sim_array_s sim_array_t;
typedef struct {
  CUDA_ARRAY3D_DESCRIPTOR desc; /* as created (cuArrayCreate: Depth and Flags 0) */
  bool is3d;                    /* made by cuArray3DCreate */
  uint64_t dev;                 /* its memory: element (x, y, z) at dev + z*slice + y*pitch + x*elem */
  size_t elem, pitch, slice;    /* bytes */
  size_t rows, slices;          /* Height, Depth (or layers), at least 1 */
} sim_array_info_t;
bool sim_array_get(CUarray h, sim_array_info_t *out); /* false: not a live array */
int sim_array_limit(CUdevice_attribute a); /* texture/surface limits (device.c); -1: not one */
void sim_launch_retire(sim_launch_t *l); /* executed or skipped: drops the function */

/* ---- accesscheck.c: SIMCUDA_CHECK_ACCESS, the check of gpuft's PTX analysis ----
 * An interpreted launch's stores, per allocation, against the classes ptx/ gives
 * the kernel's argument places: an allocation the launch stored into that only
 * READ places point into is an analysis bug, reported and counted. The extents of
 * its loads and stores, against the places' byte ranges, likewise. */
struct sim_acheck_s *sim_acheck_begin(const sim_launch_t *l);
/* A warp's accesses to the allocation at base: bytes stored, and the extents
 * {load lo, load hi, store lo, store hi} (addresses; lo >= hi: none). Any thread. */
void sim_acheck_access(struct sim_acheck_s *c, uint64_t base, uint64_t stored, const uint64_t ext[4]);
void sim_acheck_end(sim_launch_t *l); /* compares, reports, frees l->acheck */
/* The calling thread's pending simcudaDeclareUnwritten list, taken by its launch. */
struct sim_decl_s *sim_acheck_take_declared(void);
void sim_acheck_decl_free(struct sim_decl_s *d);
/* Around a graph launch's enqueue: its declaration, and a copy for each kernel node. */
void sim_acheck_graph_begin(void);
void sim_acheck_graph_end(void);
struct sim_decl_s *sim_acheck_graph_declared(void);
/* The graph declaration of this thread replaced by d (a conditional node's, while it
 * runs its bodies); returns the one before. */
struct sim_decl_s *sim_acheck_graph_swap(struct sim_decl_s *d);
void sim_launch_free(sim_launch_t *l);
CUresult sim_launch_prepare(sim_ctx_t *ctx, sim_func_t *fn, simcuda_dim3 grid, simcuda_dim3 block,
                            unsigned shared, void **kernelParams, void **extra, sim_launch_t **out);

#endif
