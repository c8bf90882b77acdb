/* lanes.h: one lane's statement of the executors that only read and write their
 * lane's registers; the executors run them, and jit.c pastes this file into every
 * translation so translated code computes with the very same text. */
#ifndef SIM_LANES_H
#define SIM_LANES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Each statement reads A[l], B[l], C[l] and writes D[l] (setp: P[l] and Q[l]), the
 * lane's 64-bit register slots; values are kept zero-extended in them. */
#define SIM_M32 0xffffffffull

/* 32-bit operations whose low 32 bits depend on the operands' low 32 bits only,
 * on whole slots (the compiler keeps 64-bit lanes), the result cut to 32 bits. */
#define SIM_L_BIN32W(expr) \
  uint64_t a = A[l];       \
  uint64_t b = B[l];       \
  D[l] = (expr) & SIM_M32
/* Other 32-bit operations on 32-bit values. */
#define SIM_L_BIN32(expr)         \
  uint32_t a = (uint32_t)A[l];    \
  uint32_t b = (uint32_t)B[l];    \
  D[l] = (uint32_t)(expr)
#define SIM_L_MADLO32 D[l] = (uint32_t)((uint32_t)A[l] * (uint32_t)B[l] + (uint32_t)C[l])
#define SIM_L_ADD64 D[l] = A[l] + B[l]
#define SIM_L_MULWIDES32 D[l] = (uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l])
#define SIM_L_MULWIDEU32 D[l] = (uint64_t)(uint32_t)A[l] * (uint32_t)B[l]
/* mov of a `bits`-bit type: the value cut to its width. */
#define SIM_L_MOV(bits) D[l] = (bits) >= 64 ? A[l] : A[l] & ((1ull << (bits)) - 1)
/* setp of 32-bit integers without a bool combine: P the result, Q its negation. */
#define SIM_L_SETP32(T, op)        \
  bool x = (T)A[l] op (T)B[l];     \
  P[l] = x;                        \
  Q[l] = !x
/* Unsigned 32-bit operands compared as the 64-bit numbers they are once cut to 32
 * bits: the same answer, and the compiler keeps 64-bit lanes. */
#define SIM_L_SETP32U(op)                                                    \
  bool x = (int64_t)(A[l] & 0xffffffffu) op (int64_t)(B[l] & 0xffffffffu);  \
  P[l] = x;                                                                  \
  Q[l] = !x
/* selp d, a, b, {!}c (cneg: c negated). */
#define SIM_L_SELP(cneg) D[l] = (((C[l] & 1) != 0) != (cneg)) ? A[l] : B[l]
/* f32 and f64 values in slots: .ftz flushes subnormals (to a zero of their sign),
 * .sat clamps to [0, 1]; an f32 NaN result is canonical (0x7fffffff, as on GPUs). */
#define SIM_CANON_NAN32 0x7fffffffu
#define SIM_CANON_NAN64 0x7fffffffffffffffull
static inline float sim_ld32(uint64_t v, bool ftz) {
  uint32_t u = (uint32_t)v;
  if (ftz && !(u & 0x7f800000u)) u &= 0x80000000u;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint64_t sim_st32(float f, bool ftz, bool sat) {
  if (sat) f = !(f > 0.0f) ? 0.0f : f > 1.0f ? 1.0f : f; /* NaN and -0 give +0 */
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return SIM_CANON_NAN32; /* NaN (a test on bits: vectorises) */
  if (ftz && !(u & 0x7f800000u)) u &= 0x80000000u;
  return u;
}
static inline double sim_ld64(uint64_t v) {
  double d;
  memcpy(&d, &v, 8);
  return d;
}
static inline uint64_t sim_st64(double d, bool sat) {
  if (sat) d = !(d > 0.0) ? 0.0 : d > 1.0 ? 1.0 : d;
  if (d != d) return SIM_CANON_NAN64;
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
/* An f64 arithmetic result that is NaN, as an H100 gives it (measured: add, mul, fma,
 * div, sqrt; docs/gpu-results.md): a NaN operand comes through with its payload,
 * quieted; an invalid operation on numbers (0/0, sqrt(-1), inf - inf) gives the
 * negative quiet NaN 0xfff8000000000000 (f32 results stay canonical 0x7fffffff).
 * Which of several NaN operands comes through was not measured: the first. */
static inline uint64_t sim_nan64(uint64_t a, uint64_t b, uint64_t c, int n) {
  const uint64_t op[3] = {a, b, c};
  for (int i = 0; i < n; i++)
    if ((op[i] & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return op[i] | 0x0008000000000000ull;
  return 0xfff8000000000000ull;
}
static inline uint64_t sim_st64n(double d, bool sat, uint64_t a, uint64_t b, uint64_t c, int n) {
  return d != d && !sat ? sim_nan64(a, b, c, n) : sim_st64(d, sat);
}
/* The round-to-nearest f32/f64 forms without .ftz or .sat (the executors' fast ones). */
#define SIM_L_F32FAST(expr)               \
  float a = sim_ld32(A[l], false);        \
  float b = sim_ld32(B[l], false);        \
  D[l] = sim_st32((expr), false, false)
#define SIM_L_FMA32 D[l] = sim_st32(fmaf(sim_ld32(A[l], false), sim_ld32(B[l], false), sim_ld32(C[l], false)), false, false)
#define SIM_L_F64FAST(expr)          \
  double a = sim_ld64(A[l]);         \
  double b = sim_ld64(B[l]);         \
  D[l] = sim_st64n((expr), false, A[l], B[l], 0, 2)
#define SIM_L_FMA64 D[l] = sim_st64n(fma(sim_ld64(A[l]), sim_ld64(B[l]), sim_ld64(C[l])), false, A[l], B[l], C[l], 3)

/* cvta between the generic window of shared or local memory and the space's own
 * offsets (global: the same address); k: bit 0 .to, bit 1 a 32-bit result, bits
 * 2-3 the space (0 global, 1 shared, 2 local). */
#define SIM_WIN_SHARED 0x0001000000000000ull
#define SIM_WIN_LOCAL 0x0002000000000000ull
#define SIM_L_CVTA(k)                                                                                   \
  uint64_t win = ((k) >> 2) == 1 ? SIM_WIN_SHARED : ((k) >> 2) == 2 ? SIM_WIN_LOCAL : 0;               \
  uint64_t v = ((k) & 1) ? A[l] - win : A[l] + win;                                                     \
  D[l] = ((k) & 2) ? (uint32_t)v : v

#define SIM_L_CVT_U64_U32 D[l] = (uint32_t)A[l]
#define SIM_L_CVT_S64_S32 D[l] = (uint64_t)(int64_t)(int32_t)A[l]

#endif
