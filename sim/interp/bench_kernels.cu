// matrixMul and scan kernels as NVIDIA's cuda-samples write them (matrixMul's
// MatrixMulCUDA<32>, scan's scanExclusiveShared), for the interpreter benchmark.
#define BLOCK_SIZE 32
extern "C" __global__ void matrixMul(float *C, float *A, float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

#define THREADBLOCK_SIZE 256
typedef unsigned int uint;
__device__ inline uint scan1Inclusive(uint idata, volatile uint *s_Data, uint size) {
  uint pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
  s_Data[pos] = 0;
  pos += size;
  s_Data[pos] = idata;
  for (uint offset = 1; offset < size; offset <<= 1) {
    __syncthreads();
    uint t = s_Data[pos] + s_Data[pos - offset];
    __syncthreads();
    s_Data[pos] = t;
  }
  return s_Data[pos];
}
__device__ inline uint scan1Exclusive(uint idata, volatile uint *s_Data, uint size) {
  return scan1Inclusive(idata, s_Data, size) - idata;
}
__device__ inline uint4 scan4Inclusive(uint4 idata4, volatile uint *s_Data, uint size) {
  idata4.y += idata4.x;
  idata4.z += idata4.y;
  idata4.w += idata4.z;
  uint oval = scan1Exclusive(idata4.w, s_Data, size / 4);
  idata4.x += oval;
  idata4.y += oval;
  idata4.z += oval;
  idata4.w += oval;
  return idata4;
}
__device__ inline uint4 scan4Exclusive(uint4 idata4, volatile uint *s_Data, uint size) {
  uint4 odata4 = scan4Inclusive(idata4, s_Data, size);
  odata4.x -= idata4.x;
  odata4.y -= idata4.y;
  odata4.z -= idata4.z;
  odata4.w -= idata4.w;
  return odata4;
}
extern "C" __global__ void scanExclusiveShared(uint4 *d_Dst, uint4 *d_Src, uint size) {
  __shared__ uint s_Data[2 * THREADBLOCK_SIZE];
  uint pos = blockIdx.x * blockDim.x + threadIdx.x;
  uint4 idata4 = d_Src[pos];
  uint4 odata4 = scan4Exclusive(idata4, s_Data, size);
  d_Dst[pos] = odata4;
}
