/* accesscheck.c: SIMCUDA_CHECK_ACCESS, a check of gpuft's PTX access analysis
 * that the analysis cannot talk its way out of. gpuft trusts a READ class: it
 * verifies such a buffer after the kernel and never re-encodes it, so a kernel
 * that wrote it anyway would leave a stale code behind. The interpreter knows
 * what each launch really stored, per allocation; this file compares that with
 * the classes ptx/ (the same analysis gpuft runs) gives the kernel's argument
 * places. It lives in the simulator: gpuft never depends on it.
 *   1: an allocation the launch stored into that only READ (or NONE) places point
 *      into is an analysis bug: reported on stderr, counted in
 *      analysis_violations. Places of other classes pointing into the same
 *      allocation explain the store (a buffer's class is the union over slots).
 *   2: self-test: every place is taken as READ, so every launch that stores
 *      through an argument must be reported; proves the check sees stores.
 * Both also check the places' byte ranges against where the loads and stores lay
 * (compare_ranges; in self-test mode every range is taken as empty).
 * With gpuft loaded, the check also covers what gpuft does with the facts: before
 * each launch it declares the protected allocations it treats as unwritten
 * (simcudaDeclareUnwritten); a store into one of them is a violation, whatever
 * the reason (a class, a kernel flag, a slot with no place, a pointer it did not
 * find). In self-test mode gpuft's declaration is taken as "every allocation". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "exec.h"

typedef struct {
  uint64_t base, stored;
  uint64_t ext[4]; /* load lo, hi, store lo, hi (lo >= hi: none) */
} acheck_alloc_t;

struct sim_acheck_s {
  pthread_mutex_t mu;
  acheck_alloc_t *a;
  size_t n, cap;
};

struct sim_acheck_s *sim_acheck_begin(const sim_launch_t *l) {
  if (!sim_ptxsrc_module(l->func->mod->src)) return NULL; /* a twin image: no PTX to check */
  struct sim_acheck_s *c = calloc(1, sizeof *c);
  if (!c) abort();
  pthread_mutex_init(&c->mu, NULL);
  return c;
}

void sim_acheck_access(struct sim_acheck_s *c, uint64_t base, uint64_t stored, const uint64_t ext[4]) {
  pthread_mutex_lock(&c->mu);
  size_t i = 0;
  while (i < c->n && c->a[i].base != base) i++;
  if (i == c->n) {
    if (c->n == c->cap) {
      c->cap = c->cap ? 2 * c->cap : 8;
      c->a = realloc(c->a, c->cap * sizeof *c->a);
      if (!c->a) abort();
    }
    c->a[c->n++] = (acheck_alloc_t){base, 0, {UINT64_MAX, 0, UINT64_MAX, 0}};
  }
  acheck_alloc_t *a = &c->a[i];
  a->stored += stored;
  for (int d = 0; d < 4; d += 2)
    if (ext[d] < ext[d + 1]) {
      if (ext[d] < a->ext[d]) a->ext[d] = ext[d];
      if (ext[d + 1] > a->ext[d + 1]) a->ext[d + 1] = ext[d + 1];
    }
  pthread_mutex_unlock(&c->mu);
}

/* The allocation an argument place points into (its base), or 0. */
static uint64_t place_alloc(const sim_launch_t *l, const ft_ptx_place_t *p) {
  uint64_t v;
  if ((size_t)p->offset + 8 > l->func->lay.param_bytes) return 0;
  memcpy(&v, l->args + p->offset, 8);
  sim_alloc_t a;
  return v && sim_mem_find(v, 0, &a) ? a.base : 0;
}

static bool is_read(const ft_ptx_place_t *p) {
  return sim_opt.check_access == 2 || p->access == FT_PTX_ACC_READ || p->access == FT_PTX_ACC_NONE;
}

static bool uses(const ft_ptx_place_t *p, unsigned dir) {
  return dir ? p->access == FT_PTX_ACC_WRITE || p->access == FT_PTX_ACC_READ_WRITE || p->access == FT_PTX_ACC_ESCAPES
             : p->access != FT_PTX_ACC_NONE && p->access != FT_PTX_ACC_WRITE;
}

/* The places' byte ranges (docs/ptx.md, "Ranges") against where the launch's loads
 * (dir 0) and stores (dir 1) really lay: per allocation, the first and the last
 * byte touched must each lie in the span [pointer + lo, pointer + hi) of some place
 * used in that direction. Checked only where the ranges are the whole story: the
 * kernel reaches memory only through its places, each bounded where it is used,
 * and only in allocations a place points into.
 * Self-test (SIMCUDA_CHECK_ACCESS=2): every range is taken as empty, so every
 * access checked is reported. */
#define MAX_SPANS 64
static void compare_ranges(const sim_launch_t *l, const struct sim_acheck_s *c, const ft_ptx_facts_t *f) {
  if (f->flags & (FT_PTX_K_REACHES_BEYOND | FT_PTX_K_GLOBAL_VAR)) return;
  const unsigned grid[3] = {l->grid.x, l->grid.y, l->grid.z}, block[3] = {l->block.x, l->block.y, l->block.z};
  size_t pb = l->func->lay.param_bytes;
  for (unsigned dir = 0; dir < 2; dir++) {
    uint64_t lo[MAX_SPANS], hi[MAX_SPANS];
    size_t ns = 0;
    bool ok = true;
    for (size_t i = 0; i < f->nplaces && ok; i++) {
      const ft_ptx_place_t *p = &f->places[i];
      if (!uses(p, dir)) continue;
      int64_t a, b;
      uint64_t v;
      ok = p->exact && p->access != FT_PTX_ACC_ESCAPES && (size_t)p->offset + 8 <= pb &&
           ft_ptx_place_range_eval(f, p, dir, l->args, pb, grid, block, &a, &b) == 0;
      if (!ok || a >= b || sim_opt.check_access == 2) continue;
      if (ns == MAX_SPANS) {
        ok = false;
        break;
      }
      memcpy(&v, l->args + p->offset, 8);
      lo[ns] = v + (uint64_t)a;
      hi[ns] = v + (uint64_t)b;
      ns++;
    }
    if (!ok) continue;
    for (size_t k = 0; k < c->n; k++) {
      uint64_t first = c->a[k].ext[2 * dir], last = c->a[k].ext[2 * dir + 1] - 1;
      if (c->a[k].ext[2 * dir] >= c->a[k].ext[2 * dir + 1]) continue;
      /* only allocations a place points into: others are module variables (a
       * printf's format string, read by the simulator's vprintf) */
      bool placed = false;
      for (size_t i = 0; i < f->nplaces && !placed; i++) placed = place_alloc(l, &f->places[i]) == c->a[k].base;
      if (!placed) continue;
      SIM_COUNT(range_checks, 1);
      bool in_first = false, in_last = false;
      for (size_t s = 0; s < ns; s++) {
        in_first |= first - lo[s] < hi[s] - lo[s];
        in_last |= last - lo[s] < hi[s] - lo[s];
      }
      if (in_first && in_last) continue;
      SIM_COUNT(range_violations, 1);
      sim_log("analysis bug: kernel %s %s bytes [0x%" PRIx64 ", 0x%" PRIx64 "] of the allocation at 0x%" PRIx64
              ", outside the %s ranges of its argument places (%zu spans)",
              l->func->lay.k->name, dir ? "stored" : "loaded", first, last, c->a[k].base,
              dir ? "write" : "read", ns);
    }
  }
}

/* Whether an argument place's allocation holds, after the launch, an 8-byte value
 * pointing into the allocation at base: a kernel that stores through pointers it
 * loads may have stored there through one of them (docs/ptx.md: accesses through
 * loaded pointers are the kernel flags' business, not the places'). */
#define HELD_SCAN_MAX (1u << 20)
static bool pointer_held(const sim_launch_t *l, const ft_ptx_facts_t *f, uint64_t base) {
  sim_alloc_t t;
  if (!sim_mem_find(base, 0, &t)) return false;
  for (size_t i = 0; i < f->nplaces; i++) {
    uint64_t b = place_alloc(l, &f->places[i]);
    sim_alloc_t a;
    if (!b || !sim_mem_find(b, 0, &a) || a.kind != SIM_MEM_DEVICE || a.size > HELD_SCAN_MAX) continue;
    const uint8_t *h = sim_mem_alias(a.base);
    for (size_t o = 0; o + 8 <= a.size; o += 4) {
      uint64_t v;
      memcpy(&v, h + o, 8);
      if (v >= t.base && v - t.base < t.size) return true;
    }
  }
  return false;
}

static void compare(const sim_launch_t *l, const struct sim_acheck_s *c) {
  const char *name = l->func->lay.k->name;
  const ft_ptx_module_t *mod = sim_ptxsrc_module(l->func->mod->src);
  const ft_ptx_function_t *entry = mod ? ft_ptx_find_function(mod, name) : NULL;
  ft_ptx_facts_t f;
  char err[160];
  if (!entry || ft_ptx_facts(mod, entry, &f, err, sizeof err) != 0) return;
  for (size_t i = 0; i < f.nplaces; i++)
    if (f.places[i].access == FT_PTX_ACC_READ && place_alloc(l, &f.places[i])) SIM_COUNT(analysis_places_checked, 1);
  for (size_t k = 0; k < c->n; k++) {
    if (!c->a[k].stored) continue;
    const ft_ptx_place_t *read = NULL;
    bool explained = false;
    for (size_t i = 0; i < f.nplaces && !explained; i++) {
      if (place_alloc(l, &f.places[i]) != c->a[k].base) continue;
      if (is_read(&f.places[i])) {
        if (!read) read = &f.places[i];
      } else {
        explained = true;
      }
    }
    if (!read || explained) continue; /* stored through no argument place, or a writer's */
    if ((f.flags & FT_PTX_K_LOADED_PTR) && sim_opt.check_access != 2 && pointer_held(l, &f, c->a[k].base))
      continue; /* maybe through a pointer it loaded */
    SIM_COUNT(analysis_violations, 1);
    sim_log("analysis bug: kernel %s stored %" PRIu64 " bytes into the allocation at 0x%" PRIx64
            " that only argument places classified %s point into (parameter %u, byte %u of it: %s%s)",
            name, c->a[k].stored, c->a[k].base, sim_opt.check_access == 2 ? "READ (self-test)" : "READ",
            read->param, read->field, ft_ptx_access_name(read->access), read->exact ? ", exact" : "");
  }
  compare_ranges(l, c, &f);
  ft_ptx_facts_free(&f);
}

struct sim_decl_s {
  uint64_t *bases;
  size_t n;
};
static __thread struct sim_decl_s *t_decl;

/* A declaration holding a copy of bases[0, n). */
static struct sim_decl_s *decl_new(const uint64_t *bases, size_t n) {
  struct sim_decl_s *d = calloc(1, sizeof *d);
  if (!d || (n && !(d->bases = malloc(n * sizeof *bases)))) abort();
  if (n) memcpy(d->bases, bases, n * sizeof *bases);
  d->n = n;
  return d;
}

__attribute__((visibility("default"))) int simcudaDeclareUnwritten(const uint64_t *bases, size_t n) {
  if (!sim_opt.check_access) return -1;
  sim_acheck_decl_free(t_decl);
  t_decl = decl_new(bases, n);
  return 0;
}

struct sim_decl_s *sim_acheck_take_declared(void) {
  struct sim_decl_s *d = t_decl;
  t_decl = NULL;
  return d;
}

void sim_acheck_decl_free(struct sim_decl_s *d) {
  if (!d) return;
  free(d->bases);
  free(d);
}

/* A graph launch: the declaration made before it holds for the whole graph, so
 * every kernel node the launch enqueues gets a copy; a conditional node keeps one
 * for the bodies it runs on the stream's worker (sim_acheck_graph_swap). */
static __thread struct sim_decl_s *t_graph_decl;
void sim_acheck_graph_begin(void) { t_graph_decl = sim_acheck_take_declared(); }
void sim_acheck_graph_end(void) {
  sim_acheck_decl_free(t_graph_decl);
  t_graph_decl = NULL;
}
struct sim_decl_s *sim_acheck_graph_swap(struct sim_decl_s *d) {
  struct sim_decl_s *was = t_graph_decl;
  t_graph_decl = d;
  return was;
}
struct sim_decl_s *sim_acheck_graph_declared(void) {
  const struct sim_decl_s *g = t_graph_decl;
  return g ? decl_new(g->bases, g->n) : NULL;
}

/* gpuft's own decision against what the launch stored. */
static void compare_declared(const sim_launch_t *l, const struct sim_acheck_s *c) {
  const struct sim_decl_s *d = l->declared;
  SIM_COUNT(shim_launches_checked, 1);
  for (size_t k = 0; k < c->n; k++) {
    if (!c->a[k].stored) continue;
    bool unwritten = sim_opt.check_access == 2;
    for (size_t i = 0; i < d->n && !unwritten; i++) unwritten = d->bases[i] == c->a[k].base;
    if (!unwritten) continue;
    SIM_COUNT(shim_violations, 1);
    sim_log("gpuft bug: kernel %s stored %" PRIu64 " bytes into the allocation at 0x%" PRIx64
            " that gpuft treated as not written by this launch%s",
            l->func->lay.k->name, c->a[k].stored, c->a[k].base,
            sim_opt.check_access == 2 ? " (self-test: every allocation taken so)" : "");
  }
}

void sim_acheck_end(sim_launch_t *l) {
  struct sim_acheck_s *c = l->acheck;
  l->acheck = NULL;
  compare(l, c);
  if (l->declared) compare_declared(l, c);
  pthread_mutex_destroy(&c->mu);
  free(c->a);
  free(c);
}
