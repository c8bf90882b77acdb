// Shared-memory staging, static and dynamic.
#define TILE 16

// expect sgemm_tile: 0=READ 8=READ 16=WRITE
__global__ void sgemm_tile(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
  float s = 0;
  for (int t = 0; t < n / TILE; t++) {
    As[threadIdx.y][threadIdx.x] = A[r * n + t * TILE + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + c];
    __syncthreads();
    for (int k = 0; k < TILE; k++) s += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[r * n + c] = s;
}

// expect stencil_dyn: 0=READ 8=WRITE
__global__ void stencil_dyn(const float *in, float *out, int n) {
  extern __shared__ float halo[];
  int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + 1;
  halo[l] = g < n ? in[g] : 0.f;
  if (threadIdx.x == 0) halo[0] = g > 0 ? in[g - 1] : 0.f;
  if (threadIdx.x == blockDim.x - 1) halo[l + 1] = g + 1 < n ? in[g + 1] : 0.f;
  __syncthreads();
  if (g < n) out[g] = 0.25f * halo[l - 1] + 0.5f * halo[l] + 0.25f * halo[l + 1];
}

// Block reduction in shared memory, result per block.
// expect block_sum: 0=READ 8=WRITE
__global__ void block_sum(const double *in, double *partial, int n) {
  extern __shared__ double s[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// Transpose through a padded shared tile.
// expect transpose: 0=WRITE 8=READ
__global__ void transpose(float *out, const float *in, int w, int h) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}
