/* sim.h: internal declarations shared by the files of the simulator's libcuda.so.1.
 * Prototypes are grouped under a comment naming the file that defines them. */
#ifndef SIM_H
#define SIM_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "simcuda.h"

#define SIM_DRIVER_VERSION 13000
#define SIM_UNUSED __attribute__((unused))

/* ---- options.c: environment, read once at cuInit ---- */
typedef struct {
  size_t mem_bytes;     /* SIMCUDA_MEM_GB: device memory size */
  unsigned threads;     /* SIMCUDA_THREADS: block pool size */
  uint64_t block_order; /* SIMCUDA_BLOCK_ORDER: 0 in order, else a seed for a new block order per launch */
  double pcie_bps;      /* SIMCUDA_PCIE_GBPS * 1e9, 0 = unlimited */
  int log;              /* SIMCUDA_LOG */
  int stats;            /* SIMCUDA_STATS */
  int poison;           /* SIMCUDA_POISON: fill fresh device memory with a pattern */
  int check_access;     /* SIMCUDA_CHECK_ACCESS: 1 check gpuft's analysis, 2 its self-test */
} sim_options_t;
extern sim_options_t sim_opt;
void sim_options_read(void);
void sim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double sim_now(void); /* monotonic seconds */

/* ---- init.c ---- */
extern atomic_int sim_initialized;
#define SIM_CHECK_INIT()                                   \
  do {                                                     \
    if (!atomic_load(&sim_initialized)) return CUDA_ERROR_NOT_INITIALIZED; \
  } while (0)

/* ---- handle.c: every handle given to the application is looked up here before
 * use, so stale or garbage handles give an error instead of a crash ---- */
typedef enum {
  SIM_OBJ_CTX = 1, SIM_OBJ_STREAM, SIM_OBJ_EVENT, SIM_OBJ_MODULE, SIM_OBJ_FUNC,
  SIM_OBJ_LIBRARY, SIM_OBJ_KERNEL, SIM_OBJ_GRAPH, SIM_OBJ_GRAPHEXEC, SIM_OBJ_NODE, SIM_OBJ_POOL
} sim_kind_t;
typedef struct sim_ctx_s sim_ctx_t;
typedef struct sim_obj_s sim_obj_t;
struct sim_obj_s {
  sim_kind_t kind;
  atomic_int refs;
  sim_ctx_t *ctx; /* owning context (NULL: context independent) */
  void (*destroy)(sim_obj_t *);
};
void sim_obj_init(sim_obj_t *o, sim_kind_t kind, sim_ctx_t *ctx, void (*destroy)(sim_obj_t *));
void sim_obj_ref(sim_obj_t *o);
void sim_obj_unref(sim_obj_t *o);
void sim_handle_add(sim_obj_t *o);            /* the table holds one reference */
bool sim_handle_remove(sim_obj_t *o);         /* drops it; false if not present */
sim_obj_t *sim_handle_get(const void *h, sim_kind_t kind); /* +1 ref, NULL if not live */
/* Collect (with a ref each) up to max live objects of a kind owned by ctx. */
size_t sim_handle_collect(sim_kind_t kind, sim_ctx_t *ctx, sim_obj_t **out, size_t max);

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
};
/* Current context with the usual errors (NOT_INITIALIZED, INVALID_CONTEXT,
 * CONTEXT_IS_DESTROYED, sticky error). Borrowed: the thread's stack holds a ref. */
CUresult sim_ctx_current(sim_ctx_t **out);
CUresult sim_ctx_current_nosticky(sim_ctx_t **out);
void sim_ctx_set_sticky(sim_ctx_t *ctx, CUresult err);
CUresult sim_ctx_sync(sim_ctx_t *ctx);
/* export.c: runs and drops the static runtime's context-local state of a dying context */
void sim_export_forget_ctx(sim_ctx_t *c);

/* ---- mem.c: device VA, host alias, the allocation registry ---- */
typedef enum { SIM_MEM_DEVICE = 1, SIM_MEM_HOST, SIM_MEM_REGISTERED, SIM_MEM_MANAGED } sim_memkind_t;
typedef struct {
  uint64_t base;   /* address the application sees */
  size_t size;     /* requested size */
  sim_memkind_t kind;
  unsigned flags;  /* cuMemHostAlloc / cuMemHostRegister / managed flags */
  sim_ctx_t *ctx;
  bool freeing;    /* cuMemFreeAsync issued: no new work may name it */
  uint64_t free_ticket; /* when freeing: the free's place in the global order of calls */
  uint64_t map_lo, map_len; /* device: the alias pages (offset in the range) */
  uint64_t traffic_ld, traffic_st; /* bytes interpreted kernels loaded/stored in it */
} sim_alloc_t;
void sim_mem_init(void);
bool sim_mem_in_device_range(uint64_t p);
void *sim_mem_alias(uint64_t dev);       /* host alias of a device address (no checks) */
/* Finds the live allocation holding [p, p+n) (n may be 0: just p). */
bool sim_mem_find(uint64_t p, size_t n, sim_alloc_t *out);
CUresult sim_mem_alloc_device(sim_ctx_t *ctx, size_t size, uint64_t *out);
/* check_only: marks it `freeing` (cuMemFreeAsync), fails if already so. */
CUresult sim_mem_free_device(uint64_t p, bool check_only);
void sim_mem_free_ctx(sim_ctx_t *ctx);   /* release everything a dying context owns */
/* The ticket of the latest cuMemFreeAsync call. Work submitted when the ticket was
 * T may use a `freeing` allocation whose free_ticket is above T (the free was
 * issued after it: the release is still ahead of it in stream order), never one
 * at or below T (submitted after the free: a use after free). */
uint64_t sim_mem_free_ticket(void);
/* Host-accessible address for a device-side operand [p, p+n): alias for device
 * memory, p for pinned/registered/managed host memory; INVALID_VALUE otherwise. */
CUresult sim_mem_resolve(uint64_t p, size_t n, void **host, bool *is_device);
/* Classifies a pointer given where either memory kind is allowed (cuMemcpy). */
typedef enum { SIM_PTR_DEVICE, SIM_PTR_PINNED, SIM_PTR_PAGEABLE, SIM_PTR_INVALID } sim_ptrkind_t;
sim_ptrkind_t sim_mem_classify(uint64_t p, size_t n, void **host);
size_t sim_mem_used(void);
/* Traffic counters of the allocation at base (interpreted kernels, global memory). */
void sim_mem_traffic_add(uint64_t base, uint64_t ld, uint64_t st);
bool sim_mem_traffic_get(uint64_t p, sim_alloc_t *out);
void sim_mem_traffic_reset(void);
/* Calls fn with the registry (every live allocation, sorted by base) under its
 * read lock: no allocation is released while fn runs. */
void sim_mem_visit(void (*fn)(const sim_alloc_t *allocs, size_t n, void *arg), void *arg);

/* ---- stream.c ---- */
typedef struct sim_stream_s sim_stream_t;
typedef struct sim_event_s sim_event_t;
typedef struct sim_func_s sim_func_t;
typedef enum {
  SIM_OP_NOP = 0, SIM_OP_COPY, SIM_OP_MEMSET, SIM_OP_LAUNCH, SIM_OP_HOSTFN, SIM_OP_CALLBACK,
  SIM_OP_EVENT, SIM_OP_FREE, SIM_OP_MEMOP
} sim_optype_t;
typedef enum { SIM_DIR_H2H, SIM_DIR_H2D, SIM_DIR_D2H, SIM_DIR_D2D } sim_dir_t;
typedef struct { sim_stream_t *s; uint64_t seq; } sim_dep_t;
typedef struct sim_stage_s sim_stage_t;
typedef struct {
  uint8_t *dst; const uint8_t *src;   /* host-accessible addresses */
  uint64_t dst_dev, src_dev;          /* device addresses (0: host side) */
  size_t width, height, depth;        /* bytes per row, rows, slices */
  size_t dpitch, spitch, dslice, sslice;
  sim_dir_t dir;
  sim_stage_t *stage; /* non-NULL: the source arrives in staging chunks (copy.c) */
} sim_copy_t;
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
};
#define SIM_STREAM_PTDS 1 /* entry point is a _ptsz/_ptds form */
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
};
void sim_event_complete(sim_event_t *ev, uint64_t gen);

/* ---- copy.c / memset.c / memop.c ---- */
void sim_copy_execute(sim_copy_t *c);
void sim_copy_skip(sim_copy_t *c);    /* not executed (dead context): consume its staging */
void sim_copy_release(sim_copy_t *c); /* the op is freed */
void sim_memset_execute(sim_memset_t *m);
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
struct sim_func_s {
  sim_obj_t obj;
  sim_module_t *mod;
  const struct sim_kprog_s *prog; /* PTX kernel without twin: the interpreter runs it */
  const char *prog_err;       /* why it cannot be interpreted (unsupported instruction) */
  sim_kernel_t *kernel;       /* when the module belongs to a library */
  sim_layout_t lay;
  atomic_int max_dyn_shared;  /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
  atomic_int cache_config;
  atomic_int carveout;
};
struct sim_module_s {
  sim_obj_t obj;
  const simcuda_image_t *img;
  sim_ptxsrc_t *src;          /* a real image: its parsed PTX (ref), else NULL */
  uint64_t *var_addr;         /* module .global/.const variables in this context */
  struct sim_kprog_s **progs; /* per kernel, NULL when it cannot be interpreted */
  char **prog_err;
  sim_library_t *lib;
  unsigned n;
  sim_func_t **funcs;
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
  const simcuda_image_t *img;
  sim_ptxsrc_t *src;          /* a real image (ref), else NULL */
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

/* ---- ptximg.c: real images (PTX text, fatbins, nvcc wrappers) ---- */
/* Parses the PTX an image carries; its kernels as a twin-style image (twin
 * functions filled in from the twin registry unless SIMCUDA_TWINS=0).
 * CUDA_ERROR_NO_BINARY_FOR_GPU for SASS-only images, INVALID_PTX when the text
 * does not parse, INVALID_IMAGE for anything else (all with a message). */
CUresult sim_ptxsrc_open(const void *image, sim_ptxsrc_t **out);
const simcuda_image_t *sim_ptxsrc_image(const sim_ptxsrc_t *s);
const struct ft_ptx_module_s *sim_ptxsrc_module(const sim_ptxsrc_t *s); /* its parsed PTX */
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
};
void sim_launch_execute(sim_launch_t *l);

/* ---- accesscheck.c: SIMCUDA_CHECK_ACCESS, the check of gpuft's PTX analysis ----
 * An interpreted launch's stores, per allocation, against the classes ptx/ gives
 * the kernel's argument places: an allocation the launch stored into that only
 * READ places point into is an analysis bug, reported and counted. */
struct sim_acheck_s *sim_acheck_begin(const sim_launch_t *l);
void sim_acheck_store(struct sim_acheck_s *c, uint64_t base, uint64_t stored); /* any thread */
void sim_acheck_end(sim_launch_t *l); /* compares, reports, frees l->acheck */
void sim_launch_free(sim_launch_t *l);
CUresult sim_launch_prepare(sim_ctx_t *ctx, sim_func_t *fn, simcuda_dim3 grid, simcuda_dim3 block,
                            unsigned shared, void **kernelParams, void **extra, sim_launch_t **out);

/* ---- pool.c: the block thread pool ---- */
void sim_pool_init(unsigned threads);
/* Runs fn(arg, i) for i in [0, n) on the pool and the calling thread. */
void sim_pool_run(void (*fn)(void *arg, uint64_t i), void *arg, uint64_t n);

/* ---- inject.c ---- */
void sim_inject_init(const char *env_spec);
void sim_inject_on_launch(const sim_launch_t *l);
void sim_inject_on_copy(const sim_copy_t *c);
void sim_inject_on_sync(void);
void sim_stuck_apply(uint64_t lo, uint64_t hi); /* after a write to [lo, hi) device */
void sim_stuck_apply_all(void);
void sim_stuck_forget(uint64_t lo, uint64_t hi); /* allocation freed */
extern atomic_int sim_stuck_count;
/* A spontaneous flip (fliprate.c) at a live device byte: atomic, and invisible to
 * the thread sanitizer (it models a hardware event racing with device work). */
void sim_flip_spontaneous(uint64_t addr, uint8_t mask);

/* ---- fliprate.c: random flips at a rate (SIMCUDA_FLIP_RATE, simcudaSetFlipRate) ---- */
void sim_fliprate_init(const char *env_spec);

/* ---- stats.c ---- */
typedef struct {
  atomic_uint_fast64_t launches, memcpy_h2d, memcpy_d2h, memcpy_d2d, memcpy_h2h;
  atomic_uint_fast64_t bytes_h2d, bytes_d2h, bytes_d2d, memsets, bytes_memset, syncs;
  atomic_uint_fast64_t allocs, frees, flips_applied, kernel_bytes_args;
  atomic_uint_fast64_t kernel_bytes_loaded, kernel_bytes_stored, kernel_thread_insns, kernels_interpreted;
  atomic_uint_fast64_t analysis_places_checked, analysis_violations;
} sim_stats_t;
extern sim_stats_t sim_stats;
#define SIM_COUNT(field, n) atomic_fetch_add_explicit(&sim_stats.field, (n), memory_order_relaxed)
void sim_stats_at_exit(void);
/* A synchronisation call happened (counter + sync:<k> injection). */
void sim_count_sync(void);

/* ---- bandwidth.c ---- */
void sim_bandwidth_charge(sim_dir_t dir, size_t bytes, double start);

#endif
