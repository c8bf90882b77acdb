// stencil: explicit time stepping of the 2-D heat equation with two grids that
// swap roles every step (ping-pong), as simulation codes do; every `every` steps
// the mean temperature comes back through a deterministic reduction. With
// `scratch`, each report also allocates, uses and frees a scratch buffer (frees
// inside the interval a snapshot log covers, and addresses reused for other data).
// `stencil [grid] [steps] [every] [scratch]`; prints a checksum of the final grid.
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

__global__ void step(const float *u, float *v, int g, float k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g || y >= g) return;
  int i = y * g + x;
  if (x == 0 || y == 0 || x == g - 1 || y == g - 1) {
    v[i] = u[i]; // fixed boundary
    return;
  }
  v[i] = u[i] + k * (u[i - 1] + u[i + 1] + u[i - g] + u[i + g] - 4 * u[i]);
}

// One block sums the grid row by row (a fixed order: the same bits every time).
__global__ void mean(const float *u, float *out, int g) {
  __shared__ float s[256];
  float t = 0;
  for (int i = threadIdx.x; i < g * g; i += blockDim.x) t += u[i];
  s[threadIdx.x] = t;
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = 0;
    for (int j = 0; j < (int)blockDim.x; j++) m += s[j];
    *out = m / (g * g);
  }
}

__global__ void scale(const float *u, float *w, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = u[i] * f;
}

int main(int argc, char **argv) {
  int g = argc > 1 ? atoi(argv[1]) : 64, steps = argc > 2 ? atoi(argv[2]) : 40;
  int every = argc > 3 ? atoi(argv[3]) : 4, scratch = argc > 4 ? atoi(argv[4]) : 0;
  int n = g * g;
  std::vector<float> h(n);
  for (int y = 0; y < g; y++)
    for (int x = 0; x < g; x++) h[y * g + x] = (x == 0 ? 100.0f : 0.0f) + ((x * 7 + y * 3) % 11) * 0.5f;
  float *a, *b, *m;
  CHECK(cudaMalloc(&a, n * 4));
  CHECK(cudaMalloc(&b, n * 4));
  CHECK(cudaMalloc(&m, 4));
  CHECK(cudaMemcpy(a, h.data(), n * 4, cudaMemcpyHostToDevice));
  dim3 blk(16, 8), grd((g + 15) / 16, (g + 7) / 8);
  double acc = 0;
  for (int s = 1; s <= steps; s++) {
    step<<<grd, blk>>>(a, b, g, 0.2f);
    float *t = a;
    a = b;
    b = t;
    if (s % every == 0) {
      float mv;
      if (scratch) {
        float *w;
        CHECK(cudaMalloc(&w, n * 4));
        scale<<<(n + 255) / 256, 256>>>(a, w, 0.5f, n);
        mean<<<1, 256>>>(w, m, g);
        CHECK(cudaMemcpy(&mv, m, 4, cudaMemcpyDeviceToHost));
        CHECK(cudaFree(w));
        mv *= 2;
      } else {
        mean<<<1, 256>>>(a, m, g);
        CHECK(cudaMemcpy(&mv, m, 4, cudaMemcpyDeviceToHost));
      }
      acc += mv;
    }
  }
  CHECK(cudaMemcpy(h.data(), a, n * 4, cudaMemcpyDeviceToHost));
  unsigned long long c = 1469598103934665603ull;
  const unsigned char *bytes = (const unsigned char *)h.data();
  for (size_t i = 0; i < h.size() * 4; i++) c = (c ^ bytes[i]) * 1099511628211ull;
  printf("stencil: %d steps, mean of means %.6f\n", steps, acc / (steps / every));
  printf("checksum: %016llx\n", c);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(m));
  return 0;
}
