/* alloc_probe.c: a tiny driver-API program for the quarantine test: allocates three
 * 1 MiB buffers in a fresh context and prints their device addresses. */
#include <cuda.h>
#include <stdio.h>

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx))
    return 2;
  for (int i = 0; i < 3; i++) {
    CUdeviceptr p;
    if (cuMemAlloc(&p, 1u << 20)) return 2;
    printf("ptr %#llx\n", (unsigned long long)p);
  }
  return 0;
}
