/* range.c: the byte range each access through an argument place may touch, as a
 * symbolic interval over launch variables, bounded by guards and loop tests; the
 * union per place is serialised to a small program (range.h). Rules: docs/ptx.md, "Ranges". */
#include "range.h"
#include "range_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- symbolic expressions: hash-consed nodes, 0 = none (unbounded) ---- */

typedef struct {
  uint8_t op, a8, b8;
  uint32_t a, b;
  int64_t k;
  double smin, smax;          /* static bounds, +-INFINITY beyond 2^52 (decisions only) */
} node_t;

#define BIG 4503599627370496.0 /* 2^52: above it, a static bound is infinite */

enum { C_LT = 1, C_LE, C_GT, C_GE };

/* A guard: subject register r compares with a register or an immediate, in a view
 * (width in bytes, signedness), and that holds where the fact is available. */
typedef struct {
  uint32_t r, br;
  uint8_t cmp, sgn, w, bimm;
  int64_t imm;
} fact_t;

enum { V_TOP = 0, V_INT, V_PTR };
typedef struct {
  uint8_t kind, width;        /* width in bytes of the register (0: an immediate, any) */
  uint8_t vw;                 /* the view (kind_of) the interval is known exact in, 0: none */
  uint32_t place;             /* V_PTR: the place whose pointer this is, plus [lo, hi] */
  uint32_t lo, hi;            /* nodes; 0: that side unbounded */
} val_t;

/* The facts holding at one instruction, as a list. */
typedef struct {
  uint32_t at;
  uint32_t *f;
  size_t n;
  int memo;                   /* the top-level point: memoised values */
} ctx_t;

typedef struct {
  uint8_t state;              /* 0 no access seen, 1 bounded, 2 unbounded */
  uint32_t lo, hi;
} acc_t;

struct ft_range_s {
  const ft_ptx_module_t *m;
  const ft_ptx_function_t *fn;
  size_t np;
  const uint32_t *poff;       /* places' offsets in the parameter buffer, ascending */
  acc_t *acc;                 /* 2 per place: read, write */
  int built, broken;
  /* nodes */
  node_t *nodes;
  size_t nn, ncap;
  uint32_t *htab;
  size_t hcap;
  /* registers */
  uint8_t *ndef;
  uint32_t *def1, *dstart, *dlist;
  /* blocks */
  size_t nb, nreach;         /* blocks; of them reachable (the first nreach of order[]) */
  uint32_t *bstart, *blk, *pstart, *plist, *rpo, *order, *idom, *pre, *post;
  /* facts */
  fact_t *facts;
  size_t nf, fcap, fw;
  uint64_t *in, *kill;
  uint32_t *gstart, *glist;   /* per block: [2b] taken-edge facts, [2b+1] fall-through facts */
  uint32_t *kstart, *klist;   /* per register: facts it kills when defined */
  /* evaluation */
  uint32_t serial, *memo_ser;
  val_t *memo;
  uint8_t *busy;
  uint32_t cycles;            /* values that met a register being evaluated: not memoised */
  uint32_t *mark, stamp;      /* fits_program's visited nodes */
  size_t nmark;
  long budget;
  uint32_t top_blk;
  uint32_t *top_f;
  size_t top_n;
};

typedef struct ft_range_s R;

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static double clampd(double v) { return v >= BIG ? INFINITY : v <= -BIG ? -INFINITY : v; }

static double mul_d(double a, double b) {
  if (a == 0 || b == 0) return 0;
  return clampd(a * b);
}

static void view_range(unsigned kind, double *lo, double *hi) {
  unsigned bits = 8 * (kind & 0x7f);
  if (kind & FT_PTX_R_SIGNED) {
    *lo = clampd(-ldexp(1, (int)bits - 1));
    *hi = clampd(ldexp(1, (int)bits - 1) - 1);
  } else {
    *lo = 0;
    *hi = clampd(ldexp(1, (int)bits) - 1);
  }
}

/* The static bounds of a new node from its operands. */
static void node_static(R *r, node_t *n) {
  const node_t *a = n->a ? &r->nodes[n->a] : NULL, *b = n->b ? &r->nodes[n->b] : NULL;
  double lo = -INFINITY, hi = INFINITY;
  switch (n->op) {
  case FT_PTX_R_CONST: lo = hi = clampd((double)n->k); break;
  case FT_PTX_R_PARAM: view_range(n->a8 | (n->b8 ? FT_PTX_R_SIGNED : 0), &lo, &hi); break;
  case FT_PTX_R_NTID: lo = 1; hi = n->a8 == 2 ? 64 : 1024; break;
  case FT_PTX_R_NCTAID: lo = 1; hi = n->a8 == 0 ? 2147483647.0 : 65535; break;
  case FT_PTX_R_ADD: lo = clampd(a->smin + b->smin); hi = clampd(a->smax + b->smax); break;
  case FT_PTX_R_SUB: lo = clampd(a->smin - b->smax); hi = clampd(a->smax - b->smin); break;
  case FT_PTX_R_MUL: {
    double c[4] = {mul_d(a->smin, b->smin), mul_d(a->smin, b->smax), mul_d(a->smax, b->smin), mul_d(a->smax, b->smax)};
    lo = hi = c[0];
    for (int i = 1; i < 4; i++) lo = fmin(lo, c[i]), hi = fmax(hi, c[i]);
    break;
  }
  case FT_PTX_R_MIN: lo = fmin(a->smin, b->smin); hi = fmin(a->smax, b->smax); break;
  case FT_PTX_R_MAX: lo = fmax(a->smin, b->smin); hi = fmax(a->smax, b->smax); break;
  case FT_PTX_R_DIV: lo = floor(a->smin / (double)n->k); hi = floor(a->smax / (double)n->k); break;
  case FT_PTX_R_FIT: {
    double vl, vh;
    view_range(n->b8, &vl, &vh);
    lo = fmax(a->smin, vl);
    hi = fmin(a->smax, vh);
    break;
  }
  case FT_PTX_R_SEQ: lo = b->smin; hi = b->smax; break;
  default: break;
  }
  if (isnan(lo)) lo = -INFINITY;
  if (isnan(hi)) hi = INFINITY;
  n->smin = lo;
  n->smax = hi;
}

static int grow_hash(R *r) {
  size_t cap = r->hcap ? r->hcap * 2 : 1024;
  uint32_t *t = calloc(cap, sizeof *t);
  if (!t) return -1;
  for (size_t i = 1; i < r->nn; i++) {
    const node_t *n = &r->nodes[i];
    uint64_t h = mix(mix(mix(mix(n->op, n->a8 | (uint64_t)n->b8 << 8), n->a), n->b), (uint64_t)n->k);
    size_t j = h & (cap - 1);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = (uint32_t)i;
  }
  free(r->htab);
  r->htab = t;
  r->hcap = cap;
  return 0;
}

/* The node (op, a8, b8, a, b, k), shared when it exists. 0 when out of memory. */
static uint32_t nd(R *r, unsigned op, unsigned a8, unsigned b8, uint32_t a, uint32_t b, int64_t k) {
  if (r->nn * 2 >= r->hcap && grow_hash(r) != 0) return 0;
  uint64_t h = mix(mix(mix(mix(op, a8 | (uint64_t)b8 << 8), a), b), (uint64_t)k);
  size_t j = h & (r->hcap - 1);
  for (; r->htab[j]; j = (j + 1) & (r->hcap - 1)) {
    const node_t *n = &r->nodes[r->htab[j]];
    if (n->op == op && n->a8 == a8 && n->b8 == b8 && n->a == a && n->b == b && n->k == k) return r->htab[j];
  }
  if (r->nn == r->ncap) {
    size_t cap = r->ncap * 2;
    node_t *g = realloc(r->nodes, cap * sizeof *g);
    if (!g) return 0;
    r->nodes = g;
    r->ncap = cap;
  }
  node_t *n = &r->nodes[r->nn];
  *n = (node_t){(uint8_t)op, (uint8_t)a8, (uint8_t)b8, a, b, k, 0, 0};
  node_static(r, n);
  r->htab[j] = (uint32_t)r->nn;
  return (uint32_t)r->nn++;
}

static uint32_t n_const(R *r, int64_t k) { return nd(r, FT_PTX_R_CONST, 0, 0, 0, 0, k); }
static int is_const(R *r, uint32_t x) { return x && r->nodes[x].op == FT_PTX_R_CONST; }

/* x = base + c, with the constant outermost (base 0: x is the constant c). */
static void split(R *r, uint32_t x, uint32_t *base, int64_t *c) {
  const node_t *n = &r->nodes[x];
  if (n->op == FT_PTX_R_CONST) *base = 0, *c = n->k;
  else if (n->op == FT_PTX_R_ADD && is_const(r, n->b)) *base = n->a, *c = r->nodes[n->b].k;
  else *base = x, *c = 0;
}

static uint32_t with_const(R *r, uint32_t base, int64_t c) {
  if (!base) return n_const(r, c);
  if (!c) return base;
  uint32_t k = n_const(r, c);
  return k ? nd(r, FT_PTX_R_ADD, 0, 0, base, k, 0) : 0;
}

/* Commutative ops take their operands in id order: one node per expression. */
static uint32_t comm(R *r, unsigned op, uint32_t a, uint32_t b) {
  return a < b ? nd(r, op, 0, 0, a, b, 0) : nd(r, op, 0, 0, b, a, 0);
}

/* Sums in a normal form: terms (base, coefficient) in base order, the constant
 * outermost, so that ntid + (nctaid - 1)*ntid - 1 becomes nctaid*ntid - 1. */
typedef struct {
  uint32_t base[8];
  int64_t k[8];
  size_t n;
  int64_t c;
} lin_t;

static int lin_term(R *r, lin_t *l, uint32_t x, int64_t k) {
  const node_t *d = &r->nodes[x];
  if (d->op == FT_PTX_R_ADD) return lin_term(r, l, d->a, k) || lin_term(r, l, d->b, k);
  if (d->op == FT_PTX_R_CONST) {
    int64_t p;
    return __builtin_mul_overflow(d->k, k, &p) || __builtin_add_overflow(l->c, p, &l->c);
  }
  if (d->op == FT_PTX_R_MUL && is_const(r, d->b)) {
    int64_t p;
    return __builtin_mul_overflow(r->nodes[d->b].k, k, &p) || lin_term(r, l, d->a, p);
  }
  for (size_t i = 0; i < l->n; i++)
    if (l->base[i] == x) return __builtin_add_overflow(l->k[i], k, &l->k[i]);
  if (l->n == 8) return 1;
  l->base[l->n] = x;
  l->k[l->n++] = k;
  return 0;
}

static uint32_t lin_build(R *r, lin_t *l) {
  for (size_t i = 1; i < l->n; i++)
    for (size_t j = i; j > 0 && l->base[j - 1] > l->base[j]; j--) {
      uint32_t b = l->base[j];
      int64_t k = l->k[j];
      l->base[j] = l->base[j - 1], l->k[j] = l->k[j - 1];
      l->base[j - 1] = b, l->k[j - 1] = k;
    }
  uint32_t acc = 0;
  for (size_t i = 0; i < l->n; i++) {
    if (!l->k[i]) continue;
    uint32_t t = l->base[i];
    if (l->k[i] != 1) {
      uint32_t kk = n_const(r, l->k[i]);
      t = kk ? nd(r, FT_PTX_R_MUL, 0, 0, t, kk, 0) : 0;
    }
    if (!t) return 0;
    acc = acc ? nd(r, FT_PTX_R_ADD, 0, 0, acc, t, 0) : t;
    if (!acc) return 0;
  }
  return with_const(r, acc, l->c);
}

static uint32_t n_add(R *r, uint32_t a, uint32_t b) {
  if (!a || !b) return 0;
  lin_t l = {{0}, {0}, 0, 0};
  if (lin_term(r, &l, a, 1) || lin_term(r, &l, b, 1)) return 0;
  return lin_build(r, &l);
}

static uint32_t n_addk(R *r, uint32_t a, int64_t k) { return a ? n_add(r, a, n_const(r, k)) : 0; }

static uint32_t n_sub(R *r, uint32_t a, uint32_t b) {
  if (!a || !b) return 0;
  lin_t l = {{0}, {0}, 0, 0};
  if (lin_term(r, &l, a, 1) || lin_term(r, &l, b, -1)) return 0;
  return lin_build(r, &l);
}

static uint32_t n_mul(R *r, uint32_t a, uint32_t b) {
  if (!a || !b) return 0;
  if (is_const(r, a)) {
    uint32_t t = a;
    a = b;
    b = t;
  }
  if (is_const(r, b)) {
    int64_t k = r->nodes[b].k, c, kc;
    if (k == 0) return n_const(r, 0);
    if (k == 1) return a;
    uint32_t ba;
    split(r, a, &ba, &c);
    if (__builtin_mul_overflow(c, k, &kc)) return 0;
    if (!ba) return n_const(r, kc);
    lin_t l = {{0}, {0}, 0, 0};
    if (lin_term(r, &l, ba, k)) return 0;
    l.c = kc;
    return lin_build(r, &l);
  }
  /* (x + c) * y = x*y + c*y: sums keep one normal form */
  uint32_t ba, bb;
  int64_t ca, cb;
  split(r, a, &ba, &ca);
  split(r, b, &bb, &cb);
  if (ca) return n_add(r, n_mul(r, ba, b), n_mul(r, b, n_const(r, ca)));
  if (cb) return n_add(r, n_mul(r, bb, a), n_mul(r, a, n_const(r, cb)));
  return comm(r, FT_PTX_R_MUL, a, b);
}

/* min (op MIN) or max (op MAX) of two bounds: terms with one base merge, and a
 * term statically beyond another goes. */
static uint32_t n_ext(R *r, unsigned op, uint32_t a, uint32_t b) {
  if (!a || !b) return 0;
  if (a == b) return a;
  const node_t *na = &r->nodes[a], *nb = &r->nodes[b];
  int mn = op == FT_PTX_R_MIN;
  if (mn ? na->smax <= nb->smin : na->smin >= nb->smax) return a;
  if (mn ? nb->smax <= na->smin : nb->smin >= na->smax) return b;
  /* flatten both chains into terms, merge terms of one base */
  uint32_t t[16], st[16];
  size_t nt = 0, ns = 0;
  st[ns++] = a;
  st[ns++] = b;
  while (ns) {
    uint32_t x = st[--ns];
    if (r->nodes[x].op == op && ns + 2 <= 16) {
      st[ns++] = r->nodes[x].a;
      st[ns++] = r->nodes[x].b;
      continue;
    }
    if (nt == 16) return 0;
    uint32_t bx;
    int64_t cx;
    split(r, x, &bx, &cx);
    size_t i;
    for (i = 0; i < nt; i++) {
      uint32_t bi;
      int64_t ci;
      split(r, t[i], &bi, &ci);
      if (bi == bx) {
        if (mn ? cx < ci : cx > ci) t[i] = x;
        break;
      }
    }
    if (i == nt) t[nt++] = x;
  }
  /* sorted for one node per set of terms */
  for (size_t i = 1; i < nt; i++)
    for (size_t j = i; j > 0 && t[j - 1] > t[j]; j--) {
      uint32_t s = t[j];
      t[j] = t[j - 1];
      t[j - 1] = s;
    }
  uint32_t acc = t[0];
  for (size_t i = 1; i < nt && acc; i++) {
    const node_t *x = &r->nodes[acc], *y = &r->nodes[t[i]];
    if (mn ? y->smin >= x->smax : y->smax <= x->smin) continue;
    if (mn ? x->smin >= y->smax : x->smax <= y->smin) { acc = t[i]; continue; }
    acc = nd(r, op, 0, 0, acc, t[i], 0);
  }
  return acc;
}

static uint32_t n_min(R *r, uint32_t a, uint32_t b) { return n_ext(r, FT_PTX_R_MIN, a, b); }
static uint32_t n_max(R *r, uint32_t a, uint32_t b) { return n_ext(r, FT_PTX_R_MAX, a, b); }

/* x, checked at launch to lie in the integer type `kind` (dropped when it always does). */
static uint32_t n_fit(R *r, uint32_t x, unsigned kind) {
  if (!x) return 0;
  double lo, hi;
  view_range(kind, &lo, &hi);
  if (r->nodes[x].smin >= lo && r->nodes[x].smax <= hi) return x;
  if (r->nodes[x].smax < lo || r->nodes[x].smin > hi) return 0;
  return nd(r, FT_PTX_R_FIT, 0, kind, x, 0, 0);
}

static uint32_t n_div(R *r, uint32_t x, int64_t k) {
  if (!x || k <= 0) return 0;
  if (k == 1) return x;
  if (is_const(r, x)) {
    int64_t v = r->nodes[x].k, q = v / k;
    return n_const(r, (v % k && v < 0) ? q - 1 : q);
  }
  return nd(r, FT_PTX_R_DIV, 0, 0, x, 0, k);
}

/* v, with the checks of cond kept alive (cond 0: none). */
static uint32_t n_seq(R *r, uint32_t cond, uint32_t v) {
  if (!v || !cond || is_const(r, cond)) return v;
  uint32_t bv;
  int64_t cv;
  split(r, v, &bv, &cv);
  uint32_t s = nd(r, FT_PTX_R_SEQ, 0, 0, cond, bv ? bv : n_const(r, 0), 0);
  return s ? with_const(r, s, cv) : 0;
}

/* ---- values ---- */

static const val_t TOP = {V_TOP, 0, 0, 0, 0, 0};

static val_t v_int(uint32_t lo, uint32_t hi, unsigned width) {
  if (!lo || !hi) return TOP;
  return (val_t){V_INT, (uint8_t)width, 0, 0, lo, hi};
}

static unsigned kind_of(unsigned width, int sgn) { return width | (sgn ? FT_PTX_R_SIGNED : 0); }

/* The value an integer view (width bytes, signed or not) of v reads: v itself when
 * its interval lies in the view's range (checked at launch), else nothing known. */
static val_t view(R *r, val_t v, unsigned width, int sgn) {
  if (v.kind == V_INT && !v.width) v.width = (uint8_t)width;   /* an immediate */
  if (v.kind != V_INT || v.width != width) return TOP;
  const node_t *lo = &r->nodes[v.lo];
  unsigned k = kind_of(width, sgn);
  if (v.vw == k) return v;
  val_t x;
  if (v.lo == v.hi && lo->op == FT_PTX_R_PARAM && lo->a8 == width) {   /* the bits themselves */
    uint32_t p = nd(r, FT_PTX_R_PARAM, width, sgn != 0, 0, 0, lo->k);
    x = v_int(p, p, width);
  } else {
    uint32_t a = n_fit(r, v.lo, k), b = v.lo == v.hi ? a : n_fit(r, v.hi, k);
    x = v_int(a, b, width);
  }
  x.vw = (uint8_t)k;
  return x;
}

/* An 8-byte place used as an integer (a size_t parameter is a place too). */
static val_t as_int(R *r, val_t v) {
  if (v.kind != V_PTR) return v;
  uint32_t p = nd(r, FT_PTX_R_PARAM, 8, 0, 0, 0, r->poff[v.place]);
  return v_int(n_add(r, p, v.lo), n_add(r, p, v.hi), 8);
}

/* ---- control flow: blocks, dominators ---- */

static int is_term(const ft_ptx_instr_t *in) {
  return in->op == FT_PTX_OP_BRA || in->op == FT_PTX_OP_BRX_IDX || in->op == FT_PTX_OP_RET ||
         in->op == FT_PTX_OP_EXIT || in->op == FT_PTX_OP_TRAP;
}

/* Calls fn(r, reg, ctx) for every register instruction in defines. */
static void each_def(R *r, const ft_ptx_instr_t *in, void (*f)(R *, uint32_t, void *), void *ctx) {
  unsigned n = ft_ptx_ndst(in);
  for (unsigned d = 0; d < n && d < in->nops; d++) {
    const ft_ptx_operand_t *o = ft_ptx_opd(r->fn, in, d);
    if (o->kind == FT_PTX_OPD_REG) f(r, o->index, ctx);
    else if (o->kind == FT_PTX_OPD_VEC)
      for (uint32_t i = 0; i < o->count; i++) {
        const ft_ptx_operand_t *e = &r->fn->operands[o->index + i];
        if (e->kind == FT_PTX_OPD_REG) f(r, e->index, ctx);
      }
  }
}

static void count_def(R *r, uint32_t reg, void *ctx) {
  (void)ctx;
  if (r->ndef[reg] < 255) r->ndef[reg]++;
}

static int build_regs(R *r) {
  const ft_ptx_function_t *fn = r->fn;
  size_t nr = fn->nregs ? fn->nregs : 1;
  r->ndef = calloc(nr, 1);
  r->def1 = calloc(nr, sizeof *r->def1);
  r->dstart = calloc(nr + 1, sizeof *r->dstart);
  r->memo_ser = calloc(nr, sizeof *r->memo_ser);
  r->memo = calloc(nr, sizeof *r->memo);
  r->busy = calloc(nr, 1);
  uint32_t *cur = calloc(nr, sizeof *cur);
  if (!r->ndef || !r->def1 || !r->dstart || !r->memo_ser || !r->memo || !r->busy || !cur) {
    free(cur);
    return -1;
  }
  for (size_t i = 0; i < fn->ninstrs; i++) each_def(r, &fn->instrs[i], count_def, NULL);
  /* definitions by register (a register defined 255 times or more keeps none: TOP) */
  size_t tot = 0;
  for (size_t g = 0; g < fn->nregs; g++) {
    r->dstart[g] = cur[g] = (uint32_t)tot;
    tot += r->ndef[g] == 255 ? 0 : r->ndef[g];
  }
  r->dstart[fn->nregs] = (uint32_t)tot;
  r->dlist = calloc(tot ? tot : 1, sizeof *r->dlist);
  if (!r->dlist) {
    free(cur);
    return -1;
  }
  for (uint32_t i = 0; i < fn->ninstrs; i++) {
    const ft_ptx_instr_t *in = &fn->instrs[i];
    unsigned n = ft_ptx_ndst(in);
    for (unsigned d = 0; d < n && d < in->nops; d++) {
      const ft_ptx_operand_t *o = ft_ptx_opd(fn, in, d);
      const ft_ptx_operand_t *el = o->kind == FT_PTX_OPD_VEC ? &fn->operands[o->index] : o;
      uint32_t cnt = o->kind == FT_PTX_OPD_VEC ? o->count : 1;
      for (uint32_t e = 0; e < cnt; e++) {
        if (el[e].kind != FT_PTX_OPD_REG) continue;
        uint32_t g = el[e].index;
        r->def1[g] = i;
        if (r->ndef[g] < 255) r->dlist[cur[g]++] = i;
      }
    }
  }
  free(cur);
  return 0;
}

static uint32_t label_of(const ft_ptx_operand_t *o) { return o->kind == FT_PTX_OPD_LABEL ? o->index : UINT32_MAX; }

/* Successors of block b into s (at most 2 + brx targets); returns how many. */
static size_t succs(R *r, size_t b, uint32_t *s, size_t max) {
  const ft_ptx_function_t *fn = r->fn;
  const ft_ptx_instr_t *t = &fn->instrs[r->bstart[b + 1] - 1];
  size_t n = 0;
  int fall = 1;
  if (t->op == FT_PTX_OP_BRA) {
    uint32_t l = label_of(ft_ptx_opd(fn, t, 0));
    if (l < fn->ninstrs && n < max) s[n++] = r->blk[l];
    fall = t->guard != FT_PTX_NO_REG;
  } else if (t->op == FT_PTX_OP_BRX_IDX) {
    const ft_ptx_operand_t *v = t->nops > 1 ? ft_ptx_opd(fn, t, 1) : NULL;
    if (v && v->kind == FT_PTX_OPD_VEC)
      for (uint32_t i = 0; i < v->count && n < max; i++) {
        uint32_t l = label_of(&fn->operands[v->index + i]);
        if (l < fn->ninstrs) s[n++] = r->blk[l];
      }
    fall = t->guard != FT_PTX_NO_REG;
  } else if (t->op == FT_PTX_OP_RET || t->op == FT_PTX_OP_EXIT || t->op == FT_PTX_OP_TRAP) {
    fall = t->guard != FT_PTX_NO_REG;
  }
  if (fall && b + 1 < r->nb && n < max) s[n++] = (uint32_t)(b + 1);
  return n;
}

static int build_blocks(R *r) {
  const ft_ptx_function_t *fn = r->fn;
  size_t ni = fn->ninstrs;
  uint8_t *lead = calloc(ni + 1, 1);
  r->blk = calloc(ni, sizeof *r->blk);
  if (!lead || !r->blk) {
    free(lead);
    return -1;
  }
  lead[0] = 1;
  for (size_t i = 0; i < fn->nlabels; i++)
    if (fn->labels[i].instr < ni) lead[fn->labels[i].instr] = 1;
  for (size_t i = 0; i < ni; i++) {
    const ft_ptx_instr_t *in = &fn->instrs[i];
    if (is_term(in)) lead[i + 1] = 1;
    for (unsigned k = 0; k < in->nops; k++) {
      const ft_ptx_operand_t *o = ft_ptx_opd(fn, in, k);
      if (o->kind == FT_PTX_OPD_LABEL && o->index < ni) lead[o->index] = 1;
      if (o->kind == FT_PTX_OPD_VEC)
        for (uint32_t e = 0; e < o->count; e++)
          if (fn->operands[o->index + e].kind == FT_PTX_OPD_LABEL && fn->operands[o->index + e].index < ni)
            lead[fn->operands[o->index + e].index] = 1;
    }
  }
  size_t nb = 0;
  for (size_t i = 0; i < ni; i++) nb += lead[i];
  r->nb = nb;
  r->bstart = calloc(nb + 1, sizeof *r->bstart);
  if (!r->bstart) {
    free(lead);
    return -1;
  }
  size_t b = 0;
  for (size_t i = 0; i < ni; i++) {
    if (lead[i]) r->bstart[b++] = (uint32_t)i;
    r->blk[i] = (uint32_t)(b - 1);
  }
  r->bstart[nb] = (uint32_t)ni;
  free(lead);
  /* predecessors */
  r->pstart = calloc(nb + 1, sizeof *r->pstart);
  if (!r->pstart) return -1;
  uint32_t s[64];
  size_t tot = 0;
  for (size_t i = 0; i < nb; i++) {
    size_t n = succs(r, i, s, 64);
    for (size_t k = 0; k < n; k++) r->pstart[s[k] + 1]++;
    tot += n;
  }
  for (size_t i = 0; i < nb; i++) r->pstart[i + 1] += r->pstart[i];
  r->plist = calloc(tot ? tot : 1, sizeof *r->plist);
  uint32_t *fill = calloc(nb + 1, sizeof *fill);
  if (!r->plist || !fill) {
    free(fill);
    return -1;
  }
  for (size_t i = 0; i < nb; i++) {
    size_t n = succs(r, i, s, 64);
    for (size_t k = 0; k < n; k++) r->plist[r->pstart[s[k]] + fill[s[k]]++] = (uint32_t)i;
  }
  free(fill);
  return 0;
}

/* Reverse post-order from block 0 (order[i]: block; rpo[b]: its number, UINT32_MAX
 * when unreachable), then immediate dominators (Cooper, Harvey, Kennedy) and a
 * pre/post numbering of the dominator tree for O(1) queries. */
static int build_dom(R *r) {
  size_t nb = r->nb;
  r->rpo = malloc(nb * sizeof *r->rpo);
  r->order = malloc(nb * sizeof *r->order);
  r->idom = malloc(nb * sizeof *r->idom);
  r->pre = calloc(nb, sizeof *r->pre);
  r->post = calloc(nb, sizeof *r->post);
  uint32_t *stk = malloc(nb * sizeof *stk), *it = calloc(nb, sizeof *it);
  uint8_t *seen = calloc(nb, 1);
  int ok = r->rpo && r->order && r->idom && r->pre && r->post && stk && it && seen;
  if (ok) {
    for (size_t i = 0; i < nb; i++) r->rpo[i] = UINT32_MAX, r->idom[i] = UINT32_MAX;
    size_t sp = 0, nord = 0, post = 0;
    uint32_t *postorder = r->order;
    stk[sp++] = 0;
    seen[0] = 1;
    uint32_t s[64];
    while (sp) {
      uint32_t b = stk[sp - 1];
      size_t n = succs(r, b, s, 64);
      if (it[b] < n) {
        uint32_t t = s[it[b]++];
        if (!seen[t]) {
          seen[t] = 1;
          stk[sp++] = t;
        }
      } else {
        postorder[post++] = b;
        sp--;
      }
    }
    nord = post;
    r->nreach = nord;
    for (size_t i = 0; i < nord / 2; i++) {
      uint32_t t = postorder[i];
      postorder[i] = postorder[nord - 1 - i];
      postorder[nord - 1 - i] = t;
    }
    for (size_t i = 0; i < nord; i++) r->rpo[r->order[i]] = (uint32_t)i;
    r->idom[0] = 0;
    for (int changed = 1; changed;) {
      changed = 0;
      for (size_t i = 1; i < nord; i++) {
        uint32_t b = r->order[i], nid = UINT32_MAX;
        for (uint32_t k = r->pstart[b]; k < r->pstart[b + 1]; k++) {
          uint32_t p = r->plist[k];
          if (r->idom[p] == UINT32_MAX) continue;
          if (nid == UINT32_MAX) {
            nid = p;
            continue;
          }
          uint32_t x = p, y = nid;
          while (x != y) {
            while (r->rpo[x] > r->rpo[y]) x = r->idom[x];
            while (r->rpo[y] > r->rpo[x]) y = r->idom[y];
          }
          nid = x;
        }
        if (nid != UINT32_MAX && r->idom[b] != nid) {
          r->idom[b] = nid;
          changed = 1;
        }
      }
    }
    /* dominator tree numbering: children lists through a counting sort */
    uint32_t *cs = calloc(nb + 1, sizeof *cs), *cl = malloc(nb * sizeof *cl), *cf = calloc(nb + 1, sizeof *cf);
    if (cs && cl && cf) {
      for (size_t b = 1; b < nb; b++)
        if (r->idom[b] != UINT32_MAX) cs[r->idom[b] + 1]++;
      for (size_t b = 0; b < nb; b++) cs[b + 1] += cs[b];
      for (size_t b = 1; b < nb; b++)
        if (r->idom[b] != UINT32_MAX) cl[cs[r->idom[b]] + cf[r->idom[b]]++] = (uint32_t)b;
      memset(it, 0, nb * sizeof *it);
      uint32_t clock = 1;
      sp = 0;
      stk[sp++] = 0;
      r->pre[0] = clock++;
      while (sp) {
        uint32_t b = stk[sp - 1];
        if (cs[b] + it[b] < cs[b + 1]) {
          uint32_t c = cl[cs[b] + it[b]++];
          r->pre[c] = clock++;
          stk[sp++] = c;
        } else {
          r->post[b] = clock++;
          sp--;
        }
      }
    } else {
      ok = 0;
    }
    free(cs);
    free(cl);
    free(cf);
  }
  free(stk);
  free(it);
  free(seen);
  return ok ? 0 : -1;
}

/* Whether instruction d executes before instruction u on every path to u. */
static int dominates(R *r, uint32_t d, uint32_t u) {
  uint32_t bd = r->blk[d], bu = r->blk[u];
  if (bd == bu) return d < u;
  if (!r->pre[bd] || !r->pre[bu]) return 0;   /* unreachable */
  return r->pre[bd] < r->pre[bu] && r->post[bu] < r->post[bd];
}

/* ---- guards: facts from setp and branches ---- */

static int defines(R *r, const ft_ptx_instr_t *in, uint32_t reg) {
  unsigned n = ft_ptx_ndst(in);
  for (unsigned d = 0; d < n && d < in->nops; d++) {
    const ft_ptx_operand_t *o = ft_ptx_opd(r->fn, in, d);
    if (o->kind == FT_PTX_OPD_REG && o->index == reg) return 1;
    if (o->kind == FT_PTX_OPD_VEC)
      for (uint32_t i = 0; i < o->count; i++)
        if (r->fn->operands[o->index + i].kind == FT_PTX_OPD_REG && r->fn->operands[o->index + i].index == reg)
          return 1;
  }
  return 0;
}

/* Whether reg keeps the value it had at instruction `from` up to `to` (from dominates to). */
static int unchanged(R *r, uint32_t reg, uint32_t from, uint32_t to) {
  if (r->blk[from] == r->blk[to]) {
    for (uint32_t i = from + 1; i < to; i++)
      if (defines(r, &r->fn->instrs[i], reg)) return 0;
    return 1;
  }
  /* across blocks: a register defined once, before `from` */
  return r->ndef[reg] == 1 && dominates(r, r->def1[reg], from);
}

static uint32_t add_fact(R *r, fact_t f) {
  for (size_t i = 0; i < r->nf; i++)
    if (!memcmp(&r->facts[i], &f, sizeof f)) return (uint32_t)i;
  if (r->nf == 1024) return UINT32_MAX;   /* enough: fewer facts is only less precise */
  if (r->nf == r->fcap) {
    size_t cap = r->fcap ? r->fcap * 2 : 32;
    fact_t *g = realloc(r->facts, cap * sizeof *g);
    if (!g) return UINT32_MAX;
    r->facts = g;
    r->fcap = cap;
  }
  r->facts[r->nf] = f;
  return (uint32_t)r->nf++;
}

typedef struct {
  uint32_t id[16];
  size_t n;
} flist_t;

static void push(flist_t *l, uint32_t id) {
  if (id != UINT32_MAX && l->n < 16) l->id[l->n++] = id;
}

static unsigned negate(unsigned c) { return c == C_LT ? C_GE : c == C_LE ? C_GT : c == C_GT ? C_LE : C_LT; }
static unsigned flip(unsigned c) { return c == C_LT ? C_GT : c == C_LE ? C_GE : c == C_GT ? C_LT : C_LE; }

/* The facts `a cmp b` (and `b flip(cmp) a`) of a setp at instruction s, valid at `to`. */
static void cmp_facts(R *r, const ft_ptx_instr_t *s, uint32_t si, int eq, unsigned cmp, uint32_t to, flist_t *out) {
  const ft_ptx_operand_t *a = ft_ptx_opd(r->fn, s, 2), *b = ft_ptx_opd(r->fn, s, 3);
  unsigned t = s->type, w = ft_ptx_type_size(t);
  if (ft_ptx_type_is_float(t) || w < 1 || w > 8) return;
  int sgn = t == FT_PTX_T_S8 || t == FT_PTX_T_S16 || t == FT_PTX_T_S32 || t == FT_PTX_T_S64;
  for (int side = 0; side < 2; side++) {
    const ft_ptx_operand_t *x = side ? b : a, *y = side ? a : b;
    if (x->kind != FT_PTX_OPD_REG || !unchanged(r, x->index, si, to)) continue;
    fact_t f = {x->index, 0, 0, (uint8_t)sgn, (uint8_t)w, 0, 0};
    if (y->kind == FT_PTX_OPD_IMM_INT) {
      f.bimm = 1;
      f.imm = y->value;
    } else if (y->kind == FT_PTX_OPD_REG && unchanged(r, y->index, si, to)) {
      f.br = y->index;
    } else {
      continue;
    }
    unsigned c = side ? flip(cmp) : cmp;
    if (eq) {
      f.cmp = C_LE;
      push(out, add_fact(r, f));
      f.cmp = C_GE;
      push(out, add_fact(r, f));
    } else {
      f.cmp = (uint8_t)c;
      push(out, add_fact(r, f));
    }
  }
}

static unsigned cmp_of(unsigned c, int *eq, int *ne) {
  *eq = c == FT_PTX_CMP_EQ;
  *ne = c == FT_PTX_CMP_NE;
  switch (c) {
  case FT_PTX_CMP_LT: case FT_PTX_CMP_LO: return C_LT;
  case FT_PTX_CMP_LE: case FT_PTX_CMP_LS: return C_LE;
  case FT_PTX_CMP_GT: case FT_PTX_CMP_HI: return C_GT;
  case FT_PTX_CMP_GE: case FT_PTX_CMP_HS: return C_GE;
  default: return 0;
  }
}

/* The facts that hold at `to` when predicate p, read at instruction `at`, is pol. */
static void conds(R *r, uint32_t p, int pol, uint32_t at, uint32_t to, flist_t *out, int depth) {
  if (depth > 4) return;
  const ft_ptx_function_t *fn = r->fn;
  uint32_t d = UINT32_MAX, b0 = r->bstart[r->blk[at]];
  for (uint32_t i = at; i-- > b0;)
    if (defines(r, &fn->instrs[i], p)) {
      d = i;
      break;
    }
  if (d == UINT32_MAX) {
    if (r->ndef[p] != 1 || !dominates(r, r->def1[p], at)) return;
    d = r->def1[p];
  }
  const ft_ptx_instr_t *in = &fn->instrs[d];
  if (in->guard != FT_PTX_NO_REG) return;   /* may keep an older value */
  if (in->op == FT_PTX_OP_SETP) {
    int second = ft_ptx_opd(fn, in, 1)->kind == FT_PTX_OPD_REG && ft_ptx_opd(fn, in, 1)->index == p;
    int eq, ne;
    unsigned c = cmp_of(in->cmp, &eq, &ne);
    if (!c && !eq && !ne) return;
    int truth = second ? !pol : pol;   /* the comparison itself is `truth` ... */
    if (in->boolop == FT_PTX_BOOL_AND && !pol) return;   /* ... when the combination allows telling */
    if (in->boolop == FT_PTX_BOOL_OR && pol) return;
    if (in->boolop == FT_PTX_BOOL_XOR) return;
    if (in->boolop && in->nops > 4) {
      const ft_ptx_operand_t *q = ft_ptx_opd(fn, in, 4);
      if (q->kind == FT_PTX_OPD_REG) conds(r, q->index, q->neg ? !pol : pol, d, to, out, depth + 1);
    }
    if (in->boolop == FT_PTX_BOOL_AND) truth = second ? 0 : 1;
    if (in->boolop == FT_PTX_BOOL_OR) truth = second ? 1 : 0;
    if (eq || ne) {
      if ((eq && truth) || (ne && !truth)) cmp_facts(r, in, d, 1, 0, to, out);
      return;
    }
    cmp_facts(r, in, d, 0, truth ? c : negate(c), to, out);
    return;
  }
  if (in->type != FT_PTX_T_PRED) return;
  if ((in->op == FT_PTX_OP_AND && pol) || (in->op == FT_PTX_OP_OR && !pol)) {
    for (unsigned k = 1; k < 3 && k < in->nops; k++) {
      const ft_ptx_operand_t *q = ft_ptx_opd(fn, in, k);
      if (q->kind == FT_PTX_OPD_REG) conds(r, q->index, q->neg ? !pol : pol, d, to, out, depth + 1);
    }
  } else if ((in->op == FT_PTX_OP_NOT || in->op == FT_PTX_OP_MOV) && in->nops == 2) {
    const ft_ptx_operand_t *q = ft_ptx_opd(fn, in, 1);
    int np = in->op == FT_PTX_OP_NOT ? !pol : pol;
    if (q->kind == FT_PTX_OPD_REG) conds(r, q->index, q->neg ? !np : np, d, to, out, depth + 1);
  }
}

/* The facts an instruction's own guard gives it. */
static void guard_facts(R *r, uint32_t at, flist_t *out) {
  const ft_ptx_instr_t *in = &r->fn->instrs[at];
  out->n = 0;
  if (in->guard != FT_PTX_NO_REG) conds(r, in->guard, !in->guard_neg, at, at, out, 0);
}

static int build_facts(R *r) {
  size_t nb = r->nb;
  flist_t *gen = calloc(2 * nb, sizeof *gen);
  if (!gen) return -1;
  for (size_t b = 0; b < nb; b++) {
    uint32_t t = r->bstart[b + 1] - 1;
    const ft_ptx_instr_t *in = &r->fn->instrs[t];
    if (in->guard == FT_PTX_NO_REG || !is_term(in)) continue;
    int taken = !in->guard_neg;
    if (in->op == FT_PTX_OP_BRA) conds(r, in->guard, taken, t, t, &gen[2 * b], 0);
    conds(r, in->guard, !taken, t, t, &gen[2 * b + 1], 0);
    /* a branch to the next block: both edges are one */
    uint32_t l = in->op == FT_PTX_OP_BRA ? label_of(ft_ptx_opd(r->fn, in, 0)) : UINT32_MAX;
    if (l < r->fn->ninstrs && r->blk[l] == b + 1) gen[2 * b].n = gen[2 * b + 1].n = 0;
    if (in->op == FT_PTX_OP_BRX_IDX) gen[2 * b].n = gen[2 * b + 1].n = 0;
  }
  r->fw = (r->nf + 63) / 64;
  size_t fw = r->fw ? r->fw : 1;
  r->in = calloc(nb * fw, 8);   /* fw >= 1 even without facts: never a zero-size allocation */
  r->kill = calloc(nb * fw, 8);
  r->gstart = calloc(2 * nb + 1, sizeof *r->gstart);
  size_t nr = r->fn->nregs;
  r->kstart = calloc(nr + 2, sizeof *r->kstart);
  int ok = r->in && r->kill && r->gstart && r->kstart;
  size_t tg = 0;
  for (size_t i = 0; ok && i < 2 * nb; i++) tg += gen[i].n;
  r->glist = ok ? calloc(tg ? tg : 1, sizeof *r->glist) : NULL;
  r->klist = ok ? calloc(2 * r->nf + 1, sizeof *r->klist) : NULL;
  if (!ok || !r->glist || !r->klist) {
    free(gen);
    return -1;
  }
  for (size_t i = 0, k = 0; i < 2 * nb; i++) {
    r->gstart[i] = (uint32_t)k;
    for (size_t j = 0; j < gen[i].n; j++) r->glist[k++] = gen[i].id[j];
    r->gstart[i + 1] = (uint32_t)k;
  }
  free(gen);
  /* kill lists: facts naming a register, by register */
  for (size_t i = 0; i < r->nf; i++) {
    r->kstart[r->facts[i].r + 1]++;
    if (!r->facts[i].bimm && r->facts[i].br != r->facts[i].r) r->kstart[r->facts[i].br + 1]++;
  }
  for (size_t g = 0; g < nr; g++) r->kstart[g + 1] += r->kstart[g];
  uint32_t *fill = calloc(nr + 1, sizeof *fill);
  if (!fill) return -1;
  for (size_t i = 0; i < r->nf; i++) {
    uint32_t a = r->facts[i].r;
    r->klist[r->kstart[a] + fill[a]++] = (uint32_t)i;
    if (!r->facts[i].bimm && r->facts[i].br != a) {
      uint32_t b = r->facts[i].br;
      r->klist[r->kstart[b] + fill[b]++] = (uint32_t)i;
    }
  }
  free(fill);
  return 0;
}

static void kill_reg(R *r, uint32_t reg, void *ctx) {
  uint64_t *set = ctx;
  for (uint32_t k = r->kstart[reg]; k < r->kstart[reg + 1]; k++) set[r->klist[k] / 64] &= ~(1ull << (r->klist[k] % 64));
}

/* Facts available at block entries: a must-dataflow (intersection over edges). */
static void solve_facts(R *r) {
  size_t nb = r->nb, fw = r->fw;
  if (!fw) return;
  uint64_t *tmp = malloc(fw * 8), *one = malloc(fw * 8);
  if (!tmp || !one) {
    free(tmp);
    free(one);
    memset(r->in, 0, nb * fw * 8);
    return;
  }
  /* KILL[b] = facts killed by defs in b: kill_reg clears bits of a full set */
  for (size_t b = 0; b < nb; b++) {
    memset(one, 0xff, fw * 8);
    for (uint32_t i = r->bstart[b]; i < r->bstart[b + 1]; i++) each_def(r, &r->fn->instrs[i], kill_reg, one);
    for (size_t w = 0; w < fw; w++) r->kill[b * fw + w] = ~one[w];
  }
  for (size_t b = 0; b < nb; b++) memset(r->in + b * fw, b ? 0xff : 0, fw * 8);
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 1; i < r->nreach; i++) {
      uint32_t b = r->order[i];
      memset(tmp, 0xff, fw * 8);
      for (uint32_t k = r->pstart[b]; k < r->pstart[b + 1]; k++) {
        uint32_t p = r->plist[k];
        if (r->rpo[p] == UINT32_MAX) continue;
        memcpy(one, r->in + (size_t)p * fw, fw * 8);
        for (size_t w = 0; w < fw; w++) one[w] &= ~r->kill[(size_t)p * fw + w];
        /* the edge's own facts (build_facts left none where both edges are one) */
        const ft_ptx_instr_t *t = &r->fn->instrs[r->bstart[p + 1] - 1];
        uint32_t l = t->op == FT_PTX_OP_BRA ? label_of(ft_ptx_opd(r->fn, t, 0)) : UINT32_MAX;
        size_t g = 2 * (size_t)p + (l < r->fn->ninstrs && r->blk[l] == b ? 0 : 1);
        for (uint32_t j = r->gstart[g]; j < r->gstart[g + 1]; j++) one[r->glist[j] / 64] |= 1ull << (r->glist[j] % 64);
        for (size_t w = 0; w < fw; w++) tmp[w] &= one[w];
      }
      if (memcmp(tmp, r->in + (size_t)b * fw, fw * 8)) {
        memcpy(r->in + (size_t)b * fw, tmp, fw * 8);
        changed = 1;
      }
    }
  }
  free(tmp);
  free(one);
}

static int build(R *r) {
  r->built = 1;
  if (!r->fn->ninstrs || build_regs(r) || build_blocks(r) || build_dom(r) || build_facts(r)) return -1;
  solve_facts(r);
  return 0;
}

/* The facts holding at instruction `at` (before it runs), into c (malloc'd list). */
static int facts_at(R *r, uint32_t at, ctx_t *c) {
  size_t fw = r->fw;
  c->at = at;
  c->n = 0;
  c->f = NULL;
  c->memo = 0;
  flist_t g;
  guard_facts(r, at, &g);
  uint64_t *set = NULL;
  if (fw) {
    set = malloc(fw * 8);
    if (!set) return -1;
    uint32_t b = r->blk[at];
    memcpy(set, r->in + (size_t)b * fw, fw * 8);
    for (uint32_t i = r->bstart[b]; i < at; i++) each_def(r, &r->fn->instrs[i], kill_reg, set);
  }
  size_t cnt = g.n;
  for (size_t w = 0; w < fw; w++) cnt += (size_t)__builtin_popcountll(set[w]);
  c->f = malloc((cnt ? cnt : 1) * sizeof *c->f);
  if (!c->f) {
    free(set);
    return -1;
  }
  for (size_t w = 0; w < fw; w++)
    for (uint64_t x = set[w]; x; x &= x - 1) c->f[c->n++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x));
  for (size_t i = 0; i < g.n; i++) c->f[c->n++] = g.id[i];
  free(set);
  return 0;
}

/* ---- evaluation of registers at a point ---- */

static val_t ev_reg(R *r, uint32_t reg, const ctx_t *c, int depth);

static val_t sreg_val(R *r, const ft_ptx_operand_t *o) {
  unsigned d = o->count < 3 ? o->count : 0;
  switch (o->index) {
  case FT_PTX_SR_TID: return v_int(n_const(r, 0), n_addk(r, nd(r, FT_PTX_R_NTID, d, 0, 0, 0, 0), -1), 4);
  case FT_PTX_SR_CTAID: return v_int(n_const(r, 0), n_addk(r, nd(r, FT_PTX_R_NCTAID, d, 0, 0, 0, 0), -1), 4);
  case FT_PTX_SR_NTID: {
    uint32_t x = nd(r, FT_PTX_R_NTID, d, 0, 0, 0, 0);
    return v_int(x, x, 4);
  }
  case FT_PTX_SR_NCTAID: {
    uint32_t x = nd(r, FT_PTX_R_NCTAID, d, 0, 0, 0, 0);
    return v_int(x, x, 4);
  }
  case FT_PTX_SR_LANEID: return v_int(n_const(r, 0), n_const(r, 31), 4);
  default: return TOP;
  }
}

/* Source operand o of the instruction at `at`, expected `width` bytes wide. */
static val_t ev_opd(R *r, const ft_ptx_operand_t *o, unsigned width, uint32_t at, const ctx_t *c, int depth) {
  val_t v;
  switch (o->kind) {
  case FT_PTX_OPD_IMM_INT: {
    uint32_t k = n_const(r, o->value);
    return (val_t){k ? V_INT : V_TOP, 0, 0, 0, k, k};
  }
  case FT_PTX_OPD_SREG:
    v = sreg_val(r, o);
    break;
  case FT_PTX_OPD_REG:
    if (r->ndef[o->index] == 1) {
      /* defined once before `at`: the same value at c's point (docs/ptx.md, "Ranges") */
      if (!dominates(r, r->def1[o->index], at)) return TOP;
      v = ev_reg(r, o->index, c, depth + 1);
    } else {
      ctx_t c2;
      if (facts_at(r, at, &c2) != 0) return TOP;
      v = ev_reg(r, o->index, &c2, depth + 1);
      free(c2.f);
    }
    break;
  default:
    return TOP;
  }
  if (v.kind != V_TOP && v.width && v.width != width) return TOP;
  return v;
}

static int int_type(unsigned t) {
  return t != FT_PTX_T_PRED && !ft_ptx_type_is_float(t) && ft_ptx_type_size(t) >= 1 && ft_ptx_type_size(t) <= 8 &&
         t < FT_PTX_T_FIRST_EXTRA;
}

static int signed_type(unsigned t) {
  return t == FT_PTX_T_S8 || t == FT_PTX_T_S16 || t == FT_PTX_T_S32 || t == FT_PTX_T_S64;
}

/* Interval product (operands statically signed where it matters). */
static val_t v_mul(R *r, val_t a, val_t b, unsigned width) {
  if (a.kind != V_INT || b.kind != V_INT) return TOP;
  const node_t *al = &r->nodes[a.lo], *bl = &r->nodes[b.lo];
  if (al->smin >= 0 && bl->smin >= 0) return v_int(n_mul(r, a.lo, b.lo), n_mul(r, a.hi, b.hi), width);
  if (b.lo == b.hi && is_const(r, b.lo)) {
    int64_t k = r->nodes[b.lo].k;
    return k >= 0 ? v_int(n_mul(r, a.lo, b.lo), n_mul(r, a.hi, b.lo), width)
                  : v_int(n_mul(r, a.hi, b.lo), n_mul(r, a.lo, b.lo), width);
  }
  if (a.lo == a.hi && is_const(r, a.lo)) return v_mul(r, b, a, width);
  uint32_t p[4] = {n_mul(r, a.lo, b.lo), n_mul(r, a.lo, b.hi), n_mul(r, a.hi, b.lo), n_mul(r, a.hi, b.hi)};
  return v_int(n_min(r, n_min(r, p[0], p[1]), n_min(r, p[2], p[3])), n_max(r, n_max(r, p[0], p[1]), n_max(r, p[2], p[3])),
               width);
}

static val_t v_add(R *r, val_t a, val_t b, unsigned width, int sub) {
  if (a.kind == V_TOP || b.kind == V_TOP) return TOP;
  if (b.kind == V_PTR && !sub && a.kind == V_INT) {
    val_t t = a;
    a = b;
    b = t;
  }
  if (b.kind == V_PTR) return TOP;   /* p + q, x - p: no longer one place's pointer */
  val_t v = a;
  v.width = (uint8_t)width;
  v.vw = 0;
  v.lo = sub ? n_sub(r, a.lo, b.hi) : n_add(r, a.lo, b.lo);
  v.hi = sub ? n_sub(r, a.hi, b.lo) : n_add(r, a.hi, b.hi);
  return v.lo && v.hi ? v : TOP;
}

/* ld.param of the entry's own parameter bytes: a place's pointer, or an integer. */
static val_t ld_param(R *r, const ft_ptx_instr_t *in, const ft_ptx_operand_t *ad, unsigned elem) {
  if (ad->base_kind != FT_PTX_OPD_SYM || ad->sym_kind != FT_PTX_SYM_PARAM || in->vec > 1) return TOP;
  const ft_ptx_param_t *p = &r->fn->params[ad->index];
  unsigned w = ft_ptx_type_size(in->type);
  if (!int_type(in->type) || ad->value < 0 || (uint64_t)ad->value + w > p->size) return TOP;
  uint32_t off = p->offset + (uint32_t)ad->value + elem * w;
  if (w == 8) {
    size_t lo = 0, hi = r->np;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (r->poff[mid] < off) lo = mid + 1;
      else hi = mid;
    }
    if (lo < r->np && r->poff[lo] == off) {
      uint32_t z = n_const(r, 0);
      return z ? (val_t){V_PTR, 8, 0, (uint32_t)lo, z, z} : TOP;
    }
  }
  uint32_t x = nd(r, FT_PTX_R_PARAM, w, signed_type(in->type), 0, 0, off);
  return v_int(x, x, w);
}

static val_t hull(R *r, val_t a, val_t b) {
  if (a.kind == V_TOP || a.kind != b.kind || a.place != b.place || a.width != b.width) return TOP;
  a.lo = n_min(r, a.lo, b.lo);
  a.hi = n_max(r, a.hi, b.hi);
  if (a.vw != b.vw) a.vw = 0;
  return a.lo && a.hi ? a : TOP;
}

/* The value instruction `at` gives its destination (operands read at `at`). */
static val_t ev_def(R *r, uint32_t at, const ctx_t *c, int depth) {
  const ft_ptx_function_t *fn = r->fn;
  const ft_ptx_instr_t *in = &fn->instrs[at];
  unsigned w = ft_ptx_type_size(in->type);
  const ft_ptx_operand_t *o1 = in->nops > 1 ? ft_ptx_opd(fn, in, 1) : NULL, *o2 = in->nops > 2 ? ft_ptx_opd(fn, in, 2) : NULL;
  if (in->guard != FT_PTX_NO_REG || !o1 || ft_ptx_opd(fn, in, 0)->kind != FT_PTX_OPD_REG) return TOP;
  switch (in->op) {
  case FT_PTX_OP_LD:
    if (in->space != FT_PTX_SP_PARAM || o1->kind != FT_PTX_OPD_ADDR) return TOP;
    return ld_param(r, in, o1, 0);
  case FT_PTX_OP_MOV:
    if (!int_type(in->type) || in->nops != 2) return TOP;
    return ev_opd(r, o1, w, at, c, depth);
  case FT_PTX_OP_CVTA:
    if (in->nops != 2 || o1->kind != FT_PTX_OPD_REG) return TOP;
    return ev_opd(r, o1, w, at, c, depth);
  case FT_PTX_OP_ADD: case FT_PTX_OP_SUB: {
    if (!int_type(in->type) || in->nops != 3 || (in->flags & FT_PTX_F_SAT)) return TOP;
    val_t a = ev_opd(r, o1, w, at, c, depth), b = ev_opd(r, o2, w, at, c, depth);
    return v_add(r, a, b, w, in->op == FT_PTX_OP_SUB);
  }
  case FT_PTX_OP_MUL: case FT_PTX_OP_MAD: {
    if (!int_type(in->type) || (in->flags & FT_PTX_F_HI)) return TOP;
    int wide = (in->flags & FT_PTX_F_WIDE) != 0, sg = signed_type(in->type);
    val_t a = ev_opd(r, o1, w, at, c, depth), b = ev_opd(r, o2, w, at, c, depth);
    if (wide) {
      a = view(r, a, w, sg);
      b = view(r, b, w, sg);
    }
    unsigned dw = wide ? 2 * w : w;
    val_t p = v_mul(r, as_int(r, a), as_int(r, b), dw);
    if (in->op == FT_PTX_OP_MUL) return in->nops == 3 ? p : TOP;
    if (in->nops != 4) return TOP;
    return v_add(r, ev_opd(r, ft_ptx_opd(fn, in, 3), dw, at, c, depth), p, dw, 0);
  }
  case FT_PTX_OP_SHL: {
    if (in->nops != 3 || o2->kind != FT_PTX_OPD_IMM_INT || o2->value < 0 || o2->value >= 8 * (int64_t)w || o2->value > 30)
      return TOP;
    val_t a = as_int(r, ev_opd(r, o1, w, at, c, depth));
    return v_mul(r, a, v_int(n_const(r, 1ll << o2->value), n_const(r, 1ll << o2->value), 0), w);
  }
  case FT_PTX_OP_SHR: case FT_PTX_OP_DIV: {
    if (in->nops != 3 || o2->kind != FT_PTX_OPD_IMM_INT || !int_type(in->type)) return TOP;
    int64_t k = in->op == FT_PTX_OP_SHR ? (o2->value >= 0 && o2->value < 31 ? 1ll << o2->value : 0) : o2->value;
    if (k <= 0) return TOP;
    val_t a = view(r, as_int(r, ev_opd(r, o1, w, at, c, depth)), w, signed_type(in->type));
    /* floor division is monotone; div.s truncates, which is floor for x >= 0 only */
    if (a.kind != V_INT || (in->op == FT_PTX_OP_DIV && r->nodes[a.lo].smin < 0)) return TOP;
    return v_int(n_div(r, a.lo, k), n_div(r, a.hi, k), w);
  }
  case FT_PTX_OP_REM: {
    if (in->nops != 3 || o2->kind != FT_PTX_OPD_IMM_INT || o2->value <= 0 || !int_type(in->type)) return TOP;
    val_t a = view(r, as_int(r, ev_opd(r, o1, w, at, c, depth)), w, signed_type(in->type));
    int nonneg = !signed_type(in->type) || (a.kind == V_INT && r->nodes[a.lo].smin >= 0);
    return v_int(n_const(r, nonneg ? 0 : 1 - o2->value), n_const(r, o2->value - 1), w);
  }
  case FT_PTX_OP_AND: {
    if (in->nops != 3 || o2->kind != FT_PTX_OPD_IMM_INT || w < 4) return TOP;
    int64_t m = o2->value;
    if (w == 4) m = (int32_t)m;
    if (m >= 0) {
      /* x & m lies in [0, m], and in [0, x] for x >= 0 (unsigned view) */
      val_t a = view(r, as_int(r, ev_opd(r, o1, w, at, c, depth)), w, 0);
      uint32_t k = n_const(r, m);
      if (a.kind == V_INT && r->nodes[a.lo].smin >= 0) return v_int(n_const(r, 0), n_min(r, k, a.hi), w);
      return v_int(n_const(r, 0), k, w);
    }
    if ((-m & (-m - 1)) == 0 && -m <= (1 << 20)) {
      /* an alignment mask: x & -2^k = x - (x mod 2^k), in [x - 2^k + 1, x] */
      val_t a = ev_opd(r, o1, w, at, c, depth);
      if (a.kind == V_TOP) return TOP;
      a.lo = n_addk(r, a.lo, m + 1);
      a.vw = 0;
      return a.lo ? a : TOP;
    }
    return TOP;
  }
  case FT_PTX_OP_MIN: case FT_PTX_OP_MAX: {
    if (in->nops != 3 || !int_type(in->type)) return TOP;
    int sg = signed_type(in->type);
    val_t a = view(r, as_int(r, ev_opd(r, o1, w, at, c, depth)), w, sg);
    val_t b = view(r, as_int(r, ev_opd(r, o2, w, at, c, depth)), w, sg);
    if (a.kind != V_INT || b.kind != V_INT) return TOP;
    if (in->op == FT_PTX_OP_MIN) return v_int(n_min(r, a.lo, b.lo), n_min(r, a.hi, b.hi), w);
    return v_int(n_max(r, a.lo, b.lo), n_max(r, a.hi, b.hi), w);
  }
  case FT_PTX_OP_NEG: {
    if (in->nops != 2 || !int_type(in->type)) return TOP;
    val_t a = as_int(r, ev_opd(r, o1, w, at, c, depth));
    if (a.kind != V_INT) return TOP;
    uint32_t z = n_const(r, 0);
    return v_int(n_sub(r, z, a.hi), n_sub(r, z, a.lo), w);
  }
  case FT_PTX_OP_CVT: {
    unsigned sw = ft_ptx_type_size(in->type2);
    if (in->nops != 2 || !int_type(in->type) || !int_type(in->type2) || (in->flags & FT_PTX_F_SAT) || in->rnd) return TOP;
    val_t a = as_int(r, ev_opd(r, o1, sw, at, c, depth));
    if (a.kind != V_INT) return TOP;
    if (w > sw) {
      a = view(r, a, sw, signed_type(in->type2));
      if (a.kind != V_INT) return TOP;
    }
    a.width = (uint8_t)w;   /* truncation keeps the value modulo 2^(8w) */
    a.vw = 0;
    return a;
  }
  case FT_PTX_OP_SELP: {
    if (in->nops != 4) return TOP;
    val_t a = ev_opd(r, o1, w, at, c, depth), b = ev_opd(r, o2, w, at, c, depth);
    if (a.kind == V_INT && !a.width) a.width = (uint8_t)w;
    if (b.kind == V_INT && !b.width) b.width = (uint8_t)w;
    return hull(r, a, b);
  }
  default:
    return TOP;
  }
}

/* The bound a test at c gives reg, in the view (w, sgn): its upper end when up,
 * else its lower end; 0 when none. */
static uint32_t test_bound(R *r, uint32_t reg, unsigned w, int sgn, int up, const ctx_t *c, int depth) {
  for (size_t i = 0; i < c->n; i++) {
    const fact_t *f = &r->facts[c->f[i]];
    if (f->r != reg || f->w != w || f->sgn != sgn || ((f->cmp == C_LT || f->cmp == C_LE) != up)) continue;
    val_t b = f->bimm ? v_int(n_const(r, f->imm), n_const(r, f->imm), 0) : as_int(r, ev_reg(r, f->br, c, depth + 1));
    b = view(r, b, w, sgn);
    if (b.kind != V_INT) continue;
    uint32_t x = up ? n_addk(r, b.hi, f->cmp == C_LT ? -1 : 0) : n_addk(r, b.lo, f->cmp == C_GT ? 1 : 0);
    if (x) return x;
  }
  return 0;
}

/* The view (signedness) of the first test about reg at c in direction up; -1: none. */
static int test_view(R *r, uint32_t reg, unsigned w, int up, const ctx_t *c) {
  for (size_t i = 0; i < c->n; i++) {
    const fact_t *f = &r->facts[c->f[i]];
    if (f->r == reg && f->w == w && ((f->cmp == C_LT || f->cmp == C_LE) == up)) return f->sgn;
  }
  return -1;
}

/* Whether instruction `at` increments reg: reg = reg + s (or reg - s); *s: operand. */
static int is_increment(R *r, const ft_ptx_instr_t *in, uint32_t reg, const ft_ptx_operand_t **s) {
  if ((in->op != FT_PTX_OP_ADD && in->op != FT_PTX_OP_SUB) || in->nops != 3 || !int_type(in->type) ||
      (in->flags & FT_PTX_F_SAT) || in->guard != FT_PTX_NO_REG)
    return 0;
  const ft_ptx_operand_t *o1 = ft_ptx_opd(r->fn, in, 1), *o2 = ft_ptx_opd(r->fn, in, 2);
  if (o1->kind == FT_PTX_OPD_REG && o1->index == reg) *s = o2;
  else if (in->op == FT_PTX_OP_ADD && o2->kind == FT_PTX_OPD_REG && o2->index == reg) *s = o1;
  else return 0;
  return !((*s)->kind == FT_PTX_OPD_REG && (*s)->index == reg);
}

static int reads_reg(R *r, const ft_ptx_instr_t *in, uint32_t reg) {
  for (unsigned k = ft_ptx_ndst(in); k < in->nops; k++) {
    const ft_ptx_operand_t *o = ft_ptx_opd(r->fn, in, k);
    if ((o->kind == FT_PTX_OPD_REG || (o->kind == FT_PTX_OPD_ADDR && o->base_kind == FT_PTX_OPD_REG)) && o->index == reg)
      return 1;
  }
  return 0;
}

/* A register with several definitions: their hull when none reads the register
 * itself (if/else assignments), else an induction variable: inits, and increments
 * reg = reg + s whose steps have one sign. Each increment must sit under a test
 * bounding reg in the step's direction, and the launch checks that the step cannot
 * carry it past its type from there: then the values never wrap, the sequence is
 * monotone, and a test that holds at c bounds the other side (docs/ptx.md). */
static val_t induction(R *r, uint32_t reg, const ctx_t *c, int depth) {
  const ft_ptx_function_t *fn = r->fn;
  if (r->ndef[reg] == 255) return TOP;
  uint32_t d0 = r->dstart[reg], d1 = d0 + r->ndef[reg];
  unsigned w = ft_ptx_type_size(fn->instrs[r->dlist[d0]].type);
  val_t init = TOP;
  int ninit = 0, ninc = 0, up = 0, down = 0;
  for (uint32_t k = d0; k < d1; k++) {
    const ft_ptx_instr_t *in = &fn->instrs[r->dlist[k]];
    const ft_ptx_operand_t *s;
    if (ft_ptx_type_size(in->type) != w) return TOP;
    if (is_increment(r, in, reg, &s)) {
      ninc++;
      continue;
    }
    if (reads_reg(r, in, reg)) return TOP;
    ctx_t ci;
    if (facts_at(r, r->dlist[k], &ci) != 0) return TOP;
    val_t v = ev_def(r, r->dlist[k], &ci, depth);
    free(ci.f);
    if (v.kind == V_INT && !v.width) v.width = (uint8_t)w;
    init = ninit++ ? hull(r, init, v) : v;
    if (init.kind == V_TOP) return TOP;
  }
  if (!ninit) return TOP;
  if (!ninc) return init;
  if (init.kind != V_INT) return TOP;
  /* the steps, and the test under each increment */
  uint32_t cond = 0;
  int sg = -1;
  for (uint32_t k = d0; k < d1; k++) {
    uint32_t at = r->dlist[k];
    const ft_ptx_operand_t *so;
    if (!is_increment(r, &fn->instrs[at], reg, &so)) continue;
    ctx_t cd;
    if (facts_at(r, at, &cd) != 0) return TOP;
    val_t s = as_int(r, ev_opd(r, so, w, at, &cd, depth));
    if (s.kind == V_INT && fn->instrs[at].op == FT_PTX_OP_SUB) {
      uint32_t z = n_const(r, 0);
      s = v_int(n_sub(r, z, s.hi), n_sub(r, z, s.lo), w);
    }
    int su = s.kind == V_INT && r->nodes[s.lo].smin >= 0, sd = s.kind == V_INT && r->nodes[s.hi].smax <= 0;
    if (!su && !sd) {
      free(cd.f);
      return TOP;
    }
    if (su) up = 1;
    else down = 1;
    int vs = test_view(r, reg, w, su, &cd);
    if (sg < 0) sg = vs;
    uint32_t b = vs >= 0 && vs == sg ? test_bound(r, reg, w, sg, su, &cd, depth) : 0;
    free(cd.f);
    if (!b || (up && down)) return TOP;
    unsigned kind = kind_of(w, sg);
    uint32_t sl = n_fit(r, s.lo, kind), sh = n_fit(r, s.hi, kind);
    uint32_t x = n_fit(r, su ? n_add(r, b, sh) : n_add(r, b, sl), kind);
    if (!sl || !sh || !x) return TOP;
    uint32_t chk = n_seq(r, n_seq(r, sl, sh), x);
    cond = cond ? n_seq(r, cond, chk) : chk;
  }
  val_t iv = view(r, init, w, sg);
  uint32_t other = test_bound(r, reg, w, sg, up, c, depth);
  if (iv.kind != V_INT || !other || !cond) return TOP;
  /* keep the checks of both ends of the inits and of every increment */
  uint32_t lo = up ? iv.lo : other, hi = up ? other : iv.hi;
  uint32_t chk = n_seq(r, cond, up ? iv.hi : iv.lo);
  val_t res = v_int(n_seq(r, chk, lo), n_seq(r, chk, hi), w);
  res.vw = (uint8_t)kind_of(w, sg);
  return res;
}

/* v narrowed by the tests that hold at c about reg. */
static val_t refine(R *r, uint32_t reg, val_t v, const ctx_t *c, int depth) {
  for (size_t i = 0; i < c->n && v.kind == V_INT; i++) {
    const fact_t *f = &r->facts[c->f[i]];
    if (f->r != reg || (v.width && f->w != v.width)) continue;
    val_t b = f->bimm ? v_int(n_const(r, f->imm), n_const(r, f->imm), 0) : as_int(r, ev_reg(r, f->br, c, depth + 1));
    b = view(r, b, f->w, f->sgn);
    val_t x = view(r, v, f->w, f->sgn);
    if (b.kind != V_INT || x.kind != V_INT) continue;
    switch (f->cmp) {
    case C_LT: x.hi = n_min(r, x.hi, n_addk(r, b.hi, -1)); break;
    case C_LE: x.hi = n_min(r, x.hi, b.hi); break;
    case C_GT: x.lo = n_max(r, x.lo, n_addk(r, b.lo, 1)); break;
    case C_GE: x.lo = n_max(r, x.lo, b.lo); break;
    default: break;
    }
    if (x.lo && x.hi) v = x;
  }
  return v;
}

static val_t ev_reg(R *r, uint32_t reg, const ctx_t *c, int depth) {
  if (depth > 48 || --r->budget < 0 || reg >= r->fn->nregs) return TOP;
  if (r->busy[reg]) {   /* a register whose value depends on itself (a test against it) */
    r->cycles++;
    return TOP;
  }
  if (c->memo && r->memo_ser[reg] == r->serial) return r->memo[reg];
  uint32_t cycles = r->cycles;
  r->busy[reg] = 1;
  val_t v = TOP;
  if (r->ndef[reg] == 1) {
    if (dominates(r, r->def1[reg], c->at)) v = refine(r, reg, ev_def(r, r->def1[reg], c, depth), c, depth);
  } else if (r->ndef[reg] > 1) {
    v = induction(r, reg, c, depth);
  }
  r->busy[reg] = 0;
  /* memoised at the top-level point, unless a cycle cut it short */
  if (c->memo && r->cycles == cycles) {
    r->memo_ser[reg] = r->serial;
    r->memo[reg] = v;
  }
  return v;
}

/* ---- the interface of ptx/access.c ---- */

ft_range_t *ft_range_new(const ft_ptx_module_t *m, const ft_ptx_function_t *entry, const uint32_t *place_offsets,
                         size_t nplaces) {
  R *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->m = m;
  r->fn = entry;
  r->np = nplaces;
  r->poff = place_offsets;
  r->acc = calloc(2 * (nplaces ? nplaces : 1), sizeof *r->acc);
  r->ncap = 256;
  r->nodes = malloc(r->ncap * sizeof *r->nodes);
  if (!r->acc || !r->nodes) {
    ft_range_free(r);
    return NULL;
  }
  memset(&r->nodes[0], 0, sizeof r->nodes[0]);
  r->nn = 1;
  r->serial = 1;   /* memo_ser starts at 0: nothing memoised yet */
  r->top_blk = UINT32_MAX;
  return r;
}

void ft_range_unbounded(ft_range_t *r, size_t place, unsigned dirs) {
  if (!r || place >= r->np) return;
  for (unsigned d = 0; d < 2; d++)
    if (dirs & (1u << d)) r->acc[2 * place + d].state = 2;
}

/* Counts the nodes of the DAG below x not yet stamped with r->stamp, up to cap. */
static size_t dag_size(R *r, uint32_t x, size_t n, size_t cap) {
  if (!x || r->mark[x] == r->stamp || n > cap) return n;
  r->mark[x] = r->stamp;
  const node_t *d = &r->nodes[x];
  n = dag_size(r, d->a, n, cap);
  if ((d->op >= FT_PTX_R_ADD && d->op <= FT_PTX_R_MAX) || d->op == FT_PTX_R_SEQ) n = dag_size(r, d->b, n, cap);
  return n + 1;
}

/* Whether [lo, hi] fits one range program (marks reused: a stamp per query). */
static int fits_program(R *r, uint32_t lo, uint32_t hi) {
  if (r->nmark < r->nn) {
    size_t cap = r->nn * 2;
    uint32_t *g = realloc(r->mark, cap * sizeof *g);
    if (!g) return 0;
    memset(g + r->nmark, 0, (cap - r->nmark) * sizeof *g);
    r->mark = g;
    r->nmark = cap;
  }
  r->stamp++;
  size_t n = dag_size(r, lo, 0, FT_PTX_RANGE_OPS);
  return dag_size(r, hi, n, FT_PTX_RANGE_OPS) <= FT_PTX_RANGE_OPS;
}

void ft_range_access(ft_range_t *r, size_t place, const ft_ptx_instr_t *in, const ft_ptx_operand_t *addr, unsigned size,
                     unsigned dirs) {
  if (!r || place >= r->np) return;
  if (!r->built && build(r) != 0) r->broken = 1;
  uint32_t at = (uint32_t)(in - r->fn->instrs);
  if (r->broken || at >= r->fn->ninstrs || addr->kind != FT_PTX_OPD_ADDR || addr->base_kind != FT_PTX_OPD_REG || !size) {
    ft_range_unbounded(r, place, dirs);
    return;
  }
  /* the top-level point: values are memoised while the block and its facts stay */
  ctx_t c;
  if (facts_at(r, at, &c) != 0) {
    ft_range_unbounded(r, place, dirs);
    return;
  }
  c.memo = 1;
  if (r->blk[at] != r->top_blk || c.n != r->top_n || (c.n && memcmp(c.f, r->top_f, c.n * sizeof *c.f))) {
    r->serial++;
    r->top_blk = r->blk[at];
    free(r->top_f);
    r->top_f = malloc((c.n ? c.n : 1) * sizeof *c.f);
    r->top_n = r->top_f ? c.n : 0;
    if (r->top_f) memcpy(r->top_f, c.f, c.n * sizeof *c.f);
    if (!r->top_f) r->serial++, r->top_blk = UINT32_MAX;
  }
  r->budget = 4000;
  val_t v = ev_reg(r, addr->index, &c, 0);
  free(c.f);
  uint32_t lo = 0, hi = 0;
  if (v.kind == V_PTR && v.place == place) {
    lo = n_addk(r, v.lo, addr->value);
    hi = n_addk(r, v.hi, addr->value + (int64_t)size);
  }
  for (unsigned d = 0; d < 2; d++) {
    if (!(dirs & (1u << d))) continue;
    acc_t *a = &r->acc[2 * place + d];
    if (a->state == 2) continue;
    uint32_t nl = a->state ? n_min(r, a->lo, lo) : lo, nh = a->state ? n_max(r, a->hi, hi) : hi;
    if (!nl || !nh || !fits_program(r, nl, nh)) {
      a->state = 2;
      continue;
    }
    a->state = 1;
    a->lo = nl;
    a->hi = nh;
  }
}

/* Writes the DAG below x in evaluation order; its step index in idx[]. -1 when it
 * does not fit. */
static int emit(R *r, uint32_t x, ft_ptx_range_t *out, uint8_t *idx) {
  if (idx[x]) return idx[x] - 1;
  const node_t *d = &r->nodes[x];
  int a = 0, b = 0;
  int two = d->op >= FT_PTX_R_ADD && d->op <= FT_PTX_R_MAX;
  if (d->op == FT_PTX_R_DIV || d->op == FT_PTX_R_FIT || two || d->op == FT_PTX_R_SEQ)
    if ((a = emit(r, d->a, out, idx)) < 0) return -1;
  if (two || d->op == FT_PTX_R_SEQ)
    if ((b = emit(r, d->b, out, idx)) < 0) return -1;
  if (out->n == FT_PTX_RANGE_OPS || d->k < INT32_MIN || d->k > INT32_MAX) return -1;
  ft_ptx_rop_t *o = &out->op[out->n];
  *o = (ft_ptx_rop_t){d->op, (uint8_t)a, (uint8_t)b, 0, (int32_t)d->k};
  if (d->op == FT_PTX_R_PARAM || d->op == FT_PTX_R_NTID || d->op == FT_PTX_R_NCTAID) o->a = d->a8, o->b = d->b8;
  if (d->op == FT_PTX_R_FIT) o->b = d->b8;
  idx[x] = (uint8_t)(++out->n);
  return out->n - 1;
}

static void serialise(R *r, uint32_t lo, uint32_t hi, ft_ptx_range_t *out) {
  memset(out, 0, sizeof *out);
  uint8_t *idx = calloc(r->nn, 1);
  if (!idx) return;
  int a = emit(r, lo, out, idx), b = a < 0 ? -1 : emit(r, hi, out, idx);
  if (a < 0 || b < 0) memset(out, 0, sizeof *out);
  else out->lo = (uint8_t)a, out->hi = (uint8_t)b;
  free(idx);
}

void ft_range_result(ft_range_t *r, size_t place, unsigned dirs, ft_ptx_range_t *read, ft_ptx_range_t *write) {
  ft_ptx_range_t *out[2] = {read, write};
  for (unsigned d = 0; d < 2; d++) {
    memset(out[d], 0, sizeof *out[d]);
    if (!r || place >= r->np) continue;
    const acc_t *a = &r->acc[2 * place + d];
    if (!(dirs & (1u << d))) {
      /* nothing through this place in this direction: an empty range */
      out[d]->n = 1;
      out[d]->op[0].op = FT_PTX_R_CONST;
      continue;
    }
    if (a->state == 1) serialise(r, a->lo, a->hi, out[d]);
  }
}

void ft_range_free(ft_range_t *r) {
  if (!r) return;
  free(r->acc);
  free(r->nodes);
  free(r->htab);
  free(r->ndef);
  free(r->def1);
  free(r->dstart);
  free(r->dlist);
  free(r->bstart);
  free(r->blk);
  free(r->pstart);
  free(r->plist);
  free(r->rpo);
  free(r->order);
  free(r->idom);
  free(r->pre);
  free(r->post);
  free(r->facts);
  free(r->in);
  free(r->kill);
  free(r->gstart);
  free(r->glist);
  free(r->kstart);
  free(r->klist);
  free(r->memo_ser);
  free(r->memo);
  free(r->busy);
  free(r->top_f);
  free(r->mark);
  free(r);
}
