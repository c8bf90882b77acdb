/* engine_state.c: the engine lock, the engine's statistics and error events, the
 * epoch number, what lower floors tell upper ones (ft_obs), and clocks. */
#define _GNU_SOURCE
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
/* when this thread took the lock (for engine_lock_held_seconds) */
static __thread double g_locked_at __attribute__((tls_model("initial-exec")));
void ft_lock(void) FT_NO_TSA {
  double t0 = ft_now();
  pthread_mutex_lock(&ft_eng_lock);
  ft_tls_holds_lock = 1;
  g_locked_at = ft_now();
  ft_st.lock_acquisitions++;
  ft_st.lock_wait_seconds += g_locked_at - t0;
}
void ft_unlock(void) FT_NO_TSA {
  ft_st.lock_held_seconds += ft_now() - g_locked_at;
  ft_tls_holds_lock = 0;
  pthread_mutex_unlock(&ft_eng_lock);
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
