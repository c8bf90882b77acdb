/* hostmem.c: may gpuft read this host memory? gpuft reads a program's host buffers
 * itself (copy+encode of uploads) where the driver would have read them: a bad
 * pointer (NULL, a device or freed address, a range past a mapping) must reach the
 * driver untouched, to get the driver's answer, never a crash inside gpuft. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

#include "state.h"

#define PROBE_BATCH 256 /* pages tested per system call */

/* Reads one byte of every page of [p, p+n) through the kernel (which answers EFAULT
 * instead of faulting). 1: all readable, 0: not, -1: the kernel cannot tell. */
static int probe(uintptr_t p, size_t n, size_t page) {
  static __thread char sink[PROBE_BATCH];
  uintptr_t first = p & ~(uintptr_t)(page - 1), last = (p + n - 1) & ~(uintptr_t)(page - 1);
  for (uintptr_t pg = first; pg <= last;) {
    struct iovec local = {sink, 0}, remote[PROBE_BATCH];
    int k = 0;
    for (; k < PROBE_BATCH && pg <= last; k++, pg += page) {
      remote[k].iov_base = (void *)(pg < p ? p : pg);
      remote[k].iov_len = 1;
    }
    local.iov_len = (size_t)k;
    ssize_t got = process_vm_readv(getpid(), &local, 1, remote, (unsigned long)k, 0);
    if (got < 0 && (errno == ENOSYS || errno == EPERM)) return -1;
    if (got != k) return 0;
    if (pg < first) break; /* wrapped at the top of the address space */
  }
  return 1;
}

/* Pipe fallback: write() reads the byte or fails with EFAULT. */
static int probe_pipe(uintptr_t p, size_t n, size_t page) {
  int fd[2];
  if (pipe(fd) != 0) return 0;
  int ok = 1;
  uintptr_t first = p & ~(uintptr_t)(page - 1), last = (p + n - 1) & ~(uintptr_t)(page - 1);
  for (uintptr_t pg = first; ok && pg <= last; pg += page) {
    char c;
    ok = write(fd[1], (const void *)(pg < p ? p : pg), 1) == 1 && read(fd[0], &c, 1) == 1;
    if (pg + page < pg) break;
  }
  close(fd[0]);
  close(fd[1]);
  return ok;
}

int ft_host_readable(const void *ptr, size_t n) {
  uintptr_t p = (uintptr_t)ptr;
  if (!p || !n || p + n < p) return 0;
  unsigned type = 0;
  if (ft_drv.cuPointerGetAttribute &&
      ft_drv.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)p) ==
          CUDA_SUCCESS &&
      type != CU_MEMORYTYPE_HOST)
    return 0; /* device memory named as host memory */
  long pg = sysconf(_SC_PAGESIZE);
  size_t page = pg > 0 ? (size_t)pg : 4096;
  int r = probe(p, n, page);
  return r >= 0 ? r : probe_pipe(p, n, page);
}
