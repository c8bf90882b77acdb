/* options.c: parsing of the options table (options.h) from GPUFT_<NAME>, once. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ft.h"

const ft_option_t ft_options[FT_N_OPTIONS] = {
#define FT_OPT_ROW_(name, kind, def, lo, hi, choices, doc) \
  {#name, FT_OPTK_##kind, def, lo, hi, choices, doc},
    FT_OPTIONS(FT_OPT_ROW_)
#undef FT_OPT_ROW_
};

int64_t ft_opt_int[FT_N_OPTIONS];
const char *ft_opt_str[FT_N_OPTIONS];

static int parse_bool(const char *s, int64_t *out) {
  static const char *const yes[] = {"1", "true", "on", "yes"}, *const no[] = {"0", "false", "off", "no"};
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(s, yes[i])) return *out = 1, 0;
    if (!strcasecmp(s, no[i])) return *out = 0, 0;
  }
  return -1;
}

static int parse_uint(const char *s, int64_t *out, const char **rest) {
  if (*s < '0' || *s > '9') return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || v > (unsigned long long)INT64_MAX) return -1;
  *out = (int64_t)v;
  *rest = end;
  return 0;
}

static int parse_size(const char *s, int64_t *out) {
  const char *rest;
  int64_t v;
  if (parse_uint(s, &v, &rest)) return -1;
  static const struct { const char *suf; int shift; } units[] = {
      {"", 0}, {"B", 0}, {"K", 10}, {"KB", 10}, {"KiB", 10}, {"M", 20}, {"MB", 20},
      {"MiB", 20}, {"G", 30}, {"GB", 30}, {"GiB", 30}, {"T", 40}, {"TiB", 40}};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    if (strcasecmp(rest, units[i].suf) == 0) {
      if (units[i].shift && v > (INT64_MAX >> units[i].shift)) return -1;
      *out = v << units[i].shift;
      return 0;
    }
  }
  return -1;
}

static int parse_enum(const char *choices, const char *s, int64_t *out) {
  int64_t idx = 0;
  size_t n = strlen(s);
  for (const char *p = choices; p && *p; idx++) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == n && strncasecmp(p, s, n) == 0) return *out = idx, 0;
    p = bar ? bar + 1 : NULL;
  }
  return -1;
}

int ft_option_parse(int id, const char *s, int64_t *out) {
  if (id < 0 || id >= FT_N_OPTIONS || !s) return -1;
  const ft_option_t *o = &ft_options[id];
  const char *rest;
  switch (o->kind) {
    case FT_OPTK_BOOL: return parse_bool(s, out);
    case FT_OPTK_INT: return parse_uint(s, out, &rest) || *rest ? -1 : 0;
    case FT_OPTK_SIZE: return parse_size(s, out);
    case FT_OPTK_ENUM: return parse_enum(o->choices, s, out);
    case FT_OPTK_STR: *out = 0; return 0;
  }
  return -1;
}

/* INT and SIZE values outside the option's range take the nearest bound. */
static int64_t clamp(const ft_option_t *o, int64_t v) {
  if (o->kind != FT_OPTK_INT && o->kind != FT_OPTK_SIZE) return v;
  return v < o->min ? o->min : v > o->max ? o->max : v;
}

void ft_options_init(void) {
  char env[64];
  const char *bad[FT_N_OPTIONS] = {0}, *clamped[FT_N_OPTIONS] = {0};
  for (int i = 0; i < FT_N_OPTIONS; i++) {
    const ft_option_t *o = &ft_options[i];
    int rc = ft_option_parse(i, o->def, &ft_opt_int[i]);
    FT_ASSERT(rc == 0); /* the table's defaults parse */
    ft_opt_str[i] = o->def;
    snprintf(env, sizeof env, "GPUFT_%s", o->name);
    const char *v = getenv(env);
    if (!v) continue;
    int64_t parsed;
    if (ft_option_parse(i, v, &parsed) != 0) {
      bad[i] = v;
      continue;
    }
    ft_opt_int[i] = clamp(o, parsed);
    ft_opt_str[i] = v;
    if (ft_opt_int[i] != parsed) clamped[i] = v;
  }
  /* Logging follows the options; warn about bad values only now. */
  ft_log_level = (int)FT_OPT(LOG);
  for (int i = 0; i < FT_N_OPTIONS; i++)
    if (bad[i])
      FT_WARN("GPUFT_%s=\"%.64s\" is not valid (%s%s%s): keeping the default \"%s\"",
              ft_options[i].name, bad[i],
              ft_options[i].kind == FT_OPTK_ENUM ? "one of " : "expected ",
              ft_options[i].kind == FT_OPTK_ENUM ? ft_options[i].choices
              : ft_options[i].kind == FT_OPTK_BOOL ? "1/0/true/false/on/off/yes/no"
              : ft_options[i].kind == FT_OPTK_SIZE ? "a size such as 512MiB"
                                                    : "a non-negative integer",
              "", ft_options[i].def);
  for (int i = 0; i < FT_N_OPTIONS; i++)
    if (clamped[i]) {
      FT_WARN("GPUFT_%s=%.64s is out of range [%jd, %jd]: using %jd", ft_options[i].name,
              clamped[i], (intmax_t)ft_options[i].min, (intmax_t)ft_options[i].max,
              (intmax_t)ft_opt_int[i]);
      /* what the program runs with, for the debug listing and the report */
      static char shown[FT_N_OPTIONS][24];
      snprintf(shown[i], sizeof shown[i], "%jd", (intmax_t)ft_opt_int[i]);
      ft_opt_str[i] = shown[i];
    }
  if (ft_log_level >= FT_LOG_DEBUG)
    for (int i = 0; i < FT_N_OPTIONS; i++)
      FT_DEBUG("option GPUFT_%-14s = %-10s (default %s) %s", ft_options[i].name,
               ft_opt_str[i][0] ? ft_opt_str[i] : "\"\"", ft_options[i].def[0] ? ft_options[i].def : "\"\"",
               ft_options[i].doc);
}
