/* test_mem.c: device memory: allocation, bounds-checked copies and memsets (invalid,
 * freed, interior, out-of-range pointers, double free, zero sizes), host faults on
 * device addresses, pinned/mapped/registered/managed memory, 2-D/3-D copies,
 * stream-ordered allocation. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "simtest.h"

TEST_IMPL(mem_alloc_and_ranges) {
  st_setup();
  CUdeviceptr p, base;
  size_t size, fr, tot;
  ASSERT_CU(cuMemAlloc(&p, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemAlloc(&p, (size_t)64 << 30), CUDA_ERROR_OUT_OF_MEMORY);
  CK(cuMemGetInfo(&fr, &tot));
  size_t sizes[] = {1, 7, 255, 256, 257, 4095, 4096, 4097, 100000, 1 << 20};
  CUdeviceptr ptrs[10];
  for (int i = 0; i < 10; i++) {
    CK(cuMemAlloc(&ptrs[i], sizes[i]));
    ASSERT_EQ(ptrs[i] % 256, 0u);
    for (size_t off = 0; off < sizes[i]; off += sizes[i] / 3 + 1) {
      CK(cuMemGetAddressRange(&base, &size, ptrs[i] + off));
      ASSERT_EQ(base, ptrs[i]);
      ASSERT_EQ(size, sizes[i]);
    }
    ASSERT_CU(cuMemGetAddressRange(&base, &size, ptrs[i] + sizes[i] + 4096), CUDA_ERROR_NOT_FOUND);
    CUdeviceptr start;
    size_t rs;
    unsigned type;
    CK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptrs[i] + sizes[i] - 1));
    ASSERT_EQ(type, (unsigned)CU_MEMORYTYPE_DEVICE);
    CK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptrs[i] + sizes[i] / 2));
    ASSERT_EQ(start, ptrs[i]);
    CK(cuPointerGetAttribute(&rs, CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptrs[i]));
    ASSERT_EQ(rs, sizes[i]);
  }
  size_t fr2;
  CK(cuMemGetInfo(&fr2, &tot));
  ASSERT_LT(fr2, fr);
  /* Frees: interior pointer, bogus pointer, double free, free(0). */
  for (int i = 0; i < 10; i++) {
    if (sizes[i] > 1) ASSERT_CU(cuMemFree(ptrs[i] + 1), CUDA_ERROR_INVALID_VALUE);
    CK(cuMemFree(ptrs[i]));
    ASSERT_CU(cuMemFree(ptrs[i]), CUDA_ERROR_INVALID_VALUE);
  }
  CK(cuMemFree(0));
  ASSERT_CU(cuMemFree((CUdeviceptr)(uintptr_t)&fr), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemGetInfo(&fr2, &tot));
  ASSERT_EQ(fr2, fr);
  size_t pitch;
  CK(cuMemAllocPitch(&p, &pitch, 1000, 10, 4));
  ASSERT_GE(pitch, 1000u);
  ASSERT_EQ(pitch % 256, 0u);
  CK(cuMemFree(p));
  return TEST_OK;
}

TEST_IMPL(mem_copy_bounds) {
  st_setup();
  enum { N = 10000 };
  CUdeviceptr a, b, gone;
  CK(cuMemAlloc(&a, N));
  CK(cuMemAlloc(&b, N));
  CK(cuMemAlloc(&gone, N));
  CK(cuMemFree(gone));
  uint8_t *h = malloc(2 * N), *back = malloc(2 * N);
  for (int i = 0; i < 2 * N; i++) h[i] = (uint8_t)(i * 7 + 3);
  /* In range at every offset/size combination of a grid: succeeds and is exact;
   * one byte beyond: INVALID_VALUE and nothing written. */
  for (size_t off = 0; off < N; off += 997) {
    for (size_t n = 1; off + n <= N; n = n * 3 + 1) {
      CK(cuMemcpyHtoD(a + off, h, n));
      CK(cuMemcpyDtoH(back, a + off, n));
      ASSERT_MEM_EQ(back, h, n);
    }
    size_t over = N - off + 1;
    ASSERT_CU(cuMemcpyHtoD(a + off, h, over), CUDA_ERROR_INVALID_VALUE);
    ASSERT_CU(cuMemcpyDtoH(back, a + off, over), CUDA_ERROR_INVALID_VALUE);
    ASSERT_CU(cuMemcpyDtoD(b, a + off, over), CUDA_ERROR_INVALID_VALUE);
    ASSERT_CU(cuMemcpyDtoD(a + off, b, over), CUDA_ERROR_INVALID_VALUE);
    ASSERT_CU(cuMemcpy(a + off, (CUdeviceptr)(uintptr_t)h, over), CUDA_ERROR_INVALID_VALUE);
    ASSERT_CU(cuMemsetD8(a + off, 0, over), CUDA_ERROR_INVALID_VALUE);
    ASSERT_CU(cuMemcpyHtoDAsync(a + off, h, over, NULL), CUDA_ERROR_INVALID_VALUE);
  }
  /* Freed, unallocated and host pointers where device memory is required. */
  ASSERT_CU(cuMemcpyHtoD(gone, h, 16), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyDtoH(back, gone + 8, 16), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemsetD32(gone, 0, 4), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)back, h, 16), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyDtoH(back, 0, 16), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyHtoD(a, (void *)(uintptr_t)b, 16), CUDA_ERROR_INVALID_VALUE); /* device as host */
  ASSERT_CU(cuMemcpy(gone, a, 16), CUDA_ERROR_INVALID_VALUE);
  /* Zero sizes succeed, whatever the pointers. */
  CK(cuMemcpyHtoD(gone, h, 0));
  CK(cuMemcpyDtoH(NULL, 0, 0));
  CK(cuMemcpyDtoDAsync(0, gone, 0, NULL));
  CK(cuMemsetD8(gone, 1, 0));
  CK(cuMemsetD2D32(gone, 0, 5, 0, 7));
  /* Interior pointers and unified copies. */
  CK(cuMemcpy(b + 100, (CUdeviceptr)(uintptr_t)h, 50));
  CK(cuMemcpy(a + 10, b + 100, 50));
  CK(cuMemcpy((CUdeviceptr)(uintptr_t)back, a + 10, 50));
  ASSERT_MEM_EQ(back, h, 50);
  CK(cuCtxSynchronize());
  CK(cuMemFree(a));
  CK(cuMemFree(b));
  free(h);
  free(back);
  return TEST_OK;
}

TEST_IMPL(mem_memsets) {
  st_setup();
  enum { N = 4096 };
  CUdeviceptr d;
  CK(cuMemAlloc(&d, N));
  uint8_t back[N];
  for (unsigned elem = 1; elem <= 4; elem *= 2) {
    for (size_t off = 0; off < 64; off += elem) {
      CK(cuMemsetD8(d, 0, N));
      size_t n = (N - off) / elem - 1;
      if (elem == 1) CK(cuMemsetD8(d + off, 0xab, n));
      if (elem == 2) CK(cuMemsetD16Async(d + off, 0xabcd, n, NULL));
      if (elem == 4) CK(cuMemsetD32(d + off, 0xabcdef01u, n));
      CK(cuMemcpyDtoH(back, d, N));
      for (size_t i = 0; i < N; i++) {
        bool in = i >= off && i < off + n * elem;
        uint8_t want = 0;
        if (in) {
          uint32_t v = elem == 1 ? 0xab : elem == 2 ? 0xabcd : 0xabcdef01u;
          want = (uint8_t)(v >> (8 * ((i - off) % elem)));
        }
        if (back[i] != want) FT_FAIL_("elem %u off %zu: byte %zu is 0x%02x, want 0x%02x", elem, off, i, back[i], want);
      }
      /* One element too many. */
      ASSERT_CU(elem == 1 ? cuMemsetD8(d + off, 0, n + 2) : elem == 2 ? cuMemsetD16(d + off, 0, n + 2)
                                                                       : cuMemsetD32(d + off, 0, n + 2),
                CUDA_ERROR_INVALID_VALUE);
    }
  }
  ASSERT_CU(cuMemsetD16(d + 1, 0, 4), CUDA_ERROR_INVALID_VALUE); /* misaligned */
  ASSERT_CU(cuMemsetD32(d + 2, 0, 4), CUDA_ERROR_INVALID_VALUE);
  /* 2-D: a 10x8 window of 16-bit elements in rows of pitch 128. */
  CK(cuMemsetD8(d, 0, N));
  CK(cuMemsetD2D16(d + 128 + 4, 128, 0x1234, 10, 8));
  CK(cuMemcpyDtoH(back, d, N));
  for (size_t i = 0; i < N; i++) {
    size_t row = i / 128, col = i % 128;
    bool in = row >= 1 && row < 9 && col >= 4 && col < 24;
    uint8_t want = in ? ((col - 4) % 2 ? 0x12 : 0x34) : 0;
    if (back[i] != want) FT_FAIL_("2D byte %zu: 0x%02x want 0x%02x", i, back[i], want);
  }
  ASSERT_CU(cuMemsetD2D8(d, 8, 0, 16, 2), CUDA_ERROR_INVALID_VALUE); /* pitch < width */
  ASSERT_CU(cuMemsetD2D8(d + 128, 128, 0, 128, 32), CUDA_ERROR_INVALID_VALUE); /* past the end */
  CK(cuMemFree(d));
  return TEST_OK;
}

static void deref_child(volatile uint8_t *p) {
  signal(SIGSEGV, SIG_DFL); /* sanitizers would turn the fault into an exit code */
  signal(SIGBUS, SIG_DFL);
  uint8_t v = *p;
  _exit(v == 0x77 ? 3 : 4); /* must not be reached */
}

TEST_IMPL(mem_host_deref_faults) {
  st_setup();
  CUdeviceptr d;
  CK(cuMemAlloc(&d, 4096));
  CK(cuMemsetD8(d, 0x77, 4096));
  CK(cuCtxSynchronize());
  /* Any byte of device memory, read directly by the host, faults (at the start,
   * the middle and the end, and just past it). */
  size_t offs[] = {0, 1, 2048, 4095, 4096};
  for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) deref_child((volatile uint8_t *)(uintptr_t)(d + offs[i]));
    int st;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    if (!WIFSIGNALED(st) || (WTERMSIG(st) != SIGSEGV && WTERMSIG(st) != SIGBUS))
      FT_FAIL_("offset %zu: child status 0x%x, expected death by SIGSEGV", offs[i], st);
  }
  CK(cuMemFree(d));
  return TEST_OK;
}

/* A twin writing past the end of its allocation hits the guard page. The CUDA
 * work happens in forked children (a child cannot use its parent's driver). */
static void oob_child(size_t size, size_t at) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction f = st_func(m, ST_OOB);
  CUdeviceptr d;
  CK(cuMemAlloc(&d, size));
  void *args[] = {&d, &at};
  signal(SIGSEGV, SIG_DFL);
  signal(SIGBUS, SIG_DFL);
  CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  _exit(0);
}

TEST_IMPL(mem_twin_out_of_bounds_faults) {
  size_t sizes[] = {256, 1000, 4096, 5000};
  for (size_t i = 0; i < 4; i++) {
    for (int past = 0; past < 2; past++) {
      /* The last byte is fine; past the 256-byte granule that ends the
       * allocation is the guard page. */
      size_t at = past ? ((sizes[i] + 255) & ~(size_t)255) + 16 : sizes[i] - 1;
      fflush(stdout);
      pid_t pid = fork();
      ASSERT(pid >= 0);
      if (pid == 0) oob_child(sizes[i], at);
      int st;
      ASSERT_EQ(waitpid(pid, &st, 0), pid);
      if (past && (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV))
        FT_FAIL_("size %zu: child status 0x%x, expected SIGSEGV", sizes[i], st);
      if (!past && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
        FT_FAIL_("size %zu: in-bounds child status 0x%x", sizes[i], st);
    }
  }
  return TEST_OK;
}

TEST_IMPL(mem_host_kinds) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction fill = st_func(m, ST_FILL);
  /* Pinned + mapped: the device pointer is the host pointer; a twin can write it. */
  unsigned *ph;
  CK(cuMemHostAlloc((void **)&ph, 64 * sizeof *ph, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
  CUdeviceptr dp;
  CK(cuMemHostGetDevicePointer(&dp, ph, 0));
  ASSERT_EQ(dp, (CUdeviceptr)(uintptr_t)ph);
  unsigned flags;
  CK(cuMemHostGetFlags(&flags, ph));
  ASSERT(flags & CU_MEMHOSTALLOC_DEVICEMAP);
  unsigned v = 42, n = 64;
  void *args[] = {&dp, &v, &n};
  CK(cuLaunchKernel(fill, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  for (int i = 0; i < 64; i++) ASSERT_EQ(ph[i], 42u);
  unsigned type;
  CK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dp));
  ASSERT_EQ(type, (unsigned)CU_MEMORYTYPE_HOST);
  ASSERT_CU(cuMemHostAlloc((void **)&ph, 64, 0x80), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemFreeHost(ph));
  ASSERT_CU(cuMemFreeHost(ph), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemFreeHost(NULL));
  /* Managed: host accessible directly. */
  CUdeviceptr mg;
  CK(cuMemAllocManaged(&mg, 64 * sizeof(unsigned), CU_MEM_ATTACH_GLOBAL));
  args[0] = &mg;
  v = 7;
  CK(cuLaunchKernel(fill, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  for (int i = 0; i < 64; i++) ASSERT_EQ(((unsigned *)(uintptr_t)mg)[i], 7u);
  CK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_IS_MANAGED, mg));
  ASSERT_EQ(type, 1u);
  /* cuMemFree frees managed memory (not an interior pointer, not twice). */
  ASSERT_CU(cuMemFree(mg + 8), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemFree(mg));
  ASSERT_CU(cuMemFree(mg), CUDA_ERROR_INVALID_VALUE);
  /* ... but not pinned memory, which is cuMemFreeHost's. */
  CK(cuMemAllocHost((void **)&ph, 64));
  ASSERT_CU(cuMemFree((CUdeviceptr)(uintptr_t)ph), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemFreeHost(ph));
  /* Registered host memory. */
  static unsigned buf[1024];
  CK(cuMemHostRegister(buf, sizeof buf, CU_MEMHOSTREGISTER_DEVICEMAP));
  ASSERT_CU(cuMemHostRegister(buf + 16, 64, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  CK(cuMemHostGetDevicePointer(&dp, buf + 8, 0));
  ASSERT_EQ(dp, (CUdeviceptr)(uintptr_t)(buf + 8));
  ASSERT_CU(cuMemHostUnregister(buf + 1), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  CK(cuMemHostUnregister(buf));
  ASSERT_CU(cuMemHostUnregister(buf), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  ASSERT_CU(cuMemHostUnregister(NULL), CUDA_ERROR_INVALID_VALUE);
  /* Unknown host pointers: not device memory. */
  ASSERT_CU(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)buf),
            CUDA_ERROR_INVALID_VALUE);
  return TEST_OK;
}

TEST_IMPL(mem_copy_2d_3d) {
  st_setup();
  enum { W = 40, H = 12, D = 3, DP = 64, HP = 16 };
  CUdeviceptr d;
  CK(cuMemAlloc(&d, DP * HP * D));
  CK(cuMemsetD8(d, 0, DP * HP * D));
  uint8_t src[D][H][W], back[D][HP][DP];
  for (int z = 0; z < D; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) src[z][y][x] = (uint8_t)(z * 50 + y * 5 + x);
  CUDA_MEMCPY3D c = {0};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = src;
  c.srcPitch = W;
  c.srcHeight = H;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = d;
  c.dstXInBytes = 8;
  c.dstY = 2;
  c.dstPitch = DP;
  c.dstHeight = HP;
  c.WidthInBytes = W;
  c.Height = H;
  c.Depth = D;
  CK(cuMemcpy3D(&c));
  CK(cuMemcpyDtoH(back, d, sizeof back));
  for (int z = 0; z < D; z++)
    for (int y = 0; y < HP; y++)
      for (int x = 0; x < DP; x++) {
        bool in = y >= 2 && y < 2 + H && x >= 8 && x < 8 + W;
        uint8_t want = in ? src[z][y - 2][x - 8] : 0;
        if (back[z][y][x] != want) FT_FAIL_("3D (%d,%d,%d): %u want %u", z, y, x, back[z][y][x], want);
      }
  c.Depth = D + 1; /* one slice too many: out of range */
  ASSERT_CU(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
  c.Depth = D;
  c.dstHeight = H; /* slice shorter than dstY + Height */
  ASSERT_CU(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
  /* 2-D back out of the first slice, through an async stream copy. */
  uint8_t out[H][W];
  CUDA_MEMCPY2D c2 = {0};
  c2.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c2.srcDevice = d;
  c2.srcXInBytes = 8;
  c2.srcY = 2;
  c2.srcPitch = DP;
  c2.dstMemoryType = CU_MEMORYTYPE_HOST;
  c2.dstHost = out;
  c2.dstPitch = W;
  c2.WidthInBytes = W;
  c2.Height = H;
  CK(cuMemcpy2DAsync(&c2, NULL));
  CK(cuStreamSynchronize(NULL));
  ASSERT_MEM_EQ(out, src[0], sizeof out);
  c2.srcPitch = W - 1; /* pitch < width */
  ASSERT_CU(cuMemcpy2D(&c2), CUDA_ERROR_INVALID_VALUE);
  c2.srcPitch = DP;
  c2.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  ASSERT_CU(cuMemcpy2D(&c2), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemFree(d));
  return TEST_OK;
}

TEST_IMPL(mem_alloc_async) {
  st_setup();
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUmemoryPool pool;
  CK(cuDeviceGetDefaultMemPool(&pool, 0));
  for (int i = 0; i < 20; i++) {
    CUdeviceptr a, b;
    CK(cuMemAllocAsync(&a, 1000 + i, s));
    CK(cuMemAllocFromPoolAsync(&b, 1000 + i, pool, s));
    CK(cuMemsetD8Async(a, (unsigned char)i, 1000 + i, s));
    CK(cuMemcpyDtoDAsync(b, a, 1000 + i, s));
    uint8_t back[1100];
    CK(cuMemcpyDtoHAsync(back, b, 1000 + i, s));
    CK(cuStreamSynchronize(s));
    for (int k = 0; k < 1000 + i; k++) ASSERT_EQ(back[k], (uint8_t)i);
    CK(cuMemFreeAsync(a, s));
    ASSERT_CU(cuMemFreeAsync(a, s), CUDA_ERROR_INVALID_VALUE);     /* double free */
    ASSERT_CU(cuMemsetD8Async(a, 0, 10, s), CUDA_ERROR_INVALID_VALUE); /* use after free */
    CK(cuMemFreeAsync(b, s));
  }
  CUdeviceptr x;
  ASSERT_CU(cuMemAllocFromPoolAsync(&x, 10, (CUmemoryPool)&x, s), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemAllocAsync(&x, 10, (CUstream)&x), CUDA_ERROR_INVALID_HANDLE);
  CK(cuStreamSynchronize(s));
  CK(cuStreamDestroy(s));
  return TEST_OK;
}

/* Work queued before cuMemFreeAsync in stream order still sees the allocation:
 * the release happens when the free reaches its place in the stream, not at the
 * call. Work submitted after the free names freed memory: an illegal address,
 * even while the release itself is still queued. */
TEST_IMPL(mem_free_async_stream_order) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction fill = st_func(m, ST_FILL), bad = st_func(m, ST_BAD);
  CUstream s;
  CK(cuStreamCreate(&s, 0));
  unsigned n = 256, *back;
  CK(cuMemAllocHost((void **)&back, n * 4)); /* pinned: the copy below stays asynchronous */
  for (int round = 0; round < 2; round++) {
    CUdeviceptr a;
    CK(cuMemAllocAsync(&a, n * 4, s));
    st_gate_t g = {0};
    CK(cuLaunchHostFunc(s, st_gate_fn, &g)); /* hold the stream: nothing below runs yet */
    unsigned v = 4 + round;
    void *args[] = {&a, &v, &n};
    CK(cuLaunchKernel(fill, 1, 1, 1, n, 1, 1, 0, s, args, NULL));
    CK(cuMemcpyDtoHAsync(back, a, n * 4, s));
    CK(cuMemFreeAsync(a, s)); /* issued before the kernel and the copy have run */
    st_gate_open(&g);
    CK(cuStreamSynchronize(s));
    for (unsigned i = 0; i < n; i++) ASSERT_EQ(back[i], v);
  }
  /* Use after free: a launch submitted after the free, with the free still queued. */
  CUdeviceptr a;
  CK(cuMemAllocAsync(&a, 64, s));
  st_gate_t g = {0};
  CK(cuLaunchHostFunc(s, st_gate_fn, &g));
  CK(cuMemFreeAsync(a, s));
  void *args[] = {&a};
  CK(cuLaunchKernel(bad, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
  st_gate_open(&g);
  ASSERT_CU(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
  CK(cuDevicePrimaryCtxReset(0)); /* also releases the pinned buffer */
  return TEST_OK;
}
