/* memtest.c: `gpuft memtest`: MemtestG80's test patterns (docs/gpu.md) as device kernels
 * (kernels/memtest.cu) over a share of free device memory; a per-pattern table, the bad
 * words found, and the run recorded in the device's error history. */
#define _GNU_SOURCE
#include "memtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "devtools.h"
#include "gdrv.h"
#include "history.h"
#include "memtest_twins.h"

extern const unsigned char ftm_fatbin[];
extern const size_t ftm_fatbin_size;

#define LCG_PERIOD 256u
#define LCG_REGION_WORDS ((uint64_t)1 << 18) /* 1 MiB: the logic test's work is per word */
#define MAX_BAD_KEPT 256

typedef struct {
  const char *name, *doc;
} pattern_t;
static const pattern_t patterns[] = {
    {"MI10", "moving inversions, all zeros and all ones"},
    {"MIR", "moving inversions, a random word and its complement"},
    {"1W0", "walking zeros, 8-bit, 8 shifts"},
    {"1W1", "walking ones, 8-bit, 8 shifts"},
    {"4W0", "walking zeros, 32-bit, 32 shifts"},
    {"4W1", "walking ones, 32-bit, 32 shifts"},
    {"M20", "modulo 20, a pattern and its complement, 20 rounds each"},
    {"RB", "random blocks: a different pseudo-random word everywhere"},
    {"ADDR", "own address, then its complement"},
    {"FADE", "bit fade: zeros and ones left alone for --fade seconds"},
    {"L", "logic test: an LCG of period 256 run once through its cycle"},
    {"L4", "logic test: the same LCG run four times through its cycle"},
};
#define N_PATTERNS (int)(sizeof patterns / sizeof *patterns)

typedef struct {
  uint64_t addr;
  uint32_t bits;
  int pattern;
} bad_t;

typedef struct {
  ft_gdrv_t g;
  CUmodule mod;
  CUfunction fill, check;
  CUdeviceptr base, res;
  uint64_t words;
  double fade_s;
  uint32_t seed;
  /* progress */
  int tty;
  uint64_t steps_done, steps_total;
  /* per pattern */
  uint64_t errors[N_PATTERNS], passes[N_PATTERNS];
  double seconds[N_PATTERNS];
  bad_t bad[MAX_BAD_KEPT];
  int nbad;
  uint64_t bad_dropped;
} mt_t;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void progress(mt_t *m, int pat) {
  if (!m->tty) return;
  int w = 40, done = m->steps_total ? (int)(w * m->steps_done / m->steps_total) : w;
  fprintf(stderr, "\r[%.*s%*s] %3d%% %-5s", done, "########################################",
          w - done, "", (int)(100 * m->steps_done / (m->steps_total ? m->steps_total : 1)),
          patterns[pat].name);
  fflush(stderr);
}

static unsigned grid_for(uint64_t words) {
  uint64_t b = (words + FTM_THREADS - 1) / FTM_THREADS;
  return b > 4096 ? 4096u : b ? (unsigned)b : 1u;
}

static int ck(mt_t *m, CUresult r, const char *what) {
  if (r == CUDA_SUCCESS) return 0;
  fprintf(stderr, "%sgpuft memtest: %s: %s\n", m->tty ? "\n" : "", what, ft_gdrv_err(&m->g, r));
  return -1;
}

static int fill(mt_t *m, uint64_t words, ftm_pat_t p) {
  void *args[] = {&m->base, &words, &p};
  return ck(m, m->g.cuLaunchKernel(m->fill, grid_for(words), 1, 1, FTM_THREADS, 1, 1, 0, NULL, args,
                                   NULL), "fill");
}

static void keep_bad(mt_t *m, uint64_t addr, uint32_t bits, int pat) {
  for (int i = 0; i < m->nbad; i++)
    if (m->bad[i].addr == addr) {
      m->bad[i].bits |= bits;
      return;
    }
  if (m->nbad == MAX_BAD_KEPT) {
    m->bad_dropped++;
    return;
  }
  m->bad[m->nbad++] = (bad_t){addr, bits, pat};
}

/* One check pass; its errors are counted for pattern `pat`. */
static int check(mt_t *m, int pat, uint64_t words, ftm_pat_t p) {
  ftm_res_t res;
  void *args[] = {&m->base, &words, &p, &m->res};
  if (ck(m, m->g.cuMemsetD8(m->res, 0, sizeof res), "clear results") ||
      ck(m, m->g.cuLaunchKernel(m->check, grid_for(words), 1, 1, FTM_THREADS, 1, 1, 0, NULL, args,
                                NULL), "check") ||
      ck(m, m->g.cuMemcpyDtoH(&res, m->res, sizeof res), "read results"))
    return -1;
  m->errors[pat] += res.n_err;
  m->passes[pat]++;
  uint64_t nrec = res.n_rec < FTM_MAX_REC ? res.n_rec : FTM_MAX_REC;
  for (uint64_t i = 0; i < nrec; i++)
    keep_bad(m, m->base + 4 * res.rec[i].index, res.rec[i].got ^ res.rec[i].want, pat);
  return 0;
}

static int fill_check(mt_t *m, int pat, uint64_t words, ftm_pat_t p) {
  if (fill(m, words, p) || check(m, pat, words, p)) return -1;
  m->steps_done++;
  progress(m, pat);
  return 0;
}

/* Steps (fill + check pairs, roughly equal work) of each pattern, for the progress bar. */
static uint64_t steps_of(int pat) {
  static const uint64_t n[N_PATTERNS] = {4, 4, 8, 8, 32, 32, 40, 1, 2, 2, 1, 1};
  return n[pat];
}

static int run_pattern(mt_t *m, int pat) {
  const char *name = patterns[pat].name;
  const uint64_t n = m->words;
  if (!strcmp(name, "MI10") || !strcmp(name, "MIR")) {
    /* moving inversions: write p; read p and write ~p word by word; read ~p */
    uint32_t pats[2] = {0u, ~0u};
    if (!strcmp(name, "MIR")) pats[0] = m->seed * 2654435761u, pats[1] = ~pats[0];
    for (int k = 0; k < 2; k++) {
      ftm_pat_t p = {FTM_CONST, pats[k], 0, FTM_F_INVERT}, q = {FTM_CONST, ~pats[k], 0, 0};
      if (fill(m, n, p) || check(m, pat, n, p)) return -1;
      m->steps_done++;
      progress(m, pat);
      if (check(m, pat, n, q)) return -1;
      m->steps_done++;
      progress(m, pat);
    }
    return 0;
  }
  if (name[1] == 'W') { /* 1W0 1W1 4W0 4W1 */
    unsigned width = name[0] == '1' ? 8 : 32;
    uint32_t zeros = name[2] == '0';
    for (unsigned s = 0; s < width; s++)
      if (fill_check(m, pat, n, (ftm_pat_t){width == 8 ? FTM_WALK8 : FTM_WALK32, s, zeros, 0}))
        return -1;
    return 0;
  }
  if (!strcmp(name, "M20")) {
    uint32_t q = m->seed * 0x9E3779B1u | 1u;
    for (int k = 0; k < 2; k++, q = ~q) /* both polarities of every bit at every word */
      for (uint32_t r = 0; r < 20; r++)
        if (fill_check(m, pat, n, (ftm_pat_t){FTM_MOD20, q, r, 0})) return -1;
    return 0;
  }
  if (!strcmp(name, "RB")) return fill_check(m, pat, n, (ftm_pat_t){FTM_RAND, m->seed, 0, 0});
  if (!strcmp(name, "ADDR"))
    return fill_check(m, pat, n, (ftm_pat_t){FTM_ADDR, 0, 0, 0}) ||
           fill_check(m, pat, n, (ftm_pat_t){FTM_ADDR, ~0u, 0, 0});
  if (!strcmp(name, "FADE")) {
    for (int k = 0; k < 2; k++) {
      ftm_pat_t p = {FTM_CONST, k ? ~0u : 0u, 0, 0};
      if (fill(m, n, p) || ck(m, m->g.cuCtxSynchronize(), "fill")) return -1;
      for (double until = now() + m->fade_s; now() < until;) usleep(10000);
      if (check(m, pat, n, p)) return -1;
      m->steps_done++;
      progress(m, pat);
    }
    return 0;
  }
  /* L, L4: every word is the LCG's state after whole periods: 0 */
  uint64_t w = n < LCG_REGION_WORDS ? n : LCG_REGION_WORDS;
  uint32_t cycles = name[1] == '4' ? 4u : 1u;
  return fill_check(m, pat, w, (ftm_pat_t){FTM_LCG, cycles * LCG_PERIOD, LCG_PERIOD, 0});
}

static int parse_patterns(const char *list, int on[N_PATTERNS]) {
  if (!list || !*list || !strcasecmp(list, "all")) {
    for (int i = 0; i < N_PATTERNS; i++) on[i] = 1;
    return 0;
  }
  for (int i = 0; i < N_PATTERNS; i++) on[i] = 0;
  char *copy = strdup(list), *save = NULL;
  int rc = 0;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int i = 0; i < N_PATTERNS; i++)
      if (!strcasecmp(t, patterns[i].name)) on[i] = found = 1;
    if (!found) {
      fprintf(stderr, "gpuft memtest: unknown pattern '%s' (gpuft memtest --help lists them)\n", t);
      rc = -1;
    }
  }
  free(copy);
  return rc;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: gpuft memtest [--size=BYTES|PERCENT%%] [--patterns=LIST] [--iterations=N]\n"
          "                     [--fade=SECONDS] [--seed=N] [--device=N] [--history-dir=DIR]\n"
          "                     [--no-history]\n\n"
          "Tests device memory with MemtestG80's patterns (docs/gpu.md). --size: bytes (K/M/G\n"
          "suffixes) or a share of free memory (default 90%%; 64MiB on the simulator).\n"
          "Exit status: 0 no errors, 1 errors found, 2 could not test.\n\npatterns:\n");
  for (int i = 0; i < N_PATTERNS; i++) fprintf(f, "  %-5s %s\n", patterns[i].name, patterns[i].doc);
}

static void record_history(mt_t *m, const char *dir, const char *list, uint64_t total_errors,
                           double secs) {
  char path[4096], fields[512];
  if (ft_history_path(dir, m->g.uuid, path, sizeof path) != 0) {
    fprintf(stderr, "gpuft memtest: no cache directory (set HOME or --history-dir): not recorded\n");
    return;
  }
  int fails = 0;
  for (int i = 0; i < m->nbad; i++) {
    snprintf(fields, sizeof fields,
             "\"type\": \"fault\", \"src\": \"memtest:%s\", \"addr\": %llu, \"bits\": %u",
             patterns[m->bad[i].pattern].name, (unsigned long long)m->bad[i].addr, m->bad[i].bits);
    fails += ft_history_append(path, fields) != 0;
  }
  snprintf(fields, sizeof fields,
           "\"type\": \"memtest\", \"device\": \"%s\", \"bytes\": %llu, \"patterns\": \"%s\", "
           "\"errors\": %llu, \"seconds\": %.2f",
           m->g.name, (unsigned long long)(m->words * 4), list, (unsigned long long)total_errors, secs);
  fails += ft_history_append(path, fields) != 0;
  if (fails) fprintf(stderr, "gpuft memtest: cannot write the error history %s\n", path);
  else printf("recorded in %s\n", path);
}

int ft_memtest_main(int argc, char **argv) {
  const char *size_arg = NULL, *list = NULL, *dir = getenv("GPUFT_HISTORY_DIR");
  long iterations = 1, device = 0;
  int no_history = 0;
  mt_t *m = calloc(1, sizeof *m);
  if (!m) return 2;
  m->fade_s = 2;
  m->seed = (uint32_t)time(NULL);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage(stdout), free(m), 0;
    else if ((v = ft_devtools_opt(a, "--size"))) size_arg = v;
    else if ((v = ft_devtools_opt(a, "--patterns"))) list = v;
    else if ((v = ft_devtools_opt(a, "--iterations"))) iterations = atol(v);
    else if ((v = ft_devtools_opt(a, "--fade"))) m->fade_s = atof(v);
    else if ((v = ft_devtools_opt(a, "--seed"))) m->seed = (uint32_t)strtoul(v, NULL, 0);
    else if ((v = ft_devtools_opt(a, "--device"))) device = atol(v);
    else if ((v = ft_devtools_opt(a, "--history-dir"))) dir = v;
    else if (!strcmp(a, "--no-history")) no_history = 1;
    else {
      fprintf(stderr, "gpuft memtest: unknown argument '%s'\n", a);
      usage(stderr);
      return free(m), 2;
    }
  }
  int on[N_PATTERNS];
  if (parse_patterns(list, on) || iterations < 1 || m->fade_s < 0) return free(m), 2;
  if (ft_gdrv_open(&m->g, (int)device, "gpuft memtest")) return free(m), 2;
  int twins = 0, rc = 2;
  size_t free_b = 0, total_b = 0;
  if (ck(m, ft_gdrv_load_module(&m->g, ftm_fatbin, ftm_fatbin_size, &ftm_twin_image, &m->mod, &twins),
         "load the memtest kernels") ||
      ck(m, m->g.cuModuleGetFunction(&m->fill, m->mod, FTM_NAME_FILL), FTM_NAME_FILL) ||
      ck(m, m->g.cuModuleGetFunction(&m->check, m->mod, FTM_NAME_CHECK), FTM_NAME_CHECK) ||
      ck(m, m->g.cuMemGetInfo(&free_b, &total_b), "memory info") ||
      ck(m, m->g.cuMemAlloc(&m->res, sizeof(ftm_res_t)), "allocate the result buffer"))
    goto out;
  /* How much: bytes, or a share of free memory (what is left once results are held). */
  uint64_t want = 0;
  if (!size_arg) size_arg = m->g.sim ? "64MiB" : "90%";
  if (ft_devtools_size(size_arg, free_b, &want) || want < 4096) {
    fprintf(stderr, "gpuft memtest: bad --size '%s' (bytes, or a percentage of free memory)\n",
            size_arg);
    goto out;
  }
  want &= want >= (2u << 20) ? ~(uint64_t)((2u << 20) - 1) : ~(uint64_t)4095; /* whole pages */
  /* Free memory cannot always be had in one piece: step down until it can. */
  while (m->g.cuMemAlloc(&m->base, want) != CUDA_SUCCESS) {
    if (want <= (64u << 20)) {
      fprintf(stderr, "gpuft memtest: cannot allocate %llu bytes of device memory\n",
              (unsigned long long)want);
      goto out;
    }
    want -= 64u << 20;
  }
  m->words = want / 4;
  m->tty = isatty(2);
  printf("gpuft memtest: %s (%s)%s, driver %d.%d\n", m->g.name, m->g.uuid,
         m->g.sim ? " [simulator: CPU memory, CPU timings]" : "", m->g.driver_version / 1000,
         m->g.driver_version % 1000 / 10);
  printf("testing %.1f MiB at %#llx of %.1f MiB free (%.1f MiB total), %ld iteration%s, seed %u\n",
         want / 1048576.0, (unsigned long long)m->base, free_b / 1048576.0, total_b / 1048576.0,
         iterations, iterations == 1 ? "" : "s", m->seed);
  for (int p = 0; p < N_PATTERNS; p++) m->steps_total += on[p] ? steps_of(p) * (uint64_t)iterations : 0;
  double t_all = now();
  for (long it = 0; it < iterations; it++)
    for (int p = 0; p < N_PATTERNS; p++) {
      if (!on[p]) continue;
      double t0 = now();
      if (run_pattern(m, p) || ck(m, m->g.cuCtxSynchronize(), patterns[p].name)) goto out;
      m->seconds[p] += now() - t0;
      m->seed = m->seed * 1664525u + 1013904223u; /* new random words each iteration */
    }
  double secs = now() - t_all;
  if (m->tty) fprintf(stderr, "\r%60s\r", "");
  printf("\n%-7s %8s %12s %10s %9s\n", "pattern", "passes", "bytes", "errors", "time (s)");
  uint64_t total = 0;
  for (int p = 0; p < N_PATTERNS; p++) {
    if (!on[p]) continue;
    uint64_t bytes = !strncmp(patterns[p].name, "L", 1) && m->words > LCG_REGION_WORDS
                         ? LCG_REGION_WORDS * 4 : m->words * 4;
    printf("%-7s %8llu %12llu %10llu %9.2f\n", patterns[p].name, (unsigned long long)m->passes[p],
           (unsigned long long)bytes, (unsigned long long)m->errors[p], m->seconds[p]);
    total += m->errors[p];
  }
  printf("%-7s %8s %12llu %10llu %9.2f\n", "total", "", (unsigned long long)(m->words * 4),
         (unsigned long long)total, secs);
  if (m->nbad) {
    printf("\nbad words (address, offset in the tested range, bits wrong, first pattern):\n");
    for (int i = 0; i < m->nbad && i < 32; i++)
      printf("  %#llx  +%llu  bits 0x%08x  %s\n", (unsigned long long)m->bad[i].addr,
             (unsigned long long)(m->bad[i].addr - m->base), m->bad[i].bits,
             patterns[m->bad[i].pattern].name);
    if (m->nbad > 32 || m->bad_dropped)
      printf("  ... %llu more\n", (unsigned long long)(m->nbad - (m->nbad > 32 ? 32 : m->nbad) + m->bad_dropped));
  }
  printf("\nresult: %s\n", total ? "ERRORS FOUND" : "no errors");
  if (!no_history) {
    char pl[256] = "";
    for (int p = 0; p < N_PATTERNS; p++)
      if (on[p]) snprintf(pl + strlen(pl), sizeof pl - strlen(pl), "%s%s", pl[0] ? "," : "", patterns[p].name);
    record_history(m, dir, pl, total, secs);
  }
  rc = total ? 1 : 0;
out:
  if (m->base) m->g.cuMemFree(m->base);
  if (m->res) m->g.cuMemFree(m->res);
  if (m->mod) m->g.cuModuleUnload(m->mod);
  ft_gdrv_close(&m->g);
  free(m);
  return rc;
}
