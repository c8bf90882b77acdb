/* test_vmm.c: virtual memory management: granularity, reservations, physical
 * allocations, mappings, access (none until cuMemSetAccess), several mappings of
 * one allocation, handles retained and shared as file descriptors, a growing pool. */
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>

#include "simtest.h"

#define MiB ((size_t)1 << 20)

static CUmemAllocationProp prop_on(int dev, bool fd) {
  CUmemAllocationProp p = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                           .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev}};
  if (fd) p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return p;
}

static void grant(CUdeviceptr va, size_t n, int dev) {
  CUmemAccessDesc d = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev},
                       .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  CK(cuMemSetAccess(va, n, &d, 1));
}

TEST_IMPL(vmm_map_and_access) {
  st_setup();
  CUmemAllocationProp prop = prop_on(0, false);
  size_t g = 0;
  CK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  ASSERT_EQ(g, 2 * MiB);
  CK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  ASSERT_EQ(g, 2 * MiB);
  CUmemAllocationProp bad = prop_on(1, false); /* one device */
  ASSERT_CU(cuMemGetAllocationGranularity(&g, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_DEVICE);
  CUmemGenericAllocationHandle h;
  ASSERT_CU(cuMemCreate(&h, g + 4096, &prop, 0), CUDA_ERROR_INVALID_VALUE); /* not a multiple */
  ASSERT_CU(cuMemCreate(&h, g, &prop, 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemCreate(&h, g, &bad, 0), CUDA_ERROR_INVALID_DEVICE);
  bad = prop;
  bad.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
  ASSERT_CU(cuMemCreate(&h, g, &bad, 0), CUDA_ERROR_NOT_SUPPORTED);
  size_t free0, free1, total;
  CK(cuMemGetInfo(&free0, &total));
  CK(cuMemCreate(&h, 2 * g, &prop, 0));
  CK(cuMemGetInfo(&free1, &total));
  ASSERT_EQ(free0 - free1, 2 * g); /* physical memory is the device's */
  CUmemAllocationProp got;
  CK(cuMemGetAllocationPropertiesFromHandle(&got, h));
  ASSERT_EQ(got.location.id, 0);
  ASSERT_EQ((int)got.type, (int)CU_MEM_ALLOCATION_TYPE_PINNED);
  /* Two reservations, one allocation mapped into both. */
  CUdeviceptr va, vb;
  ASSERT_CU(cuMemAddressReserve(&va, 4 * g + 1, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemAddressReserve(&va, 4 * g, 3, 0, 0), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemAddressReserve(&va, 4 * g, 0, 0, 0));
  CK(cuMemAddressReserve(&vb, 2 * g, 0, 0, 0));
  ASSERT_EQ(va % g, 0u);
  ASSERT_CU(cuMemMap(va, 2 * g, g, h, 0), CUDA_ERROR_INVALID_VALUE); /* offset must be 0 */
  ASSERT_CU(cuMemMap(va + 4096, g, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemMap(va, 4 * g, 0, h, 0), CUDA_ERROR_INVALID_VALUE); /* larger than the allocation */
  ASSERT_CU(cuMemMap(va + 3 * g, 2 * g, 0, h, 0), CUDA_ERROR_INVALID_VALUE); /* past the reservation */
  ASSERT_CU(cuMemMap(va, 2 * g, 0, h + 1, 0), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemMap(va, 2 * g, 0, h, 0));
  ASSERT_CU(cuMemMap(va, 2 * g, 0, h, 0), CUDA_ERROR_INVALID_VALUE); /* mapped already */
  CK(cuMemMap(vb, 2 * g, 0, h, 0));
  /* No access yet: copies, memsets and kernels fail. */
  unsigned long long fl = 99;
  CUmemLocation loc = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
  CK(cuMemGetAccess(&fl, &loc, va));
  ASSERT_EQ(fl, (unsigned long long)CU_MEM_ACCESS_FLAGS_PROT_NONE);
  uint32_t hbuf[1024], back[1024];
  for (int i = 0; i < 1024; i++) hbuf[i] = 0xabc00000u + (unsigned)i;
  ASSERT_CU(cuMemcpyHtoD(va, hbuf, sizeof hbuf), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemsetD32(va, 1, 16), CUDA_ERROR_INVALID_VALUE);
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction f = st_func(m, ST_FILL);
  st_fill(f, va, 5, 64);
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CK(cuDevicePrimaryCtxReset(0));
  st_setup();
  CK(cuModuleLoadData(&m, &st_image));
  f = st_func(m, ST_FILL);
  /* Read-only access is refused by name, not half-simulated. */
  CUmemAccessDesc ro = {.location = loc, .flags = CU_MEM_ACCESS_FLAGS_PROT_READ};
  ASSERT_CU(cuMemSetAccess(va, 2 * g, &ro, 1), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_CU(cuMemSetAccess(va, g, &ro, 0), CUDA_ERROR_INVALID_VALUE);
  CUmemAccessDesc far = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 1},
                         .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  ASSERT_CU(cuMemSetAccess(va, 2 * g, &far, 1), CUDA_ERROR_INVALID_DEVICE);
  grant(va, 2 * g, 0);
  CK(cuMemGetAccess(&fl, &loc, va + 100));
  ASSERT_EQ(fl, (unsigned long long)CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  CK(cuMemcpyHtoD(va + g, hbuf, sizeof hbuf));
  st_fill(f, va, 5, 64);
  CK(cuCtxSynchronize());
  /* The second mapping has no access of its own yet, then sees the same bytes. */
  ASSERT_CU(cuMemcpyDtoH(back, vb + g, sizeof back), CUDA_ERROR_INVALID_VALUE);
  grant(vb, 2 * g, 0);
  CK(cuMemcpyDtoH(back, vb + g, sizeof back));
  ASSERT_MEM_EQ(hbuf, back, sizeof back);
  CK(cuMemcpyDtoH(back, vb, 64 * 4));
  for (int i = 0; i < 64; i++) ASSERT_EQ(back[i], 5u);
  /* Pointer queries see the mapping; cuMemFree does not free it. */
  int ord = -1;
  CK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va + 10));
  ASSERT_EQ(ord, 0);
  ASSERT_CU(cuMemFree(va), CUDA_ERROR_INVALID_VALUE);
  /* Retained handles are the allocation's handle; each needs its release. */
  CUmemGenericAllocationHandle r;
  CK(cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(vb + 12345)));
  ASSERT_EQ(r, h);
  ASSERT_CU(cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(va + 3 * g)), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemRelease(r));
  CK(cuMemRelease(h)); /* mapped still: the memory stays */
  ASSERT_CU(cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemcpyDtoH(back, va + g, sizeof back));
  ASSERT_MEM_EQ(hbuf, back, sizeof back);
  /* Unmapping: whole mappings only; the reservation stays until freed, unmapped. */
  ASSERT_CU(cuMemUnmap(va, g), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemAddressFree(va, 4 * g), CUDA_ERROR_INVALID_VALUE); /* still mapped */
  CK(cuMemUnmap(va, 2 * g));
  ASSERT_CU(cuMemcpyDtoH(back, va, 16), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemcpyDtoH(back, vb, 16)); /* the other mapping keeps the memory */
  CK(cuMemGetInfo(&free1, &total));
  ASSERT_EQ(free0 - free1, 2 * g);
  CK(cuMemUnmap(vb, 2 * g));
  CK(cuMemGetInfo(&free1, &total));
  ASSERT_EQ(free1, free0); /* the last mapping of a released allocation frees it */
  ASSERT_CU(cuMemAddressFree(va, 2 * g), CUDA_ERROR_INVALID_VALUE); /* not the reserved size */
  CK(cuMemAddressFree(va, 4 * g));
  CK(cuMemAddressFree(vb, 2 * g));
  ASSERT_CU(cuMemAddressFree(vb, 2 * g), CUDA_ERROR_INVALID_VALUE);
  return TEST_OK;
}

/* A pool as PyTorch's expandable segments make one: a large reservation, mapped
 * chunk by chunk as it grows, while the data written earlier stays where it is. */
TEST_IMPL(vmm_growing_pool) {
  st_setup();
  CUmemAllocationProp prop = prop_on(0, false);
  size_t g;
  CK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  enum { CHUNKS = 8 };
  CUdeviceptr pool;
  CK(cuMemAddressReserve(&pool, CHUNKS * g, 0, 0, 0));
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image));
  CUfunction f = st_func(m, ST_FILL);
  CUmemGenericAllocationHandle hs[CHUNKS];
  unsigned words = (unsigned)(g / 4);
  for (int c = 0; c < CHUNKS; c++) {
    CK(cuMemCreate(&hs[c], g, &prop, 0));
    CK(cuMemMap(pool + c * g, g, 0, hs[c], 0));
    CK(cuMemRelease(hs[c])); /* the mapping holds it */
    grant(pool + c * g, g, 0);
    /* A "tensor" spanning the new chunk and the end of the previous one. */
    CUdeviceptr t = c ? pool + c * g - 4096 : pool;
    st_fill(f, t, 100u + (unsigned)c, words + (c ? 1024 : 0));
    CK(cuCtxSynchronize());
    for (int k = 0; k <= c; k++) { /* every chunk still holds what was written last */
      uint32_t w[2];
      CK(cuMemcpyDtoH(w, pool + k * g + g / 2, sizeof w));
      ASSERT_EQ(w[0], 100u + (unsigned)k);
    }
  }
  /* The first chunk's last page belongs to the second tensor. */
  uint32_t w;
  CK(cuMemcpyDtoH(&w, pool + g - 4, 4));
  ASSERT_EQ(w, 101u);
  /* One copy across chunks (contiguous in the virtual range), as on a GPU. */
  uint32_t *all = malloc(3 * g);
  ASSERT(all != NULL);
  CK(cuMemcpyDtoH(all, pool + g, 3 * g));
  for (size_t i = 0; i < 3 * words; i += 997) ASSERT_EQ(all[i], 101u + (unsigned)(i / words) + (i % words >= words - 1024));
  free(all);
  /* Not past the last mapped chunk. */
  ASSERT_CU(cuMemcpyDtoH(&w, pool + CHUNKS * g - 2, 4), CUDA_ERROR_INVALID_VALUE);
  for (int c = CHUNKS - 1; c >= 0; c--) CK(cuMemUnmap(pool + c * g, g));
  CK(cuMemAddressFree(pool, CHUNKS * g));
  return TEST_OK;
}

/* Reservations near a hint, as an allocator extending its range asks for. */
TEST_IMPL(vmm_reserve_hint) {
  st_setup();
  size_t g = 2 * MiB;
  CUdeviceptr a, b;
  CK(cuMemAddressReserve(&a, 4 * g, 0, 0, 0));
  CK(cuMemAddressFree(a, 4 * g));
  CK(cuMemAddressReserve(&b, 2 * g, 0, a + 2 * g, 0));
  ASSERT_EQ(b, a + 2 * g); /* free: the hint is honoured */
  CUdeviceptr c;
  CK(cuMemAddressReserve(&c, 2 * g, 0, b, 0)); /* taken: somewhere else */
  ASSERT_NE(c, b);
  CK(cuMemAddressFree(b, 2 * g));
  CK(cuMemAddressFree(c, 2 * g));
  return TEST_OK;
}

/* Allocations of device 1 mapped with access for one or both devices. */
TEST_IMPL(vmm_two_devices) {
  setenv("SIMCUDA_DEVICES", "2", 1);
  st_setup();
  CUcontext c1;
  CK(cuDevicePrimaryCtxRetain(&c1, 1));
  CUmemAllocationProp prop = prop_on(1, false);
  size_t g = 2 * MiB;
  CUmemGenericAllocationHandle h;
  CK(cuMemCreate(&h, g, &prop, 0));
  CUdeviceptr va;
  CK(cuMemAddressReserve(&va, g, 0, 0, 0));
  CK(cuMemMap(va, g, 0, h, 0));
  grant(va, g, 1);
  int ord;
  CK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va));
  ASSERT_EQ(ord, 1);
  CUmodule m;
  CK(cuModuleLoadData(&m, &st_image)); /* device 0's context */
  CUfunction f = st_func(m, ST_FILL);
  st_fill(f, va, 9, 256); /* device 0 has no access */
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CK(cuDevicePrimaryCtxReset(0));
  st_setup();
  CK(cuModuleLoadData(&m, &st_image));
  f = st_func(m, ST_FILL);
  grant(va, g, 0); /* device 1 keeps its access */
  st_fill(f, va, 9, 256);
  CK(cuCtxSynchronize());
  CK(cuCtxSetCurrent(c1));
  uint32_t w[256];
  CK(cuMemcpyDtoH(w, va, sizeof w));
  for (int i = 0; i < 256; i++) ASSERT_EQ(w[i], 9u);
  CK(cuMemUnmap(va, g));
  CK(cuMemRelease(h));
  CK(cuMemAddressFree(va, g));
  return TEST_OK;
}

/* An allocation exported as a file descriptor and imported again maps the same
 * bytes; another process importing the descriptor (passed over fork and exec)
 * sees and writes them too. */
TEST_IMPL(vmm_shareable_fd) {
  const char *child = getenv("ST_VMM_CHILD_FD");
  st_setup();
  size_t g = 2 * MiB;
  if (child) { /* the other process: import, check the parent's bytes, write ours */
    CUmemGenericAllocationHandle h;
    CK(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)atoi(child), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUdeviceptr va;
    CK(cuMemAddressReserve(&va, g, 0, 0, 0));
    CK(cuMemMap(va, g, 0, h, 0));
    grant(va, g, 0);
    uint32_t w[4];
    CK(cuMemcpyDtoH(w, va, sizeof w));
    for (int i = 0; i < 4; i++) ASSERT_EQ(w[i], 0x600du + (unsigned)i);
    CK(cuMemsetD32(va + 4096, 0xc0ffee, 4));
    CK(cuCtxSynchronize());
    CK(cuMemUnmap(va, g));
    CK(cuMemRelease(h));
    return TEST_OK;
  }
  CUmemAllocationProp plain = prop_on(0, false), shared = prop_on(0, true);
  CUmemGenericAllocationHandle hp, h, h2;
  CK(cuMemCreate(&hp, g, &plain, 0));
  int fd = -1;
  ASSERT_CU(cuMemExportToShareableHandle(&fd, hp, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            CUDA_ERROR_INVALID_VALUE); /* not created exportable */
  CK(cuMemRelease(hp));
  CK(cuMemCreate(&h, g, &shared, 0));
  ASSERT_CU(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_NOT_SUPPORTED);
  CK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  ASSERT_GE(fd, 0);
  ASSERT_CU(cuMemImportFromShareableHandle(&h2, (void *)(intptr_t)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            CUDA_ERROR_INVALID_VALUE); /* stdin is no allocation */
  CK(cuMemImportFromShareableHandle(&h2, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  CUdeviceptr va, vb;
  CK(cuMemAddressReserve(&va, g, 0, 0, 0));
  CK(cuMemAddressReserve(&vb, g, 0, 0, 0));
  CK(cuMemMap(va, g, 0, h, 0));
  CK(cuMemMap(vb, g, 0, h2, 0));
  grant(va, g, 0);
  grant(vb, g, 0);
  uint32_t w[4] = {0x600d, 0x600e, 0x600f, 0x6010};
  CK(cuMemcpyHtoD(va, w, sizeof w));
  uint32_t r[4];
  CK(cuMemcpyDtoH(r, vb, sizeof r));
  ASSERT_MEM_EQ(w, r, sizeof r);
  /* Another process. */
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    char v[16];
    snprintf(v, sizeof v, "%d", fd);
    setenv("ST_VMM_CHILD_FD", v, 1);
    int fl = fcntl(fd, F_GETFD);
    fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
    int null = open("/dev/null", O_WRONLY); /* the child's TAP lines are not this test's */
    if (null >= 0) dup2(null, 1);
    execl("/proc/self/exe", "test_simdrv", "vmm_shareable_fd", (char *)NULL);
    _exit(127);
  }
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  uint32_t c[4];
  CK(cuMemcpyDtoH(c, va + 4096, sizeof c));
  for (int i = 0; i < 4; i++) ASSERT_EQ(c[i], 0xc0ffeeu);
  close(fd);
  CK(cuMemUnmap(va, g));
  CK(cuMemUnmap(vb, g));
  CK(cuMemRelease(h));
  CK(cuMemRelease(h2));
  CK(cuMemAddressFree(va, g));
  CK(cuMemAddressFree(vb, g));
  return TEST_OK;
}
