/* range_int.h: the range analysis (ptx/range.c) as ptx/access.c drives it: one
 * context per kernel, fed every access the access analysis attributes to one place. */
#ifndef FT_PTX_RANGE_INT_H
#define FT_PTX_RANGE_INT_H

#include "ptx_ir.h"
#include "range.h"

typedef struct ft_range_s ft_range_t;

/* A context for entry; place_offsets: the places' offsets in the parameter buffer,
 * ascending (kept, not copied). NULL when out of memory. */
ft_range_t *ft_range_new(const ft_ptx_module_t *m, const ft_ptx_function_t *entry, const uint32_t *place_offsets,
                         size_t nplaces);
/* An access of size bytes at addr by instruction in (of the entry) through place:
 * dirs bit 0 read, bit 1 write. */
void ft_range_access(ft_range_t *r, size_t place, const ft_ptx_instr_t *in, const ft_ptx_operand_t *addr, unsigned size,
                     unsigned dirs);
/* An access through place that cannot be bounded (another function, a form no rule models). */
void ft_range_unbounded(ft_range_t *r, size_t place, unsigned dirs);
/* The ranges of place; dirs: the directions it is accessed in (the others come out empty). */
void ft_range_result(ft_range_t *r, size_t place, unsigned dirs, ft_ptx_range_t *read, ft_ptx_range_t *write);
void ft_range_free(ft_range_t *r);

#endif
