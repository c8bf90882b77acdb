/* inject.c: GPUFT_INJECT, fault injection into real device memory (works on a GPU
 * as on the simulator): at a chosen event the stream is drained (the data is at
 * rest), the 128-byte block is read back, bits are flipped and it is written
 * again through the real driver — gpuft's engine does not see it, as it would not
 * see a real upset. Grammar (docs/campaign.md), faults separated by ';':
 *   at=launch:<kernel-substring>:<k> | d2h:<k> | call:<n>
 *   target=arg:<i> | src | random        (random: any tracked allocation, by size)
 *   bits=1 | 2 | burst:<k>               how many bits (2: two bits of one 128-byte block)
 *   bit=<b>[+<b>...]                     which bits, counted from the byte at offset
 *   seed=<s>  offset=<byte>              (what is not given is drawn from the seed)
 * The simulator's SIMCUDA_FLIP takes the same keys (sim/driver/mem/inject.c). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "inject.h"

enum { AT_LAUNCH, AT_D2H, AT_CALL };
enum { TG_ARG, TG_SRC, TG_RANDOM };

typedef struct {
  int at, target, arg, nbits, burst;
  int field; /* target=arg:<i>.<byte>: the pointer at that byte of argument i, or -1 */
  char kernel[128];
  uint64_t k, seen, seed;
  int64_t offset, bit; /* -1: drawn */
  int bitlist[16], nbitlist; /* bit=<b>+<b>...: exactly these bits */
  int claimed; /* a thread is applying it (g_mu) */
  int done;    /* applied: read without g_mu, so atomically (set once) */
  /* what happened */
  uint64_t alloc_id, alloc_size, at_offset;
  int flipped[64], nflipped;
  char where[160];
} fault_t;

#define MAX_FAULTS 8
static fault_t g_f[MAX_FAULTS];
static int g_n;
static uint64_t g_calls;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mix(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int parse_one(char *spec, fault_t *f) {
  memset(f, 0, sizeof *f);
  f->nbits = 1;
  f->offset = f->bit = -1;
  f->target = TG_RANDOM;
  f->at = -1;
  f->seed = 1;
  for (char *save = NULL, *kv = strtok_r(spec, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *v = strchr(kv, '=');
    if (!v) return -1;
    *v++ = 0;
    char *end;
    if (!strcmp(kv, "at")) {
      if (!strncmp(v, "launch:", 7)) {
        char *colon = strrchr(v + 7, ':');
        if (!colon || colon == v + 7 || (size_t)(colon - (v + 7)) >= sizeof f->kernel) return -1;
        memcpy(f->kernel, v + 7, (size_t)(colon - (v + 7)));
        f->k = strtoull(colon + 1, &end, 10);
        if (*end || !f->k) return -1;
        f->at = AT_LAUNCH;
      } else if (!strncmp(v, "d2h:", 4) || !strncmp(v, "call:", 5)) {
        f->at = v[0] == 'd' ? AT_D2H : AT_CALL;
        f->k = strtoull(strchr(v, ':') + 1, &end, 10);
        if (*end || !f->k) return -1;
      } else {
        return -1;
      }
    } else if (!strcmp(kv, "target")) {
      if (!strncmp(v, "arg:", 4)) {
        f->target = TG_ARG;
        f->arg = (int)strtol(v + 4, &end, 10);
        f->field = -1;
        if (*end == '.') { /* a pointer inside a by-value struct or array argument */
          f->field = (int)strtol(end + 1, &end, 10);
          if (f->field < 0 || f->field > 4096 - 8) return -1;
        }
        if (*end || f->arg < 0 || f->arg >= 128) return -1;
      } else if (!strcmp(v, "src")) {
        f->target = TG_SRC;
      } else if (!strcmp(v, "random")) {
        f->target = TG_RANDOM;
      } else {
        return -1;
      }
    } else if (!strcmp(kv, "bits")) {
      if (!strncmp(v, "burst:", 6)) {
        f->burst = 1;
        f->nbits = (int)strtol(v + 6, &end, 10);
        if (*end || f->nbits < 1 || f->nbits > 64) return -1;
      } else {
        f->nbits = (int)strtol(v, &end, 10);
        if (*end || (f->nbits != 1 && f->nbits != 2)) return -1;
      }
    } else if (!strcmp(kv, "seed")) {
      f->seed = strtoull(v, &end, 10);
      if (*end) return -1;
    } else if (!strcmp(kv, "offset")) {
      f->offset = (int64_t)strtoull(v, &end, 10);
      if (*end) return -1;
    } else if (!strcmp(kv, "bit")) {
      for (char *bsave = NULL, *b = strtok_r(v, "+", &bsave); b; b = strtok_r(NULL, "+", &bsave)) {
        long x = strtol(b, &end, 10);
        if (*end || x < 0 || x > 1023 || f->nbitlist == 16) return -1;
        f->bitlist[f->nbitlist++] = (int)x;
      }
      if (!f->nbitlist) return -1;
      f->bit = f->bitlist[0];
    } else {
      return -1;
    }
  }
  if (f->at < 0) return -1;
  if (f->target == TG_ARG && f->at != AT_LAUNCH) return -1;
  if (f->target == TG_SRC && f->at != AT_D2H) return -1;
  return 0;
}

void ft_inject_init(void) {
  const char *s = FT_OPT_S(INJECT);
  if (!s || !s[0]) return;
  char *copy = strdup(s);
  if (!copy) return;
  char *save = NULL;
  for (char *one = strtok_r(copy, ";", &save); one; one = strtok_r(NULL, ";", &save)) {
    if (g_n == MAX_FAULTS) break;
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", one);
    if (parse_one(tmp, &g_f[g_n]) != 0) {
      FT_WARN("GPUFT_INJECT: cannot understand \"%.200s\" (see docs/campaign.md): ignored", one);
      continue;
    }
    g_n++;
  }
  free(copy);
}

int ft_inject_active(void) { return g_n > 0; }

/* Flip the fault's bits in [base, base+size) of device memory, at rest on stream s. */
static void apply(fault_t *f, CUdeviceptr base, size_t size, uint64_t id, CUstream s,
                  const char *where) {
  uint64_t seed = f->seed;
  uint64_t off = f->offset >= 0 ? (uint64_t)f->offset : mix(&seed) % size;
  if (off >= size) off = size - 1;
  /* the 128-byte block holding off (clipped to the allocation) */
  uint64_t b0 = ft_block_start_of(off);
  size_t blen = size - b0 < FT_BLOCK_BYTES ? size - b0 : FT_BLOCK_BYTES;
  uint8_t blk[FT_BLOCK_BYTES];
  if (ft_real.cuStreamSynchronize(s) != CUDA_SUCCESS ||
      ft_real.cuMemcpyDtoH_v2(blk, base + b0, blen) != CUDA_SUCCESS)
    return;
  unsigned nbits = (unsigned)blen * 8, first = (unsigned)((off - b0) * 8);
  if (f->bit >= 0) first = (unsigned)((off - b0) * 8 + (unsigned)f->bit % 8);
  else first += (unsigned)(mix(&seed) % 8);
  f->nflipped = 0;
  if (f->nbitlist > 1) /* exactly the bits named, counted from the byte at off */
    for (int i = 0; i < f->nbitlist; i++) {
      unsigned b = (unsigned)(((off - b0) * 8 + (unsigned)f->bitlist[i]) % nbits);
      blk[b / 8] ^= (uint8_t)(1u << (b % 8));
      f->flipped[f->nflipped++] = (int)(b0 * 8 + b);
    }
  for (int i = 0; f->nbitlist <= 1 && i < f->nbits && f->nflipped < 64; i++) {
    unsigned b;
    if (f->burst) b = (first + (unsigned)i) % nbits;          /* adjacent bits */
    else if (i == 0) b = first;
    else do b = (unsigned)(mix(&seed) % nbits); while (b == (unsigned)f->flipped[0]);
    blk[b / 8] ^= (uint8_t)(1u << (b % 8));
    f->flipped[f->nflipped++] = (int)(b0 * 8 + b);
  }
  if (ft_real.cuMemcpyHtoD_v2(base + b0, blk, blen) != CUDA_SUCCESS) return;
  f->alloc_id = id;
  f->alloc_size = size;
  f->at_offset = off;
  snprintf(f->where, sizeof f->where, "%s", where);
  __atomic_store_n(&f->done, 1, __ATOMIC_RELEASE); /* publishes the fields above */
  FT_INFO("GPUFT_INJECT: flipped %d bit(s) of allocation #%ju at byte %ju (%s)", f->nflipped,
          (uintmax_t)id, (uintmax_t)off, where);
}

/* Inject into the tracked allocation containing device address p, if any. */
static void inject_at(fault_t *f, CUdeviceptr p, CUstream s, const char *where) {
  ft_lock();
  ft_alloc_t *a = ft_reg_find(p);
  CUdeviceptr base = a ? a->base : 0;
  size_t size = a ? a->size : 0;
  uint64_t id = a ? a->id : 0;
  ft_unlock();
  if (size) apply(f, base, size, id, s, where);
}

/* A tracked allocation chosen with probability proportional to its size. */
static ft_alloc_t *random_alloc(uint64_t *seed) {
  uint64_t total = 0;
  for (size_t i = 0; i < ft_reg_count(); i++) total += ft_reg_at(i)->size;
  if (!total) return NULL;
  uint64_t pick = mix(seed) % total;
  for (size_t i = 0; i < ft_reg_count(); i++) {
    ft_alloc_t *a = ft_reg_at(i);
    if (pick < a->size) return a;
    pick -= a->size;
  }
  return NULL;
}

static void inject_random(fault_t *f, CUstream s, const char *where) {
  ft_lock();
  uint64_t seed = f->seed ^ 0x5851f42d4c957f2dull;
  ft_alloc_t *a = random_alloc(&seed);
  CUdeviceptr base = a ? a->base : 0;
  ft_unlock();
  if (base) inject_at(f, base, s, where);
}

static int is_done(const fault_t *f) { return __atomic_load_n(&f->done, __ATOMIC_ACQUIRE); }

/* The fault is taken by one thread under g_mu, then applied without the lock:
 * applying drains a stream, and no gpuft lock is held across a blocking call. */
static int claim(fault_t *f, int count) {
  pthread_mutex_lock(&g_mu);
  int mine = !f->claimed && (!count || ++f->seen == f->k);
  if (mine) f->claimed = 1;
  pthread_mutex_unlock(&g_mu);
  return mine;
}

void ft_inject_call(void) {
  if (!g_n) return;
  uint64_t n = __atomic_add_fetch(&g_calls, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < g_n; i++) {
    fault_t *f = &g_f[i];
    if (f->at != AT_CALL || is_done(f) || n != f->k) continue;
    if (claim(f, 0)) inject_random(f, CU_STREAM_LEGACY, "at a driver call");
  }
}

void ft_inject_launch(const char *kernel, const uint8_t *params, size_t len,
                      const uint32_t *param_off, const uint32_t *param_size, int nparams,
                      CUstream s) {
  if (!g_n) return;
  for (int i = 0; i < g_n; i++) {
    fault_t *f = &g_f[i];
    if (f->at != AT_LAUNCH || is_done(f) || !kernel || !strstr(kernel, f->kernel)) continue;
    if (claim(f, 1)) {
      char where[160];
      snprintf(where, sizeof where, "before launch %ju of %.100s", (uintmax_t)f->k, kernel);
      if (f->target == TG_ARG) {
        size_t at = f->field < 0 ? 0 : (size_t)f->field;
        if (f->arg < nparams && (f->field < 0 ? param_size[f->arg] == 8 : at + 8 <= param_size[f->arg]) &&
            param_off[f->arg] + at + 8 <= len) {
          uint64_t v;
          memcpy(&v, params + param_off[f->arg] + at, 8);
          inject_at(f, (CUdeviceptr)v, s, where);
        }
      } else {
        inject_random(f, s, where);
      }
    }
  }
}

void ft_inject_d2h(CUdeviceptr src, CUstream s) {
  if (!g_n) return;
  for (int i = 0; i < g_n; i++) {
    fault_t *f = &g_f[i];
    if (f->at != AT_D2H || is_done(f)) continue;
    if (claim(f, 1)) {
      char where[64];
      snprintf(where, sizeof where, "before device-to-host copy %ju", (uintmax_t)f->k);
      if (f->target == TG_SRC) {
        inject_at(f, src, s, where);
      } else {
        inject_random(f, s, where);
      }
    }
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
      ft_jw_s(w, "where", f->where);
      ft_jw_arr(w, "bits");
      for (int b = 0; b < f->nflipped; b++) ft_jw_i(w, NULL, f->flipped[b]);
      ft_jw_end(w);
    }
    ft_jw_end(w);
  }
  ft_jw_end(w);
}
