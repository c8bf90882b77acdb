/* async.c: cp.async (global -> shared, 4/8/16 bytes, src-size and ignore-src
 * forms) and its groups (cp.async.commit_group, .wait_group N, .wait_all).
 *
 * A copy may complete at any time before the wait that covers it; the simulator
 * completes it as late as it may: the source is read (and checked) when cp.async
 * runs, the destination is written when the lane's wait_group / wait_all covers
 * its group (both times the UB check's shared-memory race detection sees a store
 * by the lane's warp). A kernel that reads the destination before waiting therefore sees
 * the bytes that were there before (undefined shared memory at first: 0xA5), as
 * a GPU may show it, instead of a result that is right by luck. Copies of a lane
 * that exits without waiting are dropped (no one may read them). */
#include <stdlib.h>
#include <string.h>

#include "interp.h"

typedef struct {
  uint64_t dst;      /* destination address (in space) */
  uint32_t group;    /* the lane's commit count when issued */
  uint8_t space, lane, n, keep;
  uint8_t data[16];  /* the source's first keep bytes, the rest zero */
} copy_t;

struct sim_async_s {
  uint32_t committed[32]; /* commit_group count per lane */
  copy_t *q;              /* pending copies, in issue order */
  size_t n, cap;
};

static struct sim_async_s *state(sim_warp_t *w) {
  if (!w->async) {
    w->async = calloc(1, sizeof *w->async);
    if (!w->async) abort();
  }
  return w->async;
}

void sim_async_release(sim_warp_t *w) {
  if (!w->async) return;
  free(w->async->q);
  free(w->async);
  w->async = NULL;
}

/* a[0] + off: destination (.shared); a[1] + a[2]: source (.global); vec: cp-size;
 * mode 1: a[3] is src-size (bytes read, the rest zero-filled); mode 2: a[3] is
 * ignore-src (a predicate, `!` in aneg bit 3: nothing read, all zero). */
static void cp_async(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  const uint64_t *D = SIM_R(w, in->a[0]), *S = SIM_R(w, in->a[1]), *SO = SIM_R(w, in->a[2]);
  const uint64_t *X = in->mode ? SIM_R(w, in->a[3]) : NULL;
  unsigned n = in->vec;
  struct sim_async_s *st = state(w);
  SIM_FOR_LANES(m, l) {
    unsigned keep = n;
    if (in->mode == 1) keep = (uint32_t)X[l] < n ? (unsigned)(uint32_t)X[l] : n;
    if (in->mode == 2 && (((X[l] & 1) != 0) != ((in->aneg >> 3) & 1))) keep = 0;
    if (in->mode == 1 && (uint32_t)X[l] > n)
      sim_interp_ub(w, 1u << l, "cp.async: src-size %u is larger than cp-size %u", (unsigned)(uint32_t)X[l], n);
    /* checked (and, for the UB check, marked as written) now and again when it lands */
    if (!sim_interp_resolve(w, in->space, l, D[l] + (uint64_t)in->off, n, true)) return;
    copy_t c = {.dst = D[l] + (uint64_t)in->off, .group = st->committed[l], .space = in->space, .lane = (uint8_t)l,
                .n = (uint8_t)n, .keep = (uint8_t)keep};
    if (keep == n) {
      const uint8_t *s = sim_interp_resolve(w, FT_PTX_SP_GLOBAL, l, S[l] + SO[l], n, false);
      if (!s) return;
      memcpy(c.data, s, n);
    } else if (keep) {
      /* src-size shortens the read (a zero-filled tail may end where the
       * allocation ends); the source stays aligned to cp-size */
      uint64_t a = S[l] + SO[l];
      if (a & (n - 1)) {
        w->active = 1u << l;
        sim_interp_fault(w, 716, "misaligned %u-byte cp.async source at 0x%llx", n, (unsigned long long)a);
        return;
      }
      const uint8_t *s = sim_interp_resolve(w, FT_PTX_SP_GLOBAL, l, a, 1, false);
      const uint8_t *e = s ? sim_interp_resolve(w, FT_PTX_SP_GLOBAL, l, a + keep - 1, 1, false) : NULL;
      if (!e) return;
      if (e != s + keep - 1) {
        w->active = 1u << l;
        sim_interp_fault(w, 700, "cp.async source [0x%llx, +%u) spans two allocations", (unsigned long long)a, keep);
        return;
      }
      memcpy(c.data, s, keep);
    }
    if (st->n == st->cap) {
      st->cap = st->cap ? st->cap * 2 : 64;
      st->q = realloc(st->q, st->cap * sizeof *st->q);
      if (!st->q) abort();
    }
    st->q[st->n++] = c;
  }
}

static void commit(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  (void)in;
  struct sim_async_s *st = state(w);
  SIM_FOR_LANES(m, l) st->committed[l]++;
}

/* Completes the copies of the lanes in m whose group is older than the newest
 * `keep_groups` committed ones (all of them: keep_groups 0 after a commit). */
static void complete(sim_warp_t *w, uint32_t m, uint32_t keep_groups) {
  struct sim_async_s *st = w->async;
  if (!st) return;
  size_t out = 0;
  for (size_t i = 0; i < st->n; i++) {
    copy_t *c = &st->q[i];
    uint32_t done = st->committed[c->lane];
    bool due = ((m >> c->lane) & 1) && done >= keep_groups && c->group < done - keep_groups;
    if (due) {
      uint8_t *d = sim_interp_resolve(w, c->space, c->lane, c->dst, c->n, true);
      if (d) memcpy(d, c->data, c->n);
      continue;
    }
    st->q[out++] = *c;
  }
  st->n = out;
}

/* cp.async.wait_group N: a[0] holds N (a constant). */
static void wait_group(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  complete(w, m, (uint32_t)SIM_R(w, in->a[0])[__builtin_ctz(m)]);
}

/* cp.async.wait_all: commit_group then wait_group 0. */
static void wait_all(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  commit(w, in, m);
  complete(w, m, 0);
}

sim_exec_fn sim_choose_async(sim_insn_t *in) {
  switch ((ft_ptx_opcode_t)in->op) {
    case FT_PTX_OP_CP_ASYNC:
      return in->vec == 4 || in->vec == 8 || in->vec == 16 ? cp_async : NULL;
    case FT_PTX_OP_CP_ASYNC_COMMIT: return commit;
    case FT_PTX_OP_CP_ASYNC_WAIT: return in->na == 1 ? wait_group : NULL;
    case FT_PTX_OP_CP_ASYNC_WAIT_ALL: return wait_all;
    default: return NULL;
  }
}
