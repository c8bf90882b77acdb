/* test_verify.c: ftk_verify and ftk_verify_copy: clean data, single flips in data,
 * V/D and level-2 words (exactly the hit group reported), many bad groups beyond
 * FTK_JOB_BAD, group ranges, the copy clipped to [g0, g1) and len. */
#include <stdlib.h>
#include <string.h>

#include "ktest.h"

TEST_IMPL(verify_clean) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(11);
  const size_t lens[] = {1, 100, 128, 129, 4095, 4096, 4097, 40000, (3u << 20) + 17};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    kt_buf_t b;
    kt_buf_make(&b, lens[i], 1);
    for (int w = FTK_VERIFY; w <= FTK_VERIFY_COPY; w++) {
      CUdeviceptr dst = 0;
      CK(cuMemAlloc(&dst, b.len));
      ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
      s.dst = w == FTK_VERIFY_COPY ? dst : 0;
      ftk_job_t j = kt_run(&e, w, &s, 0);
      ASSERT_EQ(j.n_bad, 0u);
      ASSERT_EQ(j.changed, 0u);
      j = kt_run(&e, w, &s, 3);
      ASSERT_EQ(j.n_bad, 0u);
      CK(cuMemFree(dst));
    }
    kt_check_code(&b); /* verify writes no code */
    kt_buf_free(&b);
  }
  kt_teardown(&e);
  return TEST_OK;
}

/* One flip -> exactly its group reported (then undone). */
static void expect_bad(kt_env_t *e, kt_buf_t *b, uint64_t group, const char *what, size_t pos) {
  ftk_span_t s = kt_span(e, b, 0, b->ngroups);
  ftk_job_t j = kt_run(e, FTK_VERIFY, &s, (unsigned)(kt_rand() % 3));
  if (j.n_bad != 1 || j.bad[0] != group)
    FT_FAIL_("%s flip at %zu: n_bad %u bad[0] %llu, expected group %llu", what, pos,
             (unsigned)j.n_bad, (unsigned long long)j.bad[0], (unsigned long long)group);
}

TEST_IMPL(verify_flips) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(12);
  kt_buf_t b;
  kt_buf_make(&b, 5 * FT_GROUP_BYTES + 1000, 1); /* last group: 8 blocks, the last partial */
  size_t off[6];
  ft_code_offsets(b.len, off);
  size_t nblocks = (b.len + FT_BLOCK_BYTES - 1) / FT_BLOCK_BYTES;
  /* Data bits: both ends, every block edge of the last group, and a stride. */
  for (size_t bit = 0; bit < b.len * 8; bit += (bit < 64 || bit + 64 > b.len * 8) ? 1 : 331) {
    kt_flip_data(&b, bit / 8, bit % 8);
    expect_bad(&e, &b, bit / 8 / FT_GROUP_BYTES, "data", bit);
    kt_flip_data(&b, bit / 8, bit % 8);
  }
  /* Every V and D word of every block, a varying bit. */
  for (int a = 0; a < 2; a++)
    for (size_t k = 0; k < nblocks; k++) {
      unsigned bit = (unsigned)((k * 7 + a) % 32);
      kt_flip_code(&b, off[a] / 4 + k, bit);
      expect_bad(&e, &b, k / FT_GROUP_BLOCKS, a ? "D" : "V", k);
      kt_flip_code(&b, off[a] / 4 + k, bit);
    }
  /* Every level-2 word, every bit. */
  for (int a = 2; a < 6; a++)
    for (size_t g = 0; g < b.ngroups; g++)
      for (unsigned bit = 0; bit < 32; bit += (g == 0 ? 1 : 5)) {
        kt_flip_code(&b, off[a] / 4 + g, bit);
        expect_bad(&e, &b, g, "level-2", (size_t)a * 1000 + g);
        kt_flip_code(&b, off[a] / 4 + g, bit);
      }
  /* Padding words of the code arrays and junk past len are not checked. */
  ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
  for (int a = 0; a < 2; a++) {
    kt_flip_code(&b, off[a] / 4 + nblocks, 3);
    ASSERT_EQ(kt_run(&e, FTK_VERIFY, &s, 0).n_bad, 0u);
  }
  for (size_t at = b.len; at < b.alloc; at++) kt_flip_data(&b, at, (unsigned)(at % 8));
  ASSERT_EQ(kt_run(&e, FTK_VERIFY, &s, 0).n_bad, 0u);
  /* Ranges: a flip in group 3 is seen only by spans covering it. */
  kt_flip_data(&b, 3 * FT_GROUP_BYTES + 77, 2);
  for (uint64_t g0 = 0; g0 < b.ngroups; g0++)
    for (uint64_t g1 = g0 + 1; g1 <= b.ngroups + 1; g1++) {
      s = kt_span(&e, &b, g0, g1);
      ftk_job_t j = kt_run(&e, FTK_VERIFY, &s, (unsigned)(kt_rand() % 4));
      ASSERT_EQ(j.n_bad, (g0 <= 3 && 3 < g1) ? 1u : 0u);
      if (j.n_bad) ASSERT_EQ(j.bad[0], 3u);
    }
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

static void check_bad_list(const ftk_job_t *j, const uint8_t *is_bad, uint64_t n_expect) {
  ASSERT_EQ(j->n_bad, n_expect);
  uint64_t n = n_expect < FTK_JOB_BAD ? n_expect : FTK_JOB_BAD;
  for (uint64_t i = 0; i < n; i++) {
    ASSERT(is_bad[j->bad[i]]);
    for (uint64_t k = 0; k < i; k++) ASSERT_NE(j->bad[k], j->bad[i]);
  }
}

TEST_IMPL(verify_many_bad) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(13);
  kt_buf_t b;
  kt_buf_make(&b, 40 * FT_GROUP_BYTES, 1);
  uint8_t is_bad[40] = {0};
  /* Groups 0..39 each get a flip, group 7 two (counted once), odd groups a code flip. */
  size_t off[6];
  ft_code_offsets(b.len, off);
  for (uint64_t g = 0; g < 40; g++) {
    if (g % 2) kt_flip_code(&b, off[g % 4 == 1 ? 1 : 3] / 4 + (g % 4 == 1 ? g * 32 + 5 : g), 9);
    else kt_flip_data(&b, g * FT_GROUP_BYTES + kt_rand() % FT_GROUP_BYTES, (unsigned)(kt_rand() % 8));
    is_bad[g] = 1;
  }
  kt_flip_data(&b, 7 * FT_GROUP_BYTES + 4000, 1);
  const unsigned grids[] = {0, 1, 3, 100};
  /* both job protocols (ftk.h): through the device accumulator, and directly */
  for (int gi = 0; gi < 8; gi++) {
    e.no_djob = gi >= 4;
    ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
    ftk_job_t j = kt_run(&e, FTK_VERIFY, &s, grids[gi % 4]);
    check_bad_list(&j, is_bad, 40);
    s = kt_span(&e, &b, 10, 30);
    j = kt_run(&e, FTK_VERIFY, &s, grids[gi % 4]);
    uint8_t in[40] = {0};
    memset(in + 10, 1, 20);
    check_bad_list(&j, in, 20);
    s = kt_span(&e, &b, 30, 45); /* g1 past the end */
    j = kt_run(&e, FTK_VERIFY, &s, grids[gi % 4]);
    memset(in, 0, sizeof in);
    memset(in + 30, 1, 10);
    check_bad_list(&j, in, 10);
  }
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

TEST_IMPL(verify_copy) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(14);
  kt_buf_t b;
  kt_buf_make(&b, 9 * FT_GROUP_BYTES + 777, 1);
  size_t cap = b.len + 64;
  CUdeviceptr dst;
  CK(cuMemAlloc(&dst, cap));
  uint8_t *out = malloc(cap);
  ASSERT(out);
  const uint64_t r[][2] = {{0, 10}, {2, 5}, {8, 9}, {9, 10}, {9, 12}, {0, 1}, {4, 4}, {3, 50}};
  for (int i = 0; i < 8; i++) {
    for (int flip = 0; flip < 2; flip++) {
      uint64_t fg = kt_rand() % b.ngroups; /* group with a flipped bit (flip == 1) */
      size_t fat = fg * FT_GROUP_BYTES + kt_rand() % 100;
      if (flip) kt_flip_data(&b, fat, 4);
      CK(cuMemsetD8(dst, 0x5A, cap));
      ftk_span_t s = kt_span(&e, &b, r[i][0], r[i][1]);
      s.dst = dst;
      ftk_job_t j = kt_run(&e, FTK_VERIFY_COPY, &s, (unsigned)(kt_rand() % 3));
      int in = flip && r[i][0] <= fg && fg < r[i][1];
      ASSERT_EQ(j.n_bad, in ? 1u : 0u);
      if (in) ASSERT_EQ(j.bad[0], fg);
      CK(cuMemcpyDtoH(out, dst, cap));
      size_t lo = r[i][0] * FT_GROUP_BYTES, hi = r[i][1] * FT_GROUP_BYTES;
      if (hi > b.len) hi = b.len;
      if (lo > hi) lo = hi;
      for (size_t k = 0; k < cap; k++) {
        uint8_t want = (k >= lo && k < hi) ? b.host[k] : 0x5A; /* copied as is, flips too */
        if (out[k] != want)
          FT_FAIL_("range [%llu,%llu): dst byte %zu is 0x%02x, want 0x%02x",
                   (unsigned long long)r[i][0], (unsigned long long)r[i][1], k, out[k], want);
      }
      if (flip) kt_flip_data(&b, fat, 4);
    }
  }
  free(out);
  CK(cuMemFree(dst));
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}

/* The accumulator is device memory, where bits flip: a count raised past the grid
 * before the launch still completes the job (ftk.h; what it leaves behind is not
 * zero then, and gpuft zeroes it before every launch). */
TEST_IMPL(accumulator_count_raised) {
  kt_env_t e;
  kt_setup(&e);
  kt_seed(17);
  kt_buf_t b;
  kt_buf_make(&b, 10 * FT_GROUP_BYTES + 100, 1);
  const unsigned grids[] = {1, 3, 100};
  for (int gi = 0; gi < 3; gi++) {
    ftk_job_t junk;
    memset(&junk, 0, sizeof junk);
    junk.blocks_done = 1u << 20;
    CK(cuMemcpyHtoD(e.djob, &junk, sizeof junk));
    ftk_span_t s = kt_span(&e, &b, 0, b.ngroups);
    memset(e.job, 0xEE, sizeof *e.job);
    CK(ftk_launch_grid(&e.mod, &e.drv, FTK_VERIFY, &s, e.job, e.stream, grids[gi]));
    CK(cuStreamSynchronize(e.stream));
    ASSERT_EQ(e.job->done, 1u);
    ASSERT_EQ(e.job->n_bad, 0u);
  }
  CK(cuMemsetD8(e.djob, 0, sizeof(ftk_job_t)));
  kt_buf_free(&b);
  kt_teardown(&e);
  return TEST_OK;
}
