/* cvt.c: every cvt form: integer widening/narrowing with .sat, float<->float with
 * rounding, .ftz and .sat (f16 and bf16 included), float->integer (always
 * saturating; NaN as an H100 gives it) and integer->float with the four rounding modes.
 * Built with -frounding-math: conversions honour the host's dynamic rounding. */
#include <math.h>
#include <string.h>

#include "interp.h"
#include "lanes.h"

static inline bool is_f(unsigned t) {
  return t == FT_PTX_T_F16 || t == FT_PTX_T_BF16 || t == FT_PTX_T_F32 || t == FT_PTX_T_F64;
}
static inline unsigned bits_of(unsigned t) { return ft_ptx_type_size(t) * 8; }

static double load_f(unsigned t, uint64_t v, bool ftz) {
  switch (t) {
    case FT_PTX_T_F16: {
      uint16_t h = (uint16_t)v;
      _Float16 f;
      memcpy(&f, &h, 2);
      return (double)f;
    }
    case FT_PTX_T_BF16: {
      uint32_t u = (uint32_t)(v & 0xffff) << 16;
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
    case FT_PTX_T_F32: {
      uint32_t u = (uint32_t)v;
      if (ftz && !(u & 0x7f800000u)) u &= 0x80000000u;
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
    default: {
      double d;
      memcpy(&d, &v, 8);
      return d;
    }
  }
}

/* bf16 from f32 bits, round to nearest even (the only mode nvcc emits for it). */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (f != f) return 0x7fff;
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

static uint64_t store_f(unsigned t, double x, bool ftz, bool sat) {
  if (sat) x = !(x > 0.0) ? 0.0 : x > 1.0 ? 1.0 : x; /* NaN and -0 give +0 */
  switch (t) {
    case FT_PTX_T_F16: {
      if (x != x) return 0x7fff;
      _Float16 h = (_Float16)x;
      uint16_t u;
      memcpy(&u, &h, 2);
      return u;
    }
    case FT_PTX_T_BF16: return to_bf16((float)x);
    case FT_PTX_T_F32: {
      float f = (float)x;
      if (f != f) return 0x7fffffffu;
      uint32_t u;
      memcpy(&u, &f, 4);
      if (ftz && !(u & 0x7f800000u)) u &= 0x80000000u;
      return u;
    }
    default: {
      if (x != x) return 0x7fffffffffffffffull;
      uint64_t u;
      memcpy(&u, &x, 8);
      return u;
    }
  }
}

static double round_int(double x, unsigned rnd) {
  switch (rnd) {
    case FT_PTX_RND_RNI: return nearbyint(x); /* nearest even under the default mode */
    case FT_PTX_RND_RZI: return trunc(x);
    case FT_PTX_RND_RMI: return floor(x);
    case FT_PTX_RND_RPI: return ceil(x);
    default: return x;
  }
}

static uint64_t cvt_one(const sim_insn_t *in, uint64_t v) {
  unsigned dt = in->type, st = in->type2;
  bool ftz = in->flags & FT_PTX_F_FTZ, sat = in->flags & FT_PTX_F_SAT;
  unsigned sb = bits_of(st), db = bits_of(dt);
  bool ssg = sim_type_signed(st), dsg = sim_type_signed(dt);
  if (!is_f(st)) {
    uint64_t u = sb >= 64 ? v : v & ((1ull << sb) - 1);
    int64_t s = sb >= 64 ? (int64_t)v : (int64_t)(v << (64 - sb)) >> (64 - sb);
    if (is_f(dt)) {
      if (dt == FT_PTX_T_F64) return store_f(dt, ssg ? (double)s : (double)u, ftz, sat);
      float f = ssg ? (float)s : (float)u; /* one rounding, in the current mode */
      return store_f(dt, f, ftz, sat);
    }
    if (sat) {
      if (dsg) {
        int64_t lo = db >= 64 ? INT64_MIN : -(1ll << (db - 1)), hi = db >= 64 ? INT64_MAX : (1ll << (db - 1)) - 1;
        if (ssg) s = s < lo ? lo : s > hi ? hi : s;
        else s = u > (uint64_t)hi ? hi : (int64_t)u;
        u = (uint64_t)s;
      } else {
        uint64_t hi = db >= 64 ? UINT64_MAX : (1ull << db) - 1;
        if (ssg) u = s < 0 ? 0 : (uint64_t)s > hi ? hi : (uint64_t)s;
        else u = u > hi ? hi : u;
      }
    } else {
      u = ssg ? (uint64_t)s : u;
    }
    return db >= 64 ? u : u & ((1ull << db) - 1);
  }
  double x = load_f(st, v, ftz);
  if (is_f(dt)) {
    if (in->rnd >= FT_PTX_RND_RNI) {
      /* Same-size round to integral, in the source precision. */
      x = round_int(x, in->rnd);
    }
    return store_f(dt, x, ftz, sat);
  }
  /* float -> integer: round, saturate to the destination range. NaN gives, as an
   * H100 does (measured, docs/gpu-results.md; the PTX ISA leaves it unsaid), the
   * destination's sign bit alone (0x8000000000000000, 0x80000000) from an f64 or
   * into 64 bits, and 0 from a narrower float into 32 bits or fewer (f64 into 16 or
   * 8 bits was not measured: 0). */
  if (x != x) return db >= 64 ? 0x8000000000000000ull : st == FT_PTX_T_F64 && db == 32 ? 0x80000000ull : 0;
  x = round_int(x, in->rnd ? in->rnd : FT_PTX_RND_RZI);
  uint64_t r;
  if (dsg) {
    double lo = db >= 64 ? -9223372036854775808.0 : -(double)(1ll << (db - 1));
    double hi = db >= 64 ? 9223372036854775807.0 : (double)((1ll << (db - 1)) - 1);
    int64_t s = x <= lo ? (int64_t)lo : x >= hi ? (db >= 64 ? INT64_MAX : (int64_t)hi) : (int64_t)x;
    r = (uint64_t)s;
  } else {
    double hi = db >= 64 ? 18446744073709551615.0 : (double)((1ull << db) - 1);
    r = x <= 0 ? 0 : x >= hi ? (db >= 64 ? UINT64_MAX : (uint64_t)hi) : (uint64_t)x;
  }
  return db >= 64 ? r : r & ((1ull << db) - 1);
}

static void cvt_generic(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  int old = (in->rnd >= FT_PTX_RND_RZ && in->rnd <= FT_PTX_RND_RP) ? sim_round_enter(in->rnd) : -1;
  SIM_LANES(m, l, D[l] = cvt_one(in, A[l]));
  sim_round_leave(old);
}

/* The address arithmetic forms, everywhere in nvcc's output. */
static void cvt_u64_u32(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  SIM_LANES(m, l, SIM_L_CVT_U64_U32);
}
static void cvt_s64_s32(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  SIM_LANES(m, l, SIM_L_CVT_S64_S32);
}
/* The translator's table (jit.c). */
const sim_jit_form_t sim_jit_forms_cvt[] = {
    SIM_JIT_LANE(cvt_u64_u32, "SIM_L_CVT_U64_U32", NULL), SIM_JIT_LANE(cvt_s64_s32, "SIM_L_CVT_S64_S32", NULL), SIM_JIT_END};

sim_exec_fn sim_choose_cvt(sim_insn_t *in) {
  unsigned dt = in->type, st = in->type2;
  if (!ft_ptx_type_size(dt) || !ft_ptx_type_size(st) || dt == FT_PTX_T_PRED || st == FT_PTX_T_PRED ||
      dt == FT_PTX_T_F16X2 || st == FT_PTX_T_F16X2 || dt == FT_PTX_T_BF16X2 || st == FT_PTX_T_BF16X2 ||
      dt == FT_PTX_T_B128 || (in->flags & FT_PTX_F_RELU))
    return NULL;
  if (!(in->flags & FT_PTX_F_SAT)) {
    if (dt == FT_PTX_T_U64 && st == FT_PTX_T_U32) return cvt_u64_u32;
    if (dt == FT_PTX_T_S64 && st == FT_PTX_T_S32) return cvt_s64_s32;
  }
  return cvt_generic;
}
