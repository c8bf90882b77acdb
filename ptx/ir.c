/* ir.c: the IR's name tables, type facts, lookups and release (ptx_ir.h). */
#include "ptx_ir.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"

static const ft_ptx_opinfo_t opcode_info[FT_PTX_OP_COUNT] = {
  [FT_PTX_OP_INVALID] = {"?", 0, FT_PTX_ANY, 0, 0, FT_PTX_FAM_NONE},
#define FT_PTX_X_INFO(e, s, lo, hi, dst, fl, fam) [FT_PTX_OP_##e] = {s, lo, hi, dst, fl, FT_PTX_FAM_##fam},
  FT_PTX_OPCODES(FT_PTX_X_INFO)
#undef FT_PTX_X_INFO
};

const ft_ptx_opinfo_t *ft_ptx_opinfo(unsigned op) {
  return &opcode_info[op < FT_PTX_OP_COUNT ? op : FT_PTX_OP_INVALID];
}

static const char *const type_names[FT_PTX_T_COUNT] = {
  "", "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
  "s8", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
  "tf32", "e4m3", "e5m2", "e2m1", "e2m3", "e3m2", "ue8m0", "ue4m3", "e4m3x2", "e5m2x2",
  "e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2", "e4m3x4", "e5m2x4", "e2m1x4", "e2m3x4", "e3m2x4",
  "s4", "u4", "b1", "s16x2", "u16x2", "s8x4", "u8x4", "texref", "samplerref", "surfref",
};
static const unsigned char type_sizes[FT_PTX_T_COUNT] = {
  0, 1, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 2, 4, 4, 8,
  /* sub-byte element types count one byte: they only name matrix fragments,
   * whose registers carry their own declared types */
  4, 1, 1, 1, 1, 1, 1, 1, 2, 2,
  1, 2, 2, 2, 4, 4,
  2, 4, 4,
  1, 1, 1, 4, 4, 4, 4, 8, 8, 8,
};
_Static_assert(sizeof type_names / sizeof type_names[0] == FT_PTX_T_COUNT, "type names");
_Static_assert(sizeof type_sizes == FT_PTX_T_COUNT, "type sizes");
static const char *const sreg_names[FT_PTX_SR_COUNT] = {
  "", "tid", "ntid", "ctaid", "nctaid", "laneid", "warpid", "nwarpid", "smid", "nsmid",
  "gridid", "lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt",
  "clock", "clock_hi", "clock64", "globaltimer", "globaltimer_lo", "globaltimer_hi",
  "dynamic_smem_size", "total_smem_size", "warpsz", "clusterid", "nclusterid",
  "cluster_ctaid", "cluster_nctaid", "cluster_ctarank", "cluster_nctarank",
  "is_explicit_cluster", "envreg", "pm", "reserved_smem_offset_begin",
  "reserved_smem_offset_end", "reserved_smem_offset_cap", "reserved_smem_offset_",
  "aggr_smem_size", "current_graph_exec",
};
/* Shapes of the matrix instructions, in the `shape` field (index). */
static const char *const shape_names[] = {
  "", "m8n8", "m8n16", "m16n8", "m16n16", "m8n8k4", "m8n8k16", "m8n8k32", "m8n8k128",
  "m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32", "m16n8k64", "m16n8k128", "m16n8k256",
  "m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k64", NULL,
};
static const char *const tex_queries[] = {
  "", "width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords",
  "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2", "array_size",
  "num_mipmap_levels", "num_samples", "force_unnormalized_coords", "memory_layout", NULL,
};

const char *ft_ptx_opcode_name(unsigned op) {
  return ft_ptx_opinfo(op)->name;
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
const char *ft_ptx_shape_name(unsigned shape) {
  return shape && shape < sizeof shape_names / sizeof shape_names[0] - 1 ? shape_names[shape] : "?";
}
const char *ft_ptx_tex_query_name(unsigned q) {
  return q && q < sizeof tex_queries / sizeof tex_queries[0] - 1 ? tex_queries[q] : "?";
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

unsigned ft_ptx_ndst(const ft_ptx_instr_t *in) {
  unsigned d = ft_ptx_opinfo(in->op)->dst;
  if (d == FT_PTX_DST_BAR) return in->mode >= FT_PTX_BAR_RED_POPC && in->mode <= FT_PTX_BAR_RED_OR;
  return d < in->nops ? d : in->nops;   /* a pair's second slot is always there */
}
