/* ptx_test_util.c: see ptx_test_util.h. */
#define _GNU_SOURCE
#include "ptx_test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <lz4.h>
#include <string.h>
#include <zstd.h>

#include "fatbin.h"
#include "runner.h"

char *pt_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *b = malloc(cap + 1);
  for (;;) {
    if (n == cap) {
      cap *= 2;
      b = realloc(b, cap + 1);
      ASSERT(b != NULL);
    }
    size_t r = fread(b + n, 1, cap - n, f);
    if (!r) break;
    n += r;
  }
  fclose(f);
  b[n] = '\0';
  *len = n;
  return b;
}

static unsigned access_of(const char *s, size_t n) {
  for (unsigned a = FT_PTX_ACC_NONE; a <= FT_PTX_ACC_ESCAPES; a++)
    if (strlen(ft_ptx_access_name(a)) == n && memcmp(ft_ptx_access_name(a), s, n) == 0) return a;
  return 99;
}

void pt_load_expectations(const char *path, pt_expect_t **ex, size_t *n) {
  size_t len;
  char *text = pt_read_file(path, &len);
  if (!text) FT_FAIL_("cannot read %s", path);
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    const char *p = strstr(line, "// expect ");
    if (p != line) continue;
    p += strlen("// expect ");
    const char *colon = strchr(p, ':');
    if (!colon || colon == p || (size_t)(colon - p) >= 64) FT_FAIL_("%s: bad expectation '%s'", base, line);
    *ex = realloc(*ex, (*n + 1) * sizeof **ex);
    pt_expect_t *e = &(*ex)[(*n)++];
    memset(e, 0, sizeof *e);
    memcpy(e->name, p, (size_t)(colon - p));
    snprintf(e->file, sizeof e->file, "%s", base);
    /* tokens after the colon, separated by spaces */
    const char *q = colon + 1;
    while (*q) {
      while (*q == ' ') q++;
      if (!*q) break;
      const char *end = q;
      while (*end && *end != ' ') end++;
      if (*q == '+') {
        size_t k = (size_t)(end - q - 1);
        if (k == 6 && !memcmp(q + 1, "loaded", 6)) e->flags |= FT_PTX_K_LOADED_PTR;
        else if (k == 6 && !memcmp(q + 1, "global", 6)) e->flags |= FT_PTX_K_GLOBAL_VAR;
        else if (k == 4 && !memcmp(q + 1, "call", 4)) e->flags |= FT_PTX_K_UNKNOWN_CALL;
        else if (k == 3 && !memcmp(q + 1, "unk", 3)) e->flags |= FT_PTX_K_LOADED_UNK;
        else if (k == 7 && !memcmp(q + 1, "reached", 7)) e->flags |= FT_PTX_K_SINK_REACHED;
        else FT_FAIL_("%s: bad flag in '%s'", base, line);
      } else {
        char *eq = memchr(q, '=', (size_t)(end - q));
        if (!eq || e->n >= PT_MAX_PLACES) FT_FAIL_("%s: bad place in '%s'", base, line);
        e->offset[e->n] = (unsigned)strtoul(q, NULL, 10);
        const char *cls = eq + 1;
        size_t cl = (size_t)(end - cls);
        for (; cl && strchr("~*!", cls[cl - 1]); cl--) {
          if (cls[cl - 1] == '~') e->may_be_conservative[e->n] = 1;
          if (cls[cl - 1] == '*') e->ptr_src[e->n] = 1;
          if (cls[cl - 1] == '!') e->ptr_sink[e->n] = 1;
        }
        e->access[e->n] = access_of(cls, cl);
        if (e->access[e->n] == 99) FT_FAIL_("%s: bad class in '%s'", base, line);
        e->n++;
      }
      q = end;
    }
  }
  free(text);
}

static int cmp_names(const void *a, const void *b) { return strcmp(a, b); }

size_t pt_corpus_names(const char *dir, char names[][64], size_t max) {
  DIR *d = opendir(dir);
  if (!d) FT_FAIL_("cannot open %s", dir);
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    size_t l = strlen(de->d_name);
    if (l > 3 && l < 60 && strcmp(de->d_name + l - 3, ".cu") == 0 && n < max) {
      memcpy(names[n], de->d_name, l - 3);
      names[n][l - 3] = '\0';
      n++;
    }
  }
  closedir(d);
  qsort(names, n, 64, cmp_names);
  return n;
}

void pt_load_corpus(const char *dir, pt_expect_t **ex, size_t *n) {
  char names[64][64];
  size_t k = pt_corpus_names(dir, names, 64);
  ASSERT(k > 0);
  for (size_t i = 0; i < k; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.cu", dir, names[i]);
    pt_load_expectations(path, ex, n);
  }
}

/* The kernel's C++ source name matches: "name", or "_Z<len>name..." (mangled). */
static int name_matches(const char *entry, const char *name) {
  if (strcmp(entry, name) == 0) return 1;
  char pre[80];
  snprintf(pre, sizeof pre, "_Z%zu%s", strlen(name), name);
  return strncmp(entry, pre, strlen(pre)) == 0;
}

size_t pt_check_module(const ft_ptx_module_t *m, pt_expect_t *ex, size_t n, const char *where) {
  size_t checked = 0;
  for (size_t i = 0; i < m->nfuncs; i++) {
    const ft_ptx_function_t *fn = &m->funcs[i];
    if (!fn->is_entry || fn->is_decl) continue;
    pt_expect_t *e = NULL;
    for (size_t k = 0; k < n && !e; k++)
      if (name_matches(fn->name, ex[k].name)) e = &ex[k];
    if (!e) FT_FAIL_("%s: kernel %s has no expectation", where, fn->name);
    ft_ptx_facts_t facts;
    char err[256];
    if (ft_ptx_facts(m, fn, &facts, err, sizeof err) != 0) FT_FAIL_("%s: %s: %s", where, fn->name, err);
    for (unsigned j = 0; j < e->n; j++) {
      size_t p;
      for (p = 0; p < facts.nplaces; p++)
        if (facts.places[p].offset == e->offset[j]) break;
      if (p == facts.nplaces) FT_FAIL_("%s: %s: no place at offset %u", where, fn->name, e->offset[j]);
    }
    for (size_t p = 0; p < facts.nplaces; p++) {
      const ft_ptx_place_t *pl = &facts.places[p];
      unsigned want = FT_PTX_ACC_NONE;
      int cons = 0, src = 0, sink = 0;
      for (unsigned j = 0; j < e->n; j++)
        if (e->offset[j] == pl->offset)
          want = e->access[j], cons = e->may_be_conservative[j], src = e->ptr_src[j], sink = e->ptr_sink[j];
      if (pl->ptr_src != src || pl->ptr_sink != sink)
        FT_FAIL_("%s: %s (%s): place %u: pointer source %d, sink %d; expected %d, %d", where, fn->name, e->file,
                 pl->offset, pl->ptr_src, pl->ptr_sink, src, sink);
      if (pl->access != want)
        FT_FAIL_("%s: %s (%s): place %u is %s, expected %s", where, fn->name, e->file, pl->offset,
                 ft_ptx_access_name(pl->access), ft_ptx_access_name(want));
      if (!pl->exact && !cons)
        FT_FAIL_("%s: %s: place %u (%s) is conservative, expected exact", where, fn->name, pl->offset,
                 ft_ptx_access_name(pl->access));
      if (pl->access == FT_PTX_ACC_ESCAPES && pl->exact)
        FT_FAIL_("%s: %s: place %u ESCAPES but marked exact", where, fn->name, pl->offset);
    }
    unsigned mask = FT_PTX_K_LOADED_PTR | FT_PTX_K_GLOBAL_VAR | FT_PTX_K_UNKNOWN_CALL | FT_PTX_K_LOADED_UNK |
                    FT_PTX_K_SINK_REACHED;
    if ((facts.flags & mask) != e->flags)
      FT_FAIL_("%s: %s: kernel flags 0x%x, expected 0x%x", where, fn->name, facts.flags & mask, e->flags);
    if (facts.flags & (FT_PTX_K_INCOMPLETE | FT_PTX_K_UNKNOWN_ADDR))
      FT_FAIL_("%s: %s: analysis incomplete or unknown address (flags 0x%x)", where, fn->name, facts.flags);
    ft_ptx_facts_free(&facts);
    e->seen++;
    checked++;
  }
  return checked;
}

ft_ptx_module_t *pt_parse_or_fail(const char *text, size_t len, const char *where) {
  ft_ptx_module_t *m;
  char err[256];
  if (ft_ptx_parse(text, len, &m, err, sizeof err) != 0) FT_FAIL_("%s: %s", where, err);
  return m;
}

const char pt_sample_ptx[] =
    "//\n// Generated by hand in the style of nvcc 13\n//\n"
    ".version 9.0\n.target sm_75\n.address_size 64\n\n"
    ".global .align 4 .b8 tab[16] = {1, 0, 0, 0, 2};\n"
    ".global .align 8 .u64 gp = generic(tab);\n"
    ".extern .shared .align 16 .b8 dyn[];\n\n"
    ".func  (.param .b32 func_retval0) sq(\n\t.param .b64 sq_param_0,\n\t.param .b32 sq_param_1\n)\n{\n"
    "\t.reg .f32 \t%f<3>;\n\t.reg .b32 \t%r<2>;\n\t.reg .b64 \t%rd<5>;\n\n"
    "\tld.param.u64 \t%rd1, [sq_param_0];\n\tld.param.u32 \t%r1, [sq_param_1];\n"
    "\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmul.wide.s32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n"
    "\tld.global.f32 \t%f1, [%rd4];\n\tmul.f32 \t%f2, %f1, %f1;\n"
    "\tst.param.f32 \t[func_retval0+0], %f2;\n\tret;\n\n}\n"
    "\t// .globl\tk\n"
    ".visible .entry k(\n\t.param .align 8 .b8 k_param_0[24],\n\t.param .u32 k_param_1,\n"
    "\t.param .u64 k_param_2\n)\n.maxntid 256, 1, 1\n{\n"
    "\t.reg .pred \t%p<3>;\n\t.reg .f32 \t%f<10>;\n\t.reg .b32 \t%r<17>;\n\t.reg .b64 \t%rd<12>;\n"
    "\t.shared .align 4 .b8 st[128];\n\n"
    "\tld.param.u32 \t%r3, [k_param_1];\n\tld.param.u64 \t%rd3, [k_param_2];\n"
    "\tld.param.f32 \t%f1, [k_param_0+16];\n\tld.param.u64 \t%rd2, [k_param_0+8];\n"
    "\tld.param.u64 \t%rd1, [k_param_0];\n\tmov.u32 \t%r4, %ctaid.x;\n\tmov.u32 \t%r5, %ntid.x;\n"
    "\tmov.u32 \t%r1, %tid.x;\n\tmad.lo.s32 \t%r2, %r4, %r5, %r1;\n\tsetp.ge.s32 \t%p1, %r2, %r3;\n"
    "\t@%p1 bra \t$L__BB1_2;\n\n"
    "\tcvta.to.global.u64 \t%rd5, %rd1;\n\tmul.wide.s32 \t%rd6, %r2, 4;\n\tadd.s64 \t%rd7, %rd5, %rd6;\n"
    "\tld.global.nc.f32 \t%f2, [%rd7];\n\tshl.b32 \t%r6, %r1, 2;\n\tmov.u32 \t%r7, dyn;\n"
    "\tadd.s32 \t%r8, %r7, %r6;\n\tst.shared.f32 \t[%r8], %f2;\n\tbar.sync \t0;\n"
    "\tld.shared.f32 \t%f3, [st];\n\tadd.f32 \t%f5, %f2, %f3;\n"
    "\t{ // callseq 0, 0\n\t.param .b64 param0;\n\tst.param.b64 \t[param0+0], %rd2;\n"
    "\t.param .b32 param1;\n\tst.param.b32 \t[param1+0], %r2;\n\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), \n\tsq, \n\t(\n\tparam0, \n\tparam1\n\t);\n"
    "\tld.param.f32 \t%f6, [retval0+0];\n\t} // callseq 0\n"
    "\tadd.f32 \t%f7, %f5, %f6;\n\tmov.b32 \t%r14, %f7;\n\tmov.u32 \t%r15, -1;\n\tmov.u32 \t%r9, 31;\n"
    "\tmov.u32 \t%r13, 1;\n\tshfl.sync.down.b32 \t%r16|%p2, %r14, %r13, %r9, %r15;\n"
    "\tmov.b32 \t%f8, %r16;\n\tadd.f32 \t%f9, %f7, %f8;\n\tcvta.to.global.u64 \t%rd8, %rd3;\n"
    "\tadd.s64 \t%rd9, %rd8, %rd6;\n\tst.global.f32 \t[%rd9], %f9;\n"
    "\tatom.global.add.f32 \t%f4, [%rd8], 0f3F800000;\n\n"
    "$L__BB1_2:\n\tret;\n\n}\n";

static void put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }
static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

unsigned char *pt_make_fatbin(const char *ptx, const unsigned *comps, size_t ncomps, size_t *len) {
  size_t tl = strlen(ptx) + 1;   /* nvcc stores the terminating NUL */
  size_t cap = 16 + 64 + 64 + ncomps * (80 + ZSTD_compressBound(tl) + (size_t)LZ4_compressBound((int)tl) + 16);
  unsigned char *b = calloc(1, cap);
  ASSERT(b != NULL);
  size_t off = 16;
  /* an ELF stub entry: kind 2, 64-byte header, 64 bytes of payload */
  put16(b + off, 2);
  put16(b + off + 2, 0x101);
  put32(b + off + 4, 64);
  put64(b + off + 8, 64);
  put32(b + off + 28, 75);
  put64(b + off + 40, 0x11);
  memcpy(b + off + 64, "\x7f" "ELF", 4);
  off += 128;
  for (size_t i = 0; i < ncomps; i++) {
    unsigned char *h = b + off;
    unsigned char *pay = h + 80;
    size_t psize, csize = 0;
    uint64_t flags = 0x11;
    if (comps[i] == FT_FATBIN_COMP_ZSTD) {
      csize = ZSTD_compress(pay, ZSTD_compressBound(tl), ptx, tl, 3);
      ASSERT(!ZSTD_isError(csize));
      flags |= 0x8000;
    } else if (comps[i] == FT_FATBIN_COMP_LZ4) {
      int r = LZ4_compress_default(ptx, (char *)pay, (int)tl, LZ4_compressBound((int)tl));
      ASSERT_GT(r, 0);
      csize = (size_t)r;
      flags |= 0x2000;
    } else {
      memcpy(pay, ptx, tl);
    }
    psize = ((comps[i] ? csize : tl) + 7) & ~(size_t)7;
    put16(h, 1);
    put16(h + 2, 0x101);
    put32(h + 4, 80);
    put64(h + 8, psize);
    put32(h + 16, (uint32_t)csize);
    put32(h + 20, 64);
    put16(h + 24, 0);
    put16(h + 26, 9);
    put32(h + 28, 75 + (uint32_t)i);
    put64(h + 40, flags);
    put64(h + 56, comps[i] ? tl : 0);
    off += 80 + psize;
  }
  put32(b, 0xba55ed50u);
  put16(b + 4, 1);
  put16(b + 6, 16);
  put64(b + 8, off - 16);
  *len = off;
  return b;
}
