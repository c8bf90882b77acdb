/* store.h: the engine's recovery stores (docs/design.md "Engine floors"): the
 * operation log and the epoch's restore points, uploads and checkpoints, snapshots.
 * Calls only the device mechanisms and below. Internal to shim/ (names ft_). */
#ifndef FT_STORE_H
#define FT_STORE_H

#include "mech.h"

/* ---- Epochs: log, restore points, replay (oplog.c, epoch.c) ---- */
/* Before the first write of `a` in this epoch on stream s: take its restore point
 * (checkpoint, or a shadow copy made by the fused verify+copy kernel, which also
 * verifies the content about to be overwritten). `whole`: the write overwrites all
 * of it (no restore point needed). Issues the "verify before write" job itself,
 * over groups [g0, g1): those the write may read or change (a shadow copy, the one
 * restore point that reads the data, covers all of it). */
void ft_restore_point(ft_dev_t *d, ft_alloc_t *a, CUstream s, int whole, struct ft_func_s *fn,
                      int slot, uint64_t g0, uint64_t g1) FT_REQUIRES(ft_eng_lock);
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
/* A launch of executable graph g on stream s, with the groups its nodes may write
 * (nwrites -1: more than fit, the epoch cannot be replayed); host_writes: nodes of it
 * copy to host memory (relaunched by a replay only while the program cannot have
 * looked at what they wrote, as read-backs are). */
void ft_log_graph(CUgraphExec g, const ft_span_t *writes, int nwrites, CUstream s, int host_writes);
/* The parameters of kernel node `node` of executable graph g (the node of the graph g
 * was instantiated from), logged: a replay sets them again there, so that each logged
 * launch of g runs with the parameters it had. first: they are those g's operations
 * logged in this epoch so far ran with (logged before the first of them). */
void ft_log_graph_set(CUgraphExec g, CUgraphNode node, CUfunction f, const unsigned grid[3],
                      const unsigned block[3], unsigned shmem, const uint8_t *params, size_t len,
                      struct ft_func_s *fn, int first);
/* g is about to change or go: an epoch whose log launches it cannot be replayed (1). */
int ft_oplog_forget_graph(CUgraphExec g);
/* The same for the snapshot log: a log that launches it breaks. */
void ft_snap_forget_graph(CUgraphExec g);
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
void ft_epoch_close(void) FT_REQUIRES(ft_eng_lock);
/* Restore what the epoch wrote and re-issue its operations on gpuft's stream;
 * returns 0 if it could (results then need verifying again), -1 otherwise. */
FT_MUST_CHECK int ft_epoch_replay(ft_dev_t *d) FT_REQUIRES(ft_eng_lock);
void ft_shadow_release(ft_alloc_t *a);
void ft_epoch_forget_alloc(const ft_alloc_t *a);
/* Whether the current epoch's log (a replayable one) has an operation that read or
 * wrote [lo, hi). */
int ft_epoch_needs(CUdeviceptr lo, CUdeviceptr hi);
/* Re-issue the current epoch's operations without restoring anything first (a
 * snapshot replay restored the state at its start); read-backs the program has
 * are compared (*differs). 0, or -1 if they cannot be re-issued. */
FT_MUST_CHECK int ft_epoch_replay_ops(ft_dev_t *d, int *differs) FT_REQUIRES(ft_eng_lock);
/* A synchronous read-back was copied again (its source was repaired): what the
 * program received is now the bytes at host. */
void ft_log_d2h_recopied(void *host, size_t n);
/* The closing epoch's operations, handed on (keep: settled for the snapshot log)
 * or freed; *why says why an unreplayable one could not be kept. Returns them (the
 * caller takes the structs: ft_oplog_reset after), or NULL. */
struct ft_op_s *ft_oplog_take(int keep, size_t *n, const char **why);
void ft_oplog_reset(void);
/* Replay steps (oplog.c) for the epoch's replay (epoch.c). */
const char *ft_epoch_why(void);
/* The context the epoch's operations were issued in (NULL: none logged). */
CUcontext ft_epoch_ctx(void);
void ft_oplog_settle_seen(void);
int ft_oplog_replay_all(ft_dev_t *d) FT_REQUIRES(ft_eng_lock);
int ft_oplog_seen_again(void);
/* A synchronous read-back into host of n bytes was copied again: 1 if it is in the
 * current epoch's log (then updated there). */
int ft_oplog_d2h_recopied(void *host, size_t n);

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
void ft_snap_epoch_closed(void) FT_REQUIRES(ft_eng_lock);
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
/* a is now a->size bytes long, from old_size (code old_code_bytes): a run of mapped
 * memory that grew or shrank at its end. Its snapshot copies follow (keep 0, or no
 * memory: they are dropped, -1); a log that used what was cut off cannot be replayed. */
int ft_snap_resized(ft_alloc_t *a, uint64_t old_size, uint64_t old_code_bytes, int keep) FT_REQUIRES(ft_eng_lock);
/* Its checkpoint follows: 0, or -1 (no memory: it has none now). */
int ft_ckpt_resized(ft_alloc_t *a, uint64_t old_size, uint64_t old_code_bytes) FT_REQUIRES(ft_eng_lock);
/* The log since the snapshot can no longer give back what the program has (why: a
 * record now holds content no snapshot knows it by): nothing is recovered from it,
 * and the next clean epoch close takes a new one. */
void ft_snap_lose(const char *why) FT_REQUIRES(ft_eng_lock);
/* Whether the log since the snapshot (a usable one) has an operation that read or
 * wrote [lo, hi): a replay from the snapshot would run it again. Lock held. */
int ft_snap_log_needs(CUdeviceptr lo, CUdeviceptr hi) FT_REQUIRES(ft_eng_lock);
/* How many times the log since the snapshot lost operations from its start (a
 * snapshot promoted, the log broken): what it needs changes only then. Lock held. */
uint64_t ft_snap_log_cuts(void) FT_REQUIRES(ft_eng_lock);
/* Whether damage in `a` that nothing else can undo may be recovered from the
 * snapshot and the log since. */
int ft_snap_can_recover(const ft_alloc_t *a);
/* Restore the snapshot and replay every logged epoch and the current one,
 * comparing read-backs. 0: the device holds again what the program believes
 * (results of the replay's own checks are in the ledger); -1: not recovered
 * (*why says why). Context synchronised, op lock exclusive, engine lock held. */
FT_MUST_CHECK int ft_snap_recover(ft_dev_t *d, const char **why) FT_REQUIRES(ft_eng_lock);
void ft_snap_d2h_recopied(void *host, size_t n);
/* A context's gpuft state is going (its snapshot stream). */
void ft_snap_dev_release(ft_dev_t *d) FT_REQUIRES(ft_eng_lock);

/* ---- Uploads (upload.c) ---- */
/* Host-to-device copy of n bytes at offset off of allocation *ap, from host src,
 * on stream s: copy+encode into the checkpoint or staging, DMA, codes. sync: the
 * caller waits for completion before the program sees the call return (src is read
 * now, never deferred to the stream). Returns the real driver's result. It lets go
 * of the engine lock while it waits (the stream before a pageable copy, a staging
 * slot) and finds the record again after: *ap is NULL when another thread freed the
 * allocation meanwhile (then CUDA_ERROR_INVALID_VALUE). */
FT_MUST_CHECK CUresult ft_upload_relocking(ft_dev_t *d, ft_alloc_t **ap, size_t off, const void *src,
                                           size_t n, CUstream s, int sync) FT_REQUIRES(ft_eng_lock);

/* Free the staging buffers of a context (its teardown). */
void ft_staging_release_all(ft_dev_t *d);

/* Re-issue an upload of [off, off+n) from the checkpoint (replay). */
FT_MUST_CHECK CUresult ft_upload_replay(ft_dev_t *d, ft_alloc_t *a, size_t off, size_t n,
                                        CUstream s) FT_REQUIRES(ft_eng_lock);

#endif
