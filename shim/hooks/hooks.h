/* hooks.h: the interposition layer's own declarations: the table of gpuft's
 * exported hooks, initialisation, and the mapping of real entry points to hooks
 * (dlsym, cuGetProcAddress). Only hooks/ includes it. */
#ifndef FT_HOOKS_H
#define FT_HOOKS_H

#include "engine.h"
#include "ft.h"

typedef struct {
  const char *name;
  void *hook; /* our exported function */
} ft_hook_info_t;
extern const ft_hook_info_t ft_hooks[FT_N_HOOKS];

/* Initialisation (resolve.c): find the driver and every real entry point once. */
void ft_init_slow(void);
static inline void ft_init(void) {
  if (FT_UNLIKELY(!__atomic_load_n(&ft_ready, __ATOMIC_ACQUIRE))) ft_init_slow();
}
/* Our hook for a real entry point, or NULL if that entry point is not hooked. */
void *ft_hook_for_real(const void *real);
void ft_resolve_dlsym(void);

/* Work enqueued on a stream the program is capturing (ft_stream_capturing, order.c)
 * becomes a graph node instead of running: gpuft stays out of it (capture.c). A
 * stream whose query fails (the legacy stream while a blocking stream captures)
 * counts as captured: the driver answers the program's call itself. The program's
 * call is passed through and counted; it runs when the graph is launched. */
#define FT_CAPTURED(s, CALL)               \
  do {                                     \
    if (FT_UNLIKELY(ft_stream_capturing(s))) { \
      ft_captured_call();                  \
      return CALL;                         \
    }                                      \
  } while (0)
void ft_captured_call(void);
/* A launch of executable graph g on s (graph.c): protected as the launches it holds
 * when gpuft could read its nodes, else an unknown writer (counted unprotected). */
CUresult ft_graph_launch(CUgraphExec g, CUstream s, int ptsz, ft_hook_id_t id);

/* An operation of the program begins: room in the ledger for its jobs, then the
 * operation lock (engine.h). */
#define FT_OP_BEGIN()   \
  do {                  \
    ft_jobs_make_room(); \
    ft_op_begin();      \
  } while (0)

#endif
