/* options.c: the simulator's environment variables (read once at cuInit), its log
 * function and its clock. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../../common/nearest.h"
#include "base.h"

sim_options_t sim_opt;
atomic_int sim_initialized; /* set by cuInit (api/init.c) */

extern char **environ;

/* Every SIMCUDA_* variable the simulator reads (here, in mem/inject.c, mem/fliprate.c,
 * api/procaddr.c, exec/ptximg.c and the runtime's registry.c); any other one is
 * reported at cuInit with the nearest of these. */
static const char *const sim_env_names[] = {"MEM_GB", "THREADS", "PCIE_GBPS", "LOG", "STATS",
                                            "POISON", "BLOCK_ORDER", "CHECK_ACCESS", "CHECK_UB", "FLIP",
                                            "FLIP_RATE", "TWINS", "LIB_DIR", "DEVICES", "KERNEL_US", "SM",
                                            "JIT", "JIT_AFTER", "JIT_CC", "JIT_CACHE"};

static void warn_unknown(void) {
  int n = (int)(sizeof sim_env_names / sizeof *sim_env_names);
  char name[64];
  for (size_t i = 0; ftc_env_unknown(environ, &i, "SIMCUDA_", sim_env_names, n, name, sizeof name);) {
    int near = ftc_nearest(name, sim_env_names, n);
    if (near >= 0)
      fprintf(stderr, "simcuda: SIMCUDA_%s is not a simulator variable (did you mean SIMCUDA_%s?): ignored\n",
              name, sim_env_names[near]);
    else
      fprintf(stderr, "simcuda: SIMCUDA_%s is not a simulator variable (docs/simulator.md lists them): ignored\n",
              name);
  }
}

/* Parses a number in [min, max]. Unparsable (empty, garbage, NaN, trailing text)
 * warns and keeps the default; out of range (overflow and infinities included)
 * warns and takes the nearest bound. One warning per variable. */
static double env_num(const char *name, double def, double min, double max) {
  const char *s = getenv(name);
  if (!s) return def;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || isnan(v)) {
    fprintf(stderr, "simcuda: ignoring %s=\"%.64s\" (expected a number in [%g, %g]): using %g\n",
            name, s, min, max, def);
    return def;
  }
  if (!(v >= min && v <= max)) { /* ERANGE gives +-HUGE_VAL or 0: clamped the same */
    double c = v < min ? min : max;
    fprintf(stderr, "simcuda: %s=%.64s is out of range [%g, %g]: using %g\n", name, s, min, max, c);
    return c;
  }
  return v;
}

void sim_options_read(void) {
  warn_unknown();
  double gb = env_num("SIMCUDA_MEM_GB", 16, 1.0 / 1024, 1024);
  sim_opt.mem_bytes = ((size_t)(gb * 1073741824.0) + 0xfffff) & ~(size_t)0xfffff;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  double defthreads = ncpu < 1 ? 1 : ncpu > 256 ? 256 : (double)ncpu; /* every core */
  sim_opt.threads = (unsigned)env_num("SIMCUDA_THREADS", defthreads, 1, 256);
  double gbps = env_num("SIMCUDA_PCIE_GBPS", 0, 0, 1e6);
  if (gbps > 0 && gbps < 0.01) { /* 0 is "not modelled"; slower would stall every copy */
    fprintf(stderr, "simcuda: SIMCUDA_PCIE_GBPS=%g is below 0.01: using 0.01\n", gbps);
    gbps = 0.01;
  }
  sim_opt.pcie_bps = gbps * 1e9;
  sim_opt.kernel_s = env_num("SIMCUDA_KERNEL_US", 0, 0, 1e6) * 1e-6;
  sim_opt.sm = (int)env_num("SIMCUDA_SM", 89, 75, 129);
  sim_opt.log = (int)env_num("SIMCUDA_LOG", 0, 0, 9);
  sim_opt.stats = (int)env_num("SIMCUDA_STATS", 0, 0, 1);
  sim_opt.poison = (int)env_num("SIMCUDA_POISON", 1, 0, 1);
  sim_opt.block_order = (uint64_t)env_num("SIMCUDA_BLOCK_ORDER", 0, 0, 1e15);
  sim_opt.check_access = (int)env_num("SIMCUDA_CHECK_ACCESS", 0, 0, 2);
  sim_opt.check_ub = (int)env_num("SIMCUDA_CHECK_UB", 0, 0, 2);
  sim_opt.devices = (int)env_num("SIMCUDA_DEVICES", 1, 1, SIM_MAX_DEVICES);
  sim_opt.jit = (int)env_num("SIMCUDA_JIT", 1, 0, 2);
  sim_opt.jit_after = (uint64_t)env_num("SIMCUDA_JIT_AFTER", 1e9, 0, 1e18);
  const char *cc = getenv("SIMCUDA_JIT_CC"), *cache = getenv("SIMCUDA_JIT_CACHE");
  sim_opt.jit_cc = cc && *cc ? strdup(cc) : "cc"; /* kept for the process */
  sim_opt.jit_cache = cache && *cache ? strdup(cache) : NULL;
}

void sim_log(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
  /* One write per line so that lines of concurrent threads do not interleave. */
  char line[1100];
  int m = snprintf(line, sizeof line, "simcuda: %.*s\n", n, buf);
  if (m > 0 && write(2, line, (size_t)m < sizeof line ? (size_t)m : sizeof line - 1) < 0) {
    /* nothing sensible to do */
  }
}

void sim_sleep_until(double t) {
  struct timespec ts;
  ts.tv_sec = (time_t)t;
  ts.tv_nsec = (long)((t - floor(t)) * 1e9);
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
  }
}

double sim_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
