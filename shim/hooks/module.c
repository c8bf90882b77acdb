/* module.c: modules and libraries the program loads itself, from memory
 * (cuModuleLoadData/DataEx/FatBinary, cuLibraryLoadData) or from a file
 * (cuModuleLoad, cuLibraryLoadFromFile): once the driver accepted an image, its
 * PTX gives the access facts of its kernels (engine/facts.c), as the images in the
 * program's own files do. A kernel is known by its name in every module seen, so
 * every module must be seen (docs/ptx.md, "Soundness"). An image in memory has no
 * size: the headers bound every read (ptx/). */
#include "engine.h"
#include "hooks.h"

static CUresult loaded(CUresult r, const void *image) {
  if (r == CUDA_SUCCESS && image) {
    ft_lock();
    ft_facts_image(image, 0);
    ft_unlock();
  }
  return r;
}

CUresult ft_on_cuModuleLoadData(CUmodule *m, const void *image) {
  return loaded(ft_real.cuModuleLoadData(m, image), image);
}

CUresult ft_on_cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *o,
                                  void **v) {
  return loaded(ft_real.cuModuleLoadDataEx(m, image, n, o, v), image);
}

CUresult ft_on_cuModuleLoadFatBinary(CUmodule *m, const void *fat) {
  return loaded(ft_real.cuModuleLoadFatBinary(m, fat), fat);
}

CUresult ft_on_cuLibraryLoadData(CUlibrary *l, const void *code, CUjit_option *jo, void **jv,
                                 unsigned njo, CUlibraryOption *lo, void **lv, unsigned nlo) {
  return loaded(ft_real.cuLibraryLoadData(l, code, jo, jv, njo, lo, lv, nlo), code);
}

static CUresult loaded_file(CUresult r, const char *path) {
  if (r == CUDA_SUCCESS && path) {
    ft_lock();
    ft_facts_path(path);
    ft_unlock();
  }
  return r;
}

CUresult ft_on_cuModuleLoad(CUmodule *m, const char *fname) {
  return loaded_file(ft_real.cuModuleLoad(m, fname), fname);
}

CUresult ft_on_cuLibraryLoadFromFile(CUlibrary *l, const char *path, CUjit_option *jo, void **jv,
                                     unsigned njo, CUlibraryOption *lo, void **lv, unsigned nlo) {
  return loaded_file(ft_real.cuLibraryLoadFromFile(l, path, jo, jv, njo, lo, lv, nlo), path);
}
