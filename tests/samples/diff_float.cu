// diff_float: float and double arithmetic in every rounding mode (add, mul, fma,
// div, sqrt; rcp), min/max, denormals, NaN results, and conversions (float <-> integer with
// saturation, double -> float, integer -> float, float -> half) over edge values,
// each checked against the host's IEEE arithmetic under the same rounding mode.
// The GPU rules encoded here: arithmetic NaN results are the canonical 0x7fffffff;
// float -> integer saturates and takes NaN to 0; denormals are kept (no -ftz).
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include "samples.h"

enum { OPS = 48 };

__global__ void fops(const float *a, const float *b, const float *c, const double *d, const int *k,
                     unsigned *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], z = c[i];
  unsigned *o = r + (size_t)i * OPS;
  float f[24] = {__fadd_rn(x, y), __fadd_rz(x, y), __fadd_ru(x, y), __fadd_rd(x, y),
                 __fmul_rn(x, y), __fmul_rz(x, y), __fmul_ru(x, y), __fmul_rd(x, y),
                 __fmaf_rn(x, y, z), __fmaf_rz(x, y, z), __fmaf_ru(x, y, z), __fmaf_rd(x, y, z),
                 __fdiv_rn(x, y), __fdiv_rz(x, y), __fdiv_ru(x, y), __fdiv_rd(x, y),
                 __fsqrt_rn(x), __fsqrt_rz(x), __fsqrt_ru(x), __fsqrt_rd(x),
                 __frcp_rn(y), fminf(x, y), fmaxf(x, y), __fsub_rn(x, z)};
  for (int j = 0; j < 24; j++) o[j] = __float_as_uint(f[j]);
  o[24] = (unsigned)__float2int_rn(x);
  o[25] = (unsigned)__float2int_rz(x);
  o[26] = (unsigned)__float2int_ru(x);
  o[27] = (unsigned)__float2int_rd(x);
  o[28] = __float2uint_rz(x);
  long long ll = __float2ll_rn(x);
  o[29] = (unsigned)ll, o[30] = (unsigned)(ll >> 32);
  o[31] = __float_as_uint(__double2float_rn(d[i]));
  o[32] = __float_as_uint(__double2float_rz(d[i]));
  o[33] = __float_as_uint(__double2float_ru(d[i]));
  o[34] = __float_as_uint(__double2float_rd(d[i]));
  o[35] = __float_as_uint(__int2float_rz(k[i]));
  o[36] = __float_as_uint(__int2float_ru(k[i]));
  o[37] = __float_as_uint(__uint2float_rd((unsigned)k[i]));
  o[38] = __half_as_ushort(__float2half_rn(x));
  o[39] = __float_as_uint(__half2float(__ushort_as_half((unsigned short)k[i])));
  unsigned long long ul = __float2ull_rn(x);
  o[40] = (unsigned)ul, o[41] = (unsigned)(ul >> 32);
  long long dl = __double2ll_rn(d[i]);
  o[42] = (unsigned)dl, o[43] = (unsigned)(dl >> 32);
  unsigned long long du = __double2ull_rn(d[i]);
  o[44] = (unsigned)du, o[45] = (unsigned)(du >> 32);
  o[46] = (unsigned)__double2int_rn(d[i]);
  o[47] = __double2uint_rn(d[i]);
}

// Double arithmetic in the four rounding modes: x = d[i], y = d[(i * 13 + 5) % n],
// z = (double)a[i].
enum { DOPS = 20 };
__global__ void dops(const double *d, const float *a, unsigned long long *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = d[i], y = d[(i * 13 + 5) % n], z = (double)a[i];
  double f[DOPS] = {__dadd_rn(x, y), __dadd_rz(x, y), __dadd_ru(x, y), __dadd_rd(x, y),
                    __dmul_rn(x, y), __dmul_rz(x, y), __dmul_ru(x, y), __dmul_rd(x, y),
                    __fma_rn(x, y, z), __fma_rz(x, y, z), __fma_ru(x, y, z), __fma_rd(x, y, z),
                    __ddiv_rn(x, y), __ddiv_rz(x, y), __ddiv_ru(x, y), __ddiv_rd(x, y),
                    __dsqrt_rn(x), __dsqrt_rz(x), __dsqrt_ru(x), __dsqrt_rd(x)};
  for (int j = 0; j < DOPS; j++) r[(size_t)i * DOPS + j] = __double_as_longlong(f[j]);
}

static unsigned bits(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}
static float fl(unsigned u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
// An arithmetic result as a GPU gives it: NaN is the canonical 0x7fffffff.
static unsigned canon(float f) { return std::isnan(f) ? 0x7fffffffu : bits(f); }

// float -> int as the GPU converts: saturating (rounding by mode). NaN gives the
// destination's sign bit alone (0x8000000000000000, 0x80000000) from a double or into
// 64 bits, and 0 from a float into 32 bits (an H100's answers; docs/gpu-results.md).
static long long f2i(double x, int mode, long long lo, long long hi, bool from64 = false) {
  if (std::isnan(x)) return hi > (long long)UINT32_MAX ? INT64_MIN : from64 ? (long long)0x80000000u : 0;
  double r = mode == 0 ? std::nearbyint(x) : mode == 1 ? std::trunc(x) : mode == 2 ? std::ceil(x) : std::floor(x);
  if (r < (double)lo) return lo;
  if (r >= 9223372036854775808.0 && hi == INT64_MAX) return INT64_MAX;
  if (r > (double)hi) return hi;
  return (long long)r;
}
// float -> unsigned 64 bits: saturating; NaN as in f2i.
static unsigned long long f2u64(double x) {
  if (std::isnan(x)) return 0x8000000000000000ull;
  double r = std::nearbyint(x);
  if (r <= 0) return 0;
  if (r >= 18446744073709551616.0) return UINT64_MAX;
  return (unsigned long long)r;
}
// One line for the first mismatch of each operation, a count of them all at the end.
static int g_miss[64];
static bool miss(int op) { return g_miss[op]++ == 0; }

// float -> half, round to nearest even, written out from the formats: the value is
// mant * 2^exp2 exactly; a half's unit in the last place is 2^(max(floor(log2 v),
// -14) - 10) and its encoding is ((ulp exponent + 24) << 10) + q for both normal and
// subnormal halves (a carry into the next binade falls out of the same formula).
static unsigned short f2h(float f) {
  unsigned u = bits(f), sign = (u >> 16) & 0x8000u, au = u & 0x7fffffffu;
  if (au >= 0x7f800000u) return (unsigned short)(sign | 0x7c00u | (au > 0x7f800000u ? 0x200u : 0));
  if (au == 0) return (unsigned short)sign;
  int e = (int)(au >> 23);
  unsigned long long mant = e ? (au & 0x7fffffu) | 0x800000u : au;
  int exp2 = e ? e - 150 : -149;
  int lg = 63 - __builtin_clzll(mant) + exp2;
  int ulp = (lg < -14 ? -14 : lg) - 10, shift = ulp - exp2;
  unsigned long long q;
  if (shift <= 0) {
    q = mant << -shift;
  } else if (shift > 62) {
    q = 0;
  } else {
    q = mant >> shift;
    unsigned long long rem = mant & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
  }
  unsigned long long enc = ((unsigned long long)(ulp + 24) << 10) + q;
  if (enc >= 0x7c00u) enc = 0x7c00u;
  return (unsigned short)(sign | enc);
}
static float h2f(unsigned short h) {
  unsigned s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
  if (e == 31) return fl(s | 0x7f800000u | (m << 13));
  if (e == 0) return (s ? -1.0f : 1.0f) * std::ldexp((float)m, -24);
  return fl(s | ((e - 15 + 127) << 23) | (m << 13));
}

int main() {
  std::vector<float> ev = {0.0f, -0.0f, fl(1), fl(0x80000001u), fl(0x007fffffu), 1.17549435e-38f, -1.17549435e-38f,
                           3.40282347e38f, -3.40282347e38f, INFINITY, -INFINITY, fl(0x7fc00001u), fl(0xffa00000u),
                           1.0f, -1.0f, 1.0f / 3.0f, 0.5f, 2.5f, -2.5f, 3.5f, 1e-20f, 6.1e-5f, 65504.0f, 65520.0f,
                           2147483520.0f, 2147483648.0f, -2147483904.0f, 4294967040.0f, 9.3e18f, -9.3e18f,
                           1.00000012f, 0.99999994f, 16777217.0f, 5.96e-8f, 2.9e-8f};
  int ne = (int)ev.size();
  int n = ne * ne;
  std::vector<float> a(n), b(n), c(n);
  std::vector<double> d(n);
  std::vector<int> k(n);
  uint32_t s = 99;
  for (int i = 0; i < n; i++) {
    a[i] = ev[i % ne];
    b[i] = ev[i / ne];
    c[i] = ev[(i * 7 + 3) % ne];
    s = s * 1664525u + 1013904223u;
    double dd = (double)a[i] * (1.0 + (double)(s >> 8) * 0x1p-40);
    d[i] = (i % 5 == 0) ? (double)b[i] * 1.0000000001 : dd;
    k[i] = (int)(s ^ (s >> 11)) >> (i % 9);
  }
  float *da, *db, *dc;
  double *dd;
  int *dk;
  unsigned *dr;
  CHECK(cudaMalloc(&da, n * 4));
  CHECK(cudaMalloc(&db, n * 4));
  CHECK(cudaMalloc(&dc, n * 4));
  CHECK(cudaMalloc(&dd, n * 8));
  CHECK(cudaMalloc(&dk, n * 4));
  CHECK(cudaMalloc(&dr, (size_t)n * OPS * 4));
  CHECK(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dd, d.data(), n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dk, k.data(), n * 4, cudaMemcpyHostToDevice));
  fops<<<(n + 127) / 128, 128>>>(da, db, dc, dd, dk, dr, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned> r((size_t)n * OPS);
  CHECK(cudaMemcpy(r.data(), dr, (size_t)n * OPS * 4, cudaMemcpyDeviceToHost));
  static const char *names[OPS] = {
      "add.rn", "add.rz", "add.rp", "add.rm", "mul.rn", "mul.rz", "mul.rp", "mul.rm", "fma.rn", "fma.rz", "fma.rp",
      "fma.rm", "div.rn", "div.rz", "div.rp", "div.rm", "sqrt.rn", "sqrt.rz", "sqrt.rp", "sqrt.rm", "rcp.rn", "min",
      "max", "sub.rn", "cvt.rni.s32", "cvt.rzi.s32", "cvt.rpi.s32", "cvt.rmi.s32", "cvt.rzi.u32", "cvt.rni.s64 lo",
      "cvt.rni.s64 hi", "cvt.rn.f32.f64", "cvt.rz.f32.f64", "cvt.rp.f32.f64", "cvt.rm.f32.f64", "cvt.rz.f32.s32",
      "cvt.rp.f32.s32", "cvt.rm.f32.u32", "cvt.rn.f16.f32", "cvt.f32.f16", "cvt.rni.u64.f32 lo", "cvt.rni.u64.f32 hi",
      "cvt.rni.s64.f64 lo", "cvt.rni.s64.f64 hi", "cvt.rni.u64.f64 lo", "cvt.rni.u64.f64 hi", "cvt.rni.s32.f64",
      "cvt.rni.u32.f64"};
  static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
  int bad = 0;
  for (int i = 0; i < n; i++) {
    volatile float x = a[i], y = b[i], z = c[i];
    volatile double dv = d[i];
    volatile int kv = k[i];
    unsigned want[OPS];
    for (int m = 0; m < 4; m++) {
      fesetround(modes[m]);
      want[0 + m] = canon(x + y);
      want[4 + m] = canon(x * y);
      want[8 + m] = canon(std::fma((float)x, (float)y, (float)z));
      want[12 + m] = canon(x / y);
      want[16 + m] = canon(std::sqrt((float)x));
      if (m == 0) {
        want[20] = canon(1.0f / y);
        want[23] = canon(x - z);
      }
      want[31 + m] = canon((float)dv);
      if (m == 1) want[35] = bits((float)kv);
      if (m == 2) want[36] = bits((float)kv);
      if (m == 3) want[37] = bits((float)(unsigned)kv);
    }
    fesetround(FE_TONEAREST);
    float mn = std::isnan(x) ? y : std::isnan(y) ? x : (x < y || (x == y && std::signbit(x))) ? x : y;
    float mx = std::isnan(x) ? y : std::isnan(y) ? x : (x > y || (x == y && !std::signbit(x))) ? x : y;
    want[21] = canon(mn);
    want[22] = canon(mx);
    for (int m = 0; m < 4; m++) want[24 + m] = (unsigned)f2i(x, m, INT32_MIN, INT32_MAX);
    want[28] = (unsigned)f2i(x, 1, 0, UINT32_MAX);
    long long ll = f2i(x, 0, INT64_MIN, INT64_MAX);
    want[29] = (unsigned)ll, want[30] = (unsigned)((unsigned long long)ll >> 32);
    unsigned long long ul = f2u64(x);
    want[40] = (unsigned)ul, want[41] = (unsigned)(ul >> 32);
    long long dl = f2i(dv, 0, INT64_MIN, INT64_MAX);
    want[42] = (unsigned)dl, want[43] = (unsigned)((unsigned long long)dl >> 32);
    unsigned long long du = f2u64(dv);
    want[44] = (unsigned)du, want[45] = (unsigned)(du >> 32);
    want[46] = (unsigned)f2i(dv, 0, INT32_MIN, INT32_MAX, true);
    want[47] = (unsigned)f2i(dv, 0, 0, UINT32_MAX, true);
    want[38] = std::isnan(x) ? 0x7fffu : f2h(x);
    float hf = h2f((unsigned short)kv);
    want[39] = std::isnan(hf) ? 0x7fffffffu : bits(hf);
    for (int j = 0; j < OPS; j++) {
      unsigned got = r[(size_t)i * OPS + j];
      // conversions of a NaN: any NaN (PTX does not fix the payload)
      if (j == 38 && std::isnan(x) && (got & 0x7c00u) == 0x7c00u && (got & 0x3ffu)) continue;
      if (j >= 31 && j <= 34 && std::isnan(dv) && std::isnan(fl(got))) continue;
      if (j == 39 && std::isnan(fl(want[j])) && std::isnan(fl(got))) continue;
      // min/max of +0 and -0: either zero
      if ((j == 21 || j == 22) && x == 0.0f && y == 0.0f && (got & 0x7fffffffu) == 0) continue;
      if (got != want[j] && (bad++, miss(j)))
        printf("%s(%a [%08x], %a [%08x], %a, %a, %d): got %08x, expected %08x\n", names[j], (double)x, bits(x),
               (double)y, bits(y), (double)z, (double)dv, (int)kv, got, want[j]);
    }
  }
  // ---- doubles ----
  unsigned long long *drd;
  CHECK(cudaMalloc(&drd, (size_t)n * DOPS * 8));
  dops<<<(n + 127) / 128, 128>>>(dd, da, drd, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned long long> rd((size_t)n * DOPS);
  CHECK(cudaMemcpy(rd.data(), drd, (size_t)n * DOPS * 8, cudaMemcpyDeviceToHost));
  static const char *dnames[4] = {"add.f64", "mul.f64", "fma.f64", "div.f64"};
  for (int i = 0; i < n; i++) {
    volatile double x = d[i], y = d[(i * 13 + 5) % n], z = (double)a[i];
    for (int m = 0; m < 4; m++) {
      fesetround(modes[m]);
      double w[5] = {x + y, x * y, std::fma((double)x, (double)y, (double)z), x / y, std::sqrt((double)x)};
      fesetround(FE_TONEAREST);
      for (int q = 0; q < 5; q++) {
        unsigned long long want = 0, got = rd[(size_t)i * DOPS + q * 4 + m];
        memcpy(&want, &w[q], 8);
        // A NaN result, as an H100 gives it: a NaN operand's payload, quieted (which
        // one of several is not checked), else 0xfff8000000000000.
        if (std::isnan(w[q])) {
          const double ops[3] = {x, y, z};
          int nops = q == 4 ? 1 : q == 2 ? 3 : 2, nan_in = 0;
          want = 0xfff8000000000000ull;
          for (int k = 0; k < nops; k++) {
            unsigned long long ob;
            memcpy(&ob, &ops[k], 8);
            if (!std::isnan(ops[k])) continue;
            if (got == (ob | 0x0008000000000000ull)) want = got;
            else if (!nan_in) want = ob | 0x0008000000000000ull;
            nan_in = 1;
          }
        }
        if (got != want && (bad++, miss(OPS + q)))
          printf("%s mode %d (%a, %a, %a): got %016llx, expected %016llx\n", q < 4 ? dnames[q] : "sqrt.f64", m,
                 (double)x, (double)y, (double)z, got, want);
      }
    }
  }
  cudaFree(drd);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dd);
  cudaFree(dk);
  cudaFree(dr);
  if (bad) {
    printf("%d mismatches:", bad);
    for (int j = 0; j < OPS; j++)
      if (g_miss[j]) printf(" %s %d,", names[j], g_miss[j]);
    for (int q = 0; q < 5; q++)
      if (g_miss[OPS + q]) printf(" %s %d,", q < 4 ? dnames[q] : "sqrt.f64", g_miss[OPS + q]);
    printf("\n");
  }
  return verdict("diff_float", bad == 0);
}
