/* pool.h: the codec's parallel loop over chunks (pool.c): persistent workers that
 * sleep when idle. */
#ifndef FT_POOL_H
#define FT_POOL_H

#include <stddef.h>

typedef void (*ft_pool_fn)(size_t i, void *arg);

/* fn(i, arg) for every i in [0, n), on up to nth threads, the caller among them;
 * returns when all are done. One loop at a time uses the workers: a loop started
 * while another runs is run by its caller alone. */
void ft_pool_for(size_t n, int nth, ft_pool_fn fn, void *arg);

/* CPUs this process may run on (its affinity mask), 1..64. */
int ft_pool_cpus(void);

#endif
