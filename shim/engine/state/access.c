/* access.c: what a kernel does with each argument (DESIGN.md 5): the parameter
 * layout of each function (cached), the access table per (function, 8-byte slot
 * of the parameter buffer) — READ, WRITE or UNKNOWN — with hints from the mangled
 * name (a pointer to const starts as READ) and learning by observation. */
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "access.h"
#include "json_writer.h"
#include "../ptx/access.h" /* ft_ptx_place_t (the shim has an access.h of its own) */

/* ---- Itanium C++ mangled names: which parameters are pointers to const ----
 * Enough of the grammar for kernel signatures: builtin types, pointers,
 * references, cv-qualifiers, named and nested types with template arguments,
 * and substitutions (S_, S0_, ...). Anything else: no hint (return -1). */

typedef struct {
  const char *p;
  int bad;
  int nsub;
  struct { unsigned char is_ptr, const_pointee; } sub[64];
} dm_t;

typedef struct {
  unsigned char is_ptr, const_pointee, is_const;
} dm_type_t;

static void add_sub(dm_t *d, dm_type_t t) {
  if (d->nsub < 64) {
    d->sub[d->nsub].is_ptr = t.is_ptr;
    d->sub[d->nsub].const_pointee = t.const_pointee;
  }
  d->nsub++;
}

static int dm_num(dm_t *d) {
  int n = 0;
  if (*d->p < '0' || *d->p > '9') return d->bad = 1, 0;
  while (*d->p >= '0' && *d->p <= '9') n = n * 10 + (*d->p++ - '0');
  return n;
}

static dm_type_t dm_type(dm_t *d);

/* <template-args> ::= I <arg>+ E (types or L...E literals) */
static void dm_template_args(dm_t *d) {
  d->p++; /* I */
  while (!d->bad && *d->p && *d->p != 'E') {
    if (*d->p == 'L') {
      while (*d->p && *d->p != 'E') d->p++;
      if (*d->p == 'E') d->p++;
    } else {
      dm_type(d);
    }
  }
  if (*d->p == 'E') d->p++;
  else d->bad = 1;
}

/* <source-name> (<len><id>), optionally followed by template args */
static void dm_source_name(dm_t *d) {
  int n = dm_num(d);
  for (int i = 0; i < n && !d->bad; i++)
    if (!*d->p++) d->bad = 1;
}

static dm_type_t dm_type(dm_t *d) {
  dm_type_t t = {0, 0, 0};
  if (d->bad) return t;
  char c = *d->p;
  if (!c) {
    d->bad = 1;
    return t;
  }
  if (strchr("vwbcahstijlmxynofdegz", c)) { /* builtin: not a substitution candidate */
    d->p++;
    return t;
  }
  if (c == 'D') { /* Dh (half), Dn, DF16_, ... */
    d->p++;
    if (*d->p == 'F') {
      d->p++;
      dm_num(d);
      if (*d->p == '_' || *d->p == 'b') d->p++;
    } else if (*d->p) {
      d->p++;
    }
    return t;
  }
  if (c == 'r' || c == 'V' || c == 'K') {
    int is_const = 0;
    while (*d->p == 'r' || *d->p == 'V' || *d->p == 'K') is_const |= *d->p++ == 'K';
    dm_type_t in = dm_type(d);
    in.is_const = (unsigned char)is_const;
    add_sub(d, in);
    return in;
  }
  if (c == 'P' || c == 'R' || c == 'O') {
    d->p++;
    dm_type_t in = dm_type(d);
    t.is_ptr = 1;
    t.const_pointee = in.is_const;
    add_sub(d, t);
    return t;
  }
  if (c == 'S') { /* substitution: S_ is the first candidate, S<n>_ the (n+2)th */
    d->p++;
    int idx = 0;
    if (*d->p == '_') {
      d->p++;
    } else {
      int n = 0;
      while ((*d->p >= '0' && *d->p <= '9') || (*d->p >= 'A' && *d->p <= 'Z')) {
        n = n * 36 + (*d->p <= '9' ? *d->p - '0' : *d->p - 'A' + 10);
        d->p++;
      }
      if (*d->p != '_') return d->bad = 1, t;
      d->p++;
      idx = n + 1;
    }
    if (idx >= d->nsub || idx >= 64) return d->bad = 1, t;
    t.is_ptr = d->sub[idx].is_ptr;
    t.const_pointee = d->sub[idx].const_pointee;
    if (*d->p == 'I') { /* a substituted template name with arguments */
      dm_template_args(d);
      t.is_ptr = t.const_pointee = 0;
      add_sub(d, t);
    }
    return t;
  }
  if (c == 'N') { /* nested name N [cv] <prefix> <name> [I...E] E */
    d->p++;
    while (*d->p == 'K' || *d->p == 'V' || *d->p == 'r') d->p++;
    while (!d->bad && *d->p && *d->p != 'E') {
      if (*d->p == 'I') dm_template_args(d);
      else if (*d->p == 'S') dm_type(d);
      else dm_source_name(d);
      add_sub(d, t);
    }
    if (*d->p == 'E') d->p++;
    else d->bad = 1;
    return t;
  }
  if (c >= '0' && c <= '9') {
    dm_source_name(d);
    add_sub(d, t);
    if (*d->p == 'I') {
      dm_template_args(d);
      add_sub(d, t);
    }
    return t;
  }
  d->bad = 1;
  return t;
}

int ft_demangle_const_params(const char *m, uint64_t *const_mask, uint64_t *ptr_mask) {
  *const_mask = *ptr_mask = 0;
  if (!m || strncmp(m, "_Z", 2) != 0) return -1;
  dm_t d;
  memset(&d, 0, sizeof d);
  d.p = m + 2;
  /* the function's own name */
  if (*d.p == 'N') {
    /* every prefix of the nested name is a substitution candidate, the whole
     * function name is not */
    d.p++;
    int prefixes = 0;
    while (!d.bad && *d.p && *d.p != 'E') {
      if (prefixes++) add_sub(&d, (dm_type_t){0, 0, 0});
      if (*d.p == 'I') dm_template_args(&d);
      else dm_source_name(&d);
    }
    if (*d.p == 'E') d.p++;
    else return -1;
  } else {
    dm_source_name(&d);
    if (*d.p == 'I') {
      add_sub(&d, (dm_type_t){0, 0, 0});
      dm_template_args(&d);
      /* a function template's return type comes first */
      dm_type(&d);
    }
  }
  if (d.bad) return -1;
  int n = 0;
  if (*d.p == 'v' && d.p[1] == 0) return 0;
  while (*d.p && !d.bad) {
    dm_type_t t = dm_type(&d);
    if (d.bad) return -1;
    if (n < 64) {
      if (t.is_ptr) *ptr_mask |= 1ull << n;
      if (t.is_ptr && t.const_pointee) *const_mask |= 1ull << n;
    }
    n++;
  }
  return d.bad ? -1 : n;
}

/* ---- functions and their access tables ---- */

#define NBUCKETS 1024
static ft_func_t *g_buckets[NBUCKETS];

static size_t hash(const void *p) { return ((uintptr_t)p >> 4) * 2654435761u % NBUCKETS; }

/* On a GPU a kernel runs the SASS built for the device when its image has it, and
 * that SASS may come from other source than the PTX (#if __CUDA_ARCH__): facts
 * from PTX of another architecture are an assumption, counted and logged
 * (docs/ptx.md, "Facts for the code that really runs"). The simulator runs the
 * PTX itself. */
static void other_arch(ft_func_t *fn, uint64_t archs) {
  static int dev_sm = -1;
  if (ft_drv_is_sim || !archs) return;
  if (dev_sm < 0) {
    CUdevice dev;
    int major = 0, minor = 0;
    dev_sm = 0;
    if (ft_drv.cuCtxGetDevice && ft_drv.cuCtxGetDevice(&dev) == CUDA_SUCCESS &&
        ft_drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS &&
        ft_drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS)
      dev_sm = major * 10 + minor;
  }
  if (dev_sm < 50 || dev_sm > 113 || ((archs >> (dev_sm - 50)) & 1)) return;
  fn->other_arch = 1;
  ft_st.kernels_facts_other_arch++;
  FT_DEBUG("kernel %s: facts from PTX for another architecture than the device's sm_%d: an assumption",
           fn->name, dev_sm);
}

/* What a kernel with PTX facts may reach besides its argument places. */
static void set_reach(ft_func_t *fn, uint32_t kf) {
  fn->scan_unplaced = (kf & FT_PTX_K_UNPLACED_PTR) != 0;
  if (kf & (FT_PTX_K_UNKNOWN_CALL | FT_PTX_K_UNKNOWN_ADDR | FT_PTX_K_UNKNOWN_MEM)) {
    fn->reach = FT_REACH_ALL;
    fn->why = kf & FT_PTX_K_UNKNOWN_CALL  ? "calls a function the analysis cannot follow"
              : kf & FT_PTX_K_UNKNOWN_MEM ? "reaches memory in a way the analysis does not model"
                                          : "dereferences an address built from no pointer";
  } else if ((kf & FT_PTX_K_LOADED_PTR) && (kf & FT_PTX_K_GLOBAL_VAR)) {
    fn->reach = FT_REACH_ALL; /* the pointers may come from module variables */
    fn->why = "dereferences pointers it may load from module variables";
  } else if (kf & FT_PTX_K_LOADED_PTR) {
    fn->reach = FT_REACH_SCAN;
    fn->why = "dereferences pointers loaded from memory";
  } else if (fn->scan_unplaced) {
    fn->why = "may use parameter bytes that are no place as a pointer";
  }
  if (fn->reach == FT_REACH_ALL) ft_st.kernels_reach_all++;
  else if (fn->reach == FT_REACH_SCAN || fn->scan_unplaced) ft_st.kernels_reach_scan++;
}

static void fill_layout(ft_func_t *fn) {
  CUfunction f = (CUfunction)fn->handle;
  size_t off, size;
  int kernel = 0;
  if (!ft_drv.cuFuncGetParamInfo || ft_drv.cuFuncGetParamInfo(f, 0, &off, &size) != CUDA_SUCCESS) {
    if (ft_drv.cuKernelGetParamInfo &&
        ft_drv.cuKernelGetParamInfo((CUkernel)f, 0, &off, &size) == CUDA_SUCCESS)
      kernel = 1;
  }
  int n = 0;
  size_t end = 0;
  for (;; n++) {
    CUresult r = kernel ? ft_drv.cuKernelGetParamInfo((CUkernel)f, (size_t)n, &off, &size)
                        : ft_drv.cuFuncGetParamInfo ? ft_drv.cuFuncGetParamInfo(f, (size_t)n, &off, &size)
                                                    : CUDA_ERROR_NOT_FOUND;
    if (r != CUDA_SUCCESS) break;
    if (n < FT_MAX_PARAMS) {
      fn->param_off[n] = (uint32_t)off;
      fn->param_size[n] = (uint32_t)size;
    }
    if (off + size > end) end = off + size;
  }
  if (n > FT_MAX_PARAMS || end > FT_MAX_PARAM_BYTES) {
    fn->layout_ok = 0;
    return;
  }
  fn->nparams = n;
  fn->param_bytes = (uint32_t)end;
  /* an empty parameter list is a known layout; a failed first query is not */
  fn->layout_ok = n > 0 || (ft_drv.cuFuncGetParamInfo &&
                            ft_drv.cuFuncGetParamInfo(f, 0, &off, &size) == CUDA_ERROR_INVALID_VALUE) ||
                  kernel;
  const char *name = NULL;
  if (kernel) {
    if (ft_drv.cuKernelGetName) ft_drv.cuKernelGetName(&name, (CUkernel)f);
  } else if (ft_drv.cuFuncGetName) {
    ft_drv.cuFuncGetName(&name, f);
  }
  if (name) strncpy(fn->name, name, sizeof fn->name - 1);
  const ft_ptx_place_t *pl;
  size_t np;
  uint32_t kf;
  uint64_t archs = 0;
  int found = name && ft_facts_lookup(name, &pl, &np, &kf, &archs) == 0;
  if (found && !(kf & FT_PTX_K_INCOMPLETE)) {
    /* the kernel's own code says what it does with each place; a slot with no
     * place keeps the conservative class (the analysis also flags a kernel that
     * uses such bytes as a pointer: scan_unplaced) */
    fn->facts = 1;
    fn->kflags = kf;
    for (size_t i = 0; i < np; i++) {
      if (pl[i].offset % 8 || pl[i].offset / 8 >= FT_MAX_SLOTS) continue;
      fn->slot_acc[pl[i].offset / 8] = pl[i].access == FT_PTX_ACC_NONE ? FT_ACC_NONE
                                       : pl[i].access == FT_PTX_ACC_READ ? FT_ACC_READ
                                                                         : FT_ACC_WRITE;
      fn->slot_esc[pl[i].offset / 8] = pl[i].access == FT_PTX_ACC_ESCAPES;
      fn->slot_ptr[pl[i].offset / 8] =
          (uint8_t)((pl[i].ptr_src ? FT_SLOT_PTR_SRC : 0) | (pl[i].ptr_sink ? FT_SLOT_PTR_SINK : 0));
      if (pl[i].exact) fn->places_exact++;
      else fn->places_conservative++;
    }
    set_reach(fn, kf);
    other_arch(fn, archs);
    /* byte ranges only from PTX of the device's own architecture: SASS for another
     * may index differently (#if __CUDA_ARCH__), and a range too small would have a
     * correct result taken for damage; access classes keep the documented assumption */
    fn->ranges = fn->other_arch ? NULL : ft_facts_handle(name);
    FT_DEBUG("kernel %s: access facts from its PTX (%d places exact, %d conservative)%s%s", fn->name,
             fn->places_exact, fn->places_conservative, fn->why ? ": " : "", fn->why ? fn->why : "");
    ft_st.kernels_ptx++;
    ft_st.places_exact += (uint64_t)fn->places_exact;
    ft_st.places_conservative += (uint64_t)fn->places_conservative;
    return;
  }
  ft_st.kernels_no_ptx++;
  /* No facts: every argument may be written, except pointers to const, verified
   * after the launch (a replay tells if the kernel wrote through one anyway). PTX
   * that the analysis could not read (a module that did not parse, an analysis
   * that gave up) may do anything: every protected allocation. A kernel with no
   * PTX anywhere (SASS only) is taken to reach memory through its arguments
   * only: an assumption, reported (docs/ptx.md, "Soundness"). */
  if (found) {
    fn->reach = FT_REACH_ALL;
    fn->why = "its PTX could not be analysed";
    ft_st.kernels_reach_all++;
  } else {
    fn->why = "no PTX: assumed to reach memory through its arguments only";
  }
  FT_DEBUG("kernel %s: no PTX analysed: conservative", name ? fn->name : "(unnamed)");
  if (name) {
    uint64_t cmask, pmask;
    if (ft_demangle_const_params(name, &cmask, &pmask) == n) {
      for (int i = 0; i < n && i < 64; i++)
        if ((cmask >> i) & 1 && fn->param_size[i] == 8 && fn->param_off[i] % 8 == 0)
          fn->slot_acc[fn->param_off[i] / 8] = FT_ACC_READ;
    }
  }
}

ft_func_t *ft_func_get(CUfunction f) {
  size_t h = hash(f);
  for (ft_func_t *fn = g_buckets[h]; fn; fn = fn->next)
    if (fn->handle == (void *)f) return fn;
  ft_func_t *fn = calloc(1, sizeof *fn);
  if (!fn) return NULL;
  fn->handle = (void *)f;
  fill_layout(fn);
  fn->next = g_buckets[h];
  g_buckets[h] = fn;
  return fn;
}

int ft_func_skipped(ft_func_t *fn) {
  if (fn->skip_known) return fn->skip;
  fn->skip_known = 1;
  const char *list = FT_OPT_S(SKIP_KERNELS);
  for (const char *p = list; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len && len < sizeof fn->name) {
      char pat[256];
      if (len >= sizeof pat) len = sizeof pat - 1;
      memcpy(pat, p, len);
      pat[len] = 0;
      if (strstr(fn->name, pat)) fn->skip = 1;
    }
    p = comma ? comma + 1 : NULL;
  }
  return fn->skip;
}

void ft_access_learn_write(ft_func_t *fn, int slot) {
  if (!fn || slot < 0 || slot >= FT_MAX_SLOTS) return;
  if (fn->slot_acc[slot] != FT_ACC_WRITE) ft_st.learned_writes++;
  fn->slot_acc[slot] = FT_ACC_WRITE;
}

void ft_access_report(ft_jw_t *w) {
  int n = 0;
  for (size_t h = 0; h < NBUCKETS; h++)
    for (const ft_func_t *fn = g_buckets[h]; fn; fn = fn->next) {
      if (!fn->why || n++ >= 64) continue;
      ft_jw_obj(w, NULL);
      ft_jw_s(w, "kernel", fn->name[0] ? fn->name : "(unnamed)");
      ft_jw_s(w, "reach", fn->reach == FT_REACH_ALL    ? "every protected allocation"
                          : fn->reach == FT_REACH_SCAN ? "pointer scan of its buffers"
                          : fn->scan_unplaced          ? "pointer scan of its parameters"
                                                       : "its arguments (assumed)");
      ft_jw_s(w, "why", fn->why);
      ft_jw_end(w);
    }
}
