/* test_range.c: byte ranges (ptx/range.c) of the kernels of corpus_ranges.cu,
 * evaluated for several launches and compared with the bytes each kernel really
 * touches, enumerated thread by thread here; and the evaluator on its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_test_util.h"
#include "runner.h"

#ifndef FT_PTX_CORPUS_BIN
#define FT_PTX_CORPUS_BIN ""
#define NEED_NVCC() return TEST_SKIPF("no nvcc at configure time: corpus_ranges.cu was not compiled")
#else
#define NEED_NVCC() ((void)0)
#endif

/* One launch: geometry and the kernel's integer arguments by parameter index. */
typedef struct {
  unsigned grid[3], block[3];
  long long arg[4];
} launch_t;

/* The hull of the bytes touched through each parameter, per direction. */
typedef struct {
  long long lo[8][2], hi[8][2];
  int any[8][2], wrapped;
} touch_t;

static void touch(touch_t *t, unsigned param, unsigned dir, long long off, long long size) {
  if (!t->any[param][dir] || off < t->lo[param][dir]) t->lo[param][dir] = off;
  if (!t->any[param][dir] || off + size > t->hi[param][dir]) t->hi[param][dir] = off + size;
  t->any[param][dir] = 1;
}

/* Every thread of the launch: f(t, L, global x, global y). */
#define EACH_THREAD(L, X, Y)                                                        \
  for (long long Y = 0; Y < (long long)(L)->grid[1] * (L)->block[1]; Y++)           \
    for (long long X = 0; X < (long long)(L)->grid[0] * (L)->block[0]; X++)

static long long threads(const launch_t *L) { return (long long)L->grid[0] * L->block[0]; }

enum { RD = 0, WR = 1 };

/* The models: what each kernel touches, by parameter index (corpus_ranges.cu). */
static void m_saxpy(const launch_t *L, touch_t *t) {
  for (long long i = 0; i < threads(L); i++)
    if (i < L->arg[0]) touch(t, 2, RD, 4 * i, 4), touch(t, 3, RD, 4 * i, 4), touch(t, 3, WR, 4 * i, 4);
}
static void m_fill(const launch_t *L, touch_t *t) {
  for (long long i = 0; i < threads(L); i++) touch(t, 0, WR, 4 * i, 4);
}
static void m_stride(const launch_t *L, touch_t *t, unsigned pi, unsigned elt) {
  for (long long s = 0; s < threads(L); s++)
    for (long long i = s; i < L->arg[0]; i += threads(L)) touch(t, pi, RD, elt * i, elt), touch(t, pi + 1, WR, elt * i, elt);
}
static void m_stride32(const launch_t *L, touch_t *t) { m_stride(L, t, 1, 4); }
static void m_2d(const launch_t *L, touch_t *t) {
  EACH_THREAD(L, c, r)
  if (c < L->arg[0] && r < L->arg[1]) touch(t, 2, RD, 4 * (r * L->arg[0] + c), 4), touch(t, 3, WR, 4 * (r * L->arg[0] + c), 4);
}
static void m_early(const launch_t *L, touch_t *t) {
  for (long long i = 0; i < threads(L) && i < L->arg[0]; i++) touch(t, 1, WR, 4 * i, 4), touch(t, 1, WR, 4 * (i + L->arg[0]), 4);
}
static void m_before(const launch_t *L, touch_t *t) {
  for (long long i = 0; i < threads(L) && i < L->arg[0]; i++) touch(t, 1, RD, 4 * (i - 1), 4), touch(t, 2, WR, 4 * i, 4);
}
static void m_strided(const launch_t *L, touch_t *t) {
  for (long long i = 0; i < threads(L) && i < L->arg[0]; i++) {
    long long k = i * L->arg[1];
    if (k != (int)k) t->wrapped = 1;   /* the kernel's 32-bit product wraps */
    touch(t, 2, WR, 4 * (long long)(int)k, 4);
  }
}
static void m_vec(const launch_t *L, touch_t *t) {
  for (long long i = 0; i < threads(L) && i < L->arg[0]; i++) {
    touch(t, 1, RD, 16 * i, 16), touch(t, 2, WR, 16 * i, 16);
    touch(t, 3, RD, 4 * (i & 7), 4), touch(t, 3, WR, 4 * (i & 7), 4);
  }
}
static void m_gather(const launch_t *L, touch_t *t) {
  for (long long i = 0; i < threads(L) && i < L->arg[0]; i++) touch(t, 1, RD, 4 * i, 4), touch(t, 3, WR, 4 * i, 4);
}

typedef struct {
  const char *name;
  void (*model)(const launch_t *, touch_t *);
  unsigned unbounded;   /* bit 2*param + dir: must come out unbounded */
  int two_d;
} kcase_t;

#define UB(p, d) (1u << (2 * (p) + (d)))
static const kcase_t cases[] = {
    {"rg_saxpy", m_saxpy, 0, 0},     {"rg_fill", m_fill, 0, 0},
    {"rg_stride", m_stride32, 0, 0}, {"rg_2d", m_2d, 0, 1},
    {"rg_early", m_early, 0, 0},     {"rg_before", m_before, 0, 0},
    {"rg_strided", m_strided, 0, 0}, {"rg_vec", m_vec, 0, 0},
    {"rg_gather", m_gather, UB(2, RD), 0},
    {"rg_chase", NULL, UB(1, WR), 0},
    {"rg_ptrloop", NULL, UB(0, RD) | UB(0, WR), 0},
};

/* The parameter buffer of fn for launch L (integer arguments; pointers 0). */
static void pack(const ft_ptx_function_t *fn, const launch_t *L, unsigned char *buf, size_t cap) {
  memset(buf, 0, cap);
  for (size_t i = 0; i < fn->nparams && i < 4; i++) {
    const ft_ptx_param_t *p = &fn->params[i];
    if (p->size > 8 || p->offset + p->size > cap || ft_ptx_type_is_float(p->type)) continue;
    memcpy(buf + p->offset, &L->arg[i], p->size);   /* little-endian */
  }
}

static void check_launch(const kcase_t *k, const ft_ptx_function_t *fn, const ft_ptx_facts_t *f, const launch_t *L) {
  touch_t t;
  memset(&t, 0, sizeof t);
  k->model(L, &t);
  unsigned char params[64];
  pack(fn, L, params, sizeof params);
  for (size_t j = 0; j < f->nplaces; j++) {
    const ft_ptx_place_t *p = &f->places[j];
    for (unsigned d = 0; d < 2; d++) {
      const ft_ptx_range_t *r = d ? &p->write : &p->read;
      long long lo, hi;
      int64_t l64, h64;
      int rc = ft_ptx_range_eval(r, params, fn->param_bytes, L->grid, L->block, &l64, &h64);
      lo = l64, hi = h64;
      if (!t.any[p->param][d]) continue;   /* touched nothing: any answer holds */
      if (t.wrapped) {
        if (rc != -1) FT_FAIL_("%s param %u %s: bounded [%lld, %lld) although the index wraps", k->name, p->param,
                               d ? "write" : "read", lo, hi);
        continue;
      }
      if (rc != 0)
        FT_FAIL_("%s param %u %s: unbounded for grid %u block %u n %lld", k->name, p->param, d ? "write" : "read",
                 L->grid[0], L->block[0], L->arg[0]);
      /* sound (contains every touched byte) and tight (the touched bytes' hull) */
      if (lo != t.lo[p->param][d] || hi != t.hi[p->param][d])
        FT_FAIL_("%s param %u %s: [%lld, %lld), touched [%lld, %lld) (grid %ux%u block %ux%u args %lld %lld)", k->name,
                 p->param, d ? "write" : "read", lo, hi, t.lo[p->param][d], t.hi[p->param][d], L->grid[0], L->grid[1],
                 L->block[0], L->block[1], L->arg[0], L->arg[1]);
    }
  }
}

TEST_IMPL(range_corpus_brute_force) {
  NEED_NVCC();
  char path[512];
  snprintf(path, sizeof path, "%s/ranges.ptx", FT_PTX_CORPUS_BIN);
  size_t len;
  char *text = pt_read_file(path, &len);
  if (!text) FT_FAIL_("cannot read %s (was the corpus built?)", path);
  ft_ptx_module_t *m = pt_parse_or_fail(text, len, path);
  static const unsigned grids[] = {1, 3, 7}, blocks[] = {32, 96, 128};
  static const long long ns[] = {0, 1, 37, 100, 1000, 100000};
  size_t launches = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const kcase_t *k = &cases[c];
    const ft_ptx_function_t *fn = ft_ptx_find_function(m, k->name);
    if (!fn) FT_FAIL_("%s: no kernel %s", path, k->name);
    ft_ptx_facts_t f;
    char err[256];
    ASSERT_EQ(ft_ptx_facts(m, fn, &f, err, sizeof err), 0);
    for (size_t j = 0; j < f.nplaces; j++)
      for (unsigned d = 0; d < 2; d++) {
        const ft_ptx_place_t *p = &f.places[j];
        int want_ub = (k->unbounded & UB(p->param, d)) != 0;
        int accessed = d ? (p->access & FT_PTX_ACC_WRITE) != 0 : (p->access & FT_PTX_ACC_READ) != 0;
        if (!accessed) continue;
        if (want_ub && ft_ptx_range_bounded(d ? &p->write : &p->read))
          FT_FAIL_("%s param %u %s: bounded, must be unbounded", k->name, p->param, d ? "write" : "read");
        if (!want_ub && k->model && !ft_ptx_range_bounded(d ? &p->write : &p->read))
          FT_FAIL_("%s param %u %s: unbounded", k->name, p->param, d ? "write" : "read");
      }
    for (size_t g = 0; k->model && g < 3; g++)
      for (size_t b = 0; b < 3; b++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
          launch_t L = {{grids[g], k->two_d ? 2 : 1, 1}, {blocks[b], k->two_d ? 4 : 1, 1}, {ns[i], 3, 0, 0}};
          if (k->two_d) L.arg[1] = ns[(i + 2) % 6] % 50;   /* h */
          if (k->model == m_strided) L.arg[1] = i % 2 ? 3 : 1 << 26;   /* small, and wrapping */
          check_launch(k, fn, &f, &L);
          launches++;
        }
    ft_ptx_facts_free(&f);
  }
  ASSERT_GT(launches, 100u);
  ft_ptx_module_free(m);
  free(text);
  return TEST_OK;
}

/* The evaluator: parameters as the program reads them, wrap checks, overflow,
 * bounds of the parameter buffer, and the join of two programs. */
TEST_IMPL(range_eval_program) {
  ft_ptx_range_t r;
  memset(&r, 0, sizeof r);
  /* [p0:s32 * 4 - 8, min(ntid.x * nctaid.x, p0) * 4) with p0 checked to fit u16 */
  ft_ptx_rop_t ops[] = {
      {FT_PTX_R_PARAM, 4, 1, 0, 0},  /* 0: p0 (s32 at offset 0) */
      {FT_PTX_R_CONST, 0, 0, 0, 4},  /* 1 */
      {FT_PTX_R_MUL, 0, 1, 0, 0},    /* 2: 4*p0 */
      {FT_PTX_R_CONST, 0, 0, 0, -8}, /* 3 */
      {FT_PTX_R_ADD, 2, 3, 0, 0},    /* 4: lo */
      {FT_PTX_R_NTID, 0, 0, 0, 0},   /* 5 */
      {FT_PTX_R_NCTAID, 0, 0, 0, 0}, /* 6 */
      {FT_PTX_R_MUL, 5, 6, 0, 0},    /* 7 */
      {FT_PTX_R_FIT, 0, 2, 0, 0},    /* 8: p0 in u16 */
      {FT_PTX_R_MIN, 7, 8, 0, 0},    /* 9 */
      {FT_PTX_R_MUL, 9, 1, 0, 0},    /* 10: hi */
  };
  memcpy(r.op, ops, sizeof ops);
  r.n = sizeof ops / sizeof ops[0];
  r.lo = 4;
  r.hi = 10;
  int32_t p0 = 100;
  unsigned grid[3] = {2, 1, 1}, block[3] = {32, 1, 1};
  int64_t lo, hi;
  ASSERT_EQ(ft_ptx_range_eval(&r, &p0, 4, grid, block, &lo, &hi), 0);
  ASSERT_EQ(lo, 0);   /* [392, 256): touches nothing, normalised to empty */
  ASSERT_EQ(hi, 0);
  p0 = 10;
  ASSERT_EQ(ft_ptx_range_eval(&r, &p0, 4, grid, block, &lo, &hi), 0);
  ASSERT_EQ(lo, 32);
  ASSERT_EQ(hi, 40);
  p0 = 70000;   /* does not fit u16: unbounded */
  ASSERT_EQ(ft_ptx_range_eval(&r, &p0, 4, grid, block, &lo, &hi), -1);
  p0 = 10;
  ASSERT_EQ(ft_ptx_range_eval(&r, &p0, 3, grid, block, &lo, &hi), -1);   /* p0 past the buffer */
  unsigned bad[3] = {0, 1, 1};
  ASSERT_EQ(ft_ptx_range_eval(&r, &p0, 4, bad, block, &lo, &hi), -1);
  /* overflow of 64-bit arithmetic */
  ft_ptx_range_t big = {3, 2, 2, 0, {{FT_PTX_R_CONST, 0, 0, 0, INT32_MAX}, {FT_PTX_R_PARAM, 8, 0, 0, 0}, {FT_PTX_R_MUL, 0, 1, 0, 0}}};
  uint64_t huge = 1ull << 40;
  ASSERT_EQ(ft_ptx_range_eval(&big, &huge, 8, grid, block, &lo, &hi), -1);
  /* join: the hull of both; an unbounded one makes it unbounded */
  ft_ptx_range_t a = {2, 0, 1, 0, {{FT_PTX_R_CONST, 0, 0, 0, 0}, {FT_PTX_R_CONST, 0, 0, 0, 16}}};
  ft_ptx_range_t b = {2, 0, 1, 0, {{FT_PTX_R_CONST, 0, 0, 0, -4}, {FT_PTX_R_CONST, 0, 0, 0, 8}}};
  ft_ptx_range_join(&a, &b);
  ASSERT_EQ(ft_ptx_range_eval(&a, NULL, 0, grid, block, &lo, &hi), 0);
  ASSERT_EQ(lo, -4);
  ASSERT_EQ(hi, 16);
  ft_ptx_range_t none;
  memset(&none, 0, sizeof none);
  ft_ptx_range_join(&a, &none);
  ASSERT(!ft_ptx_range_bounded(&a));
  return TEST_OK;
}
