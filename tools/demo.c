/* demo.c: `gpuft demo`: the README's fault demo as one command, on the simulator: an
 * SGEMM with one bit flipped in an input just before the kernel reads it, without
 * gpuft (wrong result) and with gpuft (the fault-free result), then the report. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign.h"

#define DEMO_FLIP "at=launch:sgemm:1,target=arg:0,offset=1000,bit=3"
#define DEMO_N "256"
#ifndef GPUFT_DEMO_SGEMM
#define GPUFT_DEMO_SGEMM ""
#endif

/* Runs argv with LD_LIBRARY_PATH=sim (and SIMCUDA_FLIP if flip); its "checksum: " line
 * into sum. stderr passes through (gpuft's summary). Returns the exit status. */
static int run(char *const argv[], const char *sim, int flip, char *sum, size_t cap) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    setenv("LD_LIBRARY_PATH", sim, 1);
    if (flip) setenv("SIMCUDA_FLIP", DEMO_FLIP, 1);
    else unsetenv("SIMCUDA_FLIP");
    execv(argv[0], argv);
    fprintf(stderr, "gpuft demo: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(fd[1]);
  char out[4096];
  size_t len = 0;
  ssize_t k;
  while (len < sizeof out - 1 && (k = read(fd[0], out + len, sizeof out - 1 - len)) > 0) len += (size_t)k;
  out[len] = 0;
  close(fd[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  const char *c = strstr(out, "checksum: ");
  snprintf(sum, cap, "%.*s", c ? (int)strcspn(c + 10, "\n") : 1, c ? c + 10 : "?");
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int ft_demo_main(int argc, char **argv) {
  if (argc > 1) {
    printf("usage: gpuft demo\n\nRuns an SGEMM (n = " DEMO_N ") on the CPU simulator three times: without a fault,\n"
           "with one bit flipped in its input A just before the kernel reads it\n"
           "(SIMCUDA_FLIP=\"" DEMO_FLIP "\"), first without gpuft, then with it;\n"
           "compares the checksums and shows gpuft's report. Exit status 0 when gpuft gave\n"
           "back the fault-free result.\n");
    return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
  }
  char sim[PATH_MAX], sgemm[PATH_MAX], self[PATH_MAX];
  if (ft_tools_find_sim(sim) != 0) {
    fprintf(stderr, "gpuft demo: the simulator is not installed (lib/gpuft/sim next to bin/): "
                    "install the 'simulator' component (cmake --install BUILD --component simulator)\n");
    return 2;
  }
  if (ft_tools_find("../libexec/gpuft/sgemm", GPUFT_DEMO_SGEMM, sgemm) != 0) {
    fprintf(stderr, "gpuft demo: the demo program libexec/gpuft/sgemm is not installed (it is built "
                    "with nvcc: configure with the CUDA toolkit, then install the 'simulator' component)\n");
    return 2;
  }
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 2;
  self[n] = 0;
  char tmp[] = "/tmp/gpuft-demo-XXXXXX", report[sizeof tmp + 16], rep_opt[sizeof report + 16];
  if (!mkdtemp(tmp)) return 2;
  snprintf(report, sizeof report, "%s/report.json", tmp);
  snprintf(rep_opt, sizeof rep_opt, "--report=%s", report);

  setenv("GPUFT_REPORT_TEMPORARY", "1", 1); /* removed at the end: the summary need not name it */
  char golden[64], broken[64], fixed[64];
  char *plain[] = {sgemm, DEMO_N, NULL};
  char *under[] = {self, rep_opt, "--", sgemm, DEMO_N, NULL};
  printf("gpuft demo: SGEMM n=%s on the CPU simulator (%s)\n\n", DEMO_N, sim);
  printf("1. without a fault, without gpuft\n");
  int s1 = run(plain, sim, 0, golden, sizeof golden);
  printf("   checksum %s\n\n", golden);
  printf("2. one bit flipped in input A before the kernel reads it (%s), without gpuft\n", DEMO_FLIP);
  int s2 = run(plain, sim, 1, broken, sizeof broken);
  printf("   checksum %s: %s\n\n", broken, strcmp(broken, golden) ? "WRONG, silently" : "the same (the flip was masked)");
  printf("3. the same flip, under gpuft\n");
  fflush(stdout);
  int s3 = run(under, sim, 1, fixed, sizeof fixed);
  printf("   checksum %s: %s\n\n", fixed, strcmp(fixed, golden) ? "WRONG" : "the fault-free result");
  printf("gpuft's report:\n");
  fflush(stdout);
  char *rargs[] = {"report", report, NULL};
  ft_report_cmd_main(2, rargs);
  ft_remove_dir(tmp);
  return s1 == 0 && s2 == 0 && s3 == 0 && !strcmp(fixed, golden) ? 0 : 1;
}
