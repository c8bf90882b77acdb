/* test_badinput.c: every case of badinput (a bad driver API call, then everything
 * the program can observe) runs in a child process on the simulator, once without
 * and once with gpuft preloaded; both must exit normally with the same output:
 * the same result codes and the same memory contents. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "runner.h"

#define PRELOAD "LD_PRELOAD=" GPUFT_LIB
#define SIMPATH "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR

static void run_case(int i, int gp, proc_result_t *r) {
  char num[16];
  snprintf(num, sizeof num, "%d", i);
  const char *argv[] = {EXE_BADINPUT, num, NULL};
  /* the simulator's poison makes reads of never-written memory deterministic */
  const char *env[] = {SIMPATH, gp ? PRELOAD : "LD_PRELOAD", "GPUFT_LOG=error", NULL};
  ASSERT_EQ(proc_run(argv, env, 60, r), 0);
}

TEST_IMPL(bad_calls_identical_with_gpuft) {
  const char *argv[] = {EXE_BADINPUT, "--count", NULL};
  const char *env[] = {SIMPATH, NULL};
  proc_result_t c;
  ASSERT_EQ(proc_run(argv, env, 30, &c), 0);
  int n = atoi(c.out);
  proc_free(&c);
  ASSERT_GE(n, 70);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    proc_result_t plain, gp;
    run_case(i, 0, &plain);
    run_case(i, 1, &gp);
    if (plain.status != 0) {
      printf("# case %d: the simulator alone exits %d: %s%s\n", i, plain.status, plain.out,
             plain.err);
      bad++;
    } else if (gp.status != plain.status || strcmp(gp.out, plain.out) != 0) {
      printf("# case %d differs:\n#   without gpuft: %s#   with gpuft (exit %d): %s%.2000s\n", i,
             plain.out, gp.status, gp.out, gp.err);
      bad++;
    }
    proc_free(&plain);
    proc_free(&gp);
  }
  printf("# %d bad calls, %d differ\n", n, bad);
  ASSERT_EQ(bad, 0);
  return TEST_OK;
}
