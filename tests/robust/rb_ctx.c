/* rb_ctx.c: context lifecycle under load. `rb_ctx MODE`:
 *   create   20 contexts in turn (more than gpuft once tracked), each used (upload,
 *            kernel, read back) and destroyed with an allocation still live;
 *   many     12 contexts alive at once, all used, then destroyed;
 *   primary  the primary context used, reset, used again (same handle), released
 *            and retained again;
 *   fork     a child forked after CUDA was used: it works on the host, and its
 *            driver calls fail cleanly or work, never crash or hang.
 * Exit 0 iff every result was right. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "twin_fill.h"

#define WORDS 4096

static int fails;
#define CHECK(x)                                                              \
  do {                                                                        \
    CUresult r_ = (x);                                                        \
    if (r_ != CUDA_SUCCESS) {                                                 \
      fprintf(stderr, "rb_ctx: %s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)r_); \
      fails++;                                                                \
      return -1;                                                              \
    }                                                                         \
  } while (0)

/* In the current context: upload, fill half with a kernel, read back, compare.
 * Leaves one allocation live in *keep when keep is not NULL. */
static int use_context(unsigned seed, CUdeviceptr *keep) {
  CUmodule mod;
  CUfunction fill;
  CHECK(tf_load(&mod, &fill));
  static unsigned host[WORDS], back[WORDS];
  for (unsigned i = 0; i < WORDS; i++) host[i] = seed * 2654435761u + i;
  CUdeviceptr d, e;
  CHECK(cuMemAlloc(&d, sizeof host));
  CHECK(cuMemAlloc(&e, sizeof host));
  CHECK(cuMemcpyHtoD(d, host, sizeof host));
  CHECK(cuMemcpyHtoD(e, host, sizeof host));
  unsigned v = seed;
  void *params[] = {&d, &v};
  CHECK(cuLaunchKernel(fill, WORDS / 2 / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(back, d, sizeof back));
  for (unsigned i = 0; i < WORDS; i++)
    if (back[i] != (i < WORDS / 2 ? seed : host[i])) {
      fprintf(stderr, "rb_ctx: seed %u: word %u is %08x\n", seed, i, back[i]);
      fails++;
      return -1;
    }
  CHECK(cuMemFree(d));
  if (keep) *keep = e;
  else CHECK(cuMemFree(e));
  CHECK(cuModuleUnload(mod));
  return 0;
}

static int mode_create(CUdevice dev) {
  for (unsigned k = 0; k < 20; k++) {
    CUcontext c;
    CUdeviceptr keep;
    CHECK(cuCtxCreate(&c, NULL, 0, dev));
    use_context(100 + k, &keep);
    CHECK(cuCtxDestroy(c)); /* with `keep` still allocated */
  }
  return 0;
}

static int mode_many(CUdevice dev) {
  CUcontext c[12];
  for (unsigned k = 0; k < 12; k++) CHECK(cuCtxCreate(&c[k], NULL, 0, dev));
  for (unsigned round = 0; round < 2; round++)
    for (unsigned k = 0; k < 12; k++) {
      CHECK(cuCtxSetCurrent(c[k]));
      use_context(round * 100 + k, NULL);
    }
  for (unsigned k = 0; k < 12; k++) CHECK(cuCtxDestroy(c[k]));
  return 0;
}

static int mode_primary(CUdevice dev) {
  CUcontext c;
  CUdeviceptr keep;
  for (unsigned k = 0; k < 4; k++) {
    CHECK(cuDevicePrimaryCtxRetain(&c, dev));
    CHECK(cuCtxSetCurrent(c));
    use_context(7 + k, &keep);
    if (k & 1) CHECK(cuDevicePrimaryCtxReset(dev));
    else CHECK(cuDevicePrimaryCtxRelease(dev));
  }
  return 0;
}

static int mode_fork(CUdevice dev) {
  CUcontext c;
  CHECK(cuDevicePrimaryCtxRetain(&c, dev));
  CHECK(cuCtxSetCurrent(c));
  use_context(1, NULL);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    /* The child's CUDA calls may fail (a real driver refuses a context of the
     * parent); any answer is fine but a crash or a hang. */
    CUdeviceptr d;
    CUresult r = cuMemAlloc(&d, 4096);
    if (r == CUDA_SUCCESS) cuMemFree(d);
    unsigned x[16] = {0};
    printf("child: %d\n", (int)(x[3] + (r == CUDA_SUCCESS || r != CUDA_SUCCESS)));
    fflush(stdout);
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "rb_ctx: the child ended with status %d\n", st);
    fails++;
  }
  use_context(2, NULL); /* the parent goes on */
  CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}

int main(int argc, char **argv) {
  CUdevice dev;
  if (argc != 2 || cuInit(0) || cuDeviceGet(&dev, 0)) return 2;
  if (!strcmp(argv[1], "create")) mode_create(dev);
  else if (!strcmp(argv[1], "many")) mode_many(dev);
  else if (!strcmp(argv[1], "primary")) mode_primary(dev);
  else if (!strcmp(argv[1], "fork")) mode_fork(dev);
  else return 2;
  printf("rb_ctx %s: %d failures\n", argv[1], fails);
  return fails ? 1 : 0;
}
