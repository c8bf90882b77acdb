/* proc.c: fork + exec with a modified environment, capturing output (see proc.h). */
#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int name_eq(const char *entry, const char *spec) {
  size_t n = strcspn(spec, "=");
  return strncmp(entry, spec, n) == 0 && entry[n] == '=';
}

static char **make_env(const char *const env[]) {
  size_t n = 0, m = 0;
  while (environ[n]) n++;
  while (env && env[m]) m++;
  char **out = calloc(n + m + 1, sizeof *out);
  if (!out) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int drop = 0;
    for (size_t j = 0; j < m; j++)
      if (name_eq(environ[i], env[j])) drop = 1;
    if (!drop) out[k++] = environ[i];
  }
  /* GPUFT_TEST_DRIVER=real (tools/gpu-acceptance): the tests that can run on a real
   * driver do, so the simulator's folder is not put in front of it. */
  int real = proc_real_driver();
  for (size_t j = 0; j < m; j++)
    if (strchr(env[j], '=') && !(real && !strncmp(env[j], "LD_LIBRARY_PATH=", 16)))
      out[k++] = (char *)env[j];
  out[k] = NULL;
  return out;
}

int proc_real_driver(void) {
  const char *drv = getenv("GPUFT_TEST_DRIVER");
  return drv && !strcmp(drv, "real");
}

static void append(char **buf, size_t *len, size_t *cap, const char *src, size_t n) {
  if (*len + n + 1 > *cap) {
    size_t nc = (*cap ? *cap * 2 : 4096);
    while (nc < *len + n + 1) nc *= 2;
    char *nb = realloc(*buf, nc);
    if (!nb) return;
    *buf = nb;
    *cap = nc;
  }
  memcpy(*buf + *len, src, n);
  *len += n;
  (*buf)[*len] = 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int proc_run(const char *const argv[], const char *const env[], int timeout_s, proc_result_t *r) {
  memset(r, 0, sizeof *r);
  r->status = -1;
  int po[2], pe[2];
  if (pipe(po) != 0) return -1;
  if (pipe(pe) != 0) {
    close(po[0]);
    close(po[1]);
    return -1;
  }
  char **cenv = make_env(env);
  if (!cenv) return -1;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    free(cenv);
    return -1;
  }
  if (pid == 0) {
    dup2(po[1], 1);
    dup2(pe[1], 2);
    close(po[0]);
    close(pe[0]);
    close(po[1]);
    close(pe[1]);
    execve(argv[0], (char *const *)argv, cenv);
    fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  free(cenv);
  close(po[1]);
  close(pe[1]);
  size_t cap_o = 0, cap_e = 0;
  append(&r->out, &r->out_len, &cap_o, "", 0);
  append(&r->err, &r->err_len, &cap_e, "", 0);
  struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
  int open_fds = 2, killed = 0;
  double deadline = now_s() + (timeout_s > 0 ? timeout_s : 3600);
  while (open_fds > 0) {
    int left_ms = (int)((deadline - now_s()) * 1000);
    if (left_ms <= 0) {
      kill(pid, SIGKILL);
      killed = 1;
      break;
    }
    int pr = poll(fds, 2, left_ms);
    if (pr < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        open_fds--;
        continue;
      }
      if (i == 0) append(&r->out, &r->out_len, &cap_o, buf, (size_t)got);
      else append(&r->err, &r->err_len, &cap_e, buf, (size_t)got);
    }
  }
  for (int i = 0; i < 2; i++)
    if (fds[i].fd >= 0) close(fds[i].fd);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  if (killed) r->status = 128 + SIGKILL;
  return 0;
}

void proc_free(proc_result_t *r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}

int json_u64(const char *json, const char *key, uint64_t *out) {
  char pat[256];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = json ? strstr(json, pat) : NULL;
  if (!p) return -1;
  p += strlen(pat);
  char *end;
  unsigned long long v = strtoull(p, &end, 10);
  if (end == p) return -1;
  *out = v;
  return 0;
}

char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  for (size_t n; buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
    len += n;
    if (cap - len < 2) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf) buf[len] = 0;
  return buf;
}

uint64_t sim_stat(const char *err, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, " %s=", key);
  const char *p = err ? strstr(err, pat) : NULL;
  return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}
