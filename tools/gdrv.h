/* gdrv.h: the CUDA driver as gpuft's device tools (selftest, memtest) see it: libcuda.so.1
 * dlopen'ed at run time (the launcher itself never links it), one device, its primary context. */
#ifndef FT_GDRV_H
#define FT_GDRV_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stddef.h>

#include "ftk_launch.h"

typedef struct {
  void *lib;
#define GD(name, type) type name;
#include "gdrv.def"
#undef GD
  CUdevice dev;
  CUcontext ctx;
  char name[128];
  char uuid[48];   /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it */
  int driver_version;
  int sim;         /* the simulator's libcuda (it exports simcudaGetStats) */
  ftk_driver_t kdrv; /* for ftk_module_load / ftk_launch */
} ft_gdrv_t;

/* Load libcuda.so.1, initialise, retain device `ordinal`'s primary context and make it
 * current. Returns 0, or -1 with a message on stderr (prefixed by `who`). */
int ft_gdrv_open(ft_gdrv_t *g, int ordinal, const char *who);
void ft_gdrv_close(ft_gdrv_t *g);
/* The driver's name for r ("CUDA_ERROR_..."-style text), never NULL. */
const char *ft_gdrv_err(const ft_gdrv_t *g, CUresult r);
/* Load a module: the fatbin (a GPU), else the simulator's twin image (NULL: none).
 * *twins = 1 when the twins were taken. Returns the fatbin's error if both fail. */
CUresult ft_gdrv_load_module(const ft_gdrv_t *g, const void *fatbin, size_t fatbin_size,
                             const void *twin_image, CUmodule *mod, int *twins);
/* The UUID's text form, as above. */
void ft_gdrv_uuid_text(const CUuuid *u, char out[48]);

#endif
