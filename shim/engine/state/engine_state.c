/* engine_state.c: the engine lock, the engine's statistics and error events, the
 * epoch number, what lower floors tell upper ones (ft_obs), and clocks. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "state.h"

ft_mutex_t ft_eng_lock = PTHREAD_MUTEX_INITIALIZER;
ft_engine_stats_t ft_st;
uint64_t ft_epoch = 1;
ft_observers_t ft_obs;
int ft_replay_pending;
int ft_captures_open;
static pthread_rwlock_t g_capture_gate = PTHREAD_RWLOCK_INITIALIZER;
void ft_capture_gate_close(void) { pthread_rwlock_wrlock(&g_capture_gate); }
void ft_capture_gate_open(void) { pthread_rwlock_unlock(&g_capture_gate); }
void ft_capture_gate_pass(void) { pthread_rwlock_rdlock(&g_capture_gate); }
void ft_capture_gate_done(void) { pthread_rwlock_unlock(&g_capture_gate); }

int ft_replay_owed(void) { return __atomic_load_n(&ft_replay_pending, __ATOMIC_ACQUIRE); }

/* Whether this thread holds the lock: read by the signal handler (report.c), which
 * must not wait for a lock its own thread holds. */
__thread int ft_tls_holds_lock __attribute__((tls_model("initial-exec")));
/* when and where this thread took the lock, with the profile on (-1: off) */
static __thread double g_locked_at __attribute__((tls_model("initial-exec")));
static __thread int g_locked_site __attribute__((tls_model("initial-exec")));

/* GPUFT_LOCK_PROFILE: the places the lock is taken, by file and line (open
 * addressing; the file names are string literals, compared by address). Under the
 * lock. Slot 0 collects places past the table's room. */
#define FT_LOCK_SITES 256
static struct {
  const char *file;
  int line;
  uint64_t taken;
  double held, longest;
} g_sites[FT_LOCK_SITES];

static int site_of(const char *file, int line) {
  unsigned h = (unsigned)(((uintptr_t)file >> 3) * 2654435761u + (unsigned)line * 40503u) % (FT_LOCK_SITES - 1);
  for (unsigned k = 0; k < FT_LOCK_SITES - 1; k++) {
    unsigned i = 1 + (h + k) % (FT_LOCK_SITES - 1);
    if (!g_sites[i].file) g_sites[i].file = file, g_sites[i].line = line;
    if (g_sites[i].file == file && g_sites[i].line == line) return (int)i;
  }
  return 0;
}

/* The clocks are read only with the profile on: two reads per acquisition cost a
 * hooked stream query about 150 ns on this project's shared machine. */
void ft_lock_at(const char *file, int line) FT_NO_TSA {
  int timed = FT_OPT(LOCK_PROFILE) != 0;
  double t0 = timed ? ft_now() : 0;
  pthread_mutex_lock(&ft_eng_lock);
  ft_tls_holds_lock = 1;
  ft_st.lock_acquisitions++;
  g_locked_site = -1;
  if (timed) {
    g_locked_at = ft_now();
    ft_st.lock_wait_seconds += g_locked_at - t0;
    g_locked_site = site_of(file, line);
    g_sites[g_locked_site].taken++;
  }
}
void ft_unlock(void) FT_NO_TSA {
  if (g_locked_site >= 0) {
    double held = ft_now() - g_locked_at;
    ft_st.lock_held_seconds += held;
    g_sites[g_locked_site].held += held;
    if (held > g_sites[g_locked_site].longest) g_sites[g_locked_site].longest = held;
  }
  ft_tls_holds_lock = 0;
  pthread_mutex_unlock(&ft_eng_lock);
}

static int by_held(const void *a, const void *b) {
  double x = ((const __typeof__(g_sites[0]) *)a)->held, y = ((const __typeof__(g_sites[0]) *)b)->held;
  return (x < y) - (x > y);
}

void ft_lock_profile_print(void) {
  if (!FT_OPT(LOCK_PROFILE) || !FT_OPT(SUMMARY)) return;
  ft_lock();
  __typeof__(g_sites[0]) s[FT_LOCK_SITES];
  int n = 0;
  for (int i = 0; i < FT_LOCK_SITES; i++)
    if (g_sites[i].taken) s[n++] = g_sites[i];
  double total = ft_st.lock_held_seconds, wait = ft_st.lock_wait_seconds;
  uint64_t taken = ft_st.lock_acquisitions;
  ft_unlock();
  qsort(s, (size_t)n, sizeof *s, by_held);
  ft_log(FT_LOG_WARN, "engine lock: taken %ju times, held %.6f s, waited for %.6f s in all (GPUFT_LOCK_PROFILE)",
         (uintmax_t)taken, total, wait);
  for (int i = 0; i < n; i++) {
    const char *f = s[i].file ? strstr(s[i].file, "shim/") : NULL;
    char where[160];
    if (s[i].file) snprintf(where, sizeof where, "%s:%d", f ? f : s[i].file, s[i].line);
    else snprintf(where, sizeof where, "(other places)");
    ft_log(FT_LOG_WARN, "  %-40s %10ju taken %10.6f s held %9.1f us longest", where, (uintmax_t)s[i].taken, s[i].held,
           s[i].longest * 1e6);
  }
}

double ft_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double ft_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Error events for the report (bounded; counts stay exact). */
ft_error_event_t ft_events[FT_MAX_EVENTS];
int ft_nevents;

static int g_ctx_lost;
CUresult ft_note_result(CUresult r) {
  switch ((int)r) {
#define FT_STICKY_CASE(e) case e:
    FT_STICKY_ERRORS(FT_STICKY_CASE) {
#undef FT_STICKY_CASE
      int zero = 0;
      __atomic_compare_exchange_n(&g_ctx_lost, &zero, (int)r, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
      break;
    }
    default: break;
  }
  return r;
}
int ft_context_lost(void) { return __atomic_load_n(&g_ctx_lost, __ATOMIC_RELAXED); }

void ft_event(const ft_alloc_t *a, uint64_t offset, int bit, const char *kind, int outcome,
              const char *where) {
  if (ft_nevents >= FT_MAX_EVENTS) return;
  ft_error_event_t *e = &ft_events[ft_nevents++];
  e->alloc_id = a->id;
  e->alloc_base = a->base;
  e->alloc_size = a->size;
  e->offset = offset;
  e->bit = bit;
  e->kind = kind;
  e->outcome = outcome;
  e->where = where;
  /* a repaired flip is news for the board's owner, even when nothing was lost */
  if (outcome == FT_OUT_CORRECTED || outcome == FT_OUT_RESTORED)
    FT_WARN_CAPPED(16, "%s in allocation #%ju (+%ju, bit %d) %s (%s)", kind, (uintmax_t)a->id,
                   (uintmax_t)offset, bit, outcome == FT_OUT_CORRECTED ? "corrected" : "restored", where);
}
