/* alu_int.c: integer and bit instructions (add/sub with carries, mul/mad lo/hi/wide,
 * div/rem, min/max, abs/neg, logic, shifts, bfe/bfi/bfind/brev/popc/clz, prmt, shf,
 * lop3, sad, mov with packing). Values are kept zero-extended in 64-bit slots. */
#include "interp.h"
#include "lanes.h"

static inline unsigned bits_of(unsigned t) { return t == FT_PTX_T_PRED ? 1 : ft_ptx_type_size(t) * 8; }
static inline uint64_t trunc_to(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }
static inline int64_t sext(uint64_t v, unsigned bits) {
  return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}

#define OPS3                                                        \
  uint64_t *D = SIM_R(w, in->d[0]);                                 \
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]); \
  (void)B
#define OPS4 OPS3; const uint64_t *C = SIM_R(w, in->a[2])

/* Fast 32-bit forms (the bulk of every kernel); their lane statements are lanes.h's,
 * which the translator (jit.c) pastes into translated code. */
#define BIN32(name, expr)                                                  \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {     \
    OPS3;                                                                  \
    SIM_LANES(m, l, SIM_L_BIN32(expr));                                    \
  }
/* The same on whole slots, the result cut to 32 bits (the low 32 bits of a sum,
 * difference, product or bitwise result depend on the operands' low 32 bits
 * only): the compiler keeps 64-bit lanes instead of packing and unpacking. */
#define BIN32W(name, expr)                                                 \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {     \
    OPS3;                                                                  \
    SIM_LANES(m, l, SIM_L_BIN32W(expr));                                   \
  }
#define BIN32W_FORMS(X)                                    \
  X(add32, a + b)                                          \
  X(sub32, a - b)                                          \
  X(mullo32, a * b)                                        \
  X(and32, a & b)                                          \
  X(or32, a | b)                                           \
  X(xor32, a ^ b)                                          \
  X(shl32, (b & SIM_M32) > 31 ? 0 : (a & SIM_M32) << (b & SIM_M32)) \
  X(shru32, (b & SIM_M32) > 31 ? 0 : (a & SIM_M32) >> (b & SIM_M32))
#define BIN32_FORMS(X)                                     \
  X(shrs32, (uint32_t)((int32_t)a >> (b > 31 ? 31 : b)))   \
  X(minu32, a < b ? a : b)                                 \
  X(maxu32, a > b ? a : b)                                 \
  X(mins32, (int32_t)a < (int32_t)b ? a : b)               \
  X(maxs32, (int32_t)a > (int32_t)b ? a : b)               \
  X(mulhiu32, ((uint64_t)a * b) >> 32)                     \
  X(mulhis32, (uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32)
BIN32W_FORMS(BIN32W)
BIN32_FORMS(BIN32)

static void madlo32(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { OPS4; SIM_LANES(m, l, SIM_L_MADLO32); }
static void add64(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { OPS3; SIM_LANES(m, l, SIM_L_ADD64); }
static void mulwides32(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { OPS3; SIM_LANES(m, l, SIM_L_MULWIDES32); }
static void mulwideu32(sim_warp_t *w, const sim_insn_t *in, uint32_t m) { OPS3; SIM_LANES(m, l, SIM_L_MULWIDEU32); }
static unsigned mov_bits(const sim_insn_t *in) { return bits_of(in->type); }
static void mov(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  unsigned bits = mov_bits(in);
  SIM_LANES(m, l, SIM_L_MOV(bits));
}

/* The translator's table (jit.c): each executor above and its lane statement. */
#define JIT_BIN32W(name, expr) SIM_JIT_LANE(name, "SIM_L_BIN32W(" #expr ")", NULL),
#define JIT_BIN32(name, expr) SIM_JIT_LANE(name, "SIM_L_BIN32(" #expr ")", NULL),
const sim_jit_form_t sim_jit_forms_int[] = {BIN32W_FORMS(JIT_BIN32W) BIN32_FORMS(JIT_BIN32)
                                            SIM_JIT_LANE(madlo32, "SIM_L_MADLO32", NULL),
                                            SIM_JIT_LANE(add64, "SIM_L_ADD64", NULL),
                                            SIM_JIT_LANE(mulwides32, "SIM_L_MULWIDES32", NULL),
                                            SIM_JIT_LANE(mulwideu32, "SIM_L_MULWIDEU32", NULL),
                                            SIM_JIT_LANE(mov, "SIM_L_MOV(%u)", mov_bits),
                                            SIM_JIT_END};

/* ---- generic widths ---- */
typedef enum { G_ADD, G_SUB, G_MULLO, G_MULHI, G_MULWIDE, G_DIV, G_REM, G_MIN, G_MAX, G_AND, G_OR, G_XOR,
               G_SHL, G_SHR, G_ADDSAT, G_SUBSAT } gop_t;

static uint64_t gen_op(gop_t op, uint64_t a, uint64_t b, unsigned bits, bool sgn) {
  int64_t sa = sext(a, bits), sb = sext(b, bits);
  uint64_t ua = trunc_to(a, bits), ub = trunc_to(b, bits);
  switch (op) {
    case G_ADD: return ua + ub;
    case G_SUB: return ua - ub;
    case G_MULLO: return ua * ub;
    case G_MULHI:
      if (sgn) return (uint64_t)(((__int128)sa * sb) >> bits);
      return (uint64_t)(((unsigned __int128)ua * ub) >> bits);
    case G_MULWIDE: return sgn ? (uint64_t)(sa * sb) : ua * ub;
    case G_DIV:
      if (!ub) return ~0ull; /* what the hardware returns; never a host trap */
      if (sgn) return (sb == -1) ? (uint64_t)(-(uint64_t)sa) : (uint64_t)(sa / sb);
      return ua / ub;
    case G_REM:
      if (!ub) return ua;
      if (sgn) return sb == -1 ? 0 : (uint64_t)(sa % sb);
      return ua % ub;
    case G_MIN: return sgn ? (uint64_t)(sa < sb ? sa : sb) : (ua < ub ? ua : ub);
    case G_MAX: return sgn ? (uint64_t)(sa > sb ? sa : sb) : (ua > ub ? ua : ub);
    case G_AND: return ua & ub;
    case G_OR: return ua | ub;
    case G_XOR: return ua ^ ub;
    case G_SHL: return (b & 0xffffffffu) >= bits ? 0 : ua << (b & 0xffffffffu);
    case G_SHR: {
      uint32_t s = (uint32_t)b;
      if (sgn) return (uint64_t)(sa >> (s >= bits ? bits - 1 : s));
      return s >= bits ? 0 : ua >> s;
    }
    case G_ADDSAT: case G_SUBSAT: {
      int64_t r = op == G_ADDSAT ? sa + sb : sa - sb; /* s32 only: no overflow in 64 bits */
      if (r > INT32_MAX) r = INT32_MAX;
      if (r < INT32_MIN) r = INT32_MIN;
      return (uint64_t)r;
    }
  }
  return 0;
}

/* The operation is in in->mode's high bits? No: keep it in a table indexed by exec
 * function; generic functions carry their op in the instruction's `sub` slot. */
#define GEN(name, OP)                                                                          \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {                        \
    OPS3;                                                                                      \
    unsigned bits = bits_of(in->type2 ? in->type2 : in->type), dbits = bits_of(in->type);    \
    bool sgn = sim_type_signed(in->type2 ? in->type2 : in->type);                             \
    SIM_LANES(m, l, D[l] = trunc_to(gen_op(OP, A[l], B[l], bits, sgn), dbits));               \
  }
GEN(g_add, G_ADD)
GEN(g_sub, G_SUB)
GEN(g_mullo, G_MULLO)
GEN(g_mulhi, G_MULHI)
GEN(g_mulwide, G_MULWIDE)
GEN(g_div, G_DIV)
GEN(g_rem, G_REM)
GEN(g_min, G_MIN)
GEN(g_max, G_MAX)
GEN(g_and, G_AND)
GEN(g_or, G_OR)
GEN(g_xor, G_XOR)
GEN(g_shl, G_SHL)
GEN(g_shr, G_SHR)
GEN(g_addsat, G_ADDSAT)
GEN(g_subsat, G_SUBSAT)

/* mad: lo/hi/wide of a*b, plus c (at the result width). */
static void g_mad(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS4;
  unsigned bits = bits_of(in->type2), dbits = bits_of(in->type);
  bool sgn = sim_type_signed(in->type2);
  gop_t op = (in->flags & FT_PTX_F_HI) ? G_MULHI : (in->flags & FT_PTX_F_WIDE) ? G_MULWIDE : G_MULLO;
  SIM_LANES(m, l, D[l] = trunc_to(gen_op(op, A[l], B[l], bits, sgn) + C[l], dbits));
}

/* Carry chains: add.cc/addc/sub.cc/subc/mad.cc/madc (32 and 64 bits). The flag is
 * per lane; subtraction's flag is the borrow, as PTX defines subc: a - (b + CF). */
static void carry_op(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);
  const uint64_t *C = in->na > 2 ? SIM_R(w, in->a[2]) : NULL;
  unsigned bits = bits_of(in->type);
  bool cin = in->op == FT_PTX_OP_ADDC || in->op == FT_PTX_OP_SUBC || in->op == FT_PTX_OP_MADC;
  bool sub = in->op == FT_PTX_OP_SUB || in->op == FT_PTX_OP_SUBC;
  bool sgn = sim_type_signed(in->type);
  uint32_t carry = w->carry;
  SIM_LANES(m, l, {
    unsigned __int128 a = trunc_to(A[l], bits), b = trunc_to(B[l], bits);
    unsigned __int128 ci = (cin && (carry >> l & 1)) ? 1 : 0;
    unsigned __int128 r;
    if (C) { /* mad.cc / madc: product part chosen by hi/lo, then + c + ci */
      unsigned __int128 p = sgn ? (unsigned __int128)((__int128)sext(A[l], bits) * sext(B[l], bits)) : a * b;
      if (in->flags & FT_PTX_F_HI) p >>= bits;
      p &= bits >= 64 ? ~0ull : ((1ull << bits) - 1);
      r = p + trunc_to(C[l], bits) + ci;
    } else if (sub) {
      r = a - b - ci;
    } else {
      r = a + b + ci;
    }
    bool co = (r >> bits) & 1;
    D[l] = trunc_to((uint64_t)r, bits);
    if (in->flags & FT_PTX_F_CC) carry = co ? carry | (1u << l) : carry & ~(1u << l);
  });
  w->carry = carry;
}

static void g_abs(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS3;
  unsigned bits = bits_of(in->type);
  SIM_LANES(m, l, int64_t v = sext(A[l], bits); D[l] = trunc_to((uint64_t)(v < 0 ? -(uint64_t)v : (uint64_t)v), bits));
}
static void g_neg(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS3;
  unsigned bits = bits_of(in->type);
  SIM_LANES(m, l, D[l] = trunc_to(-A[l], bits));
}
static void g_not(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS3;
  unsigned bits = bits_of(in->type);
  SIM_LANES(m, l, D[l] = trunc_to(~A[l], bits));
}
static void g_cnot(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS3;
  unsigned bits = bits_of(in->type);
  SIM_LANES(m, l, D[l] = trunc_to(A[l], bits) == 0);
}
static void g_popc(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS3;
  unsigned bits = bits_of(in->type);
  SIM_LANES(m, l, D[l] = (uint64_t)__builtin_popcountll(trunc_to(A[l], bits)));
}
static void g_clz(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS3;
  unsigned bits = bits_of(in->type);
  SIM_LANES(m, l, uint64_t v = trunc_to(A[l], bits); D[l] = v ? (uint64_t)(__builtin_clzll(v) - (64 - (int)bits)) : bits);
}
static void g_brev(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS3;
  unsigned bits = bits_of(in->type);
  SIM_LANES(m, l, {
    uint64_t v = A[l], r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((v >> i) & 1) << (bits - 1 - i);
    D[l] = r;
  });
}
/* bfind: position of the most significant non-sign bit; 0xffffffff when none. */
static void g_bfind(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS3;
  unsigned bits = bits_of(in->type);
  bool sgn = sim_type_signed(in->type), amt = in->flags & FT_PTX_F_SHIFTAMT;
  SIM_LANES(m, l, {
    uint64_t v = trunc_to(A[l], bits);
    if (sgn && sext(v, bits) < 0) v = trunc_to(~v, bits);
    uint32_t r = 0xffffffffu;
    if (v) {
      r = 63u - (uint32_t)__builtin_clzll(v);
      if (amt) r = bits - 1 - r;
    }
    D[l] = r;
  });
}
static void g_bfe(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS4;
  unsigned bits = bits_of(in->type);
  bool sgn = sim_type_signed(in->type);
  SIM_LANES(m, l, {
    unsigned pos = (unsigned)(B[l] & 0xff), len = (unsigned)(C[l] & 0xff);
    uint64_t a = trunc_to(A[l], bits);
    uint64_t r = 0;
    if (len) {
      unsigned top = pos + len - 1 < bits - 1 ? pos + len - 1 : bits - 1;
      bool sbit = sgn ? (a >> top) & 1 : 0;
      for (unsigned i = 0; i < bits; i++) {
        uint64_t bit = (i < len && pos + i < bits) ? (a >> (pos + i)) & 1 : sbit;
        r |= bit << i;
      }
    } else if (sgn) {
      r = 0;
    }
    D[l] = r;
  });
}
static void g_bfi(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]), *C = SIM_R(w, in->a[2]),
                 *E = SIM_R(w, in->a[3]);
  unsigned bits = bits_of(in->type);
  SIM_LANES(m, l, {
    unsigned pos = (unsigned)(C[l] & 0xff), len = (unsigned)(E[l] & 0xff);
    uint64_t r = trunc_to(B[l], bits);
    for (unsigned i = 0; i < len && pos + i < bits; i++) {
      uint64_t bit = (A[l] >> i) & 1;
      r = (r & ~(1ull << (pos + i))) | (bit << (pos + i));
    }
    D[l] = r;
  });
}

/* prmt.b32: byte permute of {b, a} (8 bytes) by selector nibbles or a mode. */
static void g_prmt(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS4;
  unsigned mode = in->mode;
  SIM_LANES(m, l, {
    uint64_t x = ((B[l] & 0xffffffffull) << 32) | (A[l] & 0xffffffffull);
    uint32_t c = (uint32_t)C[l], r = 0;
    unsigned sel[4];
    if (mode == 0) {
      for (int i = 0; i < 4; i++) sel[i] = (c >> (4 * i)) & 0xf;
    } else {
      static const unsigned tab[6][4][4] = {
          /* f4e */ {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
          /* b4e */ {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
          /* rc8 */ {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
          /* ecl */ {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
          /* ecr */ {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
          /* rc16 */ {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}};
      for (int i = 0; i < 4; i++) sel[i] = tab[mode - 1][c & 3][i];
    }
    for (int i = 0; i < 4; i++) {
      unsigned s = sel[i];
      uint32_t byte = (uint32_t)(x >> ((s & 7) * 8)) & 0xff;
      if (mode == 0 && (s & 8)) byte = (byte & 0x80) ? 0xff : 0; /* sign replicate */
      r |= byte << (8 * i);
    }
    D[l] = r;
  });
}

/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of {b:a} by c. */
static void g_shf(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS4;
  bool left = in->mode == FT_PTX_SHF_L, clamp = in->flags & FT_PTX_F_CLAMP;
  SIM_LANES(m, l, {
    uint64_t x = ((B[l] & 0xffffffffull) << 32) | (A[l] & 0xffffffffull);
    uint32_t n = (uint32_t)C[l];
    n = clamp ? (n > 32 ? 32 : n) : (n & 31);
    D[l] = left ? (uint32_t)((x << n) >> 32) : (uint32_t)(x >> n);
  });
}
static void g_lop3(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS4;
  const uint64_t *L = SIM_R(w, in->a[3]);
  SIM_LANES(m, l, {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l], lut = (uint32_t)L[l] & 0xff, r = 0;
    for (unsigned i = 0; i < 32; i++) {
      unsigned idx = ((a >> i & 1) << 2) | ((b >> i & 1) << 1) | (c >> i & 1);
      r |= ((lut >> idx) & 1u) << i;
    }
    D[l] = r;
  });
}
/* dp4a.atype.btype d, a, b, c: c plus the four products of a's and b's bytes,
 * each extended as its type says; the sum wraps at 32 bits. (dp2a: ptx/ does not
 * parse its .lo/.hi yet.) */
static void g_dp4a(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS4;
  bool sa = sim_type_signed(in->type), sb = sim_type_signed(in->type2 ? in->type2 : in->type);
  SIM_LANES(m, l, {
    uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], d = (uint32_t)C[l];
    for (unsigned k = 0; k < 4; k++) {
      uint32_t x = a >> (8 * k) & 0xff, y = b >> (8 * k) & 0xff;
      int32_t xa = sa ? (int8_t)x : (int32_t)x, yb = sb ? (int8_t)y : (int32_t)y;
      d += (uint32_t)xa * (uint32_t)yb;
    }
    D[l] = d;
  });
}
static void g_sad(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  OPS4;
  unsigned bits = bits_of(in->type);
  bool sgn = sim_type_signed(in->type);
  SIM_LANES(m, l, {
    uint64_t d;
    if (sgn) {
      int64_t a = sext(A[l], bits), b = sext(B[l], bits);
      d = (uint64_t)(a > b ? a - b : b - a);
    } else {
      uint64_t a = trunc_to(A[l], bits), b = trunc_to(B[l], bits);
      d = a > b ? a - b : b - a;
    }
    D[l] = trunc_to(d + C[l], bits);
  });
}
static void mul24(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  const uint64_t *C = in->op == FT_PTX_OP_MAD24 ? SIM_R(w, in->a[2]) : NULL;
  OPS3;
  bool sgn = sim_type_signed(in->type), hi = in->flags & FT_PTX_F_HI;
  SIM_LANES(m, l, {
    int64_t p = sgn ? sext(A[l], 24) * sext(B[l], 24) : (int64_t)(trunc_to(A[l], 24) * trunc_to(B[l], 24));
    uint32_t r = hi ? (uint32_t)((uint64_t)p >> 16) : (uint32_t)p;
    D[l] = (uint32_t)(r + (C ? (uint32_t)C[l] : 0));
  });
}

/* mov with vector operands: pack {a, b, ...} into d or unpack d into {x, y, ...}. */
static void mov_pack(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  unsigned n = in->na, eb = ft_ptx_type_size(in->type) * 8 / n;
  uint64_t *D = SIM_R(w, in->d[0]);
  SIM_LANES(m, l, {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= trunc_to(SIM_R(w, in->a[i])[l], eb) << (eb * i);
    D[l] = v;
  });
}
static void mov_unpack(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  unsigned n = in->nd, eb = ft_ptx_type_size(in->type) * 8 / n;
  const uint64_t *A = SIM_R(w, in->a[0]);
  SIM_LANES(m, l, {
    uint64_t v = A[l]; /* read first: a destination may be the source */
    for (unsigned i = 0; i < n; i++) SIM_R(w, in->d[i])[l] = trunc_to(v >> (eb * i), eb);
  });
}

sim_exec_fn sim_choose_int(sim_insn_t *in) {
  unsigned t = in->type;
  if (ft_ptx_type_is_float(t) && in->op != FT_PTX_OP_MOV) return NULL;
  bool is32 = t == FT_PTX_T_U32 || t == FT_PTX_T_S32 || t == FT_PTX_T_B32;
  bool sgn = sim_type_signed(t);
  bool cc = in->flags & FT_PTX_F_CC;
  switch ((ft_ptx_opcode_t)in->op) {
    case FT_PTX_OP_MOV:
      if (in->nd > 1) return mov_unpack;
      if (in->na > 1) return mov_pack;
      return mov;
    case FT_PTX_OP_ADD:
      if (cc) return carry_op;
      if (in->flags & FT_PTX_F_SAT) return g_addsat;
      if (is32) return add32;
      if (ft_ptx_type_size(t) == 8) return add64;
      return g_add;
    case FT_PTX_OP_SUB:
      if (cc) return carry_op;
      if (in->flags & FT_PTX_F_SAT) return g_subsat;
      return is32 ? sub32 : g_sub;
    case FT_PTX_OP_ADDC: case FT_PTX_OP_SUBC: case FT_PTX_OP_MADC: return carry_op;
    case FT_PTX_OP_MUL:
      if (in->flags & FT_PTX_F_WIDE) {
        in->type2 = (uint8_t)t; /* operands are `t`, result twice as wide */
        in->type = sgn ? (ft_ptx_type_size(t) == 4 ? FT_PTX_T_S64 : FT_PTX_T_S32)
                       : (ft_ptx_type_size(t) == 4 ? FT_PTX_T_U64 : FT_PTX_T_U32);
        if (ft_ptx_type_size(t) == 4) return sgn ? mulwides32 : mulwideu32;
        return g_mulwide;
      }
      if (in->flags & FT_PTX_F_HI) {
        if (is32) return sgn ? mulhis32 : mulhiu32;
        return g_mulhi;
      }
      return is32 ? mullo32 : g_mullo;
    case FT_PTX_OP_MAD:
      if (cc) return carry_op;
      if (in->flags & FT_PTX_F_WIDE) {
        in->type2 = (uint8_t)t;
        in->type = sgn ? (ft_ptx_type_size(t) == 4 ? FT_PTX_T_S64 : FT_PTX_T_S32)
                       : (ft_ptx_type_size(t) == 4 ? FT_PTX_T_U64 : FT_PTX_T_U32);
        return g_mad;
      }
      if (in->flags & FT_PTX_F_SAT) return NULL; /* mad.hi.sat.s32: not emitted by nvcc */
      if (is32 && !(in->flags & FT_PTX_F_HI)) return madlo32;
      in->type2 = (uint8_t)t;
      return g_mad;
    case FT_PTX_OP_MUL24: case FT_PTX_OP_MAD24: return mul24;
    case FT_PTX_OP_DIV: return g_div;
    case FT_PTX_OP_REM: return g_rem;
    case FT_PTX_OP_MIN:
      if (is32) return sgn ? mins32 : minu32;
      return g_min;
    case FT_PTX_OP_MAX:
      if (is32) return sgn ? maxs32 : maxu32;
      return g_max;
    case FT_PTX_OP_AND: return is32 ? and32 : g_and;
    case FT_PTX_OP_OR: return is32 ? or32 : g_or;
    case FT_PTX_OP_XOR: return is32 ? xor32 : g_xor;
    case FT_PTX_OP_SHL: return is32 ? shl32 : g_shl;
    case FT_PTX_OP_SHR:
      if (is32) return sgn ? shrs32 : shru32;
      return g_shr;
    case FT_PTX_OP_ABS: return g_abs;
    case FT_PTX_OP_NEG: return g_neg;
    case FT_PTX_OP_NOT: return g_not;
    case FT_PTX_OP_CNOT: return g_cnot;
    case FT_PTX_OP_POPC: return g_popc;
    case FT_PTX_OP_CLZ: return g_clz;
    case FT_PTX_OP_BREV: return g_brev;
    case FT_PTX_OP_BFIND: return g_bfind;
    case FT_PTX_OP_BFE: return g_bfe;
    case FT_PTX_OP_BFI: return g_bfi;
    case FT_PTX_OP_PRMT: return g_prmt;
    case FT_PTX_OP_SHF: return g_shf;
    case FT_PTX_OP_LOP3: return g_lop3;
    case FT_PTX_OP_SAD: return g_sad;
    case FT_PTX_OP_DP4A: return ft_ptx_type_size(t) == 4 ? g_dp4a : NULL;
    default: return NULL;
  }
}
