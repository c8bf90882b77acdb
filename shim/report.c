/* report.c: what gpuft did, at exit: a short summary on stderr when the program
 * used CUDA, and the JSON report at GPUFT_REPORT (DESIGN.md section 9). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "codec.h"
#include "ft.h"

static int g_forked_child;

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

int ft_report_write_json(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  uint64_t unprot = 0;
  for (int i = 0; i < FT_N_HOOKS; i++) unprot += ft_unprotected_calls((ft_hook_id_t)i);
  fprintf(f, "{\n  \"gpuft_version\": \"%s\",\n  \"enabled\": %s,\n  \"pid\": %d,\n",
          GPUFT_VERSION, ft_enabled ? "true" : "false", (int)getpid());
  fprintf(f, "  \"protection\": \"pass-through\",\n  \"codec\": \"%s\",\n", ft_codec_variant());
  fprintf(f, "  \"driver_calls\": %ju,\n  \"unprotected_ops\": %ju,\n  \"calls\": {",
          (uintmax_t)ft_total_calls(), (uintmax_t)unprot);
  int first = 1;
  for (int i = 0; i < FT_N_HOOKS; i++) {
    uint64_t c = ft_calls((ft_hook_id_t)i);
    if (!c) continue;
    fprintf(f, "%s\n    \"%s\": %ju", first ? "" : ",", ft_hooks[i].name, (uintmax_t)c);
    first = 0;
  }
  fprintf(f, "%s},\n  \"unprotected\": {", first ? "" : "\n  ");
  first = 1;
  for (int i = 0; i < FT_N_HOOKS; i++) {
    uint64_t c = ft_unprotected_calls((ft_hook_id_t)i);
    if (!c) continue;
    fprintf(f, "%s\n    \"%s\": %ju", first ? "" : ",", ft_hooks[i].name, (uintmax_t)c);
    first = 0;
  }
  fprintf(f, "%s},\n  \"unhooked_entry_points\": [", first ? "" : "\n  ");
  const char *names[128];
  int n = ft_unhooked_names(names, 128);
  for (int i = 0; i < n; i++) {
    fputs(i ? ", " : "", f);
    json_str(f, names[i]);
  }
  fprintf(f, "]\n}\n");
  return fclose(f) == 0 ? 0 : -1;
}

static void at_exit(void) {
  if (!__atomic_load_n(&ft_ready, __ATOMIC_ACQUIRE) || !ft_enabled) return;
  uint64_t total = ft_total_calls();
  if (total == 0) return; /* a program that never used CUDA: say nothing */
  uint64_t unprot = 0;
  for (int i = 0; i < FT_N_HOOKS; i++) unprot += ft_unprotected_calls((ft_hook_id_t)i);
  FT_INFO("%ju driver calls passed through (protection not implemented yet), %ju unprotected "
          "operations", (uintmax_t)total, (uintmax_t)unprot);
  const char *path = FT_OPT_S(REPORT);
  if (path && path[0]) {
    char buf[4096];
    if (g_forked_child) { /* never overwrite the parent's report */
      snprintf(buf, sizeof buf, "%s.%d", path, (int)getpid());
      path = buf;
    }
    if (ft_report_write_json(path) != 0) FT_WARN("cannot write the report to %s", path);
  }
}

static void atfork_child(void) {
  g_forked_child = 1;
  ft_stats_atfork_child();
}

/* Load time: nothing visible, only what must exist before any CUDA call. */
__attribute__((constructor)) static void ft_load(void) {
  pthread_atfork(NULL, NULL, atfork_child);
  atexit(at_exit);
}
