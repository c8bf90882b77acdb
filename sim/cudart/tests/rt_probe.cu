// rt_probe: runtime behaviour checks, one mode per argv[1], run on the simulator by
// test_cudart.c (and runnable on a real GPU with the real runtime: same answers).
// Exit 0 = all checks of the mode passed; 1 = a check failed (message on stderr).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simcuda.h"

#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)
#define CHECK_ERR(call, want)                                                     \
  do {                                                                            \
    cudaError_t got_ = (call);                                                    \
    if (got_ != (want)) {                                                         \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, \
              #call, cudaGetErrorName(got_), cudaGetErrorName(want));             \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)
#define OK(call) CHECK_ERR(call, cudaSuccess)

__global__ void fill_kernel(int *p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}
// No twin on purpose: launching it on the simulator must fail loudly.
__global__ void no_twin_kernel(int *p) { p[threadIdx.x] = 1; }
// Writes far outside its allocation: an illegal address on any device.
__global__ void oob_kernel(int *p) { p[(size_t)1 << 34] = 1; }
// Its twin is registered by main(), after the fatbin, only in mode "late".
__global__ void late_kernel(int *p) { p[threadIdx.x] = 7; }
__global__ void params_kernel(const float *a, int n, double d, char c, float *out) {
  if (threadIdx.x == 0) out[0] = a[0] + n + (float)d + c;
}

static int check_fill(int *d, int n, int v) {
  int *h = (int *)malloc(n * sizeof(int));
  OK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) CHECK(h[i] == v + i);
  free(h);
  return 0;
}

static int mode_errors(void) {
  CHECK(strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
  CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
  CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0);
  CHECK(strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0);
  CHECK(strcmp(cudaGetErrorString(cudaErrorIllegalAddress),
               "an illegal memory access was encountered") == 0);
  CHECK(strcmp(cudaGetErrorString(cudaErrorNoKernelImageForDevice),
               "no kernel image is available for execution on the device") == 0);
  CHECK(strcmp(cudaGetErrorName((cudaError_t)12345), "unrecognized error code") == 0);
  CHECK(strcmp(cudaGetErrorString((cudaError_t)12345), "unrecognized error code") == 0);
  OK(cudaGetLastError());
  // Non-sticky: reported once by cudaGetLastError, kept by cudaPeekAtLastError.
  CHECK_ERR(cudaMalloc(NULL, 16), cudaErrorInvalidValue);
  CHECK_ERR(cudaPeekAtLastError(), cudaErrorInvalidValue);
  CHECK_ERR(cudaPeekAtLastError(), cudaErrorInvalidValue);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  OK(cudaGetLastError());
  // A later success does not clear the last error.
  CHECK_ERR(cudaMemcpy(NULL, NULL, 4, (cudaMemcpyKind)17), cudaErrorInvalidMemcpyDirection);
  void *p;
  OK(cudaMalloc(&p, 64));
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
  // Bad launch configuration: reported at the launch, not sticky.
  fill_kernel<<<1, 4096>>>((int *)p, 1, 0);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  fill_kernel<<<0, 32>>>((int *)p, 1, 0);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  fill_kernel<<<1, 16>>>((int *)p, 16, 5);
  OK(cudaGetLastError());
  OK(cudaDeviceSynchronize());
  check_fill((int *)p, 16, 5);
  CHECK_ERR(cudaFree((char *)p + 4), cudaErrorInvalidValue);
  OK(cudaFree(p));
  OK(cudaFree(NULL));
  CHECK_ERR(cudaSetDevice(999), cudaErrorInvalidDevice);
  OK(cudaGetLastError() == cudaErrorInvalidDevice ? cudaSuccess : cudaErrorUnknown);
  return 0;
}

static int mode_notwin(void) {
  int *p;
  OK(cudaMalloc(&p, 256));
  no_twin_kernel<<<1, 32>>>(p);
  CHECK_ERR(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
  no_twin_kernel<<<1, 32>>>(p);  // still fails, still non-sticky
  CHECK_ERR(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
  cudaFuncAttributes fa;
  CHECK_ERR(cudaFuncGetAttributes(&fa, (const void *)no_twin_kernel),
            cudaErrorNoKernelImageForDevice);
  OK(cudaGetLastError() == cudaErrorNoKernelImageForDevice ? cudaSuccess : cudaErrorUnknown);
  void *args[] = {&p};
  CHECK_ERR(cudaLaunchKernel((const void *)no_twin_kernel, dim3(1), dim3(32), args, 0, 0),
            cudaErrorNoKernelImageForDevice);
  (void)cudaGetLastError();
  // The context is fine: a kernel with a twin runs.
  fill_kernel<<<2, 64>>>(p, 64, 3);
  OK(cudaGetLastError());
  check_fill(p, 64, 3);
  // Not a kernel at all.
  CHECK_ERR(cudaLaunchKernel((const void *)mode_notwin, dim3(1), dim3(1), args, 0, 0),
            cudaErrorInvalidDeviceFunction);
  (void)cudaGetLastError();
  OK(cudaFree(p));
  return 0;
}

static int mode_sticky(void) {
  int *p;
  OK(cudaMalloc(&p, 256));
  oob_kernel<<<1, 1>>>(p);
  OK(cudaGetLastError());  // the launch itself is fine; the fault comes later
  CHECK_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  CHECK_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
  CHECK_ERR(cudaGetLastError(), cudaErrorIllegalAddress);  // sticky: cannot be cleared
  void *q;
  CHECK_ERR(cudaMalloc(&q, 16), cudaErrorIllegalAddress);
  fill_kernel<<<1, 1>>>(p, 1, 0);
  CHECK_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
  CHECK_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  return 0;
}

static int mode_props(void) {
  int n = 0, dev = -1;
  OK(cudaGetDeviceCount(&n));
  CHECK(n >= 1);
  OK(cudaGetDevice(&dev));
  CHECK(dev == 0);
  cudaDeviceProp p;
  memset(&p, 0xff, sizeof p);
  OK(cudaGetDeviceProperties(&p, 0));
  CHECK(p.name[0] != 0 && strlen(p.name) < sizeof p.name);
  CHECK(p.major >= 7);
  CHECK(p.warpSize == 32);
  CHECK(p.maxThreadsPerBlock == 1024);
  CHECK(p.totalGlobalMem > ((size_t)1 << 28));
  CHECK(p.multiProcessorCount >= 1);
  CHECK(p.unifiedAddressing == 1);
  CHECK(p.maxGridSize[0] == 0x7fffffff && p.maxGridSize[1] == 65535);
  int v = 0;
  OK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
  CHECK(v == p.multiProcessorCount);
  OK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK(v == p.major);
  CHECK_ERR(cudaGetDeviceProperties(&p, n), cudaErrorInvalidDevice);
  CHECK_ERR(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, -1), cudaErrorInvalidDevice);
  (void)cudaGetLastError();
  OK(cudaRuntimeGetVersion(&v));
  CHECK(v == 13000);
  OK(cudaDriverGetVersion(&v));
  CHECK(v >= 13000);
  size_t fr = 0, tot = 0;
  OK(cudaMemGetInfo(&fr, &tot));
  CHECK(fr > 0 && fr <= tot);
  // Pointer attributes: device, pinned host, plain host.
  void *d, *h;
  int stack_var = 0;
  OK(cudaMalloc(&d, 64));
  OK(cudaMallocHost(&h, 64));
  cudaPointerAttributes a;
  OK(cudaPointerGetAttributes(&a, d));
  CHECK(a.type == cudaMemoryTypeDevice && a.device == 0 && a.devicePointer == d);
  OK(cudaPointerGetAttributes(&a, h));
  CHECK(a.type == cudaMemoryTypeHost && a.hostPointer == h);
  OK(cudaPointerGetAttributes(&a, &stack_var));
  CHECK(a.type == cudaMemoryTypeUnregistered);
  OK(cudaFree(d));
  OK(cudaFreeHost(h));
  OK(cudaSetDevice(0));
  OK(cudaSetDeviceFlags(cudaDeviceScheduleAuto));
  OK(cudaDeviceSynchronize());
  OK(cudaDeviceReset());
  OK(cudaMalloc(&d, 64));  // usable again after a reset
  fill_kernel<<<1, 16>>>((int *)d, 16, 1);
  OK(cudaGetLastError());
  check_fill((int *)d, 16, 1);
  return 0;
}

// Mode "reset": kernels launched, the device reset, the same kernels launched
// again (a CUDA 12+ runtime's kernels belong to no context: they are loaded again
// in the new primary context). Then a launch left queued behind a host function
// when main returns: nvcc's exit handler unregisters the fatbin (the runtime
// unloads its library) before the launch runs; a handler registered before
// nvcc's registration (so run after it) lets the launch go and checks its result.
static const int kExitN = 512;
static int g_gate_open, g_exit_armed, *g_exit_host;
static void CUDART_CB gate_fn(void *) {
  for (int i = 0; i < 5000 && !__atomic_load_n(&g_gate_open, __ATOMIC_ACQUIRE); i++) usleep(1000);
}
static void exit_check(void) {
  if (!g_exit_armed) return;
  __atomic_store_n(&g_gate_open, 1, __ATOMIC_RELEASE);
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaErrorCudartUnloading) return; // a real runtime has already gone
  if (e != cudaSuccess) {
    fprintf(stderr, "at exit: cudaDeviceSynchronize: %s\n", cudaGetErrorName(e));
    _exit(1);
  }
  for (int i = 0; i < kExitN; i++)
    if (g_exit_host[i] != 8 + i) {
      fprintf(stderr, "at exit: out[%d] = %d, expected %d\n", i, g_exit_host[i], 8 + i);
      _exit(1);
    }
  fprintf(stderr, "at exit: the launch queued when the fatbin was unregistered ran\n");
}
__attribute__((constructor(101))) static void exit_check_register(void) { atexit(exit_check); }

static int mode_reset(void) {
  const int n = 1024;
  int *d;
  for (int round = 0; round < 3; round++) {
    OK(cudaMalloc(&d, n * sizeof(int)));
    fill_kernel<<<n / 128, 128>>>(d, n, round);
    OK(cudaGetLastError());
    check_fill(d, n, round);
    cudaFuncAttributes fa;
    OK(cudaFuncGetAttributes(&fa, fill_kernel));
    // Another launch still queued when the device is reset.
    fill_kernel<<<n / 128, 128>>>(d, n, round + 100);
    OK(cudaGetLastError());
    OK(cudaDeviceReset());
  }
  // Mapped host memory the kernel writes; it outlives the context.
  g_exit_host = (int *)malloc(kExitN * sizeof(int));
  CHECK(g_exit_host);
  memset(g_exit_host, 0, kExitN * sizeof(int));
  OK(cudaHostRegister(g_exit_host, kExitN * sizeof(int), cudaHostRegisterMapped));
  int *dev;
  OK(cudaHostGetDevicePointer((void **)&dev, g_exit_host, 0));
  cudaStream_t s;
  OK(cudaStreamCreate(&s));
  OK(cudaLaunchHostFunc(s, gate_fn, NULL));
  fill_kernel<<<kExitN / 128, 128, 0, s>>>(dev, kExitN, 8);
  OK(cudaGetLastError());
  g_exit_armed = 1;
  return 0;
}

static int g_order[8], g_norder;
static void host_fn(void *p) { g_order[g_norder++] = (int)(size_t)p; }
static void CUDART_CB stream_cb(cudaStream_t s, cudaError_t st, void *p) {
  CHECK(st == cudaSuccess);
  g_order[g_norder++] = (int)(size_t)p;
}

static int mode_streams(void) {
  const int n = 4096;
  cudaStream_t s1, s2, s3;
  OK(cudaStreamCreate(&s1));
  OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  OK(cudaStreamCreateWithPriority(&s3, cudaStreamDefault, 0));
  CHECK_ERR(cudaStreamCreateWithFlags(&s3, 0x100), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  cudaEvent_t e1, e2, e3;
  OK(cudaEventCreate(&e1));
  OK(cudaEventCreate(&e2));
  OK(cudaEventCreateWithFlags(&e3, cudaEventDisableTiming));
  int *d, *h;
  OK(cudaMalloc(&d, n * sizeof(int)));
  OK(cudaHostAlloc(&h, n * sizeof(int), cudaHostAllocPortable));
  OK(cudaEventRecord(e1, s1));
  fill_kernel<<<n / 128, 128, 0, s1>>>(d, n, 10);
  OK(cudaGetLastError());
  OK(cudaEventRecord(e3, s1));
  OK(cudaStreamWaitEvent(s2, e3, 0));
  OK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s2));
  OK(cudaLaunchHostFunc(s2, host_fn, (void *)1));
  OK(cudaStreamAddCallback(s2, stream_cb, (void *)2, 0));
  OK(cudaLaunchHostFunc(s2, host_fn, (void *)3));
  OK(cudaEventRecord(e2, s2));
  OK(cudaStreamSynchronize(s2));
  CHECK(g_norder == 3 && g_order[0] == 1 && g_order[1] == 2 && g_order[2] == 3);
  for (int i = 0; i < n; i++) CHECK(h[i] == 10 + i);
  OK(cudaEventSynchronize(e2));
  OK(cudaEventQuery(e2));
  OK(cudaStreamQuery(s1));
  float ms = -1;
  OK(cudaEventSynchronize(e1));
  CHECK_ERR(cudaEventElapsedTime(&ms, e1, e3), cudaErrorInvalidResourceHandle);
  (void)cudaGetLastError();
  // Timing across streams works once both are complete.
  OK(cudaEventElapsedTime(&ms, e1, e2));
  CHECK(ms >= 0);
  // memset / 2-D copies / pitched memory.
  OK(cudaMemsetAsync(d, 0xab, n * sizeof(int), s1));
  OK(cudaStreamSynchronize(s1));
  OK(cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost));
  CHECK(h[0] == (int)0xabababab && h[1] == (int)0xabababab);
  int *pitched;
  size_t pitch = 0;
  OK(cudaMallocPitch((void **)&pitched, &pitch, 10 * sizeof(int), 7));
  CHECK(pitch >= 10 * sizeof(int));
  OK(cudaMemset2D(pitched, pitch, 0, 10 * sizeof(int), 7));
  int src[7][10], back[7][10];
  for (int r = 0; r < 7; r++)
    for (int c = 0; c < 10; c++) src[r][c] = r * 100 + c;
  OK(cudaMemcpy2D(pitched, pitch, src, sizeof src[0], sizeof src[0], 7, cudaMemcpyHostToDevice));
  memset(back, 0, sizeof back);
  OK(cudaMemcpy2DAsync(back, sizeof back[0], pitched, pitch, sizeof back[0], 7,
                       cudaMemcpyDeviceToHost, s1));
  OK(cudaStreamSynchronize(s1));
  CHECK(memcmp(src, back, sizeof src) == 0);
  CHECK_ERR(cudaMemcpy2D(pitched, 4, src, sizeof src[0], 8, 7, cudaMemcpyHostToDevice),
            cudaErrorInvalidPitchValue);
  (void)cudaGetLastError();
  OK(cudaFree(pitched));
  // Stream-ordered allocation.
  int *ad;
  OK(cudaMallocAsync((void **)&ad, 1024, s1));
  fill_kernel<<<1, 256, 0, s1>>>(ad, 256, 4);
  OK(cudaMemcpyAsync(h, ad, 1024, cudaMemcpyDeviceToHost, s1));
  OK(cudaFreeAsync(ad, s1));
  OK(cudaStreamSynchronize(s1));
  for (int i = 0; i < 256; i++) CHECK(h[i] == 4 + i);
  // Managed memory and mapped pinned memory, written by kernels.
  int *m;
  OK(cudaMallocManaged((void **)&m, 256 * sizeof(int), cudaMemAttachGlobal));
  fill_kernel<<<1, 256>>>(m, 256, 9);
  OK(cudaDeviceSynchronize());
  for (int i = 0; i < 256; i++) CHECK(m[i] == 9 + i);
  OK(cudaFree(m));
  int *mapped, *mapped_d;
  OK(cudaHostAlloc((void **)&mapped, 256 * sizeof(int), cudaHostAllocMapped));
  OK(cudaHostGetDevicePointer((void **)&mapped_d, mapped, 0));
  fill_kernel<<<1, 256>>>(mapped_d, 256, 2);
  OK(cudaDeviceSynchronize());
  for (int i = 0; i < 256; i++) CHECK(mapped[i] == 2 + i);
  OK(cudaFreeHost(mapped));
  OK(cudaEventDestroy(e1));
  OK(cudaEventDestroy(e2));
  OK(cudaEventDestroy(e3));
  OK(cudaStreamDestroy(s1));
  OK(cudaStreamDestroy(s2));
  OK(cudaStreamDestroy(s3));
  OK(cudaFree(d));
  OK(cudaFreeHost(h));
  return 0;
}

static int mode_funcs(void) {
  size_t off = 99, size = 99;
  const void *f = (const void *)params_kernel;
  OK(cudaFuncGetParamInfo(f, 0, &off, &size));
  CHECK(off == 0 && size == 8);
  OK(cudaFuncGetParamInfo(f, 1, &off, &size));
  CHECK(off == 8 && size == 4);
  OK(cudaFuncGetParamInfo(f, 2, &off, &size));
  CHECK(off == 16 && size == 8);
  OK(cudaFuncGetParamInfo(f, 3, &off, &size));
  CHECK(off == 24 && size == 1);
  OK(cudaFuncGetParamInfo(f, 4, &off, &size));
  CHECK(off == 32 && size == 8);
  CHECK_ERR(cudaFuncGetParamInfo(f, 5, &off, &size), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  cudaFuncAttributes fa;
  OK(cudaFuncGetAttributes(&fa, (const void *)fill_kernel));
  CHECK(fa.maxThreadsPerBlock > 0 && fa.maxThreadsPerBlock <= 1024);
  OK(cudaFuncSetAttribute((const void *)fill_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          1024));
  // The public launch APIs, with the host stub as the function.
  int *d;
  OK(cudaMalloc(&d, 64 * sizeof(int)));
  int n = 64, v = 20;
  void *args[] = {&d, &n, &v};
  OK(cudaLaunchKernel((const void *)fill_kernel, dim3(1), dim3(64), args, 0, 0));
  check_fill(d, 64, 20);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(2);
  cfg.blockDim = dim3(32);
  v = 30;
  OK(cudaLaunchKernelExC(&cfg, (const void *)fill_kernel, args));
  check_fill(d, 64, 30);
  // A cudaKernel_t is accepted where a function is.
  cudaKernel_t k;
  OK(cudaGetKernel(&k, (const void *)fill_kernel));
  v = 40;
  OK(cudaLaunchKernel((const void *)k, dim3(1), dim3(64), args, 0, 0));
  check_fill(d, 64, 40);
  OK(cudaFree(d));
  void *fn = NULL;
  cudaDriverEntryPointQueryResult q;
  OK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 13000, cudaEnableDefault, &q));
  CHECK(fn != NULL && q == cudaDriverEntryPointSuccess);
  fn = NULL;
  OK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, 13000, cudaEnablePerThreadDefaultStream, &q));
  CHECK(fn != NULL && q == cudaDriverEntryPointSuccess);
  return 0;
}

// Twins registered late (from main, after nvcc's registration and a first failed
// launch): the runtime matches them at the next launch.
extern "C" void rt_probe_late_twin(const simcuda_block_t *blk, void **params);
static int mode_late(void) {
  int *p;
  OK(cudaMalloc(&p, 32 * sizeof(int)));
  late_kernel<<<1, 32>>>(p);
  simcuda_register_twins_fn reg =
      (simcuda_register_twins_fn)dlsym(RTLD_DEFAULT, "simcudaRegisterTwins");
  if (reg) {  // simulator: the first launch had no twin yet
    CHECK_ERR(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
    static const uint16_t sz[] = {8}, al[] = {8};
    static const simcuda_kernel_t k[] = {{"_Z11late_kernelPi", rt_probe_late_twin, 1, sz, al}};
    reg(k, 1);
  } else {
    OK(cudaGetLastError());
  }
  late_kernel<<<1, 32>>>(p);
  OK(cudaGetLastError());
  int h[32];
  OK(cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; i++) CHECK(h[i] == 7);
  OK(cudaFree(p));
  return 0;
}

// CUDA arrays and surface objects: the runtime's argument errors (the driver's
// own are test_simdrv's), an array's description read back, a 2-D round trip.
static int mode_arrays(void) {
  cudaArray_t a;
  cudaChannelFormatDesc three = cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindUnsigned);
  cudaChannelFormatDesc mixed = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
  cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
  CHECK_ERR(cudaMallocArray(&a, &three, 4, 4, 0), cudaErrorInvalidChannelDescriptor);
  CHECK_ERR(cudaMallocArray(&a, &mixed, 4, 4, 0), cudaErrorInvalidChannelDescriptor);
  CHECK_ERR(cudaMallocArray(&a, &f2, 0, 4, 0), cudaErrorInvalidValue);
  CHECK_ERR(cudaMalloc3DArray(&a, &f2, make_cudaExtent(4, 4, 0), cudaArrayLayered), cudaErrorInvalidValue);
  OK(cudaFreeArray(NULL));
  OK(cudaMalloc3DArray(&a, &f2, make_cudaExtent(5, 3, 2), cudaArraySurfaceLoadStore));
  cudaChannelFormatDesc got;
  cudaExtent e;
  unsigned flags;
  OK(cudaArrayGetInfo(&got, &e, &flags, a));
  CHECK(got.x == 32 && got.y == 32 && got.z == 0 && got.w == 0 && got.f == cudaChannelFormatKindFloat);
  CHECK(e.width == 5 && e.height == 3 && e.depth == 2 && flags == cudaArraySurfaceLoadStore);
  float2 in[3][5], out[3][5];
  for (int i = 0; i < 15; i++) in[i / 5][i % 5] = make_float2((float)i, -(float)i);
  CHECK_ERR(cudaMemcpy2DToArray(a, 0, 0, in, 8, 40, 3, cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
  CHECK_ERR(cudaMemcpy2DToArray(a, 4, 0, in, 40, 32, 3, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpy2DToArray(a, 8, 0, in, 40, 40, 3, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  OK(cudaMemcpy2DToArray(a, 0, 0, in, 40, 40, 3, cudaMemcpyHostToDevice));
  OK(cudaMemcpy2DFromArray(out, 40, a, 0, 0, 40, 3, cudaMemcpyDeviceToHost));
  CHECK(memcmp(in, out, sizeof in) == 0);
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeLinear;
  cudaSurfaceObject_t s;
  CHECK_ERR(cudaCreateSurfaceObject(&s, &rd), cudaErrorInvalidValue);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  OK(cudaCreateSurfaceObject(&s, &rd));
  OK(cudaDestroySurfaceObject(s));
  OK(cudaFreeArray(a));
  OK(cudaMallocArray(&a, &f2, 4, 4, 0));
  rd.res.array.array = a;
  CHECK_ERR(cudaCreateSurfaceObject(&s, &rd), cudaErrorInvalidValue);  // no cudaArraySurfaceLoadStore
  OK(cudaFreeArray(a));
  return 0;
}

// Without libcuda.so.1 (run with only the runtime on the library path).
static int mode_nodriver(void) {
  int n = 7, v = 7;
  CHECK_ERR(cudaGetDeviceCount(&n), cudaErrorInsufficientDriver);
  CHECK(n == 0);
  OK(cudaDriverGetVersion(&v));
  CHECK(v == 0);
  void *p;
  CHECK_ERR(cudaMalloc(&p, 16), cudaErrorInsufficientDriver);
  CHECK_ERR(cudaGetLastError(), cudaErrorInsufficientDriver);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: rt_probe errors|notwin|sticky|props|streams|funcs|late|reset|arrays\n");
    return 64;
  }
  static const struct { const char *name; int (*fn)(void); } modes[] = {
      {"errors", mode_errors}, {"notwin", mode_notwin}, {"sticky", mode_sticky},
      {"props", mode_props},   {"streams", mode_streams}, {"funcs", mode_funcs},
      {"late", mode_late},     {"nodriver", mode_nodriver}, {"reset", mode_reset},
      {"arrays", mode_arrays}};
  for (auto &m : modes)
    if (strcmp(argv[1], m.name) == 0) {
      int r = m.fn();
      if (r == 0) printf("rt_probe %s: ok\n", m.name);
      return r;
    }
  fprintf(stderr, "rt_probe: unknown mode %s\n", argv[1]);
  return 64;
}
