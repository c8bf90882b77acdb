/* traffic_bench: device memory traffic gpuft adds per byte the program's kernels
 * are given, on the simulator, for the example programs. Each program runs twice
 * in this invocation, without and with gpuft; the simulator's counters
 * (SIMCUDA_STATS) give the program's own traffic, gpuft's report what its kernels
 * read (verification, re-encoding) and what its codes added to the copies.
 *   traffic_bench [--json]        (run with LD_LIBRARY_PATH=build/sim) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

typedef struct {
  const char *name, *exe, *a1, *a2;
} app_t;

static const app_t apps[] = {
    {"sgemm n=512", APP_SGEMM, "512", NULL},
    {"sgemm n=1024", APP_SGEMM, "1024", NULL},
    {"jacobi 256x256, 50 iterations", APP_JACOBI, "256", "50"},
    {"jacobi 512x512, 20 iterations", APP_JACOBI, "512", "20"},
};

static uint64_t stat_of(const char *err, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, " %s=", key);
  const char *p = strstr(err, pat);
  return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

int main(int argc, char **argv) {
  int json = argc > 1 && !strcmp(argv[1], "--json");
  char rep[256], env_rep[300];
  snprintf(rep, sizeof rep, "/tmp/gpuft-traffic-%d.json", (int)getpid());
  snprintf(env_rep, sizeof env_rep, "GPUFT_REPORT=%s", rep);
  if (json) printf("{\"apps\": [");
  else
    printf("traffic_bench: device traffic gpuft adds per byte the kernels are given "
           "(simulator counters, same run)\n\n%-32s %14s %14s %14s %9s\n",
           "program", "kernel bytes", "gpuft reads", "code copies", "ratio");
  for (size_t i = 0; i < sizeof apps / sizeof *apps; i++) {
    const char *argv_[] = {apps[i].exe, apps[i].a1, apps[i].a2, NULL};
    const char *plain[] = {"SIMCUDA_STATS=1", "LD_PRELOAD", NULL};
    const char *with[] = {"SIMCUDA_STATS=1", "LD_PRELOAD=" GPUFT_LIB, env_rep, NULL};
    proc_result_t p, g;
    if (proc_run(argv_, plain, 600, &p) || p.status || proc_run(argv_, with, 600, &g) || g.status) {
      fprintf(stderr, "traffic_bench: %s failed\n", apps[i].name);
      return 1;
    }
    char *js = read_file(rep);
    uint64_t kernel = stat_of(p.err, "kernel_bytes_args");
    uint64_t verified = 0, encoded = 0;
    json_u64(js, "verified_device", &verified);
    json_u64(js, "encoded_device", &encoded);
    /* the codes travel with the data: extra bytes in the copies */
    uint64_t extra_copies = 0;
    static const char *const keys[] = {"bytes_h2d", "bytes_d2h", "bytes_d2d", "bytes_memset"};
    for (int k = 0; k < 4; k++) {
      uint64_t a = stat_of(p.err, keys[k]), b = stat_of(g.err, keys[k]);
      extra_copies += b > a ? b - a : 0;
    }
    double ratio = kernel ? (double)(verified + encoded + extra_copies) / (double)kernel : 0;
    if (json)
      printf("%s{\"program\": \"%s\", \"kernel_bytes\": %ju, \"gpuft_device_reads\": %ju, "
             "\"code_copy_bytes\": %ju, \"added_per_kernel_byte\": %.4f}",
             i ? ", " : "", apps[i].name, (uintmax_t)kernel, (uintmax_t)(verified + encoded),
             (uintmax_t)extra_copies, ratio);
    else
      printf("%-32s %14ju %14ju %14ju %9.3f\n", apps[i].name, (uintmax_t)kernel,
             (uintmax_t)(verified + encoded), (uintmax_t)extra_copies, ratio);
    free(js);
    unlink(rep);
    proc_free(&p);
    proc_free(&g);
  }
  if (json) printf("]}\n");
  else
    printf("\nkernel bytes: sum over launches of the sizes of the allocations the kernel "
           "arguments point into (the simulator's kernel_bytes_args); gpuft reads: bytes its "
           "verify and encode kernels read; code copies: extra bytes copied and set for codes\n");
  return 0;
}
