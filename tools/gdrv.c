/* gdrv.c: libcuda.so.1 for gpuft's device tools: dlopen + cuGetProcAddress, the way a
 * CUDA runtime reaches it, so the same tool runs on a GPU and on the simulator. */
#define _GNU_SOURCE
#include "gdrv.h"
#include "sim_path.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void ft_gdrv_uuid_text(const CUuuid *u, char out[48]) {
  const unsigned char *b = (const unsigned char *)u->bytes;
  int n = sprintf(out, "GPU-");
  for (int i = 0; i < 16; i++)
    n += sprintf(out + n, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", b[i]);
}

const char *ft_gdrv_err(const ft_gdrv_t *g, CUresult r) {
  const char *s = NULL;
  if (g->cuGetErrorString && g->cuGetErrorString(r, &s) == CUDA_SUCCESS && s) return s;
  return "unknown CUDA error";
}

int ft_gdrv_open(ft_gdrv_t *g, int ordinal, const char *who) {
  memset(g, 0, sizeof *g);
  g->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!g->lib) {
    fprintf(stderr, "%s: cannot load the CUDA driver (libcuda.so.1): %s\n", who, dlerror());
    char rerun[128];
    snprintf(rerun, sizeof rerun, "gpuft --sim %s", strncmp(who, "gpuft ", 6) ? who : who + 6);
    ft_tools_no_driver_hint(who, rerun);
    return -1;
  }
  PFN_cuGetProcAddress_v12000 gpa;
  *(void **)&gpa = dlsym(g->lib, "cuGetProcAddress_v2");
  if (!gpa) {
    fprintf(stderr, "%s: the CUDA driver has no cuGetProcAddress_v2 (driver older than CUDA 12)\n",
            who);
    return -1;
  }
  CUdriverProcAddressQueryResult q;
#define GD(name, type)                                                                       \
  if (gpa(#name, (void **)&g->name, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS || \
      !g->name) {                                                                            \
    fprintf(stderr, "%s: the CUDA driver lacks %s\n", who, #name);                          \
    return -1;                                                                               \
  }
#include "gdrv.def"
#undef GD
  g->sim = dlsym(g->lib, "simcudaGetStats") != NULL;
  CUresult r = g->cuInit(0);
  if (!r) r = g->cuDriverGetVersion(&g->driver_version);
  if (!r) r = g->cuDeviceGet(&g->dev, ordinal);
  if (!r) r = g->cuDeviceGetName(g->name, (int)sizeof g->name, g->dev);
  CUuuid u;
  if (!r) r = g->cuDeviceGetUuid(&u, g->dev);
  if (!r) ft_gdrv_uuid_text(&u, g->uuid);
  if (!r) r = g->cuDevicePrimaryCtxRetain(&g->ctx, g->dev);
  if (!r) r = g->cuCtxSetCurrent(g->ctx);
  if (r) {
    fprintf(stderr, "%s: CUDA device %d: %s\n", who, ordinal, ft_gdrv_err(g, r));
    return -1;
  }
  g->kdrv.moduleLoadData = g->cuModuleLoadData;
  g->kdrv.moduleGetFunction = g->cuModuleGetFunction;
  g->kdrv.moduleUnload = g->cuModuleUnload;
  g->kdrv.launchKernel = g->cuLaunchKernel;
  return 0;
}

void ft_gdrv_close(ft_gdrv_t *g) {
  if (g->ctx) g->cuDevicePrimaryCtxRelease(g->dev);
  /* libcuda stays loaded: unloading a driver with live threads is not safe. */
  memset(g, 0, sizeof *g);
}

CUresult ft_gdrv_load_module(const ft_gdrv_t *g, const void *fatbin, size_t fatbin_size,
                             const void *twin_image, CUmodule *mod, int *twins) {
  CUresult r = fatbin_size ? g->cuModuleLoadData(mod, fatbin) : CUDA_ERROR_NO_BINARY_FOR_GPU;
  *twins = 0;
  /* As ftk_module_load: a driver refuses the image that is not for it. */
  if (r != CUDA_SUCCESS && twin_image && g->cuModuleLoadData(mod, twin_image) == CUDA_SUCCESS)
    r = CUDA_SUCCESS, *twins = 1;
  return r;
}
