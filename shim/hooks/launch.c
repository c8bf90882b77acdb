/* launch.c: kernel launches (DESIGN.md 6.2): the hooks of cuLaunchKernel and its
 * kinds. The launch's uses and its protocol are the engine's (policy/launches.c);
 * a launch whose arguments cannot be read is an unknown writer (DESIGN.md 6.6). */
#include "access.h"
#include "hooks.h"
#include "inject.h"

/* The launch of kernel f with its arguments, on stream s; `real` performs the
 * application's call exactly as made. */
static CUresult protect_launch(CUfunction f, void **params, void **extra, CUstream s,
                               ft_launch_fn real, const void *call, const unsigned grid[3],
                               const unsigned block[3], unsigned shmem, int coop) {
  FT_CAPTURED(s, real(call)); /* a node of a graph: checked when the graph is launched */
  /* an epoch is committed at least every GPUFT_EPOCH_LAUNCHES launches */
  if (FT_OPT(EPOCH_LAUNCHES) && ft_epoch_ops() >= (size_t)FT_OPT(EPOCH_LAUNCHES)) {
    CUresult v = ft_commit_all();
    if (v != CUDA_SUCCESS) return v;
  }
  uint8_t buf[FT_MAX_PARAM_BYTES];
  size_t len = 0;
  ft_ref_t refs[FT_MAX_REFS];
  if (ft_inject_active()) {
    /* GPUFT_INJECT: the fault lands before the kernel, and before gpuft looks */
    ft_lock();
    ft_func_t *fi = ft_dev_current() ? ft_func_get(f) : NULL;
    int ok = fi && fi->layout_ok && ft_param_bytes(fi, params, extra, buf, &len) == 0;
    ft_unlock();
    if (ok)
      ft_inject_launch(fi->name, buf, len, fi->param_off, fi->param_size, fi->nparams);
  }
  FT_OP_BEGIN();
  ft_lock();
  ft_st.launches++;
  ft_dev_t *d = ft_dev_current();
  ft_func_t *fn = d ? ft_func_get(f) : NULL;
  int nref = -1;
  const char *side = NULL;
  if (d && fn && fn->layout_ok && ft_param_bytes(fn, params, extra, buf, &len) == 0)
    nref = ft_launch_uses(d, fn, buf, len, grid, block, refs, &side);
  if (!d) {
    ft_unlock();
    CUresult r = real(call);
    ft_op_end();
    return r;
  }
  if (nref < 0) {
    /* arguments unreadable: an unknown writer; what is pending is committed first
     * (outside the operation, so that a replay can still run) */
    ft_unlock();
    ft_op_end();
    FT_WARN_CAPPED(3, "cannot read the arguments of kernel %s, or it may reach more than %d "
                   "allocations: treated as writing every protected allocation",
                   fn && fn->name[0] ? fn->name : "(unnamed)", FT_MAX_REFS);
    CUresult v = ft_unknown_writer_before(s, 1);
    FT_OP_BEGIN();
    ft_sim_declare_fn declare = __atomic_load_n(&ft_sim_declare_unwritten, __ATOMIC_RELAXED);
    if (declare) declare(NULL, 0); /* every allocation written */
    CUresult r = real(call);
    if (r == CUDA_SUCCESS) ft_unknown_writer_after(s);
    ft_op_end();
    __atomic_fetch_add(&ft_st.unknown_writers, 1, __ATOMIC_RELAXED);
    return r != CUDA_SUCCESS ? r : v;
  }
  if (!side && coop == 2) side = "a launch with attributes (cuLaunchKernelEx)";
  const ft_logged_t lg = {f, coop, grid, block, shmem, buf, len, NULL, 0, 0};
  CUresult r = ft_protect_refs(d, fn, refs, nref, s, real, call, side, &lg);
  ft_unlock();
  ft_op_end();
  return r;
}

/* ---- the launch entry points ---- */

typedef struct {
  CUfunction f;
  unsigned gx, gy, gz, bx, by, bz, shmem;
  CUstream s;
  void **params, **extra;
  int ptsz;
} kl_t;

static CUresult real_kl(const void *p) {
  const kl_t *c = p;
  return (c->ptsz ? ft_real.cuLaunchKernel_ptsz : ft_real.cuLaunchKernel)(
      c->f, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->shmem, c->s, c->params, c->extra);
}
static CUresult real_coop(const void *p) {
  const kl_t *c = p;
  return (c->ptsz ? ft_real.cuLaunchCooperativeKernel_ptsz : ft_real.cuLaunchCooperativeKernel)(
      c->f, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->shmem, c->s, c->params);
}

#define KL(name, ptsz_, realfn)                                                              \
  CUresult ft_on_##name(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,    \
                        unsigned by, unsigned bz, unsigned shmem, CUstream s, void **params, \
                        void **extra) {                                                      \
    kl_t c = {f, gx, gy, gz, bx, by, bz, shmem, s, params, extra, ptsz_};                    \
    const unsigned g_[3] = {gx, gy, gz}, b_[3] = {bx, by, bz};                               \
    return ft_note_result(protect_launch(f, params, extra, FT_STREAM(s, ptsz_), realfn, &c, g_, b_, shmem, 0)); \
  }
KL(cuLaunchKernel, 0, real_kl)
KL(cuLaunchKernel_ptsz, 1, real_kl)

#define COOP(name, ptsz_)                                                                    \
  CUresult ft_on_##name(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,    \
                        unsigned by, unsigned bz, unsigned shmem, CUstream s, void **params) { \
    kl_t c = {f, gx, gy, gz, bx, by, bz, shmem, s, params, NULL, ptsz_};                     \
    const unsigned g_[3] = {gx, gy, gz}, b_[3] = {bx, by, bz};                               \
    return ft_note_result(protect_launch(f, params, NULL, FT_STREAM(s, ptsz_), real_coop, &c, g_, b_, shmem, 1)); \
  }
COOP(cuLaunchCooperativeKernel, 0)
COOP(cuLaunchCooperativeKernel_ptsz, 1)

typedef struct {
  const CUlaunchConfig *cfg;
  CUfunction f;
  void **params, **extra;
  int ptsz;
} kx_t;

static CUresult real_kx(const void *p) {
  const kx_t *c = p;
  return (c->ptsz ? ft_real.cuLaunchKernelEx_ptsz : ft_real.cuLaunchKernelEx)(c->cfg, c->f,
                                                                              c->params, c->extra);
}

#define KX(name, ptsz_)                                                                      \
  CUresult ft_on_##name(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra) { \
    kx_t c = {cfg, f, params, extra, ptsz_};                                                 \
    if (!cfg) return real_kx(&c);                                                            \
    const unsigned g_[3] = {cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ};                    \
    const unsigned b_[3] = {cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ};                 \
    return ft_note_result(protect_launch(f, params, extra, FT_STREAM(cfg->hStream, ptsz_), real_kx, &c, g_, \
                                         b_, cfg->sharedMemBytes, cfg->numAttrs ? 2 : 0)); \
  }
KX(cuLaunchKernelEx, 0)
KX(cuLaunchKernelEx_ptsz, 1)
