/* runs.h: small sets of group runs [g0, g1) (runs.c): what a restore point or a
 * snapshot copy holds, what was written since. */
#ifndef FT_RUNS_H
#define FT_RUNS_H

#include <stdint.h>

#define FT_RUNS 8
typedef struct {
  uint64_t r[FT_RUNS][2]; /* sorted, disjoint, not touching */
  int n;
} ft_runs_t;

/* Add [g0, g1), merging runs it touches. With more runs than fit, the two closest
 * merge: the groups between them join the set, returned in [*m0, *m1) (else
 * *m0 == *m1) unless m0 is NULL. */
void ft_runs_add(ft_runs_t *s, uint64_t g0, uint64_t g1, uint64_t *m0, uint64_t *m1);
/* s = [g0, g1) alone (empty when g0 >= g1). */
void ft_runs_one(ft_runs_t *s, uint64_t g0, uint64_t g1);
/* The parts of [g0, g1) not in s, in order, up to FT_RUNS + 1 of them: how many. */
int ft_runs_missing(const ft_runs_t *s, uint64_t g0, uint64_t g1, uint64_t out[][2]);
/* Whether s holds any group of [g0, g1). */
int ft_runs_meets(const ft_runs_t *s, uint64_t g0, uint64_t g1);
/* s without the groups from ng on (an allocation that shrank to ng groups). */
void ft_runs_clip(ft_runs_t *s, uint64_t ng);
/* Whether s is exactly [0, ng). */
int ft_runs_all(const ft_runs_t *s, uint64_t ng);

#endif
