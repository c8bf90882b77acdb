/* api.c: the public gpuft_ functions (gpuft.h). */
#include "gpuft.h"

#include "ft.h"

FT_API const char *gpuft_version(void) { return GPUFT_VERSION; }

FT_API int gpuft_enabled(void) {
  ft_init();
  return ft_enabled;
}

FT_API int gpuft_write_report(const char *path) {
  ft_init();
  return path ? ft_report_write_json(path) : -1;
}
