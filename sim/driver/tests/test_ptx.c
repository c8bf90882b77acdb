/* test_ptx.c: modules from PTX text through the driver API: kernels interpreted,
 * exact traffic counters, module variables with initialisers, faults becoming
 * the context's sticky error, kernels the interpreter cannot run refused by name. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

static const char ptx_copy[] =
    ".version 7.5\n.target sm_75\n.address_size 64\n"
    ".global .align 4 .u32 gcount = 5;\n"
    ".const .align 4 .b32 ctab[4] = {10, 20, 30, 40};\n"
    ".visible .entry copy(.param .u64 src, .param .u64 dst, .param .u32 n)\n{\n"
    ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
    "mov.u32 %r0, %ctaid.x;\nmov.u32 %r1, %ntid.x;\nmov.u32 %r2, %tid.x;\nmad.lo.s32 %r3, %r0, %r1, %r2;\n"
    "ld.param.u32 %r4, [n];\nsetp.ge.u32 %p0, %r3, %r4;\n@%p0 bra END;\n"
    "ld.param.u64 %rd0, [src];\nld.param.u64 %rd1, [dst];\nmul.wide.u32 %rd2, %r3, 4;\n"
    "add.s64 %rd3, %rd0, %rd2;\nadd.s64 %rd4, %rd1, %rd2;\nld.global.u32 %r5, [%rd3];\n"
    "and.b32 %r6, %r3, 3;\nmul.wide.u32 %rd5, %r6, 4;\nmov.u64 %rd6, ctab;\nadd.s64 %rd6, %rd6, %rd5;\n"
    "ld.const.u32 %r7, [%rd6];\nadd.u32 %r5, %r5, %r7;\nst.global.u32 [%rd4], %r5;\n"
    "atom.global.add.u32 %r7, [gcount], 1;\n"
    "END:\nret;\n}\n"
    ".visible .entry bad(.param .u64 p)\n{\n.reg .b32 %r<4>;\nbar.arrive 1, 64;\nret;\n}\n";

/* Device buffers of n words for copy: src holding i * k, dst. */
static void copy_buffers(unsigned n, unsigned k, CUdeviceptr *src, CUdeviceptr *dst) {
  CK(cuMemAlloc(src, (size_t)n * 4));
  CK(cuMemAlloc(dst, (size_t)n * 4));
  uint32_t *h = malloc((size_t)n * 4);
  if (!h) abort();
  for (unsigned i = 0; i < n; i++) h[i] = i * k;
  CK(cuMemcpyHtoD(*src, h, (size_t)n * 4));
  free(h);
}

/* Launches copy over n words of src (word i holding i * k): checks the bytes it
 * loaded (src and the constant table) and stored (dst and the atomic counter), the
 * atomic count in gcount (at g) and dst; returns the launch's counters. */
static simcuda_stats_t copy_checked(CUfunction f, CUdeviceptr g, CUdeviceptr src, CUdeviceptr dst, unsigned n,
                                    unsigned k) {
  simcuda_get_stats_fn get = (simcuda_get_stats_fn)dlsym(RTLD_DEFAULT, "simcudaGetStats");
  simcuda_reset_stats_fn reset = (simcuda_reset_stats_fn)dlsym(RTLD_DEFAULT, "simcudaResetStats");
  if (!get || !reset) FT_FAIL_("simcudaGetStats/simcudaResetStats not found");
  uint32_t zero = 0, cnt;
  CK(cuMemcpyHtoD(g, &zero, 4));
  reset();
  void *args[] = {&src, &dst, &n};
  CK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  simcuda_stats_t s;
  get(&s);
  /* n loads of src and of the constant table, n stores to dst, n atomics (load + store). */
  ASSERT_EQ(s.kernel_bytes_loaded, (uint64_t)n * 4 * 3);
  ASSERT_EQ(s.kernel_bytes_stored, (uint64_t)n * 4 * 2);
  CK(cuMemcpyDtoH(&cnt, g, 4));
  ASSERT_EQ(cnt, n);
  uint32_t *h = malloc((size_t)n * 4);
  if (!h) abort();
  CK(cuMemcpyDtoH(h, dst, (size_t)n * 4));
  for (unsigned i = 0; i < n; i++) ASSERT_EQ(h[i], i * k + 10 * (i % 4 + 1));
  free(h);
  return s;
}

/* SIMCUDA_SM: the compute capability the device presents (89 by default), and the
 * newest PTX target it runs: with 120 a module of `.target sm_120` loads and runs. */
TEST_IMPL(ptx_target_follows_simcuda_sm) {
  setenv("SIMCUDA_SM", "120", 1); /* read at cuInit */
  st_setup();
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  int major = 0, minor = -1;
  CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  ASSERT_EQ(major, 12);
  ASSERT_EQ(minor, 0);
  char name[64];
  CK(cuDeviceGetName(name, sizeof name, dev));
  ASSERT(strstr(name, "(sm_120)") != NULL);
  static char ptx120[sizeof ptx_copy + 16];
  const char *body = strstr(ptx_copy, ".address_size");
  snprintf(ptx120, sizeof ptx120, ".version 8.7\n.target sm_120\n%s", body);
  CUmodule m;
  CK(cuModuleLoadData(&m, ptx120));
  CUfunction f = st_func(m, "copy");
  int pv = 0;
  CK(cuFuncGetAttribute(&pv, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
  ASSERT_EQ(pv, 120);
  CUdeviceptr g, src, dst;
  size_t gb;
  CK(cuModuleGetGlobal(&g, &gb, m, "gcount"));
  copy_buffers(1000, 3, &src, &dst);
  copy_checked(f, g, src, dst, 1000, 3);
  CK(cuMemFree(src));
  CK(cuMemFree(dst));
  CK(cuModuleUnload(m));
  return TEST_OK;
}

TEST_IMPL(ptx_counters_and_globals) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, ptx_copy));
  CUfunction f = st_func(m, "copy");
  /* the PTX target its code came from, and the device's binary version (CUB picks
   * its tuning policies by the first: with the device's, NVIDIA's radixSortThrust
   * launched kernels of a policy it had not compiled) */
  int pv = 0, bv = 0;
  CK(cuFuncGetAttribute(&pv, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
  CK(cuFuncGetAttribute(&bv, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f));
  ASSERT_EQ(pv, 75);
  ASSERT_EQ(bv, 89);
  size_t off, size;
  CK(cuFuncGetParamInfo(f, 2, &off, &size));
  ASSERT_EQ(off, 16u);
  ASSERT_EQ(size, 4u);
  CUdeviceptr g;
  size_t gs;
  CK(cuModuleGetGlobal(&g, &gs, m, "gcount"));
  ASSERT_EQ(gs, 4u);
  simcuda_get_traffic_fn traffic = (simcuda_get_traffic_fn)dlsym(RTLD_DEFAULT, "simcudaGetTraffic");
  ASSERT(traffic);
  for (unsigned n = 1; n < 3000; n = n * 3 + 7) {
    CUdeviceptr src, dst;
    copy_buffers(n, 3, &src, &dst);
    simcuda_stats_t s = copy_checked(f, g, src, dst, n, 3);
    ASSERT_EQ(s.kernels_interpreted, 1u);
    uint64_t base, asize, ld, st;
    ASSERT_EQ(traffic(src + 4 * (n / 2), &base, &asize, &ld, &st), 0);
    ASSERT_EQ(base, src);
    ASSERT_EQ(asize, (uint64_t)n * 4);
    ASSERT_EQ(ld, (uint64_t)n * 4);
    ASSERT_EQ(st, 0u);
    ASSERT_EQ(traffic(dst, NULL, NULL, &ld, &st), 0);
    ASSERT_EQ(ld, 0u);
    ASSERT_EQ(st, (uint64_t)n * 4);
    ASSERT_EQ(traffic(g, NULL, NULL, &ld, &st), 0);
    ASSERT_EQ(ld, (uint64_t)n * 4);
    ASSERT_EQ(st, (uint64_t)n * 4);
    CK(cuMemFree(src));
    CK(cuMemFree(dst));
  }
  /* An instruction the interpreter lacks: refused at the launch. */
  CUfunction b = st_func(m, "bad");
  CUdeviceptr p = 0;
  void *bargs[] = {&p};
  ASSERT_CU(cuLaunchKernel(b, 1, 1, 1, 32, 1, 1, 0, NULL, bargs, NULL), CUDA_ERROR_NOT_SUPPORTED);
  CK(cuModuleUnload(m));
  return TEST_OK;
}

/* SIMCUDA_THREADS=4 (more threads than this machine's cores): the blocks of one
 * launch run on the driver's pool at once, and the kernel's global atomic counter,
 * its results and the traffic counters are as exact as on one thread. */
TEST_IMPL(ptx_blocks_on_threads) {
  setenv("SIMCUDA_THREADS", "4", 1);
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, ptx_copy));
  CUfunction f = st_func(m, "copy");
  CUdeviceptr g, src, dst;
  CK(cuModuleGetGlobal(&g, NULL, m, "gcount"));
  unsigned n = 200000; /* 1563 blocks */
  copy_buffers(n, 7, &src, &dst);
  for (int rep = 0; rep < 3; rep++) copy_checked(f, g, src, dst, n, 7);
  CK(cuMemFree(src));
  CK(cuMemFree(dst));
  CK(cuModuleUnload(m));
  return TEST_OK;
}

TEST_IMPL(ptx_fault_is_sticky) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, ptx_copy));
  CUfunction f = st_func(m, "copy");
  CUdeviceptr src;
  CK(cuMemAlloc(&src, 256));
  CUdeviceptr dst = src + 4096 * 64; /* no allocation there */
  unsigned n = 64;
  void *args[] = {&src, &dst, &n};
  CK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  ASSERT_CU(cuMemAlloc(&src, 256), CUDA_ERROR_ILLEGAL_ADDRESS);
  CK(cuDevicePrimaryCtxReset(0));
  return TEST_OK;
}
