/* ft.h: internal interfaces shared by the files of the preloaded library
 * (names ft_, hidden). The hook list itself is hooks.def. */
#ifndef FT_SHIM_H
#define FT_SHIM_H

/* The driver's own view of cuda.h: no macro renames the exported names
 * (cuMemAlloc stays cuMemAlloc, _v2 and _ptsz names are spelled out). */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

#define FT_API __attribute__((visibility("default")))
/* Code on the dlsym path can run while a sanitizer runtime is still initialising
 * (it looks its interceptors up with dlsym): keep it uninstrumented. */
#define FT_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))
#define FT_LIKELY(x) __builtin_expect(!!(x), 1)
#define FT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- Hook table (generated from hooks.def) ---- */
typedef enum {
#define FT_HOOK(cls, name, pfn, params, args) FT_ID_##name,
#include "hooks.def"
#undef FT_HOOK
  FT_N_HOOKS
} ft_hook_id_t;

/* The real driver's entry points, one typed pointer per hook; NULL when the
 * driver lacks one (the hook then returns an error and never calls it). */
typedef struct {
#define FT_HOOK(cls, name, pfn, params, args) pfn name;
#include "hooks.def"
#undef FT_HOOK
} ft_real_t;
extern ft_real_t ft_real;

/* Hooked entry points' names, by id (for the report). */
extern const char *const ft_hook_names[FT_N_HOOKS];

/* ---- State every layer reads (real.c; set by hooks/resolve.c) ---- */
extern int ft_ready;   /* set once initialisation has completed */
extern int ft_enabled; /* GPUFT_ENABLE and a driver present */
/* The real dlsym (found once through dlvsym by hooks/dlsym.c). */
typedef void *(*ft_dlsym_fn)(void *, const char *);
extern ft_dlsym_fn ft_real_dlsym;

/* Real entry points gpuft calls for its own work but does not hook (reals.def). */
typedef struct {
#define FT_REAL(name, pfn) pfn name;
#include "reals.def"
#undef FT_REAL
} ft_drv_t;
extern ft_drv_t ft_drv;
extern int ft_drv_complete; /* every entry of reals.def was found */
/* Fill ft_real and ft_drv from driver library lib (a dlopen handle) with
 * ft_real_dlsym; is_own(id, p): p is gpuft's own hook for hook id, not the driver's
 * (NULL: no check). Sets ft_drv_complete; returns how many hooked entry points the
 * driver lacks. */
size_t ft_real_fill(void *lib, int (*is_own)(int id, const void *p));
/* gpuft's own allocations, frees (shadows, code words, staging and snapshot
 * buffers, frees it held), waits and queries, made in the thread's relaxed capture
 * mode: while the program captures in global mode (on another thread or this one)
 * the driver refuses such "potentially unsafe" calls and invalidates the program's
 * capture (an event query included: PyTorch's NCCL watchdog met it). gpuft's own
 * memory and streams are never part of a captured graph, and gpuft never waits for
 * a capturing stream or a captured event (mech/dev.c), so relaxed is what they are. */
CUresult ft_own_alloc(CUdeviceptr *p, size_t n);
CUresult ft_own_free(CUdeviceptr p);
CUresult ft_own_host_alloc(void **p, size_t n, unsigned flags);
CUresult ft_own_host_free(void *p);
CUresult ft_own_stream_sync(CUstream s);
CUresult ft_own_event_sync(CUevent e);
CUresult ft_own_event_query(CUevent e);
CUresult ft_own_ctx_sync(void);
/* The simulator's check of gpuft's launch decisions (sim/simcuda.h,
 * simcudaDeclareUnwritten); NULL on a real driver, or once the check said it is off. */
typedef int (*ft_sim_declare_fn)(const uint64_t *bases, size_t n);
extern ft_sim_declare_fn ft_sim_declare_unwritten;
extern int ft_drv_is_sim; /* the driver is gpuft's simulator (it runs kernels from their PTX) */

/* Loaded after start-up, by dlopen (CUDA_INJECTION64_PATH): the hooks do not
 * interpose, and gpuft stays out of the way (loaded.c). */
int ft_loaded_late(void);

/* ---- Re-entrancy guard: gpuft's own driver calls never enter its hooks ---- */
extern __thread int ft_tls_in_gpuft __attribute__((tls_model("initial-exec")));

/* ---- Counters (stats.c) ---- */
void ft_count_call(ft_hook_id_t id);
void ft_count_unprotected(ft_hook_id_t id);
uint64_t ft_calls(ft_hook_id_t id);
uint64_t ft_unprotected_calls(ft_hook_id_t id);
uint64_t ft_total_calls(void);
/* An entry point handed out by cuGetProcAddress/dlsym that gpuft does not hook. */
void ft_note_unhooked(const char *symbol);
int ft_unhooked_names(const char **out, int cap);
void ft_stats_reset(void);
void ft_stats_atfork_child(void);


/* ---- Logging (log.c) ---- */
enum { FT_LOG_ERROR, FT_LOG_WARN, FT_LOG_INFO, FT_LOG_DEBUG };
extern int ft_log_level;
void ft_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define FT_LOG_(lvl, ...) \
  do {                    \
    if (FT_UNLIKELY((lvl) <= ft_log_level)) ft_log((lvl), __VA_ARGS__); \
  } while (0)
#define FT_ERROR(...) FT_LOG_(FT_LOG_ERROR, __VA_ARGS__)
#define FT_WARN(...) FT_LOG_(FT_LOG_WARN, __VA_ARGS__)
#define FT_INFO(...) FT_LOG_(FT_LOG_INFO, __VA_ARGS__)
#define FT_DEBUG(...) FT_LOG_(FT_LOG_DEBUG, __VA_ARGS__)
/* A warning printed at most `cap` times from this call site. */
#define FT_WARN_CAPPED(cap, ...)                                          \
  do {                                                                    \
    static unsigned ft_seen_;                                             \
    unsigned ft_n_ = __atomic_fetch_add(&ft_seen_, 1, __ATOMIC_RELAXED);  \
    if (ft_n_ < (cap)) FT_WARN(__VA_ARGS__);                              \
    else if (ft_n_ == (cap)) FT_WARN("(further warnings of this kind suppressed)"); \
  } while (0)

/* Locks the compiler checks: clang's -Wthread-safety capabilities (the ctest
 * thread_safety_analysis builds the library with them; other compilers ignore them).
 * A function that needs a lock held says FT_REQUIRES; one that takes it itself,
 * FT_EXCLUDES; one that lets go of it for a while and takes it back carries
 * `_relocking` in its name, and its callers hold no record pointer across it. */
#if defined(__clang__)
#define FT_TSA(x) __attribute__((x))
#else
#define FT_TSA(x)
#endif
#define FT_CAPABILITY(x) FT_TSA(capability(x))
#define FT_ACQUIRE(...) FT_TSA(acquire_capability(__VA_ARGS__))
#define FT_RELEASE(...) FT_TSA(release_capability(__VA_ARGS__))
#define FT_TRY_ACQUIRE(...) FT_TSA(try_acquire_capability(__VA_ARGS__))
#define FT_REQUIRES(...) FT_TSA(requires_capability(__VA_ARGS__))
#define FT_EXCLUDES(...) FT_TSA(locks_excluded(__VA_ARGS__))
#define FT_ASSERT_CAPABILITY(x) FT_TSA(assert_capability(x))
#define FT_GUARDED_BY(x) FT_TSA(guarded_by(x))
#define FT_NO_TSA FT_TSA(no_thread_safety_analysis)

/* Cheap invariants: always on; a broken one is a gpuft bug. */
#define FT_ASSERT(x)                                                             \
  do {                                                                           \
    if (FT_UNLIKELY(!(x))) ft_assert_fail(#x, __FILE__, __LINE__);               \
  } while (0)
void ft_assert_fail(const char *what, const char *file, int line) __attribute__((noreturn));

#endif
