/* reach.c: what a launch may write besides what its argument places point into
 * (DESIGN.md 5, "Soundness"; docs/ptx.md): pointers near but outside an
 * allocation, pointers in parameter bytes that are no place, the pointer closure
 * of the buffers a kernel loads pointers from (read from their host
 * checkpoints), else every protected allocation of the context. Engine lock held. */
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "access.h"
#include "reach.h"
#include "../ptx/access.h"

/* Allocations a pointer value may reach: the one containing it; else the
 * nearest one below whose end it passed by less than its size (one past the end
 * included), and the nearest one above that it precedes by less than that one's
 * size (pointers just outside an allocation, written backwards or forwards: C's
 * pointer arithmetic stays in one object, a program that steps further reaches
 * what its pointer cannot name). A pointer inside an allocation is taken to
 * point into it, also when it equals the end of the one before: under gpuft an
 * allocation's code array follows it, so a program's allocations touch only
 * inside pools (whose ranges are issue 22's). Up to 2 into out; returns how many. */
int ft_reach_near(CUdeviceptr v, ft_alloc_t **out) FT_REQUIRES(ft_eng_lock) {
  int n = 0;
  if (v < 4096) return 0;
  ft_alloc_t *in = ft_reg_find(v);
  if (in) {
    out[n++] = in;
    return n;
  }
  ft_alloc_t *lo = ft_reg_below(v), *hi = ft_reg_above(v);
  if (lo && v - (lo->base + lo->size) < lo->size) out[n++] = lo;
  if (hi && hi->base - v < hi->size) out[n++] = hi;
  return n;
}

typedef struct {
  ft_alloc_t **v;
  uint8_t *w; /* may be written through what reached it */
  int n, cap;
  int over; /* more than cap */
  uint8_t *hit; /* (or NULL) of the first nhit entries, those add() reached */
  int nhit;
} set_t;

static void add(set_t *s, ft_alloc_t *a) {
  if (a->freeing) return; /* being freed by another thread: the program cannot use it */
  for (int i = 0; i < s->n; i++)
    if (s->v[i] == a) {
      s->w[i] = 1;
      if (s->hit && i < s->nhit) s->hit[i] = 1;
      return;
    }
  if (s->n == s->cap) {
    s->over = 1;
    return;
  }
  s->w[s->n] = 1;
  s->v[s->n++] = a;
}

static void add_value(set_t *s, uint64_t v) FT_REQUIRES(ft_eng_lock) {
  ft_alloc_t *near[2];
  int k = ft_reach_near((CUdeviceptr)v, near);
  for (int i = 0; i < k; i++) add(s, near[i]);
}

/* Every pointer the parameter bytes may hold: 8 bytes at every offset, and two
 * neighbouring 4-byte words high word first (a pointer passed as two u32 halves
 * in either order). Pairs of distant words are not tried: each try is a chance
 * for a coincidence (an integer pair that lands in a large allocation). */
static int scan_params(set_t *s, const uint8_t *buf, size_t len) FT_REQUIRES(ft_eng_lock) {
  if (len > 4096) return -1;
  for (size_t off = 0; off + 8 <= len; off++) {
    uint64_t v;
    memcpy(&v, buf + off, 8);
    add_value(s, v);
  }
  for (size_t i = 0; i + 8 <= len; i += 4) {
    uint32_t hi, lo;
    memcpy(&hi, buf + i, 4);
    memcpy(&lo, buf + i + 4, 4);
    if (hi) add_value(s, (uint64_t)hi << 32 | lo);
  }
  return 0;
}

/* A buffer the device wrote and the host has seen complete, small enough to be
 * read back for a scan (a pointer table built by a kernel). */
#define COPY_MAX (64 << 10)

/* The bytes a scan of `a` reads: its checkpoint when that equals its content;
 * else, for a small buffer every use of which the host has seen complete, a copy
 * read back on gpuft's own stream (ordered after nothing of the program's: the
 * host already saw its writers finish). NULL: neither (*tmp to free otherwise). */
static const uint8_t *content_of(const ft_dev_t *d, ft_alloc_t *a, uint8_t **tmp) {
  *tmp = NULL;
  if (a->mirror && a->mirror_valid) return a->mirror;
  if (a->size > COPY_MAX || a->busy || !d->stream || !ft_rest_seen_done(a)) return NULL;
  if (!(*tmp = malloc(a->size))) return NULL;
  if (ft_real.cuMemcpyDtoHAsync_v2(*tmp, a->base, a->size, d->stream) != CUDA_SUCCESS ||
      ft_own_stream_sync(d->stream) != CUDA_SUCCESS) {
    free(*tmp);
    *tmp = NULL;
    return NULL;
  }
  __atomic_fetch_add(&ft_st.reach_bytes_read_back, a->size, __ATOMIC_RELAXED);
  return *tmp;
}

/* The pointers a buffer holds (every 4-byte aligned 8 bytes of its content),
 * cached while neither its content nor the registry changed. -1: its content
 * cannot be read (no checkpoint equal to it, not small or not finished). */
static int scan_buffer(set_t *s, const ft_dev_t *d, ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  if (a->state == FT_ST_UNPROT) return -1;
  if (a->ptr_gen != a->content_gen || a->ptr_reg_gen != ft_reg_generation()) {
    uint8_t *tmp;
    const uint8_t *bytes = content_of(d, a, &tmp);
    if (!bytes) return -1;
    free(a->ptrs);
    a->ptrs = NULL;
    a->nptrs = 0;
    size_t cap = 0;
    __atomic_fetch_add(&ft_st.reach_bytes_scanned, a->size, __ATOMIC_RELAXED);
    for (size_t off = 0; off + 8 <= a->size; off += 4) {
      uint64_t v;
      memcpy(&v, bytes + off, 8);
      ft_alloc_t *near[2];
      if (!ft_reach_near((CUdeviceptr)v, near)) continue;
      if (a->nptrs == cap) {
        cap = cap ? 2 * cap : 16;
        CUdeviceptr *g = realloc(a->ptrs, cap * sizeof *g);
        if (!g) {
          free(a->ptrs);
          a->ptrs = NULL;
          a->nptrs = 0;
          free(tmp);
          return -1;
        }
        a->ptrs = g;
      }
      a->ptrs[a->nptrs++] = (CUdeviceptr)v;
    }
    free(tmp);
    a->ptr_gen = a->content_gen;
    a->ptr_reg_gen = ft_reg_generation();
  }
  for (size_t i = 0; i < a->nptrs; i++) add_value(s, a->ptrs[i]);
  return 0;
}

/* Which of the set's first s->n entries hold the pointers the kernel dereferences
 * (src[i]: the allocations its pointer-source places point into or next to): 1, or
 * 0 when it cannot tell (loaded pointers from memory no place names; values it
 * loads stored where it also loads pointers from: they may come back from any
 * buffer). */
static int pointer_sources(const ft_func_t *fn, const uint8_t *buf, size_t len, const set_t *s, uint8_t *src)
    FT_REQUIRES(ft_eng_lock) {
  if (!fn->facts || (fn->kflags & FT_PTX_K_LOADED_UNK)) return 0;
  uint8_t *sink = calloc((size_t)s->n + 1, 1);
  if (!sink) return 0;
  int ok = 1;
  for (size_t off = 0; ok && off + 8 <= len && off / 8 < FT_MAX_SLOTS; off += 8) {
    uint8_t k = fn->slot_ptr[off / 8];
    if (!k || fn->slot_acc[off / 8] == FT_ACC_NONE) continue;
    uint64_t v;
    memcpy(&v, buf + off, 8);
    ft_alloc_t *near[2];
    int m = ft_reach_near((CUdeviceptr)v, near);
    for (int j = 0; ok && j < m; j++) {
      int i;
      for (i = 0; i < s->n && s->v[i] != near[j]; i++) {
      }
      if (i == s->n) {
        ok = near[j]->freeing; /* not in the set (it was full): cannot tell */
        continue;
      }
      if (k & FT_SLOT_PTR_SRC) src[i] = 1;
      if (k & FT_SLOT_PTR_SINK) sink[i] = 1;
    }
  }
  for (int i = 0; ok && i < s->n; i++) ok = !(src[i] && sink[i]);
  free(sink);
  return ok;
}

/* Scans the set's entries not done yet: the first `roots` where src (NULL: all)
 * says so, and with deep, every entry the scans add. 0, or -1 (a buffer that
 * cannot be read: the kernel may reach anything). */
static int scan_pass(set_t *s, const ft_dev_t *d, const uint8_t *src, int roots, int deep, uint8_t *done)
    FT_REQUIRES(ft_eng_lock) {
  for (int i = 0; i < (deep ? s->n : roots) && !s->over; i++) {
    if (done[i] || (i < roots && src && !src[i])) continue;
    done[i] = 1;
    if (scan_buffer(s, d, s->v[i]) != 0) return -1;
  }
  return 0;
}

static void all_of_context(set_t *s, const ft_dev_t *d, int keep, int n0) FT_REQUIRES(ft_eng_lock) {
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (a->dev != d || !ft_protected(a)) continue;
    int k;
    for (k = 0; keep && k < n0 && s->v[k] != a; k++) {
    }
    if (!keep || k == n0) add(s, a);
  }
}

int ft_reach(const ft_func_t *fn, const ft_dev_t *d, const uint8_t *buf, size_t len,
             ft_alloc_t **out, uint8_t *written, int n, int cap) FT_REQUIRES(ft_eng_lock) {
  set_t s = {out, written, n, cap, 0, NULL, 0};
  for (int i = 0; i < n; i++) written[i] = 0;
  /* pointers just outside an allocation, in every slot the kernel may use */
  for (size_t off = 0; off + 8 <= len; off += 8) {
    if (fn->slot_acc[off / 8] == FT_ACC_NONE) continue;
    uint64_t v;
    memcpy(&v, buf + off, 8);
    ft_alloc_t *near[2];
    int k = ft_reach_near((CUdeviceptr)v, near);
    for (int j = 0; j < k; j++) {
      if (near[j]->base <= v && v - near[j]->base < near[j]->size) {
        /* the allocation the slot points into: a root, with the slot's own class */
        int i;
        for (i = 0; i < s.n && s.v[i] != near[j]; i++) {
        }
        if (i == s.n && s.n < s.cap) {
          s.w[s.n] = fn->slot_acc[off / 8] != FT_ACC_READ;
          s.v[s.n++] = near[j];
        } else if (i == s.n) {
          s.over = 1;
        }
      } else {
        add(&s, near[j]);
      }
    }
  }
  /* an 8-byte integer that entered an address as an offset (ptrdiff_t between two
   * buffers: `a + (b - a)`): where it takes each pointer argument, at the element
   * sizes C programs step by */
  for (size_t k = 0; k + 8 <= len; k += 8) {
    if (!fn->slot_esc[k / 8]) continue;
    int64_t v;
    memcpy(&v, buf + k, 8);
    if (v == 0 || v > ((int64_t)1 << 44) || v < -((int64_t)1 << 44)) continue;
    for (size_t j = 0; j + 8 <= len; j += 8) {
      if (j == k || fn->slot_acc[j / 8] == FT_ACC_NONE) continue;
      uint64_t p;
      memcpy(&p, buf + j, 8);
      ft_alloc_t *own = ft_reg_find((CUdeviceptr)p);
      if (!own) continue;
      for (int64_t sz = 1; sz <= 16; sz *= 2) {
        ft_alloc_t *near[2];
        int m = ft_reach_near((CUdeviceptr)(p + (uint64_t)(v * sz)), near);
        for (int q = 0; q < m; q++)
          if (near[q] != own) add(&s, near[q]); /* inside its own buffer: an index */
      }
    }
  }
  int all = fn->reach == FT_REACH_ALL;
  if (!all && fn->scan_unplaced) {
    if (scan_params(&s, buf, len) != 0) all = 1;
    __atomic_fetch_add(&ft_st.launches_reach_params, 1, __ATOMIC_RELAXED);
  }
  if (!all && fn->reach == FT_REACH_SCAN) {
    /* what the argument buffers point to; and when the kernel chases pointers
     * (loads through pointers it loaded: lists, trees), what those point to, ...
     * Of the argument buffers, those the kernel loads the pointers it uses from,
     * when its PTX says which (a table of pointers beside data buffers) */
    int roots = s.n, chase = (fn->kflags & FT_PTX_K_PTR_CHASE) != 0;
    uint8_t *src = calloc(2 * (size_t)roots + (size_t)cap + 1, 1), *done = src ? src + 2 * roots : NULL;
    int some = src && pointer_sources(fn, buf, len, &s, src);
    if (some && (fn->kflags & FT_PTX_K_SINK_REACHED)) s.hit = src + roots, s.nhit = roots;
    /* with its sources known, every pointer it dereferences was loaded through an
     * argument place (one loaded through a pointer it loaded has no known source):
     * their buffers, one level deep */
    if (!src || scan_pass(&s, d, some ? src : NULL, roots, chase && !some, done) != 0) all = 1;
    /* loaded values stored through loaded pointers into a source's buffer may be
     * pointers from any buffer, and from deeper (a value loaded through a loaded
     * pointer): every buffer, the closure when it chases */
    int again = 0;
    for (int i = 0; s.hit && i < roots; i++) again |= src[i] && s.hit[i];
    s.hit = NULL;
    if (again && !all && scan_pass(&s, d, NULL, roots, chase, done) != 0) all = 1;
    free(src);
  }
  if (all) {
    all_of_context(&s, d, !fn->facts, n);
    __atomic_fetch_add(&ft_st.launches_reach_all, 1, __ATOMIC_RELAXED);
  } else if (fn->reach == FT_REACH_SCAN) {
    __atomic_fetch_add(&ft_st.launches_reach_scan, 1, __ATOMIC_RELAXED);
  }
  return s.over ? -1 : s.n;
}
