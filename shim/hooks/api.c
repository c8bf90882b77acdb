/* api.c: the public gpuft_ functions (gpuft.h). */
#include "gpuft.h"

#include "engine.h"
#include "hooks.h"

FT_API const char *gpuft_version(void) { return GPUFT_VERSION; }

FT_API int gpuft_enabled(void) {
  ft_init();
  return ft_enabled;
}

FT_API int gpuft_write_report(const char *path) {
  ft_init();
  return path ? ft_report_write_json(path) : -1;
}

FT_API int gpuft_debug_code_range(unsigned long long dptr, unsigned long long *code,
                                  unsigned long long *code_bytes) {
  ft_init();
  ft_lock();
  ft_alloc_t *a = ft_reg_find((CUdeviceptr)dptr);
  int ok = ft_protected(a);
  if (ok) {
    if (code) *code = a->code;
    if (code_bytes) *code_bytes = a->code_bytes;
  }
  ft_unlock();
  return ok ? 0 : -1;
}
