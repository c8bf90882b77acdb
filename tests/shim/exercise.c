/* exercise.c: a driver-API program that calls every entry point of shim/hooks.def
 * once, with valid arguments, and checks the results. Under gpuft its report
 * proves each hook was reached. Entry points are looked up with
 * dlsym(RTLD_DEFAULT) (gpuft's exports when preloaded, the driver's otherwise);
 * the basics (context, module) are called through -lcuda. Prints "exercise: ok". */
#define _GNU_SOURCE
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twin_fill.h"

/* cuda.h renames cuGetProcAddress to cuGetProcAddress_v2; the v1 entry point is
 * exercised by its own name. */
#undef cuGetProcAddress
#undef cuGraphAddNode /* cuda.h maps it to _v2: both ABIs are exported and hooked */

static int failures;

#define CHECK(call)                                                                  \
  do {                                                                               \
    CUresult r_ = (call);                                                            \
    if (r_ != CUDA_SUCCESS) {                                                        \
      fprintf(stderr, "exercise: %s:%d: %s -> %d\n", __FILE__, __LINE__, #call, r_); \
      failures++;                                                                    \
    }                                                                                \
  } while (0)

/* Calls entry point `name` (typed `pfn`) found by dlsym; expects `want`. */
#define CALL_EXPECT(want, name, pfn, ...)                                                    \
  do {                                                                                      \
    pfn f_ = (pfn)dlsym(RTLD_DEFAULT, #name);                                               \
    if (!f_) {                                                                              \
      fprintf(stderr, "exercise: %s is not exported\n", #name);                            \
      failures++;                                                                           \
      break;                                                                                \
    }                                                                                       \
    CUresult r_ = f_(__VA_ARGS__);                                                          \
    /* the calls use several streams on the same buffers: keep them in order */             \
    cuCtxSynchronize();                                                                     \
    if (r_ != (want)) {                                                                     \
      fprintf(stderr, "exercise: %s:%d: %s -> %d, expected %d\n", __FILE__, __LINE__, #name, \
              r_, (int)(want));                                                             \
      failures++;                                                                           \
    }                                                                                       \
  } while (0)
#define CALL(name, pfn, ...) CALL_EXPECT(CUDA_SUCCESS, name, pfn, __VA_ARGS__)
/* The same without the synchronisation (which a stream capture forbids). */
#define CALL_CAPTURED(name, pfn, ...)                                                        \
  do {                                                                                      \
    pfn f_ = (pfn)dlsym(RTLD_DEFAULT, #name);                                               \
    CUresult r_ = f_ ? f_(__VA_ARGS__) : CUDA_ERROR_NOT_FOUND;                              \
    if (r_ != CUDA_SUCCESS) {                                                               \
      fprintf(stderr, "exercise: %s:%d: %s during a capture -> %d\n", __FILE__, __LINE__, #name, r_); \
      failures++;                                                                           \
    }                                                                                       \
  } while (0)

static void CUDA_CB host_fn(void *u) { (void)u; }
static void CUDA_CB stream_cb(CUstream s, CUresult r, void *u) {
  (void)s;
  (void)r;
  (void)u;
}

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CUfunction fill;
  CHECK(tf_load(&mod, &fill));
  /* ---- modules and libraries loaded from memory (their PTX is analysed) ---- */
  CUmodule m2 = NULL, m3 = NULL;
  CUlibrary lib = NULL;
  CALL(cuModuleLoadDataEx, PFN_cuModuleLoadDataEx_v2010, &m2, tf_ptx, 0, NULL, NULL);
  {
    /* PTX text is no fat binary for every driver: reaching the hook is what counts */
    PFN_cuModuleLoadFatBinary_v2000 f = (PFN_cuModuleLoadFatBinary_v2000)dlsym(RTLD_DEFAULT, "cuModuleLoadFatBinary");
    CUresult r = f ? f(&m3, tf_ptx) : CUDA_ERROR_NOT_FOUND;
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_IMAGE && r != CUDA_ERROR_INVALID_SOURCE) {
      fprintf(stderr, "exercise: cuModuleLoadFatBinary -> %d\n", (int)r);
      failures++;
    }
    if (r != CUDA_SUCCESS) m3 = NULL;
  }
  CALL(cuLibraryLoadData, PFN_cuLibraryLoadData_v12000, &lib, tf_ptx, NULL, NULL, 0, NULL, NULL, 0);
  {
    /* the same image from a file (cuModuleLoad, cuLibraryLoadFromFile) */
    char path[] = "/tmp/gpuft-exercise-XXXXXX";
    int fd = mkstemp(path);
    size_t len = strlen(tf_ptx) + 1;
    if (fd < 0 || write(fd, tf_ptx, len) != (ssize_t)len) {
      fprintf(stderr, "exercise: cannot write %s\n", path);
      failures++;
    }
    if (fd >= 0) close(fd);
    CUmodule m4 = NULL;
    CUlibrary l2 = NULL;
    CALL(cuModuleLoad, PFN_cuModuleLoad_v2000, &m4, path);
    CALL(cuLibraryLoadFromFile, PFN_cuLibraryLoadFromFile_v12000, &l2, path, NULL, NULL, 0, NULL, NULL, 0);
    CALL_EXPECT(CUDA_ERROR_FILE_NOT_FOUND, cuModuleLoad, PFN_cuModuleLoad_v2000, &m4, "/nonexistent/gpuft");
    if (m4) CHECK(cuModuleUnload(m4));
    if (l2) CHECK(cuLibraryUnload(l2));
    unlink(path);
  }
  if (m2) CHECK(cuModuleUnload(m2));
  if (m3) CHECK(cuModuleUnload(m3));
  if (lib) CHECK(cuLibraryUnload(lib));
  CUstream s;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUevent ev;
  CHECK(cuEventCreate(&ev, 0));

  /* ---- entry-point lookup ---- */
  void *p = NULL;
  CUdriverProcAddressQueryResult q;
  CALL(cuGetProcAddress, PFN_cuGetProcAddress_v11030, "cuMemAlloc", &p, 13000, 0);
  CALL(cuGetProcAddress_v2, PFN_cuGetProcAddress_v12000, "cuMemAlloc", &p, 13000, 0, &q);

  /* ---- allocation ---- */
  const size_t N = 1 << 16;
  CUdeviceptr a = 0, b = 0, pitched = 0, aa = 0, ab = 0, pa = 0, pb = 0, man = 0;
  size_t pitch = 0;
  CALL(cuMemAlloc_v2, PFN_cuMemAlloc_v3020, &a, N);
  CALL(cuMemAlloc_v2, PFN_cuMemAlloc_v3020, &b, N);
  CALL(cuMemAllocPitch_v2, PFN_cuMemAllocPitch_v3020, &pitched, &pitch, 1000, 8, 4);
  CALL(cuMemAllocAsync, PFN_cuMemAllocAsync_v11020, &aa, 4096, s);
  CALL(cuMemAllocAsync_ptsz, PFN_cuMemAllocAsync_v11020_ptsz, &ab, 4096, 0);
  CUmemoryPool pool;
  CHECK(cuDeviceGetDefaultMemPool(&pool, dev));
  CALL(cuMemAllocFromPoolAsync, PFN_cuMemAllocFromPoolAsync_v11020, &pa, 4096, pool, s);
  CALL(cuMemAllocFromPoolAsync_ptsz, PFN_cuMemAllocFromPoolAsync_v11020_ptsz, &pb, 4096, pool, 0);
  CALL(cuMemAllocManaged, PFN_cuMemAllocManaged_v6000, &man, 4096, CU_MEM_ATTACH_GLOBAL);
  /* exported to other processes: it leaves protection */
  CUdeviceptr shared = 0;
  CUipcMemHandle ipc;
  CALL(cuMemAlloc_v2, PFN_cuMemAlloc_v3020, &shared, 4096);
  CALL(cuIpcGetMemHandle, PFN_cuIpcGetMemHandle_v4010, &ipc, shared);

  /* ---- virtual memory management: a run mapped, exported, imported, retained ---- */
  {
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran = 0;
    cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    CUdeviceptr va = 0;
    cuMemAddressReserve(&va, 2 * gran, 0, 0, 0);
    CUmemGenericAllocationHandle ph = 0, back = 0, imp = 0;
    CUmemAccessDesc acc = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CALL(cuMemCreate, PFN_cuMemCreate_v10020, &ph, gran, &prop, 0);
    CALL(cuMemMap, PFN_cuMemMap_v10020, va, gran, 0, ph, 0);
    CALL(cuMemSetAccess, PFN_cuMemSetAccess_v10020, va, gran, &acc, 1);
    CALL(cuMemRetainAllocationHandle, PFN_cuMemRetainAllocationHandle_v11000, &back, (void *)va);
    int fd = -1;
    CALL(cuMemExportToShareableHandle, PFN_cuMemExportToShareableHandle_v10020, &fd, ph,
         CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    CALL(cuMemImportFromShareableHandle, PFN_cuMemImportFromShareableHandle_v10020, &imp,
         (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    CALL(cuMemUnmap, PFN_cuMemUnmap_v10020, va, gran);
    CALL(cuMemRelease, PFN_cuMemRelease_v10020, imp);
    CALL(cuMemRelease, PFN_cuMemRelease_v10020, back);
    CALL(cuMemRelease, PFN_cuMemRelease_v10020, ph);
    cuMemAddressFree(va, 2 * gran);
    if (fd >= 0) close(fd);
  }

  /* ---- copies ---- */
  unsigned char *h = malloc(N), *h2 = malloc(N);
  for (size_t i = 0; i < N; i++) h[i] = (unsigned char)(i * 7);
  CALL(cuMemcpyHtoD_v2, PFN_cuMemcpyHtoD_v3020, a, h, N);
  CALL(cuMemcpyHtoD_v2_ptds, PFN_cuMemcpyHtoD_v7000_ptds, a, h, N);
  CALL(cuMemcpyDtoD_v2, PFN_cuMemcpyDtoD_v3020, b, a, N);
  CALL(cuMemcpyDtoD_v2_ptds, PFN_cuMemcpyDtoD_v7000_ptds, b, a, N);
  CALL(cuMemcpyDtoH_v2, PFN_cuMemcpyDtoH_v3020, h2, b, N);
  CALL(cuMemcpyDtoH_v2_ptds, PFN_cuMemcpyDtoH_v7000_ptds, h2, b, N);
  if (memcmp(h, h2, N) != 0) {
    fprintf(stderr, "exercise: copies changed the data\n");
    failures++;
  }
  CALL(cuMemcpy, PFN_cuMemcpy_v4000, b, a, N);
  CALL(cuMemcpy_ptds, PFN_cuMemcpy_v7000_ptds, b, a, N);
  CALL(cuMemcpyAsync, PFN_cuMemcpyAsync_v4000, b, a, N, s);
  CALL(cuMemcpyAsync_ptsz, PFN_cuMemcpyAsync_v7000_ptsz, b, a, N, 0);
  CALL(cuMemcpyHtoDAsync_v2, PFN_cuMemcpyHtoDAsync_v3020, a, h, N, s);
  CALL(cuMemcpyHtoDAsync_v2_ptsz, PFN_cuMemcpyHtoDAsync_v7000_ptsz, a, h, N, 0);
  CALL(cuMemcpyDtoHAsync_v2, PFN_cuMemcpyDtoHAsync_v3020, h2, a, N, s);
  CALL(cuMemcpyDtoHAsync_v2_ptsz, PFN_cuMemcpyDtoHAsync_v7000_ptsz, h2, a, N, 0);
  CALL(cuMemcpyDtoDAsync_v2, PFN_cuMemcpyDtoDAsync_v3020, b, a, N, s);
  CALL(cuMemcpyDtoDAsync_v2_ptsz, PFN_cuMemcpyDtoDAsync_v7000_ptsz, b, a, N, 0);

  CUDA_MEMCPY2D c2;
  memset(&c2, 0, sizeof c2);
  c2.srcMemoryType = CU_MEMORYTYPE_HOST;
  c2.srcHost = h;
  c2.srcPitch = 1000;
  c2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c2.dstDevice = pitched;
  c2.dstPitch = pitch;
  c2.WidthInBytes = 1000;
  c2.Height = 8;
  CALL(cuMemcpy2D_v2, PFN_cuMemcpy2D_v3020, &c2);
  CALL(cuMemcpy2D_v2_ptds, PFN_cuMemcpy2D_v7000_ptds, &c2);
  CALL(cuMemcpy2DUnaligned_v2, PFN_cuMemcpy2DUnaligned_v3020, &c2);
  CALL(cuMemcpy2DUnaligned_v2_ptds, PFN_cuMemcpy2DUnaligned_v7000_ptds, &c2);
  CALL(cuMemcpy2DAsync_v2, PFN_cuMemcpy2DAsync_v3020, &c2, s);
  CALL(cuMemcpy2DAsync_v2_ptsz, PFN_cuMemcpy2DAsync_v7000_ptsz, &c2, 0);

  CUDA_MEMCPY3D c3;
  memset(&c3, 0, sizeof c3);
  c3.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.srcDevice = a;
  c3.srcPitch = 256;
  c3.srcHeight = 4;
  c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.dstDevice = b;
  c3.dstPitch = 256;
  c3.dstHeight = 4;
  c3.WidthInBytes = 256;
  c3.Height = 4;
  c3.Depth = 2;
  CALL(cuMemcpy3D_v2, PFN_cuMemcpy3D_v3020, &c3);
  CALL(cuMemcpy3D_v2_ptds, PFN_cuMemcpy3D_v7000_ptds, &c3);
  CALL(cuMemcpy3DAsync_v2, PFN_cuMemcpy3DAsync_v3020, &c3, s);
  CALL(cuMemcpy3DAsync_v2_ptsz, PFN_cuMemcpy3DAsync_v7000_ptsz, &c3, 0);

  CALL(cuMemcpyPeer, PFN_cuMemcpyPeer_v4000, b, ctx, a, ctx, N);
  CALL(cuMemcpyPeer_ptds, PFN_cuMemcpyPeer_v7000_ptds, b, ctx, a, ctx, N);
  CALL(cuMemcpyPeerAsync, PFN_cuMemcpyPeerAsync_v4000, b, ctx, a, ctx, N, s);
  CALL(cuMemcpyPeerAsync_ptsz, PFN_cuMemcpyPeerAsync_v7000_ptsz, b, ctx, a, ctx, N, 0);
  CUDA_MEMCPY3D_PEER c3p;
  memset(&c3p, 0, sizeof c3p);
  c3p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c3p.srcDevice = a;
  c3p.srcPitch = 256;
  c3p.srcHeight = 4;
  c3p.srcContext = ctx;
  c3p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c3p.dstDevice = b;
  c3p.dstPitch = 256;
  c3p.dstHeight = 4;
  c3p.dstContext = ctx;
  c3p.WidthInBytes = 256;
  c3p.Height = 4;
  c3p.Depth = 2;
  CALL(cuMemcpy3DPeer, PFN_cuMemcpy3DPeer_v4000, &c3p);
  CALL(cuMemcpy3DPeer_ptds, PFN_cuMemcpy3DPeer_v7000_ptds, &c3p);
  CALL(cuMemcpy3DPeerAsync, PFN_cuMemcpy3DPeerAsync_v4000, &c3p, s);
  CALL(cuMemcpy3DPeerAsync_ptsz, PFN_cuMemcpy3DPeerAsync_v7000_ptsz, &c3p, 0);

  /* ---- memsets ---- */
  CALL(cuMemsetD8_v2, PFN_cuMemsetD8_v3020, a, 1, N);
  CALL(cuMemsetD8_v2_ptds, PFN_cuMemsetD8_v7000_ptds, a, 1, N);
  CALL(cuMemsetD16_v2, PFN_cuMemsetD16_v3020, a, 2, N / 2);
  CALL(cuMemsetD16_v2_ptds, PFN_cuMemsetD16_v7000_ptds, a, 2, N / 2);
  CALL(cuMemsetD32_v2, PFN_cuMemsetD32_v3020, a, 3, N / 4);
  CALL(cuMemsetD32_v2_ptds, PFN_cuMemsetD32_v7000_ptds, a, 3, N / 4);
  CALL(cuMemsetD8Async, PFN_cuMemsetD8Async_v3020, a, 1, N, s);
  CALL(cuMemsetD8Async_ptsz, PFN_cuMemsetD8Async_v7000_ptsz, a, 1, N, 0);
  CALL(cuMemsetD16Async, PFN_cuMemsetD16Async_v3020, a, 2, N / 2, s);
  CALL(cuMemsetD16Async_ptsz, PFN_cuMemsetD16Async_v7000_ptsz, a, 2, N / 2, 0);
  CALL(cuMemsetD32Async, PFN_cuMemsetD32Async_v3020, a, 3, N / 4, s);
  CALL(cuMemsetD32Async_ptsz, PFN_cuMemsetD32Async_v7000_ptsz, a, 3, N / 4, 0);
  CALL(cuMemsetD2D8_v2, PFN_cuMemsetD2D8_v3020, pitched, pitch, 1, 1000, 8);
  CALL(cuMemsetD2D8_v2_ptds, PFN_cuMemsetD2D8_v7000_ptds, pitched, pitch, 1, 1000, 8);
  CALL(cuMemsetD2D16_v2, PFN_cuMemsetD2D16_v3020, pitched, pitch, 2, 500, 8);
  CALL(cuMemsetD2D16_v2_ptds, PFN_cuMemsetD2D16_v7000_ptds, pitched, pitch, 2, 500, 8);
  CALL(cuMemsetD2D32_v2, PFN_cuMemsetD2D32_v3020, pitched, pitch, 3, 250, 8);
  CALL(cuMemsetD2D32_v2_ptds, PFN_cuMemsetD2D32_v7000_ptds, pitched, pitch, 3, 250, 8);
  CALL(cuMemsetD2D8Async, PFN_cuMemsetD2D8Async_v3020, pitched, pitch, 1, 1000, 8, s);
  CALL(cuMemsetD2D8Async_ptsz, PFN_cuMemsetD2D8Async_v7000_ptsz, pitched, pitch, 1, 1000, 8, 0);
  CALL(cuMemsetD2D16Async, PFN_cuMemsetD2D16Async_v3020, pitched, pitch, 2, 500, 8, s);
  CALL(cuMemsetD2D16Async_ptsz, PFN_cuMemsetD2D16Async_v7000_ptsz, pitched, pitch, 2, 500, 8, 0);
  CALL(cuMemsetD2D32Async, PFN_cuMemsetD2D32Async_v3020, pitched, pitch, 3, 250, 8, s);
  CALL(cuMemsetD2D32Async_ptsz, PFN_cuMemsetD2D32Async_v7000_ptsz, pitched, pitch, 3, 250, 8, 0);

  /* ---- launches: fill(a, value) over N/4 words ---- */
  unsigned value = 0x1234;
  void *params[] = {&a, &value};
  unsigned blocks = (unsigned)(N / 4 / 256);
  CALL(cuLaunchKernel, PFN_cuLaunchKernel_v4000, fill, blocks, 1, 1, 256, 1, 1, 0, s, params, NULL);
  CALL(cuLaunchKernel_ptsz, PFN_cuLaunchKernel_v7000_ptsz, fill, blocks, 1, 1, 256, 1, 1, 0, 0,
       params, NULL);
  CUlaunchConfig cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = blocks;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 256;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.hStream = s;
  CALL(cuLaunchKernelEx, PFN_cuLaunchKernelEx_v11060, &cfg, fill, params, NULL);
  cfg.hStream = 0;
  CALL(cuLaunchKernelEx_ptsz, PFN_cuLaunchKernelEx_v11060_ptsz, &cfg, fill, params, NULL);
  CALL(cuLaunchCooperativeKernel, PFN_cuLaunchCooperativeKernel_v9000, fill, blocks, 1, 1, 256, 1,
       1, 0, s, params);
  CALL(cuLaunchCooperativeKernel_ptsz, PFN_cuLaunchCooperativeKernel_v9000_ptsz, fill, blocks, 1,
       1, 256, 1, 1, 0, 0, params);

  /* ---- synchronisation ---- */
  CHECK(cuEventRecord(ev, s));
  CALL(cuEventRecord_ptsz, PFN_cuEventRecord_v7000_ptsz, ev, 0);
  CALL(cuEventRecordWithFlags, PFN_cuEventRecordWithFlags_v11010, ev, s, 0);
  CALL(cuEventRecordWithFlags_ptsz, PFN_cuEventRecordWithFlags_v11010_ptsz, ev, 0, 0);
  CALL(cuStreamWaitEvent, PFN_cuStreamWaitEvent_v3020, 0, ev, 0);
  CALL(cuStreamWaitEvent_ptsz, PFN_cuStreamWaitEvent_v7000_ptsz, 0, ev, 0);
  CALL(cuEventSynchronize, PFN_cuEventSynchronize_v2000, ev);
  CALL(cuEventQuery, PFN_cuEventQuery_v2000, ev);
  CALL(cuStreamSynchronize, PFN_cuStreamSynchronize_v2000, s);
  CALL(cuStreamSynchronize_ptsz, PFN_cuStreamSynchronize_v7000_ptsz, 0);
  CALL(cuStreamQuery, PFN_cuStreamQuery_v2000, s);
  CALL(cuStreamQuery_ptsz, PFN_cuStreamQuery_v7000_ptsz, 0);
  CALL(cuCtxSynchronize, PFN_cuCtxSynchronize_v2000);
  CALL(cuCtxSynchronize_v2, PFN_cuCtxSynchronize_v13000, ctx);
  unsigned *words = (unsigned *)h2;
  CHECK(cuMemcpyDtoH(h2, a, N));
  for (size_t i = 0; i < N / 4; i++)
    if (words[i] != value) {
      fprintf(stderr, "exercise: kernel result wrong at %zu: %x\n", i, words[i]);
      failures++;
      break;
    }

  /* ---- host functions in streams ---- */
  CALL(cuLaunchHostFunc, PFN_cuLaunchHostFunc_v10000, s, host_fn, NULL);
  CALL(cuLaunchHostFunc_ptsz, PFN_cuLaunchHostFunc_v10000_ptsz, 0, host_fn, NULL);
  CALL(cuStreamAddCallback, PFN_cuStreamAddCallback_v5000, s, stream_cb, NULL, 0);
  CALL(cuStreamAddCallback_ptsz, PFN_cuStreamAddCallback_v7000_ptsz, 0, stream_cb, NULL, 0);
  CHECK(cuCtxSynchronize());

  /* ---- graphs ---- */
  CUgraph g;
  CUgraphExec ge;
  CUgraphNode node;
  CUDA_KERNEL_NODE_PARAMS kp;
  memset(&kp, 0, sizeof kp);
  kp.func = fill;
  kp.gridDimX = blocks;
  kp.gridDimY = kp.gridDimZ = 1;
  kp.blockDimX = 256;
  kp.blockDimY = kp.blockDimZ = 1;
  kp.kernelParams = params;
  CHECK(cuGraphCreate(&g, 0));
  CHECK(cuGraphAddKernelNode(&node, g, NULL, 0, &kp));
  CALL(cuGraphInstantiateWithFlags, PFN_cuGraphInstantiateWithFlags_v11040, &ge, g, 0ULL);
  CALL(cuGraphLaunch, PFN_cuGraphLaunch_v10000, ge, s);
  CALL(cuGraphLaunch_ptsz, PFN_cuGraphLaunch_v10000_ptsz, ge, 0);
  CHECK(cuCtxSynchronize());
  /* changes to the executable graph (gpuft forgets what it read of it) */
  CALL(cuGraphExecKernelNodeSetParams_v2, PFN_cuGraphExecKernelNodeSetParams_v12000, ge, node, &kp);
  CALL(cuGraphNodeSetEnabled, PFN_cuGraphNodeSetEnabled_v11060, ge, node, 1u);
  {
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_KERNEL;
    np.kernel.func = fill;
    np.kernel.gridDimX = blocks, np.kernel.gridDimY = np.kernel.gridDimZ = 1;
    np.kernel.blockDimX = 256, np.kernel.blockDimY = np.kernel.blockDimZ = 1;
    np.kernel.kernelParams = params;
    CALL(cuGraphExecNodeSetParams, PFN_cuGraphExecNodeSetParams_v12020, ge, node, &np);
    CUgraphExecUpdateResultInfo info;
    CALL(cuGraphExecUpdate_v2, PFN_cuGraphExecUpdate_v12000, ge, g, &info);
  }
  CALL(cuGraphLaunch, PFN_cuGraphLaunch_v10000, ge, s);
  CALL(cuGraphExecDestroy, PFN_cuGraphExecDestroy_v10000, ge);
  {
    /* a graph of the other node kinds whose executable nodes can be changed */
    CUgraph g2, child;
    CUgraphNode nm, nc, nh, ng;
    CHECK(cuGraphCreate(&g2, 0));
    CHECK(cuGraphCreate(&child, 0));
    CUgraphNode empty;
    CHECK(cuGraphAddEmptyNode(&empty, child, NULL, 0));
    CUDA_MEMSET_NODE_PARAMS ms;
    memset(&ms, 0, sizeof ms);
    ms.dst = b, ms.value = 3, ms.elementSize = 4, ms.width = N / 4, ms.height = 1, ms.pitch = N;
    CHECK(cuGraphAddMemsetNode(&nm, g2, NULL, 0, &ms, ctx));
    CUDA_MEMCPY3D cp;
    memset(&cp, 0, sizeof cp);
    cp.srcMemoryType = cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.srcDevice = b, cp.dstDevice = a, cp.WidthInBytes = N, cp.Height = cp.Depth = 1;
    CHECK(cuGraphAddMemcpyNode(&nc, g2, &nm, 1, &cp, ctx));
    CUDA_HOST_NODE_PARAMS hp = {host_fn, NULL};
    CHECK(cuGraphAddHostNode(&nh, g2, &nc, 1, &hp));
    CHECK(cuGraphAddChildGraphNode(&ng, g2, &nh, 1, child));
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    CUgraphExec ge2, ge3;
    CALL(cuGraphInstantiateWithParams, PFN_cuGraphInstantiateWithParams_v12000, &ge2, g2, &ip);
    CALL(cuGraphInstantiateWithParams_ptsz, PFN_cuGraphInstantiateWithParams_v12000_ptsz, &ge3, g2, &ip);
    CALL(cuGraphLaunch, PFN_cuGraphLaunch_v10000, ge2, s);
    CALL(cuGraphExecMemsetNodeSetParams, PFN_cuGraphExecMemsetNodeSetParams_v10020, ge2, nm, &ms, ctx);
    CALL(cuGraphExecMemcpyNodeSetParams, PFN_cuGraphExecMemcpyNodeSetParams_v10020, ge2, nc, &cp, ctx);
    CALL(cuGraphExecHostNodeSetParams, PFN_cuGraphExecHostNodeSetParams_v10020, ge2, nh, &hp);
    CALL(cuGraphExecChildGraphNodeSetParams, PFN_cuGraphExecChildGraphNodeSetParams_v11010, ge2, ng, child);
    CALL(cuGraphLaunch, PFN_cuGraphLaunch_v10000, ge2, s);
    CHECK(cuCtxSynchronize());
    CHECK(cuGraphExecDestroy(ge2));
    CHECK(cuGraphExecDestroy(ge3));
    CHECK(cuGraphDestroy(g2));
    CHECK(cuGraphDestroy(child));
  }
  CHECK(cuGraphDestroy(g));
  {
    /* conditional nodes: gpuft keeps their bodies from the call that made them; one
     * removed again, the other's graph instantiated and launched (protected: its
     * body's kernel is read with it) */
    CUgraph g3;
    CUgraphNode if1, if2, kn;
    CUgraphConditionalHandle h;
    CHECK(cuGraphCreate(&g3, 0));
    CHECK(cuGraphConditionalHandleCreate(&h, g3, ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
    CUgraphNodeParams cp;
    memset(&cp, 0, sizeof cp);
    cp.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    cp.conditional.handle = h;
    cp.conditional.type = CU_GRAPH_COND_TYPE_IF;
    cp.conditional.size = 1;
    cp.conditional.ctx = ctx;
    CALL(cuGraphAddNode, PFN_cuGraphAddNode_v12020, &if1, g3, NULL, 0, &cp);
    CALL(cuGraphDestroyNode, PFN_cuGraphDestroyNode_v10000, if1);
    memset(&cp.conditional.phGraph_out, 0, sizeof cp.conditional.phGraph_out);
    CALL(cuGraphAddNode_v2, PFN_cuGraphAddNode_v12030, &if2, g3, NULL, NULL, 0, &cp);
    CHECK(cuGraphAddKernelNode(&kn, cp.conditional.phGraph_out[0], NULL, 0, &kp));
    CUgraphExec ge4;
    CHECK(cuGraphInstantiateWithFlags(&ge4, g3, 0));
    CHECK(cuGraphLaunch(ge4, s));
    CHECK(cuCtxSynchronize());
    CHECK(cuGraphExecDestroy(ge4));
    CALL(cuGraphDestroy, PFN_cuGraphDestroy_v10000, g3);
  }

  /* ---- writers gpuft does not model (counted as unprotected) ---- */
  CALL(cuStreamWriteValue32_v2, PFN_cuStreamWriteValue32_v11070, s, a, 7, 0);
  CALL(cuStreamWriteValue32_v2_ptsz, PFN_cuStreamWriteValue32_v11070_ptsz, 0, a, 7, 0);
  CALL(cuStreamWriteValue64_v2, PFN_cuStreamWriteValue64_v11070, s, a, 7, 0);
  CALL(cuStreamWriteValue64_v2_ptsz, PFN_cuStreamWriteValue64_v11070_ptsz, 0, a, 7, 0);
  /* waits already met (the value written above) */
  CALL(cuStreamWaitValue32_v2, PFN_cuStreamWaitValue32_v11070, s, a, 7, CU_STREAM_WAIT_VALUE_GEQ);
  CALL(cuStreamWaitValue32_v2_ptsz, PFN_cuStreamWaitValue32_v11070_ptsz, 0, a, 7, CU_STREAM_WAIT_VALUE_GEQ);
  CALL(cuStreamWaitValue64_v2, PFN_cuStreamWaitValue64_v11070, s, a, 7, CU_STREAM_WAIT_VALUE_GEQ);
  CALL(cuStreamWaitValue64_v2_ptsz, PFN_cuStreamWaitValue64_v11070_ptsz, 0, a, 7, CU_STREAM_WAIT_VALUE_GEQ);
  CUstreamBatchMemOpParams op;
  memset(&op, 0, sizeof op);
  op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  op.writeValue.address = a;
  op.writeValue.value = 9;
  CALL(cuStreamBatchMemOp_v2, PFN_cuStreamBatchMemOp_v11070, s, 1, &op, 0);
  CALL(cuStreamBatchMemOp_v2_ptsz, PFN_cuStreamBatchMemOp_v11070_ptsz, 0, 1, &op, 0);
  /* Batches reaching more allocations than one operation's ledger reservation
   * (engine.h, FT_JOBS_PER_OP) and than the ledger has slots, some allocations
   * named more than once: every write lands, and no verification is refused (the
   * report's verifications_refused, test_shim.c; 152 were before the batch hooks
   * made room as they went). Memory operations: at most 255 a batch (the
   * driver's limit). */
  {
    enum { NB = 1100, NM = 127 };
    static CUdeviceptr bufs[NB], bd[NB], bs[NB];
    static size_t bn[NB];
    static CUstreamBatchMemOpParams bops[2 * NM];
    static uint32_t init[256], got[256];
    CUdeviceptr pat;
    for (int i = 0; i < 256; i++) init[i] = (uint32_t)i * 2654435761u;
    CHECK(cuMemAlloc(&pat, sizeof init));
    CHECK(cuMemcpyHtoD(pat, init, sizeof init));
    memset(bops, 0, sizeof bops);
    for (int i = 0; i < NB; i++) {
      CHECK(cuMemAlloc(&bufs[i], sizeof init));
      /* written by a kernel: no checkpoint, so a write verifies and copies first */
      unsigned zero = 0;
      void *fp[] = {&bufs[i], &zero};
      CHECK(cuLaunchKernel(fill, 1, 1, 1, 256, 1, 1, 0, s, fp, NULL));
      bd[i] = bufs[i] + 8;
      bs[i] = pat + 8;
      bn[i] = sizeof init - 8;
    }
    for (int i = 0; i < NM; i++)
      for (int k = 0; k < 2; k++) {
        CUstreamBatchMemOpParams *o = &bops[2 * i + k];
        o->writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
        o->writeValue.address = bufs[i] + 4u * (unsigned)k;
        o->writeValue.value = (cuuint32_t)(i * 2 + k + 1);
      }
    CHECK(cuCtxSynchronize()); /* at rest under their codes, in an epoch of their own */
    CHECK(cuMemcpyDtoH(got, bufs[0], sizeof got));
    CALL(cuStreamBatchMemOp_v2, PFN_cuStreamBatchMemOp_v11070, s, 2 * NM, bops, 0);
    CUmemcpyAttributes battr;
    memset(&battr, 0, sizeof battr);
    battr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    size_t bidx[1] = {0};
    CALL(cuMemcpyBatchAsync_v2, PFN_cuMemcpyBatchAsync_v13000, bd, bs, bn, NB, &battr, bidx, 1, s);
    CHECK(cuStreamSynchronize(s));
    for (int i = 0; i < NB; i++) {
      CHECK(cuMemcpyDtoH(got, bufs[i], sizeof got));
      uint32_t w0 = i < NM ? (uint32_t)(i * 2 + 1) : 0, w1 = i < NM ? (uint32_t)(i * 2 + 2) : 0;
      if (got[0] != w0 || got[1] != w1 || memcmp(got + 2, init + 2, sizeof init - 8)) {
        fprintf(stderr, "exercise: batch into allocation %d: wrong contents\n", i);
        failures++;
        break;
      }
    }
    for (int i = 0; i < NB; i++) CHECK(cuMemFree(bufs[i]));
    CHECK(cuMemFree(pat));
  }
  CUdeviceptr dsts[1] = {b}, srcs[1] = {a};
  size_t sizes[1] = {N}, attr_idx[1] = {0};
  CUmemcpyAttributes attr;
  memset(&attr, 0, sizeof attr);
  attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  CALL(cuMemcpyBatchAsync_v2, PFN_cuMemcpyBatchAsync_v13000, dsts, srcs, sizes, 1, &attr, attr_idx,
       1, s);
  CALL(cuMemcpyBatchAsync_v2_ptsz, PFN_cuMemcpyBatchAsync_v13000_ptsz, dsts, srcs, sizes, 1,
       &attr, attr_idx, 1, s);
  /* CUDA 12.8's ABIs (cuda.h maps the names to _v2: CALL_EXPECT stringifies them as
   * written) */
  size_t fail_idx = 0;
  CALL_EXPECT(CUDA_SUCCESS, cuMemcpyBatchAsync, PFN_cuMemcpyBatchAsync_v12080, dsts, srcs, sizes, 1,
              &attr, attr_idx, 1, &fail_idx, s);
  CALL_EXPECT(CUDA_SUCCESS, cuMemcpyBatchAsync_ptsz, PFN_cuMemcpyBatchAsync_v12080_ptsz, dsts, srcs,
              sizes, 1, &attr, attr_idx, 1, &fail_idx, s);
  CUDA_MEMCPY3D_BATCH_OP bop;
  memset(&bop, 0, sizeof bop);
  bop.src.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  bop.src.op.ptr.ptr = a;
  bop.src.op.ptr.rowLength = 256;
  bop.src.op.ptr.layerHeight = 4;
  bop.dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  bop.dst.op.ptr.ptr = b;
  bop.dst.op.ptr.rowLength = 256;
  bop.dst.op.ptr.layerHeight = 4;
  bop.extent.width = 256;
  bop.extent.height = 4;
  bop.extent.depth = 1;
  bop.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  CALL(cuMemcpy3DBatchAsync_v2, PFN_cuMemcpy3DBatchAsync_v13000, 1, &bop, 0, s);
  CALL(cuMemcpy3DBatchAsync_v2_ptsz, PFN_cuMemcpy3DBatchAsync_v13000_ptsz, 1, &bop, 0, s);
  CALL_EXPECT(CUDA_SUCCESS, cuMemcpy3DBatchAsync, PFN_cuMemcpy3DBatchAsync_v12080, 1, &bop, &fail_idx,
              0, s);
  CALL_EXPECT(CUDA_SUCCESS, cuMemcpy3DBatchAsync_ptsz, PFN_cuMemcpy3DBatchAsync_v12080_ptsz, 1, &bop,
              &fail_idx, 0, s);
  /* No CUDA arrays and no multi-device launch here: the call must still be
   * forwarded (and counted), and give the driver's error. */
  CALL_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyAtoD_v2, PFN_cuMemcpyAtoD_v3020, a, NULL, 0, 16);
  CALL_EXPECT(CUDA_ERROR_INVALID_VALUE, cuMemcpyAtoD_v2_ptds, PFN_cuMemcpyAtoD_v7000_ptds, a, NULL,
              0, 16);
  CALL_EXPECT(CUDA_ERROR_INVALID_VALUE, cuLaunchCooperativeKernelMultiDevice,
              PFN_cuLaunchCooperativeKernelMultiDevice_v9000, NULL, 0, 0);
  CHECK(cuStreamSynchronize(s));

  /* A batch copy into protected memory on a capturing stream (global mode, as the
   * runtime's cudaMemcpyAsync may reach the driver): captured as a node and run at
   * the graph's launch. gpuft must stay out of it: a commit or an event of its own
   * there invalidated an H100's capture (graphs_simple, docs/gpu-results.md). */
  {
    CHECK(cuCtxSynchronize());
    CUdeviceptr cd[1] = {b}, cs[1] = {a};
    size_t cn[1] = {N}, ci[1] = {0};
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CALL_CAPTURED(cuMemcpyBatchAsync_v2, PFN_cuMemcpyBatchAsync_v13000, cd, cs, cn, 1, &attr, ci, 1, s);
    CALL_CAPTURED(cuMemcpy3DBatchAsync_v2, PFN_cuMemcpy3DBatchAsync_v13000, 1, &bop, 0, s);
    CUgraph cg = NULL;
    CHECK(cuStreamEndCapture(s, &cg));
    CUgraphExec ce = NULL;
    if (cg) CHECK(cuGraphInstantiate(&ce, cg, 0));
    if (ce) CHECK(cuGraphLaunch(ce, s));
    CHECK(cuStreamSynchronize(s));
    if (ce) CHECK(cuGraphExecDestroy(ce));
    if (cg) CHECK(cuGraphDestroy(cg));
    /* the other doors into a capture: per-thread stream, into an existing graph */
    CUgraph g2 = NULL, into = NULL;
    CALL_CAPTURED(cuStreamBeginCapture_v2_ptsz, PFN_cuStreamBeginCapture_v10010_ptsz, s,
                  CU_STREAM_CAPTURE_MODE_RELAXED);
    CALL_CAPTURED(cuStreamEndCapture_ptsz, PFN_cuStreamEndCapture_v10000_ptsz, s, &g2);
    if (g2) CHECK(cuGraphDestroy(g2));
    CHECK(cuGraphCreate(&into, 0));
    CALL_CAPTURED(cuStreamBeginCaptureToGraph, PFN_cuStreamBeginCaptureToGraph_v12030, s, into, NULL, NULL, 0,
                  CU_STREAM_CAPTURE_MODE_RELAXED);
    CALL_CAPTURED(cuStreamEndCapture, PFN_cuStreamEndCapture_v10000, s, &g2);
    CALL_CAPTURED(cuStreamBeginCaptureToGraph_ptsz, PFN_cuStreamBeginCaptureToGraph_v12030_ptsz, s, into, NULL,
                  NULL, 0, CU_STREAM_CAPTURE_MODE_RELAXED);
    CALL_CAPTURED(cuStreamEndCapture, PFN_cuStreamEndCapture_v10000, s, &g2);
    if (into) CHECK(cuGraphDestroy(into));
  }

  /* ---- release ---- */
  CALL(cuMemFreeAsync, PFN_cuMemFreeAsync_v11020, aa, s);
  CALL(cuMemFreeAsync_ptsz, PFN_cuMemFreeAsync_v11020_ptsz, ab, 0);
  CALL(cuMemFreeAsync, PFN_cuMemFreeAsync_v11020, pa, s);
  CALL(cuMemFreeAsync, PFN_cuMemFreeAsync_v11020, pb, s);
  CHECK(cuCtxSynchronize());
  CALL(cuMemFree_v2, PFN_cuMemFree_v3020, a);
  CALL(cuMemFree_v2, PFN_cuMemFree_v3020, b);
  CALL(cuMemFree_v2, PFN_cuMemFree_v3020, shared);
  CALL(cuMemFree_v2, PFN_cuMemFree_v3020, pitched);
  CALL(cuMemFree_v2, PFN_cuMemFree_v3020, man);
  CHECK(cuEventDestroy(ev));
  CHECK(cuStreamDestroy(s));
  CHECK(cuModuleUnload(mod));
  CHECK(cuDevicePrimaryCtxRelease(dev));
  CHECK(cuDevicePrimaryCtxReset(dev));
  /* the CUDA 7.0 ABIs of the two, as NVIDIA's static runtime uses them */
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  /* (CALL_EXPECT itself: through CALL, cuda.h would rename them to their _v2 forms) */
  CALL_EXPECT(CUDA_SUCCESS, cuDevicePrimaryCtxRelease, PFN_cuDevicePrimaryCtxRelease_v11000, dev);
  CALL_EXPECT(CUDA_SUCCESS, cuDevicePrimaryCtxReset, PFN_cuDevicePrimaryCtxReset_v11000, dev);
  CUcontext own;
  CHECK(cuCtxCreate(&own, NULL, 0, dev));
  CHECK(cuCtxDestroy(own));
  free(h);
  free(h2);
  if (failures) {
    fprintf(stderr, "exercise: %d failures\n", failures);
    return 1;
  }
  printf("exercise: ok\n");
  return 0;
}
