/* range_eval.c: evaluating, joining and printing range programs (range.h): what
 * the shim runs at every launch, without allocating. */
#include "range.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The program of n steps op[] with results lo and hi. */
static int eval(const ft_ptx_rop_t *op, unsigned n, unsigned rlo, unsigned rhi, const void *params,
                size_t params_size, const unsigned grid[3], const unsigned block[3], int64_t *lo, int64_t *hi) {
  int64_t v[FT_PTX_RANGE_OPS];
  if (!n || n > FT_PTX_RANGE_OPS || rlo >= n || rhi >= n) return -1;
  for (unsigned i = 0; i < n; i++) {
    const ft_ptx_rop_t *o = &op[i];
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
  *lo = v[rlo];
  *hi = v[rhi];
  if (*hi <= *lo) *lo = *hi = 0;   /* touches nothing */
  return 0;
}

int ft_ptx_range_eval(const ft_ptx_range_t *r, const void *params, size_t params_size, const unsigned grid[3],
                      const unsigned block[3], int64_t *lo, int64_t *hi) {
  if (!r) return -1;
  return eval(r->op, r->n, r->lo, r->hi, params, params_size, grid, block, lo, hi);
}

/* The header of direction dir of record h (checked against the pool), or NULL. */
static const ft_ptx_rop_t *header(const ft_ptx_range_pool_t *pool, uint32_t h, unsigned dir) {
  if (!pool || !h || h > pool->n || dir > 1) return NULL;
  uint32_t at = h - 1;
  for (unsigned d = 0;; d++) {
    const ft_ptx_rop_t *o = &pool->op[at];
    if (o->op != 0 || o->k < 0 || o->k > FT_PTX_RANGE_OPS || (uint32_t)o->k >= pool->n - at) return NULL;
    if (d == dir) return o;
    at += 1 + (uint32_t)o->k;
    if (at >= pool->n) return NULL;
  }
}

int ft_ptx_range_eval_at(const ft_ptx_range_pool_t *pool, uint32_t h, unsigned dir, const void *params,
                         size_t params_size, const unsigned grid[3], const unsigned block[3], int64_t *lo,
                         int64_t *hi) {
  const ft_ptx_rop_t *o = header(pool, h, dir);
  if (!o) return -1;
  return eval(o + 1, (unsigned)o->k, o->a, o->b, params, params_size, grid, block, lo, hi);
}

void ft_ptx_range_load(const ft_ptx_range_pool_t *pool, uint32_t h, unsigned dir, ft_ptx_range_t *out) {
  memset(out, 0, sizeof *out);
  const ft_ptx_rop_t *o = header(pool, h, dir);
  if (!o || !o->k) return;
  out->n = (uint8_t)o->k;
  out->lo = o->a;
  out->hi = o->b;
  memcpy(out->op, o + 1, (size_t)o->k * sizeof *o);
}

uint32_t ft_ptx_range_store(ft_ptx_range_pool_t *pool, const ft_ptx_range_t *read, const ft_ptx_range_t *write) {
  const ft_ptx_range_t *r[2] = {read, write};
  uint32_t need = 2;
  for (unsigned d = 0; d < 2; d++) {
    if (r[d] && r[d]->n > FT_PTX_RANGE_OPS) r[d] = NULL;   /* not a program: unbounded */
    need += r[d] ? r[d]->n : 0;
  }
  if (need == 2 || pool->n > UINT32_MAX - 1 - need) return 0;
  if (pool->n + need > pool->cap) {
    uint32_t cap = pool->cap ? pool->cap : 64;
    while (cap < pool->n + need) cap = cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : cap * 2;
    ft_ptx_rop_t *op = realloc(pool->op, (size_t)cap * sizeof *op);
    if (!op) return 0;
    pool->op = op;
    pool->cap = cap;
  }
  uint32_t h = pool->n + 1;
  for (unsigned d = 0; d < 2; d++) {
    unsigned n = r[d] ? r[d]->n : 0;
    pool->op[pool->n++] = (ft_ptx_rop_t){0, n ? r[d]->lo : 0, n ? r[d]->hi : 0, 0, (int32_t)n};
    if (n) memcpy(&pool->op[pool->n], r[d]->op, n * sizeof *pool->op);
    pool->n += n;
  }
  return h;
}

void ft_ptx_range_pool_trim(ft_ptx_range_pool_t *pool) {
  if (pool->cap == pool->n) return;
  if (!pool->n) {
    ft_ptx_range_pool_free(pool);
    return;
  }
  ft_ptx_rop_t *op = realloc(pool->op, (size_t)pool->n * sizeof *op);
  if (!op) return;
  pool->op = op;
  pool->cap = pool->n;
}

void ft_ptx_range_pool_free(ft_ptx_range_pool_t *pool) {
  free(pool->op);
  pool->op = NULL;
  pool->n = pool->cap = 0;
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
  if (dst->n == src->n && dst->lo == src->lo && dst->hi == src->hi &&
      !memcmp(dst->op, src->op, dst->n * sizeof *dst->op))
    return;   /* one kernel compiled twice: the same program */
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
