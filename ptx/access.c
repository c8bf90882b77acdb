/* access.c: classifies each pointer place of a kernel's arguments (READ, WRITE,
 * READ_WRITE, ESCAPES) by a flow-insensitive taint fixpoint over the entry and
 * the .funcs it calls. The lattice and the rules are written down in docs/ptx.md. */
#include "access.h"
#include "range_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A taint set holds, for every origin, whether a value may BE that origin's
 * pointer (plus an offset: the "P" half) or only an integer computed from it
 * (the "I" half: products, shifts, comparisons...). Origins: the places, then
 * LOADED (a value read from memory), SHLOC (an address of shared/local/param
 * storage), GVAR (the address of a module .global/.const variable), PARTIAL (a
 * piece narrower than 8 bytes of a place), NARROW (a value read from memory by a
 * load narrower than 8 bytes: an index, or a piece of a pointer), UNPLACED
 * (parameter bytes that are no place: 4-byte parameters, fields of packed
 * structs, floating-point parameters), LOADED_UNK (a value read from memory
 * not only through argument places: through a loaded pointer, a module
 * variable; an atomic's old value, an unknown call's result), then PADDR(i)
 * (the address of entry parameter i itself), then LFROM(p) (a value read from
 * memory through place p: where a pointer the kernel loads comes from). */
enum { O_LOADED = 0, O_SHLOC, O_GVAR, O_PARTIAL, O_NARROW, O_UNPLACED, O_LOADED_UNK, O_NSPECIAL };

/* per-place result bits */
enum {
  R_READ = 1, R_WRITE = 2, R_ESC = 4, R_INEXACT = 8, R_NC = 16, R_FULL = 32, R_PART = 64, R_ISTORED = 128,
  R_IESC = 256, /* escapes as an integer only (an offset, a stored count): never seen used as a pointer */
  R_PTRSRC = 512, /* a value loaded through it is dereferenced: the pointers its buffer holds are used */
  R_LSTORED = 1024, /* a value loaded through it is stored to memory not only through places
                       (reloaded: R_PTRSRC, finish()) */
  R_SINK = 2048     /* values loaded from memory are stored through it */
};

#define MAX_PLACES 8192
#define MAX_ROUNDS 200

typedef struct {
  uint64_t *regs, *vars, *params, *rets;
  uint8_t *frame;       /* per register: holds a fixed address of the function's own storage */
  uint8_t reached;
} fctx_t;

/* A place in the kernel's own shared/local storage: a fixed base (a frame
 * register or a variable) + offset, and what was stored there. */
typedef struct {
  uint32_t func, kind, index;   /* kind 1: frame register `index`; 2: symbol (sym_kind << 24 | index) */
  int64_t off;
  uint32_t size;
  uint64_t *set;
} pslot_t;

typedef struct {
  const ft_ptx_module_t *m;
  const ft_ptx_function_t *entry;
  size_t np;            /* places */
  size_t nb;            /* origins */
  size_t nw;            /* words per set (2 * nb bits) */
  uint32_t *pfirst, *pcount;   /* places of entry parameter i */
  ft_ptx_place_t *places;
  uint16_t *res;        /* R_* per place */
  uint32_t flags;
  fctx_t *fc;
  uint64_t *pool;       /* what the kernel stores in its own shared/local memory (all of it) */
  uint64_t *pool_any;   /* ... through addresses with no fixed base */
  pslot_t *slots;       /* ... through a fixed base + offset */
  size_t nslots, slots_cap;
  int changed;
  uint64_t *t0, *t1, *t2;      /* scratch sets */
  int oom;
  int unplaced_stored;  /* parameter bytes that are no place were stored to memory */
  int partial_stored;   /* pieces of places were stored to memory, as integers */
  int unk_stored;       /* values loaded not only through places were stored to memory */
  const uint64_t *esc_to; /* the address of the store escape() is looking at (do_store), or NULL */
  /* ranges (the recording pass only): the access being analysed, when deref() sees
   * it through one place; cur_in NULL for forms whose bytes no rule bounds */
  ft_range_t *rc;
  const ft_ptx_instr_t *cur_in;
  const ft_ptx_operand_t *cur_addr;
  unsigned cur_size;
  size_t cur_f;
} A;

/* ---- sets ---- */

static void s_clear(A *a, uint64_t *s) { memset(s, 0, a->nw * 8); }
static void s_set(uint64_t *s, size_t bit) { s[bit / 64] |= 1ull << (bit % 64); }
static int s_has(const uint64_t *s, size_t bit) { return (s[bit / 64] >> (bit % 64)) & 1; }
static size_t bitP(A *a, size_t o) { (void)a; return o; }
static size_t bitI(A *a, size_t o) { return a->nb + o; }
static size_t o_special(A *a, unsigned k) { return a->np + k; }
static size_t o_paddr(A *a, size_t param) { return a->np + O_NSPECIAL + param; }
static size_t o_lfrom(A *a, size_t place) { return a->np + O_NSPECIAL + a->entry->nparams + place; }

/* A value read from memory, from nowhere the analysis can name (LOADED_UNK). */
static void set_loaded(A *a, uint64_t *s) {
  s_set(s, bitP(a, o_special(a, O_LOADED)));
  s_set(s, bitP(a, o_special(a, O_LOADED_UNK)));
}

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

static void mark(A *a, size_t place, uint16_t bits) { a->res[place] |= bits; }

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

/* Whether s carries origin o as a pointer or as an integer. */
static int s_any(A *a, const uint64_t *s, size_t o) { return s_has(s, bitP(a, o)) || s_has(s, bitI(a, o)); }

/* Every place of entry parameter i escapes. */
static void param_escapes(A *a, size_t i) {
  for (uint32_t k = 0; k < a->pcount[i]; k++) mark(a, a->pfirst[i] + k, R_ESC | R_INEXACT);
}

/* Every place read in pieces escapes (a pointer rebuilt from pieces may be any of them). */
static void partial_escapes(A *a) {
  for (size_t pl = 0; pl < a->np; pl++)
    if (a->res[pl] & R_PART) mark(a, pl, R_ESC | R_INEXACT);
}

/* The bytes one access through place pl touches (the recording pass): bounded
 * only for the plain forms of the entry itself. */
static void range_note(A *a, size_t pl, uint8_t bits) {
  unsigned dirs = ((bits & R_READ) ? 1u : 0u) | ((bits & R_WRITE) ? 2u : 0u);
  if (a->cur_in && a->cur_f == (size_t)(a->entry - a->m->funcs))
    ft_range_access(a->rc, pl, a->cur_in, a->cur_addr, a->cur_size, dirs);
  else
    ft_range_unbounded(a->rc, pl, dirs);
}

/* The access deref() is about to see (range_note); in NULL: none bounded. */
static void cur_access(A *a, size_t f, const ft_ptx_instr_t *in, const ft_ptx_operand_t *ad, unsigned size) {
  a->cur_in = in;
  a->cur_addr = ad;
  a->cur_size = size;
  a->cur_f = f;
}

/* A dereference of an address with taint s in state space sp, of kind bits
 * (R_READ / R_WRITE). The rule that keeps the facts sound (docs/ptx.md,
 * "Soundness"): an address formed from one place's pointer plus integers stays
 * in that place's allocation (C's rule for pointer arithmetic), so integers
 * from 4-byte parameters and from memory (indices) are offsets; but every
 * place that enters an address only as an integer may be the pointer
 * (laundered through arithmetic: `a + ((b - a) >> 2 << 2)`), and a place that
 * enters as pointer and integer at once rebases (`a + (q - a)`): then the
 * integers from memory and from parameters may be pointers too. */
static void deref(A *a, const uint64_t *s, unsigned sp, uint8_t bits, int nc) {
  int global = sp == FT_PTX_SP_GLOBAL || sp == FT_PTX_SP_GENERIC;
  size_t nplace = 0;
  int rebase = 0;
  for (size_t pl = 0; pl < a->np; pl++)
    if (s_has(s, bitP(a, pl))) {
      nplace++;
      if (s_has(s, bitI(a, pl))) rebase = 1;
    }
  for (size_t pl = 0; pl < a->np; pl++) {
    if (!s_has(s, bitP(a, pl))) {
      /* only as an integer: may be the pointer, through arithmetic */
      if (global && s_has(s, bitI(a, pl))) mark(a, pl, R_IESC | R_INEXACT);
      continue;
    }
    if (!global || (nplace > 1 && (bits & R_WRITE))) {
      mark(a, pl, R_ESC | R_INEXACT);   /* a pointer used in another space, or a write through mixed pointers */
    } else if (nplace > 1) {
      mark(a, pl, bits | R_INEXACT);    /* a read through one of several pointers: each may be read */
      if (nc) mark(a, pl, R_NC);
    } else {
      mark(a, pl, bits);
      if (nc) mark(a, pl, R_NC);
      if (a->rc) range_note(a, pl, bits);
    }
  }
  /* the kernel's own parameter buffer, through its address */
  for (size_t i = 0; i < a->entry->nparams; i++)
    if (s_any(a, s, o_paddr(a, i)) && (bits & R_WRITE)) param_escapes(a, i);
  /* module variables, in any space (a pointer in a __constant__ variable is loaded
   * with ld.const) */
  if (s_any(a, s, o_special(a, O_GVAR))) {
    a->flags |= FT_PTX_K_GLOBAL_VAR;
    if (bits & R_WRITE) a->flags |= FT_PTX_K_GLOBAL_WRITE;
  }
  if (!global) return;
  /* memory reached not through an argument (also when the address may be
   * either: `p = head; p = p->next`) */
  size_t ld = o_special(a, O_LOADED), nw = o_special(a, O_NARROW), up = o_special(a, O_UNPLACED);
  int loaded_ptr = s_has(s, bitP(a, ld)) || (s_has(s, bitI(a, ld)) && (rebase || !nplace));
  if (s_has(s, bitI(a, ld)) && nplace && !rebase) a->flags |= FT_PTX_K_LOADED_INDEX;
  if ((s_any(a, s, nw) || s_any(a, s, up)) && (rebase || !nplace)) {
    /* a pointer rebuilt from narrow loads or from parameter bytes that are no place */
    if (s_any(a, s, nw)) loaded_ptr = 1;
    if (s_any(a, s, up)) a->flags |= FT_PTX_K_UNPLACED_PTR;
  }
  if (loaded_ptr) {
    /* a pointer loaded from memory: the places it was loaded through hold it
     * (their buffers are scanned); loaded from anywhere else, every buffer is */
    a->flags |= FT_PTX_K_LOADED_PTR;
    int known = 0;
    for (size_t pl = 0; pl < a->np; pl++)
      if (s_any(a, s, o_lfrom(a, pl))) mark(a, pl, R_PTRSRC), known = 1;
    if (!known || s_any(a, s, o_special(a, O_LOADED_UNK))) a->flags |= FT_PTX_K_LOADED_UNK;
  }
  /* pieces of places: as they are, a pointer rebuilt from them; as integers,
   * offsets (int fields packed in a struct slot), unless rebasing */
  size_t pt = o_special(a, O_PARTIAL);
  if (s_has(s, bitP(a, pt)) || (s_has(s, bitI(a, pt)) && (rebase || !nplace))) partial_escapes(a);
  if (nplace) return;
  /* Integer arithmetic on pointers is taken to give back a pointer it started
   * from (laundered, joined from halves, bytes permuted): the places it came from
   * escaped above, parameter bytes are scanned (UNPLACED_PTR), loaded values are
   * flagged. An address with no origin at all (a constant, %tid) may be anything. */
  for (size_t w = 0; w < a->nw; w++)
    if (s[w]) return;
  a->flags |= FT_PTX_K_UNKNOWN_ADDR;
}

/* Where a store lands: 2 in argument places' allocations alone (deref()'s rule: at
 * least one place as a pointer, nothing else as one, no place rebased); 1 there
 * or through pointers loaded from memory (what a pointer scan reaches); 0
 * anywhere else. */
static int store_target(A *a, const uint64_t *t) {
  int n = 0, loaded = 0;
  for (size_t o = 0; o < a->nb; o++) {
    if (!s_has(t, bitP(a, o))) continue;
    if (o < a->np && s_has(t, bitI(a, o))) return 0;
    if (o < a->np) n++;
    else if (o == o_special(a, O_LOADED) || o >= o_lfrom(a, 0)) loaded = 1;
    else return 0;
  }
  if (s_any(a, t, o_special(a, O_LOADED_UNK))) return 0;
  return loaded ? 1 : n > 0 ? 2 : 0;
}

/* A value stored to memory or passed where the analysis cannot follow: the
 * places it may be as a pointer (whole or in pieces) escape, and so does
 * whatever the kernel keeps in its own shared/local storage when the value may
 * point there. A place stored only as an integer (an arithmetic result) escapes
 * when the kernel also dereferences pointers it loads from memory (it may be
 * reloading it: decided in finish()); another kernel that loads it is flagged
 * itself. */
static void escape(A *a, const uint64_t *s) {
  int priv = s_has(s, bitP(a, o_special(a, O_SHLOC)));
  for (size_t pl = 0; pl < a->np; pl++) {
    if (s_has(s, bitP(a, pl)) || (priv && s_has(a->pool, bitP(a, pl)))) mark(a, pl, R_ESC | R_INEXACT);
    else if (s_has(s, bitI(a, pl)) || (priv && s_has(a->pool, bitI(a, pl)))) mark(a, pl, R_ISTORED);
  }
  for (size_t i = 0; i < a->entry->nparams; i++)
    if (s_any(a, s, o_paddr(a, i))) param_escapes(a, i);
  if (s_has(s, bitP(a, o_special(a, O_PARTIAL)))) partial_escapes(a);
  else if (s_has(s, bitI(a, o_special(a, O_PARTIAL)))) a->partial_stored = 1; /* finish() */
  /* parameter bytes that are no place, stored: the same question (finish()) */
  if (s_any(a, s, o_special(a, O_UNPLACED))) a->unplaced_stored = 1;
  /* values loaded from memory, stored: reloaded and dereferenced, the pointer came
   * from where they were loaded. Stored through argument places only, they can be
   * reloaded through a place only where it shares an allocation with one of those
   * (the places are marked, the shim compares allocations: ptr_sink); stored
   * elsewhere, where they came from is taken as a source (finish()) */
  int loaded = s_any(a, s, o_special(a, O_LOADED)) || s_any(a, s, o_special(a, O_NARROW));
  int tgt = loaded && a->esc_to ? store_target(a, a->esc_to) : 0;
  if (tgt) {
    for (size_t pl = 0; pl < a->np; pl++)
      if (s_has(a->esc_to, bitP(a, pl))) mark(a, pl, R_SINK);
    /* through a loaded pointer: into what a scan of the sources reaches (the shim
     * compares that with the sources too) */
    if (tgt == 1) a->flags |= FT_PTX_K_SINK_REACHED;
    return;
  }
  for (size_t pl = 0; pl < a->np; pl++)
    if (s_any(a, s, o_lfrom(a, pl))) mark(a, pl, R_LSTORED);
  if (s_any(a, s, o_special(a, O_LOADED_UNK))) a->unk_stored = 1;
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

/* The fixed base of an address into the function's own storage: 0 when it has none. */
static int slot_key(A *a, size_t f, const ft_ptx_operand_t *ad, uint32_t *kind, uint32_t *index) {
  if (ad->base_kind == FT_PTX_OPD_REG) {
    if (!a->fc[f].frame || !a->fc[f].frame[ad->index]) return 0;
    *kind = 1;
    *index = ad->index;
    return 1;
  }
  if (ad->base_kind == FT_PTX_OPD_SYM && (ad->sym_kind == FT_PTX_SYM_MODVAR || ad->sym_kind == FT_PTX_SYM_FUNCVAR) &&
      ad->index < (1u << 24)) {
    *kind = 2;
    *index = (uint32_t)ad->sym_kind << 24 | ad->index;
    return 1;
  }
  return 0;
}

static unsigned access_elem_size(const ft_ptx_instr_t *in) {
  unsigned s = ft_ptx_type_size(in->type);
  return s ? s : 8;
}

static unsigned access_size(const ft_ptx_instr_t *in) {
  unsigned s = ft_ptx_type_size(in->type) * (in->vec ? in->vec : 1);
  return s ? s : 8;
}

/* A store of taint v at address ad (known private). */
static void pool_store(A *a, size_t f, const ft_ptx_instr_t *in, const ft_ptx_operand_t *ad, const uint64_t *v) {
  s_grow(a, a->pool, v);
  uint32_t kind, index;
  if (!slot_key(a, f, ad, &kind, &index)) {
    s_grow(a, a->pool_any, v);
    return;
  }
  unsigned size = access_size(in);
  for (size_t i = 0; i < a->nslots; i++) {
    pslot_t *sl = &a->slots[i];
    if (sl->func == f && sl->kind == kind && sl->index == index && sl->off == ad->value && sl->size == size) {
      s_grow(a, sl->set, v);
      return;
    }
  }
  if (a->nslots == a->slots_cap) {
    size_t nc = a->slots_cap ? a->slots_cap * 2 : 16;
    pslot_t *g = realloc(a->slots, nc * sizeof *g);
    if (!g) {
      a->oom = 1;
      s_grow(a, a->pool_any, v);
      return;
    }
    a->slots = g;
    a->slots_cap = nc;
  }
  uint64_t *set = calloc(a->nw, 8);
  if (!set) {
    a->oom = 1;
    s_grow(a, a->pool_any, v);
    return;
  }
  a->slots[a->nslots++] = (pslot_t){(uint32_t)f, kind, index, ad->value, size, set};
  s_grow(a, set, v);
}

/* What a load at address ad (known private) may read: every store that may
 * alias it. Two different bases may alias (%SP and %SPL name one frame), the
 * same base at non-overlapping offsets may not. */
static void pool_load(A *a, size_t f, const ft_ptx_instr_t *in, const ft_ptx_operand_t *ad, uint64_t *dst) {
  uint32_t kind, index;
  if (!slot_key(a, f, ad, &kind, &index)) {
    s_or(a, dst, a->pool);
    return;
  }
  s_or(a, dst, a->pool_any);
  int64_t lo = ad->value, hi = lo + (int64_t)access_size(in);
  for (size_t i = 0; i < a->nslots; i++) {
    const pslot_t *sl = &a->slots[i];
    int same = sl->func == f && sl->kind == kind && sl->index == index;
    if (!same || (sl->off < hi && sl->off + (int64_t)sl->size > lo)) s_or(a, dst, sl->set);
  }
}

/* ld.param from an entry parameter symbol: the places overlapping each element;
 * bytes no place covers are UNPLACED. */
static void load_entry_param(A *a, const ft_ptx_instr_t *in, uint32_t param, int64_t off, uint64_t *dst_el,
                             unsigned k) {
  unsigned es = ft_ptx_type_size(in->type);
  if (!es) es = 8;
  int64_t lo = off + (int64_t)k * es, hi = lo + es, covered = 0;
  for (uint32_t j = 0; j < a->pcount[param]; j++) {
    size_t pl = a->pfirst[param] + j;
    int64_t f = a->places[pl].field;
    if (f < hi && f + 8 > lo) {
      covered += (f + 8 < hi ? f + 8 : hi) - (f > lo ? f : lo);
      if (es == 8 && lo == f) {
        s_set(dst_el, bitP(a, pl));
        mark(a, pl, R_FULL);
      } else {
        s_set(dst_el, bitP(a, o_special(a, O_PARTIAL)));
        mark(a, pl, R_PART);
      }
    }
  }
  if (covered < (int64_t)es) s_set(dst_el, bitP(a, o_special(a, O_UNPLACED)));
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
  int from_memory = 0, any = 0, unk = 0;
  for (size_t o = 0; o < a->nb; o++) {
    if (!s_has(a->t1, bitP(a, o))) continue;
    any = 1;
    if (o >= o_paddr(a, 0) && o < o_lfrom(a, 0)) {
      param_places(a, a->t0, o - o_paddr(a, 0));   /* reads the kernel's own parameter */
    } else if (o == o_special(a, O_SHLOC)) {
      if (private_addr(a, a->t1)) pool_load(a, f, in, ad, a->t0);
      else s_or(a, a->t0, a->pool);
    } else {
      from_memory = 1;
      unk |= o >= a->np; /* through a loaded pointer, a module variable, ... */
    }
  }
  if (from_memory || !any) {
    /* where it came from: every place in the address, as a pointer or as an integer
     * (laundered); from elsewhere too when other origins may be the pointer (as
     * deref() takes them: integers when no place is, or when one rebases) */
    int rebase = 0, nplace = 0;
    for (size_t pl = 0; pl < a->np; pl++) {
      if (s_has(a->t1, bitP(a, pl))) nplace++, rebase |= s_has(a->t1, bitI(a, pl));
      if (s_any(a, a->t1, pl)) s_set(a->t0, bitP(a, o_lfrom(a, pl)));
    }
    if (!nplace || rebase)
      for (size_t o = a->np; o < a->nb; o++)
        if (s_has(a->t1, bitI(a, o)) && o != o_special(a, O_SHLOC)) unk = 1;
    if (!any && !nplace) unk = 1;
    if (in->space == FT_PTX_SP_PARAM) unk = 1; /* parameter bytes behind a register, not a buffer */
    if (unk) s_set(a->t0, bitP(a, o_special(a, O_LOADED_UNK)));
    /* a load of fewer than 8 bytes cannot read a whole pointer: an index or a piece */
    s_set(a->t0, bitP(a, o_special(a, access_elem_size(in) >= 8 ? O_LOADED : O_NARROW)));
  }
  /* a value that may be a pointer, loaded through a pointer loaded from memory:
   * the kernel may chase pointers more than one level deep (p = p->next) */
  if (in->space != FT_PTX_SP_PARAM && access_elem_size(in) >= 4 &&
      (s_any(a, a->t1, o_special(a, O_LOADED)) || s_any(a, a->t1, o_special(a, O_NARROW))))
    a->flags |= FT_PTX_K_PTR_CHASE;
  if (in->space != FT_PTX_SP_PARAM) {
    cur_access(a, f, in, ad, access_size(in));
    deref(a, a->t1, in->space, R_READ, (in->flags & FT_PTX_F_NC) != 0);
    cur_access(a, 0, NULL, NULL, 0);
  }
  set_dst(a, f, fn, d, a->t0);
}

static void do_store(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  const ft_ptx_operand_t *ad = ft_ptx_opd(fn, in, 0), *v = ft_ptx_opd(fn, in, 1);
  if (ad->kind != FT_PTX_OPD_ADDR) return;
  s_clear(a, a->t0);
  if (ft_ptx_type_size(in->type) < 8) {
    /* fewer than 8 bytes of a value cannot hold a whole pointer: stored as an
     * integer, which escape() still follows (a pointer stored in pieces and
     * reloaded is a pointer again) */
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
  if (private_addr(a, a->t1)) {
    pool_store(a, f, in, ad, a->t0);
  } else {
    a->esc_to = a->t1;
    escape(a, a->t0);
    a->esc_to = NULL;
    if (s_has(a->t1, bitP(a, o_special(a, O_SHLOC)))) {   /* may land in the kernel's own storage too */
      s_grow(a, a->pool, a->t0);
      s_grow(a, a->pool_any, a->t0);
    }
  }
  cur_access(a, f, in, ad, access_size(in));
  deref(a, a->t1, in->space, R_WRITE, 0);
  cur_access(a, 0, NULL, NULL, 0);
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
  if (priv) pool_store(a, f, in, ad, a->t0);
  else escape(a, a->t0);
  cur_access(a, f, in, ad, access_size(in));
  deref(a, a->t1, in->space, R_READ | R_WRITE, 0);
  cur_access(a, 0, NULL, NULL, 0);
  if (ai) {
    s_clear(a, a->t0);
    set_loaded(a, a->t0);
    if (priv) pool_load(a, f, in, ad, a->t0);
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
    if (callee->is_decl) {
      /* The CUDA runtime's device functions without a body in the module: printf and
       * assert only read what they are given (the FIFO they write is the driver's);
       * malloc returns memory of the device heap, which gpuft does not track (like
       * the kernel's own storage); free writes nothing a kernel can see;
       * cudaGraphSetConditional sets a conditional node's value, the driver's state
       * (gpuft counts what every body of the node may do, whichever runs). */
      const char *nm = callee->name;
      if (!strcmp(nm, "vprintf") || !strcmp(nm, "__assertfail") || !strcmp(nm, "free") ||
          !strcmp(nm, "cudaGraphSetConditional"))
        return;
      if (!strcmp(nm, "malloc")) {
        s_clear(a, a->t0);
        s_set(a->t0, bitP(a, o_special(a, O_SHLOC)));
        for (uint32_t i = 0; i < rets->count; i++) s_grow(a, var_set(a, f, fn->operands[rets->index + i].index), a->t0);
        return;
      }
    }
    if (callee->is_decl || callee->nparams != args->count || callee->nrets != rets->count) callee = NULL;
  }
  if (!callee) {
    /* cannot follow: every argument escapes; results are unknown values */
    a->flags |= FT_PTX_K_UNKNOWN_CALL;
    s_clear(a, a->t0);
    set_loaded(a, a->t0);
    for (uint32_t i = 0; i < args->count; i++) {
      const uint64_t *arg = var_set(a, f, fn->operands[args->index + i].index);
      escape(a, arg);
      /* the callee may write anything into storage it was given */
      if (s_has(arg, bitP(a, o_special(a, O_SHLOC)))) {
        s_grow(a, a->pool, a->t0);
        s_grow(a, a->pool_any, a->t0);
      }
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

/* An instruction with a memory operand that no rule above models (textures,
 * surfaces, bulk copies, matrix loads...): each address may be read and
 * written, every value it is given escapes, what it returns is unknown, and it
 * may reach memory that no argument points to. */
static void do_unknown_mem(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  a->flags |= FT_PTX_K_UNKNOWN_MEM;
  s_clear(a, a->t0);
  for (unsigned i = 0; i < in->nops; i++) {
    const ft_ptx_operand_t *o = ft_ptx_opd(fn, in, i);
    s_clear(a, a->t1);
    if (o->kind == FT_PTX_OPD_ADDR) addr_taint(a, f, fn, o, a->t1);
    else if (i > 0) src_taint(a, f, fn, o, a->t1);
    escape(a, a->t1);
    for (size_t pl = 0; pl < a->np; pl++)
      if (s_any(a, a->t1, pl)) {
        mark(a, pl, R_READ | R_WRITE);
        if (a->rc) ft_range_unbounded(a->rc, pl, 3);
      }
    if (s_has(a->t1, bitP(a, o_special(a, O_SHLOC)))) {   /* may fill the kernel's own storage */
      set_loaded(a, a->t0);
      s_grow(a, a->pool, a->t0);
      s_grow(a, a->pool_any, a->t0);
    }
  }
  s_clear(a, a->t0);
  set_loaded(a, a->t0);
  if (in->nops && ft_ptx_opd(fn, in, 0)->kind != FT_PTX_OPD_ADDR) set_dst(a, f, fn, ft_ptx_opd(fn, in, 0), a->t0);
}

/* One memory operand of a library form (matrix loads and stores, bulk copies,
 * multimem): the address at operand idx in space sp is read and/or written
 * (bits); vals (or NULL) is what a write stores. What a read returns is or'ed into
 * got. The kernel's own shared/local storage is the pool; anything else is a
 * dereference like ld/st's. */
static void mem_operand(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in, unsigned idx,
                        unsigned sp, uint8_t bits, const uint64_t *vals, uint64_t *got) {
  if (idx >= in->nops) return;
  const ft_ptx_operand_t *ad = ft_ptx_opd(fn, in, idx);
  if (ad->kind != FT_PTX_OPD_ADDR) return;
  uint64_t *t = calloc(a->nw, 8);
  if (!t) {
    a->oom = 1;
    return;
  }
  addr_taint(a, f, fn, ad, t);
  int own = sp == FT_PTX_SP_SHARED || sp == FT_PTX_SP_SHARED_CLUSTER || sp == FT_PTX_SP_LOCAL || private_addr(a, t);
  if (own) {
    if (bits & R_WRITE) {
      s_grow(a, a->pool, vals);
      s_grow(a, a->pool_any, vals);
    }
    if (bits & R_READ) s_or(a, got, a->pool);
  } else {
    deref(a, t, sp, bits, 0);
    if (bits & R_WRITE) escape(a, vals);
    if (bits & R_READ) set_loaded(a, got);
  }
  free(t);
}

/* The library forms that touch memory (ptx/ptx_ir.h's second opcode group; their
 * operands as docs/ptx.md "Library forms" lists them). 0 when op is none of them. */
static int do_library_mem(A *a, size_t f, const ft_ptx_function_t *fn, const ft_ptx_instr_t *in) {
  uint64_t *vals = a->t0, *got = a->t2;
  s_clear(a, vals);
  s_clear(a, got);
  unsigned sp = in->space, sp2 = in->space2;
  int dst = -1; /* destination operand */
  switch (in->op) {
  case FT_PTX_OP_LDMATRIX: case FT_PTX_OP_WMMA_LOAD: case FT_PTX_OP_MULTIMEM_LD_REDUCE:
    mem_operand(a, f, fn, in, 1, in->op == FT_PTX_OP_LDMATRIX ? FT_PTX_SP_SHARED : sp, R_READ, vals, got);
    dst = 0;
    break;
  case FT_PTX_OP_STMATRIX: case FT_PTX_OP_WMMA_STORE:
    for (unsigned i = 1; i < in->nops; i++) src_taint(a, f, fn, ft_ptx_opd(fn, in, i), vals);
    mem_operand(a, f, fn, in, 0, in->op == FT_PTX_OP_STMATRIX ? FT_PTX_SP_SHARED : sp, R_WRITE, vals, got);
    break;
  case FT_PTX_OP_TEX: case FT_PTX_OP_TLD4: case FT_PTX_OP_TXQ: case FT_PTX_OP_SUQ: case FT_PTX_OP_SULD:
    /* reads through a texture or surface handle: nothing written */
    set_loaded(a, got);
    dst = 0;
    break;
  case FT_PTX_OP_SUST: case FT_PTX_OP_SURED: case FT_PTX_OP_MULTIMEM_ST: case FT_PTX_OP_MULTIMEM_RED:
    /* writes through a surface handle or a multicast address: no pointer to follow */
    a->flags |= FT_PTX_K_UNKNOWN_MEM;
    for (unsigned i = 0; i < in->nops; i++)
      if (ft_ptx_opd(fn, in, i)->kind != FT_PTX_OPD_ADDR) src_taint(a, f, fn, ft_ptx_opd(fn, in, i), vals);
    escape(a, vals);
    break;
  case FT_PTX_OP_CP_ASYNC_BULK: case FT_PTX_OP_CP_REDUCE_ASYNC_BULK: {
    /* memory to memory: [0] written (reduced) in sp, [1] read in sp2, [3] an mbarrier */
    mem_operand(a, f, fn, in, 1, sp2, R_READ, vals, vals);
    uint8_t w = in->op == FT_PTX_OP_CP_REDUCE_ASYNC_BULK ? R_READ | R_WRITE : R_WRITE;
    mem_operand(a, f, fn, in, 0, sp, w, vals, got);
    mem_operand(a, f, fn, in, 3, FT_PTX_SP_SHARED, R_READ | R_WRITE, got, got);
    break;
  }
  case FT_PTX_OP_CP_ASYNC_BULK_TENSOR: case FT_PTX_OP_CP_REDUCE_ASYNC_BULK_TENSOR:
    if (sp == FT_PTX_SP_SHARED || sp == FT_PTX_SP_SHARED_CLUSTER) {
      /* global (through the tensor map's pointer) to shared */
      set_loaded(a, vals);
      mem_operand(a, f, fn, in, 0, sp, R_WRITE, vals, got);
      mem_operand(a, f, fn, in, 3, FT_PTX_SP_SHARED, R_READ | R_WRITE, got, got);
    } else {
      /* shared to global through a tensor map: its pointer is hidden in an opaque
       * descriptor */
      a->flags |= FT_PTX_K_UNKNOWN_MEM;
      escape(a, a->pool);
    }
    break;
  case FT_PTX_OP_CP_ASYNC_BULK_PREFETCH: case FT_PTX_OP_CP_ASYNC_BULK_PREFETCH_TENSOR:
  case FT_PTX_OP_FENCE_PROXY:
    break; /* no data moves into the kernel's view */
  case FT_PTX_OP_CP_ASYNC_MBARRIER_ARRIVE:
    mem_operand(a, f, fn, in, 0, FT_PTX_SP_SHARED, R_READ | R_WRITE, got, got);
    break;
  case FT_PTX_OP_MBARRIER: {
    unsigned ai = ft_ptx_opd(fn, in, 0)->kind == FT_PTX_OPD_ADDR ? 0 : 1;
    mem_operand(a, f, fn, in, ai, sp ? sp : FT_PTX_SP_SHARED, R_READ | R_WRITE, got, got);
    s_clear(a, got);
    if (ai) dst = 0;
    break;
  }
  default:
    return 0;
  }
  if (dst >= 0 && (unsigned)dst < in->nops && ft_ptx_opd(fn, in, (unsigned)dst)->kind != FT_PTX_OPD_ADDR)
    set_dst(a, f, fn, ft_ptx_opd(fn, in, (unsigned)dst), got);
  return 1;
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
    s_clear(a, a->t0);   /* bytes of cp-size, at no tracked offset */
    set_loaded(a, a->t0);
    s_grow(a, a->pool, a->t0);
    s_grow(a, a->pool_any, a->t0);
    s_clear(a, a->t1);
    addr_taint(a, f, fn, ft_ptx_opd(fn, in, 1), a->t1);
    /* the source: cp-size bytes (an immediate) */
    const ft_ptx_operand_t *cs = in->nops > 2 ? ft_ptx_opd(fn, in, 2) : NULL;
    if (cs && cs->kind == FT_PTX_OPD_IMM_INT && cs->value > 0 && cs->value <= 16)
      cur_access(a, f, in, ft_ptx_opd(fn, in, 1), (unsigned)cs->value);
    deref(a, a->t1, in->space2, R_READ, 0);
    cur_access(a, 0, NULL, NULL, 0);
    return;
  }
  case FT_PTX_OP_PREFETCH: case FT_PTX_OP_PREFETCHU:
    if (in->nops && ft_ptx_opd(fn, in, 0)->kind == FT_PTX_OPD_ADDR) {
      s_clear(a, a->t1);
      addr_taint(a, f, fn, ft_ptx_opd(fn, in, 0), a->t1);
      cur_access(a, f, in, ft_ptx_opd(fn, in, 0), 1);   /* reads nothing the kernel sees */
      deref(a, a->t1, in->space, R_READ, 0);
      cur_access(a, 0, NULL, NULL, 0);
    }
    return;
  default: {
    if (do_library_mem(a, f, fn, in)) return;
    for (unsigned i = 0; i < in->nops; i++)
      if (ft_ptx_opd(fn, in, i)->kind == FT_PTX_OPD_ADDR) {
        do_unknown_mem(a, f, fn, in);
        return;
      }
    /* values: destinations (opcodes.h) from the sources; branches, fences,
     * cp.async groups and bar.sync write nothing */
    unsigned nd = ft_ptx_ndst(in);
    if (nd) do_value(a, f, fn, in, nd);
    return;
  }
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
  /* parameter bytes stored, and pointers loaded from memory: the kernel may be
   * reloading its own parameter bytes as a pointer */
  if (a->flags & FT_PTX_K_LOADED_PTR) {
    if (a->unplaced_stored) a->flags |= FT_PTX_K_UNPLACED_PTR;
    if (a->unk_stored) a->flags |= FT_PTX_K_LOADED_UNK;
    if (a->partial_stored) partial_escapes(a);
    for (size_t pl = 0; pl < a->np; pl++) {
      if (a->res[pl] & R_ISTORED) a->res[pl] |= R_IESC | R_INEXACT;
      if (a->res[pl] & R_LSTORED) a->res[pl] |= R_PTRSRC;
    }
  }
  for (size_t pl = 0; pl < a->np; pl++) {
    uint16_t r = a->res[pl];
    ft_ptx_place_t *p = &a->places[pl];
    if (a->flags & FT_PTX_K_INCOMPLETE) {
      p->access = FT_PTX_ACC_READ_WRITE;
      p->exact = 0;
      continue;
    }
    if (r & (R_ESC | R_IESC)) p->access = FT_PTX_ACC_ESCAPES;
    else p->access = (uint8_t)(((r & R_READ) ? FT_PTX_ACC_READ : 0) | ((r & R_WRITE) ? FT_PTX_ACC_WRITE : 0));
    /* a slot read both whole and in pieces holds either a pointer or data: conservative */
    int mixed_width = (r & R_FULL) && (r & R_PART);
    p->exact = !(r & (R_ESC | R_INEXACT)) && !mixed_width;
    p->nc = (r & R_NC) != 0;
    p->as_int = (r & R_IESC) && !(r & (R_ESC | R_READ | R_WRITE));
    p->ptr_src = (r & R_PTRSRC) != 0;
    p->ptr_sink = (a->flags & FT_PTX_K_LOADED_PTR) && (r & R_SINK); /* (matters only then) */
  }
  out->places = a->places;
  out->nplaces = a->np;
  out->flags = a->flags;
  a->places = NULL;
}

/* Whether direction d of p is none without a program (ft_ptx_place_range). */
static int none_by_access(const ft_ptx_place_t *p, unsigned d) {
  return p->exact && p->access != FT_PTX_ACC_ESCAPES && !(p->access & (1u << d));
}

/* Stores r[0] (read) and r[1] (write) for p in f's pool, but no program for a
 * direction p's access already says is none: the handle. */
static uint32_t keep(ft_ptx_facts_t *f, const ft_ptx_place_t *p, const ft_ptx_range_t r[2]) {
  const ft_ptx_range_t *d[2];
  for (unsigned i = 0; i < 2; i++) d[i] = none_by_access(p, i) ? NULL : &r[i];
  return ft_ptx_range_store(&f->ranges, d[0], d[1]);
}

/* Each place's read and write ranges: bounded for exact places every access of
 * which the range analysis bounded (the others stay zero: unbounded). */
static void ranges(A *a, ft_ptx_facts_t *out) {
  if (!a->rc || (out->flags & FT_PTX_K_INCOMPLETE)) return;
  for (size_t pl = 0; pl < out->nplaces; pl++) {
    ft_ptx_place_t *p = &out->places[pl];
    if (!p->exact || p->access == FT_PTX_ACC_ESCAPES) continue;
    ft_ptx_range_t r[2];
    ft_range_result(a->rc, pl, p->access & 3u, &r[0], &r[1]);
    p->range = keep(out, p, r);
  }
  ft_ptx_range_pool_trim(&out->ranges);
}

static void release(A *a) {
  if (a->fc)
    for (size_t i = 0; i < a->m->nfuncs; i++) {
      free(a->fc[i].regs);
      free(a->fc[i].vars);
      free(a->fc[i].params);
      free(a->fc[i].rets);
      free(a->fc[i].frame);
    }
  for (size_t i = 0; i < a->nslots; i++) free(a->slots[i].set);
  free(a->slots);
  free(a->pool_any);
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

static void count_def(const ft_ptx_function_t *fn, const ft_ptx_operand_t *o, uint32_t *ndef) {
  if (o->kind == FT_PTX_OPD_REG && ndef[o->index] < 2) ndef[o->index]++;
  if (o->kind == FT_PTX_OPD_VEC)
    for (uint32_t i = 0; i < o->count; i++) count_def(fn, &fn->operands[o->index + i], ndef);
}

/* Frame registers: defined once, from the address of a shared/local variable,
 * by mov, cvta or add of an immediate: they hold one fixed address for the
 * whole run of the function, so base + offset names one place. */
static uint8_t *frame_regs(const ft_ptx_module_t *m, const ft_ptx_function_t *fn) {
  uint32_t *ndef = calloc(fn->nregs ? fn->nregs : 1, sizeof *ndef);
  uint8_t *fr = calloc(fn->nregs ? fn->nregs : 1, 1);
  if (!ndef || !fr) {
    free(ndef);
    free(fr);
    return NULL;
  }
  for (size_t i = 0; i < fn->ninstrs; i++) {
    const ft_ptx_instr_t *in = &fn->instrs[i];
    for (unsigned d = 0; d < ft_ptx_ndst(in) && d < in->nops; d++) count_def(fn, ft_ptx_opd(fn, in, d), ndef);
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < fn->ninstrs; i++) {
      const ft_ptx_instr_t *in = &fn->instrs[i];
      if ((in->op != FT_PTX_OP_MOV && in->op != FT_PTX_OP_CVTA && in->op != FT_PTX_OP_ADD) || in->nops < 2 ||
          in->guard != FT_PTX_NO_REG)
        continue;
      const ft_ptx_operand_t *d = ft_ptx_opd(fn, in, 0), *s1 = ft_ptx_opd(fn, in, 1);
      if (d->kind != FT_PTX_OPD_REG || ndef[d->index] != 1 || fr[d->index]) continue;
      int ok = 0;
      if (in->op == FT_PTX_OP_MOV && s1->kind == FT_PTX_OPD_SYM) {
        unsigned sp = s1->sym_kind == FT_PTX_SYM_MODVAR ? m->vars[s1->index].space
                    : s1->sym_kind == FT_PTX_SYM_FUNCVAR ? fn->vars[s1->index].space : FT_PTX_SP_GLOBAL;
        ok = sp == FT_PTX_SP_SHARED || sp == FT_PTX_SP_LOCAL;
      } else if ((in->op == FT_PTX_OP_MOV || in->op == FT_PTX_OP_CVTA) && s1->kind == FT_PTX_OPD_REG) {
        ok = fr[s1->index] && (in->op == FT_PTX_OP_MOV || in->space == FT_PTX_SP_LOCAL || in->space == FT_PTX_SP_SHARED);
      } else if (in->op == FT_PTX_OP_ADD && in->nops == 3) {
        const ft_ptx_operand_t *s2 = ft_ptx_opd(fn, in, 2);
        ok = (s1->kind == FT_PTX_OPD_REG && fr[s1->index] && s2->kind == FT_PTX_OPD_IMM_INT) ||
             (s2->kind == FT_PTX_OPD_REG && fr[s2->index] && s1->kind == FT_PTX_OPD_IMM_INT);
      }
      if (ok) {
        fr[d->index] = 1;
        changed = 1;
      }
    }
  }
  free(ndef);
  return fr;
}

static int alloc_ctx(A *a, size_t i) {
  const ft_ptx_function_t *fn = &a->m->funcs[i];
  fctx_t *c = &a->fc[i];
  c->regs = calloc(fn->nregs ? fn->nregs * a->nw : 1, 8);
  c->vars = calloc(fn->nvars ? fn->nvars * a->nw : 1, 8);
  c->params = calloc(fn->nparams ? fn->nparams * a->nw : 1, 8);
  c->rets = calloc(fn->nrets ? fn->nrets * a->nw : 1, 8);
  c->frame = frame_regs(a->m, fn);
  return c->regs && c->vars && c->params && c->rets && c->frame ? 0 : -1;
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
  a.nb = a.np + O_NSPECIAL + entry->nparams + a.np; /* ... + LFROM(place) */
  a.nw = (2 * a.nb + 63) / 64;
  a.res = calloc(a.np ? a.np : 1, sizeof *a.res);
  a.fc = calloc(m->nfuncs, sizeof *a.fc);
  a.t0 = calloc(a.nw, 8);
  a.t1 = calloc(a.nw, 8);
  a.t2 = calloc(a.nw, 8);
  a.pool = calloc(a.nw, 8);
  a.pool_any = calloc(a.nw, 8);
  int ok = a.res && a.fc && a.t0 && a.t1 && a.t2 && a.pool && a.pool_any;
  /* function contexts are allocated when first reached (a module may hold
   * thousands of functions one entry never calls) */
  if (ok) ok = alloc_ctx(&a, ei) == 0;
  if (!ok) {
    release(&a);
    if (err && errlen) snprintf(err, errlen, "out of memory");
    return -1;
  }
  a.fc[ei].reached = 1;
  uint32_t *poff = NULL;
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
  if (a.changed || a.oom) a.flags |= FT_PTX_K_INCOMPLETE;
  if (!(a.flags & FT_PTX_K_INCOMPLETE)) {
    /* The taint is at its fixpoint: record the accesses once more from it,
     * forgetting what early rounds saw through still-incomplete taint (an
     * address with no origin yet is not an address built from no pointer). */
    for (size_t pl = 0; pl < a.np; pl++) a.res[pl] &= R_PART | R_FULL;
    a.flags = 0;
    /* ranges: every access through one place, seen once more with the final taint */
    poff = malloc((a.np ? a.np : 1) * sizeof *poff);
    for (size_t pl = 0; poff && pl < a.np; pl++) poff[pl] = a.places[pl].offset;
    a.rc = poff ? ft_range_new(m, entry, poff, a.np) : NULL;
    a.unplaced_stored = 0;
    a.partial_stored = 0;
    a.unk_stored = 0;
    for (size_t f = 0; f < m->nfuncs; f++)
      if (a.fc[f].reached)
        for (size_t i = 0; i < m->funcs[f].ninstrs; i++) transfer(&a, f, &m->funcs[f], &m->funcs[f].instrs[i]);
    if (a.changed) a.flags |= FT_PTX_K_INCOMPLETE;
  }
  finish(&a, out);
  ranges(&a, out);
  ft_range_free(a.rc);
  free(poff);
  release(&a);
  return 0;
}

int ft_ptx_facts_conservative(const uint32_t *offsets, const uint32_t *sizes, size_t n, ft_ptx_facts_t *out) {
  memset(out, 0, sizeof *out);
  size_t np = 0;
  for (size_t pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < n; i++) {
      if (sizes[i] < 8 || sizes[i] > (1u << 20)) continue;
      for (uint32_t f = 0; f + 8 <= sizes[i]; f++) {
        if ((offsets[i] + f) % 8) continue;
        if (pass) out->places[out->nplaces++] = (ft_ptx_place_t){.offset = offsets[i] + f, .param = (uint32_t)i,
                                                                 .field = f, .access = FT_PTX_ACC_READ_WRITE};
        else np++;
      }
    }
    if (!pass) {
      if (np > MAX_PLACES) return -1;
      out->places = calloc(np ? np : 1, sizeof *out->places);
      if (!out->places) return -1;
    }
  }
  out->flags = FT_PTX_K_INCOMPLETE;
  return 0;
}

void ft_ptx_facts_free(ft_ptx_facts_t *f) {
  free(f->places);
  f->places = NULL;
  f->nplaces = 0;
  ft_ptx_range_pool_free(&f->ranges);
}

void ft_ptx_place_range(const ft_ptx_facts_t *f, const ft_ptx_place_t *p, unsigned dir, ft_ptx_range_t *out) {
  if (dir < 2 && none_by_access(p, dir)) {
    memset(out, 0, sizeof *out);
    out->n = 1;
    out->op[0].op = FT_PTX_R_CONST;
    return;
  }
  ft_ptx_range_load(&f->ranges, p->range, dir, out);
}

int ft_ptx_place_range_eval(const ft_ptx_facts_t *f, const ft_ptx_place_t *p, unsigned dir, const void *params,
                            size_t params_size, const unsigned grid[3], const unsigned block[3], int64_t *lo,
                            int64_t *hi) {
  if (dir < 2 && none_by_access(p, dir)) {
    *lo = *hi = 0;
    return 0;
  }
  return ft_ptx_range_eval_at(&f->ranges, p->range, dir, params, params_size, grid, block, lo, hi);
}

static uint8_t join_access(uint8_t a, uint8_t b) {
  return a == FT_PTX_ACC_ESCAPES || b == FT_PTX_ACC_ESCAPES ? FT_PTX_ACC_ESCAPES : (uint8_t)(a | b);
}

void ft_ptx_facts_join(ft_ptx_facts_t *dst, const ft_ptx_facts_t *src) {
  int differ = dst->nplaces != src->nplaces;
  for (size_t i = 0; i < src->nplaces; i++) {
    const ft_ptx_place_t *s = &src->places[i];
    size_t j;
    for (j = 0; j < dst->nplaces && dst->places[j].offset != s->offset; j++) {
    }
    if (j == dst->nplaces) {
      dst->flags |= FT_PTX_K_INCOMPLETE; /* different layouts: trust neither */
      differ = 1;
      continue;
    }
    ft_ptx_place_t *d = &dst->places[j];
    ft_ptx_range_t r[2], o;
    int same = 1;
    for (unsigned k = 0; k < 2; k++) {
      ft_ptx_place_range(dst, d, k, &r[k]);
      ft_ptx_place_range(src, s, k, &o);
      ft_ptx_range_t before = r[k];
      ft_ptx_range_join(&r[k], &o);
      same &= !memcmp(&before, &r[k], sizeof before);
    }
    d->access = join_access(d->access, s->access);
    d->exact &= s->exact;
    d->ptr_src |= s->ptr_src;
    d->ptr_sink |= s->ptr_sink;
    if (!d->exact || d->access == FT_PTX_ACC_ESCAPES) d->range = 0;
    else if (!same) d->range = keep(dst, d, r); /* the old record stays in the pool, unused */
  }
  dst->flags |= src->flags;
  ft_ptx_range_pool_trim(&dst->ranges);
  /* a place of dst that src lacks: the kernel launched may use those bytes otherwise */
  if (differ)
    for (size_t j = 0; j < dst->nplaces; j++) dst->places[j].range = 0;
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
