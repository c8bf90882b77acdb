// Plain pointer parameters, the way most CUDA programs pass them.
// Expectations: "expect NAME: OFFSET=CLASS ..." lists every pointer place of the
// kernel NAME (offset in its parameter buffer); places not listed must be NONE.
// A trailing '~' allows a conservative result, '*' says pointers loaded through the
// place are dereferenced (a pointer source), '!' that values loaded from memory are
// stored through it (a sink); flags: +loaded +global +call +unk (a dereferenced
// loaded pointer may come from memory no place names) +reached (loaded values stored
// through loaded pointers).
#include <cstddef>

// expect axpy: 0=READ 8=READ_WRITE
__global__ void axpy(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// expect copy_n: 0=READ 8=WRITE
__global__ void copy_n(const double *in, double *out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// NVIDIA's matrixMul style: non-const pointers that are only read.
// expect matmul_naive: 0=WRITE 8=READ 16=READ
__global__ void matmul_naive(float *C, float *A, float *B, int wA, int wB) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int k = 0; k < wA; k++) s += A[row * wA + k] * B[k * wB + col];
  C[row * wB + col] = s;
}

// expect scale_inplace: 0=READ_WRITE
__global__ void scale_inplace(float *v, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v[i] *= s;
}

// An unused pointer and a size_t count (both 8-byte places, never dereferenced).
// expect unused_arg: 0=WRITE
__global__ void unused_arg(int *out, const int *unused, size_t n) {
  if (threadIdx.x < n) out[threadIdx.x] = (int)n;
}

// Reverse order: the index is computed from a 64-bit count (an 8-byte value that
// enters an address as an integer may be the pointer: conservative).
// expect reverse: 0=READ 8=WRITE 16=ESCAPES~
__global__ void reverse(const int *in, int *out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) out[n - 1 - i] = in[i];
}

// Writes only the first half of its output.
// expect half_out: 0=READ 8=WRITE
__global__ void half_out(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2) out[i] = in[2 * i] + in[2 * i + 1];
}

// Pointer walking with an end pointer that is only compared.
// expect fill_range: 0=WRITE
__global__ void fill_range(int *begin, int *end, int v) {
  for (int *p = begin + threadIdx.x; p < end; p += blockDim.x) *p = v;
}

// Predicated select between two reads of distinct buffers.
// Both pointers may be read through the selected address: READ, conservatively.
// expect pick: 0=READ~ 8=READ~ 16=WRITE
__global__ void pick(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = (i & 1) ? a[i] : b[i];
  out[i] = v > 0.f ? v : 0.f;
}
