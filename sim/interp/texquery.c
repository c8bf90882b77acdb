/* texquery.c: txq and suq on texture and surface objects (the handle in a register).
 * The PTX ISA gives the values of width, height and depth (in elements),
 * normalized_coords (0 or 1), array_size (the layers) and memory_layout (1 for
 * linear memory, 0 otherwise: a CUDA array is not) where the object has that
 * dimension or property. It gives none for a dimension the object lacks (the height
 * of a 1-D texture, the depth of a 2-D one, the array size of one not layered),
 * none for channel_data_type and channel_order but OpenCL's enumerations, and none
 * for filter_mode and addr_mode_N but their names: those read 0, OpenCL 1.0's code,
 * or the CUDA API's value (CUfilter_mode, CUaddress_mode) and the UB check reports
 * them. Mipmap levels, samples and independent-mode samplers are not modelled (the
 * lowering refuses those queries by name). */
#include <string.h>

#include "texsurf.h"

enum {
  Q_WIDTH = 1, Q_HEIGHT, Q_DEPTH, Q_DATA_TYPE, Q_ORDER, Q_NORMALIZED, Q_FILTER, Q_ADDR0, Q_ADDR1, Q_ADDR2,
  Q_ARRAY_SIZE, Q_LAYOUT
};
static const struct {
  const char *name;
  uint8_t q, txq, suq; /* the instructions that have it */
} queries[] = {
    {"width", Q_WIDTH, 1, 1},           {"height", Q_HEIGHT, 1, 1},       {"depth", Q_DEPTH, 1, 1},
    {"channel_data_type", Q_DATA_TYPE, 1, 1}, {"channel_order", Q_ORDER, 1, 1}, {"normalized_coords", Q_NORMALIZED, 1, 0},
    {"filter_mode", Q_FILTER, 1, 0},    {"addr_mode_0", Q_ADDR0, 1, 0},   {"addr_mode_1", Q_ADDR1, 1, 0},
    {"addr_mode_2", Q_ADDR2, 1, 0},     {"array_size", Q_ARRAY_SIZE, 1, 1}, {"memory_layout", Q_LAYOUT, 0, 1},
};

/* OpenCL 1.0's channel data type of an element format as read (PTX ISA, "Channel
 * Data Type and Channel Order Fields"): normalised integers read as floats are
 * CL_UNORM_INT8 and the like, integers read as integers CL_UNSIGNED_INT8... */
static uint32_t cl_data_type(const sim_tex_t *t) {
  bool norm = !t->as_integer && !t->surface; /* a surface reads its elements as they are */
  switch (t->fmt) {
    case SIM_TEXFMT_U8: return norm ? 0x10D2 : 0x10DA;  /* CL_UNORM_INT8, CL_UNSIGNED_INT8 */
    case SIM_TEXFMT_U16: return norm ? 0x10D3 : 0x10DB; /* CL_UNORM_INT16, CL_UNSIGNED_INT16 */
    case SIM_TEXFMT_S8: return norm ? 0x10D0 : 0x10D7;  /* CL_SNORM_INT8, CL_SIGNED_INT8 */
    case SIM_TEXFMT_S16: return norm ? 0x10D1 : 0x10D8; /* CL_SNORM_INT16, CL_SIGNED_INT16 */
    case SIM_TEXFMT_U32: return 0x10DC;                 /* CL_UNSIGNED_INT32 */
    case SIM_TEXFMT_S32: return 0x10D9;                 /* CL_SIGNED_INT32 */
    case SIM_TEXFMT_F16: return 0x10DD;                 /* CL_HALF_FLOAT */
    default: return 0x10DE;                             /* CL_FLOAT */
  }
}

/* The value of query q of t; *defined: whether the PTX ISA gives it for t. */
static uint32_t answer(const sim_tex_t *t, unsigned q, bool *defined) {
  bool two_d = t->dims >= 2 || (!t->dims && !t->linear_res); /* pitched memory is 2-D */
  *defined = true;
  switch (q) {
    case Q_WIDTH: return (uint32_t)t->width;
    case Q_HEIGHT: *defined = two_d; return two_d ? (uint32_t)t->height : 0;
    case Q_DEPTH: *defined = t->dims == 3; return t->dims == 3 ? (uint32_t)t->depth : 0;
    case Q_ARRAY_SIZE: *defined = t->layered; return t->layered ? (uint32_t)t->depth : 0;
    case Q_NORMALIZED: return t->normalized;
    case Q_LAYOUT: return 0; /* surfaces are CUDA arrays, whose layout is not linear on a GPU */
    case Q_DATA_TYPE: *defined = false; return cl_data_type(t);
    case Q_ORDER: *defined = false; return t->channels == 1 ? 0x10B0 : t->channels == 2 ? 0x10B2 : 0x10B5; /* CL_R, CL_RG, CL_RGBA */
    case Q_FILTER: *defined = false; return t->linear_filter; /* CU_TR_FILTER_MODE_POINT, _LINEAR */
    default: *defined = false; return t->addr[q - Q_ADDR0]; /* CUaddress_mode */
  }
}

static void query(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  bool surface = in->op == FT_PTX_OP_SUQ;
  const uint64_t *H = SIM_R(w, in->a[0]);
  uint64_t *D = SIM_R(w, in->d[0]);
  uint32_t undefined = 0;
  sim_tex_cache_t tc = {0};
  SIM_FOR_LANES(m, l) {
    if (!sim_tex_cached(w, l, H[l], 0, surface, &tc)) return; /* 0: any geometry */
    bool defined;
    D[l] = answer(&tc.t, in->mode, &defined);
    if (!defined) undefined |= 1u << l;
  }
  if (undefined && w->blk->g->check_ub) {
    const char *name = "?";
    for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
      if (queries[i].q == in->mode) name = queries[i].name;
    sim_interp_ub(w, undefined,
                  "%s.%s: the PTX ISA gives no value for this object (a dimension or array size it lacks; "
                  "channel types and orders only as OpenCL's; filter and address modes only by name): the "
                  "simulator's is %llu",
                  surface ? "suq" : "txq", name, (unsigned long long)D[__builtin_ctz(undefined)]);
  }
}

sim_exec_fn sim_choose_texquery(sim_insn_t *in) {
  const char *name = ft_ptx_tex_query_name(in->mode);
  for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
    if (strcmp(queries[i].name, name) == 0 && (in->op == FT_PTX_OP_SUQ ? queries[i].suq : queries[i].txq)) {
      in->mode = queries[i].q;
      return query;
    }
  return NULL;
}
