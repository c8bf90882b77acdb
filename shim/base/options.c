/* options.c: parsing of the options table (options.h) from GPUFT_<NAME>, once. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../common/nearest.h"
#include "ft.h"

extern char **environ;

/* GPUFT_* variables that are not options of the table but are read by gpuft's own
 * programs (launcher, tests, scripts): known, so never reported as misspelt. */
static const char *const ft_env_other[] = {"REPORT_TEMPORARY", "PYTHON", "TEST_DRIVER", "LIB", "BUILD_DIR"};

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

/* What a valid value of option o looks like, for messages. */
static const char *expected(const ft_option_t *o) {
  switch (o->kind) {
    case FT_OPTK_ENUM: return o->choices;
    case FT_OPTK_BOOL: return "1/0/true/false/on/off/yes/no";
    case FT_OPTK_SIZE: return "a size such as 512MiB";
    default: return "a non-negative integer";
  }
}

void ft_option_warn_invalid(int id, const char *value) {
  const ft_option_t *o = &ft_options[id];
  char near[64] = "", hint[96] = "";
  if (o->kind == FT_OPTK_ENUM && ftc_nearest_choice(value, o->choices, near, sizeof near) == 0)
    snprintf(hint, sizeof hint, "; did you mean \"%s\"?", near);
  FT_WARN("GPUFT_%s=\"%.64s\" is not valid (%s%s%s): keeping the default \"%s\"", o->name, value,
          o->kind == FT_OPTK_ENUM ? "one of " : "expected ", expected(o), hint, o->def);
}

int ft_option_nearest(const char *name) {
  const char *names[FT_N_OPTIONS];
  for (int i = 0; i < FT_N_OPTIONS; i++) names[i] = ft_options[i].name;
  return ftc_nearest(name, names, FT_N_OPTIONS);
}

int ft_option_lookup(const char *name) {
  for (int i = 0; i < FT_N_OPTIONS; i++)
    if (!strcmp(name, ft_options[i].name)) return i;
  return -1;
}

int ft_options_warn_unknown(void) {
  enum { N_OTHER = sizeof ft_env_other / sizeof *ft_env_other };
  const char *known[FT_N_OPTIONS + N_OTHER];
  for (int i = 0; i < FT_N_OPTIONS; i++) known[i] = ft_options[i].name;
  for (int i = 0; i < N_OTHER; i++) known[FT_N_OPTIONS + i] = ft_env_other[i];
  char name[64];
  int n = 0;
  for (size_t i = 0; ftc_env_unknown(environ, &i, "GPUFT_", known, FT_N_OPTIONS + N_OTHER, name, sizeof name); n++) {
    int near = ft_option_nearest(name);
    if (near >= 0)
      FT_WARN("GPUFT_%s is not a gpuft option (did you mean GPUFT_%s?): ignored", name,
              ft_options[near].name);
    else
      FT_WARN("GPUFT_%s is not a gpuft option (docs/options.md lists them): ignored", name);
  }
  return n;
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
  ft_options_warn_unknown();
  for (int i = 0; i < FT_N_OPTIONS; i++)
    if (bad[i]) ft_option_warn_invalid(i, bad[i]);
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
