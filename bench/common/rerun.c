/* rerun.c: see rerun.h. */
#define _GNU_SOURCE
#include "rerun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bench_rerun(const char *const child_args[], const char *preload, double *vals, int max) {
  char self[4096];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) return -1;
  self[sl] = 0;
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    if (preload) setenv("LD_PRELOAD", preload, 1);
    else unsetenv("LD_PRELOAD");
    const char *argv[32] = {self};
    int n = 1;
    for (; child_args[n - 1] && n < 31; n++) argv[n] = child_args[n - 1];
    argv[n] = NULL;
    execv(self, (char *const *)argv);
    _exit(127);
  }
  close(fd[1]);
  FILE *f = fdopen(fd[0], "r");
  char line[512];
  int got = 0;
  while (f && fgets(line, sizeof line, f)) {
    char *last = strrchr(line, ' ');
    if (got < max) vals[got++] = strtod(last ? last + 1 : line, NULL);
  }
  if (f) fclose(f);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? got : -1;
}

int bench_opts(int argc, char **argv, bench_opts_t *o) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) o->iters = atol(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) o->reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lib") && i + 1 < argc) o->lib = argv[++i];
    else if (!strcmp(argv[i], "--json")) o->json = 1;
    else {
      fprintf(stderr, "usage: %s [--iters N] [--reps R] [--lib libgpuft.so] [--json]\n", argv[0]);
      return 2;
    }
  }
  if (o->iters <= 0 || o->reps <= 0) {
    fprintf(stderr, "%s: --iters and --reps must be positive\n", argv[0]);
    return 2;
  }
  return 0;
}

int bench_alternate(const bench_opts_t *o, int rounds, int n, double *base, double *with) {
  char it[32], rp[32];
  snprintf(it, sizeof it, "%ld", o->iters);
  snprintf(rp, sizeof rp, "%d", o->reps);
  const char *args[] = {"--child", it, rp, NULL};
  for (int k = 0; k < n; k++) base[k] = with[k] = 1e30;
  double b[64], w[64];
  if (n > 64) return -1;
  for (int round = 0; round < rounds; round++) {
    if (bench_rerun(args, NULL, b, n) != n || bench_rerun(args, o->lib, w, n) != n) {
      fprintf(stderr, "a measurement run failed (driver reachable? library %s?)\n", o->lib);
      return -1;
    }
    for (int k = 0; k < n; k++) {
      if (b[k] < base[k]) base[k] = b[k];
      if (w[k] < with[k]) with[k] = w[k];
    }
  }
  return 0;
}
