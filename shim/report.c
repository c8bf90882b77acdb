/* report.c: what gpuft did, at exit: a short summary on stderr when the program
 * used CUDA, and the JSON report at GPUFT_REPORT (DESIGN.md section 9). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "codec.h"
#include "engine.h"
#include "inject.h"

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

static const char *const outcome_name[] = {"corrected", "restored", "recovered", "uncorrectable",
                                           "detected"};

/* Coverage: close the open intervals of live allocations (engine lock held). */
static double coverage(void) {
  double t = ft_now(), cov = ft_st.covered_byte_s, tot = ft_st.total_byte_s;
  for (size_t i = 0; i < ft_reg_count(); i++) {
    const ft_alloc_t *a = ft_reg_at(i);
    double bs = (double)a->size * (t - a->t_state);
    tot += bs;
    if (a->state == FT_ST_CLEAN) cov += bs;
  }
  return tot > 0 ? cov / tot : 0.0;
}

static uint64_t unprotected_ops(void) {
  uint64_t u = 0;
  for (int i = 0; i < FT_N_HOOKS; i++) u += ft_unprotected_calls((ft_hook_id_t)i);
  return u;
}

int ft_report_write_json(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  ft_lock();
  const ft_engine_stats_t *s = &ft_st;
  static const char *const modes[] = {"detect", "correct", "recover"};
  fprintf(f, "{\n  \"gpuft_version\": \"%s\",\n  \"enabled\": %s,\n  \"pid\": %d,\n", GPUFT_VERSION,
          ft_enabled ? "true" : "false", (int)getpid());
  fprintf(f, "  \"mode\": \"%s\",\n  \"codec\": \"%s\",\n", modes[FT_OPT(MODE) % 3],
          ft_codec_variant());
  fprintf(f,
          "  \"errors\": {\"detected\": %ju, \"corrected\": %ju, \"recovered\": %ju, "
          "\"restored_from_checkpoint\": %ju, \"uncorrectable\": %ju, \"permanent\": %ju, "
          "\"code_words\": %ju},\n",
          (uintmax_t)s->detected, (uintmax_t)s->corrected, (uintmax_t)s->recovered,
          (uintmax_t)s->restored, (uintmax_t)s->uncorrectable, (uintmax_t)s->permanent,
          (uintmax_t)s->code_errors);
  fprintf(f,
          "  \"bytes\": {\"protected\": %ju, \"checkpoint\": %ju, \"shadow\": %ju, \"encoded_host\": %ju, "
          "\"encoded_device\": %ju, \"verified_device\": %ju},\n",
          (uintmax_t)s->bytes_protected_peak, (uintmax_t)s->bytes_checkpoint_peak,
          (uintmax_t)s->bytes_shadow,
          (uintmax_t)s->bytes_encoded_host, (uintmax_t)s->bytes_encoded_device,
          (uintmax_t)s->bytes_verified_device);
  fprintf(f,
          "  \"launches\": %ju,\n  \"launches_protected\": %ju,\n  \"verifications\": %ju,\n"
          "  \"encodes\": %ju,\n  \"unprotected_ops\": %ju,\n  \"unknown_writers\": %ju,\n"
          "  \"learned_writes\": %ju,\n  \"replays\": %ju,\n  \"replayed_ops\": %ju,\n"
          "  \"allocations\": %ju,\n  \"allocations_unprotected\": %ju,\n"
          "  \"cpu_seconds\": %.6f,\n  \"coverage\": %.6f,\n",
          (uintmax_t)s->launches, (uintmax_t)s->launches_protected, (uintmax_t)s->verifications,
          (uintmax_t)s->encodes, (uintmax_t)unprotected_ops(), (uintmax_t)s->unknown_writers,
          (uintmax_t)s->learned_writes, (uintmax_t)s->replays, (uintmax_t)s->replayed_ops,
          (uintmax_t)s->allocations,
          (uintmax_t)s->allocations_unprotected, s->cpu_seconds, coverage());
  ft_inject_report(f);
  fprintf(f, "  \"events\": [");
  for (int i = 0; i < ft_nevents; i++) {
    const ft_error_event_t *e = &ft_events[i];
    fprintf(f,
            "%s\n    {\"allocation\": %ju, \"base\": \"%#jx\", \"size\": %ju, \"offset\": %ju, "
            "\"bit\": %d, \"kind\": ",
            i ? "," : "", (uintmax_t)e->alloc_id, (uintmax_t)e->alloc_base,
            (uintmax_t)e->alloc_size, (uintmax_t)e->offset, e->bit);
    json_str(f, e->kind);
    fprintf(f, ", \"outcome\": \"%s\", \"where\": ", outcome_name[e->outcome % 5]);
    json_str(f, e->where);
    fputc('}', f);
  }
  fprintf(f, "%s],\n", ft_nevents ? "\n  " : "");
  ft_unlock();
  fprintf(f, "  \"driver_calls\": %ju,\n  \"calls\": {", (uintmax_t)ft_total_calls());
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
  /* results still in flight are part of the run */
  ft_commit_all();
  if (ft_log_level >= FT_LOG_WARN) {
    ft_lock();
    const ft_engine_stats_t *s = &ft_st;
    ft_log(FT_LOG_INFO,
           "%.1f MiB protected in %ju allocations, %ju of %ju launches checked; errors: %ju "
           "detected, %ju corrected, %ju recovered, %ju uncorrectable; %ju unprotected operations",
           (double)s->bytes_protected_peak / 1048576.0, (uintmax_t)(s->allocations - s->allocations_unprotected),
           (uintmax_t)s->launches_protected, (uintmax_t)s->launches, (uintmax_t)s->detected,
           (uintmax_t)s->corrected, (uintmax_t)s->recovered, (uintmax_t)s->uncorrectable,
           (uintmax_t)unprotected_ops());
    ft_unlock();
  }
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
