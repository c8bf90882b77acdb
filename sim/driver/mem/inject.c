/* inject.c: fault injection: the SIMCUDA_FLIP / simcudaInject grammar (see
 * simcuda.h), firing faults at launches, copies and synchronisations (drawn faults
 * placed as GPUFT_INJECT places them, common/faultspec.c), stuck bits re-applied
 * after every write, the copies a tool declares the program's (simcudaProgramCopy),
 * and simcudaFlipNow / simcudaClearFaults. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faultspec.h"
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
  bool drawn;                     /* placed by ftc_fault_place (a model, or offset/bits drawn) */
  ftc_fault_t spec;               /* drawn: the fault as parsed */
  int nbytes;                     /* exact (offset= and bit=): the bytes the bits fall in: */
  int64_t delta[FTC_MAX_BITS];    /* from offset */
  uint8_t mask[FTC_MAX_BITS];     /* the bits flipped in each */
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
/* d2h copies a tool on top declared the program's, from the start (simcudaProgramCopy) */
static atomic_ullong count_d2h_declared;
static atomic_bool tool_declares;

/* ---- parsing: the shared grammar (common/faultspec.c), then what the simulator does ---- */
static int bad(const char *spec, const char *why) {
  fprintf(stderr, "simcuda: bad fault spec \"%s\": %s\n", spec, why);
  return -1;
}

/* One fault: "at=<event>,target=<target>,offset=<n>,bit=<b>[+<b>...][,stuck]", the
 * grammar of gpuft's GPUFT_INJECT; bit b is bit b%8 of the byte at offset + b/8. A
 * fault without offset= or bit=, or with a model (bits=2, burst:<k>, byte, word,
 * sector, zero), is drawn from seed= in the bytes from the target's pointer, the same
 * way as GPUFT_INJECT. The older spelling "before=<event>,arg=<i>|src|dst|addr=<a>,
 * bits=<b>[+<b>...]" (bit numbers 0..7) is still read (faultspec.h). */
static int parse_one(const char *spec, fault_t *f) {
  memset(f, 0, sizeof *f);
  snprintf(f->text, sizeof f->text, "%s", spec);
  ftc_fault_t s;
  char err[320], why[600];
  if (ftc_fault_parse(spec, &s, err, sizeof err) != 0) {
    snprintf(why, sizeof why, "%s (grammar: " FTC_FAULT_GRAMMAR ")", err);
    return bad(spec, why);
  }
  if (s.old_spelling && sim_opt.log)
    sim_log("SIMCUDA_FLIP: \"%s\": the old spelling (before=, arg=, bits= naming bits); the same "
            "fault is at=<event>,target=arg:<i>|src|dst|addr:<a>,offset=<byte>,bit=<b>[+<b>...]", spec);
  static const evkind_t ev_of[] = {[FTC_AT_LAUNCH] = EV_LAUNCH, [FTC_AT_D2H] = EV_D2H,
                                   [FTC_AT_H2D] = EV_H2D, [FTC_AT_SYNC] = EV_SYNC};
  if (s.at == FTC_AT_CALL)
    return bad(spec, "at=call:<n>: the simulator fires at launch, d2h, h2d or sync events (call is GPUFT_INJECT's)");
  if (s.target == FTC_TG_NONE) return bad(spec, "no target= (arg:<i>, src, dst or addr:<a>)");
  if (s.target == FTC_TG_RANDOM) return bad(spec, "target=random: the simulator aims at arg:<i>, src, dst or addr:<a>");
  if (s.field >= 0) return bad(spec, "target=arg:<i>.<byte>: the simulator aims at pointer arguments (GPUFT_INJECT reaches fields)");
  if (s.old_spelling && (!s.have_offset || !s.nbit))
    return bad(spec, "the older spelling (before=) names the byte and the bits: offset=<byte>,bits=<b>[+<b>...]");
  if (s.have_offset && s.offset < 0 && !(s.nbit && !s.model))
    return bad(spec, "offset=<byte> below the pointer: only with bit= (a drawn fault lands from the pointer on)");
  /* offset= and bit= alone: exactly those bits; otherwise what is not given is drawn
   * from seed= as GPUFT_INJECT draws it (ftc_fault_place) */
  f->drawn = !s.have_offset || !s.nbit || s.model || (s.have_nbits && (s.burst || s.nbits != s.nbit));
  f->spec = s;
  f->ev = ev_of[s.at];
  snprintf(f->substr, sizeof f->substr, "%s", s.kernel);
  f->k = s.k;
  f->target = s.target == FTC_TG_ARG ? T_ARG : s.target == FTC_TG_SRC ? T_SRC : s.target == FTC_TG_DST ? T_DST : T_ADDR;
  f->arg = (unsigned)s.arg;
  f->addr = s.addr;
  f->offset = s.offset;
  f->stuck = s.stuck;
  for (int i = 0; i < s.nbit; i++) { /* group the bits by byte */
    int64_t d = s.bit[i] / 8;
    int j = 0;
    while (j < f->nbytes && f->delta[j] != d) j++;
    if (j == f->nbytes) f->delta[f->nbytes++] = d;
    f->mask[j] |= (uint8_t)(1u << (s.bit[i] % 8));
  }
  return 0;
}

static void install(fault_t *f) {
  switch (f->ev) {
    case EV_D2H: f->base = atomic_load(atomic_load(&tool_declares) ? &count_d2h_declared : &count_d2h); break;
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

void sim_flip_spontaneous(uint64_t addr, uint8_t mask) {
  uint8_t *b = sim_mem_alias(addr);
  uint8_t old = xor_byte(b, mask);
  SIM_COUNT(flips_applied, (uint64_t)__builtin_popcount(mask));
  if (sim_opt.log)
    sim_log("flip rate: addr=0x%llx mask=0x%02x 0x%02x->0x%02x", (unsigned long long)addr, mask, old,
            (uint8_t)(old ^ mask));
}

/* ANDs keep into the byte at b, atomically, hidden from the sanitizers as xor_byte
 * is (a zeroed block races with the kernels as a real upset would); returns the old value. */
static uint8_t and_byte(uint8_t *b, uint8_t keep) {
  uint8_t old;
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("movb %1, %0" : "=q"(old) : "m"(*b));
  __asm__ __volatile__("lock andb %1, %0" : "+m"(*b) : "q"(keep) : "memory");
#else
  old = __atomic_fetch_and(b, keep, __ATOMIC_RELAXED);
#endif
  return old;
}

/* Changes the bits of mask in the device byte at addr (checked to be device
 * memory): flips them, or (zero) sets them to 0, as a zeroed block does. */
static void strike(uint64_t addr, uint8_t mask, bool zero, bool stuck, const char *why) {
  uint8_t *b = sim_mem_alias(addr);
  uint8_t old = zero ? and_byte(b, (uint8_t)~mask) : xor_byte(b, mask);
  uint8_t now = zero ? (uint8_t)(old & ~mask) : (uint8_t)(old ^ mask);
  SIM_COUNT(flips_applied, (uint64_t)__builtin_popcount(zero ? old & mask : mask));
  if (stuck) stuck_add(addr, mask, now);
  if (sim_opt.log)
    sim_log("flip %s: addr=0x%llx mask=0x%02x 0x%02x->0x%02x%s%s", why, (unsigned long long)addr, mask, old,
            now, zero ? " (zeroed)" : "", stuck ? " (stuck)" : "");
}

/* A drawn fault: placed in [ptr, ptr+len) (len 0: to the allocation's end). */
static void fire_drawn(fault_t *f, uint64_t ptr, uint64_t len, const sim_alloc_t *a) {
  uint64_t end = a->base + a->size, wlen = len && len < end - ptr ? len : end - ptr, at;
  ftc_hit_t hits[FTC_MAX_HITS];
  int nh = ftc_fault_place(&f->spec, ptr, wlen, &at, hits);
  for (int i = 0; i < nh; i++) {
    strike(ptr + hits[i].byte, hits[i].mask, f->spec.model == FTC_MODEL_ZERO, f->stuck, f->text);
  }
}

/* len: the bytes a copy reads or writes from ptr (0: the rest of the allocation). */
static void fire(fault_t *f, uint64_t ptr, uint64_t len, const char *what) {
  sim_alloc_t a;
  if (!ptr || !sim_mem_find(ptr, 0, &a) || a.kind != SIM_MEM_DEVICE) {
    sim_log("fault \"%s\" dropped: %s is not device memory", f->text, what);
    return;
  }
  if (f->drawn) {
    fire_drawn(f, ptr, len, &a);
    return;
  }
  for (int i = 0; i < f->nbytes; i++) { /* all in the allocation, or none flipped */
    int64_t off = f->offset + f->delta[i];
    uint64_t addr = ptr + (uint64_t)off;
    if ((off < 0 && (uint64_t)-off > ptr - a.base) || addr < a.base || addr >= a.base + a.size) {
      sim_log("fault \"%s\" dropped: offset %lld leaves the allocation", f->text, (long long)off);
      return;
    }
  }
  for (int i = 0; i < f->nbytes; i++)
    strike(ptr + (uint64_t)(f->offset + f->delta[i]), f->mask[i], false, f->stuck, f->text);
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
      fire(f, f->addr, 0, "addr");
    } else if (f->arg >= k->n_params || k->param_size[f->arg] != 8) {
      sim_log("fault \"%s\" dropped: argument %u of %s is not a pointer", f->text, f->arg, k->name);
    } else {
      uint64_t v;
      memcpy(&v, args + offsets[f->arg], 8);
      fire(f, v, 0, "the argument");
    }
  }
  free(fs);
}

/* The bytes from the first to the last that copy c writes (dst) or reads. */
static uint64_t copy_span(const sim_copy_t *c, bool dst) {
  return (c->depth - 1) * (dst ? c->dslice : c->sslice) + (c->height - 1) * (dst ? c->dpitch : c->spitch) +
         c->width;
}

/* c: the copy of the event (NULL: a synchronisation). */
static void on_counted(evkind_t ev, uint64_t count, const sim_copy_t *c) {
  fault_t **fs;
  size_t n = snapshot(&fs);
  for (size_t i = 0; i < n; i++) {
    fault_t *f = fs[i];
    if (f->ev != ev || atomic_load(&f->fired) || count != f->base + f->k || !claim(f)) continue;
    /* a drawn fault lands in the bytes the copy reads (writes): the program's data */
    if (f->target == T_ADDR) fire(f, f->addr, 0, "addr");
    else if (f->target == T_SRC) fire(f, c ? c->src_dev : 0, c ? copy_span(c, false) : 0, "the copy source");
    else fire(f, c ? c->dst_dev : 0, c ? copy_span(c, true) : 0, "the copy destination");
  }
  free(fs);
}

/* A tool on top (gpuft) says which device-to-host copies are the program's: once it
 * has, its own copies (which vary from run to run) are not d2h events, and d2h:<k>
 * is the k-th declared copy since the start (the tool's copies before its first
 * declaration included nothing). */
static __thread bool tls_program_copy;

__attribute__((visibility("default"))) void simcudaProgramCopy(int next) {
  atomic_store(&tool_declares, true);
  if (next) tls_program_copy = true;
}

bool sim_inject_take_program_copy(void) {
  bool was = tls_program_copy;
  tls_program_copy = false;
  return was;
}

void sim_inject_on_copy(const sim_copy_t *c) {
  atomic_ullong *ctr = c->dir == SIM_DIR_H2D ? &count_h2d : &count_d2h;
  uint64_t k = atomic_fetch_add(ctr, 1) + 1;
  if (c->dir == SIM_DIR_D2H && c->program) k = atomic_fetch_add(&count_d2h_declared, 1) + 1;
  else if (c->dir == SIM_DIR_D2H && atomic_load(&tool_declares)) return;
  if (atomic_load(&n_pending)) on_counted(c->dir == SIM_DIR_H2D ? EV_H2D : EV_D2H, k, c);
}

void sim_inject_on_sync(void) {
  uint64_t k = atomic_fetch_add(&count_sync, 1) + 1;
  if (atomic_load(&n_pending)) on_counted(EV_SYNC, k, NULL);
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
  strike(dev_addr, (uint8_t)(1u << bit), false, stuck != 0, "simcudaFlipNow");
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
