/* runs.c: small sets of group runs (runs.h). */
#include <string.h>

#include "state.h"
#include "runs.h"

void ft_runs_add(ft_runs_t *s, uint64_t g0, uint64_t g1, uint64_t *m0, uint64_t *m1) {
  uint64_t gap[2];
  if (!m0) m0 = &gap[0], m1 = &gap[1];
  *m0 = *m1 = 0;
  if (g0 >= g1) return;
  uint64_t(*r)[2] = s->r;
  int n = s->n, k = 0;
  while (k < n && r[k][1] < g0) k++;
  int e = k; /* runs k..e-1 touch [g0, g1): they merge into it */
  while (e < n && r[e][0] <= g1) {
    if (r[e][0] < g0) g0 = r[e][0];
    if (r[e][1] > g1) g1 = r[e][1];
    e++;
  }
  if (e == k && n == FT_RUNS) {
    /* one run too many: the two closest of the n + 1 merge */
    uint64_t t[FT_RUNS + 1][2];
    memcpy(t, r, (size_t)k * sizeof t[0]);
    t[k][0] = g0;
    t[k][1] = g1;
    memcpy(&t[k + 1], &r[k], (size_t)(n - k) * sizeof t[0]);
    int best = 0;
    for (int i = 1; i < n; i++)
      if (t[i + 1][0] - t[i][1] < t[best + 1][0] - t[best][1]) best = i;
    *m0 = t[best][1];
    *m1 = t[best + 1][0];
    t[best][1] = t[best + 1][1];
    memmove(&t[best + 1], &t[best + 2], (size_t)(n - best - 1) * sizeof t[0]);
    memcpy(r, t, (size_t)n * sizeof t[0]);
    return;
  }
  memmove(&r[k + 1], &r[e], (size_t)(n - e) * sizeof r[0]);
  r[k][0] = g0;
  r[k][1] = g1;
  s->n = n - (e - k) + 1;
}

void ft_runs_one(ft_runs_t *s, uint64_t g0, uint64_t g1) {
  s->n = g0 < g1;
  s->r[0][0] = g0;
  s->r[0][1] = g1;
}

int ft_runs_missing(const ft_runs_t *s, uint64_t g0, uint64_t g1, uint64_t out[][2]) {
  int m = 0;
  uint64_t at = g0;
  for (int i = 0; i < s->n && at < g1; i++) {
    if (s->r[i][1] <= at) continue;
    if (s->r[i][0] >= g1) break;
    if (s->r[i][0] > at) {
      out[m][0] = at;
      out[m++][1] = s->r[i][0];
    }
    at = s->r[i][1];
  }
  if (at < g1) {
    out[m][0] = at;
    out[m++][1] = g1;
  }
  return m;
}

int ft_runs_all(const ft_runs_t *s, uint64_t ng) { return s->n == 1 && s->r[0][0] == 0 && s->r[0][1] == ng; }

int ft_runs_meets(const ft_runs_t *s, uint64_t g0, uint64_t g1) {
  for (int i = 0; i < s->n; i++)
    if (s->r[i][0] < g1 && g0 < s->r[i][1]) return 1;
  return 0;
}

void ft_runs_clip(ft_runs_t *s, uint64_t ng) {
  int k = 0;
  for (int i = 0; i < s->n; i++) {
    if (s->r[i][0] >= ng) continue;
    s->r[k][0] = s->r[i][0];
    s->r[k][1] = s->r[i][1] < ng ? s->r[i][1] : ng;
    k++;
  }
  s->n = k;
}
