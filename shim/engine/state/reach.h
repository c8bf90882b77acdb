/* reach.h: what a launch may write besides its argument places (reach.c). */
#ifndef FT_REACH_H
#define FT_REACH_H

#include "state.h"

/* Allocations pointer value v may reach (at most 2, into out): see reach.c. */
int ft_reach_near(CUdeviceptr v, ft_alloc_t **out) FT_REQUIRES(ft_eng_lock);
/* out[0..n) holds the allocations the launch's argument places reach; adds what
 * kernel fn may reach beyond them with parameter bytes buf[0..len) in context d
 * (by its reach class, FT_REACH_*), and sets written[i] for every entry the
 * kernel may write through what it reached beyond its places (old entries too).
 * Returns the new count (some may be unprotected allocations: callers skip them),
 * or -1 when more than cap would be needed. */
int ft_reach(const ft_func_t *fn, const ft_dev_t *d, const uint8_t *buf, size_t len,
             ft_alloc_t **out, uint8_t *written, int n, int cap) FT_REQUIRES(ft_eng_lock);

#endif
