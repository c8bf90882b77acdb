/* simtest.h: helpers shared by the driver simulator's tests: CUresult assertions,
 * setup of a current context, the test module image (twins.c), stream gates. */
#ifndef SIMTEST_H
#define SIMTEST_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#include "runner.h"
#include "simcuda.h"

/* The per-thread-default-stream entry points (cuda.h declares them only when the
 * whole program is built for per-thread default streams). */
extern __typeof__(*(PFN_cuLaunchHostFunc_v10000_ptsz)0) cuLaunchHostFunc_ptsz;
extern __typeof__(*(PFN_cuStreamGetCtx_v9020_ptsz)0) cuStreamGetCtx_ptsz;
extern __typeof__(*(PFN_cuStreamGetId_v12000_ptsz)0) cuStreamGetId_ptsz;
extern __typeof__(*(PFN_cuMemsetD32Async_v7000_ptsz)0) cuMemsetD32Async_ptsz;
extern __typeof__(*(PFN_cuStreamSynchronize_v7000_ptsz)0) cuStreamSynchronize_ptsz;

const char *st_errname(CUresult r);
#define ASSERT_CU(call, expect)                                                     \
  do {                                                                              \
    CUresult r_ = (call), e_ = (expect);                                            \
    if (r_ != e_) FT_FAIL_("%s: %s (%d), expected %s (%d)", #call, st_errname(r_), \
                           (int)r_, st_errname(e_), (int)e_);                       \
  } while (0)
#define CK(call) ASSERT_CU(call, CUDA_SUCCESS)

/* cuInit, retain the primary context and make it current. */
CUcontext st_setup(void);

/* The test image: kernels with twins (twins.c). */
extern const simcuda_image_t st_image;
#define ST_FILL "_Z4fillPjjj"          /* (unsigned *out, unsigned v, unsigned n) */
#define ST_COPY "_Z7copybufPKhPhm"     /* (const uint8_t *src, uint8_t *dst, size_t n) */
#define ST_VECADD "_Z6vecaddPKfS0_Pfi" /* (const float *a, const float *b, float *c, int n) */
#define ST_SHARED "_Z8reversedPj"      /* (unsigned *out): dynamic shared memory per block */
#define ST_BAD "_Z3badPj"              /* (unsigned *p): translates p, writes p[0] = 1 */
#define ST_MIXED "_Z5mixedcdiPvs"      /* (char, double, int, void *out, short) */
#define ST_OOB "_Z3oobPhm"             /* (uint8_t *p, size_t at): writes p[at] (no checks) */
CUfunction st_func(CUmodule m, const char *name);
/* Launches ST_FILL over n words at p (blocks of 128 threads, legacy stream). */
void st_fill(CUfunction fill, CUdeviceptr p, unsigned v, unsigned n);

/* A host function that blocks its stream until the gate is opened. */
typedef struct { atomic_int open; atomic_int entered; } st_gate_t;
void st_gate_fn(void *gate);
void st_gate_open(st_gate_t *g);
double st_now(void);
void st_sleep_ms(int ms);

/* The simulator's own entry points (dlsym, as a program would find them). */
int st_inject(const char *spec);
int st_flip_now(uint64_t addr, unsigned bit, int stuck);
void st_clear_faults(void);
simcuda_stats_t st_stats(void);
void st_reset_stats(void);
int st_set_flip_rate(double rate, uint64_t seed);

#endif
