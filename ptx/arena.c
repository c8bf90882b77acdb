/* arena.c: a doubly linked list of tracked allocations (see arena.h). */
#include "arena.h"

#include <stdlib.h>
#include <string.h>

struct ft_arena_node_s {
  ft_arena_node_t *prev, *next;
  size_t size;
  /* payload follows, max-aligned */
};

#define HDR ((sizeof(ft_arena_node_t) + 15) & ~(size_t)15)

void *ft_arena_alloc(ft_arena_t *a, size_t size) {
  return ft_arena_realloc(a, NULL, size);
}

void *ft_arena_realloc(ft_arena_t *a, void *p, size_t size) {
  ft_arena_node_t *old = p ? (ft_arena_node_t *)((char *)p - HDR) : NULL;
  size_t oldsize = old ? old->size : 0;
  if (size > FT_ARENA_MAX || a->bytes - oldsize + size > FT_ARENA_MAX) return NULL;
  if (old) {
    if (old->prev) old->prev->next = old->next; else a->head = old->next;
    if (old->next) old->next->prev = old->prev;
  }
  ft_arena_node_t *n = realloc(old, HDR + size);
  int failed = n == NULL;
  if (failed) {
    if (!old) return NULL;
    n = old;   /* realloc failure leaves the old block: relink it, report NULL */
    size = oldsize;
  }
  if (size > oldsize) memset((char *)n + HDR + oldsize, 0, size - oldsize);
  n->size = size;
  n->prev = NULL;
  n->next = a->head;
  if (a->head) a->head->prev = n;
  a->head = n;
  a->bytes = a->bytes - oldsize + size;
  return failed ? NULL : (char *)n + HDR;
}

void ft_arena_release(ft_arena_t *a) {
  ft_arena_node_t *n = a->head;
  while (n) {
    ft_arena_node_t *next = n->next;
    free(n);
    n = next;
  }
  a->head = NULL;
  a->bytes = 0;
}
