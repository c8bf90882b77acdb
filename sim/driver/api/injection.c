/* injection.c: CUDA_INJECTION64_PATH, honoured as a CUDA driver does: at the first
 * cuInit the shared library it names is loaded and its InitializeInjection called,
 * once (tools such as CUPTI-based profilers are loaded this way; gpuft's answer is
 * in shim/hooks/injection.c). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool done;
static __thread bool loading; /* InitializeInjection may call cuInit itself */

static void load(const char *path) {
  if (!path || !*path) return;
  /* loaded late, as by the driver: after libcuda and the program in the search order */
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "simcuda: CUDA_INJECTION64_PATH=%s cannot be loaded (%s): cuInit goes on without it\n",
            path, dlerror());
    return;
  }
  int (*init)(void) = (int (*)(void))dlsym(h, "InitializeInjection");
  if (!init) {
    fprintf(stderr, "simcuda: CUDA_INJECTION64_PATH=%s has no InitializeInjection: not called\n", path);
    return; /* the library stays loaded, as its constructors have run */
  }
  int rc = init();
  if (sim_opt.log) sim_log("CUDA_INJECTION64_PATH=%s: InitializeInjection returned %d", path, rc);
}

void sim_injection_load(void) {
  if (atomic_load(&done) || loading) return;
  pthread_mutex_lock(&mu); /* another thread's cuInit returns after the injection */
  if (!atomic_load(&done)) {
    loading = true;
    load(getenv("CUDA_INJECTION64_PATH"));
    loading = false;
    atomic_store(&done, true);
  }
  pthread_mutex_unlock(&mu);
}
