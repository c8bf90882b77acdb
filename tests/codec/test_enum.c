/* Exhaustive 1- and 2-bit error enumeration over data AND code bits together:
 * every single flip is repaired exactly, every double flip is detected and never
 * miscorrected (DESIGN.md section 2). */
#include "common.h"

/* The bits of a (data, code) pair, numbered: data bits first, then the V array,
 * the D array, and the four level-2 arrays. */
typedef struct {
  size_t len;
  uint8_t *data;
  tc_code_t code;
  size_t nbits;
} dom_t;

enum { R_DATA, R_V, R_D, R_L2VV, R_L2VD, R_L2DV, R_L2DD };

static void dom_init(dom_t *d, size_t len) {
  d->len = len;
  d->data = malloc(len);
  ASSERT(d->data != NULL);
  tc_code_init(&d->code, len);
  d->nbits = len * 8 + d->code.c.nblocks * 64 + d->code.c.ngroups * 128;
}

static void dom_free(dom_t *d) {
  free(d->data);
  tc_code_free(&d->code);
}

/* Region of bit `i`, and the word pointer + bit inside it for code regions. */
static int locate(dom_t *d, size_t i, uint32_t **word, unsigned *bit) {
  ft_code_t *c = &d->code.c;
  if (i < d->len * 8) return R_DATA;
  i -= d->len * 8;
  uint32_t *arr[6] = {c->v, c->d, c->l2v_v, c->l2v_d, c->l2d_v, c->l2d_d};
  size_t sizes[6] = {c->nblocks, c->nblocks, c->ngroups, c->ngroups, c->ngroups, c->ngroups};
  for (int r = 0; r < 6; r++) {
    if (i < sizes[r] * 32) {
      *word = &arr[r][i / 32];
      *bit = (unsigned)(i % 32);
      return R_V + r;
    }
    i -= sizes[r] * 32;
  }
  FT_FAIL_("bit index out of domain");
}

static void flip(dom_t *d, size_t i) {
  uint32_t *w;
  unsigned b;
  if (locate(d, i, &w, &b) == R_DATA)
    d->data[i / 8] ^= (uint8_t)(1u << (i % 8));
  else
    *w ^= 1u << b;
}

static void enum_single(size_t len) {
  dom_t d;
  dom_init(&d, len);
  uint8_t *orig = malloc(len), *origc = malloc(d.code.bytes);
  ASSERT(orig && origc);
  tc_fill(orig, len, 42 + len);
  ft_encode(orig, len, &d.code.c);
  memcpy(origc, d.code.mem, d.code.bytes);
  for (size_t i = 0; i < d.nbits; i++) {
    memcpy(d.data, orig, len);
    memcpy(d.code.mem, origc, d.code.bytes);
    flip(&d, i);
    uint64_t total = 0;
    ft_mismatch_t mm[8];
    ft_verify(d.data, len, &d.code.c, mm, 8, &total);
    ASSERT_GT(total, 0u);
    ft_event_t ev[8];
    size_t nev = 0;
    ft_repair_t rep;
    int r = ft_correct(d.data, len, &d.code.c, ev, 8, &nev, &rep);
    if (r != 0) FT_FAIL_("single flip of bit %zu not corrected", i);
    ASSERT_MEM_EQ(d.data, orig, len);
    ASSERT_MEM_EQ(d.code.mem, origc, d.code.bytes);
    ASSERT_EQ(nev, (size_t)1);
    uint32_t *w;
    unsigned b;
    int reg = locate(&d, i, &w, &b);
    switch (reg) {
      case R_DATA:
        ASSERT_EQ(ev[0].kind, FT_ACT_DATA_BIT);
        ASSERT_EQ(ev[0].offset, (uint64_t)(i / 32 * 4));
        ASSERT_EQ(ev[0].bit, (uint8_t)(i % 32));
        ASSERT_EQ(rep.data_bits, 1u);
        break;
      case R_V: ASSERT_EQ(ev[0].kind, FT_ACT_V_BIT); ASSERT_EQ(rep.code_bits, 1u); break;
      case R_D: ASSERT_EQ(ev[0].kind, FT_ACT_D_BIT); ASSERT_EQ(rep.code_bits, 1u); break;
      case R_L2VV: case R_L2VD: ASSERT_EQ(ev[0].kind, FT_ACT_L2V); break;
      default: ASSERT_EQ(ev[0].kind, FT_ACT_L2D); break;
    }
    if (reg == R_V || reg == R_D) {
      ASSERT_EQ(ev[0].bit, (uint8_t)b);
    }
    /* Afterwards everything verifies clean. */
    ASSERT_EQ(ft_verify(d.data, len, &d.code.c, mm, 8, &total), (size_t)0);
    ASSERT_EQ(total, 0u);
  }
  printf("# len %zu: %zu single flips over data and code, all repaired\n", len, d.nbits);
  free(orig);
  free(origc);
  dom_free(&d);
}

static void enum_double(size_t len) {
  dom_t d;
  dom_init(&d, len);
  uint8_t *orig = malloc(len), *origc = malloc(d.code.bytes), *mask = malloc(len);
  ASSERT(orig && origc && mask);
  tc_fill(orig, len, 7 + len);
  ft_encode(orig, len, &d.code.c);
  memcpy(origc, d.code.mem, d.code.bytes);
  uint64_t pairs = 0, corrected = 0, detected = 0;
  for (size_t i = 0; i < d.nbits; i++) {
    for (size_t j = i + 1; j < d.nbits; j++) {
      memcpy(d.data, orig, len);
      memcpy(d.code.mem, origc, d.code.bytes);
      flip(&d, i);
      flip(&d, j);
      size_t nev = 0;
      ft_repair_t rep;
      int r = ft_correct(d.data, len, &d.code.c, NULL, 0, &nev, &rep);
      pairs++;
      if (r == 0) {
        /* Claimed repaired: must be exactly the original, and it must have
         * noticed (a double flip is never "clean"). */
        if (rep.data_bits + rep.code_bits + rep.l2_refreshed == 0)
          FT_FAIL_("double flip (%zu, %zu) not detected", i, j);
        if (memcmp(d.data, orig, len) || memcmp(d.code.mem, origc, d.code.bytes))
          FT_FAIL_("double flip (%zu, %zu) miscorrected", i, j);
        corrected++;
      } else {
        /* Reported uncorrectable: data may only differ from the original in the
         * injected bits (no bit was "corrected" into a wrong value). */
        memset(mask, 0, len);
        if (i < len * 8) mask[i / 8] |= (uint8_t)(1u << (i % 8));
        if (j < len * 8) mask[j / 8] |= (uint8_t)(1u << (j % 8));
        for (size_t k = 0; k < len; k++)
          if ((d.data[k] ^ orig[k]) & ~mask[k])
            FT_FAIL_("double flip (%zu, %zu): data byte %zu changed outside the flips", i, j, k);
        detected++;
      }
    }
  }
  printf("# len %zu: %ju double flips: %ju corrected exactly, %ju reported uncorrectable, "
         "0 missed, 0 miscorrected\n",
         len, (uintmax_t)pairs, (uintmax_t)corrected, (uintmax_t)detected);
  ASSERT_EQ(pairs, (uint64_t)d.nbits * (d.nbits - 1) / 2);
  free(orig);
  free(origc);
  free(mask);
  dom_free(&d);
}

/* Two full blocks: one group; covers both flips in one block (all 523,776 pairs of
 * a block's data bits among them), across blocks, and with every code word. */
TEST_IMPL(enum_single_flips_full_blocks) {
  enum_single(256);
  return TEST_OK;
}
TEST_IMPL(enum_single_flips_padded_block) {
  enum_single(200);
  enum_single(1);
  return TEST_OK;
}
TEST_IMPL(enum_double_flips_full_blocks) {
  enum_double(256);
  return TEST_OK;
}
TEST_IMPL(enum_double_flips_padded_block) {
  enum_double(200);
  return TEST_OK;
}

/* Several groups with a partial last block: random pairs anywhere. */
TEST_IMPL(sampled_double_flips_many_groups) {
  size_t len = 5 * FT_GROUP_BYTES + 333;
  dom_t d;
  dom_init(&d, len);
  uint8_t *orig = malloc(len), *origc = malloc(d.code.bytes);
  ASSERT(orig && origc);
  tc_fill(orig, len, 99);
  ft_encode(orig, len, &d.code.c);
  memcpy(origc, d.code.mem, d.code.bytes);
  uint64_t s = 12345, corrected = 0;
  for (int t = 0; t < 200000; t++) {
    size_t i = tc_rand(&s) % d.nbits, j = tc_rand(&s) % d.nbits;
    if (i == j) continue;
    memcpy(d.data, orig, len);
    memcpy(d.code.mem, origc, d.code.bytes);
    flip(&d, i);
    flip(&d, j);
    ft_repair_t rep;
    int r = ft_correct(d.data, len, &d.code.c, NULL, 0, NULL, &rep);
    if (r == 0) {
      ASSERT(rep.data_bits + rep.code_bits + rep.l2_refreshed > 0);
      ASSERT_MEM_EQ(d.data, orig, len);
      ASSERT_MEM_EQ(d.code.mem, origc, d.code.bytes);
      corrected++;
    } else {
      for (size_t k = 0; k < len; k++) {
        uint8_t m = 0;
        if (i < len * 8 && i / 8 == k) m |= (uint8_t)(1u << (i % 8));
        if (j < len * 8 && j / 8 == k) m |= (uint8_t)(1u << (j % 8));
        ASSERT_EQ((d.data[k] ^ orig[k]) & ~m & 0xff, 0);
      }
    }
  }
  printf("# %ju of 200000 random double flips corrected (different groups), rest reported\n",
         (uintmax_t)corrected);
  ASSERT_GT(corrected, 0u);
  free(orig);
  free(origc);
  dom_free(&d);
  return TEST_OK;
}
