/* test_unload.c: module and library lifetimes: an image the caller frees once the
 * load returns, a launch still queued when its module or library is unloaded (it
 * runs, with its code and module variables, as on a GPU), the handles a reset or
 * destroyed context leaves behind (refused, never followed), and CUkernel handles,
 * which outlive a reset of the primary context. */
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

/* A kernel with module variables: dst[i] = src[i] + ctab[i % 4]; hits counts the
 * threads that stored (so a launch that lost its variables faults or miscounts). */
static const char ptx_vars[] =
    ".version 7.5\n.target sm_75\n.address_size 64\n"
    ".global .align 4 .u32 hits = 0;\n"
    ".const .align 4 .b32 ctab[4] = {10, 20, 30, 40};\n"
    ".visible .entry addtab(.param .u64 src, .param .u64 dst, .param .u32 n)\n{\n"
    ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
    "mov.u32 %r0, %ctaid.x;\nmov.u32 %r1, %ntid.x;\nmov.u32 %r2, %tid.x;\nmad.lo.s32 %r3, %r0, %r1, %r2;\n"
    "ld.param.u32 %r4, [n];\nsetp.ge.u32 %p0, %r3, %r4;\n@%p0 bra END;\n"
    "ld.param.u64 %rd0, [src];\nld.param.u64 %rd1, [dst];\nmul.wide.u32 %rd2, %r3, 4;\n"
    "add.s64 %rd3, %rd0, %rd2;\nadd.s64 %rd4, %rd1, %rd2;\nld.global.u32 %r5, [%rd3];\n"
    "and.b32 %r6, %r3, 3;\nmul.wide.u32 %rd5, %r6, 4;\nmov.u64 %rd6, ctab;\nadd.s64 %rd6, %rd6, %rd5;\n"
    "ld.const.u32 %r7, [%rd6];\nadd.u32 %r5, %r5, %r7;\nst.global.u32 [%rd4], %r5;\n"
    "atom.global.add.u32 %r7, [hits], 1;\n"
    "END:\nret;\n}\n";

/* st_image copied to the heap (table, names, parameter arrays), to be freed and
 * scribbled over right after the load, as a program may. */
typedef struct {
  simcuda_image_t img;
  simcuda_kernel_t *k;
  uint16_t **arrays;
} heap_image_t;

static heap_image_t *heap_image(void) {
  heap_image_t *h = calloc(1, sizeof *h);
  unsigned n = st_image.n_kernels;
  ASSERT(h);
  h->img = st_image;
  h->k = calloc(n, sizeof *h->k);
  h->arrays = calloc(2 * n, sizeof *h->arrays);
  ASSERT(h->k && h->arrays);
  for (unsigned i = 0; i < n; i++) {
    const simcuda_kernel_t *k = &st_image.kernels[i];
    h->k[i] = *k;
    h->k[i].name = strdup(k->name);
    size_t bytes = (k->n_params ? k->n_params : 1) * sizeof(uint16_t);
    h->arrays[2 * i] = malloc(bytes);
    h->arrays[2 * i + 1] = malloc(bytes);
    ASSERT(h->k[i].name && h->arrays[2 * i] && h->arrays[2 * i + 1]);
    memcpy(h->arrays[2 * i], k->param_size, k->n_params * sizeof(uint16_t));
    memcpy(h->arrays[2 * i + 1], k->param_align, k->n_params * sizeof(uint16_t));
    h->k[i].param_size = h->arrays[2 * i];
    h->k[i].param_align = h->arrays[2 * i + 1];
  }
  h->img.kernels = h->k;
  return h;
}

static void heap_image_free(heap_image_t *h) {
  unsigned n = h->img.n_kernels;
  for (unsigned i = 0; i < n; i++) {
    memset((char *)h->k[i].name, 'x', strlen(h->k[i].name));
    free((char *)h->k[i].name);
    memset(h->arrays[2 * i], 0xff, (h->k[i].n_params ? h->k[i].n_params : 1) * sizeof(uint16_t));
    free(h->arrays[2 * i]);
    free(h->arrays[2 * i + 1]);
  }
  memset(h->k, 0xff, n * sizeof *h->k);
  free(h->k);
  free(h->arrays);
  memset(h, 0xff, sizeof *h);
  free(h);
}

static void expect_fill(CUdeviceptr d, unsigned n, unsigned v) {
  unsigned *h = malloc(n * sizeof *h);
  ASSERT(h);
  CK(cuMemcpyDtoH(h, d, n * sizeof *h));
  for (unsigned i = 0; i < n; i++)
    if (h[i] != v) FT_FAIL_("out[%u] = %u, expected %u", i, h[i], v);
  free(h);
}

/* fill(out, v, n) on stream s behind a closed gate: still queued when this returns. */
static void queue_fill(CUfunction f, CUstream s, st_gate_t *g, CUdeviceptr out, unsigned v, unsigned n) {
  CK(cuLaunchHostFunc(s, st_gate_fn, g));
  void *args[] = {&out, &v, &n};
  CK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, args, NULL));
}

/* addtab behind a closed gate; then the unload (by the caller); then the check. */
static void queue_addtab(CUfunction f, CUstream s, st_gate_t *g, CUdeviceptr src, CUdeviceptr dst, unsigned n) {
  CK(cuLaunchHostFunc(s, st_gate_fn, g));
  void *args[] = {&src, &dst, &n};
  CK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, args, NULL));
}

static void expect_addtab(CUdeviceptr dst, unsigned n) {
  unsigned *h = malloc(n * sizeof *h);
  ASSERT(h);
  CK(cuMemcpyDtoH(h, dst, n * sizeof *h));
  for (unsigned i = 0; i < n; i++)
    if (h[i] != i * 3 + 10 * (i % 4 + 1)) FT_FAIL_("dst[%u] = %u", i, h[i]);
  free(h);
}

TEST_IMPL(unload_with_queued_launch) {
  st_setup();
  const unsigned n = 1000;
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr out, src, dst;
  CK(cuMemAlloc(&out, n * 4));
  CK(cuMemAlloc(&src, n * 4));
  CK(cuMemAlloc(&dst, n * 4));
  unsigned *h = malloc(n * 4);
  ASSERT(h);
  for (unsigned i = 0; i < n; i++) h[i] = i * 3;
  CK(cuMemcpyHtoD(src, h, n * 4));
  free(h);

  /* A twin module whose image the program freed after the load: the driver copied it. */
  heap_image_t *hi = heap_image();
  CUmodule m;
  CK(cuModuleLoadData(&m, &hi->img));
  heap_image_free(hi);
  CUfunction f = st_func(m, ST_FILL);
  const char *name;
  CK(cuFuncGetName(&name, f));
  ASSERT_STR_EQ(name, ST_FILL);
  st_gate_t g1 = {0};
  queue_fill(f, s, &g1, out, 41, n);
  CK(cuModuleUnload(m)); /* the launch is still queued */
  ASSERT_CU(cuModuleGetFunction(&f, m, ST_FILL), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuFuncGetName(&name, f), CUDA_ERROR_INVALID_HANDLE);
  st_gate_open(&g1);
  CK(cuStreamSynchronize(s));
  expect_fill(out, n, 41);

  /* The same with a library: the runtime's way, the kernel launched as a function. */
  hi = heap_image();
  CUlibrary lib;
  CK(cuLibraryLoadData(&lib, &hi->img, NULL, NULL, 0, NULL, NULL, 0));
  heap_image_free(hi);
  CUkernel k;
  CK(cuLibraryGetKernel(&k, lib, ST_FILL));
  st_gate_t g2 = {0};
  queue_fill((CUfunction)k, s, &g2, out, 42, n);
  CK(cuLibraryUnload(lib));
  st_gate_open(&g2);
  CK(cuStreamSynchronize(s));
  expect_fill(out, n, 42);

  /* PTX with module variables: they live until the queued launch is done, then go. */
  simcuda_stats_t before = st_stats();
  CK(cuModuleLoadData(&m, ptx_vars));
  f = st_func(m, "addtab");
  st_gate_t g3 = {0};
  queue_addtab(f, s, &g3, src, dst, n);
  CK(cuModuleUnload(m));
  ASSERT_EQ(st_stats().frees, before.frees); /* hits and ctab are still in use */
  st_gate_open(&g3);
  CK(cuStreamSynchronize(s));
  expect_addtab(dst, n);
  ASSERT_EQ(st_stats().frees, before.frees + 2); /* released before the stream said done */

  CK(cuLibraryLoadData(&lib, ptx_vars, NULL, NULL, 0, NULL, NULL, 0));
  CK(cuLibraryGetKernel(&k, lib, "addtab"));
  CK(cuMemsetD32Async(dst, 0, n, s)); /* in the stream: a synchronous memset may run late */
  st_gate_t g4 = {0};
  queue_addtab((CUfunction)k, s, &g4, src, dst, n);
  CK(cuLibraryUnload(lib));
  st_gate_open(&g4);
  CK(cuStreamSynchronize(s));
  expect_addtab(dst, n);
  ASSERT_CU(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL), CUDA_ERROR_INVALID_HANDLE);

  /* A graph node keeps its function; destroying the graph after the unload is clean. */
  CK(cuModuleLoadData(&m, &st_image));
  f = st_func(m, ST_FILL);
  unsigned v = 7;
  void *fa[] = {&out, &v, (void *)&n};
  CUgraph gr;
  CK(cuGraphCreate(&gr, 0));
  CUDA_KERNEL_NODE_PARAMS p = {0};
  p.func = f;
  p.gridDimX = p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = 128, p.blockDimY = p.blockDimZ = 1;
  p.kernelParams = fa;
  CUgraphNode node;
  CK(cuGraphAddKernelNode(&node, gr, NULL, 0, &p));
  CK(cuModuleUnload(m));
  CK(cuGraphDestroy(gr));

  CK(cuCtxSynchronize());
  CK(cuStreamDestroy(s));
  CK(cuMemFree(out));
  CK(cuMemFree(src));
  CK(cuMemFree(dst));
  return TEST_OK;
}

TEST_IMPL(stale_handles_after_reset) {
  st_setup();
  const unsigned n = 256;
  CUmodule m, pm, lm2;
  CK(cuModuleLoadData(&m, &st_image));
  CK(cuModuleLoadData(&pm, ptx_vars));
  CUfunction f = st_func(m, ST_FILL), pf = st_func(pm, "addtab");
  CUdeviceptr g;
  size_t gs;
  CK(cuModuleGetGlobal(&g, &gs, pm, "hits"));
  CUlibrary lib;
  CK(cuLibraryLoadData(&lib, &st_image, NULL, NULL, 0, NULL, NULL, 0));
  CUkernel k;
  CK(cuLibraryGetKernel(&k, lib, ST_FILL));
  CUfunction kf, kf2;
  CK(cuKernelGetFunction(&kf, k));
  CUdeviceptr out;
  CK(cuMemAlloc(&out, n * 4));
  unsigned v = 5, nn = n;
  void *args[] = {&out, &v, &nn};
  CK(cuLaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  CK(cuLaunchKernel((CUfunction)k, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  /* Queued work is finished by the reset, which then destroys the context's
   * modules, functions and memory: their handles are refused (checked before any
   * new object could take an old handle's address). */
  CK(cuDevicePrimaryCtxReset(0));
  st_setup();
  ASSERT_CU(cuLaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuLaunchKernel(pf, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuLaunchKernel(kf, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
  const char *name;
  ASSERT_CU(cuFuncGetName(&name, f), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuModuleGetFunction(&f, m, ST_FILL), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuModuleGetGlobal(&g, &gs, pm, "hits"), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuModuleUnload(pm), CUDA_ERROR_INVALID_HANDLE);
  /* A library and its kernels belong to no context: the kernel runs in the new
   * primary context, from a module loaded there. */
  CK(cuMemAlloc(&out, n * 4));
  v = 6;
  CK(cuLaunchKernel((CUfunction)k, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  expect_fill(out, n, 6);
  CK(cuKernelGetFunction(&kf2, k));
  CK(cuLibraryGetModule(&lm2, lib));
  CUmodule fm;
  CK(cuFuncGetModule(&fm, kf2));
  ASSERT(fm == lm2);
  CK(cuLibraryUnload(lib));
  /* A function of a destroyed created context is refused in another context. */
  CUcontext c;
  CK(cuCtxCreate(&c, NULL, 0, 0));
  CK(cuModuleLoadData(&m, &st_image));
  f = st_func(m, ST_FILL);
  CK(cuCtxDestroy(c));
  st_setup();
  ASSERT_CU(cuLaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
  CK(cuMemFree(out));
  return TEST_OK;
}
