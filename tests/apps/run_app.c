/* run_app.c: fork + exec of an example program on the simulator, capturing output. */
#define _GNU_SOURCE
#include "run_app.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#ifndef SIMCUDA_LIB_DIR
#error "SIMCUDA_LIB_DIR must be defined"
#endif

const char *app_skip_reason(const char *exe) {
  if (!exe) return "nvcc was not found at configure time: the example programs were not built";
  return NULL;
}

/* The child's environment: ours without LD_LIBRARY_PATH/SIMCUDA_FLIP, plus those. */
static char **child_env(const char *flip, const char *libdir) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 3, sizeof *env);
  if (!env) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "LD_LIBRARY_PATH=", 16) != 0 &&
        strncmp(environ[i], "SIMCUDA_FLIP=", 13) != 0)
      env[k++] = environ[i];
  static char ld[4096];
  snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s", libdir ? libdir : SIMCUDA_LIB_DIR);
  env[k++] = ld;
  if (flip) {
    static char fl[1024];
    snprintf(fl, sizeof fl, "SIMCUDA_FLIP=%s", flip);
    env[k++] = fl;
  }
  env[k] = NULL;
  return env;
}

int app_run(const char *const argv[], const char *flip, app_result_t *r) {
  return app_run_in(argv, flip, NULL, r);
}

int app_run_in(const char *const argv[], const char *flip, const char *libdir, app_result_t *r) {
  memset(r, 0, sizeof *r);
  int po[2], pe[2];
  if (pipe(po) != 0 || pipe(pe) != 0) return -1;
  char **env = child_env(flip, libdir);
  if (!env) return -1;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(po[1], 1);
    dup2(pe[1], 2);
    close(po[0]);
    close(pe[0]);
    close(po[1]);
    close(pe[1]);
    execve(argv[0], (char *const *)argv, env);
    fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  free(env);
  close(po[1]);
  close(pe[1]);
  size_t no = 0, ne = 0;
  struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        open_fds--;
        continue;
      }
      char *dst = i == 0 ? r->out : r->err;
      size_t cap = (i == 0 ? sizeof r->out : sizeof r->err) - 1, *len = i == 0 ? &no : &ne;
      size_t take = (size_t)got < cap - *len ? (size_t)got : cap - *len;
      memcpy(dst + *len, buf, take);
      *len += take;
    }
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  const char *c = strstr(r->out, "checksum: ");
  if (c && sscanf(c + 10, "%" SCNx64, &r->checksum) == 1) r->has_checksum = 1;
  return 0;
}
