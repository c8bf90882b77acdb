/* resolve.c: finds the real driver once (pthread_once): libcuda.so.1, every hooked
 * entry point by its exported name, the real dlsym; and maps a real entry point to
 * its hook by identity (used by dlsym and cuGetProcAddress). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "engine.h"
#include "hooks.h"
#include "inject.h"


/* Our exported hooks, by id (the functions are defined in hooks.c). */
#define FT_HOOK(cls, name, pfn, params, args) extern CUresult CUDAAPI name params;
#include "hooks.def"
#undef FT_HOOK

const ft_hook_info_t ft_hooks[FT_N_HOOKS] = {
#define FT_HOOK(cls, name, pfn, params, args) {#name, (void *)name},
#include "hooks.def"
#undef FT_HOOK
};

/* real entry point -> hook, sorted by the real address */
typedef struct {
  const void *real;
  void *hook;
} map_t;
static map_t g_map[FT_N_HOOKS];
static size_t g_nmap;
static void *g_libcuda;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* No pthread_once here: a sanitizer runtime looks its interceptors up with dlsym
 * before it can run any of them (pthread_once among them). Two threads racing
 * both find the same pointer. */
FT_NO_SANITIZE void ft_resolve_dlsym(void) {
  if (__atomic_load_n(&ft_real_dlsym, __ATOMIC_ACQUIRE)) return;
  /* dlvsym is not overridden; RTLD_NEXT from here is the next dlsym after gpuft
   * (libc's, or another interposer's). */
  void *p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (!p) p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  __atomic_store_n(&ft_real_dlsym, (ft_dlsym_fn)p, __ATOMIC_RELEASE);
}

static int cmp_map(const void *a, const void *b) {
  const map_t *x = a, *y = b;
  return x->real < y->real ? -1 : x->real > y->real;
}

void *ft_hook_for_real(const void *real) {
  size_t lo = 0, hi = g_nmap;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g_map[mid].real == real) return g_map[mid].hook;
    if (g_map[mid].real < real) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* dlsym gave back gpuft's own hook (the driver lacks the entry point) */
static int is_own(int id, const void *p) { return p == ft_hooks[id].hook; }

static void resolve(void) {
  ft_options_init();
  ft_resolve_dlsym();
  if (!ft_real_dlsym) {
    FT_ERROR("cannot find the C library's dlsym: gpuft stays out of the way");
    return;
  }
  g_libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!g_libcuda) {
    FT_DEBUG("no CUDA driver (libcuda.so.1): %s", dlerror());
    return;
  }
  size_t missing = ft_real_fill(g_libcuda, is_own);
  if (missing) FT_DEBUG("%zu hooked entry points are absent from this driver", missing);
  ft_sim_declare_unwritten = (ft_sim_declare_fn)ft_real_dlsym(g_libcuda, "simcudaDeclareUnwritten");
  ft_drv_is_sim = ft_real_dlsym(g_libcuda, "simcudaGetStats") != NULL;
  for (int i = 0; i < FT_N_HOOKS; i++) {
    const void *real = ((void *const *)&ft_real)[i];
    if (!real) continue;
    g_map[g_nmap].real = real;
    g_map[g_nmap].hook = ft_hooks[i].hook;
    g_nmap++;
  }
  _Static_assert(sizeof(ft_real_t) == FT_N_HOOKS * sizeof(void *), "one pointer per hook");
  qsort(g_map, g_nmap, sizeof *g_map, cmp_map);
  for (size_t i = 1; i < g_nmap; i++)
    if (g_map[i].real == g_map[i - 1].real)
      FT_DEBUG("the driver aliases two hooked entry points at %p", g_map[i].real);
  ft_enabled = FT_OPT(ENABLE) != 0 && !ft_loaded_late(); /* late: some calls could reach the hooks, never all */
  if (ft_enabled) /* a disabled gpuft forwards the program's copies undeclared */
    ft_inject_bind_sim((void (*)(int))ft_real_dlsym(g_libcuda, "simcudaProgramCopy"));
  ft_codec_set_threads((int)FT_OPT(THREADS));
  ft_inject_init();
  if (ft_enabled) ft_report_arm();
  if (FT_OPT_S(CODEC)[0] && ft_codec_set_variant(FT_OPT_S(CODEC)) != 0)
    FT_WARN("GPUFT_CODEC=%s is not available on this CPU: using %s", FT_OPT_S(CODEC),
            ft_codec_variant());
  FT_DEBUG("gpuft %s: %s, %zu entry points hooked", GPUFT_VERSION,
           ft_enabled ? "enabled" : "disabled (pass-through)", g_nmap);
}

static void init_once(void) {
  int saved = ft_tls_in_gpuft;
  ft_tls_in_gpuft = 1;
  resolve();
  ft_tls_in_gpuft = saved;
  __atomic_store_n(&ft_ready, 1, __ATOMIC_RELEASE);
}

void ft_init_slow(void) { pthread_once(&g_once, init_once); }
