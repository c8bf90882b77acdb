/* stats.c: the simulator's counters (simcudaGetStats / simcudaResetStats) and their
 * summary at exit with SIMCUDA_STATS=1. */
#include <stdio.h>
#include <unistd.h>

#include "interp.h" /* sim_jit_stats: the interpreter is a leaf library */
#include "mem.h"

static pid_t init_pid;

#define STATS_FIELDS(X) X(launches) X(memcpy_h2d) X(memcpy_d2h) X(memcpy_d2d) X(memcpy_h2h) \
  X(bytes_h2d) X(bytes_d2h) X(bytes_d2d) X(memsets) X(bytes_memset) X(syncs) X(allocs) X(frees) \
  X(flips_applied) X(kernel_bytes_args) X(kernel_bytes_loaded) X(kernel_bytes_stored) \
  X(kernel_thread_insns) X(kernels_interpreted) X(analysis_places_checked) X(analysis_violations) \
  X(ub_reports) X(shim_launches_checked) X(shim_violations) X(range_checks) X(range_violations)

__attribute__((visibility("default"))) void simcudaGetStats(simcuda_stats_t *out) {
  if (!out) return;
#define X(f) out->f = atomic_load(&sim_stats.f);
  STATS_FIELDS(X)
#undef X
  sim_jit_stats(&out->jit_compiled, &out->jit_cached, &out->jit_failed);
}

__attribute__((visibility("default"))) void simcudaResetStats(void) {
#define X(f) atomic_store(&sim_stats.f, 0);
  STATS_FIELDS(X)
#undef X
  sim_mem_traffic_reset();
}

__attribute__((visibility("default"))) int simcudaGetTraffic(uint64_t addr, uint64_t *base, uint64_t *size,
                                                             uint64_t *loaded, uint64_t *stored) {
  sim_alloc_t a;
  if (!sim_mem_traffic_get(addr, &a)) return -1;
  if (base) *base = a.base;
  if (size) *size = a.size;
  if (loaded) *loaded = a.traffic_ld;
  if (stored) *stored = a.traffic_st;
  return 0;
}

void sim_count_sync(void) {
  SIM_COUNT(syncs, 1);
  sim_inject_on_sync();
}

__attribute__((constructor)) static void remember_pid(void) { init_pid = getpid(); }

void sim_stats_at_exit(void) {
  /* Only the process that initialised the driver reports (not forked children). */
  if (getpid() != init_pid) return;
  simcuda_stats_t s;
  simcudaGetStats(&s);
  if (sim_opt.check_ub && s.ub_reports)
    fprintf(stderr, "simcuda: SIMCUDA_CHECK_UB: %llu undefined-behaviour reports\n", (unsigned long long)s.ub_reports);
  if (!sim_opt.stats) return;
  fprintf(stderr, "simcuda: stats:");
#define X(f) fprintf(stderr, " " #f "=%llu", (unsigned long long)s.f);
  STATS_FIELDS(X) X(jit_compiled) X(jit_cached) X(jit_failed)
#undef X
  fputc('\n', stderr);
}
