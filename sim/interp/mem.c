/* mem.c: ld/ldu/st (scalar and .v2/.v4, every space), atom/red (integer and
 * f32/f64 add, f16/bf16 add, cas (also .b16), exch, inc/dec) in global and shared
 * memory, cvta, isspacep.
 * Every access is checked: an address outside live memory or the block's shared /
 * the thread's local window faults the launch (CUDA_ERROR_ILLEGAL_ADDRESS), a
 * misaligned one too (CUDA_ERROR_MISALIGNED_ADDRESS); global bytes are counted. */
#include <string.h>

#include "interp.h"
#include "texsurf.h"
#include "wide.h"

#define ERR_ILLEGAL_ADDRESS 700
#define ERR_MISALIGNED 716

/* UB check: shared bytes [off, off+n) accessed by a lane of warp w. Two warps
 * touching a byte in one barrier epoch, one of them storing, is a race a GPU can
 * expose (the simulator runs warps one after the other between barriers).
 * Atomics do not race with each other; lanes of one warp are not compared. */
static void shadow_access(sim_warp_t *w, uint32_t lane, uint64_t off, unsigned n, bool store) {
  sim_block_t *b = w->blk;
  if (w->atomic_access) return;
  if (b->synced) return; /* ordered by release/acquire operations: not modelled */
  uint16_t me = (uint16_t)(w->id + 1);
  for (unsigned i = 0; i < n; i++) {
    sim_shadow_t *s = &b->shadow[off + i];
    if (s->epoch != b->epoch) *s = (sim_shadow_t){b->epoch, 0, 0};
    unsigned other = 0;
    if (s->writer && s->writer != me) other = s->writer;
    else if (store && s->reader && s->reader != me) other = s->reader;
    if (other) {
      w->race_lanes |= 1u << lane;
      w->race_store = store;
      w->race_other = other == SIM_SHADOW_MANY ? UINT32_MAX : other - 1u;
    }
    if (store) s->writer = me;
    else if (!s->reader) s->reader = me;
    else if (s->reader != me) s->reader = SIM_SHADOW_MANY;
  }
}

/* Host address of [addr, addr+n) for a lane, or NULL after raising the fault. */
/* [lo, hi) grown to hold [a, a + n). */
static inline void extend(uint64_t *lo, uint64_t *hi, uint64_t a, unsigned n) {
  if (a < *lo) *lo = a;
  if (a + n > *hi) *hi = a + n;
}

static inline void extend_xc(sim_xcache_t *x, uint64_t a, unsigned n, bool store) {
  if (store) extend(&x->st_lo, &x->st_hi, a, n);
  else extend(&x->ld_lo, &x->ld_hi, a, n);
}

/* An access inside the allocation x caches: counted (with its extent when the
 * driver keeps them), and its host address. */
static inline void *cached(sim_xcache_t *x, const sim_grid_t *g, uint64_t addr, unsigned n, bool store) {
  if (store) x->st += n;
  else x->ld += n;
  if (g->mem->extents) extend_xc(x, addr, n, store);
  return (void *)(uintptr_t)(addr + (uint64_t)x->delta);
}

/* The allocations this host thread's warps found last, in the launch (grid id) they
 * were found in: a warp's first access to each looks here before asking the driver,
 * whose registry lock every warp of every block contended for (simpleStreams spent
 * 40 % of its time in that lock's futex calls). Within a launch an allocation a
 * kernel can reach stays (frees synchronise; the device heap is one allocation). */
static __thread struct {
  uint64_t grid;
  sim_xcache_t e[2];
} t_found;

static bool found_before(sim_grid_t *g, uint64_t addr, unsigned n, sim_xcache_t *out) {
  uint64_t id = atomic_load_explicit(&g->id, memory_order_relaxed);
  if (!id || t_found.grid != id) return false;
  for (int k = 0; k < 2; k++)
    if (addr >= t_found.e[k].lo && addr + n <= t_found.e[k].hi && addr + n > addr) {
      *out = t_found.e[k];
      return true;
    }
  return false;
}

static void found_now(sim_grid_t *g, const sim_xcache_t *x) {
  uint64_t id = atomic_load_explicit(&g->id, memory_order_relaxed);
  if (!id) return;
  if (t_found.grid != id) memset(&t_found, 0, sizeof t_found), t_found.grid = id;
  t_found.e[1] = t_found.e[0];
  t_found.e[0] = (sim_xcache_t){.lo = x->lo, .hi = x->hi, .base = x->base, .delta = x->delta};
}

void *sim_interp_resolve(sim_warp_t *w, unsigned space, uint32_t lane, uint64_t addr, unsigned n, bool store) {
  sim_block_t *b = w->blk;
  const sim_grid_t *g = b->g;
  if (addr & (n - 1)) {
    w->active = 1u << lane; /* so the message names this thread */
    sim_interp_fault(w, ERR_MISALIGNED, "misaligned %u-byte %s at 0x%llx", n, store ? "store" : "load",
                     (unsigned long long)addr);
    return NULL;
  }
  if (space == FT_PTX_SP_GENERIC) {
    if (addr - SIM_WIN_SHARED < SIM_WIN_SIZE) {
      space = FT_PTX_SP_SHARED;
      addr -= SIM_WIN_SHARED;
    } else if (addr - SIM_WIN_LOCAL < SIM_WIN_SIZE) {
      space = FT_PTX_SP_LOCAL;
      addr -= SIM_WIN_LOCAL;
    } else {
      space = FT_PTX_SP_GLOBAL;
    }
  }
  const char *what = "global";
  switch (space) {
    case FT_PTX_SP_SHARED:
      if (addr + n <= b->shared_bytes && addr + n >= addr) {
        if (b->shadow) shadow_access(w, lane, addr, n, store);
        return b->shared + addr;
      }
      what = "shared";
      break;
    case FT_PTX_SP_LOCAL:
      if (addr + n <= g->prog->local_bytes && addr + n >= addr)
        return b->local + (size_t)(w->id * 32 + lane) * g->prog->local_bytes + addr;
      what = "local";
      break;
    case FT_PTX_SP_PARAM:
      if (!store && addr + n <= g->prog->param_bytes && addr + n >= addr) return (void *)(g->params + addr);
      what = "param";
      break;
    default: {
      sim_xcache_t *x = &w->xc;
      if (addr >= x->lo && addr + n <= x->hi && addr + n > addr) return cached(x, g, addr, n, store);
      if (addr - SIM_WIN_GRIDWS < SIM_WIN_SIZE) { /* never cached: off the hot path */
        void *ws = sim_coop_ws(w, addr, n, store);
        if (ws) return ws;
        break;
      }
      sim_xcache_t *y = &w->xc2;
      if (addr >= y->lo && addr + n <= y->hi && addr + n > addr) {
        sim_xcache_t t = *x;
        *x = *y, *y = t;
        return cached(x, g, addr, n, store);
      }
      sim_xcache_t nx;
      bool known = found_before(b->g, addr, n, &nx);
      if (!known && g->mem && g->mem->find(g->mem->ctx, addr, &nx) && addr + n <= nx.hi) {
        found_now(b->g, &nx);
        known = true;
      }
      if (known) {
        /* the second entry leaves (its bytes counted), the first becomes it */
        if (y->hi && (y->ld || y->st)) g->mem->count(g->mem->ctx, y);
        *y = *x;
        nx.ld = store ? 0 : n;
        nx.st = store ? n : 0;
        nx.ld_lo = nx.st_lo = UINT64_MAX;
        nx.ld_hi = nx.st_hi = 0;
        if (g->mem->extents) extend_xc(&nx, addr, n, store);
        *x = nx;
        return (void *)(uintptr_t)(addr + (uint64_t)x->delta);
      }
      break;
    }
  }
  w->active = 1u << lane;
  sim_interp_fault(w, ERR_ILLEGAL_ADDRESS, "illegal %u-byte %s %s at 0x%llx", n, what, store ? "store" : "load",
                   (unsigned long long)addr);
  return NULL;
}

/* Device memory as the PTX memory model has it: an aligned access of 1, 2, 4 or 8
 * bytes is single-copy atomic (relaxed), so blocks running on different host
 * threads may race on it as GPU blocks do (a plain load beside another block's
 * atomic, or beside a narrow atomic done as a 32-bit CAS on its word) without a
 * torn value, and ThreadSanitizer sees the modelled race as the atomic it is.
 * A misaligned address never gets here (resolve refuses it). */
static inline uint64_t load_elem(const void *p, unsigned n) {
  switch (n) {
    case 1: return __atomic_load_n((const uint8_t *)p, __ATOMIC_RELAXED);
    case 2: return __atomic_load_n((const uint16_t *)p, __ATOMIC_RELAXED);
    case 4: return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
    default: return __atomic_load_n((const uint64_t *)p, __ATOMIC_RELAXED);
  }
}
static inline void store_elem(void *p, uint64_t v, unsigned n) {
  switch (n) {
    case 1: __atomic_store_n((uint8_t *)p, (uint8_t)v, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)p, (uint16_t)v, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)p, (uint32_t)v, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED); break;
  }
}

/* ld: type2 carries the width the destination register is declared with (sign
 * extension of .s8/.s16 loads goes that far). */
static void ld(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  if (SIM_SEM_ORDERS(in->sem) && m) w->blk->synced = true;
  unsigned n = ft_ptx_type_size(in->type), vec = in->vec ? in->vec : 1;
  const uint64_t *A = SIM_R(w, in->a[0]);
  unsigned regbits = in->type2 && ft_ptx_type_size(in->type2) == 8 ? 64 : 32;
  bool sgn = sim_type_signed(in->type) && n * 8 < regbits;
  SIM_LANES(m, l, {
    uint8_t *p = sim_interp_resolve(w, in->space, l, A[l] + (uint64_t)in->off, n * vec, false);
    if (!p) return;
    for (unsigned i = 0; i < vec; i++) {
      uint64_t v = load_elem(p + i * n, n);
      if (sgn) {
        int64_t s = (int64_t)(v << (64 - 8 * n)) >> (64 - 8 * n);
        v = regbits == 64 ? (uint64_t)s : (uint32_t)s;
      }
      SIM_R(w, in->d[i])[l] = v;
    }
  });
}

/* UB check: a global store's lanes for the record texture fetches of linear memory
 * are checked against (texwrite.c). texw_any is 0 unless the check is on and a
 * texture object on linear memory is live or the launch made a surface store: one
 * load and a branch per instruction otherwise. */
static inline void note_stores(sim_warp_t *w, unsigned space, uint32_t m, const uint64_t *A, int64_t off, unsigned n) {
  if (__builtin_expect(atomic_load_explicit(&w->blk->g->texw_any, memory_order_relaxed) != 0, 0))
    sim_texw_note_stores(w, space, m, A, (uint64_t)off, n);
}

static void st(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  if (SIM_SEM_ORDERS(in->sem) && m) w->blk->synced = true;
  unsigned n = ft_ptx_type_size(in->type), vec = in->vec ? in->vec : 1;
  const uint64_t *A = SIM_R(w, in->a[0]);
  if (in->space == FT_PTX_SP_GLOBAL || in->space == FT_PTX_SP_GENERIC) note_stores(w, in->space, m, A, in->off, n * vec);
  SIM_LANES(m, l, {
    uint8_t *p = sim_interp_resolve(w, in->space, l, A[l] + (uint64_t)in->off, n * vec, true);
    if (!p) return;
    for (unsigned i = 0; i < vec; i++) store_elem(p + i * n, SIM_R(w, in->a[1 + i])[l], n);
  });
}

/* The common cases of resolve, inlined into the specialised ld/st below: an
 * aligned access to the block's shared memory (not under the UB check's race
 * tracking), or to the global allocation the warp's cache holds. Everything else
 * (and every fault) goes through sim_interp_resolve, with the same result. */
static inline void *resolve_fast(sim_warp_t *w, unsigned space, uint32_t lane, uint64_t addr, unsigned n,
                                 bool store) {
  if (!(addr & (n - 1))) {
    uint64_t sh = space == FT_PTX_SP_GENERIC ? addr - SIM_WIN_SHARED : addr;
    if (space == FT_PTX_SP_SHARED || (space == FT_PTX_SP_GENERIC && sh < SIM_WIN_SIZE)) {
      sim_block_t *b = w->blk;
      if (!b->shadow && sh < b->shared_bytes && b->shared_bytes - sh >= n) return b->shared + sh;
    } else if (space == FT_PTX_SP_PARAM) {
      const sim_grid_t *g = w->blk->g;
      if (!store && addr < g->prog->param_bytes && g->prog->param_bytes - addr >= n) return (void *)(g->params + addr);
    } else if (space == FT_PTX_SP_GLOBAL || space == FT_PTX_SP_GENERIC || space == FT_PTX_SP_CONST) {
      sim_xcache_t *x = &w->xc;
      if (addr >= x->lo && addr < x->hi && x->hi - addr >= n) return cached(x, w->blk->g, addr, n, store);
    }
  }
  return sim_interp_resolve(w, space, lane, addr, n, store);
}

/* A whole warp's access in one go: when all 32 addresses are aligned and inside
 * the block's shared memory (explicit .shared, no race tracking) or the cached
 * global allocation (no extents kept; lane 0's allocation is cached first), 1 and
 * *delta such that host address = address + *delta (modulo 2^64), counted; 0: go
 * lane by lane; -1: lane 0 faulted. */
#ifndef SIM_AVX2
typedef struct {
  char unused;
} sim_addr32_t; /* (the AVX2 build keeps the checked addresses for the gather: wide.h) */
#endif
static inline int full_warp(sim_warp_t *w, unsigned space, uint32_t m, const uint64_t *A, uint64_t off, unsigned n,
                             bool store, uint64_t *delta, sim_addr32_t *addrs) {
  if (m != 0xffffffffu) return 0;
  uint64_t lo, span;
  if (space == FT_PTX_SP_SHARED) {
    sim_block_t *b = w->blk;
    if (b->shadow) return 0;
    lo = 0, span = b->shared_bytes, *delta = (uint64_t)(uintptr_t)b->shared;
  } else if (space == FT_PTX_SP_GLOBAL) {
    sim_xcache_t *x = &w->xc;
    if (w->blk->g->mem->extents) return 0;
    uint64_t a0 = A[0] + off;
    if (a0 < x->lo || a0 >= x->hi) {
      /* lane 0 first, as lane by lane: it brings its allocation into the cache (a
       * warp's first access, another buffer) or faults; its bytes are taken back,
       * to be counted with the others' */
      if (!sim_interp_resolve(w, space, 0, a0, n, store)) return -1;
      if (store) x->st -= n;
      else x->ld -= n;
    }
    lo = x->lo, span = x->hi - x->lo, *delta = (uint64_t)x->delta;
  } else {
    return 0;
  }
  if (span < n) return 0;
#ifdef SIM_AVX2
  sim_addresses(addrs, A, off); /* kept for the gather */
  if (!sim_within(addrs, lo, span, n)) return 0;
#else
  (void)addrs;
  /* every address in [lo, lo + span - n] and aligned: the lowest and highest are,
   * and their OR has no low bit */
  uint64_t mn = UINT64_MAX, mx = 0, bits = 0;
  for (uint32_t l = 0; l < 32; l++) {
    uint64_t a = A[l] + off;
    mn = a < mn ? a : mn;
    mx = a > mx ? a : mx;
    bits |= a;
  }
  if ((bits & (n - 1)) || mn < lo || mx - lo > span - n) return 0;
#endif
  if (space != FT_PTX_SP_SHARED) {
    if (store) w->xc.st += 32u * n;
    else w->xc.ld += 32u * n;
  }
  return 1;
}
#define HOST(a, delta) ((uint8_t *)(uintptr_t)((a) + (delta)))

/* Do all 32 lanes hold the same address? */
static inline bool same_address(const uint64_t *A) {
  uint64_t diff = 0;
  for (uint32_t l = 0; l < 32; l++) diff |= A[l] ^ A[0];
  return !diff;
}

/* ld/st of 4- or 8-byte elements (no sign extension) in one space, chosen at
 * lowering so that the space and width are constants here. */
static inline __attribute__((always_inline)) void ld_spec(sim_warp_t *w, const sim_insn_t *in, uint32_t m,
                                                          unsigned space, unsigned n) {
  const uint64_t *A = SIM_R(w, in->a[0]);
  uint64_t off = (uint64_t)in->off;
  if (in->vec <= 1) {
    uint64_t *D = SIM_R(w, in->d[0]);
    if (space == FT_PTX_SP_PARAM && m == 0xffffffffu && same_address(A)) {
      /* a kernel argument, the same for every lane: lane 0 resolves (or faults
       * first, as lane by lane) and its value goes to all */
      const uint8_t *p = resolve_fast(w, space, 0, A[0] + off, n, false);
      if (!p) return;
      uint64_t v = load_elem(p, n);
      for (uint32_t l = 0; l < 32; l++) D[l] = v;
      return;
    }
    uint64_t delta;
    sim_addr32_t addrs;
    int fw = full_warp(w, space, m, A, off, n, false, &delta, &addrs);
    if (fw < 0) return;
    if (fw) {
#ifdef SIM_AVX2
      if (sim_uniform(&addrs)) { /* one load for all: a gather costs several */
        uint64_t v = load_elem(HOST(A[0] + off, delta), n);
        for (uint32_t l = 0; l < 32; l++) D[l] = v;
      } else if (sim_contiguous(&addrs, n)) { /* coalesced: plain vector loads */
        sim_load_run(D, HOST(A[0] + off, delta), n);
      } else {
        sim_gather(D, &addrs, delta, n);
      }
#else
      for (uint32_t l = 0; l < 32; l++) D[l] = load_elem(HOST(A[l] + off, delta), n);
#endif
      return;
    }
    SIM_LANES(m, l, {
      const uint8_t *p = resolve_fast(w, space, l, A[l] + off, n, false);
      if (!p) return;
      D[l] = load_elem(p, n);
    });
    return;
  }
  unsigned vec = in->vec;
  uint64_t delta;
  sim_addr32_t addrs;
  int fw = full_warp(w, space, m, A, off, n * vec, false, &delta, &addrs);
  if (fw < 0) return;
  if (fw) {
#ifdef SIM_AVX2
    if (vec == 4 && n == 4 && sim_contiguous(&addrs, 16)) { /* coalesced .v4.b32 (a uint4 per lane) */
      uint64_t *const D[4] = {SIM_R(w, in->d[0]), SIM_R(w, in->d[1]), SIM_R(w, in->d[2]), SIM_R(w, in->d[3])};
      sim_load_run_v4(D, HOST(A[0] + off, delta));
      return;
    }
    for (unsigned i = 0; i < vec; i++) sim_gather(SIM_R(w, in->d[i]), &addrs, delta + i * n, n);
#else
    for (uint32_t l = 0; l < 32; l++) { /* lane by lane: a destination may be the address register */
      const uint8_t *p = HOST(A[l] + off, delta);
      for (unsigned i = 0; i < vec; i++) SIM_R(w, in->d[i])[l] = load_elem(p + i * n, n);
    }
#endif
    return;
  }
  SIM_LANES(m, l, {
    const uint8_t *p = resolve_fast(w, space, l, A[l] + off, n * vec, false);
    if (!p) return;
    for (unsigned i = 0; i < vec; i++) SIM_R(w, in->d[i])[l] = load_elem(p + i * n, n);
  });
}
static inline __attribute__((always_inline)) void st_spec(sim_warp_t *w, const sim_insn_t *in, uint32_t m,
                                                          unsigned space, unsigned n) {
  const uint64_t *A = SIM_R(w, in->a[0]);
  uint64_t off = (uint64_t)in->off;
  if (space != FT_PTX_SP_SHARED) note_stores(w, space, m, A, in->off, in->vec <= 1 ? n : n * in->vec);
  if (in->vec <= 1) {
    const uint64_t *V = SIM_R(w, in->a[1]);
    uint64_t delta;
    sim_addr32_t addrs;
    int fw = full_warp(w, space, m, A, off, n, true, &delta, &addrs);
    if (fw < 0) return;
    if (fw) {
#ifdef SIM_AVX2
      uint64_t host[32]; /* the 32 host addresses in vectors, then a store each (no scatter in AVX2) */
      sim_host_addresses(host, &addrs, delta);
#pragma GCC unroll 4
      for (uint32_t l = 0; l < 32; l++) store_elem((uint8_t *)(uintptr_t)host[l], V[l], n);
#else
      for (uint32_t l = 0; l < 32; l++) store_elem(HOST(A[l] + off, delta), V[l], n);
#endif
      return;
    }
    SIM_LANES(m, l, {
      uint8_t *p = resolve_fast(w, space, l, A[l] + off, n, true);
      if (!p) return;
      store_elem(p, V[l], n);
    });
    return;
  }
  unsigned vec = in->vec;
  uint64_t delta;
  sim_addr32_t addrs;
  int fw = full_warp(w, space, m, A, off, n * vec, true, &delta, &addrs);
  if (fw < 0) return;
  if (fw) {
    const uint64_t *V[4];
    for (unsigned i = 0; i < vec && i < 4; i++) V[i] = SIM_R(w, in->a[1 + i]);
    if (vec == 4) /* (the common .v4: its element stores unrolled, lane after lane as below) */
      for (uint32_t l = 0; l < 32; l++) {
        uint8_t *p = HOST(A[l] + off, delta);
        store_elem(p, V[0][l], n);
        store_elem(p + n, V[1][l], n);
        store_elem(p + 2 * n, V[2][l], n);
        store_elem(p + 3 * n, V[3][l], n);
      }
    else
      for (uint32_t l = 0; l < 32; l++) {
        uint8_t *p = HOST(A[l] + off, delta);
        for (unsigned i = 0; i < vec; i++) store_elem(p + i * n, V[i][l], n);
      }
    return;
  }
  SIM_LANES(m, l, {
    uint8_t *p = resolve_fast(w, space, l, A[l] + off, n * vec, true);
    if (!p) return;
    for (unsigned i = 0; i < vec; i++) store_elem(p + i * n, SIM_R(w, in->a[1 + i])[l], n);
  });
}
#define LDST_SPEC(sp, SPACE)                                                                                  \
  static void ld_##sp##4(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { ld_spec(w, in, m, SPACE, 4); } \
  static void ld_##sp##8(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { ld_spec(w, in, m, SPACE, 8); } \
  static void st_##sp##4(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { st_spec(w, in, m, SPACE, 4); } \
  static void st_##sp##8(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { st_spec(w, in, m, SPACE, 8); }
LDST_SPEC(shared, FT_PTX_SP_SHARED)
LDST_SPEC(global, FT_PTX_SP_GLOBAL)
LDST_SPEC(generic, FT_PTX_SP_GENERIC)
static void ld_param4(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { ld_spec(w, in, m, FT_PTX_SP_PARAM, 4); }
static void ld_param8(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { ld_spec(w, in, m, FT_PTX_SP_PARAM, 8); }

/* The specialised form for an ld/st, NULL when the general one must run it. */
static sim_exec_fn choose_ldst(const sim_insn_t *in, bool store) {
  if (sim_interp_plain) return NULL; /* the reference goes lane by lane */
  unsigned n = ft_ptx_type_size(in->type);
  if (n != 4 && n != 8) return NULL;
  if (!store && n == 4 && sim_type_signed(in->type) && ft_ptx_type_size(in->type2) == 8) return NULL; /* extends */
  static const sim_exec_fn f[3][2][2] = {{{ld_shared4, ld_shared8}, {st_shared4, st_shared8}},
                                         {{ld_global4, ld_global8}, {st_global4, st_global8}},
                                         {{ld_generic4, ld_generic8}, {st_generic4, st_generic8}}};
  if (in->space == FT_PTX_SP_PARAM) return store ? NULL : n == 8 ? ld_param8 : ld_param4;
  int sp = in->space == FT_PTX_SP_SHARED ? 0 : in->space == FT_PTX_SP_GLOBAL ? 1
         : in->space == FT_PTX_SP_GENERIC ? 2 : -1;
  return sp < 0 ? NULL : f[sp][store][n == 8];
}

/* ---- atomics ---- */
static uint64_t atom_apply(unsigned op, unsigned type, uint64_t old, uint64_t b, uint64_t c, unsigned n) {
  uint64_t mask = n == 8 ? ~0ull : 0xffffffffull;
  old &= mask;
  b &= mask;
  bool sgn = sim_type_signed(type);
  int64_t so = n == 8 ? (int64_t)old : (int32_t)old, sb = n == 8 ? (int64_t)b : (int32_t)b;
  switch (op) {
    case FT_PTX_ATOM_ADD:
      if (type == FT_PTX_T_F32) {
        float x, y;
        uint32_t u = (uint32_t)old, v = (uint32_t)b;
        memcpy(&x, &u, 4);
        memcpy(&y, &v, 4);
        x += y;
        memcpy(&u, &x, 4);
        return u;
      }
      if (type == FT_PTX_T_F64) {
        double x, y;
        memcpy(&x, &old, 8);
        memcpy(&y, &b, 8);
        x += y;
        memcpy(&old, &x, 8);
        return old;
      }
      return (old + b) & mask;
    case FT_PTX_ATOM_MIN: return sgn ? (uint64_t)(so < sb ? so : sb) & mask : (old < b ? old : b);
    case FT_PTX_ATOM_MAX: return sgn ? (uint64_t)(so > sb ? so : sb) & mask : (old > b ? old : b);
    case FT_PTX_ATOM_INC: return old >= b ? 0 : old + 1;
    case FT_PTX_ATOM_DEC: return (old == 0 || old > b) ? b : old - 1;
    case FT_PTX_ATOM_AND: return old & b;
    case FT_PTX_ATOM_OR: return old | b;
    case FT_PTX_ATOM_XOR: return old ^ b;
    case FT_PTX_ATOM_EXCH: return b;
    case FT_PTX_ATOM_CAS: return old == b ? (c & mask) : old;
  }
  return old;
}

/* f16 and bf16 addition, correctly rounded (to nearest even): the sum of two of
 * them is exact enough in f32 (24 bits >= 2 x 11 + 2) that rounding it once more
 * gives the correctly rounded result; NaN is the canonical 0x7fff. */
static uint16_t add_f16(uint16_t a, uint16_t b) {
  _Float16 x, y;
  memcpy(&x, &a, 2);
  memcpy(&y, &b, 2);
  float s = (float)x + (float)y;
  if (s != s) return 0x7fff;
  _Float16 h = (_Float16)s;
  uint16_t u;
  memcpy(&u, &h, 2);
  return u;
}
static uint16_t add_bf16(uint16_t a, uint16_t b) {
  uint32_t ua = (uint32_t)a << 16, ub = (uint32_t)b << 16, u;
  float x, y;
  memcpy(&x, &ua, 4);
  memcpy(&y, &ub, 4);
  float s = x + y;
  if (s != s) return 0x7fff;
  memcpy(&u, &s, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

/* fence/membar: nothing to order here (lanes run in order, blocks see each other's
 * stores at once); it may order the block's warps without a barrier (the race check
 * stands down until the next one, sim_block_t.synced). Proxy fences order nothing
 * between threads (they are another opcode). */
static void fence(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  (void)in;
  if (m) w->blk->synced = true; /* fence is .acq_rel or .sc; membar is .sc */
}

/* atom: d, [a], b[, c]; red: [a], b. Global atomics race with other blocks on
 * other host threads: a compare-and-swap loop on the host word. */
static void atom(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  unsigned n = ft_ptx_type_size(in->type);
  bool red = in->op == FT_PTX_OP_RED;
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);
  const uint64_t *C = in->na > 2 ? SIM_R(w, in->a[2]) : B;
  uint64_t *D = red ? NULL : SIM_R(w, in->d[0]);
  if (SIM_SEM_ORDERS(in->sem) && m) w->blk->synced = true;
  if (in->space != FT_PTX_SP_SHARED) note_stores(w, in->space, m, A, in->off, n);
  w->atomic_access = true;
  SIM_LANES(m, l, {
    void *p = sim_interp_resolve(w, in->space, l, A[l] + (uint64_t)in->off, n, true);
    if (!p) return;
    uint64_t old;
    if (n == 2) { /* atom.cas.b16 (sm_70+), atom/red.add.noftz.f16/.bf16 */
      uint16_t *q = p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv, b = (uint16_t)B[l];
      do nv = in->mode == FT_PTX_ATOM_CAS ? (o == b ? (uint16_t)C[l] : o)
              : in->type == FT_PTX_T_F16 ? add_f16(o, b) : add_bf16(o, b);
      while (!__atomic_compare_exchange_n(q, &o, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
      old = o;
    } else if (n == 4) {
      uint32_t *q = p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
      do nv = (uint32_t)atom_apply(in->mode, in->type, o, B[l], C[l], 4);
      while (!__atomic_compare_exchange_n(q, &o, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
      old = o;
    } else {
      uint64_t *q = p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
      do nv = atom_apply(in->mode, in->type, o, B[l], C[l], 8);
      while (!__atomic_compare_exchange_n(q, &o, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
      old = o;
    }
    if (D) D[l] = old;
    /* An atomic also reads its word: count it as a load as well. */
    if (w->xc.hi && A[l] + (uint64_t)in->off >= w->xc.lo && A[l] + (uint64_t)in->off < w->xc.hi &&
        (in->space == FT_PTX_SP_GLOBAL || in->space == FT_PTX_SP_GENERIC) &&
        A[l] + (uint64_t)in->off - SIM_WIN_SHARED >= SIM_WIN_SIZE)
      (void)cached(&w->xc, w->blk->g, A[l] + (uint64_t)in->off, n, false);
  });
  w->atomic_access = false;
  if (w->grid_arrived) sim_coop_arrive(w);
}

/* cvta: shared/local offsets <-> generic window addresses; global is identity. */
static unsigned cvta_k(const sim_insn_t *in) { /* SIM_L_CVTA's k */
  unsigned sp = in->space == FT_PTX_SP_SHARED ? 1 : in->space == FT_PTX_SP_LOCAL ? 2 : 0;
  return (in->flags & FT_PTX_F_TO ? 1u : 0u) | (ft_ptx_type_size(in->type) == 4 ? 2u : 0u) | sp << 2;
}
static void cvta(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  unsigned k = cvta_k(in);
  SIM_LANES(m, l, SIM_L_CVTA(k));
}

static void isspacep(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  SIM_LANES(m, l, {
    uint64_t a = A[l];
    bool sh = a - SIM_WIN_SHARED < SIM_WIN_SIZE, lo = a - SIM_WIN_LOCAL < SIM_WIN_SIZE;
    bool r = in->space == FT_PTX_SP_SHARED ? sh : in->space == FT_PTX_SP_LOCAL ? lo : !sh && !lo;
    D[l] = r;
  });
}

static void nop(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  (void)w;
  (void)in;
  (void)m;
}

sim_exec_fn sim_choose_mem(sim_insn_t *in) {
  switch ((ft_ptx_opcode_t)in->op) {
    case FT_PTX_OP_LD: case FT_PTX_OP_LDU:
      if (in->type == FT_PTX_T_B128 || ft_ptx_type_size(in->type) == 0) return NULL;
      if (SIM_SEM_ORDERS(in->sem)) return ld; /* it marks the block (sim_block_t.synced) */
      return choose_ldst(in, false) ? choose_ldst(in, false) : ld;
    case FT_PTX_OP_ST:
      if (in->type == FT_PTX_T_B128 || in->space == FT_PTX_SP_PARAM || in->space == FT_PTX_SP_CONST) return NULL;
      if (SIM_SEM_ORDERS(in->sem)) return st;
      return choose_ldst(in, true) ? choose_ldst(in, true) : st;
    case FT_PTX_OP_ATOM: case FT_PTX_OP_RED: {
      unsigned n = ft_ptx_type_size(in->type);
      bool cas16 = n == 2 && in->mode == FT_PTX_ATOM_CAS && in->op == FT_PTX_OP_ATOM;
      bool add16 = n == 2 && in->mode == FT_PTX_ATOM_ADD && (in->type == FT_PTX_T_F16 || in->type == FT_PTX_T_BF16);
      if (n != 4 && n != 8 && !cas16 && !add16) return NULL;
      if (in->space != FT_PTX_SP_GLOBAL && in->space != FT_PTX_SP_SHARED && in->space != FT_PTX_SP_GENERIC)
        return NULL;
      return atom;
    }
    case FT_PTX_OP_CVTA:
      if (in->space == FT_PTX_SP_PARAM || in->space == FT_PTX_SP_CONST) return NULL;
      return cvta;
    case FT_PTX_OP_ISSPACEP: return isspacep;
    case FT_PTX_OP_PREFETCH: case FT_PTX_OP_PREFETCHU:
      return nop;
    case FT_PTX_OP_FENCE: case FT_PTX_OP_MEMBAR:
      return fence; /* lanes run in order, blocks see each other's stores at once */
    default: return NULL;
  }
}

/* The translator's table (jit.c): cvta's lane statement; the shared forms, which it
 * makes itself when the whole access is aligned and inside shared memory without
 * race tracking (the case full_warp and resolve_fast take above), and the kernel
 * argument loads, when every lane names one argument inside the parameters (the
 * case ld_spec takes first); it leaves them to these executors otherwise. */
const sim_jit_form_t sim_jit_forms_mem[] = {SIM_JIT_LANE(cvta, "SIM_L_CVTA(%u)", cvta_k),
                                            SIM_JIT_SHARED(ld_shared4, 4, false), SIM_JIT_SHARED(ld_shared8, 8, false),
                                            SIM_JIT_SHARED(st_shared4, 4, true),  SIM_JIT_SHARED(st_shared8, 8, true),
                                            SIM_JIT_PARAM(ld_param4, 4), SIM_JIT_PARAM(ld_param8, 8),
                                            SIM_JIT_END};
