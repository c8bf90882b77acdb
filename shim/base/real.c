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

/* The thread's capture mode set to relaxed for one of gpuft's own unsafe calls,
 * then put back (push-pop, as the driver's documentation asks). */
static CUstreamCaptureMode relaxed_begin(void) {
  CUstreamCaptureMode m = CU_STREAM_CAPTURE_MODE_RELAXED;
  if (!ft_drv.cuThreadExchangeStreamCaptureMode || ft_drv.cuThreadExchangeStreamCaptureMode(&m) != CUDA_SUCCESS)
    return CU_STREAM_CAPTURE_MODE_RELAXED; /* (nothing to put back) */
  return m;
}
static void relaxed_end(CUstreamCaptureMode was) {
  if (was != CU_STREAM_CAPTURE_MODE_RELAXED) ft_drv.cuThreadExchangeStreamCaptureMode(&was);
}
#define RELAXED(call)                          \
  do {                                         \
    CUstreamCaptureMode was_ = relaxed_begin(); \
    CUresult r_ = (call);                      \
    relaxed_end(was_);                         \
    return r_;                                 \
  } while (0)

CUresult ft_own_alloc(CUdeviceptr *p, size_t n) { RELAXED(ft_real.cuMemAlloc_v2(p, n)); }
CUresult ft_own_free(CUdeviceptr p) { RELAXED(ft_real.cuMemFree_v2(p)); }
CUresult ft_own_host_alloc(void **p, size_t n, unsigned flags) { RELAXED(ft_drv.cuMemHostAlloc(p, n, flags)); }
CUresult ft_own_host_free(void *p) { RELAXED(ft_drv.cuMemFreeHost(p)); }
CUresult ft_own_stream_sync(CUstream s) { RELAXED(ft_real.cuStreamSynchronize(s)); }
CUresult ft_own_event_sync(CUevent e) { RELAXED(ft_real.cuEventSynchronize(e)); }
CUresult ft_own_event_query(CUevent e) { RELAXED(ft_real.cuEventQuery(e)); }
CUresult ft_own_ctx_sync(void) { RELAXED(ft_real.cuCtxSynchronize()); }
