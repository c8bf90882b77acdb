/* test_memtest_ptx.c: gpuft's memory-test kernels (kernels/memtest.cu) compiled to
 * compute_75 PTX and run by the simulator's interpreter, not their C twins: every
 * pattern filled over an odd-sized region by a grid smaller than it (grid-stride),
 * read back word by word against the contract's expected words, checked clean,
 * then with words changed behind the kernels' back (each must be found, with its
 * index, value and expected value), and the moving-inversions complement. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtest.h"
#include "proc.h"
#include "runner.h"

#define CK(call)                                                          \
  do {                                                                    \
    CUresult r_ = (call);                                                 \
    if (r_ != CUDA_SUCCESS) FT_FAIL_("%s: CUresult %d", #call, (int)r_); \
  } while (0)

#define N_WORDS 16411u /* not a multiple of the grid's threads */
#define GRID 7u

typedef struct {
  CUcontext ctx;
  CUmodule mod;
  CUfunction fill, check;
  CUdeviceptr buf, res;
} mt_env_t;

static void setup(mt_env_t *e) {
  const char *path = getenv("MT_PTX");
  if (!path) FT_FAIL_("MT_PTX (the kernels' compute_75 PTX) is not set");
  char *ptx = read_file(path);
  if (!ptx) FT_FAIL_("cannot read %s", path);
  CUdevice dev;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuCtxCreate(&e->ctx, NULL, 0, dev));
  CK(cuModuleLoadData(&e->mod, ptx));
  free(ptx);
  CK(cuModuleGetFunction(&e->fill, e->mod, FTM_NAME_FILL));
  CK(cuModuleGetFunction(&e->check, e->mod, FTM_NAME_CHECK));
  CK(cuMemAlloc(&e->buf, N_WORDS * 4));
  CK(cuMemAlloc(&e->res, sizeof(ftm_res_t)));
}

static void teardown(mt_env_t *e) {
  CK(cuMemFree(e->buf));
  CK(cuMemFree(e->res));
  CK(cuModuleUnload(e->mod));
  CK(cuCtxDestroy(e->ctx));
}

static void fill(mt_env_t *e, ftm_pat_t p) {
  uint64_t n = N_WORDS;
  void *args[] = {&e->buf, &n, &p};
  CK(cuLaunchKernel(e->fill, GRID, 1, 1, FTM_THREADS, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
}

static ftm_res_t check(mt_env_t *e, ftm_pat_t p) {
  ftm_res_t r;
  uint64_t n = N_WORDS;
  CK(cuMemsetD8(e->res, 0, sizeof r));
  void *args[] = {&e->buf, &n, &p, &e->res};
  CK(cuLaunchKernel(e->check, GRID, 1, 1, FTM_THREADS, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  CK(cuMemcpyDtoH(&r, e->res, sizeof r));
  return r;
}

TEST_IMPL(memtest_patterns_from_ptx) {
  mt_env_t e;
  setup(&e);
  static const ftm_pat_t pats[] = {
      {FTM_CONST, 0xa5a5a5a5u, 0, 0}, {FTM_WALK8, 3, 0, 0}, {FTM_WALK8, 5, 1, 0},
      {FTM_WALK32, 7, 0, 0},          {FTM_WALK32, 30, 1, 0}, {FTM_RAND, 12345, 0, 0},
      {FTM_ADDR, 0x0f0f0f0fu, 0, 0},  {FTM_MOD20, 0x33cc33ccu, 7, 0}, {FTM_LCG, 128, 64, 0}, /* (checked over whole periods only: a % b == 0) */
  };
  uint32_t *h = malloc(N_WORDS * 4);
  ASSERT(h);
  for (size_t k = 0; k < sizeof pats / sizeof *pats; k++) {
    ftm_pat_t p = pats[k];
    fill(&e, p);
    CK(cuMemcpyDtoH(h, e.buf, N_WORDS * 4));
    for (uint64_t i = 0; i < N_WORDS; i++)
      if (h[i] != ftm_expect(&p, e.buf, i))
        FT_FAIL_("mode %u: word %ju = %#x, the contract says %#x", p.mode, (uintmax_t)i, h[i],
                 ftm_expect(&p, e.buf, i));
    ftm_res_t r = check(&e, p);
    if (r.n_err)
      FT_FAIL_("mode %u: a clean check found %llu bad words (first: index %llu, got %#x, want %#x)", p.mode,
               r.n_err, r.rec[0].index, r.rec[0].got, r.rec[0].want);
    /* three words changed behind the kernels' back: found where they are (MOD20
     * checks only its own words: the changes land on them) */
    uint64_t at[3] = {5, 4099, N_WORDS - 1};
    if (p.mode == FTM_MOD20)
      for (int j = 0; j < 3; j++) at[j] = at[j] / 20 * 20 + p.b < N_WORDS ? at[j] / 20 * 20 + p.b : p.b;
    for (int j = 0; j < 3; j++) {
      uint32_t bad = ftm_want(&p, e.buf, at[j]) ^ (1u << (j * 9));
      CK(cuMemcpyHtoD(e.buf + at[j] * 4, &bad, 4));
    }
    r = check(&e, p);
    ASSERT_EQ(r.n_err, 3u);
    ASSERT_EQ(r.n_rec, 3u);
    for (int j = 0; j < 3; j++) {
      int found = 0;
      for (int s = 0; s < 3; s++)
        if (r.rec[s].index == at[j]) {
          found = 1;
          ASSERT_EQ(r.rec[s].want, ftm_want(&p, e.buf, at[j]));
          ASSERT_EQ(r.rec[s].got, ftm_want(&p, e.buf, at[j]) ^ (1u << (j * 9)));
        }
      if (!found) FT_FAIL_("mode %u: the changed word %ju was not reported", p.mode, (uintmax_t)at[j]);
    }
  }
  /* moving inversions: a check with FTM_F_INVERT leaves every checked word complemented */
  ftm_pat_t p = {FTM_CONST, 0x12345678u, 0, FTM_F_INVERT};
  fill(&e, p);
  ftm_res_t r = check(&e, p);
  ASSERT_EQ(r.n_err, 0u);
  CK(cuMemcpyDtoH(h, e.buf, N_WORDS * 4));
  for (uint64_t i = 0; i < N_WORDS; i++) ASSERT_EQ(h[i], ~0x12345678u);
  free(h);
  teardown(&e);
  return TEST_OK;
}
