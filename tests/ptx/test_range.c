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
      ft_ptx_range_t r;
      ft_ptx_place_range(f, p, d, &r);
      long long lo, hi;
      int64_t l64, h64, l2 = 0, h2 = 0;
      /* where the program lies in the pool, and its working copy: one answer */
      int rc = ft_ptx_place_range_eval(f, p, d, params, fn->param_bytes, L->grid, L->block, &l64, &h64);
      int rc2 = ft_ptx_range_eval(&r, params, fn->param_bytes, L->grid, L->block, &l2, &h2);
      if (rc != rc2 || (rc == 0 && (l64 != l2 || h64 != h2)))
        FT_FAIL_("%s param %u %s: stored and loaded programs differ", k->name, p->param, d ? "write" : "read");
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
        ft_ptx_range_t r;
        ft_ptx_place_range(&f, p, d, &r);
        if (want_ub && ft_ptx_range_bounded(&r))
          FT_FAIL_("%s param %u %s: bounded, must be unbounded", k->name, p->param, d ? "write" : "read");
        if (!want_ub && k->model && !ft_ptx_range_bounded(&r))
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

/* Kernel k over (u64 a, u32 n | u64 b): body, in PTX; %rd2 is a's global address,
 * %rd4 = %rd2 + 4 * tid.x. */
static ft_ptx_module_t *join_kernel(const char *params, const char *body) {
  char text[2048];
  snprintf(text, sizeof text,
           ".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k(%s)\n{\n"
           " .reg .b32 %%r<4>;\n .reg .b64 %%rd<6>;\n"
           " ld.param.u64 %%rd1, [k_a];\n cvta.to.global.u64 %%rd2, %%rd1;\n mov.u32 %%r1, %%tid.x;\n"
           " mul.wide.u32 %%rd3, %%r1, 4;\n add.s64 %%rd4, %%rd2, %%rd3;\n%s ret;\n}\n",
           params, body);
  return pt_parse_or_fail(text, strlen(text), "join");
}

#define P_AN ".param .u64 k_a, .param .u32 k_n"
#define P_AB ".param .u64 k_a, .param .u64 k_b"
#define ST_TID " st.global.u32 [%rd4], %r1;\n"                                 /* write [0, 4 ntid) */
#define ST_TID4 " st.global.u32 [%rd4+16], %r1;\n"                             /* write [16, 4 ntid + 16) */
#define LD_TID " ld.global.u32 %r2, [%rd4];\n"                                 /* read [0, 4 ntid) */
#define ST_DATA " ld.global.u32 %r2, [%rd2];\n mul.wide.u32 %rd5, %r2, 4;\n" \
                " add.s64 %rd5, %rd2, %rd5;\n st.global.u32 [%rd5], %r1;\n"  /* read [0, 4), write anywhere */

static void facts_of_kernel(const char *params, const char *body, ft_ptx_facts_t *f) {
  ft_ptx_module_t *m = join_kernel(params, body);
  char err[256];
  ASSERT_EQ(ft_ptx_facts(m, &m->funcs[m->nfuncs - 1], f, err, sizeof err), 0);
  ft_ptx_module_free(m);
}

/* [lo, hi) of place 0 of f in direction d for 3 blocks of 32 threads; -1 unbounded. */
static int place0(const ft_ptx_facts_t *f, unsigned d, int64_t *lo, int64_t *hi) {
  static const unsigned grid[3] = {3, 1, 1}, block[3] = {32, 1, 1};
  unsigned char params[16] = {0};
  ASSERT_GE(f->nplaces, 1u);
  int rc = ft_ptx_place_range_eval(f, &f->places[0], d, params, sizeof params, grid, block, lo, hi);
  /* the program where it lies and its working copy give one answer */
  ft_ptx_range_t r;
  int64_t l2, h2;
  ft_ptx_place_range(f, &f->places[0], d, &r);
  ASSERT_EQ(ft_ptx_range_eval(&r, params, sizeof params, grid, block, &l2, &h2), rc);
  if (rc == 0) {
    ASSERT_EQ(l2, *lo);
    ASSERT_EQ(h2, *hi);
  }
  return rc;
}

/* The join of two kernels with one name (shim/engine/facts.c): ranges of equal
 * places span both, a direction one of them does not take keeps the other's, an
 * unbounded one stays unbounded, and places the two lay out differently lose
 * their ranges; the same program twice takes no more room. Also: the pool keeps
 * programs only for bounded directions. */
TEST_IMPL(range_facts_join) {
  ft_ptx_facts_t a, b;
  int64_t lo, hi;
  /* one program: only the write direction takes room (header, steps; read header) */
  facts_of_kernel(P_AN, ST_TID, &a);
  ASSERT_EQ(a.nplaces, 1u);
  ASSERT_EQ(a.places[0].access, FT_PTX_ACC_WRITE);
  ASSERT_NE(a.places[0].range, 0u);
  ASSERT_EQ(place0(&a, 0, &lo, &hi), 0);   /* read: none */
  ASSERT_EQ(hi, 0);
  ASSERT_EQ(place0(&a, 1, &lo, &hi), 0);
  ASSERT_EQ(lo, 0);
  ASSERT_EQ(hi, 128);
  ASSERT_EQ(a.ranges.cap, a.ranges.n);      /* trimmed */
  /* the same kernel again: the same record */
  uint32_t n0 = a.ranges.n, h0 = a.places[0].range;
  facts_of_kernel(P_AN, ST_TID, &b);
  ft_ptx_facts_join(&a, &b);
  ft_ptx_facts_free(&b);
  ASSERT_EQ(a.ranges.n, n0);
  ASSERT_EQ(a.places[0].range, h0);
  /* another offset: the span of both */
  facts_of_kernel(P_AN, ST_TID4, &b);
  ft_ptx_facts_join(&a, &b);
  ft_ptx_facts_free(&b);
  ASSERT_EQ(a.places[0].access, FT_PTX_ACC_WRITE);
  ASSERT_EQ(place0(&a, 1, &lo, &hi), 0);
  ASSERT_EQ(lo, 0);
  ASSERT_EQ(hi, 144);
  ASSERT_EQ(a.flags & FT_PTX_K_INCOMPLETE, 0u);
  /* a reader: its read range joins the none of the writer */
  facts_of_kernel(P_AN, LD_TID, &b);
  ft_ptx_facts_join(&a, &b);
  ft_ptx_facts_free(&b);
  ASSERT_EQ(a.places[0].access, FT_PTX_ACC_READ_WRITE);
  ASSERT_EQ(place0(&a, 0, &lo, &hi), 0);
  ASSERT_EQ(lo, 0);
  ASSERT_EQ(hi, 128);
  ASSERT_EQ(place0(&a, 1, &lo, &hi), 0);
  ASSERT_EQ(hi, 144);
  /* a writer through an index read from memory: the write is unbounded, the read spans */
  facts_of_kernel(P_AN, ST_DATA, &b);
  ASSERT_EQ(place0(&b, 1, &lo, &hi), -1);
  ft_ptx_facts_join(&a, &b);
  ft_ptx_facts_free(&b);
  ASSERT_EQ(place0(&a, 0, &lo, &hi), 0);
  ASSERT_EQ(lo, 0);
  ASSERT_EQ(hi, 128);
  ASSERT_EQ(place0(&a, 1, &lo, &hi), -1);
  ASSERT_EQ(a.places[0].exact, 1);
  ft_ptx_facts_free(&a);
  /* a place the other lacks (u64 b at 8 where the first has u32 n): INCOMPLETE as
   * before, and no range survives, either way round */
  for (int order = 0; order < 2; order++) {
    facts_of_kernel(order ? P_AB : P_AN, ST_TID, &a);
    facts_of_kernel(order ? P_AN : P_AB, ST_TID, &b);
    ASSERT_EQ(place0(&a, 1, &lo, &hi), 0);
    ft_ptx_facts_join(&a, &b);
    ft_ptx_facts_free(&b);
    ASSERT_EQ(place0(&a, 1, &lo, &hi), -1);
    ASSERT_EQ((a.flags & FT_PTX_K_INCOMPLETE) != 0, order == 0);
    ft_ptx_facts_free(&a);
  }
  /* conservative facts (SASS only) hold no program */
  uint32_t off[2] = {0, 8}, size[2] = {8, 4};
  ASSERT_EQ(ft_ptx_facts_conservative(off, size, 2, &a), 0);
  ASSERT_EQ(a.ranges.n, 0u);
  ASSERT_EQ(place0(&a, 0, &lo, &hi), -1);
  ASSERT_EQ(place0(&a, 1, &lo, &hi), -1);
  ft_ptx_facts_free(&a);
  return TEST_OK;
}

/* The pool: records hold only the steps of bounded directions; a handle that is
 * not a record, or a direction without a program, evaluates to unbounded. */
TEST_IMPL(range_pool_records) {
  ft_ptx_range_pool_t pool = {NULL, 0, 0};
  ft_ptx_range_t c = {2, 0, 1, 0, {{FT_PTX_R_CONST, 0, 0, 0, -4}, {FT_PTX_R_CONST, 0, 0, 0, 8}}}, ub, back;
  memset(&ub, 0, sizeof ub);
  ASSERT_EQ(ft_ptx_range_store(&pool, &ub, NULL), 0u);   /* nothing bounded: no record */
  ASSERT_EQ(pool.n, 0u);
  uint32_t h = ft_ptx_range_store(&pool, NULL, &c);
  ASSERT_EQ(h, 1u);
  ASSERT_EQ(pool.n, 4u);   /* two headers, two steps */
  uint32_t h2 = ft_ptx_range_store(&pool, &c, &c);
  ASSERT_EQ(h2, 5u);
  ASSERT_EQ(pool.n, 10u);
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  int64_t lo, hi;
  ASSERT_EQ(ft_ptx_range_eval_at(&pool, h, 0, NULL, 0, grid, block, &lo, &hi), -1);
  ASSERT_EQ(ft_ptx_range_eval_at(&pool, h, 1, NULL, 0, grid, block, &lo, &hi), 0);
  ASSERT_EQ(lo, -4);
  ASSERT_EQ(hi, 8);
  ASSERT_EQ(ft_ptx_range_eval_at(&pool, h2, 0, NULL, 0, grid, block, &lo, &hi), 0);
  ft_ptx_range_load(&pool, h2, 1, &back);
  ASSERT_EQ(memcmp(&back, &c, sizeof c), 0);
  /* not a record: a step, past the end, no handle, no direction 2 */
  ASSERT_EQ(ft_ptx_range_eval_at(&pool, 3, 0, NULL, 0, grid, block, &lo, &hi), -1);
  ASSERT_EQ(ft_ptx_range_eval_at(&pool, 11, 0, NULL, 0, grid, block, &lo, &hi), -1);
  ASSERT_EQ(ft_ptx_range_eval_at(&pool, 0, 0, NULL, 0, grid, block, &lo, &hi), -1);
  ASSERT_EQ(ft_ptx_range_eval_at(&pool, h2, 2, NULL, 0, grid, block, &lo, &hi), -1);
  ft_ptx_range_load(&pool, 3, 0, &back);
  ASSERT(!ft_ptx_range_bounded(&back));
  ft_ptx_range_pool_trim(&pool);
  ASSERT_EQ(pool.cap, 10u);
  ft_ptx_range_pool_free(&pool);
  return TEST_OK;
}
