/* test_procaddr.c: reaching the driver the real way: dlopen("libcuda.so.1") from
 * SIMCUDA_LIB_DIR + cuGetProcAddress(_v2), versions, per-thread flag, unknown names. */
#define _GNU_SOURCE
#include <cudaTypedefs.h>
#include <dlfcn.h>

#include "simtest.h"

static void *open_driver(void) {
  void *h = dlopen(SIMCUDA_LIB_DIR "/libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) FT_FAIL_("dlopen: %s", dlerror());
  return h;
}

typedef struct {
  const char *symbol;
  int version;
  cuuint64_t flags;
  const char *expect; /* exported name, or NULL: not found */
  CUdriverProcAddressQueryResult status;
} case_t;

TEST_IMPL(procaddr_versions) {
  void *h = open_driver();
  PFN_cuGetProcAddress_v12000 gpa;
  *(void **)&gpa = dlsym(h, "cuGetProcAddress_v2");
  ASSERT(gpa != NULL);
  const cuuint64_t PT = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, LEG = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
  const CUdriverProcAddressQueryResult OK = CU_GET_PROC_ADDRESS_SUCCESS,
                                       VNS = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
                                       SNF = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  static const case_t cases[] = {
      {"cuInit", 2000, 0, "cuInit", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuInit", 13000, 0, "cuInit", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuInit", 1000, 0, NULL, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT},
      {"cuMemAlloc", 13000, 0, "cuMemAlloc_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuMemAlloc", 3020, 0, "cuMemAlloc_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuMemAlloc", 3010, 0, NULL, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT}, /* v1 ABI: not simulated */
      {"cuMemAlloc", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuMemAlloc_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuMemcpyHtoDAsync", 13000, 0, "cuMemcpyHtoDAsync_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuMemcpyHtoDAsync", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuMemcpyHtoDAsync_v2_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuMemcpyHtoDAsync", 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, "cuMemcpyHtoDAsync_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuMemcpyHtoDAsync", 6050, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuMemcpyHtoDAsync_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuMemcpyHtoD_v2_ptds", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuMemcpy", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuMemcpy_ptds", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuLaunchKernel", 13000, 0, "cuLaunchKernel", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuLaunchKernel_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuLaunchKernelEx", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuLaunchKernelEx_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuLaunchKernelEx", 11050, 0, NULL, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT},
      {"cuStreamSynchronize", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuStreamSynchronize_ptsz", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuCtxCreate", 13000, 0, "cuCtxCreate_v4", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuCtxCreate", 12000, 0, "cuCtxCreate_v3", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuCtxCreate", 11000, 0, "cuCtxCreate_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuCtxSynchronize", 12080, 0, "cuCtxSynchronize", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuEventElapsedTime", 13000, 0, "cuEventElapsedTime_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuEventElapsedTime", 12000, 0, "cuEventElapsedTime", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuDeviceGetUuid", 11000, 0, "cuDeviceGetUuid", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuDeviceGetUuid", 12000, 0, "cuDeviceGetUuid_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuStreamDestroy", 13000, 0, "cuStreamDestroy_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuStreamDestroy", 3020, 0, NULL, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT},
      {"cuGetProcAddress", 13000, 0, "cuGetProcAddress_v2", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuGetProcAddress", 11030, 0, "cuGetProcAddress", CU_GET_PROC_ADDRESS_SUCCESS},
      {"cuMemAlloc_v2", 13000, 0, NULL, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND},
      {"cuNoSuchFunction", 13000, 0, NULL, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND},
      {"", 13000, 0, NULL, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND},
  };
  (void)PT; (void)LEG; (void)OK; (void)VNS; (void)SNF;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const case_t *c = &cases[i];
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)99;
    CUresult r = gpa(c->symbol, &fn, c->version, c->flags, &st);
    if (c->expect) {
      void *want = dlsym(h, c->expect);
      if (r != CUDA_SUCCESS || fn != want || !want || st != c->status)
        FT_FAIL_("case %zu %s@%d flags %llu: r=%d fn=%p want %s=%p status %d", i, c->symbol, c->version,
                 (unsigned long long)c->flags, (int)r, fn, c->expect, want, (int)st);
    } else {
      if (r != CUDA_ERROR_NOT_FOUND || fn != NULL || st != c->status)
        FT_FAIL_("case %zu %s@%d: r=%d fn=%p status %d, expected NOT_FOUND/%d", i, c->symbol, c->version, (int)r,
                 fn, (int)st, (int)c->status);
    }
  }
  /* The 11.3 ABI without the status argument. */
  PFN_cuGetProcAddress_v11030 gpa1;
  *(void **)&gpa1 = dlsym(h, "cuGetProcAddress");
  void *fn = NULL;
  ASSERT_CU(gpa1("cuMemFree", &fn, 13000, 0), CUDA_SUCCESS);
  ASSERT(fn == dlsym(h, "cuMemFree_v2"));
  ASSERT_CU(gpa1("cuMemFree", &fn, 13000, 4), CUDA_ERROR_INVALID_VALUE); /* unknown flag */
  ASSERT_CU(gpa(NULL, &fn, 13000, 0, NULL), CUDA_ERROR_INVALID_VALUE);
  /* Entry points found this way work. */
  PFN_cuInit_v2000 init;
  PFN_cuDriverGetVersion_v2020 ver;
  ASSERT_CU(gpa("cuInit", (void **)&init, 13000, 0, NULL), CUDA_SUCCESS);
  ASSERT_CU(gpa("cuDriverGetVersion", (void **)&ver, 13000, 0, NULL), CUDA_SUCCESS);
  int v = 0;
  ASSERT_CU(ver(&v), CUDA_SUCCESS);
  ASSERT_EQ(v, 13000);
  ASSERT_CU(init(0), CUDA_SUCCESS);
  PFN_cuGetExportTable_v3000 get;
  ASSERT_CU(gpa("cuGetExportTable", (void **)&get, 13000, 0, NULL), CUDA_SUCCESS);
  const void *tab = (void *)1;
  CUuuid id = {{0}};
  ASSERT_CU(get(&tab, &id), CUDA_ERROR_INVALID_VALUE); /* not a table the driver has */
  ASSERT(tab == NULL);
  /* A table the static runtime needs: its first word is its size, and a slot the
   * simulator does not emulate fails (naming itself on stderr). */
  static const CUuuid cudart_if = {{0x6b, (char)0xd5, (char)0xfb, 0x6c, 0x5b, (char)0xf4, (char)0xe7, 0x4a,
                                    (char)0x89, (char)0x87, (char)0xd9, 0x39, 0x12, (char)0xfd, (char)0x9d, (char)0xf9}};
  ASSERT_CU(get(&tab, &cudart_if), CUDA_SUCCESS);
  ASSERT(tab != NULL && ((const uintptr_t *)tab)[0] == 10 * sizeof(void *));
  CUresult (*slot1)(void) = (CUresult(*)(void))((void *const *)tab)[1];
  ASSERT_CU(slot1(), CUDA_ERROR_NOT_SUPPORTED);
  /* Only cu* and simcuda* are exported. */
  ASSERT(dlsym(h, "sim_mem_find") == NULL);
  ASSERT(dlsym(h, "sim_opt") == NULL);
  ASSERT(dlsym(h, "simcudaInject") != NULL);
  return TEST_OK;
}

/* Every name the table answers for resolves to an exported symbol of the same name
 * family (a smoke test over all of them at the newest version, both flags). */
TEST_IMPL(procaddr_all_names) {
  void *h = open_driver();
  PFN_cuGetProcAddress_v12000 gpa;
  *(void **)&gpa = dlsym(h, "cuGetProcAddress_v2");
  static const char *names[] = {"cuMemAlloc", "cuMemFree", "cuMemcpyDtoH", "cuMemcpyDtoD", "cuMemcpy2D",
                                "cuMemcpy3DAsync", "cuMemsetD32", "cuMemsetD2D8Async", "cuStreamCreate",
                                "cuStreamWaitEvent", "cuEventRecord", "cuEventQuery", "cuModuleLoadData",
                                "cuLibraryLoadData", "cuKernelGetParamInfo", "cuFuncGetParamInfo",
                                "cuLaunchCooperativeKernel", "cuLaunchHostFunc", "cuPointerGetAttribute",
                                "cuMemHostRegister", "cuDevicePrimaryCtxRelease", "cuGraphLaunch",
                                "cuMemAllocAsync", "cuMemFreeAsync", "cuMemAllocFromPoolAsync"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    for (int pt = 0; pt < 2; pt++) {
      void *fn = NULL;
      CUdriverProcAddressQueryResult st;
      CUresult r = gpa(names[i], &fn, 13000, pt ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0, &st);
      if (r != CUDA_SUCCESS || !fn || st != CU_GET_PROC_ADDRESS_SUCCESS)
        FT_FAIL_("%s (pt=%d): r=%d", names[i], pt, (int)r);
      Dl_info info;
      ASSERT(dladdr(fn, &info) && info.dli_sname);
      if (strncmp(info.dli_sname, names[i], strlen(names[i])) != 0)
        FT_FAIL_("%s resolved to %s", names[i], info.dli_sname);
    }
  }
  return TEST_OK;
}

/* Identity for every entry of the table: the pointer cuGetProcAddress returns for
 * an ABI is the exported symbol of that ABI (gpuft maps pointers by identity). */
TEST_IMPL(procaddr_identity_all) {
  void *h = open_driver();
  PFN_cuGetProcAddress_v12000 gpa;
  *(void **)&gpa = dlsym(h, "cuGetProcAddress_v2");
  static const struct { const char *base; int ver; const char *sym; int pt, impl; } table[] = {
#define SIM_PROC(base, ver, sym, pfn, pt, impl) {#base, ver, #sym, pt, impl},
#include "procs.def"
#undef SIM_PROC
  };
  size_t checked = 0;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    void *fn = NULL, *want = dlsym(h, table[i].sym);
    CUdriverProcAddressQueryResult st;
    cuuint64_t fl = table[i].pt ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : CU_GET_PROC_ADDRESS_LEGACY_STREAM;
    CUresult r = gpa(table[i].base, &fn, table[i].ver, fl, &st);
    if (!table[i].impl) {
      if (r != CUDA_ERROR_NOT_FOUND || fn || st != CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)
        FT_FAIL_("%s@%d (not simulated): r=%d fn=%p", table[i].base, table[i].ver, (int)r, fn);
      continue;
    }
    if (r != CUDA_SUCCESS || !want || fn != want)
      FT_FAIL_("%s@%d pt=%d: r=%d fn=%p, dlsym(%s)=%p", table[i].base, table[i].ver, table[i].pt, (int)r, fn,
               table[i].sym, want);
    checked++;
  }
  ASSERT_GT(checked, 150u);
  return TEST_OK;
}
