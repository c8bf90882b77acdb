/* mappings.c: gpuft's view of memory the program maps with the VMM API: which
 * virtual ranges hold which physical allocation (cuMemMap), which the current device
 * may write (cuMemSetAccess), and which physical allocations something gpuft cannot
 * see may write too (mapped twice, exported, imported). Engine lock held. */
#include <stdlib.h>
#include <string.h>

#include "state.h"

typedef struct {
  CUmemGenericAllocationHandle h;
  int live;   /* the program still holds the handle (not cuMemRelease'd) */
  int shared; /* exported or imported: another process may write it */
} phys_t;

typedef struct {
  CUdeviceptr va;
  size_t size;
  size_t off; /* where in the physical allocation the mapping starts */
  int phys;   /* index in g_phys */
  int rw;     /* the current context's device may read and write it */
} map_t;

static phys_t *g_phys;
static int g_nphys, g_capphys;
static map_t *g_map; /* sorted by va, never overlapping */
static int g_nmap, g_capmap;

static int grow(void **v, int *cap, int n, size_t elem) {
  if (n < *cap) return 0;
  int c = *cap ? *cap * 2 : 16;
  void *p = realloc(*v, (size_t)c * elem);
  if (!p) return -1;
  *v = p;
  *cap = c;
  return 0;
}

/* The live physical allocation the program knows as h, or -1. */
static int phys_of(CUmemGenericAllocationHandle h) {
  for (int i = g_nphys - 1; i >= 0; i--)
    if (g_phys[i].live && g_phys[i].h == h) return i;
  return -1;
}

static int phys_add(CUmemGenericAllocationHandle h) {
  int i = phys_of(h);
  if (i >= 0) g_phys[i].live = 0; /* a value the driver gave again names new memory */
  if (grow((void **)&g_phys, &g_capphys, g_nphys, sizeof *g_phys)) return -1;
  g_phys[g_nphys] = (phys_t){h, 1, 0};
  return g_nphys++;
}

/* The mapping holding p, or -1. */
static int map_at(CUdeviceptr p) {
  for (int i = 0; i < g_nmap; i++)
    if (p - g_map[i].va < g_map[i].size) return i;
  return -1;
}

/* Physical allocations the program released and no mapping shows any more are
 * forgotten (a program that grows and shrinks a pool for hours makes many). */
static void compact(void) {
  int *to = malloc((size_t)(g_nphys ? g_nphys : 1) * sizeof *to);
  if (!to) return;
  for (int i = 0; i < g_nphys; i++) to[i] = g_phys[i].live ? 0 : -1;
  for (int k = 0; k < g_nmap; k++) to[g_map[k].phys] = 0;
  int n = 0;
  for (int i = 0; i < g_nphys; i++)
    if (to[i] == 0) g_phys[n] = g_phys[i], to[i] = n++;
  for (int k = 0; k < g_nmap; k++) g_map[k].phys = to[g_map[k].phys];
  g_nphys = n;
  free(to);
}

void ft_vmm_created(CUmemGenericAllocationHandle h, int shared) FT_REQUIRES(ft_eng_lock) {
  int i = phys_add(h);
  if (i >= 0) g_phys[i].shared = shared;
}

void ft_vmm_released(CUmemGenericAllocationHandle h) FT_REQUIRES(ft_eng_lock) {
  int i = phys_of(h);
  if (i >= 0) g_phys[i].live = 0; /* (its mappings keep the memory) */
  compact();
}

void ft_vmm_shared(CUmemGenericAllocationHandle h) FT_REQUIRES(ft_eng_lock) {
  int i = phys_of(h);
  if (i < 0) i = phys_add(h); /* imported: new to this process */
  if (i >= 0) g_phys[i].shared = 1;
}

void ft_vmm_retained(CUmemGenericAllocationHandle h, CUdeviceptr at) FT_REQUIRES(ft_eng_lock) {
  int m = map_at(at);
  if (m < 0) return;
  int i = g_map[m].phys;
  if (g_phys[i].live && g_phys[i].h == h) return;
  /* the same memory under another value: one record, both values naming it */
  int j = phys_add(h);
  if (j < 0) return;
  g_phys[j].shared = g_phys[i].shared;
  for (int k = 0; k < g_nmap; k++)
    if (g_map[k].phys == i) g_map[k].phys = j;
  if (g_phys[i].live) g_phys[j].live = 1, g_phys[i].live = 0;
}

int ft_vmm_mapped(CUdeviceptr va, size_t size, size_t off, CUmemGenericAllocationHandle h) FT_REQUIRES(ft_eng_lock) {
  int i = phys_of(h);
  if (i < 0) {
    /* a handle gpuft did not see made (before it was loaded): whoever else holds
     * it, gpuft cannot tell */
    i = phys_add(h);
    if (i < 0) return -1;
    g_phys[i].shared = 1;
  }
  if (grow((void **)&g_map, &g_capmap, g_nmap, sizeof *g_map)) return -1;
  int k = 0;
  while (k < g_nmap && g_map[k].va < va) k++;
  memmove(g_map + k + 1, g_map + k, (size_t)(g_nmap - k) * sizeof *g_map);
  g_map[k] = (map_t){va, size, off, i, 0};
  g_nmap++;
  return 0;
}

/* Split the mapping holding p so that one starts at p (a call naming part of one). */
static void split_at(CUdeviceptr p) {
  int i = map_at(p);
  if (i < 0 || g_map[i].va == p) return;
  if (grow((void **)&g_map, &g_capmap, g_nmap, sizeof *g_map)) return;
  memmove(g_map + i + 2, g_map + i + 1, (size_t)(g_nmap - i - 1) * sizeof *g_map);
  map_t *a = &g_map[i], *b = &g_map[i + 1];
  size_t head = p - a->va;
  *b = *a;
  b->va = p;
  b->size = a->size - head;
  b->off = a->off + head;
  a->size = head;
  g_nmap++;
}

void ft_vmm_unmapped(CUdeviceptr va, size_t size) FT_REQUIRES(ft_eng_lock) {
  split_at(va);
  split_at(va + size);
  int k = 0;
  for (int i = 0; i < g_nmap; i++)
    if (g_map[i].va < va || g_map[i].va - va >= size) g_map[k++] = g_map[i];
  g_nmap = k;
  compact();
}

void ft_vmm_access(CUdeviceptr va, size_t size, int rw) FT_REQUIRES(ft_eng_lock) {
  split_at(va);
  split_at(va + size);
  for (int i = 0; i < g_nmap; i++)
    if (g_map[i].va >= va && g_map[i].va - va < size) g_map[i].rw = rw;
}

/* Another mapping shows the same physical bytes elsewhere, or another process may
 * write them: writes through it would be unseen. */
static int aliased(const map_t *m) {
  if (g_phys[m->phys].shared) return 1;
  for (int i = 0; i < g_nmap; i++) {
    const map_t *o = &g_map[i];
    if (o == m || o->phys != m->phys) continue;
    if (o->va - o->off != m->va - m->off) return 1; /* (pieces of one mapping agree) */
  }
  return 0;
}

int ft_vmm_next_run(CUdeviceptr *p, CUdeviceptr end, CUdeviceptr *lo, CUdeviceptr *hi,
                    int *protectable) FT_REQUIRES(ft_eng_lock) {
  for (int i = 0; i < g_nmap; i++) {
    if (!g_map[i].rw || g_map[i].va + g_map[i].size <= *p) continue;
    if (g_map[i].va >= end) return 0;
    /* back to the start of the run it is part of */
    int s = i;
    while (s > 0 && g_map[s - 1].rw && g_map[s - 1].va + g_map[s - 1].size == g_map[s].va) s--;
    int e = i, ok = !aliased(&g_map[s]);
    for (int k = s + 1; k <= e; k++) ok &= !aliased(&g_map[k]);
    while (e + 1 < g_nmap && g_map[e + 1].rw && g_map[e].va + g_map[e].size == g_map[e + 1].va)
      ok &= !aliased(&g_map[++e]);
    *lo = g_map[s].va;
    *hi = g_map[e].va + g_map[e].size;
    *protectable = ok;
    *p = *hi;
    return 1;
  }
  return 0;
}

int ft_vmm_is_mapped(CUmemGenericAllocationHandle h) FT_REQUIRES(ft_eng_lock) {
  int i = phys_of(h);
  for (int k = 0; i >= 0 && k < g_nmap; k++)
    if (g_map[k].phys == i) return 1;
  return 0;
}
