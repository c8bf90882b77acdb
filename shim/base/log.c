/* log.c: the one logging function: "gpuft: " prefix, one write per message so
 * lines from many threads do not interleave, recursion-safe. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ft.h"

int ft_log_level = FT_LOG_WARN;

void ft_log(int level, const char *fmt, ...) {
  static __thread int busy;
  if (busy) return; /* a message about a failing message would recurse */
  busy = 1;
  static const char *const tag[] = {"error: ", "warning: ", "", "debug: "};
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "gpuft: %s", tag[level & 3]);
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
  va_end(ap);
  if (m < 0) m = 0;
  size_t len = (size_t)n + (size_t)m;
  if (len > sizeof buf - 2) len = sizeof buf - 2;
  buf[len++] = '\n';
  ssize_t w = write(STDERR_FILENO, buf, len);
  (void)w;
  busy = 0;
}

void ft_assert_fail(const char *what, const char *file, int line) {
  ft_log(FT_LOG_ERROR, "internal error: %s (%s:%d); please report this", what, file, line);
  abort();
}
