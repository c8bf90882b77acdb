/* pcases.c: driver-API cases for gpuft's protection, run with and without gpuft
 * preloaded on the simulator. `pcases CASE`: prints one line per result so that
 * runs can be compared; flips go through the simulator's seam (simcudaFlipNow).
 *   badinput   invalid, interior and freed pointers, zero sizes, straddling copies
 *   unaligned  odd sizes and offsets; with argument "flip": single-bit flips at rest
 *   codeflip   single-bit flips in gpuft's code arrays (gpuft only)
 *   budget     allocations beyond GPUFT_CKPT_MAX, with flips at rest */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twin_fill.h"

static CUcontext ctx;
static CUfunction fill;
static simcuda_flip_now_fn flip_now;

static uint64_t fnv(const void *p, size_t n) {
  const uint8_t *b = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static void setup(void) {
  CUdevice dev;
  CUmodule mod;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
      cuCtxSetCurrent(ctx) || tf_load(&mod, &fill)) {
    fprintf(stderr, "pcases: setup failed\n");
    exit(1);
  }
  flip_now = (simcuda_flip_now_fn)dlsym(RTLD_DEFAULT, "simcudaFlipNow");
}

static void badinput(void) {
  CUdeviceptr a = 0, b = 0, z = 0;
  unsigned char host[2048];
  memset(host, 7, sizeof host);
  printf("alloc0 %d\n", (int)cuMemAlloc(&z, 0));
  printf("allocA %d\n", (int)cuMemAlloc(&a, 1000));
  printf("allocB %d\n", (int)cuMemAlloc(&b, 1000));
  printf("h2d %d\n", (int)cuMemcpyHtoD(a, host, 1000));
  printf("h2d0 %d\n", (int)cuMemcpyHtoD(a, host, 0));
  printf("h2d_straddle %d\n", (int)cuMemcpyHtoD(a + 900, host, 200));
  printf("h2d_bad %d\n", (int)cuMemcpyHtoD((CUdeviceptr)0x1234, host, 16));
  printf("d2h_straddle %d\n", (int)cuMemcpyDtoH(host, a + 999, 2));
  printf("d2h0 %d\n", (int)cuMemcpyDtoH(host, a, 0));
  printf("d2d_straddle %d\n", (int)cuMemcpyDtoD(b, a + 10, 1000));
  printf("memset_straddle %d\n", (int)cuMemsetD8(a + 500, 1, 600));
  printf("memset0 %d\n", (int)cuMemsetD8(a, 1, 0));
  printf("free_interior %d\n", (int)cuMemFree(a + 16));
  printf("free_bad %d\n", (int)cuMemFree((CUdeviceptr)0x1234));
  /* after all that, a is still intact and protected */
  unsigned char back[1000];
  printf("d2h %d\n", (int)cuMemcpyDtoH(back, a, 1000));
  printf("intact %d\n", memcmp(back, host, 1000) == 0);
  printf("freeA %d\n", (int)cuMemFree(a));
  printf("freeA_again %d\n", (int)cuMemFree(a));
  printf("d2h_freed %d\n", (int)cuMemcpyDtoH(back, a, 16));
  printf("freeB %d\n", (int)cuMemFree(b));
  printf("sync %d\n", (int)cuCtxSynchronize());
}

/* Odd sizes and offsets: partial uploads, a kernel over part, read-backs at odd
 * places; with flips at rest between the upload and the read-back. */
static void unaligned(int flips) {
  static const size_t sizes[] = {1, 127, 129, 1000, 4097, 70001, 300000};
  uint64_t seed = 99;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    size_t n = sizes[si];
    unsigned char *h = malloc(n), *back = malloc(n);
    for (size_t i = 0; i < n; i++) h[i] = (unsigned char)(i * 13 + si);
    CUdeviceptr d;
    if (cuMemAlloc(&d, n)) exit(1);
    if (cuMemcpyHtoD(d, h, n)) exit(1);
    size_t off = n > 10 ? 3 : 0, len = n > 10 ? n - 7 : n;
    for (size_t i = off; i < off + len; i++) h[i] ^= 0x5a;
    if (cuMemcpyHtoD(d + off, h + off, len)) exit(1); /* partial, unaligned */
    if (n >= 4096) {
      unsigned v = 0xabcdef01u;
      CUdeviceptr p = d + 1024; /* the kernel writes words [1024, 1024 + 4*256) */
      void *params[] = {&p, &v};
      if (cuLaunchKernel(fill, 1, 1, 1, 256, 1, 1, 0, 0, params, NULL)) exit(1);
      for (size_t i = 0; i < 256; i++) memcpy(h + 1024 + 4 * i, &v, 4);
    }
    if (flips && flip_now) {
      cuCtxSynchronize(); /* the device is idle: the flips are at rest */
      /* one flip per 4 KiB group (a group corrects one) */
      for (size_t g = 0; g * 4096 < n; g++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t span = n - g * 4096 < 4096 ? n - g * 4096 : 4096;
        size_t at = g * 4096 + (size_t)(seed >> 33) % span;
        flip_now(d + at, (unsigned)(seed >> 20) % 8, 0);
      }
    }
    size_t roff = n > 5 ? 5 : 0, rlen = n - roff;
    memset(back, 0, n);
    CUresult r = cuMemcpyDtoH(back + roff, d + roff, rlen);
    printf("size %zu d2h %d match %d sum %016llx\n", n, (int)r,
           memcmp(back + roff, h + roff, rlen) == 0, (unsigned long long)fnv(back + roff, rlen));
    cuMemFree(d);
    free(h);
    free(back);
  }
}

typedef int (*code_range_fn)(unsigned long long, unsigned long long *, unsigned long long *);

static void codeflip(void) {
  code_range_fn range = (code_range_fn)dlsym(RTLD_DEFAULT, "gpuft_debug_code_range");
  if (!range || !flip_now) {
    printf("codeflip: needs gpuft and the simulator\n");
    return;
  }
  size_t n = 3 * 4096 + 1000;
  unsigned char *h = malloc(n), *back = malloc(n);
  for (size_t i = 0; i < n; i++) h[i] = (unsigned char)(i * 31 + 1);
  CUdeviceptr d;
  if (cuMemAlloc(&d, n) || cuMemcpyHtoD(d, h, n)) exit(1);
  unsigned long long code = 0, cb = 0;
  if (range(d, &code, &cb) != 0) {
    printf("codeflip: allocation not protected\n");
    exit(1);
  }
  int ok = 0, tries = 0;
  /* every third 32-bit word of the code buffer, three bits each, one at a time,
   * each followed by a read-back (a commit point). Flips in the alignment padding
   * between the arrays are never read by gpuft; the test counts the others. */
  for (unsigned long long w = 0; w < cb / 4; w += 3) {
    for (unsigned bit = 0; bit < 32; bit += 11) {
      flip_now(code + w * 4 + bit / 8, bit % 8, 0);
      memset(back, 0, n);
      CUresult r = cuMemcpyDtoH(back, d, n);
      tries++;
      ok += r == CUDA_SUCCESS && memcmp(back, h, n) == 0;
    }
  }
  printf("codeflip: %d of %d read-backs correct\n", ok, tries);
  cuMemFree(d);
  free(h);
  free(back);
}

static void budget(void) {
  enum { N = 6, SZ = 48 * 1024 };
  CUdeviceptr d[N];
  unsigned char *h = malloc(SZ), *back = malloc(SZ);
  for (int i = 0; i < SZ; i++) h[i] = (unsigned char)(i * 7);
  for (int k = 0; k < N; k++)
    if (cuMemAlloc(&d[k], SZ) || cuMemcpyHtoD(d[k], h, SZ)) exit(1);
  int ok = 0;
  for (int k = 0; k < N; k++) {
    if (flip_now) flip_now(d[k] + 1000 + k * 333, (unsigned)k % 8, 0);
    memset(back, 0, SZ);
    ok += cuMemcpyDtoH(back, d[k], SZ) == CUDA_SUCCESS && memcmp(back, h, SZ) == 0;
  }
  printf("budget: %d of %d read-backs correct\n", ok, N);
  for (int k = 0; k < N; k++) cuMemFree(d[k]);
  free(h);
  free(back);
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  setup();
  if (!strcmp(argv[1], "badinput")) badinput();
  else if (!strcmp(argv[1], "unaligned")) unaligned(argc > 2 && !strcmp(argv[2], "flip"));
  else if (!strcmp(argv[1], "codeflip")) codeflip();
  else if (!strcmp(argv[1], "budget")) budget();
  else return 2;
  return 0;
}
