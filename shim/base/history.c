/* history.c: the per-GPU error history file (history.h): append-only JSON lines, one
 * write per record, merged per bad word on reading. No CUDA: shared by the launcher. */
#define _GNU_SOURCE
#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ft_history_path(const char *dir, const char *uuid, char *out, size_t cap) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (dir && *dir) n = snprintf(out, cap, "%s/%s.jsonl", dir, uuid);
  else if (xdg && *xdg) n = snprintf(out, cap, "%s/gpuft/%s.jsonl", xdg, uuid);
  else if (home && *home) n = snprintf(out, cap, "%s/.cache/gpuft/%s.jsonl", home, uuid);
  else return -1;
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

static char g_boot[64];
static pthread_once_t g_boot_once = PTHREAD_ONCE_INIT;
static void read_boot(void) {
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (!f) return;
  if (fgets(g_boot, sizeof g_boot, f)) g_boot[strcspn(g_boot, "\r\n \"\\")] = 0;
  else g_boot[0] = 0;
  fclose(f);
}
const char *ft_history_boot_id(void) {
  pthread_once(&g_boot_once, read_boot);
  return g_boot;
}

/* mkdir -p of the file's directory. */
static void make_dirs(const char *path) {
  char d[4096];
  snprintf(d, sizeof d, "%s", path);
  char *slash = strrchr(d, '/');
  if (!slash || slash == d) return;
  *slash = 0;
  for (char *p = d + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(d, 0755);
      *p = '/';
    }
  mkdir(d, 0755);
}

int ft_history_append(const char *path, const char *fields) {
  char line[2048];
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int n = snprintf(line, sizeof line, "{\"v\": 1, \"t\": %.3f, \"boot\": \"%s\", %s}\n",
                   (double)ts.tv_sec + ts.tv_nsec * 1e-9, ft_history_boot_id(), fields);
  if (n <= 0 || (size_t)n >= sizeof line) return errno = EINVAL, -1;
  make_dirs(path);
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  ssize_t w = write(fd, line, (size_t)n); /* one write: atomic against other appenders */
  int e = errno;
  close(fd);
  if (w != n) return errno = w < 0 ? e : EIO, -1;
  return 0;
}

/* ---- reading ---- */

static const char *field(const char *line, const char *key) {
  char pat[48];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(line, pat);
  if (!p) return NULL;
  p += strlen(pat);
  while (*p == ' ') p++;
  return p;
}
static int num(const char *line, const char *key, double *out) {
  const char *p = field(line, key);
  char *end;
  if (!p) return -1;
  *out = strtod(p, &end);
  return end == p ? -1 : 0;
}
static int u64(const char *line, const char *key, uint64_t *out) {
  const char *p = field(line, key);
  char *end;
  if (!p || *p < '0' || *p > '9') return -1;
  *out = strtoull(p, &end, 0);
  return 0;
}
static int str(const char *line, const char *key, char *out, size_t cap) {
  const char *p = field(line, key);
  if (!p || *p != '"') return -1;
  size_t n = strcspn(++p, "\"");
  if (n >= cap) n = cap - 1;
  memcpy(out, p, n);
  out[n] = 0;
  return 0;
}

static int cmp_fault(const void *a, const void *b) {
  uint64_t x = ((const ft_hist_fault_t *)a)->addr, y = ((const ft_hist_fault_t *)b)->addr;
  return x < y ? -1 : x > y;
}

static ft_hist_fault_t *fault_slot(ft_hist_t *h, uint64_t addr, size_t *cap) {
  for (size_t i = 0; i < h->n_faults; i++) /* histories are short: a few bad words */
    if (h->faults[i].addr == addr) return &h->faults[i];
  if (h->n_faults == *cap) {
    size_t nc = *cap ? 2 * *cap : 16;
    ft_hist_fault_t *nf = realloc(h->faults, nc * sizeof *nf);
    if (!nf) return NULL;
    h->faults = nf;
    *cap = nc;
  }
  ft_hist_fault_t *f = &h->faults[h->n_faults++];
  memset(f, 0, sizeof *f);
  f->addr = addr;
  return f;
}

static void take_line(ft_hist_t *h, const char *line, size_t *cap) {
  char type[16], boot[64] = "", src[32] = "";
  double t = 0;
  if (str(line, "type", type, sizeof type) || num(line, "t", &t)) {
    h->bad_lines++;
    return;
  }
  str(line, "boot", boot, sizeof boot);
  int now = boot[0] && !strcmp(boot, ft_history_boot_id());
  if (!strcmp(type, "memtest")) {
    uint64_t errors = 0, bytes = 0;
    u64(line, "errors", &errors);
    u64(line, "bytes", &bytes);
    h->runs_aggregate++;
    h->errors_aggregate += errors;
    h->runs_volatile += now;
    h->errors_volatile += now ? errors : 0;
    if (t >= h->t_last) h->t_last = t, h->bytes_last = bytes;
    return;
  }
  uint64_t addr, bits = 0;
  if (strcmp(type, "fault") || u64(line, "addr", &addr)) {
    h->bad_lines++;
    return;
  }
  u64(line, "bits", &bits);
  str(line, "src", src, sizeof src);
  ft_hist_fault_t *f = fault_slot(h, addr & ~(uint64_t)3, cap);
  if (!f) return;
  f->bits |= (uint32_t)bits;
  f->n_aggregate++;
  f->n_volatile += now;
  if (!f->first || t < f->first) f->first = t;
  if (t >= f->last) f->last = t, snprintf(f->src, sizeof f->src, "%s", src);
  if (!strncmp(src, "runtime", 7)) h->runtime_aggregate++, h->runtime_volatile += now;
}

int ft_history_read(const char *path, ft_hist_t *h) {
  memset(h, 0, sizeof *h);
  FILE *f = fopen(path, "r");
  if (!f) return errno == ENOENT ? 0 : -1;
  char *line = NULL;
  size_t lcap = 0, cap = 0;
  while (getline(&line, &lcap, f) > 0) take_line(h, line, &cap);
  free(line);
  fclose(f);
  if (h->n_faults) qsort(h->faults, h->n_faults, sizeof *h->faults, cmp_fault);
  return 0;
}

void ft_history_free(ft_hist_t *h) {
  free(h->faults);
  memset(h, 0, sizeof *h);
}
