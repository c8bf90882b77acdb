/* fliprate.c: spontaneous bit flips at a rate, as radiation would cause them:
 * SIMCUDA_FLIP_RATE=<flips per GiB per second>[,seed=<s>] or
 * simcudaSetFlipRate(rate, seed). A background thread wakes every TICK seconds,
 * draws the number of flips of that interval from a Poisson law (mean = rate x
 * live device GiB x elapsed seconds) and flips each in a uniformly chosen bit of
 * the live device allocations (cuMemAlloc*, pitched and stream-ordered memory;
 * not pinned, registered or managed host memory). Flips are counted in
 * flips_applied and logged with SIMCUDA_LOG=1. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mem.h"

#define TICK 0.005            /* seconds between two rounds of flips */
#define MAX_PER_TICK 1000000u /* bound on one round (absurd rates) */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static double rate;          /* flips / GiB / s; 0: off */
static uint64_t seed, seed_gen; /* a new seed (gen bumped) restarts the sequence */
static bool started;

/* ---- random numbers: splitmix64 ---- */
static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double next_unit(uint64_t *s) { return (double)(next_u64(s) >> 11) * 0x1.0p-53; } /* [0, 1) */

static uint64_t poisson(uint64_t *s, double mean) {
  if (mean <= 0) return 0;
  if (mean < 30) { /* Knuth */
    double l = exp(-mean), p = 1;
    uint64_t k = 0;
    do {
      k++;
      p *= next_unit(s);
    } while (p > l);
    return k - 1;
  }
  /* Normal approximation (Box-Muller) for large means. */
  double u1 = next_unit(s), u2 = next_unit(s);
  if (u1 < 1e-300) u1 = 1e-300;
  double n = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
  double k = floor(mean + sqrt(mean) * n + 0.5);
  /* absurd rates: the caller bounds a round anyway; never convert past 2^64 */
  return !(k > 0) ? 0 : k >= (double)MAX_PER_TICK ? MAX_PER_TICK : (uint64_t)k;
}

/* ---- one round (under the registry's read lock: no allocation goes away) ---- */
typedef struct {
  double rate, dt;
  uint64_t *rng;
} round_t;

static bool eligible(const sim_alloc_t *a) { return a->kind == SIM_MEM_DEVICE && !a->freeing; }

static void round_fn(const sim_alloc_t *allocs, size_t n, void *arg) {
  round_t *r = arg;
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++)
    if (eligible(&allocs[i])) total += allocs[i].size;
  if (!total) return;
  uint64_t k = poisson(r->rng, r->rate * ((double)total / 1073741824.0) * r->dt);
  if (k > MAX_PER_TICK) k = MAX_PER_TICK;
  for (uint64_t j = 0; j < k; j++) {
    uint64_t off = next_u64(r->rng) % total;
    unsigned bit = (unsigned)(next_u64(r->rng) & 7);
    for (size_t i = 0; i < n; i++) {
      if (!eligible(&allocs[i])) continue;
      if (off < allocs[i].size) {
        sim_flip_spontaneous(allocs[i].base + off, (uint8_t)(1u << bit));
        break;
      }
      off -= allocs[i].size;
    }
  }
}

static void *flipper(void *unused) {
  (void)unused;
  uint64_t rng = 0, gen = 0;
  pthread_mutex_lock(&mu);
  double last = sim_now();
  for (;;) {
    while (rate <= 0) {
      pthread_cond_wait(&cv, &mu);
      last = sim_now();
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += (long)(TICK * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    int rc = pthread_cond_timedwait(&cv, &mu, &ts);
    if (rc != ETIMEDOUT || rate <= 0) { /* woken by a change: start a new interval */
      last = sim_now();
      continue;
    }
    if (gen != seed_gen) {
      gen = seed_gen;
      rng = seed;
    }
    double now = sim_now();
    round_t r = {rate, now - last, &rng};
    last = now;
    pthread_mutex_unlock(&mu);
    sim_mem_visit(round_fn, &r);
    pthread_mutex_lock(&mu);
  }
  return NULL;
}

static void init_cv(void) {
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&cv, &ca);
  pthread_condattr_destroy(&ca);
}

static int set_rate(double r, uint64_t s) {
  if (!(r >= 0) || isinf(r)) return -1; /* negative, NaN, infinite */
  pthread_once(&once, init_cv);
  if (!s) s = (uint64_t)(sim_now() * 1e9) ^ ((uint64_t)getpid() << 32);
  pthread_mutex_lock(&mu);
  rate = r;
  seed = s;
  seed_gen++;
  if (r > 0 && !started) {
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, flipper, NULL) != 0) {
      pthread_attr_destroy(&at);
      rate = 0;
      pthread_mutex_unlock(&mu);
      return -1;
    }
    pthread_attr_destroy(&at);
    started = true;
  }
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  if (sim_opt.log) sim_log("flip rate %g flips/GiB/s, seed %llu", r, (unsigned long long)s);
  return 0;
}

/* "<rate>[,seed=<s>]" */
void sim_fliprate_init(const char *env) {
  if (!env || !*env) return;
  char *end;
  errno = 0;
  double r = strtod(env, &end);
  uint64_t s = 0;
  bool ok = end != env && errno == 0;
  if (ok && *end == ',') {
    const char *p = end + 1;
    if (strncmp(p, "seed=", 5) != 0 || !p[5] || p[5] == '-') {
      ok = false;
    } else {
      errno = 0;
      unsigned long long v = strtoull(p + 5, &end, 0);
      ok = errno == 0 && end != p + 5;
      s = v;
    }
  }
  if (!ok || *end || set_rate(r, s) != 0)
    fprintf(stderr,
            "simcuda: ignoring SIMCUDA_FLIP_RATE=%s (expected <flips per GiB per second>[,seed=<n>])\n", env);
}

int sim_fliprate_set(double flips_per_gib_per_s, uint64_t s) { return set_rate(flips_per_gib_per_s, s); }
