/* engine_state.c: the engine lock, the engine's statistics and error events, and
 * clocks. */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "engine.h"

pthread_mutex_t ft_eng_lock = PTHREAD_MUTEX_INITIALIZER;
ft_engine_stats_t ft_st;

/* Whether this thread holds the lock: read by the signal handler (report.c), which
 * must not wait for a lock its own thread holds. */
__thread int ft_tls_holds_lock __attribute__((tls_model("initial-exec")));
void ft_lock(void) {
  pthread_mutex_lock(&ft_eng_lock);
  ft_tls_holds_lock = 1;
}
void ft_unlock(void) {
  ft_tls_holds_lock = 0;
  pthread_mutex_unlock(&ft_eng_lock);
}

/* Reader-preferring (glibc's default): an operation blocked in a driver call on an
 * event another thread has yet to enable must not hold up that thread's next
 * operation behind a waiting replay. */
static pthread_rwlock_t g_op_lock = PTHREAD_RWLOCK_INITIALIZER;
static __thread int g_in_op;

void ft_op_begin(void) {
  if (g_in_op++ == 0) pthread_rwlock_rdlock(&g_op_lock);
}
void ft_op_end(void) {
  if (--g_in_op == 0) {
    pthread_rwlock_unlock(&g_op_lock);
    ft_rest_issued(); /* what the operation wrote is issued now (engine lock not held) */
  }
}
int ft_in_op(void) { return g_in_op > 0; }
static __thread int g_exclusive; /* depth: a replay inside a quiet commit nests */
int ft_op_exclusive_begin(void) {
  if (g_exclusive) return g_exclusive++, 0;
  /* Bounded: an operation may be blocked on work that the thread asking for the
   * replay has yet to enable (an event it will record after its own sync). */
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += 2;
  if (pthread_rwlock_timedwrlock(&g_op_lock, &t) != 0) return -1;
  g_exclusive = 1;
  return 0;
}
void ft_op_exclusive_end(void) {
  if (--g_exclusive == 0) pthread_rwlock_unlock(&g_op_lock);
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
