/* doors.c: checks the three doors onto gpuft's hook table from a program linked
 * with -lcuda: direct calls, dlsym on the driver's handle, cuGetProcAddress with
 * several versions and flags; and that non-CUDA dlsym look-ups (RTLD_DEFAULT,
 * RTLD_NEXT from another library, library handles, missing names) behave as
 * without gpuft. `doors gpuft` expects gpuft preloaded, `doors plain` not.
 * Prints one line per check and exits 1 on any failure. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *probe_a_next(void); /* libprobe_a: dlsym(RTLD_NEXT, "probe_name") -> name */
const char *probe_name(void);   /* defined by libprobe_a and libprobe_b */

static int fails;

static void expect(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) fails++;
}

/* Library file name (basename) and symbol name of an address. */
static void who(const void *p, char *lib, size_t nlib, char *sym, size_t nsym) {
  Dl_info di;
  memset(&di, 0, sizeof di);
  snprintf(lib, nlib, "?");
  snprintf(sym, nsym, "?");
  if (!p || !dladdr(p, &di)) return;
  const char *slash = di.dli_fname ? strrchr(di.dli_fname, '/') : NULL;
  snprintf(lib, nlib, "%s", slash ? slash + 1 : (di.dli_fname ? di.dli_fname : "?"));
  snprintf(sym, nsym, "%s", di.dli_sname ? di.dli_sname : "?");
}

/* Where a non-CUDA look-up lands, for the test to compare with and without gpuft
 * (the answer itself depends on the build: a sanitizer interposes malloc). */
static void info(const void *p, const char *what) {
  char lib[256], sym[256];
  who(p, lib, sizeof lib, sym, sizeof sym);
  char *so = strstr(lib, ".so");
  if (so) so[3] = 0; /* libasan.so.8 and libasan.so.8.0.0 are one library */
  printf("info %s -> %s:%s\n", what, lib, sym);
}

static void expect_at(const void *p, const char *want_lib_prefix, const char *want_sym,
                      const char *what) {
  char lib[256], sym[256], line[768];
  who(p, lib, sizeof lib, sym, sizeof sym);
  int ok = strncmp(lib, want_lib_prefix, strlen(want_lib_prefix)) == 0 &&
           (!want_sym || strcmp(sym, want_sym) == 0);
  snprintf(line, sizeof line, "%s -> %s:%s (want %s*:%s)", what, lib, sym, want_lib_prefix,
           want_sym ? want_sym : "*");
  expect(ok, line);
}

int main(int argc, char **argv) {
  int gpuft = argc > 1 && strcmp(argv[1], "gpuft") == 0;
  const char *hooklib = gpuft ? "libgpuft" : "libcuda";

  /* Door 1: a direct call binds to the first definition: gpuft's when preloaded. */
  CUdevice dev;
  CUcontext ctx;
  CUdeviceptr d;
  expect(cuInit(0) == CUDA_SUCCESS, "cuInit");
  expect(cuDeviceGet(&dev, 0) == CUDA_SUCCESS, "cuDeviceGet");
  expect(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS, "primary context");
  expect(cuCtxSetCurrent(ctx) == CUDA_SUCCESS, "cuCtxSetCurrent");
  expect(cuMemAlloc(&d, 4096) == CUDA_SUCCESS, "cuMemAlloc (direct call)");
  expect(cuMemFree(d) == CUDA_SUCCESS, "cuMemFree (direct call)");
  expect_at(dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"), hooklib, "cuMemAlloc_v2",
            "dlsym(RTLD_DEFAULT, cuMemAlloc_v2)");

  /* Door 2: dlsym on the driver's own handle, as the CUDA runtime does. */
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  expect(h != NULL, "dlopen(libcuda.so.1)");
  expect_at(dlsym(h, "cuMemAlloc_v2"), hooklib, "cuMemAlloc_v2", "dlsym(libcuda, cuMemAlloc_v2)");
  expect_at(dlsym(h, "cuGetProcAddress_v2"), hooklib, "cuGetProcAddress_v2",
            "dlsym(libcuda, cuGetProcAddress_v2)");
  expect_at(dlsym(h, "cuInit"), "libcuda", "cuInit", "dlsym(libcuda, cuInit) (not hooked)");
  /* the v1 ABI is not hooked: the caller gets the driver's own, if it has one */
  void *v1 = dlsym(h, "cuMemAlloc");
  if (v1) expect_at(v1, "libcuda", "cuMemAlloc", "dlsym(libcuda, cuMemAlloc) (v1 ABI)");

  /* Door 3: cuGetProcAddress answers per version and flags. */
  PFN_cuGetProcAddress_v12000 gpa = (PFN_cuGetProcAddress_v12000)dlsym(h, "cuGetProcAddress_v2");
  struct {
    const char *sym;
    int ver;
    cuuint64_t flags;
    const char *lib, *want;
  } q[] = {
      {"cuMemAlloc", 13000, 0, hooklib, "cuMemAlloc_v2"},
      {"cuMemAlloc", 3020, 0, hooklib, "cuMemAlloc_v2"},
      {"cuMemcpyHtoDAsync", 13000, 0, hooklib, "cuMemcpyHtoDAsync_v2"},
      {"cuMemcpyHtoDAsync", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, hooklib,
       "cuMemcpyHtoDAsync_v2_ptsz"},
      {"cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, hooklib,
       "cuMemcpyHtoD_v2_ptds"},
      {"cuLaunchKernel", 13000, 0, hooklib, "cuLaunchKernel"},
      {"cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, hooklib,
       "cuLaunchKernel_ptsz"},
      {"cuCtxSynchronize", 12000, 0, hooklib, "cuCtxSynchronize"},
      {"cuCtxSynchronize", 13000, 0, hooklib, "cuCtxSynchronize_v2"},
      {"cuGetProcAddress", 13000, 0, hooklib, "cuGetProcAddress_v2"},
      {"cuDeviceGet", 13000, 0, "libcuda", "cuDeviceGet"},
  };
  for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
    void *p = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    char what[160];
    snprintf(what, sizeof what, "cuGetProcAddress_v2(%s, %d, flags %llu)", q[i].sym, q[i].ver,
             (unsigned long long)q[i].flags);
    CUresult r = gpa(q[i].sym, &p, q[i].ver, q[i].flags, &st);
    expect(r == CUDA_SUCCESS && st == CU_GET_PROC_ADDRESS_SUCCESS, what);
    expect_at(p, q[i].lib, q[i].want, what);
  }
  {
    /* An old ABI gpuft does not hook: the driver's own, or the driver's refusal. */
    void *p = NULL;
    CUdriverProcAddressQueryResult st;
    CUresult r = gpa("cuMemAlloc", &p, 2000, 0, &st);
    if (r == CUDA_SUCCESS)
      expect_at(p, "libcuda", "cuMemAlloc", "cuGetProcAddress_v2(cuMemAlloc, 2000): v1 ABI");
    else
      expect(!p || st != CU_GET_PROC_ADDRESS_SUCCESS, "cuGetProcAddress_v2(cuMemAlloc, 2000) refused");
  }
  {
    void *p = (void *)1;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r = gpa("cuNoSuchEntryPoint", &p, 13000, 0, &st);
    expect(r == CUDA_ERROR_NOT_FOUND && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
           "cuGetProcAddress_v2(unknown) -> NOT_FOUND");
  }

  /* Non-CUDA look-ups are untouched. */
  info(dlsym(RTLD_DEFAULT, "strlen"), "dlsym(RTLD_DEFAULT, strlen)");
  expect(dlsym(RTLD_DEFAULT, "no_such_symbol_gpuft") == NULL, "dlsym(RTLD_DEFAULT, missing) == NULL");
  const char *e = dlerror();
  expect(e && strstr(e, "no_such_symbol_gpuft") != NULL, "dlerror() names the missing symbol");
  void *m = dlopen("libm.so.6", RTLD_NOW);
  double (*cosine)(double) = m ? (double (*)(double))dlsym(m, "cos") : NULL;
  expect_at((void *)cosine, "libm", NULL, "dlsym(libm, cos)");
  expect(cosine && cosine(0.0) == 1.0, "cos from dlsym works");
  expect(m && dlsym(m, "no_such_symbol_gpuft") == NULL, "dlsym(libm, missing) == NULL");
  /* RTLD_NEXT is relative to the caller, not to gpuft. */
  expect(strcmp(probe_name(), "a") == 0, "probe_name() binds to libprobe_a");
  expect(probe_a_next() && strcmp(probe_a_next(), "b") == 0,
         "dlsym(RTLD_NEXT, probe_name) from libprobe_a finds libprobe_b's");
  const char *(*next_from_main)(void) = (const char *(*)(void))dlsym(RTLD_NEXT, "probe_name");
  expect(next_from_main && strcmp(next_from_main(), "a") == 0,
         "dlsym(RTLD_NEXT, probe_name) from the program finds libprobe_a's");
  info(dlsym(RTLD_NEXT, "malloc"), "dlsym(RTLD_NEXT, malloc)");
  info(dlsym(RTLD_NEXT, "free"), "dlsym(RTLD_NEXT, free)");
  info(dlsym(RTLD_DEFAULT, "pthread_create"), "dlsym(RTLD_DEFAULT, pthread_create)");

  expect(cuDevicePrimaryCtxRelease(dev) == CUDA_SUCCESS, "release");
  printf("doors: %d failures\n", fails);
  return fails ? 1 : 0;
}
