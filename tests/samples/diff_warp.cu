// diff_warp: warp collectives under partial and divergent masks, block reductions
// (bar.red) and atomics of every type and scope, each checked against values the
// host computes on its own. Built for compute_80 (redux.sync). Prints the first
// mismatches; exits 1 on any.
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "samples.h"

enum { T = 256, B = 4, N = T * B, W = 30 };  // W results per thread

__global__ void warp_ops(const unsigned *x, unsigned *r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = x[i], lane = threadIdx.x & 31;
  unsigned *o = r + (size_t)i * W;
  for (int k = 0; k < W; k++) o[k] = 0xdeadbeef;
  // Full-warp forms, converged.
  o[0] = __ballot_sync(0xffffffffu, v & 1);
  o[1] = __shfl_sync(0xffffffffu, v, (lane * 7) & 31);
  o[2] = __shfl_down_sync(0xffffffffu, v, 3, 8);  // segments of 8 lanes
  o[3] = __shfl_up_sync(0xffffffffu, v, 5, 16);
  o[4] = __shfl_xor_sync(0xffffffffu, v, 6, 16);
  o[5] = __match_any_sync(0xffffffffu, v % 5);
  o[6] = __match_any_sync(0xffffffffu, (unsigned long long)(v % 3) << 40 | (v & 1));
  o[7] = __ballot_sync(0xffffffffu, o[6] == 0xffffffffu);
  // Divergent: lanes whose value is odd; their mask comes from a ballot before the branch.
  unsigned odd = __ballot_sync(0xffffffffu, v & 1);
  if (v & 1) {
    o[8] = __ballot_sync(odd, v & 2);
    o[9] = __all_sync(odd, v & 4);
    o[10] = __any_sync(odd, v & 8);
    o[11] = __match_any_sync(odd, (v >> 4) % 3);
    o[12] = __reduce_add_sync(odd, v);
    o[13] = __reduce_min_sync(odd, v);
    o[14] = __reduce_max_sync(odd, v);
    o[15] = (unsigned)__reduce_min_sync(odd, (int)(v ^ 0x80000000u));
    o[16] = __reduce_and_sync(odd, v | 0x0f0f0000u);
    o[17] = __reduce_or_sync(odd, v & 0x00ff00ffu);
    o[18] = __reduce_xor_sync(odd, v);
    o[19] = __shfl_sync(odd, v, __ffs(odd) - 1);  // the lowest odd lane's value
    o[20] = __activemask();
  } else {
    o[8] = __reduce_add_sync(~odd, v >> 3);
  }
  // Block reductions (bar.red).
  o[21] = __syncthreads_count(v % 3 == 0);
  o[22] = __syncthreads_and(v != 12345u);
  o[23] = __syncthreads_or(v == x[blockIdx.x * blockDim.x]);
  // match.all (d|p): even warps agree, odd warps do not; then under the odd mask.
  int pred = -1;
  o[24] = __match_all_sync(0xffffffffu, (threadIdx.x / 32) % 2 ? lane : 7u, &pred);
  o[25] = (unsigned)pred;
  o[26] = __match_all_sync(0xffffffffu, (unsigned long long)blockIdx.x << 33, &pred);
  o[27] = (unsigned)pred;
  if (v & 1) {
    o[28] = __match_all_sync(odd, v % 2, &pred);
    o[29] = __match_all_sync(odd, v, &pred) ^ (unsigned)pred << 31;
  }
}

struct Acc {
  int i_add, i_min, i_max, i_exch_sum;
  unsigned u_add, u_inc, u_dec, u_and, u_or, u_xor, u_min, u_max, u_cas_count, u_sub;
  unsigned long long ull_add, ull_and, ull_or, ull_xor, ull_min, ull_max, ull_cas;
  long long ll_min, ll_max;
  float f_add;
  double d_add;
  unsigned short us_cas;
  int blk_add, sys_add;
  unsigned sh_add, sh_max, sh_or;  // summed over blocks from shared atomics
  float sh_fadd;
  unsigned long long sh_u64;
  double sh_dadd;
  __half h_add;
  __nv_bfloat16 bf_add;
};

__global__ void atomics(const unsigned *x, Acc *a) {
  __shared__ unsigned s_add, s_max, s_or;
  __shared__ float s_f;
  __shared__ unsigned long long s_u64;
  __shared__ double s_d;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = x[i];
  if (threadIdx.x == 0) s_add = 0, s_max = 0, s_or = 0, s_f = 0, s_u64 = 0, s_d = 0;
  __syncthreads();
  atomicAdd(&a->i_add, (int)(v % 1000) - 500);
  atomicMin(&a->i_min, (int)v);
  atomicMax(&a->i_max, (int)v);
  atomicAdd(&a->u_add, v);
  atomicSub(&a->u_sub, v % 77);
  atomicInc(&a->u_inc, 100u);
  atomicDec(&a->u_dec, 37u);
  atomicAnd(&a->u_and, v | 0xffff0000u);
  atomicOr(&a->u_or, v & 0x0000ffffu);
  atomicXor(&a->u_xor, v);
  atomicMin(&a->u_min, v);
  atomicMax(&a->u_max, v);
  atomicAdd(&a->ull_add, (unsigned long long)v << 20);
  atomicAnd(&a->ull_and, ((unsigned long long)v << 32) | 0xffffffffull);
  atomicOr(&a->ull_or, (unsigned long long)(v & 0xff) << (8 * (i % 8)));
  atomicXor(&a->ull_xor, (unsigned long long)v * 0x9e3779b97f4a7c15ull);
  atomicMin(&a->ull_min, (unsigned long long)v * 3);
  atomicMax(&a->ull_max, (unsigned long long)v * 3);
  atomicMin(&a->ll_min, (long long)(int)v * 1000);
  atomicMax(&a->ll_max, (long long)(int)v * 1000);
  atomicAdd(&a->f_add, (float)(v % 16));
  atomicAdd(&a->d_add, (double)(v % 1024) * 0.5);
  atomicAdd_block(&a->blk_add, 1);
  atomicAdd_system(&a->sys_add, 2);
  // every thread adds 1 with a CAS loop: the count is exact whatever the order
  unsigned old = a->u_cas_count, seen;
  while ((seen = atomicCAS(&a->u_cas_count, old, old + 1)) != old) old = seen;
  unsigned long long o64 = a->ull_cas, s64;
  while ((s64 = atomicCAS(&a->ull_cas, o64, o64 + v)) != o64) o64 = s64;
  unsigned short o16 = a->us_cas, s16;
  while ((s16 = atomicCAS(&a->us_cas, o16, (unsigned short)(o16 + 3))) != o16) o16 = s16;
  // exchange: the sum of what came out plus what is left is the sum put in
  int got = atomicExch(&a->i_exch_sum, (int)(v % 100));
  // shared-memory atomics, then one thread folds them into global memory
  atomicAdd(&s_add, v & 0xff);
  atomicMax(&s_max, v);
  atomicOr(&s_or, 1u << (v % 32));
  atomicAdd(&s_f, (float)(v % 8));
  atomicAdd(&s_u64, (unsigned long long)v << 24);
  atomicAdd(&s_d, (double)(v % 64) * 0.25);
  // half and bfloat16 adds: sums that every order gives exactly
  atomicAdd(&a->h_add, __float2half(1.0f));
  if (i < 256) atomicAdd(&a->bf_add, __float2bfloat16(0.125f));
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&a->sh_add, s_add);
    atomicMax(&a->sh_max, s_max);
    atomicOr(&a->sh_or, s_or);
    atomicAdd(&a->sh_fadd, s_f);
    atomicAdd(&a->sh_u64, s_u64);
    atomicAdd(&a->sh_dadd, s_d);
  }
  a[1 + i].i_exch_sum = got;  // what came out of the exchange
}

static int bad = 0;
static void expect(const char *what, int idx, unsigned long long got, unsigned long long want) {
  if (got == want) return;
  if (bad++ < 20) printf("%s [%d]: got 0x%llx, expected 0x%llx\n", what, idx, got, want);
}

int main() {
  std::vector<unsigned> x(N);
  uint32_t s = 12345;
  for (int i = 0; i < N; i++) {
    s = s * 1664525u + 1013904223u;
    x[i] = s ^ (s >> 13);
    if (i % 37 == 0) x[i] = 0x80000001u;  // repeated values for match
  }
  unsigned *dx, *dr;
  CHECK(cudaMalloc(&dx, N * 4));
  CHECK(cudaMalloc(&dr, (size_t)N * W * 4));
  CHECK(cudaMemcpy(dx, x.data(), N * 4, cudaMemcpyHostToDevice));
  warp_ops<<<B, T>>>(dx, dr);
  CHECK(cudaGetLastError());
  std::vector<unsigned> r((size_t)N * W);
  CHECK(cudaMemcpy(r.data(), dr, (size_t)N * W * 4, cudaMemcpyDeviceToHost));
  for (int w = 0; w < N / 32; w++) {
    const unsigned *xv = &x[w * 32];
    unsigned full_ballot = 0, odd = 0;
    for (int l = 0; l < 32; l++) {
      if (xv[l] & 1) full_ballot |= 1u << l, odd |= 1u << l;
    }
    int blk = w * 32 / T;
    unsigned cnt = 0, andv = 1, orv = 0;
    for (int t = 0; t < T; t++) {
      unsigned v = x[blk * T + t];
      cnt += v % 3 == 0;
      andv &= v != 12345u;
      orv |= v == x[blk * T];
    }
    for (int l = 0; l < 32; l++) {
      int i = w * 32 + l;
      const unsigned *o = &r[(size_t)i * W];
      unsigned v = xv[l];
      expect("ballot", i, o[0], full_ballot);
      expect("shfl.idx", i, o[1], xv[(l * 7) & 31]);
      int dn = (l % 8) + 3 < 8 ? l + 3 : l;
      expect("shfl.down w8", i, o[2], xv[dn]);
      int up = (l % 16) >= 5 ? l - 5 : l;
      expect("shfl.up w16", i, o[3], xv[up]);
      expect("shfl.xor w16", i, o[4], xv[l ^ 6]);
      unsigned m5 = 0;
      for (int k = 0; k < 32; k++)
        if (xv[k] % 5 == v % 5) m5 |= 1u << k;
      expect("match.any", i, o[5], m5);
      unsigned m64 = 0;
      for (int k = 0; k < 32; k++)
        if (xv[k] % 3 == v % 3 && (xv[k] & 1) == (v & 1)) m64 |= 1u << k;
      expect("match.any.b64", i, o[6], m64);
      unsigned every = 0;  // lanes whose match set is the whole warp
      for (int k = 0; k < 32; k++) {
        bool all = true;
        for (int q = 0; q < 32; q++) all &= xv[q] % 3 == xv[k] % 3 && (xv[q] & 1) == (xv[k] & 1);
        if (all) every |= 1u << k;
      }
      expect("ballot of match", i, o[7], every);
      bool agree = (w % (T / 32)) % 2 == 0;
      expect("match.all", i, o[24], agree ? 0xffffffffu : 0u);
      expect("match.all pred", i, o[25], agree);
      expect("match.all.b64", i, o[26], 0xffffffffu);
      expect("match.all.b64 pred", i, o[27], 1);
      if (v & 1) {
        bool same = true;
        for (int k = 0; k < 32; k++)
          if (((odd >> k) & 1) && xv[k] != v) same = false;
        expect("match.all (divergent)", i, o[28], odd);
        expect("match.all (divergent, values)", i, o[29], same ? odd ^ 0x80000000u : 0u);
      } else {
        expect("match.all untouched", i, o[28], 0xdeadbeefu);
      }
      if (v & 1) {
        unsigned b2 = 0, a4 = 1, y8 = 0, m3 = 0, add = 0, mn = ~0u, mx = 0, an = ~0u, orr = 0, xr = 0;
        int smin = 0x7fffffff;
        for (int k = 0; k < 32; k++) {
          if (!(odd >> k & 1)) continue;
          unsigned u = xv[k];
          if (u & 2) b2 |= 1u << k;
          a4 &= (u & 4) != 0;
          y8 |= (u & 8) != 0;
          if ((u >> 4) % 3 == (v >> 4) % 3) m3 |= 1u << k;
          add += u;
          mn = u < mn ? u : mn;
          mx = u > mx ? u : mx;
          int su = (int)(u ^ 0x80000000u);
          smin = su < smin ? su : smin;
          an &= u | 0x0f0f0000u;
          orr |= u & 0x00ff00ffu;
          xr ^= u;
        }
        expect("ballot (divergent)", i, o[8], b2);
        expect("all (divergent)", i, o[9], a4);
        expect("any (divergent)", i, o[10], y8);
        expect("match.any (divergent)", i, o[11], m3);
        expect("redux.add", i, o[12], add);
        expect("redux.min.u32", i, o[13], mn);
        expect("redux.max.u32", i, o[14], mx);
        expect("redux.min.s32", i, o[15], (unsigned)smin);
        expect("redux.and", i, o[16], an);
        expect("redux.or", i, o[17], orr);
        expect("redux.xor", i, o[18], xr);
        expect("shfl.idx (divergent)", i, o[19], xv[__builtin_ctz(odd)]);
        expect("activemask", i, o[20], odd);
      } else {
        unsigned add = 0;
        for (int k = 0; k < 32; k++)
          if (!(odd >> k & 1)) add += xv[k] >> 3;
        expect("redux.add (else)", i, o[8], add);
        expect("untouched", i, o[9], 0xdeadbeefu);
      }
      expect("bar.red.popc", i, o[21], cnt);
      expect("bar.red.and", i, o[22], andv);
      expect("bar.red.or", i, o[23], orv);
    }
  }

  // ---- atomics ----
  std::vector<Acc> init(1 + N);
  memset(init.data(), 0, init.size() * sizeof(Acc));
  Acc &a0 = init[0];
  a0.i_min = 0x7fffffff, a0.i_max = (int)0x80000000, a0.u_dec = 5, a0.u_and = ~0u, a0.u_min = ~0u;
  a0.ull_and = ~0ull, a0.ull_min = ~0ull, a0.ll_min = 0x7fffffffffffffffll, a0.ll_max = (long long)0x8000000000000000ull;
  a0.u_sub = 1000000u, a0.i_exch_sum = 7;
  Acc *da;
  CHECK(cudaMalloc(&da, init.size() * sizeof(Acc)));
  CHECK(cudaMemcpy(da, init.data(), init.size() * sizeof(Acc), cudaMemcpyHostToDevice));
  atomics<<<B, T>>>(dx, da);
  CHECK(cudaGetLastError());
  std::vector<Acc> out(1 + N);
  CHECK(cudaMemcpy(out.data(), da, out.size() * sizeof(Acc), cudaMemcpyDeviceToHost));
  Acc h = a0, &g = out[0];
  long long exch_in = 7, exch_out = 0;
  double sh_f_all = 0, sh_d_all = 0;
  unsigned long long sh_u64_all = 0;
  unsigned sh_max_all = 0, sh_or_all = 0;
  for (int i = 0; i < N; i++) {
    unsigned v = x[i];
    h.i_add += (int)(v % 1000) - 500;
    h.i_min = (int)v < h.i_min ? (int)v : h.i_min;
    h.i_max = (int)v > h.i_max ? (int)v : h.i_max;
    h.u_add += v;
    h.u_sub -= v % 77;
    h.u_inc = h.u_inc >= 100u ? 0 : h.u_inc + 1;
    h.u_dec = (h.u_dec == 0 || h.u_dec > 37u) ? 37u : h.u_dec - 1;
    h.u_and &= v | 0xffff0000u;
    h.u_or |= v & 0xffffu;
    h.u_xor ^= v;
    h.u_min = v < h.u_min ? v : h.u_min;
    h.u_max = v > h.u_max ? v : h.u_max;
    h.ull_add += (unsigned long long)v << 20;
    h.ull_and &= ((unsigned long long)v << 32) | 0xffffffffull;
    h.ull_or |= (unsigned long long)(v & 0xff) << (8 * (i % 8));
    h.ull_xor ^= (unsigned long long)v * 0x9e3779b97f4a7c15ull;
    unsigned long long v3 = (unsigned long long)v * 3;
    h.ull_min = v3 < h.ull_min ? v3 : h.ull_min;
    h.ull_max = v3 > h.ull_max ? v3 : h.ull_max;
    long long l = (long long)(int)v * 1000;
    h.ll_min = l < h.ll_min ? l : h.ll_min;
    h.ll_max = l > h.ll_max ? l : h.ll_max;
    h.f_add += (float)(v % 16);
    h.d_add += (double)(v % 1024) * 0.5;
    h.blk_add += 1;
    h.sys_add += 2;
    h.u_cas_count += 1;
    h.ull_cas += v;
    h.us_cas = (unsigned short)(h.us_cas + 3);
    h.sh_add += v & 0xff;
    sh_max_all = v > sh_max_all ? v : sh_max_all;
    sh_or_all |= 1u << (v % 32);
    sh_f_all += (float)(v % 8);
    sh_u64_all += (unsigned long long)v << 24;
    sh_d_all += (double)(v % 64) * 0.25;
    exch_in += v % 100;
    exch_out += out[1 + i].i_exch_sum;
  }
  expect("atomicAdd int", 0, (unsigned)g.i_add, (unsigned)h.i_add);
  expect("atomicMin int", 0, (unsigned)g.i_min, (unsigned)h.i_min);
  expect("atomicMax int", 0, (unsigned)g.i_max, (unsigned)h.i_max);
  expect("atomicAdd unsigned", 0, g.u_add, h.u_add);
  expect("atomicSub unsigned", 0, g.u_sub, h.u_sub);
  expect("atomicInc", 0, g.u_inc, h.u_inc);
  expect("atomicDec", 0, g.u_dec, h.u_dec);
  expect("atomicAnd", 0, g.u_and, h.u_and);
  expect("atomicOr", 0, g.u_or, h.u_or);
  expect("atomicXor", 0, g.u_xor, h.u_xor);
  expect("atomicMin unsigned", 0, g.u_min, h.u_min);
  expect("atomicMax unsigned", 0, g.u_max, h.u_max);
  expect("atomicAdd u64", 0, g.ull_add, h.ull_add);
  expect("atomicAnd u64", 0, g.ull_and, h.ull_and);
  expect("atomicOr u64", 0, g.ull_or, h.ull_or);
  expect("atomicXor u64", 0, g.ull_xor, h.ull_xor);
  expect("atomicMin u64", 0, g.ull_min, h.ull_min);
  expect("atomicMax u64", 0, g.ull_max, h.ull_max);
  expect("atomicMin s64", 0, (unsigned long long)g.ll_min, (unsigned long long)h.ll_min);
  expect("atomicMax s64", 0, (unsigned long long)g.ll_max, (unsigned long long)h.ll_max);
  expect("atomicAdd f32", 0, (unsigned long long)g.f_add, (unsigned long long)h.f_add);
  expect("atomicAdd f64", 0, (unsigned long long)(g.d_add * 2), (unsigned long long)(h.d_add * 2));
  expect("atomicAdd_block", 0, (unsigned)g.blk_add, (unsigned)h.blk_add);
  expect("atomicAdd_system", 0, (unsigned)g.sys_add, (unsigned)h.sys_add);
  expect("atomicCAS u32 loop", 0, g.u_cas_count, h.u_cas_count);
  expect("atomicCAS u64 loop", 0, g.ull_cas, h.ull_cas);
  expect("atomicCAS u16 loop", 0, g.us_cas, h.us_cas);
  expect("shared atomicAdd", 0, g.sh_add, h.sh_add);
  expect("shared atomicMax", 0, g.sh_max, sh_max_all);
  expect("shared atomicOr", 0, g.sh_or, sh_or_all);
  expect("shared atomicAdd f32", 0, (unsigned long long)g.sh_fadd, (unsigned long long)sh_f_all);
  expect("shared atomicAdd u64", 0, g.sh_u64, sh_u64_all);
  expect("shared atomicAdd f64", 0, (unsigned long long)(g.sh_dadd * 4), (unsigned long long)(sh_d_all * 4));
  unsigned short hb, bb;
  memcpy(&hb, &g.h_add, 2);
  memcpy(&bb, &g.bf_add, 2);
  expect("atomicAdd f16 (1024 x 1.0 = 0x6400)", 0, hb, 0x6400u);
  expect("atomicAdd bf16 (256 x 0.125 = 0x4200)", 0, bb, 0x4200u);
  expect("atomicExch (in = out + left)", 0, (unsigned long long)exch_in,
         (unsigned long long)(exch_out + g.i_exch_sum));
  cudaFree(dx);
  cudaFree(dr);
  cudaFree(da);
  if (bad) printf("%d mismatches\n", bad);
  return verdict("diff_warp", bad == 0);
}
