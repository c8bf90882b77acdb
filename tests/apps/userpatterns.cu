// userpatterns: kernels written the way CUDA users write them, not the way gpuft
// expects: a struct argument holding the pointers (a CG solver's axpy), non-const
// pointers that are only read (NVIDIA's matrixMul signature), an in-place update,
// a kernel writing only half of its output allocation, and integer atomics.
// Values are small integers, so every float result is exact and checked exactly.
// Usage: userpatterns [n] [rounds]  (defaults 4096 3; n a multiple of 64, m = 64).
#include <string.h>

#include "app_common.h"

struct AxpyArgs {
  const float *x;
  float *y;
  float a;
  int n;
};

__global__ void axpy_struct(AxpyArgs args) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < args.n) args.y[i] = args.a * args.x[i] + args.y[i];
}

// C (m x m) = A (m x k) * B (k x m); A and B are only read through non-const pointers.
__global__ void matmul_nonconst(float *C, float *A, float *B, int m, int k) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= m) return;
  float s = 0.0f;
  for (int j = 0; j < k; j++) s += A[row * k + j] * B[j * m + col];
  C[row * m + col] = s;
}

__global__ void scale_inplace(float *v, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * s - 1.0f;
}

// Writes out[0 .. n/2) only; the upper half keeps what was uploaded.
__global__ void write_half(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2) out[i] = in[i] + in[n - 1 - i];
}

__global__ void count_positive(const float *x, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.0f) atomicAdd(count, 1);
}

static float xval(int i) { return (float)((i * 7) % 13 - 6); }
static float yval(int i) { return (float)((i * 5) % 11); }

int main(int argc, char **argv) {
  const int n = (int)app_arg(argc, argv, 1, 4096, 64, 1 << 22);
  const int rounds = (int)app_arg(argc, argv, 2, 3, 1, 50);
  const int m = 64, k = n / m;
  if (n % m) {
    fprintf(stderr, "userpatterns: n must be a multiple of %d\n", m);
    return 64;
  }
  const size_t nb = (size_t)n * sizeof(float), cb = (size_t)m * m * sizeof(float);
  float *hx = (float *)malloc(nb), *hy = (float *)malloc(nb), *hv = (float *)malloc(nb);
  float *ho = (float *)malloc(nb), *hc = (float *)malloc(cb);
  float *ry = (float *)malloc(nb), *rv = (float *)malloc(nb), *ro = (float *)malloc(nb);
  float *rc = (float *)malloc(cb);
  if (!hx || !hy || !hv || !ho || !hc || !ry || !rv || !ro || !rc) return 2;
  for (int i = 0; i < n; i++) {
    hx[i] = xval(i);
    hy[i] = ry[i] = yval(i);
    hv[i] = rv[i] = (float)(i % 5);
    ho[i] = ro[i] = (float)(-(i % 3));
  }
  float *dx, *dy, *dv, *dout, *dC;
  int *dcount;
  APP_CK(cudaMalloc((void **)&dx, nb));
  APP_CK(cudaMalloc((void **)&dy, nb));
  APP_CK(cudaMalloc((void **)&dv, nb));
  APP_CK(cudaMalloc((void **)&dout, nb));
  APP_CK(cudaMalloc((void **)&dC, cb));
  APP_CK(cudaMalloc((void **)&dcount, sizeof(int)));
  APP_CK(cudaMemcpy(dx, hx, nb, cudaMemcpyHostToDevice));
  APP_CK(cudaMemcpy(dy, hy, nb, cudaMemcpyHostToDevice));
  APP_CK(cudaMemcpy(dv, hv, nb, cudaMemcpyHostToDevice));
  APP_CK(cudaMemcpy(dout, ho, nb, cudaMemcpyHostToDevice));
  APP_CK(cudaMemset(dcount, 0, sizeof(int)));
  const int T = 128, B = (n + T - 1) / T;
  int count = 0, want_count = 0;
  for (int r = 0; r < rounds; r++) {
    AxpyArgs args = {dx, dy, 2.0f, n};
    axpy_struct<<<B, T>>>(args);
    APP_CK_LAUNCH();
    // A = x viewed as m x k, B = y viewed as k x m
    matmul_nonconst<<<dim3(m / 16, m / 16), dim3(16, 16)>>>(dC, dx, dy, m, k);
    APP_CK_LAUNCH();
    scale_inplace<<<B, T>>>(dv, 2.0f, n);
    APP_CK_LAUNCH();
    write_half<<<B, T>>>(dout, dv, n);
    APP_CK_LAUNCH();
    count_positive<<<B, T>>>(dy, dcount, n);
    APP_CK_LAUNCH();
    APP_CK(cudaDeviceSynchronize());
    // the same on the host
    for (int i = 0; i < n; i++) ry[i] = 2.0f * hx[i] + ry[i];
    for (int row = 0; row < m; row++)
      for (int col = 0; col < m; col++) {
        float s = 0.0f;
        for (int j = 0; j < k; j++) s += hx[row * k + j] * ry[j * m + col];
        rc[row * m + col] = s;
      }
    for (int i = 0; i < n; i++) rv[i] = rv[i] * 2.0f - 1.0f;
    for (int i = 0; i < n / 2; i++) ro[i] = rv[i] + rv[n - 1 - i];
    for (int i = 0; i < n; i++) want_count += ry[i] > 0.0f;
  }
  APP_CK(cudaMemcpy(hy, dy, nb, cudaMemcpyDeviceToHost));
  APP_CK(cudaMemcpy(hc, dC, cb, cudaMemcpyDeviceToHost));
  APP_CK(cudaMemcpy(hv, dv, nb, cudaMemcpyDeviceToHost));
  APP_CK(cudaMemcpy(ho, dout, nb, cudaMemcpyDeviceToHost));
  APP_CK(cudaMemcpy(&count, dcount, sizeof(int), cudaMemcpyDeviceToHost));
  long bad = 0;
  const struct { const char *name; const float *got, *want; size_t n; } outs[] = {
      {"y", hy, ry, (size_t)n}, {"C", hc, rc, (size_t)m * m}, {"v", hv, rv, (size_t)n},
      {"out", ho, ro, (size_t)n}};
  for (size_t o = 0; o < sizeof outs / sizeof *outs; o++)
    for (size_t i = 0; i < outs[o].n; i++)
      if (memcmp(&outs[o].got[i], &outs[o].want[i], sizeof(float)) && bad++ < 5)
        fprintf(stderr, "userpatterns: %s[%zu] = %g, expected %g\n", outs[o].name, i,
                outs[o].got[i], outs[o].want[i]);
  if (count != want_count) {
    fprintf(stderr, "userpatterns: count = %d, expected %d\n", count, want_count);
    bad++;
  }
  uint64_t h = APP_FNV_INIT;
  h = app_fnv1a(h, hy, nb);
  h = app_fnv1a(h, hc, cb);
  h = app_fnv1a(h, hv, nb);
  h = app_fnv1a(h, ho, nb);
  h = app_fnv1a(h, &count, sizeof count);
  printf("checksum: %016llx\n", (unsigned long long)h);
  APP_CK(cudaFree(dx));
  APP_CK(cudaFree(dy));
  APP_CK(cudaFree(dv));
  APP_CK(cudaFree(dout));
  APP_CK(cudaFree(dC));
  APP_CK(cudaFree(dcount));
  free(hx), free(hy), free(hv), free(ho), free(hc), free(ry), free(rv), free(ro), free(rc);
  if (bad) {
    fprintf(stderr, "userpatterns: %ld wrong values\n", bad);
    return 1;
  }
  return 0;
}
