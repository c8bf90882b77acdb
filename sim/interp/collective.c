/* collective.c: warp-collective instructions over the lanes executing them:
 * shfl.sync (up/down/bfly/idx with the c operand's clamp and segment mask, and the
 * d|p predicate destination), vote.sync (all/any/uni/ballot), activemask,
 * match.sync (any/all), redux.sync, bar.warp.sync; their member masks checked
 * (sync_lanes). */
#include <stdio.h>
#include <string.h>

#include "interp.h"

/* A .sync collective executed by lanes m: checks the member masks MM (per lane;
 * NULL for the pre-6.0 forms: the executing lanes). A mask naming a live lane that
 * diverged fails the launch: a GPU would wait for that lane (perhaps at another
 * instruction) and the simulator, which runs the lowest PC first, cannot. Lanes
 * may name different groups (tiled_partition<16>: two half-warps, each with its
 * own mask, at one instruction): each waits for the lanes of its own mask, which
 * must name that same mask (PTX ISA, match.sync: "with the same qualifiers and same
 * membermask value"). With the UB check, reports a lane outside its own mask, a
 * lane whose mask names a lane with another mask, and mask lanes predicated off.
 * *mask: the union of the executing lanes' masks; false: launch failed. */
static bool sync_lanes(sim_warp_t *w, uint32_t m, const uint64_t *MM, const char *op, uint32_t *mask) {
  *mask = m;
  if (!MM) return true;
  uint32_t live = w->nlanes_mask & ~w->exited, all = 0;
  uint32_t behind = 0, notself = 0, differ = 0, off = 0;
  bool check = w->blk->g->check_ub;
  SIM_FOR_LANES(m, l) {
    uint32_t mm = (uint32_t)MM[l];
    all |= mm;
    for (uint32_t o = check ? mm & m : 0; o; o &= o - 1)
      if ((uint32_t)MM[__builtin_ctz(o)] != mm) {
        differ |= 1u << l;
        break;
      }
    if (!(mm >> l & 1)) notself |= 1u << l;
    behind |= mm & live & ~w->active;
    off |= mm & w->active & ~m;
  }
  if (behind) {
    char what[96];
    snprintf(what, sizeof what, "%s: the member mask names lanes 0x%08x that diverged", op, behind);
    sim_interp_cannot(w, m, what);
    return false;
  }
  if (w->blk->g->check_ub) {
    if (w->call_diverged) sim_interp_ub(w, m, "%s: %s", op, SIM_UB_AFTER_RECURSION("warp collective"));
    if (notself) sim_interp_ub(w, notself, "%s executed by lanes outside their own member mask", op);
    if (differ) sim_interp_ub(w, differ, "%s: these lanes' member masks name lanes with another member mask", op);
    if (off) sim_interp_ub(w, off, "%s: lanes of the member mask predicated off (every non-exited lane of the mask must execute it)", op);
  }
  *mask = all;
  return true;
}

/* The lanes lane l's collective reduces over: those of its own member mask that
 * execute it (the executing lanes for the pre-6.0 forms). */
static inline uint32_t group_of(const uint64_t *MM, uint32_t m, uint32_t l) {
  return MM ? (uint32_t)MM[l] & m : m;
}

/* shfl.sync. A source lane that does not execute the instruction (outside the
 * member mask, predicated off, exited, or absent from a partial warp) has no value
 * in PTX ("unpredictable"); GPUs return 0 for it, which the reduction pattern of
 * NVIDIA's samples (a warp reduce under a ballot mask of fewer lanes) relies on,
 * so the simulator gives 0 and the UB check reports the read. A source lane that
 * executes it gives its value. */
static void shfl(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]), *P = SIM_R(w, in->d[1]);
  const uint64_t *A = SIM_R(w, in->a[0]), *B = SIM_R(w, in->a[1]), *C = SIM_R(w, in->a[2]);
  const uint64_t *MM = in->na > 3 ? SIM_R(w, in->a[3]) : NULL;
  uint32_t mm;
  if (!sync_lanes(w, m, MM, "shfl.sync", &mm)) return;
  (void)mm; /* each reading lane's own mask decides what it may read */
  uint64_t src[32];
  memcpy(src, A, sizeof src); /* every lane reads the values before any is written */
  uint32_t undef = 0, outside = 0;
  SIM_LANES(m, l, {
    uint32_t b = (uint32_t)B[l] & 31, c = (uint32_t)C[l];
    uint32_t seg = (c >> 8) & 31, cv = c & 31;
    int max_lane = (int)((l & seg) | (cv & ~seg)), min_lane = (int)(l & seg);
    int j;
    bool p;
    switch (in->mode) {
      case FT_PTX_SHFL_UP: j = (int)l - (int)b; p = j >= max_lane; break;
      case FT_PTX_SHFL_DOWN: j = (int)l + (int)b; p = j <= max_lane; break;
      case FT_PTX_SHFL_BFLY: j = (int)(l ^ b); p = j <= max_lane; break;
      default: j = min_lane | (int)(b & ~seg); p = j <= max_lane; break;
    }
    if (!p) j = (int)l;
    j &= 31;
    if (m >> j & 1) {
      D[l] = (uint32_t)src[j];
      if (MM && !((uint32_t)MM[l] >> j & 1)) outside |= 1u << l;
    } else {
      D[l] = 0;
      undef |= 1u << l;
    }
    P[l] = p;
  });
  if (w->blk->g->check_ub) {
    if (undef)
      sim_interp_ub(w, undef, "shfl.sync reads lanes that do not execute it (outside the member mask, inactive or exited): "
                    "undefined in PTX; the simulator gives 0, what GPUs were reported to return");
    if (outside) sim_interp_ub(w, outside, "shfl.sync reads lanes outside the reading lane's member mask");
  }
}

static void vote(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  const uint64_t *MM = in->na > 1 ? SIM_R(w, in->a[1]) : NULL;
  bool neg = in->aneg & 1;
  uint32_t lanes;
  if (!sync_lanes(w, m, MM, "vote.sync", &lanes)) return;
  uint32_t set = 0; /* the executing lanes whose predicate holds */
  SIM_FOR_LANES(m, l) if (((A[l] & 1) != 0) != neg) set |= 1u << l;
  SIM_LANES(m, l, {
    uint32_t g = group_of(MM, m, l), ballot = set & g;
    uint64_t r;
    switch (in->mode) {
      case FT_PTX_VOTE_ALL: r = ballot == g; break;
      case FT_PTX_VOTE_ANY: r = ballot != 0; break;
      case FT_PTX_VOTE_UNI: r = ballot == 0 || ballot == g; break;
      default: r = ballot; break;
    }
    D[l] = r;
  });
}

static void activemask(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  uint32_t a = w->active;
  SIM_LANES(m, l, D[l] = a);
}

static void match(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  uint64_t *P = in->nd > 1 ? SIM_R(w, in->d[1]) : NULL;
  const uint64_t *A = SIM_R(w, in->a[0]), *MM = SIM_R(w, in->a[1]);
  uint64_t mask = ft_ptx_type_size(in->type) == 8 ? ~0ull : 0xffffffffull;
  uint64_t v[32];
  memcpy(v, A, sizeof v);
  uint32_t all;
  if (!sync_lanes(w, m, MM, "match.sync", &all)) return;
  SIM_LANES(m, l, {
    uint32_t same = 0, lanes = group_of(MM, m, l);
    SIM_FOR_LANES(lanes, k) if ((v[k] & mask) == (v[l] & mask)) same |= 1u << k;
    if (in->mode == FT_PTX_MATCH_ALL) {
      bool all = same == lanes;
      D[l] = all ? lanes : 0;
      if (P) P[l] = all;
    } else {
      D[l] = same;
    }
  });
}

static void redux(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  const uint64_t *A = SIM_R(w, in->a[0]);
  const uint64_t *MM = in->na > 1 ? SIM_R(w, in->a[1]) : NULL;
  uint32_t all;
  if (!sync_lanes(w, m, MM, "redux.sync", &all)) return;
  bool sgn = sim_type_signed(in->type);
  uint32_t done_group = 0, done_acc = 0; /* (most lanes share one group: reduced once) */
  bool have = false;
  SIM_FOR_LANES(m, l) { /* (not SIM_LANES: the cached group is carried from lane to lane) */
    uint32_t lanes = group_of(MM, m, l);
    if (!have || lanes != done_group) {
      uint32_t acc = in->mode == FT_PTX_ATOM_AND ? ~0u : 0;
      bool first = true;
      SIM_FOR_LANES(lanes, k) {
        uint32_t x = (uint32_t)A[k];
        switch (in->mode) {
          case FT_PTX_ATOM_ADD: acc += x; break;
          case FT_PTX_ATOM_AND: acc &= x; break;
          case FT_PTX_ATOM_OR: acc |= x; break;
          case FT_PTX_ATOM_XOR: acc ^= x; break;
          case FT_PTX_ATOM_MIN:
            if (first || (sgn ? (int32_t)x < (int32_t)acc : x < acc)) acc = x;
            break;
          case FT_PTX_ATOM_MAX:
            if (first || (sgn ? (int32_t)x > (int32_t)acc : x > acc)) acc = x;
            break;
        }
        first = false;
      }
      done_group = lanes, done_acc = acc, have = true;
    }
    D[l] = done_acc;
  }
}

/* bar.warp.sync (__syncwarp): the lanes executing it run in lockstep already. A
 * mask naming lanes that diverged is refused like the collectives': on a GPU they
 * may meet at another __syncwarp and exchange data through memory, while the
 * simulator would run these lanes on before the others wrote. It does not undo a
 * divergence through recursion (sync_lanes reports it): ptxas drops it there. */
static void warp_sync(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint32_t mm;
  (void)sync_lanes(w, m, in->na > 0 ? SIM_R(w, in->a[0]) : NULL, "bar.warp.sync", &mm);
}

sim_exec_fn sim_choose_collective(sim_insn_t *in) {
  switch ((ft_ptx_opcode_t)in->op) {
    case FT_PTX_OP_SHFL: return ft_ptx_type_size(in->type) == 4 ? shfl : NULL;
    case FT_PTX_OP_VOTE: return vote;
    case FT_PTX_OP_ACTIVEMASK: return activemask;
    case FT_PTX_OP_MATCH: return match;
    case FT_PTX_OP_REDUX: return ft_ptx_type_size(in->type) == 4 ? redux : NULL;
    case FT_PTX_OP_BAR: case FT_PTX_OP_BARRIER:
      return in->mode == FT_PTX_BAR_WARP_SYNC ? warp_sync : NULL;
    default: return NULL;
  }
}
