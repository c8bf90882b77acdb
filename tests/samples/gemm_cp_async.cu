// gemm_cp_async: a tiled SGEMM whose tiles reach shared memory by cp.async with
// double buffering (__pipeline_memcpy_async / __pipeline_commit / wait_prior),
// a zero-filled tail (src-size), 8- and 16-byte copies, cuda::memcpy_async with a
// thread-scope cuda::pipeline, and cooperative_groups::memcpy_async; each result
// checked against the host.
#include <cuda_pipeline.h>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstdio>
#include <vector>
#include "samples.h"
namespace cg = cooperative_groups;
enum { TS = 16 };

__global__ void sgemm_db(const float *A, const float *B, float *C, int n) {
  __shared__ float as[2][TS][TS], bs[2][TS][TS];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
  int nt = n / TS;
  __pipeline_memcpy_async(&as[0][ty][tx], &A[row * n + tx], 4);
  __pipeline_memcpy_async(&bs[0][ty][tx], &B[ty * n + col], 4);
  __pipeline_commit();
  float acc = 0;
  for (int t = 0; t < nt; t++) {
    int cur = t & 1;
    if (t + 1 < nt) {
      __pipeline_memcpy_async(&as[cur ^ 1][ty][tx], &A[row * n + (t + 1) * TS + tx], 4);
      __pipeline_memcpy_async(&bs[cur ^ 1][ty][tx], &B[((t + 1) * TS + ty) * n + col], 4);
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    for (int k = 0; k < TS; k++) acc += as[cur][ty][k] * bs[cur][k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

__global__ void copy_zfill(const int4 *src, int4 *dst, int nvalid_bytes) {
  __shared__ int4 s[64];
  int t = threadIdx.x;
  int left = nvalid_bytes - t * 16;
  size_t keep = left >= 16 ? 16 : left > 0 ? left : 0;
  __pipeline_memcpy_async(&s[t], &src[t], 16, 16 - keep);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  dst[t] = s[t];
}

__global__ void copy8(const int2 *src, int2 *dst) {
  __shared__ int2 s[128];
  int t = threadIdx.x;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  cuda::memcpy_async(&s[t], &src[t], cuda::aligned_size_t<8>(sizeof(int2)), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  dst[t] = s[t ^ 0];
  pipe.consumer_release();
}

__global__ void cg_copy(const float *src, float *dst, int n) {
  extern __shared__ float sh[];
  cg::thread_block b = cg::this_thread_block();
  cg::memcpy_async(b, sh, src + blockIdx.x * n, sizeof(float) * n);
  cg::wait(b);
  for (int i = threadIdx.x; i < n; i += blockDim.x) dst[blockIdx.x * n + i] = sh[n - 1 - i] * 2.0f;
}

int main() {
  bool ok = true;
  // 1. SGEMM, n = 64: integer-valued floats so every sum is exact.
  const int n = 64;
  std::vector<float> A(n * n), B(n * n), C(n * n), R(n * n, 0.0f);
  for (int i = 0; i < n * n; i++) A[i] = (float)((i * 7) % 13 - 6), B[i] = (float)((i * 5) % 11 - 5);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++) R[i * n + j] += A[i * n + k] * B[k * n + j];
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, n * n * 4));
  CHECK(cudaMalloc(&dB, n * n * 4));
  CHECK(cudaMalloc(&dC, n * n * 4));
  CHECK(cudaMemcpy(dA, A.data(), n * n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), n * n * 4, cudaMemcpyHostToDevice));
  sgemm_db<<<dim3(n / TS, n / TS), dim3(TS, TS)>>>(dA, dB, dC, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(C.data(), dC, n * n * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n * n; i++)
    if (C[i] != R[i] && bad++ < 5) printf("sgemm [%d]: got %g, expected %g\n", i, C[i], R[i]);
  ok &= bad == 0;

  // 2. 16-byte copies with a zero-filled tail: 64 slots, 1000 valid bytes; the
  // source buffer ends exactly at the last valid byte.
  const int nvalid = 1000;
  std::vector<unsigned char> src(nvalid), out(64 * 16);
  for (int i = 0; i < nvalid; i++) src[i] = (unsigned char)(i * 31 + 7);
  unsigned char *dsrc, *ddst;
  CHECK(cudaMalloc(&dsrc, nvalid));
  CHECK(cudaMalloc(&ddst, 64 * 16));
  CHECK(cudaMemcpy(dsrc, src.data(), nvalid, cudaMemcpyHostToDevice));
  copy_zfill<<<1, 64>>>((const int4 *)dsrc, (int4 *)ddst, nvalid);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), ddst, 64 * 16, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < 64 * 16; i++) {
    unsigned char want = i < nvalid ? src[i] : 0;
    if (out[i] != want && bad++ < 5) printf("zfill [%d]: got %u, expected %u\n", i, out[i], want);
  }
  ok &= bad == 0;

  // 3. 8-byte copies through a thread-scope cuda::pipeline.
  std::vector<int> s8(256), o8(256);
  for (int i = 0; i < 256; i++) s8[i] = i * i - 77;
  int *d8s, *d8d;
  CHECK(cudaMalloc(&d8s, 256 * 4));
  CHECK(cudaMalloc(&d8d, 256 * 4));
  CHECK(cudaMemcpy(d8s, s8.data(), 256 * 4, cudaMemcpyHostToDevice));
  copy8<<<1, 128>>>((const int2 *)d8s, (int2 *)d8d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(o8.data(), d8d, 256 * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < 256; i++)
    if (o8[i] != s8[i] && bad++ < 5) printf("pipeline [%d]: got %d, expected %d\n", i, o8[i], s8[i]);
  ok &= bad == 0;

  // 4. cooperative_groups::memcpy_async of a whole block's slice, reversed and doubled.
  const int per = 300, nb = 3;
  std::vector<float> cs(per * nb), co(per * nb);
  for (int i = 0; i < per * nb; i++) cs[i] = (float)i * 0.5f;
  float *dcs, *dco;
  CHECK(cudaMalloc(&dcs, per * nb * 4));
  CHECK(cudaMalloc(&dco, per * nb * 4));
  CHECK(cudaMemcpy(dcs, cs.data(), per * nb * 4, cudaMemcpyHostToDevice));
  cg_copy<<<nb, 96, per * 4>>>(dcs, dco, per);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(co.data(), dco, per * nb * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int b = 0; b < nb; b++)
    for (int i = 0; i < per; i++) {
      float want = cs[b * per + per - 1 - i] * 2.0f;
      if (co[b * per + i] != want && bad++ < 5) printf("cg [%d]: got %g, expected %g\n", b * per + i, co[b * per + i], want);
    }
  ok &= bad == 0;
  return verdict("gemm_cp_async", ok);
}
