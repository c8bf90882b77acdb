/* oplog.h: one logged operation of the program. epoch.c logs them for the
 * current epoch; snapshot.c keeps the closed epochs' ones since the last
 * snapshot (DESIGN.md 6.3, 6.8). Internal to shim/ (names ft_). */
#ifndef FT_OPLOG_H
#define FT_OPLOG_H

#include "store.h"

enum { FT_OP_LAUNCH, FT_OP_H2D, FT_OP_D2H, FT_OP_D2D, FT_OP_MEMSET, FT_OP_GRAPH, FT_OP_GRAPH_SET };

typedef struct ft_op_s {
  int kind;
  CUcontext ctx; /* the context it was issued in: a replay re-issues it there */
  /* launch */
  CUfunction f;
  struct ft_func_s *fn;
  int coop;
  unsigned grid[3], block[3], shmem;
  uint8_t *params;
  size_t plen;
  ft_span_t w[FT_OP_WRITES]; /* the groups it may write, per allocation (by base) */
  int nw;                    /* -1: not known (more than fit): all of what it writes */
  CUgraphExec graph;         /* a graph launch: the executable graph (its writes in w) */
  int host_writes;           /* it copies to host memory: replayed only while the program
                              * cannot have looked (not settled, as a read-back) */
  CUgraphNode node;          /* FT_OP_GRAPH_SET: the kernel node of `graph` given the launch above */
  /* copies and memsets */
  ft_alloc_t *a; /* H2D: destination (its checkpoint holds the bytes) */
  CUdeviceptr dst, src; /* (H2D: dst is the destination address) */
  void *host;
  size_t off, n;
  uint32_t pattern;
  int elem;
  /* D2H: recorded after the copy and its verification. Once the program may have
   * looked at the host buffer (a synchronisation covering it returned, or the
   * synchronous call returned) it is settled: never written again, and a replay
   * only checks that the source still gives the bytes the program saw (their
   * hash, `seen`). */
  CUevent done;
  int ord_s;      /* its stream index and tick (order.c): the host has seen it complete */
  uint64_t ord_t; /* once a synchronisation that covers them returned */
  int sync;
  uint64_t fn_seen; /* first host function queued after it (it may look at the buffer) */
  int settled;
  uint64_t seen;
  void *scratch; /* replay: where the source is read back for that check */
  /* H2D, once the epoch closed (snapshot log): the bytes uploaded (the checkpoint
   * holds only the last upload). NULL when not kept. */
  uint8_t *bytes;
} ft_op_t;

/* How an operation is replayed: FT_REPLAY_INTO_PROGRAM (the current epoch): a
 * read-back the program cannot have looked at yet goes into its buffer, one it
 * may have is read into scratch and checked against what it saw once the replay
 * finished. FT_REPLAY_LOGGED (an epoch of the snapshot log): every read-back is
 * compared with what the program received, now (*differs), and nothing the
 * operation only reads is verified: hundreds of epochs would fill the ledger, and
 * the comparisons check the replay. Uploads come from o->bytes when kept, else
 * from the checkpoint. */
enum { FT_REPLAY_INTO_PROGRAM, FT_REPLAY_LOGGED };

/* Replay o in the context it was issued in (d: where those of no known context go).
 * A sequence of replays starts with ft_op_replay_begin and ends with
 * ft_op_replay_end, which waits for the last context's stream (1: it finished). */
CUresult ft_op_replay(ft_dev_t *d, ft_op_t *o, int mode, int *differs) FT_REQUIRES(ft_eng_lock);
void ft_op_replay_begin(void);
int ft_op_replay_end(void);
/* A hash of bytes a program received: any difference in one 8-byte word changes it. */
uint64_t ft_bytes_hash(const void *p, size_t n);
/* Whether o reads or writes device memory in [lo, hi). */
int ft_op_touches(const ft_op_t *o, CUdeviceptr lo, CUdeviceptr hi);
/* Release what o owns. */
void ft_op_free(ft_op_t *o);

/* ---- the snapshot store and its log (snapshot.c) ---- */
/* The ops of a closing epoch (moved: the caller forgets them); `why` non-NULL
 * when that epoch could not be replayed. */
void ft_snap_log_epoch(ft_op_t *ops, size_t n, const char *why);

#endif
