/* reuse: a stream handle of a destroyed stream comes back for a new stream of
 * another context (drivers hand out freed handles again). Work on the new stream
 * is still running when the old stream's context synchronises: that must not say
 * anything about the new stream. `reuse PTX [spin]`; prints a checksum, exits 0
 * iff the output is right, 3 if the driver never gave the handle back. */
#define PROG "reuse"
#include "ptxprog.h"

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static unsigned expect(int i, unsigned v, int spin) {
  unsigned x = (unsigned)i;
  for (int k = 0; k < spin; k++) x = x * 1664525u + 1013904223u;
  return x ^ v;
}

enum { N = 16384, TRIES = 16, ROUNDS = 8 };

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int spin = argc > 2 ? atoi(argv[2]) : 20000;
  char *ptx = slurp(argv[1]);
  if (!ptx) return 2;
  CUdevice dev;
  CUcontext ca, cb;
  CUmodule ma, mb;
  CUfunction fa, fb;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ca, dev));
  CK(cuCtxCreate(&cb, NULL, 0, dev));
  CK(cuModuleLoadData(&mb, ptx)); /* cb is current */
  CK(cuModuleGetFunction(&fb, mb, "slow_fill"));
  CK(cuCtxSetCurrent(ca));
  CK(cuModuleLoadData(&ma, ptx));
  CK(cuModuleGetFunction(&fa, ma, "slow_fill"));
  unsigned *h = calloc(N, 4);
  if (!h) return 2;
  int n = N, zero = 0;
  unsigned v = 0x5a5a5a5au;

  /* context B: a stream that does some work, then goes; context A: new streams
   * until one has its handle (a few rounds: the handle may be taken meanwhile) */
  CUdeviceptr yb;
  CK(cuCtxSetCurrent(cb));
  CK(cuMemAlloc(&yb, N * 4));
  CK(cuMemcpyHtoD(yb, h, N * 4));
  CUstream sa = NULL;
  for (int round = 0; round < ROUNDS && !sa; round++) {
    CK(cuCtxSetCurrent(cb));
    CUstream sb;
    CK(cuStreamCreate(&sb, CU_STREAM_NON_BLOCKING));
    void *pb[] = {&yb, &v, &n, &zero};
    CK(cuLaunchKernel(fb, N / 128, 1, 1, 128, 1, 1, 0, sb, pb, NULL));
    CK(cuStreamSynchronize(sb));
    CK(cuStreamDestroy(sb));
    usleep(20000); /* (the simulator frees a stream once its worker has gone) */
    CK(cuCtxSetCurrent(ca));
    CUstream tried[TRIES];
    int nt = 0;
    for (; nt < TRIES; nt++) {
      CK(cuStreamCreate(&tried[nt], CU_STREAM_NON_BLOCKING));
      if (tried[nt] == sb) {
        sa = tried[nt];
        break;
      }
    }
    for (int i = 0; i < nt; i++) CK(cuStreamDestroy(tried[i]));
  }
  if (!sa) {
    fprintf(stderr, "reuse: the driver never gave the stream handle back\n");
    free(h);
    free(ptx);
    return 3;
  }
  CUdeviceptr x;
  CK(cuMemAlloc(&x, N * 4));
  CK(cuMemcpyHtoD(x, h, N * 4));
  CK(cuCtxSynchronize());
  void *pa[] = {&x, &v, &n, &spin};
  CK(cuLaunchKernel(fa, N / 128, 1, 1, 128, 1, 1, 0, sa, pa, NULL));

  /* context B synchronises while the kernel in A still runs */
  CK(cuCtxSetCurrent(cb));
  CK(cuCtxSynchronize());
  CK(cuMemFree(yb));

  CK(cuCtxSetCurrent(ca));
  CK(cuStreamSynchronize(sa));
  CK(cuMemcpyDtoH(h, x, N * 4));
  int bad = 0;
  unsigned long long c = 1469598103934665603ull;
  for (int i = 0; i < N; i++) {
    if (h[i] != expect(i, v, spin)) bad++;
    const unsigned char *b = (const unsigned char *)&h[i];
    for (int k = 0; k < 4; k++) c = (c ^ b[k]) * 1099511628211ull;
  }
  printf("checksum: %016llx\n", c);
  CK(cuMemFree(x));
  CK(cuStreamDestroy(sa));
  CK(cuModuleUnload(ma));
  CK(cuCtxSetCurrent(cb));
  CK(cuModuleUnload(mb));
  CK(cuCtxDestroy(cb));
  CK(cuDevicePrimaryCtxRelease(dev));
  free(h);
  free(ptx);
  if (bad) fprintf(stderr, "reuse: %d wrong values\n", bad);
  return bad ? 1 : 0;
}
