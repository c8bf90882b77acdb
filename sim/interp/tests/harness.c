/* harness.c: host buffers as device memory, PTX text in, one grid run on the
 * calling thread or on hz_threads threads (see harness.h). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "lower.h"

typedef struct {
  uint64_t lo, hi;
} hz_buf_t;
static hz_buf_t hz_bufs[64];
static unsigned hz_n;

int hz_add_buffer(void *buf, size_t n) {
  if (hz_n == 64) return -1;
  hz_bufs[hz_n].lo = (uint64_t)(uintptr_t)buf;
  hz_bufs[hz_n].hi = (uint64_t)(uintptr_t)buf + n;
  hz_n++;
  return 0;
}
void hz_clear_buffers(void) { hz_n = 0; }

atomic_uint_fast64_t hz_lookups, hz_hand_overs;
static bool hz_find(void *ctx, uint64_t p, sim_xcache_t *out) {
  (void)ctx;
  atomic_fetch_add(&hz_lookups, 1);
  for (unsigned i = 0; i < hz_n; i++)
    if (p >= hz_bufs[i].lo && p < hz_bufs[i].hi) {
      *out = (sim_xcache_t){.lo = hz_bufs[i].lo, .hi = hz_bufs[i].hi, .delta = 0, .base = hz_bufs[i].lo};
      return true;
    }
  return false;
}
/* Bytes loaded and stored, as the interpreter counts them for the driver (the
 * reference and the default lowering must agree). */
atomic_uint_fast64_t hz_counted[2];
static void hz_count(void *ctx, const sim_xcache_t *x) {
  (void)ctx;
  atomic_fetch_add(&hz_hand_overs, 1);
  atomic_fetch_add(&hz_counted[0], x->ld);
  atomic_fetch_add(&hz_counted[1], x->st);
}

unsigned hz_threads = 1;
bool hz_coop;

typedef struct {
  sim_grid_t *g;
  uint64_t n;
  atomic_uint_fast64_t next;
} hz_job_t;

static void *hz_worker(void *arg) {
  hz_job_t *j = arg;
  for (uint64_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n;) sim_interp_run_block(j->g, i);
  return NULL;
}

int hz_check_ub;
char hz_ub_log[8192];
uint64_t hz_ub_reports;

double hz_run_seconds, hz_run_cpu_seconds;

/* Blocks on several host threads report concurrently. */
static pthread_mutex_t hz_ub_mu = PTHREAD_MUTEX_INITIALIZER;
static void hz_ub(void *ctx, const char *msg) {
  (void)ctx;
  pthread_mutex_lock(&hz_ub_mu);
  size_t n = strlen(hz_ub_log);
  snprintf(hz_ub_log + n, sizeof hz_ub_log - n, "%s\n", msg);
  pthread_mutex_unlock(&hz_ub_mu);
}

static double hz_clock(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int hz_run_once(const char *ptx, const char *kernel, const hz_launch_t *l, const void *params, char *msg,
                       size_t msglen, uint64_t *insns) {
  ft_ptx_module_t *m = NULL;
  msg[0] = 0;
  if (ft_ptx_parse(ptx, strlen(ptx), &m, msg, msglen) != 0) return -1;
  const ft_ptx_function_t *f = ft_ptx_find_function(m, kernel);
  if (!f) {
    snprintf(msg, msglen, "no kernel %s", kernel);
    ft_ptx_module_free(m);
    return -1;
  }
  sim_kprog_t *p = NULL;
  if (sim_interp_lower(m, f, NULL, &p, msg, msglen) != 0) {
    ft_ptx_module_free(m);
    return -2;
  }
  sim_mem_iface_t mem = {hz_find, hz_count, NULL, false, NULL, NULL, NULL, NULL}; /* no heap, textures, handles */
  sim_grid_t *g = calloc(1, sizeof *g);
  if (!g) abort();
  g->prog = p;
  memcpy(g->grid, l->grid, sizeof g->grid);
  memcpy(g->block, l->block, sizeof g->block);
  g->params = params;
  g->dyn_shared = l->dyn_shared;
  g->mem = &mem;
  g->check_ub = hz_check_ub;
  g->ub_report = hz_ub;
  hz_ub_log[0] = 0;
  hz_counted[0] = hz_counted[1] = 0;
  hz_lookups = hz_hand_overs = 0;
  uint64_t n = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
  double t0 = hz_clock(CLOCK_MONOTONIC), c0 = hz_clock(CLOCK_PROCESS_CPUTIME_ID);
  if (hz_coop) {
    sim_interp_run_coop(g, hz_threads);
  } else if (hz_threads <= 1) {
    for (uint64_t i = 0; i < n; i++) sim_interp_run_block(g, i);
  } else {
    hz_job_t job = {g, n, 0};
    pthread_t t[64];
    unsigned k = hz_threads < 64 ? hz_threads : 64, started = 0;
    for (unsigned i = 1; i < k; i++)
      if (pthread_create(&t[started], NULL, hz_worker, &job) == 0) started++;
    hz_worker(&job);
    for (unsigned i = 0; i < started; i++) pthread_join(t[i], NULL);
  }
  hz_run_seconds = hz_clock(CLOCK_MONOTONIC) - t0;
  hz_run_cpu_seconds = hz_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
  int r = atomic_load(&g->error);
  if (r) snprintf(msg, msglen, "%s", g->msg);
  if (insns) *insns = atomic_load(&g->insns);
  hz_ub_reports = atomic_load(&g->ub_reports);
  sim_texw_free(g);
  free(g);
  sim_kprog_free(p);
  ft_ptx_module_free(m);
  return r;
}

int hz_compare_plain = 1;

/* The registered buffers, copied (save) or copied back (restore), in one block. */
static uint8_t *hz_snapshot(uint8_t *snap, bool save) {
  size_t total = 0;
  for (unsigned i = 0; i < hz_n; i++) total += hz_bufs[i].hi - hz_bufs[i].lo;
  if (save && !(snap = malloc(total ? total : 1))) abort();
  for (unsigned i = 0, o = 0; i < hz_n; o += hz_bufs[i].hi - hz_bufs[i].lo, i++) {
    void *buf = (void *)(uintptr_t)hz_bufs[i].lo;
    size_t n = hz_bufs[i].hi - hz_bufs[i].lo;
    if (save) memcpy(snap + o, buf, n);
    else memcpy(buf, snap + o, n);
  }
  return snap;
}

int hz_run(const char *ptx, const char *kernel, const hz_launch_t *l, const void *params, char *msg, size_t msglen,
           uint64_t *insns) {
  /* (blocks on several threads may race, as the parallel tests intend: compared
   * only on one) */
  if (!hz_compare_plain || hz_threads > 1) return hz_run_once(ptx, kernel, l, params, msg, msglen, insns);
  /* the reference first, its outcome kept; then the default lowering from the same start */
  uint8_t *start = hz_snapshot(NULL, true);
  sim_interp_plain = true;
  char pmsg[512];
  uint64_t pinsns = 0;
  int pr = hz_run_once(ptx, kernel, l, params, pmsg, sizeof pmsg, &pinsns);
  sim_interp_plain = false;
  uint64_t pub = hz_ub_reports, pcount[2] = {hz_counted[0], hz_counted[1]};
  char *plog = strdup(hz_ub_log);
  uint8_t *pbufs = hz_snapshot(NULL, true);
  size_t total = 0;
  for (unsigned i = 0; i < hz_n; i++) total += hz_bufs[i].hi - hz_bufs[i].lo;
  /* then the default lowering, interpreted, and translated to host code (jit.c) */
  static const char *const ways[] = {"the default lowering", "the translation to host code"};
  const char *what = NULL;
  int r = 0;
  uint64_t n = 0;
  for (unsigned way = 0; way < 2 && !what; way++) {
    hz_snapshot(start, false);
    uint64_t failed0, failed, x;
    sim_jit_stats(&x, &x, &failed0);
    sim_jit_config.mode = way ? 2 : 0;
    r = hz_run_once(ptx, kernel, l, params, msg, msglen, &n);
    sim_jit_config.mode = 0;
    sim_jit_stats(&x, &x, &failed);
    uint8_t *fbufs = hz_snapshot(NULL, true);
    what = failed != failed0 ? "whether it ran (the translation failed)"
         : r != pr ? "result" : strcmp(msg, pmsg) ? "message" : n != pinsns ? "instruction count"
         : pub != hz_ub_reports || strcmp(plog, hz_ub_log) ? "UB reports"
         : memcmp(pbufs, fbufs, total) ? "memory"
         : pcount[0] != hz_counted[0] || pcount[1] != hz_counted[1] ? "bytes counted" : NULL;
    free(fbufs);
    if (what)
      snprintf(msg, msglen, "kernel %s: %s and the reference interpreter differ in %s (%d/%d: %.200s)", kernel,
               ways[way], what, r, pr, pmsg);
  }
  if (insns) *insns = n;
  free(start), free(pbufs), free(plog);
  return what ? -3 : r;
}
