/* ir.c: the IR's name tables, type facts, lookups and release (ptx_ir.h). */
#include "ptx_ir.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"

static const char *const opcode_names[FT_PTX_OP_COUNT] = {
  [FT_PTX_OP_INVALID] = "?",
#define FT_PTX_X_NAME(e, s) [FT_PTX_OP_##e] = s,
  FT_PTX_OPCODES(FT_PTX_X_NAME)
#undef FT_PTX_X_NAME
};

static const char *const type_names[FT_PTX_T_COUNT] = {
  "", "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
  "s8", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
};
static const unsigned char type_sizes[FT_PTX_T_COUNT] = {
  0, 1, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 2, 4, 4, 8,
};
static const char *const sreg_names[FT_PTX_SR_COUNT] = {
  "", "tid", "ntid", "ctaid", "nctaid", "laneid", "warpid", "nwarpid", "smid", "nsmid",
  "gridid", "lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt",
  "clock", "clock_hi", "clock64", "globaltimer", "globaltimer_lo", "globaltimer_hi",
  "dynamic_smem_size", "total_smem_size", "warpsz", "clusterid", "nclusterid",
  "cluster_ctaid", "cluster_nctaid", "cluster_ctarank", "cluster_nctarank",
  "is_explicit_cluster", "envreg", "pm",
};

const char *ft_ptx_opcode_name(unsigned op) {
  return op < FT_PTX_OP_COUNT ? opcode_names[op] : "?";
}
const char *ft_ptx_type_name(unsigned type) {
  return type < FT_PTX_T_COUNT ? type_names[type] : "?";
}
unsigned ft_ptx_type_size(unsigned type) {
  return type < FT_PTX_T_COUNT ? type_sizes[type] : 0;
}
const char *ft_ptx_sreg_name(unsigned sreg) {
  return sreg < FT_PTX_SR_COUNT ? sreg_names[sreg] : "?";
}
int ft_ptx_type_is_float(unsigned t) {
  return t == FT_PTX_T_F16 || t == FT_PTX_T_F16X2 || t == FT_PTX_T_BF16 ||
         t == FT_PTX_T_BF16X2 || t == FT_PTX_T_F32 || t == FT_PTX_T_F64;
}

const ft_ptx_function_t *ft_ptx_find_function(const ft_ptx_module_t *m, const char *name) {
  if (!m || !name) return NULL;
  for (size_t i = 0; i < m->nfuncs; i++)
    if (strcmp(m->funcs[i].name, name) == 0) return &m->funcs[i];
  return NULL;
}

void ft_ptx_module_free(ft_ptx_module_t *m) {
  if (!m) return;
  ft_arena_t *a = m->arena;
  if (a) {
    ft_arena_release(a);
    free(a);
  }
  /* the module struct itself lives in the arena */
}
