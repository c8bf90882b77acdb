/* ptx_ir.h: the in-memory form of a parsed PTX module, shared by the access
 * analysis (ptx/access.c) and the simulator's interpreter (sim/). No CUDA here.
 *
 * Shape (every array is owned by the module; ft_ptx_module_free releases all):
 *   ft_ptx_module_t   version, target, address size, functions[], variables[]
 *                     (module scope: .global/.const/.shared, with initialisers).
 *   ft_ptx_function_t name, is_entry, linkage, params[] (byte size, alignment,
 *                     offset in the packed parameter buffer), rets[] (.func
 *                     return params), regs[] (virtual registers: type; nested
 *                     `{ }` scopes that redeclare a name get distinct indices),
 *                     vars[] (function-scope .shared/.local/.param/.const:
 *                     the .param ones are call-site argument scratch),
 *                     instrs[], operands[] (pool the instructions index into),
 *                     labels[] (name -> instruction index), performance
 *                     directives (.maxntid, .reqntid, .minnctapersm, .maxnreg).
 *   ft_ptx_instr_t    guard (predicate register + negation), opcode, types
 *                     (type = destination / main type, type2 = source type of
 *                     cvt, set, slct...; type3/type4 for mma, video, cvt.pack),
 *                     shape and layout (matrices, texture geometry), rounding, comparison and
 *                     bool op (setp/set), state space(s), cache op, memory
 *                     semantics and scope, vector width, mode (opcode-specific:
 *                     shfl/vote/atom/bar/shf/prmt...), flags (FT_PTX_F_*), then
 *                     nops operands at operands[ops .. ops+nops).
 *   ft_ptx_operand_t  REG, IMM_INT, IMM_F32, IMM_F64, VEC (elements are other
 *                     operands in the pool), ADDR (base register/symbol/absolute
 *                     + byte offset), SYM (variable, param or function), LABEL
 *                     (instruction index, always < ninstrs), SREG (%tid.x ...),
 *                     SINK (`_`), NONE.
 *
 * Operand order is PTX's own (destination first). Two-destination forms
 * (`setp ... p|q`, `shfl.sync ... d|p`) always occupy two slots: the second
 * destination is FT_PTX_OPD_NONE when the text has no `|q`.
 * call: ops = [VEC returns (count may be 0), SYM function | REG target,
 *              VEC arguments (count may be 0), NONE (the prototype label of an
 *              indirect call is not kept)]. Arguments and returns
 *              are SYM operands naming .param variables of the caller (vars[]).
 * bra: ops = [LABEL]. Guard and .uni are on the instruction.
 */
#ifndef FT_PTX_IR_H
#define FT_PTX_IR_H

#include <stddef.h>
#include <stdint.h>

#include "opcodes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FT_PTX_NO_REG UINT32_MAX

/* Data types. Size in bytes: ft_ptx_type_size(). */
typedef enum {
  FT_PTX_T_NONE = 0,
  FT_PTX_T_PRED,
  FT_PTX_T_B8, FT_PTX_T_B16, FT_PTX_T_B32, FT_PTX_T_B64, FT_PTX_T_B128,
  FT_PTX_T_U8, FT_PTX_T_U16, FT_PTX_T_U32, FT_PTX_T_U64,
  FT_PTX_T_S8, FT_PTX_T_S16, FT_PTX_T_S32, FT_PTX_T_S64,
  FT_PTX_T_F16, FT_PTX_T_F16X2, FT_PTX_T_BF16, FT_PTX_T_BF16X2,
  FT_PTX_T_F32, FT_PTX_T_F64,
  /* Types that only the matrix, conversion and video instructions name (the
   * interpreter refuses all of them), and the opaque texture handles. */
  FT_PTX_T_TF32, FT_PTX_T_E4M3, FT_PTX_T_E5M2, FT_PTX_T_E2M1, FT_PTX_T_E2M3, FT_PTX_T_E3M2,
  FT_PTX_T_UE8M0, FT_PTX_T_UE4M3, FT_PTX_T_E4M3X2, FT_PTX_T_E5M2X2, FT_PTX_T_E2M1X2,
  FT_PTX_T_E2M3X2, FT_PTX_T_E3M2X2, FT_PTX_T_UE8M0X2, FT_PTX_T_E4M3X4, FT_PTX_T_E5M2X4,
  FT_PTX_T_E2M1X4, FT_PTX_T_E2M3X4, FT_PTX_T_E3M2X4, FT_PTX_T_S4, FT_PTX_T_U4, FT_PTX_T_B1,
  FT_PTX_T_S16X2, FT_PTX_T_U16X2, FT_PTX_T_S8X4, FT_PTX_T_U8X4,
  FT_PTX_T_TEXREF, FT_PTX_T_SAMPLERREF, FT_PTX_T_SURFREF,   /* 8-byte handles */
  FT_PTX_T_COUNT
} ft_ptx_type_t;
#define FT_PTX_T_FIRST_EXTRA FT_PTX_T_TF32   /* types from here on: see above */

/* State spaces. */
typedef enum {
  FT_PTX_SP_NONE = 0,     /* no space given: generic for ld/st/atom */
  FT_PTX_SP_GENERIC = FT_PTX_SP_NONE,
  FT_PTX_SP_GLOBAL,
  FT_PTX_SP_SHARED,       /* .shared or .shared::cta */
  FT_PTX_SP_SHARED_CLUSTER,
  FT_PTX_SP_LOCAL,
  FT_PTX_SP_PARAM,
  FT_PTX_SP_CONST,
  FT_PTX_SP_REG,
  FT_PTX_SP_COUNT
} ft_ptx_space_t;

/* Opcodes and what each one is: ptx/opcodes.h. */
typedef enum {
  FT_PTX_OP_INVALID = 0,
#define FT_PTX_X_ENUM(e, s, lo, hi, dst, fl, fam) FT_PTX_OP_##e,
  FT_PTX_OPCODES(FT_PTX_X_ENUM)
#undef FT_PTX_X_ENUM
  FT_PTX_OP_COUNT
} ft_ptx_opcode_t;
#define FT_PTX_OP_FIRST_EXTRA FT_PTX_OP_BMSK   /* the library forms (modifiers: parse.c) */

/* The table's facts of one opcode (ptx/opcodes.h). */
typedef struct {
  const char *name;
  uint8_t lo, hi;   /* operand count bounds; hi FT_PTX_ANY: unchecked */
  uint8_t dst;      /* 0, 1, 2 or FT_PTX_DST_BAR: use ft_ptx_ndst() */
  uint8_t flags;    /* FT_PTX_MEM | FT_PTX_CTRL | FT_PTX_COLL | FT_PTX_PAIR */
  uint8_t family;   /* ft_ptx_family_t */
} ft_ptx_opinfo_t;
/* The entry of op (an all-zero entry named "?" when op is out of range). */
const ft_ptx_opinfo_t *ft_ptx_opinfo(unsigned op);

/* Rounding modes (.rn .rz .rm .rp on floats, .rni .rzi .rmi .rpi on cvt to int). */
typedef enum {
  FT_PTX_RND_NONE = 0, FT_PTX_RND_RN, FT_PTX_RND_RZ, FT_PTX_RND_RM, FT_PTX_RND_RP,
  FT_PTX_RND_RNA, FT_PTX_RND_RNI, FT_PTX_RND_RZI, FT_PTX_RND_RMI, FT_PTX_RND_RPI,
  FT_PTX_RND_RS   /* stochastic (cvt.rs, with a random-bits operand) */
} ft_ptx_rnd_t;

/* Comparison of setp/set/slct (unsigned lo/ls/hi/hs; float unordered *u, num, nan). */
typedef enum {
  FT_PTX_CMP_NONE = 0,
  FT_PTX_CMP_EQ, FT_PTX_CMP_NE, FT_PTX_CMP_LT, FT_PTX_CMP_LE, FT_PTX_CMP_GT, FT_PTX_CMP_GE,
  FT_PTX_CMP_LO, FT_PTX_CMP_LS, FT_PTX_CMP_HI, FT_PTX_CMP_HS,
  FT_PTX_CMP_EQU, FT_PTX_CMP_NEU, FT_PTX_CMP_LTU, FT_PTX_CMP_LEU, FT_PTX_CMP_GTU,
  FT_PTX_CMP_GEU, FT_PTX_CMP_NUM, FT_PTX_CMP_NAN
} ft_ptx_cmp_t;

/* Bool op combining setp/set with a third predicate operand. */
typedef enum { FT_PTX_BOOL_NONE = 0, FT_PTX_BOOL_AND, FT_PTX_BOOL_OR, FT_PTX_BOOL_XOR } ft_ptx_boolop_t;

/* Cache operators of ld/st (.ca .cg .cs .lu .cv .wb .wt); .nc is a flag. */
typedef enum {
  FT_PTX_CACHE_NONE = 0, FT_PTX_CACHE_CA, FT_PTX_CACHE_CG, FT_PTX_CACHE_CS,
  FT_PTX_CACHE_LU, FT_PTX_CACHE_CV, FT_PTX_CACHE_WB, FT_PTX_CACHE_WT
} ft_ptx_cache_t;

/* Memory semantics and scope (ld/st/atom/red/fence). */
typedef enum {
  FT_PTX_SEM_NONE = 0, FT_PTX_SEM_WEAK, FT_PTX_SEM_RELAXED, FT_PTX_SEM_ACQUIRE,
  FT_PTX_SEM_RELEASE, FT_PTX_SEM_ACQ_REL, FT_PTX_SEM_SC, FT_PTX_SEM_VOLATILE
} ft_ptx_sem_t;
typedef enum {
  FT_PTX_SCOPE_NONE = 0, FT_PTX_SCOPE_CTA, FT_PTX_SCOPE_CLUSTER, FT_PTX_SCOPE_GPU,
  FT_PTX_SCOPE_SYS
} ft_ptx_scope_t;

/* ft_ptx_instr_t.mode, meaning chosen by the opcode. */
enum {
  /* SHFL */ FT_PTX_SHFL_UP = 1, FT_PTX_SHFL_DOWN, FT_PTX_SHFL_BFLY, FT_PTX_SHFL_IDX
};
enum {
  /* VOTE */ FT_PTX_VOTE_ALL = 1, FT_PTX_VOTE_ANY, FT_PTX_VOTE_UNI, FT_PTX_VOTE_BALLOT
};
enum {
  /* ATOM, RED, REDUX */
  FT_PTX_ATOM_ADD = 1, FT_PTX_ATOM_MIN, FT_PTX_ATOM_MAX, FT_PTX_ATOM_INC,
  FT_PTX_ATOM_DEC, FT_PTX_ATOM_AND, FT_PTX_ATOM_OR, FT_PTX_ATOM_XOR,
  FT_PTX_ATOM_EXCH, FT_PTX_ATOM_CAS
};
enum {
  /* BAR, BARRIER: bar.sync / bar.arrive / bar.red.{popc,and,or}; bar.warp.sync */
  FT_PTX_BAR_SYNC = 1, FT_PTX_BAR_ARRIVE, FT_PTX_BAR_RED_POPC, FT_PTX_BAR_RED_AND,
  FT_PTX_BAR_RED_OR, FT_PTX_BAR_WARP_SYNC
};
enum { /* SHF */ FT_PTX_SHF_L = 1, FT_PTX_SHF_R };
enum {
  /* PRMT: 0 = default (selector in operand c) */
  FT_PTX_PRMT_F4E = 1, FT_PTX_PRMT_B4E, FT_PTX_PRMT_RC8, FT_PTX_PRMT_ECL,
  FT_PTX_PRMT_ECR, FT_PTX_PRMT_RC16
};
enum { /* MATCH */ FT_PTX_MATCH_ANY = 1, FT_PTX_MATCH_ALL };
enum {
  /* TESTP */ FT_PTX_TESTP_FINITE = 1, FT_PTX_TESTP_INFINITE, FT_PTX_TESTP_NUMBER,
  FT_PTX_TESTP_NOTANUMBER, FT_PTX_TESTP_NORMAL, FT_PTX_TESTP_SUBNORMAL
};
enum { /* FENCE: fence.proxy etc. are rejected; MEMBAR uses scope */ FT_PTX_FENCE_PLAIN = 1 };
enum {
  /* MBARRIER sub-operation (mbarrier.<mode>); the first operand is a destination
   * for ARRIVE*, TEST_WAIT, TRY_WAIT and PENDING_COUNT */
  FT_PTX_MBAR_INIT = 1, FT_PTX_MBAR_INVAL, FT_PTX_MBAR_ARRIVE, FT_PTX_MBAR_ARRIVE_DROP,
  FT_PTX_MBAR_EXPECT_TX, FT_PTX_MBAR_COMPLETE_TX, FT_PTX_MBAR_TEST_WAIT, FT_PTX_MBAR_TRY_WAIT,
  FT_PTX_MBAR_PENDING_COUNT, FT_PTX_MBAR_ARRIVE_EXPECT_TX, FT_PTX_MBAR_ARRIVE_DROP_EXPECT_TX
};
enum {
  /* WMMA_LOAD / WMMA_STORE: the fragment (.a .b .c .d) */
  FT_PTX_FRAG_A = 1, FT_PTX_FRAG_B, FT_PTX_FRAG_C, FT_PTX_FRAG_D
};
enum { /* GRIDDEPCONTROL */ FT_PTX_GDC_LAUNCH_DEPENDENTS = 1, FT_PTX_GDC_WAIT };
enum {
  /* FENCE_PROXY: which proxy (.alias, .async[.space], .tensormap::generic) */
  FT_PTX_PROXY_ALIAS = 1, FT_PTX_PROXY_ASYNC, FT_PTX_PROXY_TENSORMAP
};
/* TEX, TLD4, SULD, SUST, SURED, SUQ, TXQ: geometry in `shape` as
 * FT_PTX_GEOM_*; TXQ/SUQ: the query in `mode` (index in ft_ptx_tex_query_name);
 * SURED: the operation in `mode` (FT_PTX_ATOM_*); TLD4: component r/g/b/a (1..4)
 * in `mode`; TEX: `layout` 1 .level, 2 .grad, 3 .base (extra operands follow);
 * SULD/SUST/SURED: `layout` 1 .trap, 2 .clamp, 3 .zero. */
enum {
  FT_PTX_GEOM_1D = 1, FT_PTX_GEOM_2D, FT_PTX_GEOM_3D, FT_PTX_GEOM_A1D, FT_PTX_GEOM_A2D,
  FT_PTX_GEOM_CUBE, FT_PTX_GEOM_ACUBE, FT_PTX_GEOM_2DMS, FT_PTX_GEOM_A2DMS
};
/* MMA / WMMA / LDMATRIX / STMATRIX: `shape` indexes ft_ptx_shape_name ("m16n8k16"),
 * `layout` has FT_PTX_LAYOUT_A_COL / _B_COL (wmma.load/store: A_COL for .col). */
enum { FT_PTX_LAYOUT_A_COL = 1, FT_PTX_LAYOUT_B_COL = 2 };
/* Video instructions: REG operands carry a byte / half selector in `count`
 * (FT_PTX_SEL_*; 0: none). The secondary operation (.add .min .max) is in mode. */
enum {
  FT_PTX_SEL_B0 = 1, FT_PTX_SEL_B1, FT_PTX_SEL_B2, FT_PTX_SEL_B3, FT_PTX_SEL_H0, FT_PTX_SEL_H1
};

/* ft_ptx_instr_t.flags */
enum {
  FT_PTX_F_CC       = 1u << 0,   /* .cc: writes the carry flag (add.cc, sub.cc, mad.cc...) */
  FT_PTX_F_FTZ      = 1u << 1,
  FT_PTX_F_SAT      = 1u << 2,
  FT_PTX_F_APPROX   = 1u << 3,
  FT_PTX_F_FULL     = 1u << 4,
  FT_PTX_F_WIDE     = 1u << 5,   /* mul.wide / mad.wide: destination twice as wide */
  FT_PTX_F_HI       = 1u << 6,
  FT_PTX_F_LO       = 1u << 7,
  FT_PTX_F_UNI      = 1u << 8,   /* bra.uni, call.uni */
  FT_PTX_F_SYNC     = 1u << 9,   /* shfl.sync, vote.sync, ... */
  FT_PTX_F_ALIGNED  = 1u << 10,  /* barrier.sync.aligned etc. */
  FT_PTX_F_NC       = 1u << 11,  /* ld.global.nc */
  FT_PTX_F_CLAMP    = 1u << 12,  /* shf.clamp */
  FT_PTX_F_WRAP     = 1u << 13,  /* shf.wrap */
  FT_PTX_F_TO       = 1u << 14,  /* cvta.to.<space>: generic -> space (else space -> generic) */
  FT_PTX_F_SHIFTAMT = 1u << 15,  /* bfind.shiftamt */
  FT_PTX_F_PAIR_DST = 1u << 16,  /* second destination (p|q, d|p) present */
  FT_PTX_F_NAN      = 1u << 17,  /* min/max .NaN */
  FT_PTX_F_RELU     = 1u << 18,  /* cvt .relu */
  FT_PTX_F_NORET    = 1u << 19,  /* atom result unused (informational) */
  FT_PTX_F_VOLATILE = 1u << 20,  /* ld.volatile / st.volatile */
  FT_PTX_F_B32MASK  = 1u << 21,  /* reserved */
  FT_PTX_F_XORSIGN  = 1u << 22,  /* min/max .xorsign.abs */
  FT_PTX_F_ABS      = 1u << 23,  /* min/max .abs */
  FT_PTX_F_L2_HINT  = 1u << 24,  /* an .L2::cache_hint operand follows (last operand) */
  FT_PTX_F_IGNORE_SRC = 1u << 25, /* cp.async with src-size operand */
  FT_PTX_F_SATFINITE  = 1u << 26, /* cvt / mma / wmma .satfinite */
  FT_PTX_F_TRANS      = 1u << 27, /* ldmatrix / stmatrix .trans */
  FT_PTX_F_MULTICAST  = 1u << 28, /* cp.async.bulk .multicast::cluster (a ctaMask operand) */
  FT_PTX_F_PARITY     = 1u << 29, /* mbarrier.test_wait / try_wait .parity */
  FT_PTX_F_EXTRA_MOD  = 1u << 30, /* a modifier the IR keeps no field for (see docs/ptx.md):
                                     only on opcodes the interpreter refuses */
  FT_PTX_F_PACK       = 1u << 31  /* cvt.pack (types in type, type2, type3) */
};

/* Special registers (SREG operands; component x/y/z in operand.count for the
 * vector ones: 0 = x, 1 = y, 2 = z; the number of %envreg<N> and %pm<N>). */
typedef enum {
  FT_PTX_SR_NONE = 0,
  FT_PTX_SR_TID, FT_PTX_SR_NTID, FT_PTX_SR_CTAID, FT_PTX_SR_NCTAID,
  FT_PTX_SR_LANEID, FT_PTX_SR_WARPID, FT_PTX_SR_NWARPID, FT_PTX_SR_SMID, FT_PTX_SR_NSMID,
  FT_PTX_SR_GRIDID, FT_PTX_SR_LANEMASK_EQ, FT_PTX_SR_LANEMASK_LE, FT_PTX_SR_LANEMASK_LT,
  FT_PTX_SR_LANEMASK_GE, FT_PTX_SR_LANEMASK_GT, FT_PTX_SR_CLOCK, FT_PTX_SR_CLOCK_HI,
  FT_PTX_SR_CLOCK64, FT_PTX_SR_GLOBALTIMER, FT_PTX_SR_GLOBALTIMER_LO,
  FT_PTX_SR_GLOBALTIMER_HI, FT_PTX_SR_DYNAMIC_SMEM_SIZE, FT_PTX_SR_TOTAL_SMEM_SIZE,
  FT_PTX_SR_WARPSZ, FT_PTX_SR_CLUSTERID, FT_PTX_SR_NCLUSTERID, FT_PTX_SR_CLUSTER_CTAID,
  FT_PTX_SR_CLUSTER_NCTAID, FT_PTX_SR_CLUSTER_CTARANK, FT_PTX_SR_CLUSTER_NCTARANK,
  FT_PTX_SR_IS_EXPLICIT_CLUSTER,
  FT_PTX_SR_ENVREG,      /* %envreg<N>: N (0..31) in operand.count */
  FT_PTX_SR_PM,          /* %pm<N> performance counters: N (0..7) in operand.count */
  FT_PTX_SR_RESERVED_SMEM_BEGIN, FT_PTX_SR_RESERVED_SMEM_END, FT_PTX_SR_RESERVED_SMEM_CAP,
  FT_PTX_SR_RESERVED_SMEM_N,     /* %reserved_smem_offset_<N>: N (0..1) in operand.count */
  FT_PTX_SR_AGGR_SMEM_SIZE, FT_PTX_SR_CURRENT_GRAPH_EXEC,
  FT_PTX_SR_COUNT
} ft_ptx_sreg_t;

/* What a SYM operand (or an ADDR operand with a symbol base) names. */
typedef enum {
  FT_PTX_SYM_MODVAR = 1,   /* module->vars[index] */
  FT_PTX_SYM_FUNCVAR,      /* fn->vars[index] (function scope; call-site .param scratch) */
  FT_PTX_SYM_PARAM,        /* fn->params[index] */
  FT_PTX_SYM_RET,          /* fn->rets[index] (.func return parameter) */
  FT_PTX_SYM_FUNC          /* module->funcs[index] (call target, or address taken) */
} ft_ptx_sym_kind_t;

typedef enum {
  FT_PTX_OPD_NONE = 0,
  FT_PTX_OPD_REG,        /* index = register; neg = `!%p`; count = video selector */
  FT_PTX_OPD_IMM_INT,    /* value (two's complement, as written) */
  FT_PTX_OPD_IMM_F32,    /* value = IEEE single bits (0fXXXXXXXX) in the low 32 bits */
  FT_PTX_OPD_IMM_F64,    /* value = IEEE double bits (0dXXXXXXXXXXXXXXXX or decimal) */
  FT_PTX_OPD_VEC,        /* index = first element in fn->operands, count = elements */
  FT_PTX_OPD_ADDR,       /* [base + value]: base_kind REG (index = register),
                            SYM (sym_kind, index) or NONE (absolute address = value).
                            count > 0: `[base, x, {c...}]` (textures, surfaces, tensor
                            maps): the next `count` operands were inside the brackets */
  FT_PTX_OPD_SYM,        /* sym_kind, index (+ value: byte offset, `sym+8` in mov) */
  FT_PTX_OPD_LABEL,      /* index = instruction index of the label */
  FT_PTX_OPD_SREG,       /* index = ft_ptx_sreg_t, count = component */
  FT_PTX_OPD_SINK        /* `_` */
} ft_ptx_opd_kind_t;

typedef struct ft_ptx_operand_s {
  uint8_t kind;          /* ft_ptx_opd_kind_t */
  uint8_t neg;           /* `!` on a predicate operand */
  uint8_t base_kind;     /* ADDR: FT_PTX_OPD_REG, FT_PTX_OPD_SYM or FT_PTX_OPD_NONE */
  uint8_t sym_kind;      /* SYM, or ADDR with SYM base: ft_ptx_sym_kind_t */
  uint32_t index;
  uint32_t count;
  int64_t value;
} ft_ptx_operand_t;

typedef struct ft_ptx_instr_s {
  uint16_t op;           /* ft_ptx_opcode_t */
  uint8_t type;          /* ft_ptx_type_t: destination / main type */
  uint8_t type2;         /* source type (cvt, set, slct, ...), else NONE */
  uint8_t space;         /* ft_ptx_space_t: ld/st/atom/red/cvta/isspacep/prefetch; cp.async dst */
  uint8_t space2;        /* cp.async source space */
  uint8_t vec;           /* 1, 2, 4, 8 or 16 (.vN); ldmatrix/stmatrix .xN; 1 when scalar */
  uint8_t rnd;           /* ft_ptx_rnd_t */
  uint8_t cmp;           /* ft_ptx_cmp_t */
  uint8_t boolop;        /* ft_ptx_boolop_t */
  uint8_t mode;          /* opcode-specific (FT_PTX_SHFL_*, _VOTE_*, _ATOM_*, _BAR_*...) */
  uint8_t cache;         /* ft_ptx_cache_t */
  uint8_t sem;           /* ft_ptx_sem_t */
  uint8_t scope;         /* ft_ptx_scope_t */
  uint8_t guard_neg;     /* @!%p */
  uint8_t nops;
  uint8_t type3, type4;  /* mma/wmma: B and C types (type = D, type2 = A); video: B type */
  uint8_t shape;         /* mma/wmma/ldmatrix/stmatrix shape, texture geometry (see above) */
  uint8_t layout;        /* FT_PTX_LAYOUT_* for matrices; texture / surface variant */
  uint32_t flags;        /* FT_PTX_F_* */
  uint32_t guard;        /* predicate register, FT_PTX_NO_REG when unguarded */
  uint32_t ops;          /* first operand in fn->operands */
  uint32_t line;         /* 1-based source line */
} ft_ptx_instr_t;

typedef struct ft_ptx_reg_s {
  const char *name;      /* declared name without the <N> suffix */
  uint32_t num;          /* N of a `%r<100>` family, UINT32_MAX for a plain name */
  uint8_t type;          /* ft_ptx_type_t as declared */
} ft_ptx_reg_t;

/* Relocation in a variable's initialiser: at byte offset, the address of a
 * module variable or function (+ addend), `generic(sym)` or plain `sym`. */
typedef struct ft_ptx_reloc_s {
  uint64_t offset;
  uint32_t sym_kind;     /* FT_PTX_SYM_MODVAR or FT_PTX_SYM_FUNC */
  uint32_t index;
  int64_t addend;
  uint8_t generic;       /* generic(sym) (else the space's own address) */
  uint8_t size;          /* bytes written (4 or 8) */
} ft_ptx_reloc_t;

typedef enum {
  FT_PTX_LINK_NONE = 0, FT_PTX_LINK_VISIBLE, FT_PTX_LINK_EXTERN, FT_PTX_LINK_WEAK,
  FT_PTX_LINK_COMMON
} ft_ptx_linkage_t;

typedef struct ft_ptx_var_s {
  const char *name;
  uint8_t space;         /* ft_ptx_space_t */
  uint8_t type;          /* element type */
  uint8_t linkage;       /* ft_ptx_linkage_t */
  uint8_t unsized;       /* `extern .shared .b8 x[]` (dynamic shared memory) */
  uint32_t align;        /* bytes */
  uint64_t size;         /* bytes; 0 when unsized */
  const uint8_t *init;   /* size bytes, or NULL when not initialised (zero) */
  ft_ptx_reloc_t *relocs;
  size_t nrelocs;
} ft_ptx_var_t;

typedef struct ft_ptx_param_s {
  const char *name;
  uint8_t is_reg;        /* `.reg` parameter / return of a .func (callers pass registers:
                            such calls are not parsed) */
  uint32_t reg;          /* its register in the body, else FT_PTX_NO_REG */
  uint8_t type;          /* element type (.b8 for byte arrays / structs) */
  uint8_t ptr_space;     /* .ptr.<space> attribute, FT_PTX_SP_NONE when absent */
  uint32_t align;        /* bytes: .align N, else natural alignment of type */
  uint32_t size;         /* bytes: element size x array length */
  uint32_t offset;       /* byte offset in the packed parameter buffer */
  uint32_t ptr_align;    /* .ptr...align N, 0 when absent */
} ft_ptx_param_t;

typedef struct ft_ptx_label_s {
  const char *name;
  uint32_t instr;        /* index of the instruction the label precedes */
} ft_ptx_label_t;

typedef struct ft_ptx_function_s {
  const char *name;
  uint8_t is_entry;      /* .entry (kernel) vs .func */
  uint8_t linkage;       /* ft_ptx_linkage_t */
  uint8_t is_decl;       /* declaration only (prototype, .extern .func) */
  uint8_t noreturn;
  ft_ptx_param_t *params;   size_t nparams;
  ft_ptx_param_t *rets;     size_t nrets;
  uint32_t param_bytes;     /* packed size of all params */
  ft_ptx_reg_t *regs;       size_t nregs;
  ft_ptx_var_t *vars;       size_t nvars;
  ft_ptx_instr_t *instrs;   size_t ninstrs;
  ft_ptx_operand_t *operands; size_t noperands;
  ft_ptx_label_t *labels;   size_t nlabels;
  uint32_t maxntid[3], reqntid[3];  /* 0 when absent */
  uint32_t minnctapersm, maxnreg;   /* 0 when absent */
  uint32_t line;            /* line of the .entry/.func directive */
} ft_ptx_function_t;

typedef struct ft_ptx_module_s {
  unsigned version_major, version_minor;   /* .version */
  char target[32];                          /* first target, e.g. "sm_75" */
  unsigned sm;                              /* 75 for sm_75 / compute_75 */
  unsigned address_size;                    /* 32 or 64 */
  ft_ptx_function_t *funcs; size_t nfuncs;
  ft_ptx_var_t *vars;       size_t nvars;
  void *arena;                              /* private: owns every allocation */
} ft_ptx_module_t;

/* Parses PTX text (len bytes; need not be NUL-terminated). 0 and *out on
 * success; -1 with "line N: reason" in err (and *out NULL) otherwise: nothing
 * is returned for a text the parser does not fully understand. */
int ft_ptx_parse(const char *text, size_t len, ft_ptx_module_t **out, char *err, size_t errlen);
void ft_ptx_module_free(ft_ptx_module_t *m);

/* Function by name (entries and .funcs), NULL when absent. */
const ft_ptx_function_t *ft_ptx_find_function(const ft_ptx_module_t *m, const char *name);

const char *ft_ptx_opcode_name(unsigned op);
const char *ft_ptx_type_name(unsigned type);
const char *ft_ptx_sreg_name(unsigned sreg);
const char *ft_ptx_shape_name(unsigned shape);       /* "m16n8k16"; "?" when unknown */
const char *ft_ptx_tex_query_name(unsigned query);   /* txq/suq: "width" ... */
unsigned ft_ptx_type_size(unsigned type);     /* bytes; 0 for NONE, 1 for PRED */
int ft_ptx_type_is_float(unsigned type);
/* How many leading operands of in are destinations (registers it writes): 0 for
 * stores, branches, calls (results come back through .param variables)... */
unsigned ft_ptx_ndst(const ft_ptx_instr_t *in);

/* The operand `i` of instruction `in` in function `fn`. */
static inline const ft_ptx_operand_t *ft_ptx_opd(const ft_ptx_function_t *fn,
                                                 const ft_ptx_instr_t *in, unsigned i) {
  return &fn->operands[in->ops + i];
}

#ifdef __cplusplus
}
#endif
#endif
