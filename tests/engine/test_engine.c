/* test_engine.c: the engine's state floor called directly (no hooks, no driver): the
 * interval map of allocations, the order of streams, events and synchronisations and
 * the uses it decides rest by, writes being issued, the map of coded groups, runs. */
#include <stdlib.h>

#include "runner.h"
#include "state.h"

static unsigned long long g_rng = 88172645463325252ull;
static uint64_t rnd(void) { /* xorshift64 */
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return g_rng;
}

static ft_alloc_t *alloc(CUdeviceptr base, size_t size) {
  ft_alloc_t *a = calloc(1, sizeof *a);
  a->base = base, a->size = size, a->state = FT_ST_UNPROT;
  return a;
}

/* Random non-overlapping ranges inserted in random order: every interior byte finds
 * its own, the bytes between find none, neighbours are right, overlaps are refused,
 * and removal keeps the rest findable. */
TEST_IMPL(registry_interval_map) {
  enum { N = 300 };
  ft_alloc_t *v[N];
  CUdeviceptr at = 0x10000;
  for (int i = 0; i < N; i++) {
    at += 1 + rnd() % 4096; /* a gap */
    v[i] = alloc(at, 1 + rnd() % 100000);
    at += v[i]->size;
  }
  for (int i = N - 1; i > 0; i--) { /* shuffled insertion */
    int j = (int)(rnd() % (uint64_t)(i + 1));
    ft_alloc_t *t = v[i];
    v[i] = v[j], v[j] = t;
  }
  ft_lock();
  for (int i = 0; i < N; i++) {
    uint64_t g = ft_reg_generation();
    ASSERT_EQ(ft_reg_insert(v[i]), 0);
    ASSERT(ft_reg_generation() != g);
  }
  ASSERT_EQ(ft_reg_count(), (size_t)N);
  for (size_t i = 1; i < ft_reg_count(); i++) ASSERT(ft_reg_at(i - 1)->base < ft_reg_at(i)->base);
  for (int i = 0; i < N; i++) {
    ft_alloc_t *a = v[i];
    ASSERT(ft_reg_find(a->base) == a);
    ASSERT(ft_reg_find(a->base + a->size - 1) == a);
    ASSERT(ft_reg_find(a->base + rnd() % a->size) == a);
    ASSERT(ft_reg_find_base(a->base) == a);
    ft_alloc_t *next = ft_reg_find(a->base + a->size);
    ASSERT(next == NULL || next->base == a->base + a->size);
    ASSERT(ft_reg_below(a->base + a->size - 1) == a);
    ft_alloc_t *up = ft_reg_above(a->base);
    ASSERT(up == NULL || up->base > a->base);
    /* an allocation overlapping it is refused, at either end */
    ft_alloc_t *o = alloc(a->base + a->size / 2, a->size);
    ASSERT(ft_reg_insert(o) != 0);
    free(o);
  }
  ASSERT(ft_reg_find(0x10000 - 1) == NULL);
  for (int i = 0; i < N; i += 2) ft_reg_remove(v[i]);
  ASSERT_EQ(ft_reg_count(), (size_t)(N / 2));
  for (int i = 0; i < N; i++) {
    ft_alloc_t *hit = ft_reg_find(v[i]->base + v[i]->size / 2);
    ASSERT(i % 2 ? hit == v[i] : hit == NULL);
  }
  for (int i = 1; i < N; i += 2) ft_reg_remove(v[i]);
  ASSERT_EQ(ft_reg_count(), (size_t)0);
  ft_unlock();
  for (int i = 0; i < N; i++) free(v[i]);
  return TEST_OK;
}

/* Two non-blocking streams of no context: a write on A is not ordered before work on
 * B, until B waits for an event recorded after it; the host has seen it done only
 * after a synchronisation covering it returned; a later use on A needs that again. */
TEST_IMPL(order_and_uses) {
  CUstream A = (CUstream)(uintptr_t)0xa000, B = (CUstream)(uintptr_t)0xb000;
  CUevent e = (CUevent)(uintptr_t)0xe000;
  ft_alloc_t *a = alloc(0x1000000, 1 << 20);
  uint64_t vc[FT_ORD_STREAMS];
  ft_lock();
  int ia = ft_ord_op(A);
  ASSERT(ia >= 0);
  ft_rest_use(a, ia, 1);
  int ib = ft_ord_op(B);
  ASSERT(ib >= 0 && ib != ia);
  ASSERT(ft_rest_ordered(a, ia, 1));  /* the same stream: ordered */
  ASSERT(!ft_rest_ordered(a, ib, 1)); /* another stream: not */
  ASSERT(!ft_rest_ordered(a, ib, 0));
  ASSERT(!ft_rest_seen_done(a));
  /* A records e after the write; B waits for e */
  ft_ord_snap_stream(A, vc);
  ft_ord_record_vc(e, vc);
  uint64_t ev[FT_ORD_STREAMS];
  ft_ord_snap_event(e, ev);
  ft_ord_wait_vc(B, ev);
  ASSERT(ft_rest_ordered(a, ft_ord_stream_index(B), 1));
  /* a read on B does not make a write-only question fail */
  ft_rest_use(a, ft_ord_op(B), 0);
  ASSERT(ft_rest_ordered(a, ft_ord_stream_index(A), 1) == 1);
  ASSERT(ft_rest_ordered(a, ft_ord_stream_index(A), 0) == 0);
  /* nor does it stand for the write it came after: a third stream that waited for
   * neither is not after the write (B's read had erased A's write: a check on C
   * then raced the writer) */
  CUstream C = (CUstream)(uintptr_t)0xc800;
  int ic = ft_ord_op(C);
  ASSERT(!ft_rest_ordered(a, ic, 1));
  ASSERT(!ft_rest_writes_seen_done(a));
  /* the host syncs A only: B's read is not seen done */
  ft_ord_snap_stream(A, vc);
  ft_ord_synced(vc, 0);
  ASSERT(!ft_rest_seen_done(a));
  ft_ord_snap_stream(B, vc);
  ft_ord_synced(vc, 0);
  ASSERT(ft_rest_seen_done(a));
  ASSERT(ft_rest_done(a)); /* and forgotten */
  ASSERT_EQ(a->nuses, 0);
  /* a new write on A after the syncs: not seen done until synced again */
  ft_rest_use(a, ft_ord_op(A), 1);
  ASSERT(!ft_rest_seen_done(a));
  ft_ord_snap_stream(A, vc);
  ft_ord_synced(vc, 0);
  ASSERT(ft_rest_done(a));
  /* more streams using it than uses are kept: it is lost until a whole sync */
  for (int k = 0; k <= FT_REST_USERS; k++) {
    CUstream s = (CUstream)(uintptr_t)(0x100000 + k * 16);
    ft_rest_use(a, ft_ord_op(s), 1);
  }
  ASSERT(ft_rest_lost(a));
  ASSERT(!ft_rest_seen_done(a));
  ft_ord_forget_event(e);
  ft_unlock();
  free(a);
  return TEST_OK;
}

/* A write being issued (the engine lock let go before its driver call) keeps its
 * allocation from rest even when a synchronisation covered its tick, until the
 * operation ends; an allocation freed meanwhile is skipped. */
TEST_IMPL(issuing_keeps_from_rest) {
  CUstream S = (CUstream)(uintptr_t)0xc000;
  ft_alloc_t *a = alloc(0x2000000, 4096), *gone = alloc(0x3000000, 4096);
  uint64_t vc[FT_ORD_STREAMS];
  ft_op_begin();
  ft_lock();
  ASSERT_EQ(ft_reg_insert(a), 0);
  ASSERT_EQ(ft_reg_insert(gone), 0);
  a->id = 1, gone->id = 2;
  int i = ft_ord_op(S);
  ft_rest_use(a, i, 1);
  ft_rest_issuing(a, S);
  ft_rest_use(gone, i, 1);
  ft_rest_issuing(gone, S);
  ft_ord_snap_stream(S, vc);
  ft_ord_synced(vc, 0); /* another thread's sync covers the tick */
  ASSERT(!ft_rest_seen_done(a)); /* but the write is not enqueued yet */
  ft_reg_remove(gone);
  ft_unlock();
  ft_op_end(); /* issued: the use is taken again, after the enqueue */
  ft_lock();
  ASSERT_EQ(a->busy, 0);
  ASSERT(!ft_rest_seen_done(a)); /* its new tick is not covered yet */
  ft_ord_snap_stream(S, vc);
  ft_ord_synced(vc, 0);
  ASSERT(ft_rest_seen_done(a));
  ft_reg_remove(a);
  ft_unlock();
  free(a);
  free(gone);
  return TEST_OK;
}

/* A never-written allocation written in part keeps a bit per group: random marks
 * against a plain array, runs of coded and uncoded groups, the byte count, and the
 * map dropped once all is coded. */
TEST_IMPL(coded_groups_map) {
  uint64_t ng = 700;
  ft_alloc_t *a = alloc(0x4000000, ng * FT_GROUP_BYTES - 100);
  a->code = 0x9000000; /* (a code buffer: only its presence matters here) */
  a->state = FT_ST_UNINIT;
  char *want = calloc(ng, 1);
  ft_lock();
  ASSERT_EQ(ft_coded_begin(a), 1);
  ASSERT_EQ(a->state, FT_ST_CLEAN);
  ASSERT_EQ(ft_coded_bytes(a), 0u);
  for (int round = 0; round < 40 && a->cmap; round++) {
    uint64_t g0 = rnd() % ng, g1 = g0 + 1 + rnd() % 40;
    if (g1 > ng) g1 = ng;
    ft_coded_mark(a, g0, g1);
    for (uint64_t g = g0; g < g1; g++) want[g] = 1;
    if (!a->cmap) break;
    uint64_t n = 0;
    for (uint64_t g = 0; g < ng; g++) n += want[g];
    ASSERT_EQ(a->ncoded, n);
    /* coded runs and uncoded runs tile [0, ng) and agree with the array */
    uint64_t seen = 0;
    for (uint64_t c0 = 0, c1; ft_coded_next(a, &c0, &c1, ng); c0 = c1)
      for (uint64_t g = c0; g < c1; g++, seen++) ASSERT(want[g]);
    for (uint64_t u0 = 0, u1; ft_uncoded_next(a, &u0, &u1, ng); u0 = u1)
      for (uint64_t g = u0; g < u1; g++, seen++) ASSERT(!want[g]);
    ASSERT_EQ(seen, ng);
    uint64_t q0 = rnd() % ng, q1 = q0 + rnd() % 10;
    if (q1 > ng) q1 = ng;
    int all = 1;
    for (uint64_t g = q0; g < q1; g++) all &= want[g];
    ASSERT_EQ(ft_coded_all_in(a, q0, q1), all);
  }
  ft_coded_mark(a, 0, ng); /* all of it: the state says it again */
  ASSERT(a->cmap == NULL);
  ASSERT_EQ(ft_coded_bytes(a), (uint64_t)a->size);
  ft_set_state(a, FT_ST_UNPROT);
  ft_unlock();
  free(want);
  free(a);
  return TEST_OK;
}

/* Runs: added ranges merge, overlaps and neighbours join, what is missing is found;
 * more runs than fit merge the two closest, and say which groups joined. */
TEST_IMPL(runs_merge_and_cover) {
  ft_runs_t r = {0};
  uint64_t out[FT_RUNS + 1][2];
  ft_runs_add(&r, 10, 20, NULL, NULL);
  ft_runs_add(&r, 30, 40, NULL, NULL);
  ASSERT(ft_runs_meets(&r, 15, 16));
  ASSERT(!ft_runs_meets(&r, 20, 30));
  ASSERT_EQ(ft_runs_missing(&r, 0, 50, out), 3);
  ASSERT(out[1][0] == 20 && out[1][1] == 30);
  ft_runs_add(&r, 18, 32, NULL, NULL);
  ASSERT_EQ(r.n, 1);
  ASSERT_EQ(ft_runs_missing(&r, 10, 40, out), 0);
  ft_runs_add(&r, 40, 45, NULL, NULL); /* touching: joined */
  ASSERT(r.n == 1 && r.r[0][1] == 45);
  for (uint64_t k = 0; k < FT_RUNS - 1; k++) ft_runs_add(&r, 100 + 10 * k, 105 + 10 * k, NULL, NULL);
  ASSERT_EQ(r.n, FT_RUNS);
  uint64_t m0 = 0, m1 = 0;
  ft_runs_add(&r, 1000, 1001, &m0, &m1); /* one more: the closest two merge */
  ASSERT_EQ(r.n, FT_RUNS);
  ASSERT(m0 < m1 && m1 - m0 == 5);   /* a 5-group gap between two of the added runs */
  ASSERT(ft_runs_meets(&r, m0, m1)); /* the groups between joined the set */
  ft_runs_one(&r, 0, 5);
  ASSERT(ft_runs_all(&r, 5) && !ft_runs_all(&r, 6));
  return TEST_OK;
}
