/* inject.c: GPUFT_INJECT, fault injection into real device memory (works on a GPU
 * as on the simulator): at a chosen event the stream is drained (the data is at
 * rest), the 128-byte block is read back, bits are flipped and it is written
 * again through the real driver — gpuft's engine does not see it, as it would not
 * see a real upset. The grammar is the one the simulator's SIMCUDA_FLIP shares,
 * parsed by common/faultspec.c (docs/campaign.md); faults separated by ';'. Here:
 *   at=launch:<kernel-substring>:<k> | d2h:<k> | call:<n>
 *   target=arg:<i>[.<byte>] | src | random   (random, the default: any tracked allocation, by size)
 *   bits=1 | 2 | burst:<k> | byte | word | sector | zero   bit=<b>[+<b>...]   seed=<s>
 *   offset=<byte>   (what is not given is drawn from the seed; where the bits land:
 *   ftc_fault_place, shared with the simulator) */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "mech.h"
#include "faultspec.h"
#include "inject.h"

#define FT_INJECT_MAX_BITS (FTC_BLOCK * 8) /* a zeroed block: every bit that was 1 */

typedef struct {
  ftc_fault_t s; /* what was asked */
  char text[256];
  uint64_t seen;
  int claimed; /* a thread is applying it (g_mu) */
  int done;    /* applied: read without g_mu, so atomically (set once) */
  int waited;  /* at=call: its call came during a capture: the next one after (atomic) */
  const char *missed; /* claimed but not applied: why */
  /* what happened */
  uint64_t alloc_id, alloc_size, at_offset;
  int unprotected; /* it landed in memory gpuft does not protect (exported, managed...) */
  int flipped[FT_INJECT_MAX_BITS], nflipped;
  char where[160];
} fault_t;

#define MAX_FAULTS 8
static fault_t g_f[MAX_FAULTS];
static int g_n;
static uint64_t g_calls, g_d2h;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

/* Why a claimed fault was not applied; read at exit, maybe while threads still run. */
static void set_missed(fault_t *f, const char *why) { __atomic_store_n(&f->missed, why, __ATOMIC_RELEASE); }

/* The shared grammar, then what this injector can do. */
static int parse_one(const char *spec, fault_t *f, char *err, size_t cap) {
  memset(f, 0, sizeof *f);
  snprintf(f->text, sizeof f->text, "%s", spec);
  ftc_fault_t *s = &f->s;
  if (ftc_fault_parse(spec, s, err, cap) != 0) return -1;
  if (s->at != FTC_AT_LAUNCH && s->at != FTC_AT_D2H && s->at != FTC_AT_CALL)
    return snprintf(err, cap, "at=%s: gpuft injects at launch:<kernel>:<k>, d2h:<k> or call:<n> "
                              "(h2d and sync are the simulator's, SIMCUDA_FLIP)",
                    s->at == FTC_AT_H2D ? "h2d" : "sync"), -1;
  if (s->target == FTC_TG_DST || s->target == FTC_TG_ADDR)
    return snprintf(err, cap, "target=%s: gpuft aims at arg:<i>, src or random (dst and addr are the "
                              "simulator's, SIMCUDA_FLIP)", s->target == FTC_TG_DST ? "dst" : "addr"), -1;
  if (s->target == FTC_TG_NONE) s->target = FTC_TG_RANDOM;
  if (s->stuck) return snprintf(err, cap, "stuck: a stuck bit is the simulator's (SIMCUDA_FLIP)"), -1;
  if (s->have_offset && s->offset < 0)
    return snprintf(err, cap, "offset=%jd: gpuft counts from the target's pointer on (>= 0; the simulator's SIMCUDA_FLIP reaches below it)", (intmax_t)s->offset), -1;
  if (s->nbit > 1 && s->have_nbits && s->nbits != s->nbit)
    return snprintf(err, cap, "bits=%d with %d bits named by bit=: give one or the other", s->nbits, s->nbit), -1;
  return 0;
}

void ft_inject_init(void) {
  const char *s = FT_OPT_S(INJECT);
  if (!s || !s[0]) return;
  char *copy = strdup(s);
  if (!copy) return;
  char *save = NULL;
  for (char *one = strtok_r(copy, ";", &save); one; one = strtok_r(NULL, ";", &save)) {
    while (*one == ' ') one++;
    if (!*one) continue;
    if (g_n == MAX_FAULTS) {
      FT_WARN("GPUFT_INJECT: at most %d faults: \"%.200s\" and the rest are ignored", MAX_FAULTS, one);
      break;
    }
    char err[320];
    if (parse_one(one, &g_f[g_n], err, sizeof err) != 0) {
      FT_WARN("GPUFT_INJECT: \"%.200s\" ignored: %s. The grammar: " FTC_FAULT_GRAMMAR
              " (docs/campaign.md)", one, err);
      continue;
    }
    g_n++;
  }
  free(copy);
}

int ft_inject_active(void) { return g_n > 0; }

/* Strike the fault in the window [w, w+wlen) of the allocation [base, base+size),
 * at rest: the bytes it touches (inside one 128-byte block) are read back, changed and
 * written again. */
static void apply(fault_t *f, CUdeviceptr base, size_t size, CUdeviceptr w, size_t wlen, uint64_t id,
                  const char *where) {
  const ftc_fault_t *sp = &f->s;
  ftc_hit_t hits[FTC_MAX_HITS];
  uint64_t at;
  int nh = ftc_fault_place(sp, w, wlen, &at, hits);
  if (!nh) {
    set_missed(f, "its target held no byte");
    return;
  }
  uint64_t lo = hits[0].byte, len = hits[nh - 1].byte + 1 - lo;
  uint8_t blk[FTC_MAX_HITS];
  /* the context made idle, under a program whose streams wait on values it has yet
   * to write (the launch's own stream, maybe): it would never be */
  if (__atomic_load_n(&ft_values_awaited, __ATOMIC_RELAXED)) {
    set_missed(f, "the program waits on values in streams (a flip at rest needs the context idle; "
                  "the simulator's SIMCUDA_FLIP strikes in stream order)");
    return;
  }
  /* at rest: the program's stream and every other one of the context (gpuft's
   * snapshot stream may still be copying the block, which the flip would race) */
  CUresult idle = ft_dev_ctx_sync();
  if (idle == CUDA_ERROR_NOT_READY) {
    set_missed(f, "a stream capture was open and the context could not be made idle without ending it");
    return;
  }
  /* on gpuft's own stream: the legacy stream may not be used while a blocking
   * stream captures */
  ft_lock();
  ft_dev_t *d = ft_dev_current(); /* (it may set the context's state up: under the lock) */
  CUstream os = d ? d->stream : CU_STREAM_LEGACY;
  ft_unlock();
  if (idle != CUDA_SUCCESS || ft_real.cuMemcpyDtoHAsync_v2(blk, w + lo, len, os) != CUDA_SUCCESS ||
      ft_own_stream_sync(os) != CUDA_SUCCESS) {
    set_missed(f, "its block could not be read back");
    return;
  }
  f->nflipped = 0;
  for (int i = 0; i < nh; i++) {
    uint8_t *b = &blk[hits[i].byte - lo];
    uint8_t changed = sp->model == FTC_MODEL_ZERO ? (uint8_t)(*b & hits[i].mask) : hits[i].mask;
    *b ^= changed;
    for (int k = 0; k < 8; k++) /* bit numbers from the allocation's start */
      if (changed >> k & 1 && f->nflipped < FT_INJECT_MAX_BITS)
        f->flipped[f->nflipped++] = (int)((w - base + hits[i].byte) * 8 + (uint64_t)k);
  }
  /* a pageable upload may return once staged: the flip must have landed before
   * anything (gpuft's own snapshot stream included) reads the block */
  if (ft_real.cuMemcpyHtoDAsync_v2(w + lo, blk, len, os) != CUDA_SUCCESS || ft_dev_ctx_sync() != CUDA_SUCCESS) {
    set_missed(f, "its block could not be written back");
    return;
  }
  f->alloc_id = id;
  f->alloc_size = size;
  f->at_offset = w - base + at;
  snprintf(f->where, sizeof f->where, "%s", where);
  __atomic_store_n(&f->done, 1, __ATOMIC_RELEASE); /* publishes the fields above */
  FT_INFO("GPUFT_INJECT: flipped %d bit(s) of allocation #%ju at byte %ju (%s)", f->nflipped,
          (uintmax_t)id, (uintmax_t)f->at_offset, where);
}

/* Inject into the tracked allocation containing device address p, if any: from p
 * to its end (a pointer argument: offset= counts from the pointer, as in the
 * simulator's SIMCUDA_FLIP), or (n > 0) in the n bytes from p (what a copy reads:
 * the program's data). */
static void inject_at(fault_t *f, CUdeviceptr p, size_t n, const char *where) {
  ft_lock();
  ft_alloc_t *a = ft_reg_find(p);
  CUdeviceptr base = a ? a->base : 0;
  size_t size = a ? a->size : 0;
  uint64_t id = a ? a->id : 0;
  f->unprotected = a && !ft_protected(a);
  ft_unlock();
  if (!size) {
    set_missed(f, "its target was not memory gpuft tracks (an allocation of the program)");
    return;
  }
  CUdeviceptr w = p;
  size_t wlen = n && n < base + size - p ? n : base + size - p;
  apply(f, base, size, w, wlen, id, where);
}

/* A tracked allocation chosen with probability proportional to its size. */
static ft_alloc_t *random_alloc(uint64_t *seed) FT_REQUIRES(ft_eng_lock) {
  uint64_t total = 0;
  for (size_t i = 0; i < ft_reg_count(); i++) total += ft_reg_at(i)->size;
  if (!total) return NULL;
  uint64_t pick = ftc_mix(seed) % total;
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (pick < a->size) return a;
    pick -= a->size;
  }
  return NULL;
}

static void inject_random(fault_t *f, const char *where) {
  ft_lock();
  uint64_t seed = f->s.seed ^ 0x5851f42d4c957f2dull;
  ft_alloc_t *a = random_alloc(&seed);
  CUdeviceptr base = a ? a->base : 0;
  ft_unlock();
  if (base) inject_at(f, base, 0, where);
  else set_missed(f, "the program had no allocation at that moment");
}

static int is_done(const fault_t *f) { return __atomic_load_n(&f->done, __ATOMIC_ACQUIRE); }

/* The fault is taken by one thread under g_mu, then applied without the lock:
 * applying drains the context, and no gpuft lock is held across a blocking call. */
static int claim(fault_t *f, int count) {
  pthread_mutex_lock(&g_mu);
  int mine = !f->claimed && (!count || ++f->seen == f->s.k);
  if (mine) f->claimed = 1;
  pthread_mutex_unlock(&g_mu);
  return mine;
}

void ft_inject_call(void) {
  if (!g_n) return;
  uint64_t n = __atomic_add_fetch(&g_calls, 1, __ATOMIC_RELAXED);
  /* applying drains the context, which would invalidate an open capture: such a
   * fault waits for the first call after the capture ends */
  int wait = __atomic_load_n(&ft_captures_open, __ATOMIC_RELAXED) > 0;
  for (int i = 0; i < g_n; i++) {
    fault_t *f = &g_f[i];
    if (f->s.at != FTC_AT_CALL || is_done(f) || n < f->s.k ||
        (n > f->s.k && !__atomic_load_n(&f->waited, __ATOMIC_RELAXED)))
      continue;
    if (wait) {
      __atomic_store_n(&f->waited, 1, __ATOMIC_RELAXED);
      continue;
    }
    if (claim(f, 0)) inject_random(f, "at a driver call");
  }
}

void ft_inject_launch(const char *kernel, const uint8_t *params, size_t len,
                      const uint32_t *param_off, const uint32_t *param_size, int nparams) {
  if (!g_n) return;
  for (int i = 0; i < g_n; i++) {
    fault_t *f = &g_f[i];
    const ftc_fault_t *sp = &f->s;
    if (sp->at != FTC_AT_LAUNCH || is_done(f) || !kernel || !strstr(kernel, sp->kernel)) continue;
    if (claim(f, 1)) {
      char where[160];
      snprintf(where, sizeof where, "before launch %ju of %.100s", (uintmax_t)sp->k, kernel);
      if (sp->target == FTC_TG_ARG) {
        size_t at = sp->field < 0 ? 0 : (size_t)sp->field;
        if (sp->arg < nparams && (sp->field < 0 ? param_size[sp->arg] == 8 : at + 8 <= param_size[sp->arg]) &&
            param_off[sp->arg] + at + 8 <= len) {
          uint64_t v;
          memcpy(&v, params + param_off[sp->arg] + at, 8);
          inject_at(f, (CUdeviceptr)v, 0, where);
        } else {
          set_missed(f, sp->arg >= nparams ? "the kernel has fewer arguments"
                                         : "that argument (or field) is not a pointer");
        }
      } else {
        inject_random(f, where);
      }
    }
  }
}

void ft_inject_d2h(CUdeviceptr src, size_t n) {
  if (!g_n) return;
  __atomic_add_fetch(&g_d2h, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < g_n; i++) {
    fault_t *f = &g_f[i];
    if (f->s.at != FTC_AT_D2H || is_done(f)) continue;
    if (claim(f, 1)) {
      char where[64];
      snprintf(where, sizeof where, "before device-to-host copy %ju", (uintmax_t)f->s.k);
      if (f->s.target == FTC_TG_SRC) {
        inject_at(f, src, n, where);
      } else {
        inject_random(f, where);
      }
    }
  }
}

/* The simulator's count of the program's copies (simcudaProgramCopy; NULL elsewhere). */
static void (*g_sim_program_copy)(int next);

void ft_inject_bind_sim(void (*program_copy)(int next)) {
  g_sim_program_copy = program_copy;
  if (program_copy) program_copy(0); /* before any copy: gpuft's own never count */
}

void ft_inject_d2h_issue(void) {
  if (g_sim_program_copy) g_sim_program_copy(1);
}

void ft_inject_warn_unapplied(void) {
  for (int i = 0; i < g_n; i++) {
    fault_t *f = &g_f[i];
    if (is_done(f)) continue;
    char ev[200], why[480];
    ftc_fault_event_text(&f->s, ev, sizeof ev);
    pthread_mutex_lock(&g_mu);
    uint64_t seen = f->seen;
    int claimed = f->claimed;
    pthread_mutex_unlock(&g_mu);
    const char *missed = __atomic_load_n(&f->missed, __ATOMIC_ACQUIRE);
    if (claimed && missed)
      snprintf(why, sizeof why, "at the %s, %s", ev, missed);
    else if (f->s.at == FTC_AT_LAUNCH)
      snprintf(why, sizeof why, "the program made %ju launch(es) of kernels whose name contains \"%s\"%s",
               (uintmax_t)seen, f->s.kernel, seen ? "" : " (is the name right? GPUFT_LOG=debug names each kernel)");
    else if (f->s.at == FTC_AT_D2H)
      snprintf(why, sizeof why, "the program made %ju device-to-host copies",
               (uintmax_t)__atomic_load_n(&g_d2h, __ATOMIC_RELAXED));
    else
      snprintf(why, sizeof why, "the program made %ju driver calls",
               (uintmax_t)__atomic_load_n(&g_calls, __ATOMIC_RELAXED));
    FT_WARN("GPUFT_INJECT: the fault \"%.200s\" was never applied: %s", f->text, why);
  }
}

void ft_inject_report(ft_jw_t *w) {
  ft_jw_arr(w, "injections");
  for (int i = 0; i < g_n; i++) {
    const fault_t *f = &g_f[i];
    ft_jw_obj(w, NULL);
    int done = is_done(f);
    ft_jw_b(w, "applied", done);
    if (done) {
      ft_jw_u(w, "allocation", f->alloc_id);
      ft_jw_u(w, "size", f->alloc_size);
      ft_jw_u(w, "offset", f->at_offset);
      ft_jw_b(w, "protected", !f->unprotected); /* an unprotected hit: nothing can find it */
      ft_jw_s(w, "where", f->where);
      ft_jw_arr(w, "bits");
      for (int b = 0; b < f->nflipped; b++) ft_jw_i(w, NULL, f->flipped[b]);
      ft_jw_end(w);
    }
    ft_jw_end(w);
  }
  ft_jw_end(w);
}
