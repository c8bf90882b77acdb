// pool: tensors carved out of one large allocation, the way caching allocators
// (PyTorch's, RMM's pools) hand them out: one cudaMalloc, a bump allocator with a
// free list, two tensors uploaded, `iters` axpy launches, a scratch tensor freed
// and its bytes reused by another, a tensor at the pool's far end written last,
// read-backs checked exactly on the CPU.
// Usage: pool [pool_mib] [tensor_kib] [iters]  (default 512 16 50). Prints
// "checksum: <hex>"; exit 1 on a wrong answer.
#include <vector>

#include "app_common.h"
#include "pool_kernels.cuh"

// The pool's allocator: blocks of 512-byte multiples from the pool's middle on
// (tensors not at the allocation's start), a one-entry free list for reuse.
struct pool_t {
  char *base;
  size_t size, next, free_off, free_len;
};
static float *carve(pool_t *p, size_t bytes) {
  bytes = (bytes + 511) & ~(size_t)511;
  if (p->free_len >= bytes) { /* reuse what was freed, without cudaFree */
    p->free_len = 0;
    return (float *)(p->base + p->free_off);
  }
  if (p->next + bytes > p->size) return nullptr;
  float *t = (float *)(p->base + p->next);
  p->next += bytes;
  return t;
}
static void release(pool_t *p, float *t, size_t bytes) {
  p->free_off = (size_t)((char *)t - p->base);
  p->free_len = (bytes + 511) & ~(size_t)511;
}

int main(int argc, char **argv) {
  const size_t pool_mib = (size_t)app_arg(argc, argv, 1, 512, 1, 1 << 16);
  const int n = (int)(app_arg(argc, argv, 2, 16, 1, 1 << 20) * 1024 / sizeof(float));
  const int iters = (int)app_arg(argc, argv, 3, 50, 1, 1 << 20);
  const size_t bytes = (size_t)n * sizeof(float);
  pool_t p = {nullptr, pool_mib << 20, (pool_mib << 20) / 2, 0, 0};
  APP_CK(cudaMalloc(&p.base, p.size));
  float *x = carve(&p, bytes), *y = carve(&p, bytes), *tmp = carve(&p, bytes);
  // and one at the pool's far end (as a caching allocator's second segment would)
  float *w = (float *)(p.base + p.size - ((bytes + 511) & ~(size_t)511));
  if (!x || !y || !tmp || (char *)w < p.base + p.next) {
    fprintf(stderr, "pool: %zu MiB is too small for three %zu-byte tensors\n", pool_mib, bytes);
    return 64;
  }
  std::vector<float> hx(n), hy(n), out(n), hz(n), hw(n);
  for (int i = 0; i < n; i++) {
    hx[i] = (float)(i % 977) * 0.25f;
    hy[i] = (float)((i * 13) % 101) * 0.5f;
  }
  APP_CK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
  APP_CK(cudaMemcpy(y, hy.data(), bytes, cudaMemcpyHostToDevice));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  // a scratch tensor: written, used, released to the pool, its bytes carved again
  scale<<<blocks, threads>>>(x, tmp, 2.0f, n);
  APP_CK_LAUNCH();
  axpy<<<blocks, threads>>>(0.5f, tmp, y, n);
  APP_CK_LAUNCH();
  release(&p, tmp, bytes);
  float *z = carve(&p, bytes);
  scale<<<blocks, threads>>>(y, z, 0.25f, n);
  APP_CK_LAUNCH();
  for (int k = 0; k < iters; k++) {
    axpy<<<blocks, threads>>>(1.5f, x, y, n);
    APP_CK_LAUNCH();
  }
  scale<<<blocks, threads>>>(y, w, 0.5f, n);
  APP_CK_LAUNCH();
  APP_CK(cudaMemcpy(out.data(), y, bytes, cudaMemcpyDeviceToHost));
  APP_CK(cudaMemcpy(hz.data(), z, bytes, cudaMemcpyDeviceToHost));
  APP_CK(cudaMemcpy(hw.data(), w, bytes, cudaMemcpyDeviceToHost));
  APP_CK(cudaFree(p.base));

  long bad = 0;
  for (int i = 0; i < n; i++) {
    float yv = hy[i], t = hx[i] * 2.0f;
    yv = 0.5f * t + yv;
    float zv = yv * 0.25f;
    for (int k = 0; k < iters; k++) yv = 1.5f * hx[i] + yv;
    if (out[i] != yv || hz[i] != zv || hw[i] != yv * 0.5f) {
      if (bad < 5)
        fprintf(stderr, "pool: y[%d] = %g (expected %g), z = %g (expected %g), w = %g (expected %g)\n", i,
                out[i], yv, hz[i], zv, hw[i], yv * 0.5f);
      bad++;
    }
  }
  uint64_t h = app_fnv1a(app_fnv1a(APP_FNV_INIT, out.data(), bytes), hz.data(), bytes);
  printf("checksum: %016llx\n", (unsigned long long)app_fnv1a(h, hw.data(), bytes));
  if (bad) {
    fprintf(stderr, "pool: %ld of %d results wrong\n", bad, n);
    return 1;
  }
  printf("pool: %zu MiB pool, %d-element tensors, %d iterations ok\n", pool_mib, n, iters);
  return 0;
}
