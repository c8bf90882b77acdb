/* vmm.c: virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap,
 * cuMemSetAccess, ...). A physical allocation is a memfd of its device; a mapping
 * maps its pages into the alias of a reserved range of the VMM slice (mem/mem.c),
 * so several mappings of one allocation, in this process or another that imported
 * its file descriptor, share the same bytes. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"

#define GRANULE ((size_t)2 << 20) /* minimum and recommended granularity, as on GPUs */
#define FD_NAME "simcuda-vmm-dev"  /* memfd name; the device follows */

/* A physical allocation: live while a handle (cuMemCreate, retains, imports) or a
 * mapping holds it. Guarded by mu. */
typedef struct phys_s {
  struct phys_s *next;
  int fd;
  size_t size;
  int dev;
  unsigned types;     /* requestedHandleTypes */
  int handles, maps;
  bool charged;       /* counted in the device's used memory (created here, not imported) */
} phys_t;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static phys_t *physs;

/* Reservations, to check cuMemMap and cuMemAddressFree ranges (under mu). */
typedef struct resv_s { struct resv_s *next; uint64_t base; size_t size; } resv_t;
static resv_t *resvs;

static phys_t *phys_get(CUmemGenericAllocationHandle h) { /* under mu */
  for (phys_t *p = physs; p; p = p->next)
    if ((CUmemGenericAllocationHandle)(uintptr_t)p == h && p->handles > 0) return p;
  return NULL;
}

static void phys_maybe_free(phys_t *p) { /* under mu */
  if (p->handles || p->maps) return;
  for (phys_t **pp = &physs; *pp; pp = &(*pp)->next)
    if (*pp == p) {
      *pp = p->next;
      break;
    }
  if (p->charged) sim_mem_charge(p->dev, -(long long)p->size);
  close(p->fd);
  free(p);
}

static phys_t *phys_add(int fd, size_t size, int dev, unsigned types, bool charged) {
  phys_t *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  *p = (phys_t){.fd = fd, .size = size, .dev = dev, .types = types, .handles = 1, .charged = charged};
  pthread_mutex_lock(&mu);
  p->next = physs;
  physs = p;
  pthread_mutex_unlock(&mu);
  return p;
}

/* What the simulator can create: pinned device memory, exportable as a POSIX fd or
 * not at all, without compression, RDMA or tile-pool use. */
static CUresult prop_check(const CUmemAllocationProp *prop) {
  if (!prop) return CUDA_ERROR_INVALID_VALUE;
  if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_NOT_SUPPORTED; /* host VMM: 0 */
  if (!sim_dev_ok(prop->location.id)) return CUDA_ERROR_INVALID_DEVICE;
  if (prop->requestedHandleTypes & ~(unsigned)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  if (prop->allocFlags.compressionType || prop->allocFlags.gpuDirectRDMACapable || prop->allocFlags.usage)
    return CUDA_ERROR_NOT_SUPPORTED;
  return CUDA_SUCCESS;
}

CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags option) {
  SIM_CHECK_INIT();
  if (!g || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = prop_check(prop);
  if (r) return r;
  *g = GRANULE;
  return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
                     unsigned long long flags) {
  SIM_CHECK_INIT();
  if (!handle || flags || !size || size % GRANULE) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = prop_check(prop);
  if (r) return r;
  int dev = prop->location.id;
  if (!sim_mem_charge(dev, (long long)size)) return CUDA_ERROR_OUT_OF_MEMORY;
  char name[32];
  snprintf(name, sizeof name, FD_NAME "%d", dev);
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
    if (fd >= 0) close(fd);
    sim_mem_charge(dev, -(long long)size);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (sim_opt.poison) { /* fresh device memory is not zeroed on a GPU */
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) {
      memset(m, 0xA5, size);
      munmap(m, size);
    }
  }
  phys_t *p = phys_add(fd, size, dev, prop->requestedHandleTypes, true);
  if (!p) {
    close(fd);
    sim_mem_charge(dev, -(long long)size);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *handle = (CUmemGenericAllocationHandle)(uintptr_t)p;
  return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
  SIM_CHECK_INIT();
  pthread_mutex_lock(&mu);
  phys_t *p = phys_get(h);
  if (p) {
    p->handles--;
    phys_maybe_free(p);
  }
  pthread_mutex_unlock(&mu);
  return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop, CUmemGenericAllocationHandle h) {
  SIM_CHECK_INIT();
  if (!prop) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&mu);
  phys_t *p = phys_get(h);
  if (p)
    *prop = (CUmemAllocationProp){.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                  .requestedHandleTypes = (CUmemAllocationHandleType)p->types,
                                  .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = p->dev}};
  pthread_mutex_unlock(&mu);
  return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- reservations ---- */
CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags) {
  SIM_CHECK_INIT();
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  if (!ptr || flags || !size || size % pg || addr % pg || (alignment & (alignment - 1)))
    return CUDA_ERROR_INVALID_VALUE;
  resv_t *v = malloc(sizeof *v);
  if (!v) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t base;
  /* Default alignment: the granularity, so that a reservation can be mapped. */
  CUresult r = sim_mem_va_reserve(size, alignment ? alignment : GRANULE, addr, &base);
  if (r) {
    free(v);
    return r;
  }
  *v = (resv_t){.base = base, .size = size};
  pthread_mutex_lock(&mu);
  v->next = resvs;
  resvs = v;
  pthread_mutex_unlock(&mu);
  *ptr = base;
  return CUDA_SUCCESS;
}

static resv_t *resv_holding(uint64_t p, size_t n) { /* under mu */
  for (resv_t *v = resvs; v; v = v->next)
    if (p >= v->base && n <= v->size && p - v->base <= v->size - n) return v;
  return NULL;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  SIM_CHECK_INIT();
  pthread_mutex_lock(&mu);
  resv_t **vp = &resvs;
  while (*vp && ((*vp)->base != ptr || (*vp)->size != size)) vp = &(*vp)->next;
  resv_t *v = *vp;
  /* Still mapped: unmap first (a GPU leaves that undefined; the simulator refuses). */
  bool mapped = v && sim_mem_any_in(ptr, ptr + size);
  if (v && !mapped) *vp = v->next;
  pthread_mutex_unlock(&mu);
  if (!v || mapped) return CUDA_ERROR_INVALID_VALUE;
  sim_mem_va_release(v->base, v->size);
  free(v);
  return CUDA_SUCCESS;
}

/* ---- mappings ---- */
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
                  unsigned long long flags) {
  SIM_CHECK_INIT();
  if (flags || offset || !size || size % GRANULE || ptr % GRANULE) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&mu);
  phys_t *p = phys_get(h);
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (p && size <= p->size && resv_holding(ptr, size)) {
    sim_alloc_t a = {.base = ptr, .size = size, .kind = SIM_MEM_DEVICE, .dev = p->dev, .vmm = true, .phys = p};
    if (sim_mem_va_map(&a, p->fd, 0)) { /* fails when the range is mapped already */
      p->maps++;
      r = CUDA_SUCCESS;
    }
  }
  pthread_mutex_unlock(&mu);
  return r;
}

/* Under mu and the registry lock: the allocation is freed after, by sweep(). */
static void unmapped(const sim_alloc_t *a) { ((phys_t *)a->phys)->maps--; }

static void sweep(void) { /* under mu */
  for (phys_t *p = physs, *next; p; p = next) {
    next = p->next;
    phys_maybe_free(p);
  }
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  SIM_CHECK_INIT();
  if (!size) return CUDA_ERROR_INVALID_VALUE;
  sim_ctx_sync_all(); /* work still queued may use the range (the call synchronises) */
  pthread_mutex_lock(&mu);
  bool ok = sim_mem_va_unmap(ptr, size, false, unmapped);
  sweep();
  pthread_mutex_unlock(&mu);
  return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count) {
  SIM_CHECK_INIT();
  if (!desc || !count || !size) return CUDA_ERROR_INVALID_VALUE;
  unsigned set = 0, clear = 0;
  for (size_t i = 0; i < count; i++) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (!sim_dev_ok(desc[i].location.id)) return CUDA_ERROR_INVALID_DEVICE;
    unsigned bit = 1u << desc[i].location.id;
    switch (desc[i].flags) {
      case CU_MEM_ACCESS_FLAGS_PROT_READWRITE: set |= bit; clear &= ~bit; break;
      case CU_MEM_ACCESS_FLAGS_PROT_NONE: clear |= bit; set &= ~bit; break;
      case CU_MEM_ACCESS_FLAGS_PROT_READ:
        /* Kernels' stores cannot be refused per device (one alias serves them all). */
        sim_log("cuMemSetAccess: read-only access is not simulated");
        return CUDA_ERROR_NOT_SUPPORTED;
      default: return CUDA_ERROR_INVALID_VALUE;
    }
  }
  if (clear) sim_ctx_sync_all(); /* the call synchronises: work queued before it keeps its access */
  return sim_mem_va_set_access(ptr, size, set, clear) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *loc, CUdeviceptr ptr) {
  SIM_CHECK_INIT();
  if (!flags || !loc || loc->type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (!sim_dev_ok(loc->id)) return CUDA_ERROR_INVALID_DEVICE;
  sim_alloc_t a;
  if (!sim_mem_find(ptr, 0, &a) || !a.vmm) return CUDA_ERROR_INVALID_VALUE;
  *flags = (a.access >> loc->id) & 1u ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE;
  return CUDA_SUCCESS;
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr) {
  SIM_CHECK_INIT();
  if (!h) return CUDA_ERROR_INVALID_VALUE;
  sim_alloc_t a;
  if (!sim_mem_find((uint64_t)(uintptr_t)addr, 0, &a) || !a.vmm) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&mu);
  phys_t *p = a.phys;
  bool live = false;
  for (phys_t *q = physs; q; q = q->next) live |= q == p; /* unmapped meanwhile? */
  if (live) p->handles++;
  pthread_mutex_unlock(&mu);
  if (!live) return CUDA_ERROR_INVALID_VALUE;
  *h = (CUmemGenericAllocationHandle)(uintptr_t)p;
  return CUDA_SUCCESS;
}

/* ---- shareable handles: POSIX file descriptors (the memfd itself, duplicated) ---- */
CUresult cuMemExportToShareableHandle(void *out, CUmemGenericAllocationHandle h, CUmemAllocationHandleType type,
                                      unsigned long long flags) {
  SIM_CHECK_INIT();
  if (!out || flags) return CUDA_ERROR_INVALID_VALUE;
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  pthread_mutex_lock(&mu);
  phys_t *p = phys_get(h);
  /* Only an allocation created exportable as this type can be exported. */
  int fd = p && (p->types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ? fcntl(p->fd, F_DUPFD_CLOEXEC, 0) : -2;
  pthread_mutex_unlock(&mu);
  if (fd == -2) return CUDA_ERROR_INVALID_VALUE;
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *(int *)out = fd;
  return CUDA_SUCCESS;
}

/* The device of a simulator memfd, from its name; -1 for any other file. */
static int fd_device(int fd) {
  char path[64], target[128];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(path, target, sizeof target - 1);
  if (n <= 0) return -1;
  target[n] = 0;
  int dev;
  char tail;
  if (sscanf(target, "/memfd:" FD_NAME "%d%c", &dev, &tail) != 2 || tail != ' ') return -1;
  return dev;
}

CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *os, CUmemAllocationHandleType type) {
  SIM_CHECK_INIT();
  if (!h) return CUDA_ERROR_INVALID_VALUE;
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  int fd = (int)(intptr_t)os;
  struct stat st;
  int dev = fd >= 0 ? fd_device(fd) : -1;
  if (dev < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 || (size_t)st.st_size % GRANULE) return CUDA_ERROR_INVALID_VALUE;
  if (!sim_dev_ok(dev)) return CUDA_ERROR_INVALID_DEVICE; /* exported by a process with more devices */
  int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* the caller may close its descriptor */
  if (mine < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  phys_t *p = phys_add(mine, (size_t)st.st_size, dev, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, false);
  if (!p) {
    close(mine);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *h = (CUmemGenericAllocationHandle)(uintptr_t)p;
  return CUDA_SUCCESS;
}
