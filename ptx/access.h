/* access.h: what each kernel does through the pointers its arguments carry,
 * from dataflow over the PTX IR (rules and lattice: docs/ptx.md). */
#ifndef FT_PTX_ACCESS_H
#define FT_PTX_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "ptx_ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The lattice: NONE < READ, WRITE < READ_WRITE < ESCAPES. */
typedef enum {
  FT_PTX_ACC_NONE = 0,        /* never dereferenced */
  FT_PTX_ACC_READ = 1,
  FT_PTX_ACC_WRITE = 2,
  FT_PTX_ACC_READ_WRITE = 3,
  FT_PTX_ACC_ESCAPES = 4      /* stored, passed where the analysis cannot follow, or mixed */
} ft_ptx_access_t;

/* A place: where an argument can hold a device pointer (an 8-byte parameter,
 * or an 8-byte-aligned 8-byte field of a by-value struct/array parameter). */
typedef struct ft_ptx_place_s {
  uint32_t offset;            /* byte offset in the kernel's packed parameter buffer */
  uint32_t param;             /* parameter index */
  uint32_t field;             /* byte offset inside that parameter (0 for a plain parameter) */
  uint8_t access;             /* ft_ptx_access_t */
  uint8_t exact;              /* 1: exact; 0: conservative (over-approximated) */
  uint8_t nc;                 /* read through ld.global.nc somewhere (confirms only) */
} ft_ptx_place_t;

/* Kernel-level facts (ft_ptx_facts_t.flags). */
enum {
  FT_PTX_K_LOADED_PTR = 1u << 0,   /* dereferences pointers loaded from memory */
  FT_PTX_K_GLOBAL_VAR = 1u << 1,   /* accesses module-scope .global variables */
  FT_PTX_K_UNKNOWN_CALL = 1u << 2, /* calls a function it cannot follow (extern, indirect) */
  FT_PTX_K_UNKNOWN_ADDR = 1u << 3, /* dereferences an address built from no pointer at all */
  FT_PTX_K_INCOMPLETE = 1u << 4    /* the analysis gave up: every place is conservative */
};

typedef struct ft_ptx_facts_s {
  ft_ptx_place_t *places;     /* in offset order */
  size_t nplaces;
  uint32_t flags;             /* FT_PTX_K_* */
} ft_ptx_facts_t;

/* Facts for one .entry of module m. 0, or -1 with err (not an entry). */
int ft_ptx_facts(const ft_ptx_module_t *m, const ft_ptx_function_t *entry, ft_ptx_facts_t *out,
                 char *err, size_t errlen);
void ft_ptx_facts_free(ft_ptx_facts_t *f);

const char *ft_ptx_access_name(unsigned access);

#ifdef __cplusplus
}
#endif
#endif
