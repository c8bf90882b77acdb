/* texsurf.h: the texture and surface instructions added beside interp.h's tex,
 * suld and sust (tld4 and sured share texture.c's and surface.c's choosers), and
 * the UB check's record of global stores a texture fetch of linear memory must not
 * read in the same launch (texwrite.c). */
#ifndef SIM_TEXSURF_H
#define SIM_TEXSURF_H

#include "interp.h"

/* texquery.c: txq and suq on texture and surface objects; NULL for a query the
 * simulator does not model (mipmap levels, samples, independent-mode samplers) or
 * that the instruction does not have (in->mode is rewritten to texquery.c's own).
 * They look the object up with sim_tex_lookup's geometry 0: any geometry. */
sim_exec_fn sim_choose_texquery(sim_insn_t *in);

/* texwrite.c: the driver arms the record of global stores for a launch under the UB
 * check in whose context a texture object on linear or pitched memory is live
 * (before its blocks run). Armed, g->texw_any is set from the start, and the store
 * executors (mem.c) hand each global store's lanes over; unarmed, texw_any stays 0
 * until a surface store, which costs them one load and branch per instruction. */
void sim_texw_arm_globals(sim_grid_t *g);
/* The lanes m of a store (st, atom, red) of n bytes each at A[l] + off in `space`
 * (generic addresses outside the global window are left out). */
void sim_texw_note_stores(sim_warp_t *w, unsigned space, uint32_t m, const uint64_t *A, uint64_t off, unsigned n);
/* Whether a global store of this launch wrote any of [a, a+n). */
bool sim_texw_hit_global(sim_grid_t *g, uint64_t a, unsigned n);
#define SIM_UB_TEXW_GLOBAL_WORDS                                                                 \
  "reads memory a global store (st, atom, red) of this launch wrote: within a launch the "     \
  "texture cache is not kept coherent with global writes (CUDA Programming Guide), so the "    \
  "fetch may return the old data; write and read in two launches"

#endif
