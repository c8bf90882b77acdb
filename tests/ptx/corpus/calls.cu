// Device-function calls the analysis follows, and calls it cannot follow.

__device__ __noinline__ void store_sq(float *dst, const float *src, int i) { dst[i] = src[i] * src[i]; }
__device__ __noinline__ float load_at(const float *p, int i) { return p[i]; }

// expect call_store: 0=READ 8=WRITE
__global__ void call_store(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) store_sq(out, in, i);
}

// expect call_load: 0=READ 8=WRITE
__global__ void call_load(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = load_at(in, i) + 1.f;
}

__device__ __noinline__ float *advance(float *p, int k) { return p + k; }
// A pointer returned by a callee keeps its origin.
// expect call_return: 0=WRITE
__global__ void call_return(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) *advance(out, i) = 2.f;
}

__device__ __noinline__ int depth_sum(const int *v, int k) { return k <= 0 ? v[0] : v[k] + depth_sum(v, k - 1); }
// Recursion.
// expect recursive: 0=READ 8=WRITE
__global__ void recursive(const int *v, int *out, int k) {
  out[threadIdx.x] = depth_sum(v, k);
}

typedef void (*op_t)(float *, int);
__device__ void op_zero(float *p, int i) { p[i] = 0.f; }
__device__ void op_one(float *p, int i) { p[i] = 1.f; }
__device__ op_t ops[2] = {op_zero, op_one};
// An indirect call through a function pointer: the argument escapes.
// expect call_indirect: 0=ESCAPES~ +call +global
__global__ void call_indirect(float *p, int which, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ops[which & 1](p, i);
}
