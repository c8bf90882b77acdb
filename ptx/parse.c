/* parse.c: PTX text -> IR (ptx_ir.h). Recursive descent over ptx/lex.c tokens;
 * anything not understood ends the parse with "line N: reason", never a partial module. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "lex.h"
#include "ptx_ir.h"

/* Sanity limits for untrusted text. */
#define MAX_REGS (1u << 24)
#define MAX_OPS 64           /* top-level operands of one instruction */
#define MAX_LIST 4096        /* elements of a vector / call argument list */
#define MAX_INIT_BYTES ((uint64_t)64 << 20)
#define MAX_DEPTH 256        /* nested { } scopes */

typedef struct {
  const char *name;
  size_t len;
  uint8_t what;    /* SC_REG, SC_REGFAM, SC_VAR */
  uint32_t count;  /* family size */
  uint32_t index;  /* first register, or var index */
} scope_ent_t;
enum { SC_REG = 1, SC_REGFAM, SC_VAR, SC_VECREG };

typedef struct {
  const char *name;
  size_t len;
  uint32_t operand;   /* operand to patch with the label's instruction index */
  uint32_t line;
  uint32_t block;     /* the { } block of the use: labels are scoped like registers */
} fixup_t;

/* `ts: .branchtargets L0, L1;` (for brx.idx): names point into the text. */
typedef struct {
  const char *name;
  size_t len;
  const char **lab;
  size_t *lab_len;
  uint32_t n;
  uint32_t block;
} btab_t;

typedef struct {
  const char *name;   /* NULL: empty slot */
  size_t len;
  uint8_t kind;       /* FT_PTX_SYM_MODVAR / FT_PTX_SYM_FUNC */
  uint32_t index;
} gname_t;

typedef struct {
  ft_lexer_t lx;
  ft_tok_t tok;
  ft_arena_t *ar;
  ft_ptx_module_t *m;
  jmp_buf jb;
  char *err;
  size_t errlen;
  size_t funcs_cap, vars_cap;
  gname_t *names;
  size_t names_cap, names_n;
  /* the function being built */
  ft_ptx_function_t *fn;
  size_t regs_cap, fvars_cap, instrs_cap, ops_cap, labels_cap, params_cap;
  scope_ent_t *sc;
  size_t sc_n, sc_cap;
  size_t marks[MAX_DEPTH];
  unsigned depth;
  fixup_t *fix;
  size_t fix_n, fix_cap;
  uint32_t *blk_parent;   /* parent of each { } block of the function (block 0: the body) */
  size_t blk_n, blk_cap;
  uint32_t blk_cur;
  uint32_t *lab_blk;      /* block of each label (parallel to fn->labels) */
  size_t lab_blk_cap;
  btab_t *btab;
  size_t btab_n, btab_cap;
  struct ibuild_s *ib;
} P;

static void fail(P *p, uint32_t line, const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));
static void fail(P *p, uint32_t line, const char *fmt, ...) {
  if (p->err && p->errlen) {
    int n = snprintf(p->err, p->errlen, "line %u: not analysed: ", (unsigned)line);
    if (n >= 0 && (size_t)n < p->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  longjmp(p->jb, 1);
}

static void *grow(P *p, void *arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return arr;
  size_t nc = *cap ? *cap : 8;
  while (nc < need) {
    if (nc > SIZE_MAX / 2 / elem) fail(p, p->tok.line, "too large");
    nc *= 2;
  }
  void *q = ft_arena_realloc(p->ar, arr, nc * elem);
  if (!q) fail(p, p->tok.line, "out of memory (module too large)");
  *cap = nc;
  return q;
}

#define PUSH(p, arr, n, cap) \
  ((arr) = grow((p), (arr), &(cap), (n) + 1, sizeof(*(arr))), &(arr)[(n)++])

static char *dupstr(P *p, const char *s, size_t len) {
  char *d = ft_arena_alloc(p->ar, len + 1);
  if (!d) fail(p, p->tok.line, "out of memory");
  memcpy(d, s, len);
  return d;
}

static void next(P *p) {
  p->tok = ft_lex_next(&p->lx);
  if (p->tok.kind == FT_TOK_ERR) {
    if (p->tok.len == 0) fail(p, p->tok.line, "unterminated comment");
    fail(p, p->tok.line, "unexpected character '%c'",
         (p->tok.s[0] >= 32 && p->tok.s[0] < 127) ? p->tok.s[0] : '?');
  }
}

static ft_tok_t peek2(P *p) {
  ft_lexer_t copy = p->lx;
  return ft_lex_next(&copy);
}

static const char *tokdesc(P *p) {
  static _Thread_local char buf[48];
  if (p->tok.kind == FT_TOK_EOF) return "end of text";
  size_t n = p->tok.len < 40 ? p->tok.len : 40;
  memcpy(buf, p->tok.s, n);
  buf[n] = '\0';
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)buf[i] < 32 || (unsigned char)buf[i] >= 127) buf[i] = '?';
  return buf;
}

static void expect_punct(P *p, char c) {
  if (!ft_tok_punct(&p->tok, c)) fail(p, p->tok.line, "expected '%c', found '%s'", c, tokdesc(p));
  next(p);
}

static int is_word(P *p, const char *s) {
  return p->tok.kind == FT_TOK_WORD && ft_tok_is(&p->tok, s);
}

static int span_is(const char *s, size_t len, const char *lit) {
  return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

/* Unsigned number (decimal, 0x, 0b, octal; U suffix). */
static int parse_uint(const char *s, size_t len, uint64_t *out) {
  if (len && (s[len - 1] == 'U' || s[len - 1] == 'u')) len--;
  if (!len) return 0;
  unsigned base = 10;
  size_t i = 0;
  if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, i = 2;
  else if (len > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, i = 2;
  else if (len > 1 && s[0] == '0') base = 8, i = 1;
  uint64_t v = 0;
  for (; i < len; i++) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
    else return 0;
    if (d >= base) return 0;
    if (v > (UINT64_MAX - d) / base) return 0;
    v = v * base + d;
  }
  *out = v;
  return 1;
}

static int hexbits(const char *s, size_t n, uint64_t *out) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
    else return 0;
    v = v << 4 | d;
  }
  *out = v;
  return 1;
}

/* A number token into an operand (IMM_INT / IMM_F32 / IMM_F64); neg: '-' before it. */
static void number(P *p, int neg, ft_ptx_operand_t *o) {
  const char *s = p->tok.s;
  size_t n = p->tok.len;
  uint64_t v;
  if (n == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F') && hexbits(s + 2, 8, &v)) {
    o->kind = FT_PTX_OPD_IMM_F32;
    o->value = (int64_t)(v ^ (neg ? 0x80000000u : 0));
  } else if (n == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D') && hexbits(s + 2, 16, &v)) {
    o->kind = FT_PTX_OPD_IMM_F64;
    o->value = (int64_t)(v ^ (neg ? 0x8000000000000000ull : 0));
  } else if (parse_uint(s, n, &v)) {
    o->kind = FT_PTX_OPD_IMM_INT;
    o->value = neg ? (int64_t)(0 - v) : (int64_t)v;
  } else {
    char buf[64];
    if (n >= sizeof buf) fail(p, p->tok.line, "bad number '%s'", tokdesc(p));
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double d = strtod(buf, &end);
    if (end != buf + n || (!strchr(buf, '.') && !strchr(buf, 'e') && !strchr(buf, 'E')))
      fail(p, p->tok.line, "bad number '%s'", tokdesc(p));
    if (neg) d = -d;
    memcpy(&v, &d, 8);
    o->kind = FT_PTX_OPD_IMM_F64;
    o->value = (int64_t)v;
  }
  next(p);
}

static uint64_t expect_uint(P *p) {
  uint64_t v;
  if (p->tok.kind != FT_TOK_NUM || !parse_uint(p->tok.s, p->tok.len, &v))
    fail(p, p->tok.line, "expected a number, found '%s'", tokdesc(p));
  next(p);
  return v;
}

/* Skips tokens up to the end of the current line (.loc, .file). */
static void skip_line(P *p) {
  uint32_t line = p->tok.line;
  next(p);
  while (p->tok.kind != FT_TOK_EOF && p->tok.line == line) next(p);
}

static void skip_to_semicolon(P *p) {
  while (!ft_tok_punct(&p->tok, ';')) {
    if (p->tok.kind == FT_TOK_EOF) fail(p, p->tok.line, "missing ';'");
    next(p);
  }
  next(p);
}

/* ---- module-level names (open addressing) ---- */

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

static gname_t *gname_find(P *p, const char *s, size_t n) {
  if (!p->names_cap) return NULL;
  size_t mask = p->names_cap - 1;
  for (size_t i = hash(s, n) & mask;; i = (i + 1) & mask) {
    gname_t *g = &p->names[i];
    if (!g->name) return NULL;
    if (g->len == n && memcmp(g->name, s, n) == 0) return g;
  }
}

static void gname_add(P *p, const char *name, size_t n, uint8_t kind, uint32_t index) {
  if ((p->names_n + 1) * 2 > p->names_cap) {
    size_t nc = p->names_cap ? p->names_cap * 2 : 64;
    gname_t *old = p->names;
    size_t oc = p->names_cap;
    p->names = ft_arena_alloc(p->ar, nc * sizeof(gname_t));
    if (!p->names) fail(p, p->tok.line, "out of memory");
    p->names_cap = nc;
    for (size_t i = 0; i < oc; i++) {
      if (!old[i].name) continue;
      size_t j = hash(old[i].name, old[i].len) & (nc - 1);
      while (p->names[j].name) j = (j + 1) & (nc - 1);
      p->names[j] = old[i];
    }
  }
  size_t mask = p->names_cap - 1;
  size_t i = hash(name, n) & mask;
  while (p->names[i].name) i = (i + 1) & mask;
  p->names[i] = (gname_t){name, n, kind, index};
  p->names_n++;
}

/* ---- types, spaces, words ---- */

static int type_of(const char *s, size_t n) {
  for (unsigned t = 1; t < FT_PTX_T_COUNT; t++)
    if (span_is(s, n, ft_ptx_type_name(t))) return (int)t;
  return 0;
}

static int space_of(const char *s, size_t n) {
  if (span_is(s, n, "global")) return FT_PTX_SP_GLOBAL;
  if (span_is(s, n, "shared") || span_is(s, n, "shared::cta")) return FT_PTX_SP_SHARED;
  if (span_is(s, n, "shared::cluster")) return FT_PTX_SP_SHARED_CLUSTER;
  if (span_is(s, n, "local")) return FT_PTX_SP_LOCAL;
  if (span_is(s, n, "param")) return FT_PTX_SP_PARAM;
  if (span_is(s, n, "const")) return FT_PTX_SP_CONST;
  return -1;
}

/* Splits a dotted word into parts (without the dots). Returns the count. */
static unsigned split(const char *s, size_t n, const char **ps, size_t *pn, unsigned max) {
  unsigned k = 0;
  size_t i = 0;
  if (n && s[0] == '.') i = 1;
  while (i <= n && k < max) {
    size_t b = i;
    while (i < n && s[i] != '.') i++;
    ps[k] = s + b;
    pn[k] = i - b;
    k++;
    i++;
  }
  return k;
}

/* ---- declarations shared by module and function scope ---- */

typedef struct {
  uint8_t type, vec, ptr, ptr_space;
  uint32_t align, ptr_align;
} attrs_t;

/* Reads `.align N`, `.vN`, type and `.ptr.<space>.align N` attributes. */
static void read_attrs(P *p, attrs_t *a) {
  while (p->tok.kind == FT_TOK_WORD && p->tok.s[0] == '.') {
    const char *ps[8];
    size_t pn[8];
    unsigned k = split(p->tok.s, p->tok.len, ps, pn, 8);
    int need_num = 0;
    for (unsigned i = 0; i < k; i++) {
      int t, sp;
      if (span_is(ps[i], pn[i], "align")) {
        if (i + 1 != k) fail(p, p->tok.line, "bad .align");
        need_num = a->ptr ? 2 : 1;   /* after .ptr, .align is the pointee's */
      } else if (span_is(ps[i], pn[i], "ptr")) {
        a->ptr = 1;
      } else if (a->ptr && (sp = space_of(ps[i], pn[i])) >= 0) {
        a->ptr_space = (uint8_t)sp;
      } else if (span_is(ps[i], pn[i], "v2") || span_is(ps[i], pn[i], "v4") ||
                 span_is(ps[i], pn[i], "v8")) {
        a->vec = (uint8_t)(ps[i][1] - '0');
      } else if ((t = type_of(ps[i], pn[i])) != 0) {
        if (a->type) fail(p, p->tok.line, "two types in a declaration");
        a->type = (uint8_t)t;
      } else {
        return;   /* not an attribute (a space or another directive): caller decides */
      }
    }
    next(p);
    if (need_num) {
      uint64_t v = expect_uint(p);
      if (v == 0 || v > (1u << 20) || (v & (v - 1))) fail(p, p->tok.line, "bad alignment %llu", (unsigned long long)v);
      if (need_num == 2) a->ptr_align = (uint32_t)v;
      else a->align = (uint32_t)v;
    }
  }
}

static uint32_t natural_align(const attrs_t *a) {
  uint32_t s = ft_ptx_type_size(a->type) * (a->vec ? a->vec : 1);
  return s ? s : 1;
}

/* `[N]` dimensions after a name; returns the element count, sets *unsized for `[]`. */
static uint64_t read_dims(P *p, int *unsized) {
  uint64_t count = 1;
  *unsized = 0;
  while (ft_tok_punct(&p->tok, '[')) {
    next(p);
    if (ft_tok_punct(&p->tok, ']')) {
      if (*unsized) fail(p, p->tok.line, "two unsized dimensions");
      *unsized = 1;
    } else {
      uint64_t d = expect_uint(p);
      if (d > ((uint64_t)1 << 40) || (d && count > ((uint64_t)1 << 40) / d)) fail(p, p->tok.line, "array too large");
      count *= d;
    }
    expect_punct(p, ']');
  }
  return count;
}

typedef struct {
  uint8_t is_sym, is_float32, is_float64, generic;
  uint64_t bits;
  uint32_t sym_kind, sym_index;
  int64_t addend;
} initel_t;

static void read_init_elems(P *p, initel_t **els, size_t *n, size_t *cap, unsigned depth) {
  if (depth > 8) fail(p, p->tok.line, "initialiser nested too deep");
  if (ft_tok_punct(&p->tok, '{')) {
    next(p);
    if (!ft_tok_punct(&p->tok, '}')) {
      for (;;) {
        read_init_elems(p, els, n, cap, depth + 1);
        if (!ft_tok_punct(&p->tok, ',')) break;
        next(p);
      }
    }
    expect_punct(p, '}');
    return;
  }
  if (*n >= MAX_INIT_BYTES) fail(p, p->tok.line, "initialiser too large");
  initel_t *e = PUSH(p, *els, *n, *cap);
  memset(e, 0, sizeof *e);
  int neg = 0;
  if (ft_tok_punct(&p->tok, '-')) {
    neg = 1;
    next(p);
  }
  if (p->tok.kind == FT_TOK_NUM) {
    ft_ptx_operand_t o;
    memset(&o, 0, sizeof o);
    number(p, neg, &o);
    e->bits = (uint64_t)o.value;
    e->is_float32 = o.kind == FT_PTX_OPD_IMM_F32;
    e->is_float64 = o.kind == FT_PTX_OPD_IMM_F64;
    return;
  }
  if (neg || p->tok.kind != FT_TOK_WORD) fail(p, p->tok.line, "bad initialiser '%s'", tokdesc(p));
  int gen = 0;
  if (is_word(p, "generic")) {
    gen = 1;
    next(p);
    expect_punct(p, '(');
  }
  if (p->tok.kind != FT_TOK_WORD) fail(p, p->tok.line, "bad initialiser '%s'", tokdesc(p));
  gname_t *g = gname_find(p, p->tok.s, p->tok.len);
  if (!g) fail(p, p->tok.line, "unknown symbol '%s' in initialiser", tokdesc(p));
  next(p);
  e->is_sym = 1;
  e->generic = (uint8_t)gen;
  e->sym_kind = g->kind;
  e->sym_index = g->index;
  if (ft_tok_punct(&p->tok, '+')) {
    next(p);
    e->addend = (int64_t)expect_uint(p);
  }
  if (gen) {
    expect_punct(p, ')');
    if (ft_tok_punct(&p->tok, '+')) {   /* {generic(vtable)+16}: nvcc -G */
      if (e->addend) fail(p, p->tok.line, "two offsets in an initialiser");
      next(p);
      e->addend = (int64_t)expect_uint(p);
    }
  }
}

static void put_le(uint8_t *d, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; i++) d[i] = (uint8_t)(v >> (8 * i));
}

/* Converts the initialiser elements into bytes and relocations of var v. */
static void fill_init(P *p, ft_ptx_var_t *v, const attrs_t *a, initel_t *els, size_t n,
                      uint32_t line) {
  unsigned es = ft_ptx_type_size(a->type);
  if (!es || a->type == FT_PTX_T_PRED) fail(p, line, "initialiser of a typeless variable");
  if ((uint64_t)n * es > v->size) fail(p, line, "initialiser longer than the variable");
  if (v->size > MAX_INIT_BYTES) fail(p, line, "initialised variable too large");
  uint8_t *d = ft_arena_alloc(p->ar, v->size ? v->size : 1);
  if (!d) fail(p, line, "out of memory");
  size_t nrel = 0, relcap = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t *at = d + i * es;
    initel_t *e = &els[i];
    if (e->is_sym) {
      if (es != 4 && es != 8) fail(p, line, "address in a %u-byte initialiser element", es);
      ft_ptx_reloc_t *r = PUSH(p, v->relocs, nrel, relcap);
      *r = (ft_ptx_reloc_t){i * es, e->sym_kind, e->sym_index, e->addend, e->generic, (uint8_t)es};
    } else if (ft_ptx_type_is_float(a->type)) {
      double dv;
      if (e->is_float32) {
        float f;
        uint32_t b = (uint32_t)e->bits;
        memcpy(&f, &b, 4);
        dv = f;
      } else if (e->is_float64) {
        memcpy(&dv, &e->bits, 8);
      } else {
        dv = (double)(int64_t)e->bits;
      }
      if (a->type == FT_PTX_T_F64) {
        uint64_t b;
        if (e->is_float64) b = e->bits;
        else memcpy(&b, &dv, 8);
        put_le(at, b, 8);
      } else if (a->type == FT_PTX_T_F32) {
        uint32_t b;
        if (e->is_float32) {
          b = (uint32_t)e->bits;
        } else {
          float f = (float)dv;
          memcpy(&b, &f, 4);
        }
        put_le(at, b, 4);
      } else {
        fail(p, line, "initialiser of a half-precision variable");
      }
    } else {
      if (e->is_float32 || e->is_float64) put_le(at, e->bits, es);   /* bit pattern */
      else put_le(at, e->bits, es);
    }
  }
  v->init = d;
  v->nrelocs = nrel;
}

/* A variable declaration after its space word: attributes, name, dims, init.
 * Appends to *vars; returns the index. */
static uint32_t read_var(P *p, int space, uint8_t linkage, ft_ptx_var_t **vars, size_t *nvars,
                         size_t *cap) {
  attrs_t a;
  memset(&a, 0, sizeof a);
  read_attrs(p, &a);
  if (p->tok.kind == FT_TOK_WORD && p->tok.s[0] == '.')
    fail(p, p->tok.line, "unsupported declaration attribute '%s'", tokdesc(p));
  if (!a.type) fail(p, p->tok.line, "declaration without a type");
  if (p->tok.kind != FT_TOK_WORD) fail(p, p->tok.line, "expected a name, found '%s'", tokdesc(p));
  uint32_t line = p->tok.line;
  const char *name = dupstr(p, p->tok.s, p->tok.len);
  size_t nlen = p->tok.len;
  next(p);
  int unsized;
  uint64_t count = read_dims(p, &unsized);
  initel_t *els = NULL;
  size_t nel = 0, elcap = 0;
  int has_init = 0;
  int handle = a.type == FT_PTX_T_TEXREF || a.type == FT_PTX_T_SAMPLERREF || a.type == FT_PTX_T_SURFREF;
  if (ft_tok_punct(&p->tok, '=') && handle) {
    /* `= { filter_mode = nearest, ... }`: sampler state for the driver, no bytes */
    next(p);
    int depth = 0;
    do {
      if (p->tok.kind == FT_TOK_EOF) fail(p, p->tok.line, "bad sampler initialiser");
      if (ft_tok_punct(&p->tok, '{')) depth++;
      if (ft_tok_punct(&p->tok, '}')) depth--;
      next(p);
    } while (depth > 0);
  } else if (ft_tok_punct(&p->tok, '=')) {
    next(p);
    has_init = 1;
    read_init_elems(p, &els, &nel, &elcap, 0);
  }
  uint64_t es = (uint64_t)ft_ptx_type_size(a.type) * (a.vec ? a.vec : 1);
  if (unsized && has_init) {
    count = nel / (a.vec ? a.vec : 1);
    unsized = 0;
  }
  ft_ptx_var_t *v = PUSH(p, *vars, *nvars, *cap);
  memset(v, 0, sizeof *v);
  v->name = name;
  v->space = (uint8_t)space;
  v->type = a.type;
  v->linkage = linkage;
  v->unsized = (uint8_t)unsized;
  v->align = a.align ? a.align : natural_align(&a);
  v->size = unsized ? 0 : count * es;
  if (has_init) fill_init(p, v, &a, els, nel, line);
  (void)nlen;
  return (uint32_t)(*nvars - 1);
}

/* ---- function scope ---- */

static void scope_push(P *p) {
  if (p->depth >= MAX_DEPTH) fail(p, p->tok.line, "scopes nested too deep");
  p->marks[p->depth++] = p->sc_n;
  uint32_t parent = p->blk_n ? p->blk_cur : UINT32_MAX;
  *PUSH(p, p->blk_parent, p->blk_n, p->blk_cap) = parent;
  p->blk_cur = (uint32_t)(p->blk_n - 1);
}
static void scope_pop(P *p) {
  p->sc_n = p->marks[--p->depth];
  if (p->blk_parent[p->blk_cur] != UINT32_MAX) p->blk_cur = p->blk_parent[p->blk_cur];
}

static void scope_add(P *p, const char *name, size_t len, uint8_t what, uint32_t count, uint32_t index) {
  scope_ent_t *e = PUSH(p, p->sc, p->sc_n, p->sc_cap);
  *e = (scope_ent_t){name, len, what, count, index};
}

/* Looks a name up in the function's scopes, innermost first. */
static scope_ent_t *scope_find(P *p, const char *s, size_t n, uint32_t *reg) {
  /* trailing digits of a family member: "%rd12" = family "%rd", member 12 */
  size_t d = n;
  while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9') d--;
  uint64_t num = 0;
  int has_num = d < n && n - d <= 9 && !(n - d > 1 && s[d] == '0');
  if (has_num)
    for (size_t i = d; i < n; i++) num = num * 10 + (uint64_t)(s[i] - '0');
  for (size_t i = p->sc_n; i-- > 0;) {
    scope_ent_t *e = &p->sc[i];
    if (e->what == SC_REGFAM) {
      if (has_num && e->len == d && memcmp(e->name, s, d) == 0 && num < e->count) {
        *reg = e->index + (uint32_t)num;
        return e;
      }
    } else if (e->len == n && memcmp(e->name, s, n) == 0) {
      *reg = e->index;
      return e;
    }
  }
  return NULL;
}

static void read_reg_decl(P *p) {
  ft_ptx_function_t *fn = p->fn;
  if (p->tok.len > 4 && p->tok.s[4] == '.') {   /* `.reg.b32 f, C;` (cuDNN): one word */
    p->tok.s += 4;
    p->tok.len -= 4;
  } else {
    next(p);   /* .reg */
  }
  attrs_t a;
  memset(&a, 0, sizeof a);
  read_attrs(p, &a);
  if (!a.type || a.align || a.ptr || a.vec > 4) fail(p, p->tok.line, "unsupported .reg declaration");
  if (a.vec) {
    /* `.reg .v4 .f32 v;`: one register per component, named v.x (also v.r ...);
     * `v` alone is the vector of them */
    static const char comp[2][4] = {{'x', 'y', 'z', 'w'}, {'r', 'g', 'b', 'a'}};
    for (;;) {
      if (p->tok.kind != FT_TOK_WORD || p->tok.len > 200) fail(p, p->tok.line, "expected a register name, found '%s'", tokdesc(p));
      const char *name = dupstr(p, p->tok.s, p->tok.len);
      size_t len = p->tok.len;
      next(p);
      uint32_t base = (uint32_t)fn->nregs;
      fn->regs = grow(p, fn->regs, &p->regs_cap, fn->nregs + a.vec, sizeof(ft_ptx_reg_t));
      for (unsigned i = 0; i < a.vec; i++) {
        char *cn = ft_arena_alloc(p->ar, len + 3);
        if (!cn) fail(p, p->tok.line, "out of memory");
        memcpy(cn, name, len);
        cn[len] = '.';
        cn[len + 1] = comp[0][i];
        cn[len + 2] = '\0';
        fn->regs[fn->nregs++] = (ft_ptx_reg_t){cn, UINT32_MAX, a.type};
        scope_add(p, cn, len + 2, SC_REG, 1, base + i);
        char *alt = dupstr(p, cn, len + 2);
        alt[len + 1] = comp[1][i];
        scope_add(p, alt, len + 2, SC_REG, 1, base + i);
      }
      scope_add(p, name, len, SC_VECREG, a.vec, base);
      if (!ft_tok_punct(&p->tok, ',')) break;
      next(p);
    }
    expect_punct(p, ';');
    return;
  }
  for (;;) {
    if (p->tok.kind != FT_TOK_WORD) fail(p, p->tok.line, "expected a register name, found '%s'", tokdesc(p));
    const char *name = dupstr(p, p->tok.s, p->tok.len);
    size_t len = p->tok.len;
    next(p);
    uint32_t count = 1;
    int fam = 0;
    if (ft_tok_punct(&p->tok, '<')) {
      next(p);
      uint64_t c = expect_uint(p);
      expect_punct(p, '>');
      if (c > MAX_REGS) fail(p, p->tok.line, "too many registers");
      count = (uint32_t)c;
      fam = 1;
    }
    if (fn->nregs + count > MAX_REGS) fail(p, p->tok.line, "too many registers");
    uint32_t base = (uint32_t)fn->nregs;
    fn->regs = grow(p, fn->regs, &p->regs_cap, fn->nregs + count, sizeof(ft_ptx_reg_t));
    for (uint32_t i = 0; i < count; i++)
      fn->regs[fn->nregs++] = (ft_ptx_reg_t){name, fam ? i : UINT32_MAX, a.type};
    scope_add(p, name, len, fam ? SC_REGFAM : SC_REG, count, base);
    if (!ft_tok_punct(&p->tok, ',')) break;
    next(p);
  }
  expect_punct(p, ';');
}

/* ---- instructions ---- */

typedef struct ibuild_s {
  ft_ptx_instr_t in;
  ft_ptx_operand_t top[MAX_OPS];
  unsigned ntop;
  ft_ptx_operand_t *el;    /* vector / list elements */
  size_t nel, elcap;
  const char *lab_name[MAX_OPS];   /* label operands to fix up */
  size_t lab_len[MAX_OPS];
  ft_ptx_operand_t extra[MAX_OPS];  /* operands after the base inside `[a, b, {c}]` */
  unsigned nextra;
} ibuild_t;

static int sreg_of(const char *s, size_t n, uint32_t *comp) {
  if (n < 2 || s[0] != '%') return 0;
  s++, n--;
  size_t b = n;
  *comp = 0;
  /* numbered ones: %envreg0..31, %pm0..7, %reserved_smem_offset_0..1 */
  static const struct { const char *pre; unsigned lim; int sr; } numbered[] = {
    {"envreg", 32, FT_PTX_SR_ENVREG}, {"pm", 8, FT_PTX_SR_PM},
    {"reserved_smem_offset_", 2, FT_PTX_SR_RESERVED_SMEM_N},
  };
  for (size_t k = 0; k < sizeof numbered / sizeof numbered[0]; k++) {
    const char *pre = numbered[k].pre;
    size_t pl = strlen(pre);
    if (n > pl && n <= pl + 2 && memcmp(s, pre, pl) == 0) {
      unsigned v = 0;
      size_t i;
      for (i = pl; i < n && s[i] >= '0' && s[i] <= '9'; i++) v = v * 10 + (unsigned)(s[i] - '0');
      if (i < n) continue;
      if (v >= numbered[k].lim) return 0;
      *comp = v;
      return numbered[k].sr;
    }
  }
  if (n > 2 && s[n - 2] == '.') {
    char c = s[n - 1];
    if (c != 'x' && c != 'y' && c != 'z') return 0;
    *comp = (uint32_t)(c - 'x');
    b = n - 2;
  }
  for (unsigned r = 1; r < FT_PTX_SR_COUNT; r++)
    if (r != FT_PTX_SR_RESERVED_SMEM_N && span_is(s, b, ft_ptx_sreg_name(r))) {
      int vec = r == FT_PTX_SR_TID || r == FT_PTX_SR_NTID || r == FT_PTX_SR_CTAID ||
                r == FT_PTX_SR_NCTAID || r == FT_PTX_SR_CLUSTERID || r == FT_PTX_SR_NCLUSTERID ||
                r == FT_PTX_SR_CLUSTER_CTAID || r == FT_PTX_SR_CLUSTER_NCTAID;
      if (vec != (b != n)) return 0;
      return (int)r;
    }
  return 0;
}

static int word_in(const char *s, size_t n, const char *const *list);

/* A name used as an operand: register, special register, variable, param,
 * function, or (otherwise) a label resolved at the end of the function. */
static void name_operand(P *p, ibuild_t *b, ft_ptx_operand_t *o, int top_slot) {
  const char *s = p->tok.s;
  size_t n = p->tok.len;
  uint32_t idx, comp;
  int sr;
  ft_ptx_function_t *fn = p->fn;
  scope_ent_t *e = scope_find(p, s, n, &idx);
  unsigned sel = 0;
  if (!e && n > 3 && s[n - 3] == '.') {
    /* video byte / half selectors: %r1.b0 .. .b3, .h0 .h1 */
    static const char *const sels[] = {"b0", "b1", "b2", "b3", "h0", "h1", NULL};
    int k = word_in(s + n - 2, 2, sels);
    if (k && (e = scope_find(p, s, n - 3, &idx)) != NULL && e->what != SC_VAR && e->what != SC_VECREG)
      sel = (unsigned)k;
    else
      e = NULL;
  }
  if (e && e->what == SC_VECREG) {
    if (top_slot < 0) fail(p, p->tok.line, "vector register '%s' inside a list or address", tokdesc(p));
    o->kind = FT_PTX_OPD_VEC;
    o->index = (uint32_t)b->nel;
    o->count = e->count;
    for (uint32_t i = 0; i < e->count; i++) {
      ft_ptx_operand_t *el = PUSH(p, b->el, b->nel, b->elcap);
      memset(el, 0, sizeof *el);
      el->kind = FT_PTX_OPD_REG;
      el->index = e->index + i;
    }
  } else if (e && e->what != SC_VAR) {
    o->kind = FT_PTX_OPD_REG;
    o->index = idx;
    o->count = sel;
  } else if (e) {
    o->kind = FT_PTX_OPD_SYM;
    o->sym_kind = FT_PTX_SYM_FUNCVAR;
    o->index = idx;
  } else if ((sr = sreg_of(s, n, &comp)) != 0) {
    o->kind = FT_PTX_OPD_SREG;
    o->index = (uint32_t)sr;
    o->count = comp;
  } else if (span_is(s, n, "_")) {
    o->kind = FT_PTX_OPD_SINK;
  } else if (span_is(s, n, "WARP_SZ")) {
    o->kind = FT_PTX_OPD_IMM_INT;
    o->value = 32;
  } else if (s[0] == '%') {
    fail(p, p->tok.line, "undeclared register '%s'", tokdesc(p));
  } else {
    o->kind = FT_PTX_OPD_SYM;
    size_t i;
    for (i = 0; i < fn->nparams; i++)
      if (span_is(s, n, fn->params[i].name)) break;
    if (i < fn->nparams) {
      o->sym_kind = FT_PTX_SYM_PARAM;
      o->index = (uint32_t)i;
    } else {
      for (i = 0; i < fn->nrets; i++)
        if (span_is(s, n, fn->rets[i].name)) break;
      if (i < fn->nrets) {
        o->sym_kind = FT_PTX_SYM_RET;
        o->index = (uint32_t)i;
      } else {
        gname_t *g = gname_find(p, s, n);
        if (g) {
          o->sym_kind = g->kind;
          o->index = g->index;
        } else if (top_slot >= 0) {
          o->kind = FT_PTX_OPD_LABEL;
          b->lab_name[top_slot] = s;
          b->lab_len[top_slot] = n;
        } else {
          fail(p, p->tok.line, "unknown name '%s'", tokdesc(p));
        }
      }
    }
  }
  next(p);
}

static void operand(P *p, ibuild_t *b, ft_ptx_operand_t *o, int top_slot, int in_list);

/* `{a, b}` or `(a, b)`: elements go to b->el; o becomes a VEC. */
static void list_operand(P *p, ibuild_t *b, ft_ptx_operand_t *o, char close) {
  next(p);
  size_t first = b->nel, n = 0;
  if (!ft_tok_punct(&p->tok, close)) {
    for (;;) {
      ft_ptx_operand_t e;
      memset(&e, 0, sizeof e);
      operand(p, b, &e, -1, 1);
      if (++n > MAX_LIST) fail(p, p->tok.line, "list too long");
      *PUSH(p, b->el, b->nel, b->elcap) = e;
      if (!ft_tok_punct(&p->tok, ',')) break;
      next(p);
    }
  }
  expect_punct(p, close);
  o->kind = FT_PTX_OPD_VEC;
  o->index = (uint32_t)first;   /* relative to b->el until the instruction is stored */
  o->count = (uint32_t)n;
}

static void address_operand(P *p, ibuild_t *b, ft_ptx_operand_t *o, int top_slot) {
  next(p);   /* [ */
  o->kind = FT_PTX_OPD_ADDR;
  if (p->tok.kind == FT_TOK_WORD) {
    ft_ptx_operand_t base;
    memset(&base, 0, sizeof base);
    name_operand(p, b, &base, -1);
    if (base.kind == FT_PTX_OPD_REG) {
      o->base_kind = FT_PTX_OPD_REG;
      o->index = base.index;
    } else if (base.kind == FT_PTX_OPD_SYM) {
      o->base_kind = FT_PTX_OPD_SYM;
      o->sym_kind = base.sym_kind;
      o->index = base.index;
    } else {
      fail(p, p->tok.line, "bad address base");
    }
    if (ft_tok_punct(&p->tok, '+') || ft_tok_punct(&p->tok, '-')) {
      int neg = ft_tok_punct(&p->tok, '-');
      next(p);
      if (ft_tok_punct(&p->tok, '-')) {
        neg = !neg;
        next(p);
      }
      uint64_t v = expect_uint(p);
      o->value = neg ? (int64_t)(0 - v) : (int64_t)v;
    }
  } else if (p->tok.kind == FT_TOK_NUM) {
    o->base_kind = FT_PTX_OPD_NONE;
    o->value = (int64_t)expect_uint(p);
  } else {
    fail(p, p->tok.line, "bad address '%s'", tokdesc(p));
  }
  if (ft_tok_punct(&p->tok, ',')) {
    /* `[tex, {x, y}]`, `[surf, {x}]`, `[tensormap, {c0, c1}]`, `[tex, sampler, {x}]`:
     * the base is a handle; the rest become operands after this one (o->count) */
    if (top_slot < 0 || b->nextra) fail(p, p->tok.line, "bad address list");
    while (ft_tok_punct(&p->tok, ',')) {
      next(p);
      if (b->nextra >= 8) fail(p, p->tok.line, "address list too long");
      ft_ptx_operand_t *e = &b->extra[b->nextra++];
      memset(e, 0, sizeof *e);
      operand(p, b, e, -1, 0);
      if (e->kind == FT_PTX_OPD_ADDR || e->kind == FT_PTX_OPD_LABEL) fail(p, p->tok.line, "bad address list");
    }
    o->count = b->nextra;
  }
  expect_punct(p, ']');
}

static void operand(P *p, ibuild_t *b, ft_ptx_operand_t *o, int top_slot, int in_list) {
  if (ft_tok_punct(&p->tok, '!')) {
    next(p);
    operand(p, b, o, top_slot, in_list);
    if (o->kind != FT_PTX_OPD_REG) fail(p, p->tok.line, "'!' on a non-register");
    o->neg = 1;
  } else if (ft_tok_punct(&p->tok, '-')) {
    next(p);
    if (p->tok.kind != FT_TOK_NUM) fail(p, p->tok.line, "'-' before '%s'", tokdesc(p));
    number(p, 1, o);
  } else if (p->tok.kind == FT_TOK_NUM) {
    number(p, 0, o);
  } else if (ft_tok_punct(&p->tok, '[')) {
    address_operand(p, b, o, in_list ? -1 : top_slot);
  } else if (!in_list && (ft_tok_punct(&p->tok, '{') || ft_tok_punct(&p->tok, '('))) {
    list_operand(p, b, o, p->tok.s[0] == '{' ? '}' : ')');
  } else if (p->tok.kind == FT_TOK_WORD) {
    name_operand(p, b, o, top_slot);
    if (o->kind == FT_PTX_OPD_SYM && ft_tok_punct(&p->tok, '+')) {
      next(p);
      o->value = (int64_t)expect_uint(p);
    }
  } else {
    fail(p, p->tok.line, "bad operand '%s'", tokdesc(p));
  }
}

static int opcode_of(const char *s, size_t n) {
  for (unsigned op = 1; op < FT_PTX_OP_COUNT; op++)
    if (span_is(s, n, ft_ptx_opcode_name(op))) return (int)op;
  return 0;
}

static int word_in(const char *s, size_t n, const char *const *list) {
  for (int i = 0; list[i]; i++)
    if (span_is(s, n, list[i])) return i + 1;
  return 0;
}

static const char *const cmp_words[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                                        "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan", NULL};
static const char *const bool_words[] = {"and", "or", "xor", NULL};
static const char *const atom_words[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor",
                                         "exch", "cas", NULL};
static const char *const rnd_words[] = {"rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "rs", NULL};
static const char *const cache_words[] = {"ca", "cg", "cs", "lu", "cv", "wb", "wt", NULL};
static const char *const sem_words[] = {"weak", "relaxed", "acquire", "release", "acq_rel", "sc", NULL};
static const char *const scope_words[] = {"cta", "cluster", "gpu", "sys", NULL};
static const char *const shfl_words[] = {"up", "down", "bfly", "idx", NULL};
static const char *const vote_words[] = {"all", "any", "uni", "ballot", NULL};
static const char *const prmt_words[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16", NULL};
static const char *const testp_words[] = {"finite", "infinite", "number", "notanumber", "normal",
                                          "subnormal", NULL};

static const struct { const char *w; uint32_t f; } flag_words[] = {
  {"cc", FT_PTX_F_CC}, {"ftz", FT_PTX_F_FTZ}, {"sat", FT_PTX_F_SAT}, {"approx", FT_PTX_F_APPROX},
  {"full", FT_PTX_F_FULL}, {"sync", FT_PTX_F_SYNC}, {"aligned", FT_PTX_F_ALIGNED},
  {"nc", FT_PTX_F_NC}, {"clamp", FT_PTX_F_CLAMP}, {"wrap", FT_PTX_F_WRAP},
  {"shiftamt", FT_PTX_F_SHIFTAMT}, {"NaN", FT_PTX_F_NAN}, {"relu", FT_PTX_F_RELU},
  {"xorsign", FT_PTX_F_XORSIGN}, {"abs", FT_PTX_F_ABS}, {"uni", FT_PTX_F_UNI},
  {"noftz", 0}, {NULL, 0},
};

#define LAYOUT_SEEN 0x80   /* while parsing: the A layout was given (the next is B's) */

static const char *const geom_words[] = {"1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms",
                                         "a2dms", NULL};
static const char *const mbar_words[] = {"init", "inval", "arrive", "arrive_drop", "expect_tx",
                                         "complete_tx", "test_wait", "try_wait", "pending_count", NULL};

static int is_tex_op(unsigned op) {
  return op == FT_PTX_OP_TEX || op == FT_PTX_OP_TLD4 || op == FT_PTX_OP_TXQ || op == FT_PTX_OP_SULD ||
         op == FT_PTX_OP_SUST || op == FT_PTX_OP_SURED || op == FT_PTX_OP_SUQ;
}
static int is_matrix_op(unsigned op) {
  return op == FT_PTX_OP_MMA || op == FT_PTX_OP_WMMA_LOAD || op == FT_PTX_OP_WMMA_STORE ||
         op == FT_PTX_OP_WMMA_MMA || op == FT_PTX_OP_LDMATRIX || op == FT_PTX_OP_STMATRIX;
}
static int is_video_op(unsigned op) { return op >= FT_PTX_OP_VADD && op <= FT_PTX_OP_VSET4; }
static int is_bulk_op(unsigned op) {
  return op >= FT_PTX_OP_CP_ASYNC_BULK && op <= FT_PTX_OP_CP_ASYNC_MBARRIER_ARRIVE;
}
/* Opcodes spelling more than two types (kept in type3, type4). */
static int many_types(const ft_ptx_instr_t *in) {
  unsigned op = in->op;
  return op == FT_PTX_OP_MMA || op == FT_PTX_OP_WMMA_MMA || is_video_op(op) ||
         (op == FT_PTX_OP_CVT && (in->flags & FT_PTX_F_PACK));
}

/* Modifiers of the opcodes added for libraries (matrices, textures, bulk
 * copies, barriers): 1 when taken. Words the IR keeps no field for are only
 * accepted on opcodes the interpreter refuses, and set FT_PTX_F_EXTRA_MOD. */
static int library_modifier(P *p, ft_ptx_instr_t *in, const char *s, size_t n) {
  unsigned op = in->op;
  int k;
  if (span_is(s, n, "satfinite") &&
      (op == FT_PTX_OP_CVT || op == FT_PTX_OP_MMA || op == FT_PTX_OP_WMMA_MMA)) {
    in->flags |= FT_PTX_F_SATFINITE;
    return 1;
  }
  if (op == FT_PTX_OP_CVT && span_is(s, n, "pack")) {   /* cvt.pack.sat.s8.s32.b32 d, a, b, c */
    in->flags |= FT_PTX_F_PACK;
    return 1;
  }
  if (op < FT_PTX_OP_FIRST_EXTRA) return 0;
  if (is_matrix_op(op)) {
    for (unsigned sh = 1; strcmp(ft_ptx_shape_name(sh), "?") != 0; sh++)
      if (span_is(s, n, ft_ptx_shape_name(sh))) {
        in->shape = (uint8_t)sh;
        return 1;
      }
    if (span_is(s, n, "row") || span_is(s, n, "col")) {
      int col = s[0] == 'c';
      if (!(in->layout & LAYOUT_SEEN)) in->layout |= (uint8_t)(LAYOUT_SEEN | (col ? FT_PTX_LAYOUT_A_COL : 0));
      else if (col) in->layout |= FT_PTX_LAYOUT_B_COL;
      return 1;
    }
    if ((op == FT_PTX_OP_LDMATRIX || op == FT_PTX_OP_STMATRIX) &&
        (span_is(s, n, "x1") || span_is(s, n, "x2") || span_is(s, n, "x4"))) {
      in->vec = (uint8_t)(s[1] - '0');
      return 1;
    }
    if (span_is(s, n, "trans")) { in->flags |= FT_PTX_F_TRANS; return 1; }
    if ((op == FT_PTX_OP_WMMA_LOAD || op == FT_PTX_OP_WMMA_STORE) && n == 1 && s[0] >= 'a' && s[0] <= 'd') {
      in->mode = (uint8_t)(FT_PTX_FRAG_A + (s[0] - 'a'));
      return 1;
    }
    if (op == FT_PTX_OP_MMA || op == FT_PTX_OP_WMMA_MMA) {
      /* sparse, block-scaled and single-bit forms: extra operands follow */
      static const char *const mma_extra[] = {"sp", "sp::ordered_metadata", "block_scale", "and",
                                              "xor", "popc", NULL};
      if (word_in(s, n, mma_extra) || (n > 6 && memcmp(s, "kind::", 6) == 0) ||
          (n > 11 && memcmp(s, "scale_vec::", 11) == 0)) {
        in->flags |= FT_PTX_F_EXTRA_MOD;
        return 1;
      }
    }
    return 0;
  }
  if (is_tex_op(op)) {
    if ((k = word_in(s, n, geom_words))) { in->shape = (uint8_t)k; return 1; }
    if (op == FT_PTX_OP_TXQ || op == FT_PTX_OP_SUQ) {
      for (unsigned q = 1; strcmp(ft_ptx_tex_query_name(q), "?") != 0; q++)
        if (span_is(s, n, ft_ptx_tex_query_name(q))) {
          in->mode = (uint8_t)q;
          return 1;
        }
      if (span_is(s, n, "level")) { in->layout = 1; return 1; }
    }
    if (op == FT_PTX_OP_TEX) {
      if (span_is(s, n, "level")) { in->layout = 1; return 1; }
      if (span_is(s, n, "grad")) { in->layout = 2; return 1; }
      if (span_is(s, n, "base")) { in->layout = 3; return 1; }
    }
    if (op == FT_PTX_OP_TLD4 && n == 1 && (k = (int)(strchr("rgba", s[0]) ? strchr("rgba", s[0]) - "rgba" + 1 : 0))) {
      in->mode = (uint8_t)k;
      return 1;
    }
    if (op == FT_PTX_OP_SULD || op == FT_PTX_OP_SUST || op == FT_PTX_OP_SURED) {
      if (span_is(s, n, "trap")) { in->layout = 1; return 1; }
      if (span_is(s, n, "clamp")) { in->layout = 2; return 1; }
      if (span_is(s, n, "zero")) { in->layout = 3; return 1; }
      if (span_is(s, n, "b")) return 1;    /* unformatted (the only kind with a type) */
      if (span_is(s, n, "p")) { in->flags |= FT_PTX_F_EXTRA_MOD; return 1; }   /* formatted */
      if (op == FT_PTX_OP_SURED && (k = word_in(s, n, atom_words))) { in->mode = (uint8_t)k; return 1; }
    }
    return 0;
  }
  if (op == FT_PTX_OP_MBARRIER) {
    if ((k = word_in(s, n, mbar_words))) {
      if (in->mode == FT_PTX_MBAR_ARRIVE && k == FT_PTX_MBAR_EXPECT_TX) in->mode = FT_PTX_MBAR_ARRIVE_EXPECT_TX;
      else if (in->mode == FT_PTX_MBAR_ARRIVE_DROP && k == FT_PTX_MBAR_EXPECT_TX) in->mode = FT_PTX_MBAR_ARRIVE_DROP_EXPECT_TX;
      else if (in->mode) fail(p, p->tok.line, "two mbarrier operations");
      else in->mode = (uint8_t)k;
      return 1;
    }
    if (span_is(s, n, "parity")) { in->flags |= FT_PTX_F_PARITY; return 1; }
    if (span_is(s, n, "noComplete")) { in->flags |= FT_PTX_F_EXTRA_MOD; return 1; }
    return 0;
  }
  if (is_bulk_op(op)) {
    static const char *const bulk_extra[] = {"bulk_group", "mbarrier::complete_tx::bytes", "tile", "im2col",
                                             "im2col_no_offs", "tile::gather4", "tile::scatter4", "1d", "2d",
                                             "3d", "4d", "5d", "read", "L2", "noinc", "cta_group::1",
                                             "cta_group::2", "im2col::w", "im2col::w::128", NULL};
    if (span_is(s, n, "multicast::cluster")) { in->flags |= FT_PTX_F_MULTICAST; return 1; }
    if (op == FT_PTX_OP_CP_REDUCE_ASYNC_BULK || op == FT_PTX_OP_CP_REDUCE_ASYNC_BULK_TENSOR) {
      if ((k = word_in(s, n, atom_words))) { in->mode = (uint8_t)k; return 1; }
    }
    if (word_in(s, n, bulk_extra)) {
      /* the copy's completion mechanism and tensor layout: no field; the operands say where */
      in->flags |= FT_PTX_F_EXTRA_MOD;
      return 1;
    }
    return 0;
  }
  if (op == FT_PTX_OP_GRIDDEPCONTROL) {
    if (span_is(s, n, "launch_dependents")) { in->mode = FT_PTX_GDC_LAUNCH_DEPENDENTS; return 1; }
    if (span_is(s, n, "wait")) { in->mode = FT_PTX_GDC_WAIT; return 1; }
    return 0;
  }
  if (op == FT_PTX_OP_FENCE_PROXY) {
    if (span_is(s, n, "alias")) { in->mode = FT_PTX_PROXY_ALIAS; return 1; }
    if (span_is(s, n, "async")) { in->mode = FT_PTX_PROXY_ASYNC; return 1; }
    if (span_is(s, n, "tensormap::generic")) { in->mode = FT_PTX_PROXY_TENSORMAP; return 1; }
    if (n > 7 && (memcmp(s, "async::", 7) == 0 || memcmp(s, "sync_restrict::", 15 < n ? 15 : n) == 0)) {
      in->flags |= FT_PTX_F_EXTRA_MOD;
      return 1;
    }
    return 0;
  }
  if (op == FT_PTX_OP_SETMAXNREG) {
    if (span_is(s, n, "inc")) { in->mode = 1; return 1; }
    if (span_is(s, n, "dec")) { in->mode = 2; return 1; }
    return 0;
  }
  if (op == FT_PTX_OP_MULTIMEM_LD_REDUCE || op == FT_PTX_OP_MULTIMEM_RED) {
    if (!in->mode && (k = word_in(s, n, atom_words))) { in->mode = (uint8_t)k; return 1; }
  }
  if (op >= FT_PTX_OP_MULTIMEM_LD_REDUCE && op <= FT_PTX_OP_MULTIMEM_RED && n > 5 && memcmp(s, "acc::", 5) == 0) {
    in->flags |= FT_PTX_F_EXTRA_MOD;   /* accumulation precision */
    return 1;
  }
  if (is_video_op(op)) {
    if ((op == FT_PTX_OP_VSET || op == FT_PTX_OP_VSET2 || op == FT_PTX_OP_VSET4) && !in->cmp &&
        (k = word_in(s, n, cmp_words))) {
      in->cmp = (uint8_t)k;
      return 1;
    }
    if (!in->mode && (span_is(s, n, "add") || span_is(s, n, "min") || span_is(s, n, "max"))) {
      in->mode = (uint8_t)word_in(s, n, atom_words);   /* secondary operation */
      return 1;
    }
    if (span_is(s, n, "po")) { in->flags |= FT_PTX_F_EXTRA_MOD; return 1; }   /* vmad plus one */
  }
  return 0;
}

/* One modifier part of an opcode word. */
static void modifier(P *p, ft_ptx_instr_t *in, const char *s, size_t n, int *bar_red) {
  unsigned op = in->op;
  int k, t, sp;
  if (library_modifier(p, in, s, n)) return;
  if ((op == FT_PTX_OP_SETP || op == FT_PTX_OP_SET) && !in->cmp && (k = word_in(s, n, cmp_words))) {
    in->cmp = (uint8_t)k;
    return;
  }
  if ((op == FT_PTX_OP_SETP || op == FT_PTX_OP_SET) && (k = word_in(s, n, bool_words))) {
    in->boolop = (uint8_t)k;
    return;
  }
  if ((op == FT_PTX_OP_ATOM || op == FT_PTX_OP_RED || op == FT_PTX_OP_REDUX) && !in->mode &&
      (k = word_in(s, n, atom_words))) {
    in->mode = (uint8_t)k;
    return;
  }
  if (op == FT_PTX_OP_BAR || op == FT_PTX_OP_BARRIER) {
    if (*bar_red) {
      if (span_is(s, n, "popc")) in->mode = FT_PTX_BAR_RED_POPC;
      else if (span_is(s, n, "and")) in->mode = FT_PTX_BAR_RED_AND;
      else if (span_is(s, n, "or")) in->mode = FT_PTX_BAR_RED_OR;
      else fail(p, p->tok.line, "bad bar.red operation");
      *bar_red = 0;
      return;
    }
    if (span_is(s, n, "sync")) {
      if (in->mode != FT_PTX_BAR_WARP_SYNC) in->mode = FT_PTX_BAR_SYNC;
      return;
    }
    if (span_is(s, n, "arrive")) { in->mode = FT_PTX_BAR_ARRIVE; return; }
    if (span_is(s, n, "red")) { *bar_red = 1; return; }
    if (span_is(s, n, "warp")) { in->mode = FT_PTX_BAR_WARP_SYNC; return; }
  }
  if (op == FT_PTX_OP_SHFL && (k = word_in(s, n, shfl_words))) { in->mode = (uint8_t)k; return; }
  if (op == FT_PTX_OP_VOTE && (k = word_in(s, n, vote_words))) { in->mode = (uint8_t)k; return; }
  if (op == FT_PTX_OP_MATCH && (span_is(s, n, "any") || span_is(s, n, "all"))) {
    in->mode = span_is(s, n, "any") ? FT_PTX_MATCH_ANY : FT_PTX_MATCH_ALL;
    return;
  }
  if (op == FT_PTX_OP_SHF && (span_is(s, n, "l") || span_is(s, n, "r"))) {
    in->mode = s[0] == 'l' ? FT_PTX_SHF_L : FT_PTX_SHF_R;
    return;
  }
  if (op == FT_PTX_OP_PRMT && (k = word_in(s, n, prmt_words))) { in->mode = (uint8_t)k; return; }
  if (op == FT_PTX_OP_TESTP && (k = word_in(s, n, testp_words))) { in->mode = (uint8_t)k; return; }
  if (op == FT_PTX_OP_CVTA && span_is(s, n, "to")) { in->flags |= FT_PTX_F_TO; return; }
  if ((op == FT_PTX_OP_MUL || op == FT_PTX_OP_MAD || op == FT_PTX_OP_MUL24 ||
       op == FT_PTX_OP_MAD24 || op == FT_PTX_OP_MADC || op == FT_PTX_OP_DP2A)) {
    if (span_is(s, n, "hi")) { in->flags |= FT_PTX_F_HI; return; }
    if (span_is(s, n, "lo")) { in->flags |= FT_PTX_F_LO; return; }
    if (span_is(s, n, "wide")) { in->flags |= FT_PTX_F_WIDE; return; }
  }
  if (op == FT_PTX_OP_MEMBAR) {
    if (span_is(s, n, "gl")) { in->scope = FT_PTX_SCOPE_GPU; return; }
    if (span_is(s, n, "cta")) { in->scope = FT_PTX_SCOPE_CTA; return; }
    if (span_is(s, n, "sys")) { in->scope = FT_PTX_SCOPE_SYS; return; }
  }
  if ((op == FT_PTX_OP_PREFETCH || op == FT_PTX_OP_PREFETCHU) &&
      (span_is(s, n, "L1") || span_is(s, n, "L2")))
    return;
  if (n > 4 && (memcmp(s, "L1::", 4) == 0 || memcmp(s, "L2::", 4) == 0)) {
    if (span_is(s, n, "L2::cache_hint")) in->flags |= FT_PTX_F_L2_HINT;
    return;   /* cache eviction hints: no effect on values or on the analysis */
  }
  if ((t = type_of(s, n)) != 0) {
    if (!in->type) in->type = (uint8_t)t;
    else if (!in->type2) in->type2 = (uint8_t)t;
    else if (many_types(in) && !in->type3) in->type3 = (uint8_t)t;
    else if (many_types(in) && !in->type4 && !is_video_op(op) && op != FT_PTX_OP_CVT) in->type4 = (uint8_t)t;
    else fail(p, p->tok.line, "too many types on '%s'", ft_ptx_opcode_name(op));
    return;
  }
  if ((sp = space_of(s, n)) >= 0) {
    if (in->space == FT_PTX_SP_NONE) in->space = (uint8_t)sp;
    else if ((op == FT_PTX_OP_CP_ASYNC || is_bulk_op(op)) && !in->space2) in->space2 = (uint8_t)sp;
    else fail(p, p->tok.line, "two state spaces on '%s'", ft_ptx_opcode_name(op));
    return;
  }
  if ((k = word_in(s, n, rnd_words))) { in->rnd = (uint8_t)k; return; }
  if (span_is(s, n, "v2") || span_is(s, n, "v4") || span_is(s, n, "v8")) { in->vec = (uint8_t)(s[1] - '0'); return; }
  if (span_is(s, n, "v16")) { in->vec = 16; return; }
  if ((k = word_in(s, n, cache_words))) { in->cache = (uint8_t)k; return; }
  if (span_is(s, n, "volatile")) {
    in->flags |= FT_PTX_F_VOLATILE;
    in->sem = FT_PTX_SEM_VOLATILE;
    return;
  }
  if ((k = word_in(s, n, sem_words))) { in->sem = (uint8_t)k; return; }
  if ((k = word_in(s, n, scope_words))) { in->scope = (uint8_t)k; return; }
  for (int i = 0; flag_words[i].w; i++)
    if (span_is(s, n, flag_words[i].w)) {
      in->flags |= flag_words[i].f;
      return;
    }
  fail(p, p->tok.line, "unknown modifier '.%.*s' on '%s'", (int)(n > 32 ? 32 : n), s,
       ft_ptx_opcode_name(op));
}

/* Operand count bounds (opcodes.h; counted after the second-destination slot
 * is inserted): a wrong count is an error, never an instruction the interpreter
 * would misread. */
static void check_count(P *p, const ft_ptx_instr_t *in, unsigned n, uint32_t line) {
  const ft_ptx_opinfo_t *oi = ft_ptx_opinfo(in->op);
  if (oi->hi != FT_PTX_ANY && (n < oi->lo || n > oi->hi))
    fail(p, line, "'%s' with %u operands", oi->name, n);
}

/* Opcodes with an optional second destination `d|p`: always two slots. */
static int pair_dst_op(unsigned op) { return (ft_ptx_opinfo(op)->flags & FT_PTX_PAIR) != 0; }

/* brx.idx index, table: the table's name becomes a VEC of its labels. */
static btab_t *branch_table(P *p, ibuild_t *b, uint32_t line) {
  if (b->ntop != 2 || b->top[1].kind != FT_PTX_OPD_LABEL || !b->lab_name[1]) fail(p, line, "brx.idx needs a .branchtargets list");
  btab_t *t = NULL;
  for (uint32_t blk = p->blk_cur; blk != UINT32_MAX && !t; blk = p->blk_parent[blk])
    for (size_t i = p->btab_n; i-- > 0;)
      if (p->btab[i].block == blk && p->btab[i].len == b->lab_len[1] &&
          memcmp(p->btab[i].name, b->lab_name[1], b->lab_len[1]) == 0) {
        t = &p->btab[i];
        break;
      }
  if (!t) fail(p, line, "brx.idx: no .branchtargets '%.*s' declared before it", (int)(b->lab_len[1] > 32 ? 32 : b->lab_len[1]), b->lab_name[1]);
  ft_ptx_operand_t *o = &b->top[1];
  memset(o, 0, sizeof *o);
  o->kind = FT_PTX_OPD_VEC;
  o->index = (uint32_t)b->nel;
  o->count = t->n;
  b->lab_name[1] = NULL;
  for (uint32_t i = 0; i < t->n; i++) {
    ft_ptx_operand_t *e = PUSH(p, b->el, b->nel, b->elcap);
    memset(e, 0, sizeof *e);
    e->kind = FT_PTX_OPD_LABEL;
  }
  return t;
}

static void instruction(P *p) {
  ft_ptx_function_t *fn = p->fn;
  ibuild_t *b = p->ib;   /* reused; its list buffer lives in the arena */
  memset(&b->in, 0, sizeof b->in);
  memset(b->lab_name, 0, sizeof b->lab_name);
  b->ntop = 0;
  b->nel = 0;
  b->nextra = 0;
  ft_ptx_instr_t *in = &b->in;
  in->guard = FT_PTX_NO_REG;
  in->line = p->tok.line;
  uint32_t line = p->tok.line;
  if (ft_tok_punct(&p->tok, '@')) {
    next(p);
    if (ft_tok_punct(&p->tok, '!')) {
      in->guard_neg = 1;
      next(p);
    }
    uint32_t r;
    scope_ent_t *e = p->tok.kind == FT_TOK_WORD ? scope_find(p, p->tok.s, p->tok.len, &r) : NULL;
    if (!e || e->what == SC_VAR || fn->regs[r].type != FT_PTX_T_PRED) {
      fail(p, line, "bad guard '%s'", tokdesc(p));
    }
    in->guard = r;
    next(p);
  }
  if (p->tok.kind != FT_TOK_WORD) {
    fail(p, line, "expected an instruction, found '%s'", tokdesc(p));
  }
  const char *ps[24];
  size_t pn[24];
  unsigned k = split(p->tok.s, p->tok.len, ps, pn, 24);
  if (k >= 24) fail(p, line, "opcode too long");
  /* the opcode is the longest run of leading parts that names one (cp.async.bulk.tensor) */
  unsigned first_mod = 0;
  static const char *const dotted[] = {"cp", "wmma", "multimem", "brx", "fence", NULL};
  unsigned most = word_in(ps[0], pn[0], dotted) ? (k < 5 ? k : 5) : 1;
  for (unsigned j = most; j >= 1 && !in->op; j--) {
    size_t len = (size_t)(ps[j - 1] + pn[j - 1] - ps[0]);
    int op = opcode_of(ps[0], len);
    if (op) in->op = (uint16_t)op, first_mod = j;
  }
  if (!in->op) fail(p, line, "unsupported opcode '%s'", tokdesc(p));
  int bar_red = 0;
  for (unsigned i = first_mod; i < k; i++) modifier(p, in, ps[i], pn[i], &bar_red);
  if (bar_red) fail(p, line, "bar.red without an operation");
  in->layout &= (uint8_t)~LAYOUT_SEEN;
  if (in->op == FT_PTX_OP_MBARRIER && !in->mode) fail(p, line, "mbarrier without an operation");
  if (!in->vec) in->vec = 1;
  next(p);
  if (!ft_tok_punct(&p->tok, ';')) {
    for (;;) {
      if (b->ntop >= MAX_OPS - 1) fail(p, line, "too many operands");
      memset(&b->top[b->ntop], 0, sizeof b->top[0]);
      operand(p, b, &b->top[b->ntop], (int)b->ntop, 0);
      b->ntop++;
      if (b->nextra) {
        if (b->ntop + b->nextra >= MAX_OPS - 1) fail(p, line, "too many operands");
        memcpy(&b->top[b->ntop], b->extra, b->nextra * sizeof b->extra[0]);
        for (unsigned j = 0; j < b->nextra; j++) b->lab_name[b->ntop + j] = NULL;
        b->ntop += b->nextra;
        b->nextra = 0;
      }
      if (ft_tok_punct(&p->tok, '|')) {
        if (b->ntop != 1 || !pair_dst_op(in->op)) {
              fail(p, line, "unexpected '|'");
        }
        next(p);
        memset(&b->top[b->ntop], 0, sizeof b->top[0]);
        operand(p, b, &b->top[b->ntop], (int)b->ntop, 0);
        b->ntop++;
        in->flags |= FT_PTX_F_PAIR_DST;
      }
      if (!ft_tok_punct(&p->tok, ',')) break;
      next(p);
    }
  }
  if (!ft_tok_punct(&p->tok, ';')) fail(p, p->tok.line, "expected ';', found '%s'", tokdesc(p));
  next(p);
  /* Two-destination forms always take two slots. */
  if (pair_dst_op(in->op) && !(in->flags & FT_PTX_F_PAIR_DST) && b->ntop >= 1) {
    memmove(&b->top[2], &b->top[1], (b->ntop - 1) * sizeof b->top[0]);
    memmove(&b->lab_name[2], &b->lab_name[1], (b->ntop - 1) * sizeof b->lab_name[0]);
    memmove(&b->lab_len[2], &b->lab_len[1], (b->ntop - 1) * sizeof b->lab_len[0]);
    memset(&b->top[1], 0, sizeof b->top[0]);
    b->lab_name[1] = NULL;
    b->ntop++;
  }
  btab_t *bt = NULL;
  if (in->op == FT_PTX_OP_CALL) {
    /* [returns], target, [args], [prototype] -> 4 fixed slots */
    ft_ptx_operand_t t[4];
    memset(t, 0, sizeof t);
    unsigned i = 0;
    t[0].kind = FT_PTX_OPD_VEC;
    t[0].index = (uint32_t)b->nel;
    t[2] = t[0];
    if (i < b->ntop && b->top[i].kind == FT_PTX_OPD_VEC) t[0] = b->top[i++];
    if (i >= b->ntop) fail(p, line, "call without a target");
    t[1] = b->top[i++];
    if (t[1].kind == FT_PTX_OPD_LABEL || !((t[1].kind == FT_PTX_OPD_SYM && t[1].sym_kind == FT_PTX_SYM_FUNC) ||
                                           t[1].kind == FT_PTX_OPD_REG)) {
      fail(p, line, "bad call target");
    }
    if (i < b->ntop && b->top[i].kind == FT_PTX_OPD_VEC) t[2] = b->top[i++];
    if (i < b->ntop) {
      if (t[1].kind != FT_PTX_OPD_REG) fail(p, line, "prototype on a direct call");
      i++;   /* the prototype label: the arguments carry what is needed */
    }
    if (i != b->ntop) fail(p, line, "bad call operands");
    for (unsigned j = 0; j < 4; j++) b->lab_name[j] = NULL;
    memcpy(b->top, t, sizeof t);
    b->ntop = 4;
    for (unsigned v = 0; v < 3; v += 2)
      for (uint32_t j = 0; j < b->top[v].count; j++) {
        ft_ptx_operand_t *e = &b->el[b->top[v].index + j];
        if (e->kind != FT_PTX_OPD_SYM || e->sym_kind != FT_PTX_SYM_FUNCVAR ||
            fn->vars[e->index].space != FT_PTX_SP_PARAM) {
              fail(p, line, "call argument is not a .param variable");
        }
      }
  } else {
    if (in->op == FT_PTX_OP_BRX_IDX) bt = branch_table(p, b, line);
    /* labels only as bra targets */
    for (unsigned i = 0; i < b->ntop; i++)
      if (b->top[i].kind == FT_PTX_OPD_LABEL && in->op != FT_PTX_OP_BRA) {
        size_t n = b->lab_len[i] > 32 ? 32 : b->lab_len[i];
        char nm[40];
        memcpy(nm, b->lab_name[i], n);
        nm[n] = '\0';
          fail(p, line, "unknown name '%s'", nm);
      }
    if (in->op == FT_PTX_OP_BRA && (b->ntop != 1 || b->top[0].kind != FT_PTX_OPD_LABEL)) {
      fail(p, line, "bra needs a label");
    }
  }
  check_count(p, in, b->ntop, line);
  /* store: top-level operands contiguous, then the list elements */
  size_t base = fn->noperands;
  if (base + b->ntop + b->nel > UINT32_MAX / 2) fail(p, line, "too many operands");
  fn->operands = grow(p, fn->operands, &p->ops_cap, base + b->ntop + b->nel, sizeof(ft_ptx_operand_t));
  for (unsigned i = 0; i < b->ntop; i++) {
    ft_ptx_operand_t o = b->top[i];
    if (o.kind == FT_PTX_OPD_VEC) o.index += (uint32_t)(base + b->ntop);
    fn->operands[base + i] = o;
    if (b->lab_name[i] && o.kind == FT_PTX_OPD_LABEL) {
      fixup_t *f = PUSH(p, p->fix, p->fix_n, p->fix_cap);
      *f = (fixup_t){b->lab_name[i], b->lab_len[i], (uint32_t)(base + i), line, p->blk_cur};
    }
  }
  for (size_t i = 0; i < b->nel; i++) {
    if (b->el[i].kind == FT_PTX_OPD_VEC || (b->el[i].kind == FT_PTX_OPD_LABEL && in->op != FT_PTX_OP_BRX_IDX))
      fail(p, line, "bad list element");
    fn->operands[base + b->ntop + i] = b->el[i];
  }
  for (uint32_t i = 0; bt && i < bt->n; i++) {
    fixup_t *f = PUSH(p, p->fix, p->fix_n, p->fix_cap);
    *f = (fixup_t){bt->lab[i], bt->lab_len[i], (uint32_t)(base + b->ntop + b->top[1].index + i), line,
                   bt->block};
  }
  fn->noperands = base + b->ntop + b->nel;
  in->ops = (uint32_t)base;
  in->nops = (uint8_t)b->ntop;
  ft_ptx_instr_t *slot = PUSH(p, fn->instrs, fn->ninstrs, p->instrs_cap);
  *slot = *in;
}

/* ---- functions ---- */

/* `( .param ... , ... )`: parameter or return list into *out. */
static void param_list(P *p, ft_ptx_param_t **out, size_t *n, int is_entry) {
  size_t cap = 0;
  expect_punct(p, '(');
  uint32_t off = 0;
  if (!ft_tok_punct(&p->tok, ')')) {
    for (;;) {
      int is_reg = is_word(p, ".reg");
      if (!is_word(p, ".param") && !(is_reg && !is_entry)) fail(p, p->tok.line, "unsupported parameter '%s'", tokdesc(p));
      next(p);
      attrs_t a;
      memset(&a, 0, sizeof a);
      read_attrs(p, &a);
      if (!a.type || a.type == FT_PTX_T_PRED) fail(p, p->tok.line, "parameter without a type");
      if (p->tok.kind != FT_TOK_WORD) fail(p, p->tok.line, "expected a parameter name, found '%s'", tokdesc(p));
      ft_ptx_param_t *q = PUSH(p, *out, *n, cap);
      memset(q, 0, sizeof *q);
      q->name = dupstr(p, p->tok.s, p->tok.len);
      q->reg = FT_PTX_NO_REG;
      q->is_reg = (uint8_t)is_reg;
      next(p);
      int unsized;
      uint64_t count = read_dims(p, &unsized);
      if (unsized) fail(p, p->tok.line, "unsized parameter");
      uint64_t size = count * ft_ptx_type_size(a.type) * (a.vec ? a.vec : 1);
      if (size > (1u << 20)) fail(p, p->tok.line, "parameter too large");
      q->type = a.type;
      q->ptr_space = a.ptr_space;
      q->ptr_align = a.ptr_align;
      q->align = a.align ? a.align : natural_align(&a);
      q->size = (uint32_t)size;
      off = (off + q->align - 1) & ~(q->align - 1);
      q->offset = off;
      off += q->size;
      if (off > (1u << 24)) fail(p, p->tok.line, "parameters too large");
      if (!ft_tok_punct(&p->tok, ',')) break;
      next(p);
    }
  }
  expect_punct(p, ')');
}

static void fixup_labels(P *p) {
  ft_ptx_function_t *fn = p->fn;
  for (size_t i = 0; i < p->fix_n; i++) {
    fixup_t *f = &p->fix[i];
    size_t j = fn->nlabels;
    /* the innermost enclosing block that declares the name (labels are scoped) */
    for (uint32_t blk = f->block; blk != UINT32_MAX && j == fn->nlabels; blk = p->blk_parent[blk])
      for (j = 0; j < fn->nlabels; j++)
        if (p->lab_blk[j] == blk && span_is(f->name, f->len, fn->labels[j].name)) break;
    if (j == fn->nlabels) {
      /* a branch into a nested block: accepted when the name is unique in the
       * function, as before labels were scoped */
      size_t found = fn->nlabels, n = 0;
      for (size_t q = 0; q < fn->nlabels; q++)
        if (span_is(f->name, f->len, fn->labels[q].name)) found = q, n++;
      if (n == 1) j = found;
    }
    if (j == fn->nlabels) {
      char nm[40];
      size_t n = f->len > 32 ? 32 : f->len;
      memcpy(nm, f->name, n);
      nm[n] = '\0';
      fail(p, f->line, "unknown name '%s'", nm);
    }
    if (fn->labels[j].instr >= fn->ninstrs) fail(p, f->line, "branch to the end of the function");
    fn->operands[f->operand].index = fn->labels[j].instr;   /* always a valid instruction index */
  }
}

static void body(P *p) {
  ft_ptx_function_t *fn = p->fn;
  size_t labels_cap = 0;
  next(p);   /* { */
  scope_push(p);
  unsigned base_depth = p->depth;
  /* `.reg` parameters and returns of a .func are registers of its body */
  for (int r = 0; r < 2; r++)
    for (size_t i = 0; i < (r ? fn->nrets : fn->nparams); i++) {
      ft_ptx_param_t *q = r ? &fn->rets[i] : &fn->params[i];
      if (!q->is_reg) continue;
      if (q->size > 16 || q->size != ft_ptx_type_size(q->type)) fail(p, fn->line, "array .reg parameter");
      q->reg = (uint32_t)fn->nregs;
      *PUSH(p, fn->regs, fn->nregs, p->regs_cap) = (ft_ptx_reg_t){q->name, UINT32_MAX, q->type};
      scope_add(p, q->name, strlen(q->name), SC_REG, 1, q->reg);
    }
  for (;;) {
    ft_tok_t *t = &p->tok;
    if (t->kind == FT_TOK_EOF) fail(p, t->line, "function body not closed");
    if (ft_tok_punct(t, '}')) {
      next(p);
      scope_pop(p);
      if (p->depth < base_depth) break;
      continue;
    }
    if (ft_tok_punct(t, '{')) {
      next(p);
      scope_push(p);
      continue;
    }
    if (t->kind == FT_TOK_WORD && t->s[0] == '.') {
      const char *ps[2] = {t->s, t->s};
      size_t pn[2] = {0, 0};
      split(t->s, t->len, ps, pn, 2);
      int sp = space_of(ps[0], pn[0]);
      if (is_word(p, ".reg") || (t->len > 5 && memcmp(t->s, ".reg.", 5) == 0)) {
        read_reg_decl(p);
      } else if (sp >= 0 && ft_tok_is(t, t->s[1] == 's' ? ".shared" : t->s[1] == 'l' ? ".local" :
                                                  t->s[1] == 'p' ? ".param" : t->s[1] == 'c' ? ".const" : ".global")) {
        next(p);
        uint32_t line = p->tok.line;
        size_t before = fn->nvars;
        uint32_t vi = read_var(p, sp, FT_PTX_LINK_NONE, &fn->vars, &fn->nvars, &p->fvars_cap);
        (void)before;
        if (fn->vars[vi].relocs) fail(p, line, "address initialiser in a function");
        scope_add(p, fn->vars[vi].name, strlen(fn->vars[vi].name), SC_VAR, 1, vi);
        expect_punct(p, ';');
      } else if (is_word(p, ".loc") || is_word(p, ".file")) {
        skip_line(p);
      } else if (is_word(p, ".pragma")) {
        skip_to_semicolon(p);
      } else {
        fail(p, t->line, "unsupported directive '%s' in a function", tokdesc(p));
      }
      continue;
    }
    if (t->kind == FT_TOK_WORD) {
      ft_tok_t t2 = peek2(p);
      if (t2.kind == FT_TOK_PUNCT && t2.s[0] == ':') {
        const char *name = t->s;
        size_t len = t->len;
        next(p);
        next(p);
        if (is_word(p, ".callprototype")) {
          skip_to_semicolon(p);
          continue;
        }
        if (is_word(p, ".branchtargets")) {   /* a jump table for brx.idx, not a place */
          btab_t *bt = PUSH(p, p->btab, p->btab_n, p->btab_cap);
          memset(bt, 0, sizeof *bt);
          bt->name = name;
          bt->len = len;
          bt->block = p->blk_cur;
          size_t cap = 0, cap2 = 0, n = 0, n2 = 0;
          do {
            next(p);
            if (p->tok.kind != FT_TOK_WORD) fail(p, p->tok.line, "bad .branchtargets");
            *PUSH(p, bt->lab, n, cap) = p->tok.s;
            *PUSH(p, bt->lab_len, n2, cap2) = p->tok.len;
            if (n > MAX_LIST) fail(p, p->tok.line, "list too long");
            next(p);
          } while (ft_tok_punct(&p->tok, ','));
          bt->n = (uint32_t)n;
          expect_punct(p, ';');
          continue;
        }
        for (size_t j = 0; j < fn->nlabels; j++)
          if (p->lab_blk[j] == p->blk_cur && span_is(name, len, fn->labels[j].name))
            fail(p, p->tok.line, "duplicate label '%.*s'", (int)(len > 32 ? 32 : len), name);
        size_t nl = fn->nlabels;
        ft_ptx_label_t *l = PUSH(p, fn->labels, fn->nlabels, labels_cap);
        l->name = dupstr(p, name, len);
        l->instr = (uint32_t)fn->ninstrs;
        *PUSH(p, p->lab_blk, nl, p->lab_blk_cap) = p->blk_cur;
        continue;
      }
    }
    instruction(p);
  }
  fixup_labels(p);
}

static void function(P *p, uint8_t linkage) {
  ft_ptx_module_t *m = p->m;
  int is_entry = is_word(p, ".entry");
  uint32_t line = p->tok.line;
  next(p);
  ft_ptx_function_t f;
  memset(&f, 0, sizeof f);
  f.is_entry = (uint8_t)is_entry;
  f.linkage = linkage;
  f.line = line;
  if (!is_entry && ft_tok_punct(&p->tok, '(')) param_list(p, &f.rets, &f.nrets, 0);
  if (p->tok.kind != FT_TOK_WORD || p->tok.s[0] == '.') fail(p, p->tok.line, "expected a function name, found '%s'", tokdesc(p));
  const char *name = dupstr(p, p->tok.s, p->tok.len);
  size_t nlen = p->tok.len;
  f.name = name;
  next(p);
  if (ft_tok_punct(&p->tok, '(')) param_list(p, &f.params, &f.nparams, is_entry);
  for (size_t i = 0; i < f.nparams; i++) {
    uint32_t end = f.params[i].offset + f.params[i].size;
    if (end > f.param_bytes) f.param_bytes = end;
  }
  /* performance directives */
  for (;;) {
    if (is_word(p, ".maxntid") || is_word(p, ".reqntid")) {
      uint32_t *dst = is_word(p, ".maxntid") ? f.maxntid : f.reqntid;
      next(p);
      for (int i = 0; i < 3; i++) {
        uint64_t v = expect_uint(p);
        dst[i] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
        if (!ft_tok_punct(&p->tok, ',')) break;
        next(p);
      }
      for (int i = 0; i < 3; i++)
        if (!dst[i]) dst[i] = 1;
    } else if (is_word(p, ".minnctapersm") || is_word(p, ".maxnreg") || is_word(p, ".maxnctapersm") ||
               is_word(p, ".maxclusterrank")) {
      int which = is_word(p, ".minnctapersm") ? 1 : is_word(p, ".maxnreg") ? 2 : 0;
      next(p);
      uint64_t v = expect_uint(p);
      if (which == 1) f.minnctapersm = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
      if (which == 2) f.maxnreg = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    } else if (is_word(p, ".noreturn")) {
      f.noreturn = 1;
      next(p);
    } else if (is_word(p, ".pragma")) {
      skip_to_semicolon(p);
    } else {
      break;
    }
  }
  gname_t *g = gname_find(p, name, nlen);
  if (g && g->kind != FT_PTX_SYM_FUNC) fail(p, line, "'%s' declared twice", name);
  ft_ptx_function_t *fn;
  if (g) {
    fn = &m->funcs[g->index];
    if (ft_tok_punct(&p->tok, ';')) {   /* another declaration */
      next(p);
      return;
    }
    if (!fn->is_decl) fail(p, line, "function '%s' defined twice", name);
    if (fn->nparams != f.nparams || fn->nrets != f.nrets || fn->is_entry != f.is_entry)
      fail(p, line, "definition of '%s' differs from its declaration", name);
    *fn = f;
  } else {
    fn = PUSH(p, m->funcs, m->nfuncs, p->funcs_cap);
    *fn = f;
    gname_add(p, name, nlen, FT_PTX_SYM_FUNC, (uint32_t)(m->nfuncs - 1));
  }
  if (ft_tok_punct(&p->tok, ';')) {
    fn->is_decl = 1;
    next(p);
    return;
  }
  if (!ft_tok_punct(&p->tok, '{')) fail(p, p->tok.line, "expected a function body, found '%s'", tokdesc(p));
  fn->is_decl = 0;
  p->fn = fn;
  p->regs_cap = p->fvars_cap = p->instrs_cap = p->ops_cap = 0;
  p->sc_n = 0;
  p->depth = 0;
  p->fix_n = 0;
  p->blk_n = 0;
  p->blk_cur = 0;
  p->btab_n = 0;
  p->lab_blk_cap = 0;
  p->lab_blk = NULL;
  body(p);
  p->fn = NULL;
}

/* `.section name { ... }` (DWARF): skipped with braces balanced. */
static void skip_section(P *p) {
  next(p);
  while (!ft_tok_punct(&p->tok, '{')) {
    if (p->tok.kind == FT_TOK_EOF) fail(p, p->tok.line, "bad .section");
    next(p);
  }
  int depth = 0;
  do {
    if (p->tok.kind == FT_TOK_EOF) fail(p, p->tok.line, ".section not closed");
    if (ft_tok_punct(&p->tok, '{')) depth++;
    if (ft_tok_punct(&p->tok, '}')) depth--;
    next(p);
  } while (depth > 0);
}

static void module(P *p) {
  ft_ptx_module_t *m = p->m;
  m->address_size = 64;
  next(p);
  while (p->tok.kind != FT_TOK_EOF) {
    if (p->tok.kind != FT_TOK_WORD) fail(p, p->tok.line, "unexpected '%s'", tokdesc(p));
    if (is_word(p, ".version")) {
      next(p);
      if (p->tok.kind != FT_TOK_NUM) fail(p, p->tok.line, "bad .version");
      unsigned a = 0, b = 0, i = 0;
      const char *s = p->tok.s;
      for (; i < p->tok.len && s[i] >= '0' && s[i] <= '9' && a < 1000; i++) a = a * 10 + (unsigned)(s[i] - '0');
      if (i < p->tok.len && s[i] == '.') i++;
      for (; i < p->tok.len && s[i] >= '0' && s[i] <= '9' && b < 1000; i++) b = b * 10 + (unsigned)(s[i] - '0');
      if (i != p->tok.len) fail(p, p->tok.line, "bad .version");
      m->version_major = a;
      m->version_minor = b;
      next(p);
    } else if (is_word(p, ".target")) {
      next(p);
      int first = 1;
      for (;;) {
        if (p->tok.kind != FT_TOK_WORD) fail(p, p->tok.line, "bad .target");
        if (first) {
          size_t n = p->tok.len < sizeof m->target - 1 ? p->tok.len : sizeof m->target - 1;
          memcpy(m->target, p->tok.s, n);
          m->target[n] = '\0';
          const char *u = strchr(m->target, '_');
          if (u) m->sm = (unsigned)strtoul(u + 1, NULL, 10);
          first = 0;
        }
        next(p);
        if (!ft_tok_punct(&p->tok, ',')) break;
        next(p);
      }
    } else if (is_word(p, ".address_size")) {
      next(p);
      uint64_t v = expect_uint(p);
      if (v != 32 && v != 64) fail(p, p->tok.line, "bad .address_size");
      m->address_size = (unsigned)v;
    } else if (is_word(p, ".file") || is_word(p, ".loc")) {
      skip_line(p);
    } else if (is_word(p, ".section")) {
      skip_section(p);
    } else if (is_word(p, ".pragma")) {
      skip_to_semicolon(p);
    } else if (is_word(p, ".alias")) {
      /* `.alias a, b;`: a names the function b (both declared before) */
      next(p);
      if (p->tok.kind != FT_TOK_WORD) fail(p, p->tok.line, "bad .alias");
      const char *an = p->tok.s;
      size_t al = p->tok.len;
      uint32_t line = p->tok.line;
      next(p);
      expect_punct(p, ',');
      gname_t *g = p->tok.kind == FT_TOK_WORD ? gname_find(p, p->tok.s, p->tok.len) : NULL;
      if (!g || g->kind != FT_PTX_SYM_FUNC) fail(p, p->tok.line, ".alias of an unknown function '%s'", tokdesc(p));
      gname_t target = *g;
      next(p);
      expect_punct(p, ';');
      gname_t *a = gname_find(p, an, al);
      if (!a || a->kind != FT_PTX_SYM_FUNC) fail(p, line, ".alias of an undeclared function");
      if (!m->funcs[a->index].is_decl) fail(p, line, ".alias of a defined function");
      a->index = target.index;   /* every later use of the alias names the aliasee */
    } else {
      uint8_t linkage = FT_PTX_LINK_NONE;
      if (is_word(p, ".visible")) linkage = FT_PTX_LINK_VISIBLE;
      else if (is_word(p, ".extern")) linkage = FT_PTX_LINK_EXTERN;
      else if (is_word(p, ".weak")) linkage = FT_PTX_LINK_WEAK;
      else if (is_word(p, ".common")) linkage = FT_PTX_LINK_COMMON;
      if (linkage) next(p);
      if (is_word(p, ".entry") || is_word(p, ".func")) {
        function(p, linkage);
        continue;
      }
      int sp = -1;
      if (p->tok.kind == FT_TOK_WORD && p->tok.s[0] == '.') sp = space_of(p->tok.s + 1, p->tok.len - 1);
      if (sp < 0 || sp == FT_PTX_SP_PARAM) fail(p, p->tok.line, "unsupported directive '%s'", tokdesc(p));
      next(p);
      uint32_t line = p->tok.line;
      uint32_t vi = read_var(p, sp, linkage, &m->vars, &m->nvars, &p->vars_cap);
      ft_ptx_var_t *v = &m->vars[vi];
      if (v->unsized && !(linkage == FT_PTX_LINK_EXTERN && sp == FT_PTX_SP_SHARED))
        fail(p, line, "unsized variable '%s'", v->name);
      if (gname_find(p, v->name, strlen(v->name))) fail(p, line, "'%s' declared twice", v->name);
      gname_add(p, v->name, strlen(v->name), FT_PTX_SYM_MODVAR, vi);
      expect_punct(p, ';');
    }
  }
  if (!m->version_major) fail(p, 1, "no .version directive");
}

int ft_ptx_parse(const char *text, size_t len, ft_ptx_module_t **out, char *err, size_t errlen) {
  *out = NULL;
  if (err && errlen) err[0] = '\0';
  P *volatile p = calloc(1, sizeof *p);
  ft_arena_t *volatile ar = calloc(1, sizeof *ar);
  if (!p || !ar) {
    free(p);
    free(ar);
    if (err && errlen) snprintf(err, errlen, "out of memory");
    return -1;
  }
  p->ar = ar;
  p->err = err;
  p->errlen = errlen;
  ft_lex_init(&p->lx, text ? text : "", text ? len : 0);
  if (setjmp(p->jb)) {
    ft_arena_release(ar);
    free(ar);
    free(p);
    return -1;
  }
  p->m = ft_arena_alloc(ar, sizeof *p->m);
  p->ib = ft_arena_alloc(ar, sizeof *p->ib);
  if (!p->m || !p->ib) fail(p, 0, "out of memory");
  module(p);
  for (size_t i = 0; i < p->m->nfuncs; i++)
    if (p->m->funcs[i].is_decl && p->m->funcs[i].linkage != FT_PTX_LINK_EXTERN) {
      /* a called .func that never gets a body: calls to it cannot be executed or followed */
      p->m->funcs[i].is_decl = 1;
    }
  p->m->arena = ar;
  *out = p->m;
  free(p);
  return 0;
}
