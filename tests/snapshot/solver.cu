// solver: conjugate gradients on the 2-D Poisson equation, the kind of program
// that runs for days on a consumer GPU. x, r, p and q live on the device and are
// updated in place every iteration; only the dot products come back (each a
// deterministic two-pass reduction: per-block partial sums, then one block).
// `solver [grid] [iterations]`; prints the iterations and a checksum of x.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(2);                                                                       \
    }                                                                                \
  } while (0)

#define BLOCKS 32
#define THREADS 128

// q = A p for the 5-point Laplacian on a g x g grid (zero boundary).
__global__ void laplace(const double *p, double *q, int g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g * g) return;
  int x = i % g, y = i / g;
  double s = 4 * p[i];
  if (x > 0) s -= p[i - 1];
  if (x < g - 1) s -= p[i + 1];
  if (y > 0) s -= p[i - g];
  if (y < g - 1) s -= p[i + g];
  q[i] = s;
}

// Per-block partial sums of a . b, in a fixed order.
__global__ void dot_partial(const double *a, const double *b, double *part, int n) {
  __shared__ double s[THREADS];
  double t = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) t += a[i] * b[i];
  s[threadIdx.x] = t;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) part[blockIdx.x] = s[0];
}

__global__ void dot_final(const double *part, double *out, int nparts) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    double t = 0;
    for (int i = 0; i < nparts; i++) t += part[i];
    *out = t;
  }
}

__global__ void axpy(double a, const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

__global__ void xpay(const double *x, double a, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + a * y[i];
}

static double dot(const double *a, const double *b, double *part, double *res, int n) {
  dot_partial<<<BLOCKS, THREADS>>>(a, b, part, n);
  dot_final<<<1, 32>>>(part, res, BLOCKS);
  double r;
  CHECK(cudaMemcpy(&r, res, sizeof r, cudaMemcpyDeviceToHost));
  return r;
}

int main(int argc, char **argv) {
  int g = argc > 1 ? atoi(argv[1]) : 48, maxit = argc > 2 ? atoi(argv[2]) : 60;
  int n = g * g, nb = (n + THREADS - 1) / THREADS;
  std::vector<double> b(n);
  for (int i = 0; i < n; i++) b[i] = 1.0 + (i % 7) * 0.125;
  double *x, *r, *p, *q, *part, *res;
  CHECK(cudaMalloc(&x, n * 8));
  CHECK(cudaMalloc(&r, n * 8));
  CHECK(cudaMalloc(&p, n * 8));
  CHECK(cudaMalloc(&q, n * 8));
  CHECK(cudaMalloc(&part, BLOCKS * 8));
  CHECK(cudaMalloc(&res, 8));
  CHECK(cudaMemset(x, 0, n * 8));
  CHECK(cudaMemcpy(r, b.data(), n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(p, b.data(), n * 8, cudaMemcpyHostToDevice));
  double rr = dot(r, r, part, res, n);
  int it = 0;
  for (; it < maxit && rr > 1e-24; it++) {
    laplace<<<nb, THREADS>>>(p, q, g);
    double alpha = rr / dot(p, q, part, res, n);
    axpy<<<nb, THREADS>>>(alpha, p, x, n);
    axpy<<<nb, THREADS>>>(-alpha, q, r, n);
    double rr1 = dot(r, r, part, res, n);
    xpay<<<nb, THREADS>>>(r, rr1 / rr, p, n);
    rr = rr1;
  }
  CHECK(cudaGetLastError());
  std::vector<double> hx(n);
  CHECK(cudaMemcpy(hx.data(), x, n * 8, cudaMemcpyDeviceToHost));
  unsigned long long h = 1469598103934665603ull; // FNV-1a over the bytes of x
  const unsigned char *bytes = (const unsigned char *)hx.data();
  for (size_t i = 0; i < hx.size() * 8; i++) h = (h ^ bytes[i]) * 1099511628211ull;
  printf("solver: %d iterations, |r|^2 = %.6e\n", it, rr);
  printf("checksum: %016llx\n", h);
  CHECK(cudaFree(x));
  CHECK(cudaFree(r));
  CHECK(cudaFree(p));
  CHECK(cudaFree(q));
  CHECK(cudaFree(part));
  CHECK(cudaFree(res));
  return 0;
}
