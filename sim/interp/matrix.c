/* matrix.c: the warp-wide matrix instructions: ldmatrix (m8n8 .x1/.x2/.x4, .trans,
 * .b16), wmma.load/.store/.mma (m16n16k16, m32n8k16, m8n32k16 f16/bf16/s8/u8,
 * m16n16k8 tf32, m8n8k4 f64; see "wmma" below) and mma.sync (.row.col) for m16n8k16 and m16n8k8 with f16/bf16 inputs
 * (f32 or f16 accumulators), m16n8k8 and m16n8k4 tf32, m8n8k4 f64, m16n8k32 and
 * m16n8k16 s8/u8 with s32 (.satfinite). Fragment layouts are the PTX ISA's
 * ("Matrix Fragments for mma.m16n8k16 with floating point type" and its
 * neighbours): groupID = laneid >> 2, threadID_in_group = laneid % 4.
 *
 * Both need the whole warp (.sync.aligned): executed by part of it, the launch
 * fails naming the lanes. Products are exact (double; int64 for integers) and
 * summed in k order, then rounded once to the accumulator type (f64: fma in k
 * order); a GPU's internal order may round f32 sums differently in the last bit. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "interp.h"

static bool whole_warp(sim_warp_t *w, uint32_t m, const char *op) {
  if (m == 0xffffffffu) return true;
  char what[96];
  snprintf(what, sizeof what, "%s executed by part of the warp (lanes 0x%08x)", op, m);
  sim_interp_cannot(w, m, what);
  return false;
}

/* ---- ldmatrix ---- */

/* ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 {d..}, [a]: matrix j's eight
 * 16-byte rows come from the addresses of lanes 8j..8j+7; lane l gets row l/4,
 * columns 2(l%4) and 2(l%4)+1 (.trans: column l/4 of rows 2(l%4), 2(l%4)+1). */
static void ldmatrix(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  if (!whole_warp(w, m, "ldmatrix")) return;
  const uint64_t *A = SIM_R(w, in->a[0]);
  bool trans = in->flags & FT_PTX_F_TRANS;
  for (unsigned j = 0; j < in->nd; j++) {
    uint16_t mat[8][8];
    for (unsigned r = 0; r < 8; r++) {
      uint32_t l = 8 * j + r;
      const uint8_t *p = sim_interp_resolve(w, in->space, l, A[l] + (uint64_t)in->off, 16, false);
      if (!p) return;
      memcpy(mat[r], p, 16);
    }
    uint64_t *D = SIM_R(w, in->d[j]);
    for (uint32_t l = 0; l < 32; l++) {
      unsigned r = l / 4, c = 2 * (l % 4);
      uint16_t lo = trans ? mat[c][r] : mat[r][c], hi = trans ? mat[c + 1][r] : mat[r][c + 1];
      D[l] = (uint32_t)lo | (uint32_t)hi << 16;
    }
  }
}

/* ---- mma ---- */

/* The header words lower.c writes before the registers (xregs[in->target]). */
typedef struct {
  unsigned shape, ta, tb, tc, td, nd, na, nb, nc;
  bool satfinite;
} mma_desc_t;

static mma_desc_t desc(const sim_insn_t *in, const uint32_t *x) {
  mma_desc_t d = {.shape = x[0] & 31, .ta = (x[0] >> 5) & 63, .tb = (x[0] >> 11) & 63, .tc = (x[0] >> 17) & 63,
                  .td = in->type, .nd = x[1] & 31, .na = (x[1] >> 5) & 31, .nb = (x[1] >> 10) & 31,
                  .nc = (x[1] >> 15) & 31, .satfinite = (in->flags & FT_PTX_F_SATFINITE) != 0};
  return d;
}

static bool is_shape(unsigned shape, const char *name) { return strcmp(ft_ptx_shape_name(shape), name) == 0; }

/* Element i of lane l's A fragment: its row and column (K: the shape's k). */
static void a_pos(const mma_desc_t *d, unsigned K, uint32_t l, unsigned i, unsigned *r, unsigned *c) {
  unsigned g = l >> 2, t = l & 3;
  if (d->ta == FT_PTX_T_F64) { *r = g, *c = t; return; }                       /* m8n8k4 */
  if (d->ta == FT_PTX_T_TF32) {
    if (K == 4) { *r = g + 8 * i, *c = t; return; }
    *r = g + 8 * (i & 1), *c = t + 4 * (i >> 1); return;
  }
  if (d->ta == FT_PTX_T_S8 || d->ta == FT_PTX_T_U8) {
    if (K == 16) { *r = g + 8 * (i >> 2), *c = 4 * t + (i & 3); return; }
    *r = g + 8 * ((i >> 2) & 1), *c = 4 * t + (i & 3) + 16 * (i >> 3); return;
  }
  if (K == 8) { *r = g + 8 * (i >> 1), *c = 2 * t + (i & 1); return; }         /* f16 / bf16 */
  *r = g + 8 * ((i >> 1) & 1), *c = 2 * t + (i & 1) + 8 * (i >> 2);
}

/* Element i of lane l's B fragment: row (k) and column (n). */
static void b_pos(const mma_desc_t *d, unsigned K, uint32_t l, unsigned i, unsigned *r, unsigned *c) {
  unsigned g = l >> 2, t = l & 3;
  *c = g;
  if (d->tb == FT_PTX_T_F64) *r = t;
  else if (d->tb == FT_PTX_T_TF32) *r = t + 4 * i;
  else if (d->tb == FT_PTX_T_S8 || d->tb == FT_PTX_T_U8) *r = K == 16 ? 4 * t + i : 4 * t + (i & 3) + 16 * (i >> 2);
  else *r = K == 8 ? 2 * t + i : 2 * t + (i & 1) + 8 * (i >> 1);
}

/* Element i of lane l's C/D fragment. */
static void c_pos(unsigned M, uint32_t l, unsigned i, unsigned *r, unsigned *c) {
  unsigned g = l >> 2, t = l & 3;
  if (M == 8) { *r = g, *c = 2 * t + i; return; }
  *r = g + 8 * (i >> 1), *c = 2 * t + (i & 1);
}

/* Elements packed per register, and element e of a register's value. */
static unsigned per_reg(unsigned t) {
  return t == FT_PTX_T_F16 || t == FT_PTX_T_BF16 ? 2 : t == FT_PTX_T_S8 || t == FT_PTX_T_U8 ? 4 : 1;
}
static double elem(unsigned t, uint64_t v, unsigned e) {
  switch (t) {
    case FT_PTX_T_F16: return sim_half_value(v >> (16 * e), false);
    case FT_PTX_T_BF16: return sim_half_value(v >> (16 * e), true);
    case FT_PTX_T_S8: return (double)(int8_t)(v >> (8 * e));
    case FT_PTX_T_U8: return (double)(uint8_t)(v >> (8 * e));
    case FT_PTX_T_S32: return (double)(int32_t)v;
    case FT_PTX_T_TF32: { /* the low 13 mantissa bits are not used */
      uint32_t u = (uint32_t)v & 0xffffe000u;
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
    case FT_PTX_T_F32: {
      uint32_t u = (uint32_t)v;
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
    default: {
      double x;
      memcpy(&x, &v, 8);
      return x;
    }
  }
}

/* The operands gathered as matrices (rows x cols, at most 32 x 32). */
typedef struct {
  double a[32][32], b[32][32], c[32][32];
  int64_t ia[32][32], ib[32][32], ic[32][32];
} mats_t;

static void put(double (*f)[32], int64_t (*fi)[32], unsigned r, unsigned c, double v) {
  f[r][c] = v;
  fi[r][c] = (int64_t)v;
}

/* D's element (r, c) as the bits of type td: A x B + C, products exact, summed in
 * k order and rounded once (f64: fma in k order; integers: wrapping, or clamped
 * with .satfinite). */
static uint64_t result(const mats_t *x, unsigned K, unsigned ta, unsigned td, bool sat, unsigned r, unsigned c) {
  if (ta == FT_PTX_T_S8 || ta == FT_PTX_T_U8) {
    int64_t s = x->ic[r][c];
    for (unsigned k = 0; k < K; k++) s += x->ia[r][k] * x->ib[k][c];
    if (sat) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
    return (uint32_t)(int32_t)s;
  }
  uint64_t bits;
  double s = x->c[r][c];
  if (td == FT_PTX_T_F64) {
    for (unsigned k = 0; k < K; k++) s = fma(x->a[r][k], x->b[k][c], s);
    memcpy(&bits, &s, 8);
    return bits;
  }
  for (unsigned k = 0; k < K; k++) s += x->a[r][k] * x->b[k][c];
  if (td == FT_PTX_T_F16) {
    _Float16 h = (_Float16)s;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
  }
  float f = (float)s;
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static void mma(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  if (!whole_warp(w, m, "mma.sync")) return;
  const uint32_t *x = w->blk->g->prog->xregs + in->target;
  mma_desc_t d = desc(in, x);
  const uint32_t *rd = x + 2, *ra = rd + d.nd, *rb = ra + d.na, *rc = rb + d.nb;
  unsigned M = is_shape(d.shape, "m8n8k4") ? 8 : 16; /* N is 8 */
  unsigned K = is_shape(d.shape, "m16n8k32") ? 32 : is_shape(d.shape, "m16n8k16") ? 16
             : is_shape(d.shape, "m16n8k8") ? 8 : 4;
  static _Thread_local mats_t mt;
  unsigned pa = per_reg(d.ta), pb = per_reg(d.tb), pc = per_reg(d.tc), pd = per_reg(d.td);
  for (uint32_t l = 0; l < 32; l++) {
    unsigned r, col;
    for (unsigned i = 0; i < d.na * pa; i++) {
      a_pos(&d, K, l, i, &r, &col);
      put(mt.a, mt.ia, r, col, elem(d.ta, SIM_R(w, ra[i / pa])[l], i % pa));
    }
    for (unsigned i = 0; i < d.nb * pb; i++) {
      b_pos(&d, K, l, i, &r, &col);
      put(mt.b, mt.ib, r, col, elem(d.tb, SIM_R(w, rb[i / pb])[l], i % pb));
    }
    for (unsigned i = 0; i < d.nc * pc; i++) {
      c_pos(M, l, i, &r, &col);
      put(mt.c, mt.ic, r, col, elem(d.tc, SIM_R(w, rc[i / pc])[l], i % pc));
    }
  }
  /* Results first, registers after: D may name C's or A's registers. */
  uint64_t out[4][32] = {{0}};
  for (uint32_t l = 0; l < 32; l++)
    for (unsigned i = 0; i < d.nd * pd; i++) {
      unsigned r, col;
      c_pos(M, l, i, &r, &col);
      uint64_t bits = result(&mt, K, d.ta, d.td, d.satfinite, r, col);
      out[i / pd][l] |= pd == 2 ? bits << (16 * (i % 2)) : bits;
    }
  for (unsigned j = 0; j < d.nd; j++) memcpy(SIM_R(w, rd[j]), out[j], sizeof out[j]);
}

/* ---- wmma ----
 * Fragments of wmma are opaque in PTX (the layout is the implementation's): the
 * simulator gives element e of lane l the matrix element at linear index
 * (l * E + e) mod (rows * cols), E elements per lane, row-major in the logical
 * matrix; fragments larger than the matrix hold some elements twice, as GPUs do.
 * xregs header: shape | frag << 5 | col << 8 | registers << 9 (load/store); for
 * mma: shape | A col << 5 | B col << 6 | A type << 7 | B type << 13 | C type << 19,
 * then the D, A, B, C register counts. */

static bool wmma_dims(unsigned shape, unsigned *M, unsigned *N, unsigned *K) {
  static const struct { const char *name; unsigned m, n, k; } dims[] = {
    {"m16n16k16", 16, 16, 16}, {"m32n8k16", 32, 8, 16}, {"m8n32k16", 8, 32, 16},
    {"m16n16k8", 16, 16, 8}, {"m8n8k4", 8, 8, 4}};
  for (unsigned i = 0; i < sizeof dims / sizeof dims[0]; i++)
    if (is_shape(shape, dims[i].name)) {
      *M = dims[i].m, *N = dims[i].n, *K = dims[i].k;
      return true;
    }
  return false;
}

static void frag_dims(unsigned frag, unsigned M, unsigned N, unsigned K, unsigned *rows, unsigned *cols) {
  if (frag == FT_PTX_FRAG_A) *rows = M, *cols = K;
  else if (frag == FT_PTX_FRAG_B) *rows = K, *cols = N;
  else *rows = M, *cols = N;
}

/* wmma.load.<frag> {regs}, [a[0] + off], a[1] (stride in elements; 0: the
 * matrix's own width) and wmma.store.d [a[0] + off], {regs}, a[1]. */
static void wmma_ldst(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  bool store = in->op == FT_PTX_OP_WMMA_STORE;
  if (!whole_warp(w, m, store ? "wmma.store" : "wmma.load")) return;
  const uint32_t *x = w->blk->g->prog->xregs + in->target;
  unsigned shape = x[0] & 31, frag = (x[0] >> 5) & 7, col = (x[0] >> 8) & 1, nregs = (x[0] >> 9) & 31;
  const uint32_t *regs = x + 1;
  unsigned M, N, K, rows, cols;
  wmma_dims(shape, &M, &N, &K);
  frag_dims(frag, M, N, K, &rows, &cols);
  unsigned t = in->type, per = per_reg(t), es = ft_ptx_type_size(t), E = nregs * per;
  const uint64_t *A = SIM_R(w, in->a[0]), *S = SIM_R(w, in->a[1]);
  uint64_t out[8][32] = {{0}};
  for (uint32_t l = 0; l < 32; l++) {
    uint64_t stride = S[l] ? S[l] : col ? rows : cols;
    for (unsigned e = 0; e < E; e++) {
      unsigned idx = (l * E + e) % (rows * cols), r = idx / cols, c = idx % cols;
      uint64_t off = (col ? (uint64_t)c * stride + r : (uint64_t)r * stride + c) * es;
      uint8_t *p = sim_interp_resolve(w, in->space, l, A[l] + (uint64_t)in->off + off, es, store);
      if (!p) return;
      unsigned shift = per == 1 ? 0 : (e % per) * 8 * es;
      if (store) {
        uint64_t v = SIM_R(w, regs[e / per])[l] >> shift;
        memcpy(p, &v, es); /* little-endian host */
      } else {
        uint64_t v = 0;
        memcpy(&v, p, es);
        out[e / per][l] |= v << shift;
      }
    }
  }
  if (!store)
    for (unsigned j = 0; j < nregs; j++) memcpy(SIM_R(w, regs[j]), out[j], sizeof out[j]);
}

static void wmma_mma(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  if (!whole_warp(w, m, "wmma.mma")) return;
  const uint32_t *x = w->blk->g->prog->xregs + in->target;
  unsigned shape = x[0] & 31, ta = (x[0] >> 7) & 63, tb = (x[0] >> 13) & 63, tc = (x[0] >> 19) & 63, td = in->type;
  unsigned nd = x[1] & 31, na = (x[1] >> 5) & 31, nb = (x[1] >> 10) & 31, nc = (x[1] >> 15) & 31;
  const uint32_t *rd = x + 2, *ra = rd + nd, *rb = ra + na, *rc = rb + nb;
  unsigned M, N, K;
  wmma_dims(shape, &M, &N, &K);
  static _Thread_local mats_t mt;
  struct { const uint32_t *regs; unsigned n, t, rows, cols; double (*f)[32]; int64_t (*fi)[32]; } ops[3] = {
    {ra, na, ta, M, K, mt.a, mt.ia}, {rb, nb, tb, K, N, mt.b, mt.ib}, {rc, nc, tc, M, N, mt.c, mt.ic}};
  for (unsigned o = 0; o < 3; o++) {
    unsigned per = per_reg(ops[o].t), E = ops[o].n * per, total = ops[o].rows * ops[o].cols;
    for (uint32_t l = 0; l < 32; l++)
      for (unsigned e = 0; e < E; e++) {
        unsigned idx = (l * E + e) % total;
        put(ops[o].f, ops[o].fi, idx / ops[o].cols, idx % ops[o].cols, elem(ops[o].t, SIM_R(w, ops[o].regs[e / per])[l], e % per));
      }
  }
  unsigned per = per_reg(td), E = nd * per;
  uint64_t out[8][32] = {{0}};
  for (uint32_t l = 0; l < 32; l++)
    for (unsigned e = 0; e < E; e++) {
      unsigned idx = (l * E + e) % (M * N);
      uint64_t bits = result(&mt, K, ta, td, (in->flags & FT_PTX_F_SATFINITE) != 0, idx / N, idx % N);
      out[e / per][l] |= per == 2 ? bits << (16 * (e % 2)) : bits;
    }
  for (unsigned j = 0; j < nd; j++) memcpy(SIM_R(w, rd[j]), out[j], sizeof out[j]);
}

/* Registers a wmma fragment takes: its elements over 32 lanes, at least one
 * matrix's worth (f16 A and B fragments of m16n16k16 hold 16 per lane). */
static unsigned wmma_regs(unsigned shape, unsigned frag, unsigned t) {
  unsigned M, N, K, rows, cols;
  if (!wmma_dims(shape, &M, &N, &K)) return 0;
  frag_dims(frag, M, N, K, &rows, &cols);
  if (t == FT_PTX_T_F16 && (frag == FT_PTX_FRAG_A || frag == FT_PTX_FRAG_B)) return 8;
  unsigned per = per_reg(t);
  return (rows * cols + 32 * per - 1) / (32 * per);
}

static bool wmma_type(unsigned t) {
  return t == FT_PTX_T_F16 || t == FT_PTX_T_BF16 || t == FT_PTX_T_F32 || t == FT_PTX_T_TF32 || t == FT_PTX_T_F64 ||
         t == FT_PTX_T_S8 || t == FT_PTX_T_U8 || t == FT_PTX_T_S32;
}

sim_exec_fn sim_choose_matrix(sim_insn_t *in, const uint32_t *x) {
  if ((in->op == FT_PTX_OP_WMMA_LOAD || in->op == FT_PTX_OP_WMMA_STORE) && x) {
    unsigned shape = x[0] & 31, frag = (x[0] >> 5) & 7, nregs = (x[0] >> 9) & 31;
    bool ok = wmma_type(in->type) && nregs == wmma_regs(shape, frag, in->type) && nregs <= 8 &&
              (in->op == FT_PTX_OP_WMMA_LOAD || frag == FT_PTX_FRAG_D);
    return ok ? wmma_ldst : NULL;
  }
  if (in->op == FT_PTX_OP_WMMA_MMA && x) {
    unsigned shape = x[0] & 31, ta = (x[0] >> 7) & 63, tb = (x[0] >> 13) & 63, tc = (x[0] >> 19) & 63;
    unsigned nd = x[1] & 31, na = (x[1] >> 5) & 31, nb = (x[1] >> 10) & 31, nc = (x[1] >> 15) & 31;
    bool f16 = ta == FT_PTX_T_F16 && tb == FT_PTX_T_F16 && (tc == FT_PTX_T_F16 || tc == FT_PTX_T_F32) &&
               (in->type == FT_PTX_T_F16 || in->type == FT_PTX_T_F32) && !is_shape(shape, "m16n16k8") &&
               !is_shape(shape, "m8n8k4");
    bool bf16 = ta == FT_PTX_T_BF16 && tb == ta && tc == FT_PTX_T_F32 && in->type == tc && !is_shape(shape, "m16n16k8") &&
                !is_shape(shape, "m8n8k4");
    bool tf32 = ta == FT_PTX_T_TF32 && tb == ta && tc == FT_PTX_T_F32 && in->type == tc && is_shape(shape, "m16n16k8");
    bool f64 = ta == FT_PTX_T_F64 && tb == ta && tc == ta && in->type == ta && is_shape(shape, "m8n8k4");
    bool i8 = (ta == FT_PTX_T_S8 || ta == FT_PTX_T_U8) && tb == ta && tc == FT_PTX_T_S32 && in->type == tc &&
              !is_shape(shape, "m16n16k8") && !is_shape(shape, "m8n8k4");
    bool ok = (f16 || bf16 || tf32 || f64 || i8) && nd == wmma_regs(shape, FT_PTX_FRAG_D, in->type) &&
              na == wmma_regs(shape, FT_PTX_FRAG_A, ta) && nb == wmma_regs(shape, FT_PTX_FRAG_B, tb) &&
              nc == wmma_regs(shape, FT_PTX_FRAG_C, tc) && !((in->flags & FT_PTX_F_SATFINITE) && !i8);
    return ok ? wmma_mma : NULL;
  }
  if (in->op == FT_PTX_OP_LDMATRIX)
    return in->type == FT_PTX_T_B16 && in->nd == in->vec && (in->vec == 1 || in->vec == 2 || in->vec == 4) &&
                   (in->space == FT_PTX_SP_SHARED || in->space == FT_PTX_SP_GENERIC)
               ? ldmatrix
               : NULL;
  if (in->op != FT_PTX_OP_MMA || !x) return NULL;
  mma_desc_t d = desc(in, x);
  if (d.tc != d.td || d.ta != d.tb) {
    /* s8 x u8 mixes are allowed, as are f32 accumulators of f16 inputs */
    bool mixed_int = (d.ta == FT_PTX_T_S8 || d.ta == FT_PTX_T_U8) && (d.tb == FT_PTX_T_S8 || d.tb == FT_PTX_T_U8);
    if (d.tc != d.td || !mixed_int) return NULL;
  }
  unsigned want_a = 0, want_b = 0, want_c = 0;
  bool f16in = d.ta == FT_PTX_T_F16 || d.ta == FT_PTX_T_BF16;
  bool f16acc_ok = d.ta == FT_PTX_T_F16 && d.td == FT_PTX_T_F16;
  if (f16in && (d.td == FT_PTX_T_F32 || f16acc_ok)) {
    want_c = d.td == FT_PTX_T_F32 ? 4 : 2;
    if (is_shape(d.shape, "m16n8k16")) want_a = 4, want_b = 2;
    else if (is_shape(d.shape, "m16n8k8")) want_a = 2, want_b = 1;
  } else if (d.ta == FT_PTX_T_TF32 && d.td == FT_PTX_T_F32) {
    want_c = 4;
    if (is_shape(d.shape, "m16n8k8")) want_a = 4, want_b = 2;
    else if (is_shape(d.shape, "m16n8k4")) want_a = 2, want_b = 1;
  } else if (d.ta == FT_PTX_T_F64 && d.td == FT_PTX_T_F64 && is_shape(d.shape, "m8n8k4")) {
    want_a = 1, want_b = 1, want_c = 2;
  } else if ((d.ta == FT_PTX_T_S8 || d.ta == FT_PTX_T_U8) && d.td == FT_PTX_T_S32) {
    want_c = 4;
    if (is_shape(d.shape, "m16n8k32")) want_a = 4, want_b = 2;
    else if (is_shape(d.shape, "m16n8k16")) want_a = 2, want_b = 1;
  }
  if (!want_a || d.na != want_a || d.nb != want_b || d.nc != want_c || d.nd != want_c) return NULL;
  if (d.satfinite && d.td != FT_PTX_T_S32) return NULL;
  return mma;
}
