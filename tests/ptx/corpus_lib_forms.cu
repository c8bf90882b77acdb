// corpus_lib_forms.cu: CUDA features whose PTX uses the library forms (textures,
// surfaces, wmma, fp8 and SIMD intrinsics, Hopper bulk copies with mbarriers,
// programmatic launch): tests/ptx checks that nvcc's PTX for compute_90a parses.
#include <cuda_fp8.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
using namespace nvcuda;
namespace cg = cooperative_groups;

__global__ void textures(cudaTextureObject_t t, cudaTextureObject_t t2, cudaSurfaceObject_t s, float *out) {
  int i = threadIdx.x;
  float4 a = tex1Dfetch<float4>(t, i);
  float b = tex2D<float>(t2, i * 0.5f, 0.25f);
  float c = tex2DLod<float>(t2, i * 0.5f, 0.25f, 1.0f);
  float d = tex2DGrad<float>(t2, i * 0.5f, 0.25f, make_float2(1, 0), make_float2(0, 1));
  float4 g = tex2Dgather<float4>(t2, i * 0.5f, 0.25f, 1);
  float v;
  surf2Dread(&v, s, i * 4, 0);
  surf2Dwrite(v + a.x + b + c + d + g.y, s, i * 4, 1);
  out[i] = v;
}

__global__ void matrices(const half *a, const half *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void conversions(const float *in, unsigned *out, const unsigned *x) {
  int i = threadIdx.x;
  __nv_fp8x2_storage_t p = __nv_cvt_float2_to_fp8x2(make_float2(in[i], in[i + 1]), __NV_SATFINITE, __NV_E4M3);
  __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(p, __NV_E5M2);
  out[i] = p + h.x + __dp2a_lo((int)x[i], (int)x[i + 1], 3) + __dp4a((int)x[i], (int)x[i + 2], 1) + __vadd4(x[i], x[i + 3]) +
           __vabsdiffu4(x[i], x[i + 1]) + __fns(x[i], 3, 1) + __brev(x[i]);
}

__global__ void hopper(const int *in, int *out) {
  __shared__ alignas(128) int buf[256];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(buf, in, cuda::aligned_size_t<16>(sizeof buf), bar);
  bar.arrive_and_wait();
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
  out[threadIdx.x] = cg::reduce(w, buf[threadIdx.x], cg::plus<int>());
  cudaGridDependencySynchronize();
  cudaTriggerProgrammaticLaunchCompletion();
}
