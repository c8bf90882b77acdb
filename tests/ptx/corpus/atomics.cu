// Atomics and reductions.

// expect count_positive: 0=READ 8=READ_WRITE
__global__ void count_positive(const float *v, unsigned *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && v[i] > 0) atomicAdd(count, 1u);
}

// expect histogram: 0=READ 8=READ_WRITE
__global__ void histogram(const unsigned char *data, unsigned *hist, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

// expect max_cas: 0=READ 8=READ_WRITE
__global__ void max_cas(const int *v, int *best, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int old = *best;
  while (v[i] > old) {
    int seen = atomicCAS(best, old, v[i]);
    if (seen == old) break;
    old = seen;
  }
}

// Warp-shuffle reduction then one atomic per warp.
// expect reduce_shfl: 0=READ 8=READ_WRITE
__global__ void reduce_shfl(const float *in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, v);
}

// Publishes a pointer through an atomic exchange: the pointer escapes.
// expect publish: 0=ESCAPES~ 8=READ_WRITE
__global__ void publish(float *buf, float **slot) {
  if (threadIdx.x == 0) atomicExch((unsigned long long *)slot, (unsigned long long)buf);
}
