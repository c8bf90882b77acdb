/* peer.c: peer access between devices (cudaDeviceCanAccessPeer,
 * cudaDeviceEnable/DisablePeerAccess), peer copies (cudaMemcpyPeer(Async): the runtime has no
 * per-thread forms of them) and memory shared between processes
 * (cudaIpcGetMemHandle, cudaIpcOpenMemHandle, cudaIpcCloseMemHandle), over the
 * driver's calls of the same names and the devices' primary contexts. */
#include <stdint.h>
#include <string.h>

#include "simrt.h"

#define DP(p) ((CUdeviceptr)(uintptr_t)(p))

SIMRT_API cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer) {
  if (!can) return simrt_ret(cudaErrorInvalidValue);
  cudaError_t e = simrt_init();
  if (e != cudaSuccess) return simrt_ret(e);
  CUresult r = SIMRT_DCALL(simrt_drv(0), cuDeviceCanAccessPeer, can, device, peer);
  return simrt_ret(r == CUDA_ERROR_INVALID_DEVICE ? cudaErrorInvalidDevice : simrt_from_cu(r));
}

/* The current device's context current, and the peer's primary context. */
static cudaError_t peer_ctx(int peer, CUcontext *out) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return e;
  if (peer == simrt_current_device()) return cudaErrorInvalidDevice; /* a device is not its own peer */
  return simrt_primary_of(peer, out);
}

SIMRT_API cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  if (flags != 0) return simrt_ret(cudaErrorInvalidValue);
  CUcontext c;
  cudaError_t e = peer_ctx(peer, &c);
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuCtxEnablePeerAccess, c, 0));
}

SIMRT_API cudaError_t cudaDeviceDisablePeerAccess(int peer) {
  CUcontext c;
  cudaError_t e = peer_ctx(peer, &c);
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuCtxDisablePeerAccess, c));
}

static cudaError_t memcpy_peer(void *dst, int ddev, const void *src, int sdev, size_t n, cudaStream_t s,
                               bool async) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  CUcontext dc, sc;
  if ((e = simrt_primary_of(ddev, &dc)) != cudaSuccess || (e = simrt_primary_of(sdev, &sc)) != cudaSuccess)
    return simrt_ret(e);
  if (n == 0) return cudaSuccess;
  const simrt_drv_t *d = simrt_drv(0);
  CUresult r = async ? SIMRT_DCALL(d, cuMemcpyPeerAsync, DP(dst), dc, DP(src), sc, n, (CUstream)s)
                     : SIMRT_DCALL(d, cuMemcpyPeer, DP(dst), dc, DP(src), sc, n);
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaMemcpyPeer(void *dst, int ddev, const void *src, int sdev, size_t n) {
  return memcpy_peer(dst, ddev, src, sdev, n, NULL, false);
}
SIMRT_API cudaError_t cudaMemcpyPeerAsync(void *dst, int ddev, const void *src, int sdev, size_t n, cudaStream_t s) {
  return memcpy_peer(dst, ddev, src, sdev, n, s, true);
}

/* cudaIpcMemHandle_t and CUipcMemHandle are the same 64 bytes. */
_Static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(CUipcMemHandle), "IPC handles differ");

SIMRT_API cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if (!h) return simrt_ret(cudaErrorInvalidValue);
  CUipcMemHandle ch;
  CUresult r = SIMRT_DCALL(simrt_drv(0), cuIpcGetMemHandle, &ch, DP(p));
  if (r == CUDA_SUCCESS) memcpy(h, &ch, sizeof ch);
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned int flags) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  if (!p || flags != cudaIpcMemLazyEnablePeerAccess) return simrt_ret(cudaErrorInvalidValue);
  CUipcMemHandle ch;
  memcpy(&ch, &h, sizeof ch);
  CUdeviceptr d;
  CUresult r = SIMRT_DCALL(simrt_drv(0), cuIpcOpenMemHandle, &d, ch, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  if (r == CUDA_SUCCESS) *p = (void *)(uintptr_t)d;
  return simrt_ret_cu(r);
}

SIMRT_API cudaError_t cudaIpcCloseMemHandle(void *p) {
  cudaError_t e = simrt_ctx();
  if (e != cudaSuccess) return simrt_ret(e);
  return simrt_ret_cu(SIMRT_DCALL(simrt_drv(0), cuIpcCloseMemHandle, DP(p)));
}
