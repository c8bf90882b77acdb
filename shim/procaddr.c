/* procaddr.c: the wrapped cuGetProcAddress family. The real driver answers the
 * question (version, per-thread-default-stream flag, status); gpuft only swaps a
 * returned real entry point for its hook, by identity, so each caller gets
 * exactly the ABI it asked for. */
#include "ft.h"

static void swap_for_hook(const char *symbol, void **pfn) {
  if (!pfn || !*pfn || !ft_enabled) return;
  void *hook = ft_hook_for_real(*pfn);
  if (hook)
    *pfn = hook;
  else {
    FT_DEBUG("cuGetProcAddress(%s) -> %p: not hooked", symbol, *pfn);
    ft_note_unhooked(symbol);
  }
}

FT_API CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int driverVersion,
                                            cuuint64_t flags,
                                            CUdriverProcAddressQueryResult *symbolFound) {
  ft_init();
  if (!ft_real.cuGetProcAddress_v2) return CUDA_ERROR_NOT_FOUND;
  if (ft_enabled && !ft_tls_in_gpuft) ft_count_call(FT_ID_cuGetProcAddress_v2);
  CUresult r = ft_real.cuGetProcAddress_v2(symbol, pfn, driverVersion, flags, symbolFound);
  if (r == CUDA_SUCCESS && !ft_tls_in_gpuft) swap_for_hook(symbol, pfn);
  return r;
}

FT_API CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int driverVersion,
                                         cuuint64_t flags) {
  ft_init();
  if (!ft_real.cuGetProcAddress) return CUDA_ERROR_NOT_FOUND;
  if (ft_enabled && !ft_tls_in_gpuft) ft_count_call(FT_ID_cuGetProcAddress);
  CUresult r = ft_real.cuGetProcAddress(symbol, pfn, driverVersion, flags);
  if (r == CUDA_SUCCESS && !ft_tls_in_gpuft) swap_for_hook(symbol, pfn);
  return r;
}
