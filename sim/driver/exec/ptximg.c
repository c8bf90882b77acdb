/* ptximg.c: loaded module images. A real image (PTX text, fatbin, nvcc wrapper):
 * the PTX it carries is parsed once (shared by a library's per-context modules),
 * its kernels are described like a twin image, module variables are allocated per
 * context, and kernels are lowered for the interpreter. A twin image: its kernel
 * table is copied (a caller may free its image once the load returns, as with a
 * driver). Also the twin registry: a twin registered for a kernel name is its fast
 * path unless SIMCUDA_TWINS=0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "lower.h"
#include "exec.h"


struct sim_ptxsrc_s {
  atomic_int refs;
  ft_ptx_module_t *mod;        /* NULL for a twin image */
  unsigned sm;                 /* the PTX's target (compute_75: 75); 0 for a twin image */
  char **names;                /* a twin image's kernel names (copies), else NULL */
  simcuda_image_t img;
  simcuda_kernel_t *kernels;
  const ft_ptx_function_t **entries;
  uint16_t *sizes, *aligns;
};

/* ---- twin registry ---- */
static pthread_mutex_t twins_mu = PTHREAD_MUTEX_INITIALIZER;
static simcuda_kernel_t *twins;
static size_t n_twins, cap_twins;

void sim_twins_add(const simcuda_kernel_t *k, unsigned n) {
  pthread_mutex_lock(&twins_mu);
  for (unsigned i = 0; i < n; i++) {
    if (!k[i].name || !k[i].fn) continue;
    bool have = false;
    for (size_t j = 0; j < n_twins && !have; j++) have = strcmp(twins[j].name, k[i].name) == 0;
    if (have) continue; /* the first registration of a name wins */
    if (n_twins == cap_twins) {
      cap_twins = cap_twins ? cap_twins * 2 : 32;
      twins = realloc(twins, cap_twins * sizeof *twins);
      if (!twins) abort();
    }
    twins[n_twins] = k[i];
    twins[n_twins].name = strdup(k[i].name);
    if (!twins[n_twins].name) abort();
    n_twins++;
  }
  pthread_mutex_unlock(&twins_mu);
}

bool sim_twins_enabled(void) {
  const char *e = getenv("SIMCUDA_TWINS");
  return !(e && strcmp(e, "0") == 0);
}

/* The twin of a kernel with this name and parameter count, if any. */
static simcuda_twin_fn twin_find(const char *name, unsigned n_params) {
  if (!sim_twins_enabled()) return NULL;
  simcuda_twin_fn fn = NULL;
  pthread_mutex_lock(&twins_mu);
  for (size_t j = 0; j < n_twins && !fn; j++)
    if (strcmp(twins[j].name, name) == 0 && twins[j].n_params == n_params) fn = twins[j].fn;
  pthread_mutex_unlock(&twins_mu);
  return fn;
}

/* Exported: lets a program (or the simulator's runtime) register twins with the
 * driver directly. */
__attribute__((visibility("default"))) void simcudaDriverRegisterTwins(const simcuda_kernel_t *k, unsigned n) {
  if (k) sim_twins_add(k, n);
}

/* ---- sources ---- */
void sim_ptxsrc_ref(sim_ptxsrc_t *s) { atomic_fetch_add(&s->refs, 1); }

void sim_ptxsrc_unref(sim_ptxsrc_t *s) {
  if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
  ft_ptx_module_free(s->mod);
  for (uint32_t i = 0; s->names && i < s->img.n_kernels; i++) free(s->names[i]);
  free(s->names);
  free(s->kernels);
  free(s->entries);
  free(s->sizes);
  free(s->aligns);
  free(s);
}

const struct ft_ptx_module_s *sim_ptxsrc_module(const sim_ptxsrc_t *s) { return s ? s->mod : NULL; }

unsigned sim_ptxsrc_sm(const sim_ptxsrc_t *s) { return s ? s->sm : 0; }

const simcuda_image_t *sim_ptxsrc_image(const sim_ptxsrc_t *s) { return &s->img; }

CUresult sim_ptxsrc_copy_twins(const simcuda_image_t *img, sim_ptxsrc_t **out) {
  uint32_t n = img->n_kernels;
  size_t np = 0;
  for (uint32_t i = 0; i < n; i++) np += img->kernels[i].n_params;
  sim_ptxsrc_t *s = calloc(1, sizeof *s);
  if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
  atomic_init(&s->refs, 1);
  s->img = *img;
  s->img.n_kernels = n;
  s->kernels = calloc(n + 1, sizeof *s->kernels);
  s->names = calloc(n + 1, sizeof *s->names);
  s->sizes = calloc(np + 1, sizeof *s->sizes);
  s->aligns = calloc(np + 1, sizeof *s->aligns);
  s->img.kernels = s->kernels;
  if (!s->kernels || !s->names || !s->sizes || !s->aligns) {
    sim_ptxsrc_unref(s);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  size_t p = 0;
  for (uint32_t i = 0; i < n; i++) {
    const simcuda_kernel_t *k = &img->kernels[i];
    simcuda_kernel_t *kk = &s->kernels[i];
    *kk = *k;
    if (!(s->names[i] = strdup(k->name))) {
      sim_ptxsrc_unref(s);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    kk->name = s->names[i];
    kk->param_size = s->sizes + p;
    kk->param_align = s->aligns + p;
    if (k->n_params) {
      memcpy(s->sizes + p, k->param_size, k->n_params * sizeof *s->sizes);
      memcpy(s->aligns + p, k->param_align, k->n_params * sizeof *s->aligns);
    }
    p += k->n_params;
  }
  *out = s;
  return CUDA_SUCCESS;
}

/* The PTX to run: the newest target this device runs (sm <= SIMCUDA_SM, 89). */
static const ft_ptx_text_t *pick_ptx(const ft_image_ptx_t *r) {
  const ft_ptx_text_t *best = NULL;
  for (size_t i = 0; i < r->nptx; i++) {
    const ft_ptx_text_t *t = &r->ptx[i];
    if (t->sm > (unsigned)sim_opt.sm) continue;
    if (!best || t->sm > best->sm) best = t;
  }
  return best;
}

CUresult sim_ptxsrc_open(const void *image, sim_ptxsrc_t **out) {
  char err[256] = "";
  ft_image_ptx_t r;
  memset(&r, 0, sizeof r);
  ft_image_kind_t kind = ft_image_kind(image, 0);
  bool device_code = kind == FT_IMAGE_FATBIN || kind == FT_IMAGE_WRAPPER || kind == FT_IMAGE_CUBIN;
  if (ft_image_ptx(image, 0, &r, err, sizeof err) != 0) {
    ft_image_ptx_free(&r);
    /* Device code, but nothing this device runs (what a driver answers for a
     * fatbin without a usable entry). */
    if (device_code && sim_opt.log) sim_log("module image %p: %s", image, err);
    return device_code ? CUDA_ERROR_NO_BINARY_FOR_GPU : CUDA_ERROR_INVALID_IMAGE;
  }
  const ft_ptx_text_t *t = pick_ptx(&r);
  if (!t) {
    device_code = device_code || r.nelf > 0 || r.nptx > 0;
    /* Quiet by default: loaders try a twin image next; the runtime names the kernel. */
    char newer[64];
    snprintf(newer, sizeof newer, "PTX only for newer targets than sm_%d", sim_opt.sm);
    if (device_code && sim_opt.log)
      sim_log("module image %p: note: %s, not interpreted here: a twin image of its kernels runs "
              "if one is loaded (as gpuft's own is), else their launches are refused by name "
              "(build with the default flags, or add -gencode arch=compute_XX,code=compute_XX)",
              image, r.nptx ? newer : (err[0] ? err : "SASS only"));
    ft_image_ptx_free(&r);
    return device_code ? CUDA_ERROR_NO_BINARY_FOR_GPU : CUDA_ERROR_INVALID_IMAGE;
  }
  ft_ptx_module_t *mod = NULL;
  char perr[256];
  if (ft_ptx_parse(t->text, t->len, &mod, perr, sizeof perr) != 0) {
    sim_log("module image %p: its PTX (compute_%u) cannot be parsed: %s", image, t->sm, perr);
    ft_image_ptx_free(&r);
    return CUDA_ERROR_INVALID_PTX;
  }
  ft_image_ptx_free(&r);
  sim_ptxsrc_t *s = calloc(1, sizeof *s);
  if (!s) abort();
  atomic_init(&s->refs, 1);
  s->mod = mod;
  s->sm = mod->sm ? mod->sm : t->sm; /* (its .target; a fatbin entry says it too) */
  size_t n = 0, np = 0;
  for (size_t i = 0; i < mod->nfuncs; i++)
    if (mod->funcs[i].is_entry && !mod->funcs[i].is_decl) {
      n++;
      np += mod->funcs[i].nparams;
    }
  s->kernels = calloc(n + 1, sizeof *s->kernels);
  s->entries = calloc(n + 1, sizeof *s->entries);
  s->sizes = calloc(np + 1, sizeof *s->sizes);
  s->aligns = calloc(np + 1, sizeof *s->aligns);
  if (!s->kernels || !s->entries || !s->sizes || !s->aligns) abort();
  size_t k = 0, p = 0;
  for (size_t i = 0; i < mod->nfuncs; i++) {
    const ft_ptx_function_t *f = &mod->funcs[i];
    if (!f->is_entry || f->is_decl) continue;
    simcuda_kernel_t *kk = &s->kernels[k];
    kk->name = f->name;
    kk->n_params = (unsigned)f->nparams;
    kk->param_size = s->sizes + p;
    kk->param_align = s->aligns + p;
    for (size_t j = 0; j < f->nparams; j++, p++) {
      s->sizes[p] = (uint16_t)(f->params[j].size ? f->params[j].size : 1);
      s->aligns[p] = (uint16_t)(f->params[j].align ? f->params[j].align : 1);
    }
    kk->fn = twin_find(f->name, kk->n_params);
    s->entries[k++] = f;
  }
  s->img.magic = SIMCUDA_IMAGE_MAGIC;
  s->img.version = SIMCUDA_IMAGE_VERSION;
  s->img.n_kernels = (uint32_t)n;
  s->img.kernels = s->kernels;
  *out = s;
  return CUDA_SUCCESS;
}

/* ---- modules ---- */
static void vars_free(sim_module_t *m) {
  if (!m->var_addr) return;
  sim_alloc_t a;
  /* Only while the context's memory is still ours: a destroyed context freed it,
   * and a reset primary context (same object, new incarnation) owns other memory. */
  sim_ctx_t *c = m->obj.ctx;
  bool ours = atomic_load(&c->alive) && c->id == m->ctx_id;
  for (size_t i = 0; ours && i < m->src->mod->nvars; i++)
    if (m->var_addr[i] && sim_mem_find(m->var_addr[i], 0, &a) && a.base == m->var_addr[i] && a.ctx == c)
      (void)sim_mem_free_device(m->var_addr[i], false);
  free(m->var_addr);
  m->var_addr = NULL;
}

/* .global/.const variables: device memory with the initialiser (zero without one),
 * then the addresses other variables' initialisers name. */
static CUresult vars_alloc(sim_module_t *m, sim_ctx_t *ctx) {
  const ft_ptx_module_t *mod = m->src->mod;
  m->var_addr = calloc(mod->nvars + 1, sizeof *m->var_addr);
  if (!m->var_addr) return CUDA_ERROR_OUT_OF_MEMORY;
  for (size_t i = 0; i < mod->nvars; i++) {
    const ft_ptx_var_t *v = &mod->vars[i];
    if ((v->space != FT_PTX_SP_GLOBAL && v->space != FT_PTX_SP_CONST) || !v->size) continue;
    CUresult r = sim_mem_alloc_device(ctx, ctx->dev, v->size, &m->var_addr[i]);
    if (r) return r;
    uint8_t *h = sim_mem_alias(m->var_addr[i]);
    if (v->init) memcpy(h, v->init, v->size);
    else memset(h, 0, v->size);
  }
  for (size_t i = 0; i < mod->nvars; i++) {
    const ft_ptx_var_t *v = &mod->vars[i];
    if (!m->var_addr[i]) continue;
    uint8_t *h = sim_mem_alias(m->var_addr[i]);
    for (size_t k = 0; k < v->nrelocs; k++) {
      const ft_ptx_reloc_t *rl = &v->relocs[k];
      uint64_t a = 0;
      if (rl->sym_kind == FT_PTX_SYM_MODVAR && rl->index < mod->nvars && m->var_addr[rl->index])
        a = m->var_addr[rl->index] + (uint64_t)rl->addend;
      else if (rl->sym_kind == FT_PTX_SYM_FUNC && rl->index < mod->nfuncs) /* vtables, function tables */
        a = sim_interp_func_addr(mod, rl->index) + (uint64_t)rl->addend;
      if (rl->offset + rl->size <= v->size) memcpy(h + rl->offset, &a, rl->size == 4 ? 4 : 8);
    }
  }
  return CUDA_SUCCESS;
}

CUresult sim_ptxmod_load(sim_module_t *m, sim_ctx_t *ctx) {
  CUresult r = vars_alloc(m, ctx);
  if (r) return r;
  unsigned n = m->src->img.n_kernels;
  m->progs = calloc(n + 1, sizeof *m->progs);
  m->prog_err = calloc(n + 1, sizeof *m->prog_err);
  if (!m->progs || !m->prog_err) return CUDA_ERROR_OUT_OF_MEMORY;
  for (unsigned i = 0; i < n; i++) {
    char err[512];
    if (sim_interp_lower(m->src->mod, m->src->entries[i], m->var_addr, &m->progs[i], err, sizeof err) != 0) {
      m->progs[i] = NULL;
      m->prog_err[i] = strdup(err);
    }
  }
  return CUDA_SUCCESS;
}

void sim_ptxmod_unload(sim_module_t *m) {
  if (!sim_ptxsrc_module(m->src)) return; /* a twin image: nothing was lowered */
  unsigned n = m->src->img.n_kernels;
  for (unsigned i = 0; i < n && m->progs; i++) sim_kprog_free(m->progs[i]);
  for (unsigned i = 0; i < n && m->prog_err; i++) free(m->prog_err[i]);
  free(m->progs);
  free(m->prog_err);
  vars_free(m);
}

void sim_ptxfunc_free(sim_func_t *f) {
  sim_kprog_free((sim_kprog_t *)f->prog);
  free((char *)f->prog_err);
}

bool sim_ptxmod_global(const sim_module_t *m, const char *name, uint64_t *addr, size_t *size) {
  if (!m->src || !m->var_addr) return false;
  const ft_ptx_module_t *mod = m->src->mod;
  for (size_t i = 0; i < mod->nvars; i++)
    if (m->var_addr[i] && strcmp(mod->vars[i].name, name) == 0) {
      if (addr) *addr = m->var_addr[i];
      if (size) *size = mod->vars[i].size;
      return true;
    }
  return false;
}
