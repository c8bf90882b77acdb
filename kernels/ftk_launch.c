/* ftk_launch.c: module loading (fatbin, else simulator twins) and kernel launches;
 * the launch path is the same on a GPU and on the simulator, only the image differs. */
#include "ftk_launch.h"

#include <string.h>

#include "ftk_warp.h"

#if FTK_HAVE_TWINS
#include "ftk_twins.h"
#endif

static const char *const ftk_names[FTK_NKERNELS] = {FTK_NAME_ENCODE, FTK_NAME_VERIFY,
                                                    FTK_NAME_VERIFY_COPY, FTK_NAME_VERIFY_FIX,
                                                    FTK_NAME_VERIFY_COPY_FIX};

static CUresult get_functions(ftk_module_t *m, const ftk_driver_t *d) {
  for (int i = 0; i < FTK_NKERNELS; i++) {
    CUresult r = d->moduleGetFunction(&m->fn[i], m->mod, ftk_names[i]);
    if (r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}

CUresult ftk_module_load(ftk_module_t *m, const ftk_driver_t *d) {
  if (!m || !d || !d->moduleLoadData || !d->moduleGetFunction || !d->moduleUnload)
    return CUDA_ERROR_INVALID_VALUE;
  memset(m, 0, sizeof *m);
  CUresult r = CUDA_ERROR_NO_BINARY_FOR_GPU;
  if (ftk_fatbin_size) r = d->moduleLoadData(&m->mod, ftk_fatbin);
#if FTK_HAVE_TWINS
  /* A real driver rejects the twin image (not device code), the simulator the
   * fatbin: trying both in this order needs no knowledge of which one we run on.
   * If both fail, the fatbin's error is the one that means something. */
  if (r != CUDA_SUCCESS && d->moduleLoadData(&m->mod, &ftk_twin_image) == CUDA_SUCCESS)
    r = CUDA_SUCCESS, m->twins = 1;
#endif
  if (r != CUDA_SUCCESS) {
    memset(m, 0, sizeof *m);
    return r;
  }
  if ((r = get_functions(m, d)) != CUDA_SUCCESS) {
    d->moduleUnload(m->mod);
    memset(m, 0, sizeof *m);
  }
  return r;
}

void ftk_module_unload(ftk_module_t *m, const ftk_driver_t *d) {
  if (!m || !d || !m->mod) return;
  d->moduleUnload(m->mod);
  memset(m, 0, sizeof *m);
}

unsigned ftk_grid_for(uint64_t ngroups) {
  uint64_t blocks = (ngroups + FTK_GROUPS_PER_BLOCK - 1) / FTK_GROUPS_PER_BLOCK;
  if (blocks > FTK_MAX_BLOCKS) blocks = FTK_MAX_BLOCKS;
  return blocks ? (unsigned)blocks : 1u; /* an empty span still completes its job */
}

CUresult ftk_launch_grid(const ftk_module_t *m, const ftk_driver_t *d, int which,
                         const ftk_span_t *span, ftk_job_t *job_host, CUstream stream,
                         unsigned grid) {
  if (!m || !d || !d->launchKernel || !span || which < FTK_ENCODE || which >= FTK_NKERNELS ||
      !m->fn[which])
    return CUDA_ERROR_INVALID_VALUE;
  if (!grid) {
    uint64_t end = ftk_span_end(span); /* groups past len have no work */
    grid = ftk_grid_for(end > span->g0 ? end - span->g0 : 0);
  }
  if (job_host) {
    memset(job_host, 0, sizeof *job_host);
    job_host->blocks_total = grid;
  }
  ftk_span_t s = *span; /* the driver copies parameters at the call */
  void *params[1] = {&s};
  return d->launchKernel(m->fn[which], grid, 1, 1, FTK_THREADS, 1, 1, 0, stream, params, NULL);
}

CUresult ftk_launch(const ftk_module_t *m, const ftk_driver_t *d, int which,
                    const ftk_span_t *span, ftk_job_t *job_host, CUstream stream) {
  return ftk_launch_grid(m, d, which, span, job_host, stream, 0);
}
