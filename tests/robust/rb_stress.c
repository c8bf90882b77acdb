/* rb_stress.c: host threads x streams x contexts doing random driver work at once:
 * allocations, frees, uploads (sync and async, beyond any checkpoint budget),
 * kernels, read-backs compared with a host model, stream/event/context syncs and
 * queries; between phases the primary context is reset. A watchdog ends a stuck
 * run. `rb_stress SEED THREADS PHASES OPS`; exit 0 iff every result was right,
 * 3 if the watchdog fired. */
#include <cuda.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twin_fill.h"

#define MAXBUF 6
#define MAXCTX 2

typedef struct {
  CUdeviceptr d;
  size_t words;
  unsigned *model; /* what the device holds, once the stream is drained */
} buf_t;

typedef struct {
  CUcontext ctx;
  CUfunction fill;
  CUmodule mod;
} ctxs_t;

static ctxs_t g_ctx[MAXCTX];
static int g_ops, g_wrong, g_failed;
static unsigned long long g_seed;

static unsigned long long rnd(unsigned long long *s) { /* splitmix64 */
  unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#define OK(x)                                                                       \
  do {                                                                              \
    CUresult r_ = (x);                                                              \
    if (r_ != CUDA_SUCCESS) {                                                       \
      fprintf(stderr, "rb_stress: %s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)r_); \
      __atomic_fetch_add(&g_failed, 1, __ATOMIC_RELAXED);                           \
      goto out;                                                                     \
    }                                                                               \
  } while (0)

static void *worker(void *arg) {
  unsigned id = (unsigned)(uintptr_t)arg;
  unsigned long long s = g_seed * 1000003u + id;
  int c = (int)(rnd(&s) % MAXCTX);
  buf_t b[MAXBUF];
  memset(b, 0, sizeof b);
  CUstream st[2] = {0, 0};
  CUevent ev = 0;
  unsigned *tmp = malloc(1u << 20);
  if (!tmp || cuCtxSetCurrent(g_ctx[c].ctx)) goto out;
  OK(cuStreamCreate(&st[0], CU_STREAM_NON_BLOCKING));
  OK(cuStreamCreate(&st[1], 0));
  OK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
  for (int op = 0; op < g_ops; op++) {
    buf_t *x = &b[rnd(&s) % MAXBUF];
    CUstream q = st[rnd(&s) % 2];
    unsigned kind = (unsigned)(rnd(&s) % 10);
    if (!x->d) kind = 0;
    switch (kind) {
      case 0: { /* allocate and upload */
        if (x->d) {
          OK(cuStreamSynchronize(st[0]));
          OK(cuStreamSynchronize(st[1]));
          OK(cuMemFree(x->d));
          free(x->model);
          x->d = 0;
        }
        x->words = 128 * (1 + rnd(&s) % 2000);
        x->model = malloc(x->words * 4);
        if (!x->model) goto out;
        OK(cuMemAlloc(&x->d, x->words * 4));
        for (size_t i = 0; i < x->words; i++) x->model[i] = (unsigned)rnd(&s);
        OK(cuMemcpyHtoD(x->d, x->model, x->words * 4));
        break;
      }
      case 1: { /* partial upload at an unaligned word offset, from pageable memory */
        size_t off = rnd(&s) % x->words, n = 1 + rnd(&s) % (x->words - off);
        for (size_t i = 0; i < n; i++) x->model[off + i] = tmp[i] = (unsigned)rnd(&s);
        OK(cuStreamSynchronize(st[0]));
        OK(cuStreamSynchronize(st[1]));
        OK(cuMemcpyHtoDAsync(x->d + off * 4, tmp, n * 4, q));
        OK(cuStreamSynchronize(q)); /* tmp is reused */
        break;
      }
      case 2: { /* kernel: the first k blocks of 128 words */
        unsigned v = (unsigned)rnd(&s), blocks = 1 + (unsigned)(rnd(&s) % (x->words / 128));
        void *params[] = {&x->d, &v};
        OK(cuStreamSynchronize(st[0]));
        OK(cuStreamSynchronize(st[1]));
        OK(cuLaunchKernel(g_ctx[c].fill, blocks, 1, 1, 128, 1, 1, 0, q, params, NULL));
        for (size_t i = 0; i < (size_t)blocks * 128; i++) x->model[i] = v;
        break;
      }
      case 3: case 4: { /* read back and compare */
        OK(cuStreamSynchronize(st[0]));
        OK(cuStreamSynchronize(st[1]));
        size_t n = x->words * 4 > (1u << 20) ? (1u << 20) / 4 : x->words;
        OK(cuMemcpyDtoH(tmp, x->d, n * 4));
        if (memcmp(tmp, x->model, n * 4)) {
          fprintf(stderr, "rb_stress: thread %u op %d: wrong data\n", id, op);
          __atomic_fetch_add(&g_wrong, 1, __ATOMIC_RELAXED);
          memcpy(x->model, tmp, n * 4);
        }
        break;
      }
      case 5: OK(cuEventRecord(ev, q)); OK(cuEventSynchronize(ev)); break;
      case 6: {
        CUresult r = cuStreamQuery(q);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) OK(r);
        r = cuEventQuery(ev);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) OK(r);
        break;
      }
      case 7: OK(cuCtxSynchronize()); break;
      case 8: { /* device-to-device copy between two of its buffers */
        buf_t *y = &b[rnd(&s) % MAXBUF];
        if (!y->d || y == x) break;
        size_t n = x->words < y->words ? x->words : y->words;
        OK(cuStreamSynchronize(st[0]));
        OK(cuStreamSynchronize(st[1]));
        OK(cuMemcpyDtoDAsync(y->d, x->d, n * 4, q));
        memcpy(y->model, x->model, n * 4);
        break;
      }
      default: { /* free */
        OK(cuStreamSynchronize(st[0]));
        OK(cuStreamSynchronize(st[1]));
        OK(cuMemFree(x->d));
        free(x->model);
        x->d = 0;
      }
    }
  }
out:
  for (int i = 0; i < MAXBUF; i++)
    if (b[i].d) {
      cuCtxSynchronize();
      cuMemFree(b[i].d);
      free(b[i].model);
    }
  if (ev) cuEventDestroy(ev);
  for (int i = 0; i < 2; i++)
    if (st[i]) cuStreamDestroy(st[i]);
  free(tmp);
  return NULL;
}

static void watchdog(int sig) {
  (void)sig;
  static const char msg[] = "rb_stress: watchdog: the run is stuck\n";
  if (write(2, msg, sizeof msg - 1) < 0) { /* exiting anyway */ }
  _exit(3);
}

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  g_seed = strtoull(argv[1], NULL, 10);
  int nt = atoi(argv[2]), phases = atoi(argv[3]);
  g_ops = atoi(argv[4]);
  if (nt < 1 || nt > 32 || phases < 1 || g_ops < 1) return 2;
  signal(SIGALRM, watchdog);
  /* sanitizer builds run slower: the test runner's scale stretches the watchdog too */
  const char *sc = getenv("FT_TEST_TIMEOUT_SCALE");
  int k = sc ? atoi(sc) : 1;
  if (k < 1 || k >= 100) k = 1;
  alarm((unsigned)k * (60 + (unsigned)(phases * g_ops * nt / 200)));
  CUdevice dev;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&g_ctx[1].ctx, NULL, 0, dev)) return 1;
  for (int p = 0; p < phases; p++) {
    if (cuDevicePrimaryCtxRetain(&g_ctx[0].ctx, dev)) return 1;
    for (int c = 0; c < MAXCTX; c++)
      if (cuCtxSetCurrent(g_ctx[c].ctx) || tf_load(&g_ctx[c].mod, &g_ctx[c].fill)) return 1;
    pthread_t t[32];
    for (int i = 0; i < nt; i++)
      pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(p * 100 + i));
    for (int i = 0; i < nt; i++) pthread_join(t[i], NULL);
    cuCtxSetCurrent(g_ctx[1].ctx);
    cuModuleUnload(g_ctx[1].mod);
    /* between phases the primary context goes away with everything in it */
    if (cuDevicePrimaryCtxReset(dev)) return 1;
  }
  cuCtxDestroy(g_ctx[1].ctx);
  printf("rb_stress: seed %llu, %d threads x %d phases x %d operations: %d wrong, %d failed\n",
         g_seed, nt, phases, g_ops, g_wrong, g_failed);
  return g_wrong || g_failed ? 1 : 0;
}
