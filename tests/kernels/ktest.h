/* ktest.h: helpers of the kernel tests: a context on the simulator with gpuft's
 * module loaded, test buffers (device data with junk past len, host mirror, CPU
 * reference code) and launches that check the job protocol. */
#ifndef KTEST_H
#define KTEST_H

#include <cuda.h>
#include <stdint.h>

#include "codec.h"
#include "ftk_launch.h"
#include "runner.h"

#define CK(call)                                                            \
  do {                                                                      \
    CUresult r_ = (call);                                                   \
    if (r_ != CUDA_SUCCESS) FT_FAIL_("%s: CUresult %d", #call, (int)r_);   \
  } while (0)

typedef struct {
  ftk_driver_t drv;
  ftk_module_t mod;
  ftk_job_t *job;      /* mapped pinned host memory */
  CUdeviceptr job_dev; /* its device address */
  CUdeviceptr djob;    /* the kernels' device-side accumulator (ftk.h) */
  int no_djob;         /* kt_span leaves djob 0: the direct protocol */
  CUstream stream;
} kt_env_t;

/* A protected buffer under test. */
typedef struct {
  size_t len, alloc; /* alloc > len: the bytes past len hold junk */
  uint8_t *host;     /* mirror of all alloc bytes of device data */
  CUdeviceptr data, code;
  size_t code_bytes;
  uint8_t *ref;      /* CPU code of host[0, len), code_bytes (zero-initialised) */
  uint64_t ngroups;
} kt_buf_t;

void kt_setup(kt_env_t *e);
/* 1 when the module is the twin image, 0 when KT_PTX loads the kernels' PTX. */
int kt_expected_twins(void);
void kt_teardown(kt_env_t *e);
uint64_t kt_rand(void);
void kt_seed(uint64_t s);

/* Random data (byte 0 nonzero), junk past len, CPU reference code; the device
 * code buffer is zeroed, or holds the reference when `upload_code`. */
void kt_buf_make(kt_buf_t *b, size_t len, int upload_code);
void kt_buf_free(kt_buf_t *b);
void kt_buf_reref(kt_buf_t *b); /* recompute ref from host[0, len) */
/* Flip bit `bit` (0..7) of data byte `at` on the device and in the mirror. */
void kt_flip_data(kt_buf_t *b, size_t at, unsigned bit);
/* Flip bit `bit` (0..31) of 32-bit code word `word` (index in the code buffer). */
void kt_flip_code(kt_buf_t *b, size_t word, unsigned bit);
/* Device code buffer == ref, byte for byte. */
void kt_check_code(const kt_buf_t *b);

ftk_span_t kt_span(const kt_env_t *e, const kt_buf_t *b, uint64_t g0, uint64_t g1);
/* Launch `which` with the given grid (0: the launcher's choice), wait, check the
 * job protocol (done == 1, blocks_done == blocks_total) and return the job. */
ftk_job_t kt_run(kt_env_t *e, int which, const ftk_span_t *s, unsigned grid);

#endif
