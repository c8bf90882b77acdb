// Templates, vector loads, __restrict__ and read-only loads.

template <typename T>
__global__ void scale_t(const T *in, T *out, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = s * in[i];
}
// expect scale_t: 0=READ 8=WRITE
template __global__ void scale_t<float>(const float *, float *, float, int);
template __global__ void scale_t<double>(const double *, double *, double, int);

// expect add4: 0=READ 8=READ 16=WRITE
__global__ void add4(const float4 *a, const float4 *b, float4 *c, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

// expect restrict_axpy: 0=READ 8=READ_WRITE
__global__ void restrict_axpy(const float *__restrict__ x, float *__restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * __ldg(&x[i]) + y[i];
}

// Reinterpreting a float buffer as float2 pairs.
// expect pairs: 0=READ_WRITE
__global__ void pairs(float *v, int npairs) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < npairs) {
    float2 p = reinterpret_cast<float2 *>(v)[i];
    reinterpret_cast<float2 *>(v)[i] = make_float2(p.y, p.x);
  }
}

// Shuffle-based prefix within a warp, written back in place.
// expect warp_scan: 0=READ_WRITE
__global__ void warp_scan(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = i < n ? v[i] : 0;
  for (int o = 1; o < 32; o <<= 1) {
    int y = __shfl_up_sync(0xffffffffu, x, o);
    if ((threadIdx.x & 31) >= o) x += y;
  }
  if (i < n) v[i] = x;
}
