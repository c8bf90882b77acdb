/* compare.c: setp (both destinations, bool combine; f16/bf16 scalars and x2 pairs
 * too), set, selp, slct over integer and float operands with every PTX comparison,
 * unordered ones included. */
#include <math.h>
#include <string.h>

#include "interp.h"
#include "lanes.h"

static inline unsigned bits_of(unsigned t) { return ft_ptx_type_size(t) * 8; }

static bool cmp_eval(unsigned cmp, unsigned type, uint64_t ua, uint64_t ub) {
  bool half = type == FT_PTX_T_F16 || type == FT_PTX_T_BF16;
  if (type == FT_PTX_T_F32 || type == FT_PTX_T_F64 || half) {
    double a, b;
    if (half) {
      a = sim_half_value(ua, type == FT_PTX_T_BF16);
      b = sim_half_value(ub, type == FT_PTX_T_BF16);
    } else if (type == FT_PTX_T_F32) {
      float fa, fb;
      uint32_t x = (uint32_t)ua, y = (uint32_t)ub;
      memcpy(&fa, &x, 4);
      memcpy(&fb, &y, 4);
      a = fa;
      b = fb;
    } else {
      memcpy(&a, &ua, 8);
      memcpy(&b, &ub, 8);
    }
    bool un = isnan(a) || isnan(b);
    switch (cmp) {
      case FT_PTX_CMP_EQ: return !un && a == b;
      case FT_PTX_CMP_NE: return !un && a != b;
      case FT_PTX_CMP_LT: return !un && a < b;
      case FT_PTX_CMP_LE: return !un && a <= b;
      case FT_PTX_CMP_GT: return !un && a > b;
      case FT_PTX_CMP_GE: return !un && a >= b;
      case FT_PTX_CMP_EQU: return un || a == b;
      case FT_PTX_CMP_NEU: return un || a != b;
      case FT_PTX_CMP_LTU: return un || a < b;
      case FT_PTX_CMP_LEU: return un || a <= b;
      case FT_PTX_CMP_GTU: return un || a > b;
      case FT_PTX_CMP_GEU: return un || a >= b;
      case FT_PTX_CMP_NUM: return !un;
      case FT_PTX_CMP_NAN: return un;
      default: return false;
    }
  }
  unsigned bits = type == FT_PTX_T_PRED ? 1 : bits_of(type);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  ua &= mask;
  ub &= mask;
  int64_t sa = bits >= 64 ? (int64_t)ua : (int64_t)(ua << (64 - bits)) >> (64 - bits);
  int64_t sb = bits >= 64 ? (int64_t)ub : (int64_t)(ub << (64 - bits)) >> (64 - bits);
  bool sgn = sim_type_signed(type);
  switch (cmp) {
    case FT_PTX_CMP_EQ: return ua == ub;
    case FT_PTX_CMP_NE: return ua != ub;
    case FT_PTX_CMP_LT: return sgn ? sa < sb : ua < ub;
    case FT_PTX_CMP_LE: return sgn ? sa <= sb : ua <= ub;
    case FT_PTX_CMP_GT: return sgn ? sa > sb : ua > ub;
    case FT_PTX_CMP_GE: return sgn ? sa >= sb : ua >= ub;
    case FT_PTX_CMP_LO: return ua < ub;
    case FT_PTX_CMP_LS: return ua <= ub;
    case FT_PTX_CMP_HI: return ua > ub;
    case FT_PTX_CMP_HS: return ua >= ub;
    default: return false;
  }
}

/* .ftz on f32 compares: subnormal operands count as zero. */
static inline uint64_t flush32(uint64_t v, bool ftz) {
  uint32_t u = (uint32_t)v;
  return (ftz && !(u & 0x7f800000u)) ? (u & 0x80000000u) : v;
}

static inline bool combine(unsigned op, bool x, bool c) {
  switch (op) {
    case FT_PTX_BOOL_AND: return x && c;
    case FT_PTX_BOOL_OR: return x || c;
    case FT_PTX_BOOL_XOR: return x != c;
    default: return x;
  }
}

/* .ftz on f16 compares: subnormal halves count as zero. */
static inline uint64_t flush16(uint64_t v, bool ftz) {
  uint16_t h = (uint16_t)v;
  return (ftz && !(h & 0x7c00u)) ? (h & 0x8000u) : h;
}

/* setp.cmp[.bool].f16x2/.bf16x2 p|q, a, b[, {!}c]: p compares the low halves, q
 * the high halves, each combined with c. */
static void setp_x2(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *P = SIM_R(w, in->d[0]), *Q = SIM_R(w, in->d[1]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);
  const uint64_t *C = in->na > 2 ? SIM_R(w, in->a[2]) : NULL;
  bool cneg = in->aneg & 4, ftz = (in->flags & FT_PTX_F_FTZ) && in->type == FT_PTX_T_F16X2;
  unsigned t = in->type == FT_PTX_T_F16X2 ? FT_PTX_T_F16 : FT_PTX_T_BF16;
  SIM_LANES(m, l, {
    bool c = C ? ((C[l] & 1) != 0) != cneg : false;
    P[l] = combine(in->boolop, cmp_eval(in->cmp, t, flush16(A[l], ftz), flush16(B[l], ftz)), c);
    Q[l] = combine(in->boolop, cmp_eval(in->cmp, t, flush16(A[l] >> 16, ftz), flush16(B[l] >> 16, ftz)), c);
  });
}

/* setp.cmp[.bool].type p[|q], a, b[, {!}c]; d[1] is a sink register when absent. */
static void setp(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *P = SIM_R(w, in->d[0]), *Q = SIM_R(w, in->d[1]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);
  const uint64_t *C = in->na > 2 ? SIM_R(w, in->a[2]) : NULL;
  bool cneg = in->aneg & 4, ftz = (in->flags & FT_PTX_F_FTZ) && in->type == FT_PTX_T_F32;
  bool ftz16 = (in->flags & FT_PTX_F_FTZ) && in->type == FT_PTX_T_F16;
  SIM_LANES(m, l, {
    bool x = ftz16 ? cmp_eval(in->cmp, in->type, flush16(A[l], true), flush16(B[l], true))
                   : cmp_eval(in->cmp, in->type, flush32(A[l], ftz), flush32(B[l], ftz));
    bool c = C ? ((C[l] & 1) != 0) != cneg : false;
    P[l] = combine(in->boolop, x, c);
    Q[l] = combine(in->boolop, !x, c);
  });
}

/* The hot integer forms without a bool combine (lane statements: lanes.h). */
#define SETP32(name, T, op)                                                        \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {             \
    uint64_t *P = SIM_R(w, in->d[0]), *Q = SIM_R(w, in->d[1]);                     \
    const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);              \
    SIM_LANES(m, l, SIM_L_SETP32(T, op));                                          \
  }
#define SETP32U(name, op)                                                          \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {             \
    uint64_t *P = SIM_R(w, in->d[0]), *Q = SIM_R(w, in->d[1]);                     \
    const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);              \
    SIM_LANES(m, l, SIM_L_SETP32U(op));                                            \
  }
#define SETP32_FORMS(X) X(setp_lt_s, int32_t, <) X(setp_le_s, int32_t, <=) X(setp_gt_s, int32_t, >) X(setp_ge_s, int32_t, >=)
#define SETP32U_FORMS(X) X(setp_lt_u, <) X(setp_le_u, <=) X(setp_gt_u, >) X(setp_ge_u, >=) X(setp_eq, ==) X(setp_ne, !=)
SETP32_FORMS(SETP32)
SETP32U_FORMS(SETP32U)

/* set.cmp[.bool].dtype.stype d, a, b[, c]: all ones (integer) or 1.0 (f32) if true. */
static void set(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);
  const uint64_t *C = in->na > 2 ? SIM_R(w, in->a[2]) : NULL;
  bool cneg = in->aneg & 4, ftz = (in->flags & FT_PTX_F_FTZ) && in->type2 == FT_PTX_T_F32;
  uint64_t one = in->type == FT_PTX_T_F32 ? 0x3f800000u : 0xffffffffu;
  SIM_LANES(m, l, {
    bool c = C ? ((C[l] & 1) != 0) != cneg : false;
    D[l] = combine(in->boolop, cmp_eval(in->cmp, in->type2, flush32(A[l], ftz), flush32(B[l], ftz)), c) ? one : 0;
  });
}

/* set with a half-precision source: scalar, or per half for .f16x2/.bf16x2 (each
 * result half then 0xffff for an integer destination). True is all ones for an
 * integer destination, 1.0 in the destination's float format otherwise. */
static void set16(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);
  const uint64_t *C = in->na > 2 ? SIM_R(w, in->a[2]) : NULL;
  unsigned st = in->type2, dt = in->type;
  bool x2 = st == FT_PTX_T_F16X2 || st == FT_PTX_T_BF16X2;
  unsigned t = st == FT_PTX_T_F16 || st == FT_PTX_T_F16X2 ? FT_PTX_T_F16 : FT_PTX_T_BF16;
  bool cneg = in->aneg & 4, ftz = (in->flags & FT_PTX_F_FTZ) && t == FT_PTX_T_F16;
  uint64_t one = dt == FT_PTX_T_F32 ? 0x3f800000u : dt == FT_PTX_T_F16 || dt == FT_PTX_T_F16X2 ? 0x3c00u
               : dt == FT_PTX_T_BF16 || dt == FT_PTX_T_BF16X2 ? 0x3f80u : x2 ? 0xffffu : 0xffffffffu;
  SIM_LANES(m, l, {
    bool c = C ? ((C[l] & 1) != 0) != cneg : false;
    uint64_t d = 0;
    for (unsigned k = 0; k < (x2 ? 2u : 1u); k++) {
      bool x = cmp_eval(in->cmp, t, flush16(A[l] >> (16 * k), ftz), flush16(B[l] >> (16 * k), ftz));
      if (combine(in->boolop, x, c)) d |= one << (16 * k);
    }
    D[l] = d;
  });
}

static unsigned selp_cneg(const sim_insn_t *in) { return (in->aneg & 4) != 0; }
static void selp(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]), *C = SIM_R(w, in->a[2]);
  bool cneg = selp_cneg(in);
  SIM_LANES(m, l, SIM_L_SELP(cneg));
}

/* slct.dtype.{s32,f32} d, a, b, c: c >= 0 selects a. */
static void slct(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]), *C = SIM_R(w, in->a[2]);
  bool f = in->type2 == FT_PTX_T_F32, ftz = in->flags & FT_PTX_F_FTZ;
  SIM_LANES(m, l, {
    bool ge;
    if (f) {
      uint32_t u = (uint32_t)C[l];
      if (ftz && !(u & 0x7f800000u)) u &= 0x80000000u;
      float c;
      memcpy(&c, &u, 4);
      ge = c >= 0.0f;
    } else {
      ge = (int32_t)C[l] >= 0;
    }
    D[l] = ge ? A[l] : B[l];
  });
}

sim_exec_fn sim_choose_compare(sim_insn_t *in) {
  switch ((ft_ptx_opcode_t)in->op) {
    case FT_PTX_OP_SETP: {
      if (in->type == FT_PTX_T_F16X2 || in->type == FT_PTX_T_BF16X2) return setp_x2;
      bool s = in->type == FT_PTX_T_S32, u = in->type == FT_PTX_T_U32 || in->type == FT_PTX_T_B32;
      if (!in->boolop && (s || u)) {
        switch (in->cmp) {
          case FT_PTX_CMP_EQ: return setp_eq;
          case FT_PTX_CMP_NE: return setp_ne;
          case FT_PTX_CMP_LT: return s ? setp_lt_s : setp_lt_u;
          case FT_PTX_CMP_LE: return s ? setp_le_s : setp_le_u;
          case FT_PTX_CMP_GT: return s ? setp_gt_s : setp_gt_u;
          case FT_PTX_CMP_GE: return s ? setp_ge_s : setp_ge_u;
          case FT_PTX_CMP_LO: return setp_lt_u;
          case FT_PTX_CMP_LS: return setp_le_u;
          case FT_PTX_CMP_HI: return setp_gt_u;
          case FT_PTX_CMP_HS: return setp_ge_u;
          default: break;
        }
      }
      return setp;
    }
    case FT_PTX_OP_SET:
    {
      unsigned st = in->type2, dt = in->type;
      bool h = st == FT_PTX_T_F16 || st == FT_PTX_T_BF16, h2 = st == FT_PTX_T_F16X2 || st == FT_PTX_T_BF16X2;
      bool dint = dt == FT_PTX_T_U32 || dt == FT_PTX_T_S32 || dt == FT_PTX_T_B32;
      if (h) return dint || dt == FT_PTX_T_F32 || dt == FT_PTX_T_F16 || dt == FT_PTX_T_BF16 ? set16 : NULL;
      if (h2) return dint || dt == FT_PTX_T_F16X2 || dt == FT_PTX_T_BF16X2 ? set16 : NULL;
      if (dt == FT_PTX_T_F16 || dt == FT_PTX_T_BF16 || dt == FT_PTX_T_F16X2 || dt == FT_PTX_T_BF16X2) return NULL;
      return set;
    }
    case FT_PTX_OP_SELP: return selp;
    case FT_PTX_OP_SLCT: return slct;
    default: return NULL;
  }
}

/* The translator's table (jit.c): each executor above with a lanes.h statement. */
#define JIT_SETP32(name, T, op) SIM_JIT_LANE(name, "SIM_L_SETP32(" #T ", " #op ")", NULL),
#define JIT_SETP32U(name, op) SIM_JIT_LANE(name, "SIM_L_SETP32U(" #op ")", NULL),
const sim_jit_form_t sim_jit_forms_compare[] = {SETP32_FORMS(JIT_SETP32) SETP32U_FORMS(JIT_SETP32U)
                                                SIM_JIT_LANE(selp, "SIM_L_SELP(%u)", selp_cneg),
                                                SIM_JIT_END};
