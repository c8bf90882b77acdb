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
  CUdeviceptr c = 0;
  size_t cb = 0;
  int ok = ft_code_of((CUdeviceptr)dptr, &c, &cb) == 0;
  ft_unlock();
  if (ok && code) *code = c;
  if (ok && code_bytes) *code_bytes = cb;
  return ok ? 0 : -1;
}
