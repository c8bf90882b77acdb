/* test_fix.c: ftk_verify_fix (verify before use): single flips in data, V/D and
 * level-2 words repaired in place by the decoder, two flips in one block left as
 * they are without a copy and repaired from one with it, more damaged groups than
 * the job lists (changed counts them all). */
#include <stdlib.h>
#include <string.h>

#include "ktest.h"

/* Device data [0, len) == want, and the device code == ref. */
static void expect_content(const kt_buf_t *b, const uint8_t *want) {
  uint8_t *got = malloc(b->len);
  ASSERT(got);
  CK(cuMemcpyDtoH(got, b->data, b->len));
  ASSERT_MEM_EQ(got, want, b->len);
  free(got);
  kt_check_code(b);
}

/* An entry's group and repair flags, without the location. */
static uint64_t what(uint64_t e) { return FTK_BAD_GROUP(e) | (e & (FTK_BAD_REPAIRED | FTK_BAD_FROM_COPY)); }

/* The location an entry gives for data byte `at`, bit `bit` (0..7). */
static uint64_t located(size_t at, unsigned bit) {
  return FTK_BAD_AT((at % FT_GROUP_BYTES) / 4, 8 * (at % 4) + bit);
}

/* One fix run over the whole buffer: one damaged group, repaired (flags as given);
 * its entry, for the location. */
static uint64_t expect_fixed(kt_env_t *e, kt_buf_t *b, uint64_t group, uint64_t flags, CUdeviceptr copy) {
  ftk_span_t s = kt_span(e, b, 0, b->ngroups);
  s.dst = copy;
  ftk_job_t j = kt_run(e, FTK_VERIFY_FIX, &s, (unsigned)(kt_rand() % 3));
  ASSERT_EQ(j.n_bad, 1u);
  ASSERT_EQ(what(j.bad[0]), group | flags);
  ASSERT_EQ(j.changed, flags ? 1u : 0u);
  return j.bad[0];
}

TEST_IMPL(verify_fix_single) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(21);
  kt_buf_t b;
  kt_buf_make(&b, 3 * FT_GROUP_BYTES + 1000, 1); /* last group: 8 blocks, the last partial */
  uint8_t *orig = malloc(b.len);
  ASSERT(orig);
  memcpy(orig, b.host, b.len);
  size_t off[6];
  ft_code_offsets(b.len, off);
  size_t nblocks = (b.len + FT_BLOCK_BYTES - 1) / FT_BLOCK_BYTES;
  for (size_t bit = 0; bit < b.len * 8; bit += (bit < 64 || bit + 64 > b.len * 8) ? 1 : 997) {
    kt_flip_data(&b, bit / 8, bit % 8);
    b.host[bit / 8] ^= (uint8_t)(1u << (bit % 8)); /* (the mirror: as it should be) */
    uint64_t got = expect_fixed(&e, &b, bit / 8 / FT_GROUP_BYTES, FTK_BAD_REPAIRED, 0);
    ASSERT_EQ(got & ~what(got), located(bit / 8, bit % 8)); /* where it was */
    expect_content(&b, orig);
  }
  for (int a = 0; a < 2; a++)
    for (size_t k = 0; k < nblocks; k += 5) {
      kt_flip_code(&b, off[a] / 4 + k, (unsigned)((k * 7 + a) % 32));
      expect_fixed(&e, &b, k / FT_GROUP_BLOCKS, FTK_BAD_REPAIRED, 0);
      expect_content(&b, orig);
    }
  for (int a = 2; a < 6; a++)
    for (size_t g = 0; g < b.ngroups; g++) {
      kt_flip_code(&b, off[a] / 4 + g, (unsigned)(g * 11 + (size_t)a) % 32);
      expect_fixed(&e, &b, g, FTK_BAD_REPAIRED, 0);
      expect_content(&b, orig);
    }
  /* clean: nothing reported, nothing written */
  ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
  ftk_job_t j = kt_run(&e, FTK_VERIFY_FIX, &s, 0);
  ASSERT_EQ(j.n_bad, 0u);
  ASSERT_EQ(j.changed, 0u);
  expect_content(&b, orig);
  free(orig);
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

TEST_IMPL(verify_fix_double) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(22);
  kt_buf_t b;
  kt_buf_make(&b, 4 * FT_GROUP_BYTES + 300, 1);
  uint8_t *orig = malloc(b.len);
  ASSERT(orig);
  memcpy(orig, b.host, b.len);
  /* the known-good copy, as gpuft's checkpoint holds it: data padded to whole blocks,
   * then the code; pinned and mapped */
  size_t cb = ((b.len + FT_BLOCK_BYTES - 1) / FT_BLOCK_BYTES) * FT_BLOCK_BYTES;
  void *hp = NULL;
  CK(cuMemHostAlloc(&hp, cb + b.code_bytes, CU_MEMHOSTALLOC_DEVICEMAP));
  memset(hp, 0, cb);
  memcpy(hp, orig, b.len);
  memcpy((uint8_t *)hp + cb, b.ref, b.code_bytes);
  CUdeviceptr copy;
  CK(cuMemHostGetDevicePointer(&copy, hp, 0));
  for (int i = 0; i < 12; i++) {
    uint64_t g = kt_rand() % b.ngroups;
    size_t len_g = g + 1 == b.ngroups ? b.len - g * FT_GROUP_BYTES : FT_GROUP_BYTES;
    size_t blk = kt_rand() % ((len_g + FT_BLOCK_BYTES - 1) / FT_BLOCK_BYTES);
    size_t in_blk = len_g - blk * FT_BLOCK_BYTES < FT_BLOCK_BYTES ? len_g - blk * FT_BLOCK_BYTES
                                                                 : FT_BLOCK_BYTES;
    /* two bits of one block (beyond the code), at distinct bytes */
    size_t at0 = g * FT_GROUP_BYTES + blk * FT_BLOCK_BYTES, x = kt_rand() % in_blk;
    size_t y = (x + 1 + kt_rand() % (in_blk - 1 ? in_blk - 1 : 1)) % in_blk;
    if (in_blk == 1) continue;
    kt_flip_data(&b, at0 + x, 1);
    kt_flip_data(&b, at0 + y, 6);
    /* without a copy: reported, not repaired, not written */
    ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
    ftk_job_t j = kt_run(&e, FTK_VERIFY_FIX, &s, (unsigned)(kt_rand() % 3));
    ASSERT_EQ(j.n_bad, 1u);
    ASSERT_EQ(j.bad[0], g);
    ASSERT_EQ(j.changed, 0u);
    expect_content(&b, b.host);
    /* with it: the group's data and code come from it (the decoder proves nothing) */
    b.host[at0 + x] ^= 1u << 1;
    b.host[at0 + y] ^= 1u << 6;
    uint64_t got = expect_fixed(&e, &b, g, FTK_BAD_REPAIRED | FTK_BAD_FROM_COPY, copy);
    ASSERT_EQ(got & ~what(got), located(at0 + (x < y ? x : y), x < y ? 1u : 6u)); /* the first */
    expect_content(&b, orig);
  }
  /* a level-2 word and a code word of one group: repaired from the copy too, no data
   * bit to tell */
  size_t off[6];
  ft_code_offsets(b.len, off);
  kt_flip_code(&b, off[2] / 4 + 1, 4);
  kt_flip_code(&b, off[0] / 4 + 33, 9);
  ASSERT_EQ(expect_fixed(&e, &b, 1, FTK_BAD_REPAIRED | FTK_BAD_FROM_COPY, copy),
            1u | FTK_BAD_REPAIRED | FTK_BAD_FROM_COPY);
  expect_content(&b, orig);
  CK(cuMemFreeHost(hp));
  free(orig);
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

TEST_IMPL(verify_fix_many) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(23);
  kt_buf_t b;
  kt_buf_make(&b, 40 * FT_GROUP_BYTES, 1);
  uint8_t *orig = malloc(b.len);
  ASSERT(orig);
  memcpy(orig, b.host, b.len);
  for (int pass = 0; pass < 2; pass++) {
    e.no_djob = pass; /* both job protocols */
    for (uint64_t g = 0; g < 40; g++)
      kt_flip_data(&b, g * FT_GROUP_BYTES + kt_rand() % FT_GROUP_BYTES, (unsigned)(kt_rand() % 8));
    ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
    ftk_job_t j = kt_run(&e, FTK_VERIFY_FIX, &s, pass ? 1u : 0u);
    ASSERT_EQ(j.n_bad, 40u);
    ASSERT_EQ(j.changed, 40u);
    for (int i = 0; i < FTK_JOB_BAD; i++) {
      ASSERT(j.bad[i] & FTK_BAD_REPAIRED);
      ASSERT_LT(FTK_BAD_GROUP(j.bad[i]), 40u);
    }
    memcpy(b.host, orig, b.len);
    expect_content(&b, orig);
  }
  free(orig);
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

/* ftk_verify_copy_fix: the copy (a restore point) and the data both end repaired. */
TEST_IMPL(verify_copy_fix) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(24);
  kt_buf_t b;
  kt_buf_make(&b, 6 * FT_GROUP_BYTES + 555, 1);
  uint8_t *orig = malloc(b.len), *out = malloc(b.len);
  ASSERT(orig && out);
  memcpy(orig, b.host, b.len);
  CUdeviceptr dst;
  CK(cuMemAlloc(&dst, b.len));
  for (int i = 0; i < 24; i++) {
    size_t at = kt_rand() % b.len;
    unsigned bit = (unsigned)(kt_rand() % 8);
    kt_flip_data(&b, at, bit);
    b.host[at] ^= (uint8_t)(1u << bit);
    CK(cuMemsetD8(dst, 0x5A, b.len));
    ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
    s.dst = dst;
    ftk_job_t j = kt_run(&e, FTK_VERIFY_COPY_FIX, &s, (unsigned)(kt_rand() % 3));
    ASSERT_EQ(j.n_bad, 1u);
    ASSERT_EQ(j.bad[0], (at / FT_GROUP_BYTES) | FTK_BAD_REPAIRED | located(at, bit));
    ASSERT_EQ(j.changed, 1u);
    expect_content(&b, orig);
    CK(cuMemcpyDtoH(out, dst, b.len));
    ASSERT_MEM_EQ(out, orig, b.len);
  }
  CK(cuMemFree(dst));
  free(orig);
  free(out);
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}
