/* test_launch.c: kernels: image loading and rejection, launches with kernelParams
 * and the packed `extra` buffer, multi-dimensional grids, dynamic shared memory,
 * CUkernel handles (libraries), cuLaunchKernelEx, parameter info, launch errors,
 * the sticky illegal-address error, graphs. */
#include <stdlib.h>

#include "simtest.h"

static void vecadd_check(CUfunction f, int n, bool packed, CUstream s) {
  CUdeviceptr a, b, c;
  size_t bytes = (size_t)n * sizeof(float);
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemAlloc(&b, bytes));
  CK(cuMemAlloc(&c, bytes));
  float *x = malloc(bytes), *y = malloc(bytes), *z = malloc(bytes);
  for (int i = 0; i < n; i++) {
    x[i] = (float)i;
    y[i] = (float)(2 * i + 1);
  }
  CK(cuMemcpyHtoD(a, x, bytes));
  CK(cuMemcpyHtoD(b, y, bytes));
  unsigned blocks = (unsigned)(n + 127) / 128;
  if (!packed) {
    void *args[] = {&a, &b, &c, &n};
    CK(cuLaunchKernel(f, blocks, 1, 1, 128, 1, 1, 0, s, args, NULL));
  } else {
    struct { CUdeviceptr a, b, c; int n; } buf = {a, b, c, n};
    size_t size = sizeof buf;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CK(cuLaunchKernel(f, blocks, 1, 1, 128, 1, 1, 0, s, NULL, extra));
    buf.n = 0; /* arguments were copied at the call */
  }
  CK(cuMemcpyDtoHAsync(z, c, bytes, s));
  CK(cuStreamSynchronize(s));
  for (int i = 0; i < n; i++)
    if (z[i] != (float)(3 * i + 1)) FT_FAIL_("n %d packed %d: z[%d] = %g", n, packed, i, z[i]);
  CK(cuMemFree(a));
  CK(cuMemFree(b));
  CK(cuMemFree(c));
  free(x);
  free(y);
  free(z);
}

TEST_IMPL(launch_twins) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction f = st_func(m, ST_VECADD);
  CUstream s;
  CK(cuStreamCreate(&s, 0));
  int sizes[] = {1, 127, 128, 129, 1000, 100000};
  for (int i = 0; i < 6; i++)
    for (int packed = 0; packed < 2; packed++) vecadd_check(f, sizes[i], packed, i % 2 ? s : NULL);
  /* Dynamic shared memory: per block, with the size asked for. */
  CUfunction rev = st_func(m, ST_SHARED);
  unsigned bx = 64, gx = 7;
  CUdeviceptr out;
  CK(cuMemAlloc(&out, gx * bx * sizeof(unsigned)));
  void *args[] = {&out};
  CK(cuLaunchKernel(rev, gx, 1, 1, bx, 1, 1, bx * sizeof(unsigned), NULL, args, NULL));
  unsigned back[7 * 64];
  CK(cuMemcpyDtoH(back, out, sizeof back));
  for (unsigned b = 0; b < gx; b++)
    for (unsigned t = 0; t < bx; t++) ASSERT_EQ(back[b * bx + t], b * 1000 + (bx - 1 - t));
  /* Over 48 KiB needs the opt-in attribute. */
  ASSERT_CU(cuLaunchKernel(rev, 1, 1, 1, 32, 1, 1, 64 << 10, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
  CK(cuFuncSetAttribute(rev, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 << 10));
  CK(cuLaunchKernel(rev, 1, 1, 1, 32, 1, 1, 64 << 10, NULL, args, NULL));
  ASSERT_CU(cuFuncSetAttribute(rev, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200 << 10),
            CUDA_ERROR_INVALID_VALUE);
  int v;
  CK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, rev));
  ASSERT_EQ(v, 64 << 10);
  /* A 3-D grid: every element written exactly once. */
  CUfunction fill = st_func(m, ST_FILL);
  unsigned n = 3 * 2 * 2 * 32, val = 9;
  CK(cuMemsetD32(out, 0, gx * bx));
  void *fargs[] = {&out, &val, &n};
  CK(cuLaunchKernel(fill, 12, 1, 1, 32, 1, 1, 0, NULL, fargs, NULL));
  CK(cuMemcpyDtoH(back, out, sizeof back));
  for (unsigned i = 0; i < gx * bx; i++) ASSERT_EQ(back[i], i < n ? 9u : 0u);
  /* cuLaunchKernelEx and cooperative launches. */
  val = 11;
  CUlaunchAttribute at = {.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE, .value.cooperative = 1};
  CUlaunchConfig cfg = {.gridDimX = 12, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32, .blockDimY = 1,
                        .blockDimZ = 1, .hStream = s, .attrs = &at, .numAttrs = 1};
  CK(cuLaunchKernelEx(&cfg, fill, fargs, NULL));
  CK(cuStreamSynchronize(s));
  CK(cuMemcpyDtoH(back, out, sizeof back));
  ASSERT_EQ(back[n - 1], 11u);
  val = 12;
  CK(cuLaunchCooperativeKernel(fill, 12, 1, 1, 32, 1, 1, 0, NULL, fargs));
  CK(cuMemcpyDtoH(back, out, sizeof back));
  ASSERT_EQ(back[0], 12u);
  /* A cooperative grid must be resident all at once: at most the occupancy the
   * driver reports times the multiprocessors; the grid of 12 above fits. */
  int per_sm = 0, sms = 0;
  CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fill, 32, 0));
  CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
  ASSERT_EQ(per_sm * sms, 24 * 128);
  ASSERT_CU(cuLaunchCooperativeKernel(fill, (unsigned)(per_sm * sms) + 1, 1, 1, 32, 1, 1, 0, NULL, fargs),
            CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  ASSERT_CU(cuLaunchCooperativeKernel(fill, 16, 16, 16, 32, 1, 1, 0, NULL, fargs), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fill, 1024, 0));
  ASSERT_EQ(per_sm, 1);
  ASSERT_CU(cuLaunchCooperativeKernel(fill, 129, 1, 1, 1024, 1, 1, 0, NULL, fargs), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  cfg.gridDimX = 129, cfg.blockDimX = 1024;
  ASSERT_CU(cuLaunchKernelEx(&cfg, fill, fargs, NULL), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  at.value.cooperative = 0; /* not cooperative: any grid */
  CK(cuLaunchKernelEx(&cfg, fill, fargs, NULL));
  CK(cuStreamSynchronize(s));
  CK(cuCtxSynchronize());
  /* Invalid configurations. */
  ASSERT_CU(cuLaunchKernel(fill, 0, 1, 1, 32, 1, 1, 0, NULL, fargs, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLaunchKernel(fill, 1, 1, 1, 1025, 1, 1, 0, NULL, fargs, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLaunchKernel(fill, 1, 1, 1, 32, 32, 2, 0, NULL, fargs, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLaunchKernel(fill, 1, 65536, 1, 32, 1, 1, 0, NULL, fargs, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLaunchKernel(fill, 1, 1, 1, 1, 1, 65, 0, NULL, fargs, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
  size_t small = 4;
  void *extra_small[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, fargs, CU_LAUNCH_PARAM_BUFFER_SIZE, &small,
                         CU_LAUNCH_PARAM_END};
  ASSERT_CU(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, extra_small), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, NULL, fargs, extra_small), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLaunchKernel((CUfunction)&v, 1, 1, 1, 32, 1, 1, 0, NULL, fargs, NULL), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, (CUstream)&v, fargs, NULL), CUDA_ERROR_INVALID_HANDLE);
  CK(cuMemFree(out));
  CK(cuStreamDestroy(s));
  CK(cuModuleUnload(m));
  ASSERT_CU(cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, NULL, fargs, NULL), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
  return TEST_OK;
}

TEST_IMPL(modules_and_params) {
  st_setup();
  CUmodule m;
  uint32_t fatbin[4] = {0xba55ed50u, 0x00010001u, 0, 0};
  uint32_t wrapper[4] = {0x466243b1u, 1, 0, 0};
  char ptx[] = ".version 8.0\n.target sm_89\n";
  ASSERT_CU(cuModuleLoadData(&m, fatbin), CUDA_ERROR_NO_BINARY_FOR_GPU);
  ASSERT_CU(cuModuleLoadFatBinary(&m, wrapper), CUDA_ERROR_NO_BINARY_FOR_GPU);
  /* PTX text for this device is a module (here without kernels), as on a driver. */
  CK(cuModuleLoadData(&m, ptx));
  CK(cuModuleUnload(m));
  char junk[] = "not an image";
  ASSERT_CU(cuModuleLoadData(&m, junk), CUDA_ERROR_INVALID_IMAGE);
  ASSERT_CU(cuModuleLoadData(&m, NULL), CUDA_ERROR_INVALID_VALUE);
  simcuda_image_t badver = st_image;
  badver.version = 99;
  ASSERT_CU(cuModuleLoadData(&m, &badver), CUDA_ERROR_INVALID_IMAGE);
  CK(cuModuleLoadDataEx(&m, &st_image, 0, NULL, NULL));
  CUfunction f;
  ASSERT_CU(cuModuleGetFunction(&f, m, "_Z7missingv"), CUDA_ERROR_NOT_FOUND);
  CUdeviceptr g;
  size_t gs;
  ASSERT_CU(cuModuleGetGlobal(&g, &gs, m, "sym"), CUDA_ERROR_NOT_FOUND);
  f = st_func(m, ST_MIXED);
  const char *name;
  CK(cuFuncGetName(&name, f));
  ASSERT_STR_EQ(name, ST_MIXED);
  CUmodule fm;
  CK(cuFuncGetModule(&fm, f));
  ASSERT(fm == m);
  /* (char, double, int, void *, short): offsets by the CUDA ABI. */
  static const size_t want_off[] = {0, 8, 16, 24, 32}, want_size[] = {1, 8, 4, 8, 2};
  for (size_t i = 0; i < 5; i++) {
    size_t off, size;
    CK(cuFuncGetParamInfo(f, i, &off, &size));
    ASSERT_EQ(off, want_off[i]);
    ASSERT_EQ(size, want_size[i]);
  }
  size_t off, size;
  ASSERT_CU(cuFuncGetParamInfo(f, 5, &off, &size), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuFuncGetParamInfo((CUfunction)&off, 0, &off, &size), CUDA_ERROR_INVALID_HANDLE);
  /* The packed buffer laid out from the param info reaches the twin intact. */
  CUdeviceptr out;
  CK(cuMemAlloc(&out, 64));
  uint8_t buf[40] = {0};
  char c = 'x';
  double d = 3.25;
  int iv = -7;
  short sv = 1234;
  memcpy(buf + 0, &c, 1);
  memcpy(buf + 8, &d, 8);
  memcpy(buf + 16, &iv, 4);
  memcpy(buf + 24, &out, 8);
  memcpy(buf + 32, &sv, 2);
  size_t bs = 34;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &bs, CU_LAUNCH_PARAM_END};
  CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
  struct { char c; double d; int i; short s; } res;
  CK(cuMemcpyDtoH(&res, out, sizeof res));
  ASSERT_EQ(res.c, 'x');
  ASSERT(res.d == 3.25);
  ASSERT_EQ(res.i, -7);
  ASSERT_EQ(res.s, 1234);
  /* Libraries and CUkernel handles (launched directly, as CUDA 12+ runtimes do). */
  CUlibrary lib;
  CK(cuLibraryLoadData(&lib, &st_image, NULL, NULL, 0, NULL, NULL, 0));
  unsigned count;
  CK(cuLibraryGetKernelCount(&count, lib));
  ASSERT_EQ(count, st_image.n_kernels);
  CUkernel k;
  CK(cuLibraryGetKernel(&k, lib, ST_MIXED));
  CK(cuKernelGetName(&name, k));
  ASSERT_STR_EQ(name, ST_MIXED);
  for (size_t i = 0; i < 5; i++) {
    CK(cuKernelGetParamInfo(k, i, &off, &size));
    ASSERT_EQ(off, want_off[i]);
    ASSERT_EQ(size, want_size[i]);
    CK(cuFuncGetParamInfo((CUfunction)k, i, &off, &size));
    ASSERT_EQ(off, want_off[i]);
  }
  ASSERT_CU(cuKernelGetParamInfo(k, 5, &off, &size), CUDA_ERROR_INVALID_VALUE);
  CUfunction kf, kf2;
  CK(cuKernelGetFunction(&kf, k));
  CK(cuKernelGetFunction(&kf2, k));
  ASSERT(kf == kf2);
  CUmodule lm;
  CK(cuLibraryGetModule(&lm, lib));
  CK(cuFuncGetModule(&fm, kf));
  ASSERT(fm == lm);
  c = 'k';
  void *args[] = {&c, &d, &iv, &out, &sv};
  CK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
  CK(cuMemcpyDtoH(&res, out, sizeof res));
  ASSERT_EQ(res.c, 'k');
  c = 'f';
  CK(cuLaunchKernel(kf, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
  CK(cuMemcpyDtoH(&res, out, sizeof res));
  ASSERT_EQ(res.c, 'f');
  int attr;
  CK(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 80000, k, 0));
  CK(cuKernelGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k, 0));
  ASSERT_EQ(attr, 80000);
  CK(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, kf));
  ASSERT_EQ(attr, 80000);
  CK(cuLibraryUnload(lib));
  ASSERT_CU(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuKernelGetName(&name, k), CUDA_ERROR_INVALID_HANDLE);
  CK(cuMemFree(out));
  CK(cuModuleUnload(m));
  return TEST_OK;
}

TEST_IMPL(illegal_address_sticky) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction bad = st_func(m, ST_BAD);
  CUdeviceptr d, freed;
  CK(cuMemAlloc(&d, 64));
  CK(cuMemAlloc(&freed, 64));
  CK(cuMemFree(freed));
  void *args[] = {&d};
  CK(cuLaunchKernel(bad, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL)); /* valid pointer */
  CK(cuCtxSynchronize());
  args[0] = &freed; /* a freed pointer in a kernel: the GPU faults */
  CK(cuLaunchKernel(bad, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  /* Sticky: the context is unusable. */
  CUdeviceptr p;
  ASSERT_CU(cuMemAlloc(&p, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
  ASSERT_CU(cuStreamSynchronize(NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
  ASSERT_CU(cuLaunchKernel(bad, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
  /* A reset of the primary context recovers. */
  CK(cuDevicePrimaryCtxReset(0));
  st_setup();
  CK(cuMemAlloc(&p, 16));
  CK(cuMemFree(p));
  return TEST_OK;
}

TEST_IMPL(graph_kernel_nodes) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction fill = st_func(m, ST_FILL), copy = st_func(m, ST_COPY);
  unsigned n = 1000, v = 77;
  CUdeviceptr a, b;
  CK(cuMemAlloc(&a, n * 4));
  CK(cuMemAlloc(&b, n * 4));
  size_t bytes = n * 4;
  void *fa[] = {&a, &v, &n}, *ca[] = {&a, &b, &bytes};
  CUgraph g;
  CK(cuGraphCreate(&g, 0));
  CUDA_KERNEL_NODE_PARAMS p = {0};
  p.func = fill;
  p.gridDimX = 8; p.gridDimY = 1; p.gridDimZ = 1;
  p.blockDimX = 128; p.blockDimY = 1; p.blockDimZ = 1;
  p.kernelParams = fa;
  CUgraphNode n1, n2;
  CK(cuGraphAddKernelNode(&n1, g, NULL, 0, &p));
  p.func = copy;
  p.kernelParams = ca;
  CK(cuGraphAddKernelNode(&n2, g, &n1, 1, &p));
  v = 0; /* captured at node creation */
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  for (int rep = 0; rep < 2; rep++) {
    CK(cuMemsetD32(b, 0, n));
    CK(cuGraphLaunch(e, NULL));
    unsigned back[1000];
    CK(cuMemcpyDtoH(back, b, sizeof back));
    for (unsigned i = 0; i < n; i++) ASSERT_EQ(back[i], 77u);
  }
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));
  CK(cuMemFree(a));
  CK(cuMemFree(b));
  return TEST_OK;
}
