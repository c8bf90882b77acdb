/* state.h: the engine's lowest floor (docs/design.md "Engine floors"): the lock and
 * statistics, the allocation registry and each allocation's protection state, the
 * order of the program's work and the uses of each allocation, access facts. Calls
 * only shim/base and below. Internal to shim/ (names ft_). */
#ifndef FT_STATE_H
#define FT_STATE_H

#include <pthread.h>

#include "codec.h"
#include "ft.h"
#include "ftk_launch.h"
#include "json_writer.h"
#include "runs.h"

/* The engine lock: a capability clang checks (ft.h). */
typedef pthread_mutex_t FT_CAPABILITY("mutex") ft_mutex_t;
extern ft_mutex_t ft_eng_lock;
extern __thread int ft_tls_holds_lock __attribute__((tls_model("initial-exec")));
/* ft_lock() takes it, noting where (GPUFT_LOCK_PROFILE, ft_lock_profile_print). */
void ft_lock_at(const char *file, int line) FT_ACQUIRE(ft_eng_lock);
#define ft_lock() ft_lock_at(__FILE__, __LINE__)
void ft_unlock(void) FT_RELEASE(ft_eng_lock);
/* With GPUFT_LOCK_PROFILE: where the lock was held, the longest first, on stderr. */
void ft_lock_profile_print(void);
/* For code the analysis cannot follow (a lock taken by a caller through a function
 * pointer): checks at run time that this thread holds the lock, and tells clang. */
static inline void ft_assert_locked(void) FT_ASSERT_CAPABILITY(ft_eng_lock) {
  if (FT_UNLIKELY(!ft_tls_holds_lock)) ft_assert_fail("engine lock held", __FILE__, __LINE__);
}
#define FT_ASSERT_LOCKED() ft_assert_locked()

/* ---- Allocations (registry.c) ---- */
enum {
  FT_ST_UNINIT = 0, /* allocated, code not valid yet (content never fully written) */
  FT_ST_CLEAN,      /* code matches content (as of the end of the enqueued work) */
  FT_ST_UNPROT,     /* not protected: managed memory, out of device memory for codes, ... */
  FT_ST_INFLIGHT    /* written, code stale: in flight until it comes to rest (rest.c) */
};
#define FT_REST_USERS 16
/* A use of an allocation: stream index (order.c), its tick, whether it wrote. */
typedef struct {
  int16_t s;
  uint8_t w;
  uint64_t t;
} ft_use_t;
typedef struct ft_dev_s ft_dev_t;
typedef struct ft_alloc_s {
  CUdeviceptr base;
  size_t size;
  ft_dev_t *dev;
  CUcontext ctx; /* the context it was allocated in */
  int state;
  int managed;
  int held; /* the program freed it; gpuft holds the memory while the snapshot's log
             * needs it (policy/lifecycle.c) */
  int vmm; /* a run of memory mapped with the VMM API (policy/vmm.c) */
  uint64_t id; /* 1, 2, ... in allocation order, for reports */
  CUdeviceptr code; /* device code buffer (ft_code_layout(size)), 0 if none */
  size_t code_bytes;
  uint8_t *mirror;  /* pinned host checkpoint: data (size bytes) then code, or NULL */
  CUdeviceptr mirror_dev; /* its device address (mapped), 0 if it has none */
  int mirror_valid; /* mirror == device content (data and code) */
  /* verify before use (launch.c, ledger.c): the reads issued after a check before
   * them in epoch cr_epoch (how many, the stream of the first, whether others came
   * on other streams), and the last epoch it was checked before a read
   * (GPUFT_CHECK=epoch checks once per epoch) */
  uint64_t cr_epoch, checked_before_epoch;
  int cr_n, cr_stream, cr_mixed;
  /* its whole code was last written (an upload, an encode) in epoch fresh_epoch, with
   * fresh_launch launches seen: a reader right behind it needs no check before */
  uint64_t fresh_epoch, fresh_launch;
  int pending;      /* jobs in the ledger that reference it */
  double t_state;   /* when the state last changed (coverage) */
  /* rollback (epoch.c): the restore point of the current epoch */
  uint64_t rp_epoch; /* epoch the restore point belongs to (0: none yet) */
  int rp;            /* FT_RP_* */
  ft_runs_t rp_runs; /* FT_RP_SHADOW: the groups the shadow holds (what the epoch may write) */
  CUdeviceptr shadow; /* device copy: data, then (128-aligned) code */
  uint64_t h2d_epoch; /* epoch in which an upload to it was logged */
  int read_since_upload; /* something read it since that upload (a replay needs it) */
  /* rest intervals (rest.c): the uses since it was last known to be at rest */
  ft_use_t uses[FT_REST_USERS];
  int nuses;
  uint64_t uses_lost;     /* a use could not be recorded: unordered until this many ctx syncs */
  uint64_t written_epoch; /* last epoch a kernel or copy wrote it */
  int read_owed;          /* GPUFT_CHECK=epoch: read since last verified, verify owed at commit */
  ft_runs_t owed;         /* the groups owed (ft_rest_read_owed) */
  uint64_t owed_epoch;    /* the epoch of the earliest read owed */
  int busy;               /* a copy into it is being enqueued in pieces */
  /* in flight with its code still valid outside the groups of `dirty`: what
   * launches wrote by their range facts (ft_set_state clears it on any other change) */
  int dirty_part;
  ft_runs_t dirty;
  /* a bit per group under a valid code, while a never-written allocation is written
   * in part (coded.c); NULL: the state says for all of it */
  uint64_t *cmap, ncoded;
  struct ft_snapent_s *snap; /* its copies in the snapshot store (snapshot.c), or NULL */
  int freeing;               /* a free of it is under way: no new snapshot copy of it */
  /* pointers its content holds (reach.c), for kernels that load pointers */
  uint64_t content_gen;      /* bumped by every write gpuft sees (ft_content_changed, uploads) */
  uint64_t ptr_gen, ptr_reg_gen; /* what ptrs was computed from */
  CUdeviceptr *ptrs;
  size_t nptrs;
} ft_alloc_t;

enum {
  FT_RP_NONE = 0,  /* no restore point taken in this epoch (not written yet) */
  FT_RP_NOT_NEEDED, /* written only by operations that overwrite it whole */
  FT_RP_MIRROR,    /* the host checkpoint equals its content at epoch start */
  FT_RP_SHADOW,    /* a device copy (verified while copied) */
  FT_RP_LOST       /* written, but no restore point could be taken */
};

/* Whether a is a run of VMM-mapped memory touching [lo, hi] (overlapping it, or
 * ending or starting right at it: a run a change there may join or cut). */
static inline int ft_run_touches(const ft_alloc_t *a, CUdeviceptr lo, CUdeviceptr hi) {
  return a->vmm && a->base <= hi && a->base + a->size >= lo;
}

/* Whether a (may be NULL) is under protection: it has a code (and so a context's
 * state) and has not left protection. */
static inline int ft_protected(const ft_alloc_t *a) {
  return a && a->code && a->state != FT_ST_UNPROT;
}

/* Something wrote `a` on the device: its checkpoint no longer equals its content,
 * and what was found in that content is stale. */
static inline void ft_content_changed(ft_alloc_t *a) {
  a->mirror_valid = 0;
  a->content_gen++;
}

/* All of a's code was just written (uploaded with it, encoded on the device):
 * protect.c. */
void ft_code_fresh(ft_alloc_t *a);

/* The checkpoint holds the data, then (128-byte aligned) the code. */
static inline size_t ft_mirror_code_off(const ft_alloc_t *a) { return ft_blocks_bytes(a->size); }
static inline size_t ft_mirror_bytes(const ft_alloc_t *a) { return ft_mirror_code_off(a) + a->code_bytes; }

/* ---- Groups under a valid code (protect.c; engine lock held) ---- */
/* A never-written allocation about to be written in part becomes clean with no
 * group coded yet: 1, or 0 (not never-written, or no memory: all of it is encoded). */
int ft_coded_begin(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock);
void ft_coded_drop(ft_alloc_t *a);
/* Groups [g0, g1) are under a valid code now (every encode marks them). */
void ft_coded_mark(ft_alloc_t *a, uint64_t g0, uint64_t g1) FT_REQUIRES(ft_eng_lock);
/* The next run of coded groups in [*g0, end): 1 with [*g0, *g1) set, or 0. */
int ft_coded_next(const ft_alloc_t *a, uint64_t *g0, uint64_t *g1, uint64_t end);
/* The next run of groups not coded in [*g0, end) (none without a map): 1 with [*g0, *g1). */
int ft_uncoded_next(const ft_alloc_t *a, uint64_t *g0, uint64_t *g1, uint64_t end);
int ft_coded_all_in(const ft_alloc_t *a, uint64_t g0, uint64_t g1);
uint64_t ft_coded_bytes(const ft_alloc_t *a); /* bytes under a code (size without a map) */
/* Those bytes when they count (clean or in flight: written at least once), else 0. */
uint64_t ft_coded_counted(const ft_alloc_t *a);
/* a is now `size` bytes long (a run of mapped memory grew or shrank at its end):
 * the groups it had keep their state, new ones are not coded. 0, or -1 (no memory:
 * nothing changed). */
int ft_coded_resize(ft_alloc_t *a, size_t size) FT_REQUIRES(ft_eng_lock);
/* The coded runs of a (more than fit: the groups between the closest join). */
void ft_coded_runs(const ft_alloc_t *a, ft_runs_t *out);

/* All registry functions expect the engine lock held. */
ft_alloc_t *ft_reg_find(CUdeviceptr p) FT_REQUIRES(ft_eng_lock); /* allocation containing p, or NULL */
ft_alloc_t *ft_reg_find_base(CUdeviceptr base) FT_REQUIRES(ft_eng_lock);
/* The code buffer of the protected allocation holding p: 0, or -1 (none). */
int ft_code_of(CUdeviceptr p, CUdeviceptr *code, size_t *code_bytes) FT_REQUIRES(ft_eng_lock);
ft_alloc_t *ft_reg_below(CUdeviceptr p) FT_REQUIRES(ft_eng_lock); /* the last allocation with base <= p, or NULL */
ft_alloc_t *ft_reg_above(CUdeviceptr p) FT_REQUIRES(ft_eng_lock); /* the first allocation with base > p, or NULL */
uint64_t ft_reg_generation(void);        /* changes whenever an allocation is tracked */
int ft_reg_insert(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock);
void ft_reg_remove(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock);
size_t ft_reg_count(void) FT_REQUIRES(ft_eng_lock);
ft_alloc_t *ft_reg_at(size_t i) FT_REQUIRES(ft_eng_lock);

/* ---- Memory mapped with the VMM API (mappings.c; engine lock held) ----
 * What the program's cuMemCreate, cuMemMap and cuMemSetAccess made: physical
 * allocations by handle, mappings by virtual address, whether the current device
 * may write each. */
/* shared: memory something else can write (host memory the CPU reaches directly) */
void ft_vmm_created(CUmemGenericAllocationHandle h, int shared) FT_REQUIRES(ft_eng_lock);
void ft_vmm_released(CUmemGenericAllocationHandle h) FT_REQUIRES(ft_eng_lock);
/* Exported to, or imported from, another process. */
void ft_vmm_shared(CUmemGenericAllocationHandle h) FT_REQUIRES(ft_eng_lock);
/* h names the physical allocation mapped at `at` (cuMemRetainAllocationHandle). */
void ft_vmm_retained(CUmemGenericAllocationHandle h, CUdeviceptr at) FT_REQUIRES(ft_eng_lock);
/* Whether h's physical allocation is mapped somewhere already. */
int ft_vmm_is_mapped(CUmemGenericAllocationHandle h) FT_REQUIRES(ft_eng_lock);
int ft_vmm_mapped(CUdeviceptr va, size_t size, size_t off, CUmemGenericAllocationHandle h) FT_REQUIRES(ft_eng_lock);
void ft_vmm_unmapped(CUdeviceptr va, size_t size) FT_REQUIRES(ft_eng_lock);
void ft_vmm_access(CUdeviceptr va, size_t size, int rw) FT_REQUIRES(ft_eng_lock);
/* The next run at or after *p and before end: mappings the current device may write
 * with no gap between them; 1 with [*lo, *hi), *protectable (no mapping of it shows
 * memory another mapping or process can write) and *p moved past it, or 0. */
int ft_vmm_next_run(CUdeviceptr *p, CUdeviceptr end, CUdeviceptr *lo, CUdeviceptr *hi,
                    int *protectable) FT_REQUIRES(ft_eng_lock);
void ft_set_state(ft_alloc_t *a, int state) FT_REQUIRES(ft_eng_lock);
void ft_written_add(const ft_alloc_t *a); /* its coded bytes into bytes_written */
/* Byte-seconds spent in `state`, into the exposure counters. */
void ft_exposure_add(int state, double bs);
/* A launch gpuft counts under a code as soon as it is enqueued wrote `bytes` while it
 * ran: by the model, for (bytes it is given + bytes encoded after) / bandwidth. */
void ft_exposure_kernel(const ft_dev_t *d, uint64_t written, uint64_t moved);

/* ---- Order of the program's work (order.c) and uses (uses.c) ---- */
#define FT_ORD_STREAMS 64
/* An operation is being issued on stream s: advance its clock. Returns the
 * stream's index, or -1 for a stream beyond what is tracked. Lock held. */
int ft_ord_op(CUstream s);
/* The same after the operation was enqueued (the lock let go meanwhile): s's own
 * tick only, no ordering taken in from other streams. */
int ft_ord_advance(CUstream s);
uint64_t ft_ord_tick(int i);
int ft_ord_stream_index(CUstream s); /* without issuing: -1 if unknown */
/* Whether work issued on stream index i from now on is ordered after tick t of
 * stream index `by`; whether the host has seen it complete. */
int ft_ord_covers(int i, int by, uint64_t t);
int ft_ord_host_covers(int by, uint64_t t);
/* An event recorded with the clock vc its stream had before the record (all zero
 * for an untracked stream); a wait enqueued on s for an event whose clock was vc. */
void ft_ord_record_vc(CUevent e, const uint64_t *vc);
void ft_ord_wait_vc(CUstream s, const uint64_t *vc);
/* Before a synchronisation: the clocks it will cover (the current context's
 * streams, those of context c (NULL: current), one stream, an event); after it
 * returned, ft_ord_synced says the host has seen them. */
void ft_ord_snap_all(uint64_t *vc);
void ft_ord_snap_ctx(CUcontext c, uint64_t *vc);
void ft_ord_snap_stream(CUstream s, uint64_t *vc);
void ft_ord_snap_event(CUevent e, uint64_t *vc);
void ft_ord_synced(const uint64_t *vc, int whole_context); /* whole: the current context */
void ft_ord_ctx_synced(CUcontext c, const uint64_t *vc);    /* context c (NULL: current) */
uint64_t ft_ord_ctx_synced_at(CUcontext c); /* ft_ord_ctx_syncs at c's last whole sync */
void ft_ord_forget_event(CUevent e);
/* A stream destroyed, a context torn down: its handles may name new ones. */
void ft_ord_forget_stream(CUstream s);
void ft_ord_forget_ctx(CUcontext c);
/* Whether the program is capturing stream s (a failed query, as for the legacy
 * stream while a blocking stream captures, counts as capturing). */
int ft_stream_capturing(CUstream s);
/* The streams of context c whose work gpuft has seen issued and the host has not
 * seen finish, which may be synchronised one by one while a capture is open (at
 * most max, into out): not one being captured, nor the legacy stream while a
 * blocking stream captures (the driver refuses both and invalidates the capture);
 * for those, the events recorded on their work before the capture (ev, *nev).
 * *unknown: some such work cannot be waited for now (work after such an event,
 * work of a stream that joined a capture, another thread's per-thread stream's).
 * Asks the driver which streams capture. */
int ft_ord_unfinished(CUcontext c, CUstream *out, CUevent *ev, int max, int *nev, int *unknown)
    FT_REQUIRES(ft_eng_lock);
/* A capture is about to begin on s (first: no other is open): an event recorded on
 * s's work so far, and on the legacy stream's, to wait for during the capture; the
 * capture on s ended (its event kept until the next capture on s begins). */
void ft_ord_capture_before(CUstream s, int first) FT_REQUIRES(ft_eng_lock);
void ft_ord_capture_end(CUstream s) FT_REQUIRES(ft_eng_lock);
extern uint64_t ft_ord_ctx_syncs;

/* Whether every earlier use of `a` (only its writes when writes_only) is ordered
 * before an operation on stream index i (not: it is not at rest for it). */
int ft_rest_ordered(const ft_alloc_t *a, int i, int writes_only);
/* Record a use of `a` by the operation just issued on stream index i. */
void ft_rest_use(ft_alloc_t *a, int i, int write);
/* The host has seen every recorded use complete (then forgets them). */
int ft_rest_done(ft_alloc_t *a);
/* The same question without forgetting the uses. */
int ft_rest_seen_done(const ft_alloc_t *a);
/* Set once the program made a stream wait for a value (policy/rest.c,
 * ft_rest_value_wait): checks before use stop repairing (read atomically). */
extern int ft_values_awaited;
/* Whether checks before use may repair on the device now: GPUFT_VERIFY_BEFORE_USE,
 * not GPUFT_MODE=detect (which never modifies data), and no stream waits on a value. */
int ft_repairs_before_use(void);
/* The host has seen every recorded write complete (readers may still run). */
int ft_rest_writes_seen_done(const ft_alloc_t *a);
/* A use could not be recorded and no synchronisation of its context has been seen since. */
int ft_rest_lost(const ft_alloc_t *a);
/* Allocations in flight or owed a verification: commits look for them. */
extern int ft_rest_owed_hint;
void ft_rest_mark_owed(void);
/* A verification of `a` that could not be issued did not happen: when `a` is
 * clean it is owed, issued when `a` next comes to rest (ft_rest_commit). */
void ft_rest_verify_owed(ft_alloc_t *a);
/* Groups [g0, g1) of `a` were read by a launch: verified after their last reader,
 * at the commit that finds `a` at rest (GPUFT_CHECK=epoch; in flight too: its
 * encode covers only what launches wrote). */
void ft_rest_read_owed(ft_alloc_t *a, uint64_t g0, uint64_t g1);
/* The calling thread's operation has issued its writes (ft_op_end, engine lock not
 * held): their allocations may come to rest once the host sees them done. */
void ft_rest_issued(void);
/* Writes the calling thread's operation is issuing (ft_rest_write_begin, unseen
 * writers): not at rest until it ends (ft_rest_issued). */
void ft_rest_issuing(ft_alloc_t *a, CUstream s);
void ft_rest_issuing_all(CUstream s, int known);

/* ---- Per-context device state, the record (its functions: mech.h) ---- */
#define FT_LEDGER_SLOTS 1024
struct ft_dev_s {
  CUcontext ctx;
  int ok;                /* module and ledger ready: protection possible */
  ftk_module_t mod;
  CUstream stream;       /* gpuft's own non-blocking stream (repairs, reads) */
  CUstream snap_stream;  /* snapshot copies (snapshot.c), created on first use */
  CUevent snap_ev;       /* recorded behind this context's copies of a snapshot */
  ftk_job_t *jobs;       /* ledger: mapped pinned host memory */
  CUevent *fix_ev;       /* per ledger slot, created on first use: recorded behind a
                          * verify-before-use job (ledger.c: writers wait for its repairs) */
  CUdeviceptr jobs_dev;  /* its device address */
  CUdeviceptr djobs;     /* device memory: the kernels' accumulator per slot (ftk.h) */
  double mem_bps;        /* peak memory bandwidth (bytes/s): the exposure model's */
  struct ft_staging_s *staging; /* pinned staging buffers for uploads beyond the checkpoint
                                   budget: one per concurrent upload (upload.c) */
  int n_staging;
};
/* A two-slot staging ring, owned by one upload at a time (busy, engine lock). */
typedef struct ft_staging_s {
  uint8_t *mem;
  size_t bytes;
  CUevent done[2]; /* each slot's last DMA */
  int busy;
  struct ft_staging_s *next;
} ft_staging_t;

/* ---- Launches (launch.c, access.c) ---- */
enum { FT_ACC_UNKNOWN = 0, FT_ACC_READ, FT_ACC_WRITE, FT_ACC_NONE /* not a pointer it uses */ };
/* Access facts from the PTX of the program's images (facts.c, on ptx/). */
struct ft_ptx_place_s;
int ft_facts_lookup(const char *name, const struct ft_ptx_place_s **places, size_t *n,
                    uint32_t *flags, uint64_t *archs); /* archs: bit (sm - 50) per PTX target */
void ft_facts_image(const void *image, size_t size);
/* The same for an image in a file (a cubin, fatbin or PTX file, or an ELF object). */
void ft_facts_path(const char *path);
/* The facts of kernel `name` as a handle that stays valid for the process, or NULL. */
const void *ft_facts_handle(const char *name);
/* Bytes [lo, hi) relative to the pointer at parameter offset off that kernel h may
 * access in direction dir (0 read, 1 write) at this launch (params: its parameter
 * buffer): 0, or -1 when unbounded (the whole allocation). Lock held. */
int ft_facts_range(const void *h, uint32_t off, unsigned dir, const uint8_t *params, size_t len,
                   const unsigned grid[3], const unsigned block[3], int64_t *lo, int64_t *hi);
typedef struct ft_func_s ft_func_t;
void ft_access_learn_write(ft_func_t *fn, int argslot);
/* One object per kernel that reaches beyond its arguments, into the open array (report). */
void ft_access_report(ft_jw_t *w);
/* Which parameters of a mangled C++ name are pointers to const: bit i set for
 * parameter i (only for the first 64). Returns the number of parameters parsed,
 * or -1 when the name cannot be parsed (then no hint). */
int ft_demangle_const_params(const char *mangled, uint64_t *const_mask, uint64_t *ptr_mask);


/* 1 if gpuft may read host memory [p, p+n) itself (hostmem.c); 0: leave the call to
 * the driver (NULL, device or unmapped addresses, wrap-around). */
int ft_host_readable(const void *p, size_t n);

/* ---- Engine lock and statistics (engine_state.c) ---- */
/* Operations the epoch log records hold the op lock shared from their real driver
 * call to their log entry; a replay holds it exclusively, so that nothing is
 * half-logged or newly issued while it restores and re-issues. Order: op lock,
 * then engine lock. A commit made while the thread holds it never replays (the
 * replay is left to the next synchronisation point). */
void ft_op_begin(void);
void ft_op_end(void);
int ft_in_op(void);
int ft_op_exclusive_begin(void); /* 0, or -1 if it timed out */
void ft_op_exclusive_end(void);

/* The engine's statistics, one list: X(section, type, field, key) makes the struct
 * and the report's counters (report.c). section: the report object the counter is
 * written in (ERRORS, BYTES, TOP: the top level, ANALYSIS, SNAPSHOTS), or INTERNAL
 * (kept for what is written from it: exposure, sums, current values behind peaks).
 * type: U (uint64_t) or F (double, written with 6 decimals). key: its name in the
 * report (docs/report.md). Under the engine lock. */
#define FT_STATS(X)                                                                     \
  X(ERRORS, U, detected, "detected")                                                    \
  X(ERRORS, U, corrected, "corrected")                                                  \
  X(ERRORS, U, recovered, "recovered")                                                  \
  X(ERRORS, U, restored, "restored_from_checkpoint")                                    \
  X(ERRORS, U, uncorrectable, "uncorrectable")                                          \
  X(ERRORS, U, permanent, "permanent")                                                  \
  X(ERRORS, U, code_errors, "code_words")                                               \
  X(ERRORS, U, unconfirmed, "unconfirmed") /* flagged on the device, clean when re-read */ \
  X(BYTES, U, bytes_protected_peak, "protected")                                        \
  X(BYTES, U, bytes_written_peak, "written") /* protected bytes written, under a code */ \
  X(BYTES, U, bytes_checkpoint_peak, "checkpoint")                                      \
  X(BYTES, U, bytes_shadow, "shadow")                                                   \
  X(BYTES, U, bytes_encoded_host, "encoded_host")                                       \
  X(BYTES, U, bytes_encoded_device, "encoded_device")                                   \
  X(BYTES, U, bytes_verified_device, "verified_device")                                 \
  X(TOP, U, launches, "launches")                                                       \
  X(TOP, U, launches_protected, "launches_protected")                                   \
  X(TOP, U, graph_launches_protected, "graph_launches_protected") /* as their nodes */  \
  X(TOP, U, verifications, "verifications")                                             \
  X(TOP, U, verifications_refused, "verifications_refused")                             \
  X(TOP, U, checks_before_use, "checks_before_use") /* verify before use (launch.c) */    \
  X(ERRORS, U, repaired_before_use, "repaired_before_use") /* on the device, before a read */ \
  X(TOP, U, encodes, "encodes")                                                         \
  X(TOP, U, unknown_writers, "unknown_writers")                                         \
  X(TOP, U, captured_ops, "captured_ops") /* calls on capturing streams, passed through */ \
  X(TOP, U, learned_writes, "learned_writes")                                           \
  X(TOP, U, replays, "replays")                                                         \
  X(TOP, U, replayed_ops, "replayed_ops")                                               \
  X(TOP, U, allocations, "allocations")                                                 \
  X(TOP, U, allocations_unprotected, "allocations_unprotected")                         \
  X(TOP, U, vmm_runs, "vmm_runs") /* VMM runs tracked, each time they were formed */     \
  X(TOP, F, cpu_seconds, "cpu_seconds")                                                 \
  /* the engine lock: times taken; with GPUFT_LOCK_PROFILE how long it was held and */ \
  /* threads waited for it (a wait growing with the threads: serialised, mt_bench)  */ \
  X(TOP, U, lock_acquisitions, "engine_lock_acquisitions")                              \
  X(TOP, F, lock_held_seconds, "engine_lock_held_seconds")                              \
  X(TOP, F, lock_wait_seconds, "engine_lock_wait_seconds")                              \
  /* where the access classes of kernel arguments came from (DESIGN.md 5) */            \
  X(ANALYSIS, U, kernels_ptx, "kernels_with_ptx_facts")                                 \
  X(ANALYSIS, U, kernels_no_ptx, "kernels_conservative")                                \
  X(ANALYSIS, U, places_exact, "places_exact")                                          \
  X(ANALYSIS, U, places_conservative, "places_conservative")                            \
  /* kernels reaching memory through no argument place (docs/ptx.md "Soundness") */     \
  X(INTERNAL, U, kernels_reach_scan, "kernels_reach_scan")                              \
  X(ANALYSIS, U, kernels_reach_all, "kernels_reaching_everything")                      \
  X(ANALYSIS, U, launches_reach_scan, "launches_pointer_scanned")                       \
  X(ANALYSIS, U, launches_reach_params, "launches_parameters_scanned")                  \
  X(ANALYSIS, U, launches_reach_all, "launches_reaching_everything")                    \
  X(ANALYSIS, U, reach_bytes_scanned, "pointer_scan_bytes")                             \
  X(ANALYSIS, U, reach_bytes_read_back, "pointer_scan_bytes_read_back")                 \
  /* allocations launches used, checked over the bytes their range facts bound, or   */ \
  /* over all of each (no facts, a place without a range, reaching beyond)           */ \
  X(ANALYSIS, U, launch_refs_bounded, "launch_uses_bounded")                            \
  X(ANALYSIS, U, launch_refs_whole, "launch_uses_whole")                                \
  /* facts from PTX of another architecture than the device runs (docs/ptx.md)       */ \
  X(ANALYSIS, U, kernels_facts_other_arch, "kernels_facts_from_other_arch")             \
  /* restore points for device-produced data (DESIGN.md 6.8) */                         \
  X(SNAPSHOTS, U, snapshots, "taken")                                                   \
  X(SNAPSHOTS, U, snapshots_discarded, "discarded")                                     \
  X(SNAPSHOTS, U, snapshot_bytes_copied, "bytes_copied")                                \
  X(SNAPSHOTS, U, snapshot_store_peak, "store_bytes_peak")                              \
  X(SNAPSHOTS, U, snapshot_log_bytes_peak, "log_bytes_peak")                            \
  X(SNAPSHOTS, U, snapshot_waits, "writes_that_waited")                                 \
  /* frees of memory the log since the snapshot needed, held until it did not */        \
  X(SNAPSHOTS, U, frees_held, "frees_held")                                             \
  X(SNAPSHOTS, U, frees_held_returned, "frees_held_returned")                           \
  X(SNAPSHOTS, U, frees_held_given_up, "frees_held_given_up")                           \
  X(SNAPSHOTS, F, snapshot_issue_seconds, "issue_cpu_seconds")                          \
  X(SNAPSHOTS, F, snapshot_landed_seconds, "copies_landed_within_seconds")              \
  X(SNAPSHOTS, U, snapshot_recoveries, "recoveries")                                    \
  X(SNAPSHOTS, U, snapshot_recovery_failures, "recovery_failures")                      \
  X(SNAPSHOTS, U, snapshot_epochs_replayed, "epochs_replayed")                          \
  X(SNAPSHOTS, U, snapshot_depth_max, "deepest_recovery_epochs")                        \
  X(SNAPSHOTS, F, snapshot_recovery_seconds, "recovery_seconds")                        \
  /* current values behind the peaks, and what exposure and coverage are made of */     \
  X(INTERNAL, U, bytes_protected, "bytes_protected")                                    \
  X(INTERNAL, U, bytes_checkpoint, "bytes_checkpoint")                                  \
  X(INTERNAL, U, bytes_written, "bytes_written")                                        \
  X(INTERNAL, U, snapshot_store_bytes, "snapshot_store_bytes")                          \
  X(INTERNAL, U, ckpt_refused, "ckpt_refused")                                          \
  X(INTERNAL, F, covered_byte_s, "covered_byte_s")                                      \
  X(INTERNAL, F, total_byte_s, "total_byte_s")                                          \
  X(INTERNAL, F, inflight_byte_s, "inflight_byte_s") /* (ft_exposure_add) */            \
  X(INTERNAL, F, unprotected_byte_s, "unprotected_byte_s")                              \
  /* the part of covered time a launch's output spent being written, by the model  */   \
  /* (ft_exposure_kernel), and the bandwidth the model used                        */   \
  X(INTERNAL, F, kernel_byte_s, "kernel_in_flight_byte_s")                              \
  X(INTERNAL, F, kernel_model_bps, "kernel_model_bytes_per_s")
enum { FT_SEC_ERRORS, FT_SEC_BYTES, FT_SEC_TOP, FT_SEC_ANALYSIS, FT_SEC_SNAPSHOTS, FT_SEC_INTERNAL };
#define FT_STAT_T_U uint64_t
#define FT_STAT_T_F double
typedef struct {
#define FT_STAT_FIELD(section, type, field, key) FT_STAT_T_##type field;
  FT_STATS(FT_STAT_FIELD)
#undef FT_STAT_FIELD
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
} ft_error_event_t;
extern ft_error_event_t ft_events[FT_MAX_EVENTS];
extern int ft_nevents;

/* The GPU context was lost: the first sticky error a call of the program returned
 * (illegal address, launch failure...: the process must be restarted to use the GPU
 * again, as NVIDIA documents and an H100 showed), or 0. Recorded by ft_note_result
 * from the calls that report a kernel's fault (synchronisations, read-backs,
 * launches); the report says it (`context_lost`) and the launcher's --restarts reruns
 * the program on it. Atomic: no lock. */
CUresult ft_note_result(CUresult r); /* returns r */
int ft_context_lost(void);
/* The sticky errors, one list: X(CUresult name) (ft_note_result, and their names in
 * the report). */
#define FT_STICKY_ERRORS(X)                                                                     \
  X(CUDA_ERROR_ECC_UNCORRECTABLE) X(CUDA_ERROR_ILLEGAL_ADDRESS) X(CUDA_ERROR_LAUNCH_TIMEOUT)     \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR) X(CUDA_ERROR_ILLEGAL_INSTRUCTION)                          \
  X(CUDA_ERROR_MISALIGNED_ADDRESS) X(CUDA_ERROR_INVALID_ADDRESS_SPACE) X(CUDA_ERROR_INVALID_PC) \
  X(CUDA_ERROR_LAUNCH_FAILED) X(CUDA_ERROR_ASSERT)

/* Stream captures the program has open (hooks/capture.c; atomic): a synchronisation
 * of the context now would invalidate them. A capture begins inside
 * ft_capture_gate_close/open, and gpuft's own context synchronisations hold
 * ft_capture_gate_pass/done while they look at the count and wait: none of them is
 * under way when a capture begins (the driver refuses it during one and
 * invalidates the capture). A capture's end does not wait at the gate. */
extern int ft_captures_open;
void ft_capture_gate_close(void);
void ft_capture_gate_open(void);
void ft_capture_gate_pass(void);
void ft_capture_gate_done(void);

/* The stream a call with stream argument s really uses: 0 is the legacy default
 * stream, or the per-thread one for the _ptsz/_ptds entry points. */
#define FT_STREAM(s, ptsz) ((s) ? (s) : (ptsz) ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY)

double ft_now(void);
double ft_cpu_now(void);

/* The current epoch (store/epoch.c closes it), from 1. */
extern uint64_t ft_epoch;
/* Damaged data was used and its replay is still owed (readable without a lock; set
 * and cleared by commits). */
int ft_replay_owed(void);
extern int ft_replay_pending; /* (atomic stores) */

/* ---- What lower floors tell upper ones (registered by ft_engine_wire) ----
 * A lower floor never calls up: where it must say something to a floor above (a
 * re-encode is new content for the snapshot store; an upload replaces a checkpoint
 * a snapshot may rely on; an error nothing recovered), it calls what was
 * registered here. Unset: nothing to tell. */
typedef struct {
  void (*written)(ft_alloc_t *a, uint64_t g0, uint64_t g1);
  void (*before_upload)(ft_alloc_t *a);
  void (*before_write)(ft_alloc_t *a, CUstream s, uint64_t g0, uint64_t g1);
  void (*lost)(void); /* an uncorrectable error: the program may end abruptly now */
} ft_observers_t;
extern ft_observers_t ft_obs;

#endif
