/* error.c: runtime error state (per-thread last error, process-wide sticky errors),
 * driver-to-runtime error mapping and the error name/description tables. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "simrt.h"

static _Thread_local cudaError_t simrt_last = cudaSuccess;
static _Atomic int simrt_sticky_err = cudaSuccess;

/* Errors after which the context is unusable: the real runtime documents each with
 * "the process must be terminated and relaunched". */
static bool simrt_is_sticky(cudaError_t e) {
  switch ((int)e) {
    case cudaErrorIllegalAddress: case cudaErrorLaunchTimeout: case cudaErrorAssert:
    case cudaErrorHardwareStackError: case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress: case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc: case cudaErrorLaunchFailure: case cudaErrorTensorMemoryLeak:
    case cudaErrorMpsClientTerminated:
    /* An uncorrectable ECC error also destroys the context on real hardware. */
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

static bool simrt_known(int e) {
  switch (e) {
#define SIMRT_ERROR(num, name, str) case num:
#include "errors.def"
#undef SIMRT_ERROR
      return true;
    default:
      return false;
  }
}

/* Since CUDA 10.1 every CUresult has the runtime code of the same number, except
 * two the runtime does not know. */
cudaError_t simrt_from_cu(CUresult r) {
  if (r == CUDA_SUCCESS) return cudaSuccess;
  if (r == CUDA_ERROR_CONTEXT_ALREADY_CURRENT || !simrt_known((int)r)) return cudaErrorUnknown;
  return (cudaError_t)r;
}

cudaError_t simrt_ret(cudaError_t e) {
  if (e == cudaSuccess || e == cudaErrorNotReady) return e;
  simrt_last = e;
  if (simrt_is_sticky(e)) {
    int expected = cudaSuccess;
    atomic_compare_exchange_strong(&simrt_sticky_err, &expected, (int)e);
  }
  return e;
}

cudaError_t simrt_sticky(void) { return (cudaError_t)atomic_load(&simrt_sticky_err); }

void simrt_warn(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "simcudart: %s\n", buf);
}

SIMRT_API cudaError_t cudaGetLastError(void) {
  cudaError_t e = simrt_last;
  /* A sticky error cannot be cleared: it stays the thread's last error. */
  simrt_last = simrt_is_sticky(e) ? e : cudaSuccess;
  return e;
}

SIMRT_API cudaError_t cudaPeekAtLastError(void) { return simrt_last; }

SIMRT_API const char *cudaGetErrorName(cudaError_t error) {
  switch ((int)error) {
#define SIMRT_ERROR(num, name, str) case num: return #name;
#include "errors.def"
#undef SIMRT_ERROR
    default:
      return "unrecognized error code";
  }
}

SIMRT_API const char *cudaGetErrorString(cudaError_t error) {
  switch ((int)error) {
#define SIMRT_ERROR(num, name, str) case num: return str;
#include "errors.def"
#undef SIMRT_ERROR
    default:
      return "unrecognized error code";
  }
}
