/* registry.c: the interval map of device allocations: a sorted array of
 * non-overlapping [base, base+size) ranges; lookup of any interior pointer by
 * binary search, O(log n); and the end of tracking one. Callers hold the engine
 * lock. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static ft_alloc_t **g_v;
static size_t g_n, g_cap;

/* Index of the first allocation with base > p. */
static size_t upper(CUdeviceptr p) {
  size_t lo = 0, hi = g_n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g_v[mid]->base <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

ft_alloc_t *ft_reg_find(CUdeviceptr p) {
  size_t i = upper(p);
  if (i == 0) return NULL;
  ft_alloc_t *a = g_v[i - 1];
  return p - a->base < a->size ? a : NULL;
}

ft_alloc_t *ft_reg_below(CUdeviceptr p) {
  size_t i = upper(p);
  return i ? g_v[i - 1] : NULL;
}

ft_alloc_t *ft_reg_above(CUdeviceptr p) {
  size_t i = upper(p);
  return i < g_n ? g_v[i] : NULL;
}

static uint64_t g_gen = 1;
uint64_t ft_reg_generation(void) { return g_gen; }

ft_alloc_t *ft_reg_find_base(CUdeviceptr base) {
  ft_alloc_t *a = ft_reg_find(base);
  return a && a->base == base ? a : NULL;
}

int ft_reg_insert(ft_alloc_t *a) {
  FT_ASSERT(a->size > 0);
  g_gen++;
  size_t i = upper(a->base);
  /* The driver never hands out overlapping live ranges; a stale entry would mean
   * a free gpuft missed. Replace it rather than corrupt the map. */
  if (i > 0 && g_v[i - 1]->base + g_v[i - 1]->size > a->base) return -1;
  if (i < g_n && a->base + a->size > g_v[i]->base) return -1;
  if (g_n == g_cap) {
    size_t nc = g_cap ? g_cap * 2 : 64;
    ft_alloc_t **nv = realloc(g_v, nc * sizeof *nv);
    if (!nv) return -1;
    g_v = nv;
    g_cap = nc;
  }
  memmove(g_v + i + 1, g_v + i, (g_n - i) * sizeof *g_v);
  g_v[i] = a;
  g_n++;
  return 0;
}

void ft_reg_remove(ft_alloc_t *a) {
  size_t i = upper(a->base);
  FT_ASSERT(i > 0 && g_v[i - 1] == a);
  memmove(g_v + i - 1, g_v + i, (g_n - i) * sizeof *g_v);
  g_n--;
}

size_t ft_reg_count(void) { return g_n; }
ft_alloc_t *ft_reg_at(size_t i) { return i < g_n ? g_v[i] : NULL; }

/* Exposure: byte-seconds spent under a valid code, in flight (written, code
 * stale), and unprotected; memory not yet written holds nothing to protect. */
void ft_exposure_add(int state, double bs) {
  if (state == FT_ST_UNINIT) return;
  ft_st.total_byte_s += bs;
  if (state == FT_ST_CLEAN) ft_st.covered_byte_s += bs;
  else if (state == FT_ST_UNPROT) ft_st.unprotected_byte_s += bs;
  else ft_st.inflight_byte_s += bs;
}

void ft_written_add(const ft_alloc_t *a) {
  ft_st.bytes_written += ft_coded_counted(a);
  if (ft_st.bytes_written > ft_st.bytes_written_peak) ft_st.bytes_written_peak = ft_st.bytes_written;
}

void ft_exposure_kernel(const ft_dev_t *d, uint64_t written, uint64_t moved) {
  if (!d || d->mem_bps <= 0) return;
  ft_st.kernel_model_bps = d->mem_bps;
  ft_st.kernel_byte_s += (double)written * ((double)moved / d->mem_bps);
}

void ft_set_state(ft_alloc_t *a, int state) {
  double t = ft_now();
  ft_exposure_add(a->state, (double)ft_coded_bytes(a) * (t - a->t_state));
  a->t_state = t;
  if (state != FT_ST_INFLIGHT || a->state != FT_ST_INFLIGHT) a->dirty_part = 0;
  ft_st.bytes_written -= ft_coded_counted(a);
  a->state = state;
  if (state == FT_ST_UNINIT || state == FT_ST_UNPROT) ft_coded_drop(a); /* nothing coded */
  ft_written_add(a);
}

/* What protecting a holds: its jobs, log entries, snapshot, shadow, code and
 * checkpoint. */
static void release_protection(ft_alloc_t *a) {
  ft_jobs_forget(NULL, a); /* a job that never completed must not outlive its record */
  ft_epoch_forget_alloc(a);
  ft_snap_forget_alloc(a);
  ft_shadow_release(a);
  ft_set_state(a, FT_ST_UNPROT);
  if (a->code) {
    ft_real.cuMemFree_v2(a->code);
    ft_st.bytes_protected -= a->size;
    a->code = 0;
    a->code_bytes = 0;
  }
  if (a->mirror) {
    ft_drv.cuMemFreeHost(a->mirror);
    ft_st.bytes_checkpoint -= ft_mirror_bytes(a);
    a->mirror = NULL;
    a->mirror_valid = 0;
  }
}

void ft_alloc_untrack(ft_alloc_t *a) {
  release_protection(a);
  ft_reg_remove(a);
  free(a->ptrs);
  free(a);
}

void ft_alloc_unprotect(ft_alloc_t *a, const char *why) {
  if (a->state == FT_ST_UNPROT) return;
  FT_WARN("allocation #%ju (%zu bytes) is no longer protected: %s", (uintmax_t)a->id, a->size, why);
  release_protection(a);
  ft_st.allocations_unprotected++;
}
