/* arena.h: every allocation of one parsed module, released together. Tracked
 * allocations can grow (realloc) while the parser builds arrays. */
#ifndef FT_PTX_ARENA_H
#define FT_PTX_ARENA_H

#include <stddef.h>

typedef struct ft_arena_node_s ft_arena_node_t;
typedef struct {
  ft_arena_node_t *head;
  size_t bytes;   /* live bytes, bounded by FT_ARENA_MAX */
} ft_arena_t;

/* A module larger than this is refused (untrusted images). */
#define FT_ARENA_MAX ((size_t)1 << 31)

/* NULL on overflow of FT_ARENA_MAX or out of memory. Memory is zeroed. */
void *ft_arena_alloc(ft_arena_t *a, size_t size);
/* Grows p (from ft_arena_alloc/realloc, or NULL) to size bytes, new tail zeroed. */
void *ft_arena_realloc(ft_arena_t *a, void *p, size_t size);
void ft_arena_release(ft_arena_t *a);

#endif
