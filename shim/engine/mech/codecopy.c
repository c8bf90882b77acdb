/* codecopy.c: code words moved between the layouts of two lengths (codec/layout.h:
 * six arrays indexed by block and group from 0), so that a run of mapped memory that
 * grows, shrinks or is formed anew keeps its codes without a pass over its data. */
#include <string.h>

#include "mech.h"

/* The groups have the same bytes on both sides (so the same blocks: only a last
 * group may be partial, and a partial group's code covers fewer blocks). */
static int same_groups(uint64_t from_len, uint64_t g0, uint64_t g1, uint64_t to_len, uint64_t tg0) {
  uint64_t tg1 = tg0 + (g1 - g0);
  return g1 <= ft_groups_of(from_len) && tg1 <= ft_groups_of(to_len) &&
         ft_groups_len(from_len, g0, g1) == ft_groups_len(to_len, tg0, tg1);
}

int ft_code_copy(ft_dev_t *d, CUdeviceptr from, uint64_t from_len, uint64_t g0, uint64_t g1,
                 CUdeviceptr to, uint64_t to_len, uint64_t tg0, CUstream s) {
  if (g1 <= g0) return 0;
  if (!same_groups(from_len, g0, g1, to_len, tg0)) return -1;
  uint64_t so[6], bytes[6], dofs[6];
  ft_code_groups_span(from_len, g0, g1, so, bytes);
  ft_code_group_offsets(to_len, tg0, dofs);
  int in = d ? ft_dev_enter(d) : 0;
  CUresult r = CUDA_SUCCESS;
  for (int i = 0; i < 6 && r == CUDA_SUCCESS; i++)
    r = ft_real.cuMemcpyDtoDAsync_v2(to + dofs[i], from + so[i], bytes[i], s);
  ft_dev_leave(in);
  return r == CUDA_SUCCESS ? 0 : -1;
}

int ft_code_copy_host(const uint8_t *from, uint64_t from_len, uint64_t g0, uint64_t g1, uint8_t *to,
                      uint64_t to_len, uint64_t tg0) {
  if (g1 <= g0) return 0;
  if (!same_groups(from_len, g0, g1, to_len, tg0)) return -1;
  uint64_t so[6], bytes[6], dofs[6];
  ft_code_groups_span(from_len, g0, g1, so, bytes);
  ft_code_group_offsets(to_len, tg0, dofs);
  for (int i = 0; i < 6; i++) memcpy(to + dofs[i], from + so[i], bytes[i]);
  return 0;
}

int ft_ckpt_copy_host(const uint8_t *from, uint64_t from_len, uint8_t *to, uint64_t to_len) {
  uint64_t n = from_len < to_len ? from_len : to_len;
  memcpy(to, from, n);
  return ft_code_copy_host(from + ft_blocks_bytes(from_len), from_len, 0, ft_groups_of(n),
                           to + ft_blocks_bytes(to_len), to_len, 0);
}
