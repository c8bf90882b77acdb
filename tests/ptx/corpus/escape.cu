// Pointers stored to memory or mixed: conservative results.

// expect store_ptr: 0=ESCAPES~ 8=WRITE
__global__ void store_ptr(float *buf, float **table) {
  table[threadIdx.x] = buf + threadIdx.x;
}

// Two pointers selected at run time then written through: cannot tell which.
// expect select_write: 0=ESCAPES~ 8=ESCAPES~
__global__ void select_write(float *a, float *b, int flag, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float *q = flag ? a : b;
  if (i < n) q[i] = 3.f;
}

// A pointer staged through shared memory comes back from it: still followed.
// expect via_shared: 0=WRITE
__global__ void via_shared(float *p, int n) {
  __shared__ float *sp;
  if (threadIdx.x == 0) sp = p;
  __syncthreads();
  if (threadIdx.x < n) sp[threadIdx.x] = 1.f;
}

// Device printf of a pointer value: printf only reads what it is given.
#include <cstdio>
// expect print_ptr:
__global__ void print_ptr(float *p) {
  if (threadIdx.x == 0) printf("%p\n", (void *)p);
}
