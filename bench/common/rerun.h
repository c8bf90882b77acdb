/* rerun.h: a benchmark measures both sides in one invocation by running itself
 * again as a child, with or without LD_PRELOAD, and reading "<value> ..." lines
 * the child prints (one number per line, in order). */
#ifndef FT_BENCH_RERUN_H
#define FT_BENCH_RERUN_H

/* Runs /proc/self/exe with argv[1..] = child_args (NULL-terminated), LD_PRELOAD
 * set to `preload` (or removed when NULL); reads the last number of each output
 * line into vals (at most max). Returns the count, or -1 if the child failed. */
int bench_rerun(const char *const child_args[], const char *preload, double *vals, int max);
/* Monotonic seconds. */
double bench_now(void);

/* The options of a benchmark that measures itself as a child: --iters N --reps R
 * --lib path/libgpuft.so --json. 0, or 2 after a usage message. */
typedef struct {
  long iters;
  int reps, json;
  const char *lib;
} bench_opts_t;
int bench_opts(int argc, char **argv, bench_opts_t *o);
/* Rounds of the child ("--child ITERS REPS") without and with gpuft, alternating so
 * that drift of the machine hits both; the best of each of the n numbers it prints
 * into base[] and with[]. 0, or -1 (a run failed: said on stderr). */
int bench_alternate(const bench_opts_t *o, int rounds, int n, double *base, double *with);

#endif
