/* engine.h: gpuft's protection engine (DESIGN.md sections 5, 6): the allocation
 * registry, per-context device state, jobs in the ledger, commit, statistics.
 * Internal to shim/ (names ft_). */
#ifndef FT_ENGINE_H
#define FT_ENGINE_H

#include <pthread.h>

#include "codec.h"
#include "ft.h"
#include "ftk_launch.h"

/* Real entry points the engine uses without hooking them (reals.def). */
typedef struct {
#define FT_REAL(name, pfn) pfn name;
#include "reals.def"
#undef FT_REAL
} ft_drv_t;
extern ft_drv_t ft_drv;
extern int ft_drv_complete; /* every entry of reals.def was found */

/* ---- Allocations (registry.c) ---- */
enum {
  FT_ST_UNINIT = 0, /* allocated, code not valid yet (content never fully written) */
  FT_ST_CLEAN,      /* code matches content (as of the end of the enqueued work) */
  FT_ST_UNPROT      /* not protected: managed memory, out of device memory for codes, ... */
};
typedef struct ft_dev_s ft_dev_t;
typedef struct ft_alloc_s {
  CUdeviceptr base;
  size_t size;
  ft_dev_t *dev;
  int state;
  int managed;
  uint64_t id; /* 1, 2, ... in allocation order, for reports */
  CUdeviceptr code; /* device code buffer (ft_code_layout(size)), 0 if none */
  size_t code_bytes;
  uint8_t *mirror;  /* pinned host checkpoint: data (size bytes) then code, or NULL */
  int mirror_valid; /* mirror == device content (data and code) */
  int pending;      /* jobs in the ledger that reference it */
  double t_state;   /* when the state last changed (coverage) */
} ft_alloc_t;

/* All registry functions expect the engine lock held. */
ft_alloc_t *ft_reg_find(CUdeviceptr p); /* allocation containing p, or NULL */
ft_alloc_t *ft_reg_find_base(CUdeviceptr base);
int ft_reg_insert(ft_alloc_t *a);
void ft_reg_remove(ft_alloc_t *a);
size_t ft_reg_count(void);
ft_alloc_t *ft_reg_at(size_t i);
void ft_set_state(ft_alloc_t *a, int state);

/* ---- Per-context device state (dev.c) ---- */
#define FT_LEDGER_SLOTS 1024
struct ft_dev_s {
  CUcontext ctx;
  int ok;                /* module and ledger ready: protection possible */
  ftk_module_t mod;
  CUstream stream;       /* gpuft's own non-blocking stream (repairs, reads) */
  ftk_job_t *jobs;       /* ledger: mapped pinned host memory */
  CUdeviceptr jobs_dev;  /* its device address */
  uint8_t *staging;      /* pinned staging for uploads beyond the checkpoint budget */
  size_t staging_bytes;
  CUevent staging_done[2];
};
/* The state of the calling thread's current context (created on first use), or
 * NULL if there is none or protection is impossible in it. */
ft_dev_t *ft_dev_current(void);
extern ftk_driver_t ft_kdrv;

/* ---- Jobs (ledger.c) ---- */
enum { FT_JOB_VERIFY, FT_JOB_ENCODE };
enum {                /* why a job was issued, for the report */
  FT_WHY_READ_AFTER,  /* read-only argument, after the launch */
  FT_WHY_BEFORE_WRITE, /* possibly-written argument, before the launch */
  FT_WHY_WRITE_AFTER, /* possibly-written argument, re-encoded after the launch */
  FT_WHY_D2H,         /* source of a device-to-host copy, after the DMA */
  FT_WHY_COPY_SRC,    /* source of a device-to-device copy */
  FT_WHY_REENCODE     /* code refresh after a write gpuft does not encode on the host */
};
typedef struct ft_job_rec_s {
  int kind, why;
  ft_alloc_t *a;
  uint64_t g0, g1;
  int slot;
  uint64_t seq;
  struct ft_func_s *fn; /* launch jobs: the function and argument slot */
  int argslot;
  struct ft_job_rec_s *next;
} ft_job_rec_t;
/* Enqueue kernel `kind` over groups [g0, g1) of `a` on `stream`, with a ledger
 * slot. Returns 0, or -1 (nothing enqueued: the caller degrades). */
int ft_job_issue(ft_dev_t *d, int kind, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1,
                 CUstream stream, struct ft_func_s *fn, int argslot);
/* Enqueue an encode of the whole allocation without a ledger slot. */
int ft_reencode(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream stream);
int ft_jobs_pending(void);

/* ---- Commit (commit.c) ---- */
/* Process every finished job: correct, restore, count, learn. Returns
 * CUDA_SUCCESS or CUDA_ERROR_ECC_UNCORRECTABLE (GPUFT_ON_FAIL=error, something
 * could not be recovered since the last commit). Takes the engine lock. */
CUresult ft_commit(void);
/* ft_commit, also telling whether allocation `watch` had anything repaired. */
CUresult ft_commit_ex(ft_alloc_t *watch, int *watch_repaired);
/* Make every job finished (synchronise the context) and commit. */
CUresult ft_commit_all(void);
/* A sync call finished with `r`: commit and merge the verdict. */
CUresult ft_after_sync(CUresult r);

/* ---- Launches (launch.c, access.c) ---- */
enum { FT_ACC_UNKNOWN = 0, FT_ACC_READ, FT_ACC_WRITE };
typedef struct ft_func_s ft_func_t;
void ft_access_observe(ft_func_t *fn, int argslot, int changed);
void ft_access_learn_write(ft_func_t *fn, int argslot);
/* Which parameters of a mangled C++ name are pointers to const: bit i set for
 * parameter i (only for the first 64). Returns the number of parameters parsed,
 * or -1 when the name cannot be parsed (then no hint). */
int ft_demangle_const_params(const char *mangled, uint64_t *const_mask, uint64_t *ptr_mask);

/* Unknown writers (graph launches, unreadable arguments): commit before; after,
 * every protected allocation of the context is re-encoded on stream s. */
CUresult ft_unknown_writer_before(void);
void ft_unknown_writer_after(CUstream s);

/* ---- Uploads (upload.c) ---- */
/* Host-to-device copy of n bytes at offset off of allocation a, from host src,
 * on stream s: copy+encode into the checkpoint or staging, DMA, codes. sync: wait
 * for completion before returning. Returns the real driver's result. */
CUresult ft_upload(ft_dev_t *d, ft_alloc_t *a, size_t off, const void *src, size_t n, CUstream s,
                   int sync);

/* ---- Engine lock and statistics (stats.c) ---- */
extern pthread_mutex_t ft_eng_lock;
void ft_lock(void);
void ft_unlock(void);

typedef struct {
  uint64_t bytes_protected, bytes_protected_peak, bytes_checkpoint, bytes_checkpoint_peak;
  uint64_t bytes_encoded_host, bytes_encoded_device, bytes_verified_device;
  uint64_t launches, launches_protected, verifications, encodes;
  uint64_t detected, corrected, recovered, uncorrectable, permanent, code_errors;
  uint64_t learned_writes, allocations, allocations_unprotected, ckpt_refused;
  uint64_t unknown_writers, restored;
  double cpu_seconds;
  double covered_byte_s, total_byte_s; /* coverage */
} ft_engine_stats_t;
extern ft_engine_stats_t ft_st; /* under the engine lock */

/* One detected error, for the report. */
enum { FT_OUT_CORRECTED, FT_OUT_RESTORED, FT_OUT_RECOVERED, FT_OUT_UNCORRECTABLE,
       FT_OUT_DETECTED };
void ft_event(const ft_alloc_t *a, uint64_t offset, int bit, const char *kind, int outcome,
              const char *where);
#define FT_MAX_EVENTS 256
typedef struct {
  uint64_t alloc_id, alloc_base, alloc_size, offset;
  int bit; /* bit within the 32-bit word at offset, or -1 */
  const char *kind, *where;
  int outcome;
  double time;
} ft_error_event_t;
extern ft_error_event_t ft_events[FT_MAX_EVENTS];
extern int ft_nevents;

/* The stream a call with stream argument s really uses: 0 is the legacy default
 * stream, or the per-thread one for the _ptsz/_ptds entry points. */
#define FT_STREAM(s, ptsz) ((s) ? (s) : (ptsz) ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY)

double ft_now(void);
double ft_cpu_now(void);

#endif
