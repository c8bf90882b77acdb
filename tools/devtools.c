/* devtools.c: argument helpers of gpuft's device tools (devtools.h). */
#include "devtools.h"

#include <stdlib.h>
#include <string.h>

#include "options.h"

const char *ft_devtools_opt(const char *arg, const char *name) {
  size_t n = strlen(name);
  return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

int ft_devtools_size(const char *s, uint64_t whole, uint64_t *out) {
  size_t n = strlen(s);
  if (n > 1 && s[n - 1] == '%') {
    char *end;
    double pc = strtod(s, &end);
    if (end != s + n - 1 || pc <= 0 || pc > 100) return -1;
    *out = (uint64_t)(whole * (pc / 100.0));
    return 0;
  }
  int64_t v;
  /* the options' size grammar (shim/options.c), so "512MiB" means the same everywhere */
  if (ft_option_parse(FT_OPT_CHUNK, s, &v) != 0 || v <= 0) return -1;
  *out = (uint64_t)v;
  return 0;
}
