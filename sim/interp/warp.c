/* warp.c: runs one thread block: its warps in lockstep (32 lanes, an active mask),
 * divergence and reconvergence by minimum PC, exact bar.sync/bar.red over the
 * block's warps, faults that stop the launch. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"

#ifdef SIM_HAVE_AVX2
#include <immintrin.h>
#endif

#define SIM_CUDA_ERROR_ILLEGAL_INSTRUCTION 715

void sim_interp_fault(sim_warp_t *w, int cuerr, const char *fmt, ...) {
  sim_block_t *b = w->blk;
  sim_grid_t *g = b->g;
  b->faulted = true;
  uint64_t me = b->index + 1;
  int free_ = 0;
  while (!atomic_compare_exchange_weak(&g->fault_lock, &free_, 1)) free_ = 0; /* faults are rare: spin */
  uint64_t cur = atomic_load_explicit(&g->fault_block, memory_order_relaxed);
  if (!cur || me < cur) {
    va_list ap;
    va_start(ap, fmt);
    char what[160];
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    unsigned lane = w->active ? (unsigned)__builtin_ctz(w->active) : 0;
    unsigned t = w->id * 32 + lane;
    unsigned bx = g->block[0], by = g->block[1];
    snprintf(g->msg, sizeof g->msg, "kernel %s, block (%u,%u,%u), thread (%u,%u,%u), pc %u: %s", g->prog->name,
             b->ctaid[0], b->ctaid[1], b->ctaid[2], t % bx, t / bx % by, t / (bx * by), w->pc, what);
    atomic_store(&g->error, cuerr);
    atomic_store_explicit(&g->fault_block, me, memory_order_relaxed);
  }
  atomic_store(&g->fault_lock, 0);
}

/* Block `index` need not run (on): a lower-numbered block faulted. */
static inline bool outranked(sim_grid_t *g, uint64_t index) {
  uint64_t f = atomic_load_explicit(&g->fault_block, memory_order_relaxed);
  return f && index + 1 > f;
}

#define SIM_CUDA_ERROR_NOT_SUPPORTED 801
#define SIM_CUDA_ERROR_LAUNCH_FAILED 719
#define SIM_CUDA_ERROR_ILLEGAL_ADDRESS 700

void sim_interp_ub(sim_warp_t *w, uint32_t lanes, const char *fmt, ...) {
  sim_block_t *b = w->blk;
  sim_grid_t *g = b->g;
  char what[400], msg[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const sim_insn_t *in = w->pc < g->prog->n_code ? &g->prog->code[w->pc] : NULL;
  snprintf(msg, sizeof msg, "undefined behaviour: kernel %s, block (%u,%u,%u), pc %u (PTX line %u), warp %u, lanes 0x%08x: %s",
           g->prog->name, b->ctaid[0], b->ctaid[1], b->ctaid[2], w->pc, in ? in->line : 0, w->id, lanes, what);
  atomic_fetch_add_explicit(&g->ub_reports, 1, memory_order_relaxed);
  if (g->ub_report) g->ub_report(g->ub_ctx, msg);
  else fprintf(stderr, "%s\n", msg);
  if (g->check_ub >= 2) sim_interp_fault(w, SIM_CUDA_ERROR_LAUNCH_FAILED, "%s", what);
}

void sim_interp_cannot(sim_warp_t *w, uint32_t lanes, const char *what) {
  const sim_insn_t *in = &w->blk->g->prog->code[w->pc];
  sim_interp_fault(w, SIM_CUDA_ERROR_NOT_SUPPORTED, "PTX line %u: %s (lanes 0x%08x); the simulator cannot run this kernel",
                   in->line, what, lanes);
}

/* The lanes at the lowest PC become the active set (min-PC reconvergence: for
 * the structured, in-order code nvcc emits, every lane that branched ahead waits
 * at the join point until the others arrive). */
static void reschedule(sim_warp_t *w) {
  uint32_t live = w->nlanes_mask & ~w->exited;
  /* Inside real calls the deepest lanes run first: they return to the call's
   * next instruction, where the lanes that did not call wait for them. */
  uint32_t cand = live;
  if (w->in_call) {
    uint32_t maxd = 0;
    SIM_FOR_LANES(live, l) if (w->depth[l] > maxd) maxd = w->depth[l];
    cand = 0;
    SIM_FOR_LANES(live, l) if (w->depth[l] == maxd) cand |= 1u << l;
    if (!maxd) w->in_call = false;
  }
  uint32_t min = UINT32_MAX;
  SIM_FOR_LANES(cand, l) if (w->lpc[l] < min) min = w->lpc[l];
  uint32_t act = 0, wmin = UINT32_MAX;
  SIM_FOR_LANES(cand, l) {
    if (w->lpc[l] == min) act |= 1u << l;
    else if (w->lpc[l] < wmin) wmin = w->lpc[l];
  }
  w->pc = min;
  w->active = act;
  w->waiting = live & ~act;
  w->wait_min = wmin;
  if (!live) w->done = true;
}

static void set_pc(sim_warp_t *w, uint32_t lanes, uint32_t pc) {
  SIM_FOR_LANES(lanes, l) w->lpc[l] = pc;
}

static inline void advance(sim_warp_t *w) {
  w->pc++;
  if (w->waiting && w->wait_min <= w->pc) {
    set_pc(w, w->active, w->pc);
    reschedule(w);
  }
}

static void branch(sim_warp_t *w, uint32_t taken, uint32_t target) {
  if (!taken && !w->waiting && !w->in_call) { /* taken by none, every live lane here: what follows */
    w->pc++;
    return;
  }
  uint32_t not_taken = w->active & ~taken;
  if (!not_taken) {
    w->pc = target;
    if (w->waiting && w->wait_min <= target) {
      set_pc(w, w->active, target);
      reschedule(w);
    }
    return;
  }
  set_pc(w, taken, target);
  set_pc(w, not_taken, w->pc + 1);
  reschedule(w);
}

#ifdef SIM_HAVE_AVX2
/* The low bits of 32 lanes' slots, 4 lanes an instruction (programs lowered for
 * AVX2 hosts only). */
__attribute__((target("avx2"))) static uint32_t low_bits_avx2(const uint64_t *p) {
  uint32_t m = 0;
  for (unsigned k = 0; k < 8; k++) {
    __m256i v = _mm256_slli_epi64(_mm256_loadu_si256((const __m256i *)(p + 4 * k)), 63);
    m |= (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(v)) << (4 * k);
  }
  return m;
}
#endif

static inline uint32_t guard_mask(const sim_warp_t *w, const sim_insn_t *in, bool wide) {
  if (in->guard < 0) return w->active;
  const uint64_t *p = SIM_R(w, in->guard);
  uint32_t m = 0;
#ifdef SIM_HAVE_AVX2
  if (wide) return (low_bits_avx2(p) ^ (in->guard_neg ? ~0u : 0u)) & w->active;
#else
  (void)wide;
#endif
  uint32_t flip = in->guard_neg ? 1 : 0;
  for (uint32_t l = 0; l < 32; l++) m |= (uint32_t)((p[l] ^ flip) & 1) << l; /* branch-free, all lanes */
  return m & w->active;
}

/* ---- real calls (recursion) ---- */
#define SIM_STACK_MAX ((size_t)256 << 10) /* per thread: deeper recursion is a stack overflow */

typedef struct {
  uint32_t ret_pc, call;
  uint64_t size;    /* of the whole frame, this trailer included */
  uint64_t charged; /* against the device stack's limit */
  uint32_t entry;   /* the lanes that made this call together */
} sim_frame_tail_t;

/* What a call costs of the device stack: ptxas gives a non-leaf function a frame of
 * at least 16 bytes (the return address and the registers it saves) plus its local
 * memory, 8-byte aligned (ptxas -v: 16 bytes for is_even, 24 for fib, 48-56 for a
 * tree walk with a pointer argument). The registers ptxas saves are not in the PTX,
 * so this is a lower bound: a program the simulator stops overflows on a GPU, one
 * within a few frames of the limit may pass here and fail there. */
static size_t frame_charge(size_t nloc, size_t nploc) { return 16 + ((nloc + nploc + 7) & ~(size_t)7); }

static uint8_t *lane_local(sim_warp_t *w, uint32_t l) {
  return w->blk->local + (size_t)(w->id * 32 + l) * w->blk->g->prog->local_bytes;
}

/* The call at w->pc for lanes m: each saves the body's registers and local
 * memory (the activation a recursive caller is using), copies the arguments in
 * and goes to the body; the other lanes go on after the call. */
static void call_enter(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  w->stacks = true; /* (before anything can fault: the block's end clears them) */
  const sim_kprog_t *p = w->blk->g->prog;
  const sim_callsite_t *cs = &p->calls[in->target];
  const sim_body_t *bd = &p->bodies[cs->body];
  size_t nreg = bd->reg_hi - bd->reg_lo, nloc = bd->loc_hi - bd->loc_lo, nploc = bd->ploc_hi - bd->ploc_lo;
  size_t size = nreg * 8 + nloc + nploc + sizeof(sim_frame_tail_t), charge = frame_charge(nloc, nploc);
  size_t limit = w->blk->g->stack_limit;
  /* Lanes that made the call they are in together, some making this one and some
   * not: the warp diverges inside a recursion, where a GPU reuses one convergence
   * point at every depth and does not reconverge it (SIM_UB_AFTER_RECURSION). A
   * call by some lanes of a kernel's own code (depth 0), or by every lane that is
   * in the recursion, reconverges as any branch does. */
  SIM_FOR_LANES(m, l) {
    if (!w->depth[l]) continue;
    sim_frame_tail_t t;
    memcpy(&t, w->stk[l] + w->stk_n[l] - sizeof t, sizeof t);
    if (t.entry & ~w->exited & ~m) {
      w->call_diverged = true;
      break;
    }
  }
  SIM_FOR_LANES(m, l) {
    if (limit && w->stk_charged[l] + charge > limit) {
      /* a GPU's thread runs off its stack into memory it may not touch: an H100
       * reports an illegal address (cudaErrorIllegalAddress) */
      w->active = 1u << l;
      sim_interp_fault(w, SIM_CUDA_ERROR_ILLEGAL_ADDRESS,
                       "call stack overflow: %u calls deep, %zu of the %zu-byte stack (cudaLimitStackSize) in use",
                       w->depth[l], w->stk_charged[l], limit);
      return;
    }
    if (w->stk_n[l] + size > SIM_STACK_MAX) {
      w->active = 1u << l;
      sim_interp_fault(w, SIM_CUDA_ERROR_LAUNCH_FAILED, "call stack overflow (%u calls deep, %zu bytes)", w->depth[l],
                       w->stk_n[l]);
      return;
    }
    if (w->stk_n[l] + size > w->stk_cap[l]) {
      size_t cap = w->stk_cap[l] ? w->stk_cap[l] * 2 : 4096;
      while (cap < w->stk_n[l] + size) cap *= 2;
      uint8_t *s = realloc(w->stk[l], cap);
      if (!s) abort();
      w->stk[l] = s, w->stk_cap[l] = cap;
    }
    uint8_t *f = w->stk[l] + w->stk_n[l], *loc = lane_local(w, l);
    for (size_t r = 0; r < nreg; r++) memcpy(f + r * 8, &w->r[(bd->reg_lo + r) * 32 + l], 8);
    memcpy(f + nreg * 8, loc + bd->loc_lo, nloc);
    memcpy(f + nreg * 8 + nloc, loc + bd->ploc_lo, nploc);
    sim_frame_tail_t t = {w->pc + 1, in->target, size, charge, m};
    memcpy(f + size - sizeof t, &t, sizeof t);
    w->stk_n[l] += size;
    w->stk_charged[l] += charge;
    w->depth[l]++;
    for (uint32_t k = 0; k < cs->n_args; k++) memmove(loc + cs->args[k].to, loc + cs->args[k].from, cs->args[k].size);
  }
  w->in_call = true;
  set_pc(w, m, bd->entry);
  set_pc(w, w->active & ~m, w->pc + 1);
  reschedule(w);
}

/* ret of an out-of-line body for lanes m: the results out, the caller's
 * activation back, to the instruction after each lane's call. */
static void call_return(sim_warp_t *w, uint32_t m) {
  const sim_kprog_t *p = w->blk->g->prog;
  set_pc(w, w->active & ~m, w->pc + 1);
  SIM_FOR_LANES(m, l) {
    sim_frame_tail_t t;
    memcpy(&t, w->stk[l] + w->stk_n[l] - sizeof t, sizeof t);
    const sim_callsite_t *cs = &p->calls[t.call];
    const sim_body_t *bd = &p->bodies[cs->body];
    size_t nreg = bd->reg_hi - bd->reg_lo, nloc = bd->loc_hi - bd->loc_lo, nploc = bd->ploc_hi - bd->ploc_lo;
    uint8_t *loc = lane_local(w, l), res[256];
    size_t o = 0;
    for (uint32_t k = 0; k < cs->n_rets && o + cs->rets[k].size <= sizeof res; k++) {
      memcpy(res + o, loc + cs->rets[k].from, cs->rets[k].size);
      o += cs->rets[k].size;
    }
    uint8_t *f = w->stk[l] + w->stk_n[l] - t.size;
    for (size_t r = 0; r < nreg; r++) memcpy(&w->r[(bd->reg_lo + r) * 32 + l], f + r * 8, 8);
    memcpy(loc + bd->loc_lo, f + nreg * 8, nloc);
    memcpy(loc + bd->ploc_lo, f + nreg * 8 + nloc, nploc);
    w->stk_n[l] -= t.size;
    w->stk_charged[l] -= t.charged;
    w->depth[l]--;
    o = 0;
    for (uint32_t k = 0; k < cs->n_rets && o + cs->rets[k].size <= sizeof res; k++) {
      memcpy(loc + cs->rets[k].to, res + o, cs->rets[k].size);
      o += cs->rets[k].size;
    }
    w->lpc[l] = t.ret_pc;
  }
  reschedule(w);
}

/* bar.sync/bar.red arrival: the result of bar.red is written at release. */
static void barrier_arrive(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  sim_block_t *b = w->blk;
  if (in->mode >= FT_PTX_BAR_RED_POPC) { /* bar.red: the predicate is the last source */
    const uint64_t *p = SIM_R(w, in->a[in->na - 1]);
    SIM_FOR_LANES(m, l) {
      uint32_t v = (uint32_t)((p[l] & 1) ^ ((in->aneg >> (in->na - 1)) & 1));
      b->red_and &= v ? 1u : 0u;
      b->red_or |= v;
      b->red_popc += v;
    }
  }
  w->at_bar = true;
}

static void barrier_release(sim_block_t *b) {
  b->epoch++;
  b->synced = false;
  for (unsigned i = 0; i < b->n_warps; i++) {
    sim_warp_t *w = &b->warps[i];
    if (!w->at_bar) continue;
    w->at_bar = false;
    /* Lanes that have not exited but did not arrive (diverged or predicated off):
     * a GPU counts threads, so it would wait for them (or hang). Exited lanes count
     * as arrived, as on GPUs since Volta. */
    uint32_t missing = w->nlanes_mask & ~w->exited & ~w->bar_mask;
    if (missing && b->g->check_ub) {
      uint32_t pc = w->pc;
      w->pc--; /* report the barrier itself */
      sim_interp_ub(w, missing, "barrier reached by part of the block: these lanes of warp %u have not exited and did not arrive", w->id);
      w->pc = pc;
    }
    /* The instruction is the one just before the resumed PC. */
    const sim_insn_t *in = &b->g->prog->code[w->pc - 1];
    if (in->kind == SIM_K_BAR && in->mode >= FT_PTX_BAR_RED_POPC) {
      uint64_t v = in->mode == FT_PTX_BAR_RED_POPC ? b->red_popc : in->mode == FT_PTX_BAR_RED_AND ? b->red_and
                                                                                              : b->red_or;
      uint64_t *d = SIM_R(w, in->d[0]);
      SIM_FOR_LANES(w->bar_mask, l) d[l] = v;
    }
  }
  b->red_and = 1;
  b->red_or = 0;
  b->red_popc = 0;
}

/* UB check: lanes of the instruction just run raced with another warp on shared memory. */
static void report_race(sim_warp_t *w) {
  char who[32] = "several warps";
  if (w->race_other != UINT32_MAX) snprintf(who, sizeof who, "warp %u", w->race_other);
  sim_interp_ub(w, w->race_lanes, "data race on shared memory: this %s and an access by %s (one of them a store) with no barrier between them",
                w->race_store ? "store" : "load", who);
  w->race_lanes = 0;
}

/* A translated run's instruction that is not fused (jit.c): as the loop below runs
 * an instruction of SIM_K_EXEC; nonzero when the warp must stop (a fault). */
static int jit_step(sim_warp_t *w, uint32_t pc) {
  const sim_kprog_t *p = w->blk->g->prog;
  const sim_insn_t *in = &p->code[pc];
  w->pc = pc;
  uint32_t m = guard_mask(w, in, p->wide);
  if (m) in->exec(w, in, m);
  if (w->race_lanes) report_race(w);
  return w->blk->faulted;
}

/* What every warp of a block runs with, found once per block. */
typedef struct {
  const sim_insn_t *code;
  bool wide;
  const sim_jit_t *jit; /* the kernel's translated runs (NULL: none) */
  uint8_t *sh;          /* shared memory, and its size for translated code (0 under race tracking) */
  uint64_t sh_bytes;
  const uint8_t *par;   /* the kernel's arguments */
  uint64_t par_bytes;
} blkctx_t;

/* Runs a warp until it waits at a barrier, ends, or the launch faults. */
#define SIM_SLICE ((uint64_t)1 << 22)
static void run_warp(sim_warp_t *w, const blkctx_t *cx) {
  sim_block_t *b = w->blk;
  const sim_insn_t *code = cx->code;
  const sim_jit_t *jit = cx->jit;
  bool wide = cx->wide;
  uint64_t n = 0;
  while (!w->done && !b->faulted) {
    sim_run_fn run;
    uint32_t start = w->pc, k;
    if (jit && (run = jit->at[start]) &&
        (k = run(w->r, w->active, w, jit_step, cx->sh, cx->sh_bytes, cx->par, cx->par_bytes))) {
      /* a translated run (a whole warp's): its instructions at once */
      n += 32u * (uint64_t)k;
      w->pc = start + k - 1;
      advance(w);
      continue;
    }
    const sim_insn_t *in = &code[w->pc];
    uint32_t m = guard_mask(w, in, wide);
    /* (without -mpopcnt, __builtin_popcount is a libgcc call: skip it for full warps) */
    n += w->active == 0xffffffffu ? 32u : (uint64_t)__builtin_popcount(w->active);
    if (in->kind == SIM_K_EXEC) { /* most instructions: before the switch's table */
      if (m) in->exec(w, in, m);
      if (w->race_lanes) report_race(w);
      advance(w);
      continue;
    }
    switch ((sim_kind_op_t)in->kind) {
      case SIM_K_EXEC:
        if (m) in->exec(w, in, m);
        if (w->race_lanes) report_race(w);
        advance(w);
        break;
      case SIM_K_BRA:
        branch(w, m, in->target);
        /* A warp gives way to the block's others after a nanosleep or a long run
         * without a barrier (SIM_SLICE thread-instructions): a warp spinning on what
         * another warp of its block will write (a flag, an arrival count) would
         * otherwise spin forever, where a GPU runs the warps side by side. */
        if (__builtin_expect(w->yield, 0) || n >= SIM_SLICE) {
          w->yield = false;
          w->n_insns += n;
          return;
        }
        break;
      case SIM_K_EXIT:
        w->exited |= m;
        w->active &= ~m;
        if (w->active) {
          advance(w);
        } else {
          set_pc(w, 0, 0);
          reschedule(w);
        }
        break;
      case SIM_K_BAR:
        /* After lanes diverged through a recursive call, ptxas takes the warp as
         * reconverged when the call returns, and the hardware does not reconverge it:
         * on an H200 the block went through bar.sync, barrier.sync (compiled to the
         * same BAR.SYNC.DEFER_BLOCKING) and three barriers in a row with the early
         * lanes alone, and __syncwarp was dropped (docs/gpu-results.md). This
         * simulator reconverges them, so it reports every barrier from then on */
        if (w->call_diverged && w->blk->g->check_ub) sim_interp_ub(w, m, "%s", SIM_UB_AFTER_RECURSION("barrier"));
        w->bar_mask = m;
        barrier_arrive(w, in, m);
        advance(w);
        w->n_insns += n;
        return;
      case SIM_K_TRAP:
        if (m) sim_interp_fault(w, SIM_CUDA_ERROR_ILLEGAL_INSTRUCTION, "trap");
        advance(w);
        break;
      case SIM_K_CALL:
        if (m) call_enter(w, in, m);
        else advance(w);
        break;
      case SIM_K_RET:
        if (m) call_return(w, m);
        else advance(w);
        break;
    }
  }
  w->n_insns += n;
}

/* ---- per-thread block storage, reused across blocks by each host thread ---- */
typedef struct {
  void *p;
  size_t n;
} sim_buf_t;
typedef struct {
  sim_buf_t regs, shared, local, warps, shadow;
  /* the grid (sim_grid_t.id) whose constants and launch-wide special registers
   * regs holds for its warps (0: none) */
  uint64_t regs_grid;
} sim_tlbufs_t;
static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;

/* Freed when the host thread ends (stream workers come and go with streams). */
static void tl_free(void *p) {
  sim_tlbufs_t *t = p;
  free(t->regs.p);
  free(t->shared.p);
  free(t->local.p);
  free(t->warps.p);
  free(t->shadow.p);
  free(t);
}
static void tl_init(void) {
  if (pthread_key_create(&tl_key, tl_free)) abort();
}
static sim_tlbufs_t *tl_get(void) {
  pthread_once(&tl_once, tl_init);
  sim_tlbufs_t *t = pthread_getspecific(tl_key);
  if (!t) {
    t = calloc(1, sizeof *t);
    if (!t || pthread_setspecific(tl_key, t)) abort();
  }
  return t;
}

static void *buf_get(sim_buf_t *b, size_t n) {
  if (!b->p || n > b->n) {
    free(b->p);
    b->p = malloc(n ? n : 1);
    if (!b->p) abort();
    b->n = n;
  }
  return b->p;
}

/* Special registers that differ between blocks of one grid (the others are the
 * same for a warp id in every block). */
#define SIM_SR_PER_BLOCK \
  ((1u << SIM_SR_CTAID_X) | (1u << SIM_SR_CTAID_Y) | (1u << SIM_SR_CTAID_Z) | (1u << SIM_SR_SMID))

/* Special registers that differ between the lanes of a warp. */
#define SIM_SR_LANEWISE                                                                                  \
  ((1u << SIM_SR_TID_X) | (1u << SIM_SR_TID_Y) | (1u << SIM_SR_TID_Z) | (1u << SIM_SR_LANEID) |           \
   (1u << SIM_SR_LANEMASK_EQ) | (1u << SIM_SR_LANEMASK_LT) | (1u << SIM_SR_LANEMASK_LE) |                 \
   (1u << SIM_SR_LANEMASK_GT) | (1u << SIM_SR_LANEMASK_GE))

/* The special registers of thread t, lane l of warp `id`. */
static void sreg_values(const sim_block_t *b, unsigned id, unsigned t, unsigned l, uint64_t *v) {
  const sim_grid_t *g = b->g;
  uint64_t x[SIM_SR_COUNT] = {
      [SIM_SR_TID_X] = t % g->block[0], [SIM_SR_TID_Y] = t / g->block[0] % g->block[1],
      [SIM_SR_TID_Z] = t / (g->block[0] * g->block[1]), [SIM_SR_NTID_X] = g->block[0],
      [SIM_SR_NTID_Y] = g->block[1], [SIM_SR_NTID_Z] = g->block[2], [SIM_SR_CTAID_X] = b->ctaid[0],
      [SIM_SR_CTAID_Y] = b->ctaid[1], [SIM_SR_CTAID_Z] = b->ctaid[2], [SIM_SR_NCTAID_X] = g->grid[0],
      [SIM_SR_NCTAID_Y] = g->grid[1], [SIM_SR_NCTAID_Z] = g->grid[2], [SIM_SR_LANEID] = l,
      [SIM_SR_WARPID] = id, [SIM_SR_NWARPID] = 48, [SIM_SR_LANEMASK_EQ] = 1u << l,
      [SIM_SR_LANEMASK_LT] = (1u << l) - 1, [SIM_SR_LANEMASK_LE] = (uint32_t)((2ull << l) - 1),
      [SIM_SR_LANEMASK_GT] = (uint32_t)~((2ull << l) - 1), [SIM_SR_LANEMASK_GE] = ~((1u << l) - 1),
      [SIM_SR_SMID] = (b->ctaid[0] + b->ctaid[1] * 7u) % 128u, [SIM_SR_NSMID] = 128, [SIM_SR_GRIDID] = 1,
      /* a cooperative launch's grid workspace (gridsync.c), 0 for any other */
      [SIM_SR_ENVREG1] = g->coop ? SIM_WIN_GRIDWS >> 32 : 0, [SIM_SR_ENVREG2] = g->coop ? (uint32_t)SIM_WIN_GRIDWS : 0};
  memcpy(v, x, sizeof x);
}

/* memset of n bytes through the C library's (vector stores): with n known, compilers
 * emit `rep stos` here, whose start-up cost on some hosts was most of a warp's start
 * (scan: 18 % of the block loop's own time for 400 and 256 bytes). */
static inline void zero(void *p, size_t n) {
  __asm__("" : "+r"(n)); /* n opaque to the compiler */
  memset(p, 0, n);
}

/* warm: regs already hold this grid's constants and launch-wide special registers
 * for warp `id` (the host thread's previous block was of the same grid). */
static void init_warp(sim_block_t *b, sim_warp_t *w, unsigned id, uint64_t *regs, bool warm) {
  const sim_kprog_t *p = b->g->prog;
  zero(w, SIM_WARP_CLEARED); /* lpc is written before read; the call stacks are clear (run_block) */
  w->r = regs;
  w->id = id;
  w->blk = b;
  unsigned first = id * 32, n = b->n_threads - first < 32 ? b->n_threads - first : 32;
  w->nlanes_mask = n == 32 ? 0xffffffffu : (1u << n) - 1;
  w->active = w->nlanes_mask;
  w->wait_min = UINT32_MAX;
  /* Registers start at 0 (a read before any write is the same whatever ran on this
   * host thread before; with register reuse, only the slots read before written
   * on some path); constants and the special registers the kernel reads are
   * filled, the others never read. */
  if (!p->zero_slots) zero(regs, (size_t)p->const_base * 32 * sizeof *regs);
  for (uint32_t i = 0; i < p->n_zero; i++) zero(regs + (size_t)p->zero_slots[i] * 32, 32 * sizeof *regs);
  zero(regs + (size_t)(p->n_regs - 1) * 32, 32 * sizeof *regs); /* the sink (last) */
  if (!warm)
    for (uint32_t i = 0; i < p->n_consts; i++)
      for (unsigned l = 0; l < 32; l++) regs[(size_t)(p->const_base + i) * 32 + l] = p->consts[i];
  uint64_t *s = regs + (size_t)p->sreg_base * 32;
  uint32_t fill = p->sreg_used & (warm ? SIM_SR_PER_BLOCK : ~0u);
  /* the same for all lanes of the warp: computed once (a warm block fills only those) */
  uint32_t lanewise = fill & SIM_SR_LANEWISE, same = fill & ~SIM_SR_LANEWISE;
  uint64_t v[SIM_SR_COUNT];
  if (same) {
    sreg_values(b, id, first, 0, v);
    for (uint32_t u = same, k; u && ((k = (uint32_t)__builtin_ctz(u)), 1); u &= u - 1)
      for (unsigned l = 0; l < 32; l++) s[(size_t)k * 32 + l] = v[k];
  }
  if (!lanewise) return;
  for (unsigned l = 0; l < 32; l++) {
    sreg_values(b, id, first + l, l, v);
    for (uint32_t u = lanewise, k; u && ((k = (uint32_t)__builtin_ctz(u)), 1); u &= u - 1) s[(size_t)k * 32 + l] = v[k];
  }
}

/* A number no other grid of the process has: set at the grid's first block. */
static uint64_t grid_id(sim_grid_t *g) {
  static atomic_uint_fast64_t ids;
  uint_fast64_t id = atomic_load_explicit(&g->id, memory_order_relaxed);
  if (id) return id;
  uint_fast64_t mine = atomic_fetch_add_explicit(&ids, 1, memory_order_relaxed) + 1;
  return atomic_compare_exchange_strong(&g->id, &id, mine) ? mine : id;
}

/* A block's byte counts per allocation, summed over its warps before they go to the
 * driver (whose registry takes its lock for each: once per allocation per block,
 * not per warp). With extents kept (the access check) each warp's go on their own:
 * one envelope over several warps' accesses would claim bytes none of them touched. */
typedef struct {
  sim_xcache_t e[8];
  unsigned n;
} counts_t;

static void count_add(sim_grid_t *g, counts_t *c, const sim_xcache_t *x) {
  if (!x->hi || !(x->ld || x->st) || !g->mem) return;
  if (!g->mem->extents) {
    for (unsigned k = 0; k < c->n; k++)
      if (c->e[k].base == x->base) {
        c->e[k].ld += x->ld, c->e[k].st += x->st;
        return;
      }
    if (c->n < sizeof c->e / sizeof *c->e) {
      c->e[c->n++] = *x;
      return;
    }
  }
  g->mem->count(g->mem->ctx, x);
}

void sim_interp_run_block(sim_grid_t *g, uint64_t i) {
  if (outranked(g, i)) return;
  const sim_kprog_t *p = g->prog;
  sim_block_t b = {.g = g, .index = i, .red_and = 1};
  b.ctaid[0] = (unsigned)(i % g->grid[0]);
  b.ctaid[1] = (unsigned)(i / g->grid[0] % g->grid[1]);
  b.ctaid[2] = (unsigned)(i / ((uint64_t)g->grid[0] * g->grid[1]));
  b.n_threads = g->block[0] * g->block[1] * g->block[2];
  b.n_warps = (b.n_threads + 31) / 32;
  size_t dyn_off = (p->shared_static + 15) & ~(size_t)15;
  b.shared_bytes = dyn_off + g->dyn_shared;
  sim_tlbufs_t *tl = tl_get();
  b.shared = buf_get(&tl->shared, b.shared_bytes);
  b.epoch = 1;
  if (g->check_ub) {
    b.shadow = buf_get(&tl->shadow, b.shared_bytes * sizeof *b.shadow);
    memset(b.shadow, 0, b.shared_bytes * sizeof *b.shadow);
  }
  memset(b.shared, 0xA5, b.shared_bytes); /* shared memory starts undefined on a GPU */
  b.local = buf_get(&tl->local, p->local_bytes * b.n_threads);
  memset(b.local, 0xA5, p->local_bytes * b.n_threads);
  bool fresh = !tl->warps.p || b.n_warps * sizeof *b.warps > tl->warps.n; /* buf_get allocates anew */
  b.warps = buf_get(&tl->warps, b.n_warps * sizeof *b.warps);
  if (fresh) memset(b.warps, 0, tl->warps.n); /* call stacks clear */
  size_t regs_per_warp = (size_t)p->n_regs * 32;
  void *before = tl->regs.p;
  uint64_t *regs = buf_get(&tl->regs, regs_per_warp * b.n_warps * sizeof *regs);
  uint64_t gid = grid_id(g);
  bool warm = (void *)regs == before && tl->regs_grid == gid; /* every block of a grid has n_warps warps */
  tl->regs_grid = gid;
  for (unsigned w = 0; w < b.n_warps; w++) init_warp(&b, &b.warps[w], w, regs + regs_per_warp * w, warm);
  const sim_jit_t *jit = sim_jit_for(p);
  const blkctx_t cx = {p->code, p->wide, jit, b.shared, b.shadow ? 0 : b.shared_bytes, g->params, p->param_bytes};
  for (;;) {
    unsigned live = 0, waiting = 0;
    for (unsigned w = 0; w < b.n_warps && !b.faulted; w++) {
      sim_warp_t *wp = &b.warps[w];
      if (!wp->done && !wp->at_bar) run_warp(wp, &cx);
      if (!wp->done) live++;
      if (wp->at_bar) waiting++;
    }
    if (b.faulted || outranked(g, i)) break;
    if (!live) break;
    if (waiting == live) barrier_release(&b);
  }
  uint64_t n = 0;
  counts_t c = {0};
  for (unsigned w = 0; w < b.n_warps; w++) {
    sim_warp_t *wp = &b.warps[w];
    if (wp->stacks) { /* cleared for the next block's warps */
      for (unsigned l = 0; l < 32; l++) free(wp->stk[l]);
      memset((char *)wp + SIM_WARP_STACKS, 0, sizeof *wp - SIM_WARP_STACKS);
    }
    sim_async_release(wp);
    n += wp->n_insns;
    count_add(g, &c, &wp->xc);
    count_add(g, &c, &wp->xc2);
  }
  for (unsigned k = 0; k < c.n; k++) g->mem->count(g->mem->ctx, &c.e[k]);
  atomic_fetch_add_explicit(&g->insns, n, memory_order_relaxed);
  if (!jit) sim_jit_count(p, n);
}
