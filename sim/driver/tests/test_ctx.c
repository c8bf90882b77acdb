/* test_ctx.c: initialisation, device queries, error names, contexts (primary and
 * created), the context stack and its error codes. */
#include "simtest.h"

TEST_IMPL(init_and_device) {
  CUdevice d;
  int n;
  CUdeviceptr p;
  ASSERT_CU(cuDeviceGet(&d, 0), CUDA_ERROR_NOT_INITIALIZED);
  ASSERT_CU(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
  ASSERT_CU(cuMemAlloc(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
  int v;
  CK(cuDriverGetVersion(&v)); /* allowed before cuInit */
  ASSERT_EQ(v, 13000);
  ASSERT_CU(cuInit(1), CUDA_ERROR_INVALID_VALUE);
  CK(cuInit(0));
  CK(cuInit(0));
  CK(cuDeviceGetCount(&n));
  ASSERT_EQ(n, 1);
  CK(cuDeviceGet(&d, 0));
  ASSERT_CU(cuDeviceGet(&d, 1), CUDA_ERROR_INVALID_DEVICE);
  ASSERT_CU(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
  struct { CUdevice_attribute a; int v; } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 8}, {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 9},
      {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1}, {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32}, {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
      {CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 0}, {CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 1}};
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
    CK(cuDeviceGetAttribute(&v, attrs[i].a, 0));
    ASSERT_EQ(v, attrs[i].v);
  }
  ASSERT_CU(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 3), CUDA_ERROR_INVALID_DEVICE);
  size_t total;
  CK(cuDeviceTotalMem(&total, 0));
  ASSERT_EQ(total, (size_t)16 << 30);
  char name[64];
  CK(cuDeviceGetName(name, sizeof name, 0));
  ASSERT(strlen(name) > 0);
  CUuuid u1, u2;
  CK(cuDeviceGetUuid(&u1, 0));
  CK(cuDeviceGetUuid(&u2, 0));
  ASSERT_MEM_EQ(&u1, &u2, sizeof u1);
  const char *s;
  CK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
  ASSERT_STR_EQ(s, "CUDA_ERROR_ILLEGAL_ADDRESS");
  CK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s));
  ASSERT_STR_EQ(s, "invalid argument");
  ASSERT_CU(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
  /* No current context yet. */
  ASSERT_CU(cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
  CUstream st;
  ASSERT_CU(cuStreamCreate(&st, 0), CUDA_ERROR_INVALID_CONTEXT);
  /* the device reports a persisting L2 cache, so programs reset it (simpleAttributes) */
  ASSERT_CU(cuCtxResetPersistingL2Cache(), CUDA_ERROR_INVALID_CONTEXT);
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, 0));
  CK(cuCtxSetCurrent(ctx));
  CK(cuCtxResetPersistingL2Cache());
  CK(cuCtxSetCurrent(NULL));
  CK(cuDevicePrimaryCtxRelease(0));
  return TEST_OK;
}

TEST_IMPL(ctx_stack) {
  CK(cuInit(0));
  CUcontext cur, a, b, prim, popped;
  CK(cuCtxGetCurrent(&cur));
  ASSERT(cur == NULL);
  ASSERT_CU(cuCtxPopCurrent(&popped), CUDA_ERROR_INVALID_CONTEXT);
  CK(cuCtxCreate(&a, NULL, 0, 0));
  CK(cuCtxGetCurrent(&cur));
  ASSERT(cur == a);
  CK(cuCtxCreate(&b, NULL, CU_CTX_SCHED_YIELD, 0));
  CK(cuCtxGetCurrent(&cur));
  ASSERT(cur == b);
  unsigned flags;
  CK(cuCtxGetFlags(&flags));
  ASSERT_EQ(flags & CU_CTX_SCHED_MASK, (unsigned)CU_CTX_SCHED_YIELD);
  CK(cuCtxPopCurrent(&popped));
  ASSERT(popped == b);
  CK(cuCtxGetCurrent(&cur));
  ASSERT(cur == a);
  CK(cuCtxPushCurrent(b));
  CK(cuCtxGetCurrent(&cur));
  ASSERT(cur == b);
  /* Memory belongs to its context and goes with it. */
  CUdeviceptr p;
  CK(cuMemAlloc(&p, 1024));
  CK(cuCtxDestroy(b)); /* current: popped */
  CK(cuCtxGetCurrent(&cur));
  ASSERT(cur == a);
  CUcontext pc;
  ASSERT_CU(cuPointerGetAttribute(&pc, CU_POINTER_ATTRIBUTE_CONTEXT, p), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuCtxDestroy(b), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_CU(cuCtxPushCurrent((CUcontext)&flags), CUDA_ERROR_INVALID_CONTEXT);
  /* A context destroyed while it is current lower in the stack. */
  CK(cuCtxPushCurrent(a));       /* [a a] */
  CK(cuCtxCreate(&b, NULL, 0, 0)); /* [a a b] */
  CK(cuCtxDestroy(a));           /* not on top: stays in the stack */
  CK(cuMemAlloc(&p, 16));        /* b */
  CK(cuMemFree(p));
  CK(cuCtxPopCurrent(&popped));
  ASSERT(popped == b);
  ASSERT_CU(cuMemAlloc(&p, 16), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  CK(cuCtxPopCurrent(NULL));
  CK(cuCtxPopCurrent(NULL));
  CK(cuCtxGetCurrent(&cur));
  ASSERT(cur == NULL);
  CK(cuCtxPushCurrent(b));
  CK(cuMemAlloc(&p, 16));
  CK(cuMemFree(p));
  CK(cuCtxDestroy(b));
  /* Primary context. */
  unsigned pf;
  int active;
  CK(cuDevicePrimaryCtxGetState(0, &pf, &active));
  ASSERT_EQ(active, 0);
  CK(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
  CK(cuDevicePrimaryCtxRetain(&prim, 0));
  CUcontext prim2;
  CK(cuDevicePrimaryCtxRetain(&prim2, 0));
  ASSERT(prim == prim2);
  CK(cuDevicePrimaryCtxGetState(0, &pf, &active));
  ASSERT_EQ(active, 1);
  ASSERT_EQ(pf, (unsigned)CU_CTX_SCHED_BLOCKING_SYNC);
  CK(cuCtxSetCurrent(prim));
  ASSERT_CU(cuCtxDestroy(prim), CUDA_ERROR_INVALID_CONTEXT);
  CUdevice dev;
  CK(cuCtxGetDevice(&dev));
  ASSERT_EQ(dev, 0);
  unsigned api;
  CK(cuCtxGetApiVersion(prim, &api));
  CK(cuDevicePrimaryCtxRelease(0));
  CK(cuMemAlloc(&p, 64)); /* still retained once */
  CK(cuDevicePrimaryCtxRelease(0));
  ASSERT_CU(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_CU(cuMemAlloc(&p, 64), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  CK(cuDevicePrimaryCtxRetain(&prim2, 0));
  ASSERT(prim2 == prim);
  CK(cuMemAlloc(&p, 64));
  CK(cuDevicePrimaryCtxReset(0));
  CK(cuDevicePrimaryCtxGetState(0, &pf, &active));
  ASSERT_EQ(active, 0);
  return TEST_OK;
}
