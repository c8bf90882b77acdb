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
