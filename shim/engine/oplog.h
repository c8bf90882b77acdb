/* oplog.h: one logged operation of the program. epoch.c logs them for the
 * current epoch; snapshot.c keeps the closed epochs' ones since the last
 * snapshot (DESIGN.md 6.3, 6.8). Internal to shim/ (names ft_). */
#ifndef FT_OPLOG_H
#define FT_OPLOG_H

#include "engine.h"

enum { FT_OP_LAUNCH, FT_OP_H2D, FT_OP_D2H, FT_OP_D2D, FT_OP_MEMSET };

typedef struct {
  int kind;
  /* launch */
  CUfunction f;
  struct ft_func_s *fn;
  int coop;
  unsigned grid[3], block[3], shmem;
  uint8_t *params;
  size_t plen;
  /* copies and memsets */
  ft_alloc_t *a; /* H2D: destination (its checkpoint holds the bytes) */
  CUdeviceptr dst, src;
  void *host;
  size_t off, n;
  uint32_t pattern;
  int elem;
  /* D2H: recorded after the copy and its verification; once it has completed at a
   * clean commit the program may use (or free) the host buffer, so the copy is
   * final and never written again */
  CUevent done;
  int settled;
  /* Kept once the epoch closes (snapshot log): H2D, the bytes uploaded (the
   * checkpoint holds only the last upload); D2H, the bytes the program received,
   * which a replay must reproduce bit for bit. NULL when not kept. */
  uint8_t *bytes;
} ft_op_t;

/* How a read-back is replayed: into the program's buffer when it cannot have
 * looked yet (the current epoch), or compared with what it received. */
enum { FT_REPLAY_INTO_PROGRAM, FT_REPLAY_COMPARE, FT_REPLAY_LOGGED };

/* Re-issue o on gpuft's stream of d. A settled read-back is skipped in
 * FT_REPLAY_INTO_PROGRAM mode and compared in FT_REPLAY_COMPARE mode (*differs
 * set when the bytes differ or were not kept). FT_REPLAY_LOGGED (an epoch of the
 * snapshot log) compares too, and issues no verification of what the operation
 * reads: hundreds of epochs would fill the ledger, and the comparisons of the
 * read-backs check the replay. Uploads come from o->bytes when kept, else from
 * the checkpoint. */
CUresult ft_op_replay(ft_dev_t *d, ft_op_t *o, int mode, int *differs);
/* Whether o reads or writes device memory in [lo, hi). */
int ft_op_touches(const ft_op_t *o, CUdeviceptr lo, CUdeviceptr hi);
/* Release what o owns. */
void ft_op_free(ft_op_t *o);
/* Keep the bytes a settled read-back delivered (0, or -1 out of memory). */
int ft_op_keep_received(ft_op_t *o);

/* ---- the snapshot store and its log (snapshot.c) ---- */
/* The ops of a closing epoch (moved: the caller forgets them); `why` non-NULL
 * when that epoch could not be replayed. */
void ft_snap_log_epoch(ft_op_t *ops, size_t n, const char *why);

#endif
