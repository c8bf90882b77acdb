/* alu_float.c: f32/f64 arithmetic with PTX's rounding modes (.rn .rz .rm .rp through
 * the host's dynamic rounding; this file is built with -frounding-math), .ftz, .sat,
 * NaN results as on the GPU (canonical in f32, propagated in f64), min/max NaN rules, approximate functions
 * (computed to host libm accuracy, inside PTX's stated error), testp, copysign. */
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "interp.h"
#include "lanes.h"
#include "wide.h"

/* ld32/st32/ld64/st64/st64n: lanes.h's, shared with the translator (jit.c). */
#define ld32 sim_ld32
#define st32 sim_st32
#define ld64 sim_ld64
#define st64 sim_st64
#define st64n sim_st64n
#define CANON_NAN32 SIM_CANON_NAN32

/* Dynamic rounding for .rz/.rm/.rp; returns the mode to restore (-1: untouched). */
int sim_round_enter(unsigned rnd) {
  int m = rnd == FT_PTX_RND_RZ ? FE_TOWARDZERO : rnd == FT_PTX_RND_RM ? FE_DOWNWARD
        : rnd == FT_PTX_RND_RP ? FE_UPWARD : -1;
  if (m < 0) return -1;
  int old = fegetround();
  fesetround(m);
  return old;
}
void sim_round_leave(int old) {
  if (old >= 0) fesetround(old);
}

/* min/max: a NaN operand yields the other one (.NaN: NaN); -0 is below +0. */
static inline float fmin32(float a, float b, bool nanp) {
  if (a != a || b != b) return nanp ? NAN : (a != a ? b : a);
  if (a == 0 && b == 0) return signbit(a) ? a : b;
  return a < b ? a : b;
}
static inline float fmax32(float a, float b, bool nanp) {
  if (a != a || b != b) return nanp ? NAN : (a != a ? b : a);
  if (a == 0 && b == 0) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static inline double fmin64(double a, double b) {
  if (a != a || b != b) return a != a ? b : a;
  if (a == 0 && b == 0) return signbit(a) ? a : b;
  return a < b ? a : b;
}
static inline double fmax64(double a, double b) {
  if (a != a || b != b) return a != a ? b : a;
  if (a == 0 && b == 0) return signbit(a) ? b : a;
  return a > b ? a : b;
}

#define PROLOG                                                            \
  uint64_t *D = SIM_R(w, in->d[0]);                                       \
  const uint64_t *A = SIM_R(w, in->a[0]);                                 \
  const uint64_t *B = in->na > 1 ? SIM_R(w, in->a[1]) : A;                \
  const uint64_t *C = in->na > 2 ? SIM_R(w, in->a[2]) : A;                \
  (void)B; (void)C;                                                       \
  bool ftz = in->flags & FT_PTX_F_FTZ, sat = in->flags & FT_PTX_F_SAT;    \
  (void)ftz; (void)sat;                                                   \
  int old = sim_round_enter(in->rnd)
#define EPILOG sim_round_leave(old)

#define F32OP(name, expr)                                                         \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {            \
    PROLOG;                                                                       \
    SIM_LANES(m, l, float a = ld32(A[l], ftz); float b = ld32(B[l], ftz);         \
              float c = ld32(C[l], ftz); (void)b; (void)c; D[l] = st32((expr), ftz, sat)); \
    EPILOG;                                                                       \
  }
#define F64OP(name, expr)                                                         \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {            \
    PROLOG;                                                                       \
    SIM_LANES(m, l, double a = ld64(A[l]); double b = ld64(B[l]); double c = ld64(C[l]); \
              (void)b; (void)c; D[l] = st64((expr), sat));                        \
    EPILOG;                                                                       \
  }
/* The arithmetic f64 forms: NaN results as nan64 says (n: operands). */
#define F64ARITH(name, n, expr)                                                   \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {            \
    PROLOG;                                                                       \
    SIM_LANES(m, l, double a = ld64(A[l]); double b = ld64(B[l]); double c = ld64(C[l]); \
              (void)b; (void)c; D[l] = st64n((expr), sat, A[l], B[l], C[l], n));  \
    EPILOG;                                                                       \
  }

/* Fast f32 forms: no flush, no saturation, round to nearest. */
#define F32FAST(name, expr)                                                         \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {              \
    uint64_t *D = SIM_R(w, in->d[0]);                                               \
    const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);                \
    SIM_LANES(m, l, SIM_L_F32FAST(expr));                                           \
  }
F32FAST(add32_fast, a + b)
F32FAST(mul32_fast, a * b)
static void fma32_fast(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]), *C = SIM_R(w, in->a[2]);
  SIM_LANES(m, l, SIM_L_FMA32);
}

/* Hosts with FMA (x86-64 since 2013): the same lane loop with fmaf inline and
 * vectorised instead of a libm call per lane (the result is the same: fmaf is
 * exact to one rounding either way); chosen at lowering when the CPU has it. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SIM_HAVE_FMA_CLONE 1
__attribute__((target("avx2,fma"))) static void fma32_fast_hw(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]), *C = SIM_R(w, in->a[2]);
#ifdef SIM_AVX2
  if (m == 0xffffffffu) { /* 8 lanes an instruction; NaN results canonical as st32 makes them */
    const __m256i abs = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    for (unsigned l = 0; l < 32; l += 8) {
      __m256 r = _mm256_fmadd_ps(_mm256_castsi256_ps(sim_lo32x8(A + l)), _mm256_castsi256_ps(sim_lo32x8(B + l)),
                                 _mm256_castsi256_ps(sim_lo32x8(C + l)));
      __m256i u = _mm256_castps_si256(r);
      __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs), inf);
      sim_st32x8(D + l, _mm256_blendv_epi8(u, abs, nan));
    }
    return;
  }
#endif
  SIM_LANES(m, l, SIM_L_FMA32);
}
__attribute__((target("avx2,fma"))) static void fma64_fast_hw(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]), *C = SIM_R(w, in->a[2]);
  SIM_LANES(m, l, SIM_L_FMA64);
}
static bool host_fma(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

/* Fast f64 forms: round to nearest, no saturation (f64 has no .ftz). */
#define F64FAST(name, expr)                                                          \
  static void name(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {               \
    uint64_t *D = SIM_R(w, in->d[0]);                                                \
    const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);                 \
    SIM_LANES(m, l, SIM_L_F64FAST(expr));                                            \
  }
F64FAST(add64_fast, a + b)
F64FAST(mul64_fast, a * b)
/* The translator's table (jit.c): the forms above whose lanes are lanes.h's. */
const sim_jit_form_t sim_jit_forms_float[] = {SIM_JIT_LANE(add32_fast, "SIM_L_F32FAST(a + b)", NULL),
                                              SIM_JIT_LANE(mul32_fast, "SIM_L_F32FAST(a * b)", NULL),
                                              SIM_JIT_LANE(fma32_fast, "SIM_L_FMA32", NULL),
#ifdef SIM_HAVE_FMA_CLONE
                                              SIM_JIT_LANE(fma32_fast_hw, "SIM_L_FMA32", NULL),
                                              SIM_JIT_LANE(fma64_fast_hw, "SIM_L_FMA64", NULL),
#endif
                                              SIM_JIT_LANE(add64_fast, "SIM_L_F64FAST(a + b)", NULL),
                                              SIM_JIT_LANE(mul64_fast, "SIM_L_F64FAST(a * b)", NULL),
                                              SIM_JIT_END};

F32OP(add32, a + b)
F32OP(sub32, a - b)
F32OP(mul32, a * b)
F32OP(fma32, fmaf(a, b, c))
F32OP(div32, a / b)
F32OP(min32, fmin32(a, b, in->flags & FT_PTX_F_NAN))
F32OP(max32, fmax32(a, b, in->flags & FT_PTX_F_NAN))
F32OP(rcp32, 1.0f / a)
F32OP(sqrt32, sqrtf(a))
F32OP(rsqrt32, 1.0f / sqrtf(a))
F32OP(sin32, sinf(a))
F32OP(cos32, cosf(a))
F32OP(lg232, log2f(a))
F32OP(ex232, exp2f(a))
F32OP(tanh32, tanhf(a))
F32OP(copysign32, copysignf(b, a))
F64ARITH(add64, 2, a + b)
F64ARITH(sub64, 2, a - b)
F64ARITH(mul64, 2, a * b)
F64ARITH(fma64, 3, fma(a, b, c))
F64ARITH(div64, 2, a / b)
F64OP(min64, fmin64(a, b))
F64OP(max64, fmax64(a, b))
F64ARITH(rcp64, 1, 1.0 / a)
F64ARITH(sqrt64, 1, sqrt(a))
F64ARITH(rsqrt64, 1, 1.0 / sqrt(a))
F64OP(sin64, sin(a))
F64OP(cos64, cos(a))
F64OP(lg264, log2(a))
F64OP(ex264, exp2(a))
F64OP(copysign64, copysign(b, a))

/* abs/neg touch only the sign bit (NaNs keep their payload); .ftz flushes. */
static void absneg32(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  bool ftz = in->flags & FT_PTX_F_FTZ, neg = in->op == FT_PTX_OP_NEG;
  SIM_LANES(m, l, {
    uint32_t u = (uint32_t)A[l];
    if (ftz && !(u & 0x7f800000u)) u &= 0x80000000u;
    D[l] = neg ? u ^ 0x80000000u : u & 0x7fffffffu;
  });
}
static void absneg64(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  bool neg = in->op == FT_PTX_OP_NEG;
  SIM_LANES(m, l, D[l] = neg ? A[l] ^ (1ull << 63) : A[l] & ~(1ull << 63));
}

static void testp(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  bool f64 = in->type == FT_PTX_T_F64;
  SIM_LANES(m, l, {
    int c = f64 ? fpclassify(ld64(A[l])) : fpclassify(ld32(A[l], false));
    bool r = false;
    switch (in->mode) {
      case FT_PTX_TESTP_FINITE: r = c != FP_INFINITE && c != FP_NAN; break;
      case FT_PTX_TESTP_INFINITE: r = c == FP_INFINITE; break;
      case FT_PTX_TESTP_NUMBER: r = c != FP_NAN; break;
      case FT_PTX_TESTP_NOTANUMBER: r = c == FP_NAN; break;
      case FT_PTX_TESTP_NORMAL: r = c == FP_NORMAL; break;
      case FT_PTX_TESTP_SUBNORMAL: r = c == FP_SUBNORMAL; break;
    }
    D[l] = r;
  });
}

/* ---- f16 and bf16, scalar and x2: add sub mul fma (.rn; .ftz .sat on f16), neg
 * abs, min max. The operation runs in double rounded to odd (toward zero, the last bit set
 * when inexact), which keeps enough bits (53 >= 11 + 2) for the final rounding to
 * nearest even to be the correctly rounded result; NaN results are 0x7fff. ---- */
static bool is_bf16(const sim_insn_t *in) { return in->type == FT_PTX_T_BF16 || in->type == FT_PTX_T_BF16X2; }
static bool is_x2(const sim_insn_t *in) { return in->type == FT_PTX_T_F16X2 || in->type == FT_PTX_T_BF16X2; }

double sim_half_value(uint64_t v, bool bf) {
  uint16_t h = (uint16_t)v;
  if (bf) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  _Float16 x;
  memcpy(&x, &h, 2);
  return (double)x;
}
static double h_load(uint64_t v, bool bf, bool ftz) {
  uint16_t h = (uint16_t)v;
  if (ftz && !(h & 0x7c00u)) h &= 0x8000u; /* f16 subnormal input flushed */
  return sim_half_value(h, bf);
}

static uint16_t h_store(double r, bool bf, bool ftz, bool sat) {
  if (sat) r = !(r > 0.0) ? 0.0 : r > 1.0 ? 1.0 : r; /* NaN and -0 give +0 */
  if (r != r) return 0x7fff;
  uint16_t h;
  if (bf) {
    int old = fegetround(); /* double -> float rounded to odd, then to nearest even */
    fesetround(FE_TOWARDZERO);
    feclearexcept(FE_INEXACT);
    float f = (float)r;
    bool inexact = fetestexcept(FE_INEXACT);
    fesetround(old);
    uint32_t u;
    memcpy(&u, &f, 4);
    if (inexact) u |= 1;
    u += 0x7fffu + ((u >> 16) & 1);
    h = (uint16_t)(u >> 16);
  } else {
    _Float16 x = (_Float16)r;
    memcpy(&h, &x, 2);
    if (ftz && !(h & 0x7c00u)) h &= 0x8000u; /* f16 subnormal result flushed */
  }
  return h;
}

static double round_odd(unsigned op, double a, double b, double c) {
  int old = fegetround();
  fesetround(FE_TOWARDZERO);
  feclearexcept(FE_INEXACT);
  double r = op == FT_PTX_OP_ADD ? a + b : op == FT_PTX_OP_SUB ? a - b : op == FT_PTX_OP_MUL ? a * b : fma(a, b, c);
  bool inexact = fetestexcept(FE_INEXACT);
  fesetround(old);
  if (inexact && r == r && !isinf(r)) {
    uint64_t u;
    memcpy(&u, &r, 8);
    u |= 1;
    memcpy(&r, &u, 8);
  }
  return r;
}

/* The .f16x2/.bf16x2 forms apply the operation to both halves of the words. */
static void arith16(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);
  const uint64_t *C = in->na > 2 ? SIM_R(w, in->a[2]) : B;
  bool bf = is_bf16(in), ftz = in->flags & FT_PTX_F_FTZ, sat = in->flags & FT_PTX_F_SAT;
  unsigned op = in->op == FT_PTX_OP_MAD ? FT_PTX_OP_FMA : in->op, parts = is_x2(in) ? 2 : 1;
  SIM_LANES(m, l, {
    uint64_t d = 0;
    for (unsigned k = 0; k < parts; k++) {
      unsigned s = 16 * k;
      double r = round_odd(op, h_load(A[l] >> s, bf, ftz), h_load(B[l] >> s, bf, ftz), h_load(C[l] >> s, bf, ftz));
      d |= (uint64_t)h_store(r, bf, ftz, sat) << s;
    }
    D[l] = d;
  });
}

static void absneg16(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  bool ftz = in->flags & FT_PTX_F_FTZ && !is_bf16(in), neg = in->op == FT_PTX_OP_NEG;
  unsigned parts = is_x2(in) ? 2 : 1;
  SIM_LANES(m, l, {
    uint64_t d = 0;
    for (unsigned k = 0; k < parts; k++) {
      uint16_t h = (uint16_t)(A[l] >> (16 * k));
      if (ftz && !(h & 0x7c00u)) h &= 0x8000u;
      d |= (uint64_t)(neg ? (uint16_t)(h ^ 0x8000u) : (uint16_t)(h & 0x7fffu)) << (16 * k);
    }
    D[l] = d;
  });
}

/* min/max: a NaN operand yields the other one (.NaN: NaN); -0 is below +0. */
static void minmax16(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]);
  bool bf = is_bf16(in), ftz = in->flags & FT_PTX_F_FTZ, nanp = in->flags & FT_PTX_F_NAN;
  bool mx = in->op == FT_PTX_OP_MAX;
  unsigned parts = is_x2(in) ? 2 : 1;
  SIM_LANES(m, l, {
    uint64_t d = 0;
    for (unsigned k = 0; k < parts; k++) {
      unsigned s = 16 * k;
      double a = h_load(A[l] >> s, bf, ftz), b = h_load(B[l] >> s, bf, ftz), r;
      if (a != a || b != b) r = nanp ? NAN : (a != a ? b : a);
      else if (a == 0 && b == 0) r = (signbit(a) != 0) == mx ? b : a;
      else r = (a < b) != mx ? a : b;
      d |= (uint64_t)h_store(r, bf, ftz, false) << s;
    }
    D[l] = d;
  });
}

static sim_exec_fn choose16(sim_insn_t *in) {
  bool bf = is_bf16(in);
  if (in->rnd > FT_PTX_RND_RN) return NULL; /* only .rn exists for these */
  if (in->flags & ~(uint32_t)(FT_PTX_F_FTZ | FT_PTX_F_SAT | FT_PTX_F_NAN)) return NULL; /* .relu, .xorsign, ... */
  if (bf && (in->flags & (FT_PTX_F_FTZ | FT_PTX_F_SAT))) return NULL;
  switch ((ft_ptx_opcode_t)in->op) {
    case FT_PTX_OP_ADD: case FT_PTX_OP_SUB: case FT_PTX_OP_MUL: case FT_PTX_OP_FMA: return arith16;
    case FT_PTX_OP_NEG: case FT_PTX_OP_ABS: return absneg16;
    case FT_PTX_OP_MIN: case FT_PTX_OP_MAX: return in->flags & FT_PTX_F_SAT ? NULL : minmax16;
    default: return NULL;
  }
}

sim_exec_fn sim_choose_float(sim_insn_t *in) {
  bool f32 = in->type == FT_PTX_T_F32, f64 = in->type == FT_PTX_T_F64;
  if ((in->type == FT_PTX_T_F16 || in->type == FT_PTX_T_BF16 || in->type == FT_PTX_T_F16X2 ||
       in->type == FT_PTX_T_BF16X2) && in->na <= 3)
    return choose16(in);
  if (in->op == FT_PTX_OP_TESTP) return (f32 || f64) ? testp : NULL;
  if (!f32 && !f64) return NULL;
  bool plain = !(in->flags & (FT_PTX_F_FTZ | FT_PTX_F_SAT)) && in->rnd <= FT_PTX_RND_RN;
#ifdef SIM_HAVE_FMA_CLONE
  if (plain && (in->op == FT_PTX_OP_FMA || in->op == FT_PTX_OP_MAD) && host_fma()) return f32 ? fma32_fast_hw : fma64_fast_hw;
#endif
  switch ((ft_ptx_opcode_t)in->op) {
    case FT_PTX_OP_ADD: return f32 ? (plain ? add32_fast : add32) : (plain ? add64_fast : add64);
    case FT_PTX_OP_SUB: return f32 ? sub32 : sub64;
    case FT_PTX_OP_MUL: return f32 ? (plain ? mul32_fast : mul32) : (plain ? mul64_fast : mul64);
    case FT_PTX_OP_FMA: case FT_PTX_OP_MAD: return f32 ? (plain ? fma32_fast : fma32) : fma64;
    case FT_PTX_OP_DIV: return f32 ? div32 : div64;
    case FT_PTX_OP_MIN:
      if (in->flags & (FT_PTX_F_XORSIGN | FT_PTX_F_ABS)) return NULL;
      return f32 ? min32 : min64;
    case FT_PTX_OP_MAX:
      if (in->flags & (FT_PTX_F_XORSIGN | FT_PTX_F_ABS)) return NULL;
      return f32 ? max32 : max64;
    case FT_PTX_OP_ABS: case FT_PTX_OP_NEG: return f32 ? absneg32 : absneg64;
    case FT_PTX_OP_RCP: return f32 ? rcp32 : rcp64;
    case FT_PTX_OP_SQRT: return f32 ? sqrt32 : sqrt64;
    case FT_PTX_OP_RSQRT: return f32 ? rsqrt32 : rsqrt64;
    case FT_PTX_OP_SIN: return f32 ? sin32 : sin64;
    case FT_PTX_OP_COS: return f32 ? cos32 : cos64;
    case FT_PTX_OP_LG2: return f32 ? lg232 : lg264;
    case FT_PTX_OP_EX2: return f32 ? ex232 : ex264;
    case FT_PTX_OP_TANH: return f32 ? tanh32 : NULL;
    case FT_PTX_OP_COPYSIGN: return f32 ? copysign32 : copysign64;
    default: return NULL;
  }
}
