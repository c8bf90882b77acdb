/* selftest.h: `gpuft selftest` (docs/gpu.md): its shared state and its parts. */
#ifndef FT_SELFTEST_H
#define FT_SELFTEST_H

#include "gdrv.h"

typedef struct {
  ft_gdrv_t g;
  ftk_module_t mod;
  CUstream stream;
  ftk_job_t *job;      /* mapped pinned host memory */
  CUdeviceptr job_dev;
  CUdeviceptr djob;    /* device memory: the kernels' accumulator (ftk.h) */
  /* kernel checks */
  unsigned kern_lengths, kern_checks, kern_fail;
} st_env_t;

int st_kernels(st_env_t *e, int quick);                     /* selftest_kern.c */
uint64_t st_rand(void);
int st_cuda_fail(st_env_t *e, const char *what, CUresult r); /* selftest.c */
int st_alloc(st_env_t *e, CUdeviceptr *p, size_t n);
void st_free(st_env_t *e, CUdeviceptr p);

#endif
