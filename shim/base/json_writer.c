/* json_writer.c: JSON text into a buffer with no stdio, locks or (fixed buffers)
 * allocation: the report is written by the same code at exit and in a signal
 * handler. Layout: top-level members one per line, objects in arrays one per line,
 * everything else inline. */
#include "json_writer.h"

#include <stdlib.h>
#include <string.h>

void ft_jw_fixed(ft_jw_t *w, char *buf, size_t cap) {
  memset(w, 0, sizeof *w);
  w->buf = buf;
  w->cap = cap;
  if (cap) buf[0] = 0;
}

void ft_jw_heap(ft_jw_t *w) {
  memset(w, 0, sizeof *w);
  w->grow = 1;
}

void ft_jw_rawn(ft_jw_t *w, const char *s, size_t n) {
  if (w->len + n + 1 > w->cap) {
    if (w->grow) {
      size_t cap = w->cap ? w->cap : 4096;
      while (w->len + n + 1 > cap) cap *= 2;
      char *b = realloc(w->buf, cap);
      if (!b) {
        w->truncated = 1;
        return;
      }
      w->buf = b;
      w->cap = cap;
    } else {
      w->truncated = 1;
      if (w->cap <= w->len + 1) return;
      n = w->cap - w->len - 1;
    }
  }
  memcpy(w->buf + w->len, s, n);
  w->len += n;
  w->buf[w->len] = 0;
}

void ft_jw_raw(ft_jw_t *w, const char *s) { ft_jw_rawn(w, s, strlen(s)); }

void ft_jw_num_u(ft_jw_t *w, uint64_t v) {
  char d[24];
  int i = 24;
  do d[--i] = (char)('0' + v % 10);
  while ((v /= 10) && i > 0);
  ft_jw_rawn(w, d + i, (size_t)(24 - i));
}

void ft_jw_num_i(ft_jw_t *w, int64_t v) {
  if (v < 0) ft_jw_raw(w, "-");
  ft_jw_num_u(w, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

void ft_jw_num_f(ft_jw_t *w, double v, int decimals) {
  if (v != v || v > 1e300 || v < -1e300) {
    ft_jw_raw(w, "null");
    return;
  }
  if (v < 0) {
    ft_jw_raw(w, "-");
    v = -v;
  }
  if (decimals > 9) decimals = 9;
  uint64_t scale = 1;
  for (int i = 0; i < decimals; i++) scale *= 10;
  if (v >= 1e18 / (double)scale) { /* too large for the fixed point: integer part only */
    ft_jw_num_u(w, v >= 1.8e19 ? UINT64_MAX : (uint64_t)v);
    return;
  }
  uint64_t t = (uint64_t)(v * (double)scale + 0.5);
  ft_jw_num_u(w, t / scale);
  if (!decimals) return;
  char frac[10];
  uint64_t f = t % scale;
  for (int i = decimals - 1; i >= 0; i--, f /= 10) frac[i] = (char)('0' + f % 10);
  ft_jw_raw(w, ".");
  ft_jw_rawn(w, frac, (size_t)decimals);
}

static void str(ft_jw_t *w, const char *s) {
  static const char hex[] = "0123456789abcdef";
  ft_jw_raw(w, "\"");
  for (const char *run = s;; s++) {
    unsigned char c = (unsigned char)*s;
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    ft_jw_rawn(w, run, (size_t)(s - run));
    if (!c) break;
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      ft_jw_rawn(w, e, 2);
    } else {
      char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      ft_jw_rawn(w, e, 6);
    }
    run = s + 1;
  }
  ft_jw_raw(w, "\"");
}

/* The separator and the key of a new member; is_obj: the member is an object. */
static void member(ft_jw_t *w, const char *key, int is_obj) {
  int d = w->depth;
  if (d > 0 && d <= 16) {
    int first = w->first[d - 1];
    w->first[d - 1] = 0;
    if (!first) ft_jw_raw(w, ",");
    if (d == 1) ft_jw_raw(w, "\n  ");
    else if (w->in_array[d - 1] && is_obj && d == 2) {
      ft_jw_raw(w, "\n    ");
      w->had_object[d - 1] = 1;
    } else if (!first) ft_jw_raw(w, " ");
  }
  if (key) {
    str(w, key);
    ft_jw_raw(w, ": ");
  }
}

static void open_(ft_jw_t *w, const char *key, int array) {
  member(w, key, !array);
  ft_jw_raw(w, array ? "[" : "{");
  if (w->depth < 16) {
    w->first[w->depth] = 1;
    w->in_array[w->depth] = (unsigned char)array;
    w->had_object[w->depth] = 0;
  }
  w->depth++;
}

void ft_jw_obj(ft_jw_t *w, const char *key) { open_(w, key, 0); }
void ft_jw_arr(ft_jw_t *w, const char *key) { open_(w, key, 1); }

void ft_jw_end(ft_jw_t *w) {
  if (w->depth <= 0) return;
  int d = --w->depth, array = d < 16 && w->in_array[d];
  if (d == 0) ft_jw_raw(w, "\n}\n");
  else if (d == 1 && array && w->had_object[d]) ft_jw_raw(w, "\n  ]");
  else ft_jw_raw(w, array ? "]" : "}");
}

void ft_jw_u(ft_jw_t *w, const char *key, uint64_t v) {
  member(w, key, 0);
  ft_jw_num_u(w, v);
}

void ft_jw_i(ft_jw_t *w, const char *key, int64_t v) {
  member(w, key, 0);
  ft_jw_num_i(w, v);
}

void ft_jw_f(ft_jw_t *w, const char *key, double v, int decimals) {
  member(w, key, 0);
  ft_jw_num_f(w, v, decimals);
}

void ft_jw_s(ft_jw_t *w, const char *key, const char *s) {
  member(w, key, 0);
  if (s) str(w, s);
  else ft_jw_raw(w, "null");
}

void ft_jw_b(ft_jw_t *w, const char *key, int v) {
  member(w, key, 0);
  ft_jw_raw(w, v ? "true" : "false");
}

void ft_jw_null(ft_jw_t *w, const char *key) {
  member(w, key, 0);
  ft_jw_raw(w, "null");
}
