/* launch.h: what launch.c shares with graph.c: the uses of a launch (ref_t), the
 * uses of one kernel launch found from its arguments, and the protocol of a launch
 * whose uses are known. Internal to shim/hooks. */
#ifndef FT_LAUNCH_H
#define FT_LAUNCH_H

#include "engine.h"

#define MAX_REFS 64
typedef struct {
  ft_alloc_t *a;
  int acc;  /* FT_ACC_*: the most writing of its slots */
  int slot; /* a slot of that access, for learning */
  /* the bytes of a the launch may read and write, by the kernel's range facts
   * (DESIGN.md 5): [lo, hi) from a's base per direction, empty when lo == hi;
   * whole: unbounded, all of a */
  int64_t lo[2], hi[2];
  uint8_t whole[2];
} ref_t;

typedef CUresult (*launch_fn)(const void *call);

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

/* The uses of one launch of kernel f (its arguments as the launch gives them),
 * merged into refs[0, n) (an allocation used twice: the more writing access, the
 * union of the bytes). Returns the new count, or -1 when they cannot be known (the
 * arguments unreadable, more than cap allocations); *side says why the launch could
 * not be replayed, or stays; *facts is cleared when the kernel's uses do not come
 * from its PTX. Engine lock held. */
int ft_kernel_refs(ft_dev_t *d, CUfunction f, void **params, void **extra, const unsigned grid[3],
                   const unsigned block[3], ref_t *refs, int n, int cap, const char **side, int *facts)
    FT_REQUIRES(ft_eng_lock);
CUresult ft_protect_refs(ft_dev_t *d, ft_func_t *fn, ref_t *refs, int nref, CUstream s,
                         launch_fn real, const void *call, const char *side,
                         const ft_logged_t *lg) FT_REQUIRES(ft_eng_lock);

#endif
