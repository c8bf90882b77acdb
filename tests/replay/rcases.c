/* rcases.c: driver-API programs for rollback and replay on the simulator.
 *   threads T I   T host threads, each I rounds of upload, scale kernel (const
 *                 input), read-back and check
 *   learn         a kernel writing through a pointer declared const, only when
 *                 told to: learned after one replay, no alarms afterwards
 *   epochs        memsets, device copies, asynchronous read-backs and frees
 *                 inside epochs
 *   rewrite OP OFF BIT   a bit of a buffer at rest flipped at byte OFF, then OP
 *                 overwrites part of it and gpuft re-encodes what OP touched:
 *                 memset2d, copy2d, writevalue, graph (a kernel node writing word 0)
 *   side KIND     an epoch with a side effect a replay cannot undo, its input
 *                 flipped before use: managed / mapped (a kernel accumulating into
 *                 managed or mapped host memory), hostfn (a host function copying
 *                 what an asynchronous read-back brought)
 *   graph B [S]   a graph of two scale nodes (out = 3 in, out2 = 5 out); the factor
 *                 changed to 4 and B bits of its input flipped at rest after the first
 *                 launch, then a second launch, both nodes changed (out = 7 in, out3 =
 *                 5 out), a third, one synchronisation (S: the bits drawn from seed S): the
 *                 epoch replayed by relaunching the graph with each launch's parameters
 *   takeback M    a synchronous read-back returned to the program before a replay
 *                 of its epoch; M: reuse (the program overwrites the buffer), free
 *                 (it frees it), change (it also changes the managed source)
 *   freed B [big] a kernel's output from an input the program then frees (twice:
 *                 the second free must fail as the driver's does); B bits of the
 *                 output flipped at rest, then read back (a replay needs the freed
 *                 input); big: both 6 MiB, and after the free an allocation that
 *                 fits only if the freed input's memory went back
 * Every case checks its own results and prints them; exit 1 on a wrong answer. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
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
/* poke(unsigned *p): p[0] = 0x33333333 */
static void poke_twin(const simcuda_block_t *blk, void **p) {
  unsigned *q = simcuda_ptr(blk, *(void **)p[0]);
  if (q && blk->blockIdx.x == 0) q[0] = 0x33333333u;
}
/* accum(const unsigned *in, unsigned *acc): acc[i] += in[i] */
static void accum_twin(const simcuda_block_t *blk, void **p) {
  const unsigned *in = simcuda_ptr(blk, *(void **)p[0]);
  unsigned *acc = simcuda_ptr(blk, *(void **)p[1]);
  if (!in || !acc) return;
  size_t base = (size_t)blk->blockIdx.x * blk->blockDim.x;
  for (unsigned t = 0; t < blk->blockDim.x; t++) acc[base + t] += in[base + t];
}
static const uint16_t s3[] = {8, 8, 4}, a3[] = {8, 8, 4}, s2[] = {8, 4}, a2[] = {8, 4};
static const uint16_t s1[] = {8}, a1[] = {8}, s22[] = {8, 8}, a22[] = {8, 8};
static const simcuda_kernel_t kernels[] = {
    {"_Z5scalePKjPjj", scale_twin, 3, s3, a3},
    {"_Z11maybe_writePKji", maybe_write_twin, 2, s2, a2},
    {"_Z4pokePj", poke_twin, 1, s1, a1},
    {"_Z5accumPKjPj", accum_twin, 2, s22, a22},
};
static const simcuda_image_t image = {SIMCUDA_IMAGE_MAGIC, SIMCUDA_IMAGE_VERSION, 4, kernels};

static CUcontext ctx;
static CUfunction f_scale, f_maybe, f_poke, f_accum;

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
  CK(cuModuleGetFunction(&f_poke, mod, "_Z4pokePj"));
  CK(cuModuleGetFunction(&f_accum, mod, "_Z5accumPKjPj"));
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

/* A buffer at rest with one flipped bit, partly overwritten by op; then read back
 * whole. gpuft must correct the bit or report it, never take it in as data. */
static int rewrite(const char *op, long off, int bit) {
  simcuda_flip_now_fn flip = (simcuda_flip_now_fn)dlsym(RTLD_DEFAULT, "simcudaFlipNow");
  unsigned *h = malloc(N * 4), *want = malloc(N * 4), *back = malloc(N * 4);
  CUdeviceptr a;
  CK(cuMemAlloc(&a, N * 4));
  for (unsigned i = 0; i < N; i++) h[i] = want[i] = i * 0x9e3779b9u;
  CK(cuMemcpyHtoD(a, h, N * 4));
  CK(cuCtxSynchronize());
  if (!flip || flip(a + (uint64_t)off, (unsigned)bit, 0) != 0) return 2;
  if (!strcmp(op, "memset2d")) { /* 8 rows of 16 bytes, 256 apart */
    CK(cuMemsetD2D32(a, 256, 0x11111111u, 4, 8));
    for (int r = 0; r < 8; r++)
      for (int w = 0; w < 4; w++) want[r * 64 + w] = 0x11111111u;
  } else if (!strcmp(op, "copy2d")) {
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    unsigned src[32];
    for (int i = 0; i < 32; i++) src[i] = 0x5500u + (unsigned)i;
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcPitch = 16;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = a;
    c.dstPitch = 256;
    c.WidthInBytes = 16;
    c.Height = 8;
    CK(cuMemcpy2D(&c));
    for (int r = 0; r < 8; r++)
      for (int w = 0; w < 4; w++) want[r * 64 + w] = src[r * 4 + w];
  } else if (!strcmp(op, "writevalue")) {
    CK(cuStreamWriteValue32(0, a, 0x22222222u, 0));
    want[0] = 0x22222222u;
  } else if (!strcmp(op, "graph")) {
    CUgraph g;
    CUgraphNode node;
    CUgraphExec ge;
    void *params[] = {&a};
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = f_poke;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = params;
    CK(cuGraphCreate(&g, 0));
    CK(cuGraphAddKernelNode(&node, g, NULL, 0, &kp));
    CK(cuGraphInstantiate(&ge, g, 0));
    CK(cuGraphLaunch(ge, 0));
    want[0] = 0x33333333u;
  } else {
    return 2;
  }
  CUresult rs = cuCtxSynchronize();
  CUresult rr = cuMemcpyDtoH(back, a, N * 4);
  int wrong = 0;
  for (unsigned i = 0; i < N; i++) wrong += back[i] != want[i];
  printf("rewrite %s: sync %d, read %d, %d wrong\n", op, (int)rs, (int)rr, wrong);
  free(h);
  free(want);
  free(back);
  return wrong ? 1 : 0;
}

static unsigned *g_fn_src, *g_fn_dst;
static void CUDA_CB copy_fn(void *u) {
  (void)u;
  memcpy(g_fn_dst, g_fn_src, N * 4);
}

static int side(const char *kind) {
  unsigned *h = malloc(N * 4), *want = malloc(N * 4), *acc = NULL;
  CUdeviceptr in, dacc = 0;
  CK(cuMemAlloc(&in, N * 4));
  for (unsigned i = 0; i < N; i++) h[i] = i * 7u + 1u;
  CK(cuMemcpyHtoD(in, h, N * 4));
  int hostfn = !strcmp(kind, "hostfn");
  if (!strcmp(kind, "managed")) {
    CK(cuMemAllocManaged(&dacc, N * 4, CU_MEM_ATTACH_GLOBAL));
    acc = (unsigned *)(uintptr_t)dacc;
  } else if (!strcmp(kind, "mapped")) {
    CK(cuMemHostAlloc((void **)&acc, N * 4, CU_MEMHOSTALLOC_DEVICEMAP));
    CK(cuMemHostGetDevicePointer(&dacc, acc, 0));
  } else if (hostfn) {
    CK(cuMemAlloc(&dacc, N * 4));
    CK(cuMemAllocHost((void **)&g_fn_src, N * 4));
    g_fn_dst = acc = malloc(N * 4);
  } else {
    return 2;
  }
  unsigned k = 3;
  if (hostfn) {
    void *params[] = {&in, &dacc, &k};
    CK(cuLaunchKernel(f_scale, N / 256, 1, 1, 256, 1, 1, 0, 0, params, NULL));
    CK(cuMemcpyDtoHAsync(g_fn_src, dacc, N * 4, 0));
    CK(cuLaunchHostFunc(0, copy_fn, NULL)); /* the program acts on what it read back */
    for (unsigned i = 0; i < N; i++) want[i] = h[i] * k;
  } else {
    for (unsigned i = 0; i < N; i++) acc[i] = 1000u + i, want[i] = 1000u + i + h[i];
    void *params[] = {&in, &dacc};
    CK(cuLaunchKernel(f_accum, N / 256, 1, 1, 256, 1, 1, 0, 0, params, NULL));
  }
  CUresult r = cuCtxSynchronize();
  int wrong = 0;
  for (unsigned i = 0; i < N; i++) wrong += acc[i] != want[i];
  printf("side %s: sync %d, %d wrong\n", kind, (int)r, wrong);
  free(h);
  free(want);
  return wrong ? 1 : 0;
}

/* A synchronous read-back from managed memory, then the program takes the buffer
 * back; the final synchronisation replays the epoch (a flipped input of scale). */
static int takeback(const char *mode) {
  unsigned *h = malloc(N * 4), *back = malloc(N * 4), *seen = malloc(N * 4);
  CUdeviceptr in, out, m;
  CK(cuMemAlloc(&in, N * 4));
  CK(cuMemAlloc(&out, N * 4));
  CK(cuMemAllocManaged(&m, N * 4, CU_MEM_ATTACH_GLOBAL));
  unsigned *mh = (unsigned *)(uintptr_t)m;
  for (unsigned i = 0; i < N; i++) {
    h[i] = i * 2654435761u;
    mh[i] = i ^ 0xdeadbeefu;
  }
  CK(cuMemcpyHtoD(in, h, N * 4));
  unsigned k = 3;
  void *params[] = {&in, &out, &k};
  CK(cuLaunchKernel(f_scale, N / 256, 1, 1, 256, 1, 1, 0, 0, params, NULL));
  CK(cuMemcpyDtoH(seen, m, N * 4));
  int wrong = memcmp(seen, mh, N * 4) != 0;
  if (!strcmp(mode, "free")) {
    free(seen);
    seen = NULL;
  } else {
    memset(seen, 0xab, N * 4); /* the program's own use of its buffer */
  }
  if (!strcmp(mode, "change")) mh[7] ^= 1; /* the source the read-back came from changes */
  CUresult r = cuCtxSynchronize();
  for (unsigned i = 0; seen && i < N; i++)
    if (seen[i] != 0xababababu) {
      wrong++;
      break;
    }
  CK(cuMemcpyDtoH(back, out, N * 4));
  for (unsigned i = 0; i < N; i++)
    if (back[i] != h[i] * k) {
      wrong++;
      break;
    }
  printf("takeback %s: sync %d, %d wrong\n", mode, (int)r, wrong);
  free(h);
  free(back);
  free(seen);
  return wrong ? 1 : 0;
}

/* Memory the log since the snapshot needs, freed by the program (lifecycle.c). */
static int freed(int bits, int big) {
  simcuda_flip_now_fn flip = (simcuda_flip_now_fn)dlsym(RTLD_DEFAULT, "simcudaFlipNow");
  size_t n = big ? (6u << 20) / 4 : N;
  unsigned *h = malloc(n * 4), *back = malloc(n * 4);
  CUdeviceptr in, out, more = 0;
  CK(cuMemAlloc(&in, n * 4));
  CK(cuMemAlloc(&out, n * 4));
  for (size_t i = 0; i < n; i++) h[i] = (unsigned)i * 2654435761u;
  CK(cuMemcpyHtoD(in, h, n * 4));
  unsigned k = 3;
  void *params[] = {&in, &out, &k};
  CK(cuLaunchKernel(f_scale, (unsigned)(n / 256), 1, 1, 256, 1, 1, 0, 0, params, NULL));
  CK(cuCtxSynchronize());
  CK(cuMemFree(in));
  CUresult again = cuMemFree(in); /* a second free: the driver refuses it */
  if (big) CK(cuMemAlloc(&more, (5u << 20) + (1u << 19)));
  for (int b = 0; b < bits; b++)
    if (!flip || flip(out + 4096 + (uint64_t)b * 8, (unsigned)(b + 2) % 8, 0) != 0) return 2;
  CUresult r = cuMemcpyDtoH(back, out, n * 4);
  int wrong = 0;
  for (size_t i = 0; i < n && r == CUDA_SUCCESS; i++)
    if (back[i] != h[i] * k) {
      wrong++;
      break;
    }
  printf("freed: second free %d, read-back %d, %d wrong\n", (int)again, (int)r, wrong);
  for (int e = 0; e < 3 && r == CUDA_SUCCESS; e++) { /* epochs after it: snapshots can be taken */
    void *pp[] = {&out};
    CK(cuLaunchKernel(f_poke, 1, 1, 1, 1, 1, 1, 0, 0, pp, NULL));
    CK(cuCtxSynchronize());
  }
  if (more) CK(cuMemFree(more));
  free(h);
  free(back);
  return wrong || r != CUDA_SUCCESS ? 1 : 0;
}

/* A graph launch protected as its launches (issue 24): its input damaged at rest,
 * found after the launch read it, recovered by relaunching the graph, with the node
 * parameters each launch had: launch A, a new factor and the input flipped, launch
 * B, then both nodes changed (another factor, a new output) and launch C, one
 * synchronisation. */
static int graph(int bits, unsigned seed) {
  simcuda_flip_now_fn flip = (simcuda_flip_now_fn)dlsym(RTLD_DEFAULT, "simcudaFlipNow");
  unsigned *h = malloc(N * 4), *back = malloc(N * 4);
  CUdeviceptr in, out, out2, out3;
  CK(cuMemAlloc(&in, N * 4));
  CK(cuMemAlloc(&out, N * 4));
  CK(cuMemAlloc(&out2, N * 4));
  CK(cuMemAlloc(&out3, N * 4));
  CK(cuMemsetD32(out3, 0, N));
  for (unsigned i = 0; i < N; i++) h[i] = i * 2654435761u;
  CK(cuMemcpyHtoD(in, h, N * 4));
  unsigned k1 = 3, k2 = 5, k1a = 4, k1b = 7;
  void *p1[] = {&in, &out, &k1}, *p2[] = {&out, &out2, &k2}, *p1a[] = {&in, &out, &k1a};
  void *p1b[] = {&in, &out, &k1b}, *p2b[] = {&out, &out3, &k2};
  CUDA_KERNEL_NODE_PARAMS kp;
  memset(&kp, 0, sizeof kp);
  kp.func = f_scale;
  kp.gridDimX = N / 256, kp.gridDimY = kp.gridDimZ = 1;
  kp.blockDimX = 256, kp.blockDimY = kp.blockDimZ = 1;
  CUgraph g;
  CUgraphNode n1, n2;
  CUgraphExec ge;
  CK(cuGraphCreate(&g, 0));
  kp.kernelParams = p1;
  CK(cuGraphAddKernelNode(&n1, g, NULL, 0, &kp));
  kp.kernelParams = p2;
  CK(cuGraphAddKernelNode(&n2, g, &n1, 1, &kp));
  CK(cuGraphInstantiate(&ge, g, 0));
  int wrong = 0;
  CK(cuGraphLaunch(ge, 0)); /* A */
  CUresult r = cuCtxSynchronize();
  CK(cuMemcpyDtoH(back, out2, N * 4));
  for (unsigned i = 0; i < N; i++) wrong += back[i] != h[i] * 15u;
  kp.kernelParams = p1a; /* (changed in an earlier epoch than the launch) */
  CK(cuGraphExecKernelNodeSetParams(ge, n1, &kp));
  /* the bits: seed 0 picks fixed ones; others, a byte and bits drawn from the seed
   * (two bits in one 128-byte block, as the code must catch them) */
  uint64_t at = seed ? (uint64_t)(seed * 2654435761u) % (N * 4 - 128) : 4000;
  for (int b = 0; b < bits; b++)
    if (!flip || flip(in + at + (uint64_t)b * (seed ? 1 + seed % 64 : 8), (unsigned)((seed + 3 + b) % 8), 0) != 0)
      return 2;
  CK(cuGraphLaunch(ge, 0)); /* B: out2 = 20 in */
  kp.kernelParams = p1b;
  CK(cuGraphExecKernelNodeSetParams(ge, n1, &kp));
  kp.kernelParams = p2b;
  CK(cuGraphExecKernelNodeSetParams(ge, n2, &kp));
  CK(cuGraphLaunch(ge, 0)); /* C: out3 = 35 in */
  CUresult rs = cuCtxSynchronize();
  if (rs != CUDA_SUCCESS) r = rs;
  CK(cuMemcpyDtoH(back, out2, N * 4));
  for (unsigned i = 0; i < N; i++) wrong += back[i] != h[i] * 20u;
  CK(cuMemcpyDtoH(back, out3, N * 4));
  for (unsigned i = 0; i < N; i++) wrong += back[i] != h[i] * 35u;
  printf("graph %d: sync %d, %d wrong\n", bits, (int)r, wrong);
  CK(cuGraphExecDestroy(ge));
  CK(cuGraphDestroy(g));
  free(h);
  free(back);
  return wrong ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  setup();
  if (!strcmp(argv[1], "threads") && argc == 4) return threads(atoi(argv[2]), atoi(argv[3]));
  if (!strcmp(argv[1], "learn")) return learn();
  if (!strcmp(argv[1], "epochs")) return epochs();
  if (!strcmp(argv[1], "rewrite") && argc == 5) return rewrite(argv[2], atol(argv[3]), atoi(argv[4]));
  if (!strcmp(argv[1], "side") && argc == 3) return side(argv[2]);
  if (!strcmp(argv[1], "takeback") && argc == 3) return takeback(argv[2]);
  if (!strcmp(argv[1], "freed") && (argc == 3 || argc == 4)) return freed(atoi(argv[2]), argc == 4);
  if (!strcmp(argv[1], "graph") && (argc == 3 || argc == 4))
    return graph(atoi(argv[2]), argc == 4 ? (unsigned)atoi(argv[3]) : 0);
  return 2;
}
