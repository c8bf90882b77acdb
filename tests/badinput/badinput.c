/* badinput.c: one bad driver API call, chosen by number, made by a program that
 * then prints what it can observe: the call's result, the next synchronisation's
 * result, and a hash of every buffer it owns (device buffers read back, host
 * buffers). `badinput N` runs case N; `badinput --count` prints the number of
 * cases; `badinput --name N` its name. Run with and without gpuft, the outputs
 * must be identical (tests/badinput/test_badinput.c). */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twin_fill.h"

#define N 65536 /* bytes of each buffer */

static CUcontext ctx, dead_ctx;
static CUmodule mod, dead_mod;
static CUfunction fill, dead_fill;
static CUdeviceptr A, B, F; /* two live buffers and a freed one */
static uint8_t *H, *G, *P;  /* host source, host destination, pinned */
static CUstream S, X;       /* a live stream and a destroyed one */
static CUevent E, Y;        /* a live event and a destroyed one */

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
                       unsigned shmem, CUstream s, CUdeviceptr p) {
  unsigned v = 0x5a5a5a5a;
  void *params[] = {&p, &v};
  return cuLaunchKernel(f, gx, gy, 1, bx, by, 1, shmem, s, params, NULL);
}

static CUresult no_ctx(CUresult (*call)(void)) {
  cuCtxSetCurrent(NULL);
  CUresult r = call();
  cuCtxSetCurrent(ctx);
  return r;
}
static CUresult nc_sync(void) { return cuCtxSynchronize(); }
static CUresult nc_alloc(void) {
  CUdeviceptr p;
  return cuMemAlloc(&p, 4096);
}
static CUresult nc_htod(void) { return cuMemcpyHtoD(A, H, 256); }
static CUresult nc_launch(void) { return launch(fill, 1, 1, 32, 1, 0, NULL, A); }
static CUresult nc_free(void) { return cuMemFree(B); }

static CUresult memcpy2d(size_t wbytes, size_t h, size_t dpitch, CUdeviceptr dst, const void *src,
                         size_t spitch) {
  CUDA_MEMCPY2D m;
  memset(&m, 0, sizeof m);
  m.srcMemoryType = CU_MEMORYTYPE_HOST;
  m.srcHost = src;
  m.srcPitch = spitch;
  m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  m.dstDevice = dst;
  m.dstPitch = dpitch;
  m.WidthInBytes = wbytes;
  m.Height = h;
  return cuMemcpy2D(&m);
}

static CUresult memcpy3d(size_t wbytes, size_t h, size_t d, CUdeviceptr dst) {
  CUDA_MEMCPY3D m;
  memset(&m, 0, sizeof m);
  m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  m.srcDevice = B;
  m.srcPitch = 256;
  m.srcHeight = 16;
  m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  m.dstDevice = dst;
  m.dstPitch = 256;
  m.dstHeight = 16;
  m.WidthInBytes = wbytes;
  m.Height = h;
  m.Depth = d;
  return cuMemcpy3D(&m);
}

static void CUDA_CB host_fn(void *p) { (void)p; }

/* One case: a name and the call. */
typedef struct {
  const char *name;
  CUresult (*run)(void);
} bad_t;

#define CASE(name, expr) static CUresult case_##name(void) { return (expr); }
#define CASE_BODY(name, ...) static CUresult case_##name(void) __VA_ARGS__
/* ---- host-to-device ---- */
CASE(htod_null_src, cuMemcpyHtoD(A, NULL, 256))
CASE(htod_null_dst, cuMemcpyHtoD(0, H, 256))
CASE(htod_freed_dst, cuMemcpyHtoD(F, H, 256))
CASE(htod_past_end, cuMemcpyHtoD(A, H, N + 1))
CASE(htod_offset_past_end, cuMemcpyHtoD(A + N - 8, H, 16))
CASE(htod_one_past_end, cuMemcpyHtoD(A + N, H, 4))
CASE(htod_zero_size, cuMemcpyHtoD(A, H, 0))
CASE(htod_src_is_device, cuMemcpyHtoD(A, (const void *)(uintptr_t)B, 256))
CASE(htod_unaligned, cuMemcpyHtoD(A + 3, H + 1, 5))
CASE(htod_unaligned_tail, cuMemcpyHtoD(A + 4093, H, 9000))
CASE(htod_async_dead_stream, cuMemcpyHtoDAsync(A, H, 256, X))
CASE(htod_async_null_src, cuMemcpyHtoDAsync(A, NULL, 256, S))
CASE(htod_async_past_end, cuMemcpyHtoDAsync(A + 4096, H, N, S))
CASE(htod_async_pinned_past_end, cuMemcpyHtoDAsync(A + 128, P, N, S))
CASE(htod_async_freed_dst, cuMemcpyHtoDAsync(F, P, 64, S))
CASE(htod_huge_size, cuMemcpyHtoD(A, H, (size_t)-1))
/* ---- device-to-host ---- */
CASE(dtoh_null_dst, cuMemcpyDtoH(NULL, A, 256))
CASE(dtoh_null_src, cuMemcpyDtoH(G, 0, 256))
CASE(dtoh_freed_src, cuMemcpyDtoH(G, F, 256))
CASE(dtoh_past_end, cuMemcpyDtoH(G, A + 1, N))
CASE(dtoh_dst_is_device, cuMemcpyDtoH((void *)(uintptr_t)B, A, 256))
CASE(dtoh_zero_size, cuMemcpyDtoH(G, A, 0))
CASE(dtoh_unaligned, cuMemcpyDtoH(G + 3, A + 5, 7))
CASE(dtoh_async_dead_stream, cuMemcpyDtoHAsync(G, A, 256, X))
CASE(dtoh_async_past_end, cuMemcpyDtoHAsync(P, A + N - 4, 8, S))
CASE(dtoh_async_freed_src, cuMemcpyDtoHAsync(P, F, 8, S))
CASE(dtoh_huge_size, cuMemcpyDtoH(G, A, (size_t)-1 / 2))
/* ---- device-to-device ---- */
CASE(dtod_freed_src, cuMemcpyDtoD(A, F, 256))
CASE(dtod_freed_dst, cuMemcpyDtoD(F, A, 256))
CASE(dtod_both_freed, cuMemcpyDtoD(F, F + 128, 128))
CASE(dtod_src_past_end, cuMemcpyDtoD(A, B + 8, N))
CASE(dtod_dst_past_end, cuMemcpyDtoD(A + 8, B, N))
CASE(dtod_zero_size, cuMemcpyDtoD(A, B, 0))
CASE(dtod_null_src, cuMemcpyDtoD(A, 0, 64))
CASE(dtod_async_dead_stream, cuMemcpyDtoDAsync(A, B, 256, X))
CASE(dtod_unaligned, cuMemcpyDtoD(A + 1, B + 2, 301))
CASE(memcpy_null_dst, cuMemcpy(0, B, 64))
CASE(memcpy_freed_src, cuMemcpy(A, F, 64))
CASE(memcpy_async_past_end, cuMemcpyAsync(A, B, N + 64, S))
CASE(memcpy_host_past_device_end, cuMemcpy(A + N - 16, (CUdeviceptr)(uintptr_t)H, 32))
/* ---- 2-D and 3-D ---- */
CASE(memcpy2d_null_params, cuMemcpy2D(NULL))
CASE(memcpy2d_pitch_below_width, memcpy2d(256, 4, 128, A, H, 256))
CASE(memcpy2d_freed_dst, memcpy2d(64, 4, 256, F, H, 256))
CASE(memcpy2d_null_src, memcpy2d(64, 4, 256, A, NULL, 256))
CASE(memcpy2d_past_end, memcpy2d(256, 300, 256, A, H, 128))
CASE(memcpy3d_null_params, cuMemcpy3D(NULL))
CASE(memcpy3d_past_end, memcpy3d(256, 16, 20, A))
CASE(memcpy3d_freed_dst, memcpy3d(256, 2, 1, F))
/* ---- memsets ---- */
CASE(memset8_past_end, cuMemsetD8(A + 16, 0x77, N))
CASE(memset32_past_end, cuMemsetD32(A, 0x77777777, N / 4 + 1))
CASE(memset32_unaligned, cuMemsetD32(A + 2, 0x77777777, 16))
CASE(memset16_unaligned, cuMemsetD16(A + 1, 0x7777, 16))
CASE(memset8_freed, cuMemsetD8(F, 1, 16))
CASE(memset8_null, cuMemsetD8(0, 1, 16))
CASE(memset8_zero, cuMemsetD8(A, 1, 0))
CASE(memset32_async_dead_stream, cuMemsetD32Async(A, 1, 16, X))
CASE(memset2d_pitch_below_width, cuMemsetD2D32(A, 16, 5, 8, 4))
CASE(memset2d_past_end, cuMemsetD2D8(A, 1024, 9, 1024, 65))
/* ---- frees ---- */
CASE(free_double, cuMemFree(F))
CASE(free_interior, cuMemFree(A + 128))
CASE(free_host_pointer, cuMemFree((CUdeviceptr)(uintptr_t)H))
CASE(free_async_double, cuMemFreeAsync(F, S))
CASE(free_async_interior, cuMemFreeAsync(B + 64, S))
CASE(free_async_dead_stream, cuMemFreeAsync(B, X))
CASE(freehost_device_pointer, cuMemFreeHost((void *)(uintptr_t)A))
CASE(freehost_pageable, cuMemFreeHost(H))
/* ---- allocations ---- */
CASE_BODY(alloc_zero, { CUdeviceptr p = 0; return cuMemAlloc(&p, 0); })
CASE(alloc_null_out, cuMemAlloc(NULL, 4096))
CASE_BODY(alloc_huge, { CUdeviceptr p = 0; return cuMemAlloc(&p, (size_t)1 << 62); })
CASE_BODY(alloc_pitch_bad_elem, {
  CUdeviceptr p = 0;
  size_t pitch;
  return cuMemAllocPitch(&p, &pitch, 256, 4, 3);
})
CASE_BODY(alloc_async_dead_stream, { CUdeviceptr p = 0; return cuMemAllocAsync(&p, 4096, X); })
CASE_BODY(alloc_host_zero, { void *p = NULL; return cuMemAllocHost(&p, 0); })
/* ---- launches ---- */
CASE(launch_null_function, launch(NULL, 1, 1, 32, 1, 0, S, A))
CASE(launch_grid_zero, launch(fill, 0, 1, 32, 1, 0, S, A))
CASE(launch_block_zero, launch(fill, 1, 1, 0, 1, 0, S, A))
CASE(launch_block_too_big, launch(fill, 1, 1, 2048, 1, 0, S, A))
CASE(launch_block_y_too_big, launch(fill, 1, 1, 32, 64, 0, S, A))
CASE(launch_grid_y_too_big, launch(fill, 1, 70000, 32, 1, 0, S, A))
CASE(launch_shared_too_big, launch(fill, 1, 1, 32, 1, 1u << 30, S, A))
CASE(launch_dead_stream, launch(fill, 1, 1, 32, 1, 0, X, A))
CASE(launch_freed_arg, launch(fill, 1, 1, 32, 1, 0, S, F))
CASE(launch_past_end, launch(fill, 65, 1, 256, 1, 0, S, A))
CASE(launch_null_params, cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, S, NULL, NULL))
CASE_BODY(launch_params_and_extra, {
  CUdeviceptr p = A;
  unsigned v = 1;
  void *params[] = {&p, &v};
  void *extra[] = {CU_LAUNCH_PARAM_END};
  return cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, S, params, extra);
})
CASE_BODY(launch_extra_bad_size, {
  uint8_t buf[16] = {0};
  size_t sz = 4; /* too small for the kernel's 12 bytes of parameters */
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &sz,
                   CU_LAUNCH_PARAM_END};
  return cuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, S, NULL, extra);
})
CASE(launch_unloaded_module, launch(dead_fill, 1, 1, 32, 1, 0, S, A))
CASE(launch_host_fn_null, cuLaunchHostFunc(S, NULL, NULL))
CASE(launch_host_fn_dead_stream, cuLaunchHostFunc(X, host_fn, NULL))
/* ---- streams and events ---- */
CASE(stream_sync_dead, cuStreamSynchronize(X))
CASE(stream_query_dead, cuStreamQuery(X))
CASE(stream_destroy_twice, cuStreamDestroy(X))
CASE(stream_wait_dead_event, cuStreamWaitEvent(S, Y, 0))
CASE(stream_wait_on_dead_stream, cuStreamWaitEvent(X, E, 0))
CASE(event_record_dead, cuEventRecord(Y, S))
CASE(event_record_dead_stream, cuEventRecord(E, X))
CASE(event_sync_dead, cuEventSynchronize(Y))
CASE(event_query_dead, cuEventQuery(Y))
CASE(event_destroy_twice, cuEventDestroy(Y))
CASE_BODY(event_elapsed_unrecorded, {
  float ms = 0;
  return cuEventElapsedTime(&ms, E, E);
})
CASE(event_elapsed_null, cuEventElapsedTime(NULL, E, E))
/* ---- contexts and modules ---- */
CASE(ctx_sync_without_context, no_ctx(nc_sync))
CASE(alloc_without_context, no_ctx(nc_alloc))
CASE(htod_without_context, no_ctx(nc_htod))
CASE(launch_without_context, no_ctx(nc_launch))
CASE(free_without_context, no_ctx(nc_free))
CASE(ctx_destroy_twice, cuCtxDestroy(dead_ctx))
CASE_BODY(ctx_push_destroyed, {
  CUresult r = cuCtxPushCurrent(dead_ctx);
  CUcontext c;
  if (r == CUDA_SUCCESS) cuCtxPopCurrent(&c);
  return r;
})
CASE_BODY(module_function_bad_name, { CUfunction f; return cuModuleGetFunction(&f, mod, "nope"); })
CASE(module_unload_twice, cuModuleUnload(dead_mod))
CASE_BODY(address_range_freed, {
  CUdeviceptr b;
  size_t s;
  return cuMemGetAddressRange(&b, &s, F);
})
CASE_BODY(pointer_attribute_freed, {
  unsigned t = 0;
  return cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, F);
})
CASE_BODY(peer_copy_destroyed_ctx, { return cuMemcpyPeer(A, ctx, F, dead_ctx, 64); })

static const bad_t cases[] = {
#define C(name) {#name, case_##name},
    C(htod_null_src) C(htod_null_dst) C(htod_freed_dst) C(htod_past_end) C(htod_offset_past_end)
    C(htod_one_past_end) C(htod_zero_size) C(htod_src_is_device) C(htod_unaligned)
    C(htod_unaligned_tail) C(htod_async_dead_stream) C(htod_async_null_src) C(htod_async_past_end)
    C(htod_async_pinned_past_end) C(htod_async_freed_dst) C(htod_huge_size)
    C(dtoh_null_dst) C(dtoh_null_src) C(dtoh_freed_src) C(dtoh_past_end) C(dtoh_dst_is_device)
    C(dtoh_zero_size) C(dtoh_unaligned) C(dtoh_async_dead_stream) C(dtoh_async_past_end)
    C(dtoh_async_freed_src) C(dtoh_huge_size)
    C(dtod_freed_src) C(dtod_freed_dst) C(dtod_both_freed) C(dtod_src_past_end)
    C(dtod_dst_past_end) C(dtod_zero_size) C(dtod_null_src) C(dtod_async_dead_stream)
    C(dtod_unaligned) C(memcpy_null_dst) C(memcpy_freed_src) C(memcpy_async_past_end)
    C(memcpy_host_past_device_end)
    C(memcpy2d_null_params) C(memcpy2d_pitch_below_width) C(memcpy2d_freed_dst)
    C(memcpy2d_null_src) C(memcpy2d_past_end) C(memcpy3d_null_params) C(memcpy3d_past_end)
    C(memcpy3d_freed_dst)
    C(memset8_past_end) C(memset32_past_end) C(memset32_unaligned) C(memset16_unaligned)
    C(memset8_freed) C(memset8_null) C(memset8_zero) C(memset32_async_dead_stream)
    C(memset2d_pitch_below_width) C(memset2d_past_end)
    C(free_double) C(free_interior) C(free_host_pointer) C(free_async_double)
    C(free_async_interior) C(free_async_dead_stream) C(freehost_device_pointer)
    C(freehost_pageable)
    C(alloc_zero) C(alloc_null_out) C(alloc_huge) C(alloc_pitch_bad_elem)
    C(alloc_async_dead_stream) C(alloc_host_zero)
    C(launch_null_function) C(launch_grid_zero) C(launch_block_zero) C(launch_block_too_big)
    C(launch_block_y_too_big) C(launch_grid_y_too_big) C(launch_shared_too_big)
    C(launch_dead_stream) C(launch_freed_arg) C(launch_past_end) C(launch_null_params)
    C(launch_params_and_extra) C(launch_extra_bad_size) C(launch_unloaded_module)
    C(launch_host_fn_null) C(launch_host_fn_dead_stream)
    C(stream_sync_dead) C(stream_query_dead) C(stream_destroy_twice) C(stream_wait_dead_event)
    C(stream_wait_on_dead_stream) C(event_record_dead) C(event_record_dead_stream)
    C(event_sync_dead) C(event_query_dead) C(event_destroy_twice) C(event_elapsed_unrecorded)
    C(event_elapsed_null)
    C(ctx_sync_without_context) C(alloc_without_context) C(htod_without_context)
    C(launch_without_context) C(free_without_context) C(ctx_destroy_twice)
    C(ctx_push_destroyed) C(module_function_bad_name) C(module_unload_twice)
    C(address_range_freed) C(pointer_attribute_freed) C(peer_copy_destroyed_ctx)
#undef C
};
#define N_CASES (int)(sizeof cases / sizeof *cases)

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static int setup(void) {
  CUdevice dev;
  if (cuInit(0) || cuDeviceGet(&dev, 0)) return -1;
  /* a context created and destroyed, with a module unloaded in it */
  if (cuCtxCreate(&dead_ctx, NULL, 0, dev) || cuCtxDestroy(dead_ctx)) return -1;
  if (cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) return -1;
  if (tf_load(&dead_mod, &dead_fill) || cuModuleUnload(dead_mod)) return -1;
  if (tf_load(&mod, &fill)) return -1;
  H = malloc(N);
  G = malloc(N);
  if (!H || !G || cuMemAllocHost((void **)&P, N)) return -1;
  for (size_t i = 0; i < N; i++) {
    H[i] = (uint8_t)(i * 7 + 1);
    G[i] = 0xee;
    P[i] = (uint8_t)(i * 13 + 5);
  }
  if (cuMemAlloc(&A, N) || cuMemAlloc(&B, N) || cuMemAlloc(&F, 4096)) return -1;
  if (cuMemcpyHtoD(A, P, N) || cuMemcpyHtoD(B, H, N) || cuMemFree(F)) return -1;
  if (cuStreamCreate(&S, CU_STREAM_NON_BLOCKING) || cuStreamCreate(&X, 0) || cuStreamDestroy(X))
    return -1;
  if (cuEventCreate(&E, 0) || cuEventCreate(&Y, 0) || cuEventDestroy(Y)) return -1;
  return cuCtxSynchronize() ? -1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--count")) return printf("%d\n", N_CASES), 0;
  if (argc == 3 && !strcmp(argv[1], "--name")) {
    int i = atoi(argv[2]);
    return i >= 0 && i < N_CASES ? (printf("%s\n", cases[i].name), 0) : 2;
  }
  int i = argc == 2 ? atoi(argv[1]) : -1;
  if (i < 0 || i >= N_CASES) return 2;
  if (setup()) {
    fprintf(stderr, "badinput: setup failed\n");
    return 3;
  }
  CUresult r = cases[i].run();
  CUresult rs = cuCtxSynchronize();
  /* everything the program can see afterwards */
  uint8_t *back = malloc(N);
  uint64_t h = 0xcbf29ce484222325ull;
  CUresult ra = cuMemcpyDtoH(back, A, N);
  if (ra == CUDA_SUCCESS) h = fnv(h, back, N);
  CUresult rb = cuMemcpyDtoH(back, B, N);
  if (rb == CUDA_SUCCESS) h = fnv(h, back, N);
  h = fnv(h, H, N);
  h = fnv(h, G, N);
  h = fnv(h, P, N);
  printf("%s: call %d, sync %d, read-backs %d %d, memory %016llx\n", cases[i].name, (int)r,
         (int)rs, (int)ra, (int)rb, (unsigned long long)h);
  free(back);
  return 0;
}
