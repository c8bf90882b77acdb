/* Test runner: forks each test of the list with a timeout and prints TAP.
 * `prog` runs all, `prog NAME...` runs the named ones, `prog --list` lists. */
#define _GNU_SOURCE
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEST_ENTRY(name, timeout) TEST_IMPL(name);
#include FT_TEST_LIST
#undef TEST_ENTRY

typedef struct {
  const char *name;
  int (*fn)(void);
  int timeout_s;
} ft_test_t;

static const ft_test_t tests[] = {
#define TEST_ENTRY(name, timeout) {#name, ft_test_##name, timeout},
#include FT_TEST_LIST
#undef TEST_ENTRY
};
#define N_TESTS (sizeof(tests) / sizeof(tests[0]))

static int skip_fd = -1;
static char test_dir[4096];

int ft_test_skip(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
  if (skip_fd >= 0 && write(skip_fd, buf, (size_t)n) < 0) { /* reason is best effort */ }
  return TEST_SKIP;
}

void ft_test_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  abort();
}

const char *ft_test_dir(void) { return test_dir; }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Timeouts are scaled (sanitizer builds are several times slower): the larger of
 * the scale configured (which ctest's own limits follow) and the environment's. */
#ifndef FT_TIMEOUT_SCALE_CONFIG
#define FT_TIMEOUT_SCALE_CONFIG 1
#endif
double ft_test_timeout_scale(void) {
  const char *s = getenv("FT_TEST_TIMEOUT_SCALE");
  double v = s ? strtod(s, NULL) : 1.0, c = FT_TIMEOUT_SCALE_CONFIG;
  if (!(v > 0 && v < 1000)) v = 1.0;
  return v > c ? v : c;
}

/* Each test gets an empty error history of its own (GPUFT_HISTORY_DIR, docs/gpu.md):
 * permanent faults an earlier test or run recorded must not change what gpuft does in
 * this one. Made under FT_TEST_HISTORY_ROOT (set by CTest), removed afterwards. */
static int history_dir(const ft_test_t *t, char *dir, size_t cap) {
  const char *root = getenv("FT_TEST_HISTORY_ROOT");
  if (!root || !*root) return 0;
  mkdir(root, 0755);
  snprintf(dir, cap, "%s/%s.XXXXXX", root, t->name);
  return mkdtemp(dir) != NULL;
}
static void history_remove(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char path[1400];
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.' && snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
      unlink(path);
  if (d) closedir(d);
  rmdir(dir);
}

/* Returns 0 pass, 1 fail, 2 skip. */
static int run_one(int idx, const ft_test_t *t) {
  char hist[1024];
  int own_hist = history_dir(t, hist, sizeof hist);
  int pfd[2];
  if (pipe(pfd) != 0) { perror("pipe"); return 1; }
  fflush(stdout);
  fflush(stderr);
  double t0 = now_s();
  pid_t pid = fork();
  if (pid < 0) { perror("fork"); return 1; }
  if (pid == 0) {
    close(pfd[0]);
    skip_fd = pfd[1];
    setpgid(0, 0);
    if (own_hist) setenv("GPUFT_HISTORY_DIR", hist, 1);
#ifndef FT_TEST_REAL_DRIVER_OK
    /* Test binaries not declared REAL_DRIVER (cmake/tests.cmake) rely on the simulator:
     * its libcuda, its twins, its fault seam. On a GPU they skip, saying so. */
    const char *drv = getenv("GPUFT_TEST_DRIVER");
    if (drv && !strcmp(drv, "real"))
      exit(ft_test_skip("needs the simulator (its libcuda, twins or fault seam SIMCUDA_FLIP); "
                        "GPUFT_TEST_DRIVER=real runs against the real driver"));
#endif
    int rc = t->fn();
    fflush(stdout);
    fflush(stderr);
    /* exit, not _exit: sanitizers report (and set the exit code) at exit */
    exit(rc);
  }
  close(pfd[1]);
  double limit = t->timeout_s * ft_test_timeout_scale();
  int status = 0, timed_out = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) { perror("waitpid"); break; }
    if (now_s() - t0 > limit) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      timed_out = 1;
      break;
    }
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  char reason[512] = "";
  ssize_t n = read(pfd[0], reason, sizeof reason - 1);
  reason[n > 0 ? n : 0] = 0;
  close(pfd[0]);
  if (own_hist) history_remove(hist);
  double dt = now_s() - t0;
  if (timed_out) {
    printf("not ok %d - %s # timeout after %.0f s\n", idx, t->name, limit);
    return 1;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    printf("ok %d - %s (%.2f s)\n", idx, t->name, dt);
    return 0;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == TEST_SKIP) {
    printf("ok %d - %s # SKIP %s\n", idx, t->name, reason[0] ? reason : "(no reason)");
    return 2;
  }
  if (WIFSIGNALED(status))
    printf("not ok %d - %s # killed by signal %d (%s)\n", idx, t->name, WTERMSIG(status),
           strsignal(WTERMSIG(status)));
  else
    printf("not ok %d - %s # exit code %d\n", idx, t->name, WEXITSTATUS(status));
  return 1;
}

int main(int argc, char **argv) {
  ssize_t n = readlink("/proc/self/exe", test_dir, sizeof test_dir - 1);
  if (n > 0) {
    test_dir[n] = 0;
    char *slash = strrchr(test_dir, '/');
    if (slash) *slash = 0;
  }
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (size_t i = 0; i < N_TESTS; i++) printf("%s\n", tests[i].name);
    return 0;
  }
  int selected[N_TESTS], n_sel = 0;
  if (argc == 1) {
    for (size_t i = 0; i < N_TESTS; i++) selected[n_sel++] = (int)i;
  } else {
    for (int a = 1; a < argc; a++) {
      size_t i;
      for (i = 0; i < N_TESTS; i++)
        if (strcmp(argv[a], tests[i].name) == 0) break;
      if (i == N_TESTS) {
        fprintf(stderr, "unknown test: %s\n", argv[a]);
        return 2;
      }
      selected[n_sel++] = (int)i;
    }
  }
  printf("1..%d\n", n_sel);
  int pass = 0, fail = 0, skip = 0;
  for (int k = 0; k < n_sel; k++) {
    int r = run_one(k + 1, &tests[selected[k]]);
    if (r == 0) pass++;
    else if (r == 1) fail++;
    else skip++;
  }
  if (n_sel > 1) printf("# %d passed, %d failed, %d skipped\n", pass, fail, skip);
  if (fail) return 1;
  if (n_sel == 1 && skip == 1) return TEST_SKIP;
  return 0;
}
