/* vmm.c: memory mapped with the VMM API, protected by runs: virtual memory the
 * current device may write, mapped without a gap, is one protected object (a tensor
 * of a growing pool may span two mappings). When the runs change (a mapping made
 * accessible or unmapped) they are brought to rest and formed again: a run that grew
 * or shrank at its end keeps its record; others are tracked anew with the old codes
 * copied in. No pass over the data either way (docs/design.md, "Memory mapped with
 * the VMM API"). */
#include <stdlib.h>

#include "policy.h"

#define ALL_HI (~(CUdeviceptr)0)

static int overlaps(const ft_alloc_t *a, CUdeviceptr lo, CUdeviceptr hi) {
  return a->base < hi && a->base + a->size > lo;
}

/* Whether a record of a VMM run touches [lo, hi]. */
static int any_touching(CUdeviceptr lo, CUdeviceptr hi) FT_REQUIRES(ft_eng_lock) {
  for (size_t i = 0; i < ft_reg_count(); i++)
    if (ft_run_touches(ft_reg_at(i), lo, hi)) return 1;
  return 0;
}

/* The runs touching [lo, hi] at rest under their codes (a commit), and no copy of
 * gpuft's reading them still running. */
static void settle(CUdeviceptr lo, CUdeviceptr hi) {
  ft_commit_all();
  ft_release_drain(lo, hi, 1);
}

int ft_vmm_change_begin(CUdeviceptr lo, size_t n) {
  int ex = ft_op_exclusive_begin() == 0;
  CUdeviceptr hi = n ? lo + n : ALL_HI;
  ft_lock();
  int any = any_touching(lo, hi);
  ft_unlock();
  if (any) settle(lo, hi);
  return ex;
}

/* The span of the change: [lo, hi), the old runs touching it and the new runs over
 * them, until it no longer grows. */
static void span(CUdeviceptr *lo, CUdeviceptr *hi) FT_REQUIRES(ft_eng_lock) {
  for (int grew = 1; grew;) {
    grew = 0;
    for (size_t i = 0; i < ft_reg_count(); i++) {
      ft_alloc_t *a = ft_reg_at(i);
      if (!ft_run_touches(a, *lo, *hi)) continue;
      if (a->base < *lo) *lo = a->base, grew = 1;
      if (a->base + a->size > *hi) *hi = a->base + a->size, grew = 1;
    }
    CUdeviceptr p = *lo ? *lo - 1 : 0, r0, r1;
    int ok;
    while (ft_vmm_next_run(&p, *hi == ALL_HI ? *hi : *hi + 1, &r0, &r1, &ok)) {
      if (r0 < *lo) *lo = r0, grew = 1;
      if (r1 > *hi) *hi = r1, grew = 1;
    }
  }
}

/* The old record that run [r0, r1) can keep, grown or shrunk at its end: the only
 * one overlapping it, starting where it starts, overlapping no other run. */
static ft_alloc_t *kept(CUdeviceptr lo, CUdeviceptr hi, CUdeviceptr r0, CUdeviceptr r1) FT_REQUIRES(ft_eng_lock) {
  ft_alloc_t *o = NULL;
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (!a->vmm || !overlaps(a, r0, r1)) continue;
    if (o) return NULL;
    o = a;
  }
  if (!o || o->base != r0 || !ft_protected(o)) return NULL;
  CUdeviceptr p = lo, s0, s1;
  int ok;
  while (ft_vmm_next_run(&p, hi, &s0, &s1, &ok))
    if (s0 != r0 && overlaps(o, s0, s1)) return NULL;
  return o;
}

/* The codes of old record o, where they lie in new record a (both group-aligned:
 * mappings are made at the allocation granularity): 1 if a copy was issued, -1 if
 * what o had cannot be placed in a. */
static int adopt(ft_dev_t *d, ft_alloc_t *a, const ft_alloc_t *o) FT_REQUIRES(ft_eng_lock) {
  if (!ft_protected(o) || o->state == FT_ST_UNINIT || !overlaps(o, a->base, a->base + a->size)) return 0;
  if (o->state != FT_ST_CLEAN || (o->base - a->base) % FT_GROUP_BYTES || o->size % FT_GROUP_BYTES)
    return -1; /* (not at rest after the commit, or not aligned: never for the driver's mappings) */
  uint64_t lo = o->base > a->base ? o->base : a->base;
  uint64_t hi = o->base + o->size < a->base + a->size ? o->base + o->size : a->base + a->size;
  uint64_t og0 = ft_group_of(lo - o->base), og1 = ft_group_of(hi - o->base);
  int64_t shift = ((int64_t)o->base - (int64_t)a->base) / (int64_t)FT_GROUP_BYTES;
  if (a->state == FT_ST_UNINIT && !ft_coded_begin(a)) return -1;
  int issued = 0;
  for (uint64_t g0 = og0, g1; ft_coded_next(o, &g0, &g1, og1); g0 = g1) {
    if (ft_code_copy(d, o->code, o->size, g0, g1, a->code, a->size, (uint64_t)((int64_t)g0 + shift),
                     d->stream) != 0)
      return -1;
    ft_coded_mark(a, (uint64_t)((int64_t)g0 + shift), (uint64_t)((int64_t)g1 + shift));
    issued = 1;
  }
  return issued;
}

/* Run [r0, r1) as a new record, what the old records held placed in it. */
static void form(ft_dev_t *d, CUdeviceptr r0, CUdeviceptr r1, int ok, ft_alloc_t **old, char *given,
                 int nold, int *issued) FT_REQUIRES(ft_eng_lock) {
  ft_alloc_t *a = ft_alloc_track(d, r0, r1 - r0, 0);
  if (!a) return;
  a->vmm = 1;
  ft_st.vmm_runs++;
  /* a run formed again is no new allocation: it keeps the number of the first record
   * it takes content from (the report's); one unprotected before was said so */
  int again = 0, said = 0;
  for (int k = 0; k < nold; k++)
    if (overlaps(old[k], r0, r1)) {
      if (!again && !given[k]) a->id = old[k]->id, given[k] = 1;
      again = 1;
      said |= !ft_protected(old[k]);
    }
  if (again) ft_st.allocations--;
  const char *why = NULL;
  for (int k = 0; k < nold && ok && ft_protected(a) && !why; k++) {
    int r = adopt(d, a, old[k]);
    if (r < 0) why = "its codes could not follow a change of its mappings";
    *issued |= r > 0;
  }
  if (!ok)
    why = "memory mapped with the VMM API that another mapping or process can write (cuMemMap "
          "of one physical allocation twice, cuMemExportToShareableHandle, "
          "cuMemImportFromShareableHandle)";
  if (why) ft_alloc_unprotect(a, said ? NULL : why);
  /* a snapshot holds the old records' content, not this one's: recovery from it
   * would take this one as made since (the log writing all of it) */
  if (again) ft_snap_lose("a run of mapped memory was formed anew");
}

/* The runs over [lo, hi) and next to it tracked anew. */
static void reform(CUdeviceptr lo, CUdeviceptr hi) FT_REQUIRES(ft_eng_lock) {
  span(&lo, &hi);
  ft_dev_t *d = ft_dev_current();
  CUdeviceptr p = lo, r0, r1;
  int ok;
  /* runs that grew or shrank at their end keep their records */
  while (d && ft_vmm_next_run(&p, hi, &r0, &r1, &ok)) {
    ft_alloc_t *o = ok ? kept(lo, hi, r0, r1) : NULL;
    if (o && o->size != r1 - r0 && ft_alloc_resize(o, r1 - r0) == 0) o->freeing = 0;
  }
  /* the others: out of the registry, alive until their codes are copied */
  ft_alloc_t **old = NULL;
  int nold = 0, cap = 0;
  for (size_t i = 0; i < ft_reg_count();) {
    ft_alloc_t *a = ft_reg_at(i);
    p = a->base;
    int same = a->vmm && ft_vmm_next_run(&p, a->base + 1, &r0, &r1, &ok) && r0 == a->base &&
               r1 == a->base + a->size && ft_protected(a) == ok;
    if (!ft_run_touches(a, lo, hi) || same) {
      if (same) a->freeing = 0;
      i++;
      continue;
    }
    if (nold == cap) {
      ft_alloc_t **m = realloc(old, (size_t)(cap = cap ? cap * 2 : 8) * sizeof *old);
      if (!m) { /* (no memory: what it had is not placed in the new runs) */
        ft_alloc_untrack(a);
        cap = nold;
        continue;
      }
      old = m;
    }
    ft_reg_remove(a);
    old[nold++] = a;
  }
  /* (the memory they protect is counted once: by the new records from now on) */
  for (int k = 0; k < nold; k++)
    if (old[k]->code) ft_st.bytes_protected -= old[k]->size;
  int issued = 0;
  char *given = calloc((size_t)nold + 1, 1);
  p = lo;
  while (d && given && ft_vmm_next_run(&p, hi, &r0, &r1, &ok))
    if (!ft_reg_find(r0)) form(d, r0, r1, ok, old, given, nold, &issued);
  free(given);
  /* the copies land before the program's next work and before the old codes go */
  if (issued) ft_own_stream_sync(d->stream);
  for (int k = 0; k < nold; k++) {
    if (old[k]->code) ft_st.bytes_protected += old[k]->size; /* (taken off again by the drop) */
    ft_alloc_drop(old[k]);
  }
  free(old);
}

void ft_vmm_change_end(int ex, CUdeviceptr lo, size_t n, int ok) {
  CUdeviceptr hi = n ? lo + n : ALL_HI;
  ft_lock();
  if (ok) reform(lo, hi);
  else /* the driver refused: nothing changed */
    for (size_t i = 0; i < ft_reg_count(); i++) {
      ft_alloc_t *a = ft_reg_at(i);
      if (ft_run_touches(a, lo, hi)) a->freeing = 0;
    }
  ft_unlock();
  if (ex) ft_op_exclusive_end();
}
