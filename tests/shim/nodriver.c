/* nodriver.c: run under gpuft where no libcuda.so.1 exists: gpuft's exported
 * hooks must return an error, never call a missing function. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void) {
  PFN_cuMemAlloc_v3020 alloc = (PFN_cuMemAlloc_v3020)dlsym(RTLD_DEFAULT, "cuMemAlloc_v2");
  PFN_cuGetProcAddress_v12000 gpa =
      (PFN_cuGetProcAddress_v12000)dlsym(RTLD_DEFAULT, "cuGetProcAddress_v2");
  if (!alloc || !gpa) {
    printf("nodriver: gpuft is not preloaded\n");
    return 2;
  }
  CUdeviceptr d = 0;
  void *p = NULL;
  CUresult r1 = alloc(&d, 64);
  CUresult r2 = gpa("cuMemAlloc", &p, 13000, 0, NULL);
  printf("nodriver: cuMemAlloc_v2 -> %d, cuGetProcAddress_v2 -> %d\n", (int)r1, (int)r2);
  return r1 == CUDA_ERROR_NOT_FOUND && r2 == CUDA_ERROR_NOT_FOUND && !p ? 0 : 1;
}
