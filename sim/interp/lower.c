/* lower.c: turns one kernel of a parsed PTX module (ptx/ptx_ir.h) into the
 * interpreter's flat program: .func calls inlined (call-site .param scratch and the
 * callee's parameters become per-thread local memory), every operand a register
 * (immediates and symbol addresses become constant registers, per-thread special
 * registers are filled at warp start), labels resolved, an exec function chosen per
 * instruction. Anything it cannot run is refused here, naming the instruction. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "lower.h"
#include "texsurf.h"

#define TAG_CONST 0x80000000u
#define TAG_SREG 0x40000000u
#define TAG_SINK 0x20000000u
#define MAX_INLINE_DEPTH 16

typedef struct {
  const ft_ptx_module_t *mod;
  const uint64_t *var_addr;   /* module vars: device address (global/const) */
  size_t *mod_shared_off;     /* module .shared vars: offset, SIZE_MAX: dynamic */
  sim_insn_t *code;
  uint32_t n, cap;
  uint64_t *consts;
  uint32_t n_consts, cap_consts;
  uint32_t n_regs;            /* allocated so far (instances of functions) */
  size_t shared, local;
  char *err;
  size_t errlen;
  bool failed;
  /* Recursive functions: their out-of-line bodies (emitted after the kernel) and
   * the call sites that reach them (sim_body_t, sim_callsite_t). */
  struct {
    const ft_ptx_function_t *fn;
    uint64_t *param_loc, *ret_loc;
  } *ool;
  sim_body_t *bodies;
  uint32_t n_ool, cap_ool;
  sim_callsite_t *calls;
  uint32_t n_calls, cap_calls;
  uint32_t *xregs; /* sim_kprog_t.xregs */
  uint32_t n_x, cap_x;
  uint8_t *taken;  /* per function definition: its address is taken (indirect calls); NULL: not scanned */
  bool wide;       /* the AVX2 executors (use_wide) */
} lctx_t;

/* A function being emitted: where its registers and symbols live. */
typedef struct inst_s {
  const ft_ptx_function_t *fn;
  uint32_t reg_base;
  uint64_t *var_loc;          /* fn->vars: shared offset / local offset */
  uint64_t *param_loc;        /* fn->params: kernel: param offset; callee: local offset */
  uint64_t *ret_loc;          /* fn->rets: local offset */
  uint32_t *pcmap;            /* IR instruction -> pc */
  uint32_t *ret_fix;          /* pcs of ret branches to patch */
  size_t n_ret_fix;
  int depth;
  const struct inst_s *parent; /* the instance whose call inlined this one */
  bool ool;                    /* an out-of-line body: ret returns (SIM_K_RET) */
} inst_t;

static void fail(lctx_t *c, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(lctx_t *c, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in, const char *fmt, ...) {
  if (c->failed) return;
  c->failed = true;
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (in)
    snprintf(c->err, c->errlen, "%s, line %u: %s", fn ? fn->name : "?", in->line, what);
  else
    snprintf(c->err, c->errlen, "%s: %s", fn ? fn->name : "?", what);
}

static uint32_t konst(lctx_t *c, uint64_t v) {
  for (uint32_t i = 0; i < c->n_consts; i++)
    if (c->consts[i] == v) return TAG_CONST | i;
  if (c->n_consts == c->cap_consts) {
    c->cap_consts = c->cap_consts ? c->cap_consts * 2 : 64;
    c->consts = realloc(c->consts, c->cap_consts * sizeof *c->consts);
    if (!c->consts) abort();
  }
  c->consts[c->n_consts] = v;
  return TAG_CONST | c->n_consts++;
}

static sim_insn_t *emit(lctx_t *c) {
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 256;
    c->code = realloc(c->code, c->cap * sizeof *c->code);
    if (!c->code) abort();
  }
  sim_insn_t *s = &c->code[c->n++];
  memset(s, 0, sizeof *s);
  s->guard = -1;
  return s;
}

static size_t align_up(size_t v, size_t a) { return a ? (v + a - 1) / a * a : v; }

static int sreg_slot(unsigned sr, unsigned comp) {
  switch (sr) {
    case FT_PTX_SR_TID: return SIM_SR_TID_X + (int)comp;
    case FT_PTX_SR_NTID: return SIM_SR_NTID_X + (int)comp;
    case FT_PTX_SR_CTAID: return SIM_SR_CTAID_X + (int)comp;
    case FT_PTX_SR_NCTAID: return SIM_SR_NCTAID_X + (int)comp;
    case FT_PTX_SR_LANEID: return SIM_SR_LANEID;
    case FT_PTX_SR_WARPID: return SIM_SR_WARPID;
    case FT_PTX_SR_NWARPID: return SIM_SR_NWARPID;
    case FT_PTX_SR_LANEMASK_EQ: return SIM_SR_LANEMASK_EQ;
    case FT_PTX_SR_LANEMASK_LT: return SIM_SR_LANEMASK_LT;
    case FT_PTX_SR_LANEMASK_LE: return SIM_SR_LANEMASK_LE;
    case FT_PTX_SR_LANEMASK_GT: return SIM_SR_LANEMASK_GT;
    case FT_PTX_SR_LANEMASK_GE: return SIM_SR_LANEMASK_GE;
    case FT_PTX_SR_SMID: return SIM_SR_SMID;
    case FT_PTX_SR_NSMID: return SIM_SR_NSMID;
    case FT_PTX_SR_GRIDID: return SIM_SR_GRIDID;
    case FT_PTX_SR_ENVREG: return comp == 1 ? SIM_SR_ENVREG1 : SIM_SR_ENVREG2;
    default: return -1;
  }
}

/* Address of a symbol as the instruction's state space sees it; *space gets the
 * space the access really goes to. false when not addressable here. */
static bool sym_addr(lctx_t *c, const inst_t *it, unsigned kind, uint32_t idx, uint64_t *addr, unsigned *space) {
  const ft_ptx_function_t *fn = it->fn;
  switch (kind) {
    case FT_PTX_SYM_MODVAR: {
      if (idx >= c->mod->nvars) return false;
      const ft_ptx_var_t *v = &c->mod->vars[idx];
      if (v->space == FT_PTX_SP_SHARED) {
        *addr = c->mod_shared_off[idx] == SIZE_MAX ? align_up(c->shared, 16) : c->mod_shared_off[idx];
        /* dynamic shared: resolved against the final static size in finish() */
        if (c->mod_shared_off[idx] == SIZE_MAX) *addr = UINT64_MAX;
        *space = FT_PTX_SP_SHARED;
        return true;
      }
      if (v->space == FT_PTX_SP_GLOBAL || v->space == FT_PTX_SP_CONST) {
        *addr = c->var_addr ? c->var_addr[idx] : 0;
        *space = FT_PTX_SP_GLOBAL;
        return *addr != 0;
      }
      return false;
    }
    case FT_PTX_SYM_FUNCVAR: {
      if (idx >= fn->nvars) return false;
      const ft_ptx_var_t *v = &fn->vars[idx];
      *addr = it->var_loc[idx];
      if (v->space == FT_PTX_SP_SHARED) {
        *space = FT_PTX_SP_SHARED;
        if (v->unsized) *addr = UINT64_MAX;
        return true;
      }
      if (v->space == FT_PTX_SP_LOCAL || v->space == FT_PTX_SP_PARAM) {
        *space = FT_PTX_SP_LOCAL;
        return true;
      }
      if (v->space == FT_PTX_SP_GLOBAL || v->space == FT_PTX_SP_CONST) return false; /* function-scope statics: rare */
      return false;
    }
    case FT_PTX_SYM_PARAM:
      if (idx >= fn->nparams) return false;
      *addr = it->param_loc[idx];
      *space = fn->is_entry ? FT_PTX_SP_PARAM : FT_PTX_SP_LOCAL;
      return true;
    case FT_PTX_SYM_FUNC: /* a function pointer */
      if (idx >= c->mod->nfuncs) return false;
      *addr = sim_interp_func_addr(c->mod, idx);
      *space = FT_PTX_SP_GLOBAL;
      return true;
    case FT_PTX_SYM_RET:
      if (idx >= fn->nrets) return false;
      *addr = it->ret_loc[idx];
      *space = FT_PTX_SP_LOCAL;
      return true;
    default:
      return false;
  }
}

/* Dynamic shared memory symbols are patched at the end, once the static size is known. */
#define DYN_SHARED_MARK 0x7ffffffffffff000ull

static uint32_t src_reg(lctx_t *c, const inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_operand_t *o,
                        unsigned type, bool *neg) {
  if (neg) *neg = o->neg;
  switch (o->kind) {
    case FT_PTX_OPD_REG: return it->reg_base + o->index;
    case FT_PTX_OPD_IMM_INT: {
      uint64_t v = (uint64_t)o->value;
      if (type == FT_PTX_T_F32) {
        float f = (float)o->value;
        uint32_t u;
        memcpy(&u, &f, 4);
        v = u;
      } else if (type == FT_PTX_T_F64) {
        double d = (double)o->value;
        memcpy(&v, &d, 8);
      }
      return konst(c, v);
    }
    case FT_PTX_OPD_IMM_F32: {
      uint64_t v = (uint32_t)o->value;
      if (type == FT_PTX_T_F64) { /* a 0f literal where a double is wanted */
        float f;
        uint32_t u = (uint32_t)o->value;
        memcpy(&f, &u, 4);
        double d = f;
        memcpy(&v, &d, 8);
      }
      return konst(c, v);
    }
    case FT_PTX_OPD_IMM_F64: {
      uint64_t v = (uint64_t)o->value;
      if (type == FT_PTX_T_F32) {
        double d;
        memcpy(&d, &v, 8);
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        v = u;
      }
      return konst(c, v);
    }
    case FT_PTX_OPD_SREG: {
      /* %envreg<N>: set by a driver before a launch; the simulator's sets 1 and 2
       * (the grid workspace of a cooperative launch, per launch), the others 0 */
      if (o->index == FT_PTX_SR_ENVREG && o->count != 1 && o->count != 2) return konst(c, 0);
      int s = sreg_slot(o->index, o->count);
      if (s < 0) {
        fail(c, it->fn, in, "special register %s is not supported here", ft_ptx_sreg_name(o->index));
        return 0;
      }
      return TAG_SREG | (uint32_t)s;
    }
    case FT_PTX_OPD_SYM: {
      uint64_t a;
      unsigned sp;
      if (!sym_addr(c, it, o->sym_kind, o->index, &a, &sp)) {
        fail(c, it->fn, in, "the address of this symbol is not supported");
        return 0;
      }
      if (a == UINT64_MAX) return konst(c, DYN_SHARED_MARK + (uint64_t)o->value);
      return konst(c, a + (uint64_t)o->value);
    }
    case FT_PTX_OPD_SINK: return TAG_SINK;
    default:
      fail(c, it->fn, in, "unexpected operand kind %u", o->kind);
      return 0;
  }
}

static uint32_t dst_reg(lctx_t *c, const inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_operand_t *o) {
  if (o->kind == FT_PTX_OPD_REG) return it->reg_base + o->index;
  if (o->kind == FT_PTX_OPD_SINK || o->kind == FT_PTX_OPD_NONE) return TAG_SINK;
  fail(c, it->fn, in, "destination is not a register");
  return 0;
}

/* [base + off]: base register in a[0], immediate (symbol address included) in off. */
static void addr_opd(lctx_t *c, const inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_operand_t *o,
                     sim_insn_t *s) {
  if (o->kind != FT_PTX_OPD_ADDR) {
    fail(c, it->fn, in, "expected an address operand");
    return;
  }
  s->off = o->value;
  if (o->base_kind == FT_PTX_OPD_REG) {
    s->a[0] = it->reg_base + o->index;
  } else if (o->base_kind == FT_PTX_OPD_SYM) {
    uint64_t a;
    unsigned sp;
    if (!sym_addr(c, it, o->sym_kind, o->index, &a, &sp)) {
      fail(c, it->fn, in, "cannot address this symbol");
      return;
    }
    s->a[0] = konst(c, 0);
    if (a == UINT64_MAX) {
      s->a[0] = konst(c, DYN_SHARED_MARK);
    } else {
      s->off += (int64_t)a;
    }
    /* The symbol decides where the access goes (a callee's .param is local memory;
     * .const variables live in device memory). */
    if (s->space == FT_PTX_SP_PARAM || s->space == FT_PTX_SP_CONST || s->space == FT_PTX_SP_GENERIC) s->space = (uint8_t)sp;
    if (sp == FT_PTX_SP_SHARED && s->space == FT_PTX_SP_GENERIC) s->space = FT_PTX_SP_SHARED;
  } else {
    s->a[0] = konst(c, 0);
  }
}

static void emit_func(lctx_t *c, inst_t *it);

/* Local memory for a function instance's .local/.param variables. */
static uint64_t local_alloc(lctx_t *c, uint64_t size, uint32_t align) {
  c->local = align_up(c->local, align ? align : 1);
  uint64_t off = c->local;
  c->local += size ? size : 1;
  return off;
}

static bool inst_init(lctx_t *c, inst_t *it, const ft_ptx_function_t *fn, int depth) {
  memset(it, 0, sizeof *it);
  it->fn = fn;
  it->depth = depth;
  it->reg_base = c->n_regs;
  c->n_regs += (uint32_t)fn->nregs;
  it->var_loc = calloc(fn->nvars + 1, sizeof *it->var_loc);
  it->param_loc = calloc(fn->nparams + 1, sizeof *it->param_loc);
  it->ret_loc = calloc(fn->nrets + 1, sizeof *it->ret_loc);
  it->pcmap = calloc(fn->ninstrs + 1, sizeof *it->pcmap);
  it->ret_fix = calloc(fn->ninstrs + 1, sizeof *it->ret_fix);
  if (!it->var_loc || !it->param_loc || !it->ret_loc || !it->pcmap || !it->ret_fix) abort();
  for (size_t i = 0; i < fn->nvars; i++) {
    const ft_ptx_var_t *v = &fn->vars[i];
    if (v->space == FT_PTX_SP_SHARED && !v->unsized) {
      c->shared = align_up(c->shared, v->align ? v->align : 1);
      it->var_loc[i] = c->shared;
      c->shared += v->size;
      if (v->init) fail(c, fn, NULL, "initialised .shared variable %s", v->name);
    } else if (v->space == FT_PTX_SP_LOCAL || v->space == FT_PTX_SP_PARAM) {
      it->var_loc[i] = local_alloc(c, v->size, v->align);
      if (v->init) fail(c, fn, NULL, "initialised .local variable %s", v->name);
    }
  }
  return true;
}

static void inst_free(inst_t *it) {
  free(it->var_loc);
  free(it->param_loc);
  free(it->ret_loc);
  free(it->pcmap);
  free(it->ret_fix);
}

static int find_func(const lctx_t *c, const ft_ptx_function_t *fn, const ft_ptx_operand_t *o) {
  (void)fn;
  if (o->kind != FT_PTX_OPD_SYM || o->sym_kind != FT_PTX_SYM_FUNC || o->index >= c->mod->nfuncs) return -1;
  /* A declaration (prototype) may precede the definition: find the body by name. */
  const ft_ptx_function_t *f = &c->mod->funcs[o->index];
  if (!f->is_decl) return (int)o->index;
  for (size_t i = 0; i < c->mod->nfuncs; i++)
    if (!c->mod->funcs[i].is_decl && strcmp(c->mod->funcs[i].name, f->name) == 0) return (int)i;
  return -1;
}

/* The instruction standing for a call to an external function the interpreter
 * provides (guarded like the call). */
static sim_insn_t *emit_extcall(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in) {
  sim_insn_t *s = emit(c);
  s->kind = SIM_K_EXEC;
  s->op = FT_PTX_OP_CALL;
  s->line = in->line;
  if (in->guard != FT_PTX_NO_REG) {
    s->guard = (int32_t)(it->reg_base + in->guard);
    s->guard_neg = in->guard_neg;
  }
  return s;
}

/* The per-thread local offsets of the n .param variables a call to the external
 * function `name` passes (false, the lowering failed, if one is something else). */
static bool param_locs(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_operand_t *args, unsigned n,
                       const char *name, uint64_t *loc) {
  const ft_ptx_function_t *fn = it->fn;
  unsigned sp;
  for (unsigned i = 0; i < n; i++) {
    const ft_ptx_operand_t *ao = &fn->operands[args->index + i];
    if (ao->kind != FT_PTX_OPD_SYM || !sym_addr(c, it, ao->sym_kind, ao->index, &loc[i], &sp) || sp != FT_PTX_SP_LOCAL) {
      fail(c, fn, in, "call to %s: argument %u is not a .param variable", name, i);
      return false;
    }
  }
  return true;
}

/* Device printf: nvcc calls the external vprintf(format, argument buffer). */
static void emit_vprintf(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_operand_t *rets,
                         const ft_ptx_operand_t *args) {
  const ft_ptx_function_t *fn = it->fn;
  uint64_t loc[3];
  unsigned sp;
  if (!param_locs(c, it, in, args, 2, "vprintf", loc)) return;
  loc[2] = local_alloc(c, 4, 4); /* the return value when it is not used */
  if (rets->kind == FT_PTX_OPD_VEC && rets->count == 1) {
    const ft_ptx_operand_t *ro = &fn->operands[rets->index];
    if (ro->kind != FT_PTX_OPD_SYM || !sym_addr(c, it, ro->sym_kind, ro->index, &loc[2], &sp) || sp != FT_PTX_SP_LOCAL) {
      fail(c, fn, in, "call to vprintf: its return is not a .param variable");
      return;
    }
  }
  sim_insn_t *s = emit_extcall(c, it, in);
  s->off = (int64_t)loc[0];
  s->target = (uint32_t)loc[1];
  s->a[3] = (uint32_t)loc[2];
  s->exec = sim_choose_printf();
}

/* Device assert: nvcc calls the external __assertfail(message, file, line,
 * function, charSize); the local offsets of the five .param arguments go in off,
 * target and a[1..3] (no registers: na stays 0). */
static void emit_assertfail(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_operand_t *args) {
  uint64_t loc[5];
  if (!param_locs(c, it, in, args, 5, "__assertfail", loc)) return;
  sim_insn_t *s = emit_extcall(c, it, in);
  s->off = (int64_t)loc[0];
  s->target = (uint32_t)loc[1];
  for (unsigned i = 2; i < 5; i++) s->a[i - 1] = (uint32_t)loc[i];
  s->exec = sim_choose_assertfail();
}

/* Device malloc(size) / free(p) (also new and delete): the local offsets of the
 * argument and (malloc) the result go in off and target. */
static void emit_heapcall(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_operand_t *rets,
                          const ft_ptx_operand_t *args, bool is_free) {
  const ft_ptx_function_t *fn = it->fn;
  const char *name = is_free ? "free" : "malloc";
  uint64_t arg = 0, ret = 0;
  unsigned sp;
  if (!param_locs(c, it, in, args, 1, name, &arg)) return;
  if (!is_free) {
    ret = local_alloc(c, 8, 8); /* the result when it is not used */
    if (rets->kind == FT_PTX_OPD_VEC && rets->count == 1) {
      const ft_ptx_operand_t *ro = &fn->operands[rets->index];
      if (ro->kind != FT_PTX_OPD_SYM || !sym_addr(c, it, ro->sym_kind, ro->index, &ret, &sp) || sp != FT_PTX_SP_LOCAL) {
        fail(c, fn, in, "call to malloc: its return is not a .param variable");
        return;
      }
    }
  }
  sim_insn_t *s = emit_extcall(c, it, in);
  s->off = (int64_t)arg;
  s->target = (uint32_t)ret;
  s->exec = sim_choose_heap(is_free);
}

/* cudaGraphSetConditional(handle, value) (conditional graph nodes): the local
 * offsets of its two .param arguments go in off and target. */
static void emit_setcond(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_operand_t *args) {
  uint64_t loc[2];
  if (!param_locs(c, it, in, args, 2, "cudaGraphSetConditional", loc)) return;
  sim_insn_t *s = emit_extcall(c, it, in);
  s->off = (int64_t)loc[0];
  s->target = (uint32_t)loc[1];
  s->exec = sim_choose_setcond();
}

/* The name of a called function that has no body in the module (an external one
 * the interpreter may provide), NULL if the target is not such a function. */
static const char *extern_name(const lctx_t *c, const ft_ptx_operand_t *target) {
  if (target->kind != FT_PTX_OPD_SYM || target->sym_kind != FT_PTX_SYM_FUNC || target->index >= c->mod->nfuncs)
    return NULL;
  return c->mod->funcs[target->index].name;
}

/* The out-of-line body of a recursive function (registered once; its parameters
 * and results get local memory now, the rest when it is emitted). */
static uint32_t ool_body(lctx_t *c, const ft_ptx_function_t *fn) {
  for (uint32_t i = 0; i < c->n_ool; i++)
    if (c->ool[i].fn == fn) return i;
  if (c->n_ool == c->cap_ool) {
    c->cap_ool = c->cap_ool ? c->cap_ool * 2 : 4;
    c->ool = realloc(c->ool, c->cap_ool * sizeof *c->ool);
    c->bodies = realloc(c->bodies, c->cap_ool * sizeof *c->bodies);
    if (!c->ool || !c->bodies) abort();
  }
  uint32_t i = c->n_ool++;
  c->ool[i].fn = fn;
  c->ool[i].param_loc = calloc(fn->nparams + 1, sizeof(uint64_t));
  c->ool[i].ret_loc = calloc(fn->nrets + 1, sizeof(uint64_t));
  if (!c->ool[i].param_loc || !c->ool[i].ret_loc) abort();
  memset(&c->bodies[i], 0, sizeof c->bodies[i]);
  c->bodies[i].ploc_lo = c->local;
  for (size_t k = 0; k < fn->nparams; k++) c->ool[i].param_loc[k] = local_alloc(c, fn->params[k].size, fn->params[k].align);
  for (size_t k = 0; k < fn->nrets; k++) c->ool[i].ret_loc[k] = local_alloc(c, fn->rets[k].size, fn->rets[k].align);
  c->bodies[i].ploc_hi = c->local;
  return i;
}

/* A call of a function that is already being emitted up the chain (recursion): a
 * real call (SIM_K_CALL) to its out-of-line body. */
static void emit_real_call(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_function_t *callee,
                           const ft_ptx_operand_t *rets, const ft_ptx_operand_t *args) {
  const ft_ptx_function_t *fn = it->fn;
  uint32_t b = ool_body(c, callee);
  sim_callsite_t cs = {.body = b, .n_args = (uint32_t)callee->nparams, .n_rets = (uint32_t)callee->nrets};
  cs.args = calloc(callee->nparams + 1, sizeof *cs.args);
  cs.rets = calloc(callee->nrets + 1, sizeof *cs.rets);
  if (!cs.args || !cs.rets) abort();
  uint64_t a = 0;
  unsigned sp;
  for (size_t i = 0; i < callee->nparams && !c->failed; i++) {
    const ft_ptx_operand_t *ao = args->kind == FT_PTX_OPD_VEC && i < args->count ? &fn->operands[args->index + i] : NULL;
    if (!ao || ao->kind != FT_PTX_OPD_SYM || !sym_addr(c, it, ao->sym_kind, ao->index, &a, &sp) || sp != FT_PTX_SP_LOCAL)
      fail(c, fn, in, "call to %s: argument %zu is not a .param variable", callee->name, i);
    cs.args[i] = (sim_argcopy_t){a, c->ool[b].param_loc[i], (uint32_t)callee->params[i].size};
  }
  for (size_t i = 0; i < callee->nrets && !c->failed; i++) {
    const ft_ptx_operand_t *ro = rets->kind == FT_PTX_OPD_VEC && i < rets->count ? &fn->operands[rets->index + i] : NULL;
    if (!ro) a = local_alloc(c, callee->rets[i].size, callee->rets[i].align); /* result ignored */
    else if (ro->kind != FT_PTX_OPD_SYM || !sym_addr(c, it, ro->sym_kind, ro->index, &a, &sp) || sp != FT_PTX_SP_LOCAL)
      fail(c, fn, in, "call to %s: return %zu is not a .param variable", callee->name, i);
    cs.rets[i] = (sim_argcopy_t){c->ool[b].ret_loc[i], a, (uint32_t)callee->rets[i].size};
  }
  if (c->n_calls == c->cap_calls) {
    c->cap_calls = c->cap_calls ? c->cap_calls * 2 : 8;
    c->calls = realloc(c->calls, c->cap_calls * sizeof *c->calls);
    if (!c->calls) abort();
  }
  c->calls[c->n_calls] = cs;
  sim_insn_t *s = emit_extcall(c, it, in);
  s->kind = SIM_K_CALL;
  s->target = c->n_calls++;
}

/* The out-of-line bodies, after the kernel (a body may register more). */
static void emit_bodies(lctx_t *c) {
  for (uint32_t i = 0; i < c->n_ool && !c->failed; i++) {
    sim_body_t *bd = &c->bodies[i];
    bd->entry = c->n;
    bd->reg_lo = c->n_regs;
    bd->loc_lo = c->local;
    inst_t b;
    inst_init(c, &b, c->ool[i].fn, 1);
    b.ool = true;
    for (size_t k = 0; k < b.fn->nparams; k++) b.param_loc[k] = c->ool[i].param_loc[k];
    for (size_t k = 0; k < b.fn->nrets; k++) b.ret_loc[k] = c->ool[i].ret_loc[k];
    emit_func(c, &b);
    sim_insn_t *r = emit(c); /* falling off the end returns */
    r->kind = SIM_K_RET;
    r->op = FT_PTX_OP_RET;
    bd = &c->bodies[i];
    bd->reg_hi = c->n_regs;
    bd->loc_hi = c->local;
    inst_free(&b);
  }
}

static void free_ool(lctx_t *c) {
  for (uint32_t i = 0; i < c->n_ool; i++) {
    free(c->ool[i].param_loc);
    free(c->ool[i].ret_loc);
  }
  free(c->ool);
}

/* @p call: a branch around what follows when !p (its pc, patched by the caller);
 * UINT32_MAX when unguarded. */
static uint32_t guard_skip(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in) {
  if (in->guard == FT_PTX_NO_REG) return UINT32_MAX;
  sim_insn_t *b = emit(c);
  b->kind = SIM_K_BRA;
  b->guard = (int32_t)(it->reg_base + in->guard);
  b->guard_neg = !in->guard_neg;
  b->op = FT_PTX_OP_BRA;
  b->line = in->line;
  return c->n - 1;
}

/* The body of callee for the call `in` (its guard already handled): inlined, or a
 * real call when callee is being emitted up the chain (recursion). */
static void emit_to(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_function_t *callee,
                    const ft_ptx_operand_t *rets, const ft_ptx_operand_t *args) {
  const ft_ptx_function_t *fn = it->fn;
  for (const inst_t *p = it; p; p = p->parent)
    if (p->fn == callee) {
      emit_real_call(c, it, in, callee, rets, args);
      return;
    }
  if (it->depth >= MAX_INLINE_DEPTH) {
    fail(c, fn, in, "call nesting deeper than %d", MAX_INLINE_DEPTH);
    return;
  }
  inst_t sub;
  inst_init(c, &sub, callee, it->depth + 1);
  sub.parent = it;
  uint64_t a;
  unsigned sp;
  for (size_t i = 0; i < callee->nparams; i++) {
    if (args->kind != FT_PTX_OPD_VEC || i >= args->count) {
      fail(c, fn, in, "call to %s: argument count", callee->name);
      break;
    }
    const ft_ptx_operand_t *ao = &fn->operands[args->index + i];
    if (ao->kind != FT_PTX_OPD_SYM || !sym_addr(c, it, ao->sym_kind, ao->index, &a, &sp) || sp != FT_PTX_SP_LOCAL) {
      fail(c, fn, in, "call to %s: argument %zu is not a .param variable", callee->name, i);
      break;
    }
    sub.param_loc[i] = a;
  }
  for (size_t i = 0; i < callee->nrets; i++) {
    if (rets->kind != FT_PTX_OPD_VEC || i >= rets->count) {
      sub.ret_loc[i] = local_alloc(c, callee->rets[i].size, callee->rets[i].align); /* result ignored */
      continue;
    }
    const ft_ptx_operand_t *ro = &fn->operands[rets->index + i];
    if (ro->kind != FT_PTX_OPD_SYM || !sym_addr(c, it, ro->sym_kind, ro->index, &a, &sp) || sp != FT_PTX_SP_LOCAL) {
      fail(c, fn, in, "call to %s: return %zu is not a .param variable", callee->name, i);
      break;
    }
    sub.ret_loc[i] = a;
  }
  if (!c->failed) emit_func(c, &sub);
  for (size_t i = 0; i < sub.n_ret_fix; i++) c->code[sub.ret_fix[i]].target = c->n;
  inst_free(&sub);
}

static uint32_t canon_func(const ft_ptx_module_t *m, uint32_t idx) {
  if (idx >= m->nfuncs || !m->funcs[idx].is_decl) return idx;
  for (size_t i = 0; i < m->nfuncs; i++)
    if (!m->funcs[i].is_decl && strcmp(m->funcs[i].name, m->funcs[idx].name) == 0) return (uint32_t)i;
  return idx;
}

uint64_t sim_interp_func_addr(const ft_ptx_module_t *mod, uint32_t index) {
  return SIM_WIN_FUNC + 16 * ((uint64_t)canon_func(mod, index) + 1);
}

/* The functions whose address is taken: named as a value anywhere (not as a call's
 * target) or in a variable's initialiser (vtables). */
static void scan_taken(lctx_t *c) {
  const ft_ptx_module_t *m = c->mod;
  c->taken = calloc(m->nfuncs + 1, 1);
  if (!c->taken) abort();
  for (size_t f = 0; f < m->nfuncs; f++) {
    const ft_ptx_function_t *fn = &m->funcs[f];
    for (size_t i = 0; i < fn->ninstrs; i++) {
      const ft_ptx_instr_t *in = &fn->instrs[i];
      for (unsigned k = 0; k < in->nops; k++) {
        const ft_ptx_operand_t *o = ft_ptx_opd(fn, in, k);
        if (o->kind == FT_PTX_OPD_SYM && o->sym_kind == FT_PTX_SYM_FUNC && !(in->op == FT_PTX_OP_CALL && k == 1) &&
            o->index < m->nfuncs)
          c->taken[canon_func(m, o->index)] = 1;
      }
    }
  }
  for (size_t v = 0; v < m->nvars; v++)
    for (size_t k = 0; k < m->vars[v].nrelocs; k++)
      if (m->vars[v].relocs[k].sym_kind == FT_PTX_SYM_FUNC && m->vars[v].relocs[k].index < m->nfuncs)
        c->taken[canon_func(m, m->vars[v].relocs[k].index)] = 1;
}

/* Does callee take the call's arguments and results (count and sizes)? */
static bool signature_fits(const ft_ptx_function_t *fn, const ft_ptx_function_t *callee, const ft_ptx_operand_t *rets,
                           const ft_ptx_operand_t *args) {
  unsigned na = args->kind == FT_PTX_OPD_VEC ? args->count : 0, nr = rets->kind == FT_PTX_OPD_VEC ? rets->count : 0;
  if (callee->nparams != na || callee->nrets != nr) return false;
  for (unsigned k = 0; k < na + nr; k++) {
    const ft_ptx_operand_t *o = &fn->operands[k < na ? args->index + k : rets->index + (k - na)];
    uint64_t want = k < na ? callee->params[k].size : callee->rets[k - na].size;
    if (o->kind != FT_PTX_OPD_SYM || o->sym_kind != FT_PTX_SYM_FUNCVAR || o->index >= fn->nvars ||
        fn->vars[o->index].size != want)
      return false;
  }
  return true;
}

/* call (rets), %r, (args), prototype: one test per function whose address is taken
 * and whose signature fits, each followed by that function's body for the lanes
 * whose %r holds its address (lanes may differ); a lane matching none traps (a
 * GPU would jump to an address holding no function). */
static void emit_indirect(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, const ft_ptx_operand_t *rets,
                          const ft_ptx_operand_t *target, const ft_ptx_operand_t *args) {
  const ft_ptx_function_t *fn = it->fn;
  if (!c->taken) scan_taken(c);
  uint32_t skip_pc = guard_skip(c, it, in), treg = it->reg_base + target->index;
  uint32_t ends[64], n_ends = 0;
  for (size_t i = 0; i < c->mod->nfuncs && !c->failed; i++) {
    const ft_ptx_function_t *f = &c->mod->funcs[i];
    if (f->is_decl || f->is_entry || !c->taken[i] || !signature_fits(fn, f, rets, args)) continue;
    if (n_ends == sizeof ends / sizeof ends[0]) {
      fail(c, fn, in, "indirect call: more than %zu functions fit its signature", sizeof ends / sizeof ends[0]);
      return;
    }
    uint32_t pr = c->n_regs++; /* lanes calling another function */
    sim_insn_t *t = emit(c);
    t->kind = SIM_K_EXEC, t->op = FT_PTX_OP_SETP, t->type = FT_PTX_T_U64, t->cmp = FT_PTX_CMP_NE, t->line = in->line;
    t->d[0] = pr, t->d[1] = TAG_SINK, t->nd = 2;
    t->a[0] = treg, t->a[1] = konst(c, sim_interp_func_addr(c->mod, (uint32_t)i)), t->na = 2;
    t->exec = sim_choose_compare(t);
    sim_insn_t *b = emit(c);
    b->kind = SIM_K_BRA, b->op = FT_PTX_OP_BRA, b->guard = (int32_t)pr, b->line = in->line;
    uint32_t next_pc = c->n - 1;
    emit_to(c, it, in, f, rets, args);
    sim_insn_t *e = emit(c);
    e->kind = SIM_K_BRA, e->op = FT_PTX_OP_BRA, e->line = in->line;
    ends[n_ends++] = c->n - 1;
    c->code[next_pc].target = c->n;
  }
  if (!n_ends && !c->failed) {
    fail(c, fn, in, "indirect call: no function with this call's signature has its address taken");
    return;
  }
  sim_insn_t *tr = emit(c);
  tr->kind = SIM_K_TRAP, tr->op = FT_PTX_OP_TRAP, tr->line = in->line;
  for (uint32_t k = 0; k < n_ends; k++) c->code[ends[k]].target = c->n;
  if (skip_pc != UINT32_MAX) c->code[skip_pc].target = c->n;
}

/* call (rets), f, (args): the callee's body inlined here. */
static void emit_call(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in) {
  const ft_ptx_function_t *fn = it->fn;
  if (in->nops < 3) {
    fail(c, fn, in, "malformed call");
    return;
  }
  const ft_ptx_operand_t *rets = ft_ptx_opd(fn, in, 0), *target = ft_ptx_opd(fn, in, 1),
                         *args = ft_ptx_opd(fn, in, 2);
  int fi = find_func(c, fn, target);
  const char *ext = fi < 0 ? extern_name(c, target) : NULL;
  unsigned nargs = args->kind == FT_PTX_OPD_VEC ? args->count : 0;
  if (ext && strcmp(ext, "vprintf") == 0 && nargs == 2) {
    emit_vprintf(c, it, in, rets, args);
    return;
  }
  if (ext && strcmp(ext, "__assertfail") == 0 && nargs == 5) {
    emit_assertfail(c, it, in, args);
    return;
  }
  if (ext && (strcmp(ext, "malloc") == 0 || strcmp(ext, "free") == 0) && nargs == 1) {
    emit_heapcall(c, it, in, rets, args, strcmp(ext, "free") == 0);
    return;
  }
  if (ext && strcmp(ext, "cudaGraphSetConditional") == 0 && nargs == 2) {
    emit_setcond(c, it, in, args);
    return;
  }
  if (target->kind == FT_PTX_OPD_REG) {
    emit_indirect(c, it, in, rets, target, args);
    return;
  }
  if (fi < 0) {
    fail(c, fn, in, "call to %s: external or indirect functions are not supported by the interpreter",
         ext ? ext : "(indirect)");
    return;
  }
  uint32_t skip_pc = guard_skip(c, it, in);
  emit_to(c, it, in, &c->mod->funcs[fi], rets, args);
  if (skip_pc != UINT32_MAX) c->code[skip_pc].target = c->n;
}

static unsigned reg_type(const inst_t *it, const ft_ptx_operand_t *o) {
  if (o->kind == FT_PTX_OPD_REG && o->index < it->fn->nregs) return it->fn->regs[o->index].type;
  return FT_PTX_T_NONE;
}

/* The form of an instruction, for messages: opcode, the modifiers that matter, types. */
static void form_name(const ft_ptx_instr_t *in, char *form, size_t n) {
  snprintf(form, n, "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s", ft_ptx_opcode_name(in->op), in->shape ? "." : "",
           in->shape ? ft_ptx_shape_name(in->shape) : "", in->flags & FT_PTX_F_PACK ? ".pack" : "",
           in->flags & FT_PTX_F_SATFINITE ? ".satfinite" : "", in->rnd == FT_PTX_RND_RS ? ".rs" : "",
           in->vec > 4 ? (in->vec > 8 ? ".v16" : ".v8") : "", in->type ? "." : "", ft_ptx_type_name(in->type),
           in->type2 ? "." : "", ft_ptx_type_name(in->type2), in->type3 ? "." : "", ft_ptx_type_name(in->type3),
           in->type4 ? "." : "", ft_ptx_type_name(in->type4));
}

/* What the parser reads only for the analysis (texture, bulk-copy, barrier and
 * video instructions, fp8 and packed conversions, wide vectors; matrix forms
 * matrix.c does not run): refused by name, never run with a modifier ignored.
 * 1 when refused. */
static int refuse_library_form(lctx_t *c, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  unsigned fam = ft_ptx_opinfo(in->op)->family;
  uint32_t mods = FT_PTX_F_SATFINITE | FT_PTX_F_TRANS | FT_PTX_F_MULTICAST | FT_PTX_F_PARITY |
                  FT_PTX_F_EXTRA_MOD | FT_PTX_F_PACK;
  if (fam == FT_PTX_FAM_MATRIX) mods &= ~(uint32_t)(FT_PTX_F_SATFINITE | FT_PTX_F_TRANS); /* matrix.c checks */
  bool types = fam != FT_PTX_FAM_MATRIX && (in->type >= FT_PTX_T_FIRST_EXTRA || in->type2 >= FT_PTX_T_FIRST_EXTRA ||
                                             in->type3 || in->type4);
  bool refuse = fam == FT_PTX_FAM_NONE || types || (in->flags & mods) || in->rnd == FT_PTX_RND_RS || in->vec > 4;
  for (unsigned i = 0; i < in->nops && !refuse; i++) {
    const ft_ptx_operand_t *o = ft_ptx_opd(fn, in, i);
    refuse = ((o->kind == FT_PTX_OPD_ADDR && fam != FT_PTX_FAM_TEX) || o->kind == FT_PTX_OPD_REG) &&
             o->count; /* [tex, {x}] outside tex, %r.b0 */
  }
  if (!refuse) return 0;
  char form[160];
  form_name(in, form, sizeof form);
  fail(c, fn, in, "the interpreter does not support `%s`", form);
  return 1;
}

static void xreg_push(lctx_t *c, uint32_t v) {
  if (c->n_x == c->cap_x) {
    c->cap_x = c->cap_x ? c->cap_x * 2 : 64;
    c->xregs = realloc(c->xregs, c->cap_x * sizeof *c->xregs);
    if (!c->xregs) abort();
  }
  c->xregs[c->n_x++] = v;
}

/* mma.sync.aligned.<shape>.row.col{.satfinite}.<d>.<a>.<b>.<c> {D}, {A}, {B}, {C}: the
 * registers go to xregs after two header words (shape and A/B/C types; the four
 * counts), in->target their start (matrix.c). */
static void lower_mma(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, sim_insn_t *s) {
  const ft_ptx_function_t *fn = it->fn;
  char form[160];
  form_name(in, form, sizeof form);
  bool ok = in->nops == 4 && in->layout == FT_PTX_LAYOUT_B_COL && in->shape < 32 && in->type2 < 64 &&
            in->type3 < 64 && in->type4 < 64 && !(in->flags & ~(uint32_t)(FT_PTX_F_SATFINITE | FT_PTX_F_SYNC | FT_PTX_F_ALIGNED));
  for (unsigned i = 0; i < in->nops && ok; i++) ok = ft_ptx_opd(fn, in, i)->kind == FT_PTX_OPD_VEC && ft_ptx_opd(fn, in, i)->count < 32;
  if (!ok) {
    fail(c, fn, in, "the interpreter does not support `%s` (only .row.col with register vectors)", form);
    return;
  }
  s->kind = SIM_K_EXEC;
  s->target = c->n_x;
  const ft_ptx_operand_t *o[4];
  for (unsigned i = 0; i < 4; i++) o[i] = ft_ptx_opd(fn, in, i);
  xreg_push(c, in->shape | (uint32_t)in->type2 << 5 | (uint32_t)in->type3 << 11 | (uint32_t)in->type4 << 17);
  xreg_push(c, o[0]->count | o[1]->count << 5 | o[2]->count << 10 | o[3]->count << 15);
  for (unsigned k = 0; k < o[0]->count; k++) xreg_push(c, dst_reg(c, it, in, &fn->operands[o[0]->index + k]));
  static const int srct[4] = {0, 2, 3, 4};
  for (unsigned i = 1; i < 4; i++) {
    unsigned t = srct[i] == 2 ? in->type2 : srct[i] == 3 ? in->type3 : in->type4;
    for (unsigned k = 0; k < o[i]->count; k++) xreg_push(c, src_reg(c, it, in, &fn->operands[o[i]->index + k], t, NULL));
  }
  s->exec = sim_choose_matrix(s, c->xregs + s->target);
  if (!s->exec && !c->failed) fail(c, fn, in, "the interpreter does not support `%s`", form);
}

/* cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}:
 * a[0] + off the destination, a[1] + a[2] the source (async.c). */
static void lower_cp_async(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, sim_insn_t *s) {
  const ft_ptx_function_t *fn = it->fn;
  unsigned extra = in->nops - 3 - ((in->flags & FT_PTX_F_L2_HINT) ? 1u : 0u);
  const ft_ptx_operand_t *sz = ft_ptx_opd(fn, in, 2);
  if (in->space != FT_PTX_SP_SHARED || in->space2 != FT_PTX_SP_GLOBAL || in->nops < 3 || extra > 1 ||
      sz->kind != FT_PTX_OPD_IMM_INT || (sz->value != 4 && sz->value != 8 && sz->value != 16)) {
    fail(c, fn, in, "the interpreter does not support this form of cp.async");
    return;
  }
  s->kind = SIM_K_EXEC;
  s->vec = (uint8_t)sz->value;
  sim_insn_t src = *s;
  addr_opd(c, it, in, ft_ptx_opd(fn, in, 0), s);
  src.space = FT_PTX_SP_GLOBAL;
  addr_opd(c, it, in, ft_ptx_opd(fn, in, 1), &src);
  s->space = FT_PTX_SP_SHARED;
  s->a[1] = src.a[0];
  s->a[2] = konst(c, (uint64_t)src.off);
  s->na = 3;
  if (extra) {
    const ft_ptx_operand_t *x = ft_ptx_opd(fn, in, 3);
    bool neg = false;
    bool pred = x->kind == FT_PTX_OPD_REG && reg_type(it, x) == FT_PTX_T_PRED;
    s->a[3] = src_reg(c, it, in, x, pred ? FT_PTX_T_PRED : FT_PTX_T_U32, &neg);
    if (neg) s->aneg |= 1u << 3;
    s->mode = pred ? 2 : 1;
    s->na = 4;
  }
  s->exec = sim_choose_async(s);
  if (!s->exec) fail(c, fn, in, "the interpreter does not support this form of cp.async");
}

/* wmma.load.<frag> {regs}, [p]{, stride} / wmma.store.d [p], {regs}{, stride}: the
 * address in a[0] + off, the stride in a[1] (0 when absent), the registers in
 * xregs after one header word (matrix.c); wmma.mma {D}, {A}, {B}, {C} as mma. */
static void lower_wmma(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, sim_insn_t *s) {
  const ft_ptx_function_t *fn = it->fn;
  char form[160];
  form_name(in, form, sizeof form);
  s->kind = SIM_K_EXEC;
  s->target = c->n_x;
  if (in->op == FT_PTX_OP_WMMA_MMA) {
    bool ok = in->nops == 4 && in->shape < 32 && !(in->flags & ~(uint32_t)(FT_PTX_F_SATFINITE | FT_PTX_F_SYNC | FT_PTX_F_ALIGNED));
    for (unsigned i = 0; i < 4 && ok; i++) ok = ft_ptx_opd(fn, in, i)->kind == FT_PTX_OPD_VEC && ft_ptx_opd(fn, in, i)->count < 32;
    if (!ok) {
      fail(c, fn, in, "the interpreter does not support `%s`", form);
      return;
    }
    /* .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype */
    unsigned ta = in->type3 ? in->type2 : FT_PTX_T_F16, tb = in->type3 ? in->type3 : FT_PTX_T_F16;
    unsigned tc = in->type3 ? in->type4 : in->type2;
    const ft_ptx_operand_t *o[4];
    for (unsigned i = 0; i < 4; i++) o[i] = ft_ptx_opd(fn, in, i);
    xreg_push(c, in->shape | (uint32_t)(in->layout & 3) << 5 | (uint32_t)ta << 7 | (uint32_t)tb << 13 | (uint32_t)tc << 19);
    xreg_push(c, o[0]->count | o[1]->count << 5 | o[2]->count << 10 | o[3]->count << 15);
    for (unsigned k = 0; k < o[0]->count; k++) xreg_push(c, dst_reg(c, it, in, &fn->operands[o[0]->index + k]));
    for (unsigned i = 1; i < 4; i++)
      for (unsigned k = 0; k < o[i]->count; k++)
        xreg_push(c, src_reg(c, it, in, &fn->operands[o[i]->index + k], i == 3 ? tc : FT_PTX_T_NONE, NULL));
  } else {
    bool store = in->op == FT_PTX_OP_WMMA_STORE;
    const ft_ptx_operand_t *ad = in->nops >= 2 ? ft_ptx_opd(fn, in, store ? 0 : 1) : NULL;
    const ft_ptx_operand_t *v = in->nops >= 2 ? ft_ptx_opd(fn, in, store ? 1 : 0) : NULL;
    if (!ad || ad->kind != FT_PTX_OPD_ADDR || v->kind != FT_PTX_OPD_VEC || v->count >= 32 || in->nops > 3 ||
        in->shape >= 32 || !in->mode || (in->flags & ~(uint32_t)(FT_PTX_F_SYNC | FT_PTX_F_ALIGNED))) {
      fail(c, fn, in, "the interpreter does not support `%s`", form);
      return;
    }
    addr_opd(c, it, in, ad, s);
    s->a[1] = in->nops == 3 ? src_reg(c, it, in, ft_ptx_opd(fn, in, 2), FT_PTX_T_U32, NULL) : konst(c, 0);
    s->na = 2;
    xreg_push(c, in->shape | (uint32_t)in->mode << 5 | (uint32_t)(in->layout & FT_PTX_LAYOUT_A_COL) << 8 | v->count << 9);
    for (unsigned k = 0; k < v->count; k++) {
      const ft_ptx_operand_t *e = &fn->operands[v->index + k];
      xreg_push(c, store ? src_reg(c, it, in, e, in->type, NULL) : dst_reg(c, it, in, e));
    }
  }
  if (c->failed) return;
  s->exec = sim_choose_matrix(s, c->xregs + s->target);
  if (!s->exec) fail(c, fn, in, "the interpreter does not support `%s`", form);
}

/* tex.<geom>.v4.<d>.<c> {d0, d1, d2, d3}, [handle, {coordinates}]: d[] the results,
 * a[0] the texture object's register, a[1..] the coordinates (a layered geometry's
 * layer first, an integer), mode the geometry. tld4.<comp>.2d likewise, mode the
 * component (texture.c). */
static void lower_tex(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, sim_insn_t *s) {
  const ft_ptx_function_t *fn = it->fn;
  char form[160];
  form_name(in, form, sizeof form);
  const ft_ptx_operand_t *d = in->nops == 4 ? ft_ptx_opd(fn, in, 0) : NULL;
  const ft_ptx_operand_t *h = d ? ft_ptx_opd(fn, in, 2) : NULL, *x = d ? ft_ptx_opd(fn, in, 3) : NULL;
  bool tld4 = in->op == FT_PTX_OP_TLD4;
  if (!d || d->kind != FT_PTX_OPD_VEC || d->count != 4 || ft_ptx_opd(fn, in, 1)->kind != FT_PTX_OPD_NONE ||
      h->kind != FT_PTX_OPD_ADDR || h->base_kind != FT_PTX_OPD_REG || h->value || h->count != 1 ||
      x->kind != FT_PTX_OPD_VEC || x->count < 1 || x->count > 4 || in->layout || (tld4 && in->shape != FT_PTX_GEOM_2D)) {
    fail(c, fn, in, "the interpreter does not support `%s` in this form (texture objects, .v4, no lod or gradients%s)",
         form, tld4 ? "; tld4: .2d, no offsets, depth compare or residency predicate" : "");
    return;
  }
  s->kind = SIM_K_EXEC;
  s->mode = tld4 ? in->mode : in->shape;
  for (unsigned k = 0; k < 4; k++) s->d[k] = dst_reg(c, it, in, &fn->operands[d->index + k]);
  s->nd = 4;
  s->a[0] = it->reg_base + h->index;
  bool layered = in->shape == FT_PTX_GEOM_A1D || in->shape == FT_PTX_GEOM_A2D;
  for (unsigned k = 0; k < x->count; k++)
    s->a[1 + k] = src_reg(c, it, in, &fn->operands[x->index + k], layered && k == 0 ? FT_PTX_T_S32 : in->type2, NULL);
  s->na = (uint8_t)(1 + x->count);
  s->exec = sim_choose_texture(s);
  if (!s->exec && !c->failed) fail(c, fn, in, "the interpreter does not support `%s`", form);
}

bool sim_interp_plain;

/* The executors compiled for AVX2 (interp.h) where they were built and the host
 * has AVX2; PICK(chooser) calls the set the lowering uses. */
static bool use_wide(void) {
#ifdef SIM_HAVE_AVX2
  if (sim_interp_plain) return false;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}
#ifdef SIM_HAVE_AVX2
#define PICK(chooser) (wide ? chooser##_avx2(s) : chooser(s))
#else
#define PICK(chooser) ((void)wide, chooser(s))
#endif

/* suld.b.<geom>{.v2,.v4}.<b8..b64>.<oob> {d..}, [handle, {coordinates}] and
 * sust.b.<geom>... [handle, {coordinates}], {values} (sured.b.<op>... likewise, one
 * value): the registers go to xregs (surface.c): a header word (geometry |
 * out-of-range mode << 4 | coordinates << 8 | sured's operation << 16), the handle,
 * 3 coordinates (unused ones 0), 4 data registers (unused ones sinks). */
static void lower_surf(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, sim_insn_t *s) {
  const ft_ptx_function_t *fn = it->fn;
  char form[160];
  form_name(in, form, sizeof form);
  bool store = in->op != FT_PTX_OP_SULD; /* sust, sured: the value follows the address */
  unsigned ai = 0;
  while (ai < in->nops && ft_ptx_opd(fn, in, ai)->kind != FT_PTX_OPD_ADDR) ai++;
  const ft_ptx_operand_t *h = ai + 1 < in->nops ? ft_ptx_opd(fn, in, ai) : NULL;
  const ft_ptx_operand_t *x = h ? ft_ptx_opd(fn, in, ai + 1) : NULL;
  const ft_ptx_operand_t *v = !h ? NULL : store ? (ai + 2 < in->nops ? ft_ptx_opd(fn, in, ai + 2) : NULL)
                                                 : (ai > 0 ? ft_ptx_opd(fn, in, 0) : NULL);
  unsigned nv = v && v->kind == FT_PTX_OPD_VEC ? v->count : 1, nx = x && x->kind == FT_PTX_OPD_VEC ? x->count : 1;
  if (!v || h->base_kind != FT_PTX_OPD_REG || h->value || h->count != 1 || !in->layout ||
      (x->kind != FT_PTX_OPD_VEC && x->kind != FT_PTX_OPD_REG) || nx > 4 || nv != (in->vec ? in->vec : 1u) ||
      nv > 4 || (in->flags & FT_PTX_F_EXTRA_MOD)) {
    fail(c, fn, in, "the interpreter does not support `%s` in this form (surface objects, unformatted .b)", form);
    return;
  }
  s->kind = SIM_K_EXEC;
  s->mode = in->shape;
  s->target = c->n_x;
  xreg_push(c, in->shape | (uint32_t)in->layout << 4 | nx << 8 | (uint32_t)(in->op == FT_PTX_OP_SURED ? in->mode : 0) << 16);
  xreg_push(c, it->reg_base + h->index);
  for (unsigned k = 0; k < 3; k++) {
    const ft_ptx_operand_t *e = x->kind == FT_PTX_OPD_VEC ? &fn->operands[x->index + k] : x;
    xreg_push(c, k < nx ? src_reg(c, it, in, e, FT_PTX_T_S32, NULL) : konst(c, 0));
  }
  for (unsigned k = 0; k < 4; k++) {
    const ft_ptx_operand_t *e = v->kind == FT_PTX_OPD_VEC ? &fn->operands[v->index + k] : v;
    uint32_t r = TAG_SINK;
    if (k < nv) r = store ? src_reg(c, it, in, e, in->type, NULL) : dst_reg(c, it, in, e);
    xreg_push(c, r);
  }
  if (c->failed) return;
  s->exec = sim_choose_surface(s, c->xregs + s->target);
  if (!s->exec) fail(c, fn, in, "the interpreter does not support `%s`", form);
}

/* txq.<query>.b32 d, [handle] and suq.<query>.b32 d, [handle]: d[0], a[0] the
 * object's register, mode the query (texquery.c). */
static void lower_query(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in, sim_insn_t *s) {
  const ft_ptx_function_t *fn = it->fn;
  const ft_ptx_operand_t *d = in->nops == 2 ? ft_ptx_opd(fn, in, 0) : NULL, *h = d ? ft_ptx_opd(fn, in, 1) : NULL;
  if (d && d->kind == FT_PTX_OPD_REG && h->kind == FT_PTX_OPD_ADDR && h->base_kind == FT_PTX_OPD_REG && !h->value &&
      !h->count && !in->layout && in->type == FT_PTX_T_B32) {
    s->kind = SIM_K_EXEC;
    s->d[0] = dst_reg(c, it, in, d);
    s->nd = 1;
    s->a[0] = it->reg_base + h->index;
    s->na = 1;
    if (c->failed || (s->exec = sim_choose_texquery(s))) return;
  }
  fail(c, fn, in, "the interpreter does not support `%s.%s%s` (queries of texture and surface objects; mipmap levels, "
       "samples and samplers are not modelled)", ft_ptx_opcode_name(in->op), in->layout ? "level." : "",
       ft_ptx_tex_query_name(in->mode));
}

static void lower_instr(lctx_t *c, inst_t *it, const ft_ptx_instr_t *in) {
  const ft_ptx_function_t *fn = it->fn;
  if (in->op == FT_PTX_OP_CALL) {
    emit_call(c, it, in);
    return;
  }
  if (refuse_library_form(c, fn, in)) return;
  sim_insn_t *s = emit(c);
  s->op = in->op;
  s->type = in->type;
  s->type2 = in->type2;
  s->mode = in->mode;
  s->cmp = in->cmp;
  s->boolop = in->boolop;
  s->rnd = in->rnd;
  s->space = in->space;
  s->vec = in->vec;
  s->sem = in->sem;
  s->flags = in->flags;
  s->line = in->line;
  if (in->guard != FT_PTX_NO_REG) {
    s->guard = (int32_t)(it->reg_base + in->guard);
    s->guard_neg = in->guard_neg;
  }
  const char *opname = ft_ptx_opcode_name(in->op);
  unsigned nops = in->nops;
  const ft_ptx_operand_t *o0 = nops ? ft_ptx_opd(fn, in, 0) : NULL;
  bool neg;
  switch ((ft_ptx_opcode_t)in->op) {
    case FT_PTX_OP_BRA:
      s->kind = SIM_K_BRA;
      if (!o0 || o0->kind != FT_PTX_OPD_LABEL) {
        fail(c, fn, in, "bra: indirect branches are not supported");
        return;
      }
      s->target = o0->index; /* IR index: mapped once the function is emitted */
      return;
    case FT_PTX_OP_EXIT:
      s->kind = SIM_K_EXIT;
      return;
    case FT_PTX_OP_RET:
      if (it->ool) {
        s->kind = SIM_K_RET;
      } else if (fn->is_entry) {
        s->kind = SIM_K_EXIT;
      } else {
        s->kind = SIM_K_BRA; /* to the end of the inlined body */
        s->target = UINT32_MAX;
        it->ret_fix[it->n_ret_fix++] = c->n - 1;
      }
      return;
    case FT_PTX_OP_TRAP: case FT_PTX_OP_BRKPT:
      s->kind = SIM_K_TRAP;
      return;
    case FT_PTX_OP_CP_ASYNC:
      lower_cp_async(c, it, in, s);
      return;
    case FT_PTX_OP_MMA:
      lower_mma(c, it, in, s);
      return;
    case FT_PTX_OP_WMMA_LOAD: case FT_PTX_OP_WMMA_STORE: case FT_PTX_OP_WMMA_MMA:
      lower_wmma(c, it, in, s);
      return;
    case FT_PTX_OP_TEX: case FT_PTX_OP_TLD4:
      lower_tex(c, it, in, s);
      return;
    case FT_PTX_OP_SULD: case FT_PTX_OP_SUST: case FT_PTX_OP_SURED:
      lower_surf(c, it, in, s);
      return;
    case FT_PTX_OP_TXQ: case FT_PTX_OP_SUQ:
      lower_query(c, it, in, s);
      return;
    case FT_PTX_OP_BAR: case FT_PTX_OP_BARRIER:
      if (in->mode == FT_PTX_BAR_WARP_SYNC) break;
      if (in->mode == FT_PTX_BAR_ARRIVE) {
        fail(c, fn, in, "bar.arrive (producer/consumer named barriers) is not supported");
        return;
      }
      s->kind = SIM_K_BAR;
      {
        unsigned first = 0;
        if (in->mode >= FT_PTX_BAR_RED_POPC) {
          s->d[0] = dst_reg(c, it, in, o0);
          s->nd = 1;
          first = 1;
        }
        const ft_ptx_operand_t *id = ft_ptx_opd(fn, in, first);
        unsigned nsrc = nops - first;
        bool named = id->kind != FT_PTX_OPD_IMM_INT || id->value != 0;
        bool counted = in->mode >= FT_PTX_BAR_RED_POPC ? nsrc > 2 : nsrc > 1;
        if (named || counted) {
          fail(c, fn, in, "%s with a barrier id other than 0 or a thread count is not supported", opname);
          return;
        }
        if (in->mode >= FT_PTX_BAR_RED_POPC) {
          const ft_ptx_operand_t *p = ft_ptx_opd(fn, in, nops - 1);
          s->a[0] = src_reg(c, it, in, p, FT_PTX_T_PRED, &neg);
          s->aneg = neg ? 1 : 0;
          s->na = 1;
        }
      }
      return;
    default:
      break;
  }
  /* Destinations (opcodes.h), then sources. */
  const ft_ptx_opinfo_t *oi = ft_ptx_opinfo(in->op);
  unsigned nd = ft_ptx_ndst(in);
  s->kind = SIM_K_EXEC;
  /* Vector destination (ld.v4, mov unpack). */
  if (nd == 1 && o0->kind == FT_PTX_OPD_VEC) {
    if (o0->count > 4) {
      fail(c, fn, in, "vector of %u", o0->count);
      return;
    }
    for (unsigned i = 0; i < o0->count; i++) s->d[i] = dst_reg(c, it, in, &fn->operands[o0->index + i]);
    s->nd = (uint8_t)o0->count;
    if (in->op == FT_PTX_OP_LD || in->op == FT_PTX_OP_LDU) s->type2 = (uint8_t)reg_type(it, &fn->operands[o0->index]);
  } else {
    for (unsigned i = 0; i < nd; i++) s->d[i] = dst_reg(c, it, in, ft_ptx_opd(fn, in, i));
    s->nd = (uint8_t)nd;
    if ((in->op == FT_PTX_OP_LD || in->op == FT_PTX_OP_LDU) && nd) s->type2 = (uint8_t)reg_type(it, o0);
  }
  unsigned na = 0;
  bool is_mem = (oi->flags & FT_PTX_MEM) != 0;
  /* Source operand type: the second type for cvt/set/slct and friends. */
  unsigned stype = in->type;
  if (in->op == FT_PTX_OP_CVT || in->op == FT_PTX_OP_SET || in->op == FT_PTX_OP_CVTA) stype = in->type2 ? in->type2 : in->type;
  for (unsigned i = nd; i < nops && !c->failed; i++) {
    const ft_ptx_operand_t *o = ft_ptx_opd(fn, in, i);
    if (o->kind == FT_PTX_OPD_ADDR) {
      if (na != 0 || !is_mem) {
        fail(c, fn, in, "address operand in an unexpected place");
        return;
      }
      addr_opd(c, it, in, o, s);
      na = 1;
      continue;
    }
    if (o->kind == FT_PTX_OPD_VEC) {
      for (unsigned k = 0; k < o->count && na < 5; k++) {
        const ft_ptx_operand_t *e = &fn->operands[o->index + k];
        unsigned et = in->op == FT_PTX_OP_MOV ? FT_PTX_T_NONE : stype;
        s->a[na++] = src_reg(c, it, in, e, et, &neg);
      }
      continue;
    }
    if (o->kind == FT_PTX_OPD_NONE) continue;
    if (o->kind == FT_PTX_OPD_SREG && in->op == FT_PTX_OP_MOV && sreg_slot(o->index, o->count) < 0 &&
        o->index != FT_PTX_SR_ENVREG) {
      s->mode = (uint8_t)o->index; /* read while running: special.c */
      s->na = 0;
      s->exec = sim_choose_special(s);
      if (!s->exec) fail(c, fn, in, "special register %s is not supported", ft_ptx_sreg_name(o->index));
      return;
    }
    if (na >= 5) {
      fail(c, fn, in, "too many operands");
      return;
    }
    unsigned ot = stype;
    /* Shift amounts, bfe/bfi positions, shfl lane operands and predicates are not of the main type. */
    if ((in->op == FT_PTX_OP_SHL || in->op == FT_PTX_OP_SHR) && na == 1) ot = FT_PTX_T_U32;
    if (in->op == FT_PTX_OP_SELP && na == 2) ot = FT_PTX_T_PRED;
    if (in->op == FT_PTX_OP_SLCT && na == 2) ot = in->type2;
    s->a[na] = src_reg(c, it, in, o, ot, &neg);
    if (neg) s->aneg |= (uint8_t)(1u << na);
    na++;
  }
  s->na = (uint8_t)na;
  if (c->failed) return;
  sim_exec_fn f = NULL;
  bool wide = c->wide;
  switch ((ft_ptx_family_t)oi->family) {
    case FT_PTX_FAM_CVT: f = PICK(sim_choose_cvt); break;
    case FT_PTX_FAM_CMP: f = PICK(sim_choose_compare); break;
    case FT_PTX_FAM_MEM: f = PICK(sim_choose_mem); break;
    case FT_PTX_FAM_COLL: f = sim_choose_collective(s); break;
    case FT_PTX_FAM_SPECIAL: f = sim_choose_special(s); break;
    case FT_PTX_FAM_FLOAT: f = PICK(sim_choose_float); break;
    case FT_PTX_FAM_INT: f = PICK(sim_choose_int); break;
    case FT_PTX_FAM_ASYNC: f = sim_choose_async(s); break;
    case FT_PTX_FAM_MATRIX: f = sim_choose_matrix(s, NULL); break;
    case FT_PTX_FAM_ARITH: f = ft_ptx_type_is_float(in->type) ? PICK(sim_choose_float) : PICK(sim_choose_int); break;
    default: break; /* CTRL and CALL: handled above; the others: not run */
  }
  if (!f && oi->family == FT_PTX_FAM_MATRIX) {
    char form[160];
    form_name(in, form, sizeof form);
    fail(c, fn, in, "the interpreter does not support `%s`", form);
    return;
  }
  if (!f) {
    fail(c, fn, in, "the interpreter does not support `%s` with type %s%s", opname, ft_ptx_type_name(in->type),
         in->type2 ? ft_ptx_type_name(in->type2) : "");
    return;
  }
  s->exec = f;
}

static void emit_func(lctx_t *c, inst_t *it) {
  const ft_ptx_function_t *fn = it->fn;
  uint32_t first = c->n;
  for (size_t i = 0; i < fn->ninstrs && !c->failed; i++) {
    it->pcmap[i] = c->n;
    lower_instr(c, it, &fn->instrs[i]);
  }
  it->pcmap[fn->ninstrs] = c->n;
  /* Resolve this function's own branches (nested bodies resolved theirs). A branch
   * emitted by this function has op BRA and a target below ninstrs set above. */
  for (size_t i = 0; i < fn->ninstrs && !c->failed; i++) {
    const ft_ptx_instr_t *in = &fn->instrs[i];
    if (in->op != FT_PTX_OP_BRA) continue;
    sim_insn_t *s = &c->code[it->pcmap[i]];
    if (s->target > fn->ninstrs) {
      fail(c, fn, in, "branch target out of range");
      return;
    }
    s->target = it->pcmap[s->target];
  }
  (void)first;
}

static void patch_reg(uint32_t *r, sim_kprog_t *p, uint32_t sink) {
  if (*r & TAG_CONST) *r = p->const_base + (*r & ~TAG_CONST);
  else if (*r & TAG_SREG) p->sreg_used |= 1u << (*r & ~TAG_SREG), *r = p->sreg_base + (*r & ~TAG_SREG);
  else if (*r & TAG_SINK) *r = sink;
}

void sim_kprog_free(sim_kprog_t *p) {
  if (!p) return;
  free(p->name);
  free(p->code);
  free(p->consts);
  free(p->param_size);
  free(p->param_align);
  free(p->param_off);
  for (uint32_t i = 0; i < p->n_calls; i++) free(p->calls[i].args), free(p->calls[i].rets);
  free(p->calls);
  free(p->bodies);
  free(p->xregs);
  free(p->zero_slots);
  sim_jit_release(p);
  free(p);
}

int sim_interp_lower(const ft_ptx_module_t *mod, const ft_ptx_function_t *entry, const uint64_t *var_addr,
                     sim_kprog_t **out, char *err, size_t errlen) {
  lctx_t c = {.mod = mod, .var_addr = var_addr, .err = err, .errlen = errlen, .wide = use_wide()};
  if (errlen) err[0] = 0;
  c.mod_shared_off = calloc(mod->nvars + 1, sizeof *c.mod_shared_off);
  if (!c.mod_shared_off) abort();
  for (size_t i = 0; i < mod->nvars; i++) {
    const ft_ptx_var_t *v = &mod->vars[i];
    if (v->space != FT_PTX_SP_SHARED) continue;
    if (v->unsized || v->size == 0) {
      c.mod_shared_off[i] = SIZE_MAX;
      continue;
    }
    c.shared = align_up(c.shared, v->align ? v->align : 1);
    c.mod_shared_off[i] = c.shared;
    c.shared += v->size;
  }
  inst_t top;
  inst_init(&c, &top, entry, 0);
  for (size_t i = 0; i < entry->nparams; i++) top.param_loc[i] = entry->params[i].offset;
  emit_func(&c, &top);
  /* Falling off the end of a kernel is an exit. */
  sim_insn_t *e = emit(&c);
  e->kind = SIM_K_EXIT;
  e->op = FT_PTX_OP_EXIT;
  emit_bodies(&c);
  inst_free(&top);
  free(c.mod_shared_off);
  free(c.taken);
  free_ool(&c);
  if (c.failed) {
    free(c.code);
    free(c.consts);
    for (uint32_t i = 0; i < c.n_calls; i++) free(c.calls[i].args), free(c.calls[i].rets);
    free(c.calls);
    free(c.bodies);
    free(c.xregs);
    return -1;
  }
  sim_kprog_t *p = calloc(1, sizeof *p);
  if (!p) abort();
  p->name = strdup(entry->name);
  p->code = c.code;
  p->n_code = c.n;
  p->const_base = c.n_regs;
  p->n_consts = c.n_consts;
  p->sreg_base = p->const_base + c.n_consts;
  uint32_t sink = p->sreg_base + SIM_SR_COUNT;
  p->n_regs = sink + 1;
  p->shared_static = c.shared;
  p->local_bytes = align_up(c.local, 16);
  /* Dynamic shared memory starts after the static part, 16-byte aligned. */
  size_t dyn = align_up(c.shared, 16);
  for (uint32_t i = 0; i < c.n_consts; i++)
    if (c.consts[i] >= DYN_SHARED_MARK && c.consts[i] < DYN_SHARED_MARK + 0x1000) c.consts[i] = c.consts[i] - DYN_SHARED_MARK + dyn;
  p->consts = c.consts;
  for (uint32_t i = 0; i < c.n; i++) {
    sim_insn_t *s = &p->code[i];
    for (unsigned k = 0; k < 4; k++) patch_reg(&s->d[k], p, sink);
    for (unsigned k = 0; k < 5; k++) patch_reg(&s->a[k], p, sink);
    if (s->guard >= 0) {
      uint32_t g = (uint32_t)s->guard;
      patch_reg(&g, p, sink);
      s->guard = (int32_t)g;
    }
  }
  p->n_params = (unsigned)entry->nparams;
  p->param_size = calloc(entry->nparams + 1, sizeof *p->param_size);
  p->param_align = calloc(entry->nparams + 1, sizeof *p->param_align);
  p->param_off = calloc(entry->nparams + 1, sizeof *p->param_off);
  if (!p->param_size || !p->param_align || !p->param_off) abort();
  for (size_t i = 0; i < entry->nparams; i++) {
    p->param_size[i] = (uint16_t)entry->params[i].size;
    p->param_align[i] = (uint16_t)(entry->params[i].align ? entry->params[i].align : 1);
    p->param_off[i] = entry->params[i].offset;
  }
  p->param_bytes = entry->param_bytes;
  for (uint32_t i = 0; i < c.n_x; i++) patch_reg(&c.xregs[i], p, sink);
  p->xregs = c.xregs;
  p->n_xregs = c.n_x;
  p->bodies = c.bodies;
  p->n_bodies = c.n_ool;
  p->calls = c.calls;
  p->n_calls = c.n_calls;
  p->wide = c.wide;
  if (!sim_interp_plain) {
    sim_interp_reuse(p);
    sim_jit_attach(p);
  }
  *out = p;
  return 0;
}
