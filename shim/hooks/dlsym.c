/* dlsym.c: the overriding dlsym (the second door onto the hook table).
 *
 * glibc resolves RTLD_NEXT (and RTLD_DEFAULT in a local scope) relative to the
 * code that called dlsym. Were gpuft's dlsym an ordinary function calling the
 * real one, every such lookup would become relative to gpuft: a known trap of
 * hooking libraries. So on x86-64 the exported `dlsym` is a small assembly
 * trampoline (dlsym_x86_64.S) that asks ft_dlsym_route() whether the lookup
 * concerns gpuft at all, and otherwise *jumps* to the real dlsym, which then
 * sees the original caller's return address. Only lookups of driver names go
 * through ft_dlsym_hooked(), which maps a real entry point to its hook.
 * Elsewhere a C fallback forwards (RTLD_NEXT then being relative to gpuft,
 * which is documented). The symbol is unversioned (anonymous version script) so
 * that versioned references such as dlsym@GLIBC_2.2.5 bind to it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "hooks.h"

/* Lookups gpuft must see: driver entry points ("cu..."). */
FT_NO_SANITIZE static int concerns_gpuft(const char *name) {
  return name && name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
}

/* 1: take the hooked path; 0: tail-jump to the real dlsym. */
int ft_dlsym_route(void *handle, const char *name);
FT_NO_SANITIZE int ft_dlsym_route(void *handle, const char *name) {
  (void)handle;
  ft_resolve_dlsym();
  if (!ft_real_dlsym) return 1; /* the hooked path reports the failure */
  return concerns_gpuft(name);
}

void *ft_dlsym_hooked(void *handle, const char *name);
void *ft_dlsym_hooked(void *handle, const char *name) {
  ft_resolve_dlsym();
  if (!ft_real_dlsym) return NULL;
  void *r = ft_real_dlsym(handle, name);
  if (!r || ft_tls_in_gpuft) return r;
  ft_init();
  if (!ft_enabled) return r;
  void *hook = ft_hook_for_real(r);
  if (hook) return hook;
  /* Our own export (RTLD_DEFAULT finds the preloaded hooks first) or an entry
   * point gpuft does not hook. */
  for (int i = 0; i < FT_N_HOOKS; i++)
    if (ft_hooks[i].hook == r) return r;
  ft_note_unhooked(name);
  return r;
}

#if !defined(__x86_64__)
FT_API void *dlsym(void *handle, const char *name) {
  if (ft_dlsym_route(handle, name)) return ft_dlsym_hooked(handle, name);
  return ft_real_dlsym(handle, name);
}
#endif
