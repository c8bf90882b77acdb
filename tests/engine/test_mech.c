/* test_mech.c: the engine's mechanisms, stores and policy called directly, the
 * simulator as the driver (no hooks, nothing interposed): an upload through the
 * store encodes, the ledger's jobs find bits flipped behind gpuft's back and name
 * their groups, a check before use repairs them on the device, a full ledger
 * refuses, jobs of an allocation that goes keep their slots until they are done, and
 * a commit corrects what the code can, restores from the checkpoint what it cannot,
 * and reports what nothing can undo; a free that completes while a commit waits
 * with its lock dropped leaves it nothing stale to read. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"
#include "engine.h"
#include "access.h"
#include "simcuda.h" /* (the twin of the protocol test's kernel) */

static unsigned long long g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* xorshift64 */
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return g_rng;
}

/* The driver's tables filled from the simulator, a context made current, gpuft's
 * state in it (module, stream, ledger). */
static ft_dev_t *start(void) {
  ft_options_init();
  ft_real_dlsym = dlsym;
  void *lib = dlopen(SIMCUDA_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return NULL;
  ft_real_fill(lib, NULL);
  ft_engine_wire(); /* (what the library's constructor registers: lower floors tell upper ones) */
  ft_ready = ft_enabled = 1;
  CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(lib, "cuInit");
  CUresult (*device_get)(CUdevice *, int) = (CUresult(*)(CUdevice *, int))dlsym(lib, "cuDeviceGet");
  CUresult (*set_current)(CUcontext) = (CUresult(*)(CUcontext))dlsym(lib, "cuCtxSetCurrent");
  CUdevice dev;
  CUcontext ctx;
  if (!init || !device_get || !set_current || init(0) || device_get(&dev, 0) ||
      ft_real.cuDevicePrimaryCtxRetain(&ctx, dev) || set_current(ctx))
    return NULL;
  ft_lock();
  ft_dev_t *d = ft_dev_current();
  ft_unlock();
  return d && d->ok ? d : NULL;
}

/* A protected allocation of n bytes holding data, uploaded through the store (so
 * encoded on the host, at rest under its code). */
static ft_alloc_t *uploaded(ft_dev_t *d, const uint32_t *data, size_t n) FT_REQUIRES(ft_eng_lock) {
  CUdeviceptr p = 0;
  if (ft_real.cuMemAlloc_v2(&p, n)) return NULL;
  ft_alloc_t *a = ft_alloc_track(d, p, n, 0);
  if (!a || ft_upload_relocking(d, &a, 0, data, n, d->stream, 1) != CUDA_SUCCESS || !a) return NULL;
  if (ft_real.cuStreamSynchronize(d->stream)) return NULL;
  return a->state == FT_ST_CLEAN ? a : NULL;
}

/* a untracked and its memory given back. 0, or -1. */
static int gone(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
  CUdeviceptr base = a->base;
  ft_alloc_untrack(a);
  return ft_real.cuMemFree_v2(base) == CUDA_SUCCESS ? 0 : -1;
}

/* n bytes of random words (the caller frees them). */
static uint32_t *random_words(size_t n) {
  uint32_t *w = malloc(n);
  for (size_t i = 0; w && i < n / 4; i++) w[i] = (uint32_t)rnd();
  return w;
}

/* Bit `bit` of the word at byte off flipped with the driver's own copies: what a
 * fault in the memory does, unseen by gpuft. */
static int flip(const ft_alloc_t *a, size_t off, unsigned bit) {
  uint32_t w;
  if (ft_real.cuMemcpyDtoH_v2(&w, a->base + off, 4)) return -1;
  w ^= 1u << bit;
  return ft_real.cuMemcpyHtoD_v2(a->base + off, &w, 4) ? -1 : 0;
}

/* The one job not retired yet, once done (its result in *res), retired. */
static int finish_one(ft_dev_t *d, ftk_job_t *res) FT_REQUIRES(ft_eng_lock) {
  if (ft_real.cuStreamSynchronize(d->stream)) return -1;
  ft_job_rec_t *j = ft_job_head();
  if (!j || j->next) return -1;
  ftk_job_t *r = ft_job_result(j);
  if (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) return -1;
  *res = *r;
  ft_job_retire(NULL, j);
  return 0;
}

/* In a loop of random places: one flipped bit is found by a verification job in
 * its group and no other; a check before use finds it, repairs it on the device
 * (the word is back) and says so; a clean allocation shows nothing. */
TEST_IMPL(ledger_jobs_find_and_repair_flips) {
  ft_dev_t *d = start();
  ASSERT(d != NULL); /* the simulator loaded, a context, gpuft's state in it */
  enum { N = 256 * 1024 };
  uint32_t *data = random_words(N), *back = malloc(N);
  ASSERT(data && back);
  ft_lock();
  ft_alloc_t *a = uploaded(d, data, N);
  ASSERT(a != NULL);
  uint64_t ng = ft_groups_of(N);
  ftk_job_t res;
  ASSERT_EQ(ft_job_issue(d, FT_WHY_AT_REST, a, 0, ng, d->stream, NULL, -1), 0);
  ASSERT_EQ(finish_one(d, &res), 0);
  ASSERT_EQ(res.n_bad, 0u); /* what the host encoded, the device's check accepts */
  for (int k = 0; k < 24; k++) {
    size_t off = (rnd() % (N / 4)) * 4;
    unsigned bit = (unsigned)(rnd() % 32);
    uint64_t g = ft_group_of(off);
    ASSERT_EQ(flip(a, off, bit), 0);
    /* a plain check: found, in its group, the data left as it is */
    ASSERT_EQ(ft_job_issue(d, FT_WHY_AT_REST, a, 0, ng, d->stream, NULL, -1), 0);
    ASSERT_EQ(finish_one(d, &res), 0);
    ASSERT_EQ(res.n_bad, 1u);
    ASSERT_EQ(FTK_BAD_GROUP(res.bad[0]), g);
    ASSERT(ft_real.cuMemcpyDtoH_v2(back, a->base, N) == CUDA_SUCCESS);
    ASSERT_EQ(back[off / 4], data[off / 4] ^ (1u << bit));
    /* a check over other groups only: not found */
    if (g + 1 < ng) {
      ASSERT_EQ(ft_job_issue(d, FT_WHY_AT_REST, a, g + 1, ng, d->stream, NULL, -1), 0);
      ASSERT_EQ(finish_one(d, &res), 0);
      ASSERT_EQ(res.n_bad, 0u);
    }
    /* a check before use: repaired on the device, and reported repaired */
    ASSERT_EQ(ft_job_issue_fix(d, FT_WHY_BEFORE_READ, a, 0, ng, d->stream, NULL, -1), 0);
    ASSERT_EQ(finish_one(d, &res), 0);
    ASSERT_EQ(res.n_bad, 1u);
    ASSERT_EQ(FTK_BAD_GROUP(res.bad[0]), g);
    ASSERT(res.bad[0] & FTK_BAD_REPAIRED);
    ASSERT(ft_real.cuMemcpyDtoH_v2(back, a->base, N) == CUDA_SUCCESS);
    ASSERT_EQ(memcmp(back, data, N), 0);
  }
  ASSERT_EQ(gone(a), 0);
  ft_unlock();
  free(data);
  free(back);
  return TEST_OK;
}

/* Jobs issued without being retired fill the ledger: the next one is refused
 * (nothing enqueued, counted), none is lost; once they are retired there is room
 * again. An allocation untracked with jobs in flight leaves them as orphans that
 * keep their slots until their kernels are done. */
TEST_IMPL(ledger_full_refuses_and_orphans_keep_slots) {
  ft_dev_t *d = start();
  ASSERT(d != NULL); /* the simulator loaded, a context, gpuft's state in it */
  enum { N = 8192 };
  uint32_t *data = random_words(N);
  ASSERT(data != NULL);
  ft_lock();
  ft_alloc_t *a = uploaded(d, data, N);
  ASSERT(a != NULL);
  uint64_t refused = ft_st.verifications_refused;
  int issued = 0;
  while (issued <= FT_LEDGER_SLOTS && ft_job_issue(d, FT_WHY_AT_REST, a, 0, 1, d->stream, NULL, -1) == 0)
    issued++;
  ASSERT(issued > 0 && issued <= FT_LEDGER_SLOTS);
  ASSERT_EQ(ft_st.verifications_refused, refused + 1);
  ASSERT_EQ(ft_jobs_pending(), issued);
  ASSERT_EQ(a->pending, issued);
  /* the allocation goes with its jobs in flight: they keep their slots */
  CUdeviceptr base = a->base;
  ft_alloc_untrack(a);
  ASSERT_EQ(ft_jobs_pending(), issued);
  int orphans = 0;
  for (ft_job_rec_t *j = ft_job_head(); j; j = j->next) orphans += j->a == NULL;
  ASSERT_EQ(orphans, issued);
  ASSERT(ft_real.cuStreamSynchronize(d->stream) == CUDA_SUCCESS);
  while (ft_job_head()) {
    ft_job_rec_t *j = ft_job_head();
    ASSERT(__atomic_load_n(&ft_job_result(j)->done, __ATOMIC_ACQUIRE));
    ft_job_retire(NULL, j);
  }
  ASSERT_EQ(ft_jobs_pending(), 0);
  ASSERT(ft_real.cuMemFree_v2(base) == CUDA_SUCCESS);
  /* room again */
  ft_alloc_t *b = uploaded(d, data, N);
  ASSERT(b != NULL);
  ASSERT_EQ(ft_job_issue(d, FT_WHY_AT_REST, b, 0, 1, d->stream, NULL, -1), 0);
  ftk_job_t res;
  ASSERT_EQ(finish_one(d, &res), 0);
  ASSERT_EQ(res.n_bad, 0u);
  ASSERT_EQ(gone(b), 0);
  ft_unlock();
  free(data);
  return TEST_OK;
}

/* A commit over jobs that found damage at rest, in a loop of random places: one
 * flipped bit is corrected by the code (the word is back, counted corrected); two the
 * code cannot locate are restored from the checkpoint (counted restored); with no checkpoint
 * (GPUFT_CKPT_MAX=0) the same two are reported uncorrectable, the data left as the
 * flips made it, never "repaired" into something else. */
static int commit_case(int bits, int ckpt) {
  if (!ckpt) setenv("GPUFT_CKPT_MAX", "0", 1);
  ft_dev_t *d = start();
  ASSERT(d != NULL);
  enum { N = 64 * 1024 };
  uint32_t *data = random_words(N), *back = malloc(N);
  ASSERT(data && back);
  ft_lock();
  ft_alloc_t *a = uploaded(d, data, N);
  ASSERT(a != NULL);
  ASSERT(ckpt ? a->mirror != NULL : a->mirror == NULL);
  uint64_t ng = ft_groups_of(N);
  for (int k = 0; k < 12; k++) {
    /* two bits: the same bit of two neighbouring words of one 128-byte block (the
     * vertical parity sees nothing, the diagonal one cannot say where) */
    size_t off = (rnd() % (N / 128)) * 128 + (rnd() % 31) * 4;
    unsigned bit = (unsigned)(rnd() % 32);
    uint32_t want[2] = {data[off / 4], data[off / 4 + 1]};
    ASSERT_EQ(flip(a, off, bit), 0);
    if (bits == 2) ASSERT_EQ(flip(a, off + 4, bit), 0);
    uint64_t corrected = ft_st.corrected, restored = ft_st.restored, unc = ft_st.uncorrectable;
    ASSERT_EQ(ft_job_issue(d, FT_WHY_AT_REST, a, 0, ng, d->stream, NULL, -1), 0);
    CUdeviceptr base = a->base;
    ft_unlock();
    ASSERT(ft_real.cuCtxSynchronize() == CUDA_SUCCESS); /* (the program's synchronisation) */
    ft_commit();
    ft_lock();
    a = ft_reg_find_base(base);
    ASSERT(a != NULL);
    ASSERT_EQ(ft_jobs_pending(), 0);
    ASSERT(ft_real.cuMemcpyDtoH_v2(back, base, N) == CUDA_SUCCESS);
    if (bits == 1 || ckpt) {
      ASSERT_EQ(memcmp(back, data, N), 0);
      ASSERT_EQ(bits == 1 ? ft_st.corrected - corrected : ft_st.restored - restored, 1u);
      ASSERT_EQ(ft_st.uncorrectable, unc);
    } else {
      ASSERT(back[off / 4] != want[0] && back[off / 4 + 1] != want[1]);
      ASSERT_EQ(ft_st.uncorrectable - unc, 1u);
      /* (the program's copy: what the device holds now, so the next round starts clean) */
      memcpy(data, back, N);
      ASSERT_EQ(gone(a), 0);
      a = uploaded(d, data, N);
      ASSERT(a != NULL);
    }
  }
  ASSERT_EQ(gone(a), 0);
  ft_unlock();
  free(data);
  free(back);
  return TEST_OK;
}

TEST_IMPL(commit_corrects_one_bit) { return commit_case(1, 1); }
TEST_IMPL(commit_restores_two_bits_from_checkpoint) { return commit_case(2, 1); }
TEST_IMPL(commit_reports_two_bits_without_checkpoint) { return commit_case(2, 0); }

/* ---- A free in the window where a commit drops its lock (issue 23) ----
 * A commit that must replay lets go of the engine lock to wait for the operations
 * in flight and the context. Another thread's free can complete there and give the
 * allocation's record back; the commit must find its findings again by id and not
 * read the record it held before. Made deterministic: the driver's context
 * synchronisation, which the commit makes inside that window, is wrapped, and the
 * wrapper frees the damaged allocation as the free hook does (ft_free_begin, the
 * driver's free, ft_free_end). */
static CUresult (*g_real_ctx_sync)(void);
static CUdeviceptr g_free_in_window;
static int g_freed_in_window;

static CUresult sync_then_free(void) {
  CUresult r = g_real_ctx_sync();
  CUdeviceptr p = g_free_in_window;
  if (p) {
    g_free_in_window = 0;
    ft_free_begin(p);
    ft_free_end(p, ft_real.cuMemFree_v2(p) == CUDA_SUCCESS);
    g_freed_in_window++;
  }
  return r;
}

/* What a commit logs (its warnings name the allocation a loss is charged to). */
static char *commit_logging(void) {
  fflush(stderr);
  int saved = dup(2);
  FILE *t = tmpfile();
  if (saved < 0 || !t) return NULL;
  dup2(fileno(t), 2);
  ft_commit();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  long n = ftell(t) > 0 ? ftell(t) : 0;
  char *buf = calloc(1, (size_t)n + 1);
  rewind(t);
  if (buf && n) buf[fread(buf, 1, (size_t)n, t)] = 0;
  fclose(t);
  return buf;
}

static int free_in_window(int retries) {
  if (!retries) setenv("GPUFT_MAX_RETRIES", "0", 1); /* the commit gives up: a loss is charged */
  ft_dev_t *d = start();
  ASSERT(d != NULL);
  enum { N = 64 * 1024 };
  uint32_t *data = random_words(N);
  ASSERT(data != NULL);
  g_real_ctx_sync = ft_real.cuCtxSynchronize;
  ft_real.cuCtxSynchronize = sync_then_free;
  for (int k = 0; k < 6; k++) { /* (the commit's warnings are capped at 8) */
    ft_lock();
    /* a second allocation, untouched, that the commit must leave as it is */
    ft_alloc_t *keep = uploaded(d, data, N), *a = uploaded(d, data, N);
    ASSERT(keep != NULL && a != NULL);
    CUdeviceptr base = a->base, keep_base = keep->base;
    uint64_t keep_id = keep->id, a_id = a->id;
    size_t off = (rnd() % (N / 4)) * 4;
    ASSERT_EQ(flip(a, off, (unsigned)(rnd() % 32)), 0);
    /* a kernel read it: the damage was used, so the commit owes a replay */
    ASSERT_EQ(ft_job_issue(d, FT_WHY_READ_AFTER, a, 0, ft_groups_of(N), d->stream, NULL, -1), 0);
    ft_unlock();
    ASSERT(g_real_ctx_sync() == CUDA_SUCCESS);
    g_free_in_window = base;
    int before = g_freed_in_window;
    char *log = commit_logging();
    ASSERT(log != NULL);
    ASSERT_EQ(g_freed_in_window, before + 1); /* the commit did wait inside its window */
    /* a loss (the commit gave up) is charged to the damaged allocation, freed or
     * not, never to the one beside it (before: "uncorrectable memory error in
     * allocation #<keep>"); a replay leaves nothing lost */
    char damaged[64], innocent[64];
    snprintf(damaged, sizeof damaged, "uncorrectable memory error in allocation #%ju (", (uintmax_t)a_id);
    snprintf(innocent, sizeof innocent, "allocation #%ju (", (uintmax_t)keep_id);
    if (retries ? strstr(log, "uncorrectable memory error") != NULL : !strstr(log, damaged))
      FT_FAIL_("round %d: what the commit said:\n%s", k, log);
    if (strstr(log, innocent)) FT_FAIL_("round %d: a loss charged to the allocation beside it:\n%s", k, log);
    free(log);
    ft_lock();
    ASSERT(ft_reg_find_base(base) == NULL); /* the free went through */
    ASSERT_EQ(ft_jobs_pending(), 0);
    ASSERT_EQ(ft_replay_owed(), 0);
    /* the counters add up; nothing was charged to the allocation left alone */
    ASSERT_EQ(ft_st.detected, ft_st.corrected + ft_st.recovered + ft_st.uncorrectable);
    keep = ft_reg_find_base(keep_base);
    ASSERT(keep != NULL && keep->id == keep_id && keep->state == FT_ST_CLEAN);
    ASSERT_EQ(gone(keep), 0);
    ft_unlock();
  }
  ft_real.cuCtxSynchronize = g_real_ctx_sync;
  free(data);
  return TEST_OK;
}

TEST_IMPL(free_while_commit_waits) { return free_in_window(1); }
TEST_IMPL(free_while_commit_gives_up) { return free_in_window(0); }

/* ---- The write protocol and the replay, below the hooks (issue 23) ----
 * A kernel (a twin: z = x + y over n floats) launched through the policy of a launch
 * as the launch hook does (ft_launch_uses, then ft_protect_refs around the driver's
 * call), with the access facts its PTX would give set by hand (x and y read, z
 * written; a twin has no PTX) and the check before use off. Each round flips two bits of x at rest before the launch (the
 * code detects them but cannot say where), so the kernel computes z from damaged x;
 * the commit finds the damage the kernel used in the check after it, restores x from
 * its checkpoint and replays the epoch from its log (the launch again, with its
 * logged parameter bytes): z comes out as x + y of the original data, bit for bit,
 * and z's code, re-encoded by the protocol, is accepted by a check at rest. A round
 * without flips changes no counter. */
static void k_vecadd(const simcuda_block_t *b, void **params) {
  const float *x = simcuda_ptr(b, *(void **)params[0]), *y = simcuda_ptr(b, *(void **)params[1]);
  float *z = simcuda_ptr(b, *(void **)params[2]);
  int n = *(int *)params[3];
  if (!x || !y || !z) return;
  for (unsigned t = 0; t < b->blockDim.x; t++) {
    size_t i = (size_t)b->blockIdx.x * b->blockDim.x + t;
    if (i < (size_t)n) z[i] = x[i] + y[i];
  }
}
static const uint16_t s_vec[] = {8, 8, 8, 4}, a_vec[] = {8, 8, 8, 4};
static const simcuda_kernel_t k_vec[] = {{"vecadd", k_vecadd, 4, s_vec, a_vec}};
static const simcuda_image_t vec_image = {SIMCUDA_IMAGE_MAGIC, SIMCUDA_IMAGE_VERSION, 1, k_vec};

typedef struct {
  CUfunction f;
  unsigned grid, block;
  uint8_t *buf;
  size_t len;
} vec_call_t;

static CUresult vec_launch(const void *call) {
  const vec_call_t *c = call;
  size_t len = c->len;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, c->buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &len, CU_LAUNCH_PARAM_END};
  return ft_real.cuLaunchKernel(c->f, c->grid, 1, 1, c->block, 1, 1, 0, NULL, NULL, extra);
}

TEST_IMPL(launch_protocol_and_replay) {
  setenv("GPUFT_VERIFY_BEFORE_USE", "0", 1); /* (else x is repaired before the kernel reads it) */
  ft_dev_t *d = start();
  ASSERT(d != NULL);
  CUmodule m;
  CUfunction f;
  ASSERT(ft_drv.cuModuleLoadData(&m, &vec_image) == CUDA_SUCCESS);
  ASSERT(ft_drv.cuModuleGetFunction(&f, m, "vecadd") == CUDA_SUCCESS);
  enum { N = 64 * 1024, COUNT = N / 4 };
  float *x = malloc(N), *y = malloc(N), *want = malloc(N), *back = malloc(N);
  ASSERT(x && y && want && back);
  for (int i = 0; i < COUNT; i++) {
    x[i] = (float)(rnd() % 100000) / 7.0f;
    y[i] = (float)(rnd() % 100000) / 3.0f;
    want[i] = x[i] + y[i];
  }
  ft_lock();
  ft_func_t *fn = ft_func_get(f);
  ASSERT(fn && fn->layout_ok && fn->nparams == 4);
  fn->slot_acc[0] = fn->slot_acc[1] = FT_ACC_READ, fn->slot_acc[2] = FT_ACC_WRITE, fn->slot_acc[3] = FT_ACC_NONE;
  fn->facts = 1;
  ft_alloc_t *xa = uploaded(d, (const uint32_t *)x, N), *ya = uploaded(d, (const uint32_t *)y, N);
  ASSERT(xa && ya && xa->mirror); /* (x has a checkpoint to be restored from) */
  CUdeviceptr xp = xa->base, yp = ya->base, zp = 0;
  ASSERT(ft_real.cuMemAlloc_v2(&zp, N) == CUDA_SUCCESS);
  ASSERT(ft_alloc_track(d, zp, N, 0) != NULL);
  ft_unlock();
  uint8_t buf[28];
  int n = COUNT;
  memcpy(buf, &xp, 8), memcpy(buf + 8, &yp, 8), memcpy(buf + 16, &zp, 8), memcpy(buf + 24, &n, 4);
  const unsigned grid[3] = {COUNT / 256, 1, 1}, block[3] = {256, 1, 1};
  vec_call_t call = {f, grid[0], block[0], buf, sizeof buf};
  for (int k = 0; k < 6; k++) {
    uint64_t recovered = ft_st.recovered, detected = ft_st.detected, unc = ft_st.uncorrectable;
    ft_lock();
    xa = ft_reg_find_base(xp);
    if (k) { /* two bits of one block: detected, not locatable */
      size_t off = (rnd() % (N / 128)) * 128 + (rnd() % 31) * 4;
      unsigned bit = (unsigned)(rnd() % 32);
      ASSERT_EQ(flip(xa, off, bit), 0);
      ASSERT_EQ(flip(xa, off + 4, bit), 0);
    }
    ft_unlock();
    ft_op_begin();
    ft_lock();
    ft_ref_t refs[FT_MAX_REFS];
    const char *side = NULL;
    ASSERT_EQ(ft_launch_uses(d, fn, buf, sizeof buf, grid, block, refs, &side), 3);
    ASSERT(side == NULL);
    const ft_logged_t lg = {f, 0, grid, block, 0, buf, sizeof buf, NULL, 0, 0};
    ASSERT(ft_protect_refs(d, fn, refs, 3, NULL, vec_launch, &call, NULL, &lg) == CUDA_SUCCESS);
    ft_unlock();
    ft_op_end();
    ASSERT(ft_real.cuCtxSynchronize() == CUDA_SUCCESS); /* (the program's synchronisation) */
    ASSERT(ft_commit() == CUDA_SUCCESS);
    ASSERT(ft_real.cuMemcpyDtoH_v2(back, zp, N) == CUDA_SUCCESS);
    if (memcmp(back, want, N)) FT_FAIL_("round %d: z is not x + y after the commit", k);
    ASSERT(ft_real.cuMemcpyDtoH_v2(back, xp, N) == CUDA_SUCCESS);
    ASSERT_EQ(memcmp(back, x, N), 0); /* x restored */
    ASSERT_EQ(ft_st.uncorrectable, unc);
    ASSERT_EQ(ft_st.detected - detected, k ? 1u : 0u);
    ASSERT_EQ(ft_st.recovered - recovered, k ? 1u : 0u);
    /* z's code, re-encoded behind the launch (and the replay), holds at rest */
    ft_lock();
    ft_alloc_t *za = ft_reg_find_base(zp);
    ASSERT(za != NULL && za->state == FT_ST_CLEAN);
    ftk_job_t res;
    ASSERT_EQ(ft_job_issue(d, FT_WHY_AT_REST, za, 0, ft_groups_of(N), d->stream, NULL, -1), 0);
    ASSERT_EQ(finish_one(d, &res), 0);
    ASSERT_EQ(res.n_bad, 0u);
    ft_unlock();
  }
  ft_lock();
  ASSERT_EQ(gone(ft_reg_find_base(xp)), 0);
  ASSERT_EQ(gone(ft_reg_find_base(yp)), 0);
  ASSERT_EQ(gone(ft_reg_find_base(zp)), 0);
  ft_unlock();
  ASSERT(ft_drv.cuModuleUnload(m) == CUDA_SUCCESS);
  free(x), free(y), free(want), free(back);
  return TEST_OK;
}
