/* engine.h: gpuft's protection engine (DESIGN.md sections 5, 6): the allocation
 * registry, per-context device state, jobs in the ledger, commit, statistics.
 * Internal to shim/ (names ft_). */
#ifndef FT_ENGINE_H
#define FT_ENGINE_H

#include <pthread.h>

#include "codec.h"
#include "ft.h"
#include "ftk_launch.h"
#include "json_writer.h"
#include "runs.h"


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
  uint64_t id; /* 1, 2, ... in allocation order, for reports */
  CUdeviceptr code; /* device code buffer (ft_code_layout(size)), 0 if none */
  size_t code_bytes;
  uint8_t *mirror;  /* pinned host checkpoint: data (size bytes) then code, or NULL */
  int mirror_valid; /* mirror == device content (data and code) */
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

/* Something wrote `a` on the device: its checkpoint no longer equals its content,
 * and what was found in that content is stale. */
static inline void ft_content_changed(ft_alloc_t *a) {
  a->mirror_valid = 0;
  a->content_gen++;
}

/* The checkpoint holds the data, then (128-byte aligned) the code. */
static inline size_t ft_mirror_code_off(const ft_alloc_t *a) { return ft_blocks_bytes(a->size); }
static inline size_t ft_mirror_bytes(const ft_alloc_t *a) { return ft_mirror_code_off(a) + a->code_bytes; }

/* ---- Groups under a valid code (coded.c; engine lock held) ---- */
/* A never-written allocation about to be written in part becomes clean with no
 * group coded yet: 1, or 0 (not never-written, or no memory: all of it is encoded). */
int ft_coded_begin(ft_alloc_t *a);
void ft_coded_drop(ft_alloc_t *a);
/* Groups [g0, g1) are under a valid code now (every encode marks them). */
void ft_coded_mark(ft_alloc_t *a, uint64_t g0, uint64_t g1);
/* The next run of coded groups in [*g0, end): 1 with [*g0, *g1) set, or 0. */
int ft_coded_next(const ft_alloc_t *a, uint64_t *g0, uint64_t *g1, uint64_t end);
int ft_coded_all_in(const ft_alloc_t *a, uint64_t g0, uint64_t g1);
uint64_t ft_coded_bytes(const ft_alloc_t *a); /* bytes under a code (size without a map) */
/* Those bytes when they count (clean or in flight: written at least once), else 0. */
uint64_t ft_coded_counted(const ft_alloc_t *a);
/* The coded runs of a (more than fit: the groups between the closest join). */
void ft_coded_runs(const ft_alloc_t *a, ft_runs_t *out);
/* Encode, on s, the groups of [g0, g1) never written, before a copy that checks them. */
void ft_coded_cover(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream s);

/* All registry functions expect the engine lock held. */
ft_alloc_t *ft_reg_find(CUdeviceptr p); /* allocation containing p, or NULL */
ft_alloc_t *ft_reg_find_base(CUdeviceptr base);
ft_alloc_t *ft_reg_below(CUdeviceptr p); /* the last allocation with base <= p, or NULL */
ft_alloc_t *ft_reg_above(CUdeviceptr p); /* the first allocation with base > p, or NULL */
uint64_t ft_reg_generation(void);        /* changes whenever an allocation is tracked */
int ft_reg_insert(ft_alloc_t *a);
void ft_reg_remove(ft_alloc_t *a);
size_t ft_reg_count(void);
ft_alloc_t *ft_reg_at(size_t i);
void ft_set_state(ft_alloc_t *a, int state);
void ft_written_add(const ft_alloc_t *a); /* its coded bytes into bytes_written */
/* Byte-seconds spent in `state`, into the exposure counters. */
void ft_exposure_add(int state, double bs);
/* A launch gpuft counts under a code as soon as it is enqueued wrote `bytes` while it
 * ran: by the model, for (bytes it is given + bytes encoded after) / bandwidth. */
void ft_exposure_kernel(const ft_dev_t *d, uint64_t written, uint64_t moved);

/* ---- Order of the program's work (order.c) and rest intervals (rest.c) ---- */
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
/* At a commit: encode what came to rest, verify what GPUFT_CHECK=epoch deferred,
 * on gpuft's stream, and wait for it. Lock held. */
void ft_rest_commit(void);
/* Bring `a` back under a code now, on stream s (its uses are ordered before s). */
void ft_rest_encode(ft_alloc_t *a, CUstream s);
/* A copy or memset about to write bytes [off, off+n) of `a` on stream s (whole: all
 * of them): restore point when at rest (the groups it touches verified first: those
 * re-encoded after it), in flight when another stream may be writing it. Returns the
 * stream index. */
int ft_rest_write_begin(ft_alloc_t *a, CUstream s, int whole, size_t off, size_t n);
/* After its code was updated: in flight if another stream's writes are unordered. */
void ft_rest_write_end(ft_alloc_t *a, CUstream s);
/* The calling thread's operation has issued its writes (ft_op_end, engine lock not
 * held): their allocations may come to rest once the host sees them done. */
void ft_rest_issued(void);
/* A copy reads `a` on stream s: 1 if its source may be verified behind it (at
 * rest under a code); an in-flight `a` that came to rest is encoded instead. */
int ft_rest_read(ft_alloc_t *a, CUstream s);

/* ---- Per-context device state (dev.c) ---- */
#define FT_LEDGER_SLOTS 1024
struct ft_dev_s {
  CUcontext ctx;
  int ok;                /* module and ledger ready: protection possible */
  ftk_module_t mod;
  CUstream stream;       /* gpuft's own non-blocking stream (repairs, reads) */
  CUstream snap_stream;  /* snapshot copies (snapshot.c), created on first use */
  ftk_job_t *jobs;       /* ledger: mapped pinned host memory */
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
/* The state of the calling thread's current context (created on first use), or
 * NULL if there is none or protection is impossible in it. */
ft_dev_t *ft_dev_current(void);
/* Make d's context current for gpuft's own work on its memory (a commit may run in
 * a thread bound to another context, or to none); returns what ft_dev_leave
 * needs to undo it. */
int ft_dev_enter(const ft_dev_t *d);
void ft_dev_leave(int entered);
/* The state of context ctx if gpuft has one (engine lock held). */
ft_dev_t *ft_dev_find(CUcontext ctx);
/* Release a context's gpuft state (module, stream, ledger, staging) while the
 * context still exists; the slot can serve a later context. Engine lock held. */
void ft_dev_release(ft_dev_t *d);
/* Drop the jobs of context d (it is gone: no result will come), or detach those of
 * allocation a (its memory is gone; they keep their slots until done). */
void ft_jobs_forget(const ft_dev_t *d, ft_alloc_t *a);
/* Stop tracking an allocation: its code, checkpoint and shadow go (ops_mem.c). */
void ft_alloc_untrack(ft_alloc_t *a);
/* a stays tracked (its uses, its place in the registry) but leaves protection, with
 * one warning saying why: memory gpuft cannot watch every writer of. */
void ft_alloc_unprotect(ft_alloc_t *a, const char *why);
extern ftk_driver_t ft_kdrv;

/* ---- Jobs (ledger.c) ---- */
enum { FT_JOB_VERIFY, FT_JOB_VERIFY_COPY };
enum {                /* why a job was issued, for the report */
  FT_WHY_READ_AFTER,  /* read-only argument, after the launch */
  FT_WHY_BEFORE_WRITE, /* possibly-written argument, before the launch */
  FT_WHY_D2H,         /* source of a device-to-host copy, after the DMA */
  FT_WHY_COPY_SRC,    /* source of a device-to-device copy */
  FT_WHY_AT_REST      /* data at rest, before a write re-encodes it whole: nothing used it */
};
typedef struct ft_job_rec_s {
  int kind, why;
  ft_alloc_t *a;   /* NULL once the allocation is gone (ft_jobs_forget): an orphan that
                    * keeps its slot until its kernel is seen done */
  ft_dev_t *dev;   /* where its slot lives */
  uint64_t g0, g1;
  int slot;
  uint64_t seq;
  struct ft_func_s *fn; /* launch jobs: the function and argument slot */
  int argslot;
  CUdeviceptr dst; /* verify+copy: the shadow written */
  uint64_t epoch;
  int ord_s;     /* stream index and tick it was issued at (order.c) */
  uint64_t ord_t;
  int voided;    /* its result may show a concurrent write: ignored */
  struct ft_job_rec_s *next;
} ft_job_rec_t;
/* Enqueue a verification of groups [g0, g1) of `a` on `stream`, with a ledger
 * slot. Returns 0, or -1 (nothing enqueued, counted in verifications_refused: the
 * caller degrades). */
FT_MUST_CHECK int ft_job_issue(ft_dev_t *d, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1,
                               CUstream stream, struct ft_func_s *fn, int argslot);
/* The same with an explicit copy destination (FT_JOB_VERIFY_COPY). */
FT_MUST_CHECK int ft_job_issue_copy(ft_dev_t *d, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1,
                                    CUdeviceptr dst, CUstream stream, struct ft_func_s *fn,
                                    int argslot);
/* Enqueue an encode of groups [g0, g1) without a ledger slot. When it cannot be
 * enqueued the allocation is left in flight (FT_ST_INFLIGHT): its code is never
 * trusted, and a later commit tries again. */
void ft_reencode(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream stream);
int ft_jobs_pending(void);
/* Set by a commit while it replays (engine lock). */
extern int ft_replaying;
/* Jobs one operation may issue at most (a launch, per referenced allocation: a
 * restore point grown on both sides, a check before, two of what it only read after). */
#define FT_JOBS_PER_OP (5 * 64 + 8)
/* A write of groups [g0, g1) of `a` on stream index i not ordered after pending
 * verifications of those groups on other streams: their results could show the
 * write, not damage; they are dropped (those of other groups read neither its data
 * nor its codes: each group's code words are its own). */
void ft_jobs_void_unordered(const ft_alloc_t *a, int i, uint64_t g0, uint64_t g1);
extern int ft_jobs_pending_hint;
/* The result slots of the verifications pending now (at most cap). Their slots may
 * be reused later: a reader without the lock must take what it finds as a hint. */
size_t ft_jobs_snapshot(const ftk_job_t **out, size_t cap);

/* ---- Commit (commit.c) ---- */
/* Process every finished job: correct, restore, count, learn. Returns
 * CUDA_SUCCESS or CUDA_ERROR_ECC_UNCORRECTABLE (GPUFT_ON_FAIL=error, something
 * could not be recovered since the last commit). Takes the engine lock. */
CUresult ft_commit(void);
/* ft_commit, also telling whether allocation `watch` had anything repaired. */
CUresult ft_commit_ex(ft_alloc_t *watch, int *watch_repaired);
/* Make every job finished (synchronise the context) and commit. */
CUresult ft_commit_all(void);
/* ft_commit_all with no operation of any thread in flight (the operation lock held
 * exclusively, bounded): nothing new is issued between the synchronisation and the
 * commit, so a clean epoch closes. Before freeing memory the epoch used: an epoch
 * whose log outlives it could no longer be replayed. */
CUresult ft_commit_quiet(void);
/* A sync call finished with `r`: commit and merge the verdict. */
CUresult ft_after_sync(CUresult r);
/* Before an operation starts (no gpuft lock held): when the ledger has less room
 * than one operation may need, take the results in first (a commit). The verdict
 * stays for the next call that returns one. */
void ft_jobs_make_room(void);
/* Damaged data was used and its replay is still owed (readable without a lock). */
int ft_replay_owed(void);

/* ---- Epochs: log, restore points, replay (epoch.c) ---- */
extern uint64_t ft_epoch; /* current epoch number, from 1 */
/* Before the first write of `a` in this epoch on stream s: take its restore point
 * (checkpoint, or a shadow copy made by the fused verify+copy kernel, which also
 * verifies the content about to be overwritten). `whole`: the write overwrites all
 * of it (no restore point needed). Issues the "verify before write" job itself,
 * over groups [g0, g1): those the write may read or change (a shadow copy, the one
 * restore point that reads the data, covers all of it). */
void ft_restore_point(ft_dev_t *d, ft_alloc_t *a, CUstream s, int whole, struct ft_func_s *fn,
                      int slot, uint64_t g0, uint64_t g1);
/* The same when `a` is not at rest (another stream may be using it): only a
 * restore point that needs no read of it now (its valid checkpoint) is taken. */
void ft_restore_point_unread(ft_alloc_t *a);
/* Whether the epoch's restore point gives group g of a back (a shadow holds only
 * the groups the epoch's writes may change). */
int ft_restore_point_covers(const ft_alloc_t *a, uint64_t g);
/* Log an operation of the program for replay. A launch carries the groups it may
 * write of each allocation (its range facts), so that its replay encodes those. */
#define FT_OP_WRITES 8
typedef struct {
  CUdeviceptr base;
  uint64_t g0, g1;
} ft_span_t;
void ft_log_launch(CUfunction f, int coop, const unsigned grid[3], const unsigned block[3],
                   unsigned shmem, const uint8_t *params, size_t len, struct ft_func_s *fn,
                   const ft_span_t *writes, int nwrites);
void ft_log_h2d(ft_alloc_t *a, size_t off, size_t n);
/* Another upload to `a` in this epoch, of [off, off+n): 1 if the earlier ones can be
 * dropped from the log (it covers each of them and nothing read `a` since: the replay
 * only needs the last), 0 if the epoch must end first. */
int ft_log_h2d_supersede(ft_alloc_t *a, size_t off, size_t n);
/* sync: a synchronous read-back, settled by ft_epoch_settle_sync before it returns. */
void ft_log_d2h(void *host, CUdeviceptr src, size_t n, CUstream s, int sync);
/* At the end of every commit (the program may look at what has completed): read-
 * backs that have completed are settled: a replay never writes their buffers again,
 * it checks that they would receive the same bytes (else the epoch is lost). */
void ft_epoch_settle(void);
/* Host function number `seq` was queued on stream index stream_index (order.c): it
 * may look at every read-back logged so far that its stream is ordered after. If it has run when a replay begins (ft_host_fn_ran), those read-backs are
 * settled then: reproduced, not rewritten. */
void ft_epoch_host_fn(uint64_t seq, int stream_index);
int ft_host_fn_ran(uint64_t seq);
/* Host functions held back because data verified before them was damaged run at the
 * end of the commit that settles the epoch (ops_sync.c). A commit takes those held
 * before it looks at the jobs (the damage that held them is among what it sees)
 * and runs them when the epoch is settled, else puts them back; one held while it
 * looks waits for the next commit (it was held for damage this one may not have
 * seen: running it at this commit's end let a host function see damaged data). */
typedef struct ft_hostfn_s ft_hostfn_t;
ft_hostfn_t *ft_host_fn_take_held(void);
void ft_host_fn_run(ft_hostfn_t *held);
void ft_host_fn_put_back(ft_hostfn_t *held);
/* The trampoline queued in place of a host function (hostfn.c): created by the
 * hook, given to the driver with ft_host_fn_tramp (cuLaunchHostFunc) or
 * ft_host_fn_tramp_cb (cuStreamAddCallback); discarded if the driver refused it. */
ft_hostfn_t *ft_host_fn_new(CUstream s, CUhostFn fn, CUstreamCallback cb, void *user);
void ft_host_fn_discard(ft_hostfn_t *h);
void CUDA_CB ft_host_fn_tramp(void *user);
void CUDA_CB ft_host_fn_tramp_cb(CUstream s, CUresult status, void *user);
int ft_host_fn_deferred(void);
/* A synchronous read-back into host is about to return to the program: settled. */
void ft_epoch_settle_sync(const void *host);
void ft_log_d2d(CUdeviceptr dst, CUdeviceptr src, size_t n);
void ft_log_memset(CUdeviceptr dst, uint32_t pattern, size_t n_elems, int elem_bytes);
/* Something the epoch cannot replay happened: results since the last commit can
 * still be corrected, but not recomputed. */
void ft_epoch_unreplayable(const char *why);
int ft_epoch_replayable(void);
size_t ft_epoch_ops(void);
/* Close the epoch (every job finished clean or repaired): drop log and restore points. */
void ft_epoch_close(void);
/* Restore what the epoch wrote and re-issue its operations on gpuft's stream;
 * returns 0 if it could (results then need verifying again), -1 otherwise. */
FT_MUST_CHECK int ft_epoch_replay(ft_dev_t *d);
void ft_shadow_release(ft_alloc_t *a);
void ft_epoch_forget_alloc(const ft_alloc_t *a);
/* Re-issue the current epoch's operations without restoring anything first (a
 * snapshot replay restored the state at its start); read-backs the program has
 * are compared (*differs). 0, or -1 if they cannot be re-issued. */
FT_MUST_CHECK int ft_epoch_replay_ops(ft_dev_t *d, int *differs);
/* A synchronous read-back was copied again (its source was repaired): what the
 * program received is now the bytes at host. */
void ft_log_d2h_recopied(void *host, size_t n);

/* ---- Snapshots of device-produced data and the log since (snapshot.c) ---- */
/* Whether closing epochs hand their operations to the snapshot log. */
int ft_snap_logging(void);
/* Whether a closing epoch's operations go into the snapshot log (a snapshot
 * exists or is being taken). */
int ft_snap_keeps_log(void);
/* Whether n more bytes fit in the log's budget. */
int ft_snap_log_room(size_t n);
/* At a clean epoch close: promote a snapshot whose copies have landed, take a
 * new one when due. Engine lock held. */
void ft_snap_epoch_closed(void);
/* Before an operation on stream s writes groups [g0, g1) of `a` (what the next
 * snapshot copies): it waits for a snapshot copy of `a` still in flight (counted:
 * snapshot time exposed). */
void ft_snap_before_write(ft_alloc_t *a, CUstream s, uint64_t g0, uint64_t g1);
/* Groups [g0, g1) of `a` may hold new content (every re-encode says so too: writes
 * gpuft cannot place, graphs, are caught there). */
void ft_snap_written(ft_alloc_t *a, uint64_t g0, uint64_t g1);
/* Before a write gpuft cannot attribute to one allocation and stream (2-D/3-D
 * copies and memsets, graphs): wait for a snapshot's copies in flight. No lock held. */
void ft_snap_drain(void);
/* Before an upload overwrites the checkpoint that the snapshot relies on. */
void ft_snap_before_upload(ft_alloc_t *a);
/* `a` is being freed (untracked). Before the free: the event to wait for while a
 * snapshot copy still reads it, or NULL. */
void ft_snap_forget_alloc(ft_alloc_t *a);
CUevent ft_snap_copying(const ft_alloc_t *a);
/* Number of contexts gpuft protects now (dev.c). */
int ft_dev_count(void);
/* Whether damage in `a` that nothing else can undo may be recovered from the
 * snapshot and the log since. */
int ft_snap_can_recover(const ft_alloc_t *a);
/* Restore the snapshot and replay every logged epoch and the current one,
 * comparing read-backs. 0: the device holds again what the program believes
 * (results of the replay's own checks are in the ledger); -1: not recovered
 * (*why says why). Context synchronised, op lock exclusive, engine lock held. */
FT_MUST_CHECK int ft_snap_recover(ft_dev_t *d, const char **why);
void ft_snap_d2h_recopied(void *host, size_t n);
/* A context's gpuft state is going (its snapshot stream). */
void ft_snap_dev_release(ft_dev_t *d);

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

/* Unknown writers (graph launches, unreadable arguments): commit before; after,
 * every protected allocation of the context is re-encoded on stream s. Before:
 * the write is to be issued on s (known 0: on streams gpuft cannot order). */
CUresult ft_unknown_writer_before(CUstream s, int known);
/* The same for one allocation (the one holding `only`) that a write is about to
 * re-encode whole (2-D/3-D copies, 2-D memsets): what the write leaves is verified
 * and repaired first. A commit point: the epoch before it stays replayable. */
CUresult ft_rewrite_before(CUdeviceptr only, CUstream s, int known);
void ft_unknown_writer_after(CUstream s);

/* ---- Uploads (upload.c) ---- */
/* Host-to-device copy of n bytes at offset off of allocation a, from host src,
 * on stream s: copy+encode into the checkpoint or staging, DMA, codes. sync: the
 * caller waits for completion before the program sees the call return (src is read
 * now, never deferred to the stream). Returns the real driver's result. */
FT_MUST_CHECK CUresult ft_upload(ft_dev_t *d, ft_alloc_t *a, size_t off, const void *src, size_t n,
                                 CUstream s, int sync);

/* 1 if gpuft may read host memory [p, p+n) itself (hostmem.c); 0: leave the call to
 * the driver (NULL, device or unmapped addresses, wrap-around). */
int ft_host_readable(const void *p, size_t n);

/* Free the staging buffers of a context (its teardown). */
void ft_staging_release_all(ft_dev_t *d);

/* Re-issue an upload of [off, off+n) from the checkpoint (replay). */
FT_MUST_CHECK CUresult ft_upload_replay(ft_dev_t *d, ft_alloc_t *a, size_t off, size_t n,
                                        CUstream s);

/* ---- Engine lock and statistics (engine_state.c) ---- */
extern pthread_mutex_t ft_eng_lock;
extern __thread int ft_tls_holds_lock __attribute__((tls_model("initial-exec")));
void ft_lock(void);
void ft_unlock(void);
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

typedef struct {
  uint64_t bytes_protected, bytes_protected_peak, bytes_checkpoint, bytes_checkpoint_peak;
  uint64_t bytes_encoded_host, bytes_encoded_device, bytes_verified_device;
  uint64_t launches, launches_protected, verifications, verifications_refused, encodes;
  uint64_t detected, corrected, recovered, uncorrectable, permanent, code_errors;
  uint64_t learned_writes, allocations, allocations_unprotected, ckpt_refused;
  uint64_t unknown_writers, restored;
  uint64_t captured_ops; /* calls on capturing streams, passed through (capture.c) */
  uint64_t bytes_shadow, replays, replayed_ops;
  double cpu_seconds;
  double covered_byte_s, total_byte_s; /* coverage */
  double inflight_byte_s, unprotected_byte_s; /* exposure (ft_exposure_add) */
  /* the part of covered time a launch's output spent being written, by the model
   * (ft_exposure_kernel), and the bandwidth the model used */
  double kernel_byte_s, kernel_model_bps;
  uint64_t bytes_written, bytes_written_peak; /* protected bytes written, under a code */
  uint64_t kernels_ptx, kernels_no_ptx, places_exact, places_conservative; /* access facts */
  uint64_t kernels_reach_scan, kernels_reach_all; /* kernels reaching beyond their arguments */
  uint64_t kernels_facts_other_arch; /* facts from PTX of another architecture than the device's */
  uint64_t launches_reach_scan, launches_reach_all, launches_reach_params, reach_bytes_scanned;
  uint64_t reach_bytes_read_back; /* device-written buffers read back for a pointer scan */
  uint64_t launch_refs_bounded, launch_refs_whole; /* allocations a launch uses: by range facts,
                                                      or all of each (no bound) */
  /* snapshots (snapshot.c) */
  uint64_t snapshots, snapshots_discarded, snapshot_bytes_copied, snapshot_store_bytes,
      snapshot_store_peak, snapshot_log_bytes_peak, snapshot_waits, snapshot_recoveries,
      snapshot_recovery_failures, snapshot_epochs_replayed, snapshot_depth_max;
  double snapshot_issue_seconds, snapshot_recovery_seconds, snapshot_landed_seconds;
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

/* The stream a call with stream argument s really uses: 0 is the legacy default
 * stream, or the per-thread one for the _ptsz/_ptds entry points. */
#define FT_STREAM(s, ptsz) ((s) ? (s) : (ptsz) ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY)

/* Write the JSON report to `path` (report.c); 0 on success. */
int ft_report_write_json(const char *path);
/* At the first CUDA call: the thread that writes the report when a signal stops the
 * program (the handler itself only wakes it and waits). */
void ft_report_arm(void);
/* The report so far, to GPUFT_REPORT, now (engine lock held). */
void ft_report_checkpoint(void);

double ft_now(void);
double ft_cpu_now(void);

#endif
