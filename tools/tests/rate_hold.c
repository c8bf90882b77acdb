/* rate_hold.c: a driver-API program for the --rate campaign tests: uploads 1 MiB, holds
 * it in device memory for argv[1] ms (flips at a rate land there) and prints its checksum. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SIZE (1u << 20)

int main(int argc, char **argv) {
  long ms = argc > 1 ? atol(argv[1]) : 100;
  static uint32_t host[SIZE / 4];
  for (uint32_t i = 0; i < SIZE / 4; i++) host[i] = i * 2654435761u;
  CUdevice dev;
  CUcontext ctx;
  CUdeviceptr d;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx) ||
      cuMemAlloc(&d, SIZE) || cuMemcpyHtoD(d, host, SIZE))
    return 2;
  /* at rest: the time, not the work, decides how many flips land (a slow machine
   * only adds some) */
  struct timespec t = {ms / 1000, ms % 1000 * 1000000L};
  nanosleep(&t, NULL);
  if (cuMemcpyDtoH(host, d, SIZE) || cuMemFree(d)) return 2;
  uint64_t h = 1469598103934665603ull; /* FNV-1a: any flipped bit changes it */
  for (uint32_t i = 0; i < SIZE / 4; i++) h = (h ^ host[i]) * 1099511628211ull;
  printf("checksum %016llx\n", (unsigned long long)h);
  return 0;
}
