/* xparity.h: cross-parity block math (DESIGN.md section 2), one definition for the
 * CPU codec, the CUDA kernels and their simulator twins. Header-only, C and CUDA. */
#ifndef FT_XPARITY_H
#define FT_XPARITY_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define FT_HD __host__ __device__ __forceinline__
#else
#define FT_HD static inline
#endif

/* On a function whose result decides correctness (a verification that did or did
 * not happen, data that is or is not what was encoded): the compiler warns when a
 * caller drops it. A cast to void does not silence it; handle the result. */
#define FT_MUST_CHECK __attribute__((warn_unused_result))

/* A block is 32 little-endian 32-bit words; its code is V (xor of the words) and
 * D (xor of word j rotated left by j). Code words of 32 blocks form a "group":
 * the V array and the D array are each protected, one level up, by the same
 * code over their 32 words of the group. */
#define FT_BLOCK_BYTES 128u
#define FT_BLOCK_WORDS 32u
#define FT_GROUP_BLOCKS 32u
#define FT_GROUP_BYTES (FT_BLOCK_BYTES * FT_GROUP_BLOCKS)

#ifndef __cplusplus
_Static_assert(FT_BLOCK_BYTES == FT_BLOCK_WORDS * sizeof(uint32_t), "block = 32 words");
_Static_assert(FT_GROUP_BLOCKS == FT_BLOCK_WORDS, "a group's code words fill one block");
#endif

FT_HD uint32_t ft_rotl32(uint32_t x, unsigned r) {
  r &= 31u;
  return r ? (x << r) | (x >> (32u - r)) : x;
}

FT_HD int ft_popc32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

FT_HD unsigned ft_ctz32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return (unsigned)(__ffs((int)x) - 1);
#else
  return (unsigned)__builtin_ctz(x);
#endif
}

typedef struct {
  uint32_t v, d;
} ft_pair_t;

/* Code of `n` words (n <= 32); missing words are zero (padding). */
FT_HD ft_pair_t ft_encode_words(const uint32_t *w, unsigned n) {
  ft_pair_t c = {0u, 0u};
  for (unsigned j = 0; j < n; j++) {
    c.v ^= w[j];
    c.d ^= ft_rotl32(w[j], j);
  }
  return c;
}

/* Syndrome of one flipped bit: data bit `b` of word `j`. */
FT_HD ft_pair_t ft_bit_syndrome(unsigned j, unsigned b) {
  ft_pair_t s = {1u << b, 1u << ((j + b) & 31u)};
  return s;
}

/* Classification of one syndrome (sV, sD), DESIGN.md table. */
enum {
  FT_SYN_CLEAN = 0, /* (0,0) */
  FT_SYN_SINGLE,    /* (1,1): one data bit, located by ft_locate */
  FT_SYN_V_ONLY,    /* (1,0): looks like the stored V word was hit */
  FT_SYN_D_ONLY,    /* (0,1): looks like the stored D word was hit */
  FT_SYN_MULTI      /* anything else: uncorrectable here */
};

FT_HD int ft_classify(ft_pair_t s) {
  int pv = ft_popc32(s.v), pd = ft_popc32(s.d);
  if (pv == 0 && pd == 0) return FT_SYN_CLEAN;
  if (pv == 1 && pd == 1) return FT_SYN_SINGLE;
  if (pv == 1 && pd == 0) return FT_SYN_V_ONLY;
  if (pv == 0 && pd == 1) return FT_SYN_D_ONLY;
  return FT_SYN_MULTI;
}

/* For a FT_SYN_SINGLE syndrome: word index and bit of the flipped data bit. */
FT_HD void ft_locate(ft_pair_t s, unsigned *word, unsigned *bit) {
  unsigned b = ft_ctz32(s.v);
  *bit = b;
  *word = (ft_ctz32(s.d) + 32u - b) & 31u;
}

/* ---- Group decoding ---------------------------------------------------------
 * Input: the level-1 syndromes of the group's blocks (stored code xor recomputed
 * code, per block) and the level-2 syndromes of the group's V words and D words.
 * Output: what to repair. The decoder only acts on an explanation it can prove
 * from the level-2 code: a code word is repaired only when the level-2 syndrome
 * locates exactly that bit AND the level-1 syndrome of its block shows it; a data
 * bit only when its block's syndrome is (1,1) and the code words it was computed
 * against are trusted. Every 1-bit error over data, V, D and level-2 words is
 * repaired; no 2-bit error is ever miscorrected (tests/codec enumerate both). */
enum {
  FT_ACT_NONE = 0,
  FT_ACT_DATA_BIT,  /* flip data bit (block, word, bit) */
  FT_ACT_V_BIT,     /* flip bit `bit` of stored V[block] */
  FT_ACT_D_BIT,     /* flip bit `bit` of stored D[block] */
  FT_ACT_L2V,       /* recompute the group's level-2 code of the V array */
  FT_ACT_L2D,       /* recompute the group's level-2 code of the D array */
  FT_ACT_BAD_BLOCK, /* block's data is uncorrectable (block = index in group) */
  FT_ACT_BAD_CODE   /* the group's code words are uncorrectable: its blocks are unverified */
};

typedef struct {
  uint8_t kind;  /* FT_ACT_* */
  uint8_t block; /* block index within the group */
  uint8_t word;
  uint8_t bit;
} ft_action_t;

/* Worst case: one action per block plus two code actions. */
#define FT_GROUP_MAX_ACTIONS (FT_GROUP_BLOCKS + 4u)

/* Decode one side (V or D) of the level-2 code, given the blocks' level-1
 * syndromes `l1` and this side's level-2 syndrome. Returns 0 if the side is
 * clean, 1 if one code bit (block, bit) is proven wrong (written to *fix_block and
 * *fix_bit), 2 if one of the side's level-2 words was hit (recompute it), -1 if
 * the side's code words cannot be trusted. */
FT_HD int ft_decode_side_(const ft_pair_t *l1, unsigned nblk, ft_pair_t l2, int is_v,
                          unsigned *fix_block, unsigned *fix_bit) {
  int cls = ft_classify(l2);
  if (cls == FT_SYN_CLEAN) return 0;
  if (cls == FT_SYN_SINGLE) {
    unsigned k, b;
    ft_locate(l2, &k, &b);
    if (k >= nblk) return -1;
    /* Confirm at level 1: stored word k bit b must disagree with its data. */
    uint32_t mine = is_v ? l1[k].v : l1[k].d;
    if (!((mine >> b) & 1u)) return -1;
    *fix_block = k;
    *fix_bit = b;
    return 1;
  }
  if (cls == FT_SYN_V_ONLY || cls == FT_SYN_D_ONLY) {
    /* One of the level-2 words was hit, unless a code word of this side was hit
     * together with the other level-2 word: then some block shows a syndrome
     * in this side's half only. Refuse in that case. */
    for (unsigned k = 0; k < nblk; k++) {
      uint32_t mine = is_v ? l1[k].v : l1[k].d;
      uint32_t other = is_v ? l1[k].d : l1[k].v;
      if (mine && !other) return -1;
    }
    return 2;
  }
  return -1;
}

/* Decode a group of `nblk` (1..32) blocks. Returns the number of actions. */
FT_HD unsigned ft_decode_group(const ft_pair_t *l1_in, unsigned nblk, ft_pair_t l2v,
                               ft_pair_t l2d, ft_action_t *out) {
  ft_pair_t l1[FT_GROUP_BLOCKS];
  unsigned n = 0;
  for (unsigned k = 0; k < nblk; k++) l1[k] = l1_in[k];

  unsigned fb = 0, fbit = 0;
  int rv = ft_decode_side_(l1, nblk, l2v, 1, &fb, &fbit);
  if (rv == 1) {
    ft_action_t a = {FT_ACT_V_BIT, (uint8_t)fb, 0, (uint8_t)fbit};
    out[n++] = a;
    l1[fb].v ^= 1u << fbit;
  } else if (rv == 2) {
    ft_action_t a = {FT_ACT_L2V, 0, 0, 0};
    out[n++] = a;
  }
  int rd = ft_decode_side_(l1, nblk, l2d, 0, &fb, &fbit);
  if (rd == 1) {
    ft_action_t a = {FT_ACT_D_BIT, (uint8_t)fb, 0, (uint8_t)fbit};
    out[n++] = a;
    l1[fb].d ^= 1u << fbit;
  } else if (rd == 2) {
    ft_action_t a = {FT_ACT_L2D, 0, 0, 0};
    out[n++] = a;
  }
  if (rv < 0 || rd < 0) {
    /* Code words of this group cannot be trusted: no data repair from them. */
    n = 0;
    ft_action_t a = {FT_ACT_BAD_CODE, 0, 0, 0};
    out[n++] = a;
    for (unsigned k = 0; k < nblk; k++) {
      if (l1[k].v || l1[k].d) {
        ft_action_t b = {FT_ACT_BAD_BLOCK, (uint8_t)k, 0, 0};
        out[n++] = b;
      }
    }
    return n;
  }
  for (unsigned k = 0; k < nblk; k++) {
    int c = ft_classify(l1[k]);
    if (c == FT_SYN_CLEAN) continue;
    if (c == FT_SYN_SINGLE) {
      unsigned w, b;
      ft_locate(l1[k], &w, &b);
      ft_action_t a = {FT_ACT_DATA_BIT, (uint8_t)k, (uint8_t)w, (uint8_t)b};
      out[n++] = a;
    } else {
      ft_action_t a = {FT_ACT_BAD_BLOCK, (uint8_t)k, 0, 0};
      out[n++] = a;
    }
  }
  return n;
}

#endif
