/* range_eval.c: evaluating, joining and printing range programs (range.h): what
 * the shim runs at every launch, without allocating. */
#include "range.h"

#include <stdio.h>
#include <string.h>

static int param_value(const ft_ptx_rop_t *o, const unsigned char *p, size_t size, int64_t *v) {
  unsigned n = o->a;
  if ((n != 1 && n != 2 && n != 4 && n != 8) || o->k < 0 || (size_t)o->k + n > size) return -1;
  uint64_t u = 0;
  for (unsigned i = 0; i < n; i++) u |= (uint64_t)p[o->k + i] << (8 * i);   /* little-endian */
  if (o->b && n < 8 && (u >> (8 * n - 1)) & 1) u |= ~0ull << (8 * n);
  if (!o->b && n == 8 && u > (uint64_t)INT64_MAX) return -1;
  *v = (int64_t)u;
  return 0;
}

static int fits(int64_t v, unsigned kind) {
  unsigned bits = 8 * (kind & 0x7f);
  if (bits == 0 || bits > 64) return 0;
  if (kind & FT_PTX_R_SIGNED) return bits == 64 || (v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1)));
  return v >= 0 && (bits == 64 || (uint64_t)v < (1ull << bits));
}

static int64_t floor_div(int64_t a, int64_t k) {
  int64_t q = a / k;
  return (a % k && a < 0) ? q - 1 : q;
}

int ft_ptx_range_eval(const ft_ptx_range_t *r, const void *params, size_t params_size, const unsigned grid[3],
                      const unsigned block[3], int64_t *lo, int64_t *hi) {
  int64_t v[FT_PTX_RANGE_OPS];
  if (!r || !r->n || r->n > FT_PTX_RANGE_OPS || r->lo >= r->n || r->hi >= r->n) return -1;
  for (unsigned i = 0; i < r->n; i++) {
    const ft_ptx_rop_t *o = &r->op[i];
    int two = o->op >= FT_PTX_R_ADD && o->op <= FT_PTX_R_MAX;
    if ((two || o->op == FT_PTX_R_SEQ) && (o->a >= i || o->b >= i)) return -1;
    if ((o->op == FT_PTX_R_DIV || o->op == FT_PTX_R_FIT) && o->a >= i) return -1;
    int64_t a = two || o->op == FT_PTX_R_DIV || o->op == FT_PTX_R_FIT || o->op == FT_PTX_R_SEQ ? v[o->a] : 0;
    int64_t b = two || o->op == FT_PTX_R_SEQ ? v[o->b] : 0;
    switch (o->op) {
    case FT_PTX_R_CONST: v[i] = o->k; break;
    case FT_PTX_R_PARAM:
      if (!params || param_value(o, params, params_size, &v[i]) != 0) return -1;
      break;
    case FT_PTX_R_NTID: case FT_PTX_R_NCTAID: {
      const unsigned *g = o->op == FT_PTX_R_NTID ? block : grid;
      if (o->a > 2 || !g || !g[o->a]) return -1;
      v[i] = g[o->a];
      break;
    }
    case FT_PTX_R_ADD: if (__builtin_add_overflow(a, b, &v[i])) return -1; break;
    case FT_PTX_R_SUB: if (__builtin_sub_overflow(a, b, &v[i])) return -1; break;
    case FT_PTX_R_MUL: if (__builtin_mul_overflow(a, b, &v[i])) return -1; break;
    case FT_PTX_R_MIN: v[i] = a < b ? a : b; break;
    case FT_PTX_R_MAX: v[i] = a > b ? a : b; break;
    case FT_PTX_R_DIV:
      if (o->k <= 0) return -1;
      v[i] = floor_div(a, o->k);
      break;
    case FT_PTX_R_FIT:
      if (!fits(a, o->b)) return -1;
      v[i] = a;
      break;
    case FT_PTX_R_SEQ: v[i] = b; break;
    default: return -1;
    }
  }
  *lo = v[r->lo];
  *hi = v[r->hi];
  if (*hi <= *lo) *lo = *hi = 0;   /* touches nothing */
  return 0;
}

int ft_ptx_range_bounded(const ft_ptx_range_t *r) { return r && r->n > 0; }

int ft_ptx_range_empty(const ft_ptx_range_t *r) {
  return r && r->n && r->lo == r->hi && r->op[r->lo].op == FT_PTX_R_CONST;
}

/* Appends src's steps to dst (operands renumbered); -1 when they do not fit. */
static int append(ft_ptx_range_t *dst, const ft_ptx_range_t *src, unsigned *base) {
  if (dst->n + src->n > FT_PTX_RANGE_OPS) return -1;
  *base = dst->n;
  for (unsigned i = 0; i < src->n; i++) {
    ft_ptx_rop_t o = src->op[i];
    if ((o.op >= FT_PTX_R_ADD && o.op <= FT_PTX_R_MAX) || o.op == FT_PTX_R_SEQ) o.b = (uint8_t)(o.b + *base);
    if ((o.op >= FT_PTX_R_ADD && o.op <= FT_PTX_R_DIV) || o.op == FT_PTX_R_FIT || o.op == FT_PTX_R_SEQ)
      o.a = (uint8_t)(o.a + *base);
    dst->op[dst->n++] = o;
  }
  return 0;
}

void ft_ptx_range_join(ft_ptx_range_t *dst, const ft_ptx_range_t *src) {
  if (!dst->n) return;
  if (!src->n) {
    memset(dst, 0, sizeof *dst);
    return;
  }
  if (ft_ptx_range_empty(src)) return;
  if (ft_ptx_range_empty(dst)) {
    *dst = *src;
    return;
  }
  ft_ptx_range_t out = *dst;
  unsigned base;
  if (append(&out, src, &base) != 0 || out.n + 2 > FT_PTX_RANGE_OPS) {
    memset(dst, 0, sizeof *dst);
    return;
  }
  out.op[out.n] = (ft_ptx_rop_t){FT_PTX_R_MIN, dst->lo, (uint8_t)(src->lo + base), 0, 0};
  out.op[out.n + 1] = (ft_ptx_rop_t){FT_PTX_R_MAX, dst->hi, (uint8_t)(src->hi + base), 0, 0};
  out.lo = out.n;
  out.hi = (uint8_t)(out.n + 1);
  out.n = (uint8_t)(out.n + 2);
  *dst = out;
}

static const char *const dims = "xyz";

/* Step i as text into buf at *pos (bounded). */
static void put(const ft_ptx_range_t *r, unsigned i, char *buf, size_t len, size_t *pos, int depth) {
  const ft_ptx_rop_t *o = &r->op[i];
#define OUT(...) (*pos += (size_t)snprintf(buf + (*pos < len ? *pos : len), *pos < len ? len - *pos : 0, __VA_ARGS__))
  if (depth > 12) {
    OUT("...");
    return;
  }
  switch (o->op) {
  case FT_PTX_R_CONST: OUT("%d", o->k); return;
  case FT_PTX_R_PARAM: OUT("p@%d:%c%u", o->k, o->b ? 's' : 'u', 8 * o->a); return;
  case FT_PTX_R_NTID: OUT("ntid.%c", dims[o->a % 3]); return;
  case FT_PTX_R_NCTAID: OUT("nctaid.%c", dims[o->a % 3]); return;
  case FT_PTX_R_MIN: case FT_PTX_R_MAX:
    OUT(o->op == FT_PTX_R_MIN ? "min(" : "max(");
    put(r, o->a, buf, len, pos, depth + 1);
    OUT(", ");
    put(r, o->b, buf, len, pos, depth + 1);
    OUT(")");
    return;
  case FT_PTX_R_ADD: case FT_PTX_R_SUB: case FT_PTX_R_MUL:
    OUT("(");
    put(r, o->a, buf, len, pos, depth + 1);
    OUT(o->op == FT_PTX_R_ADD ? " + " : o->op == FT_PTX_R_SUB ? " - " : "*");
    put(r, o->b, buf, len, pos, depth + 1);
    OUT(")");
    return;
  case FT_PTX_R_DIV:
    OUT("floor(");
    put(r, o->a, buf, len, pos, depth + 1);
    OUT("/%d)", o->k);
    return;
  case FT_PTX_R_FIT:
    OUT("%c%u!", (o->b & FT_PTX_R_SIGNED) ? 's' : 'u', 8 * (o->b & 0x7f));
    put(r, o->a, buf, len, pos, depth + 1);
    return;
  case FT_PTX_R_SEQ:
    put(r, o->b, buf, len, pos, depth + 1);
    return;
  default: OUT("?"); return;
  }
#undef OUT
}

const char *ft_ptx_range_format(const ft_ptx_range_t *r, char *buf, size_t len) {
  if (!len) return buf;
  buf[0] = 0;
  if (!r->n) {
    snprintf(buf, len, "unbounded");
    return buf;
  }
  if (ft_ptx_range_empty(r)) {
    snprintf(buf, len, "none");
    return buf;
  }
  size_t pos = 0;
  put(r, r->lo, buf, len, &pos, 0);
  if (pos < len) pos += (size_t)snprintf(buf + pos, len - pos, " .. ");
  put(r, r->hi, buf, len, &pos, 0);
  return buf;
}
