/* mech.h: the engine's device mechanisms (docs/design.md "Engine floors"): per-
 * context set-up, the ledger of gpuft's jobs, encodes, the host-function trampoline.
 * Calls only the state floor and below. Internal to shim/ (names ft_). */
#ifndef FT_MECH_H
#define FT_MECH_H

#include "state.h"

/* ---- Encodes (encode.c) ---- */
/* Encode, on s, the groups of [g0, g1) never written, before a copy that checks them. */
void ft_coded_cover(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream s) FT_REQUIRES(ft_eng_lock);
/* Bring `a` back under a code now, on stream s (its uses are ordered before s). */
void ft_rest_encode(ft_alloc_t *a, CUstream s) FT_REQUIRES(ft_eng_lock);
/* Enqueue an encode of groups [g0, g1) without a ledger slot. When it cannot be
 * enqueued the allocation is left in flight (FT_ST_INFLIGHT): its code is never
 * trusted, and a later commit tries again. */
void ft_reencode(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream stream)
    FT_REQUIRES(ft_eng_lock);
/* After a write gpuft cannot bound within a (a graph, a strided or batch copy, a
 * stream memory operation), enqueued on s: all of it re-encoded behind the write, and
 * its checkpoint no longer equals it. */
void ft_reencode_written(ft_alloc_t *a, CUstream s) FT_REQUIRES(ft_eng_lock);

/* ---- Code words between layouts (codecopy.c) ---- */
/* The code of groups [g0, g1) of a from_len-byte allocation (code buffer `from`) into
 * the code buffer `to` of a to_len-byte one, from its group tg0, on stream s (of d's
 * context, entered; d NULL: of the current one). The groups must hold the same bytes
 * on both sides: 0, else -1 (nothing copied). */
int ft_code_copy(ft_dev_t *d, CUdeviceptr from, uint64_t from_len, uint64_t g0, uint64_t g1,
                 CUdeviceptr to, uint64_t to_len, uint64_t tg0, CUstream s);
/* The same between host buffers. */
int ft_code_copy_host(const uint8_t *from, uint64_t from_len, uint64_t g0, uint64_t g1, uint8_t *to,
                      uint64_t to_len, uint64_t tg0);
/* A checkpoint-format buffer (data, then the code at ft_blocks_bytes of the length) of
 * from_len bytes into one of to_len: the data and code both have in common. */
int ft_ckpt_copy_host(const uint8_t *from, uint64_t from_len, uint8_t *to, uint64_t to_len);

/* ---- Per-context device state (dev.c) ---- */
/* The state of the calling thread's current context (created on first use), or
 * NULL if there is none or protection is impossible in it. */
ft_dev_t *ft_dev_current(void);
/* Wait for all work of every context gpuft has state for (a program driving two
 * devices: the jobs of both), or of the current one when there is one or none.
 * 1 if all finished without error. Takes the engine lock briefly. */
int ft_dev_sync_all(void);
/* The current context's work finished, as gpuft's own cuCtxSynchronize would make
 * it, except while the program has a stream capture open, when that call is refused
 * and invalidates the capture: then each stream gpuft has seen issue unfinished work
 * in it, and gpuft's own, is synchronised one by one. CUDA_ERROR_NOT_READY when
 * that cannot be done (a stream being captured, or the legacy stream, has work
 * gpuft has not seen finish): nothing was invalidated, and nothing may be taken
 * as finished. Takes the engine lock briefly. */
CUresult ft_dev_ctx_sync(void);
/* Make d's context current for gpuft's own work on its memory (a commit may run in
 * a thread bound to another context, or to none); returns what ft_dev_leave
 * needs to undo it. */
int ft_dev_enter(const ft_dev_t *d);
void ft_dev_leave(int entered);
/* gpuft's kernels for an allocation of d launched for the program's stream s: the
 * stream to launch on (d's own when s belongs to another context, ordered after s
 * by events); *in for ft_dev_leave_for, which orders s after them again. */
CUstream ft_dev_enter_for(ft_dev_t *d, CUstream s, int *in);
void ft_dev_leave_for(CUstream s, CUstream used, int in);
/* The state of context ctx if gpuft has one (engine lock held). */
ft_dev_t *ft_dev_find(CUcontext ctx);
/* Tear down a context's gpuft module, stream and ledger while the context still
 * exists; the slot can serve a later context (policy: ft_dev_release). Engine lock held. */
void ft_dev_teardown(ft_dev_t *d);
/* Number of contexts gpuft protects now (dev.c). */
int ft_dev_count(void);
/* Drop the jobs of context d (it is gone: no result will come), or detach those of
 * allocation a (its memory is gone; they keep their slots until done). */
void ft_jobs_forget(const ft_dev_t *d, ft_alloc_t *a) FT_REQUIRES(ft_eng_lock);
extern ftk_driver_t ft_kdrv;

/* ---- Jobs (ledger.c) ---- */
enum { FT_JOB_VERIFY, FT_JOB_VERIFY_COPY };
enum {                /* why a job was issued, for the report */
  FT_WHY_READ_AFTER,  /* read-only argument, after the launch */
  FT_WHY_BEFORE_WRITE, /* possibly-written argument, before the launch */
  FT_WHY_D2H,         /* source of a device-to-host copy, after the DMA */
  FT_WHY_COPY_SRC,    /* source of a device-to-device copy */
  FT_WHY_AT_REST,     /* data at rest, before a write re-encodes it whole: nothing used it */
  FT_WHY_BEFORE_READ  /* read by a kernel, before it: repaired on the device (verify before use) */
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
  int voided;    /* its result may show a concurrent write: ignored (2: a check that
                  * repairs, which the write waited for: its repairs are counted) */
  int fix;       /* verify before use: it repairs on the device what it finds (ftk_verify_fix,
                  * ftk_verify_copy_fix); a FT_JOB_VERIFY one copies from dst when nonzero */
  int reads_before; /* reads of the allocation checked before them in its epoch, issued
                     * before this job (its cr_n) */
  uint64_t reads_epoch; /* the epoch of the earliest read it checks after (its own, unless
                         * the check was owed: ft_jobs_reads_from) */
  struct ft_job_rec_s *next;
} ft_job_rec_t;
/* Enqueue a verification of groups [g0, g1) of `a` on `stream`, with a ledger
 * slot. Returns 0, or -1 (nothing enqueued, counted in verifications_refused: the
 * caller degrades). */
FT_MUST_CHECK int ft_job_issue(ft_dev_t *d, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1,
                               CUstream stream, struct ft_func_s *fn, int argslot)
    FT_REQUIRES(ft_eng_lock);
/* Verify before use (fix; why: FT_WHY_BEFORE_READ, or BEFORE_WRITE for what a write
 * is about to read or leave): the groups are
 * checked on `stream` and repaired on the device before what follows there reads
 * them, from the checkpoint when it is valid; an event behind it lets later writers
 * of `a` on other streams wait for its repairs (ft_jobs_void_unordered). */
FT_MUST_CHECK int ft_job_issue_fix(ft_dev_t *d, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1,
                                   CUstream stream, struct ft_func_s *fn, int argslot)
    FT_REQUIRES(ft_eng_lock);
/* A read of a on stream s after a check before it (verify before use): counted for
 * the commit's question whether a reader may have seen damage a check found
 * (ft_job_issue_fix counts the one it is issued for). Engine lock held. */
void ft_checked_read(ft_alloc_t *a, CUstream s) FT_REQUIRES(ft_eng_lock);
/* The event of a verify-before-use job of a that may still copy from its checkpoint
 * (not finished), or NULL: callers wait for it without the engine lock (it follows
 * the program's earlier work on its stream) before the checkpoint changes or goes. */
CUevent ft_jobs_fix_copying(const ft_alloc_t *a) FT_REQUIRES(ft_eng_lock);
/* The same wait with the lock held, where it cannot be let go (a context or an
 * allocation leaving protection; the free's hook waited already, lock-free). */
void ft_jobs_fix_drain(const ft_alloc_t *a) FT_REQUIRES(ft_eng_lock);
/* The same with an explicit copy destination (FT_JOB_VERIFY_COPY); fix: what the
 * decoder can repair is repaired in place and copied again (verify before use). */
FT_MUST_CHECK int ft_job_issue_copy(ft_dev_t *d, int why, ft_alloc_t *a, uint64_t g0, uint64_t g1,
                                    CUdeviceptr dst, CUstream stream, struct ft_func_s *fn,
                                    int argslot, int fix) FT_REQUIRES(ft_eng_lock);
int ft_jobs_pending(void);
/* The jobs issued and not retired, oldest first (engine lock held); a job's result
 * in the ledger (final once done is 1); retire j (prev: the one before it, or NULL),
 * freeing its slot. */
ft_job_rec_t *ft_job_head(void) FT_REQUIRES(ft_eng_lock);
ftk_job_t *ft_job_result(ft_job_rec_t *j);
void ft_job_retire(ft_job_rec_t *prev, ft_job_rec_t *j) FT_REQUIRES(ft_eng_lock);
/* Set by a commit while it replays (engine lock). */
extern int ft_replaying;
/* Jobs one operation may issue at most (a launch, per referenced allocation: a
 * restore point grown on both sides, a check before, two of what it only read after). */
#define FT_JOBS_PER_OP (5 * 64 + 8)
/* A write of groups [g0, g1) of `a` on stream s (index i) not ordered after pending
 * verifications of those groups on other streams: their results could show the
 * write, not damage; they are dropped (those of other groups read neither its data
 * nor its codes: each group's code words are its own). Verifications that repair
 * before use write those groups: s also waits for them (a write racing a repair could
 * be undone by it). */
void ft_jobs_void_unordered(ft_alloc_t *a, int i, CUstream s, uint64_t g0, uint64_t g1);
/* The jobs issued from now on check after reads of epoch e (an owed check; 0: of
 * the epoch they are issued in). */
void ft_jobs_reads_from(uint64_t e) FT_REQUIRES(ft_eng_lock);
extern int ft_jobs_pending_hint;
/* The result slots of the verifications pending now (at most cap). Their slots may
 * be reused later: a reader without the lock must take what it finds as a hint. */
size_t ft_jobs_snapshot(const ftk_job_t **out, size_t cap);

/* ---- Host functions in streams (hostfn.c) ---- */
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
/* (policy: ft_host_fn_queue) Engine lock held; *seq: its number. */
ft_hostfn_t *ft_host_fn_make(CUstream s, CUhostFn fn, CUstreamCallback cb, void *user,
                             uint64_t *seq);
void ft_host_fn_discard(ft_hostfn_t *h);
void CUDA_CB ft_host_fn_tramp(void *user);
void CUDA_CB ft_host_fn_tramp_cb(CUstream s, CUresult status, void *user);
int ft_host_fn_deferred(void);

#endif
