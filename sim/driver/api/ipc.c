/* ipc.c: device memory shared between processes (cuIpcGetMemHandle,
 * cuIpcOpenMemHandle, cuIpcCloseMemHandle). Every device's memory is a memory file
 * (mem/mem.c); a handle names the exporting process, that file and the pages of the
 * allocation, and the importer maps those pages through /proc/<pid>/fd, so both
 * processes see the same bytes. Event handles are not simulated. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"

#define MAGIC "simcuIPC"

/* The 64 bytes of a CUipcMemHandle. */
typedef struct {
  char magic[8];
  int32_t pid, fd, dev, pad;
  uint64_t file_off, span, delta, size;
} wire_t;
_Static_assert(sizeof(wire_t) <= CU_IPC_HANDLE_SIZE, "an IPC handle holds 64 bytes");

/* Handles open in this process: one mapping per (exporter, pages, context), counted. */
typedef struct imp_s {
  struct imp_s *next;
  int32_t pid;
  uint64_t file_off;
  int dev;
  unsigned long long ctx_id;
  uint64_t base, va, span;
  int refs;
} imp_t;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static imp_t *imps;

CUresult cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr dptr) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!h) return CUDA_ERROR_INVALID_VALUE;
  sim_ipc_info_t in;
  if (!sim_mem_ipc_export(dptr, &in)) return CUDA_ERROR_INVALID_VALUE; /* the base of a cuMemAlloc allocation */
  wire_t w = {.pid = (int32_t)getpid(), .fd = in.fd, .dev = in.dev, .file_off = in.file_off, .span = in.span,
              .delta = in.delta, .size = in.size};
  memcpy(w.magic, MAGIC, sizeof w.magic);
  memset(h, 0, sizeof *h);
  memcpy(h->reserved, &w, sizeof w);
  return CUDA_SUCCESS;
}

/* The exporter's memory file of device dev, opened here; -1 with the result. */
static int open_file(const wire_t *w, CUresult *r) {
  char path[64], target[128], want[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w->pid, (int)w->fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) { /* the exporter is gone (or the system forbids it) */
    sim_log("cuIpcOpenMemHandle: cannot open the memory of process %d (%s)", (int)w->pid, path);
    *r = CUDA_ERROR_MAP_FAILED;
    return -1;
  }
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(path, target, sizeof target - 1);
  target[n > 0 ? n : 0] = 0;
  snprintf(want, sizeof want, "/memfd:simcuda-dev%d ", (int)w->dev);
  if (strncmp(target, want, strlen(want)) != 0) { /* that descriptor is something else now */
    close(fd);
    *r = CUDA_ERROR_INVALID_VALUE;
    return -1;
  }
  return fd;
}

static CUresult open_handle(CUdeviceptr *pdptr, CUipcMemHandle h, unsigned flags) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!pdptr || flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) return CUDA_ERROR_INVALID_VALUE;
  wire_t w;
  memcpy(&w, h.reserved, sizeof w);
  if (memcmp(w.magic, MAGIC, sizeof w.magic) != 0 || !w.size || w.delta + w.size > w.span) return CUDA_ERROR_INVALID_VALUE;
  if (w.pid == (int32_t)getpid()) return CUDA_ERROR_INVALID_CONTEXT; /* not in the exporting process */
  if (!sim_dev_ok(w.dev)) return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&mu);
  for (imp_t *m = imps; m; m = m->next)
    if (m->pid == w.pid && m->file_off == w.file_off && m->dev == w.dev && m->ctx_id == ctx->id) {
      m->refs++; /* opened again by this context: the same pointer */
      *pdptr = m->base;
      pthread_mutex_unlock(&mu);
      return CUDA_SUCCESS;
    }
  pthread_mutex_unlock(&mu);
  int fd = open_file(&w, &r);
  if (fd < 0) return r;
  imp_t *m = calloc(1, sizeof *m);
  uint64_t va = 0;
  r = m ? sim_mem_va_reserve(w.span, 0, 0, &va) : CUDA_ERROR_OUT_OF_MEMORY;
  if (r) {
    free(m);
    close(fd);
    return r;
  }
  /* The importing device reaches it, and the exporter's device (as if peer access
   * were enabled lazily, which the flag asks for). */
  sim_alloc_t a = {.base = va + w.delta, .size = w.size, .kind = SIM_MEM_DEVICE, .dev = w.dev, .ipc = true,
                   .access = (1u << w.dev) | (1u << ctx->dev), .map_lo = va - sim_mem_range_base(), .map_len = w.span};
  bool ok = sim_mem_va_map(&a, fd, w.file_off);
  close(fd); /* the mapping keeps the file */
  if (!ok) {
    sim_mem_va_release(va, w.span);
    free(m);
    return CUDA_ERROR_MAP_FAILED;
  }
  *m = (imp_t){.pid = w.pid, .file_off = w.file_off, .dev = w.dev, .ctx_id = ctx->id, .base = a.base, .va = va,
               .span = w.span, .refs = 1};
  pthread_mutex_lock(&mu);
  m->next = imps;
  imps = m;
  pthread_mutex_unlock(&mu);
  *pdptr = a.base;
  return CUDA_SUCCESS;
}

/* The CUDA 4.0 ABI and the CUDA 11 one (cuda.h names the latter) share a contract. */
#undef cuIpcOpenMemHandle
CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle h, unsigned int flags) {
  return open_handle(pdptr, h, flags);
}
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle h, unsigned int flags) {
  return open_handle(pdptr, h, flags);
}

CUresult cuIpcCloseMemHandle(CUdeviceptr dptr) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  pthread_mutex_lock(&mu);
  imp_t **mp = &imps;
  while (*mp && (*mp)->base != dptr) mp = &(*mp)->next;
  imp_t *m = *mp;
  bool last = m && --m->refs == 0;
  if (last) *mp = m->next;
  pthread_mutex_unlock(&mu);
  if (!m) return CUDA_ERROR_INVALID_VALUE;
  if (!last) return CUDA_SUCCESS;
  sim_ctx_sync_all(); /* work still queued may use the memory */
  sim_mem_ipc_unmap(m->base);
  sim_mem_va_release(m->va, m->span);
  free(m);
  return CUDA_SUCCESS;
}
