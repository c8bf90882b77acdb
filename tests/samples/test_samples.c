/* test_samples.c: runs each sample program on the simulator with SIMCUDA_TWINS=0
 * (every kernel through the PTX interpreter) and checks its verdict. */
#include "proc.h"
#include "runner.h"

static int run_sample(const char *name, const char *path) {
  if (!*path) return TEST_SKIPF("sample %s not built (no nvcc)", name);
  const char *argv[] = {path, NULL};
  const char *env[] = {"LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR, "SIMCUDA_TWINS=0", "LD_PRELOAD", NULL};
  proc_result_t r;
  ASSERT_EQ(proc_run(argv, env, 50, &r), 0);
  if (r.status != 0 || !strstr(r.out, "PASSED"))
    FT_FAIL_("%s exited %d\nstdout:\n%s\nstderr:\n%s", name, r.status, r.out, r.err);
  /* scan's kernel prints with device printf (block 0 sums 256 values of (i % 17) - 8). */
  if (strcmp(name, "scan") == 0) ASSERT(strstr(r.out, "scan: first block total -8\n"));
  /* The kernels ran on the interpreter: nothing may have been refused. */
  ASSERT(!strstr(r.err, "cannot launch"));
  proc_free(&r);
  return TEST_OK;
}

#define SAMPLE_TEST(n) \
  TEST_IMPL(n) { return run_sample(#n, SAMPLE_##n); }

SAMPLE_TEST(matmul_tiled)
SAMPLE_TEST(reduce_shfl)
SAMPLE_TEST(scan)
SAMPLE_TEST(histogram)
SAMPLE_TEST(transpose)
SAMPLE_TEST(nbody)
SAMPLE_TEST(stencil2d)
SAMPLE_TEST(cg_csr)
SAMPLE_TEST(streams)
SAMPLE_TEST(vote_ballot)
