/* access.c: classifies each pointer place of a kernel's arguments (READ, WRITE,
 * READ_WRITE, ESCAPES) by a flow-insensitive taint fixpoint over the entry and
 * the .funcs it calls. The lattice and the rules are written down in docs/ptx.md. */
#include "access.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A taint set holds, for every origin, whether a value may BE that origin's
 * pointer (plus an offset: the "P" half) or only an integer computed from it
 * (the "I" half: products, shifts, comparisons...). Origins: the places, then
 * LOADED (a value read from memory), SHLOC (an address of shared/local/param
 * storage), GVAR (the address of a module .global/.const variable), PARTIAL (a
 * piece narrower than 8 bytes of a place), then PADDR(i) (the address of entry
 * parameter i itself). */
enum { O_LOADED = 0, O_SHLOC, O_GVAR, O_PARTIAL, O_NSPECIAL };

/* per-place result bits */
enum { R_READ = 1, R_WRITE = 2, R_ESC = 4, R_INEXACT = 8, R_NC = 16, R_FULL = 32, R_PART = 64 };

#define MAX_PLACES 8192
#define MAX_ROUNDS 200

typedef struct {
  uint64_t *regs, *vars, *params, *rets;
  uint8_t reached;
} fctx_t;

typedef struct {
  const ft_ptx_module_t *m;
  const ft_ptx_function_t *entry;
  size_t np;            /* places */
  size_t nb;            /* origins */
  size_t nw;            /* words per set (2 * nb bits) */
  uint32_t *pfirst, *pcount;   /* places of entry parameter i */
  ft_ptx_place_t *places;
  uint8_t *res;         /* R_* per place */
  uint32_t flags;
  fctx_t *fc;
  uint64_t *pool;       /* what the kernel stores in its own shared/local memory */
  int changed;
  uint64_t *t0, *t1, *t2;      /* scratch sets */
  int oom;
} A;

/* ---- sets ---- */

static void s_clear(A *a, uint64_t *s) { memset(s, 0, a->nw * 8); }
static void s_set(uint64_t *s, size_t bit) { s[bit / 64] |= 1ull << (bit % 64); }
static int s_has(const uint64_t *s, size_t bit) { return (s[bit / 64] >> (bit % 64)) & 1; }
static size_t bitP(A *a, size_t o) { (void)a; return o; }
static size_t bitI(A *a, size_t o) { return a->nb + o; }
static size_t o_special(A *a, unsigned k) { return a->np + k; }
static size_t o_paddr(A *a, size_t param) { return a->np + O_NSPECIAL + param; }

/* dst |= src, for scratch sets */
static void s_or(A *a, uint64_t *dst, const uint64_t *src) {
  for (size_t i = 0; i < a->nw; i++) dst[i] |= src[i];
}

/* dst |= src for the analysis state (registers, variables, parameters): a
 * growth means another round of the fixpoint */
static void s_grow(A *a, uint64_t *dst, const uint64_t *src) {
  for (size_t i = 0; i < a->nw; i++) {
    uint64_t v = dst[i] | src[i];
    if (v != dst[i]) {
      dst[i] = v;
      a->changed = 1;
    }
  }
}

/* dst |= every origin of src, as integers only (scratch) */
static void s_or_int(A *a, uint64_t *dst, const uint64_t *src) {
  for (size_t o = 0; o < a->nb; o++)
    if (s_has(src, bitP(a, o)) || s_has(src, bitI(a, o))) s_set(dst, bitI(a, o));
}

/* ---- operands ---- */

static uint64_t *reg_set(A *a, size_t f, uint32_t r) { return a->fc[f].regs + (size_t)r * a->nw; }
static uint64_t *var_set(A *a, size_t f, uint32_t v) { return a->fc[f].vars + (size_t)v * a->nw; }

static void mark(A *a, size_t place, uint8_t bits) { a->res[place] |= bits; }

/* Every place of entry parameter `param`, as pointers, into s; marks them inexact. */
static void param_places(A *a, uint64_t *s, size_t param) {
  for (uint32_t k = 0; k < a->pcount[param]; k++) {
    size_t pl = a->pfirst[param] + k;
    s_set(s, bitP(a, pl));
    mark(a, pl, R_INEXACT);
  }
}

/* The taint of a source operand, or'ed into s (0: nothing; address operands excluded). */
static void src_taint(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_operand_t *o, uint64_t *s) {
  switch (o->kind) {
  case FT_PTX_OPD_REG:
    if (fn->regs[o->index].type != FT_PTX_T_PRED) s_or(a, s, reg_set(a, f, o->index));
    break;
  case FT_PTX_OPD_VEC:
    for (uint32_t i = 0; i < o->count; i++) src_taint(a, f, fn, &fn->operands[o->index + i], s);
    break;
  case FT_PTX_OPD_SYM:
    switch (o->sym_kind) {
    case FT_PTX_SYM_MODVAR: {
      const ft_ptx_var_t *v = &a->m->vars[o->index];
      int gv = v->space == FT_PTX_SP_GLOBAL || v->space == FT_PTX_SP_CONST;
      s_set(s, bitP(a, o_special(a, gv ? O_GVAR : O_SHLOC)));
      break;
    }
    case FT_PTX_SYM_FUNCVAR:
      s_set(s, bitP(a, o_special(a, O_SHLOC)));
      break;
    case FT_PTX_SYM_PARAM:
      if (fn == a->entry) {
        s_set(s, bitP(a, o_paddr(a, o->index)));
      } else {
        /* the address of a .func parameter: stands for its value, conservatively */
        for (size_t i = 0; i < fn->nparams; i++) s_or(a, s, a->fc[f].params + i * a->nw);
        for (size_t pl = 0; pl < a->np; pl++)
          if (s_has(s, bitP(a, pl))) mark(a, pl, R_INEXACT);
      }
      break;
    default:
      break;   /* functions, return params: no pointer origin */
    }
    break;
  default:
    break;
  }
}

/* ---- accesses ---- */

/* A dereference of an address with taint s in state space sp, of kind bits
 * (R_READ / R_WRITE). */
static void deref(A *a, const uint64_t *s, unsigned sp, uint8_t bits, int nc) {
  int global = sp == FT_PTX_SP_GLOBAL || sp == FT_PTX_SP_GENERIC;
  size_t nplace = 0;
  for (size_t pl = 0; pl < a->np; pl++)
    if (s_has(s, bitP(a, pl))) nplace++;
  for (size_t pl = 0; pl < a->np; pl++) {
    if (!s_has(s, bitP(a, pl))) continue;
    if (!global || (nplace > 1 && (bits & R_WRITE))) {
      mark(a, pl, R_ESC | R_INEXACT);   /* a pointer used in another space, or a write through mixed pointers */
    } else if (nplace > 1) {
      mark(a, pl, bits | R_INEXACT);    /* a read through one of several pointers: each may be read */
      if (nc) mark(a, pl, R_NC);
    } else {
      mark(a, pl, bits);
      if (nc) mark(a, pl, R_NC);
    }
  }
  /* memory reached not through an argument (also when the address may be
   * either: `p = head; p = p->next`) */
  int other = 0;
  if (s_has(s, bitP(a, o_special(a, O_LOADED)))) {
    if (global) a->flags |= FT_PTX_K_LOADED_PTR;
    other = 1;
  }
  if (s_has(s, bitP(a, o_special(a, O_GVAR)))) {
    if (global) a->flags |= FT_PTX_K_GLOBAL_VAR;
    other = 1;
  }
  if (nplace) return;
  if (s_has(s, bitP(a, o_special(a, O_SHLOC)))) other = 1;
  for (size_t i = 0; i < a->entry->nparams; i++)
    if (s_has(s, bitP(a, o_paddr(a, i)))) {
      other = 1;
      if (bits & R_WRITE)   /* writes into its own parameter buffer */
        for (uint32_t k = 0; k < a->pcount[i]; k++) mark(a, a->pfirst[i] + k, R_ESC | R_INEXACT);
    }
  if (s_has(s, bitP(a, o_special(a, O_PARTIAL)))) {
    /* a pointer rebuilt from pieces: every partly loaded place may be it */
    for (size_t pl = 0; pl < a->np; pl++)
      if (a->res[pl] & R_PART) mark(a, pl, R_ESC | R_INEXACT);
    other = 1;
  }
  if (!other && global) {
    /* no pointer origin: built by operations the analysis does not follow
     * from integers; any place feeding it may be the pointer */
    a->flags |= FT_PTX_K_UNKNOWN_ADDR;
    for (size_t pl = 0; pl < a->np; pl++)
      if (s_has(s, bitI(a, pl))) mark(a, pl, R_ESC | R_INEXACT);
  }
}

/* A value stored to memory or passed where the analysis cannot follow: the
 * places it may be escape, and so does whatever the kernel keeps in its own
 * shared/local storage when the value may point there. */
static void escape(A *a, const uint64_t *s) {
  int priv = s_has(s, bitP(a, o_special(a, O_SHLOC)));
  for (size_t pl = 0; pl < a->np; pl++)
    if (s_has(s, bitP(a, pl)) || (priv && s_has(a->pool, bitP(a, pl)))) mark(a, pl, R_ESC | R_INEXACT);
  for (size_t i = 0; i < a->entry->nparams; i++)
    if (s_has(s, bitP(a, o_paddr(a, i))))
      for (uint32_t k = 0; k < a->pcount[i]; k++) mark(a, a->pfirst[i] + k, R_ESC | R_INEXACT);
}

/* Whether an address can only point into the kernel's own shared/local
 * storage: values stored there come back through loads from there (the pool),
 * they do not escape. */
static int private_addr(A *a, const uint64_t *s) {
  if (!s_has(s, bitP(a, o_special(a, O_SHLOC)))) return 0;
  for (size_t o = 0; o < a->nb; o++)
    if (o != o_special(a, O_SHLOC) && s_has(s, bitP(a, o))) return 0;
  return 1;
}

/* The address taint of an ADDR operand into s. */
static void addr_taint(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_operand_t *o, uint64_t *s) {
  if (o->base_kind == FT_PTX_OPD_REG) {
    s_or(a, s, reg_set(a, f, o->index));
  } else if (o->base_kind == FT_PTX_OPD_SYM) {
    ft_ptx_operand_t sym = *o;
    sym.kind = FT_PTX_OPD_SYM;
    src_taint(a, f, fn, &sym, s);
  }
}

/* ld.param from an entry parameter symbol: the places overlapping each element. */
static void load_entry_param(A *a, const ft_ptx_instr_t *in, uint32_t param, int64_t off, uint64_t *dst_el,
                             unsigned k) {
  unsigned es = ft_ptx_type_size(in->type);
  int64_t lo = off + (int64_t)k * es, hi = lo + es;
  for (uint32_t j = 0; j < a->pcount[param]; j++) {
    size_t pl = a->pfirst[param] + j;
    int64_t f = a->places[pl].field;
    if (f < hi && f + 8 > lo) {
      if (es == 8 && lo == f) {
        s_set(dst_el, bitP(a, pl));
        mark(a, pl, R_FULL);
      } else {
        s_set(dst_el, bitP(a, o_special(a, O_PARTIAL)));
        mark(a, pl, R_PART);
      }
    }
  }
}

/* Writes taint t to the destination operand o (register or vector of registers). */
static void set_dst(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_operand_t *o, const uint64_t *t) {
  if (o->kind == FT_PTX_OPD_REG) {
    if (fn->regs[o->index].type != FT_PTX_T_PRED) s_grow(a, reg_set(a, f, o->index), t);
  } else if (o->kind == FT_PTX_OPD_VEC) {
    for (uint32_t i = 0; i < o->count; i++) set_dst(a, f, fn, &fn->operands[o->index + i], t);
  }
}

static void do_load(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  const ft_ptx_operand_t *d = ft_ptx_opd(fn, in, 0), *ad = ft_ptx_opd(fn, in, 1);
  if (ad->kind != FT_PTX_OPD_ADDR) return;
  unsigned n = d->kind == FT_PTX_OPD_VEC ? d->count : 1;
  if (in->space == FT_PTX_SP_PARAM && ad->base_kind == FT_PTX_OPD_SYM) {
    for (unsigned k = 0; k < n; k++) {
      const ft_ptx_operand_t *e = d->kind == FT_PTX_OPD_VEC ? &fn->operands[d->index + k] : d;
      s_clear(a, a->t0);
      if (ad->sym_kind == FT_PTX_SYM_PARAM && fn == a->entry) {
        load_entry_param(a, in, ad->index, ad->value, a->t0, k);
      } else if (ad->sym_kind == FT_PTX_SYM_PARAM) {
        s_or(a, a->t0, a->fc[f].params + (size_t)ad->index * a->nw);
      } else if (ad->sym_kind == FT_PTX_SYM_FUNCVAR) {
        s_or(a, a->t0, var_set(a, f, ad->index));
      } else if (ad->sym_kind == FT_PTX_SYM_RET) {
        s_or(a, a->t0, a->fc[f].rets + (size_t)ad->index * a->nw);
      }
      set_dst(a, f, fn, e, a->t0);
    }
    return;
  }
  s_clear(a, a->t1);
  addr_taint(a, f, fn, ad, a->t1);
  s_clear(a, a->t0);
  if (in->space == FT_PTX_SP_PARAM) {
    /* ld.param through a register: keep what the address carries */
    s_or(a, a->t0, a->t1);
    for (size_t pl = 0; pl < a->np; pl++)
      if (s_has(a->t1, bitP(a, pl))) mark(a, pl, R_INEXACT);
  }
  int from_memory = 0, any = 0;
  for (size_t o = 0; o < a->nb; o++) {
    if (!s_has(a->t1, bitP(a, o))) continue;
    any = 1;
    if (o >= o_paddr(a, 0)) {
      param_places(a, a->t0, o - o_paddr(a, 0));   /* reads the kernel's own parameter */
    } else if (o == o_special(a, O_SHLOC)) {
      s_or(a, a->t0, a->pool);
    } else {
      from_memory = 1;
    }
  }
  if (from_memory || !any) s_set(a->t0, bitP(a, o_special(a, O_LOADED)));
  if (in->space != FT_PTX_SP_PARAM) deref(a, a->t1, in->space, R_READ, (in->flags & FT_PTX_F_NC) != 0);
  set_dst(a, f, fn, d, a->t0);
}

static void do_store(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  const ft_ptx_operand_t *ad = ft_ptx_opd(fn, in, 0), *v = ft_ptx_opd(fn, in, 1);
  if (ad->kind != FT_PTX_OPD_ADDR) return;
  s_clear(a, a->t0);
  if (ft_ptx_type_size(in->type) < 8) {
    /* fewer than 8 bytes of a value cannot hold a whole pointer (a pointer
     * stored in halves is caught where it is loaded and dereferenced) */
    s_clear(a, a->t2);
    src_taint(a, f, fn, v, a->t2);
    s_or_int(a, a->t0, a->t2);
  } else {
    src_taint(a, f, fn, v, a->t0);
  }
  if (in->space == FT_PTX_SP_PARAM && ad->base_kind == FT_PTX_OPD_SYM) {
    if (ad->sym_kind == FT_PTX_SYM_FUNCVAR) {
      s_grow(a, var_set(a, f, ad->index), a->t0);   /* a call argument */
      return;
    }
    if (ad->sym_kind == FT_PTX_SYM_RET) {
      s_grow(a, a->fc[f].rets + (size_t)ad->index * a->nw, a->t0);
      return;
    }
  }
  s_clear(a, a->t1);
  addr_taint(a, f, fn, ad, a->t1);
  if (private_addr(a, a->t1)) s_grow(a, a->pool, a->t0);
  else escape(a, a->t0);
  deref(a, a->t1, in->space, R_WRITE, 0);
}

static void do_atom(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  unsigned ai = in->op == FT_PTX_OP_ATOM ? 1 : 0;
  const ft_ptx_operand_t *ad = ft_ptx_opd(fn, in, ai);
  if (ad->kind != FT_PTX_OPD_ADDR) return;
  s_clear(a, a->t0);
  for (unsigned i = ai + 1; i < in->nops; i++) src_taint(a, f, fn, ft_ptx_opd(fn, in, i), a->t0);
  s_clear(a, a->t1);
  addr_taint(a, f, fn, ad, a->t1);
  int priv = private_addr(a, a->t1);
  if (priv) s_grow(a, a->pool, a->t0);
  else escape(a, a->t0);
  deref(a, a->t1, in->space, R_READ | R_WRITE, 0);
  if (ai) {
    s_clear(a, a->t0);
    s_set(a->t0, bitP(a, o_special(a, O_LOADED)));
    if (priv) s_or(a, a->t0, a->pool);
    set_dst(a, f, fn, ft_ptx_opd(fn, in, 0), a->t0);
  }
}

static void do_call(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  const ft_ptx_operand_t *rets = ft_ptx_opd(fn, in, 0), *tgt = ft_ptx_opd(fn, in, 1),
                         *args = ft_ptx_opd(fn, in, 2);
  const ft_ptx_function_t *callee = NULL;
  size_t ci = 0;
  if (tgt->kind == FT_PTX_OPD_SYM && tgt->sym_kind == FT_PTX_SYM_FUNC) {
    ci = tgt->index;
    callee = &a->m->funcs[ci];
    if (callee->is_decl || callee->nparams != args->count || callee->nrets != rets->count) callee = NULL;
  }
  if (!callee) {
    /* cannot follow: every argument escapes; results are unknown values */
    a->flags |= FT_PTX_K_UNKNOWN_CALL;
    s_clear(a, a->t0);
    s_set(a->t0, bitP(a, o_special(a, O_LOADED)));
    for (uint32_t i = 0; i < args->count; i++) {
      const uint64_t *arg = var_set(a, f, fn->operands[args->index + i].index);
      escape(a, arg);
      /* the callee may write anything into storage it was given */
      if (s_has(arg, bitP(a, o_special(a, O_SHLOC)))) s_grow(a, a->pool, a->t0);
    }
    for (uint32_t i = 0; i < rets->count; i++) s_grow(a, var_set(a, f, fn->operands[rets->index + i].index), a->t0);
    return;
  }
  if (!a->fc[ci].reached) {
    a->fc[ci].reached = 1;
    a->changed = 1;
  }
  for (uint32_t i = 0; i < args->count; i++)
    s_grow(a, a->fc[ci].params + (size_t)i * a->nw, var_set(a, f, fn->operands[args->index + i].index));
  for (uint32_t i = 0; i < rets->count; i++)
    s_grow(a, var_set(a, f, fn->operands[rets->index + i].index), a->fc[ci].rets + (size_t)i * a->nw);
}

static int has_imm(const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  for (unsigned i = 1; i < in->nops; i++)
    if (ft_ptx_opd(fn, in, i)->kind == FT_PTX_OPD_IMM_INT) return 1;
  return 0;
}

/* Arithmetic and moves: which sources keep pointer-ness, which become integers. */
static void do_value(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in, unsigned ndst) {
  s_clear(a, a->t0);   /* pointer-carrying part */
  s_clear(a, a->t1);   /* integer part */
  unsigned op = in->op;
  for (unsigned i = ndst; i < in->nops; i++) {
    const ft_ptx_operand_t *o = ft_ptx_opd(fn, in, i);
    int keep;
    switch (op) {
    case FT_PTX_OP_CVT:
      keep = ft_ptx_type_size(in->type) >= 8;   /* a truncated pointer addresses nothing global */
      break;
    case FT_PTX_OP_MOV: case FT_PTX_OP_CVTA: case FT_PTX_OP_ADD:
    case FT_PTX_OP_ADDC: case FT_PTX_OP_MIN: case FT_PTX_OP_MAX:
      keep = 1;
      break;
    case FT_PTX_OP_SUB: case FT_PTX_OP_SUBC:
      keep = i == ndst;   /* p - x keeps p; p - q is a distance */
      break;
    case FT_PTX_OP_SELP:
      keep = i < ndst + 2;
      break;
    case FT_PTX_OP_SLCT:
      keep = i < ndst + 2;
      break;
    case FT_PTX_OP_MAD: case FT_PTX_OP_MADC:
      keep = i == ndst + 2 && !(in->flags & FT_PTX_F_HI);   /* a*b + c keeps c */
      break;
    case FT_PTX_OP_AND: case FT_PTX_OP_OR:
      keep = has_imm(fn, in);   /* alignment masks keep the pointer */
      break;
    case FT_PTX_OP_SHFL:
      keep = i == ndst;        /* the shuffled value */
      break;
    default:
      keep = 0;
      break;
    }
    s_clear(a, a->t2);
    src_taint(a, f, fn, o, a->t2);
    if (keep) s_or(a, a->t0, a->t2);
    else s_or_int(a, a->t1, a->t2);
  }
  s_or(a, a->t0, a->t1);
  for (unsigned i = 0; i < ndst; i++) set_dst(a, f, fn, ft_ptx_opd(fn, in, i), a->t0);
}

static void transfer(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  switch (in->op) {
  case FT_PTX_OP_LD: case FT_PTX_OP_LDU:
    do_load(a, f, fn, in);
    return;
  case FT_PTX_OP_ST:
    do_store(a, f, fn, in);
    return;
  case FT_PTX_OP_ATOM: case FT_PTX_OP_RED:
    do_atom(a, f, fn, in);
    return;
  case FT_PTX_OP_CALL:
    do_call(a, f, fn, in);
    return;
  case FT_PTX_OP_CP_ASYNC: {
    s_clear(a, a->t1);
    addr_taint(a, f, fn, ft_ptx_opd(fn, in, 0), a->t1);
    deref(a, a->t1, in->space, R_WRITE, 0);
    s_clear(a, a->t0);
    s_set(a->t0, bitP(a, o_special(a, O_LOADED)));
    s_grow(a, a->pool, a->t0);
    s_clear(a, a->t1);
    addr_taint(a, f, fn, ft_ptx_opd(fn, in, 1), a->t1);
    deref(a, a->t1, in->space2, R_READ, 0);
    return;
  }
  case FT_PTX_OP_PREFETCH: case FT_PTX_OP_PREFETCHU:
    if (in->nops && ft_ptx_opd(fn, in, 0)->kind == FT_PTX_OPD_ADDR) {
      s_clear(a, a->t1);
      addr_taint(a, f, fn, ft_ptx_opd(fn, in, 0), a->t1);
      deref(a, a->t1, in->space, R_READ, 0);
    }
    return;
  case FT_PTX_OP_BRA: case FT_PTX_OP_RET: case FT_PTX_OP_EXIT: case FT_PTX_OP_TRAP:
  case FT_PTX_OP_BRKPT: case FT_PTX_OP_MEMBAR: case FT_PTX_OP_FENCE: case FT_PTX_OP_NANOSLEEP:
  case FT_PTX_OP_PMEVENT: case FT_PTX_OP_CP_ASYNC_COMMIT: case FT_PTX_OP_CP_ASYNC_WAIT:
  case FT_PTX_OP_CP_ASYNC_WAIT_ALL:
    return;
  case FT_PTX_OP_BAR: case FT_PTX_OP_BARRIER:
    if (in->mode >= FT_PTX_BAR_RED_POPC && in->mode <= FT_PTX_BAR_RED_OR) do_value(a, f, fn, in, 1);
    return;
  case FT_PTX_OP_SETP: case FT_PTX_OP_SHFL:
    do_value(a, f, fn, in, 2);
    return;
  default:
    if (in->nops) do_value(a, f, fn, in, 1);
    return;
  }
}

/* ---- places and driver ---- */

static int build_places(A *a) {
  const ft_ptx_function_t *e = a->entry;
  size_t n = 0;
  for (size_t i = 0; i < e->nparams; i++) {
    const ft_ptx_param_t *p = &e->params[i];
    if (p->size == 8 && !ft_ptx_type_is_float(p->type)) n++;
    else if (p->size > 8 && p->align >= 8) n += p->size / 8;
  }
  if (n > MAX_PLACES) return -1;
  a->np = n;
  a->places = calloc(n ? n : 1, sizeof *a->places);
  a->pfirst = calloc(e->nparams ? e->nparams : 1, sizeof *a->pfirst);
  a->pcount = calloc(e->nparams ? e->nparams : 1, sizeof *a->pcount);
  if (!a->places || !a->pfirst || !a->pcount) return -1;
  size_t k = 0;
  for (size_t i = 0; i < e->nparams; i++) {
    const ft_ptx_param_t *p = &e->params[i];
    a->pfirst[i] = (uint32_t)k;
    uint32_t fields = 0;
    if (p->size == 8 && !ft_ptx_type_is_float(p->type)) fields = 1;
    else if (p->size > 8 && p->align >= 8) fields = p->size / 8;
    for (uint32_t j = 0; j < fields; j++, k++) {
      a->places[k].param = (uint32_t)i;
      a->places[k].field = j * 8;
      a->places[k].offset = p->offset + j * 8;
    }
    a->pcount[i] = fields;
  }
  return 0;
}

static void finish(A *a, ft_ptx_facts_t *out) {
  for (size_t pl = 0; pl < a->np; pl++) {
    uint8_t r = a->res[pl];
    ft_ptx_place_t *p = &a->places[pl];
    if (a->flags & FT_PTX_K_INCOMPLETE) {
      p->access = FT_PTX_ACC_READ_WRITE;
      p->exact = 0;
      continue;
    }
    if (r & R_ESC) p->access = FT_PTX_ACC_ESCAPES;
    else p->access = (uint8_t)(((r & R_READ) ? FT_PTX_ACC_READ : 0) | ((r & R_WRITE) ? FT_PTX_ACC_WRITE : 0));
    /* a slot read both whole and in pieces holds either a pointer or data: conservative */
    int mixed_width = (r & R_FULL) && (r & R_PART);
    p->exact = !(r & (R_ESC | R_INEXACT)) && !mixed_width;
    p->nc = (r & R_NC) != 0;
  }
  out->places = a->places;
  out->nplaces = a->np;
  out->flags = a->flags;
  a->places = NULL;
}

static void release(A *a) {
  if (a->fc)
    for (size_t i = 0; i < a->m->nfuncs; i++) {
      free(a->fc[i].regs);
      free(a->fc[i].vars);
      free(a->fc[i].params);
      free(a->fc[i].rets);
    }
  free(a->fc);
  free(a->places);
  free(a->pfirst);
  free(a->pcount);
  free(a->res);
  free(a->t0);
  free(a->t1);
  free(a->t2);
  free(a->pool);
}

static int alloc_ctx(A *a, size_t i) {
  const ft_ptx_function_t *fn = &a->m->funcs[i];
  fctx_t *c = &a->fc[i];
  c->regs = calloc(fn->nregs ? fn->nregs * a->nw : 1, 8);
  c->vars = calloc(fn->nvars ? fn->nvars * a->nw : 1, 8);
  c->params = calloc(fn->nparams ? fn->nparams * a->nw : 1, 8);
  c->rets = calloc(fn->nrets ? fn->nrets * a->nw : 1, 8);
  return c->regs && c->vars && c->params && c->rets ? 0 : -1;
}

int ft_ptx_facts(const ft_ptx_module_t *m, const ft_ptx_function_t *entry, ft_ptx_facts_t *out, char *err,
                 size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!m || !entry || !entry->is_entry || entry->is_decl) {
    if (err && errlen) snprintf(err, errlen, "not a kernel with a body");
    return -1;
  }
  A a;
  memset(&a, 0, sizeof a);
  a.m = m;
  a.entry = entry;
  size_t ei = (size_t)(entry - m->funcs);
  if (ei >= m->nfuncs || build_places(&a) != 0) {
    release(&a);
    if (err && errlen) snprintf(err, errlen, "too many parameter places");
    return -1;
  }
  a.nb = a.np + O_NSPECIAL + entry->nparams;
  a.nw = (2 * a.nb + 63) / 64;
  a.res = calloc(a.np ? a.np : 1, 1);
  a.fc = calloc(m->nfuncs, sizeof *a.fc);
  a.t0 = calloc(a.nw, 8);
  a.t1 = calloc(a.nw, 8);
  a.t2 = calloc(a.nw, 8);
  a.pool = calloc(a.nw, 8);
  int ok = a.res && a.fc && a.t0 && a.t1 && a.t2 && a.pool;
  /* function contexts are allocated when first reached (a module may hold
   * thousands of functions one entry never calls) */
  if (ok) ok = alloc_ctx(&a, ei) == 0;
  if (!ok) {
    release(&a);
    if (err && errlen) snprintf(err, errlen, "out of memory");
    return -1;
  }
  a.fc[ei].reached = 1;
  int rounds = 0;
  do {
    a.changed = 0;
    for (size_t f = 0; f < m->nfuncs; f++) {
      if (!a.fc[f].reached) continue;
      if (!a.fc[f].regs && alloc_ctx(&a, f) != 0) {
        a.flags |= FT_PTX_K_INCOMPLETE;
        break;
      }
      const ft_ptx_function_t *fn = &m->funcs[f];
      for (size_t i = 0; i < fn->ninstrs; i++) {
        /* contexts of callees reached in this pass are allocated before use */
        const ft_ptx_instr_t *in = &fn->instrs[i];
        if (in->op == FT_PTX_OP_CALL) {
          const ft_ptx_operand_t *t = ft_ptx_opd(fn, in, 1);
          if (t->kind == FT_PTX_OPD_SYM && t->sym_kind == FT_PTX_SYM_FUNC && !a.fc[t->index].regs &&
              alloc_ctx(&a, t->index) != 0) {
            a.flags |= FT_PTX_K_INCOMPLETE;
            break;
          }
        }
        transfer(&a, f, fn, in);
      }
    }
    if (a.flags & FT_PTX_K_INCOMPLETE) break;
  } while (a.changed && ++rounds < MAX_ROUNDS);
  if (a.changed) a.flags |= FT_PTX_K_INCOMPLETE;
  finish(&a, out);
  release(&a);
  return 0;
}

void ft_ptx_facts_free(ft_ptx_facts_t *f) {
  free(f->places);
  f->places = NULL;
  f->nplaces = 0;
}

const char *ft_ptx_access_name(unsigned access) {
  switch (access) {
  case FT_PTX_ACC_NONE: return "NONE";
  case FT_PTX_ACC_READ: return "READ";
  case FT_PTX_ACC_WRITE: return "WRITE";
  case FT_PTX_ACC_READ_WRITE: return "READ_WRITE";
  case FT_PTX_ACC_ESCAPES: return "ESCAPES";
  default: return "?";
  }
}
