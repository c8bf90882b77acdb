// gemm_mma: tensor-core code the way CUTLASS-style kernels and nvcuda::wmma users
// write it, checked against GEMMs the host computes:
//  - a warp-tiled f16 GEMM staging tiles in shared memory, ldmatrix.x4 for A,
//    ldmatrix.x2 (plain, B stored n-major) and ldmatrix.x2.trans (B k-major) for B,
//    mma.sync.m16n8k16.row.col.f32.f16.f16.f32;
//  - one mma.sync per shape and type (m16n8k16 / m16n8k8 f16 and bf16 with f32
//    accumulators, m16n8k16 f16 with f16 accumulators, m16n8k8 tf32, m8n8k4 f64,
//    m16n8k32 s8 x u8 with s32), fragments packed on the host with the PTX ISA's
//    layouts ("Matrix Fragments for mma.m16n8k16 with floating point type" etc.);
//  - a wmma 16x16x16 GEMM (load_matrix_sync / mma_sync / store_matrix_sync).
// Values are small integers, so every product and sum is exact.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include "samples.h"

// ---- 1. warp-tiled GEMM with ldmatrix + mma: C (M x N) = A (M x K) * B (K x N) ----
enum { GM = 32, GN = 32, GK = 64 };

__device__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// One block of 8 warps; warp w computes the 16x8 tile (w / 4, w % 4). bt: B given
// n-major (Bt[n][k]) and loaded with plain ldmatrix; else k-major with .trans.
__global__ void gemm_ldmatrix(const half *A, const half *B, float *C, bool bt) {
  __shared__ __align__(16) half As[GM][GK + 8];
  __shared__ __align__(16) half Bs[GK][GN + 8];   // k-major
  __shared__ __align__(16) half Bts[GN][GK + 8];  // n-major
  for (int i = threadIdx.x; i < GM * GK; i += blockDim.x) As[i / GK][i % GK] = A[i];
  for (int i = threadIdx.x; i < GK * GN; i += blockDim.x) {
    Bs[i / GN][i % GN] = B[i];
    Bts[i % GN][i / GN] = B[i];
  }
  __syncthreads();
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int m0 = (warp / 4) * 16, n0 = (warp % 4) * 8;
  float d[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < GK; k0 += 16) {
    unsigned a[4], b[2];
    int j = lane / 8, r = lane % 8;
    unsigned pa = smem_addr(&As[m0 + r + 8 * (j & 1)][k0 + 8 * (j >> 1)]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
    if (bt) {
      unsigned pb = smem_addr(&Bts[n0 + r][k0 + 8 * (j & 1)]);
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
    } else {
      unsigned pb = smem_addr(&Bs[k0 + r + 8 * (j & 1)][n0]);
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
    }
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  int g = lane >> 2, t = lane & 3;
  for (int i = 0; i < 4; i++) C[(m0 + g + 8 * (i >> 1)) * GN + n0 + 2 * t + (i & 1)] = d[i];
}

// ldmatrix.x1 on its own: lane l gets row l/4, columns 2(l%4), 2(l%4)+1.
__global__ void ldmatrix_x1(const unsigned short *M, unsigned *out) {
  __shared__ __align__(16) unsigned short s[8][8];
  int l = threadIdx.x;
  s[l / 8][l % 8] = M[l];
  s[4 + l / 8][l % 8] = M[32 + l];
  __syncwarp();
  unsigned v;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(v) : "r"(smem_addr(&s[l % 8][0])));
  out[l] = v;
}

// ---- 2. one mma per shape: every lane's registers come packed from the host ----
#define MMA_KERNEL(name, NA, NB, NC, CT, CC, ASM)                                          \
  __global__ void name(const unsigned *A, const unsigned *B, const CT *Cin, CT *D) {      \
    int l = threadIdx.x;                                                                  \
    unsigned a[NA], b[NB];                                                                \
    CT c[NC], d[NC];                                                                      \
    for (int i = 0; i < NA; i++) a[i] = A[l * NA + i];                                    \
    for (int i = 0; i < NB; i++) b[i] = B[l * NB + i];                                    \
    for (int i = 0; i < NC; i++) c[i] = Cin[l * NC + i];                                  \
    ASM;                                                                                  \
    for (int i = 0; i < NC; i++) D[l * NC + i] = d[i];                                    \
  }
MMA_KERNEL(mma_f16_k16, 4, 2, 4, float, "f",
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
      "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])))
MMA_KERNEL(mma_bf16_k16, 4, 2, 4, float, "f",
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
      "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])))
MMA_KERNEL(mma_f16_k8, 2, 1, 4, float, "f",
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]),
      "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])))
MMA_KERNEL(mma_bf16_k8, 2, 1, 4, float, "f",
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]),
      "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])))
MMA_KERNEL(mma_f16acc_k16, 4, 2, 2, unsigned, "r",
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
    : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1])))
MMA_KERNEL(mma_tf32_k8, 4, 2, 4, float, "f",
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
      "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])))
MMA_KERNEL(mma_s8u8_k32, 4, 2, 4, int, "r",
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
      "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])))
MMA_KERNEL(mma_s8_k32_sat, 4, 2, 4, int, "r",
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
      "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])))

__global__ void mma_f64(const double *A, const double *B, const double *Cin, double *D) {
  int l = threadIdx.x;
  double a = A[l], b = B[l], c0 = Cin[2 * l], c1 = Cin[2 * l + 1], d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(d0), "=d"(d1) : "d"(a), "d"(b), "d"(c0), "d"(c1));
  D[2 * l] = d0, D[2 * l + 1] = d1;
}

// ---- 3. wmma ----
__global__ void wmma_gemm(const half *a, const half *b, float *c, int lda, int ldb, int ldc) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fc, c, ldc, wmma::mem_row_major);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 2.0f;  // elementwise, layout-free
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, ldc, wmma::mem_row_major);
}

// ---- host: the PTX ISA's fragment layouts (g = lane >> 2, t = lane % 4) ----
struct Pos { int r, c; };
static Pos a_f16_k16(int l, int i) { int g = l >> 2, t = l & 3; return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)}; }
static Pos b_f16_k16(int l, int i) { int g = l >> 2, t = l & 3; return {2 * t + (i & 1) + 8 * (i >> 1), g}; }
static Pos a_f16_k8(int l, int i) { int g = l >> 2, t = l & 3; return {g + 8 * (i >> 1), 2 * t + (i & 1)}; }
static Pos b_f16_k8(int l, int i) { int g = l >> 2, t = l & 3; return {2 * t + i, g}; }
static Pos a_tf32_k8(int l, int i) { int g = l >> 2, t = l & 3; return {g + 8 * (i & 1), t + 4 * (i >> 1)}; }
static Pos b_tf32_k8(int l, int i) { int g = l >> 2, t = l & 3; return {t + 4 * i, g}; }
static Pos a_s8_k32(int l, int i) { int g = l >> 2, t = l & 3; return {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)}; }
static Pos b_s8_k32(int l, int i) { int g = l >> 2, t = l & 3; return {4 * t + (i & 3) + 16 * (i >> 2), g}; }
static Pos c_16x8(int l, int i) { int g = l >> 2, t = l & 3; return {g + 8 * (i >> 1), 2 * t + (i & 1)}; }

static int bad = 0;
static void expect(const char *what, int i, double got, double want) {
  if (got != want && bad++ < 20) printf("%s [%d]: got %g, expected %g\n", what, i, got, want);
}
static unsigned short h16(float v) { __half h = __float2half(v); unsigned short u; memcpy(&u, &h, 2); return u; }
static unsigned short b16(float v) { __nv_bfloat16 h = __float2bfloat16(v); unsigned short u; memcpy(&u, &h, 2); return u; }
static float h2f(unsigned short u) { __half h; memcpy(&h, &u, 2); return __half2float(h); }
static float ival(int r, int c, int s) { return (float)(((r * 7 + c * 3 + s) % 9) - 4); }

template <typename K>
static std::vector<float> run_float(K kern, int K_, int NA, int NB, Pos (*pa)(int, int), Pos (*pb)(int, int),
                                    int per, bool bf, bool tf32, std::vector<float> &ref) {
  std::vector<unsigned> A(32 * NA, 0), B(32 * NB, 0);
  std::vector<float> C(32 * 4), D(32 * 4);
  float Ah[16][32], Bh[32][8], Ch[16][8];
  for (int r = 0; r < 16; r++) for (int c = 0; c < K_; c++) Ah[r][c] = ival(r, c, 1);
  for (int r = 0; r < K_; r++) for (int c = 0; c < 8; c++) Bh[r][c] = ival(r, c, 5);
  for (int r = 0; r < 16; r++) for (int c = 0; c < 8; c++) Ch[r][c] = ival(r, c, 2) * 0.5f;
  for (int l = 0; l < 32; l++) {
    for (int i = 0; i < NA * per; i++) {
      Pos p = pa(l, i);
      float v = Ah[p.r][p.c];
      unsigned bits;
      if (tf32) { memcpy(&bits, &v, 4); bits |= 0x1fffu * (i & 1); }  // low bits ignored by tf32
      else bits = bf ? b16(v) : h16(v);
      A[l * NA + i / per] |= per == 2 ? bits << (16 * (i % 2)) : bits;
    }
    for (int i = 0; i < NB * per; i++) {
      Pos p = pb(l, i);
      float v = Bh[p.r][p.c];
      unsigned bits;
      if (tf32) memcpy(&bits, &v, 4);
      else bits = bf ? b16(v) : h16(v);
      B[l * NB + i / per] |= per == 2 ? bits << (16 * (i % 2)) : bits;
    }
    for (int i = 0; i < 4; i++) { Pos p = c_16x8(l, i); C[l * 4 + i] = Ch[p.r][p.c]; }
  }
  ref.assign(32 * 4, 0);
  for (int l = 0; l < 32; l++)
    for (int i = 0; i < 4; i++) {
      Pos p = c_16x8(l, i);
      float s = Ch[p.r][p.c];
      for (int k = 0; k < K_; k++) s += Ah[p.r][k] * Bh[k][p.c];
      ref[l * 4 + i] = s;
    }
  unsigned *dA, *dB;
  float *dC, *dD;
  CHECK(cudaMalloc(&dA, A.size() * 4));
  CHECK(cudaMalloc(&dB, B.size() * 4));
  CHECK(cudaMalloc(&dC, 32 * 4 * 4));
  CHECK(cudaMalloc(&dD, 32 * 4 * 4));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C.data(), 32 * 4 * 4, cudaMemcpyHostToDevice));
  kern<<<1, 32>>>(dA, dB, dC, dD);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(D.data(), dD, 32 * 4 * 4, cudaMemcpyDeviceToHost));
  cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dD);
  return D;
}

int main() {
  // 1. ldmatrix + mma GEMM, both B layouts.
  std::vector<half> A(GM * GK), B(GK * GN);
  std::vector<float> Ahf(GM * GK), Bhf(GK * GN), R(GM * GN, 0.0f), C(GM * GN);
  for (int i = 0; i < GM * GK; i++) Ahf[i] = (float)((i * 5) % 7 - 3), A[i] = __float2half(Ahf[i]);
  for (int i = 0; i < GK * GN; i++) Bhf[i] = (float)((i * 3) % 5 - 2), B[i] = __float2half(Bhf[i]);
  for (int i = 0; i < GM; i++)
    for (int k = 0; k < GK; k++)
      for (int j = 0; j < GN; j++) R[i * GN + j] += Ahf[i * GK + k] * Bhf[k * GN + j];
  half *dA, *dB;
  float *dC;
  CHECK(cudaMalloc(&dA, GM * GK * 2));
  CHECK(cudaMalloc(&dB, GK * GN * 2));
  CHECK(cudaMalloc(&dC, GM * GN * 4));
  CHECK(cudaMemcpy(dA, A.data(), GM * GK * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), GK * GN * 2, cudaMemcpyHostToDevice));
  for (int bt = 0; bt < 2; bt++) {
    CHECK(cudaMemset(dC, 0, GM * GN * 4));
    gemm_ldmatrix<<<1, 256>>>(dA, dB, dC, bt);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(C.data(), dC, GM * GN * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < GM * GN; i++) expect(bt ? "ldmatrix gemm (B n-major)" : "ldmatrix.trans gemm", i, C[i], R[i]);
  }
  // ldmatrix.x1
  std::vector<unsigned short> M(64);
  std::vector<unsigned> o(32);
  for (int i = 0; i < 64; i++) M[i] = (unsigned short)(i * 977 + 3);
  unsigned short *dM;
  unsigned *dO;
  CHECK(cudaMalloc(&dM, 128));
  CHECK(cudaMalloc(&dO, 128));
  CHECK(cudaMemcpy(dM, M.data(), 128, cudaMemcpyHostToDevice));
  ldmatrix_x1<<<1, 32>>>(dM, dO);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(o.data(), dO, 128, cudaMemcpyDeviceToHost));
  for (int l = 0; l < 32; l++)
    expect("ldmatrix.x1", l, o[l], (double)(M[(l / 4) * 8 + 2 * (l % 4)] | (unsigned)M[(l / 4) * 8 + 2 * (l % 4) + 1] << 16));

  // 2. one mma per shape.
  std::vector<float> ref, D;
  D = run_float(mma_f16_k16, 16, 4, 2, a_f16_k16, b_f16_k16, 2, false, false, ref);
  for (int i = 0; i < 128; i++) expect("m16n8k16 f16", i, D[i], ref[i]);
  D = run_float(mma_bf16_k16, 16, 4, 2, a_f16_k16, b_f16_k16, 2, true, false, ref);
  for (int i = 0; i < 128; i++) expect("m16n8k16 bf16", i, D[i], ref[i]);
  D = run_float(mma_f16_k8, 8, 2, 1, a_f16_k8, b_f16_k8, 2, false, false, ref);
  for (int i = 0; i < 128; i++) expect("m16n8k8 f16", i, D[i], ref[i]);
  D = run_float(mma_bf16_k8, 8, 2, 1, a_f16_k8, b_f16_k8, 2, true, false, ref);
  for (int i = 0; i < 128; i++) expect("m16n8k8 bf16", i, D[i], ref[i]);
  D = run_float(mma_tf32_k8, 8, 4, 2, a_tf32_k8, b_tf32_k8, 1, false, true, ref);
  for (int i = 0; i < 128; i++) expect("m16n8k8 tf32", i, D[i], ref[i]);
  {  // f16 accumulators: C and D packed two halves per register (c0 c1 | c2 c3)
    std::vector<unsigned> Ar(128, 0), Br(64, 0), Cr(64), Dr(64);
    float Ah[16][16], Bh[16][8], Ch[16][8];
    for (int r = 0; r < 16; r++) for (int c = 0; c < 16; c++) Ah[r][c] = ival(r, c, 3);
    for (int r = 0; r < 16; r++) for (int c = 0; c < 8; c++) Bh[r][c] = ival(r, c, 4);
    for (int r = 0; r < 16; r++) for (int c = 0; c < 8; c++) Ch[r][c] = ival(r, c, 6);
    for (int l = 0; l < 32; l++) {
      for (int i = 0; i < 8; i++) { Pos p = a_f16_k16(l, i); Ar[l * 4 + i / 2] |= (unsigned)h16(Ah[p.r][p.c]) << (16 * (i % 2)); }
      for (int i = 0; i < 4; i++) { Pos p = b_f16_k16(l, i); Br[l * 2 + i / 2] |= (unsigned)h16(Bh[p.r][p.c]) << (16 * (i % 2)); }
      for (int i = 0; i < 2; i++) {
        Pos p0 = c_16x8(l, 2 * i), p1 = c_16x8(l, 2 * i + 1);
        Cr[l * 2 + i] = h16(Ch[p0.r][p0.c]) | (unsigned)h16(Ch[p1.r][p1.c]) << 16;
      }
    }
    unsigned *a, *b, *c, *d;
    CHECK(cudaMalloc(&a, 512)); CHECK(cudaMalloc(&b, 256)); CHECK(cudaMalloc(&c, 256)); CHECK(cudaMalloc(&d, 256));
    CHECK(cudaMemcpy(a, Ar.data(), 512, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, Br.data(), 256, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, Cr.data(), 256, cudaMemcpyHostToDevice));
    mma_f16acc_k16<<<1, 32>>>(a, b, c, d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(Dr.data(), d, 256, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < 4; i++) {
        Pos p = c_16x8(l, i);
        float s = Ch[p.r][p.c];
        for (int k = 0; k < 16; k++) s += Ah[p.r][k] * Bh[k][p.c];
        expect("m16n8k16 f16 accumulators", l * 4 + i, h2f((unsigned short)(Dr[l * 2 + i / 2] >> (16 * (i % 2)))), s);
      }
  }
  // s8 x u8 and s8 x s8 (.satfinite) with s32 accumulators, m16n8k32.
  for (int sat = 0; sat < 2; sat++) {
    std::vector<unsigned> Ar(128, 0), Br(64, 0);
    std::vector<int> Cr(128), Dr(128);
    int Ah[16][32], Bh[32][8], Ch[16][8];
    for (int r = 0; r < 16; r++) for (int c = 0; c < 32; c++) Ah[r][c] = sat ? 127 - (r + c) % 3 : (r * 37 + c * 11) % 256 - 128;
    for (int r = 0; r < 32; r++) for (int c = 0; c < 8; c++) Bh[r][c] = sat ? 127 : (r * 13 + c * 29) % 256;
    for (int r = 0; r < 16; r++) for (int c = 0; c < 8; c++) Ch[r][c] = sat ? 0x7fff0000 : (r - c) * 1000;
    for (int l = 0; l < 32; l++) {
      for (int i = 0; i < 16; i++) { Pos p = a_s8_k32(l, i); Ar[l * 4 + i / 4] |= (unsigned)(Ah[p.r][p.c] & 0xff) << (8 * (i % 4)); }
      for (int i = 0; i < 8; i++) { Pos p = b_s8_k32(l, i); Br[l * 2 + i / 4] |= (unsigned)(Bh[p.r][p.c] & 0xff) << (8 * (i % 4)); }
      for (int i = 0; i < 4; i++) { Pos p = c_16x8(l, i); Cr[l * 4 + i] = Ch[p.r][p.c]; }
    }
    unsigned *a, *b;
    int *c, *d;
    CHECK(cudaMalloc(&a, 512)); CHECK(cudaMalloc(&b, 256)); CHECK(cudaMalloc(&c, 512)); CHECK(cudaMalloc(&d, 512));
    CHECK(cudaMemcpy(a, Ar.data(), 512, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, Br.data(), 256, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, Cr.data(), 512, cudaMemcpyHostToDevice));
    if (sat) mma_s8_k32_sat<<<1, 32>>>(a, b, c, d);
    else mma_s8u8_k32<<<1, 32>>>(a, b, c, d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(Dr.data(), d, 512, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < 4; i++) {
        Pos p = c_16x8(l, i);
        long long s = Ch[p.r][p.c];
        for (int k = 0; k < 32; k++) s += (long long)Ah[p.r][k] * Bh[k][p.c];
        if (sat && s > 0x7fffffffll) s = 0x7fffffffll;
        expect(sat ? "m16n8k32 s8.s8 satfinite" : "m16n8k32 s8.u8", l * 4 + i, Dr[l * 4 + i], (double)(int)s);
      }
  }
  {  // m8n8k4 f64: a (g, t), b (t, g), c/d (g, 2t + i)
    double Ah[8][4], Bh[4][8], Ch[8][8];
    std::vector<double> Av(32), Bv(32), Cv(64), Dv(64);
    for (int r = 0; r < 8; r++) for (int c = 0; c < 4; c++) Ah[r][c] = ival(r, c, 7) * 0.25;
    for (int r = 0; r < 4; r++) for (int c = 0; c < 8; c++) Bh[r][c] = ival(r, c, 8) + 0.5;
    for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) Ch[r][c] = ival(r, c, 9) * 1e10;
    for (int l = 0; l < 32; l++) {
      int g = l >> 2, t = l & 3;
      Av[l] = Ah[g][t], Bv[l] = Bh[t][g];
      Cv[2 * l] = Ch[g][2 * t], Cv[2 * l + 1] = Ch[g][2 * t + 1];
    }
    double *a, *b, *c, *d;
    CHECK(cudaMalloc(&a, 256)); CHECK(cudaMalloc(&b, 256)); CHECK(cudaMalloc(&c, 512)); CHECK(cudaMalloc(&d, 512));
    CHECK(cudaMemcpy(a, Av.data(), 256, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, Bv.data(), 256, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, Cv.data(), 512, cudaMemcpyHostToDevice));
    mma_f64<<<1, 32>>>(a, b, c, d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(Dv.data(), d, 512, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < 2; i++) {
        int g = l >> 2, t = l & 3;
        double s = Ch[g][2 * t + i];
        for (int k = 0; k < 4; k++) s += Ah[g][k] * Bh[k][2 * t + i];
        expect("m8n8k4 f64", 2 * l + i, Dv[2 * l + i], s);
      }
  }

  // 3. wmma: C = A * B + 2 C over 16x16 tiles inside larger matrices (leading dims).
  {
    const int lda = 24, ldb = 40, ldc = 20;
    std::vector<half> Aw(16 * lda), Bw(16 * ldb);
    std::vector<float> Af(16 * lda), Bf(16 * ldb), Cw(16 * ldc), Rw(16 * ldc);
    for (int i = 0; i < 16 * lda; i++) Af[i] = (float)((i * 7) % 5 - 2), Aw[i] = __float2half(Af[i]);
    for (int i = 0; i < 16 * ldb; i++) Bf[i] = (float)((i * 3) % 7 - 3), Bw[i] = __float2half(Bf[i]);
    for (int i = 0; i < 16 * ldc; i++) Cw[i] = Rw[i] = (float)(i % 11);
    for (int r = 0; r < 16; r++)
      for (int c = 0; c < 16; c++) {
        float s = 2 * Cw[r * ldc + c];
        for (int k = 0; k < 16; k++) s += Af[r * lda + k] * Bf[c * ldb + k];  // B col-major: (k, c) at c * ldb + k
        Rw[r * ldc + c] = s;
      }
    half *a, *b;
    float *c;
    CHECK(cudaMalloc(&a, Aw.size() * 2)); CHECK(cudaMalloc(&b, Bw.size() * 2)); CHECK(cudaMalloc(&c, Cw.size() * 4));
    CHECK(cudaMemcpy(a, Aw.data(), Aw.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, Bw.data(), Bw.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, Cw.data(), Cw.size() * 4, cudaMemcpyHostToDevice));
    wmma_gemm<<<1, 32>>>(a, b, c, lda, ldb, ldc);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(Cw.data(), c, Cw.size() * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16 * ldc; i++) expect("wmma", i, Cw[i], Rw[i]);
  }
  return verdict("gemm_mma", bad == 0);
}
