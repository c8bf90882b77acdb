/* sim_path.c: where the tools find what is installed next to the launcher (the
 * simulator, the demo program), and what to say when no CUDA driver can be loaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_path.h"

#ifndef GPUFT_DEMO_SIM_DIR
#define GPUFT_DEMO_SIM_DIR ""
#endif

int ft_tools_find(const char *rel, const char *built, char *out) {
  char exe[PATH_MAX], buf[PATH_MAX + 64];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(buf, sizeof buf, "%s/%s", exe, rel);
    if (realpath(buf, out) && access(out, R_OK) == 0) return 0;
  }
  return built && built[0] && realpath(built, out) && access(out, R_OK) == 0 ? 0 : -1;
}

int ft_tools_find_sim(char *out) {
  char cuda[PATH_MAX + 16];
  if (ft_tools_find("../lib/gpuft/sim", GPUFT_DEMO_SIM_DIR, out) != 0) return -1;
  snprintf(cuda, sizeof cuda, "%s/libcuda.so.1", out);
  return access(cuda, R_OK) == 0 ? 0 : -1;
}

void ft_tools_no_driver_hint(const char *who, const char *rerun) {
  char sim[PATH_MAX];
  fprintf(stderr, "%s: no NVIDIA driver here (libcuda.so.1 cannot be loaded: install the driver, "
                  "or add its folder to LD_LIBRARY_PATH)", who);
  if (ft_tools_find_sim(sim) == 0)
    fprintf(stderr, "; to run on gpuft's CPU simulator instead: %s (or LD_LIBRARY_PATH=%s)\n",
            rerun, sim);
  else
    fprintf(stderr, "; gpuft's CPU simulator is not installed (cmake --install BUILD --component "
                    "simulator puts it in lib/gpuft/sim)\n");
}

/* In a child: the launcher's own loader read LD_LIBRARY_PATH at its start, a child's
 * reads it as the programs it runs do (and a driver loaded here would stay loaded). */
int ft_tools_driver_loadable(void) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    /* the folders of LD_LIBRARY_PATH as it is now (set by --sim after this process
     * started), then the loader's own search */
    const char *lp = getenv("LD_LIBRARY_PATH");
    char path[PATH_MAX];
    for (const char *p = lp ? lp : ""; *p;) {
      size_t len = strcspn(p, ":");
      snprintf(path, sizeof path, "%.*s/libcuda.so.1", (int)len, p);
      if (len && dlopen(path, RTLD_LAZY | RTLD_LOCAL)) _exit(0);
      p += len + (p[len] == ':');
    }
    _exit(dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) ? 0 : 1);
  }
  int st = 0;
  if (pid < 0) return 1;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
