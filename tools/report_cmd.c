/* report_cmd.c: `gpuft report FILE...`: one report in words, or several (one per
 * rank or process) merged into one table with totals. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "report_json.h"

typedef struct {
  const char *path;
  json_t *js;
} rep_t;

/* The error counters, in the order of the columns and of the one-report text. */
static const char *const counters[] = {"detected", "corrected", "recovered", "uncorrectable",
                                       "permanent"};
#define N_COUNTERS (sizeof counters / sizeof *counters)

static const char *rank_of(json_t *js, char *buf, size_t cap) {
  json_t *r = json_object_get(js, "rank");
  if (json_is_string(r)) return json_string_value(r);
  if (json_is_integer(r)) return snprintf(buf, cap, "%lld", (long long)json_integer_value(r)), buf;
  return "-";
}

static int by_rank(const void *a, const void *b) {
  const rep_t *x = a, *y = b;
  char bx[32], by[32];
  const char *rx = rank_of(x->js, bx, sizeof bx), *ry = rank_of(y->js, by, sizeof by);
  long lx = strtol(rx, NULL, 10), ly = strtol(ry, NULL, 10);
  if (lx != ly) return lx < ly ? -1 : 1;
  return (int)(ft_ju64(x->js, "pid") - ft_ju64(y->js, "pid"));
}

static const char *ended(json_t *js) {
  const char *how = ft_jstr(js, "ended.how", "exit");
  return !strcmp(how, "signal") ? ft_jstr(js, "ended.signal_name", "signal") : how;
}

static void one(const rep_t *r) {
  json_t *js = r->js;
  char rb[32];
  printf("%s: gpuft %s, schema %lld\n", r->path, ft_jstr(js, "gpuft_version", "?"),
         (long long)ft_ju64(js, "schema"));
  printf("  process   pid %ju, rank %s, host %s\n", (uintmax_t)ft_ju64(js, "pid"),
         rank_of(js, rb, sizeof rb), ft_jstr(js, "host", "?"));
  json_t *cmd = json_object_get(js, "command");
  if (json_array_size(cmd)) {
    printf("  command  ");
    size_t i;
    json_t *a;
    json_array_foreach(cmd, i, a) printf(" %s", json_string_value(a) ? json_string_value(a) : "?");
    printf("\n");
  }
  printf("  time      %s to %s (%.1f s), ended by %s%s\n", ft_jstr(js, "start", "?"),
         ft_jstr(js, "end", "?"), ft_jnum(js, "seconds"), ended(js),
         json_is_false(ft_jget(js, "ended.complete")) ? " (work in flight not verified)" : "");
  if (json_is_object(json_object_get(js, "gpu")))
    printf("  gpu       %s, %s, driver %ju (device %ju)\n", ft_jstr(js, "gpu.name", "?"),
           ft_jstr(js, "gpu.uuid", "?"), (uintmax_t)ft_ju64(js, "gpu.driver_version"),
           (uintmax_t)ft_ju64(js, "gpu.device"));
  printf("  mode      %s, codec %s\n", ft_jstr(js, "mode", "?"), ft_jstr(js, "codec", "?"));
  printf("  protected %.1f MiB at peak, %ju of %ju allocations, %ju of %ju launches checked, "
         "coverage %.1f %%\n", ft_jnum(js, "bytes.protected") / 1048576.0,
         (uintmax_t)(ft_ju64(js, "allocations") - ft_ju64(js, "allocations_unprotected")),
         (uintmax_t)ft_ju64(js, "allocations"), (uintmax_t)ft_ju64(js, "launches_protected"),
         (uintmax_t)ft_ju64(js, "launches"), 100 * ft_jnum(js, "coverage"));
  printf("  errors   ");
  for (size_t k = 0; k < N_COUNTERS; k++) {
    char path[64];
    snprintf(path, sizeof path, "errors.%s", counters[k]);
    printf(" %ju %s%s", (uintmax_t)ft_ju64(js, path), counters[k], k + 1 < N_COUNTERS ? "," : "\n");
  }
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(js, "events"), i, e)
    printf("    allocation %ju, offset %ju, bit %lld: %s, %s (%s)\n", (uintmax_t)ft_ju64(e, "allocation"),
           (uintmax_t)ft_ju64(e, "offset"), (long long)json_integer_value(json_object_get(e, "bit")),
           ft_jstr(e, "kind", "?"), ft_jstr(e, "outcome", "?"), ft_jstr(e, "where", "?"));
  printf("  unprotected operations %ju\n", (uintmax_t)ft_ju64(js, "unprotected_ops"));
}

static void table(rep_t *r, int n) {
  qsort(r, (size_t)n, sizeof *r, by_rank);
  printf("%-6s %-16s %8s %-14s %9s %9s", "rank", "host", "pid", "gpu", "launches", "checked");
  for (size_t k = 0; k < N_COUNTERS; k++) printf(" %13s", counters[k]);
  printf("  %s\n", "ended");
  uint64_t tot[N_COUNTERS] = {0}, launches = 0, checked = 0;
  for (int i = 0; i < n; i++) {
    json_t *js = r[i].js;
    char rb[32], gpu[16];
    /* the end of the UUID tells boards apart (the simulator's share their start) */
    const char *uuid = ft_jstr(js, "gpu.uuid", "-");
    size_t ul = strlen(uuid);
    snprintf(gpu, sizeof gpu, "%s%s", ul > 14 ? ".." : "", ul > 14 ? uuid + ul - 12 : uuid);
    printf("%-6s %-16.16s %8ju %-14s %9ju %9ju", rank_of(js, rb, sizeof rb), ft_jstr(js, "host", "?"),
           (uintmax_t)ft_ju64(js, "pid"), gpu, (uintmax_t)ft_ju64(js, "launches"),
           (uintmax_t)ft_ju64(js, "launches_protected"));
    launches += ft_ju64(js, "launches");
    checked += ft_ju64(js, "launches_protected");
    for (size_t k = 0; k < N_COUNTERS; k++) {
      char path[64];
      snprintf(path, sizeof path, "errors.%s", counters[k]);
      tot[k] += ft_ju64(js, path);
      printf(" %13ju", (uintmax_t)ft_ju64(js, path));
    }
    printf("  %s\n", ended(js));
  }
  printf("%-6s %-16s %8s %-14s %9ju %9ju", "total", "", "", "", (uintmax_t)launches, (uintmax_t)checked);
  for (size_t k = 0; k < N_COUNTERS; k++) printf(" %13ju", (uintmax_t)tot[k]);
  printf("  %d reports\n", n);
}

int ft_report_cmd_main(int argc, char **argv) {
  static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
    if (c == 'h') {
      printf("usage: gpuft report FILE...\n\n"
             "One report: what gpuft did in that process, in words. Several (one per MPI rank\n"
             "or process, e.g. GPUFT_REPORT='run-%%r.json'): one table, a row per\n"
             "report sorted by rank, and the totals. Exit status 0, or 2 if a file is not a\n"
             "gpuft report.\n");
      return 0;
    }
    fprintf(stderr, "gpuft report: unknown option '%s'\n", argv[optind - 1]);
    return 2;
  }
  int n = argc - optind;
  if (n <= 0) {
    fprintf(stderr, "usage: gpuft report FILE...\n");
    return 2;
  }
  rep_t *r = calloc((size_t)n, sizeof *r);
  int rc = r ? 0 : 2;
  for (int i = 0; r && i < n; i++) {
    char err[512];
    r[i].path = argv[optind + i];
    r[i].js = ft_report_load(r[i].path, err, sizeof err);
    if (!r[i].js) {
      fprintf(stderr, "gpuft report: %s\n", err);
      rc = 2;
    }
  }
  if (!rc) {
    if (n == 1) one(&r[0]);
    else table(r, n);
  }
  for (int i = 0; r && i < n; i++) json_decref(r[i].js);
  free(r);
  return rc;
}
