/* pool.c: the codec's worker threads, a parallel loop whose idle workers sleep.
 * OpenMP's workers spin between regions and took the CPU that the program's and
 * the driver's own threads needed (an upload under gpuft ran 2x slower on 2 cores). */
#define _GNU_SOURCE
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define POOL_MAX 64

/* One loop at a time goes to the workers (a second caller runs its loop alone). */
static pthread_mutex_t g_run = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_go = PTHREAD_COND_INITIALIZER, g_idle = PTHREAD_COND_INITIALIZER;
static int g_nworkers;   /* started */
static uint64_t g_gen;   /* bumped for every loop handed out */
static int g_want;       /* workers the current loop may use */
static int g_busy;       /* workers inside the current loop */
static ft_pool_fn g_fn;
static void *g_arg;
static size_t g_n;
static atomic_size_t g_next;

static void work(ft_pool_fn fn, void *arg, size_t n) {
  for (size_t i; (i = atomic_fetch_add_explicit(&g_next, 1, memory_order_relaxed)) < n;) fn(i, arg);
}

static void *worker(void *unused) {
  (void)unused;
  uint64_t seen = 0;
  pthread_mutex_lock(&g_mu);
  for (;;) {
    while (g_gen == seen || g_want == 0) {
      if (g_gen != seen) seen = g_gen; /* a loop with room for no more workers */
      pthread_cond_wait(&g_go, &g_mu);
    }
    seen = g_gen;
    g_want--;
    g_busy++;
    ft_pool_fn fn = g_fn;
    void *arg = g_arg;
    size_t n = g_n;
    pthread_mutex_unlock(&g_mu);
    work(fn, arg, n);
    pthread_mutex_lock(&g_mu);
    if (--g_busy == 0) pthread_cond_signal(&g_idle);
  }
  return NULL;
}

/* A forked child has none of the parent's workers: it starts its own. */
static void after_fork_child(void) {
  pthread_mutex_init(&g_run, NULL);
  pthread_mutex_init(&g_mu, NULL);
  pthread_cond_init(&g_go, NULL);
  pthread_cond_init(&g_idle, NULL);
  g_nworkers = g_want = g_busy = 0;
}

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void setup(void) { pthread_atfork(NULL, NULL, after_fork_child); }

int ft_pool_cpus(void) {
  cpu_set_t set;
  int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > POOL_MAX ? POOL_MAX : n;
}

/* Workers up to `want` (g_mu held); fewer when threads cannot be had. */
static void grow(int want) {
  while (g_nworkers < want) {
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int r = pthread_create(&t, &at, worker, NULL);
    pthread_attr_destroy(&at);
    if (r != 0) break;
    g_nworkers++;
  }
}

void ft_pool_for(size_t n, int nth, ft_pool_fn fn, void *arg) {
  if (nth > POOL_MAX) nth = POOL_MAX;
  if (nth <= 1 || n <= 1 || pthread_mutex_trylock(&g_run) != 0) {
    for (size_t i = 0; i < n; i++) fn(i, arg);
    return;
  }
  pthread_once(&g_once, setup);
  pthread_mutex_lock(&g_mu);
  grow(nth - 1);
  g_fn = fn;
  g_arg = arg;
  g_n = n;
  atomic_store_explicit(&g_next, 0, memory_order_relaxed);
  g_want = (int)(n - 1 < (size_t)(nth - 1) ? n - 1 : (size_t)(nth - 1));
  g_gen++;
  pthread_cond_broadcast(&g_go);
  pthread_mutex_unlock(&g_mu);
  work(fn, arg, n);
  pthread_mutex_lock(&g_mu);
  g_want = 0; /* late workers stay asleep: every index is taken */
  while (g_busy) pthread_cond_wait(&g_idle, &g_mu);
  pthread_mutex_unlock(&g_mu);
  pthread_mutex_unlock(&g_run);
}
