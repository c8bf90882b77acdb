/* setcond.c: the external cudaGraphSetConditional(handle, value) that kernels of
 * conditional graph nodes call: the driver stores the value in the handle
 * (sim_mem_iface_t.set_cond), one call per lane in lane order. */
#include <string.h>

#include "interp.h"

#define ERR_ILLEGAL_ADDRESS 700 /* CUDA_ERROR_ILLEGAL_ADDRESS: no handle there */

/* off: the local offset of the handle argument (.param scratch); target: of the value. */
static void setcond_exec(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  const sim_mem_iface_t *mem = w->blk->g->mem;
  uint32_t first = 0, differ = 0;
  bool any = false;
  SIM_FOR_LANES(m, l) {
    uint64_t *h = sim_interp_resolve(w, FT_PTX_SP_LOCAL, l, (uint64_t)in->off, 8, false);
    uint32_t *v = h ? sim_interp_resolve(w, FT_PTX_SP_LOCAL, l, in->target, 4, false) : NULL;
    if (!v) return;
    uint64_t handle;
    uint32_t value;
    memcpy(&handle, h, 8);
    memcpy(&value, v, 4);
    const char *why = "conditional graph nodes are not available here";
    int err = mem && mem->set_cond ? mem->set_cond(mem->ctx, handle, value, &why) : ERR_ILLEGAL_ADDRESS;
    if (err) {
      sim_interp_fault(w, err, "cudaGraphSetConditional(0x%llx, %u): %s", (unsigned long long)handle, value, why);
      return;
    }
    if (any && value != first) differ |= 1u << l;
    if (!any) first = value, any = true;
  }
  /* documented: racing calls are undefined (here the highest lane's value stays) */
  if (differ && w->blk->g->check_ub)
    sim_interp_ub(w, m, "cudaGraphSetConditional called by several lanes at once with different values");
}

sim_exec_fn sim_choose_setcond(void) { return setcond_exec; }
