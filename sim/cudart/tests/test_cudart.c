/* test_cudart.c: unit tests of the simulator's libcudart.so.13 (see test_list.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_app.h"
#include "runner.h"

#ifndef RT_PROBE
#define RT_PROBE NULL
#endif
#define OUR_CUDART SIMCUDA_LIB_DIR "/libcudart.so.13"

static int probe(const char *mode) {
  const char *why = app_skip_reason(RT_PROBE);
  if (why) return TEST_SKIPF("%s", why);
  app_result_t r;
  ASSERT_EQ(app_run((const char *const[]){RT_PROBE, mode, NULL}, NULL, &r), 0);
  if (r.status != 0) {
    fprintf(stderr, "--- rt_probe %s: status %d\n%s%s---\n", mode, r.status, r.out, r.err);
    FT_FAIL_("rt_probe %s failed", mode);
  }
  return TEST_OK;
}

TEST_IMPL(exports_versioned) {
  void *h = dlopen(OUR_CUDART, RTLD_NOW | RTLD_LOCAL);
  if (!h) FT_FAIL_("dlopen %s: %s", OUR_CUDART, dlerror());
  const char *names[] = {"__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd",
                         "__cudaRegisterFunction", "__cudaUnregisterFatBinary",
                         "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
                         "__cudaGetKernel", "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz",
                         "__cudaInitModule", "__cudaRegisterVar", "cudaMalloc",
                         "cudaGetDeviceProperties", "cudaLaunchKernel_ptsz",
                         "cudaMemcpyAsync_ptsz", "cudaMemcpy_ptds", "cudaFuncGetParamInfo"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!dlvsym(h, names[i], "libcudart.so.13")) FT_FAIL_("%s@libcudart.so.13 missing", names[i]);
  ASSERT(dlsym(h, "simcudaRegisterTwins") != NULL);
  ASSERT(dlsym(h, "simrt_ret") == NULL); /* internals stay hidden */
  dlclose(h);
  return TEST_OK;
}

/* Names and descriptions of every code equal the real libcudart's (which needs no GPU
 * for these two calls). */
TEST_IMPL(error_strings_match_real) {
  const char *real_path = CUDA_REAL_CUDART;
  if (access(real_path, R_OK) != 0) return TEST_SKIPF("no real runtime at %s", real_path);
  /* Both share a soname; opened by path, each is loaded on its own. */
  void *real = dlopen(real_path, RTLD_NOW | RTLD_LOCAL);
  void *ours = dlopen(OUR_CUDART, RTLD_NOW | RTLD_LOCAL);
  if (!real || !ours) FT_FAIL_("dlopen: %s", dlerror());
  ASSERT(real != ours);
  typedef const char *(*str_fn)(int);
  str_fn rn, rs, on, os;
  void *p;
  p = dlsym(real, "cudaGetErrorName"); memcpy(&rn, &p, sizeof p);
  p = dlsym(real, "cudaGetErrorString"); memcpy(&rs, &p, sizeof p);
  p = dlsym(ours, "cudaGetErrorName"); memcpy(&on, &p, sizeof p);
  p = dlsym(ours, "cudaGetErrorString"); memcpy(&os, &p, sizeof p);
  ASSERT(rn && rs && on && os);
  for (int e = -5; e < 1200; e++) {
    ASSERT_STR_EQ(on(e), rn(e));
    ASSERT_STR_EQ(os(e), rs(e));
  }
  return TEST_OK;
}

TEST_IMPL(errors_non_sticky) { return probe("errors"); }
TEST_IMPL(no_twin_launch) { return probe("notwin"); }
TEST_IMPL(sticky_illegal_address) { return probe("sticky"); }
TEST_IMPL(device_properties) { return probe("props"); }
TEST_IMPL(streams_events_memory) { return probe("streams"); }
TEST_IMPL(func_queries_and_launch_apis) { return probe("funcs"); }
TEST_IMPL(late_twin_registration) { return probe("late"); }
TEST_IMPL(arrays_and_surfaces) { return probe("arrays"); }

TEST_IMPL(launch_reset_launch) {
  const char *why = app_skip_reason(RT_PROBE);
  if (why) return TEST_SKIPF("%s", why);
  app_result_t r;
  ASSERT_EQ(app_run((const char *const[]){RT_PROBE, "reset", NULL}, NULL, &r), 0);
  if (r.status != 0 || !strstr(r.err, "at exit: the launch queued when the fatbin was unregistered ran")) {
    fprintf(stderr, "--- rt_probe reset: status %d\n%s%s---\n", r.status, r.out, r.err);
    FT_FAIL_("rt_probe reset failed");
  }
  return TEST_OK;
}

/* Only the runtime on the library path: the real runtime's answer is
 * cudaErrorInsufficientDriver. */
TEST_IMPL(no_driver_insufficient) {
  const char *why = app_skip_reason(RT_PROBE);
  if (why) return TEST_SKIPF("%s", why);
  void *sys = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (sys) return TEST_SKIPF("a libcuda.so.1 is installed system-wide");
  char dir[] = "/tmp/simrt_nodrv_XXXXXX";
  ASSERT(mkdtemp(dir) != NULL);
  char link[512];
  snprintf(link, sizeof link, "%s/libcudart.so.13", dir);
  ASSERT_EQ(symlink(OUR_CUDART, link), 0);
  app_result_t r;
  int rc = app_run_in((const char *const[]){RT_PROBE, "nodriver", NULL}, NULL, dir, &r);
  unlink(link);
  rmdir(dir);
  ASSERT_EQ(rc, 0);
  if (r.status != 0) {
    fprintf(stderr, "--- rt_probe nodriver: status %d\n%s%s---\n", r.status, r.out, r.err);
    FT_FAIL_("rt_probe nodriver failed");
  }
  return TEST_OK;
}
