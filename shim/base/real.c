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
