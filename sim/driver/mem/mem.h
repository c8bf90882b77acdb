/* mem.h: the simulator driver's memory room (the allocator and registry, copy
 * descriptors, fault injection and flip rate, counters, the PCIe model); uses base.
 * Prototypes are grouped under a comment naming the file that defines them. */
#ifndef SIM_MEM_H
#define SIM_MEM_H

#include "base.h"

/* ---- mem.c: device VA, host alias, the allocation registry ---- */
typedef enum { SIM_MEM_DEVICE = 1, SIM_MEM_HOST, SIM_MEM_REGISTERED, SIM_MEM_MANAGED } sim_memkind_t;
typedef struct {
  uint64_t base;   /* address the application sees */
  size_t size;     /* requested size */
  sim_memkind_t kind;
  unsigned flags;  /* cuMemHostAlloc / cuMemHostRegister / managed flags */
  sim_ctx_t *ctx;
  bool freeing;    /* cuMemFreeAsync issued: no new work may name it */
  uint64_t free_ticket; /* when freeing: the free's place in the global order of calls */
  uint64_t map_lo, map_len; /* device: the alias pages (offset in the range) */
  uint64_t traffic_ld, traffic_st; /* bytes interpreted kernels loaded/stored in it */
  int dev;         /* device: the device whose memory it is; host kinds: the allocating context's */
  bool vmm;        /* a mapping of a physical allocation (cuMemMap): released by cuMemUnmap */
  bool ipc;        /* another process's memory (cuIpcOpenMemHandle): released by cuIpcCloseMemHandle */
  unsigned access; /* vmm: bit d set when device d may read and write it (cuMemSetAccess) */
  void *phys;      /* vmm: the physical allocation (mem/vmm.c) */
} sim_alloc_t;
void sim_mem_init(void);
bool sim_mem_in_device_range(uint64_t p); /* every device's slice and the VMM slice */
int sim_mem_device_of(uint64_t p);        /* the device whose slice holds p, or -1 */
void *sim_mem_alias(uint64_t dev);       /* host alias of a device address (no checks) */
/* Finds the live allocation holding [p, p+n) (n may be 0: just p). */
bool sim_mem_find(uint64_t p, size_t n, sim_alloc_t *out);
CUresult sim_mem_alloc_device(sim_ctx_t *ctx, int dev, size_t size, uint64_t *out);
/* check_only: marks it `freeing` (cuMemFreeAsync), fails if already so. */
CUresult sim_mem_free_device(uint64_t p, bool check_only);
void sim_mem_free_ctx(sim_ctx_t *ctx);   /* release everything a dying context owns */
/* The ticket of the latest cuMemFreeAsync call. Work submitted when the ticket was
 * T may use a `freeing` allocation whose free_ticket is above T (the free was
 * issued after it: the release is still ahead of it in stream order), never one
 * at or below T (submitted after the free: a use after free). */
uint64_t sim_mem_free_ticket(void);
/* Host-accessible address for a device-side operand [p, p+n): alias for device
 * memory, p for pinned/registered/managed host memory; INVALID_VALUE otherwise. */
CUresult sim_mem_resolve(uint64_t p, size_t n, void **host, bool *is_device);
/* Classifies a pointer given where either memory kind is allowed (cuMemcpy). */
typedef enum { SIM_PTR_DEVICE, SIM_PTR_PINNED, SIM_PTR_PAGEABLE, SIM_PTR_INVALID } sim_ptrkind_t;
sim_ptrkind_t sim_mem_classify(uint64_t p, size_t n, void **host);
size_t sim_mem_used(int dev);
/* Traffic counters of the allocation at base (interpreted kernels, global memory). */
void sim_mem_traffic_add(uint64_t base, uint64_t ld, uint64_t st);
bool sim_mem_traffic_get(uint64_t p, sim_alloc_t *out);
void sim_mem_traffic_reset(void);
/* Calls fn with the registry (every live allocation, sorted by base) under its
 * read lock: no allocation is released while fn runs. */
void sim_mem_visit(void (*fn)(const sim_alloc_t *allocs, size_t n, void *arg), void *arg);
/* fn(lo, hi) runs after device memory [lo, hi) is released (set once, at load, by inject.c). */
void sim_mem_on_release(void (*fn)(uint64_t lo, uint64_t hi));
/* Host memory the device can reach (pinned, managed) and its registry work, for
 * the entry points of api/memapi.c (which synchronise the owner first). */
CUresult sim_mem_alloc_host(sim_ctx_t *ctx, int dev, size_t size, sim_memkind_t kind, unsigned flags, void **out);
size_t sim_mem_total(void);
CUresult sim_mem_free_managed(uint64_t dptr);
CUresult sim_mem_free_host(uint64_t base);
bool sim_mem_register(const sim_alloc_t *a);   /* false: overlaps a live record */
bool sim_mem_unregister(uint64_t base);         /* false: not a registered base */
/* The VMM slice (for mem/vmm.c and mem/ipc.c): virtual ranges with a guard page
 * after each; mappings of a file's pages into the alias, registered as a (device
 * kind) with vmm or ipc set; unmapping an exact run of such records (each is passed
 * to `each` under the registry lock first); device memory charged to a device. */
CUresult sim_mem_va_reserve(size_t size, size_t align, uint64_t hint, uint64_t *out);
void sim_mem_va_release(uint64_t va, size_t size);
bool sim_mem_va_map(const sim_alloc_t *a, int fd, uint64_t off);
bool sim_mem_va_unmap(uint64_t va, size_t size, bool ipc, void (*each)(const sim_alloc_t *a));
bool sim_mem_va_set_access(uint64_t va, size_t size, unsigned set, unsigned clear); /* device bits */
bool sim_mem_any_in(uint64_t lo, uint64_t hi); /* a live record overlaps [lo, hi) */
bool sim_mem_charge(int dev, long long bytes); /* false: the device is full */
/* Where the pages of the device allocation at base p lie in its device's memory
 * file (cuIpcGetMemHandle); false for anything else. */
typedef struct {
  int dev, fd;
  uint64_t file_off, span; /* the allocation's pages */
  uint64_t delta, size;    /* the allocation: its offset in those pages, its size */
} sim_ipc_info_t;
bool sim_mem_ipc_export(uint64_t p, sim_ipc_info_t *out);
/* An import (a record with ipc set, mapped by sim_mem_va_map over its map_lo and
 * map_len, offsets from sim_mem_range_base()) is released: PROT_NONE again. */
bool sim_mem_ipc_unmap(uint64_t base);
uint64_t sim_mem_range_base(void);

/* ---- copies (described here, executed by exec/copy.c) ---- */
typedef enum { SIM_DIR_H2H, SIM_DIR_H2D, SIM_DIR_D2H, SIM_DIR_D2D } sim_dir_t;
typedef struct sim_stage_s sim_stage_t;
typedef struct {
  uint8_t *dst; const uint8_t *src;   /* host-accessible addresses */
  uint64_t dst_dev, src_dev;          /* device addresses (0: host side) */
  size_t width, height, depth;        /* bytes per row, rows, slices */
  size_t dpitch, spitch, dslice, sslice;
  sim_dir_t dir;
  sim_stage_t *stage; /* non-NULL: the source arrives in staging chunks (exec/copy.c) */
  bool program;       /* declared the program's own by a tool on top (simcudaProgramCopy) */
} sim_copy_t;

/* ---- inject.c ---- */
void sim_inject_init(const char *env_spec);
/* A launch of kernel k with its packed arguments (offsets: each parameter's place in args). */
void sim_inject_on_launch(const simcuda_kernel_t *k, const size_t *offsets, const uint8_t *args);
int sim_inject_add(const char *spec); /* simcudaInject (api/init.c) */
void sim_inject_on_copy(const sim_copy_t *c);
/* Whether the copy this thread submits now was declared the program's (and forget it). */
bool sim_inject_take_program_copy(void);
void sim_inject_on_sync(void);
void sim_stuck_apply(uint64_t lo, uint64_t hi); /* after a write to [lo, hi) device */
void sim_stuck_apply_all(void);
void sim_stuck_forget(uint64_t lo, uint64_t hi); /* allocation freed (registered with mem.c) */
extern atomic_int sim_stuck_count;
/* A spontaneous flip (fliprate.c) at a live device byte: atomic, and invisible to
 * the thread sanitizer (it models a hardware event racing with device work). */
void sim_flip_spontaneous(uint64_t addr, uint8_t mask);

/* ---- fliprate.c: random flips at a rate (SIMCUDA_FLIP_RATE, simcudaSetFlipRate) ---- */
void sim_fliprate_init(const char *env_spec);
int sim_fliprate_set(double flips_per_gib_per_s, uint64_t seed); /* simcudaSetFlipRate (api/init.c) */

/* ---- stats.c: simcudaGetStats / simcudaResetStats / simcudaGetTraffic, the summary at exit ---- */
void sim_stats_at_exit(void);
/* A synchronisation call happened (counter + sync:<k> injection). */
void sim_count_sync(void);

/* ---- bandwidth.c: the PCIe model (SIMCUDA_PCIE_GBPS) ---- */
void sim_bandwidth_charge(sim_dir_t dir, size_t bytes, double start);

#endif
