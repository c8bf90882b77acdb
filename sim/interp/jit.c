/* jit.c: translates a hot kernel's straight-line runs of instructions to C, compiled
 * once by the host's compiler and cached on disk, which the warp loop calls instead
 * of dispatching each instruction; the interpreter stays the reference. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "interp.h"
#include "lanes_text.h" /* SIM_LANES_TEXT: lanes.h, byte for byte (CMake) */

extern char **environ;

/* Bumped whenever the generated code's contract with this file changes. */
#define SIM_JIT_ABI 2u

sim_jit_config_t sim_jit_config = {.mode = 0, .after = 1000000000ull, .cc = "cc"};

struct sim_jitstate_s {
  atomic_uint_fast64_t insns; /* thread-instructions run before the translation */
  atomic_int state;           /* 0 not yet, 1 being made, 2 ready, 3 failed */
  _Atomic(sim_jit_t *) ready;
  atomic_int refs;            /* its kernel, and a translation's thread while it runs */
};

static atomic_uint_fast64_t n_compiled, n_cached, n_failed;

void sim_jit_stats(uint64_t *compiled, uint64_t *cached, uint64_t *failed) {
  *compiled = atomic_load(&n_compiled);
  *cached = atomic_load(&n_cached);
  *failed = atomic_load(&n_failed);
}

static void jlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void jlog(const char *fmt, ...) {
  if (!sim_jit_config.log) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sim_jit_config.log(msg);
}

/* The translator's form of in's executor, NULL when it has none. */
static const sim_jit_form_t *form_of(const sim_insn_t *in) {
  static const sim_jit_form_t *const tables[] = {
      sim_jit_forms_int, sim_jit_forms_compare, sim_jit_forms_cvt, sim_jit_forms_float, sim_jit_forms_mem,
#ifdef SIM_HAVE_AVX2
      sim_jit_forms_int_avx2, sim_jit_forms_compare_avx2, sim_jit_forms_cvt_avx2, sim_jit_forms_float_avx2,
      sim_jit_forms_mem_avx2
#endif
  };
  if (in->kind != SIM_K_EXEC || !in->exec) return NULL;
  for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
    for (const sim_jit_form_t *f = tables[t]; f->fn; f++)
      if (f->fn == in->exec) return f->text || in->vec <= 1 ? f : NULL;
  return NULL;
}

/* The lane statement of in's executor (lanes.h), or false when it has none. */
static bool lane_stmt(const sim_insn_t *in, char *out, size_t n) {
  const sim_jit_form_t *f = form_of(in);
  if (!f || !f->text) return false;
  if (f->k) snprintf(out, n, f->text, f->k(in));
  else snprintf(out, n, "%s", f->text);
  return true;
}

/* Instructions a warp may start at other than by falling through: branch targets,
 * out-of-line bodies, and whatever follows a branch, barrier, exit, call or return. */
static bool *leaders(const sim_kprog_t *p) {
  bool *ld = calloc(p->n_code + 1, 1);
  if (!ld) abort();
  ld[0] = true;
  for (uint32_t i = 0; i < p->n_code; i++) {
    const sim_insn_t *in = &p->code[i];
    if (in->kind != SIM_K_EXEC) ld[i + 1] = true;
    if (in->kind == SIM_K_BRA && in->target < p->n_code) ld[in->target] = true;
  }
  for (uint32_t b = 0; b < p->n_bodies; b++)
    if (p->bodies[b].entry < p->n_code) ld[p->bodies[b].entry] = true;
  return ld;
}

static void reg_ptr(FILE *f, const sim_kprog_t *p, const char *decl, uint32_t r) {
  fprintf(f, " %s = R + 32u * %uu;", decl, r < p->n_regs ? r : p->n_regs - 1);
}

/* A fused group: consecutive instructions run lane by lane in one loop. That is
 * what the warp does instruction by instruction as long as no lane reads what
 * another lane writes in it: register statements (lanes.h), and shared loads (no
 * stores) whose address and guard registers the group has not written before them,
 * so that all their accesses are checked before the group starts (any lane
 * misaligned or outside shared memory: the executors run the group instead).
 * (Checking a load in the loop, lane by lane, cost more than it saved: scan's
 * loop body took 309 M host instructions that way, 193 M split at the load.) */
#define SIM_JIT_GROUP_REGS 64
typedef struct {
  uint32_t written[SIM_JIT_GROUP_REGS];
  unsigned nw;
} group_t;

static bool in_set(const uint32_t *set, unsigned n, uint32_t r) {
  for (unsigned k = 0; k < n; k++)
    if (set[k] == r) return true;
  return false;
}

/* Whether in may join g (then noted in it). */
static bool group_add(group_t *g, const sim_insn_t *in) {
  char stmt[256];
  const sim_jit_form_t *fm = form_of(in);
  if (!fm || (fm->text && !lane_stmt(in, stmt, sizeof stmt))) return false;
  if (!fm->text && (fm->st || fm->param || in_set(g->written, g->nw, in->a[0]) ||
                    (in->guard >= 0 && in_set(g->written, g->nw, (uint32_t)in->guard))))
    return false;
  for (unsigned k = 0; k < 2; k++) { /* d[1]: setp's second predicate, else the sink */
    if (in_set(g->written, g->nw, in->d[k])) continue;
    if (g->nw == SIM_JIT_GROUP_REGS) return false;
    g->written[g->nw++] = in->d[k];
  }
  return true;
}

/* The lane's guard of in, as a C condition (1 when it has none). */
static void guard_cond(char *out, size_t n, const sim_insn_t *in) {
  if (in->guard >= 0) snprintf(out, n, "((R[32u * %uu + l] ^ %uu) & 1u)", (unsigned)in->guard, in->guard_neg ? 1u : 0u);
  else snprintf(out, n, "1u");
}

/* A chunk of lanes of the group [s, e): each instruction for SIM_JIT_CHUNK lanes in
 * turn, each in its own scope, under its guard. Lanes of a chunk side by side keep
 * a chain of dependent instructions (an fma accumulating) from running one lane's
 * at a time; what is computed is the same in any order of lanes. kreg[i - s]: the
 * load at i has its address in register kreg (its lane 0's in a0_<kreg>), and with
 * contig every such load's lanes name consecutive elements (the compiler then
 * loads vectors). */
#define SIM_JIT_CHUNK 8u
static void lane_body(FILE *f, const sim_kprog_t *p, uint32_t s, uint32_t e, const int *kreg, bool contig) {
  char stmt[320], g[96];
  for (uint32_t i = s; i < e; i++) {
    const sim_insn_t *in = &p->code[i];
    const sim_jit_form_t *fm = form_of(in);
    guard_cond(g, sizeof g, in);
    unsigned n = fm->bytes;
    if (fm->text) lane_stmt(in, stmt, sizeof stmt);
    else if (contig)
      snprintf(stmt, sizeof stmt, "uint%u_t v; memcpy(&v, sh + a0_%d + %lluull + %uu * l, %u); D[l] = v", n * 8u,
               kreg[i - s], (unsigned long long)in->off, n, n);
    else
      snprintf(stmt, sizeof stmt, "uint%u_t v; memcpy(&v, sh + A[l] + %lluull, %u); D[l] = v", n * 8u,
               (unsigned long long)in->off, n);
    for (unsigned j = 0; j < SIM_JIT_CHUNK; j++) {
      fprintf(f, "      { const unsigned l = c + %uu; /* pc %u, PTX line %u */", j, i, in->line);
      reg_ptr(f, p, "uint64_t *const D", in->d[0]);
      fprintf(f, " uint64_t *const P = D;");
      reg_ptr(f, p, "uint64_t *const Q", in->d[1]);
      reg_ptr(f, p, "const uint64_t *const A", in->a[0]);
      reg_ptr(f, p, "const uint64_t *const B", in->a[1]);
      reg_ptr(f, p, "const uint64_t *const C", in->a[2]);
      fprintf(f, " (void)P, (void)Q, (void)A, (void)B, (void)C;\n        if (%s) { %s; }\n      }\n", g, stmt);
    }
  }
}

static void lane_loop(FILE *f, const sim_kprog_t *p, uint32_t s, uint32_t e, const int *kreg, bool contig) {
  fprintf(f, "    for (unsigned c = 0; c < 32; c += %uu) {\n", SIM_JIT_CHUNK);
  lane_body(f, p, s, e, kreg, contig);
  fprintf(f, "    }\n");
}

/* The group [s, e) of the run starting at rs: its loads checked first (any bad
 * lane: the executors run the group), then the loop over the lanes. The unguarded
 * loads whose offset keeps their alignment are checked against their address
 * register's lowest, highest and OR of lanes, computed once per register; the
 * others lane by lane. */
static void emit_group(FILE *f, const sim_kprog_t *p, uint32_t rs, uint32_t s, uint32_t e) {
  char g[96];
  int kreg[e - s];
  uint32_t regs[64];
  unsigned nr = 0, rbytes[64];
  bool loads = false, contig = true;
  for (uint32_t i = s; i < e; i++) {
    const sim_insn_t *in = &p->code[i];
    const sim_jit_form_t *fm = form_of(in);
    kreg[i - s] = -1;
    if (fm->text) continue;
    loads = true;
    if (in->guard >= 0 || ((uint64_t)in->off & (fm->bytes - 1u))) {
      contig = false;
      continue;
    }
    unsigned k = 0;
    while (k < nr && regs[k] != in->a[0]) k++;
    if (k == nr && nr < 64) regs[nr] = in->a[0], rbytes[nr++] = fm->bytes;
    if (k < nr) kreg[i - s] = (int)k;
    contig &= k < nr && rbytes[k] == fm->bytes;
  }
  fprintf(f, "  {\n");
  if (!loads) {
    lane_loop(f, p, s, e, kreg, false);
    fprintf(f, "  }\n");
    return;
  }
  fprintf(f, "    uint64_t bad = 0, gap = 0;\n");
  for (unsigned k = 0; k < nr; k++) {
    fprintf(f, "    uint64_t lo%u = UINT64_MAX, hi%u = 0, or%u = 0, a0_%u;\n    {", k, k, k, k);
    reg_ptr(f, p, "const uint64_t *const A", regs[k]);
    fprintf(f, " a0_%u = A[0]; for (unsigned l = 0; l < 32; l++) { uint64_t a = A[l]; lo%u = a < lo%u ? a : lo%u; "
               "hi%u = a > hi%u ? a : hi%u; or%u |= a; gap |= a ^ (a0_%u + %uu * l); } }\n",
            k, k, k, k, k, k, k, k, k, rbytes[k]);
  }
  for (uint32_t i = s; i < e; i++) {
    const sim_insn_t *in = &p->code[i];
    const sim_jit_form_t *fm = form_of(in);
    if (fm->text) continue;
    unsigned n = fm->bytes;
    uint64_t off = (uint64_t)in->off;
    int k = kreg[i - s];
    if (k >= 0) { /* every lane's a + off inside [0, sh_bytes - n] without wrapping, and aligned */
      if ((int64_t)off >= 0)
        fprintf(f, "    bad |= (or%d & %uu) | (sh_bytes < %uu + %lluull) | (hi%d > sh_bytes - %uu - %lluull);\n", k,
                n - 1u, n, (unsigned long long)off, k, n, (unsigned long long)off);
      else
        fprintf(f, "    bad |= (or%d & %uu) | (lo%d < %lluull) | (sh_bytes < %uu) | (hi%d - %lluull > sh_bytes - %uu);\n",
                k, n - 1u, k, (unsigned long long)-off, n, k, (unsigned long long)-off, n);
      continue;
    }
    guard_cond(g, sizeof g, in);
    fprintf(f, "    {");
    reg_ptr(f, p, "const uint64_t *const A", in->a[0]);
    fprintf(f, " for (unsigned l = 0; l < 32; l++) { uint64_t a = A[l] + %lluull; "
               "bad |= %s ? (a & %uu) | (sh_bytes < %uu) | (a > sh_bytes - %uu) : 0; } }\n",
            (unsigned long long)off, g, n - 1u, n, n);
  }
  fprintf(f, "    if (bad) {\n");
  for (uint32_t i = s; i < e; i++) fprintf(f, "      if (step(w, %uu)) return %uu;\n", i, i - rs + 1);
  fprintf(f, "    } else");
  if (contig) {
    fprintf(f, " if (!gap) {\n");
    lane_loop(f, p, s, e, kreg, true);
    fprintf(f, "    } else");
  }
  fprintf(f, " {\n");
  lane_loop(f, p, s, e, kreg, false);
  fprintf(f, "    }\n  }\n");
}

/* The translation's own helpers: a whole warp's shared ld/st of n-byte elements,
 * made when every lane's address is aligned and inside shared memory (0), else
 * left to the executor (1). One address, or consecutive elements, take one load or
 * plain vector loads, as in the executors. */
static const char shared_helpers[] =
    "#define SIM_J_SHARED(name, T, body)                                                        \\\n"
    "  static inline __attribute__((always_inline)) int name(uint64_t *D, const uint64_t *A, const uint64_t *V, \\\n"
    "                                                        uint64_t off, uint8_t *sh, uint64_t shn) { \\\n"
    "    const uint64_t n = sizeof(T);                                                          \\\n"
    "    if (shn < n) return 1;                                                                 \\\n"
    "    const uint64_t lim = shn - n, a0 = A[0] + off;                                         \\\n"
    "    uint64_t bad = 0, diff = 0, gap = 0;                                                   \\\n"
    "    for (unsigned l = 0; l < 32; l++) {                                                    \\\n"
    "      uint64_t a = A[l] + off;                                                             \\\n"
    "      bad |= (a & (n - 1)) | (a > lim);                                                    \\\n"
    "      diff |= a ^ a0;                                                                      \\\n"
    "      gap |= a ^ (a0 + n * l);                                                             \\\n"
    "    }                                                                                      \\\n"
    "    if (bad) return 1;                                                                     \\\n"
    "    body;                                                                                  \\\n"
    "    return 0;                                                                              \\\n"
    "  }\n"
    "#define SIM_J_LD(T)                                                                        \\\n"
    "  if (!diff) { T v; memcpy(&v, sh + a0, n); for (unsigned l = 0; l < 32; l++) D[l] = v; }  \\\n"
    "  else if (!gap) for (unsigned l = 0; l < 32; l++) { T v; memcpy(&v, sh + a0 + n * l, n); D[l] = v; } \\\n"
    "  else for (unsigned l = 0; l < 32; l++) { T v; memcpy(&v, sh + A[l] + off, n); D[l] = v; }\n"
    "#define SIM_J_ST(T)                                                                        \\\n"
    "  if (!gap) for (unsigned l = 0; l < 32; l++) { T v = (T)V[l]; memcpy(sh + a0 + n * l, &v, n); } \\\n"
    "  else for (unsigned l = 0; l < 32; l++) { T v = (T)V[l]; memcpy(sh + A[l] + off, &v, n); }\n"
    "SIM_J_SHARED(sim_j_ld4, uint32_t, SIM_J_LD(uint32_t))\n"
    "SIM_J_SHARED(sim_j_ld8, uint64_t, SIM_J_LD(uint64_t))\n"
    "SIM_J_SHARED(sim_j_st4, uint32_t, SIM_J_ST(uint32_t))\n"
    "SIM_J_SHARED(sim_j_st8, uint64_t, SIM_J_ST(uint64_t))\n";

/* A shared ld/st (form fm) at pc i of the run starting at s: made here for a whole
 * warp (its guard true in every lane), by the executor otherwise. */
static void emit_shared(FILE *f, const sim_kprog_t *p, const sim_jit_form_t *fm, uint32_t s, uint32_t i) {
  const sim_insn_t *in = &p->code[i];
  fprintf(f, "  { /* pc %u, PTX line %u */\n   ", i, in->line);
  reg_ptr(f, p, "const uint64_t *const A", in->a[0]);
  reg_ptr(f, p, "const uint64_t *const V", fm->st ? in->a[1] : in->a[0]);
  reg_ptr(f, p, "uint64_t *const D", fm->st ? in->a[0] : in->d[0]);
  fprintf(f, "\n    uint32_t g = 0;\n");
  if (in->guard >= 0)
    fprintf(f, "    for (unsigned l = 0; l < 32; l++) g |= (uint32_t)(~(R[32u * %uu + l] ^ %uu) & 1u) << l;\n",
            (unsigned)in->guard, in->guard_neg ? 1u : 0u);
  fprintf(f, "    if ((g || sim_j_%s%u((uint64_t *)D, A, V, %lluull, sh, sh_bytes)) && step(w, %uu)) return %uu;\n  }\n",
          fm->st ? "st" : "ld", fm->bytes, (unsigned long long)in->off, i, i - s + 1);
}

/* Thread-instructions interpreted per instruction of a kernel before it is worth
 * translating (gcc takes about 1-3 ms per instruction of a kernel here, with its 8
 * copies per lane chunk; interpreting runs about 2 G thread-instructions a second,
 * of which translating saves a quarter to a third). */
#define SIM_JIT_PER_INSN 10000000ull

/* Longest run and group: a fully unrolled kernel (thousands of instructions in a
 * line) then makes several functions the compiler takes in seconds, not one it
 * takes minutes over; and a source past SIM_JIT_SOURCE_MAX is not compiled at all. */
#define SIM_JIT_RUN_MAX 256u
#define SIM_JIT_GROUP_MAX 48u
#define SIM_JIT_SOURCE_MAX ((size_t)16 << 20)

/* A kernel argument load (form fm) at pc i of the run starting at s: made here when
 * every lane names the same argument, aligned and inside the parameters (lane 0's
 * value to all, as ld_spec does), by the executor otherwise. */
static void emit_param(FILE *f, const sim_kprog_t *p, const sim_jit_form_t *fm, uint32_t s, uint32_t i) {
  const sim_insn_t *in = &p->code[i];
  unsigned n = fm->bytes;
  fprintf(f, "  { /* pc %u, PTX line %u */\n   ", i, in->line);
  reg_ptr(f, p, "const uint64_t *const A", in->a[0]);
  reg_ptr(f, p, "uint64_t *const D", in->d[0]);
  fprintf(f, "\n    uint64_t a0 = A[0] + %lluull, bad = 0;\n", (unsigned long long)in->off);
  if (in->guard >= 0)
    fprintf(f, "    for (unsigned l = 0; l < 32; l++) bad |= ~(R[32u * %uu + l] ^ %uu) & 1u;\n", (unsigned)in->guard,
            in->guard_neg ? 1u : 0u);
  fprintf(f, "    for (unsigned l = 0; l < 32; l++) bad |= A[l] ^ A[0];\n"
             "    if (bad || (a0 & %uu) || a0 >= par_bytes || par_bytes - a0 < %uu) { if (step(w, %uu)) return %uu; }\n"
             "    else { uint%u_t v; memcpy(&v, par + a0, %u); for (unsigned l = 0; l < 32; l++) D[l] = v; }\n  }\n",
          n - 1u, n, i, i - s + 1, n * 8u, n);
}

/* The run [s, e) as a C function: groups, and what is left one by one. */
static void emit_run(FILE *f, const sim_kprog_t *p, uint32_t s, uint32_t e) {
  fprintf(f, "static uint32_t run_%u(uint64_t *restrict R, uint32_t act, struct sim_warp_s *w, step_fn step, "
             "uint8_t *sh, uint64_t sh_bytes, const uint8_t *par, uint64_t par_bytes) {\n"
             "  (void)sh, (void)sh_bytes, (void)par, (void)par_bytes;\n  if (act != 0xffffffffu) return 0;\n", s);
  for (uint32_t i = s; i < e;) {
    group_t g = {.nw = 0};
    uint32_t j = i;
    while (j < e && j - i < SIM_JIT_GROUP_MAX && group_add(&g, &p->code[j])) j++;
    if (j > i) {
      emit_group(f, p, s, i, j);
      i = j;
      continue;
    }
    const sim_jit_form_t *fm = form_of(&p->code[i]);
    if (fm && fm->param) emit_param(f, p, fm, s, i);
    else if (fm) emit_shared(f, p, fm, s, i);
    else fprintf(f, "  if (step(w, %uu)) return %uu;\n", i, i - s + 1);
    i++;
  }
  fprintf(f, "  return %uu;\n}\n", e - s);
}

/* The C translation of p (malloc'd), its runs' count in *nruns (0: nothing worth it). */
static char *generate(const sim_kprog_t *p, unsigned *nruns) {
  char *src = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&src, &len);
  if (!f) abort();
  fprintf(f, "/* simcuda translation of kernel %s (jit.c, ABI %u) */\n", p->name, SIM_JIT_ABI);
  fputs(SIM_LANES_TEXT, f);
  fputs(shared_helpers, f);
  fprintf(f, "\nstruct sim_warp_s;\ntypedef int (*step_fn)(struct sim_warp_s *, uint32_t);\n"
             "const unsigned sim_jit_abi = %uu;\n",
          SIM_JIT_ABI);
  bool *ld = leaders(p);
  uint32_t *starts = malloc((p->n_code + 1) * sizeof *starts);
  if (!starts) abort();
  unsigned n = 0;
  for (uint32_t s = 0; s < p->n_code;) {
    if (p->code[s].kind != SIM_K_EXEC) {
      s++;
      continue;
    }
    uint32_t e = s + 1;
    while (e < p->n_code && e - s < SIM_JIT_RUN_MAX && p->code[e].kind == SIM_K_EXEC && !ld[e]) e++;
    if (e - s >= 2) {
      emit_run(f, p, s, e);
      starts[n++] = s;
    }
    s = e;
  }
  fprintf(f, "const unsigned sim_jit_n = %uu;\nconst unsigned sim_jit_pc[] = {", n);
  for (unsigned i = 0; i < n; i++) fprintf(f, "%u,", starts[i]);
  fprintf(f, "0};\nconst void *const sim_jit_fn[] = {");
  for (unsigned i = 0; i < n; i++) fprintf(f, "(const void *)run_%u,", starts[i]);
  fprintf(f, "0};\n");
  fclose(f);
  free(ld);
  free(starts);
  *nruns = n;
  return src;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
  return h;
}

/* The cache directory (made, ours alone), or false. */
static bool cache_dir(char *out, size_t n) {
  const char *d = sim_jit_config.dir, *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (d && *d) snprintf(out, n, "%s", d);
  else if (x && *x) snprintf(out, n, "%s/simcuda-jit", x);
  else if (home && *home) snprintf(out, n, "%s/.cache/simcuda-jit", home);
  else return false;
  /* make each missing level (0700 for ours) */
  for (char *c = out + 1; *c; c++) {
    if (*c != '/') continue;
    *c = 0;
    mkdir(out, 0700);
    *c = '/';
  }
  mkdir(out, 0700);
  struct stat st;
  /* a directory someone else owns could hand us their code to load */
  return stat(out, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022);
}

/* The compiler's environment: the program's, less what would load gpuft or a CUDA
 * injection library into the compiler. */
static char **child_env(void) {
  size_t n = 0;
  while (environ[n]) n++;
  char **e = calloc(n + 1, sizeof *e);
  if (!e) abort();
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "CUDA_INJECTION64_PATH=", 22)) e[k++] = environ[i];
  return e;
}

/* Compiles src into the shared object `so` (atomically: a temporary, renamed). */
static bool compile(const char *src, const char *so, bool avx2, bool fma, bool low) {
  static atomic_uint seq;
  char c[4200], tmp[4200], logp[4200];
  unsigned q = atomic_fetch_add(&seq, 1);
  snprintf(c, sizeof c, "%s.%d.%u.c", so, (int)getpid(), q);
  snprintf(tmp, sizeof tmp, "%s.%d.%u.tmp", so, (int)getpid(), q);
  snprintf(logp, sizeof logp, "%s.log", so);
  FILE *f = fopen(c, "w");
  if (!f) return false;
  bool ok = fputs(src, f) >= 0;
  ok = fclose(f) == 0 && ok;
  if (!ok) {
    unlink(c);
    return false;
  }
  /* -ffp-contract=off: no a*b+c contracted, as in the executors */
  char *argv[16] = {(char *)sim_jit_config.cc, "-O2", "-fPIC", "-shared", "-w", "-ffp-contract=off", "-fno-math-errno"};
  unsigned a = 7;
  if (avx2) argv[a++] = "-mavx2";
  if (fma) argv[a++] = "-mfma"; /* fmaf/fma inline: one rounding either way, and nothing contracted */
  argv[a++] = "-o", argv[a++] = tmp, argv[a++] = c, argv[a++] = "-lm";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  char **env = child_env();
  pid_t pid;
  /* beside a running kernel the compiler takes the cores' idle time only
   * (SCHED_IDLE): the program's own threads come first */
  posix_spawnattr_t sa;
  bool made = low && posix_spawnattr_init(&sa) == 0, idle = made;
  if (idle) {
    struct sched_param sp = {.sched_priority = 0};
    idle = posix_spawnattr_setschedpolicy(&sa, SCHED_IDLE) == 0 && posix_spawnattr_setschedparam(&sa, &sp) == 0 &&
           posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSCHEDULER) == 0;
  }
  int rc = posix_spawnp(&pid, sim_jit_config.cc, &fa, idle ? &sa : NULL, argv, env);
  if (rc != 0 && idle) rc = posix_spawnp(&pid, sim_jit_config.cc, &fa, NULL, argv, env); /* not allowed: as is */
  if (made) posix_spawnattr_destroy(&sa);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  int status = 0;
  ok = rc == 0;
  while (ok && waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) ok = false;
  ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 && rename(tmp, so) == 0;
  /* the source stays beside its object (k<hash>.c), to be read */
  char keep[4200];
  snprintf(keep, sizeof keep, "%.*s.c", (int)(strlen(so) - 3), so);
  if (!ok || rename(c, keep) != 0) unlink(c);
  if (!ok) unlink(tmp);
  else unlink(logp);
  return ok;
}

/* Loads the translation `so` of a kernel of n_code instructions: its runs by pc. */
static sim_jit_t *load(uint32_t n_code, const char *so) {
  struct stat st;
  if (stat(so, &st) != 0 || st.st_uid != geteuid()) return NULL;
  void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!dl) return NULL;
  const unsigned *abi = dlsym(dl, "sim_jit_abi"), *n = dlsym(dl, "sim_jit_n"), *pc = dlsym(dl, "sim_jit_pc");
  const void *const *fn = dlsym(dl, "sim_jit_fn");
  sim_jit_t *j = NULL;
  if (abi && n && pc && fn && *abi == SIM_JIT_ABI && (j = calloc(1, sizeof *j)) &&
      (j->at = calloc(n_code, sizeof *j->at))) {
    for (unsigned i = 0; i < *n; i++) {
      if (pc[i] >= n_code) {
        free(j->at);
        free(j);
        dlclose(dl);
        return NULL;
      }
      sim_run_fn r;
      memcpy(&r, &fn[i], sizeof r); /* an object pointer to a function pointer: POSIX's dlsym contract */
      j->at[pc[i]] = r;
    }
    j->dl = dl;
    return j;
  }
  free(j);
  dlclose(dl);
  return NULL;
}

/* Whether the host runs FMA instructions (x86-64: then -mfma; elsewhere the
 * compiler's default for the host is taken as it is). */
static bool host_fma(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

/* A translation under way: what it needs once the source is made, so that it can
 * be finished on a thread of its own, even after its kernel was unloaded. */
typedef struct {
  char *src, *name;
  char so[4160];
  bool avx2, fma;
  bool low; /* compiled beside the running kernel: at idle priority */
  uint32_t n_code;
  unsigned nruns;
  struct timespec t0;
  struct sim_jitstate_s *s;
} job_t;

/* p's translation as C, and where it is cached: NULL when there is nothing to
 * translate or it cannot be (logged and counted). */
static job_t *prepare(const sim_kprog_t *p) {
  job_t *jb = calloc(1, sizeof *jb);
  if (!jb) abort();
  clock_gettime(CLOCK_MONOTONIC, &jb->t0);
  jb->src = generate(p, &jb->nruns);
  const char *why = NULL;
  char dir[4096];
  if (!jb->nruns) why = "";
  else if (strlen(jb->src) > SIM_JIT_SOURCE_MAX) why = "its translation would pass 16 MB of C";
  else if (!cache_dir(dir, sizeof dir)) why = "no cache directory of ours (SIMCUDA_JIT_CACHE)";
  if (why) {
    if (*why) {
      jlog("jit: kernel %s: %s: interpreted", p->name, why);
      atomic_fetch_add(&n_failed, 1);
    }
    free(jb->src);
    free(jb);
    return NULL;
  }
  jb->name = strdup(p->name);
  jb->n_code = p->n_code;
  jb->avx2 = p->wide, jb->fma = host_fma();
  uint64_t h = fnv1a(0xcbf29ce484222325ull, jb->src, strlen(jb->src));
  h = fnv1a(h, sim_jit_config.cc, strlen(sim_jit_config.cc));
  h = fnv1a(h, jb->avx2 ? "avx2" : "-", jb->avx2 ? 4 : 1);
  h = fnv1a(h, jb->fma ? "fma" : "-", jb->fma ? 3 : 1);
  snprintf(jb->so, sizeof jb->so, "%s/k%016llx.so", dir, (unsigned long long)h);
  return jb;
}

/* The job's translation: from the cache, or compiled into it (the job freed). */
static sim_jit_t *finish(job_t *jb) {
  sim_jit_t *j = load(jb->n_code, jb->so);
  bool hit = j != NULL;
  if (!j && compile(jb->src, jb->so, jb->avx2, jb->fma, jb->low)) j = load(jb->n_code, jb->so);
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ms = (double)(t1.tv_sec - jb->t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - jb->t0.tv_nsec) / 1e6;
  if (!j) {
    atomic_fetch_add(&n_failed, 1);
    jlog("jit: kernel %s: translation failed with %s (log beside %s): interpreted", jb->name, sim_jit_config.cc,
         jb->so);
  } else {
    atomic_fetch_add(hit ? &n_cached : &n_compiled, 1);
    jlog("jit: kernel %s: %u runs %s in %.0f ms", jb->name, jb->nruns, hit ? "loaded from the cache" : "compiled",
         ms);
  }
  free(jb->src);
  free(jb->name);
  free(jb);
  return j;
}

static void free_jit(sim_jit_t *j) {
  if (!j) return;
  dlclose(j->dl);
  free(j->at);
  free(j);
}

/* A holder of s lets go: the kernel (unloaded) or a translation's thread; the last
 * frees it. */
static void state_put(struct sim_jitstate_s *s) {
  if (atomic_fetch_sub(&s->refs, 1) != 1) return;
  free_jit(atomic_load(&s->ready));
  free(s);
}

/* The job's translation published in its state: blocks that start afterwards run
 * with it. */
static void publish(job_t *jb) {
  struct sim_jitstate_s *s = jb->s;
  sim_jit_t *j = finish(jb);
  atomic_store_explicit(&s->ready, j, memory_order_release);
  atomic_store(&s->state, j ? 2 : 3);
}

/* What generate reads of p, copied: a thread may translate it after its kernel was
 * unloaded. */
static sim_kprog_t *snapshot(const sim_kprog_t *p) {
  sim_kprog_t *c = calloc(1, sizeof *c);
  if (!c) abort();
  c->name = strdup(p->name);
  c->n_code = p->n_code, c->n_regs = p->n_regs, c->n_bodies = p->n_bodies, c->wide = p->wide;
  c->code = malloc((p->n_code + 1) * sizeof *c->code);
  c->bodies = malloc((p->n_bodies + 1) * sizeof *c->bodies);
  if (!c->name || !c->code || !c->bodies) abort();
  memcpy(c->code, p->code, p->n_code * sizeof *c->code);
  if (p->n_bodies) memcpy(c->bodies, p->bodies, p->n_bodies * sizeof *c->bodies);
  return c;
}

static void snapshot_free(sim_kprog_t *c) {
  free(c->name);
  free(c->code);
  free(c->bodies);
  free(c);
}

typedef struct {
  sim_kprog_t *copy;
  struct sim_jitstate_s *s;
} bg_t;

/* A hot kernel's translation made beside it: its C generated and compiled here. */
static void *background(void *arg) {
  bg_t *bg = arg;
  struct sim_jitstate_s *s = bg->s;
  job_t *jb = prepare(bg->copy);
  if (jb) {
    jb->s = s;
    jb->low = true;
    publish(jb);
  } else {
    atomic_store(&s->state, 3);
  }
  snapshot_free(bg->copy);
  free(bg);
  state_put(s);
  return NULL;
}

void sim_jit_attach(sim_kprog_t *p) {
  p->jit = calloc(1, sizeof *p->jit);
  if (!p->jit) abort();
  atomic_init(&p->jit->refs, 1);
}

const sim_jit_t *sim_jit_for(const sim_kprog_t *p) {
  struct sim_jitstate_s *s = p->jit;
  if (!sim_jit_config.mode || !s) return NULL;
  sim_jit_t *j = atomic_load_explicit(&s->ready, memory_order_acquire);
  if (j || atomic_load_explicit(&s->state, memory_order_relaxed)) return j;
  if (sim_jit_config.mode == 1) {
    /* due after `after` thread-instructions, or SIM_JIT_PER_INSN per instruction of
     * the kernel if more: the compiler's time grows with the kernel, and on a
     * 2-core host it takes a core from the program while it runs */
    uint64_t due = sim_jit_config.after, scaled = (uint64_t)p->n_code * SIM_JIT_PER_INSN;
    if (due && scaled > due) due = scaled;
    if (atomic_load_explicit(&s->insns, memory_order_relaxed) < due) return NULL;
  }
  int z = 0;
  if (!atomic_compare_exchange_strong(&s->state, &z, 1)) return NULL; /* another host thread makes it */
  if (sim_jit_config.mode == 1) {
    /* hot: the C is generated and compiled beside the kernel, which is interpreted
     * until it is done (a large kernel's C took gcc 19 s: no launch waits for it) */
    bg_t *bg = malloc(sizeof *bg);
    if (!bg) abort();
    bg->copy = snapshot(p), bg->s = s;
    pthread_attr_t at;
    pthread_t t;
    atomic_fetch_add(&s->refs, 1);
    bool started = pthread_attr_init(&at) == 0 && pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) == 0 &&
                   pthread_create(&t, &at, background, bg) == 0;
    pthread_attr_destroy(&at);
    if (started) return NULL;
    atomic_fetch_sub(&s->refs, 1);
    snapshot_free(bg->copy);
    free(bg);
  }
  job_t *jb = prepare(p);
  if (!jb) {
    atomic_store(&s->state, 3);
    return NULL;
  }
  jb->s = s;
  publish(jb);
  return atomic_load_explicit(&s->ready, memory_order_acquire);
}

void sim_jit_count(const sim_kprog_t *p, uint64_t insns) {
  struct sim_jitstate_s *s = p->jit;
  if (s && !atomic_load_explicit(&s->state, memory_order_relaxed))
    atomic_fetch_add_explicit(&s->insns, insns, memory_order_relaxed);
}

void sim_jit_release(sim_kprog_t *p) {
  struct sim_jitstate_s *s = p->jit;
  if (!s) return;
  p->jit = NULL;
  state_put(s); /* a translation still under way frees it when done */
}
