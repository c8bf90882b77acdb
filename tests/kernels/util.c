/* util.c: helpers of the kernel tests (ktest.h). */
#include "ktest.h"
#include "proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t kt_state = 0x9e3779b97f4a7c15ull;
void kt_seed(uint64_t s) { kt_state = s ? s : 1; }
uint64_t kt_rand(void) { /* xorshift64* */
  kt_state ^= kt_state >> 12;
  kt_state ^= kt_state << 25;
  kt_state ^= kt_state >> 27;
  return kt_state * 0x2545f4914f6cdd1dull;
}

/* With KT_PTX=<file of the kernels' compute_75 PTX> the module is loaded from that
 * text: the simulator interprets gpuft's kernels instead of running their twins. */
static char *kt_ptx;
static CUresult kt_load_ptx(CUmodule *m, const void *image) {
  (void)image;
  return cuModuleLoadData(m, kt_ptx);
}

int kt_expected_twins(void) { return getenv("KT_PTX") ? 0 : 1; }

void kt_setup(kt_env_t *e) {
  memset(e, 0, sizeof *e);
  e->drv.moduleLoadData = cuModuleLoadData;
  const char *ptx = getenv("KT_PTX");
  if (ptx) {
    kt_ptx = read_file(ptx);
    if (!kt_ptx) FT_FAIL_("cannot read %s", ptx);
    e->drv.moduleLoadData = kt_load_ptx;
  }
  e->drv.moduleGetFunction = cuModuleGetFunction;
  e->drv.moduleUnload = cuModuleUnload;
  e->drv.launchKernel = cuLaunchKernel;
  CUdevice dev;
  CUcontext ctx;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(ftk_module_load(&e->mod, &e->drv));
  ASSERT_EQ(e->mod.twins, kt_expected_twins()); /* the simulator rejects the fatbin, not the PTX */
  void *p;
  CK(cuMemHostAlloc(&p, sizeof(ftk_job_t), CU_MEMHOSTALLOC_DEVICEMAP));
  e->job = p;
  CK(cuMemHostGetDevicePointer(&e->job_dev, p, 0));
  CK(cuMemAlloc(&e->djob, sizeof(ftk_job_t)));
  CK(cuMemsetD8(e->djob, 0, sizeof(ftk_job_t)));
  e->no_djob = 0;
  /* Blocking stream: ordered after the legacy-stream memsets and copies of the tests. */
  CK(cuStreamCreate(&e->stream, CU_STREAM_DEFAULT));
}

void kt_teardown(kt_env_t *e) {
  CK(cuStreamDestroy(e->stream));
  CK(cuMemFreeHost(e->job));
  CK(cuMemFree(e->djob));
  ftk_module_unload(&e->mod, &e->drv);
  ASSERT(e->mod.mod == NULL);
}

void kt_buf_reref(kt_buf_t *b) {
  ft_code_t c;
  memset(b->ref, 0, b->code_bytes);
  ft_code_bind(&c, b->ref, b->len);
  ft_encode(b->host, b->len, &c);
}

void kt_buf_make(kt_buf_t *b, size_t len, int upload_code) {
  memset(b, 0, sizeof *b);
  b->len = len;
  b->alloc = len + 16 + kt_rand() % 300;
  b->host = malloc(b->alloc);
  ASSERT(b->host);
  for (size_t i = 0; i < b->alloc; i++) b->host[i] = (uint8_t)kt_rand();
  if (len) b->host[0] |= 1; /* block 0 has a nonzero V: a first encode changes the code */
  CK(cuMemAlloc(&b->data, b->alloc));
  CK(cuMemcpyHtoD(b->data, b->host, b->alloc));
  b->code_bytes = ft_code_bytes(len);
  b->ngroups = (len + FT_GROUP_BYTES - 1) / FT_GROUP_BYTES;
  b->ref = calloc(1, b->code_bytes + 1);
  ASSERT(b->ref);
  kt_buf_reref(b);
  if (b->code_bytes) {
    CK(cuMemAlloc(&b->code, b->code_bytes));
    if (upload_code) CK(cuMemcpyHtoD(b->code, b->ref, b->code_bytes));
    else CK(cuMemsetD8(b->code, 0, b->code_bytes));
  }
}

void kt_buf_free(kt_buf_t *b) {
  CK(cuMemFree(b->data));
  if (b->code) CK(cuMemFree(b->code));
  free(b->host);
  free(b->ref);
}

void kt_flip_data(kt_buf_t *b, size_t at, unsigned bit) {
  ASSERT_LT(at, b->alloc);
  b->host[at] ^= (uint8_t)(1u << bit);
  CK(cuMemcpyHtoD(b->data + at, b->host + at, 1));
}

void kt_flip_code(kt_buf_t *b, size_t word, unsigned bit) {
  ASSERT_LE((word + 1) * 4, b->code_bytes);
  uint32_t w;
  CK(cuMemcpyDtoH(&w, b->code + word * 4, 4));
  w ^= 1u << bit;
  CK(cuMemcpyHtoD(b->code + word * 4, &w, 4));
}

void kt_check_code(const kt_buf_t *b) {
  if (!b->code_bytes) return;
  uint8_t *got = malloc(b->code_bytes);
  ASSERT(got);
  CK(cuMemcpyDtoH(got, b->code, b->code_bytes));
  ASSERT_MEM_EQ(got, b->ref, b->code_bytes);
  free(got);
}

ftk_span_t kt_span(const kt_env_t *e, const kt_buf_t *b, uint64_t g0, uint64_t g1) {
  ftk_span_t s = {.data = b->data, .len = b->len, .code = b->code, .g0 = g0, .g1 = g1,
                  .dst = 0, .job = e->job_dev, .djob = e->no_djob ? 0 : e->djob};
  return s;
}

ftk_job_t kt_run(kt_env_t *e, int which, const ftk_span_t *s, unsigned grid) {
  memset(e->job, 0xEE, sizeof *e->job); /* the launcher must zero it */
  CK(ftk_launch_grid(&e->mod, &e->drv, which, s, s->job ? e->job : NULL, e->stream, grid));
  CK(cuStreamSynchronize(e->stream));
  ftk_job_t j = *e->job;
  if (s->job) {
    ASSERT_EQ(j.done, 1u);
    ASSERT_EQ(j.blocks_done, j.blocks_total);
    ASSERT_GE(j.blocks_total, 1u);
    if (grid) ASSERT_EQ(j.blocks_total, grid);
    else ASSERT_LE(j.blocks_total, FTK_MAX_BLOCKS);
  }
  if (s->djob) {
    /* the last block leaves the accumulator zero for the slot's next launch */
    ftk_job_t acc;
    CK(cuMemcpyDtoH(&acc, s->djob, sizeof acc));
    ASSERT_EQ(acc.blocks_done, 0u);
    ASSERT_EQ(acc.changed, 0u);
    ASSERT_EQ(acc.n_bad, 0u);
  }
  return j;
}
