// device_heap: malloc/free and new/delete in kernels, the way programs use them:
// per-thread objects made with new, per-thread arrays of varying size, an
// allocation made by one kernel and freed by a later one, a heap sized with
// cudaDeviceSetLimit(cudaLimitMallocHeapSize) that runs out (malloc gives NULL)
// and is reusable after free; checked against the host.
#include <cstdio>
#include <cstdint>
#include <vector>
#include "samples.h"

struct Particle {
  int id;
  double x, v;
  __device__ Particle(int i) : id(i), x(i * 0.5), v(-i) {}
  __device__ double step(double dt) { x += v * dt; return x; }
};

__global__ void with_new(double *out, int *sums) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  Particle *p = new Particle(t);
  out[t] = p->step(0.25);
  int n = 1 + t % 37;
  int *a = (int *)malloc(n * sizeof(int));
  int *b = new int[n];
  int s = 0;
  if (a && b) {
    for (int i = 0; i < n; i++) a[i] = t * 3 + i, b[i] = a[i] * 2;
    for (int i = 0; i < n; i++) s += b[i] - a[i];
  } else {
    s = -1;
  }
  sums[t] = s;
  delete p;
  free(a);
  delete[] b;
}

__device__ int *keep[64];
__global__ void make_keep() {
  int t = threadIdx.x;
  keep[t] = (int *)malloc(100 * sizeof(int));
  if (keep[t])
    for (int i = 0; i < 100; i++) keep[t][i] = t * 1000 + i;
}
__global__ void use_and_free(long long *sum) {
  int t = threadIdx.x;
  long long s = 0;
  if (keep[t]) {
    for (int i = 0; i < 100; i++) s += keep[t][i];
    free(keep[t]);
  } else {
    s = -1;
  }
  sum[t] = s;
}

// Each thread asks for `bytes`; records whether it got memory, writes its own
// pattern through it, and (after a barrier) checks no other thread overwrote it.
__global__ void exhaust(size_t bytes, int *got, int *intact, bool release) {
  int t = threadIdx.x;
  unsigned char *p = (unsigned char *)malloc(bytes);
  got[t] = p != nullptr;
  if (p)
    for (size_t i = 0; i < bytes; i += 512) p[i] = (unsigned char)t;
  __syncthreads();
  int ok = 1;
  if (p)
    for (size_t i = 0; i < bytes; i += 512) ok &= p[i] == (unsigned char)t;
  intact[t] = ok;
  if (release) free(p);
}

int main() {
  bool ok = true;
  // What the heap's size reads back as after setting it (the driver may round it up):
  // the default, then a few sizes, all before any kernel uses malloc.
  size_t lim = 0;
  CHECK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
  printf("heap limit: default %zu\n", lim);
  const size_t probe[] = {(size_t)1 << 20, (3 << 20) + 1, (size_t)5 << 20, (size_t)100 << 20};
  for (size_t want : probe) {
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, want));
    CHECK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
    printf("heap limit: set %zu, reads back %zu\n", want, lim);
    ok &= EXPECT(lim >= want);
  }
  // A small heap (1 MiB asked), set before any kernel uses malloc (as the driver requires).
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
  size_t heap = 0;
  CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));

  const int nb = 4, nt = 64, n = nb * nt;
  double *dout;
  int *dsums;
  CHECK(cudaMalloc(&dout, n * sizeof(double)));
  CHECK(cudaMalloc(&dsums, n * sizeof(int)));
  with_new<<<nb, nt>>>(dout, dsums);
  CHECK(cudaGetLastError());
  std::vector<double> out(n);
  std::vector<int> sums(n);
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sums.data(), dsums, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < n; t++) {
    double want = t * 0.5 + (-t) * 0.25;
    int m = 1 + t % 37, ws = 0;
    for (int i = 0; i < m; i++) ws += t * 3 + i;
    if ((out[t] != want || sums[t] != ws) && bad++ < 5)
      printf("new/malloc [%d]: got %g %d, expected %g %d\n", t, out[t], sums[t], want, ws);
  }
  ok &= bad == 0;

  // Allocated by one kernel, read and freed by the next.
  long long *dsum;
  CHECK(cudaMalloc(&dsum, 64 * sizeof(long long)));
  make_keep<<<1, 64>>>();
  use_and_free<<<1, 64>>>(dsum);
  CHECK(cudaGetLastError());
  std::vector<long long> ks(64);
  CHECK(cudaMemcpy(ks.data(), dsum, 64 * sizeof(long long), cudaMemcpyDeviceToHost));
  bad = 0;
  for (int t = 0; t < 64; t++) {
    long long want = 0;
    for (int i = 0; i < 100; i++) want += t * 1000 + i;
    if (ks[t] != want && bad++ < 5) printf("kept [%d]: got %lld, expected %lld\n", t, ks[t], want);
  }
  ok &= bad == 0;

  // 64 threads each asking a 32nd of the heap: some must get NULL, the others
  // disjoint memory; after free, the same request succeeds as often again.
  const size_t ask = heap / 32;
  int *dgot, *dint;
  CHECK(cudaMalloc(&dgot, 64 * sizeof(int)));
  CHECK(cudaMalloc(&dint, 64 * sizeof(int)));
  std::vector<int> got(64), intact(64);
  int first = -1;
  for (int round = 0; round < 2; round++) {
    exhaust<<<1, 64>>>(ask, dgot, dint, true);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), dgot, 64 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(intact.data(), dint, 64 * sizeof(int), cudaMemcpyDeviceToHost));
    int ngot = 0, nint = 0;
    for (int t = 0; t < 64; t++) ngot += got[t], nint += intact[t];
    printf("round %d: %d of 64 allocations of %zu KiB succeeded\n", round, ngot, ask >> 10);
    // (the heap holds at most 32 such blocks, less its own bookkeeping)
    if (ngot < 1 || ngot > 32 || nint != 64) printf("exhaust round %d: %d succeeded, %d intact\n", round, ngot, nint), ok = false;
    if (round == 0) first = ngot;
    else if (ngot != first) printf("after free: %d succeeded, first time %d\n", ngot, first), ok = false;
  }
  CHECK(cudaDeviceSynchronize());
  // Once kernels have used malloc, the heap's size cannot change (the driver's rule).
  cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 4 << 20);
  if (e != cudaErrorInvalidValue) printf("resizing a heap in use: %s\n", cudaGetErrorString(e)), ok = false;
  CHECK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
  if (lim != heap) printf("heap limit changed to %zu\n", lim), ok = false;
  return verdict("device_heap", ok);
}
