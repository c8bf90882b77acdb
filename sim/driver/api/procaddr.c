/* procaddr.c: cuGetProcAddress / cuGetProcAddress_v2: the versioned entry-point
 * table (procs.def, generated from cudaTypedefs.h), honouring the requested CUDA
 * version and the per-thread-default-stream flag. Each implemented entry is
 * checked at compile time against NVIDIA's PFN type for its ABI. */
#include <stdlib.h>
#include <string.h>

#include <cudaProfilerTypedefs.h>

#include "api.h"

/* CUDA 7.0 ABIs cudaTypedefs.h declares only for NVIDIA's own build; NVIDIA's
 * static runtime asks for them. Same signature as their successors. */
typedef PFN_cuDevicePrimaryCtxRelease_v11000 PFN_cuDevicePrimaryCtxRelease_v7000;
typedef PFN_cuDevicePrimaryCtxReset_v11000 PFN_cuDevicePrimaryCtxReset_v7000;
typedef PFN_cuIpcOpenMemHandle_v11000 PFN_cuIpcOpenMemHandle_v4010;

/* cuda.h maps these names to newer ABIs; here they name the old ones. */
#undef cuDeviceGetUuid
#undef cuEventElapsedTime
#undef cuGetProcAddress
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync
#undef cuGraphGetEdges
#undef cuGraphNodeGetDependencies
#undef cuGraphNodeGetDependentNodes
#undef cuGraphAddDependencies
#undef cuGraphRemoveDependencies
#undef cuGraphAddNode
#undef cuStreamBeginCapture
#undef cuStreamGetCaptureInfo
#undef cuStreamUpdateCaptureDependencies
#undef cuIpcOpenMemHandle

/* Declares every implemented symbol with its PFN type: a mismatch between an
 * implementation and NVIDIA's ABI is a compile error. */
#define SIM_DECL_1(sym, pfn) extern __typeof__(*(pfn)0) sym;
#define SIM_DECL_0(sym, pfn)
#define SIM_DECL(impl, sym, pfn) SIM_DECL_##impl(sym, pfn)
#define SIM_PROC(base, ver, sym, pfn, pt, impl) SIM_DECL(impl, sym, pfn)
#include "procs.def"
#undef SIM_PROC

typedef struct {
  const char *name;
  int version;
  void *fn; /* NULL: an ABI the simulator does not implement */
  bool per_thread;
} proc_t;

#define SIM_FN_1(sym) (void *)&sym
#define SIM_FN_0(sym) NULL
#define SIM_FN(impl, sym) SIM_FN_##impl(sym)
static const proc_t procs[] = {
#define SIM_PROC(base, ver, sym, pfn, pt, impl) {#base, ver, SIM_FN(impl, sym), pt},
#include "procs.def"
#undef SIM_PROC
};
#define N_PROCS (sizeof procs / sizeof procs[0])

/* SIMCUDA_LOG >= 2, read here: runtimes look entry points up before cuInit, which
 * reads the other options. */
static bool log_misses(void) {
  static atomic_int level = -1; /* lookups come from any thread */
  int l = atomic_load(&level);
  if (l < 0) {
    const char *e = getenv("SIMCUDA_LOG");
    atomic_store(&level, l = e ? atoi(e) : 0);
  }
  return l >= 2;
}

static CUresult lookup(const char *symbol, void **pfn, int version, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status) {
  CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult r = CUDA_ERROR_NOT_FOUND;
  if (!symbol || !pfn || (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                                                CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))) {
    if (status) *status = st;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pfn = NULL;
  bool pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  const proc_t *best = NULL, *best_pt = NULL;
  bool known = false;
  for (size_t i = 0; i < N_PROCS; i++) {
    const proc_t *p = &procs[i];
    if (strcmp(p->name, symbol) != 0) continue;
    known = true;
    if (p->version > version) continue;
    const proc_t **slot = p->per_thread ? &best_pt : &best;
    if (!*slot || p->version > (*slot)->version) *slot = p;
  }
  /* A per-thread form is used when asked for and it exists at that version. */
  const proc_t *pick = pt && best_pt ? best_pt : best;
  if (known) st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
  if (pick && pick->fn) {
    *pfn = pick->fn;
    st = CU_GET_PROC_ADDRESS_SUCCESS;
    r = CUDA_SUCCESS;
  }
  if (status) *status = st;
  /* A runtime looks up hundreds of entry points at start and fails only when one
   * it did not get is used (NVIDIA's static runtime: cudaErrorCallRequiresNewerDriver):
   * level 2 lists them, the only way to learn which call that was. */
  if (r != CUDA_SUCCESS && log_misses())
    sim_log("cuGetProcAddress(%s, %d): %s", symbol, version,
            st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ? "this ABI is not simulated" : "not simulated");
  return r;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus) {
  return lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

/* The CUDA 11.3 ABI (no status argument). */
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags) {
  return lookup(symbol, pfn, cudaVersion, flags, NULL);
}
