/* test_devices.c: several devices (SIMCUDA_DEVICES): enumeration and properties,
 * a primary context and memory per device, unified addressing, peer access and its
 * error codes, kernels touching a peer's memory, peer copies, a halo exchange. */
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

/* cuInit with n devices; the primary context of each retained, device 0's current. */
static void setup_devices(int n, CUcontext *ctx) {
  char v[8];
  snprintf(v, sizeof v, "%d", n);
  setenv("SIMCUDA_DEVICES", v, 1);
  CK(cuInit(0));
  for (int d = 0; d < n; d++) CK(cuDevicePrimaryCtxRetain(&ctx[d], d));
  CK(cuCtxSetCurrent(ctx[0]));
}

TEST_IMPL(devices_enumerate) {
  CUcontext ctx[3];
  setup_devices(3, ctx);
  int n;
  CK(cuDeviceGetCount(&n));
  ASSERT_EQ(n, 3);
  CUdevice d;
  CK(cuDeviceGet(&d, 2));
  ASSERT_EQ(d, 2);
  ASSERT_CU(cuDeviceGet(&d, 3), CUDA_ERROR_INVALID_DEVICE);
  ASSERT_CU(cuDeviceGet(&d, -1), CUDA_ERROR_INVALID_DEVICE);
  char names[3][64], pci[3][32];
  CUuuid uuid[3];
  for (int i = 0; i < 3; i++) {
    CK(cuDeviceGetName(names[i], sizeof names[i], i));
    CK(cuDeviceGetPCIBusId(pci[i], sizeof pci[i], i));
    CK(cuDeviceGetUuid(&uuid[i], i));
    int bus, cc, vmm;
    CK(cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i));
    ASSERT_EQ(bus, i + 1);
    CK(cuDeviceGetAttribute(&cc, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, i));
    ASSERT_EQ(cc, 8);
    CK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, i));
    ASSERT_EQ(vmm, 1);
    for (int j = 0; j < i; j++) {
      ASSERT(strcmp(names[i], names[j]) != 0);
      ASSERT(strcmp(pci[i], pci[j]) != 0);
      ASSERT(memcmp(&uuid[i], &uuid[j], sizeof uuid[i]) != 0);
    }
  }
  ASSERT_STR_EQ(names[0], "simcuda virtual GPU (sm_89)"); /* device 0 as with one device */
  ASSERT_STR_EQ(pci[1], "0000:02:00.0");
  ASSERT_CU(cuDeviceGetName(names[0], 64, 3), CUDA_ERROR_INVALID_DEVICE);
  /* A primary context per device, each reporting its device. */
  ASSERT(ctx[0] != ctx[1] && ctx[1] != ctx[2]);
  for (int i = 0; i < 3; i++) {
    CK(cuCtxSetCurrent(ctx[i]));
    CK(cuCtxGetDevice(&d));
    ASSERT_EQ(d, i);
    unsigned fl;
    int active;
    CK(cuDevicePrimaryCtxGetState(i, &fl, &active));
    ASSERT_EQ(active, 1);
  }
  ASSERT_CU(cuDevicePrimaryCtxRetain(&ctx[0], 3), CUDA_ERROR_INVALID_DEVICE);
  /* A created context on device 2. */
  CUcontext made;
  CK(cuCtxCreate(&made, NULL, 0, 2));
  CK(cuCtxGetDevice(&d));
  ASSERT_EQ(d, 2);
  CK(cuCtxDestroy(made));
  ASSERT_CU(cuCtxCreate(&made, NULL, 0, 3), CUDA_ERROR_INVALID_DEVICE);
  return TEST_OK;
}

TEST_IMPL(devices_memory_and_pointers) {
  CUcontext ctx[2];
  setup_devices(2, ctx);
  CUdeviceptr p[2];
  size_t fr[2], tot;
  for (int i = 0; i < 2; i++) {
    CK(cuCtxSetCurrent(ctx[i]));
    CK(cuMemGetInfo(&fr[i], &tot));
  }
  CK(cuMemAlloc(&p[1], 1 << 20)); /* device 1 is current */
  CK(cuCtxSetCurrent(ctx[0]));
  CK(cuMemAlloc(&p[0], 1 << 20));
  size_t f0, f1;
  CK(cuMemGetInfo(&f0, &tot));
  CK(cuCtxSetCurrent(ctx[1]));
  CK(cuMemGetInfo(&f1, &tot));
  ASSERT_LT(f0, fr[0]); /* each device counts its own memory */
  ASSERT_LT(f1, fr[1]);
  ASSERT_EQ(fr[0] - f0, fr[1] - f1);
  /* Unified addressing: the pointer names its device and context. */
  for (int i = 0; i < 2; i++) {
    int ord = -1;
    CUcontext c = NULL;
    CK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p[i]));
    ASSERT_EQ(ord, i);
    CK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p[i] + 100));
    ASSERT(c == ctx[i]);
    CUpointer_attribute at[] = {CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_CONTEXT};
    void *data[] = {&ord, &c};
    ord = -1;
    CK(cuPointerGetAttributes(2, at, data, p[i]));
    ASSERT_EQ(ord, i);
    ASSERT(c == ctx[i]);
  }
  /* Copies between devices under unified addressing, from either context. */
  uint32_t h[256], back[256];
  for (int i = 0; i < 256; i++) h[i] = 0x1000u + (unsigned)i;
  CK(cuMemcpyHtoD(p[0], h, sizeof h));
  CK(cuMemcpy(p[1], p[0], sizeof h)); /* device 1 current */
  CK(cuMemcpyDtoH(back, p[1], sizeof back));
  ASSERT_MEM_EQ(h, back, sizeof h);
  /* cuMemFree of another device's memory from this context works (UVA). */
  CK(cuMemFree(p[0]));
  CK(cuMemFree(p[1]));
  return TEST_OK;
}

TEST_IMPL(peer_access_errors) {
  CUcontext ctx[2];
  setup_devices(2, ctx);
  int can = -1;
  CK(cuDeviceCanAccessPeer(&can, 0, 1));
  ASSERT_EQ(can, 1);
  CK(cuDeviceCanAccessPeer(&can, 1, 1));
  ASSERT_EQ(can, 0);
  ASSERT_CU(cuDeviceCanAccessPeer(&can, 0, 2), CUDA_ERROR_INVALID_DEVICE);
  int v;
  CK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
  ASSERT_EQ(v, 1);
  CK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, 1, 0));
  ASSERT_EQ(v, 0);
  ASSERT_CU(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 1), CUDA_ERROR_INVALID_DEVICE);
  ASSERT_CU(cuDeviceGetP2PAttribute(&v, (CUdevice_P2PAttribute)99, 0, 1), CUDA_ERROR_INVALID_VALUE);
  /* Enable/disable and their error codes. */
  ASSERT_CU(cuCtxEnablePeerAccess(ctx[0], 0), CUDA_ERROR_INVALID_CONTEXT); /* itself */
  ASSERT_CU(cuCtxEnablePeerAccess(NULL, 0), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_CU(cuCtxEnablePeerAccess((CUcontext)&v, 0), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_CU(cuCtxEnablePeerAccess(ctx[1], 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuCtxDisablePeerAccess(ctx[1]), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  CK(cuCtxEnablePeerAccess(ctx[1], 0));
  ASSERT_CU(cuCtxEnablePeerAccess(ctx[1], 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  CK(cuCtxDisablePeerAccess(ctx[1]));
  ASSERT_CU(cuCtxDisablePeerAccess(ctx[1]), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  /* Another context of the same device is no peer. */
  CUcontext same;
  CK(cuCtxCreate(&same, NULL, 0, 0));
  CK(cuCtxSetCurrent(ctx[0]));
  ASSERT_CU(cuCtxEnablePeerAccess(same, 0), CUDA_ERROR_INVALID_DEVICE);
  CK(cuCtxDestroy(same));
  /* Access is one-way: enabled from device 1 to device 0 only. */
  CK(cuCtxSetCurrent(ctx[1]));
  CK(cuCtxEnablePeerAccess(ctx[0], 0));
  CK(cuCtxSetCurrent(ctx[0]));
  ASSERT_CU(cuCtxDisablePeerAccess(ctx[1]), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  /* No current context. */
  CUcontext popped;
  while (cuCtxPopCurrent(&popped) == CUDA_SUCCESS) continue;
  ASSERT_CU(cuCtxEnablePeerAccess(ctx[1], 0), CUDA_ERROR_INVALID_CONTEXT);
  return TEST_OK;
}

TEST_IMPL(peer_kernel_access) {
  CUcontext ctx[2];
  setup_devices(2, ctx);
  CUdeviceptr remote;
  CK(cuCtxSetCurrent(ctx[1]));
  CK(cuMemAlloc(&remote, 1024 * 4));
  CK(cuCtxSetCurrent(ctx[0]));
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction f = st_func(m, ST_FILL);
  /* Before peer access: an illegal address, sticky in device 0's context only. */
  st_fill(f, remote, 7, 1024);
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CUdeviceptr p;
  ASSERT_CU(cuMemAlloc(&p, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
  CK(cuCtxSetCurrent(ctx[1]));
  CK(cuMemAlloc(&p, 16)); /* device 1 is fine */
  CK(cuMemFree(p));
  CK(cuDevicePrimaryCtxReset(0));
  CK(cuDevicePrimaryCtxRetain(&ctx[0], 0));
  CK(cuCtxSetCurrent(ctx[0]));
  CK(cuModuleLoadData(&m, &st_image));
  f = st_func(m, ST_FILL);
  /* Enabled: the kernel writes the peer's memory. */
  CK(cuCtxEnablePeerAccess(ctx[1], 0));
  st_fill(f, remote, 7, 1024);
  CK(cuCtxSynchronize());
  uint32_t h[1024];
  CK(cuMemcpyDtoH(h, remote, sizeof h));
  for (int i = 0; i < 1024; i++) ASSERT_EQ(h[i], 7u);
  /* Disabled again: new launches fault again. */
  CK(cuCtxDisablePeerAccess(ctx[1]));
  st_fill(f, remote, 8, 1024);
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  return TEST_OK;
}

TEST_IMPL(peer_copies) {
  CUcontext ctx[2];
  setup_devices(2, ctx);
  CUdeviceptr a, b;
  CK(cuMemAlloc(&a, 4096));
  CK(cuCtxSetCurrent(ctx[1]));
  CK(cuMemAlloc(&b, 4096));
  uint8_t h[4096], back[4096];
  for (int i = 0; i < 4096; i++) h[i] = (uint8_t)(i * 7 + 3);
  CK(cuMemcpyHtoD(a, h, sizeof h));
  /* No peer access needed for copies. */
  CK(cuMemcpyPeer(b, ctx[1], a, ctx[0], sizeof h));
  CK(cuMemcpyDtoH(back, b, sizeof back));
  ASSERT_MEM_EQ(h, back, sizeof h);
  /* Each pointer must be memory of its context's device. */
  ASSERT_CU(cuMemcpyPeer(b, ctx[0], a, ctx[0], 16), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyPeer(b, ctx[1], a, ctx[1], 16), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyPeer(b, NULL, a, ctx[0], 16), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_CU(cuMemcpyPeer(b, ctx[1], a + 4000, ctx[0], 200), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemcpyPeer(b, ctx[1], a, ctx[0], 0));
  /* Async on a stream of the current context, back the other way. */
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CK(cuMemsetD8(b, 0x5a, 4096));
  CK(cuCtxSynchronize());
  CK(cuMemcpyPeerAsync(a + 1000, ctx[0], b + 10, ctx[1], 100, s));
  CK(cuMemcpyAsync(a + 2000, b + 20, 100, s));
  CK(cuStreamSynchronize(s));
  CK(cuMemcpyDtoH(back, a, sizeof back));
  for (int i = 0; i < 4096; i++) {
    uint8_t e = (i >= 1000 && i < 1100) || (i >= 2000 && i < 2100) ? 0x5a : h[i];
    ASSERT_EQ(back[i], e);
  }
  CK(cuStreamDestroy(s));
  return TEST_OK;
}

/* A 1-D domain split over two devices: each step every device updates its half
 * (a kernel writing its cells) and the halo cells travel with peer copies. */
TEST_IMPL(peer_halo_exchange) {
  enum { N = 512, H = N / 2, STEPS = 20 };
  CUcontext ctx[2];
  setup_devices(2, ctx);
  CUdeviceptr part[2];
  CUstream st[2];
  for (int d = 0; d < 2; d++) {
    CK(cuCtxSetCurrent(ctx[d]));
    CK(cuMemAlloc(&part[d], (H + 2) * sizeof(uint32_t))); /* a halo cell at each end */
    CK(cuStreamCreate(&st[d], CU_STREAM_NON_BLOCKING));
  }
  uint32_t ref[N + 2] = {0}, host[2][H + 2];
  for (int i = 0; i < N + 2; i++) ref[i] = (uint32_t)i * 2654435761u;
  for (int d = 0; d < 2; d++) {
    CK(cuCtxSetCurrent(ctx[d]));
    CK(cuMemcpyHtoD(part[d], ref + d * H, sizeof host[d]));
  }
  for (int step = 0; step < STEPS; step++) {
    /* Host reference: every inner cell becomes a function of its neighbours. */
    uint32_t nx[N + 2];
    memcpy(nx, ref, sizeof nx);
    for (int i = 1; i <= N; i++) nx[i] = ref[i - 1] ^ (ref[i] * 3u) ^ (ref[i + 1] + (uint32_t)step);
    memcpy(ref, nx, sizeof ref);
    /* Devices: the same update on the host copy of each half (the kernel's role is
     * played by an H2D upload of the new inner cells), then the halo exchange. */
    for (int d = 0; d < 2; d++) {
      CK(cuCtxSetCurrent(ctx[d]));
      CK(cuMemcpyDtoH(host[d], part[d], sizeof host[d]));
      uint32_t in[H + 2];
      memcpy(in, host[d], sizeof in);
      for (int i = 1; i <= H; i++) host[d][i] = in[i - 1] ^ (in[i] * 3u) ^ (in[i + 1] + (uint32_t)step);
      CK(cuMemcpyHtoDAsync(part[d] + sizeof(uint32_t), &host[d][1], H * sizeof(uint32_t), st[d]));
      CK(cuStreamSynchronize(st[d]));
    }
    /* Halos: device 0's last inner cell to device 1's left halo, and back. */
    CK(cuCtxSetCurrent(ctx[0]));
    CK(cuMemcpyPeerAsync(part[1], ctx[1], part[0] + H * sizeof(uint32_t), ctx[0], sizeof(uint32_t), st[0]));
    CK(cuMemcpyPeerAsync(part[0] + (H + 1) * sizeof(uint32_t), ctx[0], part[1] + sizeof(uint32_t), ctx[1],
                         sizeof(uint32_t), st[0]));
    CK(cuStreamSynchronize(st[0]));
  }
  for (int d = 0; d < 2; d++) {
    CK(cuCtxSetCurrent(ctx[d]));
    CK(cuMemcpyDtoH(host[d], part[d], sizeof host[d]));
    ASSERT_MEM_EQ(&host[d][1], &ref[1 + d * H], H * sizeof(uint32_t));
  }
  ASSERT_EQ(host[1][0], ref[H]);
  ASSERT_EQ(host[0][H + 1], ref[H + 1]);
  return TEST_OK;
}

TEST_IMPL(devices_option_bounds) {
  /* Out of range: clamped with a warning, like every other option. */
  setenv("SIMCUDA_DEVICES", "99", 1);
  CK(cuInit(0));
  int n;
  CK(cuDeviceGetCount(&n));
  ASSERT_EQ(n, 8);
  return TEST_OK;
}
