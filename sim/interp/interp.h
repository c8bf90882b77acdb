/* interp.h: the PTX interpreter's decoded program (one flat instruction array per
 * kernel, every operand a register) and the warp/block state the executors share. */
#ifndef SIM_INTERP_H
#define SIM_INTERP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptx/ptx_ir.h"

/* Types, spaces, rounding, comparison and modes are the IR's own (ptx_ir.h). */
static inline bool sim_type_signed(unsigned t) { return t >= FT_PTX_T_S8 && t <= FT_PTX_T_S64; }

/* Operations the warp scheduler itself handles; everything else runs through
 * the instruction's exec function. */
typedef enum { SIM_K_EXEC = 0, SIM_K_BRA, SIM_K_EXIT, SIM_K_BAR, SIM_K_TRAP, SIM_K_CALL, SIM_K_RET } sim_kind_op_t;

/* Generic address windows: shared and local memory are per block/thread, so they
 * get addresses no host or device pointer can take (above the 47-bit user space);
 * SIM_WIN_SHARED and SIM_WIN_LOCAL are lanes.h's (cvta's statement needs them). */
#include "lanes.h"
#define SIM_WIN_SIZE 0x0000000100000000ull
/* Function addresses (sim_interp_func_addr): not memory; an indirect call compares. */
#define SIM_WIN_FUNC 0x0003000000000000ull
/* A cooperative grid's workspace (gridsync.c): what cooperative groups read the
 * address of from %envreg1:%envreg2; 0 there for other launches. */
#define SIM_WIN_GRIDWS 0x0004000000000000ull
#define SIM_GRIDWS_BYTES 16u

typedef struct sim_warp_s sim_warp_t;
typedef struct sim_insn_s sim_insn_t;
typedef void (*sim_exec_fn)(sim_warp_t *w, const sim_insn_t *in, uint32_t mask);

struct sim_insn_s {
  sim_exec_fn exec;
  uint8_t kind;         /* sim_kind_op_t */
  uint8_t type, type2;  /* ft_ptx_type_t: result type, source type (cvt, set, slct) */
  uint8_t mode;         /* ft_ptx_instr_t.mode (shfl/vote/atom/bar/... variant) */
  uint8_t cmp, boolop, rnd, space, vec;
  uint8_t nd, na;       /* destinations, sources used */
  uint8_t aneg;         /* bit i: source i is a negated predicate (`!%p`) */
  bool guard_neg;
  uint16_t op;          /* ft_ptx_opcode_t */
  uint8_t sem;          /* ft_ptx_sem_t (ld/st/atom/red/fence) */
  uint32_t flags;       /* FT_PTX_F_* */
  int32_t guard;        /* predicate register, -1: none */
  uint32_t d[4];        /* destination registers (vector ld: up to 4) */
  uint32_t a[5];        /* source registers (constants live in registers too) */
  uint32_t target;      /* branch target */
  int64_t off;          /* memory operand immediate offset */
  uint32_t line;        /* PTX source line (messages) */
};

/* Recursion: a function that calls itself (directly or not) gets one out-of-line
 * body; a call to it (SIM_K_CALL, target = call-site index) saves the body's
 * registers and local memory on the lane's call stack, copies the arguments in
 * and jumps; its ret (SIM_K_RET) copies the results out, restores and returns. */
typedef struct {
  uint64_t from, to; /* per-thread local offsets */
  uint32_t size;
} sim_argcopy_t;
typedef struct {
  uint32_t entry;          /* pc */
  uint32_t reg_lo, reg_hi; /* its registers (nested inlined calls included) */
  uint64_t loc_lo, loc_hi; /* its local memory (variables, call scratch) */
  uint64_t ploc_lo, ploc_hi; /* its parameters and results */
} sim_body_t;
typedef struct {
  uint32_t body;
  uint32_t n_args, n_rets;
  sim_argcopy_t *args, *rets; /* caller's .param -> callee's parameter; callee's result -> caller's .param */
} sim_callsite_t;

/* A kernel ready to run. */
typedef struct sim_kprog_s {
  char *name;
  sim_insn_t *code;
  uint32_t n_code;
  uint32_t n_regs;       /* registers per thread, constants included */
  uint64_t *consts;      /* values of registers [const_base, +n_consts) (same for every lane) */
  uint32_t const_base, n_consts;
  uint32_t sreg_base;    /* registers holding per-thread special registers (see SIM_SR_*) */
  uint32_t sreg_used;    /* bit k: some instruction reads SIM_SR_k (only those are filled) */
  size_t shared_static;  /* static shared bytes; dynamic shared starts after it (aligned 16) */
  size_t local_bytes;    /* per-thread local memory (depots, call parameters) */
  unsigned n_params;
  uint16_t *param_size, *param_align;
  size_t *param_off;
  size_t param_bytes;
  sim_body_t *bodies;
  sim_callsite_t *calls;
  uint32_t n_bodies, n_calls;
  /* Operand lists too long for sim_insn_t (mma: two header words, then the D, A,
   * B and C registers), at the instruction's target. */
  uint32_t *xregs;
  uint32_t n_xregs;
  bool wide;             /* lowered for AVX2 (the warp loop uses it too) */
  /* Register reuse (regalloc.c) lists the variable slots some lane may read
   * before writing: only those start at 0 (NULL: every variable slot does). */
  uint32_t *zero_slots, n_zero;
  /* Its translation to host code (jit.c), made once the kernel is hot; NULL for
   * the reference interpreter's programs (sim_interp_plain). */
  struct sim_jitstate_s *jit;
} sim_kprog_t;

/* Per-thread special registers materialised at warp start, in this order from
 * sreg_base (each one register). */
enum { SIM_SR_TID_X, SIM_SR_TID_Y, SIM_SR_TID_Z, SIM_SR_NTID_X, SIM_SR_NTID_Y, SIM_SR_NTID_Z,
       SIM_SR_CTAID_X, SIM_SR_CTAID_Y, SIM_SR_CTAID_Z, SIM_SR_NCTAID_X, SIM_SR_NCTAID_Y, SIM_SR_NCTAID_Z,
       SIM_SR_LANEID, SIM_SR_WARPID, SIM_SR_NWARPID, SIM_SR_LANEMASK_EQ, SIM_SR_LANEMASK_LT,
       SIM_SR_LANEMASK_LE, SIM_SR_LANEMASK_GT, SIM_SR_LANEMASK_GE, SIM_SR_SMID, SIM_SR_NSMID,
       SIM_SR_GRIDID, SIM_SR_ENVREG1, SIM_SR_ENVREG2, SIM_SR_COUNT };

/* One translated allocation, cached per warp (global accesses). */
typedef struct {
  uint64_t lo, hi;     /* [lo, hi) application addresses */
  intptr_t delta;      /* host address = address + delta */
  uint64_t base;       /* allocation base (counters) */
  uint64_t ld, st;     /* bytes loaded/stored since cached */
  /* where they lay: [ld_lo, ld_hi) and [st_lo, st_hi), addresses (lo >= hi: none);
   * kept only when the driver asks (sim_mem_iface_t.extents) */
  uint64_t ld_lo, ld_hi, st_lo, st_hi;
} sim_xcache_t;

typedef struct sim_block_s sim_block_t;

/* A texture object as the interpreter samples it (the driver's cuTexObjectCreate
 * gives it, sim_mem_iface_t.tex finds it by handle). */
enum { SIM_TEXFMT_U8 = 1, SIM_TEXFMT_U16, SIM_TEXFMT_U32, SIM_TEXFMT_S8, SIM_TEXFMT_S16, SIM_TEXFMT_S32,
       SIM_TEXFMT_F16, SIM_TEXFMT_F32 };
enum { SIM_TEXADDR_WRAP = 0, SIM_TEXADDR_CLAMP, SIM_TEXADDR_MIRROR, SIM_TEXADDR_BORDER }; /* CUaddress_mode */
typedef struct sim_tex_s {
  uint64_t ptr;            /* device address of texel (0, 0, 0) */
  uint64_t width, height;  /* texels (1-D: height 1) */
  uint64_t depth;          /* 3-D: texels; layered: layers; else 1 */
  uint64_t pitch, slice;   /* bytes from one row, one slice or layer, to the next */
  uint8_t fmt, channels;   /* SIM_TEXFMT_*, 1/2/4 */
  uint8_t addr[3];         /* SIM_TEXADDR_* per dimension */
  uint8_t dims;            /* a CUDA array's: 1, 2 or 3 (layers not counted); 0: linear or pitched memory */
  bool layered;            /* an array of layers (tex.a1d/a2d, suld/sust .a1d/.a2d) */
  bool surface;            /* a surface object (suld/sust), not a texture object */
  bool linear_filter, normalized, as_integer;
  bool linear_res;         /* a linear (1-D, tex1Dfetch) resource: no addressing, 0 outside */
  float border[4];
  bool gather;             /* a CUDA array made with CUDA_ARRAY3D_TEXTURE_GATHER (tld4) */
} sim_tex_t;

/* Services of the driver the interpreter calls (set per launch). */
typedef struct {
  /* Finds the live, usable allocation holding address p: false if none. */
  bool (*find)(void *ctx, uint64_t p, sim_xcache_t *out);
  /* Adds a warp's byte counts (and extents) for the allocation x->base. */
  void (*count)(void *ctx, const sim_xcache_t *x);
  void *ctx;
  bool extents; /* keep the extents of the accesses (SIMCUDA_CHECK_ACCESS) */
  /* The device heap (malloc/free in kernels); NULL: none (malloc gives NULL).
   * Called by blocks on several host threads at once. */
  uint64_t (*malloc)(void *ctx, uint64_t n);  /* 0 when no room */
  bool (*free)(void *ctx, uint64_t p);        /* false: p is not a heap block */
  /* The texture or surface object `handle` of the launch's context: false when none. */
  bool (*tex)(void *ctx, uint64_t handle, sim_tex_t *out);
  /* cudaGraphSetConditional(handle, value): 0 when set, else the CUresult the
   * launch faults with (*why: what was wrong). NULL: no conditional handles. */
  int (*set_cond)(void *ctx, uint64_t handle, uint32_t value, const char **why);
} sim_mem_iface_t;

typedef struct {
  const sim_kprog_t *prog;
  unsigned grid[3], block[3];
  const uint8_t *params;    /* packed kernel arguments */
  size_t dyn_shared;
  const sim_mem_iface_t *mem;
  /* Faults: the one of the lowest-numbered block that faults wins (within a block,
   * the first), whatever the number of host threads, as a serial run in block
   * order reports it; blocks numbered above it stop early, those below run on
   * (one of them may fault first). Set under fault_lock (0 free, 1 held). */
  atomic_int error;         /* CUresult of that fault */
  atomic_uint_fast64_t fault_block; /* its linear block index + 1; 0: none yet */
  atomic_int fault_lock;
  char msg[256];            /* its message */
  atomic_uint_fast64_t insns; /* thread-instructions executed (benchmarks) */
  atomic_uint_fast64_t id;  /* unique in the process, set by the interpreter (callers leave it 0) */
  /* The undefined-behaviour check (SIMCUDA_CHECK_UB): 0 off; otherwise each finding
   * is handed to ub_report (NULL: stderr) and counted; 2 also fails the launch. */
  int check_ub;
  void (*ub_report)(void *ctx, const char *msg);
  void *ub_ctx;
  atomic_uint_fast64_t ub_reports;
  /* Each thread's call stack in bytes (cudaLimitStackSize; 0: no limit): a call is
   * charged the frame ptxas gives it at the least (warp.c), deeper calls fault. */
  size_t stack_limit;
  /* A cooperative launch's blocks, barrier and workspace (gridsync.c); NULL for
   * other launches (their grid.sync() finds no workspace and traps, as on GPUs). */
  struct sim_coop_s *coop;
  /* With the UB check: what surface stores wrote in this launch (texwrite.c; freed
   * by sim_texw_free), under texw_lock; texw_any once anything is there. */
  struct sim_texw_s *texw;
  atomic_int texw_lock, texw_any;
} sim_grid_t;

struct sim_warp_s {
  uint64_t *r;          /* registers: r[reg * 32 + lane] */
  uint32_t pc, active, exited, waiting, wait_min;
  uint32_t nlanes_mask; /* lanes that exist */
  bool at_bar, done, carry_valid;
  bool yield; /* give way to the block's other warps at the next branch (nanosleep) */
  uint32_t carry;       /* .cc carry flags per lane (bit per lane) */
  uint32_t bar_mask;    /* lanes that arrived at the pending barrier */
  unsigned id;
  sim_block_t *blk;
  sim_xcache_t xc;
  /* the entry xc held before: a loop over two allocations in turn (one read, one
   * written) swaps them, where one entry looked each up again at every access */
  sim_xcache_t xc2;
  uint64_t n_insns;
  /* UB check: the instruction under way is an atomic (not a race); lanes of it
   * that raced with another warp on shared memory, and that warp (reported after
   * the instruction). */
  bool atomic_access, race_store;
  uint32_t race_lanes;
  unsigned race_other;
  /* Real calls (recursion): in_call: some lane is inside a call (the scheduler
   * then runs the deepest lanes first); stacks: the lanes' call stacks below were
   * used in this block (they are cleared at its end, and start cleared). */
  bool in_call, stacks;
  /* inside a recursion, some lanes made a call that lanes which entered the
   * recursion with them did not: a GPU does not reconverge them for the rest of the
   * warp's life that anyone here has seen, so every barrier and warp collective
   * after it is reported by the UB check (SIM_UB_AFTER_RECURSION) */
  bool call_diverged;
  /* cp.async copies not yet completed and the lanes' groups (async.c); NULL
   * until the first cp.async; sim_async_release frees it with the block. */
  struct sim_async_s *async;
  /* The instruction under way stored to the grid barrier's word (gridsync.c). */
  bool grid_arrived;
  /* Each lane's PC while it waits for others (written before it is read: not
   * cleared at a warp's start). */
  uint32_t lpc[32];
  /* Each lane's call stack and depth, last: a warp's start clears what is above
   * lpc (SIM_WARP_CLEARED), these only after a block that used them
   * (SIM_WARP_STACKS on). */
  uint32_t depth[32];
  uint8_t *stk[32];
  size_t stk_n[32], stk_cap[32];
  size_t stk_charged[32]; /* bytes of the modelled device stack (sim_grid_t.stack_limit) */
};
#define SIM_WARP_CLEARED offsetof(sim_warp_t, lpc)
#define SIM_WARP_STACKS offsetof(sim_warp_t, depth)

struct sim_block_s {
  sim_grid_t *g;
  uint64_t index;       /* linear block index */
  unsigned ctaid[3];
  uint8_t *shared;
  size_t shared_bytes;
  uint8_t *local;       /* local_bytes per thread, thread-major */
  sim_warp_t *warps;
  unsigned n_warps, n_threads;
  /* bar.red: the reduction over the warps that arrived. */
  uint32_t red_and, red_or, red_popc;
  bool faulted;
  /* UB check: barrier epoch (bumped at each release) and, per shared byte, who
   * wrote and read it in the current epoch (warp id + 1; SIM_SHADOW_MANY: several). */
  uint32_t epoch;
  struct sim_shadow_s *shadow;
  /* a warp of the block made a release or acquire operation (a fence, or an atom, ld
   * or st with such semantics) in this epoch: it may order its warps without a
   * barrier (libcu++'s cuda::barrier, a flag), which the race check does not model,
   * so it reports no shared-memory race until the next barrier */
  bool synced;
};
/* Whether an operation of semantics sem (ft_ptx_sem_t) orders other warps' accesses. */
#define SIM_SEM_ORDERS(sem) ((sem) >= FT_PTX_SEM_ACQUIRE && (sem) <= FT_PTX_SEM_SC)

typedef struct sim_shadow_s {
  uint32_t epoch;
  uint16_t writer, reader;
} sim_shadow_t;
#define SIM_SHADOW_MANY 0xffffu

#define SIM_R(w, reg) ((w)->r + (size_t)(reg) * 32u)
#define SIM_FOR_LANES(mask, l) for (uint32_t _m = (mask), l; _m && ((l = (uint32_t)__builtin_ctz(_m)), 1); _m &= _m - 1)

/* Raises a fault for the whole launch (see sim_grid_t.fault_block for which one
 * is reported); stops the block. */
void sim_interp_fault(sim_warp_t *w, int cuerr, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* UB check (g->check_ub): reports undefined behaviour of `lanes` of the warp at its
 * current instruction, by kernel, block, PC (and PTX line) and lanes; counted. */
/* The UB check's words for a barrier or warp collective after lanes of the warp took
 * different paths through a recursive call (warp.c, collective.c). */
#define SIM_UB_AFTER_RECURSION(what)                                                          \
  what " after lanes of this warp took different paths through a recursive call: a GPU "     \
       "does not reconverge them (an H200 let the early lanes through bar.sync, barrier.sync " \
       "and vote; ptxas drops __syncwarp there); exchange such results through a later launch"
void sim_interp_ub(sim_warp_t *w, uint32_t lanes, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A kernel the simulator cannot run faithfully (a GPU would wait for lanes that
 * diverged): fails the launch (CUDA_ERROR_NOT_SUPPORTED) naming the lanes. */
void sim_interp_cannot(sim_warp_t *w, uint32_t lanes, const char *what);

/* Runs one block (linear block index) of a grid. */
void sim_interp_run_block(sim_grid_t *g, uint64_t block_index);

/* gridsync.c: runs a cooperative grid (all its blocks co-resident, at most
 * `slots` of them on host threads at once) with its workspace and grid barrier. */
void sim_interp_run_coop(sim_grid_t *g, unsigned slots);
/* The workspace bytes [addr, addr+n) of w's grid, NULL when it has none; a store
 * (an atomic) to the barrier word makes the warp's instruction an arrival. */
void *sim_coop_ws(sim_warp_t *w, uint64_t addr, unsigned n, bool store);
/* After that instruction: waits until every block of the grid arrived. */
void sim_coop_arrive(sim_warp_t *w);
/* The files of the hottest executors (alu_int, alu_float, compare, cvt, mem) are
 * compiled twice: as they are, and with SIM_AVX2 for hosts with AVX2 (CMake's
 * siminterp_avx2), where the full-warp loops run 4 lanes a host instruction. Their
 * exported names get a suffix there; the lowering picks a set (sim_interp_wide). */
#ifdef SIM_AVX2
#define sim_choose_int sim_choose_int_avx2
#define sim_choose_float sim_choose_float_avx2
#define sim_choose_compare sim_choose_compare_avx2
#define sim_choose_cvt sim_choose_cvt_avx2
#define sim_choose_mem sim_choose_mem_avx2
#define sim_interp_resolve sim_interp_resolve_avx2
#define sim_round_enter sim_round_enter_avx2
#define sim_round_leave sim_round_leave_avx2
#define sim_half_value sim_half_value_avx2
#define sim_jit_forms_int sim_jit_forms_int_avx2
#define sim_jit_forms_compare sim_jit_forms_compare_avx2
#define sim_jit_forms_cvt sim_jit_forms_cvt_avx2
#define sim_jit_forms_float sim_jit_forms_float_avx2
#define sim_jit_forms_mem sim_jit_forms_mem_avx2
#endif
sim_exec_fn sim_choose_int_avx2(sim_insn_t *in);
sim_exec_fn sim_choose_float_avx2(sim_insn_t *in);
sim_exec_fn sim_choose_compare_avx2(sim_insn_t *in);
sim_exec_fn sim_choose_cvt_avx2(sim_insn_t *in);
sim_exec_fn sim_choose_mem_avx2(sim_insn_t *in);

/* ---- translation to host code (jit.c) ----
 * An executor whose whole work is one lanes.h statement run for each lane of its
 * mask, and that statement (a printf format taking k(in) when k is set); or (text
 * NULL) a scalar ld/st of `bytes` in shared memory (store: st), or a load of a
 * kernel argument (param), which the translation makes itself when every lane's
 * access is aligned and inside the block's shared memory (inside the parameters,
 * the same for every lane), and leaves to the executor otherwise. */
typedef struct {
  sim_exec_fn fn;
  const char *text;
  unsigned (*k)(const sim_insn_t *in);
  uint8_t bytes;
  bool st, param;
} sim_jit_form_t;
#define SIM_JIT_LANE(f, t, kf) {.fn = (f), .text = (t), .k = (kf)}
#define SIM_JIT_SHARED(f, n, store) {.fn = (f), .bytes = (n), .st = (store)}
#define SIM_JIT_PARAM(f, n) {.fn = (f), .bytes = (n), .param = true}
#define SIM_JIT_END {.fn = NULL}
extern const sim_jit_form_t sim_jit_forms_int[], sim_jit_forms_compare[], sim_jit_forms_cvt[], sim_jit_forms_float[],
    sim_jit_forms_mem[];
extern const sim_jit_form_t sim_jit_forms_int_avx2[], sim_jit_forms_compare_avx2[], sim_jit_forms_cvt_avx2[],
    sim_jit_forms_float_avx2[], sim_jit_forms_mem_avx2[];
/* A translated run of straight-line instructions starting at some pc: for a whole
 * warp (act all ones; 0 returned for any other, which the loop then interprets) runs
 * them (those it has a form for itself, fused lane by lane; the others through `step`,
 * which runs the instruction at pc as the warp loop does and says whether the warp
 * must stop) and returns how many it ran (the last one stopped the warp when fewer
 * than all). */
typedef int (*sim_jit_step_fn)(sim_warp_t *w, uint32_t pc);
/* sh, sh_bytes: the block's shared memory (sh_bytes 0 under the UB check's race
 * tracking: every shared access then goes through step); par, par_bytes: the
 * launch's packed kernel arguments. */
typedef uint32_t (*sim_run_fn)(uint64_t *R, uint32_t act, sim_warp_t *w, sim_jit_step_fn step, uint8_t *sh,
                               uint64_t sh_bytes, const uint8_t *par, uint64_t par_bytes);
typedef struct sim_jit_s {
  sim_run_fn *at; /* per pc: the run starting there, NULL where none does */
  void *dl;       /* its shared object */
} sim_jit_t;
/* Set before the first launch (the driver's options, the tests). mode 0: never
 * translate; 1: a kernel once its launches ran `after` thread-instructions; 2: at
 * a kernel's first block. cc: the host's C compiler; dir: the cache of translations
 * (NULL: $XDG_CACHE_HOME or $HOME/.cache, simcuda-jit); log: one line per
 * translation made, loaded or failed (NULL: none). */
typedef struct {
  int mode;
  uint64_t after;
  const char *cc, *dir;
  void (*log)(const char *msg);
} sim_jit_config_t;
extern sim_jit_config_t sim_jit_config;
/* The translation a block of p runs with (NULL: interpret); makes it when due. */
const sim_jit_t *sim_jit_for(const sim_kprog_t *p);
/* Adds thread-instructions a block of p ran (the threshold of mode 1). */
void sim_jit_count(const sim_kprog_t *p, uint64_t insns);
/* A program's translation state (lower.c; never for the reference interpreter's),
 * and its end (sim_kprog_free). */
void sim_jit_attach(sim_kprog_t *p);
void sim_jit_release(sim_kprog_t *p);
/* Process-wide: translations compiled, loaded from the cache, failed. */
void sim_jit_stats(uint64_t *compiled, uint64_t *cached, uint64_t *failed);

/* lower.c: the reference interpreter for the next lowerings: no register reuse, no
 * AVX2 executors, every ld/st lane by lane (false by default; tests and
 * interp_bench compare both ways). */
extern bool sim_interp_plain;

/* alu_float.c: host dynamic rounding for .rz/.rm/.rp (-1: left as is). */
int sim_round_enter(unsigned rnd);
void sim_round_leave(int old);
sim_exec_fn sim_choose_compare(sim_insn_t *in);
double sim_half_value(uint64_t v, bool bf); /* alu_float.c: an f16 (bf: bf16) in the low 16 bits, exactly */
sim_exec_fn sim_choose_printf(void); /* printf.c: the external vprintf */
sim_exec_fn sim_choose_assertfail(void); /* printf.c: the external __assertfail (device assert) */
sim_exec_fn sim_choose_heap(bool is_free); /* heap.c: the external malloc / free */
sim_exec_fn sim_choose_setcond(void); /* setcond.c: the external cudaGraphSetConditional */
sim_exec_fn sim_choose_texture(sim_insn_t *in); /* texture.c: tex.1d/2d/3d/a1d/a2d */
unsigned sim_tex_elem_bytes(const sim_tex_t *t);  /* texture.c: bytes of one texel, all channels */
/* texture.c: the texture (or surface) object h for a tex (suld/sust) of geometry
 * geom (FT_PTX_GEOM_*) in lane's hands; false after faulting the launch when it is
 * none of this context, of the other kind, or of another layering or dimension. */
bool sim_tex_lookup(sim_warp_t *w, uint32_t lane, uint64_t h, unsigned geom, bool surface, sim_tex_t *t);
/* The same for the lanes of one instruction in turn: looked up again only when a
 * lane's handle differs from the one before (c zeroed first; the object in c->t). */
typedef struct {
  uint64_t h;
  bool valid;
  sim_tex_t t;
} sim_tex_cache_t;
bool sim_tex_cached(sim_warp_t *w, uint32_t lane, uint64_t h, unsigned geom, bool surface, sim_tex_cache_t *c);
/* texwrite.c: [a, a+n) written by a surface store of this launch (UB check only);
 * whether any of [a, a+n) was; the record freed when the launch ends. */
void sim_texw_note(sim_grid_t *g, uint64_t a, unsigned n);
#define SIM_UB_TEXW_WORDS                                                                       \
  "reads texels a surface store of this launch wrote: within a launch the texture cache is " \
  "not kept coherent with surface writes (an H200 read zeros); write and read in two launches"
bool sim_texw_hit(sim_grid_t *g, uint64_t a, unsigned n);
void sim_texw_free(sim_grid_t *g);
/* texture.c: the coordinates of geometry geom other than a layer (1-3); *layered: .a1d/.a2d. */
unsigned sim_tex_dims(unsigned geom, bool *layered);
/* surface.c: suld.b/sust.b; x: the instruction's xregs record (lower.c's lower_surf) */
sim_exec_fn sim_choose_surface(const sim_insn_t *in, const uint32_t *x);
/* mem.c: host address of [addr, addr+n) of a space for a lane (checked, counted),
 * NULL after raising the fault. */
void *sim_interp_resolve(sim_warp_t *w, unsigned space, uint32_t lane, uint64_t addr, unsigned n, bool store);

/* Each executor file exports a chooser: the exec function for an instruction
 * (its fields already lowered), NULL when that form is not supported. */
sim_exec_fn sim_choose_int(sim_insn_t *in);
sim_exec_fn sim_choose_float(sim_insn_t *in);
sim_exec_fn sim_choose_cvt(sim_insn_t *in);
sim_exec_fn sim_choose_mem(sim_insn_t *in);
sim_exec_fn sim_choose_collective(sim_insn_t *in);
sim_exec_fn sim_choose_special(sim_insn_t *in);
sim_exec_fn sim_choose_async(sim_insn_t *in);
/* matrix.c: ldmatrix (x NULL) and mma (x: its xregs record, see lower.c). */
sim_exec_fn sim_choose_matrix(sim_insn_t *in, const uint32_t *x);
void sim_async_release(sim_warp_t *w); /* async.c: a warp's pending copies, at block end */

#if defined(__GNUC__) && !defined(__clang__)
#define SIM_IVDEP _Pragma("GCC ivdep")
#else
#define SIM_IVDEP
#endif
/* Lane loop: the full-warp case is a plain loop the compiler vectorises. Lane l
 * of a body reads and writes lane l of registers only (rows of 32 never overlap
 * but whole), which is what ivdep promises the compiler. */
#define SIM_LANES(mask, l, ...)                            \
  do {                                                      \
    if ((mask) == 0xffffffffu) {                            \
      SIM_IVDEP                                             \
      for (uint32_t l = 0; l < 32; l++) { __VA_ARGS__; }           \
    } else {                                                \
      for (uint32_t _mm = (mask); _mm; _mm &= _mm - 1) {    \
        uint32_t l = (uint32_t)__builtin_ctz(_mm);          \
        __VA_ARGS__;                                        \
      }                                                     \
    }                                                       \
  } while (0)

#endif
