/* policy.h: the engine's policy (docs/design.md "Engine floors"): commits, the write
 * protocols, rest at commits, lifecycle (untrack, context release). Calls only the
 * recovery stores and below. Internal to shim/ (names ft_). */
#ifndef FT_POLICY_H
#define FT_POLICY_H

#include "store.h"

/* ---- Rest intervals at commits, the write protocol (rest.c) ---- */
/* At a commit: encode what came to rest, verify what GPUFT_CHECK=epoch deferred,
 * on gpuft's stream, and wait for it. Lock held. */
void ft_rest_commit(void) FT_REQUIRES(ft_eng_lock);
/* Before a host function on stream s (the program may look at results there): the
 * checks owed after readers that s is ordered after are issued on s, so that it
 * sees no result of damaged input (verify before use moved them to the commit). */
void ft_rest_owed_before(CUstream s) FT_REQUIRES(ft_eng_lock);
/* The program made a stream wait for a value (cuStreamWaitValue*, a batch wait): a
 * stream may now wait for work issued after it, and a later writer made to wait for
 * a repair before use could deadlock it; from now on checks before use only check
 * (what they find is handled at the commit, as a check after). */
void ft_rest_value_wait(void);
/* A copy or memset about to write bytes [off, off+n) of `a` on stream s (whole: all
 * of them): restore point when at rest (the groups it touches verified first: those
 * re-encoded after it), in flight when another stream may be writing it. Returns the
 * stream index. */
int ft_rest_write_begin(ft_alloc_t *a, CUstream s, int whole, size_t off, size_t n) FT_REQUIRES(ft_eng_lock);
/* After its code was updated: in flight if another stream's writes are unordered. */
void ft_rest_write_end(ft_alloc_t *a, CUstream s) FT_REQUIRES(ft_eng_lock);
/* A copy reads `a` on stream s: 1 if its source may be verified behind it (at
 * rest under a code); an in-flight `a` that came to rest is encoded instead. */
int ft_rest_read(ft_alloc_t *a, CUstream s) FT_REQUIRES(ft_eng_lock);

/* ---- The protocol of a launch (launches.c) ---- */
#define FT_MAX_REFS 64
/* One allocation a launch uses. */
typedef struct {
  ft_alloc_t *a;
  int acc;  /* FT_ACC_*: the most writing of its slots */
  int slot; /* a slot of that access, for learning (-1: none) */
  /* the bytes of a the launch may read and write, by the kernel's range facts
   * (DESIGN.md 5): [lo, hi) from a's base per direction, empty when lo == hi;
   * whole: unbounded, all of a */
  int64_t lo[2], hi[2];
  uint8_t whole[2];
} ft_ref_t;

/* Makes the program's own call (a launch, a graph launch) exactly as it was made. */
typedef CUresult (*ft_launch_fn)(const void *call);

/* What a launch's log entry needs (graph: an executable graph's launch). */
typedef struct {
  CUfunction f;
  int coop;
  const unsigned *grid, *block;
  unsigned shmem;
  const uint8_t *buf;
  size_t len;
  CUgraphExec graph;
  int facts; /* a graph: every kernel node's uses come from its PTX (checks before use may repair) */
  int host_writes; /* a graph: nodes copy to host memory */
} ft_logged_t;

/* The parameter buffer of a launch of fn as the kernel will see it (from the
 * launch's params or extra): 0 with *len set, or -1 when it cannot be read. */
int ft_param_bytes(const ft_func_t *fn, void **params, void **extra, uint8_t *buf, size_t *len);
/* The uses of one launch of fn with parameter bytes buf (refs, at most FT_MAX_REFS):
 * their count, or -1 when they cannot be known (more allocations than that); *side:
 * why the launch could not be replayed (it writes managed or mapped host memory,
 * or memory reached other than through its arguments), or NULL. Lock held. */
int ft_launch_uses(ft_dev_t *d, ft_func_t *fn, const uint8_t *buf, size_t len, const unsigned grid[3],
                   const unsigned block[3], ft_ref_t *refs, const char **side) FT_REQUIRES(ft_eng_lock);
/* The uses of one launch of kernel f (its arguments as the launch gives them),
 * merged into refs[0, n) (an allocation used twice: the more writing access, the
 * union of the bytes). Returns the new count, or -1 when they cannot be known (the
 * arguments unreadable, more than cap allocations); *side says why the launch could
 * not be replayed, or stays; *facts is cleared when the kernel's uses do not come
 * from its PTX. Engine lock held. */
int ft_kernel_refs(ft_dev_t *d, CUfunction f, void **params, void **extra, const unsigned grid[3],
                   const unsigned block[3], ft_ref_t *refs, int n, int cap, const char **side, int *facts)
    FT_REQUIRES(ft_eng_lock);
/* The protocol of a launch whose uses are known (refs: a kernel's, or the merged
 * uses of a graph's nodes; fn NULL for a graph): restore points and checks before
 * what it may write, the program's call made without the engine lock, then what it
 * only read verified after it (or owed), what it wrote re-encoded behind it or left
 * in flight, and the launch logged for replay (side: why it cannot be replayed, or
 * NULL). Engine lock held, operation lock shared; both as they were on return. */
CUresult ft_protect_refs(ft_dev_t *d, ft_func_t *fn, ft_ref_t *refs, int nref, CUstream s,
                         ft_launch_fn real, const void *call, const char *side,
                         const ft_logged_t *lg) FT_REQUIRES(ft_eng_lock);

/* ---- Copies and memsets (copies.c); engine lock held ---- */
/* The protected allocation holding all of [p, p+n), or NULL. */
ft_alloc_t *ft_range_protected(CUdeviceptr p, size_t n) FT_REQUIRES(ft_eng_lock);
/* The id of the allocation holding p, 0 if none. */
uint64_t ft_alloc_id_at(CUdeviceptr p) FT_REQUIRES(ft_eng_lock);
/* An upload to [dst, dst+n) would be the second one of its allocation in this epoch
 * and not replace the first (the epoch must end first). */
int ft_upload_again(CUdeviceptr dst, size_t n) FT_REQUIRES(ft_eng_lock);
/* The upload of [src, src+n) to protected [dst, dst+n) on stream s through the
 * upload pipeline (*handled: 1), or nothing (*handled: 0, not protected). Lets go
 * of the lock between chunks. */
CUresult ft_copy_upload_relocking(CUdeviceptr dst, const void *src, size_t n, CUstream s, int sync,
                                  int *handled) FT_REQUIRES(ft_eng_lock);
/* After the DMA of a read-back of [src, src+n) on stream s: the groups it read
 * verified behind it. The allocation a synchronous read-back settles (commits,
 * copies again if repaired), or NULL. */
ft_alloc_t *ft_copy_read(CUdeviceptr src, size_t n, CUstream s, int why) FT_REQUIRES(ft_eng_lock);
/* A read-back's source needed repairing after every copy: counted and reported;
 * the allocation's id (0: freed meanwhile). */
uint64_t ft_copy_read_unsettled(CUdeviceptr src) FT_REQUIRES(ft_eng_lock);
/* Before and after a device-to-device (or peer) copy of n bytes from src to dst. */
void ft_copy_d2d_begin(CUdeviceptr dst, size_t n, CUstream s) FT_REQUIRES(ft_eng_lock);
void ft_copy_d2d_end(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) FT_REQUIRES(ft_eng_lock);
/* After a 2-D, 3-D or peer copy into device address dptr from sptr (0: host memory
 * or an array): the source verified behind it, the destination re-encoded whole. */
void ft_copy_strided_end(CUdeviceptr dptr, CUdeviceptr sptr, CUstream s) FT_REQUIRES(ft_eng_lock);
/* Before and after a write gpuft does not model (a stream memory operation, a
 * batch copy) into the allocation holding p: verified before, re-encoded after. */
void ft_write_unmodelled_begin(CUdeviceptr p, CUstream s) FT_REQUIRES(ft_eng_lock);
void ft_write_unmodelled_end(CUdeviceptr p, CUstream s) FT_REQUIRES(ft_eng_lock);
/* Before and after a memset of [p, p+bytes) on stream s (dense: every byte of the
 * range is written, not a 2-D one's rows; pattern: the 32-bit fill, when
 * pattern_ok, whose code is written in closed form). */
void ft_memset_begin(CUdeviceptr p, size_t bytes, CUstream s, int dense) FT_REQUIRES(ft_eng_lock);
void ft_memset_end(CUdeviceptr p, size_t bytes, uint32_t pattern, int pattern_ok, CUstream s)
    FT_REQUIRES(ft_eng_lock);

/* ---- Lifecycle (lifecycle.c) ---- */
/* Release a context's gpuft state (module, stream, ledger, staging) while the
 * context still exists; the slot can serve a later context. Engine lock held. */
void ft_dev_release(ft_dev_t *d) FT_REQUIRES(ft_eng_lock);
/* Track a new allocation [p, p+size) of context d (NULL: managed memory or no
 * context state): a code when it can have one. The record, or NULL (no memory). */
ft_alloc_t *ft_alloc_track(ft_dev_t *d, CUdeviceptr p, size_t size, int managed) FT_REQUIRES(ft_eng_lock);
/* A run of mapped memory grew or shrank at its end to `size` bytes, at rest: its
 * record stays, with its codes (copied on the device, no pass over the data), the
 * state of its groups, its checkpoint and snapshot copies. 0, or -1 (not at rest,
 * sizes not whole groups, no memory: nothing changed). */
int ft_alloc_resize(ft_alloc_t *a, size_t size) FT_REQUIRES(ft_eng_lock);
/* Stop tracking an allocation: its code, checkpoint and shadow go (ops_mem.c). */
void ft_alloc_untrack(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock);
/* Every allocation of context c untracked (the context is going away). */
void ft_ctx_untrack(CUcontext c) FT_REQUIRES(ft_eng_lock);
/* The same in two steps: out of the registry (ft_reg_remove: its code can still be
 * read, a new record may take its place), then its end. */
void ft_alloc_drop(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock);
/* Before memory goes (a free, an unmap): no new snapshot copy of the records it
 * concerns (the allocation at base lo, or with runs every run of mapped memory
 * touching [lo, hi]), and the snapshot copies and repairs reading them finished. No
 * lock held; takes the engine lock. */
void ft_release_drain(CUdeviceptr lo, CUdeviceptr hi, int runs);
/* A free of the allocation at p (the driver judges p: an invalid one, an interior
 * pointer or a second free changes nothing): before it, nothing of gpuft's reads it
 * any more; 1 when the results of work that used it must be taken in first (the
 * caller commits). After it (freed: the driver freed it), its record goes, or stays
 * as it was. */
int ft_free_begin(CUdeviceptr p);
void ft_free_end(CUdeviceptr p, int freed);
/* Frees held for the snapshot's log (lifecycle.c). ft_free_hold: the program frees
 * the allocation at p, which the log since the snapshot (or the epoch's) needs:
 * 1 when gpuft holds it instead (the caller skips the driver's free), 0 when it is
 * for the driver. ft_free_held: p is memory the program freed and gpuft holds (a
 * second free: the driver's answer to one). Lock held. */
int ft_free_hold(CUdeviceptr p) FT_REQUIRES(ft_eng_lock);
int ft_free_held(CUdeviceptr p) FT_REQUIRES(ft_eng_lock);
/* Held memory given back to the driver: what no log needs any more (all: every
 * held allocation, the log giving up what it needed). How many. No lock held. */
int ft_held_release(int all);
/* Context c goes: what is held in it goes with it (before ft_ctx_untrack). */
void ft_held_forget_ctx(CUcontext c) FT_REQUIRES(ft_eng_lock);
/* a stays tracked (its uses, its place in the registry) but leaves protection, with
 * one warning saying why: memory gpuft cannot watch every writer of (why NULL: the
 * memory was said unprotected before, as another record: no warning, not counted). */
void ft_alloc_unprotect(ft_alloc_t *a, const char *why) FT_REQUIRES(ft_eng_lock);
/* A host function the program queues on stream s: its trampoline, numbered in the
 * epoch's log (ft_host_fn_discard if the driver refused it). Takes the engine lock. */
ft_hostfn_t *ft_host_fn_queue(CUstream s, CUhostFn fn, CUstreamCallback cb, void *user);
/* Executable graph g is about to be changed or destroyed: no log may launch it again
 * (the epoch's and the snapshot's logs stop being replayable where they do). */
void ft_graph_forget(CUgraphExec g) FT_REQUIRES(ft_eng_lock);
/* Register what lower floors tell upper ones (ft_obs): once, at load. */
void ft_engine_wire(void);

/* ---- Commit (commit.c) ---- */
/* Process every finished job: correct, restore, count, learn. Returns
 * CUDA_SUCCESS or CUDA_ERROR_ECC_UNCORRECTABLE (GPUFT_ON_FAIL=error, something
 * could not be recovered since the last commit). Takes the engine lock. */
CUresult ft_commit(void);
/* ft_commit, also telling whether allocation `watch` had anything repaired. */
CUresult ft_commit_ex(ft_alloc_t *watch, int *watch_repaired);
/* Make every job finished (synchronise the context) and commit. */
CUresult ft_commit_all(void);
/* The same with the context synchronised whether or not gpuft has work pending: the
 * program's work is seen done too, so everything not in use is at rest after it. */
CUresult ft_commit_settled(void);
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

/* ---- Writes gpuft cannot see into (unseen.c) ---- */
/* Unknown writers (graph launches, unreadable arguments): commit before; after,
 * every protected allocation of the context is re-encoded on stream s. Before:
 * the write is to be issued on s (known 0: on streams gpuft cannot order). */
CUresult ft_unknown_writer_before(CUstream s, int known);
/* The same for one allocation (the one holding `only`) that a write is about to
 * re-encode whole (2-D/3-D copies, 2-D memsets): what the write leaves is verified
 * and repaired first. A commit point: the epoch before it stays replayable. */
CUresult ft_rewrite_before(CUdeviceptr only, CUstream s, int known);
/* A verification of all of `a` on its context's stream when it is at rest under its
 * code: 1 if issued (its result is taken in by the next commit). */
int ft_verify_at_rest(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock);

/* ---- Memory mapped with the VMM API (vmm.c) ----
 * The program is about to change what is mapped or accessible in [lo, lo+n) (n 0:
 * anywhere): the runs there and next to it are brought to rest and verified, and no
 * other operation is issued until ft_vmm_change_end (the operation lock, held
 * exclusively). Returns what ft_vmm_change_end needs. */
int ft_vmm_change_begin(CUdeviceptr lo, size_t n);
/* After the driver's call (ok: it succeeded, and the hook updated mappings.c): the
 * runs over the range and next to it are tracked anew, each protected object one
 * run, what the old ones had under a code encoded again. */
void ft_vmm_change_end(int token, CUdeviceptr lo, size_t n, int ok);
void ft_unknown_writer_after(CUstream s);

#endif
