/* layout.h: where data and code words live: blocks and groups of a length, the
 * groups covering a byte range, the six arrays of a code buffer. C and CUDA. */
#ifndef FT_LAYOUT_H
#define FT_LAYOUT_H

#include "xparity.h"

/* Blocks of `len` bytes (the last one zero-padded). */
FT_HD uint64_t ft_blocks_of(uint64_t len) { return (len + FT_BLOCK_BYTES - 1) / FT_BLOCK_BYTES; }

/* `len` rounded up to whole blocks: where what follows `len` bytes starts on a
 * 128-byte boundary (each code array; the code after the data in a checkpoint). */
FT_HD uint64_t ft_blocks_bytes(uint64_t len) { return ft_blocks_of(len) * FT_BLOCK_BYTES; }

/* First byte of the block holding byte `off`. */
FT_HD uint64_t ft_block_start_of(uint64_t off) { return off / FT_BLOCK_BYTES * FT_BLOCK_BYTES; }

/* Groups of `len` bytes. Bytes [off, end) lie in groups
 * [ft_group_of(off), ft_groups_of(end)). */
FT_HD uint64_t ft_groups_of(uint64_t len) { return (len + FT_GROUP_BYTES - 1) / FT_GROUP_BYTES; }

/* The group holding byte `off`. */
FT_HD uint64_t ft_group_of(uint64_t off) { return off / FT_GROUP_BYTES; }

/* First data byte of group g. */
FT_HD uint64_t ft_group_start(uint64_t g) { return g * FT_GROUP_BYTES; }

/* Data bytes of groups [g0, g1) (g0 < groups of len) of a buffer of `len` bytes. */
FT_HD uint64_t ft_groups_len(uint64_t len, uint64_t g0, uint64_t g1) {
  uint64_t bytes = (g1 - g0) * FT_GROUP_BYTES, left = len - ft_group_start(g0);
  return bytes < left ? bytes : left;
}

/* Data bytes of group g (< groups of len): 4096, or fewer for the last group. */
FT_HD uint64_t ft_group_len(uint64_t len, uint64_t g) { return ft_groups_len(len, g, g + 1); }

/* Blocks of group g (< groups of len) of a buffer of `len` bytes: 32, or fewer
 * for the last group. */
FT_HD unsigned ft_group_nblocks(uint64_t len, uint64_t g) {
  uint64_t left = ft_blocks_of(len) - g * FT_GROUP_BLOCKS;
  return left < FT_GROUP_BLOCKS ? (unsigned)left : FT_GROUP_BLOCKS;
}

/* Layout of the code of `len` data bytes: six word arrays (V, D, V of V, D of V,
 * V of D, D of D), each starting on a 128-byte boundary; off[] gets their byte
 * offsets, the return value the total bytes. Shared by the CPU codec and the
 * device kernels so that both read and write the same code buffer. */
FT_HD uint64_t ft_code_layout(uint64_t len, uint64_t off[6]) {
  uint64_t nb = ft_blocks_of(len), ng = ft_groups_of(len);
  uint64_t a1 = ft_blocks_bytes(nb * 4), a2 = ft_blocks_bytes(ng * 4);
  off[0] = 0;
  off[1] = a1;
  off[2] = 2 * a1;
  off[3] = 2 * a1 + a2;
  off[4] = 2 * a1 + 2 * a2;
  off[5] = 2 * a1 + 3 * a2;
  return len ? 2 * a1 + 4 * a2 : 0;
}

/* Byte offsets, in the code buffer of `len` data bytes, of group g's words in
 * each of the six arrays: its V and D words (one per block) at off[0] and off[1],
 * its four level-2 words at off[2..5]. */
FT_HD void ft_code_group_offsets(uint64_t len, uint64_t g, uint64_t off[6]) {
  ft_code_layout(len, off);
  for (int i = 0; i < 6; i++) off[i] += (i < 2 ? g * FT_GROUP_BLOCKS : g) * sizeof(uint32_t);
}

/* Where the code words of groups [g0, g1) (g0 < g1 <= groups of len) of a buffer of
 * `len` bytes lie in its code buffer: off[k] and bytes[k] in each of the six arrays
 * (V and D: a word per block; the level-2 arrays: a word per group). */
FT_HD void ft_code_groups_span(uint64_t len, uint64_t g0, uint64_t g1, uint64_t off[6], uint64_t bytes[6]) {
  ft_code_group_offsets(len, g0, off);
  uint64_t nb = ft_blocks_of(ft_groups_len(len, g0, g1));
  for (int i = 0; i < 6; i++) bytes[i] = (i < 2 ? nb : g1 - g0) * sizeof(uint32_t);
}

#endif
