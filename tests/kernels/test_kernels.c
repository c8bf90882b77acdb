/* test_kernels.c: module loading, the fatbin's header, ftk_encode against the CPU
 * codec (lengths, grids, group ranges, `changed`), empty and unaligned spans. */
#include <stdlib.h>
#include <string.h>

#include "ktest.h"

/* Lengths around block and group edges, odd sizes, several MiB. */
static const size_t kt_lengths[] = {1,    2,    3,     15,    16,    17,    127,   128,
                                    129,  255,  1000,  4095,  4096,  4097,  8191,  12345,
                                    65536, 65537, 100003, (1u << 20) + 77, (5u << 20) + 1234};
#define N_LENGTHS (sizeof kt_lengths / sizeof kt_lengths[0])

TEST_IMPL(module_load) {
  kt_env_t e;
  kt_setup(&e);
  for (int i = 0; i < FTK_NKERNELS; i++) {
    ASSERT(e.mod.fn[i] != NULL);
    for (int k = 0; k < i; k++) ASSERT(e.mod.fn[k] != e.mod.fn[i]);
  }
  ftk_span_t s = {0};
  ASSERT_EQ((int)ftk_launch(&e.mod, &e.drv, FTK_NKERNELS, &s, NULL, e.stream), (int)CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ((int)ftk_launch(&e.mod, &e.drv, -1, &s, NULL, e.stream), (int)CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(ftk_grid_for(0), 1u);
  ASSERT_EQ(ftk_grid_for(1), 1u);
  ASSERT_EQ(ftk_grid_for(FTK_GROUPS_PER_BLOCK + 1), 2u);
  ASSERT_EQ(ftk_grid_for(1ull << 40), FTK_MAX_BLOCKS);
  /* Loading twice into one context works (the shim loads once per context). */
  ftk_module_t m2;
  CK(ftk_module_load(&m2, &e.drv));
  ASSERT_EQ(m2.twins, kt_expected_twins());
  ftk_module_unload(&m2, &e.drv);
  kt_teardown(&e);
  return TEST_OK;
}

TEST_IMPL(fatbin_magic) {
  if (ftk_fatbin_size == 0) return TEST_SKIPF("built without nvcc: no fatbin");
  ASSERT_GE(ftk_fatbin_size, 16u);
  uint32_t magic;
  memcpy(&magic, ftk_fatbin, 4);
  ASSERT_EQ(magic, 0xBA55ED50u);
  ASSERT_EQ((uintptr_t)ftk_fatbin % 16, 0u);
  /* The simulator recognises it as device code it cannot run. */
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  ASSERT_EQ((int)cuModuleLoadData(&mod, ftk_fatbin), (int)CUDA_ERROR_NO_BINARY_FOR_GPU);
  return TEST_OK;
}

TEST_IMPL(encode_lengths) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(1);
  for (size_t li = 0; li < N_LENGTHS; li++) {
    kt_buf_t b;
    kt_buf_make(&b, kt_lengths[li], 0);
    ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
    ftk_job_t j = kt_run(&e, FTK_ENCODE, &s, 0);
    kt_check_code(&b);
    ASSERT_EQ(j.changed, 1u);
    ASSERT_EQ(j.n_bad, 0u);
    /* Unchanged data: same code, changed == 0. */
    j = kt_run(&e, FTK_ENCODE, &s, 0);
    ASSERT_EQ(j.changed, 0u);
    kt_check_code(&b);
    /* Junk past len is not data. */
    kt_flip_data(&b, b.len + kt_rand() % (b.alloc - b.len), (unsigned)(kt_rand() % 8));
    j = kt_run(&e, FTK_ENCODE, &s, 0);
    ASSERT_EQ(j.changed, 0u);
    kt_check_code(&b);
    /* One data bit: changed == 1 and the code follows. */
    for (int k = 0; k < 3; k++) {
      size_t at = k == 0 ? 0 : k == 1 ? b.len - 1 : kt_rand() % b.len;
      kt_flip_data(&b, at, (unsigned)(kt_rand() % 8));
      kt_buf_reref(&b);
      j = kt_run(&e, FTK_ENCODE, &s, 0);
      ASSERT_EQ(j.changed, 1u);
      kt_check_code(&b);
    }
    kt_buf_free(&b);
  }
  kt_teardown(&e);
  return TEST_OK;
}

TEST_IMPL(encode_grids_ranges) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(2);
  const unsigned grids[] = {1, 2, 3, 5, 7, 64, 600};
  kt_buf_t b;
  kt_buf_make(&b, 37 * FT_GROUP_BYTES + 1000, 0);
  for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
    CK(cuMemsetD8(b.code, 0, b.code_bytes));
    ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
    ftk_job_t j = kt_run(&e, FTK_ENCODE, &s, grids[gi]);
    ASSERT_EQ(j.changed, 1u);
    kt_check_code(&b);
  }
  /* Pieces with different grids add up to the whole; g1 may exceed the groups. */
  const uint64_t cuts[][2] = {{0, 1}, {1, 5}, {5, 6}, {6, 20}, {20, 37}, {37, 100}};
  CK(cuMemsetD8(b.code, 0, b.code_bytes));
  for (int i = 0; i < 6; i++) {
    ftk_span_t s = kt_span(&e, &b, cuts[i][0], cuts[i][1]);
    ftk_job_t j = kt_run(&e, FTK_ENCODE, &s, i == 3 ? 1 : 0);
    ASSERT_EQ(j.changed, 1u);
  }
  kt_check_code(&b);
  /* Random interior ranges re-encoding unchanged data: nothing changes. */
  for (int i = 0; i < 20; i++) {
    uint64_t g0 = kt_rand() % b.ngroups, g1 = g0 + 1 + kt_rand() % (b.ngroups - g0);
    ftk_span_t s = kt_span(&e, &b, g0, g1);
    ftk_job_t j = kt_run(&e, FTK_ENCODE, &s, (unsigned)(kt_rand() % 4));
    ASSERT_EQ(j.changed, 0u);
  }
  kt_check_code(&b);
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

/* Encoding one group writes exactly that group's code words and nothing else. */
TEST_IMPL(encode_single_group) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(3);
  kt_buf_t b;
  kt_buf_make(&b, 6 * FT_GROUP_BYTES + 333, 0);
  size_t off[6];
  ft_code_offsets(b.len, off);
  size_t nblocks = (b.len + FT_BLOCK_BYTES - 1) / FT_BLOCK_BYTES;
  uint8_t *want = malloc(b.code_bytes), *got = malloc(b.code_bytes);
  ASSERT(want && got);
  for (uint64_t g = 0; g < b.ngroups; g++) {
    CK(cuMemsetD8(b.code, 0, b.code_bytes));
    ftk_span_t s = kt_span(&e, &b, g, g + 1);
    kt_run(&e, FTK_ENCODE, &s, 0);
    memset(want, 0, b.code_bytes);
    for (size_t k = g * 32; k < (g + 1) * 32 && k < nblocks; k++)
      for (int a = 0; a < 2; a++) memcpy(want + off[a] + 4 * k, b.ref + off[a] + 4 * k, 4);
    for (int a = 2; a < 6; a++) memcpy(want + off[a] + 4 * g, b.ref + off[a] + 4 * g, 4);
    CK(cuMemcpyDtoH(got, b.code, b.code_bytes));
    ASSERT_MEM_EQ(got, want, b.code_bytes);
  }
  free(want);
  free(got);
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

/* No job: the kernels still work (the shim may not want results). */
TEST_IMPL(encode_no_job) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(4);
  kt_buf_t b;
  kt_buf_make(&b, 3 * FT_GROUP_BYTES + 5, 0);
  ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
  s.job = 0;
  kt_run(&e, FTK_ENCODE, &s, 0);
  kt_check_code(&b);
  kt_run(&e, FTK_VERIFY, &s, 2);
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

/* Spans without work still complete their job; nothing is touched. */
TEST_IMPL(empty_spans) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(5);
  kt_buf_t b;
  kt_buf_make(&b, 2 * FT_GROUP_BYTES + 1, 0);
  const uint64_t r[][2] = {{0, 0}, {1, 1}, {3, 9}, {2, 1}, {100, 200}};
  for (int i = 0; i < 5; i++) {
    ftk_span_t s = kt_span(&e, &b, r[i][0], r[i][1]);
    for (int w = 0; w < 3; w++) {
      ftk_job_t j = kt_run(&e, w, &s, 0);
      ASSERT_EQ(j.blocks_total, 1u);
      ASSERT_EQ(j.changed, 0u);
      ASSERT_EQ(j.n_bad, 0u);
      j = kt_run(&e, w, &s, 5);
      ASSERT_EQ(j.n_bad, 0u);
    }
  }
  uint8_t *got = malloc(b.code_bytes);
  CK(cuMemcpyDtoH(got, b.code, b.code_bytes));
  for (size_t i = 0; i < b.code_bytes; i++) ASSERT_EQ(got[i], 0);
  free(got);
  /* A zero-length allocation: no groups, no code, no memory touched. */
  ftk_span_t z = {.data = 0, .len = 0, .code = 0, .g0 = 0, .g1 = 1, .job = e.job_dev};
  for (int w = 0; w < 3; w++) ASSERT_EQ(kt_run(&e, w, &z, 0).n_bad, 0u);
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

/* Data and destination pointers that are not 16-byte aligned take the byte path. */
TEST_IMPL(unaligned_spans) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(6);
  const unsigned shifts[] = {1, 3, 4, 8, 12};
  for (int i = 0; i < 5; i++) {
    unsigned sh = shifts[i];
    kt_buf_t b;
    kt_buf_make(&b, 4 * FT_GROUP_BYTES + 200 + i, 0);
    b.len -= sh; /* the span starts sh bytes into the allocation */
    ft_code_t c;
    memset(b.ref, 0, b.code_bytes);
    ft_code_bind(&c, b.ref, b.len);
    ft_encode(b.host + sh, b.len, &c);
    ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
    s.data += sh;
    ftk_job_t j = kt_run(&e, FTK_ENCODE, &s, 0);
    ASSERT_EQ(j.changed, 1u);
    uint8_t *got = malloc(b.code_bytes);
    CK(cuMemcpyDtoH(got, b.code, ft_code_bytes(b.len)));
    ASSERT_MEM_EQ(got, b.ref, ft_code_bytes(b.len));
    ASSERT_EQ(kt_run(&e, FTK_VERIFY, &s, 0).n_bad, 0u);
    /* verify_copy into a destination misaligned differently. */
    CUdeviceptr dst;
    CK(cuMemAlloc(&dst, b.len + 8));
    CK(cuMemsetD8(dst, 0x5A, b.len + 8));
    s.dst = dst + 5;
    ASSERT_EQ(kt_run(&e, FTK_VERIFY_COPY, &s, 0).n_bad, 0u);
    uint8_t *out = malloc(b.len + 8);
    CK(cuMemcpyDtoH(out, dst, b.len + 8));
    ASSERT_MEM_EQ(out + 5, b.host + sh, b.len);
    for (size_t k = 0; k < 5; k++) ASSERT_EQ(out[k], 0x5A);
    for (size_t k = b.len + 5; k < b.len + 8; k++) ASSERT_EQ(out[k], 0x5A);
    /* A flipped bit is found through the byte path too. */
    size_t at = kt_rand() % b.len;
    kt_flip_data(&b, sh + at, 7);
    j = kt_run(&e, FTK_VERIFY, &s, 0);
    ASSERT_EQ(j.n_bad, 1u);
    ASSERT_EQ(j.bad[0], at / FT_GROUP_BYTES);
    CK(cuMemFree(dst));
    free(out);
    free(got);
    kt_buf_free(&b);
  }
  kt_teardown(&e);
  return TEST_OK;
}
