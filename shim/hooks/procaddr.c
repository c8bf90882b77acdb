/* procaddr.c: the wrapped cuGetProcAddress family. The real driver answers the
 * question (version, per-thread-default-stream flag, status); gpuft only swaps a
 * returned real entry point for its hook, by identity, so each caller gets
 * exactly the ABI it asked for. */
#include <string.h>

#include "hooks.h"

/* Whether `symbol` (a base name such as "cuMemAlloc") names an entry point gpuft
 * hooks in some ABI. */
static int hooked_base(const char *symbol) {
  size_t n = strlen(symbol);
  for (int i = 0; i < FT_N_HOOKS; i++) {
    const char *h = ft_hooks[i].name;
    if (strncmp(h, symbol, n) == 0 && (h[n] == 0 || h[n] == '_')) return 1;
  }
  return 0;
}

static void swap_for_hook(const char *symbol, void **pfn, int version) {
  if (!pfn || !*pfn || !ft_enabled) return;
  void *hook = ft_hook_for_real(*pfn);
  if (hook) {
    *pfn = hook;
    return;
  }
  FT_DEBUG("cuGetProcAddress(%s, %d) -> %p: not hooked", symbol, version, *pfn);
  ft_note_unhooked(symbol);
  /* A current ABI of an entry point gpuft hooks that is not the driver's exported
   * function: gpuft cannot see calls through it. Say so, once. */
  if (version >= 12000 && symbol && hooked_base(symbol))
    FT_WARN_CAPPED(1, "the driver's cuGetProcAddress(\"%s\") returned an entry point that is not "
                   "its exported one: calls made through it are not protected", symbol);
}

FT_API CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int driverVersion,
                                            cuuint64_t flags,
                                            CUdriverProcAddressQueryResult *symbolFound) {
  ft_init();
  if (!ft_real.cuGetProcAddress_v2) return CUDA_ERROR_NOT_FOUND;
  if (ft_enabled && !ft_tls_in_gpuft) ft_count_call(FT_ID_cuGetProcAddress_v2);
  CUresult r = ft_real.cuGetProcAddress_v2(symbol, pfn, driverVersion, flags, symbolFound);
  if (r == CUDA_SUCCESS && !ft_tls_in_gpuft) swap_for_hook(symbol, pfn, driverVersion);
  return r;
}

FT_API CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int driverVersion,
                                         cuuint64_t flags) {
  ft_init();
  if (!ft_real.cuGetProcAddress) return CUDA_ERROR_NOT_FOUND;
  if (ft_enabled && !ft_tls_in_gpuft) ft_count_call(FT_ID_cuGetProcAddress);
  CUresult r = ft_real.cuGetProcAddress(symbol, pfn, driverVersion, flags);
  if (r == CUDA_SUCCESS && !ft_tls_in_gpuft) swap_for_hook(symbol, pfn, driverVersion);
  return r;
}
