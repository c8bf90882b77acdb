/* simcuda.h: the CPU-backed CUDA simulator's own C API: twin kernels and module
 * images, fault injection, counters. Usable from C and C++; no CUDA headers needed. */
#ifndef SIMCUDA_H
#define SIMCUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Twin kernels ------------------------------------------------------
 * A twin is a host C function that does the work of ONE thread block of a CUDA
 * kernel (it loops over the block's threads itself; __syncthreads becomes the
 * boundary between two loops). Blocks of a grid run in parallel on a pool. */

typedef struct { unsigned x, y, z; } simcuda_dim3;

typedef struct simcuda_block_s simcuda_block_t;
struct simcuda_block_s {
  simcuda_dim3 blockIdx, blockDim, gridDim;
  void *shared;        /* dynamic shared memory of the launch (sharedMemBytes), per block */
  size_t shared_bytes;
  /* Device addresses are not host addresses (dereferencing one on the host faults,
   * as on a real GPU). A twin turns each pointer argument into a host-accessible
   * pointer with simcuda_ptr() before touching memory. Returns NULL (and marks
   * the launch CUDA_ERROR_ILLEGAL_ADDRESS) when p is neither device memory nor
   * mapped pinned host memory. Private to the simulator. */
  void *(*translate)(const simcuda_block_t *blk, const void *p);
  void *priv;
};

static inline void *simcuda_ptr(const simcuda_block_t *blk, const void *p) {
  return blk->translate(blk, p);
}

typedef void (*simcuda_twin_fn)(const simcuda_block_t *blk, void **params);

/* One kernel of an image: its mangled device name (exactly as nvcc names it,
 * e.g. "_Z6vecaddPKfS0_Pfi"), its twin, and its parameter layout (size and
 * alignment of each parameter, in order; offsets follow the CUDA ABI: each
 * parameter at the next multiple of its alignment). */
typedef struct {
  const char *name;
  simcuda_twin_fn fn;
  unsigned n_params;
  const uint16_t *param_size;
  const uint16_t *param_align;
} simcuda_kernel_t;

/* A module image the simulator's cuModuleLoadData / cuLibraryLoadData accept in
 * place of a fatbin/cubin. Anything that does not start with this magic is
 * rejected with the error a real driver gives for an image without code for
 * the device (CUDA_ERROR_NO_BINARY_FOR_GPU for a fatbin, else
 * CUDA_ERROR_INVALID_IMAGE). The image and the arrays it points to must stay
 * valid while the module is loaded. */
#define SIMCUDA_IMAGE_MAGIC 0x5344554341434d53ull /* "SMCACUDS" */
#define SIMCUDA_IMAGE_VERSION 1u
typedef struct {
  uint64_t magic;
  uint32_t version;
  uint32_t n_kernels;
  const simcuda_kernel_t *kernels;
} simcuda_image_t;

/* Twins of an nvcc-built program are registered by the program itself from a
 * constructor, only when the simulator's runtime is present:
 *   fn = dlsym(RTLD_DEFAULT, "simcudaRegisterTwins"); if (fn) fn(kernels, n);
 * The simulator's libcudart matches them by mangled name to the kernels that
 * __cudaRegisterFunction announces. sim/simcuda_twins.h has a macro for it. */
typedef void (*simcuda_register_twins_fn)(const simcuda_kernel_t *kernels, unsigned n);

/* ---- Fault injection ----------------------------------------------------
 * Same grammar as the SIMCUDA_FLIP environment variable, and as gpuft's
 * GPUFT_INJECT, parsed by the same code (common/faultspec.c; docs/campaign.md,
 * "One grammar"):
 *   "at=<event>,target=<target>,offset=<byte>,bit=<b>[+<b>...][,stuck];..."
 * The older spelling is still read: with before=<event>, arg=<i> | src | dst |
 * addr=<a> as the target and bits=<b>[+<b>...] naming bits 0..7 (elsewhere bits=
 * is a count, as in GPUFT_INJECT).
 * Without offset= or bit=, or with bits=2 | burst:<k> | byte | word | sector | zero,
 * the fault is drawn from seed=<s> (default 1) exactly as GPUFT_INJECT draws it
 * (common/faultspec.c, ftc_fault_place), in the bytes from the target's pointer: to
 * the allocation's end, or for src/dst the bytes the copy reads or writes.
 * <event>: launch:<kernel-name-substring>:<k> | d2h:<k> | h2d:<k> | sync:<k>
 *          (k counts from 1: the k-th such event after the fault was installed;
 *          for SIMCUDA_FLIP that is the k-th of the run). launch fires in the
 *          stream worker just before the kernel runs; d2h/h2d just before the
 *          copy moves data; sync when the k-th cuCtxSynchronize /
 *          cuStreamSynchronize / cuEventSynchronize call has finished waiting.
 * <target>: arg:<i> (the allocation launch argument i points into; launch only)
 *         | src | dst (the copy's device side; d2h/h2d only)
 *         | addr:<device address> (any event; the only target of sync events)
 * offset: byte offset from the pointer named by the target (argument value, or
 *         copy source/destination), must lie in the same allocation (else the
 *         fault is dropped with a message when it fires).
 * bit: bit numbers 0..1023 joined by '+': bit b is bit b%8 of the byte at
 *         offset + b/8 (the same meaning as in GPUFT_INJECT).
 * stuck: the bits are forced to their new value (flipped; 0 for bits=zero) after
 *         every later write (copies, memsets, kernel launches) until the allocation
 *         is freed.
 * d2h:<k> counts every device-to-host copy, until a tool on top calls
 *         simcudaProgramCopy: from then on only the copies it declared (gpuft's
 *         own copies vary from run to run; the program's do not).
 * Each fault fires once. Returns 0, or -1 with a message on stderr for a
 * malformed spec (then none of its faults is installed; SIMCUDA_FLIP instead
 * keeps the well-formed faults and drops the others with a message). */
typedef int (*simcuda_inject_fn)(const char *spec);

/* An interposer (gpuft) says which copies are the program's ("simcudaProgramCopy"):
 * next = 0 once at its start (from then on only declared device-to-host copies are
 * d2h events of the fault grammar), next = 1 just before each copy of the program
 * it forwards (the next copy this thread submits). */
typedef void (*simcuda_program_copy_fn)(int next);

/* Removes all pending faults and stuck bits ("simcudaClearFaults"). Not to be
 * called while work that may fire a fault is running. */
typedef void (*simcuda_clear_faults_fn)(void);

/* Flip bits immediately at a device address (for tests that drive faults
 * directly). Returns 0 or -1 if addr is not device memory. */
typedef int (*simcuda_flip_now_fn)(uint64_t dev_addr, unsigned bit, int stuck);

/* Spontaneous flips at a rate, as radiation would cause them: from a background
 * thread, about `flips_per_gib_per_s` single-bit flips per GiB of live device
 * memory per second (Poisson-distributed in time), each in a uniformly chosen
 * bit of the live device allocations (cuMemAlloc*, pitched, stream-ordered;
 * not pinned/registered/managed host memory), at any moment, racing with
 * kernels and copies as a real upset would. Counted in flips_applied, logged
 * with SIMCUDA_LOG=1. 0 stops them. seed: the random sequence (0: from the
 * clock). Same as SIMCUDA_FLIP_RATE=<rate>[,seed=<s>]. Returns 0, or -1 for a
 * negative, NaN or infinite rate ("simcudaSetFlipRate"). */
typedef int (*simcuda_set_flip_rate_fn)(double flips_per_gib_per_s, uint64_t seed);

/* ---- Counters ----------------------------------------------------------- */
typedef struct {
  uint64_t launches;
  uint64_t memcpy_h2d, memcpy_d2h, memcpy_d2d, memcpy_h2h;  /* operations */
  uint64_t bytes_h2d, bytes_d2h, bytes_d2d;                 /* bytes moved */
  uint64_t memsets, bytes_memset;
  uint64_t syncs;                                           /* ctx/stream/event syncs */
  uint64_t allocs, frees;
  uint64_t flips_applied;                                   /* bits flipped by injection */
  uint64_t kernel_bytes_args;  /* sum over launches of sizes of allocations args point into */
  /* Kernels run by the PTX interpreter (not twins): exact bytes their threads
   * loaded and stored in global memory (device, pinned and managed; atomics count
   * as a load and a store), thread-instructions executed, launches interpreted. */
  uint64_t kernel_bytes_loaded, kernel_bytes_stored;
  uint64_t kernel_thread_insns, kernels_interpreted;
  /* SIMCUDA_CHECK_ACCESS=1: argument places of interpreted launches that gpuft's PTX
   * analysis classifies READ and that pointed into an allocation, and the launches
   * that stored into an allocation only such places point into (analysis bugs). */
  uint64_t analysis_places_checked, analysis_violations;
  /* SIMCUDA_CHECK_UB: undefined behaviour the interpreter reported (docs/simulator.md). */
  uint64_t ub_reports;
  /* SIMCUDA_CHECK_ACCESS=1 with gpuft loaded: launches whose decision gpuft declared
   * (simcudaDeclareUnwritten), and stores into an allocation gpuft declared it
   * would treat as unwritten by that launch (whatever the reason: facts, flags,
   * slots without a place, pointers it did not find). */
  uint64_t shim_launches_checked, shim_violations;
  /* SIMCUDA_CHECK_ACCESS=1: per launch, allocation and direction (load, store), the
   * extents of the accesses checked against the byte ranges of the argument places
   * (where the kernel reaches nothing else and every place it uses is bounded), and
   * those that reached outside every range (analysis bugs). */
  uint64_t range_checks, range_violations;
  /* Kernels translated to host code (SIMCUDA_JIT, docs/simulator.md "Translation to
   * host code"): compiled, loaded from the cache, failed (then interpreted). For the
   * process: simcudaResetStats leaves them. */
  uint64_t jit_compiled, jit_cached, jit_failed;
} simcuda_stats_t;
typedef void (*simcuda_get_stats_fn)(simcuda_stats_t *out);
typedef void (*simcuda_reset_stats_fn)(void);   /* also zeroes every allocation's traffic */

/* Traffic per allocation ("simcudaGetTraffic"): for the live allocation holding
 * addr, its base and size and the bytes interpreted kernels loaded and stored in
 * it since it was allocated or since simcudaResetStats. Returns 0, or -1 when addr
 * is in no live allocation. Any output pointer may be NULL. */
typedef int (*simcuda_get_traffic_fn)(uint64_t addr, uint64_t *base, uint64_t *size, uint64_t *loaded,
                                      uint64_t *stored);

/* gpuft, about to launch on the calling thread: the protected allocations (by
 * base) it treats as not written by that launch ("simcudaDeclareUnwritten").
 * The next launch the thread makes carries the list; with SIMCUDA_CHECK_ACCESS a
 * store into one of them is counted in shim_violations and reported. Returns -1
 * (and keeps nothing) when the check is off: the caller may stop declaring. */
typedef int (*simcuda_declare_unwritten_fn)(const uint64_t *bases, size_t n);

/* These are exported by the simulator's libcuda.so.1 under the names
 * "simcudaInject", "simcudaFlipNow", "simcudaClearFaults", "simcudaGetStats",
 * "simcudaResetStats", "simcudaSetFlipRate", "simcudaGetTraffic", "simcudaDeclareUnwritten",
 * "simcudaProgramCopy";
 * and "simcudaRegisterTwins" by its libcudart.so.13. Find them with dlsym so
 * that the same program also runs on a real GPU, where they are absent. */

#ifdef __cplusplus
}
#endif
#endif
