/* access.h: what each kernel does through the pointers its arguments carry,
 * from dataflow over the PTX IR (rules and lattice: docs/ptx.md). */
#ifndef FT_PTX_ACCESS_H
#define FT_PTX_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "ptx_ir.h"
#include "range.h"

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
  uint8_t as_int;             /* conservative only as an integer (enters addresses or is stored
                                 as one; never used as a pointer): costs nothing at run time
                                 unless its value points into an allocation */
  uint8_t ptr_src;            /* the kernel dereferences values it loads through this place
                                 (or stores them, and dereferences loaded values): the
                                 pointers its buffer holds are used (FT_PTX_K_LOADED_UNK:
                                 not only those) */
  uint8_t ptr_sink;           /* values it loads from memory are stored through this place:
                                 where it shares an allocation with a ptr_src place, they
                                 may come back as pointers from anywhere (every place's
                                 buffer is a source then) */
  /* The bytes the kernel may read / write through this place, relative to its
   * pointer value: a handle to their programs in ft_ptx_facts_t.ranges (range.h;
   * 0: none; read them with ft_ptx_place_range). Bounded only for exact places;
   * accesses through pointers loaded from memory are not in them (the kernel flags
   * say where those may go). */
  uint32_t range;
} ft_ptx_place_t;

/* Kernel-level facts (ft_ptx_facts_t.flags). */
enum {
  FT_PTX_K_LOADED_PTR = 1u << 0,   /* dereferences pointers loaded from memory */
  FT_PTX_K_GLOBAL_VAR = 1u << 1,   /* accesses module-scope .global variables */
  FT_PTX_K_UNKNOWN_CALL = 1u << 2, /* calls a function it cannot follow (extern, indirect) */
  FT_PTX_K_UNKNOWN_ADDR = 1u << 3, /* dereferences an address built from no pointer at all */
  FT_PTX_K_INCOMPLETE = 1u << 4,   /* the analysis gave up: every place is conservative */
  FT_PTX_K_UNPLACED_PTR = 1u << 5, /* may use parameter bytes that are no place as a pointer
                                      (4-byte halves, packed struct fields, a double) */
  FT_PTX_K_LOADED_INDEX = 1u << 6, /* offsets an argument pointer by 8-byte integers read from
                                      memory (informational: the access stays in that buffer) */
  FT_PTX_K_UNKNOWN_MEM = 1u << 7,  /* an instruction reaches memory in a way the analysis does
                                      not model (textures, surfaces, bulk tensor copies...) */
  FT_PTX_K_GLOBAL_WRITE = 1u << 8, /* writes a module variable (a replay would write it twice) */
  FT_PTX_K_PTR_CHASE = 1u << 9,    /* loads values through pointers it loaded (lists, trees): the
                                      pointers it dereferences may lie more than one level deep */
  FT_PTX_K_LOADED_UNK = 1u << 10,  /* with LOADED_PTR: a loaded pointer it dereferences may come
                                      from memory no place names (a loaded pointer, a module
                                      variable, an atomic): every place's buffer may hold it */
  FT_PTX_K_SINK_REACHED = 1u << 11 /* stores values it loaded through pointers it loaded: where
                                      a source's pointers lead into a source, every place's
                                      buffer may hold the pointers it uses */
};
/* Flags under which the kernel may reach memory other than through its argument
 * places: a caller must treat it as writing what those pointers can reach. */
#define FT_PTX_K_REACHES_BEYOND                                                               \
  (FT_PTX_K_LOADED_PTR | FT_PTX_K_UNKNOWN_CALL | FT_PTX_K_UNKNOWN_ADDR | FT_PTX_K_INCOMPLETE | \
   FT_PTX_K_UNPLACED_PTR | FT_PTX_K_UNKNOWN_MEM)

typedef struct ft_ptx_facts_s {
  ft_ptx_place_t *places;     /* in offset order */
  size_t nplaces;
  uint32_t flags;             /* FT_PTX_K_* */
  ft_ptx_range_pool_t ranges; /* the places' range programs */
} ft_ptx_facts_t;

/* Facts for one .entry of module m. 0, or -1 with err (not an entry). */
int ft_ptx_facts(const ft_ptx_module_t *m, const ft_ptx_function_t *entry, ft_ptx_facts_t *out,
                 char *err, size_t errlen);
void ft_ptx_facts_free(ft_ptx_facts_t *f);

/* Facts for a kernel known only by its parameter layout (SASS only: no PTX):
 * every 8-byte-aligned 8-byte slot of a parameter of 8 bytes or more is a
 * place, READ_WRITE and conservative. offsets/sizes: n parameters. 0 or -1. */
int ft_ptx_facts_conservative(const uint32_t *offsets, const uint32_t *sizes, size_t n, ft_ptx_facts_t *out);

/* The bytes place p of f may touch in direction dir (0 read, 1 write), as a
 * program into out: none when p is exact and its access excludes dir (nor
 * ESCAPES), else its program, else unbounded. */
void ft_ptx_place_range(const ft_ptx_facts_t *f, const ft_ptx_place_t *p, unsigned dir, ft_ptx_range_t *out);
/* The same evaluated for one launch (ft_ptx_range_eval), without copying or
 * allocating: 0 and [*lo, *hi), or -1 (the whole allocation). */
int ft_ptx_place_range_eval(const ft_ptx_facts_t *f, const ft_ptx_place_t *p, unsigned dir, const void *params,
                            size_t params_size, const unsigned grid[3], const unsigned block[3], int64_t *lo,
                            int64_t *hi);

/* dst = the join of dst and src, two kernels with one name (either may be the one
 * launched): places of one offset join their access (ESCAPES absorbs), exactness
 * (both) and ranges (ft_ptx_range_join: the span of both, else unbounded); flags
 * join. A place of src that dst lacks makes dst INCOMPLETE; when the layouts
 * differ at all, every range of dst is unbounded. */
void ft_ptx_facts_join(ft_ptx_facts_t *dst, const ft_ptx_facts_t *src);

const char *ft_ptx_access_name(unsigned access);

#ifdef __cplusplus
}
#endif
#endif
