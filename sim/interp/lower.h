/* lower.h: the interpreter's entry points for the driver: lowering a kernel of a
 * parsed PTX module into a runnable program, and running a grid's blocks. */
#ifndef SIM_INTERP_LOWER_H
#define SIM_INTERP_LOWER_H

#include "interp.h"

/* Lowers `entry` of `mod`. var_addr[i]: device address of module variable i
 * (.global/.const; 0 for others). 0 and *out, or -1 with a message naming the
 * function, line and instruction that cannot be run. */
int sim_interp_lower(const ft_ptx_module_t *mod, const ft_ptx_function_t *entry, const uint64_t *var_addr,
                     sim_kprog_t **out, char *err, size_t errlen);
void sim_kprog_free(sim_kprog_t *p);
/* regalloc.c: registers never live at once share a slot (sim_interp_lower does it
 * unless sim_interp_plain). */
void sim_interp_reuse(sim_kprog_t *p);
/* The address a function of mod has in kernels (function pointers, vtables):
 * SIM_WIN_FUNC + 16 (i + 1), i the index of its definition (a declaration's, by
 * name). Indirect calls compare against it. */
uint64_t sim_interp_func_addr(const ft_ptx_module_t *mod, uint32_t index);

#endif
