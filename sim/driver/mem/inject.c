/* inject.c: fault injection: the SIMCUDA_FLIP / simcudaInject grammar (see
 * simcuda.h), firing faults at launches, copies and synchronisations, stuck bits
 * re-applied after every write, and simcudaFlipNow / simcudaClearFaults. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

typedef enum { EV_LAUNCH, EV_D2H, EV_H2D, EV_SYNC } evkind_t;
typedef enum { T_ARG, T_SRC, T_DST, T_ADDR } tkind_t;

typedef struct {
  evkind_t ev;
  char substr[128];
  uint64_t k;          /* fire at the k-th event after installation */
  uint64_t base;       /* event counter at installation (d2h/h2d/sync) */
  atomic_ullong seen;  /* launch: matching launches seen */
  tkind_t target;
  unsigned arg;
  uint64_t addr;
  int64_t offset;
  uint8_t mask;
  bool stuck;
  atomic_bool fired;
  char text[256];      /* the spec, for messages */
} fault_t;

typedef struct { uint64_t addr; uint8_t mask, value; } stuck_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static fault_t **faults;
static size_t n_faults;
static atomic_int n_pending;
static stuck_t *stucks;
static size_t n_stucks;
atomic_int sim_stuck_count;
static atomic_ullong count_d2h, count_h2d, count_sync;

/* ---- parsing ---- */
static bool parse_u64(const char *s, uint64_t *out) {
  if (!*s || *s == '-') return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return false;
  *out = v;
  return true;
}

static bool parse_i64(const char *s, int64_t *out) {
  if (!*s) return false;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 0);
  if (errno || *end) return false;
  *out = v;
  return true;
}

static int bad(const char *spec, const char *why) {
  fprintf(stderr, "simcuda: bad fault spec \"%s\": %s\n", spec, why);
  return -1;
}

/* One fault: "at=<event>,target=<target>,offset=<n>,bit=<b>[+<b>...][,stuck]", the
 * grammar of gpuft's GPUFT_INJECT (bit= names bits, 0..7 of the byte at offset here).
 * Older spellings, still accepted: before=<event>, arg=<i>|src|dst|addr=<a> for the
 * target, bits=<b>[+<b>...] for the bit numbers (bits= is a count in GPUFT_INJECT). */
static int parse_one(const char *spec, fault_t *f) {
  memset(f, 0, sizeof *f);
  snprintf(f->text, sizeof f->text, "%s", spec);
  char buf[512];
  if (strlen(spec) >= sizeof buf) return bad(spec, "too long");
  strcpy(buf, spec);
  bool have_ev = false, have_t = false, have_off = false, have_bits = false;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char alias[512];
    if (strncmp(tok, "at=", 3) == 0) { /* the shared grammar's key for the event */
      snprintf(alias, sizeof alias, "before=%s", tok + 3);
      tok = alias;
    } else if (strncmp(tok, "target=", 7) == 0) {
      /* target=arg:<i>|src|dst|addr:<a> -> the older arg=<i>|src|dst|addr=<a> */
      snprintf(alias, sizeof alias, "%s", tok + 7);
      char *colon = strchr(alias, ':');
      if (colon) *colon = '=';
      tok = alias;
    }
    if (strncmp(tok, "bits=", 5) == 0 && sim_opt.log)
      sim_log("SIMCUDA_FLIP: \"%s\": bits= naming bit numbers is the old spelling; write bit=%s "
              "(bits= is a count of bits in GPUFT_INJECT)", spec, tok + 5);
    if (strncmp(tok, "before=", 7) == 0) {
      if (have_ev) return bad(spec, "two events");
      char *e = tok + 7;
      char *last = strrchr(e, ':');
      if (!last) return bad(spec, "event needs :<k>");
      *last = 0;
      if (!parse_u64(last + 1, &f->k) || f->k == 0) return bad(spec, "k must be a number >= 1");
      if (strncmp(e, "launch:", 7) == 0) {
        f->ev = EV_LAUNCH;
        if (!e[7]) return bad(spec, "launch needs a kernel-name substring");
        if (strlen(e + 7) >= sizeof f->substr) return bad(spec, "kernel-name substring too long");
        strcpy(f->substr, e + 7);
      } else if (strcmp(e, "d2h") == 0) {
        f->ev = EV_D2H;
      } else if (strcmp(e, "h2d") == 0) {
        f->ev = EV_H2D;
      } else if (strcmp(e, "sync") == 0) {
        f->ev = EV_SYNC;
      } else {
        return bad(spec, "event must be launch:<name>:<k>, d2h:<k>, h2d:<k> or sync:<k>");
      }
      have_ev = true;
    } else if (strncmp(tok, "arg=", 4) == 0 || strcmp(tok, "src") == 0 || strcmp(tok, "dst") == 0 ||
               strncmp(tok, "addr=", 5) == 0) {
      if (have_t) return bad(spec, "two targets");
      uint64_t v = 0;
      if (tok[0] == 'a' && tok[1] == 'r') {
        if (!parse_u64(tok + 4, &v) || v > 4096) return bad(spec, "arg=<i> needs an argument index");
        f->target = T_ARG;
        f->arg = (unsigned)v;
      } else if (tok[0] == 'a') {
        if (!parse_u64(tok + 5, &v) || !v) return bad(spec, "addr=<device address> needs a number");
        f->target = T_ADDR;
        f->addr = v;
      } else {
        f->target = tok[0] == 's' ? T_SRC : T_DST;
      }
      have_t = true;
    } else if (strncmp(tok, "offset=", 7) == 0) {
      if (have_off || !parse_i64(tok + 7, &f->offset)) return bad(spec, "offset=<byte> needs a number");
      have_off = true;
    } else if (strncmp(tok, "bits=", 5) == 0 || strncmp(tok, "bit=", 4) == 0) {
      if (have_bits) return bad(spec, "two bit= fields");
      char *bsave = NULL;
      for (char *b = strtok_r(tok + (tok[3] == 's' ? 5 : 4), "+", &bsave); b; b = strtok_r(NULL, "+", &bsave)) {
        uint64_t bit;
        if (!parse_u64(b, &bit) || bit > 7) return bad(spec, "bits are 0..7 joined by +");
        if (f->mask & (1u << bit)) return bad(spec, "a bit is named twice");
        f->mask |= (uint8_t)(1u << bit);
      }
      if (!f->mask) return bad(spec, "bits= names no bit");
      have_bits = true;
    } else if (strcmp(tok, "stuck") == 0) {
      if (f->stuck) return bad(spec, "stuck given twice");
      f->stuck = true;
    } else {
      return bad(spec, "unknown field");
    }
  }
  if (!have_ev) return bad(spec, "missing before=<event>");
  if (!have_t) return bad(spec, "missing target (arg=<i>, src, dst or addr=<a>)");
  if (!have_off) return bad(spec, "missing offset=<byte>");
  if (!have_bits) return bad(spec, "missing bit=<b>");
  if (f->target == T_ARG && f->ev != EV_LAUNCH) return bad(spec, "arg=<i> only applies to launch events");
  if ((f->target == T_SRC || f->target == T_DST) && f->ev != EV_D2H && f->ev != EV_H2D)
    return bad(spec, "src/dst only apply to d2h/h2d events");
  return 0;
}

static void install(fault_t *f) {
  switch (f->ev) {
    case EV_D2H: f->base = atomic_load(&count_d2h); break;
    case EV_H2D: f->base = atomic_load(&count_h2d); break;
    case EV_SYNC: f->base = atomic_load(&count_sync); break;
    default: break;
  }
  pthread_mutex_lock(&mu);
  fault_t **nf = realloc(faults, (n_faults + 1) * sizeof *nf);
  if (!nf) abort();
  faults = nf;
  faults[n_faults++] = f;
  pthread_mutex_unlock(&mu);
  atomic_fetch_add(&n_pending, 1);
}

/* Parses a ';'-separated list. all_or_nothing: the API rejects the whole spec on
 * any error; the environment keeps the good faults and drops the bad ones. */
static int inject(const char *spec, bool all_or_nothing) {
  if (!spec) return bad("(null)", "no spec");
  char *copy = strdup(spec);
  if (!copy) return -1;
  fault_t **parsed = NULL;
  size_t n = 0;
  int rc = 0;
  char *save = NULL;
  for (char *one = strtok_r(copy, ";", &save); one; one = strtok_r(NULL, ";", &save)) {
    while (*one == ' ') one++;
    if (!*one) continue;
    fault_t *f = calloc(1, sizeof *f);
    if (!f) abort();
    if (parse_one(one, f) != 0) {
      free(f);
      rc = -1;
      if (all_or_nothing) break;
      continue;
    }
    fault_t **np = realloc(parsed, (n + 1) * sizeof *np);
    if (!np) abort();
    parsed = np;
    parsed[n++] = f;
  }
  if (n == 0 && rc == 0) rc = bad(spec, "no fault in spec");
  for (size_t i = 0; i < n; i++) {
    if (rc != 0 && all_or_nothing) free(parsed[i]);
    else install(parsed[i]);
  }
  free(parsed);
  free(copy);
  return rc;
}

void sim_inject_init(const char *env_spec) {
  if (env_spec && *env_spec && inject(env_spec, false) != 0)
    fprintf(stderr, "simcuda: SIMCUDA_FLIP: continuing without the malformed fault(s)\n");
}

int sim_inject_add(const char *spec) { return inject(spec, true); }

/* ---- applying ---- */
static void stuck_add(uint64_t addr, uint8_t mask, uint8_t value) {
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < n_stucks; i++) {
    if (stucks[i].addr == addr) {
      stucks[i].value = (uint8_t)((stucks[i].value & ~mask) | (value & mask));
      stucks[i].mask |= mask;
      pthread_mutex_unlock(&mu);
      return;
    }
  }
  stuck_t *ns = realloc(stucks, (n_stucks + 1) * sizeof *ns);
  if (!ns) abort();
  stucks = ns;
  stucks[n_stucks++] = (stuck_t){addr, mask, (uint8_t)(value & mask)};
  atomic_store(&sim_stuck_count, (int)n_stucks);
  pthread_mutex_unlock(&mu);
}

/* XORs mask into the byte at b, atomically; returns the old value. A flip models
 * a hardware upset: it may race with a kernel or copy on another stream reading or
 * writing the same byte (an injected flip "before launch N" lands while other
 * streams' kernels run), which is what the hardware would do. Inline assembly is
 * not instrumented, so the sanitizers do not report that race. */
static uint8_t xor_byte(uint8_t *b, uint8_t mask) {
  uint8_t old;
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("movb %1, %0" : "=q"(old) : "m"(*b));
  __asm__ __volatile__("lock xorb %1, %0" : "+m"(*b) : "q"(mask) : "memory");
#else
  old = __atomic_fetch_xor(b, mask, __ATOMIC_RELAXED);
#endif
  return old;
}

/* Flips mask in the device byte at addr (checked to be device memory). */
static void flip(uint64_t addr, uint8_t mask, bool stuck, const char *why) {
  uint8_t *b = sim_mem_alias(addr);
  uint8_t old = xor_byte(b, mask);
  uint8_t now = (uint8_t)(old ^ mask);
  SIM_COUNT(flips_applied, (uint64_t)__builtin_popcount(mask));
  if (stuck) stuck_add(addr, mask, now);
  if (sim_opt.log)
    sim_log("flip %s: addr=0x%llx mask=0x%02x 0x%02x->0x%02x%s", why, (unsigned long long)addr, mask, old, now,
            stuck ? " (stuck)" : "");
}

void sim_flip_spontaneous(uint64_t addr, uint8_t mask) {
  uint8_t *b = sim_mem_alias(addr);
  uint8_t old = xor_byte(b, mask);
  SIM_COUNT(flips_applied, (uint64_t)__builtin_popcount(mask));
  if (sim_opt.log)
    sim_log("flip rate: addr=0x%llx mask=0x%02x 0x%02x->0x%02x", (unsigned long long)addr, mask, old,
            (uint8_t)(old ^ mask));
}

static void fire(fault_t *f, uint64_t ptr, const char *what) {
  sim_alloc_t a;
  if (!ptr || !sim_mem_find(ptr, 0, &a) || a.kind != SIM_MEM_DEVICE) {
    sim_log("fault \"%s\" dropped: %s is not device memory", f->text, what);
    return;
  }
  uint64_t addr = ptr + (uint64_t)f->offset;
  if ((f->offset < 0 && (uint64_t)-f->offset > ptr - a.base) || addr < a.base || addr >= a.base + a.size) {
    sim_log("fault \"%s\" dropped: offset %lld leaves the allocation", f->text, (long long)f->offset);
    return;
  }
  flip(addr, f->mask, f->stuck, f->text);
}

/* Claims the fault once; returns false if it fired already. */
static bool claim(fault_t *f) {
  bool expect = false;
  if (!atomic_compare_exchange_strong(&f->fired, &expect, true)) return false;
  atomic_fetch_sub(&n_pending, 1);
  return true;
}

/* Snapshot of the fault list (faults are never freed while installed... except by
 * simcudaClearFaults, which callers must not race with running work). */
static size_t snapshot(fault_t ***out) {
  pthread_mutex_lock(&mu);
  size_t n = n_faults;
  fault_t **copy = n ? malloc(n * sizeof *copy) : NULL;
  if (n && !copy) abort();
  if (n) memcpy(copy, faults, n * sizeof *copy);
  pthread_mutex_unlock(&mu);
  *out = copy;
  return n;
}

void sim_inject_on_launch(const simcuda_kernel_t *k, const size_t *offsets, const uint8_t *args) {
  if (!atomic_load(&n_pending)) return;
  fault_t **fs;
  size_t n = snapshot(&fs);
  for (size_t i = 0; i < n; i++) {
    fault_t *f = fs[i];
    if (f->ev != EV_LAUNCH || atomic_load(&f->fired) || !strstr(k->name, f->substr)) continue;
    if (atomic_fetch_add(&f->seen, 1) + 1 != f->k || !claim(f)) continue;
    if (f->target == T_ADDR) {
      fire(f, f->addr, "addr");
    } else if (f->arg >= k->n_params || k->param_size[f->arg] != 8) {
      sim_log("fault \"%s\" dropped: argument %u of %s is not a pointer", f->text, f->arg, k->name);
    } else {
      uint64_t v;
      memcpy(&v, args + offsets[f->arg], 8);
      fire(f, v, "the argument");
    }
  }
  free(fs);
}

static void on_counted(evkind_t ev, uint64_t count, uint64_t src, uint64_t dst) {
  fault_t **fs;
  size_t n = snapshot(&fs);
  for (size_t i = 0; i < n; i++) {
    fault_t *f = fs[i];
    if (f->ev != ev || atomic_load(&f->fired) || count != f->base + f->k || !claim(f)) continue;
    if (f->target == T_ADDR) fire(f, f->addr, "addr");
    else if (f->target == T_SRC) fire(f, src, "the copy source");
    else fire(f, dst, "the copy destination");
  }
  free(fs);
}

void sim_inject_on_copy(const sim_copy_t *c) {
  atomic_ullong *ctr = c->dir == SIM_DIR_H2D ? &count_h2d : &count_d2h;
  uint64_t k = atomic_fetch_add(ctr, 1) + 1;
  if (atomic_load(&n_pending)) on_counted(c->dir == SIM_DIR_H2D ? EV_H2D : EV_D2H, k, c->src_dev, c->dst_dev);
}

void sim_inject_on_sync(void) {
  uint64_t k = atomic_fetch_add(&count_sync, 1) + 1;
  if (atomic_load(&n_pending)) on_counted(EV_SYNC, k, 0, 0);
}

/* ---- stuck bits ---- */
static void stuck_one(const stuck_t *s) {
  uint8_t *b = sim_mem_alias(s->addr);
  uint8_t v = __atomic_load_n(b, __ATOMIC_RELAXED);
  __atomic_store_n(b, (uint8_t)((v & ~s->mask) | s->value), __ATOMIC_RELAXED);
}

void sim_stuck_apply(uint64_t lo, uint64_t hi) {
  if (!atomic_load(&sim_stuck_count)) return;
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < n_stucks; i++)
    if (stucks[i].addr >= lo && stucks[i].addr < hi) stuck_one(&stucks[i]);
  pthread_mutex_unlock(&mu);
}

void sim_stuck_apply_all(void) {
  if (!atomic_load(&sim_stuck_count)) return;
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < n_stucks; i++) stuck_one(&stucks[i]);
  pthread_mutex_unlock(&mu);
}

/* Freed memory: a stuck cell of a released allocation is forgotten (the simulator
 * does not map physical cells to later allocations). */
/* Device memory released: its stuck bits go with it (mem.c calls back). */
__attribute__((constructor)) static void forget_on_release(void) { sim_mem_on_release(sim_stuck_forget); }

void sim_stuck_forget(uint64_t lo, uint64_t hi) {
  if (!atomic_load(&sim_stuck_count)) return;
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < n_stucks;) {
    if (stucks[i].addr >= lo && stucks[i].addr < hi) stucks[i] = stucks[--n_stucks];
    else i++;
  }
  atomic_store(&sim_stuck_count, (int)n_stucks);
  pthread_mutex_unlock(&mu);
}

__attribute__((visibility("default"))) int simcudaFlipNow(uint64_t dev_addr, unsigned bit, int stuck) {
  if (!atomic_load(&sim_initialized) || bit > 7) return -1;
  sim_alloc_t a;
  if (!sim_mem_find(dev_addr, 1, &a) || a.kind != SIM_MEM_DEVICE || a.freeing) return -1;
  flip(dev_addr, (uint8_t)(1u << bit), stuck != 0, "simcudaFlipNow");
  return 0;
}

__attribute__((visibility("default"))) void simcudaClearFaults(void) {
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < n_faults; i++) {
    if (!atomic_load(&faults[i]->fired)) atomic_fetch_sub(&n_pending, 1);
    free(faults[i]);
  }
  free(faults);
  faults = NULL;
  n_faults = 0;
  free(stucks);
  stucks = NULL;
  n_stucks = 0;
  atomic_store(&sim_stuck_count, 0);
  pthread_mutex_unlock(&mu);
}
