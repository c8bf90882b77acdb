/* launch.c: kernel launches (cuLaunchKernel, cuLaunchKernelEx, cooperative, their
 * _ptsz forms): argument checks and packing at the call (kernelParams or the
 * packed `extra` buffer), then, in the stream, the grid's blocks on the pool
 * calling the kernel's twin, with the pointer translation twins use. */
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "texsurf.h"
#include "exec.h"

void sim_launch_free(sim_launch_t *l) {
  if (!l) return;
  if (l->func) sim_obj_unref(&l->func->obj);
  free(l->args);
  free(l->params);
  sim_acheck_decl_free(l->declared);
  free(l);
}

/* Before the stream reports the launch done: the launch drops its function, so that
 * a module unloaded while the launch was queued goes now (its variables' memory
 * too), before anyone who synchronised with the launch goes on. */
void sim_launch_retire(sim_launch_t *l) {
  if (l->func) sim_obj_unref(&l->func->obj);
  l->func = NULL;
}

/* ---- execution ---- */
static void *translate(const simcuda_block_t *blk, const void *p) {
  sim_launch_t *l = blk->priv;
  sim_alloc_t a;
  uint64_t u = (uint64_t)(uintptr_t)p;
  /* An allocation whose cuMemFreeAsync was issued after this launch was queued
   * is still valid here: its release is behind the launch in stream order (the
   * release itself removes it from the registry). One freed before the launch was
   * queued is a use after free, even while its release is still pending. */
  if (p && sim_mem_find(u, 0, &a) && !(a.freeing && a.free_ticket <= l->ticket) && sim_ctx_reaches(l->ctx, &a))
    return a.kind == SIM_MEM_DEVICE ? sim_mem_alias(u) : (void *)p;
  int zero = CUDA_SUCCESS;
  atomic_compare_exchange_strong(&l->error, &zero, (int)CUDA_ERROR_ILLEGAL_ADDRESS);
  if (sim_opt.log) sim_log("launch of %s: illegal address %p", l->func->lay.k->name, p);
  return NULL;
}

static void run_block(void *arg, uint64_t i) {
  sim_launch_t *l = arg;
  simcuda_block_t blk = {.blockDim = l->block, .gridDim = l->grid, .translate = translate, .priv = l};
  blk.blockIdx.x = (unsigned)(i % l->grid.x);
  blk.blockIdx.y = (unsigned)(i / l->grid.x % l->grid.y);
  blk.blockIdx.z = (unsigned)(i / ((uint64_t)l->grid.x * l->grid.y));
  if (l->shared) {
    /* Shared memory starts undefined on a GPU: poison it. */
    blk.shared = malloc(l->shared);
    if (!blk.shared) abort();
    memset(blk.shared, 0xA5, l->shared);
    blk.shared_bytes = l->shared;
  }
  l->func->lay.k->fn(&blk, l->params);
  free(blk.shared);
}

/* ---- the interpreter: kernels from PTX ---- */
static bool interp_find(void *ctx, uint64_t p, sim_xcache_t *out) {
  sim_launch_t *l = ctx;
  sim_alloc_t a;
  /* Same rule as translate(): a pending free issued before the launch is a use after free. */
  if (!sim_mem_find(p, 0, &a) || (a.freeing && a.free_ticket <= l->ticket)) return false;
  /* Another device's memory without peer access, or a VMM mapping without access
   * for this device: an illegal address, as on a GPU. */
  if (!sim_ctx_reaches(l->ctx, &a)) return false;
  *out = (sim_xcache_t){.lo = a.base, .hi = a.base + a.size, .base = a.base};
  if (a.kind == SIM_MEM_DEVICE) out->delta = (intptr_t)((uint64_t)(uintptr_t)sim_mem_alias(a.base) - a.base);
  return true;
}

static void interp_count(void *ctx, const sim_xcache_t *x) {
  sim_launch_t *l = ctx;
  if (l->acheck) sim_acheck_access(l->acheck, x->base, x->st, (const uint64_t[4]){x->ld_lo, x->ld_hi, x->st_lo, x->st_hi});
  SIM_COUNT(kernel_bytes_loaded, x->ld);
  SIM_COUNT(kernel_bytes_stored, x->st);
  sim_mem_traffic_add(x->base, x->ld, x->st);
}

static void interp_block(void *arg, uint64_t i) { sim_interp_run_block(arg, i); }

/* SIMCUDA_BLOCK_ORDER: blocks run in a different order at every launch (an affine
 * permutation i -> a i + b mod n), as a GPU's scheduler may: results that depend on
 * the order blocks run in (floating-point atomics) then differ between runs. */
typedef struct {
  void (*fn)(void *, uint64_t);
  void *arg;
  uint64_t n, a, b;
} perm_t;

static void perm_block(void *p, uint64_t i) {
  const perm_t *q = p;
  q->fn(q->arg, (uint64_t)(((unsigned __int128)i * q->a + q->b) % q->n));
}

static uint64_t gcd(uint64_t x, uint64_t y) {
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}

static void run_blocks(void (*fn)(void *, uint64_t), void *arg, uint64_t n) {
  if (!sim_opt.block_order || n < 2) {
    sim_pool_run(fn, arg, n);
    return;
  }
  static _Atomic uint64_t launches;
  uint64_t z = sim_opt.block_order * 0x9e3779b97f4a7c15ull + atomic_fetch_add(&launches, 1) + 1;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  perm_t q = {fn, arg, n, 1 + z % (n - 1), (z >> 32) % n};
  while (gcd(q.a, n) != 1) q.a = q.a % (n - 1) + 1;
  if (sim_opt.log > 1) sim_log("block order: i -> %ju i + %ju mod %ju", (uintmax_t)q.a, (uintmax_t)q.b, (uintmax_t)n);
  sim_pool_run(perm_block, &q, n);
}

/* SIMCUDA_CHECK_UB: one line per finding, the first 100 of the process (all counted). */
static void ub_report(void *ctx, const char *msg) {
  (void)ctx;
  static atomic_uint logged;
  SIM_COUNT(ub_reports, 1);
  unsigned n = atomic_fetch_add(&logged, 1);
  if (n < 100) sim_log("%s", msg);
  else if (n == 100) sim_log("undefined behaviour: more reports are counted, not logged");
}

/* SIMCUDA_LOG=1: one line per kernel translated (jit.c), from the cache or not. */
static void jit_log(const char *msg) {
  if (sim_opt.log) sim_log("%s", msg);
}

void sim_launch_jit_init(void) {
  sim_jit_config.mode = sim_opt.jit;
  sim_jit_config.after = sim_opt.jit_after;
  sim_jit_config.cc = sim_opt.jit_cc;
  sim_jit_config.dir = sim_opt.jit_cache;
  sim_jit_config.log = jit_log;
}

static void interp_run(sim_launch_t *l) {
  sim_mem_iface_t mem = {interp_find,           interp_count,           l,
                         false,                 sim_heap_interp_malloc, sim_heap_interp_free,
                         sim_texobj_interp_find, sim_cond_interp_set};
  sim_grid_t *g = calloc(1, sizeof *g);
  if (!g) abort();
  g->prog = l->func->prog;
  g->grid[0] = l->grid.x, g->grid[1] = l->grid.y, g->grid[2] = l->grid.z;
  g->block[0] = l->block.x, g->block[1] = l->block.y, g->block[2] = l->block.z;
  g->params = l->args;
  g->dyn_shared = l->shared;
  g->mem = &mem;
  g->check_ub = sim_opt.check_ub;
  if (g->check_ub && sim_texobj_linear_live()) sim_texw_arm_globals(g); /* texture fetches of what it stores */
  g->ub_report = ub_report;
  g->stack_limit = l->ctx->limits[CU_LIMIT_STACK_SIZE];
  SIM_COUNT(kernels_interpreted, 1);
  if (sim_opt.check_access) l->acheck = sim_acheck_begin(l);
  mem.extents = l->acheck != NULL; /* where the accesses lay, for the range check */
  if (l->coop) sim_interp_run_coop(g, sim_opt.threads); /* every block resident: grid.sync() */
  else run_blocks(interp_block, g, (uint64_t)l->grid.x * l->grid.y * l->grid.z);
  if (l->acheck) sim_acheck_end(l);
  SIM_COUNT(kernel_thread_insns, atomic_load(&g->insns));
  int err = atomic_load(&g->error);
  if (err) {
    int zero = CUDA_SUCCESS;
    atomic_compare_exchange_strong(&l->error, &zero, err);
    /* A GPU fault is silent until the next synchronisation; say what happened. */
    sim_log("kernel fault (CUresult %d): %s", err, g->msg);
  }
  sim_texw_free(g);
  free(g);
}

void sim_launch_execute(sim_launch_t *l) {
  sim_inject_on_launch(l->func->lay.k, l->func->lay.offsets, l->args);
  SIM_COUNT(launches, 1);
  const sim_layout_t *lay = &l->func->lay;
  uint64_t arg_bytes = 0;
  for (unsigned p = 0; p < lay->k->n_params; p++) {
    if (lay->k->param_size[p] != 8) continue;
    uint64_t v;
    memcpy(&v, l->args + lay->offsets[p], 8);
    sim_alloc_t a;
    if (v && sim_mem_find(v, 0, &a) && a.kind == SIM_MEM_DEVICE) arg_bytes += a.size;
  }
  SIM_COUNT(kernel_bytes_args, arg_bytes);
  if (lay->k->fn) run_blocks(run_block, l, (uint64_t)l->grid.x * l->grid.y * l->grid.z);
  else interp_run(l);
  int err = atomic_load(&l->error);
  if (err) sim_ctx_set_sticky(l->ctx, (CUresult)err); /* a fault kills the context, as on a GPU */
  sim_stuck_apply_all();
}

/* ---- submission ---- */
CUresult sim_launch_prepare(sim_ctx_t *ctx, sim_func_t *fn, simcuda_dim3 grid, simcuda_dim3 block, unsigned shared,
                            void **kernelParams, void **extra, sim_launch_t **out) {
  if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z) return CUDA_ERROR_INVALID_VALUE;
  if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) return CUDA_ERROR_INVALID_VALUE;
  if (block.x > 1024 || block.y > 1024 || block.z > 64 || (uint64_t)block.x * block.y * block.z > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  if (shared > (unsigned)sim_func_max_dyn_shared(fn)) return CUDA_ERROR_INVALID_VALUE;
  const sim_layout_t *lay = &fn->lay;
  unsigned np = lay->k->n_params;
  if (kernelParams && extra) return CUDA_ERROR_INVALID_VALUE;
  const uint8_t *packed = NULL;
  if (extra) {
    size_t size = 0;
    bool have_ptr = false, have_size = false;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
        packed = extra[i + 1];
        have_ptr = true;
      } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
        if (!extra[i + 1]) return CUDA_ERROR_INVALID_VALUE;
        size = *(const size_t *)extra[i + 1];
        have_size = true;
      } else {
        return CUDA_ERROR_INVALID_VALUE;
      }
    }
    if (!have_ptr || !have_size || (lay->param_bytes && !packed) || size < lay->param_bytes)
      return CUDA_ERROR_INVALID_VALUE;
  } else if (np && !kernelParams) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  sim_launch_t *l = calloc(1, sizeof *l);
  if (!l) return CUDA_ERROR_OUT_OF_MEMORY;
  l->args = calloc(1, lay->param_bytes ? lay->param_bytes : 1);
  l->params = calloc(np ? np : 1, sizeof *l->params);
  if (!l->args || !l->params) {
    sim_launch_free(l);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  /* Arguments are copied at the call, as the driver does. */
  for (unsigned p = 0; p < np; p++) {
    const void *src = packed ? packed + lay->offsets[p] : kernelParams[p];
    if (!src) {
      sim_launch_free(l);
      return CUDA_ERROR_INVALID_VALUE;
    }
    memcpy(l->args + lay->offsets[p], src, lay->k->param_size[p]);
    l->params[p] = l->args + lay->offsets[p];
  }
  sim_obj_ref(&fn->obj);
  l->func = fn;
  l->grid = grid;
  l->block = block;
  l->shared = shared;
  l->ctx = ctx;
  l->declared = sim_acheck_take_declared();
  *out = l;
  return CUDA_SUCCESS;
}

/* A cooperative grid's blocks must all be resident at once: at most the occupancy
 * this driver reports (cuOccupancyMaxActiveBlocksPerMultiprocessor) times the
 * multiprocessor count, as NVIDIA's driver checks, so that a grid sized that way
 * (NVIDIA's samples) launches and a larger one is refused. */
static CUresult coop_fits(CUfunction f, simcuda_dim3 grid, simcuda_dim3 block, unsigned shared) {
  int per_sm = 0, sms = SIM_SM_COUNT;
  CUresult r = cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&per_sm, f, (int)(block.x * block.y * block.z),
                                                                    shared, 0);
  if (r) return r;
  uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
  if (blocks <= (uint64_t)per_sm * (uint64_t)sms) return CUDA_SUCCESS;
  if (sim_opt.log)
    sim_log("cooperative launch of %ju blocks refused: at most %d per multiprocessor x %d resident",
            (uintmax_t)blocks, per_sm, sms);
  return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
}

static CUresult launch(CUfunction f, simcuda_dim3 grid, simcuda_dim3 block, unsigned shared, CUstream h,
                       void **kernelParams, void **extra, int ptds, bool coop) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  sim_func_t *fn;
  r = sim_func_resolve(ctx, f, &fn);
  if (r) return r;
  if (!fn->lay.k->fn && !fn->prog) {
    /* Neither a twin nor runnable PTX: refused at the call, naming what is missing. */
    sim_log("cannot launch %s: %s", fn->lay.k->name, fn->prog_err ? fn->prog_err : "no code");
    sim_obj_unref(&fn->obj);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  sim_launch_t *l = NULL;
  r = sim_launch_prepare(ctx, fn, grid, block, shared, kernelParams, extra, &l);
  sim_obj_unref(&fn->obj);
  if (!r && coop) r = coop_fits(f, grid, block, shared);
  if (r) {
    sim_launch_free(l);
    return r;
  }
  l->coop = coop;
  sim_stream_t *s;
  r = sim_stream_get(ctx, h, ptds, &s);
  if (r) {
    sim_launch_free(l);
    return r;
  }
  sim_op_t *op = sim_op_new(SIM_OP_LAUNCH);
  l->ticket = sim_mem_free_ticket();
  op->u.launch = l;
  sim_stream_enqueue(s, op);
  sim_obj_unref(&s->obj);
  return CUDA_SUCCESS;
}

#define D3(x, y, z) ((simcuda_dim3){(x), (y), (z)})

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sh, CUstream h, void **kp, void **extra) {
  return launch(f, D3(gx, gy, gz), D3(bx, by, bz), sh, h, kp, extra, 0, false);
}
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned sh, CUstream h, void **kp, void **extra) {
  return launch(f, D3(gx, gy, gz), D3(bx, by, bz), sh, h, kp, extra, 1, false);
}
/* Cooperative: interpreted kernels run with every block resident (grid.sync()
 * works); twins run as other launches (they cannot sync the grid). */
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned sh, CUstream h, void **kp) {
  return launch(f, D3(gx, gy, gz), D3(bx, by, bz), sh, h, kp, NULL, 0, true);
}
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                        unsigned by, unsigned bz, unsigned sh, CUstream h, void **kp) {
  return launch(f, D3(gx, gy, gz), D3(bx, by, bz), sh, h, kp, NULL, 1, true);
}

static CUresult launch_ex(const CUlaunchConfig *c, CUfunction f, void **kp, void **extra, int ptds) {
  if (!c || (c->numAttrs && !c->attrs)) {
    SIM_CHECK_INIT();
    return CUDA_ERROR_INVALID_VALUE;
  }
  bool coop = false;
  for (unsigned i = 0; i < c->numAttrs; i++) {
    switch (c->attrs[i].id) {
      case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
        coop = c->attrs[i].value.cooperative != 0;
        break;
      case CU_LAUNCH_ATTRIBUTE_IGNORE: case CU_LAUNCH_ATTRIBUTE_PRIORITY:
      case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
      case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        break; /* no effect on a simulated device */
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: {
        const unsigned *d = &c->attrs[i].value.clusterDim.x;
        if (d[0] > 1 || d[1] > 1 || d[2] > 1) return CUDA_ERROR_NOT_SUPPORTED; /* sm_89: no clusters */
        break;
      }
      default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
  }
  return launch(f, D3(c->gridDimX, c->gridDimY, c->gridDimZ), D3(c->blockDimX, c->blockDimY, c->blockDimZ),
                c->sharedMemBytes, c->hStream, kp, extra, ptds, coop);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **kp, void **extra) {
  return launch_ex(c, f, kp, extra, 0);
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **kp, void **extra) {
  return launch_ex(c, f, kp, extra, 1);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, CUfunction f, int block, size_t dyn,
                                                              unsigned int flags) {
  SIM_CHECK_INIT();
  if (!n || block <= 0 || block > 1024) return CUDA_ERROR_INVALID_VALUE;
  sim_func_t *fn;
  CUresult r = sim_func_resolve(NULL, f, &fn);
  if (r) return r;
  sim_obj_unref(&fn->obj);
  int warps = (block + 31) / 32;
  int by_threads = 48 / warps; /* 1536 threads per SM */
  int by_shared = dyn ? (int)(102400 / (dyn + 1024)) : 24;
  int v = by_threads < by_shared ? by_threads : by_shared;
  *n = v < 24 ? v : 24;
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int block, size_t dyn) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, block, dyn, 0);
}

/* The block size (a multiple of the warp) with the most resident threads per SM
 * under the same model, the largest on a tie, as the CUDA occupancy calculator
 * picks; minGridSize fills the SIM_SM_COUNT multiprocessors at that occupancy. */
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGrid, int *blockSize, CUfunction f, CUoccupancyB2DSize b2d,
                                                   size_t dyn, int limit, unsigned int flags) {
  SIM_CHECK_INIT();
  if (!minGrid || !blockSize || limit < 0 || (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
    return CUDA_ERROR_INVALID_VALUE;
  sim_func_t *fn;
  CUresult r = sim_func_resolve(NULL, f, &fn);
  if (r) return r;
  int maxdyn = sim_func_max_dyn_shared(fn);
  sim_obj_unref(&fn->obj);
  int top = limit == 0 || limit > 1024 ? 1024 : limit;
  int best_bs = 0, best_blocks = 0, best_threads = -1;
  for (int bs = (top + 31) / 32 * 32; bs >= 32; bs -= 32) {
    int b = bs > top ? top : bs;
    size_t d = b2d ? b2d(b) : dyn;
    int n = 0;
    if (d <= (size_t)maxdyn) {
      r = cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, b, d, flags);
      if (r) return r;
    }
    if (n * b > best_threads) best_threads = n * b, best_bs = b, best_blocks = n;
  }
  *blockSize = best_bs;
  *minGrid = best_blocks * SIM_SM_COUNT;
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxPotentialBlockSize(int *minGrid, int *blockSize, CUfunction f, CUoccupancyB2DSize b2d,
                                          size_t dyn, int limit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(minGrid, blockSize, f, b2d, dyn, limit, 0);
}

/* The dynamic shared memory each of numBlocks resident blocks of blockSize threads
 * may use (inverse of the shared-memory bound above, at most the function's limit). */
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dyn, CUfunction f, int numBlocks, int blockSize) {
  SIM_CHECK_INIT();
  if (!dyn || numBlocks <= 0 || blockSize <= 0 || blockSize > 1024) return CUDA_ERROR_INVALID_VALUE;
  sim_func_t *fn;
  CUresult r = sim_func_resolve(NULL, f, &fn);
  if (r) return r;
  size_t maxdyn = (size_t)sim_func_max_dyn_shared(fn);
  sim_obj_unref(&fn->obj);
  int warps = (blockSize + 31) / 32;
  if (numBlocks > 48 / warps || numBlocks > 24) {
    *dyn = 0; /* that many blocks cannot be resident whatever their shared memory */
    return CUDA_SUCCESS;
  }
  size_t per = 102400 / (size_t)numBlocks;
  size_t v = per > 1024 ? per - 1024 : 0;
  *dyn = v < maxdyn ? v : maxdyn;
  return CUDA_SUCCESS;
}

/* Deprecated, and a multi-device launch: the one simulated device reports
 * CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH = 0, so any real request
 * is CUDA_ERROR_NOT_SUPPORTED after the argument checks. */
CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *list, unsigned int numDevices, unsigned int flags) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  unsigned known = CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC |
                   CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_POST_LAUNCH_SYNC;
  if (!list || numDevices == 0 || (flags & ~known)) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_ERROR_NOT_SUPPORTED;
}
