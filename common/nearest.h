/* nearest.h: "did you mean": the name of a list nearest a misspelt one (edit distance,
 * case-insensitive), shared by the library's options, the launcher and the simulator. */
#ifndef FTC_NEAREST_H
#define FTC_NEAREST_H

#include <stddef.h>
#include <string.h>

/* Levenshtein distance of a[0..na) and b[0..nb), letters compared without case;
 * names longer than 63 characters count as far from everything. */
static inline int ftc_edit_distance(const char *a, size_t na, const char *b, size_t nb) {
  if (na > 63 || nb > 63) return 1 << 20;
  int row[64];
  for (size_t j = 0; j <= nb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= na; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= nb; j++) {
      char x = a[i - 1], y = b[j - 1];
      if (x >= 'A' && x <= 'Z') x = (char)(x + 32);
      if (y >= 'A' && y <= 'Z') y = (char)(y + 32);
      int best = diag + (x != y);
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = row[j];
      row[j] = best;
    }
  }
  return row[nb];
}

/* Close enough to be a misspelling: at most a third of the longer name, and at most 3. */
static inline int ftc_near_enough(int d, size_t na, size_t nb) {
  size_t n = na > nb ? na : nb;
  int lim = n >= 9 ? 3 : n >= 4 ? 2 : 1;
  return d <= lim;
}

/* The entry of names[0..n) nearest `s` (n entries, NULL ones skipped), or -1 when none
 * is near enough. */
static inline int ftc_nearest(const char *s, const char *const *names, int n) {
  int best = -1, bestd = 1 << 20;
  size_t ns = strlen(s);
  for (int i = 0; i < n; i++) {
    if (!names[i]) continue;
    size_t nn = strlen(names[i]);
    int d = ftc_edit_distance(s, ns, names[i], nn);
    if (d < bestd && ftc_near_enough(d, ns, nn)) best = i, bestd = d;
  }
  return best;
}

/* The same over a '|'-separated list ("detect|correct|recover"): copies the nearest
 * choice into out (size n) and returns 0, or -1 when none is near enough. */
static inline int ftc_nearest_choice(const char *s, const char *choices, char *out, size_t n) {
  int bestd = 1 << 20, found = -1;
  size_t ns = strlen(s);
  for (const char *p = choices; p && *p;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    int d = ftc_edit_distance(s, ns, p, len);
    if (d < bestd && ftc_near_enough(d, ns, len) && len < n) {
      bestd = d;
      memcpy(out, p, len);
      out[len] = 0;
      found = 0;
    }
    p = bar ? bar + 1 : NULL;
  }
  return found;
}

/* Walks env (environ) from *i to the next variable named prefix+NAME whose NAME is
 * not in known[0..n): copies NAME into name (size cap) and returns 1; 0 at the end. */
static inline int ftc_env_unknown(char **env, size_t *i, const char *prefix,
                                  const char *const *known, int n, char *name, size_t cap) {
  size_t pl = strlen(prefix);
  for (; env && env[*i]; (*i)++) {
    const char *e = env[*i];
    if (strncmp(e, prefix, pl) != 0) continue;
    size_t len = strcspn(e + pl, "=");
    if (len >= cap) len = cap - 1;
    memcpy(name, e + pl, len);
    name[len] = 0;
    int found = 0;
    for (int k = 0; k < n && !found; k++) found = known[k] && !strcmp(name, known[k]);
    if (!found) return (*i)++, 1;
  }
  return 0;
}

#endif
