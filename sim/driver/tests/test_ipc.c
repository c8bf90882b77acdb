/* test_ipc.c: device memory shared between processes: a producer process exports
 * an allocation (cuIpcGetMemHandle), a consumer opens it, reads what the producer's
 * kernel wrote and writes back; the error codes of each call. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "simtest.h"

enum { WORDS = 4096 };

/* The producer, in the process the test starts (fork and exec, as CUDA needs):
 * fills the first half with 0x1234, hands the handle over, waits for the
 * consumer, then checks the second half it wrote. */
static int producer(int in, int out) {
  st_setup();
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUdeviceptr d;
  CK(cuMemAlloc(&d, WORDS * 4));
  CK(cuMemsetD32(d, 0, WORDS));
  st_fill(st_func(m, ST_FILL), d, 0x1234, WORDS / 2);
  CK(cuCtxSynchronize());
  CUipcMemHandle h;
  CK(cuIpcGetMemHandle(&h, d));
  ASSERT_EQ(write(out, &h, sizeof h), (ssize_t)sizeof h);
  char done;
  ASSERT_EQ(read(in, &done, 1), 1);
  uint32_t w[WORDS];
  CK(cuMemcpyDtoH(w, d, sizeof w));
  for (int i = 0; i < WORDS; i++) ASSERT_EQ(w[i], i < WORDS / 2 ? 0x1234u : 0xbeefu);
  CK(cuMemFree(d));
  return TEST_OK;
}

TEST_IMPL(ipc_producer_consumer) {
  const char *role = getenv("ST_IPC_PRODUCER");
  if (role) return producer(atoi(role), atoi(strchr(role, ',') + 1));
  int p2c[2], c2p[2];
  ASSERT_EQ(pipe(p2c), 0);
  ASSERT_EQ(pipe(c2p), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    char v[32];
    snprintf(v, sizeof v, "%d,%d", p2c[0], c2p[1]);
    setenv("ST_IPC_PRODUCER", v, 1);
    int null = open("/dev/null", O_WRONLY); /* the producer's TAP lines are not this test's */
    if (null >= 0) dup2(null, 1);
    execl("/proc/self/exe", "test_simdrv", "ipc_producer_consumer", (char *)NULL);
    _exit(127);
  }
  st_setup();
  CUipcMemHandle h;
  ASSERT_EQ(read(c2p[0], &h, sizeof h), (ssize_t)sizeof h);
  CUdeviceptr d, again;
  ASSERT_CU(cuIpcOpenMemHandle(&d, h, 0), CUDA_ERROR_INVALID_VALUE); /* the flag is required */
  CK(cuIpcOpenMemHandle(&d, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  CK(cuIpcOpenMemHandle(&again, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  ASSERT_EQ(again, d); /* opened twice by one context: one mapping, counted */
  CK(cuIpcCloseMemHandle(again));
  uint32_t w[WORDS];
  CK(cuMemcpyDtoH(w, d, sizeof w));
  for (int i = 0; i < WORDS / 2; i++) ASSERT_EQ(w[i], 0x1234u);
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  st_fill(st_func(m, ST_FILL), d + WORDS * 2, 0xbeef, WORDS / 2); /* a kernel here writes it */
  CK(cuCtxSynchronize());
  ASSERT_CU(cuMemFree(d), CUDA_ERROR_INVALID_VALUE); /* imported memory is closed, not freed */
  int ord;
  CK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d));
  ASSERT_EQ(ord, 0);
  CK(cuIpcCloseMemHandle(d));
  ASSERT_CU(cuIpcCloseMemHandle(d), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyDtoH(w, d, 4), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(write(p2c[1], "x", 1), 1);
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  /* The exporter is gone: its memory cannot be opened any more. */
  ASSERT_CU(cuIpcOpenMemHandle(&d, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_MAP_FAILED);
  return TEST_OK;
}

TEST_IMPL(ipc_errors) {
  st_setup();
  CUdeviceptr d;
  CK(cuMemAlloc(&d, 1000));
  CUipcMemHandle h;
  ASSERT_CU(cuIpcGetMemHandle(&h, d + 8), CUDA_ERROR_INVALID_VALUE); /* not the base */
  ASSERT_CU(cuIpcGetMemHandle(NULL, d), CUDA_ERROR_INVALID_VALUE);
  void *pinned;
  CK(cuMemAllocHost(&pinned, 64));
  ASSERT_CU(cuIpcGetMemHandle(&h, (CUdeviceptr)(uintptr_t)pinned), CUDA_ERROR_INVALID_VALUE);
  CK(cuIpcGetMemHandle(&h, d));
  CUdeviceptr o;
  ASSERT_CU(cuIpcOpenMemHandle(&o, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_CONTEXT); /* exporter */
  CUipcMemHandle junk;
  memset(&junk, 7, sizeof junk);
  ASSERT_CU(cuIpcOpenMemHandle(&o, junk, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuIpcCloseMemHandle(d), CUDA_ERROR_INVALID_VALUE); /* not an import */
  int v = -1;
  CK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 0));
  ASSERT_EQ(v, 0); /* event handles are not simulated */
  CK(cuMemFreeHost(pinned));
  CK(cuMemFree(d));
  return TEST_OK;
}

/* CUDA is not usable in a forked child (device memory is shared with the parent). */
TEST_IMPL(fork_child_cuda_refused) {
  st_setup();
  CUdeviceptr d;
  CK(cuMemAlloc(&d, 4096));
  CK(cuMemsetD8(d, 0x11, 4096));
  CK(cuCtxSynchronize());
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    CUdeviceptr e;
    _exit(cuMemAlloc(&e, 4096) == CUDA_ERROR_NOT_INITIALIZED && cuMemFree(d) == CUDA_ERROR_NOT_INITIALIZED ? 0 : 3);
  }
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  uint8_t b[4096];
  CK(cuMemcpyDtoH(b, d, sizeof b));
  for (int i = 0; i < 4096; i++) ASSERT_EQ(b[i], 0x11);
  CK(cuMemFree(d));
  return TEST_OK;
}
