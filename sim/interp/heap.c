/* heap.c: the external malloc and free that nvcc calls for device malloc/free and
 * new/delete: the driver's device heap (sim_mem_iface_t.malloc/.free), one call
 * per lane in lane order. malloc gives NULL when the heap has no room (or the
 * driver has none); free(NULL) does nothing; freeing anything else that is not a
 * live block of the heap is undefined on a GPU: reported by the UB check, ignored. */
#include <string.h>

#include "interp.h"

/* off: the local offset of the argument (.param scratch); target: of the result. */
static uint64_t *lane_slot(sim_warp_t *w, uint32_t l, uint64_t off) {
  return sim_interp_resolve(w, FT_PTX_SP_LOCAL, l, off, 8, true);
}

static void malloc_exec(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  const sim_mem_iface_t *mem = w->blk->g->mem;
  SIM_FOR_LANES(m, l) {
    uint64_t *arg = lane_slot(w, l, (uint64_t)in->off), *ret = arg ? lane_slot(w, l, in->target) : NULL;
    if (!ret) return;
    uint64_t n;
    memcpy(&n, arg, 8);
    uint64_t p = mem && mem->malloc ? mem->malloc(mem->ctx, n) : 0;
    memcpy(ret, &p, 8);
  }
}

static void free_exec(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  const sim_mem_iface_t *mem = w->blk->g->mem;
  SIM_FOR_LANES(m, l) {
    uint64_t *arg = lane_slot(w, l, (uint64_t)in->off);
    if (!arg) return;
    uint64_t p;
    memcpy(&p, arg, 8);
    if (p && !(mem && mem->free && mem->free(mem->ctx, p)) && w->blk->g->check_ub)
      sim_interp_ub(w, 1u << l, "free(0x%llx): not a live block of the device heap", (unsigned long long)p);
  }
}

sim_exec_fn sim_choose_heap(bool is_free) { return is_free ? free_exec : malloc_exec; }
