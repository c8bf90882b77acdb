/* hooks.c: the exported hook of every entry point in hooks.def (except the
 * cuGetProcAddress family, in procaddr.c), generated from the list. A hook
 * initialises once, counts the call and hands it to the engine's handler, or
 * forwards it when gpuft is disabled; a missing real entry point is never called. */
#include "hooks.h"
#include "inject.h"

/* Every class but PROC has handlers ft_on_<name> with the same parameters (ops_*.c,
 * launch.c); UNPROT calls are also counted as unprotected operations, GRAPH calls when
 * gpuft cannot read the graph (graph.c).
 * The guard marks gpuft's own work on this thread. */
#define FT_COUNT_PROC(id)
#define FT_COUNT_ALLOC(id) ft_count_call(id);
#define FT_COUNT_FREE(id) ft_count_call(id);
#define FT_COUNT_COPY(id) ft_count_call(id);
#define FT_COUNT_MEMSET(id) ft_count_call(id);
#define FT_COUNT_LAUNCH(id) ft_count_call(id);
#define FT_COUNT_SYNC(id) ft_count_call(id);
#define FT_COUNT_GRAPH(id) /* (graph.c: a call, unprotected when it cannot read the graph) */
#define FT_COUNT_UNPROT(id) ft_count_unprotected(id);

#define FT_HOOK(cls, name, pfn, params, args) CUresult ft_on_##name params;
#include "hooks.def"
#undef FT_HOOK

#define FT_GEN_HOOK(cls, name, pfn, params, args)                          \
  FT_API CUresult CUDAAPI name params {                                    \
    ft_init();                                                             \
    if (FT_UNLIKELY(!ft_real.name)) return CUDA_ERROR_NOT_FOUND;           \
    if (FT_LIKELY(ft_enabled) && !ft_tls_in_gpuft) {                       \
      FT_COUNT_##cls(FT_ID_##name)                                         \
      ft_inject_call();                                                    \
      ft_tls_in_gpuft = 1;                                                 \
      CUresult r_ = ft_on_##name args;                                     \
      ft_tls_in_gpuft = 0;                                                 \
      return r_;                                                           \
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

/* Load time: the engine's floors told whom to call up to, the report's set-up. */
__attribute__((constructor)) static void ft_load(void) {
  ft_engine_wire();
  ft_report_load();
}
