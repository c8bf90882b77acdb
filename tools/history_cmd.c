/* history_cmd.c: `gpuft history`: the per-GPU error histories (shim/history.h) printed the
 * way `nvidia-smi -q -d ECC` prints its counters: volatile (this boot) and aggregate. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devtools.h"
#include "history.h"

static void when(double t, char *out, size_t cap) {
  time_t s = (time_t)t;
  struct tm tm;
  if (t <= 0 || !localtime_r(&s, &tm) || !strftime(out, cap, "%Y-%m-%d %H:%M:%S", &tm))
    snprintf(out, cap, "never");
}

static int show(const char *path, const char *uuid) {
  ft_hist_t h;
  if (ft_history_read(path, &h) != 0) {
    fprintf(stderr, "gpuft history: cannot read %s\n", path);
    return -1;
  }
  char t[32];
  uint64_t bad_v = 0, pages = 0, last_page = ~0ull;
  for (size_t i = 0; i < h.n_faults; i++) bad_v += h.faults[i].n_volatile > 0;
  printf("GPU %s\n", uuid);
  printf("    %-38s: %s\n", "History file", path);
  printf("    Memory tests (gpuft memtest)\n");
  when(h.t_last, t, sizeof t);
  printf("        %-34s: %llu runs, %llu word errors\n", "Volatile",
         (unsigned long long)h.runs_volatile, (unsigned long long)h.errors_volatile);
  printf("        %-34s: %llu runs, %llu word errors\n", "Aggregate",
         (unsigned long long)h.runs_aggregate, (unsigned long long)h.errors_aggregate);
  printf("        %-34s: %s, %.1f MiB\n", "Last run", t, h.bytes_last / 1048576.0);
  printf("    Permanent faults found at run time\n");
  printf("        %-34s: %llu\n", "Volatile", (unsigned long long)h.runtime_volatile);
  printf("        %-34s: %llu\n", "Aggregate", (unsigned long long)h.runtime_aggregate);
  printf("    Bad words\n");
  printf("        %-34s: %llu\n", "Volatile", (unsigned long long)bad_v);
  printf("        %-34s: %zu\n", "Aggregate", h.n_faults);
  for (size_t i = 0; i < h.n_faults; i++) {
    const ft_hist_fault_t *f = &h.faults[i];
    when(f->last, t, sizeof t);
    printf("        Address 0x%012llx              : bits 0x%08x, volatile %llu, aggregate %llu, "
           "last %s (%s)\n", (unsigned long long)f->addr, f->bits,
           (unsigned long long)f->n_volatile, (unsigned long long)f->n_aggregate, t, f->src);
    uint64_t page = f->addr >> 21;
    pages += page != last_page;
    last_page = page;
  }
  printf("    Retired pages (2 MiB, GPUFT_QUARANTINE=1)\n");
  printf("        %-34s: %llu\n", "Pages", (unsigned long long)pages);
  last_page = ~0ull;
  for (size_t i = 0; i < h.n_faults; i++)
    if ((h.faults[i].addr >> 21) != last_page) {
      last_page = h.faults[i].addr >> 21;
      printf("        Page 0x%012llx\n", (unsigned long long)(last_page << 21));
    }
  if (h.bad_lines) printf("    (%llu unreadable lines skipped)\n", (unsigned long long)h.bad_lines);
  printf("\n");
  ft_history_free(&h);
  return 0;
}

int ft_history_main(int argc, char **argv) {
  const char *uuid = NULL, *dir = getenv("GPUFT_HISTORY_DIR"), *v;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: gpuft history [--uuid=GPU-...] [--history-dir=DIR]\n\n"
             "Prints the error history of each GPU (or of one): memtest runs, permanent faults\n"
             "found at run time, bad words and the 2 MiB pages GPUFT_QUARANTINE=1 retires.\n"
             "Volatile: since this boot; aggregate: all time. Folder: --history-dir,\n"
             "GPUFT_HISTORY_DIR, $XDG_CACHE_HOME/gpuft or ~/.cache/gpuft.\n");
      return 0;
    }
    if ((v = ft_devtools_opt(argv[i], "--uuid"))) uuid = v;
    else if ((v = ft_devtools_opt(argv[i], "--history-dir"))) dir = v;
    else {
      fprintf(stderr, "gpuft history: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  char path[4096];
  if (ft_history_path(dir, uuid ? uuid : "x", path, sizeof path) != 0) {
    fprintf(stderr, "gpuft history: no cache directory (set HOME or --history-dir)\n");
    return 2;
  }
  printf("gpuft error history, boot %s\n\n", ft_history_boot_id());
  if (uuid) return show(path, uuid) ? 2 : 0;
  *strrchr(path, '/') = 0;
  DIR *d = opendir(path);
  int shown = 0, rc = 0;
  struct dirent **list = NULL;
  int n = d ? scandir(path, &list, NULL, alphasort) : 0;
  if (d) closedir(d);
  for (int i = 0; i < n; i++) {
    size_t len = strlen(list[i]->d_name);
    if (len > 6 && !strcmp(list[i]->d_name + len - 6, ".jsonl")) {
      char file[4400], id[256];
      snprintf(file, sizeof file, "%s/%s", path, list[i]->d_name);
      snprintf(id, sizeof id, "%.*s", (int)(len - 6), list[i]->d_name);
      rc |= show(file, id) != 0;
      shown++;
    }
    free(list[i]);
  }
  free(list);
  if (!shown) printf("no history in %s (gpuft memtest records one)\n", path);
  return rc ? 2 : 0;
}
