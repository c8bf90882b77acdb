/* quarantine.c: per-GPU error history in the engine: bad words of the device's history
 * are permanent at once (commit.c asks ft_history_is_bad), permanent faults found at run
 * time are appended, and GPUFT_QUARANTINE=1 retires the 2 MiB pages holding bad words by
 * allocating them at context start (software page retirement). */
#define _GNU_SOURCE
#include "quarantine.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "history.h"

#define PAGE ((uint64_t)2 << 20)
#define MAX_DEVICES 16
#define MAX_BAD 4096
#define MAX_HELD 64

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  CUdevice dev;
  char uuid[48];
  int bad0, bad1; /* its bad words: g_bad[bad0, bad1) */
} g_devs[MAX_DEVICES];
static int g_ndevs;
static struct {
  CUcontext ctx;
  char uuid[48];
} g_ctxs[MAX_DEVICES];
static int g_nctxs;
static uint64_t g_bad[MAX_BAD]; /* word addresses of every loaded device */
static int g_nbad;

static int uuid_of(CUdevice dev, char out[48]) {
  typedef CUresult (*uuid_fn)(CUuuid *, CUdevice);
  static uuid_fn fn;
  if (!fn) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h) *(void **)&fn = ft_real_dlsym(h, "cuDeviceGetUuid_v2");
    if (h) dlclose(h);
  }
  CUuuid u;
  if (!fn || fn(&u, dev) != CUDA_SUCCESS) return -1;
  const unsigned char *b = (const unsigned char *)u.bytes;
  int n = sprintf(out, "GPU-");
  for (int i = 0; i < 16; i++)
    n += sprintf(out + n, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", b[i]);
  return 0;
}

/* Hold the 2 MiB pages of the bad words g_bad[from, to) in the current context. A fresh
 * context hands out addresses in increasing order (the simulator does; for the CUDA
 * driver this is unverified, docs/gpu.md), so 2 MiB chunks are taken until one lies past
 * the page; those overlapping it are kept, the others given back. Without that order
 * the loop ends at its cap with a warning. */
static void quarantine(int from, int to) {
  CUdeviceptr held[MAX_HELD], tmp[1024]; /* held chunks live as long as the context */
  int nheld = 0;
  for (int i = from; i < to && nheld < MAX_HELD; i++) {
    uint64_t lo = g_bad[i] & ~(PAGE - 1), hi = lo + PAGE;
    int kept = 0, ntmp = 0, reached = 0;
    for (int k = 0; k < nheld; k++) /* already held for an earlier word of the page */
      if (held[k] < hi && held[k] + PAGE > lo) kept = 1, reached |= held[k] + PAGE >= hi;
    while (!kept || !reached) {
      CUdeviceptr c;
      if (ntmp == 1024 || nheld == MAX_HELD || ft_own_alloc(&c, PAGE) != CUDA_SUCCESS) break;
      if (c < hi && c + PAGE > lo) held[nheld++] = c, kept = 1;
      else if (c >= hi) {
        ft_own_free(c);
        reached = 1;
      } else tmp[ntmp++] = c;
      if (kept && c + PAGE >= hi) reached = 1;
    }
    for (int k = 0; k < ntmp; k++) ft_own_free(tmp[k]);
    if (kept)
      FT_INFO("quarantine: the 2 MiB page %#llx holding bad word %#llx is held by gpuft",
              (unsigned long long)lo, (unsigned long long)g_bad[i]);
    else
      FT_WARN("quarantine: could not hold the page %#llx of bad word %#llx (allocations did "
              "not reach it)", (unsigned long long)lo, (unsigned long long)g_bad[i]);
  }
}

void ft_history_ctx_start(CUcontext ctx) {
  CUdevice dev;
  char uuid[48];
  if (!ft_drv.cuCtxGetDevice || ft_drv.cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
      uuid_of(dev, uuid) != 0)
    return;
  pthread_mutex_lock(&g_lock);
  /* contexts come and go (a handle may be reused): the slot of that handle, else a new
   * one, else the oldest (round robin) */
  static int next;
  int c = 0;
  while (c < g_nctxs && g_ctxs[c].ctx != ctx) c++;
  if (c == g_nctxs && g_nctxs < MAX_DEVICES) g_nctxs++;
  else if (c == g_nctxs) c = next++ % MAX_DEVICES;
  g_ctxs[c].ctx = ctx;
  memcpy(g_ctxs[c].uuid, uuid, sizeof uuid);
  int k = 0;
  while (k < g_ndevs && g_devs[k].dev != dev) k++;
  if (k == g_ndevs && g_ndevs < MAX_DEVICES) { /* the device's history, read once */
    g_devs[k].dev = dev;
    memcpy(g_devs[k].uuid, uuid, sizeof uuid);
    g_devs[k].bad0 = g_nbad;
    char path[4096];
    ft_hist_t h;
    if (ft_history_path(FT_OPT_S(HISTORY_DIR), uuid, path, sizeof path) == 0 &&
        ft_history_read(path, &h) == 0) {
      for (size_t i = 0; i < h.n_faults && g_nbad < MAX_BAD; i++) g_bad[g_nbad++] = h.faults[i].addr;
      if (h.n_faults) FT_INFO("%s: %zu known bad words in %s", uuid, h.n_faults, path);
      ft_history_free(&h);
    }
    g_devs[k].bad1 = g_nbad;
    g_ndevs++;
  }
  /* every context of the device holds its pages: they go when the context goes */
  if (k < g_ndevs && FT_OPT(QUARANTINE) && g_devs[k].bad1 > g_devs[k].bad0)
    quarantine(g_devs[k].bad0, g_devs[k].bad1);
  pthread_mutex_unlock(&g_lock);
}

int ft_history_is_bad(uint64_t addr) {
  addr &= ~(uint64_t)3;
  pthread_mutex_lock(&g_lock);
  int bad = 0;
  for (int i = 0; i < g_nbad && !bad; i++) bad = g_bad[i] == addr;
  pthread_mutex_unlock(&g_lock);
  return bad;
}

void ft_history_record_permanent(CUcontext ctx, uint64_t addr, int bit) {
  char uuid[48] = "", path[4096], fields[256];
  pthread_mutex_lock(&g_lock);
  for (int i = 0; i < g_nctxs; i++)
    if (g_ctxs[i].ctx == ctx) memcpy(uuid, g_ctxs[i].uuid, sizeof uuid);
  pthread_mutex_unlock(&g_lock);
  if (!uuid[0] || ft_history_path(FT_OPT_S(HISTORY_DIR), uuid, path, sizeof path) != 0) return;
  snprintf(fields, sizeof fields, "\"type\": \"fault\", \"src\": \"runtime\", \"addr\": %llu, \"bits\": %lu",
           (unsigned long long)(addr & ~(uint64_t)3), bit >= 0 && bit < 32 ? 1ul << bit : 0ul);
  if (ft_history_append(path, fields) != 0)
    FT_WARN_CAPPED(1, "cannot append to the error history %s", path);
}
