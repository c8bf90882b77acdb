// diff_int: integer intrinsics (high multiplies, 64-bit products, bit counts, bit
// reversal, byte permutes, funnel shifts, absolute differences, saturating and
// averaging adds, 24-bit products, 8-bit dot products) over edge values, each
// checked against the host computing it from its definition in the CUDA math API.
// (__dp2a_lo/hi are left out: ptx/ does not parse dp2a's .lo/.hi yet.)
#include <cstdint>
#include <vector>
#include "samples.h"

enum { OPS = 25 };

__global__ void iops(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i], z = c[i];
  int sx = (int)x, sy = (int)y, sz = (int)z;
  unsigned *o = r + (size_t)i * OPS;
  o[0] = __umulhi(x, y);
  o[1] = (unsigned)__mulhi(sx, sy);
  unsigned long long w = __umul64hi((unsigned long long)x << 32 | y, (unsigned long long)z << 32 | x);
  o[2] = (unsigned)w, o[3] = (unsigned)(w >> 32);
  long long sw = __mul64hi((long long)((unsigned long long)x << 32 | y), (long long)((unsigned long long)z << 32 | x));
  o[4] = (unsigned)sw, o[5] = (unsigned)((unsigned long long)sw >> 32);
  o[6] = __popc(x);
  o[7] = __clz(sx);
  o[8] = __ffs(sx);
  o[9] = __brev(x);
  o[10] = __byte_perm(x, y, z);
  o[11] = __funnelshift_l(x, y, z);
  o[12] = __funnelshift_r(x, y, z);
  o[13] = __funnelshift_lc(x, y, z);
  o[14] = __funnelshift_rc(x, y, z);
  o[15] = __usad(x, y, z);
  o[16] = (unsigned)__sad(sx, sy, z);
  o[17] = (unsigned)__hadd(sx, sy);
  o[18] = (unsigned)__rhadd(sx, sy);
  o[19] = __uhadd(x, y);
  o[20] = __urhadd(x, y);
  o[21] = (unsigned)__mul24(sx, sy);
  o[22] = __umul24(x, y);
  o[23] = (unsigned)__dp4a(sx, sy, sz);
  o[24] = __dp4a(x, y, z);
}

static unsigned clz32(unsigned v) { return v ? (unsigned)__builtin_clz(v) : 32u; }

int main() {
  std::vector<unsigned> ev = {0u, 1u, 2u, 3u, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xffffffffu, 0xfffffffeu,
                              0x12345678u, 0x9abcdef0u, 0x00ff00ffu, 0xff00ff00u, 31u, 32u, 33u, 63u, 0x01020304u,
                              0x807f7f80u, 0x00008000u, 0x00ffffffu, 0xff800000u};
  int ne = (int)ev.size(), n = ne * ne;
  std::vector<unsigned> a(n), b(n), c(n);
  for (int i = 0; i < n; i++) a[i] = ev[i % ne], b[i] = ev[i / ne], c[i] = ev[(i * 5 + 1) % ne];
  unsigned *da, *db, *dc, *dr;
  CHECK(cudaMalloc(&da, n * 4));
  CHECK(cudaMalloc(&db, n * 4));
  CHECK(cudaMalloc(&dc, n * 4));
  CHECK(cudaMalloc(&dr, (size_t)n * OPS * 4));
  CHECK(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), n * 4, cudaMemcpyHostToDevice));
  iops<<<(n + 127) / 128, 128>>>(da, db, dc, dr, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned> r((size_t)n * OPS);
  CHECK(cudaMemcpy(r.data(), dr, r.size() * 4, cudaMemcpyDeviceToHost));
  static const char *names[OPS] = {"umulhi", "mulhi", "umul64hi lo", "umul64hi hi", "mul64hi lo", "mul64hi hi",
                                   "popc", "clz", "ffs", "brev", "byte_perm", "funnelshift_l", "funnelshift_r",
                                   "funnelshift_lc", "funnelshift_rc", "usad", "sad", "hadd", "rhadd", "uhadd",
                                   "urhadd", "mul24", "umul24", "dp4a s32", "dp4a u32"};
  int bad = 0;
  for (int i = 0; i < n; i++) {
    unsigned x = a[i], y = b[i], z = c[i], want[OPS];
    int32_t sx = (int32_t)x, sy = (int32_t)y, sz = (int32_t)z;
    want[0] = (unsigned)(((uint64_t)x * y) >> 32);
    want[1] = (unsigned)(((int64_t)sx * sy) >> 32);
    unsigned __int128 uw = (unsigned __int128)((uint64_t)x << 32 | y) * ((uint64_t)z << 32 | x);
    uint64_t uh = (uint64_t)(uw >> 64);
    want[2] = (unsigned)uh, want[3] = (unsigned)(uh >> 32);
    __int128 sw = (__int128)(int64_t)((uint64_t)x << 32 | y) * (int64_t)((uint64_t)z << 32 | x);
    uint64_t sh = (uint64_t)(sw >> 64);
    want[4] = (unsigned)sh, want[5] = (unsigned)(sh >> 32);
    want[6] = (unsigned)__builtin_popcount(x);
    want[7] = clz32(x);
    want[8] = x ? (unsigned)__builtin_ctz(x) + 1 : 0;
    unsigned rv = 0;
    for (int k = 0; k < 32; k++) rv |= ((x >> k) & 1u) << (31 - k);
    want[9] = rv;
    uint64_t bytes = (uint64_t)y << 32 | x;  // byte k of {y, x}
    unsigned bp = 0;
    for (int k = 0; k < 4; k++) bp |= (unsigned)((bytes >> (8 * ((z >> (4 * k)) & 7))) & 0xff) << (8 * k);
    want[10] = bp;
    uint64_t yx = (uint64_t)y << 32 | x;
    unsigned sm = z & 31, sc = z > 32 ? 32 : z;
    want[11] = (unsigned)((yx << sm) >> 32);
    want[12] = (unsigned)(yx >> sm);
    want[13] = sc == 32 ? x : (unsigned)((yx << sc) >> 32);
    want[14] = sc == 32 ? y : (unsigned)(yx >> sc);
    want[15] = (x > y ? x - y : y - x) + z;
    want[16] = (unsigned)((sx > sy ? (int64_t)sx - sy : (int64_t)sy - sx) + z);
    want[17] = (unsigned)(int32_t)(((int64_t)sx + sy) >> 1);
    want[18] = (unsigned)(int32_t)(((int64_t)sx + sy + 1) >> 1);
    want[19] = (unsigned)(((uint64_t)x + y) >> 1);
    want[20] = (unsigned)(((uint64_t)x + y + 1) >> 1);
    int32_t x24 = (int32_t)(x << 8) >> 8, y24 = (int32_t)(y << 8) >> 8;
    want[21] = (unsigned)((int64_t)x24 * y24);
    want[22] = (unsigned)((uint64_t)(x & 0xffffff) * (y & 0xffffff));
    int32_t d4 = sz;
    uint32_t u4 = z;
    for (int k = 0; k < 4; k++) {
      d4 += (int32_t)(int8_t)(x >> (8 * k)) * (int8_t)(y >> (8 * k));
      u4 += (uint32_t)(uint8_t)(x >> (8 * k)) * (uint8_t)(y >> (8 * k));
    }
    want[23] = (unsigned)d4;
    want[24] = u4;
    for (int j = 0; j < OPS; j++) {
      unsigned got = r[(size_t)i * OPS + j];
      if (got != want[j] && bad++ < 25)
        printf("%s(%08x, %08x, %08x): got %08x, expected %08x\n", names[j], x, y, z, got, want[j]);
    }
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dr);
  if (bad) printf("%d mismatches\n", bad);
  return verdict("diff_int", bad == 0);
}
