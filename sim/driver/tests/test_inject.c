/* test_inject.c: fault injection through simcudaInject / SIMCUDA_FLIP /
 * simcudaFlipNow, in loops over events, targets, positions and bits, checked
 * through memory contents and the counters; stuck bits; malformed specs; stats;
 * random flips at a rate (simcudaSetFlipRate / SIMCUDA_FLIP_RATE). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

enum { N = 4096 };

static void pattern(uint8_t *h, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) h[i] = (uint8_t)(i * 13 + seed);
}

/* Compares with the pattern except byte `at`, which must equal `want`. */
static void expect_one_diff(const uint8_t *got, size_t n, unsigned seed, size_t at, uint8_t want) {
  for (size_t i = 0; i < n; i++) {
    uint8_t w = i == at ? want : (uint8_t)(i * 13 + seed);
    if (got[i] != w) FT_FAIL_("byte %zu: 0x%02x, want 0x%02x (flip at %zu)", i, got[i], w, at);
  }
}

TEST_IMPL(inject_launch_args) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction copy = st_func(m, ST_COPY), fill = st_func(m, ST_FILL);
  CUdeviceptr src, dst;
  CK(cuMemAlloc(&src, N));
  CK(cuMemAlloc(&dst, N));
  uint8_t h[N], back[N];
  size_t offs[] = {0, 1, 127, 128, 2049, N - 1};
  for (size_t oi = 0; oi < sizeof offs / sizeof offs[0]; oi++) {
    for (unsigned bit = 0; bit < 8; bit++) {
      for (unsigned k = 1; k <= 3; k += 2) {
        size_t off = offs[oi];
        pattern(h, N, (unsigned)(oi + bit));
        CK(cuMemcpyHtoD(src, h, N));
        char spec[160];
        snprintf(spec, sizeof spec, "before=launch:copybuf:%u,arg=0,offset=%zu,bits=%u", k, off, bit);
        ASSERT_EQ(st_inject(spec), 0);
        st_reset_stats();
        size_t n = N;
        void *args[] = {&src, &dst, &n};
        for (unsigned l = 1; l <= k; l++) {
          unsigned zero = 0, cnt = 1;
          void *fargs[] = {&dst, &zero, &cnt};
          CK(cuLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, NULL, fargs, NULL)); /* not a match */
          CK(cuLaunchKernel(copy, 4, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
          CK(cuMemcpyDtoH(back, dst, N));
          simcuda_stats_t s = st_stats();
          if (l < k) {
            ASSERT_EQ(s.flips_applied, 0u);
            expect_one_diff(back, N, (unsigned)(oi + bit), off, h[off]);
          } else {
            ASSERT_EQ(s.flips_applied, 1u);
            expect_one_diff(back, N, (unsigned)(oi + bit), off, (uint8_t)(h[off] ^ (1u << bit)));
          }
        }
        /* Fired once only. */
        CK(cuLaunchKernel(copy, 4, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
        CK(cuCtxSynchronize());
        ASSERT_EQ(st_stats().flips_applied, 1u);
      }
    }
  }
  /* arg=1 (the destination) at an offset past what the kernel writes: persists.
   * The offset is relative to the argument value, here an interior pointer. */
  for (size_t off = 0; off < 64; off += 9) {
    CK(cuMemsetD8(dst, 0, N));
    CUdeviceptr mid = dst + 1024;
    size_t n = 100;
    void *args[] = {&src, &mid, &n};
    char spec[160];
    snprintf(spec, sizeof spec, "before=launch:_Z7copybuf:1,arg=1,offset=%zu,bits=1+6", 200 + off);
    ASSERT_EQ(st_inject(spec), 0);
    st_reset_stats();
    CK(cuLaunchKernel(copy, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    CK(cuMemcpyDtoH(back, dst, N));
    ASSERT_EQ(st_stats().flips_applied, 2u);
    ASSERT_EQ(back[1024 + 200 + off], 0x42);
  }
  /* An offset outside the allocation is dropped when it fires. */
  ASSERT_EQ(st_inject("before=launch:copybuf:1,arg=0,offset=-1,bits=0"), 0);
  st_reset_stats();
  size_t n = N;
  void *args[] = {&src, &dst, &n};
  CK(cuLaunchKernel(copy, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  ASSERT_EQ(st_stats().flips_applied, 0u);
  CK(cuMemFree(src));
  CK(cuMemFree(dst));
  return TEST_OK;
}

TEST_IMPL(inject_copy_events) {
  st_setup();
  CUdeviceptr d;
  CK(cuMemAlloc(&d, N));
  uint8_t h[N], back[N];
  for (unsigned k = 1; k <= 3; k++) {
    for (size_t off = 0; off < N; off += 1021) {
      unsigned bit = (unsigned)(off + k) % 8;
      pattern(h, N, k);
      CK(cuMemcpyHtoD(d, h, N));
      char spec[128];
      /* d2h, source side: the k-th readback (and every later one) sees the flip. */
      snprintf(spec, sizeof spec, "before=d2h:%u,src,offset=%zu,bits=%u", k, off, bit);
      ASSERT_EQ(st_inject(spec), 0);
      st_reset_stats();
      for (unsigned i = 1; i <= k + 1; i++) {
        CK(cuMemcpyDtoH(back, d, N));
        uint8_t want = i >= k ? (uint8_t)(h[off] ^ (1u << bit)) : h[off];
        expect_one_diff(back, N, k, off, want);
      }
      ASSERT_EQ(st_stats().flips_applied, 1u);
      /* h2d, destination side, outside the part the copy writes: it persists. */
      CK(cuMemcpyHtoD(d, h, N));
      snprintf(spec, sizeof spec, "before=h2d:%u,dst,offset=%zu,bits=%u", k, N / 2 + off / 2, bit);
      ASSERT_EQ(st_inject(spec), 0);
      st_reset_stats();
      for (unsigned i = 1; i <= k; i++) CK(cuMemcpyHtoDAsync(d, h, N / 2, NULL));
      CK(cuMemcpyDtoH(back, d, N));
      expect_one_diff(back, N, k, N / 2 + off / 2, (uint8_t)(h[N / 2 + off / 2] ^ (1u << bit)));
      ASSERT_EQ(st_stats().flips_applied, 1u);
    }
  }
  /* Host sides are not device memory: the fault is dropped. */
  ASSERT_EQ(st_inject("before=h2d:1,src,offset=0,bits=0;before=d2h:1,dst,offset=0,bits=0"), 0);
  st_reset_stats();
  CK(cuMemcpyHtoD(d, h, 16));
  CK(cuMemcpyDtoH(back, d, 16));
  ASSERT_EQ(st_stats().flips_applied, 0u);
  CK(cuMemFree(d));
  return TEST_OK;
}

TEST_IMPL(inject_sync_addr) {
  st_setup();
  CUdeviceptr d;
  CK(cuMemAlloc(&d, N));
  CUstream s;
  CK(cuStreamCreate(&s, 0));
  CUevent e;
  CK(cuEventCreate(&e, 0));
  for (unsigned k = 1; k <= 4; k++) {
    CK(cuMemsetD8(d, 0, N));
    CK(cuCtxSynchronize()); /* before installing: not counted */
    char spec[128];
    size_t off = k * 333;
    snprintf(spec, sizeof spec, "before=sync:%u,addr=0x%llx,offset=%zu,bits=%u", k, (unsigned long long)d, off, k);
    ASSERT_EQ(st_inject(spec), 0);
    st_reset_stats();
    for (unsigned i = 1; i <= k; i++) {
      uint8_t b;
      CK(cuMemcpyDtoH(&b, d + off, 1));
      ASSERT_EQ(b, 0); /* not before the k-th sync */
      if (i % 3 == 0) CK(cuCtxSynchronize());
      else if (i % 3 == 1) CK(cuStreamSynchronize(s));
      else {
        CK(cuEventRecord(e, s));
        CK(cuEventSynchronize(e));
      }
    }
    uint8_t b;
    CK(cuMemcpyDtoH(&b, d + off, 1));
    ASSERT_EQ(b, (uint8_t)(1u << k));
    simcuda_stats_t st = st_stats();
    ASSERT_EQ(st.flips_applied, 1u);
    ASSERT_EQ(st.syncs, (uint64_t)k);
  }
  CK(cuEventDestroy(e));
  CK(cuStreamDestroy(s));
  CK(cuMemFree(d));
  return TEST_OK;
}

TEST_IMPL(inject_stuck_and_multi) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction fill = st_func(m, ST_FILL);
  CUdeviceptr d;
  CK(cuMemAlloc(&d, N));
  uint8_t h[N], back[N];
  CK(cuMemsetD8(d, 0, N));
  /* Several faults in one spec, multi-bit, one stuck. */
  char spec[256];
  snprintf(spec, sizeof spec,
           "before=sync:1,addr=%llu,offset=10,bits=0+3+7;before=sync:1,addr=%llu,offset=20,bits=2,stuck",
           (unsigned long long)d, (unsigned long long)d);
  ASSERT_EQ(st_inject(spec), 0);
  st_reset_stats();
  CK(cuCtxSynchronize());
  ASSERT_EQ(st_stats().flips_applied, 4u);
  CK(cuMemcpyDtoH(back, d, N));
  ASSERT_EQ(back[10], 0x89);
  ASSERT_EQ(back[20], 0x04);
  /* The stuck bit survives every kind of write into its byte. */
  CK(cuMemsetD8(d, 0, N));
  CK(cuMemcpyDtoH(back, d, N));
  ASSERT_EQ(back[20], 0x04);
  ASSERT_EQ(back[10], 0x00);
  memset(h, 0xff, N);
  h[20] = 0xf0;
  CK(cuMemcpyHtoD(d, h, N));
  CK(cuMemcpyDtoH(back, d, N));
  ASSERT_EQ(back[20], 0xf4);
  unsigned v = 0, n = N / 4;
  void *args[] = {&d, &v, &n};
  CK(cuLaunchKernel(fill, 8, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  CK(cuMemcpyDtoH(back, d, N));
  ASSERT_EQ(back[20], 0x04);
  ASSERT_EQ(back[21], 0x00);
  CUdeviceptr d2;
  CK(cuMemAlloc(&d2, N));
  CK(cuMemsetD8(d2, 0, N));
  CK(cuMemcpyDtoD(d + 16, d2, 16));
  CK(cuMemcpyDtoH(back, d, N));
  ASSERT_EQ(back[20], 0x04);
  /* Stuck to 0: a flip of a set bit. */
  CK(cuMemsetD8(d2, 0xff, N));
  CK(cuCtxSynchronize());
  for (unsigned bit = 0; bit < 8; bit++) ASSERT_EQ(st_flip_now(d2 + 100 + bit, bit, 1), 0);
  CK(cuMemsetD8(d2, 0xff, N));
  CK(cuMemcpyDtoH(back, d2, N));
  for (unsigned bit = 0; bit < 8; bit++) ASSERT_EQ(back[100 + bit], (uint8_t)(0xff ^ (1u << bit)));
  ASSERT_EQ(back[99], 0xff);
  st_clear_faults();
  CK(cuMemsetD8(d2, 0xff, N));
  CK(cuMemcpyDtoH(back, d2, N));
  ASSERT_EQ(back[100], 0xff);
  CK(cuMemFree(d));
  CK(cuMemFree(d2));
  return TEST_OK;
}

TEST_IMPL(inject_malformed) {
  st_setup();
  static const char *bad[] = {
      "", ";", "garbage", "before=launch:k:1,arg=0,offset=0",          /* no bits */
      "before=launch:k:1,arg=0,bits=0",                                   /* no offset */
      "before=launch:k:1,offset=0,bits=0",                                /* no target */
      "arg=0,offset=0,bits=0",                                            /* no event */
      "before=launch:k:0,arg=0,offset=0,bits=0",                          /* k from 1 */
      "before=launch::1,arg=0,offset=0,bits=0",                           /* empty name */
      "before=launch:k,arg=0,offset=0,bits=0",                            /* no k */
      "before=d2h:x,src,offset=0,bits=0", "before=d2h:-1,src,offset=0,bits=0",
      "before=foo:1,src,offset=0,bits=0", "before=d2h:1,arg=0,offset=0,bits=0",
      "before=launch:k:1,src,offset=0,bits=0", "before=sync:1,dst,offset=0,bits=0",
      "before=d2h:1,src,offset=zz,bits=0", "before=d2h:1,src,offset=0,bits=8",
      "before=d2h:1,src,offset=0,bits=1+1", "before=d2h:1,src,offset=0,bits=",
      "before=d2h:1,src,offset=0,bits=0,stuck,stuck", "before=d2h:1,src,dst,offset=0,bits=0",
      "before=d2h:1,src,offset=0,bits=0,extra=1", "before=d2h:1,addr=,offset=0,bits=0",
      "before=d2h:1,src,offset=0,bits=0;before=d2h:1,src,offset=0", /* one bad: none installed */
  };
  CUdeviceptr d;
  CK(cuMemAlloc(&d, N));
  uint8_t back[N];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (st_inject(bad[i]) != -1) FT_FAIL_("spec %zu \"%s\" accepted", i, bad[i]);
  }
  ASSERT_EQ(st_inject(NULL), -1);
  st_reset_stats();
  CK(cuMemsetD8(d, 0, N));
  for (int i = 0; i < 3; i++) CK(cuMemcpyDtoH(back, d, N));
  CK(cuCtxSynchronize());
  ASSERT_EQ(st_stats().flips_applied, 0u);
  CK(cuMemFree(d));
  return TEST_OK;
}

TEST_IMPL(inject_env) {
  /* One good and one malformed fault: the program goes on with the good one. */
  setenv("SIMCUDA_FLIP", "before=d2h:2,src,offset=5,bits=4;before=nonsense", 1);
  st_setup();
  CUdeviceptr d;
  CK(cuMemAlloc(&d, 64));
  CK(cuMemsetD8(d, 0, 64));
  uint8_t back[64];
  CK(cuMemcpyDtoH(back, d, 64));
  ASSERT_EQ(back[5], 0);
  CK(cuMemcpyDtoH(back, d, 64));
  ASSERT_EQ(back[5], 0x10);
  ASSERT_EQ(st_stats().flips_applied, 1u);
  CK(cuMemFree(d));
  return TEST_OK;
}

TEST_IMPL(flip_now_and_stats) {
  ASSERT_EQ(st_flip_now(0x1000, 0, 0), -1); /* before cuInit */
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction fill = st_func(m, ST_FILL);
  CUdeviceptr d;
  CK(cuMemAlloc(&d, N));
  CK(cuMemsetD8(d, 0, N));
  CK(cuCtxSynchronize());
  st_reset_stats();
  for (size_t off = 0; off < N; off += 257)
    for (unsigned bit = 0; bit < 8; bit++) ASSERT_EQ(st_flip_now(d + off, bit, 0), 0);
  uint8_t back[N];
  CK(cuMemcpyDtoH(back, d, N));
  for (size_t i = 0; i < N; i++) ASSERT_EQ(back[i], i % 257 == 0 ? 0xff : 0);
  uint8_t host[4];
  ASSERT_EQ(st_flip_now((uint64_t)(uintptr_t)host, 0, 0), -1);
  ASSERT_EQ(st_flip_now(d, 8, 0), -1);
  ASSERT_EQ(st_flip_now(d + N, 0, 0), -1);
  simcuda_stats_t s = st_stats();
  ASSERT_EQ(s.flips_applied, (uint64_t)((N + 256) / 257) * 8);
  /* Counters. */
  st_reset_stats();
  CUdeviceptr d2;
  CK(cuMemAlloc(&d2, N));
  CK(cuMemcpyHtoD(d2, back, 100));
  CK(cuMemcpyDtoD(d, d2, 200));
  CK(cuMemcpyDtoH(back, d, 300));
  CK(cuMemcpy((CUdeviceptr)(uintptr_t)host, (CUdeviceptr)(uintptr_t)back, 4));
  CK(cuMemsetD32(d2, 1, 10));
  unsigned v = 1, n = 16;
  void *args[] = {&d, &v, &n};
  CK(cuLaunchKernel(fill, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  CK(cuMemFree(d2));
  s = st_stats();
  ASSERT_EQ(s.memcpy_h2d, 1u);
  ASSERT_EQ(s.bytes_h2d, 100u);
  ASSERT_EQ(s.memcpy_d2d, 1u);
  ASSERT_EQ(s.bytes_d2d, 200u);
  ASSERT_EQ(s.memcpy_d2h, 1u);
  ASSERT_EQ(s.bytes_d2h, 300u);
  ASSERT_EQ(s.memcpy_h2h, 1u);
  ASSERT_EQ(s.memsets, 1u);
  ASSERT_EQ(s.bytes_memset, 40u);
  ASSERT_EQ(s.launches, 1u);
  ASSERT_EQ(s.kernel_bytes_args, (uint64_t)N);
  ASSERT_EQ(s.syncs, 1u);
  ASSERT_EQ(s.allocs, 1u);
  ASSERT_EQ(s.frees, 1u);
  CK(cuMemFree(d));
  return TEST_OK;
}

/* Bits set in [d, d+n) of device memory (all zero before the flips). */
static uint64_t popcount_dev(CUdeviceptr d, size_t n) {
  uint8_t *h = malloc(n);
  CK(cuMemcpyDtoH(h, d, n));
  uint64_t c = 0;
  for (size_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcount(h[i]);
  free(h);
  return c;
}

TEST_IMPL(flip_rate_api) {
  ASSERT_EQ(st_set_flip_rate(-1, 0), -1);
  ASSERT_EQ(st_set_flip_rate(NAN, 0), -1);
  ASSERT_EQ(st_set_flip_rate(INFINITY, 0), -1);
  st_setup();
  enum { MB = 1 << 20, N = 16 * MB };
  CUdeviceptr d;
  CK(cuMemAlloc(&d, N));
  CK(cuMemsetD8(d, 0, N));
  uint8_t *pin;
  CK(cuMemAllocHost((void **)&pin, MB));
  memset(pin, 0, MB);
  CUdeviceptr mg;
  CK(cuMemAllocManaged(&mg, MB, CU_MEM_ATTACH_GLOBAL));
  memset((void *)(uintptr_t)mg, 0, MB);
  CK(cuCtxSynchronize());
  st_reset_stats();
  /* 16 MiB at 40000 flips/GiB/s: about 625 flips per second. */
  double t0 = st_now();
  ASSERT_EQ(st_set_flip_rate(40000, 42), 0);
  st_sleep_ms(300);
  ASSERT_EQ(st_set_flip_rate(0, 0), 0);
  double dt = st_now() - t0;
  uint64_t f = st_stats().flips_applied;
  double expect = 40000.0 * N / 1073741824.0 * dt;
  if ((double)f < expect * 0.4 || (double)f > expect * 1.6 + 20)
    FT_FAIL_("%llu flips in %.3f s, expected about %.0f", (unsigned long long)f, dt, expect);
  /* Every flip landed in the device allocation (two flips of one bit cancel). */
  uint64_t p = popcount_dev(d, N);
  ASSERT_LE(p, f);
  ASSERT_EQ((f - p) % 2, 0u);
  ASSERT_LE(f - p, 4u);
  for (size_t i = 0; i < MB; i++) ASSERT_EQ(pin[i], 0);
  for (size_t i = 0; i < MB; i++) ASSERT_EQ(((uint8_t *)(uintptr_t)mg)[i], 0);
  /* Rate 0: no more flips. */
  st_sleep_ms(50);
  ASSERT_EQ(st_stats().flips_applied, f);
  /* Without live device memory nothing is flipped (and nothing crashes). */
  CK(cuMemFree(d));
  ASSERT_EQ(st_set_flip_rate(1e9, 1), 0);
  st_sleep_ms(50);
  ASSERT_EQ(st_stats().flips_applied, f);
  /* Allocations and frees while flipping at a high rate. */
  for (int i = 0; i < 50; i++) {
    CUdeviceptr t;
    CK(cuMemAlloc(&t, 4096));
    st_sleep_ms(1);
    CK(cuMemFree(t));
  }
  ASSERT_EQ(st_set_flip_rate(0, 0), 0);
  ASSERT_GT(st_stats().flips_applied, f);
  CK(cuMemFreeHost(pin));
  CK(cuMemFree(mg));
  return TEST_OK;
}

TEST_IMPL(flip_rate_env) {
  setenv("SIMCUDA_FLIP_RATE", "40000,seed=7", 1);
  st_setup();
  enum { N = 16 << 20 };
  CUdeviceptr d;
  CK(cuMemAlloc(&d, N));
  CK(cuMemsetD8(d, 0, N));
  CK(cuCtxSynchronize());
  uint64_t before = st_stats().flips_applied;
  st_sleep_ms(200);
  ASSERT_EQ(st_set_flip_rate(0, 0), 0);
  uint64_t f = st_stats().flips_applied;
  ASSERT_GT(f, before);
  /* Flips before the memset were wiped by it, and some may land between the
   * memset and the reading of `before`: the bits set are at most all flips and
   * at least roughly those after `before`. */
  uint64_t p = popcount_dev(d, N);
  ASSERT_GT(p, 0u);
  ASSERT_LE(p, f);
  ASSERT_GE(p + 4, (f - before) * 9 / 10);
  CK(cuMemFree(d));
  return TEST_OK;
}

TEST_IMPL(flip_rate_env_malformed) {
  setenv("SIMCUDA_FLIP_RATE", "1e9,seed=", 1);
  st_setup();
  CUdeviceptr d;
  CK(cuMemAlloc(&d, 1 << 20));
  st_sleep_ms(50);
  ASSERT_EQ(st_stats().flips_applied, 0u);
  CK(cuMemFree(d));
  return TEST_OK;
}
