/* special.c: special registers that change while a kernel runs (%clock, %clock64,
 * %globaltimer) or depend on the launch (%dynamic_smem_size); the per-thread ones
 * (%tid, %laneid, ...) are registers filled at warp start (warp.c). */
#include <time.h>

#include "interp.h"

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* mov d, %sreg: the register number is in `mode`, as lowered (ft_ptx_sreg_t). */
static void sreg(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  uint64_t *D = SIM_R(w, in->d[0]);
  uint64_t v;
  switch (in->mode) {
    case FT_PTX_SR_CLOCK: case FT_PTX_SR_CLOCK64:
      /* A clock that advances with the work done: instructions executed so far. */
      v = w->n_insns + now_ns();
      if (in->mode == FT_PTX_SR_CLOCK) v = (uint32_t)v;
      break;
    case FT_PTX_SR_CLOCK_HI: v = (now_ns() + w->n_insns) >> 32; break;
    case FT_PTX_SR_GLOBALTIMER: v = now_ns(); break;
    case FT_PTX_SR_GLOBALTIMER_LO: v = (uint32_t)now_ns(); break;
    case FT_PTX_SR_GLOBALTIMER_HI: v = now_ns() >> 32; break;
    case FT_PTX_SR_DYNAMIC_SMEM_SIZE: v = w->blk->g->dyn_shared; break;
    case FT_PTX_SR_TOTAL_SMEM_SIZE: v = w->blk->shared_bytes; break;
    case FT_PTX_SR_WARPSZ: v = 32; break;
    default: v = 0; break;
  }
  SIM_LANES(m, l, D[l] = v);
}

static void nop(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  (void)w;
  (void)in;
  (void)m;
}

/* nanosleep: a thread waiting for others (a spin with back-off, as libcu++'s
 * cuda::barrier waits before sm_80). The warp gives way at its next branch, so that
 * the block's other warps, which the simulator runs one at a time, get to arrive. */
static void nanosleep_yield(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  (void)in, (void)m;
  w->yield = true;
}

sim_exec_fn sim_choose_special(sim_insn_t *in) {
  switch ((ft_ptx_opcode_t)in->op) {
    case FT_PTX_OP_MOV:
      switch (in->mode) {
        case FT_PTX_SR_CLOCK: case FT_PTX_SR_CLOCK64: case FT_PTX_SR_CLOCK_HI: case FT_PTX_SR_GLOBALTIMER:
        case FT_PTX_SR_GLOBALTIMER_LO: case FT_PTX_SR_GLOBALTIMER_HI: case FT_PTX_SR_DYNAMIC_SMEM_SIZE:
        case FT_PTX_SR_TOTAL_SMEM_SIZE: case FT_PTX_SR_WARPSZ:
          return sreg;
        default: return NULL;
      }
    case FT_PTX_OP_NANOSLEEP: return nanosleep_yield;
    case FT_PTX_OP_PMEVENT: return nop;
    default: return NULL;
  }
}
