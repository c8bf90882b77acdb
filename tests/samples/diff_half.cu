// diff_half: half and bfloat16 arithmetic (__hadd, __hsub, __hmul, __hfma, their
// _sat forms for half, __hmin/__hmax and the _nan forms, __hneg, __habs; the paired
// __hadd2, __hmul2, __hfma2 on half2 and bfloat162) over
// zeros, subnormals, extremes, infinities and NaN, against the host computing each
// result exactly in 128-bit integers and rounding it to nearest even itself. Built
// for compute_80 (bf16 fma, f16/bf16 min/max). NaN results may be any NaN.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "samples.h"

enum { HOPS = 13, BOPS = 9, X2OPS = 10, CMPS = 4, OPS = HOPS + BOPS + X2OPS + CMPS };

__global__ void hops(const unsigned short *a, const unsigned short *b, const unsigned short *c, unsigned short *r,
                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]), z = __ushort_as_half(c[i]);
  __half h[HOPS] = {__hadd(x, y), __hsub(x, y), __hmul(x, y), __hfma(x, y, z), __hadd_sat(x, y), __hmul_sat(x, y),
                    __hfma_sat(x, y, z), __hmin(x, y), __hmax(x, y), __hmin_nan(x, y), __hmax_nan(x, y),
                    __hneg(x), __habs(x)};
  unsigned short *o = r + (size_t)i * OPS;
  for (int k = 0; k < HOPS; k++) o[k] = __half_as_ushort(h[k]);
  // bfloat16 operands: the high halves of the same words' float images
  __nv_bfloat16 bx = __ushort_as_bfloat16(a[i + n]), by = __ushort_as_bfloat16(b[i + n]),
                bz = __ushort_as_bfloat16(c[i + n]);
  __nv_bfloat16 g[BOPS] = {__hadd(bx, by), __hsub(bx, by), __hmul(bx, by), __hfma(bx, by, bz), __hmin(bx, by),
                           __hmax(bx, by), __hmin_nan(bx, by), __hneg(bx), __habs(bx)};
  for (int k = 0; k < BOPS; k++) o[HOPS + k] = __bfloat16_as_ushort(g[k]);
  // the paired forms: {x, z} op {y, x} (op {z, y})
  __half2 X2 = __halves2half2(x, z), Y2 = __halves2half2(y, x), Z2 = __halves2half2(z, y);
  __half2 h2[3] = {__hadd2(X2, Y2), __hmul2(X2, Y2), __hfma2(X2, Y2, Z2)};
  for (int k = 0; k < 3; k++) {
    o[HOPS + BOPS + 2 * k] = __half_as_ushort(__low2half(h2[k]));
    o[HOPS + BOPS + 2 * k + 1] = __half_as_ushort(__high2half(h2[k]));
  }
  __nv_bfloat162 B2x = __halves2bfloat162(bx, bz), B2y = __halves2bfloat162(by, bx), B2z = __halves2bfloat162(bz, by);
  __nv_bfloat162 b2[2] = {__hadd2(B2x, B2y), __hfma2(B2x, B2y, B2z)};
  for (int k = 0; k < 2; k++) {
    o[HOPS + BOPS + 6 + 2 * k] = __bfloat16_as_ushort(__low2bfloat16(b2[k]));
    o[HOPS + BOPS + 6 + 2 * k + 1] = __bfloat16_as_ushort(__high2bfloat16(b2[k]));
  }
  // comparisons: ordered and unordered, scalar and paired (bit 0 low, bit 1 high)
  int c0 = OPS - CMPS;
  o[c0] = __hlt(x, y) | __hle(x, y) << 1 | __heq(x, y) << 2 | __hne(x, y) << 3 | __hgt(x, y) << 4 |
          __hltu(x, y) << 5 | __hneu(x, y) << 6 | __hgeu(x, y) << 7 | __hisnan(x) << 8;
  o[c0 + 1] = __hlt(bx, by) | __hle(bx, by) << 1 | __heq(bx, by) << 2 | __hne(bx, by) << 3 |
              __hgt(bx, by) << 4 | __hltu(bx, by) << 5 | __hneu(bx, by) << 6 | __hgeu(bx, by) << 7;
  o[c0 + 2] = __hblt2(X2, Y2) | __hbgeu2(X2, Y2) << 1 | __hbeq2(X2, Y2) << 2;
  o[c0 + 3] = __hblt2(B2x, B2y) | __hbgeu2(B2x, B2y) << 1 | __hbne2(B2x, B2y) << 2;
}

// ---- the host's exact arithmetic: a format with F fraction bits, exponent bias,
// and values scaled to integers by 2^S (every input is a multiple of 2^-S) ----
struct Fmt {
  int F, bias, S;
};
static const Fmt HALF = {10, 15, 24}, BF16 = {7, 127, 40};

static bool is_nan(const Fmt &f, unsigned v) {
  unsigned e = (v >> f.F) & (2u * f.bias + 1), m = v & ((1u << f.F) - 1);
  return e == 2u * f.bias + 1 && m;
}
static bool is_inf(const Fmt &f, unsigned v) {
  return ((v & 0x7fffu) >> f.F) == 2u * f.bias + 1 && !(v & ((1u << f.F) - 1));
}
// |v| * 2^S as an integer (finite v)
static __int128 scaled(const Fmt &f, unsigned v) {
  unsigned e = (v >> f.F) & (2u * f.bias + 1), m = v & ((1u << f.F) - 1);
  int E = e ? (int)e - f.bias - f.F : 1 - f.bias - f.F;  // value = M * 2^E
  __int128 M = e ? (m | (1u << f.F)) : m;
  int sh = E + f.S;
  return sh >= 0 ? M << sh : M >> -sh;  // inputs are chosen so that nothing is lost
}
// Rounds sign * X * 2^-k to the format, to nearest even; zero_sign for an exact 0.
static unsigned round_to(const Fmt &f, bool neg, __int128 X, int k, bool zero_sign) {
  unsigned sign = neg ? 0x8000u : 0;
  if (X == 0) return zero_sign ? 0x8000u : 0;
  int msb = 127;
  while (!((X >> msb) & 1)) msb--;
  int e = msb - k, emin = 1 - f.bias;
  int u = (e < emin ? emin : e) - f.F;  // exponent of the unit in the last place
  int sh = u + k;                        // X * 2^-k / 2^u = X >> sh
  __int128 q;
  if (sh <= 0) {
    q = X << -sh;
  } else if (sh > 126) {
    q = 0;
  } else {
    q = X >> sh;
    __int128 rem = X & (((__int128)1 << sh) - 1), half = (__int128)1 << (sh - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
  }
  __int128 enc = ((__int128)(u - (emin - f.F)) << f.F) + q;
  __int128 inf = (__int128)(2 * f.bias + 1) << f.F;
  if (enc >= inf) enc = inf;
  return sign | (unsigned)enc;
}

enum { ADD, SUB, MUL, FMA };
static const unsigned QNAN = 0x7fffu;
// a op b (op c), exactly then rounded; QNAN for an invalid operation
static unsigned ref(const Fmt &f, int op, unsigned a, unsigned b, unsigned c) {
  if (is_nan(f, a) || is_nan(f, b) || (op == FMA && is_nan(f, c))) return QNAN;
  bool sa = a & 0x8000u, sb = (b & 0x8000u) != 0, sc = c & 0x8000u;
  if (op == SUB) sb = !sb;
  unsigned inf = (2u * f.bias + 1) << f.F;
  if (op == ADD || op == SUB) {
    bool ia = is_inf(f, a), ib = is_inf(f, b);
    if (ia && ib) return sa == sb ? (sa ? 0x8000u : 0) | inf : QNAN;
    if (ia || ib) return ((ia ? sa : sb) ? 0x8000u : 0) | inf;
    __int128 x = scaled(f, a), y = scaled(f, b), s = (sa ? -x : x) + (sb ? -y : y);
    return round_to(f, s < 0, s < 0 ? -s : s, f.S, sa && sb);
  }
  bool sp = sa != sb;  // sign of the product
  bool ia = is_inf(f, a), ib = is_inf(f, b);
  __int128 x = ia ? 0 : scaled(f, a), y = ib ? 0 : scaled(f, b);
  if ((ia && !ib && y == 0) || (ib && !ia && x == 0)) return QNAN;  // inf * 0
  bool pinf = ia || ib;
  if (op == MUL) return pinf ? (sp ? 0x8000u : 0) | inf : round_to(f, sp, x * y, 2 * f.S, sp);
  bool ic = is_inf(f, c);
  if (pinf && ic) return sp == sc ? (sp ? 0x8000u : 0) | inf : QNAN;
  if (pinf || ic) return ((pinf ? sp : sc) ? 0x8000u : 0) | inf;
  __int128 p = x * y, z = scaled(f, c) << f.S, s = (sp ? -p : p) + (sc ? -z : z);
  return round_to(f, s < 0, s < 0 ? -s : s, 2 * f.S, sp && sc && p == 0 && z == 0);
}
static unsigned sat(unsigned v) {  // to [0, 1] (half), NaN to +0
  if (is_nan(HALF, v) || (v & 0x8000u)) return 0;
  return v > 0x3c00u ? 0x3c00u : v;
}
// min/max: a NaN operand gives the other one (_nan forms: NaN); -0 below +0
static unsigned minmax(const Fmt &f, unsigned a, unsigned b, bool mx, bool nanp) {
  bool na = is_nan(f, a), nb = is_nan(f, b);
  if (na || nb) return nanp || (na && nb) ? QNAN : na ? b : a;
  auto key = [](unsigned v) { return (v & 0x8000u) ? -(int)(v & 0x7fffu) - 1 : (int)v; };  // total order
  bool lt = key(a) < key(b);
  return (lt != mx) ? a : b;
}

// the comparisons of the kernel, from the values: lt le eq ne gt ltu neu geu
static double value(const Fmt &f, unsigned v) {
  if (is_nan(f, v)) return NAN;
  if (is_inf(f, v)) return (v & 0x8000u) ? -INFINITY : INFINITY;
  double x = (double)scaled(f, v) / (double)((__int128)1 << f.S);
  return (v & 0x8000u) ? -x : x;
}
static unsigned cmps(const Fmt &f, unsigned a, unsigned b) {
  double x = value(f, a), y = value(f, b);
  bool un = x != x || y != y;
  return (!un && x < y) | (!un && x <= y) << 1 | (!un && x == y) << 2 | (!un && x != y) << 3 | (!un && x > y) << 4 |
         (un || x < y) << 5 | (un || x != y) << 6 | (un || x >= y) << 7;
}

int main() {
  // half: zeros, subnormals, normals across the range, the largest, infinities, NaN
  std::vector<unsigned> hv = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3555, 0x3e00,
                              0x4000, 0x4900, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x5140, 0x2e66, 0x1400,
                              0xc500, 0x3bff, 0x3c01, 0x0200};
  // bfloat16: magnitudes within 2^-20 .. 2^20 (the host's 128-bit range), zeros, inf, NaN
  std::vector<unsigned> bv = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3eab, 0x4049, 0x3580, 0xb580, 0x4980, 0xc97f,
                              0x7f80, 0xff80, 0x7fc0, 0x3f81, 0x3f7f, 0x4000, 0x3c00, 0x43ff, 0x4b00, 0x3a80};
  int nh = (int)hv.size(), nb = (int)bv.size(), n = nh * nh;
  std::vector<unsigned short> a(2 * n), b(2 * n), c(2 * n);
  for (int i = 0; i < n; i++) {
    a[i] = (unsigned short)hv[i % nh], b[i] = (unsigned short)hv[i / nh], c[i] = (unsigned short)hv[(i * 7 + 3) % nh];
    a[n + i] = (unsigned short)bv[i % nb], b[n + i] = (unsigned short)bv[(i / nb) % nb];
    c[n + i] = (unsigned short)bv[(i * 5 + 1) % nb];
  }
  unsigned short *da, *db, *dc, *dr;
  CHECK(cudaMalloc(&da, 4 * n));
  CHECK(cudaMalloc(&db, 4 * n));
  CHECK(cudaMalloc(&dc, 4 * n));
  CHECK(cudaMalloc(&dr, (size_t)n * OPS * 2));
  CHECK(cudaMemcpy(da, a.data(), 4 * n, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), 4 * n, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), 4 * n, cudaMemcpyHostToDevice));
  hops<<<(n + 127) / 128, 128>>>(da, db, dc, dr, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned short> r((size_t)n * OPS);
  CHECK(cudaMemcpy(r.data(), dr, r.size() * 2, cudaMemcpyDeviceToHost));
  static const char *names[OPS] = {"hadd", "hsub", "hmul", "hfma", "hadd_sat", "hmul_sat", "hfma_sat", "hmin",
                                   "hmax", "hmin_nan", "hmax_nan", "hneg", "habs", "bf hadd", "bf hsub", "bf hmul",
                                   "bf hfma", "bf hmin", "bf hmax", "bf hmin_nan", "bf hneg", "bf habs",
                                   "hadd2 lo", "hadd2 hi", "hmul2 lo", "hmul2 hi", "hfma2 lo", "hfma2 hi",
                                   "bf hadd2 lo", "bf hadd2 hi", "bf hfma2 lo", "bf hfma2 hi",
                                   "compare f16", "compare bf16", "compare half2 (both)", "compare bf162 (both)"};
  int bad = 0;
  for (int i = 0; i < n; i++) {
    unsigned x = a[i], y = b[i], z = c[i], bx = a[n + i], by = b[n + i], bz = c[n + i], want[OPS];
    want[0] = ref(HALF, ADD, x, y, 0);
    want[1] = ref(HALF, SUB, x, y, 0);
    want[2] = ref(HALF, MUL, x, y, 0);
    want[3] = ref(HALF, FMA, x, y, z);
    want[4] = sat(want[0]);
    want[5] = sat(want[2]);
    want[6] = sat(want[3]);
    want[7] = minmax(HALF, x, y, false, false);
    want[8] = minmax(HALF, x, y, true, false);
    want[9] = minmax(HALF, x, y, false, true);
    want[10] = minmax(HALF, x, y, true, true);
    want[11] = x ^ 0x8000u;
    want[12] = x & 0x7fffu;
    want[13] = ref(BF16, ADD, bx, by, 0);
    want[14] = ref(BF16, SUB, bx, by, 0);
    want[15] = ref(BF16, MUL, bx, by, 0);
    want[16] = ref(BF16, FMA, bx, by, bz);
    want[17] = minmax(BF16, bx, by, false, false);
    want[18] = minmax(BF16, bx, by, true, false);
    want[19] = minmax(BF16, bx, by, false, true);
    want[20] = bx ^ 0x8000u;
    want[21] = bx & 0x7fffu;
    want[22] = want[0];
    want[23] = ref(HALF, ADD, z, x, 0);
    want[24] = want[2];
    want[25] = ref(HALF, MUL, z, x, 0);
    want[26] = want[3];
    want[27] = ref(HALF, FMA, z, x, y);
    want[28] = want[13];
    want[29] = ref(BF16, ADD, bz, bx, 0);
    want[30] = want[16];
    want[31] = ref(BF16, FMA, bz, bx, by);
    int c0 = OPS - CMPS;
    want[c0] = cmps(HALF, x, y) | (unsigned)is_nan(HALF, x) << 8;
    want[c0 + 1] = cmps(BF16, bx, by);
    // paired comparisons are true only when both halves are: {x, z} vs {y, x}
    unsigned lo = cmps(HALF, x, y), hi = cmps(HALF, z, x);
    want[c0 + 2] = (lo & hi & 1) | (lo & hi & 0x80) >> 6 | (lo & hi & 4);
    unsigned blo = cmps(BF16, bx, by), bhi = cmps(BF16, bz, bx);
    want[c0 + 3] = (blo & bhi & 1) | (blo & bhi & 0x80) >> 6 | (blo & bhi & 8) >> 1;
    for (int j = 0; j < OPS; j++) {
      unsigned got = r[(size_t)i * OPS + j];
      const Fmt &f = j < HOPS || (j >= HOPS + BOPS && j < HOPS + BOPS + 6) ? HALF : BF16;
      if (j < OPS - CMPS && is_nan(f, want[j]) && is_nan(f, got)) continue;  // any NaN
      unsigned u = j < HOPS ? x : bx, v = j < HOPS ? y : by;
      bool mm = (j >= 7 && j <= 10) || (j >= 17 && j <= 19);
      if (mm && !(u & 0x7fffu) && !(v & 0x7fffu) && !(got & 0x7fffu)) continue;  // min/max of two zeros: either
      if (got != want[j] && bad++ < 25)
        printf("%s(%04x, %04x, %04x): got %04x, expected %04x\n", names[j], j < HOPS ? x : bx, j < HOPS ? y : by,
               j < HOPS ? z : bz, got, want[j]);
    }
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dr);
  if (bad) printf("%d mismatches\n", bad);
  return verdict("diff_half", bad == 0);
}
