/* engine_state.c: the engine lock, the engine's statistics and error events, and
 * clocks. */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "engine.h"

pthread_mutex_t ft_eng_lock = PTHREAD_MUTEX_INITIALIZER;
ft_engine_stats_t ft_st;

void ft_lock(void) { pthread_mutex_lock(&ft_eng_lock); }
void ft_unlock(void) { pthread_mutex_unlock(&ft_eng_lock); }

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
  e->time = ft_now();
}
