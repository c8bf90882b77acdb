/* test_memops.c: stream memory operations (write/wait value, batches), 3-D peer
 * copies, batched copies (1-D and 3-D), and the entry points the simulator only
 * checks (cuMemcpyAtoD, cuLaunchCooperativeKernelMultiDevice): results, stream
 * order, error codes, counters. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

/* cuLaunchCooperativeKernelMultiDevice is deprecated; it is tested all the same. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

extern __typeof__(*(PFN_cuStreamWriteValue32_v11070_ptsz)0) cuStreamWriteValue32_v2_ptsz;
extern __typeof__(*(PFN_cuStreamBatchMemOp_v11070_ptsz)0) cuStreamBatchMemOp_v2_ptsz;
extern __typeof__(*(PFN_cuMemcpyBatchAsync_v13000_ptsz)0) cuMemcpyBatchAsync_v2_ptsz;
extern __typeof__(*(PFN_cuMemcpy3DBatchAsync_v13000_ptsz)0) cuMemcpy3DBatchAsync_v2_ptsz;
extern __typeof__(*(PFN_cuMemcpy3DPeer_v7000_ptds)0) cuMemcpy3DPeer_ptds;
extern __typeof__(*(PFN_cuMemcpyAtoD_v7000_ptds)0) cuMemcpyAtoD_v2_ptds;

static CUstreamBatchMemOpParams wr32(CUdeviceptr a, uint32_t v) {
  CUstreamBatchMemOpParams p;
  memset(&p, 0, sizeof p);
  p.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  p.writeValue.address = a;
  p.writeValue.value = v;
  return p;
}

TEST_IMPL(memop_write_value) {
  st_setup();
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr d;
  CK(cuMemAlloc(&d, 256));
  CK(cuMemsetD8(d, 0, 256));
  CK(cuCtxSynchronize());
  st_reset_stats();
  CK(cuStreamWriteValue32(s, d, 0x11223344u, 0));
  CK(cuStreamWriteValue64(s, d + 8, 0x0102030405060708ull, 0));
  CK(cuStreamWriteValue32_v2_ptsz(NULL, d + 16, 7, 0));
  CK(cuStreamWriteValue32(NULL, d + 20, 9, 0));
  CUstreamBatchMemOpParams ops[3] = {wr32(d + 24, 1), wr32(d + 28, 2), wr32(d + 32, 3)};
  memset(&ops[2], 0, sizeof ops[2]);
  ops[2].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
  ops[2].writeValue.address = d + 40;
  ops[2].writeValue.value64 = 0xdeadbeefcafef00dull;
  CK(cuStreamBatchMemOp(s, 3, ops, 0));
  CK(cuStreamBatchMemOp_v2_ptsz(s, 1, ops, 0));
  CK(cuCtxSynchronize());
  uint32_t w[12];
  CK(cuMemcpyDtoH(w, d, sizeof w));
  ASSERT_EQ(w[0], 0x11223344u);
  uint64_t q;
  memcpy(&q, &w[2], 8);
  ASSERT_EQ(q, 0x0102030405060708ull);
  ASSERT_EQ(w[4], 7u);
  ASSERT_EQ(w[5], 9u);
  ASSERT_EQ(w[6], 1u);
  ASSERT_EQ(w[7], 2u);
  memcpy(&q, &w[10], 8);
  ASSERT_EQ(q, 0xdeadbeefcafef00dull);
  simcuda_stats_t st = st_stats();
  ASSERT_EQ(st.memsets, 8u); /* counted as fills */
  ASSERT_EQ(st.bytes_memset, 4u * 6 + 8u * 2);
  /* Pinned host memory the device can reach. */
  uint32_t *pin;
  CK(cuMemAllocHost((void **)&pin, 64));
  CK(cuStreamWriteValue32(s, (CUdeviceptr)(uintptr_t)pin, 5, 0));
  CK(cuStreamSynchronize(s));
  ASSERT_EQ(__atomic_load_n(pin, __ATOMIC_ACQUIRE), 5u);
  /* Errors: misaligned, out of bounds, freed, managed, pageable, NULL, flags. */
  ASSERT_CU(cuStreamWriteValue32(s, d + 2, 1, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamWriteValue64(s, d + 4, 1, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamWriteValue32(s, d + 256, 1, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamWriteValue64(s, d + 252, 1, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamWriteValue32(s, 0, 1, 0), CUDA_ERROR_INVALID_VALUE);
  uint32_t local[4];
  ASSERT_CU(cuStreamWriteValue32(s, (CUdeviceptr)(uintptr_t)local, 1, 0), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr mg;
  CK(cuMemAllocManaged(&mg, 64, CU_MEM_ATTACH_GLOBAL));
  ASSERT_CU(cuStreamWriteValue32(s, mg, 1, 0), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemFree(mg));
  ASSERT_CU(cuStreamWriteValue32(s, d, 1, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamWriteValue32((CUstream)(uintptr_t)0x1234, d, 1, 0), CUDA_ERROR_INVALID_HANDLE);
  /* Batches: count in [1, 255], flags 0, a bad entry rejects the whole batch. */
  ASSERT_CU(cuStreamBatchMemOp(s, 0, ops, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamBatchMemOp(s, 1, NULL, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamBatchMemOp(s, 1, ops, 1), CUDA_ERROR_INVALID_VALUE);
  CUstreamBatchMemOpParams *many = calloc(256, sizeof *many);
  for (int i = 0; i < 256; i++) many[i] = wr32(d + 4 * (unsigned)(i % 64), (uint32_t)i);
  ASSERT_CU(cuStreamBatchMemOp(s, 256, many, 0), CUDA_ERROR_INVALID_VALUE);
  CK(cuStreamBatchMemOp(s, 255, many, 0));
  CK(cuStreamSynchronize(s));
  CK(cuMemsetD8(d, 0, 256));
  CK(cuCtxSynchronize());
  CUstreamBatchMemOpParams bad[2] = {wr32(d, 0xaa), wr32(d + 1, 0xbb)};
  ASSERT_CU(cuStreamBatchMemOp(s, 2, bad, 0), CUDA_ERROR_INVALID_VALUE);
  bad[1].operation = (CUstreamBatchMemOpType)99;
  ASSERT_CU(cuStreamBatchMemOp(s, 2, bad, 0), CUDA_ERROR_INVALID_VALUE);
  memset(&bad[1], 0, sizeof bad[1]);
  bad[1].flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
  ASSERT_CU(cuStreamBatchMemOp(s, 2, bad, 0), CUDA_ERROR_NOT_SUPPORTED);
  CK(cuStreamSynchronize(s));
  CK(cuMemcpyDtoH(w, d, 4));
  ASSERT_EQ(w[0], 0u); /* nothing of the rejected batches ran */
  /* Barriers are accepted (stream order already orders the writes). */
  memset(&bad[1], 0, sizeof bad[1]);
  bad[1].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
  bad[1].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
  CK(cuStreamBatchMemOp(s, 2, bad, 0));
  bad[1].memoryBarrier.flags = 7;
  ASSERT_CU(cuStreamBatchMemOp(s, 2, bad, 0), CUDA_ERROR_INVALID_VALUE);
  CK(cuStreamSynchronize(s));
  CK(cuMemcpyDtoH(w, d, 4));
  ASSERT_EQ(w[0], 0xaau);
  int attr;
  CK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 0));
  ASSERT_EQ(attr, 1);
  free(many);
  CK(cuMemFreeHost(pin));
  CK(cuMemFree(d));
  CK(cuStreamDestroy(s));
  return TEST_OK;
}

static void *release_later(void *word) {
  st_sleep_ms(100);
  __atomic_store_n((uint32_t *)word, 10u, __ATOMIC_RELEASE);
  return NULL;
}

TEST_IMPL(memop_wait_value) {
  st_setup();
  CUstream s, s2;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  uint32_t *pin;
  CK(cuMemAllocHost((void **)&pin, 64));
  memset(pin, 0, 64);
  CUdeviceptr flag = (CUdeviceptr)(uintptr_t)pin, d;
  CK(cuMemAlloc(&d, 64));
  CK(cuMemsetD8(d, 0, 64));
  CK(cuCtxSynchronize());
  /* The host releases the stream by writing the word: later work waits for it. */
  CK(cuStreamWaitValue32(s, flag, 10, CU_STREAM_WAIT_VALUE_GEQ));
  CK(cuStreamWriteValue32(s, d, 77, 0));
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, NULL, release_later, pin), 0);
  st_sleep_ms(30);
  ASSERT_CU(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
  double t0 = st_now();
  CK(cuStreamSynchronize(s));
  ASSERT_GE(st_now() - t0, 0.03);
  pthread_join(t, NULL);
  uint32_t w;
  CK(cuMemcpyDtoH(&w, d, 4));
  ASSERT_EQ(w, 77u);
  /* Another stream releases it through device memory (EQ, AND, NOR, 64-bit GEQ). */
  CK(cuStreamWaitValue32(s, d + 4, 3, CU_STREAM_WAIT_VALUE_EQ));
  CK(cuStreamWaitValue32(s, d + 4, 2, CU_STREAM_WAIT_VALUE_AND));
  CK(cuStreamWaitValue32(s, d + 4, 0xfffffff0u, CU_STREAM_WAIT_VALUE_NOR));
  CK(cuStreamWaitValue64(s, d + 8, 5, CU_STREAM_WAIT_VALUE_GEQ));
  CK(cuStreamWriteValue32(s, d + 16, 1, 0));
  st_sleep_ms(20);
  ASSERT_CU(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
  CK(cuStreamWriteValue32(s2, d + 4, 3, 0));
  CK(cuStreamWriteValue64(s2, d + 8, 6, 0));
  CK(cuStreamSynchronize(s));
  CK(cuMemcpyDtoH(&w, d + 16, 4));
  ASSERT_EQ(w, 1u);
  /* Cyclic GEQ: 0 is "after" 0xffffffff. */
  CK(cuStreamWaitValue32(s, d + 20, 0xffffffffu, CU_STREAM_WAIT_VALUE_GEQ));
  CK(cuStreamSynchronize(s));
  /* Errors. */
  ASSERT_CU(cuStreamWaitValue32(s, flag, 1, CU_STREAM_WAIT_VALUE_FLUSH), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_CU(cuStreamWaitValue32(s, flag, 1, 4), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamWaitValue32(s, flag + 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamWaitValue64(s, flag + 4, 1, 0), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemFreeHost(pin));
  CK(cuMemFree(d));
  CK(cuStreamDestroy(s));
  CK(cuStreamDestroy(s2));
  return TEST_OK;
}

TEST_IMPL(copy_3d_peer) {
  CUcontext ctx = st_setup();
  enum { W = 100, H = 6, D = 3, P = 128 };
  uint8_t *src = malloc(P * H * D), *back = malloc(P * H * D);
  for (int i = 0; i < P * H * D; i++) src[i] = (uint8_t)(i * 13 + 1);
  CUdeviceptr a, b;
  CK(cuMemAlloc(&a, P * H * D));
  CK(cuMemAlloc(&b, P * H * D));
  CK(cuMemcpyHtoD(a, src, P * H * D));
  CK(cuMemsetD8(b, 0, P * H * D));
  st_reset_stats();
  CUDA_MEMCPY3D_PEER c;
  memset(&c, 0, sizeof c);
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = a;
  c.srcPitch = P;
  c.srcHeight = H;
  c.srcContext = ctx;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = b;
  c.dstPitch = P;
  c.dstHeight = H;
  c.dstContext = ctx;
  c.WidthInBytes = W;
  c.Height = H;
  c.Depth = D;
  CK(cuMemcpy3DPeer(&c));
  CK(cuCtxSynchronize());
  CK(cuMemcpyDtoH(back, b, P * H * D));
  for (int z = 0; z < D; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < P; x++) {
        size_t i = (size_t)(z * H + y) * P + (size_t)x;
        ASSERT_EQ(back[i], x < W ? src[i] : 0);
      }
  simcuda_stats_t st = st_stats();
  ASSERT_EQ(st.memcpy_d2d, 1u);
  ASSERT_EQ(st.bytes_d2d, (uint64_t)W * H * D);
  /* Async into host memory, on a stream; the _ptds form. */
  CUstream s;
  CK(cuStreamCreate(&s, 0));
  memset(back, 0, P * H * D);
  c.dstMemoryType = CU_MEMORYTYPE_HOST;
  c.dstHost = back;
  CK(cuMemcpy3DPeerAsync(&c, s));
  CK(cuStreamSynchronize(s));
  for (int i = 0; i < P * H * D; i++) ASSERT_EQ(back[i], i % P < W ? src[i] : 0);
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  CK(cuMemcpy3DPeer_ptds(&c));
  /* Errors: bad contexts, arrays, LOD, out of bounds, NULL. */
  CUDA_MEMCPY3D_PEER e = c;
  e.srcContext = NULL;
  ASSERT_CU(cuMemcpy3DPeer(&e), CUDA_ERROR_INVALID_CONTEXT);
  e = c;
  e.dstContext = (CUcontext)(uintptr_t)0x999;
  ASSERT_CU(cuMemcpy3DPeerAsync(&e, s), CUDA_ERROR_INVALID_CONTEXT);
  e = c;
  e.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  ASSERT_CU(cuMemcpy3DPeer(&e), CUDA_ERROR_INVALID_VALUE);
  e = c;
  e.dstLOD = 1;
  ASSERT_CU(cuMemcpy3DPeer(&e), CUDA_ERROR_INVALID_VALUE);
  e = c;
  e.Depth = D + 1;
  ASSERT_CU(cuMemcpy3DPeer(&e), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpy3DPeer(NULL), CUDA_ERROR_INVALID_VALUE);
  CK(cuCtxSynchronize());
  CK(cuStreamDestroy(s));
  CK(cuMemFree(a));
  CK(cuMemFree(b));
  free(src);
  free(back);
  return TEST_OK;
}

TEST_IMPL(copy_batch_1d) {
  st_setup();
  enum { N = 4096 };
  CUstream s;
  CK(cuStreamCreate(&s, 0));
  CUdeviceptr a, b;
  CK(cuMemAlloc(&a, N));
  CK(cuMemAlloc(&b, N));
  uint8_t *pin, *page = malloc(N), *back = malloc(N);
  CK(cuMemAllocHost((void **)&pin, N));
  memset(pin, 'P', N);
  memset(page, 'G', N);
  CK(cuMemsetD8(a, 0, N));
  CK(cuMemsetD8(b, 0, N));
  CK(cuCtxSynchronize());
  st_reset_stats();
  /* H2D from pinned (stream order), H2D from pageable (ANY), then D2D; two attrs. */
  CUdeviceptr dsts[3] = {a, a + 1024, b}, srcs[3] = {(CUdeviceptr)(uintptr_t)pin, (CUdeviceptr)(uintptr_t)page, a + 2048};
  size_t sizes[3] = {1024, 1024, 512}, idx[2] = {0, 1};
  CUmemcpyAttributes at[2];
  memset(at, 0, sizeof at);
  at[0].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  at[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
  at[1].flags = CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE;
  st_gate_t g = {0};
  CK(cuLaunchHostFunc(s, st_gate_fn, &g));
  CK(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, at, idx, 2, s));
  memset(pin, 'Q', N);  /* read in stream order: the copy sees 'Q' */
  memset(page, 'H', N); /* ANY: read at the call here, the copy keeps 'G' */
  st_gate_open(&g);
  CK(cuStreamSynchronize(s));
  CK(cuMemcpyDtoH(back, a, N));
  for (int i = 0; i < N; i++) ASSERT_EQ(back[i], i < 1024 ? 'Q' : i < 2048 ? 'G' : 0);
  simcuda_stats_t st = st_stats();
  ASSERT_EQ(st.memcpy_h2d, 2u);
  ASSERT_EQ(st.bytes_h2d, 2048u);
  ASSERT_EQ(st.memcpy_d2d, 1u);
  ASSERT_EQ(st.bytes_d2d, 512u);
  /* DURING_API_CALL on device memory: read before the call returns. */
  CUmemcpyAttributes now;
  memset(&now, 0, sizeof now);
  now.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
  st_gate_t g2 = {0};
  CK(cuLaunchHostFunc(s, st_gate_fn, &g2));
  CUdeviceptr d1[1] = {b}, s1[1] = {a};
  size_t n1[1] = {N}, i0[1] = {0};
  CK(cuMemcpyBatchAsync(d1, s1, n1, 1, &now, i0, 1, s));
  /* Change the source while the stream is held: the copy must not see it. */
  CUstream s2;
  CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  CK(cuMemsetD8Async(a, 'Z', N, s2));
  CK(cuStreamSynchronize(s2));
  st_gate_open(&g2);
  CK(cuStreamSynchronize(s));
  CK(cuMemcpyDtoH(back, b, N));
  ASSERT_EQ(back[0], 'Q');
  ASSERT_EQ(back[1500], 'G');
  /* The _ptsz form on the per-thread stream (NULL there is not the legacy stream). */
  CK(cuMemcpyBatchAsync_v2_ptsz(d1, s1, n1, 1, &now, i0, 1, NULL));
  CK(cuStreamSynchronize_ptsz(NULL));
  CK(cuMemcpyDtoH(back, b, N));
  ASSERT_EQ(back[0], 'Z');
  /* Errors; none of a rejected batch runs. */
  CK(cuMemsetD8(b, 0, N));
  CK(cuCtxSynchronize());
  ASSERT_CU(cuMemcpyBatchAsync(d1, s1, n1, 1, &now, i0, 1, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyBatchAsync(d1, s1, n1, 1, &now, i0, 1, CU_STREAM_LEGACY), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyBatchAsync(d1, s1, n1, 0, &now, i0, 1, s), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyBatchAsync(d1, s1, n1, 1, NULL, i0, 1, s), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyBatchAsync(d1, s1, n1, 1, &now, i0, 2, s), CUDA_ERROR_INVALID_VALUE); /* numAttrs > count */
  idx[0] = 1;
  ASSERT_CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, at, idx, 2, s), CUDA_ERROR_INVALID_VALUE); /* first != 0 */
  idx[0] = 0;
  idx[1] = 0;
  ASSERT_CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, at, idx, 2, s), CUDA_ERROR_INVALID_VALUE); /* not increasing */
  idx[1] = 3;
  ASSERT_CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, at, idx, 2, s), CUDA_ERROR_INVALID_VALUE); /* >= count */
  idx[1] = 1;
  at[0].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
  ASSERT_CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, at, idx, 2, s), CUDA_ERROR_INVALID_VALUE);
  at[0].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  at[0].flags = 2;
  ASSERT_CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, at, idx, 2, s), CUDA_ERROR_INVALID_VALUE);
  at[0].flags = 0;
  dsts[0] = b;
  dsts[2] = b + N - 100; /* runs past the end: the whole batch is refused */
  ASSERT_CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, at, idx, 2, s), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, at, idx, 2, (CUstream)(uintptr_t)0x77), CUDA_ERROR_INVALID_HANDLE);
  CK(cuStreamSynchronize(s));
  CK(cuMemcpyDtoH(back, b, N));
  for (int i = 0; i < N; i++) ASSERT_EQ(back[i], 0);
  CK(cuMemFreeHost(pin));
  CK(cuMemFree(a));
  CK(cuMemFree(b));
  CK(cuStreamDestroy(s));
  CK(cuStreamDestroy(s2));
  free(page);
  free(back);
  return TEST_OK;
}

static CUmemcpy3DOperand ptr_operand(CUdeviceptr p, size_t row, size_t layer) {
  CUmemcpy3DOperand o;
  memset(&o, 0, sizeof o);
  o.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  o.op.ptr.ptr = p;
  o.op.ptr.rowLength = row;
  o.op.ptr.layerHeight = layer;
  return o;
}

TEST_IMPL(copy_batch_3d) {
  st_setup();
  enum { W = 50, H = 4, D = 2, ROW = 64, LAYER = 5, SZ = ROW * LAYER * D };
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  uint8_t *src = malloc(SZ), *back = malloc(2048);
  for (int i = 0; i < SZ; i++) src[i] = (uint8_t)(i * 7 + 3);
  CUdeviceptr a, b;
  CK(cuMemAlloc(&a, SZ));
  CK(cuMemAlloc(&b, SZ));
  CK(cuMemcpyHtoD(a, src, SZ));
  CK(cuMemsetD8(b, 0, SZ));
  CK(cuCtxSynchronize());
  st_reset_stats();
  /* Pitched source into a tightly packed destination (rowLength/layerHeight 0). */
  CUDA_MEMCPY3D_BATCH_OP op;
  memset(&op, 0, sizeof op);
  op.src = ptr_operand(a, ROW, LAYER);
  op.dst = ptr_operand(b, 0, 0);
  op.extent.width = W;
  op.extent.height = H;
  op.extent.depth = D;
  op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  CK(cuMemcpy3DBatchAsync(1, &op, 0, s));
  CK(cuStreamSynchronize(s));
  CK(cuMemcpyDtoH(back, b, SZ));
  for (int z = 0; z < D; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) ASSERT_EQ(back[(z * H + y) * W + x], src[(z * LAYER + y) * ROW + x]);
  for (int i = W * H * D; i < SZ; i++) ASSERT_EQ(back[i], 0);
  simcuda_stats_t st = st_stats();
  ASSERT_EQ(st.memcpy_d2d, 1u);
  ASSERT_EQ(st.bytes_d2d, (uint64_t)W * H * D);
  /* Two ops, device to pageable host, _ptsz on the per-thread stream. */
  CUDA_MEMCPY3D_BATCH_OP two[2] = {op, op};
  memset(back, 0, SZ);
  two[0].dst = ptr_operand((CUdeviceptr)(uintptr_t)back, 0, 0);
  two[0].extent.depth = 1;
  two[1].dst = ptr_operand((CUdeviceptr)(uintptr_t)(back + 1000), W, H);
  two[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
  CK(cuMemcpy3DBatchAsync_v2_ptsz(2, two, 0, NULL));
  CK(cuStreamSynchronize_ptsz(NULL));
  ASSERT_EQ(back[W + 1], src[ROW + 1]);
  ASSERT_EQ(back[1000 + W * H + 2], src[ROW * LAYER + 2]);
  /* Errors. */
  CUDA_MEMCPY3D_BATCH_OP e = op;
  ASSERT_CU(cuMemcpy3DBatchAsync(1, &e, 0, NULL), CUDA_ERROR_INVALID_VALUE); /* legacy stream */
  ASSERT_CU(cuMemcpy3DBatchAsync(1, &e, 1, s), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpy3DBatchAsync(0, &e, 0, s), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpy3DBatchAsync(1, NULL, 0, s), CUDA_ERROR_INVALID_VALUE);
  e.src.type = CU_MEMCPY_OPERAND_TYPE_ARRAY; /* no CUDA arrays */
  ASSERT_CU(cuMemcpy3DBatchAsync(1, &e, 0, s), CUDA_ERROR_INVALID_VALUE);
  e = op;
  e.extent.height = 0;
  ASSERT_CU(cuMemcpy3DBatchAsync(1, &e, 0, s), CUDA_ERROR_INVALID_VALUE);
  e = op;
  e.src.op.ptr.rowLength = W - 1;
  ASSERT_CU(cuMemcpy3DBatchAsync(1, &e, 0, s), CUDA_ERROR_INVALID_VALUE);
  e = op;
  e.src.op.ptr.layerHeight = H - 1;
  ASSERT_CU(cuMemcpy3DBatchAsync(1, &e, 0, s), CUDA_ERROR_INVALID_VALUE);
  e = op;
  e.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
  ASSERT_CU(cuMemcpy3DBatchAsync(1, &e, 0, s), CUDA_ERROR_INVALID_VALUE);
  e = op;
  e.extent.depth = D + 1; /* source runs past its allocation */
  ASSERT_CU(cuMemcpy3DBatchAsync(1, &e, 0, s), CUDA_ERROR_INVALID_VALUE);
  CK(cuStreamSynchronize(s));
  CK(cuStreamDestroy(s));
  CK(cuMemFree(a));
  CK(cuMemFree(b));
  free(src);
  free(back);
  return TEST_OK;
}

TEST_IMPL(unsupported_entry_points) {
  /* Before cuInit: the usual error. */
  ASSERT_CU(cuMemcpyAtoD(0, NULL, 0, 16), CUDA_ERROR_NOT_INITIALIZED);
  st_setup();
  CUdeviceptr d;
  CK(cuMemAlloc(&d, 64));
  /* No CUDA arrays exist: every handle is invalid, NULL included. */
  ASSERT_CU(cuMemcpyAtoD(d, NULL, 0, 16), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyAtoD(d, (CUarray)(uintptr_t)0x1000, 0, 16), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyAtoD_v2_ptds(d, NULL, 0, 16), CUDA_ERROR_INVALID_VALUE);
  /* Multi-device cooperative launch: checked, then not supported. */
  ASSERT_CU(cuLaunchCooperativeKernelMultiDevice(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
  CUDA_LAUNCH_PARAMS lp;
  memset(&lp, 0, sizeof lp);
  ASSERT_CU(cuLaunchCooperativeKernelMultiDevice(&lp, 0, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLaunchCooperativeKernelMultiDevice(&lp, 1, 4), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLaunchCooperativeKernelMultiDevice(&lp, 1, 0), CUDA_ERROR_NOT_SUPPORTED);
  int attr = -1;
  CK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, 0));
  ASSERT_EQ(attr, 0);
  CK(cuMemFree(d));
  return TEST_OK;
}
