/* cudaproc.c: a small driver-API program for the report and launcher tests: does
 * some CUDA work, then ends the way its argument says (exit, SIGTERM, abort, its
 * own SIGTERM handler, waiting to be killed) or makes no allocation at all. */
#define _GNU_SOURCE
#include <cuda.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    CUresult r_ = (call);                                                    \
    if (r_ != CUDA_SUCCESS) {                                                \
      fprintf(stderr, "cudaproc: %s -> %d\n", #call, (int)r_);               \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

/* A program that cleans up on SIGTERM: its handler notes the signal and the
 * program exits normally (exit() is not async-signal-safe: called from the
 * handler, it ran gpuft's atexit report inside the handler, which the thread
 * sanitizer reports as signal-unsafe calls; the program's fault, not gpuft's). */
static volatile sig_atomic_t g_termed;
static void own_handler(int sig) {
  (void)sig;
  g_termed = 1;
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "exit";
  CUdevice dev;
  CUcontext ctx;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  if (!strcmp(how, "noalloc")) { /* CUDA used, nothing to protect */
    CHECK(cuCtxSynchronize());
    return 0;
  }
  enum { N = 1 << 16 };
  static unsigned char host[N], back[N];
  for (int i = 0; i < N; i++) host[i] = (unsigned char)(i * 7);
  CUdeviceptr d;
  CHECK(cuMemAlloc(&d, N));
  CHECK(cuMemcpyHtoD(d, host, N));
  CHECK(cuMemcpyDtoH(back, d, N));
  if (memcmp(host, back, N)) return 1;
  printf("cudaproc: %s\n", how);
  fflush(stdout);
  if (!strcmp(how, "term")) raise(SIGTERM);
  if (!strcmp(how, "abort")) abort();
  if (!strcmp(how, "own-handler")) {
    signal(SIGTERM, own_handler);
    raise(SIGTERM); /* the handler has run when raise returns */
    if (g_termed) exit(3);
  }
  if (!strcmp(how, "wait") && argc > 2) { /* tell the test we are ready, then wait */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
    FILE *f = fopen(tmp, "w");
    if (f) fprintf(f, "%d\n", (int)getpid()), fclose(f);
    rename(tmp, argv[2]); /* the file appears with the pid in it */
    for (;;) pause();
  }
  CHECK(cuMemFree(d));
  return 0;
}
