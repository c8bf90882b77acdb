/* SIMD variants and thread counts give the scalar reference's results bit for bit;
 * correct() repairs exactly the flipped bits; verify's bounded list; GPUFT_CODEC. */
#include "common.h"

#include <sys/wait.h>
#include <unistd.h>

static const char *const simd_variants[] = {"avx2", "avx512"};

/* Encode and copy+encode src[0..len) with variant `name`; return the code buffer
 * (caller frees) and check the copy. */
static void *run_variant(const char *name, const uint8_t *src, size_t len, size_t dst_off,
                         int copy) {
  ASSERT_EQ(ft_codec_set_variant(name), 0);
  ASSERT_STR_EQ(ft_codec_variant(), name);
  tc_code_t c;
  tc_code_init(&c, len);
  memset(c.mem, 0xA5, c.bytes);
  ft_code_bind(&c.c, c.mem, len);
  if (!copy) {
    ft_encode(src, len, &c.c);
  } else {
    uint8_t *out = malloc(len + dst_off + 128 + 64);
    ASSERT(out != NULL);
    /* 64-aligned base, so that dst_off alone decides the alignment */
    uint8_t *dst2 = (uint8_t *)(((uintptr_t)out + 63) & ~(uintptr_t)63) + dst_off;
    memset(out, 0x5A, len + dst_off + 128 + 64);
    ft_copy_encode(dst2, src, len, &c.c);
    ASSERT_MEM_EQ(dst2, src, len);
    for (size_t k = 0; k < 64; k++) ASSERT_EQ(dst2[len + k], 0x5A); /* no overrun */
    free(out);
  }
  return c.mem;
}

static int compare_variants_at(size_t len, size_t src_off, size_t dst_off) {
  uint8_t *raw = malloc(len + src_off + 64);
  ASSERT(raw != NULL);
  uint8_t *src = (uint8_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  src = raw + ((size_t)(src - raw) + src_off) % 64; /* src_off bytes past alignment */
  tc_fill(src, len, len * 31 + src_off);
  size_t bytes = ft_code_bytes(len);
  int compared = 0;
  for (int copy = 0; copy < 2; copy++) {
    void *ref = run_variant("scalar", src, len, dst_off, copy);
    for (size_t v = 0; v < sizeof simd_variants / sizeof *simd_variants; v++) {
      if (!ft_codec_variant_supported(simd_variants[v])) continue;
      void *got = run_variant(simd_variants[v], src, len, dst_off, copy);
      if (memcmp(ref, got, bytes) != 0)
        FT_FAIL_("%s %s differs from scalar: len %zu src_off %zu dst_off %zu", simd_variants[v],
                 copy ? "copy_encode" : "encode", len, src_off, dst_off);
      free(got);
      compared++;
    }
    free(ref);
  }
  free(raw);
  return compared;
}

TEST_IMPL(variants_equal_scalar_odd_sizes) {
  if (!ft_codec_variant_supported("avx2") && !ft_codec_variant_supported("avx512"))
    return TEST_SKIPF("this CPU has neither AVX2 nor AVX-512: only the scalar variant exists");
  ft_codec_set_threads(1);
  size_t fixed[] = {1, 3, 127, 128, 129, 1000, 1023, 1024, 1025, 4095, 4096, 4097, 8191,
                    65536 + 7, 300000};
  uint64_t s = 77;
  int n = 0;
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    n += compare_variants_at(fixed[i], i % 64, (i * 5) % 64);
  for (int t = 0; t < 150; t++) {
    size_t len = 1 + tc_rand(&s) % 40000;
    n += compare_variants_at(len, tc_rand(&s) % 64, tc_rand(&s) % 64);
  }
  printf("# %d SIMD-vs-scalar comparisons\n", n);
  ASSERT_GT(n, 0);
  return TEST_OK;
}

/* Buffers large enough for the non-temporal-store path, aligned and not. */
TEST_IMPL(variants_equal_scalar_large_nt) {
  if (!ft_codec_variant_supported("avx2") && !ft_codec_variant_supported("avx512"))
    return TEST_SKIPF("this CPU has neither AVX2 nor AVX-512: only the scalar variant exists");
  ft_codec_set_threads(1);
  size_t len = (8u << 20) + 1000;
  int n = compare_variants_at(len, 0, 0);
  n += compare_variants_at(len, 4, 8);
  n += compare_variants_at(len, 0, 32);
  ASSERT_GT(n, 0);
  return TEST_OK;
}

TEST_IMPL(threads_equal_single_thread) {
  ft_codec_set_threads(4);
  if (ft_codec_threads() < 2) return TEST_SKIPF("codec built without OpenMP: single-threaded");
  size_t len = (24u << 20) + 77;
  uint8_t *src = malloc(len), *dst = malloc(len);
  ASSERT(src && dst);
  tc_fill(src, len, 5);
  tc_code_t a, b;
  tc_code_init(&a, len);
  tc_code_init(&b, len);
  for (int copy = 0; copy < 2; copy++) {
    ft_codec_set_threads(1);
    if (copy) ft_copy_encode(dst, src, len, &a.c); else ft_encode(src, len, &a.c);
    for (int th = 2; th <= 4; th += 2) {
      ft_codec_set_threads(th);
      memset(b.mem, 0, b.bytes);
      memset(dst, 0, len);
      if (copy) ft_copy_encode(dst, src, len, &b.c); else ft_encode(src, len, &b.c);
      ASSERT_MEM_EQ(a.mem, b.mem, a.bytes);
      if (copy) ASSERT_MEM_EQ(dst, src, len);
    }
  }
  /* verify and correct find the same things whatever the thread count */
  uint64_t s = 3;
  for (int k = 0; k < 40; k++) {
    size_t bit = tc_rand(&s) % (len * 8);
    src[bit / 8] ^= (uint8_t)(1u << (bit % 8));
  }
  ft_mismatch_t m1[64], m2[64];
  uint64_t t1, t2;
  ft_codec_set_threads(1);
  size_t n1 = ft_verify(src, len, &a.c, m1, 64, &t1);
  ft_codec_set_threads(4);
  size_t n2 = ft_verify(src, len, &a.c, m2, 64, &t2);
  ASSERT_EQ(n1, n2);
  ASSERT_EQ(t1, t2);
  ASSERT_GT(t1, 0u);
  for (size_t k = 0; k < n1; k++) {
    ASSERT_EQ(m1[k].index, m2[k].index);
    ASSERT_EQ(m1[k].level, m2[k].level);
    ASSERT_EQ(m1[k].sv, m2[k].sv);
    ASSERT_EQ(m1[k].sd, m2[k].sd);
  }
  free(src);
  free(dst);
  tc_code_free(&a);
  tc_code_free(&b);
  return TEST_OK;
}

/* One flip per chosen group, in data or in any code array; every variant. */
TEST_IMPL(correct_repairs_exact_bits) {
  const char *variants[] = {"scalar", "avx2", "avx512"};
  size_t len = (4u << 20) + 555;
  uint8_t *orig = malloc(len), *data = malloc(len);
  ASSERT(orig && data);
  tc_fill(orig, len, 11);
  tc_code_t c;
  tc_code_init(&c, len);
  void *origc = malloc(c.bytes);
  ASSERT(origc != NULL);
  for (size_t vi = 0; vi < 3; vi++) {
    if (ft_codec_set_variant(variants[vi]) != 0) continue;
    for (uint64_t seed = 1; seed <= 6; seed++) {
      ft_encode(orig, len, &c.c);
      memcpy(origc, c.mem, c.bytes);
      memcpy(data, orig, len);
      uint64_t s = seed * 1000 + vi;
      size_t injected = 0, want_data = 0, want_code = 0;
      for (size_t g = seed % 5; g < c.c.ngroups; g += 5 + seed) {
        size_t b0 = g * 32, nb = c.c.nblocks - b0 < 32 ? c.c.nblocks - b0 : 32;
        size_t bytes = len - b0 * 128 < 4096 ? len - b0 * 128 : 4096;
        unsigned where = (unsigned)(tc_rand(&s) % 4);
        unsigned bit = (unsigned)(tc_rand(&s) % 32);
        size_t blk = b0 + tc_rand(&s) % nb;
        if (where == 0 || where == 3) { /* data (more likely: the bulk of memory) */
          size_t byte = b0 * 128 + tc_rand(&s) % bytes;
          data[byte] ^= (uint8_t)(1u << (bit % 8));
          want_data++;
        } else if (where == 1) {
          c.c.v[blk] ^= 1u << bit;
          want_code++;
        } else {
          c.c.d[blk] ^= 1u << bit;
          want_code++;
        }
        injected++;
      }
      ft_event_t ev[4096];
      size_t nev = 0;
      ft_repair_t rep;
      ASSERT_EQ(ft_correct(data, len, &c.c, ev, 4096, &nev, &rep), 0);
      ASSERT_EQ(nev, injected);
      ASSERT_EQ(rep.data_bits, (uint64_t)want_data);
      ASSERT_EQ(rep.code_bits, (uint64_t)want_code);
      ASSERT_MEM_EQ(data, orig, len);
      ASSERT_MEM_EQ(c.mem, origc, c.bytes);
    }
  }
  free(orig);
  free(data);
  free(origc);
  tc_code_free(&c);
  return TEST_OK;
}

TEST_IMPL(verify_bounded_list_and_total) {
  size_t len = (1u << 20) + 100;
  uint8_t *data = malloc(len);
  ASSERT(data != NULL);
  tc_fill(data, len, 8);
  tc_code_t c;
  tc_code_init(&c, len);
  ft_encode(data, len, &c.c);
  /* 50 single data flips in distinct blocks, spread out */
  size_t blocks[50];
  for (size_t k = 0; k < 50; k++) {
    blocks[k] = k * (c.c.nblocks / 50) + (k % 7);
    unsigned word = (unsigned)(k % 32), bit = (unsigned)((k * 13) % 32);
    size_t byte = blocks[k] * 128 + word * 4 + bit / 8;
    if (byte >= len) continue;
    data[byte] ^= (uint8_t)(1u << (bit % 8));
  }
  ft_mismatch_t m[10];
  uint64_t total = 0;
  ASSERT_EQ(ft_verify(data, len, &c.c, m, 10, &total), (size_t)10);
  ASSERT_EQ(total, 50u);
  for (size_t k = 0; k < 10; k++) {
    ASSERT_EQ(m[k].level, (uint32_t)FT_LVL_DATA);
    ASSERT_EQ(m[k].index, (uint64_t)blocks[k]);
    ft_pair_t e = ft_bit_syndrome((unsigned)(k % 32), (unsigned)((k * 13) % 32));
    ASSERT_EQ(m[k].sv, e.v);
    ASSERT_EQ(m[k].sd, e.d);
  }
  /* A level-2 word hit shows as a level-2 mismatch of its group. */
  c.c.l2d_v[3] ^= 1u << 9;
  ft_mismatch_t all[64];
  size_t n = ft_verify(data, len, &c.c, all, 64, &total);
  ASSERT_EQ(total, 51u);
  ASSERT_EQ(n, (size_t)51);
  int seen = 0;
  for (size_t k = 0; k < n; k++)
    if (all[k].level == FT_LVL_L2D) {
      ASSERT_EQ(all[k].index, 3u);
      ASSERT_EQ(all[k].sv, 1u << 9);
      ASSERT_EQ(all[k].sd, 0u);
      seen++;
    }
  ASSERT_EQ(seen, 1);
  free(data);
  tc_code_free(&c);
  return TEST_OK;
}

TEST_IMPL(variant_env_forcing) {
  const char *names[] = {"scalar", "avx2", "avx512"};
  for (int i = 0; i < 3; i++) {
    if (!ft_codec_variant_supported(names[i])) continue;
    /* each check in a fresh process: the variant is chosen once */
    fflush(stdout);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
      setenv("GPUFT_CODEC", names[i], 1);
      _exit(strcmp(ft_codec_variant(), names[i]) == 0 ? 0 : 1);
    }
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) FT_FAIL_("GPUFT_CODEC=%s not honoured", names[i]);
  }
  return TEST_OK;
}

/* An invalid GPUFT_CODEC leaves the choice to the start-up measurement (pick.c): the
 * variant whose encode measured fastest, among every supported one, and it stays. */
TEST_IMPL(variant_env_invalid_keeps_default) {
  setenv("GPUFT_CODEC", "no-such-variant", 1);
  const char *chosen = ft_codec_variant(), *why = ft_codec_variant_why();
  printf("chosen %s (%s)\n", chosen, why);
  ASSERT(strncmp(why, "measured encode:", 16) == 0);
  const char *names[] = {"scalar", "avx2", "avx512"};
  double best = -1, got[3] = {-1, -1, -1};
  int nmeasured = 0;
  for (int i = 0; i < 3; i++) {
    char pat[32];
    snprintf(pat, sizeof pat, " %s ", names[i]);
    const char *p = strstr(why, pat);
    ASSERT_EQ(p != NULL, ft_codec_variant_supported(names[i]) != 0);
    if (!p) continue;
    got[i] = strtod(p + strlen(pat), NULL);
    ASSERT(got[i] > 0);
    nmeasured++;
    if (got[i] > best) best = got[i];
  }
  ASSERT_GE(nmeasured, 1);
  for (int i = 0; i < 3; i++)
    if (!strcmp(chosen, names[i])) ASSERT(got[i] == best);
  ASSERT_STR_EQ(ft_codec_variant(), chosen); /* cached: no second measurement */
  ASSERT_STR_EQ(ft_codec_variant_why(), why);
  return TEST_OK;
}
