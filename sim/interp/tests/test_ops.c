/* test_ops.c: each instruction run by the interpreter against its C definition
 * over edge values (NaN, infinities, denormals, overflow, signed extremes, every
 * rounding mode): one PTX kernel per instruction form, one thread per operand
 * combination. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "harness.h"
#include "runner.h"

typedef uint64_t (*ref_fn)(uint64_t a, uint64_t b, uint64_t c);

/* ---- the kernel around one instruction body ---- */
/* Operands %a %b %c of width `w` bits (32 or 64) are loaded from 8-byte slots, the
 * body computes %d (width `dw`), which is stored to an 8-byte slot zeroed first. */
static const char *kernel_fmt =
    ".version 7.5\n.target sm_75\n.address_size 64\n"
    ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 n)\n{\n"
    ".reg .b64 %%rd<12>;\n.reg .b32 %%r<4>;\n.reg .pred %%p<4>;\n.reg .b16 %%h<4>;\n"
    ".reg .b%u %%a, %%b, %%c;\n.reg .b%u %%d;\n"
    "mov.u32 %%r0, %%ctaid.x;\nmov.u32 %%r1, %%ntid.x;\nmov.u32 %%r2, %%tid.x;\nmad.lo.s32 %%r0, %%r0, %%r1, %%r2;\n"
    "ld.param.u32 %%r3, [n];\nsetp.ge.u32 %%p3, %%r0, %%r3;\n@%%p3 bra DONE;\n"
    "mul.wide.u32 %%rd0, %%r0, 8;\n"
    "ld.param.u64 %%rd1, [pa];\nadd.s64 %%rd1, %%rd1, %%rd0;\nld.global.b%u %%a, [%%rd1];\n"
    "ld.param.u64 %%rd2, [pb];\nadd.s64 %%rd2, %%rd2, %%rd0;\nld.global.b%u %%b, [%%rd2];\n"
    "ld.param.u64 %%rd3, [pc];\nadd.s64 %%rd3, %%rd3, %%rd0;\nld.global.b%u %%c, [%%rd3];\n"
    "%s\n"
    "ld.param.u64 %%rd4, [pd];\nadd.s64 %%rd4, %%rd4, %%rd0;\nst.global.b%u [%%rd4], %%d;\n"
    "DONE:\nret;\n}\n";

static const uint32_t i32v[] = {0, 1, 0xffffffffu, 2, 7, 31, 32, 33, 0x7fffffffu, 0x80000000u, 0x80000001u,
                                0x12345678u, 0xdeadbeefu, 100, (uint32_t)-100, 65535, 0xff00ff00u};
static const uint64_t i64v[] = {0, 1, ~0ull, 63, 64, 0x7fffffffffffffffull, 0x8000000000000000ull, 0x123456789abcdefull,
                                0xfedcba9876543210ull, 1000000007ull, (uint64_t)-1000000007ll, 0xffffffffull};

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float bitsf(uint64_t u) {
  uint32_t x = (uint32_t)u;
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static uint64_t dbits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static double bitsd(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

static uint32_t f32v[24];
static uint64_t f64v[20];
static void init_floats(void) {
  const float fs[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1.5f, 2.5f, -2.5f, 3.0f, 1e-40f, -1e-40f, FLT_MIN,
                      FLT_MAX, INFINITY, -INFINITY, NAN, 1e10f, -1e10f, 0.1f, 1.0f / 3.0f, 16777217.0f,
                      2147483648.0f, -2147483904.0f, 4e9f};
  for (unsigned i = 0; i < 24; i++) f32v[i] = fbits(fs[i]);
  const double ds[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 1e-310, -1e-310, DBL_MIN, DBL_MAX, INFINITY,
                       -INFINITY, NAN, 0.1, 1.0 / 3.0, 1e300, -1e20, 9007199254740993.0, 3.0};
  for (unsigned i = 0; i < 20; i++) f64v[i] = dbits(ds[i]);
}

/* Canonical NaN of the GPU for results. */
static uint64_t cf(float f) { return f != f ? 0x7fffffffu : fbits(f); }
static uint64_t cd(double d) { return d != d ? 0x7fffffffffffffffull : dbits(d); }
static float ftz(float f) { return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f; }

/* Rounding of the reference: evaluated under the mode. The operands are volatile
 * locals and the result a volatile one so that the compiler can neither fold nor
 * move the operation out of the fesetround window (it assumes one rounding mode). */
#define UNDER(mode, expr)          \
  ({                                \
    int old_ = fegetround();        \
    fesetround(mode);               \
    __typeof__(expr) volatile v_ = (expr); \
    fesetround(old_);               \
    v_;                             \
  })

/* ---- references ---- */
#define I32(name, expr)                                          \
  static uint64_t name(uint64_t ua, uint64_t ub, uint64_t uc) {  \
    uint32_t a = (uint32_t)ua, b = (uint32_t)ub, c = (uint32_t)uc; \
    int32_t sa = (int32_t)a, sb = (int32_t)b;                     \
    (void)a; (void)b; (void)c; (void)sa; (void)sb;               \
    return (uint32_t)(expr);                                     \
  }
I32(r_add, a + b)
I32(r_sub, a - b)
I32(r_mullo, a * b)
I32(r_mulhi_s, (uint64_t)((int64_t)sa * sb) >> 32)
I32(r_mulhi_u, ((uint64_t)a * b) >> 32)
I32(r_mad, a * b + c)
I32(r_div_s, b == 0 ? 0xffffffffu : (sb == -1 ? (uint32_t)(-(uint64_t)(int64_t)sa) : (uint32_t)(sa / sb)))
I32(r_rem_s, b == 0 ? a : (sb == -1 ? 0 : (uint32_t)(sa % sb)))
I32(r_div_u, b == 0 ? 0xffffffffu : a / b)
I32(r_rem_u, b == 0 ? a : a % b)
I32(r_min_s, sa < sb ? a : b)
I32(r_max_u, a > b ? a : b)
I32(r_abs, sa < 0 ? -(uint32_t)sa : a)
I32(r_neg, -a)
I32(r_shl, b > 31 ? 0 : a << b)
I32(r_shr_s, (uint32_t)(sa >> (b > 31 ? 31 : b)))
I32(r_shr_u, b > 31 ? 0 : a >> b)
I32(r_popc, (uint32_t)__builtin_popcount(a))
I32(r_clz, a ? (uint32_t)__builtin_clz(a) : 32u)
I32(r_bfind_u, a ? 31u - (uint32_t)__builtin_clz(a) : 0xffffffffu)
I32(r_bfind_s, (sa < 0 ? ~a : a) ? 31u - (uint32_t)__builtin_clz(sa < 0 ? ~a : a) : 0xffffffffu)
I32(r_addsat, (int64_t)sa + sb > INT32_MAX ? INT32_MAX : (int64_t)sa + sb < INT32_MIN ? INT32_MIN : sa + sb)
I32(r_and, a & b)
I32(r_xor, a ^ b)
I32(r_not, ~a)

static uint64_t r_brev(uint64_t ua, uint64_t ub, uint64_t uc) {
  uint32_t a = (uint32_t)ua, r = 0;
  for (int i = 0; i < 32; i++) r |= ((a >> i) & 1u) << (31 - i);
  return r;
}
/* bfe: bits [pos, pos+len) of a, zero- or sign-extended from the field's top bit. */
static uint64_t bfe32(uint64_t ua, uint64_t ub, uint64_t uc, bool sgn) {
  uint32_t a = (uint32_t)ua, pos = (uint32_t)ub & 0xff, len = (uint32_t)uc & 0xff;
  if (len == 0) return 0;
  uint32_t top = pos + len - 1 > 31 ? 31 : pos + len - 1;
  uint32_t sbit = sgn ? (a >> top) & 1 : 0, r = 0;
  for (uint32_t i = 0; i < 32; i++) r |= ((i < len && pos + i < 32) ? (a >> (pos + i)) & 1 : sbit) << i;
  return r;
}
static uint64_t r_bfe_u(uint64_t a, uint64_t b, uint64_t c) { return bfe32(a, b, c, false); }
static uint64_t r_bfe_s(uint64_t a, uint64_t b, uint64_t c) { return bfe32(a, b, c, true); }
static uint64_t r_shf_l_wrap(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t x = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu);
  return (uint32_t)((x << (c & 31)) >> 32);
}
static uint64_t r_shf_r_clamp(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t x = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu);
  uint32_t n = (uint32_t)c > 32 ? 32 : (uint32_t)c;
  return (uint32_t)(x >> n);
}
static uint64_t r_prmt(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t x = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu);
  uint32_t r = 0;
  for (int i = 0; i < 4; i++) {
    uint32_t s = ((uint32_t)c >> (4 * i)) & 0xf, byte = (uint32_t)(x >> ((s & 7) * 8)) & 0xff;
    if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
    r |= byte << (8 * i);
  }
  return r;
}
static uint64_t r_mulwide_s(uint64_t a, uint64_t b, uint64_t c) { return (uint64_t)((int64_t)(int32_t)a * (int32_t)b); }
static uint64_t r_add64(uint64_t a, uint64_t b, uint64_t c) { return a + b; }
static uint64_t r_mulhi_u64(uint64_t a, uint64_t b, uint64_t c) { return (uint64_t)(((unsigned __int128)a * b) >> 64); }
static uint64_t r_mulhi_s64(uint64_t a, uint64_t b, uint64_t c) {
  return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
}
static uint64_t r_div_s64(uint64_t a, uint64_t b, uint64_t c) {
  if (!b) return ~0ull;
  if ((int64_t)b == -1) return -a;
  return (uint64_t)((int64_t)a / (int64_t)b);
}
static uint64_t r_shr_s64(uint64_t a, uint64_t b, uint64_t c) {
  uint32_t s = (uint32_t)b;
  return (uint64_t)((int64_t)a >> (s > 63 ? 63 : s));
}
/* Compare and select through a predicate. */
static uint64_t r_setp_lt_f32(uint64_t a, uint64_t b, uint64_t c) { return bitsf(a) < bitsf(b); }
static uint64_t r_setp_ltu_f32(uint64_t a, uint64_t b, uint64_t c) {
  return isnan(bitsf(a)) || isnan(bitsf(b)) || bitsf(a) < bitsf(b);
}
static uint64_t r_setp_ne_f32(uint64_t a, uint64_t b, uint64_t c) {
  return !isnan(bitsf(a)) && !isnan(bitsf(b)) && bitsf(a) != bitsf(b);
}
static uint64_t r_setp_gt_s32(uint64_t a, uint64_t b, uint64_t c) { return (int32_t)a > (int32_t)b; }
static uint64_t r_setp_lo_u32(uint64_t a, uint64_t b, uint64_t c) { return (uint32_t)a < (uint32_t)b; }
static uint64_t r_setp_and(uint64_t a, uint64_t b, uint64_t c) { return (int32_t)a < (int32_t)b && (c & 1); }

/* f32 */
#define F32(name, expr)                                         \
  static uint64_t name(uint64_t ua, uint64_t ub, uint64_t uc) { \
    volatile float a = bitsf(ua), b = bitsf(ub), c = bitsf(uc); \
    (void)a; (void)b; (void)c;                                  \
    return cf(expr);                                            \
  }
F32(r_fadd_rn, a + b)
F32(r_fadd_rz, UNDER(FE_TOWARDZERO, a + b))
F32(r_fadd_rm, UNDER(FE_DOWNWARD, a + b))
F32(r_fadd_rp, UNDER(FE_UPWARD, a + b))
F32(r_fmul_rz, UNDER(FE_TOWARDZERO, a * b))
F32(r_ffma_rn, fmaf(a, b, c))
F32(r_ffma_rz, UNDER(FE_TOWARDZERO, fmaf(a, b, c)))
F32(r_fdiv_rn, a / b)
F32(r_fsqrt_rn, sqrtf(a))
F32(r_frcp_rn, 1.0f / a)
F32(r_fadd_ftz, ftz(ftz(a) + ftz(b)))
F32(r_fmul_ftz, ftz(ftz(a) * ftz(b)))
F32(r_fadd_sat, isnan(a + b) ? 0.0f : fminf(fmaxf(a + b, 0.0f), 1.0f))
F32(r_fmin, isnan(a) ? b : isnan(b) ? a : (a == 0 && b == 0) ? (signbit(a) ? a : b) : (a < b ? a : b))
F32(r_fmax, isnan(a) ? b : isnan(b) ? a : (a == 0 && b == 0) ? (signbit(a) ? b : a) : (a > b ? a : b))
F32(r_fmin_nan, (isnan(a) || isnan(b)) ? NAN : (a == 0 && b == 0) ? (signbit(a) ? a : b) : (a < b ? a : b))
F32(r_fcopysign, copysignf(b, a))
static uint64_t r_fabs(uint64_t a, uint64_t b, uint64_t c) { return (uint32_t)a & 0x7fffffffu; }
static uint64_t r_fneg(uint64_t a, uint64_t b, uint64_t c) { return ((uint32_t)a ^ 0x80000000u); }
/* approximate ones: checked within a tolerance, see `tol` */
F32(r_sin, sinf(a))
F32(r_ex2, exp2f(a))
F32(r_lg2, log2f(a))
F32(r_rsqrt, 1.0f / sqrtf(a))

/* f64: a NaN result is the first NaN operand, quieted, or 0xfff8000000000000 when no
 * operand is NaN (an H100's answers, docs/gpu-results.md) */
static uint64_t nan_of(uint64_t ua, uint64_t ub, uint64_t uc, int n) {
  const uint64_t op[3] = {ua, ub, uc};
  for (int i = 0; i < n; i++)
    if (isnan(bitsd(op[i]))) return op[i] | 0x0008000000000000ull;
  return 0xfff8000000000000ull;
}
#define F64(name, n, expr)                                      \
  static uint64_t name(uint64_t ua, uint64_t ub, uint64_t uc) { \
    volatile double a = bitsd(ua), b = bitsd(ub), c = bitsd(uc); \
    (void)a; (void)b; (void)c;                                  \
    double r = (expr);                                          \
    return r != r ? nan_of(ua, ub, uc, n) : dbits(r);           \
  }
F64(r_dadd_rn, 2, a + b)
F64(r_dadd_rz, 2, UNDER(FE_TOWARDZERO, a + b))
F64(r_dadd_rp, 2, UNDER(FE_UPWARD, a + b))
F64(r_dfma_rn, 3, fma(a, b, c))
F64(r_ddiv_rn, 2, a / b)
F64(r_dsqrt_rn, 1, sqrt(a))

/* cvt: float -> int saturates, NaN -> 0. */
static uint64_t f2i(double x, double (*rnd)(double), bool sgn) {
  if (isnan(x)) return 0;
  x = rnd(x);
  if (sgn) return (uint32_t)(x <= -2147483648.0 ? INT32_MIN : x >= 2147483647.0 ? INT32_MAX : (int32_t)x);
  return x <= 0 ? 0 : x >= 4294967295.0 ? 0xffffffffu : (uint32_t)x;
}
static uint64_t r_cvt_rni_s32(uint64_t a, uint64_t b, uint64_t c) { return f2i(bitsf(a), nearbyint, true); }
static uint64_t r_cvt_rzi_s32(uint64_t a, uint64_t b, uint64_t c) { return f2i(bitsf(a), trunc, true); }
static uint64_t r_cvt_rmi_s32(uint64_t a, uint64_t b, uint64_t c) { return f2i(bitsf(a), floor, true); }
static uint64_t r_cvt_rpi_s32(uint64_t a, uint64_t b, uint64_t c) { return f2i(bitsf(a), ceil, true); }
static uint64_t r_cvt_rzi_u32(uint64_t a, uint64_t b, uint64_t c) { return f2i(bitsf(a), trunc, false); }
static uint64_t r_cvt_rn_f32_s32(uint64_t a, uint64_t b, uint64_t c) { return cf((float)(int32_t)a); }
static uint64_t r_cvt_rz_f32_s32(uint64_t ua, uint64_t b, uint64_t c) {
  volatile int32_t a = (int32_t)ua;
  return cf(UNDER(FE_TOWARDZERO, (float)a));
}
static uint64_t r_cvt_rn_f32_u32(uint64_t a, uint64_t b, uint64_t c) { return cf((float)(uint32_t)a); }
static uint64_t r_cvt_f64_f32(uint64_t a, uint64_t b, uint64_t c) { return cd((double)bitsf(a)); }
static uint64_t r_cvt_rni_f32_f32(uint64_t a, uint64_t b, uint64_t c) { return cf(nearbyintf(bitsf(a))); }
static uint64_t r_cvt_s64_s32(uint64_t a, uint64_t b, uint64_t c) { return (uint64_t)(int64_t)(int32_t)a; }
static uint64_t r_cvt_rn_f32_f64(uint64_t a, uint64_t b, uint64_t c) { return cf((float)bitsd(a)); }
static uint64_t r_cvt_rz_f32_f64(uint64_t ua, uint64_t b, uint64_t c) {
  volatile double a = bitsd(ua);
  return cf(UNDER(FE_TOWARDZERO, (float)a));
}
static uint64_t r_cvt_f16_rt(uint64_t a, uint64_t b, uint64_t c) {
  float f = bitsf(a);
  if (isnan(f)) return 0x7fffffffu;
  return cf((float)(_Float16)f); /* f32 -> f16 (rn) -> f32 */
}

typedef struct {
  const char *body;
  unsigned w, dw;        /* operand and result widths */
  char vals;             /* 'i': int32 set, 'l': int64, 'f': f32, 'd': f64 */
  ref_fn ref;
  double tol;            /* 0: bit exact; else relative tolerance (approx.) */
} op_case_t;

static const op_case_t cases[] = {
    {"add.s32 %d, %a, %b;", 32, 32, 'i', r_add, 0},
    {"sub.s32 %d, %a, %b;", 32, 32, 'i', r_sub, 0},
    {"mul.lo.s32 %d, %a, %b;", 32, 32, 'i', r_mullo, 0},
    {"mul.hi.s32 %d, %a, %b;", 32, 32, 'i', r_mulhi_s, 0},
    {"mul.hi.u32 %d, %a, %b;", 32, 32, 'i', r_mulhi_u, 0},
    {"mad.lo.s32 %d, %a, %b, %c;", 32, 32, 'i', r_mad, 0},
    {"div.s32 %d, %a, %b;", 32, 32, 'i', r_div_s, 0},
    {"rem.s32 %d, %a, %b;", 32, 32, 'i', r_rem_s, 0},
    {"div.u32 %d, %a, %b;", 32, 32, 'i', r_div_u, 0},
    {"rem.u32 %d, %a, %b;", 32, 32, 'i', r_rem_u, 0},
    {"min.s32 %d, %a, %b;", 32, 32, 'i', r_min_s, 0},
    {"max.u32 %d, %a, %b;", 32, 32, 'i', r_max_u, 0},
    {"abs.s32 %d, %a;", 32, 32, 'i', r_abs, 0},
    {"neg.s32 %d, %a;", 32, 32, 'i', r_neg, 0},
    {"shl.b32 %d, %a, %b;", 32, 32, 'i', r_shl, 0},
    {"shr.s32 %d, %a, %b;", 32, 32, 'i', r_shr_s, 0},
    {"shr.u32 %d, %a, %b;", 32, 32, 'i', r_shr_u, 0},
    {"popc.b32 %d, %a;", 32, 32, 'i', r_popc, 0},
    {"clz.b32 %d, %a;", 32, 32, 'i', r_clz, 0},
    {"bfind.u32 %d, %a;", 32, 32, 'i', r_bfind_u, 0},
    {"bfind.s32 %d, %a;", 32, 32, 'i', r_bfind_s, 0},
    {"brev.b32 %d, %a;", 32, 32, 'i', r_brev, 0},
    {"bfe.u32 %d, %a, %b, %c;", 32, 32, 'i', r_bfe_u, 0},
    {"bfe.s32 %d, %a, %b, %c;", 32, 32, 'i', r_bfe_s, 0},
    {"shf.l.wrap.b32 %d, %a, %b, %c;", 32, 32, 'i', r_shf_l_wrap, 0},
    {"shf.r.clamp.b32 %d, %a, %b, %c;", 32, 32, 'i', r_shf_r_clamp, 0},
    {"prmt.b32 %d, %a, %b, %c;", 32, 32, 'i', r_prmt, 0},
    {"add.sat.s32 %d, %a, %b;", 32, 32, 'i', r_addsat, 0},
    {"and.b32 %d, %a, %b;", 32, 32, 'i', r_and, 0},
    {"xor.b32 %d, %a, %b;", 32, 32, 'i', r_xor, 0},
    {"not.b32 %d, %a;", 32, 32, 'i', r_not, 0},
    {"mul.wide.s32 %d, %a, %b;", 32, 64, 'i', r_mulwide_s, 0},
    {"cvt.s64.s32 %d, %a;", 32, 64, 'i', r_cvt_s64_s32, 0},
    {"add.s64 %d, %a, %b;", 64, 64, 'l', r_add64, 0},
    {"mul.hi.u64 %d, %a, %b;", 64, 64, 'l', r_mulhi_u64, 0},
    {"mul.hi.s64 %d, %a, %b;", 64, 64, 'l', r_mulhi_s64, 0},
    {"div.s64 %d, %a, %b;", 64, 64, 'l', r_div_s64, 0},
    {"cvt.u32.u64 %r1, %b; shr.s64 %d, %a, %r1;", 64, 64, 'l', r_shr_s64, 0},
    {"setp.lt.f32 %p0, %a, %b; selp.u32 %d, 1, 0, %p0;", 32, 32, 'f', r_setp_lt_f32, 0},
    {"setp.ltu.f32 %p0, %a, %b; selp.u32 %d, 1, 0, %p0;", 32, 32, 'f', r_setp_ltu_f32, 0},
    {"setp.ne.f32 %p0|%p1, %a, %b; selp.u32 %d, 1, 0, %p0;", 32, 32, 'f', r_setp_ne_f32, 0},
    {"setp.gt.s32 %p0, %a, %b; selp.u32 %d, 1, 0, %p0;", 32, 32, 'i', r_setp_gt_s32, 0},
    {"setp.lo.u32 %p0, %a, %b; selp.u32 %d, 1, 0, %p0;", 32, 32, 'i', r_setp_lo_u32, 0},
    {"setp.ne.b32 %p2, %c, 0; and.b32 %r1, %c, 1; setp.eq.u32 %p2, %r1, 1;"
     "setp.lt.and.s32 %p0, %a, %b, %p2; selp.u32 %d, 1, 0, %p0;", 32, 32, 'i', r_setp_and, 0},
    {"add.rn.f32 %d, %a, %b;", 32, 32, 'f', r_fadd_rn, 0},
    {"add.rz.f32 %d, %a, %b;", 32, 32, 'f', r_fadd_rz, 0},
    {"add.rm.f32 %d, %a, %b;", 32, 32, 'f', r_fadd_rm, 0},
    {"add.rp.f32 %d, %a, %b;", 32, 32, 'f', r_fadd_rp, 0},
    {"mul.rz.f32 %d, %a, %b;", 32, 32, 'f', r_fmul_rz, 0},
    {"fma.rn.f32 %d, %a, %b, %c;", 32, 32, 'f', r_ffma_rn, 0},
    {"fma.rz.f32 %d, %a, %b, %c;", 32, 32, 'f', r_ffma_rz, 0},
    {"div.rn.f32 %d, %a, %b;", 32, 32, 'f', r_fdiv_rn, 0},
    {"sqrt.rn.f32 %d, %a;", 32, 32, 'f', r_fsqrt_rn, 0},
    {"rcp.rn.f32 %d, %a;", 32, 32, 'f', r_frcp_rn, 0},
    {"add.ftz.f32 %d, %a, %b;", 32, 32, 'f', r_fadd_ftz, 0},
    {"mul.ftz.f32 %d, %a, %b;", 32, 32, 'f', r_fmul_ftz, 0},
    {"add.sat.f32 %d, %a, %b;", 32, 32, 'f', r_fadd_sat, 0},
    {"min.f32 %d, %a, %b;", 32, 32, 'f', r_fmin, 0},
    {"max.f32 %d, %a, %b;", 32, 32, 'f', r_fmax, 0},
    {"min.NaN.f32 %d, %a, %b;", 32, 32, 'f', r_fmin_nan, 0},
    {"abs.f32 %d, %a;", 32, 32, 'f', r_fabs, 0},
    {"neg.f32 %d, %a;", 32, 32, 'f', r_fneg, 0},
    {"copysign.f32 %d, %a, %b;", 32, 32, 'f', r_fcopysign, 0},
    {"sin.approx.f32 %d, %a;", 32, 32, 'f', r_sin, 1e-6},
    {"ex2.approx.f32 %d, %a;", 32, 32, 'f', r_ex2, 1e-6},
    {"lg2.approx.f32 %d, %a;", 32, 32, 'f', r_lg2, 1e-6},
    {"rsqrt.approx.f32 %d, %a;", 32, 32, 'f', r_rsqrt, 1e-6},
    {"add.rn.f64 %d, %a, %b;", 64, 64, 'd', r_dadd_rn, 0},
    {"add.rz.f64 %d, %a, %b;", 64, 64, 'd', r_dadd_rz, 0},
    {"add.rp.f64 %d, %a, %b;", 64, 64, 'd', r_dadd_rp, 0},
    {"fma.rn.f64 %d, %a, %b, %c;", 64, 64, 'd', r_dfma_rn, 0},
    {"div.rn.f64 %d, %a, %b;", 64, 64, 'd', r_ddiv_rn, 0},
    {"sqrt.rn.f64 %d, %a;", 64, 64, 'd', r_dsqrt_rn, 0},
    {"cvt.rni.s32.f32 %d, %a;", 32, 32, 'f', r_cvt_rni_s32, 0},
    {"cvt.rzi.s32.f32 %d, %a;", 32, 32, 'f', r_cvt_rzi_s32, 0},
    {"cvt.rmi.s32.f32 %d, %a;", 32, 32, 'f', r_cvt_rmi_s32, 0},
    {"cvt.rpi.s32.f32 %d, %a;", 32, 32, 'f', r_cvt_rpi_s32, 0},
    {"cvt.rzi.u32.f32 %d, %a;", 32, 32, 'f', r_cvt_rzi_u32, 0},
    {"cvt.rn.f32.s32 %d, %a;", 32, 32, 'i', r_cvt_rn_f32_s32, 0},
    {"cvt.rz.f32.s32 %d, %a;", 32, 32, 'i', r_cvt_rz_f32_s32, 0},
    {"cvt.rn.f32.u32 %d, %a;", 32, 32, 'i', r_cvt_rn_f32_u32, 0},
    {"cvt.f64.f32 %d, %a;", 32, 64, 'f', r_cvt_f64_f32, 0},
    {"cvt.rni.f32.f32 %d, %a;", 32, 32, 'f', r_cvt_rni_f32_f32, 0},
    {"cvt.rn.f32.f64 %d, %a;", 64, 32, 'd', r_cvt_rn_f32_f64, 0},
    {"cvt.rz.f32.f64 %d, %a;", 64, 32, 'd', r_cvt_rz_f32_f64, 0},
    {"cvt.rn.f16.f32 %h0, %a; cvt.f32.f16 %d, %h0;", 32, 32, 'f', r_cvt_f16_rt, 0},
};

static bool close_enough(uint64_t got, uint64_t want, double tol) {
  float g = bitsf(got), w = bitsf(want);
  if (isnan(g) || isnan(w)) return isnan(g) && isnan(w);
  if (isinf(w) || isinf(g)) return g == w;
  return fabs((double)g - w) <= tol * fabs((double)w) + 1e-30;
}

TEST_IMPL(ops_edge_values) {
  init_floats();
  unsigned checked = 0;
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    const op_case_t *oc = &cases[ci];
    const uint64_t *vals;
    size_t nv;
    uint64_t i32[32];
    switch (oc->vals) {
      case 'i':
        for (size_t i = 0; i < sizeof i32v / sizeof i32v[0]; i++) i32[i] = i32v[i];
        vals = i32;
        nv = sizeof i32v / sizeof i32v[0];
        break;
      case 'l': vals = i64v; nv = sizeof i64v / sizeof i64v[0]; break;
      case 'f':
        for (size_t i = 0; i < 24; i++) i32[i] = f32v[i];
        vals = i32;
        nv = 24;
        break;
      default: vals = f64v; nv = 20; break;
    }
    /* Every (a, b) pair, c cycling through the set. */
    uint32_t n = (uint32_t)(nv * nv);
    uint64_t *a = calloc(n, 8), *b = calloc(n, 8), *c = calloc(n, 8), *d = calloc(n, 8);
    ASSERT(a && b && c && d);
    for (uint32_t i = 0; i < n; i++) {
      a[i] = vals[i / nv];
      b[i] = vals[i % nv];
      c[i] = vals[(i * 7 + 3) % nv];
    }
    char ptx[4096];
    snprintf(ptx, sizeof ptx, kernel_fmt, oc->w, oc->dw, oc->w, oc->w, oc->w, oc->body, oc->dw);
    hz_clear_buffers();
    hz_add_buffer(a, n * 8);
    hz_add_buffer(b, n * 8);
    hz_add_buffer(c, n * 8);
    hz_add_buffer(d, n * 8);
    struct __attribute__((packed)) {
      uint64_t pa, pb, pc, pd;
      uint32_t n;
    } params = {(uintptr_t)a, (uintptr_t)b, (uintptr_t)c, (uintptr_t)d, n};
    hz_launch_t l = {{(n + 63) / 64, 1, 1}, {64, 1, 1}, 0};
    char msg[512];
    int r = hz_run(ptx, "k", &l, &params, msg, sizeof msg, NULL);
    if (r != 0) FT_FAIL_("`%s`: launch failed (%d): %s", oc->body, r, msg);
    for (uint32_t i = 0; i < n; i++) {
      uint64_t want = oc->ref(a[i], b[i], c[i]);
      if (oc->dw == 32) want &= 0xffffffffu;
      bool ok = oc->tol > 0 ? close_enough(d[i], want, oc->tol) : d[i] == want;
      if (!ok)
        FT_FAIL_("`%s` a=%#llx b=%#llx c=%#llx: got %#llx, want %#llx", oc->body, (unsigned long long)a[i],
                 (unsigned long long)b[i], (unsigned long long)c[i], (unsigned long long)d[i],
                 (unsigned long long)want);
    }
    checked += n;
    free(a);
    free(b);
    free(c);
    free(d);
  }
  printf("# %zu instruction forms, %u operand combinations\n", sizeof cases / sizeof cases[0], checked);
  return TEST_OK;
}
