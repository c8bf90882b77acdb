/* gpuft.h: the public C API of libgpuft.so (everything else it exports is a
 * hooked CUDA driver entry point). Programs need none of it to be protected. */
#ifndef GPUFT_H
#define GPUFT_H

#ifdef __cplusplus
extern "C" {
#endif

/* "MAJOR.MINOR.PATCH" */
const char *gpuft_version(void);
/* 1 when gpuft intercepts (GPUFT_ENABLE is not 0 and a driver was found). */
int gpuft_enabled(void);
/* Write the JSON report now (as at exit with GPUFT_REPORT); 0 on success. */
int gpuft_write_report(const char *path);

/* For tests and tools: the device code buffer protecting the allocation that
 * contains device address `dptr`. Returns 0 and fills *code / *code_bytes, or -1
 * when the address is not in a protected allocation. */
int gpuft_debug_code_range(unsigned long long dptr, unsigned long long *code,
                           unsigned long long *code_bytes);

#ifdef __cplusplus
}
#endif
#endif
