/* opcodes.h: the one table of PTX opcodes (base names; variants live in the
 * instruction's modifier fields) and what each one is, read by the parser
 * (operand counts, optional second destination), the access analysis
 * (destinations, memory) and the interpreter's lowering (executor family).
 * Included by ptx_ir.h; no other file holds per-opcode facts of these kinds.
 *
 * X(ENUM, "name", lo, hi, dst, flags, family):
 *   lo..hi  operand count the parser accepts, counted after the second
 *           destination's slot is inserted (FT_PTX_ANY: not checked: forms
 *           too varied for a range; 0, 0: no operands);
 *   dst     leading operands that are destinations (registers written): 0, 1,
 *           2 (`d|p` forms always hold two slots), FT_PTX_DST_BAR (bar/barrier:
 *           1 for bar.red, else 0);
 *   flags   FT_PTX_MEM: an address operand it reads or writes through;
 *           FT_PTX_CTRL: changes control flow; FT_PTX_COLL: warp or block
 *           collective (lanes exchange values or wait for each other);
 *           FT_PTX_PAIR: an optional second destination `d|p` (a NONE slot
 *           when absent);
 *   family  which executor of the interpreter runs it (FT_PTX_FAM_*; NONE:
 *           parsed for the analysis, refused by the interpreter by name).
 *
 * match: PTX ISA "match.sync": `match.any.sync.type d, a, membermask;` and
 * `match.all.sync.type d[|p], a, membermask;` (d: the .b32 lane mask, p: all
 * lanes agreed), so both have the pair slot: d, p-or-NONE, a, membermask. */
#ifndef FT_PTX_OPCODES_H
#define FT_PTX_OPCODES_H

#define FT_PTX_ANY 255
#define FT_PTX_DST_BAR 3

enum { FT_PTX_MEM = 1u << 0, FT_PTX_CTRL = 1u << 1, FT_PTX_COLL = 1u << 2, FT_PTX_PAIR = 1u << 3 };

typedef enum {
  FT_PTX_FAM_NONE = 0, /* refused by the interpreter */
  FT_PTX_FAM_ARITH,    /* integer or float executor by the instruction's type */
  FT_PTX_FAM_INT,      /* integer executor whatever the type (mov) */
  FT_PTX_FAM_FLOAT,
  FT_PTX_FAM_CVT,
  FT_PTX_FAM_CMP,      /* setp, set, selp, slct */
  FT_PTX_FAM_MEM,      /* loads, stores, atomics, fences, address spaces */
  FT_PTX_FAM_COLL,     /* warp collectives; bar/barrier by the scheduler */
  FT_PTX_FAM_SPECIAL,  /* special registers, no-ops */
  FT_PTX_FAM_CTRL,     /* the scheduler itself: bra, exit, ret, trap */
  FT_PTX_FAM_CALL,     /* inlined, real (recursive) or external calls */
  FT_PTX_FAM_ASYNC,    /* cp.async and its groups */
  FT_PTX_FAM_MATRIX,   /* ldmatrix, mma, wmma */
  FT_PTX_FAM_TEX       /* tex, tld4, txq, suld, sust, sured, suq on texture and surface objects */
} ft_ptx_family_t;

#define FT_PTX_OPCODES(X) \
  X(ABS, "abs", 2, 2, 1, 0, ARITH) \
  X(ACTIVEMASK, "activemask", 1, 1, 1, FT_PTX_COLL, COLL) \
  X(ADD, "add", 3, 3, 1, 0, ARITH) \
  X(ADDC, "addc", 3, 3, 1, 0, ARITH) \
  X(AND, "and", 3, 3, 1, 0, ARITH) \
  X(ATOM, "atom", 3, 5, 1, FT_PTX_MEM, MEM) \
  X(BAR, "bar", 0, FT_PTX_ANY, FT_PTX_DST_BAR, FT_PTX_COLL, COLL) \
  X(BARRIER, "barrier", 0, FT_PTX_ANY, FT_PTX_DST_BAR, FT_PTX_COLL, COLL) \
  X(BFE, "bfe", 4, 4, 1, 0, ARITH) \
  X(BFI, "bfi", 5, 5, 1, 0, ARITH) \
  X(BFIND, "bfind", 2, 2, 1, 0, ARITH) \
  X(BRA, "bra", 1, 1, 0, FT_PTX_CTRL, CTRL) \
  X(BREV, "brev", 2, 2, 1, 0, ARITH) \
  X(BRKPT, "brkpt", 0, 0, 0, FT_PTX_CTRL, CTRL) \
  X(CALL, "call", 0, FT_PTX_ANY, 0, FT_PTX_CTRL, CALL) \
  X(CLZ, "clz", 2, 2, 1, 0, ARITH) \
  X(CNOT, "cnot", 2, 2, 1, 0, ARITH) \
  X(COPYSIGN, "copysign", 3, 3, 1, 0, FLOAT) \
  X(COS, "cos", 2, 2, 1, 0, FLOAT) \
  X(CP_ASYNC, "cp.async", 3, 5, 0, FT_PTX_MEM, ASYNC) \
  X(CP_ASYNC_COMMIT, "cp.async.commit_group", 0, 0, 0, 0, ASYNC) \
  X(CP_ASYNC_WAIT, "cp.async.wait_group", 1, 1, 0, 0, ASYNC) \
  X(CP_ASYNC_WAIT_ALL, "cp.async.wait_all", 0, 0, 0, 0, ASYNC) \
  X(CVT, "cvt", 2, 4, 1, 0, CVT) \
  X(CVTA, "cvta", 2, 2, 1, 0, MEM) \
  X(DIV, "div", 3, 3, 1, 0, ARITH) \
  X(DP2A, "dp2a", 4, 4, 1, 0, ARITH) \
  X(DP4A, "dp4a", 4, 4, 1, 0, ARITH) \
  X(EX2, "ex2", 2, 2, 1, 0, FLOAT) \
  X(EXIT, "exit", 0, 0, 0, FT_PTX_CTRL, CTRL) \
  X(FENCE, "fence", 0, 0, 0, 0, MEM) \
  X(FMA, "fma", 4, 4, 1, 0, FLOAT) \
  X(FNS, "fns", 4, 4, 1, 0, ARITH) \
  X(ISSPACEP, "isspacep", 2, 2, 1, 0, MEM) \
  X(LD, "ld", 2, 3, 1, FT_PTX_MEM, MEM) \
  X(LDU, "ldu", 2, 3, 1, FT_PTX_MEM, MEM) \
  X(LG2, "lg2", 2, 2, 1, 0, FLOAT) \
  X(LOP3, "lop3", 5, 5, 1, 0, ARITH) \
  X(MAD, "mad", 4, 4, 1, 0, ARITH) \
  X(MAD24, "mad24", 4, 4, 1, 0, ARITH) \
  X(MADC, "madc", 4, 4, 1, 0, ARITH) \
  X(MATCH, "match", 4, 4, 2, FT_PTX_COLL | FT_PTX_PAIR, COLL) \
  X(MAX, "max", 3, 4, 1, 0, ARITH) \
  X(MEMBAR, "membar", 0, 0, 0, 0, MEM) \
  X(MIN, "min", 3, 4, 1, 0, ARITH) \
  X(MOV, "mov", 2, 2, 1, 0, INT) \
  X(MUL, "mul", 3, 3, 1, 0, ARITH) \
  X(MUL24, "mul24", 3, 3, 1, 0, ARITH) \
  X(NANOSLEEP, "nanosleep", 0, FT_PTX_ANY, 0, 0, SPECIAL) \
  X(NEG, "neg", 2, 2, 1, 0, ARITH) \
  X(NOT, "not", 2, 2, 1, 0, ARITH) \
  X(OR, "or", 3, 3, 1, 0, ARITH) \
  X(PMEVENT, "pmevent", 0, FT_PTX_ANY, 0, 0, SPECIAL) \
  X(POPC, "popc", 2, 2, 1, 0, ARITH) \
  X(PREFETCH, "prefetch", 0, FT_PTX_ANY, 0, FT_PTX_MEM, MEM) \
  X(PREFETCHU, "prefetchu", 0, FT_PTX_ANY, 0, FT_PTX_MEM, MEM) \
  X(PRMT, "prmt", 4, 4, 1, 0, ARITH) \
  X(RCP, "rcp", 2, 2, 1, 0, FLOAT) \
  X(RED, "red", 2, 3, 0, FT_PTX_MEM, MEM) \
  X(REDUX, "redux", 0, FT_PTX_ANY, 1, FT_PTX_COLL, COLL) \
  X(REM, "rem", 3, 3, 1, 0, ARITH) \
  X(RET, "ret", 0, 0, 0, FT_PTX_CTRL, CTRL) \
  X(RSQRT, "rsqrt", 2, 2, 1, 0, FLOAT) \
  X(SAD, "sad", 4, 4, 1, 0, ARITH) \
  X(SELP, "selp", 4, 4, 1, 0, CMP) \
  X(SET, "set", 3, 4, 1, 0, CMP) \
  X(SETP, "setp", 4, 5, 2, FT_PTX_PAIR, CMP) \
  X(SHF, "shf", 4, 4, 1, 0, ARITH) \
  X(SHFL, "shfl", 5, 6, 2, FT_PTX_COLL | FT_PTX_PAIR, COLL) \
  X(SHL, "shl", 3, 3, 1, 0, ARITH) \
  X(SHR, "shr", 3, 3, 1, 0, ARITH) \
  X(SIN, "sin", 2, 2, 1, 0, FLOAT) \
  X(SLCT, "slct", 4, 4, 1, 0, CMP) \
  X(SQRT, "sqrt", 2, 2, 1, 0, FLOAT) \
  X(ST, "st", 2, 3, 0, FT_PTX_MEM, MEM) \
  X(SUB, "sub", 3, 3, 1, 0, ARITH) \
  X(SUBC, "subc", 3, 3, 1, 0, ARITH) \
  X(TANH, "tanh", 2, 2, 1, 0, FLOAT) \
  X(TESTP, "testp", 2, 2, 1, 0, FLOAT) \
  X(TRAP, "trap", 0, 0, 0, FT_PTX_CTRL, CTRL) \
  X(VOTE, "vote", 2, 3, 1, FT_PTX_COLL, COLL) \
  X(XOR, "xor", 3, 3, 1, 0, ARITH) \
  /* Below: the library forms (the parser reads their modifiers into the fields \
   * docs/ptx.md "Library forms" lists). */ \
  X(BMSK, "bmsk", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(SZEXT, "szext", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(GRIDDEPCONTROL, "griddepcontrol", 0, FT_PTX_ANY, 0, 0, NONE) \
  X(ELECT, "elect", 0, FT_PTX_ANY, 2, FT_PTX_COLL | FT_PTX_PAIR, NONE) \
  X(SETMAXNREG, "setmaxnreg", 0, FT_PTX_ANY, 0, 0, NONE) \
  X(BRX_IDX, "brx.idx", 0, FT_PTX_ANY, 0, FT_PTX_CTRL, NONE) \
  X(LDMATRIX, "ldmatrix", 2, 2, 1, FT_PTX_MEM | FT_PTX_COLL, MATRIX) \
  X(STMATRIX, "stmatrix", 0, FT_PTX_ANY, 0, FT_PTX_MEM | FT_PTX_COLL, NONE) \
  X(MMA, "mma", 0, FT_PTX_ANY, 1, FT_PTX_COLL, MATRIX) \
  X(WMMA_LOAD, "wmma.load", 0, FT_PTX_ANY, 1, FT_PTX_MEM | FT_PTX_COLL, MATRIX) \
  X(WMMA_STORE, "wmma.store", 0, FT_PTX_ANY, 0, FT_PTX_MEM | FT_PTX_COLL, MATRIX) \
  X(WMMA_MMA, "wmma.mma", 0, FT_PTX_ANY, 1, FT_PTX_COLL, MATRIX) \
  X(TEX, "tex", 0, FT_PTX_ANY, 2, FT_PTX_MEM | FT_PTX_PAIR, TEX) \
  X(TLD4, "tld4", 0, FT_PTX_ANY, 2, FT_PTX_MEM | FT_PTX_PAIR, TEX) \
  X(TXQ, "txq", 0, FT_PTX_ANY, 1, 0, TEX) \
  X(SULD, "suld", 0, FT_PTX_ANY, 1, FT_PTX_MEM, TEX) \
  X(SUST, "sust", 0, FT_PTX_ANY, 0, FT_PTX_MEM, TEX) \
  X(SURED, "sured", 0, FT_PTX_ANY, 0, FT_PTX_MEM, TEX) \
  X(SUQ, "suq", 0, FT_PTX_ANY, 1, 0, TEX) \
  X(MULTIMEM_LD_REDUCE, "multimem.ld_reduce", 0, FT_PTX_ANY, 1, FT_PTX_MEM, NONE) \
  X(MULTIMEM_ST, "multimem.st", 0, FT_PTX_ANY, 0, FT_PTX_MEM, NONE) \
  X(MULTIMEM_RED, "multimem.red", 0, FT_PTX_ANY, 0, FT_PTX_MEM, NONE) \
  X(CP_ASYNC_BULK, "cp.async.bulk", 0, FT_PTX_ANY, 0, FT_PTX_MEM, NONE) \
  X(CP_ASYNC_BULK_TENSOR, "cp.async.bulk.tensor", 0, FT_PTX_ANY, 0, FT_PTX_MEM, NONE) \
  X(CP_ASYNC_BULK_PREFETCH, "cp.async.bulk.prefetch", 0, FT_PTX_ANY, 0, FT_PTX_MEM, NONE) \
  X(CP_ASYNC_BULK_PREFETCH_TENSOR, "cp.async.bulk.prefetch.tensor", 0, FT_PTX_ANY, 0, FT_PTX_MEM, NONE) \
  X(CP_ASYNC_BULK_COMMIT, "cp.async.bulk.commit_group", 0, FT_PTX_ANY, 0, 0, NONE) \
  X(CP_ASYNC_BULK_WAIT, "cp.async.bulk.wait_group", 0, FT_PTX_ANY, 0, 0, NONE) \
  X(CP_REDUCE_ASYNC_BULK, "cp.reduce.async.bulk", 0, FT_PTX_ANY, 0, FT_PTX_MEM, NONE) \
  X(CP_REDUCE_ASYNC_BULK_TENSOR, "cp.reduce.async.bulk.tensor", 0, FT_PTX_ANY, 0, FT_PTX_MEM, NONE) \
  X(CP_ASYNC_MBARRIER_ARRIVE, "cp.async.mbarrier.arrive", 0, FT_PTX_ANY, 0, FT_PTX_MEM, NONE) \
  X(MBARRIER, "mbarrier", 0, FT_PTX_ANY, 1, FT_PTX_MEM, NONE) \
  X(FENCE_PROXY, "fence.proxy", 0, FT_PTX_ANY, 0, 0, NONE) \
  X(FENCE_MBARRIER_INIT, "fence.mbarrier_init", 0, FT_PTX_ANY, 0, 0, NONE) \
  X(VADD, "vadd", 0, FT_PTX_ANY, 1, 0, NONE) X(VSUB, "vsub", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VABSDIFF, "vabsdiff", 0, FT_PTX_ANY, 1, 0, NONE) X(VMIN, "vmin", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VMAX, "vmax", 0, FT_PTX_ANY, 1, 0, NONE) X(VSHL, "vshl", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VSHR, "vshr", 0, FT_PTX_ANY, 1, 0, NONE) X(VMAD, "vmad", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VSET, "vset", 0, FT_PTX_ANY, 1, 0, NONE) X(VADD2, "vadd2", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VSUB2, "vsub2", 0, FT_PTX_ANY, 1, 0, NONE) X(VAVRG2, "vavrg2", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VABSDIFF2, "vabsdiff2", 0, FT_PTX_ANY, 1, 0, NONE) X(VMIN2, "vmin2", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VMAX2, "vmax2", 0, FT_PTX_ANY, 1, 0, NONE) X(VSET2, "vset2", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VADD4, "vadd4", 0, FT_PTX_ANY, 1, 0, NONE) X(VSUB4, "vsub4", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VAVRG4, "vavrg4", 0, FT_PTX_ANY, 1, 0, NONE) X(VABSDIFF4, "vabsdiff4", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VMIN4, "vmin4", 0, FT_PTX_ANY, 1, 0, NONE) X(VMAX4, "vmax4", 0, FT_PTX_ANY, 1, 0, NONE) \
  X(VSET4, "vset4", 0, FT_PTX_ANY, 1, 0, NONE)

#endif
