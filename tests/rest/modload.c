/* modload: a driver-API program that loads its kernel from a PTX file it reads
 * itself (cuModuleLoadData), as JIT-style programs do; `modload PTX [n]`. Prints a
 * checksum of its output and exits 0 iff the output is right. */
#define PROG "modload"
#include "ptxprog.h"

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int n = argc > 2 ? atoi(argv[2]) : 16384;
  char *ptx = slurp(argv[1]);
  if (!ptx) return 2;
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(cuModuleLoadData(&mod, ptx));
  CK(cuModuleGetFunction(&fn, mod, "scale_copy"));
  float *h = malloc((size_t)n * 4), *o = malloc((size_t)n * 4);
  for (int i = 0; i < n; i++) h[i] = (float)(i % 251) * 0.25f;
  CUdeviceptr din, dout;
  CK(cuMemAlloc(&din, (size_t)n * 4));
  CK(cuMemAlloc(&dout, (size_t)n * 4));
  CK(cuMemcpyHtoD(din, h, (size_t)n * 4));
  float s = 3.0f;
  void *args[] = {&dout, &din, &s, &n};
  for (int rep = 0; rep < 3; rep++)
    CK(cuLaunchKernel(fn, (unsigned)(n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, NULL));
  CK(cuCtxSynchronize());
  CK(cuMemcpyDtoH(o, dout, (size_t)n * 4));
  int bad = 0;
  unsigned long long c = 1469598103934665603ull;
  for (int i = 0; i < n; i++) {
    if (o[i] != 3.0f * h[i] + 1.0f) bad++;
    const unsigned char *b = (const unsigned char *)&o[i];
    for (int k = 0; k < 4; k++) c = (c ^ b[k]) * 1099511628211ull;
  }
  printf("checksum: %016llx\n", c);
  CK(cuMemFree(din));
  CK(cuMemFree(dout));
  CK(cuModuleUnload(mod));
  CK(cuDevicePrimaryCtxRelease(dev));
  free(ptx);
  free(h);
  free(o);
  if (bad) fprintf(stderr, "modload: %d wrong values\n", bad);
  return bad ? 1 : 0;
}
