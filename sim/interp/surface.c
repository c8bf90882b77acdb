/* surface.c: suld.b and sust.b on surface objects (the handle in a register) over
 * CUDA arrays: .1d, .2d, .3d, .a1d, .a2d; .b8, .b16, .b32, .b64 and .v2/.v4; and
 * sured.b (.add, .min, .max, .and, .or; .1d, .2d, .3d), atomic as atom is.
 * x is a byte offset (not scaled), y and z rows and slices, a layer index first
 * for the layered forms (PTX ISA, "Surface Instructions"). Out of range, .trap
 * faults the launch, .clamp moves to the nearest position inside the surface and
 * .zero loads zeros and drops stores. An in-range x that is not a multiple of the
 * access size faults as a misaligned address. */
#include <string.h>

#include "interp.h"

#define ERR_ILLEGAL_ADDRESS 700
#define ERR_MISALIGNED 716
enum { OOB_TRAP = 1, OOB_CLAMP, OOB_ZERO };

/* The xregs record lower.c writes: header (geometry | out-of-range mode << 4 |
 * coordinates << 8 | sured's operation << 16), handle, 3 coordinates, 4 data registers. */
typedef struct {
  unsigned geom, oob, op;
  const uint32_t *r; /* r[0] handle, r[1..3] coordinates, r[4..7] data */
} surf_rec_t;

static surf_rec_t record(const sim_warp_t *w, const sim_insn_t *in) {
  const uint32_t *x = w->blk->g->prog->xregs + in->target;
  return (surf_rec_t){x[0] & 15, x[0] >> 4 & 15, x[0] >> 16 & 15, x + 1};
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Copies n bytes between the lane's registers' bytes (buf) and the surface at a,
 * in the largest aligned pieces (array rows are packed: a piece of an element may
 * sit at any alignment); with at (sured), only checks them and sets *at to their
 * host address. False after a fault. */
static bool access(sim_warp_t *w, uint32_t lane, uint64_t a, uint8_t *buf, unsigned n, bool store, uint8_t **at) {
  unsigned g = n;
  while (a % g) g >>= 1;
  for (unsigned o = 0; o < n; o += g) {
    uint8_t *p = sim_interp_resolve(w, FT_PTX_SP_GLOBAL, lane, a + o, g, store);
    if (!p) return false;
    if (at) { /* sured: where the bytes are (one allocation: contiguous), changed by the caller */
      if (!o) *at = p;
    } else if (store) {
      memcpy(p, buf + o, g);
    } else {
      memcpy(buf + o, p, g);
    }
  }
  return true;
}

/* sured's operation on the old value of n bytes (type: signed or not). */
static uint64_t reduce(unsigned op, unsigned type, uint64_t old, uint64_t v, unsigned n) {
  uint64_t mask = n == 8 ? ~0ull : 0xffffffffull;
  old &= mask, v &= mask;
  int64_t so = n == 8 ? (int64_t)old : (int32_t)old, sv = n == 8 ? (int64_t)v : (int32_t)v;
  bool sgn = sim_type_signed(type);
  switch (op) {
    case FT_PTX_ATOM_ADD: return (old + v) & mask;
    case FT_PTX_ATOM_MIN: return sgn ? (so < sv ? old : v) : (old < v ? old : v);
    case FT_PTX_ATOM_MAX: return sgn ? (so > sv ? old : v) : (old > v ? old : v);
    case FT_PTX_ATOM_AND: return old & v;
    default: return old | v; /* FT_PTX_ATOM_OR (sim_choose_surface) */
  }
}

/* The reduction of v into the n bytes at host address p, atomic with respect to
 * other lanes and blocks as atom's (mem.c: a compare-and-swap loop). An array's
 * rows are packed (access, above): where that leaves the bytes unaligned to n, a
 * lock that every such reduction shares stands in for the hardware's atomicity. */
static void reduce_at(uint8_t *p, unsigned op, unsigned type, uint64_t v, unsigned n) {
  static atomic_flag unaligned = ATOMIC_FLAG_INIT;
  if ((uintptr_t)p % n == 0 && n == 4) {
    uint32_t *q = (uint32_t *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
    do nv = (uint32_t)reduce(op, type, o, v, 4);
    while (!__atomic_compare_exchange_n(q, &o, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  } else if ((uintptr_t)p % n == 0) {
    uint64_t *q = (uint64_t *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
    do nv = reduce(op, type, o, v, 8);
    while (!__atomic_compare_exchange_n(q, &o, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  } else {
    while (atomic_flag_test_and_set_explicit(&unaligned, memory_order_acquire)) {
    }
    uint64_t o = 0;
    memcpy(&o, p, n);
    o = reduce(op, type, o, v, n);
    memcpy(p, &o, n);
    atomic_flag_clear_explicit(&unaligned, memory_order_release);
  }
}

enum { SURF_LOAD, SURF_STORE, SURF_REDUCE };

static void surf(sim_warp_t *w, const sim_insn_t *in, uint32_t m, unsigned kind) {
  surf_rec_t rec = record(w, in);
  const uint64_t *H = SIM_R(w, rec.r[0]);
  bool layered, store = kind != SURF_LOAD;
  unsigned dims = sim_tex_dims(rec.geom, &layered);
  unsigned cs = ft_ptx_type_size(in->type), vec = in->vec ? in->vec : 1, n = cs * vec;
  const char *name = kind == SURF_REDUCE ? "sured" : store ? "sust" : "suld";
  sim_tex_cache_t tc = {0};
  SIM_FOR_LANES(m, l) {
    if (!sim_tex_cached(w, l, H[l], rec.geom, true, &tc)) return;
    const sim_tex_t t = tc.t;
    /* c[0] x in bytes, c[1] y, c[2] z or the layer; each against its limit */
    int64_t c[3] = {0, 0, 0}, lim[3];
    lim[0] = (int64_t)(t.width * sim_tex_elem_bytes(&t)) - n;
    lim[1] = (int64_t)t.height - 1;
    lim[2] = (int64_t)t.depth - 1;
    for (unsigned k = 0; k < dims; k++) c[k] = (int32_t)SIM_R(w, rec.r[1 + layered + k])[l];
    if (layered) c[2] = (int32_t)SIM_R(w, rec.r[1])[l];
    bool out = false;
    for (unsigned k = 0; k < 3; k++) out |= c[k] < 0 || c[k] > lim[k];
    if (out && rec.oob == OOB_TRAP) {
      w->active = 1u << l;
      sim_interp_fault(w, ERR_ILLEGAL_ADDRESS, "%s.trap: (%lld, %lld, %lld) is outside the surface (%llu bytes x %llu x %llu)",
                       name, (long long)c[0], (long long)c[1], (long long)c[2],
                       (unsigned long long)(t.width * sim_tex_elem_bytes(&t)), (unsigned long long)t.height,
                       (unsigned long long)t.depth);
      return;
    }
    uint8_t buf[32] = {0};
    uint8_t *p = NULL;
    if (out && rec.oob == OOB_CLAMP) {
      for (unsigned k = 0; k < 3; k++) c[k] = clamp(c[k], 0, lim[k]);
      c[0] -= c[0] % n;
      out = false;
    }
    if (!out && c[0] % n) {
      w->active = 1u << l;
      sim_interp_fault(w, ERR_MISALIGNED, "%s: x = %lld bytes is not a multiple of the %u-byte access", name,
                       (long long)c[0], n);
      return;
    }
    if (store) {
      if (out) continue; /* .zero: dropped */
      for (unsigned k = 0; k < vec; k++) {
        uint64_t v = SIM_R(w, rec.r[4 + k])[l];
        memcpy(buf + k * cs, &v, cs);
      }
    }
    uint64_t a = t.ptr + (uint64_t)c[2] * t.slice + (uint64_t)c[1] * t.pitch + (uint64_t)c[0];
    if (!out && !access(w, l, a, buf, n, store, kind == SURF_REDUCE ? &p : NULL)) return;
    if (p) reduce_at(p, rec.op, in->type, SIM_R(w, rec.r[4])[l], n);
    if (!out && w->blk->g->check_ub) {
      if (store) sim_texw_note(w->blk->g, a, n);
      else if (sim_texw_hit(w->blk->g, a, n)) sim_interp_ub(w, 1u << l, "suld: %s", SIM_UB_TEXW_WORDS);
    }
    if (!store) {
      for (unsigned k = 0; k < vec; k++) {
        uint64_t v = 0;
        memcpy(&v, buf + k * cs, cs);
        SIM_R(w, rec.r[4 + k])[l] = v;
      }
    }
  }
}

static void suld(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { surf(w, in, m, SURF_LOAD); }
static void sust(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { surf(w, in, m, SURF_STORE); }
static void sured(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { surf(w, in, m, SURF_REDUCE); }

/* sured.b's operations and types, as the PTX ISA gives them: add on .u32, .s32 and
 * .u64; min and max on .u32, .s32, .u64 and .s64; and, or on .b32. */
static bool reduction_ok(unsigned op, unsigned type) {
  switch (op) {
    case FT_PTX_ATOM_ADD: return type == FT_PTX_T_U32 || type == FT_PTX_T_S32 || type == FT_PTX_T_U64;
    case FT_PTX_ATOM_MIN: case FT_PTX_ATOM_MAX:
      return type == FT_PTX_T_U32 || type == FT_PTX_T_S32 || type == FT_PTX_T_U64 || type == FT_PTX_T_S64;
    case FT_PTX_ATOM_AND: case FT_PTX_ATOM_OR: return type == FT_PTX_T_B32;
    default: return false;
  }
}

/* Coordinates: 1 (1d), 2 (2d, a1d), 4 (3d, a2d: the last unused); sured: .1d, .2d
 * and .3d only, a scalar. */
sim_exec_fn sim_choose_surface(const sim_insn_t *in, const uint32_t *x) {
  static const uint8_t nx[] = {[FT_PTX_GEOM_1D] = 1, [FT_PTX_GEOM_2D] = 2, [FT_PTX_GEOM_3D] = 4,
                               [FT_PTX_GEOM_A1D] = 2, [FT_PTX_GEOM_A2D] = 4};
  unsigned geom = x[0] & 15, oob = x[0] >> 4 & 15, n = x[0] >> 8 & 15, op = x[0] >> 16 & 15;
  unsigned vec = in->vec ? in->vec : 1, cs = ft_ptx_type_size(in->type);
  bool ok = geom < sizeof nx && nx[geom] && n == nx[geom] && oob >= OOB_TRAP && oob <= OOB_ZERO &&
            (cs == 1 || cs == 2 || cs == 4 || cs == 8) && (vec == 1 || vec == 2 || vec == 4) && cs * vec <= 16;
  if (!ok) return NULL;
  if (in->op == FT_PTX_OP_SURED)
    return vec == 1 && geom <= FT_PTX_GEOM_3D && reduction_ok(op, in->type) ? sured : NULL;
  return in->op == FT_PTX_OP_SUST ? sust : in->op == FT_PTX_OP_SULD ? suld : NULL;
}
