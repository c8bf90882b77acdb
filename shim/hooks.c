/* hooks.c: the exported hook of every entry point in hooks.def (except the
 * cuGetProcAddress family, in procaddr.c), generated from the list. A hook
 * initialises once, counts the call, and forwards to the real entry point;
 * a missing real entry point is never called. */
#include "ft.h"

/* Per class: what happens before forwarding. The engine's handlers plug in here. */
#define FT_BEFORE_PROC(id)
#define FT_BEFORE_ALLOC(id) ft_count_call(id);
#define FT_BEFORE_FREE(id) ft_count_call(id);
#define FT_BEFORE_COPY(id) ft_count_call(id);
#define FT_BEFORE_MEMSET(id) ft_count_call(id);
#define FT_BEFORE_LAUNCH(id) ft_count_call(id);
#define FT_BEFORE_SYNC(id) ft_count_call(id);
#define FT_BEFORE_GRAPH(id) ft_count_unprotected(id);
#define FT_BEFORE_UNPROT(id) ft_count_unprotected(id);

#define FT_GEN_HOOK(cls, name, pfn, params, args)                          \
  FT_API CUresult CUDAAPI name params {                                    \
    ft_init();                                                             \
    if (FT_UNLIKELY(!ft_real.name)) return CUDA_ERROR_NOT_FOUND;           \
    if (FT_LIKELY(ft_enabled) && !ft_tls_in_gpuft) {                       \
      FT_BEFORE_##cls(FT_ID_##name)                                        \
    }                                                                      \
    return ft_real.name args;                                              \
  }
#define FT_GEN_PROC(cls, name, pfn, params, args) /* procaddr.c */
#define FT_HOOK(cls, name, pfn, params, args) FT_PICK_##cls(cls, name, pfn, params, args)
#define FT_PICK_PROC FT_GEN_PROC
#define FT_PICK_ALLOC FT_GEN_HOOK
#define FT_PICK_FREE FT_GEN_HOOK
#define FT_PICK_COPY FT_GEN_HOOK
#define FT_PICK_MEMSET FT_GEN_HOOK
#define FT_PICK_LAUNCH FT_GEN_HOOK
#define FT_PICK_SYNC FT_GEN_HOOK
#define FT_PICK_GRAPH FT_GEN_HOOK
#define FT_PICK_UNPROT FT_GEN_HOOK
#include "hooks.def"
#undef FT_HOOK
