/* rb_upload.c: several host threads upload distinct data at once, each on its own
 * stream, then read it back and compare (issue 13: uploads without a checkpoint
 * shared one staging buffer). `rb_upload THREADS ITERS BYTES`; exit 0 iff every
 * byte came back and every call succeeded. */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CUcontext ctx;
static int iters;
static size_t bytes;
static int wrong, failed;

static void *worker(void *arg) {
  unsigned id = (unsigned)(uintptr_t)arg;
  unsigned *host = malloc(bytes), *back = malloc(bytes);
  CUstream s;
  if (!host || !back || cuCtxSetCurrent(ctx) || cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) {
    __atomic_fetch_add(&failed, 1, __ATOMIC_RELAXED);
    return NULL;
  }
  for (int i = 0; i < iters; i++) {
    size_t n = bytes / 4;
    for (size_t k = 0; k < n; k++) host[k] = (id << 24) ^ ((unsigned)i << 16) ^ (unsigned)k;
    CUdeviceptr d;
    CUresult r = cuMemAlloc(&d, bytes);
    /* alternate synchronous and asynchronous uploads (pageable source) */
    if (!r) r = (i & 1) ? cuMemcpyHtoDAsync(d, host, bytes, s) : cuMemcpyHtoD(d, host, bytes);
    if (!r) r = cuStreamSynchronize(s);
    memset(back, 0, bytes);
    if (!r) r = cuMemcpyDtoH(back, d, bytes);
    if (r) {
      fprintf(stderr, "rb_upload: thread %u iteration %d: error %d\n", id, i, (int)r);
      __atomic_fetch_add(&failed, 1, __ATOMIC_RELAXED);
    } else if (memcmp(host, back, bytes)) {
      __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
    }
    cuMemFree(d);
  }
  cuStreamDestroy(s);
  free(host);
  free(back);
  return NULL;
}

int main(int argc, char **argv) {
  int nt = argc > 1 ? atoi(argv[1]) : 4;
  iters = argc > 2 ? atoi(argv[2]) : 20;
  bytes = argc > 3 ? strtoull(argv[3], NULL, 0) : (1u << 20);
  bytes &= ~(size_t)3;
  if (nt < 1 || nt > 64 || iters < 1 || bytes < 4) return 2;
  CUdevice dev;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
      cuCtxSetCurrent(ctx)) {
    fprintf(stderr, "rb_upload: setup failed\n");
    return 1;
  }
  pthread_t t[64];
  for (int i = 0; i < nt; i++) pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
  for (int i = 0; i < nt; i++) pthread_join(t[i], NULL);
  printf("rb_upload: %d threads x %d uploads of %zu bytes: %d wrong, %d failed\n", nt, iters,
         bytes, wrong, failed);
  return wrong || failed ? 1 : 0;
}
