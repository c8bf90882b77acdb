/* regalloc.c: register reuse after lowering: PTX registers whose values are never
 * live at the same time share one slot, so that a warp's register file (a slot is
 * 32 lanes x 8 bytes) stays small enough for the host's caches. */
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "lower.h"

/* Above this many registers the interference matrix (n^2 bits) costs more than
 * reuse gains: such kernels keep one slot per register. */
#define MAX_VREGS 8192u

typedef struct {
  uint32_t nv, words;   /* variable registers (renumbered), 64-bit words per set */
  uint64_t *inter;      /* nv x words: interference */
  uint64_t *entry;      /* live at the kernel's start: read before any write on some path */
} ra_t;

static inline void set_bit(uint64_t *s, uint32_t i) { s[i >> 6] |= 1ull << (i & 63); }
static inline void clear_bit(uint64_t *s, uint32_t i) { s[i >> 6] &= ~(1ull << (i & 63)); }

/* The variable registers an instruction reads (guard included) and writes. Every
 * register operand is in d[0..nd) and a[0..na) (the external calls' a[] hold
 * local offsets, with na 0); constants, special registers and the sink are not
 * variables (>= nv). */
static unsigned uses_of(const sim_insn_t *in, uint32_t nv, uint32_t *u) {
  unsigned n = 0;
  if (in->guard >= 0 && (uint32_t)in->guard < nv) u[n++] = (uint32_t)in->guard;
  if (in->kind == SIM_K_EXEC || in->kind == SIM_K_BAR)
    for (unsigned k = 0; k < in->na && k < 5; k++)
      if (in->a[k] < nv) u[n++] = in->a[k];
  return n;
}
static unsigned defs_of(const sim_insn_t *in, uint32_t nv, uint32_t *d) {
  unsigned n = 0;
  if (in->kind == SIM_K_EXEC || in->kind == SIM_K_BAR)
    for (unsigned k = 0; k < in->nd && k < 4; k++)
      if (in->d[k] < nv) d[n++] = in->d[k];
  return n;
}
/* A write that certainly replaces the value for every lane that runs the
 * instruction: unguarded and executed in place (bar.red writes at the release). */
static bool kills(const sim_insn_t *in) { return in->guard < 0 && in->kind == SIM_K_EXEC; }

/* Can every register operand of the program be found (uses_of/defs_of), and is
 * each lane's register read only by that lane or by lanes at the same instruction?
 * Not for real calls (a frame saves a range of registers), the matrix
 * instructions (registers in xregs, whole-warp reads interleaved with writes) and
 * the surface loads, stores and reductions (registers in xregs). */
static bool eligible(const sim_kprog_t *p) {
  if (p->n_bodies || p->n_calls || p->const_base < 2 || p->const_base > MAX_VREGS) return false;
  for (uint32_t i = 0; i < p->n_code; i++) {
    const sim_insn_t *in = &p->code[i];
    if (in->kind == SIM_K_CALL || in->kind == SIM_K_RET) return false;
    if (in->kind == SIM_K_EXEC && ft_ptx_opinfo(in->op)->family == FT_PTX_FAM_MATRIX) return false;
    if (in->kind == SIM_K_EXEC && (in->op == FT_PTX_OP_SULD || in->op == FT_PTX_OP_SUST || in->op == FT_PTX_OP_SURED))
      return false;
  }
  return true;
}

/* Live registers after pc `i` -> before it. */
static void step_back(const sim_insn_t *in, uint32_t nv, uint64_t *live) {
  uint32_t r[9];
  if (kills(in)) {
    unsigned n = defs_of(in, nv, r);
    for (unsigned k = 0; k < n; k++) clear_bit(live, r[k]);
  }
  unsigned n = uses_of(in, nv, r);
  for (unsigned k = 0; k < n; k++) set_bit(live, r[k]);
}

/* Each lane follows one path through the code, so liveness is a thread's:
 * per basic block, iterated to the fixed point. Then every register an
 * instruction writes interferes with what is live after it, with its sources
 * (executors may read a source after writing a destination of another lane or
 * element) and with its other destinations. */
static bool build(ra_t *ra, const sim_kprog_t *p) {
  uint32_t n = p->n_code, nv = ra->nv, W = ra->words;
  bool ok = false;
  uint8_t *leader = calloc(n + 1, 1);
  uint32_t *bstart = NULL, *bof = NULL;
  uint64_t *in_ = NULL, *out = NULL, *live = NULL;
  if (!leader) return false;
  leader[0] = 1;
  for (uint32_t i = 0; i < n; i++) {
    const sim_insn_t *in = &p->code[i];
    if (in->kind == SIM_K_BRA) {
      if (in->target >= n) goto done;
      leader[in->target] = 1;
    }
    if (in->kind == SIM_K_BRA || in->kind == SIM_K_EXIT || in->kind == SIM_K_TRAP || in->kind == SIM_K_BAR)
      leader[i + 1] = 1;
  }
  uint32_t nb = 0;
  for (uint32_t i = 0; i < n; i++) nb += leader[i];
  bstart = malloc((nb + 1) * sizeof *bstart);
  bof = malloc((n + 1) * sizeof *bof);
  in_ = calloc((size_t)nb * W, sizeof *in_);
  out = calloc((size_t)nb * W, sizeof *out);
  live = calloc(W, sizeof *live);
  if (!bstart || !bof || !in_ || !out || !live) goto done;
  for (uint32_t i = 0, b = 0; i < n; i++) {
    if (leader[i]) bstart[b++] = i;
    bof[i] = b - 1;
  }
  bstart[nb] = n;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = nb; b-- > 0;) {
      uint32_t last = bstart[b + 1] - 1;
      const sim_insn_t *t = &p->code[last];
      uint64_t *o = out + (size_t)b * W;
      /* successors of the block's last instruction */
      bool fall = t->kind == SIM_K_EXEC || t->kind == SIM_K_BAR || t->kind == SIM_K_TRAP || t->guard >= 0;
      uint32_t succ[2], ns = 0;
      if (t->kind == SIM_K_BRA) succ[ns++] = bof[t->target];
      if (fall && last + 1 < n) succ[ns++] = bof[last + 1];
      for (unsigned s = 0; s < ns; s++)
        for (uint32_t k = 0; k < W; k++) o[k] |= in_[(size_t)succ[s] * W + k];
      memcpy(live, o, W * sizeof *live);
      for (uint32_t i = last + 1; i-- > bstart[b];) step_back(&p->code[i], nv, live);
      uint64_t *bi = in_ + (size_t)b * W;
      if (memcmp(bi, live, W * sizeof *live)) {
        memcpy(bi, live, W * sizeof *live);
        changed = true;
      }
    }
  }
  memcpy(ra->entry, in_, W * sizeof *in_); /* block 0 starts at pc 0 */
  for (uint32_t b = 0; b < nb; b++) {
    memcpy(live, out + (size_t)b * W, W * sizeof *live);
    for (uint32_t i = bstart[b + 1]; i-- > bstart[b];) {
      const sim_insn_t *in = &p->code[i];
      uint32_t d[4], u[6];
      unsigned nd = defs_of(in, nv, d), nu = uses_of(in, nv, u);
      for (unsigned k = 0; k < nd; k++) {
        uint64_t *row = ra->inter + (size_t)d[k] * W;
        for (uint32_t x = 0; x < W; x++) row[x] |= live[x];
        for (unsigned j = 0; j < nu; j++) set_bit(row, u[j]);
        for (unsigned j = 0; j < nd; j++) set_bit(row, d[j]);
      }
      step_back(in, nv, live);
    }
  }
  ok = true;
done:
  free(leader);
  free(bstart);
  free(bof);
  free(in_);
  free(out);
  free(live);
  return ok;
}

/* Greedy colouring in order of first appearance (a loop's registers get nearby
 * slots); the matrix is made symmetric first. Returns the number of slots. */
static uint32_t colour(const ra_t *ra, const sim_kprog_t *p, uint32_t *slot) {
  uint32_t nv = ra->nv, W = ra->words, n_slots = 0;
  /* Register 0 keeps slot 0 to itself: an operand field an instruction does not
   * count (past nd/na, left 0) names slot 0 in either numbering, so an executor
   * that touched one would still see the same register. */
  for (uint32_t v = 1; v < nv; v++) set_bit(ra->inter, v);
  for (uint32_t a = 0; a < nv; a++)
    for (uint32_t x = 0; x < W; x++)
      for (uint64_t m = ra->inter[(size_t)a * W + x]; m; m &= m - 1)
        set_bit(ra->inter + (size_t)(x * 64 + (uint32_t)__builtin_ctzll(m)) * W, a);
  uint32_t *order = malloc((nv + 1) * sizeof *order), no = 0;
  uint8_t *seen = calloc(nv + 1, 1), *used = calloc(nv + 1, 1);
  if (!order || !seen || !used) abort();
  seen[0] = 1, order[no++] = 0;
  for (uint32_t i = 0; i < p->n_code; i++) {
    uint32_t r[10];
    unsigned n = uses_of(&p->code[i], nv, r);
    n += defs_of(&p->code[i], nv, r + n);
    for (unsigned k = 0; k < n; k++)
      if (!seen[r[k]]) seen[r[k]] = 1, order[no++] = r[k];
  }
  for (uint32_t v = 0; v < nv; v++) slot[v] = UINT32_MAX;
  for (uint32_t k = 0; k < no; k++) {
    uint32_t v = order[k];
    const uint64_t *row = ra->inter + (size_t)v * W;
    memset(used, 0, n_slots + 1);
    for (uint32_t x = 0; x < W; x++)
      for (uint64_t m = row[x]; m; m &= m - 1) {
        uint32_t o = x * 64 + (uint32_t)__builtin_ctzll(m);
        if (o != v && slot[o] != UINT32_MAX) used[slot[o]] = 1;
      }
    uint32_t s = 0;
    while (used[s]) s++;
    slot[v] = s;
    if (s + 1 > n_slots) n_slots = s + 1;
  }
  for (uint32_t v = 0; v < nv; v++)
    if (slot[v] == UINT32_MAX) slot[v] = 0; /* never named */
  free(order);
  free(seen);
  free(used);
  return n_slots ? n_slots : 1;
}

static uint32_t remap(uint32_t r, const sim_kprog_t *p, const uint32_t *slot, uint32_t n_slots) {
  return r < p->const_base ? slot[r] : r - p->const_base + n_slots;
}

void sim_interp_reuse(sim_kprog_t *p) {
  if (!eligible(p)) return;
  ra_t ra = {.nv = p->const_base, .words = (p->const_base + 63) / 64};
  ra.inter = calloc((size_t)ra.nv * ra.words, sizeof *ra.inter);
  ra.entry = calloc(ra.words, sizeof *ra.entry);
  uint32_t *slot = malloc(ra.nv * sizeof *slot);
  if (!ra.inter || !ra.entry || !slot || !build(&ra, p)) {
    free(ra.inter);
    free(ra.entry);
    free(slot);
    return;
  }
  uint32_t n_slots = colour(&ra, p, slot);
  /* the slots a lane may read before writing them start at 0 (warp.c); the
   * others are written first on every path */
  uint8_t *zero = calloc(n_slots, 1);
  if (!zero) abort();
  zero[0] = 1; /* (register 0: see colour) */
  for (uint32_t v = 0; v < ra.nv; v++)
    if (ra.entry[v >> 6] >> (v & 63) & 1) zero[slot[v]] = 1;
  p->n_zero = 0;
  p->zero_slots = malloc((n_slots + 1) * sizeof *p->zero_slots);
  if (!p->zero_slots) abort();
  for (uint32_t k = 0; k < n_slots; k++)
    if (zero[k]) p->zero_slots[p->n_zero++] = k;
  free(zero);
  for (uint32_t i = 0; i < p->n_code; i++) {
    sim_insn_t *in = &p->code[i];
    if (in->guard >= 0) in->guard = (int32_t)remap((uint32_t)in->guard, p, slot, n_slots);
    if (in->kind != SIM_K_EXEC && in->kind != SIM_K_BAR) continue;
    for (unsigned k = 0; k < in->nd && k < 4; k++) in->d[k] = remap(in->d[k], p, slot, n_slots);
    for (unsigned k = 0; k < in->na && k < 5; k++) in->a[k] = remap(in->a[k], p, slot, n_slots);
  }
  uint32_t shift = p->const_base - n_slots;
  p->const_base -= shift;
  p->sreg_base -= shift;
  p->n_regs -= shift;
  free(ra.inter);
  free(ra.entry);
  free(slot);
}
