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

#endif
