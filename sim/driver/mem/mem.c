/* mem.c: device memory. A PROT_NONE device VA range the host cannot dereference,
 * a same-size host alias range holding the bytes, a page allocator with a guard
 * page after each allocation, and the registry of every live allocation (device,
 * pinned, registered, managed) with O(log n) lookup of interior pointers. The
 * range holds one slice per device (SIMCUDA_DEVICES) and, after them, the slice
 * from which cuMemAddressReserve takes virtual ranges (api/vmm.c). A device's
 * bytes live in a memory file of its own (memfd), so that another process can map
 * an allocation exported with cuIpcGetMemHandle (api/ipc.c). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem.h"

#define ALIGN 256 /* cudaMalloc's alignment guarantee */

static uint8_t *dev_base, *alias_base;
static size_t range_bytes, page; /* range_bytes: one device's slice */
static int n_dev;                /* slices: devices 0..n_dev-1, then the VMM slice */
static int dev_fd[SIM_MAX_DEVICES]; /* each device's memory file: slice offset = file offset */

static pthread_rwlock_t reg_lock = PTHREAD_RWLOCK_INITIALIZER;
static sim_alloc_t *reg;   /* sorted by base */
static size_t reg_n, reg_cap;
static size_t used_bytes[SIM_MAX_DEVICES]; /* device + managed bytes, for cuMemGetInfo */
static atomic_uint_fast64_t free_tickets; /* cuMemFreeAsync calls so far */

uint64_t sim_mem_free_ticket(void) { return atomic_load(&free_tickets); }

/* Told when device memory is released (inject.c registers its stuck bits' cleanup). */
static void (*_Atomic release_hook)(uint64_t lo, uint64_t hi);
void sim_mem_on_release(void (*fn)(uint64_t lo, uint64_t hi)) { atomic_store(&release_hook, fn); }

/* Free extents of one slice, in bytes from dev_base, sorted (guarded by reg_lock). */
typedef struct { size_t off, len; } extent_t;
typedef struct {
  extent_t *ext;
  size_t ext_n, ext_cap, cursor;
} space_t;
static space_t spaces[SIM_MAX_DEVICES + 1]; /* per device, then the VMM slice */

static void forked_child(void) { atomic_store(&sim_initialized, 0); }

static void *reserve(size_t n) {
  void *p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void sim_mem_init(void) {
  page = (size_t)sysconf(_SC_PAGESIZE);
  range_bytes = sim_opt.mem_bytes;
  n_dev = sim_opt.devices;
  size_t slices = 2 * (size_t)n_dev; /* the VMM slice is as large as every device together */
  /* A device larger than the address space allows (a huge SIMCUDA_MEM_GB, or a
   * sanitizer's memory layout) shrinks to what can be reserved, with a warning. */
  for (;;) {
    dev_base = reserve(range_bytes * slices);
    alias_base = dev_base ? reserve(range_bytes * slices) : NULL;
    if (alias_base) break;
    if (dev_base) munmap(dev_base, range_bytes * slices);
    if (range_bytes <= ((size_t)64 << 20)) {
      sim_log("cannot reserve %zu bytes of address space", range_bytes);
      abort();
    }
    range_bytes /= 2;
  }
  if (range_bytes != sim_opt.mem_bytes) {
    fprintf(stderr, "simcuda: cannot reserve %zu bytes of device memory: the device has %zu\n",
            sim_opt.mem_bytes, range_bytes);
    sim_opt.mem_bytes = range_bytes;
  }
  for (int d = 0; d < n_dev; d++) {
    char name[32];
    snprintf(name, sizeof name, "simcuda-dev%d", d);
    dev_fd[d] = memfd_create(name, MFD_CLOEXEC);
    if (dev_fd[d] < 0 || ftruncate(dev_fd[d], (off_t)range_bytes) != 0) { /* sparse: nothing committed */
      sim_log("cannot create the memory file of device %d", d);
      abort();
    }
  }
  /* Device memory is a shared file: a forked child writing it (a fresh allocation's
   * poison, a free's hole) would change the parent's. CUDA is not usable in a
   * forked child on a GPU either: there every call answers CUDA_ERROR_NOT_INITIALIZED. */
  pthread_atfork(NULL, NULL, forked_child);
  for (int d = 0; d <= n_dev; d++) {
    space_t *sp = &spaces[d];
    sp->ext_cap = 64;
    sp->ext = malloc(sp->ext_cap * sizeof *sp->ext);
    if (!sp->ext) abort();
    /* A slice's first page stays unused so that no allocation starts at its base
     * (nor at the range's base). */
    size_t lo = (size_t)d * range_bytes, len = d < n_dev ? range_bytes : range_bytes * (size_t)n_dev;
    sp->ext[0] = (extent_t){lo + page, len - page};
    sp->ext_n = 1;
    sp->cursor = lo;
  }
}

bool sim_mem_in_device_range(uint64_t p) {
  return p >= (uint64_t)(uintptr_t)dev_base && p < (uint64_t)(uintptr_t)dev_base + 2 * range_bytes * (size_t)n_dev;
}

int sim_mem_device_of(uint64_t p) {
  if (!sim_mem_in_device_range(p)) return -1;
  size_t d = (p - (uint64_t)(uintptr_t)dev_base) / range_bytes;
  return d < (size_t)n_dev ? (int)d : -1;
}

void *sim_mem_alias(uint64_t dev) { return alias_base + (dev - (uint64_t)(uintptr_t)dev_base); }

size_t sim_mem_used(int dev) {
  pthread_rwlock_rdlock(&reg_lock);
  size_t u = used_bytes[dev];
  pthread_rwlock_unlock(&reg_lock);
  return u;
}

void sim_mem_visit(void (*fn)(const sim_alloc_t *allocs, size_t n, void *arg), void *arg) {
  pthread_rwlock_rdlock(&reg_lock);
  fn(reg, reg_n, arg);
  pthread_rwlock_unlock(&reg_lock);
}

/* ---- extents (caller holds the write lock) ---- */
static bool ext_take(space_t *sp, size_t len, size_t *off) {
  extent_t *ext = sp->ext;
  size_t ext_n = sp->ext_n, cursor = sp->cursor;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < ext_n; i++) {
      extent_t *e = &ext[i];
      /* Next fit: prefer space after the last allocation so that freed addresses
       * are not handed out again at once (stale pointers then fault). */
      if (pass == 0 && e->off + e->len <= cursor) continue;
      size_t start = (pass == 0 && e->off < cursor) ? cursor : e->off;
      if (e->off + e->len - start < len) continue;
      *off = start;
      size_t tail_off = start + len, tail_len = e->off + e->len - tail_off;
      if (start == e->off) {
        e->off = tail_off;
        e->len = tail_len;
        if (!e->len) {
          memmove(e, e + 1, (ext_n - i - 1) * sizeof *e);
          sp->ext_n--;
        }
      } else {
        e->len = start - e->off;
        if (tail_len) {
          if (ext_n == sp->ext_cap) {
            sp->ext_cap *= 2;
            sp->ext = ext = realloc(ext, sp->ext_cap * sizeof *ext);
            if (!ext) abort();
          }
          memmove(&ext[i + 2], &ext[i + 1], (ext_n - i - 1) * sizeof *ext);
          ext[i + 1] = (extent_t){tail_off, tail_len};
          sp->ext_n++;
        }
      }
      sp->cursor = start + len;
      return true;
    }
  }
  return false;
}

static void ext_give(space_t *sp, size_t off, size_t len) {
  extent_t *ext = sp->ext;
  size_t ext_n = sp->ext_n;
  size_t i = 0;
  while (i < ext_n && ext[i].off < off) i++;
  if (i > 0 && ext[i - 1].off + ext[i - 1].len == off) {
    ext[i - 1].len += len;
    if (i < ext_n && off + len == ext[i].off) {
      ext[i - 1].len += ext[i].len;
      memmove(&ext[i], &ext[i + 1], (ext_n - i - 1) * sizeof *ext);
      sp->ext_n--;
    }
    return;
  }
  if (i < ext_n && off + len == ext[i].off) {
    ext[i].off = off;
    ext[i].len += len;
    return;
  }
  if (ext_n == sp->ext_cap) {
    sp->ext_cap *= 2;
    sp->ext = ext = realloc(ext, sp->ext_cap * sizeof *ext);
    if (!ext) abort();
  }
  memmove(&ext[i + 1], &ext[i], (ext_n - i) * sizeof *ext);
  ext[i] = (extent_t){off, len};
  sp->ext_n++;
}

/* ---- registry (caller holds the lock) ---- */
/* Index of the last record with base <= p, or -1. */
static long reg_floor(uint64_t p) {
  long lo = 0, hi = (long)reg_n - 1, ans = -1;
  while (lo <= hi) {
    long mid = (lo + hi) / 2;
    if (reg[mid].base <= p) {
      ans = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return ans;
}

static long reg_find(uint64_t p, size_t n) {
  long i = reg_floor(p);
  if (i < 0) return -1;
  const sim_alloc_t *a = &reg[i];
  if (p - a->base >= a->size) return -1;
  if (n > a->size - (p - a->base)) return -1;
  return i;
}

/* False if the range overlaps an existing record. */
static bool reg_insert(const sim_alloc_t *a) {
  long i = reg_floor(a->base);
  if (i >= 0 && reg[i].base + reg[i].size > a->base) return false;
  if ((size_t)(i + 1) < reg_n && reg[i + 1].base < a->base + a->size) return false;
  if (reg_n == reg_cap) {
    reg_cap = reg_cap ? reg_cap * 2 : 256;
    reg = realloc(reg, reg_cap * sizeof *reg);
    if (!reg) abort();
  }
  memmove(&reg[i + 2], &reg[i + 1], (reg_n - (size_t)(i + 1)) * sizeof *reg);
  reg[i + 1] = *a;
  reg_n++;
  return true;
}

static void reg_erase(long i) {
  memmove(&reg[i], &reg[i + 1], (reg_n - (size_t)i - 1) * sizeof *reg);
  reg_n--;
}

bool sim_mem_find(uint64_t p, size_t n, sim_alloc_t *out) {
  pthread_rwlock_rdlock(&reg_lock);
  long i = reg_find(p, n);
  if (i >= 0 && out) *out = reg[i];
  pthread_rwlock_unlock(&reg_lock);
  return i >= 0;
}

/* ---- global-memory traffic of interpreted kernels, per allocation ---- */
void sim_mem_traffic_add(uint64_t base, uint64_t ld, uint64_t st) {
  /* exclusive: sim_mem_find copies whole entries under the shared lock */
  pthread_rwlock_wrlock(&reg_lock);
  long i = reg_find(base, 0);
  if (i >= 0) {
    __atomic_fetch_add(&reg[i].traffic_ld, ld, __ATOMIC_RELAXED);
    __atomic_fetch_add(&reg[i].traffic_st, st, __ATOMIC_RELAXED);
  }
  pthread_rwlock_unlock(&reg_lock);
}

bool sim_mem_traffic_get(uint64_t p, sim_alloc_t *out) {
  pthread_rwlock_rdlock(&reg_lock);
  long i = reg_find(p, 0);
  if (i >= 0) {
    *out = reg[i];
    out->traffic_ld = __atomic_load_n(&reg[i].traffic_ld, __ATOMIC_RELAXED);
    out->traffic_st = __atomic_load_n(&reg[i].traffic_st, __ATOMIC_RELAXED);
  }
  pthread_rwlock_unlock(&reg_lock);
  return i >= 0;
}

void sim_mem_traffic_reset(void) {
  pthread_rwlock_rdlock(&reg_lock);
  for (size_t i = 0; i < reg_n; i++) {
    __atomic_store_n(&reg[i].traffic_ld, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&reg[i].traffic_st, 0, __ATOMIC_RELAXED);
  }
  pthread_rwlock_unlock(&reg_lock);
}

/* [p, p+n) over adjacent VMM mappings, each accessible: one range to copies, as
 * on a GPU (a tensor of an expandable pool may span chunks). */
static bool vmm_span(uint64_t p, size_t n) {
  pthread_rwlock_rdlock(&reg_lock);
  long i = reg_find(p, 0);
  bool ok = i >= 0 && reg[i].vmm;
  uint64_t at = ok ? reg[i].base : 0;
  for (; ok && (size_t)i < reg_n && at < p + n; i++)
    ok = reg[i].vmm && reg[i].access && reg[i].base == at, at += reg[i].size;
  pthread_rwlock_unlock(&reg_lock);
  return ok && at >= p + n;
}

CUresult sim_mem_resolve(uint64_t p, size_t n, void **host, bool *is_device) {
  if (n && vmm_span(p, n)) {
    if (host) *host = sim_mem_alias(p);
    if (is_device) *is_device = true;
    return CUDA_SUCCESS;
  }
  sim_alloc_t a;
  /* A VMM mapping no device may access yet (cuMemSetAccess) cannot be copied. */
  if (!sim_mem_find(p, n, &a) || a.freeing || (a.vmm && !a.access)) return CUDA_ERROR_INVALID_VALUE;
  bool dev = a.kind == SIM_MEM_DEVICE;
  if (host) *host = dev ? sim_mem_alias(p) : (void *)(uintptr_t)p;
  if (is_device) *is_device = dev;
  return CUDA_SUCCESS;
}

sim_ptrkind_t sim_mem_classify(uint64_t p, size_t n, void **host) {
  if (n && vmm_span(p, n)) {
    *host = sim_mem_alias(p);
    return SIM_PTR_DEVICE;
  }
  sim_alloc_t a;
  if (sim_mem_find(p, n, &a)) {
    if (a.freeing || (a.vmm && !a.access)) return SIM_PTR_INVALID;
    if (a.kind == SIM_MEM_DEVICE) {
      *host = sim_mem_alias(p);
      return SIM_PTR_DEVICE;
    }
    *host = (void *)(uintptr_t)p;
    return SIM_PTR_PINNED;
  }
  /* Device addresses outside a live allocation (freed, out of bounds, a range
   * running past the end) and ranges straddling a pinned allocation's end. */
  if (sim_mem_in_device_range(p) || (n && sim_mem_in_device_range(p + n - 1)) || !p)
    return SIM_PTR_INVALID;
  if (sim_mem_find(p, 0, NULL)) return SIM_PTR_INVALID;
  *host = (void *)(uintptr_t)p;
  return SIM_PTR_PAGEABLE;
}

/* ---- device allocations ---- */
CUresult sim_mem_alloc_device(sim_ctx_t *ctx, int dev, size_t size, uint64_t *out) {
  if (size == 0) return CUDA_ERROR_INVALID_VALUE;
  if (size > range_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  size_t rounded = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
  size_t span = (rounded + page - 1) & ~(page - 1);
  size_t off;
  pthread_rwlock_wrlock(&reg_lock);
  if (used_bytes[dev] + span > range_bytes || !ext_take(&spaces[dev], span + page, &off)) {
    pthread_rwlock_unlock(&reg_lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  /* The allocation ends (at 256-byte granularity) against the guard page, so an
   * access past its end faults on the host. */
  uint64_t base = (uint64_t)(uintptr_t)dev_base + off + span - rounded;
  void *m = mmap(alias_base + off, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, dev_fd[dev],
                 (off_t)(off - (size_t)dev * range_bytes));
  if (m == MAP_FAILED) {
    ext_give(&spaces[dev], off, span + page);
    pthread_rwlock_unlock(&reg_lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  sim_alloc_t a = {.base = base, .size = size, .kind = SIM_MEM_DEVICE, .ctx = ctx, .dev = dev,
                   .map_lo = off, .map_len = span + page};
  if (!reg_insert(&a)) abort(); /* the extent allocator never overlaps */
  used_bytes[dev] += span;
  pthread_rwlock_unlock(&reg_lock);
  /* Fresh device memory is not zeroed on a GPU: a pattern makes reads of
   * uninitialised memory visible. */
  if (sim_opt.poison) memset(sim_mem_alias(base), 0xA5, rounded);
  SIM_COUNT(allocs, 1);
  *out = base;
  return CUDA_SUCCESS;
}

static void release_device(const sim_alloc_t *a) {
  /* The pages go back to the OS (a hole in the device's file) and the alias range
   * becomes PROT_NONE again. */
  fallocate(dev_fd[a->dev], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
            (off_t)(a->map_lo - (size_t)a->dev * range_bytes), (off_t)(a->map_len - page));
  mmap(alias_base + a->map_lo, a->map_len - page, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  ext_give(&spaces[a->dev], a->map_lo, a->map_len);
  used_bytes[a->dev] -= a->map_len - page;
}

static void release_host(const sim_alloc_t *a) {
  if (a->kind == SIM_MEM_HOST || a->kind == SIM_MEM_MANAGED) {
    munmap((void *)(uintptr_t)a->base, (a->size + page - 1) & ~(page - 1));
    if (a->kind == SIM_MEM_MANAGED) used_bytes[a->dev] -= (a->size + page - 1) & ~(page - 1);
  }
}

CUresult sim_mem_free_device(uint64_t p, bool check_only) {
  pthread_rwlock_wrlock(&reg_lock);
  long i = reg_find(p, 0);
  if (i < 0 || reg[i].base != p || reg[i].kind != SIM_MEM_DEVICE || reg[i].vmm || reg[i].ipc) {
    pthread_rwlock_unlock(&reg_lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (check_only) { /* cuMemFreeAsync: claim the allocation for a release in stream order */
    bool was = reg[i].freeing;
    if (!was) reg[i].free_ticket = atomic_fetch_add(&free_tickets, 1) + 1;
    reg[i].freeing = true;
    pthread_rwlock_unlock(&reg_lock);
    return was ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
  }
  sim_alloc_t a = reg[i];
  reg_erase(i);
  release_device(&a);
  pthread_rwlock_unlock(&reg_lock);
  void (*hook)(uint64_t, uint64_t) = atomic_load(&release_hook);
  if (hook) hook(a.base, a.base + a.size); /* the fault seam forgets its stuck bits there */
  SIM_COUNT(frees, 1);
  return CUDA_SUCCESS;
}


void sim_mem_free_ctx(sim_ctx_t *ctx) {
  pthread_rwlock_wrlock(&reg_lock);
  for (size_t i = 0; i < reg_n;) {
    if (reg[i].ctx != ctx) {
      i++;
      continue;
    }
    sim_alloc_t a = reg[i];
    reg_erase((long)i);
    if (a.kind == SIM_MEM_DEVICE) release_device(&a);
    else release_host(&a);
  }
  pthread_rwlock_unlock(&reg_lock);
}

CUresult sim_mem_alloc_host(sim_ctx_t *ctx, int dev, size_t size, sim_memkind_t kind, unsigned flags, void **out) {
  size_t len = (size + page - 1) & ~(page - 1);
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  sim_alloc_t a = {.base = (uint64_t)(uintptr_t)p, .size = size, .kind = kind, .flags = flags, .ctx = ctx,
                   .dev = dev};
  pthread_rwlock_wrlock(&reg_lock);
  if (kind == SIM_MEM_MANAGED && used_bytes[dev] + len > range_bytes) {
    pthread_rwlock_unlock(&reg_lock);
    munmap(p, len);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (!reg_insert(&a)) abort(); /* fresh mapping cannot overlap a live record */
  if (kind == SIM_MEM_MANAGED) used_bytes[dev] += len;
  pthread_rwlock_unlock(&reg_lock);
  if (sim_opt.poison && kind == SIM_MEM_MANAGED) memset(p, 0xA5, size);
  SIM_COUNT(allocs, 1);
  *out = p;
  return CUDA_SUCCESS;
}

/* The registry work of the memory entry points (api/memapi.c), each under the lock. */
size_t sim_mem_total(void) { return range_bytes; }

CUresult sim_mem_free_managed(uint64_t dptr) {
  sim_alloc_t a;
  pthread_rwlock_wrlock(&reg_lock);
  long i = reg_find(dptr, 0);
  bool ok = i >= 0 && reg[i].base == dptr && reg[i].kind == SIM_MEM_MANAGED;
  if (ok) {
    a = reg[i];
    reg_erase(i);
    release_host(&a);
  }
  pthread_rwlock_unlock(&reg_lock);
  if (ok) SIM_COUNT(frees, 1);
  return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult sim_mem_free_host(uint64_t u) {
  pthread_rwlock_wrlock(&reg_lock);
  long i = reg_find(u, 0);
  if (i < 0 || reg[i].base != u || reg[i].kind != SIM_MEM_HOST) {
    pthread_rwlock_unlock(&reg_lock);
    return CUDA_ERROR_INVALID_VALUE; /* raced with another free */
  }
  sim_alloc_t a = reg[i];
  reg_erase(i);
  release_host(&a);
  pthread_rwlock_unlock(&reg_lock);
  SIM_COUNT(frees, 1);
  return CUDA_SUCCESS;
}

bool sim_mem_register(const sim_alloc_t *a) {
  pthread_rwlock_wrlock(&reg_lock);
  bool ok = reg_insert(a);
  pthread_rwlock_unlock(&reg_lock);
  return ok;
}

bool sim_mem_unregister(uint64_t u) {
  pthread_rwlock_wrlock(&reg_lock);
  long i = reg_find(u, 0);
  bool ok = i >= 0 && reg[i].base == u && reg[i].kind == SIM_MEM_REGISTERED;
  if (ok) reg_erase(i);
  pthread_rwlock_unlock(&reg_lock);
  return ok;
}

/* ---- the VMM slice: virtual ranges, mappings of physical allocations (mem/vmm.c) ---- */
/* Takes exactly [off, off+len) if it is free. */
static bool ext_take_at(space_t *sp, size_t off, size_t len) {
  for (size_t i = 0; i < sp->ext_n; i++) {
    extent_t e = sp->ext[i];
    if (off < e.off || off + len > e.off + e.len) continue;
    size_t keep = sp->cursor;
    sp->cursor = off;
    bool ok = ext_take(sp, len, &(size_t){0}); /* next fit starts exactly at off */
    sp->cursor = keep > off + len ? keep : off + len;
    return ok;
  }
  return false;
}

CUresult sim_mem_va_reserve(size_t size, size_t align, uint64_t hint, uint64_t *out) {
  space_t *sp = &spaces[n_dev];
  uint64_t b = (uint64_t)(uintptr_t)dev_base;
  if (align < page) align = page;
  pthread_rwlock_wrlock(&reg_lock);
  /* The range is followed by a guard page that no reservation takes. */
  bool ok = false;
  size_t off = 0;
  if (hint && hint % align == 0 && sim_mem_in_device_range(hint) && sim_mem_device_of(hint) < 0 &&
      hint - b + size + page <= 2 * range_bytes * (size_t)n_dev) {
    off = hint - b;
    ok = ext_take_at(sp, off, size + page);
  }
  if (!ok) {
    size_t raw;
    ok = ext_take(sp, size + page + align - page, &raw);
    if (ok) {
      off = (raw + align - 1) / align * align;
      if (off > raw) ext_give(sp, raw, off - raw);
      size_t end = raw + size + page + align - page;
      if (end > off + size + page) ext_give(sp, off + size + page, end - (off + size + page));
    }
  }
  pthread_rwlock_unlock(&reg_lock);
  if (!ok) return CUDA_ERROR_OUT_OF_MEMORY;
  *out = b + off;
  return CUDA_SUCCESS;
}

void sim_mem_va_release(uint64_t va, size_t size) {
  pthread_rwlock_wrlock(&reg_lock);
  ext_give(&spaces[n_dev], va - (uint64_t)(uintptr_t)dev_base, size + page);
  pthread_rwlock_unlock(&reg_lock);
}

bool sim_mem_va_map(const sim_alloc_t *a, int fd, uint64_t off) {
  /* An IPC import maps whole pages (map_lo, map_len) around the allocation. */
  void *at = a->ipc ? alias_base + a->map_lo : sim_mem_alias(a->base);
  size_t len = a->ipc ? a->map_len : a->size;
  pthread_rwlock_wrlock(&reg_lock);
  bool ok = reg_insert(a); /* first: a range mapped already keeps its pages */
  if (ok && mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)off) == MAP_FAILED) {
    reg_erase(reg_find(a->base, 0));
    ok = false;
  }
  pthread_rwlock_unlock(&reg_lock);
  if (ok) SIM_COUNT(allocs, 1);
  return ok;
}

/* [va, va+size) must be exactly a run of mappings of kind `vmm` (ipc: of IPC imports). */
static bool run_exact(uint64_t va, size_t size, bool ipc, long *first, long *last) {
  long i = reg_find(va, 0);
  if (i < 0 || reg[i].base != va) return false;
  *first = i;
  uint64_t at = va;
  for (; (size_t)i < reg_n && at < va + size; i++) {
    if (reg[i].base != at || (ipc ? !reg[i].ipc : !reg[i].vmm)) return false;
    at += reg[i].size;
  }
  *last = i;
  return at == va + size;
}

bool sim_mem_va_unmap(uint64_t va, size_t size, bool ipc, void (*each)(const sim_alloc_t *a)) {
  pthread_rwlock_wrlock(&reg_lock);
  long first, last;
  bool ok = run_exact(va, size, ipc, &first, &last);
  if (ok) {
    for (long i = first; i < last; i++) each(&reg[i]);
    memmove(&reg[first], &reg[last], (reg_n - (size_t)last) * sizeof *reg);
    reg_n -= (size_t)(last - first);
    mmap(sim_mem_alias(va), size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  }
  pthread_rwlock_unlock(&reg_lock);
  if (ok) {
    void (*hook)(uint64_t, uint64_t) = atomic_load(&release_hook);
    if (hook) hook(va, va + size);
  }
  return ok;
}

bool sim_mem_va_set_access(uint64_t va, size_t size, unsigned set, unsigned clear) {
  pthread_rwlock_wrlock(&reg_lock);
  long first, last;
  bool ok = run_exact(va, size, false, &first, &last);
  for (long i = first; ok && i < last; i++) reg[i].access = (reg[i].access & ~clear) | set;
  pthread_rwlock_unlock(&reg_lock);
  return ok;
}

bool sim_mem_charge(int dev, long long bytes) {
  pthread_rwlock_wrlock(&reg_lock);
  bool ok = bytes < 0 || used_bytes[dev] + (size_t)bytes <= range_bytes;
  if (ok) used_bytes[dev] += (size_t)bytes;
  pthread_rwlock_unlock(&reg_lock);
  return ok;
}

bool sim_mem_any_in(uint64_t lo, uint64_t hi) {
  pthread_rwlock_rdlock(&reg_lock);
  long i = hi > lo ? reg_floor(hi - 1) : -1;
  bool any = i >= 0 && reg[i].base + reg[i].size > lo;
  pthread_rwlock_unlock(&reg_lock);
  return any;
}

bool sim_mem_ipc_export(uint64_t p, sim_ipc_info_t *out) {
  sim_alloc_t a;
  if (!sim_mem_find(p, 0, &a) || a.base != p || a.kind != SIM_MEM_DEVICE || a.vmm || a.ipc || a.freeing) return false;
  size_t lo = (size_t)a.dev * range_bytes;
  *out = (sim_ipc_info_t){.dev = a.dev, .fd = dev_fd[a.dev], .file_off = a.map_lo - lo,
                          .span = a.map_len - page, .delta = a.base - ((uint64_t)(uintptr_t)dev_base + a.map_lo),
                          .size = a.size};
  return true;
}

bool sim_mem_ipc_unmap(uint64_t base) {
  pthread_rwlock_wrlock(&reg_lock);
  long i = reg_find(base, 0);
  bool ok = i >= 0 && reg[i].base == base && reg[i].ipc;
  sim_alloc_t a;
  if (ok) {
    a = reg[i];
    reg_erase(i);
    mmap(alias_base + a.map_lo, a.map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  }
  pthread_rwlock_unlock(&reg_lock);
  if (ok) {
    void (*hook)(uint64_t, uint64_t) = atomic_load(&release_hook);
    if (hook) hook(a.base, a.base + a.size);
  }
  return ok;
}

uint64_t sim_mem_range_base(void) { return (uint64_t)(uintptr_t)dev_base; }
