// Module-scope device and constant variables.

__device__ float accum[256];
__constant__ float coeff[16];

// expect use_globals: 0=READ +global
__global__ void use_globals(const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&accum[i & 255], in[i] * coeff[i & 15]);
}

__device__ float *stash;
// Reads a device pointer from a global variable and writes through it.
// expect via_global_ptr: 0=READ* +loaded +global +unk
__global__ void via_global_ptr(const float *in) {
  stash[threadIdx.x] = in[threadIdx.x];
}
