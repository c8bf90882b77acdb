/* real.c: the table of real driver entry points (the seam through which gpuft's
 * engine reaches the driver), filled once by hooks/resolve.c, and the state flags
 * every layer reads: defined here so that no lower layer refers to a higher one. */
#include "ft.h"

ft_real_t ft_real;
ft_drv_t ft_drv;
int ft_drv_complete;
ft_sim_declare_fn ft_sim_declare_unwritten;
int ft_drv_is_sim;
int ft_ready;
int ft_enabled;
ft_dlsym_fn ft_real_dlsym;
__thread int ft_tls_in_gpuft __attribute__((tls_model("initial-exec")));

const char *const ft_hook_names[FT_N_HOOKS] = {
#define FT_HOOK(cls, name, pfn, params, args) #name,
#include "hooks.def"
#undef FT_HOOK
};

size_t ft_real_fill(void *lib, int (*is_own)(int id, const void *p)) {
  size_t missing = 0;
  int id = 0;
#define FT_HOOK(cls, name, pfn, params, args)                         \
  ft_real.name = (pfn)ft_real_dlsym(lib, #name);                      \
  if (is_own && is_own(id, (const void *)ft_real.name)) ft_real.name = NULL; \
  if (!ft_real.name) missing++;                                       \
  id++;
#include "hooks.def"
#undef FT_HOOK
  size_t missing_drv = 0;
#define FT_REAL(name, pfn)                                    \
  ft_drv.name = (pfn)ft_real_dlsym(lib, #name);               \
  if (!ft_drv.name) {                                         \
    missing_drv++;                                            \
    FT_DEBUG("the driver lacks %s", #name);                   \
  }
#include "reals.def"
#undef FT_REAL
  ft_drv_complete = missing_drv == 0;
  return missing;
}
