/* injection.c: InitializeInjection, which a CUDA driver calls at cuInit in the
 * library CUDA_INJECTION64_PATH names. Preloaded, gpuft is already in place; loaded
 * only this way, it cannot protect the program, and says so (docs/launcher.md). */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "gpuft.h"
#include "hooks.h"

/* The driver's contract: int InitializeInjection(void), called once at cuInit;
 * samples of NVIDIA's CUPTI return 1 for success. */
FT_API int InitializeInjection(void);
FT_API int InitializeInjection(void) {
  ft_init();
  if (!ft_loaded_late()) {
    FT_DEBUG("CUDA_INJECTION64_PATH: gpuft was loaded at start-up already (LD_PRELOAD): nothing more to do");
    return 1;
  }
  void *other = ft_real_dlsym ? ft_real_dlsym(RTLD_DEFAULT, "gpuft_version") : NULL;
  if (other && other != (void *)&gpuft_version) {
    FT_INFO("CUDA_INJECTION64_PATH: another libgpuft.so is preloaded and protects this process; "
            "this copy stays out of the way");
    return 1;
  }
  /* Why not hook from here: the program's driver calls are bound to libcuda, or go
   * through entry points it (or the CUDA runtime) fetched with dlsym or
   * cuGetProcAddress before cuInit; a library loaded now can take over none of
   * them for certain. gpuft must see every write to the memory it protects: had it
   * taken over only some calls, it would "correct" data back to what it last saw. */
  FT_WARN("loaded through CUDA_INJECTION64_PATH but not preloaded: this process is NOT protected. "
          "A library the driver loads at cuInit cannot take over the program's CUDA calls (they are "
          "bound to libcuda, or go through entry points fetched before cuInit), and gpuft must see "
          "every one of them. Run the program with the gpuft launcher, or with LD_PRELOAD naming "
          "libgpuft.so (docs/launcher.md)");
  return 1;
}
