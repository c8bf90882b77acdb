/* pool.c: the thread pool that runs the blocks of a grid in parallel. The thread
 * that submits a job works on it too, so several streams can launch at once. */
#include <stdlib.h>

#include "base.h"

typedef struct job_s {
  struct job_s *next;
  void (*fn)(void *, uint64_t);
  void *arg;
  uint64_t n, next_idx, done, chunk;
  int users; /* threads holding a pointer to the job */
  pthread_cond_t cv;
} job_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static job_t *queue;
static unsigned n_threads;

/* Takes the next chunk of a job (caller holds mu). */
static bool take(job_t *j, uint64_t *lo, uint64_t *hi) {
  if (j->next_idx >= j->n) return false;
  *lo = j->next_idx;
  *hi = *lo + j->chunk < j->n ? *lo + j->chunk : j->n;
  j->next_idx = *hi;
  if (j->next_idx >= j->n && queue == j) queue = j->next; /* fully handed out */
  j->users++;
  return true;
}

static void finish(job_t *j, uint64_t count) {
  j->done += count;
  j->users--;
  if (j->done == j->n && j->users == 0) pthread_cond_broadcast(&j->cv);
}

static void *pool_worker(void *unused) {
  pthread_mutex_lock(&mu);
  for (;;) {
    while (!queue) pthread_cond_wait(&work_cv, &mu);
    job_t *j = queue;
    uint64_t lo, hi;
    if (!take(j, &lo, &hi)) {
      if (queue == j) queue = j->next;
      continue;
    }
    pthread_mutex_unlock(&mu);
    for (uint64_t i = lo; i < hi; i++) j->fn(j->arg, i);
    pthread_mutex_lock(&mu);
    finish(j, hi - lo);
  }
  return NULL;
}

void sim_pool_init(unsigned threads) {
  /* The submitting thread is one of the workers. */
  n_threads = threads;
  for (unsigned i = 1; i < threads; i++) {
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, pool_worker, NULL) != 0) sim_log("cannot start pool thread %u", i);
    pthread_attr_destroy(&at);
  }
}

void sim_pool_run(void (*fn)(void *, uint64_t), void *arg, uint64_t n) {
  if (n == 0) return;
  job_t j = {.fn = fn, .arg = arg, .n = n};
  uint64_t c = n / ((uint64_t)n_threads * 8);
  j.chunk = c ? c : 1;
  pthread_cond_init(&j.cv, NULL);
  pthread_mutex_lock(&mu);
  if (n_threads > 1 && n > 1) {
    job_t **tail = &queue;
    while (*tail) tail = &(*tail)->next;
    *tail = &j;
    pthread_cond_broadcast(&work_cv);
  }
  for (;;) {
    uint64_t lo, hi;
    if (!take(&j, &lo, &hi)) break;
    pthread_mutex_unlock(&mu);
    for (uint64_t i = lo; i < hi; i++) fn(arg, i);
    pthread_mutex_lock(&mu);
    finish(&j, hi - lo);
  }
  /* Unlink if still queued (nothing left to hand out), then wait for helpers. */
  for (job_t **p = &queue; *p; p = &(*p)->next)
    if (*p == &j) {
      *p = j.next;
      break;
    }
  while (j.done < j.n || j.users > 0) pthread_cond_wait(&j.cv, &mu);
  pthread_mutex_unlock(&mu);
  pthread_cond_destroy(&j.cv);
}
