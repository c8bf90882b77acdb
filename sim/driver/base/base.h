/* base.h: the simulator driver's lowest room (options, log, the init flag, handles,
 * counters, the block pool): calls nothing else of the driver.
 * Prototypes are grouped under a comment naming the file that defines them. */
#ifndef SIM_BASE_H
#define SIM_BASE_H

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
  double kernel_s;      /* SIMCUDA_KERNEL_US * 1e-6: the least time a launch occupies its stream */
  int sm;               /* SIMCUDA_SM: the compute capability presented, major * 10 + minor (89) */
  int log;              /* SIMCUDA_LOG */
  int stats;            /* SIMCUDA_STATS */
  int poison;           /* SIMCUDA_POISON: fill fresh device memory with a pattern */
  int check_access;     /* SIMCUDA_CHECK_ACCESS: 1 check gpuft's analysis, 2 its self-test */
  int check_ub;         /* SIMCUDA_CHECK_UB: 1 report undefined behaviour of kernels, 2 also fail the launch */
  int devices;          /* SIMCUDA_DEVICES: simulated devices, 1..SIM_MAX_DEVICES */
  int jit;              /* SIMCUDA_JIT: 0 interpret only, 1 translate hot kernels, 2 every kernel */
  uint64_t jit_after;   /* SIMCUDA_JIT_AFTER: thread-instructions before a kernel is hot */
  const char *jit_cc;   /* SIMCUDA_JIT_CC: the C compiler translations go through */
  const char *jit_cache; /* SIMCUDA_JIT_CACHE: where they are kept (NULL: the user's cache) */
} sim_options_t;
#define SIM_MAX_DEVICES 8
/* Each device's multiprocessors (CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), which the
 * occupancy calculators and the cooperative launch limit multiply by. */
#define SIM_SM_COUNT 128
extern sim_options_t sim_opt;
/* A device ordinal of this process (valid once cuInit has read the options). */
static inline bool sim_dev_ok(CUdevice d) { return d >= 0 && d < sim_opt.devices; }
void sim_options_read(void);
void sim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double sim_now(void); /* monotonic seconds */
void sim_sleep_until(double t); /* until sim_now() reaches t, sleeping (no CPU used) */

/* ---- options.c: set by cuInit (api/init.c) once everything below is ready ---- */
extern atomic_int sim_initialized;
#define SIM_CHECK_INIT()                                   \
  do {                                                     \
    if (!atomic_load(&sim_initialized)) return CUDA_ERROR_NOT_INITIALIZED; \
  } while (0)

/* ---- handle.c: every handle given to the application is looked up here before
 * use, so stale or garbage handles give an error instead of a crash ---- */
typedef enum {
  SIM_OBJ_CTX = 1, SIM_OBJ_STREAM, SIM_OBJ_EVENT, SIM_OBJ_MODULE, SIM_OBJ_FUNC,
  SIM_OBJ_LIBRARY, SIM_OBJ_KERNEL, SIM_OBJ_GRAPH, SIM_OBJ_GRAPHEXEC, SIM_OBJ_NODE, SIM_OBJ_POOL,
  SIM_OBJ_ARRAY
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
/* Drops the live handle h of that kind (what a cu*Destroy does; work that still
 * holds a reference keeps the object alive): false if h is no such handle. */
bool sim_handle_destroy(const void *h, sim_kind_t kind);
/* Collect (with a ref each) up to max live objects of a kind owned by ctx. */
size_t sim_handle_collect(sim_kind_t kind, sim_ctx_t *ctx, sim_obj_t **out, size_t max);
size_t sim_handle_collect_any(sim_kind_t kind, sim_obj_t **out, size_t max); /* whatever the owner */

/* ---- counters.c: the counters every room adds to (read by mem/stats.c) ---- */
typedef struct {
  atomic_uint_fast64_t launches, memcpy_h2d, memcpy_d2h, memcpy_d2d, memcpy_h2h;
  atomic_uint_fast64_t bytes_h2d, bytes_d2h, bytes_d2d, memsets, bytes_memset, syncs;
  atomic_uint_fast64_t allocs, frees, flips_applied, kernel_bytes_args;
  atomic_uint_fast64_t kernel_bytes_loaded, kernel_bytes_stored, kernel_thread_insns, kernels_interpreted;
  atomic_uint_fast64_t analysis_places_checked, analysis_violations, ub_reports;
  atomic_uint_fast64_t shim_launches_checked, shim_violations, range_checks, range_violations;
} sim_stats_t;
extern sim_stats_t sim_stats;
#define SIM_COUNT(field, n) atomic_fetch_add_explicit(&sim_stats.field, (n), memory_order_relaxed)

/* ---- pool.c: the block thread pool ---- */
void sim_pool_init(unsigned threads);
/* Runs fn(arg, i) for i in [0, n) on the pool and the calling thread. */
void sim_pool_run(void (*fn)(void *arg, uint64_t i), void *arg, uint64_t n);

#endif
