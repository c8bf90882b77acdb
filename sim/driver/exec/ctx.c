/* ctx.c: contexts: each device's primary context, created contexts, the per-thread
 * context stack, synchronisation and teardown (which releases what a context owns). */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

#define STACK_MAX 64
/* The thread's context stack lives in a heap block reached through a pthread
 * key, not in __thread variables: libcuda is usually dlopened (by the runtime),
 * so __thread data would be dynamic TLS, which glibc frees in whichever thread
 * later recycles the dead thread's stack; the thread sanitizer sees no ordering
 * between that free and the dead thread's own accesses and reports a race. A
 * block the thread frees itself, in its key destructor, has no such problem. */
typedef struct { sim_ctx_t *stack[STACK_MAX]; int depth; } tls_t;
static const tls_t tls_empty; /* threads that never set a context (read only) */
static pthread_key_t tls_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static atomic_ullong next_ctx_id = 1;

/* One primary context per device (SIMCUDA_DEVICES), each with its own lock. */
typedef struct {
  sim_ctx_t ctx;
  pthread_mutex_t mu;
  int retains;
  unsigned flags;
} primary_t;
static primary_t primaries[SIM_MAX_DEVICES];

/* Thread exit: drop the references the thread's context stack holds. */
static void tls_release(void *block) {
  tls_t *t = block;
  while (t->depth > 0) sim_obj_unref(&t->stack[--t->depth]->obj);
  free(t);
}
static void key_make(void) { pthread_key_create(&tls_key, tls_release); }
static tls_t *tls_get(void) {
  pthread_once(&key_once, key_make);
  tls_t *t = pthread_getspecific(tls_key);
  return t ? t : (tls_t *)&tls_empty; /* only read while depth is 0 */
}
/* Before the first push: the thread gets its own block. */
static void tls_touch(void) {
  pthread_once(&key_once, key_make);
  if (pthread_getspecific(tls_key)) return;
  tls_t *t = calloc(1, sizeof *t);
  if (!t || pthread_setspecific(tls_key, t) != 0) abort();
}
#define tls_stack (tls_get()->stack)
#define tls_depth (tls_get()->depth)

/* Set once at load (api/export.c: the export tables' context-local storage). */
static void (*_Atomic teardown_hook)(sim_ctx_t *);
void sim_ctx_on_teardown(void (*fn)(sim_ctx_t *c)) { atomic_store(&teardown_hook, fn); }

static void ctx_free(sim_obj_t *o) {
  sim_ctx_t *c = (sim_ctx_t *)o;
  pthread_mutex_destroy(&c->mu);
  free(c->streams);
  free(c);
}

static CUresult ctx_setup(sim_ctx_t *c, unsigned flags) {
  c->flags = flags;
  c->cache_config = CU_FUNC_CACHE_PREFER_NONE;
  c->limits[CU_LIMIT_STACK_SIZE] = 1024;
  c->limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20;
  c->limits[CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20;
  c->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
  c->limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 32;
  atomic_store(&c->sticky, CUDA_SUCCESS);
  sim_ctx_peers_clear(c);
  c->id = atomic_fetch_add(&next_ctx_id, 1);
  atomic_store(&c->alive, true);
  return sim_stream_create(c, 0, 0, true, &c->legacy);
}

/* Waits for all work, then releases the context's streams, events, modules and
 * memory. The object itself lives on while threads still hold it current. */
static void ctx_teardown(sim_ctx_t *c) {
  void (*hook)(sim_ctx_t *) = atomic_load(&teardown_hook);
  if (hook) hook(c); /* the runtime's destructors may still use the context */
  sim_ctx_sync(c);
  atomic_store(&c->alive, false);
  pthread_mutex_lock(&c->mu);
  sim_stream_t **ss = c->streams;
  size_t n = c->n_streams;
  c->streams = NULL;
  c->n_streams = c->cap_streams = 0;
  c->legacy = NULL;
  pthread_mutex_unlock(&c->mu);
  for (size_t i = 0; i < n; i++) {
    sim_stream_shutdown(ss[i]);
    sim_handle_remove(&ss[i]->obj);
    sim_obj_unref(&ss[i]->obj); /* the list's reference */
  }
  free(ss);
  static const sim_kind_t kinds[] = {SIM_OBJ_EVENT, SIM_OBJ_FUNC, SIM_OBJ_MODULE, SIM_OBJ_GRAPHEXEC, SIM_OBJ_ARRAY};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    sim_obj_t *objs[256];
    size_t m;
    while ((m = sim_handle_collect(kinds[k], c, objs, 256)) > 0) {
      for (size_t i = 0; i < m; i++) {
        sim_handle_remove(objs[i]);
        sim_obj_unref(objs[i]);
      }
    }
  }
  sim_module_forget_ctx(c);
  sim_heap_release(c);
  sim_mem_free_ctx(c);
}

static void primary_register(void) {
  for (int d = 0; d < SIM_MAX_DEVICES; d++) {
    sim_ctx_t *c = &primaries[d].ctx;
    sim_obj_init(&c->obj, SIM_OBJ_CTX, NULL, NULL);
    c->obj.ctx = c;
    c->primary = true;
    c->dev = d;
    pthread_mutex_init(&c->mu, NULL);
    pthread_mutex_init(&primaries[d].mu, NULL);
    if (d < sim_opt.devices) sim_handle_add(&c->obj);
  }
}
static pthread_once_t primary_once = PTHREAD_ONCE_INIT;

CUresult sim_ctx_current_nosticky(sim_ctx_t **out) {
  SIM_CHECK_INIT();
  if (tls_depth == 0) return CUDA_ERROR_INVALID_CONTEXT;
  sim_ctx_t *c = tls_stack[tls_depth - 1];
  if (!atomic_load(&c->alive)) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  *out = c;
  return CUDA_SUCCESS;
}

CUresult sim_ctx_current(sim_ctx_t **out) {
  CUresult r = sim_ctx_current_nosticky(out);
  if (r != CUDA_SUCCESS) return r;
  int st = atomic_load(&(*out)->sticky);
  return st ? (CUresult)st : CUDA_SUCCESS;
}

void sim_ctx_set_sticky(sim_ctx_t *ctx, CUresult err) {
  int zero = CUDA_SUCCESS;
  atomic_compare_exchange_strong(&ctx->sticky, &zero, (int)err);
}

CUresult sim_ctx_sync(sim_ctx_t *c) {
  pthread_mutex_lock(&c->mu);
  size_t n = c->n_streams;
  sim_stream_t **ss = n ? malloc(n * sizeof *ss) : NULL;
  uint64_t *seqs = n ? malloc(n * sizeof *seqs) : NULL;
  if (n && (!ss || !seqs)) abort();
  for (size_t i = 0; i < n; i++) {
    ss[i] = c->streams[i];
    sim_obj_ref(&ss[i]->obj);
    pthread_mutex_lock(&ss[i]->mu);
    seqs[i] = ss[i]->enq_seq;
    pthread_mutex_unlock(&ss[i]->mu);
  }
  pthread_mutex_unlock(&c->mu);
  for (size_t i = 0; i < n; i++) {
    sim_stream_wait_seq(ss[i], seqs[i]);
    sim_obj_unref(&ss[i]->obj);
  }
  free(ss);
  free(seqs);
  int st = atomic_load(&c->sticky);
  return (CUresult)st;
}

/* ---- the context stack ---- */
static void push(sim_ctx_t *c) {
  tls_touch();
  if (tls_depth == STACK_MAX) abort(); /* deeper than any sane program goes */
  sim_obj_ref(&c->obj);
  tls_stack[tls_depth++] = c;
}

static sim_ctx_t *lookup(CUcontext h) {
  sim_obj_t *o = sim_handle_get(h, SIM_OBJ_CTX);
  return (sim_ctx_t *)o;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
  SIM_CHECK_INIT();
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  *pctx = tls_depth ? (CUcontext)tls_stack[tls_depth - 1] : NULL;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext h) {
  SIM_CHECK_INIT();
  if (!h) {
    if (tls_depth) sim_obj_unref(&tls_stack[--tls_depth]->obj);
    return CUDA_SUCCESS;
  }
  sim_ctx_t *c = lookup(h);
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (tls_depth) {
    sim_obj_unref(&tls_stack[tls_depth - 1]->obj);
    tls_stack[tls_depth - 1] = c; /* takes over lookup's reference */
  } else {
    tls_touch();
    tls_stack[tls_depth++] = c;
  }
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext h) {
  SIM_CHECK_INIT();
  sim_ctx_t *c = h ? lookup(h) : NULL;
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  push(c);
  sim_obj_unref(&c->obj);
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx) {
  SIM_CHECK_INIT();
  if (!tls_depth) return CUDA_ERROR_INVALID_CONTEXT;
  sim_ctx_t *c = tls_stack[--tls_depth];
  if (pctx) *pctx = (CUcontext)c;
  sim_obj_unref(&c->obj);
  return CUDA_SUCCESS;
}

static CUresult ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev) {
  SIM_CHECK_INIT();
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  if (!sim_dev_ok(dev)) return CUDA_ERROR_INVALID_DEVICE;
  if (flags & ~(unsigned)CU_CTX_FLAGS_MASK) return CUDA_ERROR_INVALID_VALUE;
  sim_ctx_t *c = calloc(1, sizeof *c);
  if (!c) return CUDA_ERROR_OUT_OF_MEMORY;
  sim_obj_init(&c->obj, SIM_OBJ_CTX, NULL, ctx_free);
  c->obj.ctx = c;
  c->dev = dev;
  pthread_mutex_init(&c->mu, NULL);
  CUresult r = ctx_setup(c, flags);
  if (r != CUDA_SUCCESS) {
    sim_obj_unref(&c->obj);
    return r;
  }
  sim_handle_add(&c->obj); /* the table's reference is the creator's */
  push(c);
  *pctx = (CUcontext)c;
  return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *params, int n, unsigned int flags,
                        CUdevice dev) {
  if (n < 0 || (n > 0 && !params)) return CUDA_ERROR_INVALID_VALUE;
  if (n > 0) return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY; /* no SM partitioning */
  return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags, CUdevice dev) {
  if (params && (params->numExecAffinityParams > 0 || params->cigParams))
    return CUDA_ERROR_NOT_SUPPORTED;
  return ctx_create(pctx, flags, dev);
}

CUresult cuCtxDestroy_v2(CUcontext h) {
  SIM_CHECK_INIT();
  sim_ctx_t *c = h ? lookup(h) : NULL;
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (c->primary) {
    sim_obj_unref(&c->obj);
    return CUDA_ERROR_INVALID_CONTEXT; /* primary contexts are released, not destroyed */
  }
  ctx_teardown(c);
  sim_handle_remove(&c->obj);
  /* Popped from the calling thread's stack if current there. */
  if (tls_depth && tls_stack[tls_depth - 1] == c) {
    tls_depth--;
    sim_obj_unref(&c->obj);
  }
  sim_obj_unref(&c->obj);
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *dev) {
  sim_ctx_t *c;
  CUresult r = sim_ctx_current_nosticky(&c);
  if (r) return r;
  if (!dev) return CUDA_ERROR_INVALID_VALUE;
  *dev = c->dev;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetFlags(unsigned int *flags) {
  sim_ctx_t *c;
  CUresult r = sim_ctx_current_nosticky(&c);
  if (r) return r;
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  *flags = c->flags;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetId(CUcontext h, unsigned long long *id) {
  SIM_CHECK_INIT();
  if (!id) return CUDA_ERROR_INVALID_VALUE;
  sim_ctx_t *c;
  if (!h) {
    CUresult r = sim_ctx_current_nosticky(&c);
    if (r) return r;
    *id = c->id;
    return CUDA_SUCCESS;
  }
  c = lookup(h);
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  *id = c->id;
  sim_obj_unref(&c->obj);
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
  sim_ctx_t *c;
  CUresult r = sim_ctx_current_nosticky(&c);
  if (r || (r = sim_capture_check_ctx(c))) return r;
  r = sim_ctx_sync(c);
  sim_count_sync();
  return r;
}

CUresult cuCtxGetApiVersion(CUcontext h, unsigned int *version) {
  SIM_CHECK_INIT();
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  sim_ctx_t *c;
  if (h) {
    c = lookup(h);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    sim_obj_unref(&c->obj);
  } else {
    CUresult r = sim_ctx_current_nosticky(&c);
    if (r) return r;
  }
  *version = 3020; /* contexts made by the _v2 and later entry points */
  return CUDA_SUCCESS;
}

CUresult cuCtxGetLimit(size_t *value, CUlimit limit) {
  sim_ctx_t *c;
  CUresult r = sim_ctx_current(&c);
  if (r) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if ((unsigned)limit >= CU_LIMIT_MAX || (unsigned)limit >= 16) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  *value = c->limits[limit];
  return CUDA_SUCCESS;
}

CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  sim_ctx_t *c;
  CUresult r = sim_ctx_current(&c);
  if (r) return r;
  if ((unsigned)limit >= CU_LIMIT_MAX || (unsigned)limit >= 16) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  /* the driver's rule: the heap is sized before a kernel uses malloc (heap.c) */
  if (limit == CU_LIMIT_MALLOC_HEAP_SIZE && atomic_load(&c->heap)) return CUDA_ERROR_INVALID_VALUE;
  /* an H100's driver (580.159) reads a heap of 1 MiB or of 3 MiB + 1 back as 4 MiB,
   * 5 MiB and 100 MiB as asked (docs/gpu-results.md): 4 MiB at the least */
  if (limit == CU_LIMIT_MALLOC_HEAP_SIZE && value < ((size_t)4 << 20)) value = (size_t)4 << 20;
  c->limits[limit] = value;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCacheConfig(CUfunc_cache *cfg) {
  sim_ctx_t *c;
  CUresult r = sim_ctx_current(&c);
  if (r) return r;
  if (!cfg) return CUDA_ERROR_INVALID_VALUE;
  *cfg = c->cache_config;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCacheConfig(CUfunc_cache cfg) {
  sim_ctx_t *c;
  CUresult r = sim_ctx_current(&c);
  if (r) return r;
  if ((unsigned)cfg > CU_FUNC_CACHE_PREFER_EQUAL) return CUDA_ERROR_INVALID_VALUE;
  c->cache_config = cfg;
  return CUDA_SUCCESS;
}

/* The device reports a persisting L2 cache (CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_
 * CACHE_SIZE), so programs reset it (NVIDIA's simpleAttributes): the simulator has
 * no cache; nothing persists. */
CUresult cuCtxResetPersistingL2Cache(void) {
  sim_ctx_t *c;
  return sim_ctx_current(&c);
}

CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) {
  sim_ctx_t *c;
  CUresult r = sim_ctx_current(&c);
  if (r) return r;
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return CUDA_SUCCESS;
}

/* ---- primary context ---- */
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  SIM_CHECK_INIT();
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  if (!sim_dev_ok(dev)) return CUDA_ERROR_INVALID_DEVICE;
  pthread_once(&primary_once, primary_register);
  primary_t *p = &primaries[dev];
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&p->mu);
  if (p->retains == 0) r = ctx_setup(&p->ctx, p->flags);
  if (r == CUDA_SUCCESS) p->retains++;
  pthread_mutex_unlock(&p->mu);
  if (r == CUDA_SUCCESS) *pctx = (CUcontext)&p->ctx;
  return r;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  SIM_CHECK_INIT();
  if (!sim_dev_ok(dev)) return CUDA_ERROR_INVALID_DEVICE;
  pthread_once(&primary_once, primary_register);
  primary_t *p = &primaries[dev];
  pthread_mutex_lock(&p->mu);
  if (p->retains == 0) {
    pthread_mutex_unlock(&p->mu);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (--p->retains == 0) ctx_teardown(&p->ctx);
  pthread_mutex_unlock(&p->mu);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  SIM_CHECK_INIT();
  if (!sim_dev_ok(dev)) return CUDA_ERROR_INVALID_DEVICE;
  pthread_once(&primary_once, primary_register);
  primary_t *p = &primaries[dev];
  pthread_mutex_lock(&p->mu);
  if (p->retains > 0) ctx_teardown(&p->ctx);
  p->retains = 0;
  p->flags = 0;
  pthread_mutex_unlock(&p->mu);
  return CUDA_SUCCESS;
}

/* The CUDA 7.0 ABIs, which NVIDIA's static runtime asks for by version 7000: the
 * same contract in the simulator. */
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
  SIM_CHECK_INIT();
  if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
  if (!sim_dev_ok(dev)) return CUDA_ERROR_INVALID_DEVICE;
  pthread_once(&primary_once, primary_register);
  primary_t *p = &primaries[dev];
  pthread_mutex_lock(&p->mu);
  *flags = p->flags;
  *active = p->retains > 0;
  pthread_mutex_unlock(&p->mu);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  SIM_CHECK_INIT();
  if (!sim_dev_ok(dev)) return CUDA_ERROR_INVALID_DEVICE;
  if (flags & ~(unsigned)CU_CTX_FLAGS_MASK) return CUDA_ERROR_INVALID_VALUE;
  pthread_once(&primary_once, primary_register);
  primary_t *p = &primaries[dev];
  pthread_mutex_lock(&p->mu);
  p->flags = flags;
  p->ctx.flags = flags;
  pthread_mutex_unlock(&p->mu);
  return CUDA_SUCCESS;
}

/* The CUDA 13 forms that name the context (NULL: the current one). */
static CUresult ctx_or_current(CUcontext h, sim_ctx_t **out) {
  if (!h) return sim_ctx_current_nosticky(out);
  SIM_CHECK_INIT();
  sim_ctx_t *c = lookup(h);
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  bool alive = atomic_load(&c->alive);
  sim_obj_unref(&c->obj); /* the handle table keeps it while it is alive */
  if (!alive) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  *out = c;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice_v2(CUdevice *dev, CUcontext h) {
  sim_ctx_t *c;
  CUresult r = ctx_or_current(h, &c);
  if (r) return r;
  if (!dev) return CUDA_ERROR_INVALID_VALUE;
  *dev = c->dev;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize_v2(CUcontext h) {
  sim_ctx_t *c;
  CUresult r = ctx_or_current(h, &c);
  if (r || (r = sim_capture_check_ctx(c))) return r;
  r = sim_ctx_sync(c);
  sim_count_sync();
  return r;
}

/* Every live context's work done (before memory that any device may reach goes:
 * cuMemUnmap, cuIpcCloseMemHandle). Sticky errors are not this call's business. */
void sim_ctx_sync_all(void) {
  enum { MAX = 4096 }; /* far more contexts than a process can have (a GPU: a few hundred) */
  sim_obj_t **objs = malloc(MAX * sizeof *objs);
  if (!objs) abort();
  size_t n = sim_handle_collect_any(SIM_OBJ_CTX, objs, MAX);
  for (size_t i = 0; i < n; i++) {
    sim_ctx_t *c = (sim_ctx_t *)objs[i];
    if (atomic_load(&c->alive)) sim_ctx_sync(c);
    sim_obj_unref(objs[i]);
  }
  free(objs);
}
