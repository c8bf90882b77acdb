/* Block math of xparity.h: locating every single bit, two data bits never look
 * like one, and the code buffer layout. */
#include "common.h"

TEST_IMPL(xparity_locate_all_bits) {
  uint32_t w[32];
  uint64_t s = 1;
  for (int i = 0; i < 32; i++) w[i] = (uint32_t)tc_rand(&s);
  ft_pair_t c0 = ft_encode_words(w, 32);
  for (unsigned j = 0; j < 32; j++)
    for (unsigned b = 0; b < 32; b++) {
      w[j] ^= 1u << b;
      ft_pair_t c1 = ft_encode_words(w, 32);
      w[j] ^= 1u << b;
      ft_pair_t syn = {c0.v ^ c1.v, c0.d ^ c1.d};
      ft_pair_t exp = ft_bit_syndrome(j, b);
      ASSERT_EQ(syn.v, exp.v);
      ASSERT_EQ(syn.d, exp.d);
      ASSERT_EQ(ft_classify(syn), FT_SYN_SINGLE);
      unsigned jj, bb;
      ft_locate(syn, &jj, &bb);
      ASSERT_EQ(jj, j);
      ASSERT_EQ(bb, b);
    }
  ft_pair_t z = {0, 0}, v1 = {4, 0}, d1 = {0, 8}, m = {3, 1};
  ASSERT_EQ(ft_classify(z), FT_SYN_CLEAN);
  ASSERT_EQ(ft_classify(v1), FT_SYN_V_ONLY);
  ASSERT_EQ(ft_classify(d1), FT_SYN_D_ONLY);
  ASSERT_EQ(ft_classify(m), FT_SYN_MULTI);
  return TEST_OK;
}

/* All 523,776 pairs of data bits in a block: never clean, never (1,1), never
 * looking like a code-word hit. */
TEST_IMPL(xparity_two_data_bits_never_single) {
  uint64_t n = 0;
  for (unsigned i = 0; i < 1024; i++)
    for (unsigned k = i + 1; k < 1024; k++) {
      ft_pair_t a = ft_bit_syndrome(i / 32, i % 32), b = ft_bit_syndrome(k / 32, k % 32);
      ft_pair_t s = {a.v ^ b.v, a.d ^ b.d};
      ASSERT_EQ(ft_classify(s), FT_SYN_MULTI);
      n++;
    }
  ASSERT_EQ(n, 523776u);
  return TEST_OK;
}

TEST_IMPL(code_layout) {
  size_t lens[] = {1, 127, 128, 129, 4096, 4097, 1 << 20, (1 << 20) + 5};
  for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
    size_t len = lens[t], off[6];
    size_t nb = (len + 127) / 128, ng = (nb + 31) / 32;
    ft_code_offsets(len, off);
    ASSERT_EQ(off[0], (size_t)0);
    for (int i = 0; i < 6; i++) ASSERT_EQ(off[i] % 128, (size_t)0);
    ASSERT_GE(off[1], nb * 4);
    ASSERT_GE(off[2] - off[1], nb * 4);
    for (int i = 3; i < 6; i++) ASSERT_GE(off[i] - off[i - 1], ng * 4);
    ASSERT_GE(ft_code_bytes(len), off[5] + ng * 4);
    /* Overhead: 1/16 for level 1 plus 1/256 for level 2, plus alignment. */
    ASSERT_LE(ft_code_bytes(len), len / 16 + len / 256 + 6 * 128 + 64);
    tc_code_t c;
    tc_code_init(&c, len);
    ASSERT_EQ(c.c.nblocks, nb);
    ASSERT_EQ(c.c.ngroups, ng);
    ASSERT_EQ((uint8_t *)c.c.l2d_d - (uint8_t *)c.mem, (ptrdiff_t)off[5]);
    tc_code_free(&c);
  }
  ASSERT_EQ(ft_code_bytes(0), (size_t)0);
  return TEST_OK;
}

TEST_IMPL(zero_length) {
  ft_code_t c;
  ft_code_bind(&c, NULL, 0);
  ASSERT_EQ(c.nblocks, (size_t)0);
  ft_encode(NULL, 0, &c);
  ft_copy_encode(NULL, NULL, 0, &c);
  uint64_t total = 1;
  ASSERT_EQ(ft_verify(NULL, 0, &c, NULL, 0, &total), (size_t)0);
  ASSERT_EQ(total, 0u);
  ft_repair_t rep;
  size_t nev = 5;
  ASSERT_EQ(ft_correct(NULL, 0, &c, NULL, 0, &nev, &rep), 0);
  ASSERT_EQ(nev, (size_t)0);
  ASSERT_EQ(rep.bad_blocks, 0u);
  return TEST_OK;
}
