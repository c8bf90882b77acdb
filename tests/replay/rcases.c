/* rcases.c: driver-API programs for rollback and replay on the simulator.
 *   threads T I   T host threads, each I rounds of upload, scale kernel (const
 *                 input), read-back and check
 *   learn         a kernel writing through a pointer declared const, only when
 *                 told to: learned after one replay, no alarms afterwards
 *   epochs        memsets, device copies, asynchronous read-backs and frees
 *                 inside epochs
 * Every case checks its own results and prints them; exit 1 on a wrong answer. */
#define _GNU_SOURCE
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simcuda.h"

/* scale(const unsigned *in, unsigned *out, unsigned k): out[i] = in[i] * k */
static void scale_twin(const simcuda_block_t *blk, void **p) {
  const unsigned *in = simcuda_ptr(blk, *(void **)p[0]);
  unsigned *out = simcuda_ptr(blk, *(void **)p[1]);
  unsigned k = *(unsigned *)p[2];
  if (!in || !out) return;
  size_t base = (size_t)blk->blockIdx.x * blk->blockDim.x;
  for (unsigned t = 0; t < blk->blockDim.x; t++) out[base + t] = in[base + t] * k;
}
/* maybe_write(const unsigned *p, int flag): when flag, p[i] = i * 7 for every 5th i */
static void maybe_write_twin(const simcuda_block_t *blk, void **p) {
  unsigned *q = simcuda_ptr(blk, *(void **)p[0]);
  int flag = *(int *)p[1];
  if (!q || !flag) return;
  size_t base = (size_t)blk->blockIdx.x * blk->blockDim.x;
  for (unsigned t = 0; t < blk->blockDim.x; t++)
    if ((base + t) % 5 == 0) q[base + t] = (unsigned)((base + t) * 7);
}
static const uint16_t s3[] = {8, 8, 4}, a3[] = {8, 8, 4}, s2[] = {8, 4}, a2[] = {8, 4};
static const simcuda_kernel_t kernels[] = {
    {"_Z5scalePKjPjj", scale_twin, 3, s3, a3},
    {"_Z11maybe_writePKji", maybe_write_twin, 2, s2, a2},
};
static const simcuda_image_t image = {SIMCUDA_IMAGE_MAGIC, SIMCUDA_IMAGE_VERSION, 2, kernels};

static CUcontext ctx;
static CUfunction f_scale, f_maybe;

#define CK(x)                                                             \
  do {                                                                    \
    CUresult r_ = (x);                                                    \
    if (r_ != CUDA_SUCCESS) {                                             \
      fprintf(stderr, "rcases: %s:%d: %s -> %d\n", __FILE__, __LINE__, #x, (int)r_); \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

static void setup(void) {
  CUdevice dev;
  CUmodule mod;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(cuModuleLoadData(&mod, &image));
  CK(cuModuleGetFunction(&f_scale, mod, "_Z5scalePKjPjj"));
  CK(cuModuleGetFunction(&f_maybe, mod, "_Z11maybe_writePKji"));
}

enum { N = 16384 }; /* words: 64 KiB, 16 groups */

static int rounds;
static int bad;

static void *worker(void *arg) {
  unsigned id = (unsigned)(uintptr_t)arg;
  CK(cuCtxSetCurrent(ctx));
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  unsigned *in = malloc(N * 4), *out = malloc(N * 4);
  for (int r = 0; r < rounds; r++) {
    CUdeviceptr din, dout;
    CK(cuMemAlloc(&din, N * 4));
    CK(cuMemAlloc(&dout, N * 4));
    for (unsigned i = 0; i < N; i++) in[i] = i * 2654435761u + id * 7919u + (unsigned)r;
    CK(cuMemcpyHtoDAsync(din, in, N * 4, s));
    unsigned k = 3 + id;
    void *params[] = {&din, &dout, &k};
    CK(cuLaunchKernel(f_scale, N / 256, 1, 1, 256, 1, 1, 0, s, params, NULL));
    CK(cuMemcpyDtoHAsync(out, dout, N * 4, s));
    CK(cuStreamSynchronize(s));
    for (unsigned i = 0; i < N; i++)
      if (out[i] != in[i] * k) {
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        break;
      }
    CK(cuMemFree(din));
    CK(cuMemFree(dout));
  }
  free(in);
  free(out);
  CK(cuStreamDestroy(s));
  return NULL;
}

static int threads(int nt, int it) {
  rounds = it;
  pthread_t t[32];
  for (int i = 0; i < nt; i++) pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
  for (int i = 0; i < nt; i++) pthread_join(t[i], NULL);
  printf("threads: %d x %d rounds, %d wrong\n", nt, it, bad);
  return bad ? 1 : 0;
}

static int learn(void) {
  unsigned *h = malloc(N * 4), *back = malloc(N * 4);
  for (unsigned i = 0; i < N; i++) h[i] = i ^ 0x5a5a5a5au;
  CUdeviceptr d;
  CK(cuMemAlloc(&d, N * 4));
  CK(cuMemcpyHtoD(d, h, N * 4));
  int flag = 0;
  void *params[] = {&d, &flag};
  for (int i = 0; i < 3; i++) CK(cuLaunchKernel(f_maybe, N / 256, 1, 1, 256, 1, 1, 0, 0, params, NULL));
  CK(cuCtxSynchronize());
  flag = 1; /* now it writes through its const pointer */
  for (int i = 0; i < 4; i++) {
    CK(cuLaunchKernel(f_maybe, N / 256, 1, 1, 256, 1, 1, 0, 0, params, NULL));
    CK(cuMemcpyDtoH(back, d, N * 4));
  }
  int wrong = 0;
  for (unsigned i = 0; i < N; i++) {
    unsigned want = i % 5 == 0 ? i * 7 : h[i];
    if (back[i] != want) wrong++;
  }
  printf("learn: %d wrong words\n", wrong);
  CK(cuMemFree(d));
  free(h);
  free(back);
  return wrong ? 1 : 0;
}

/* memset, D2D copies, a kernel, asynchronous read-backs and frees in each epoch */
static int epochs(void) {
  unsigned *h = malloc(N * 4), *back = malloc(N * 4), *back2 = malloc(N * 4);
  int wrong = 0;
  for (int e = 0; e < 6; e++) {
    CUdeviceptr a, b, c;
    CK(cuMemAlloc(&a, N * 4));
    CK(cuMemAlloc(&b, N * 4));
    CK(cuMemAlloc(&c, N * 4));
    for (unsigned i = 0; i < N; i++) h[i] = i * 31u + (unsigned)e;
    CK(cuMemcpyHtoD(a, h, N * 4));
    CK(cuMemsetD32(b, 0x01010101u * (unsigned)e, N));
    CK(cuMemcpyDtoD(c, a, N * 4));          /* c = a */
    unsigned k = 5;
    void *params[] = {&c, &b, &k};
    CK(cuLaunchKernel(f_scale, N / 256, 1, 1, 256, 1, 1, 0, 0, params, NULL)); /* b = 5c */
    CK(cuMemcpyDtoHAsync(back, b, N * 4, 0));
    CK(cuMemcpyDtoHAsync(back2, c, N * 4, 0));
    CK(cuMemFree(a)); /* a free inside the epoch: a commit point */
    CK(cuCtxSynchronize());
    for (unsigned i = 0; i < N; i++)
      if (back[i] != h[i] * 5 || back2[i] != h[i]) {
        wrong++;
        break;
      }
    CK(cuMemFree(b));
    CK(cuMemFree(c));
  }
  printf("epochs: %d wrong\n", wrong);
  free(h);
  free(back);
  free(back2);
  return wrong ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  setup();
  if (!strcmp(argv[1], "threads") && argc == 4) return threads(atoi(argv[2]), atoi(argv[3]));
  if (!strcmp(argv[1], "learn")) return learn();
  if (!strcmp(argv[1], "epochs")) return epochs();
  return 2;
}
