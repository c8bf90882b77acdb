/* loaded.c: how libgpuft.so came into the process: at start-up (LD_PRELOAD, or
 * linked), where its hooks interpose, or later by dlopen (CUDA_INJECTION64_PATH),
 * where they cannot (docs/launcher.md, "CUDA_INJECTION64_PATH"). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <link.h>

#include "ft.h"

/* The dynamic linker's list holds the objects in load order: the program, what was
 * preloaded, its libraries (libc among them), then whatever dlopen added. An object
 * found after libc came with dlopen. (gnu_get_libc_version: a libc function no
 * sanitizer runtime intercepts, so its object is libc's own.) */
static int compute_late(void) {
  Dl_info di;
  struct link_map *self = NULL, *libc = NULL;
  if (!dladdr1((void *)&ft_loaded_late, &di, (void **)&self, RTLD_DL_LINKMAP) || !self) return 0;
  if (!dladdr1((void *)&gnu_get_libc_version, &di, (void **)&libc, RTLD_DL_LINKMAP) || !libc) return 0;
  for (struct link_map *m = self->l_prev; m; m = m->l_prev)
    if (m == libc) return 1;
  return 0;
}

int ft_loaded_late(void) {
  static int late = -1; /* the answer never changes: racing threads store the same */
  int v = __atomic_load_n(&late, __ATOMIC_RELAXED);
  if (v < 0) __atomic_store_n(&late, v = compute_late(), __ATOMIC_RELAXED);
  return v;
}
