/* launches.c: the protocol of a launch (DESIGN.md 6.2), a kernel's or a graph's:
 * the allocations its arguments (and what they reach) give it and the bytes of each
 * by the kernel's range facts; restore points and checks before what it may write,
 * checks before or after what it only reads, its output re-encoded behind it or left
 * in flight, and its log entry. The hooks (launch.c, graph.c) make the call. */
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "access.h"
#include "reach.h"
#include "../ptx/access.h" /* FT_PTX_K_*: what a kernel reaches besides its arguments */

/* Widens direction dir of r by what the place at parameter offset off (pointer
 * value v into r->a) may access at this launch. */
static void widen(ft_ref_t *r, int dir, const ft_func_t *fn, uint32_t off, uint64_t v, const uint8_t *buf,
                  size_t len, const unsigned grid[3], const unsigned block[3]) {
  if (r->whole[dir]) return;
  int64_t lo, hi;
  if (!fn->ranges || ft_facts_range(fn->ranges, off, (unsigned)dir, buf, len, grid, block, &lo, &hi) != 0) {
    r->whole[dir] = 1;
    return;
  }
  if (lo >= hi) return; /* nothing in that direction */
  int64_t at = (int64_t)(v - r->a->base), size = (int64_t)r->a->size;
  if (__builtin_add_overflow(at, lo, &lo) || __builtin_add_overflow(at, hi, &hi) || lo < 0 || hi > size) {
    r->whole[dir] = 1; /* beyond the allocation: not a range of it */
    return;
  }
  if (r->lo[dir] == r->hi[dir]) {
    r->lo[dir] = lo;
    r->hi[dir] = hi;
    return;
  }
  if (lo < r->lo[dir]) r->lo[dir] = lo;
  if (hi > r->hi[dir]) r->hi[dir] = hi;
}

/* The groups [*g0, *g1) holding what r may access in direction dir (both: 2); 0
 * when that is nothing. */
static int groups(const ft_ref_t *r, int dir, uint64_t *g0, uint64_t *g1) {
  int d0 = dir == 2 ? 0 : dir, d1 = dir == 2 ? 1 : dir;
  if (r->whole[d0] || r->whole[d1]) {
    *g0 = 0;
    *g1 = ft_groups_of(r->a->size);
    return 1;
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int d = d0; d <= d1; d++)
    if (r->lo[d] < r->hi[d]) {
      if (r->lo[d] < lo) lo = r->lo[d];
      if (r->hi[d] > hi) hi = r->hi[d];
    }
  if (lo >= hi) return 0;
  *g0 = ft_group_of((uint64_t)lo);
  *g1 = ft_groups_of((uint64_t)hi);
  return 1;
}

/* The parameter buffer as the kernel will see it. */
int ft_param_bytes(const ft_func_t *fn, void **params, void **extra, uint8_t *buf,
                       size_t *len) {
  if (params) {
    memset(buf, 0, fn->param_bytes);
    for (int i = 0; i < fn->nparams; i++)
      if (params[i]) memcpy(buf + fn->param_off[i], params[i], fn->param_size[i]);
    *len = fn->param_bytes;
    return 0;
  }
  if (extra) {
    void *ptr = NULL;
    size_t size = 0;
    for (int i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) ptr = extra[i + 1];
      else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) size = *(size_t *)extra[i + 1];
      else return -1;
    }
    if (!ptr || size > FT_MAX_PARAM_BYTES) return -1;
    memcpy(buf, ptr, size);
    *len = size;
    return 0;
  }
  *len = 0;
  return fn->nparams == 0 ? 0 : -1;
}

/* Protected allocations referenced by the arguments (deduplicated), with the
 * bytes of each the launch may access. */
static int scan(ft_func_t *fn, const uint8_t *buf, size_t len, const unsigned grid[3],
                const unsigned block[3], ft_ref_t *refs, int cap) FT_REQUIRES(ft_eng_lock) {
  int n = 0;
  for (size_t off = 0; off + 8 <= len; off += 8) {
    uint64_t v;
    memcpy(&v, buf + off, 8);
    if (v < 4096) continue;
    ft_alloc_t *a = ft_reg_find((CUdeviceptr)v);
    if (!ft_protected(a)) continue;
    int slot = (int)(off / 8), acc = fn->slot_acc[slot];
    if (acc == FT_ACC_NONE) continue; /* not a pointer the kernel uses */
    int i;
    for (i = 0; i < n; i++)
      if (refs[i].a == a) break;
    a->read_since_upload = 1; /* any argument may be read */
    if (i == n) {
      if (n == cap) return -1;
      memset(&refs[n], 0, sizeof refs[n]);
      refs[n].a = a;
      refs[n].acc = acc;
      refs[n].slot = slot;
      n++;
    } else if (refs[i].acc == FT_ACC_READ && acc != FT_ACC_READ) {
      refs[i].acc = acc;
      refs[i].slot = slot;
    }
    /* without facts (or with a place not bounded) a slot may reach all of it */
    if (!fn->facts) refs[i].whole[0] = refs[i].whole[1] = 1;
    widen(&refs[i], 0, fn, (uint32_t)off, v, buf, len, grid, block);
    if (acc != FT_ACC_READ) widen(&refs[i], 1, fn, (uint32_t)off, v, buf, len, grid, block);
  }
  return n;
}


/* Adds to refs what the kernel may write besides its argument places (reach.c):
 * pointers just outside an allocation, pointers in parameter bytes that are no
 * place, what pointers loaded from its buffers reach, or everything. Returns the
 * new count, or -1 when more than FT_MAX_REFS would be needed. Lock held. */
static int reach(const ft_func_t *fn, const ft_dev_t *d, const uint8_t *buf, size_t len,
                 ft_ref_t *refs, int n) FT_REQUIRES(ft_eng_lock) {
  ft_alloc_t *set[FT_MAX_REFS];
  uint8_t written[FT_MAX_REFS];
  for (int i = 0; i < n; i++) set[i] = refs[i].a;
  int m = ft_reach(fn, d, buf, len, set, written, n, FT_MAX_REFS);
  if (m < 0) return -1;
  int k = n;
  /* reaching beyond its argument places (through loaded pointers, parameter bytes
   * that are no place), it may use any byte of what it reaches; ft_reach marks an
   * argument's allocation written when anything else reaches it */
  int beyond = fn->reach != FT_REACH_ARGS || fn->scan_unplaced;
  for (int i = 0; i < m; i++) {
    ft_alloc_t *a = set[i];
    if (i < n) {
      if (written[i] && refs[i].acc == FT_ACC_READ) refs[i].acc = FT_ACC_WRITE;
      if (written[i] || beyond) refs[i].whole[0] = refs[i].whole[1] = 1;
      continue;
    }
    if (!ft_protected(a)) continue;
    a->read_since_upload = 1;
    memset(&refs[k], 0, sizeof refs[k]);
    refs[k].whole[0] = refs[k].whole[1] = 1;
    refs[k].a = a;
    refs[k].acc = written[i] ? FT_ACC_WRITE : FT_ACC_READ;
    refs[k].slot = -1;
    k++;
  }
  return k;
}

/* Why a launch has effects a replay cannot undo, or NULL: an argument it may write
 * points into managed or mapped host memory (the host may change it meanwhile, a
 * second run would accumulate twice), or its PTX shows it writing memory reached
 * other than through its arguments. Lock held. */
static const char *impure(const ft_func_t *fn, const uint8_t *buf, size_t len) FT_REQUIRES(ft_eng_lock) {
  if (fn->facts && (fn->kflags & (FT_PTX_K_REACHES_BEYOND | FT_PTX_K_GLOBAL_WRITE)))
    return "a kernel reaching memory other than through its arguments";
  for (size_t off = 0; off + 8 <= len; off += 8) {
    int acc = fn->slot_acc[off / 8];
    uint64_t v;
    memcpy(&v, buf + off, 8);
    if (acc == FT_ACC_READ || acc == FT_ACC_NONE || v < 4096) continue;
    ft_alloc_t *a = ft_reg_find((CUdeviceptr)v);
    if (a && a->managed) return "a kernel writing managed memory";
    if (a) continue; /* device memory gpuft tracks: restore points cover it */
    unsigned type = 0;
    if (ft_drv.cuPointerGetAttribute &&
        ft_drv.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)v) ==
            CUDA_SUCCESS &&
        type == CU_MEMORYTYPE_HOST)
      return "a kernel writing mapped host memory";
  }
  return NULL;
}

/* On the simulator with its access check on: tell it which protected allocations
 * this launch is treated as not writing (all but refs[i] with a writing class),
 * so that a store into one is caught whatever gpuft's reason. Lock held. */
static void declare_unwritten(const ft_dev_t *d, const ft_ref_t *refs, int nref) FT_REQUIRES(ft_eng_lock) {
  ft_sim_declare_fn declare = __atomic_load_n(&ft_sim_declare_unwritten, __ATOMIC_RELAXED);
  if (!declare) return;
  size_t n = 0, cap = ft_reg_count();
  uint64_t *bases = malloc((cap ? cap : 1) * sizeof *bases);
  if (!bases) return;
  for (size_t i = 0; i < cap; i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (a->dev != d || !ft_protected(a)) continue;
    int written = 0;
    for (int k = 0; k < nref && !written; k++) written = refs[k].a == a && refs[k].acc != FT_ACC_READ;
    if (!written) bases[n++] = a->base;
  }
  if (declare(bases, n) != 0) __atomic_store_n(&ft_sim_declare_unwritten, NULL, __ATOMIC_RELAXED);
  free(bases);
}

/* The groups of r->a a launch reads and does not write (up to two runs): how many. */
static int read_only_parts(const ft_ref_t *r, uint64_t part[2][2]) {
  uint64_t r0, r1, w0 = 0, w1 = 0;
  if (!groups(r, 0, &r0, &r1) || r->whole[1]) return 0;
  if (!groups(r, 1, &w0, &w1)) w0 = w1 = r1;
  uint64_t p[2][2] = {{r0, w0 < r1 ? w0 : r1}, {w1 > r0 ? w1 : r0, r1}};
  int n = 0;
  for (int k = 0; k < 2; k++)
    if (p[k][0] < p[k][1]) {
      part[n][0] = p[k][0];
      part[n++][1] = p[k][1];
    }
  return n;
}

/* Those groups verified after the launch, as a read-only argument is (what it was
 * given may have been damaged after the check before it). (Not for learning: no
 * function named.) */
static void verify_read_only(ft_dev_t *d, const ft_ref_t *r, CUstream s) FT_REQUIRES(ft_eng_lock) {
  uint64_t part[2][2];
  int n = read_only_parts(r, part);
  for (int k = 0; k < n; k++)
    if (ft_job_issue(d, FT_WHY_READ_AFTER, r->a, part[k][0], part[k][1], s, NULL, -1))
      ft_rest_verify_owed(r->a);
}

/* The same left owed to the commit (an output in flight). */
static void owe_read_only(const ft_ref_t *r) {
  uint64_t part[2][2];
  int n = read_only_parts(r, part);
  for (int k = 0; k < n; k++) ft_rest_read_owed(r->a, part[k][0], part[k][1]);
}

/* Verify before use (docs/design.md): what a launch only reads, at rest and under a
 * valid code, is checked on its stream right before it and repaired there on the
 * device (from the checkpoint when it is valid, else where the code proves the
 * flip), so that a flip at rest is undone before the kernel follows a corrupted
 * index. The check after each launch becomes one after the last reader of the
 * epoch, owed to its commit (GPUFT_CHECK=epoch: one before the first reader of the
 * epoch, and the one after its last reader as before). Only where the launch's (a graph's: all its kernel nodes')
 * accesses come from its PTX: a const argument a kernel without facts writes would
 * be "repaired" back (those are checked after, where a replay learns the write).
 * verify_after[i] is cleared for a read-only argument so checked, ro_before[i] set
 * for a written one whose read-only part was. Lock held. */
static void check_before_use(ft_dev_t *d, ft_func_t *fn, int facts, ft_ref_t *refs, int nref, CUstream s,
                             int skip, int epoch_mode, const int *alone, int *verify_after,
                             int *ro_before) FT_REQUIRES(ft_eng_lock) {
  int on = ft_repairs_before_use() && !skip && facts;
  for (int i = 0; i < nref; i++) {
    ro_before[i] = 0;
    ft_alloc_t *a = refs[i].a;
    int write = refs[i].acc != FT_ACC_READ;
    uint64_t part[2][2] = {{0, 0}, {0, 0}};
    if (!on || (write ? !(alone[i] && a->state == FT_ST_CLEAN) : !verify_after[i])) continue;
    /* its code was written whole right before (an upload, the encode behind the
     * kernel before): it has not rested longer than a check before would leave it
     * (the check after, at the commit, still covers this read; a written argument
     * keeps its check after the launch) */
    int fresh = a->fresh_epoch == ft_epoch && a->fresh_launch + 1 >= ft_st.launches;
    if (fresh && write) continue;
    int n = write ? read_only_parts(&refs[i], part) : groups(&refs[i], 0, &part[0][0], &part[0][1]);
    int ok = 1;
    if (fresh || (epoch_mode && a->checked_before_epoch == ft_epoch))
      ft_checked_read(a, s); /* (epoch: one check per epoch, before its first reader) */
    else
      for (int k = 0; k < n; k++)
        if (ft_job_issue_fix(d, FT_WHY_BEFORE_READ, a, part[k][0], part[k][1], s,
                             refs[i].slot >= 0 ? fn : NULL, refs[i].slot))
          ok = 0; /* a full ledger: checked after, as without */
    if (!ok) continue;
    /* and once after the last reader, at the commit: what strikes while a reader runs
     * is found before its epoch settles (the next reader's check covers the one
     * before it) */
    for (int k = 0; k < n; k++) ft_rest_read_owed(a, part[k][0], part[k][1]);
    if (!fresh) a->checked_before_epoch = ft_epoch;
    if (write) ro_before[i] = 1;
    else verify_after[i] = 0;
  }
}

int ft_launch_uses(ft_dev_t *d, ft_func_t *fn, const uint8_t *buf, size_t len, const unsigned grid[3],
                   const unsigned block[3], ft_ref_t *refs, const char **side) {
  int n = scan(fn, buf, len, grid, block, refs, FT_MAX_REFS);
  if (n >= 0) n = reach(fn, d, buf, len, refs, n);
  if (n >= 0) *side = impure(fn, buf, len);
  return n;
}

int ft_kernel_refs(ft_dev_t *d, CUfunction f, void **params, void **extra, const unsigned grid[3],
                   const unsigned block[3], ft_ref_t *refs, int n, int cap, const char **side, int *facts) {
  ft_func_t *fn = ft_func_get(f);
  if (fn && !fn->facts) *facts = 0;
  uint8_t buf[FT_MAX_PARAM_BYTES];
  size_t len = 0;
  ft_ref_t mine[FT_MAX_REFS];
  if (!fn || !fn->layout_ok || ft_param_bytes(fn, params, extra, buf, &len) != 0) return -1;
  int m = scan(fn, buf, len, grid, block, mine, FT_MAX_REFS);
  if (m >= 0) m = reach(fn, d, buf, len, mine, m);
  if (m < 0) return -1;
  const char *why = impure(fn, buf, len);
  if (why && !*side) *side = why;
  for (int i = 0; i < m; i++) {
    int k = 0;
    while (k < n && refs[k].a != mine[i].a) k++;
    if (k == n) {
      if (n == cap) return -1;
      refs[n++] = mine[i];
    } else {
      ft_ref_t *r = &refs[k];
      if (mine[i].acc != FT_ACC_READ) r->acc = mine[i].acc;
      for (int dir = 0; dir < 2; dir++) {
        r->whole[dir] |= mine[i].whole[dir];
        if (mine[i].lo[dir] >= mine[i].hi[dir]) continue;
        if (r->lo[dir] >= r->hi[dir]) r->lo[dir] = mine[i].lo[dir], r->hi[dir] = mine[i].hi[dir];
        if (mine[i].lo[dir] < r->lo[dir]) r->lo[dir] = mine[i].lo[dir];
        if (mine[i].hi[dir] > r->hi[dir]) r->hi[dir] = mine[i].hi[dir];
      }
    }
    refs[k].slot = -1; /* (a graph's: no one argument slot to learn about) */
  }
  return n;
}

/* The protocol of a launch whose uses are known (refs: a kernel's, or the merged
 * uses of a graph's nodes; fn NULL for a graph): restore points and checks before
 * what it may write, the program's call made without the engine lock, then what it
 * only read verified after it (or owed), what it wrote re-encoded behind it or left
 * in flight, and the launch logged for replay (side: why it cannot be replayed, or
 * NULL). Engine lock held, operation lock shared; both as they were on return. */
CUresult ft_protect_refs(ft_dev_t *d, ft_func_t *fn, ft_ref_t *refs, int nref, CUstream s,
                         ft_launch_fn real, const void *call, const char *side,
                         const ft_logged_t *lg) {
  int skip = fn && ft_func_skipped(fn);
  if (!skip) ft_st.launches_protected++;
  int epoch_mode = FT_OPT(CHECK) == FT_CHECK_EPOCH;
  int j = ft_ord_op(s);
  int verify_after[FT_MAX_REFS], alone[FT_MAX_REFS], coded[FT_MAX_REFS], part[FT_MAX_REFS];
  for (int i = 0; i < nref; i++) {
    ft_alloc_t *a = refs[i].a;
    int write = refs[i].acc != FT_ACC_READ;
    if (refs[i].whole[0] || refs[i].whole[1]) ft_st.launch_refs_whole++;
    else ft_st.launch_refs_bounded++;
    /* at rest for this launch: every earlier write of it is ordered before */
    int rest = ft_rest_ordered(a, j, 1);
    alone[i] = rest;
    verify_after[i] = 0;
    if (a->state == FT_ST_INFLIGHT && rest &&
        (!epoch_mode || a->written_epoch != ft_epoch || a->rp_epoch != ft_epoch))
      ft_rest_encode(a, s); /* it came to rest: back under a code before it is used */
    if (!write) {
      verify_after[i] = a->state == FT_ST_CLEAN && rest && !skip;
      continue;
    }
    if (!ft_rest_ordered(a, j, 0)) {
      /* what it may write; all of a unless it is clean (what is in flight is
       * encoded whole when it comes to rest) */
      uint64_t w0 = 0, w1 = ft_groups_of(a->size);
      if (a->state == FT_ST_CLEAN && !groups(&refs[i], 1, &w0, &w1)) w1 = 0;
      ft_jobs_void_unordered(a, j, s, w0, w1);
    }
    {
      uint64_t w0 = 0, w1 = ft_groups_of(a->size); /* what the next snapshot copies */
      if (!groups(&refs[i], 1, &w0, &w1)) w1 = 0;
      ft_snap_before_write(a, s, w0, w1);
    }
    if (a->state == FT_ST_CLEAN && !rest) {
      /* another stream's work on it may still be running: it is not at rest, so
       * it is neither verified nor copied now */
      ft_restore_point_unread(a);
      ft_set_state(a, FT_ST_INFLIGHT);
    } else {
      /* the restore point and the check before: what it may write; what it only
       * reads is checked after it (verify_read_only, owe_read_only) */
      uint64_t g0 = 0, g1 = 0;
      groups(&refs[i], 1, &g0, &g1);
      ft_restore_point(d, a, s, 0, skip ? NULL : fn, refs[i].slot, g0, g1);
      /* never written, and the launch writes a bounded part: only that is encoded */
      if (rest && !refs[i].whole[1]) ft_coded_begin(a);
    }
    /* its code holds for every group the launch does not write (in flight: but
     * for what earlier launches wrote, by their ranges) */
    coded[i] = a->state == FT_ST_CLEAN;
    part[i] = rest && (coded[i] || (a->state == FT_ST_INFLIGHT && a->dirty_part));
  }
  int ro_before[FT_MAX_REFS];
  /* (a graph: every kernel node's facts from its PTX) */
  check_before_use(d, fn, fn ? fn->facts : lg->graph && lg->facts, refs, nref, s, skip, epoch_mode, alone,
                   verify_after, ro_before);
  declare_unwritten(d, refs, nref);
  uint64_t given = 0; /* bytes the launch may read or write, for the exposure model
                         (used where an output is counted under a code at once) */
  for (int i = 0; i < nref && !epoch_mode; i++) {
    uint64_t g0, g1;
    if (groups(&refs[i], 2, &g0, &g1)) given += ft_groups_len(refs[i].a->size, g0, g1);
  }
  /* The program's own launch runs without the engine lock (issue 23): other threads'
   * hooked calls do not queue behind it. Its uses are recorded first (a writer keeps
   * its allocations from rest until the operation ends: ft_rest_issuing), and every
   * record is found again after it by address and id; what another thread changed
   * meanwhile is taken the cautious way (no check after on a changed input, no code
   * trusted outside what the launch wrote). */
  uint64_t id[FT_MAX_REFS], gen[FT_MAX_REFS];
  CUdeviceptr base[FT_MAX_REFS];
  int state[FT_MAX_REFS];
  for (int i = 0; i < nref; i++) {
    ft_alloc_t *a = refs[i].a;
    int write = refs[i].acc != FT_ACC_READ;
    base[i] = a->base, id[i] = a->id, gen[i] = a->content_gen, state[i] = a->state;
    ft_rest_use(a, j, write);
    if (write) ft_rest_issuing(a, s);
  }
  ft_unlock();
  CUresult r = real(call);
  ft_lock();
  if (r != CUDA_SUCCESS) { /* refused (a cooperative grid too large...): it neither ran nor was checked */
    ft_st.launches--;
    if (!skip) ft_st.launches_protected--;
    if (!fn) ft_st.graph_launches_protected--;
  }
  int kept = 0;
  for (int i = 0; i < nref; i++) {
    ft_alloc_t *a = ft_reg_find_base(base[i]);
    if (!a || a->id != id[i]) continue; /* freed meanwhile (the program's own race) */
    int changed = a->content_gen != gen[i] || a->state != state[i];
    if (changed && refs[i].acc == FT_ACC_READ && verify_after[i]) {
      verify_after[i] = 0;
      ft_rest_verify_owed(a); /* verified once it is at rest again */
    } else if (changed || !ft_rest_ordered(a, j, 1)) {
      alone[i] = 0, coded[i] = 0, part[i] = 0;
    }
    refs[kept] = refs[i], refs[kept].a = a;
    verify_after[kept] = verify_after[i], alone[kept] = alone[i], coded[kept] = coded[i];
    part[kept++] = part[i];
  }
  nref = kept;
  if (r == CUDA_SUCCESS) {
    if (side) ft_epoch_unreplayable(side);
    else {
      ft_span_t w[FT_OP_WRITES];
      int nw = 0;
      for (int i = 0; i < nref && nw >= 0; i++) {
        uint64_t g0 = 0, g1 = 0;
        if (refs[i].acc == FT_ACC_READ) continue;
        groups(&refs[i], 1, &g0, &g1); /* (none: nothing to encode) */
        if (nw == FT_OP_WRITES) nw = -1;
        else w[nw++] = (ft_span_t){refs[i].a->base, g0, g1};
      }
      if (lg->graph) ft_log_graph(lg->graph, w, nw, s, lg->host_writes);
      else ft_log_launch(lg->f, lg->coop, lg->grid, lg->block, lg->shmem, lg->buf, lg->len, fn, w, nw);
    }
    for (int i = 0; i < nref; i++) {
      ft_alloc_t *a = refs[i].a;
      uint64_t ng = ft_groups_of(a->size);
      uint64_t g0 = 0, g1 = 0;
      if (refs[i].acc == FT_ACC_READ) {
        if (verify_after[i] && epoch_mode) {
          /* verified once, after its last reader: at commit */
          if (groups(&refs[i], 0, &g0, &g1)) ft_rest_read_owed(a, g0, g1);
        } else if (verify_after[i] && groups(&refs[i], 0, &g0, &g1) &&
                   ft_job_issue(d, FT_WHY_READ_AFTER, a, g0, g1, s, refs[i].slot >= 0 ? fn : NULL,
                                refs[i].slot)) {
          ft_rest_verify_owed(a); /* not issued: verified when it comes to rest */
        }
        ft_rest_use(a, j, 0);
        continue;
      }
      ft_content_changed(a);
      a->written_epoch = ft_epoch;
      if (alone[i] && !epoch_mode) {
        /* the only writer: its output comes back under a code behind it (only
         * the groups it may have written, when the rest of the code holds) */
        ft_set_state(a, FT_ST_CLEAN);
        if (!coded[i]) ft_reencode(d, a, 0, ng, s);
        else if (groups(&refs[i], 1, &g0, &g1)) ft_reencode(d, a, g0, g1, s);
        if (!coded[i]) g0 = 0, g1 = ng;
        /* counted under a code from now on: what it writes, while the kernel and
         * the encode run (by the model) is in flight */
        uint64_t wb = ft_groups_len(a->size, g0, g1);
        ft_exposure_kernel(d, wb, given + wb);
        if (coded[i] && !skip && !ro_before[i]) verify_read_only(d, &refs[i], s);
      } else {
        /* in flight until every writer is done: a commit encodes it (only what
         * launches wrote, when their ranges are known) */
        int had = a->state == FT_ST_INFLIGHT && a->dirty_part;
        ft_set_state(a, FT_ST_INFLIGHT);
        if (!part[i] || refs[i].whole[1]) {
          a->dirty_part = 0;
        } else {
          if (!had) a->dirty.n = 0; /* (two runs merged: the groups between are encoded too) */
          if (groups(&refs[i], 1, &g0, &g1)) ft_runs_add(&a->dirty, g0, g1, NULL, NULL);
          a->dirty_part = 1;
          /* what it only read keeps its code: verified after its last reader */
          if (!skip && !ro_before[i]) owe_read_only(&refs[i]);
        }
        ft_rest_mark_owed();
      }
      ft_rest_use(a, j, 1);
    }
  }
  return r;
}
