/* json_writer.h: the report's JSON writer: appends to a caller's buffer with no
 * stdio, no locks and (for a fixed buffer) no allocation, so that the same code
 * writes the report at exit and from a signal handler (report.c). */
#ifndef FT_JSON_WRITER_H
#define FT_JSON_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  char *buf;
  size_t cap, len;
  int grow;      /* 1: buf is malloc'ed and grows; 0: fixed, output truncated */
  int truncated; /* a fixed buffer was too small */
  int depth;     /* open objects and arrays */
  unsigned char first[16], in_array[16], had_object[16];
} ft_jw_t;

/* A writer over a fixed buffer (async-signal-safe) or a growing heap buffer. */
void ft_jw_fixed(ft_jw_t *w, char *buf, size_t cap);
void ft_jw_heap(ft_jw_t *w);

/* Raw text, and numbers without a key (also used for plain text lines). */
void ft_jw_raw(ft_jw_t *w, const char *s);
void ft_jw_rawn(ft_jw_t *w, const char *s, size_t n);
void ft_jw_num_u(ft_jw_t *w, uint64_t v);
void ft_jw_num_i(ft_jw_t *w, int64_t v);
void ft_jw_num_f(ft_jw_t *w, double v, int decimals); /* fixed point; nan/inf: null */

/* Members: key is the member's name inside an object, NULL inside an array. */
void ft_jw_obj(ft_jw_t *w, const char *key);
void ft_jw_arr(ft_jw_t *w, const char *key);
void ft_jw_end(ft_jw_t *w); /* closes the innermost object or array */
void ft_jw_u(ft_jw_t *w, const char *key, uint64_t v);
void ft_jw_i(ft_jw_t *w, const char *key, int64_t v);
void ft_jw_f(ft_jw_t *w, const char *key, double v, int decimals);
void ft_jw_s(ft_jw_t *w, const char *key, const char *s); /* NULL: null */
void ft_jw_b(ft_jw_t *w, const char *key, int v);
void ft_jw_null(ft_jw_t *w, const char *key);

#endif
