/* facts.c: access facts per kernel (DESIGN.md 5) from the PTX the program carries:
 * the .nv_fatbin sections of the executable and of every loaded library, and
 * the images it loads itself (cuModuleLoadData...), analysed by ptx/. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state.h"
#include "access.h"
#include "../ptx/access.h"
#include "fatbin.h"

typedef struct fk_s {
  char *name;
  ft_ptx_facts_t f; /* places, flags, the places' range programs */
  uint64_t archs; /* the PTX targets its facts came from: bit (sm - 50), sm 50..113 */
  struct fk_s *next;
} fk_t;

#define BUCKETS 1024
static fk_t *g_facts[BUCKETS];
static char **g_seen; /* objects already read (by path) */
static size_t g_nseen;
static uint64_t g_kernels_analysed;

static size_t hash_name(const char *s) {
  size_t h = 5381;
  while (*s) h = h * 33 + (unsigned char)*s++;
  return h % BUCKETS;
}

static fk_t *find(const char *name) {
  for (fk_t *k = g_facts[hash_name(name)]; k; k = k->next)
    if (!strcmp(k->name, name)) return k;
  return NULL;
}

/* Bit of a PTX target ("sm_75", "sm_90a") in fk_t.archs; 0 when unknown. */
static uint64_t arch_bit(const char *target) {
  unsigned sm = 0;
  if (!target || sscanf(target, "sm_%u", &sm) != 1 || sm < 50 || sm > 113) return 0;
  return 1ull << (sm - 50);
}

/* A kernel seen twice (two modules with one name): the join of both, as if
 * aliased (ft_ptx_facts_join: ranges too, soundly). Takes f's memory. */
static void add(const char *name, ft_ptx_facts_t *f, uint64_t arch) {
  fk_t *k = find(name);
  if (k) {
    k->archs |= arch;
    ft_ptx_facts_join(&k->f, f);
    ft_ptx_facts_free(f);
    return;
  }
  k = calloc(1, sizeof *k);
  if (!k || !(k->name = strdup(name))) {
    free(k);
    ft_ptx_facts_free(f);
    return;
  }
  k->f = *f;
  memset(f, 0, sizeof *f);
  k->archs = arch;
  size_t h = hash_name(name);
  k->next = g_facts[h];
  g_facts[h] = k;
  g_kernels_analysed++;
}

/* A PTX text that does not parse: each kernel it declares (".entry NAME") gets no
 * place and the INCOMPLETE flag, so that a kernel of the same name in another
 * module lends it nothing (the join keeps the flag). */
static void unparsed(const char *text, size_t len) {
  const char *end = text + len;
  for (const char *p = text; p < end;) {
    const char *e = memmem(p, (size_t)(end - p), ".entry", 6);
    if (!e) break;
    const char *q = e + 6;
    while (q < end && (*q == ' ' || *q == '\t')) q++;
    const char *n0 = q;
    while (q < end && (*q == '_' || *q == '$' || *q == '.' || (*q >= '0' && *q <= '9') ||
                       ((*q | 32) >= 'a' && (*q | 32) <= 'z')))
      q++;
    if (q > n0 && q - n0 < 1024) {
      char name[1024];
      memcpy(name, n0, (size_t)(q - n0));
      name[q - n0] = 0;
      ft_ptx_facts_t none = {NULL, 0, FT_PTX_K_INCOMPLETE, {NULL, 0, 0}};
      add(name, &none, 0);
    }
    p = q > e + 6 ? q : e + 6;
  }
}

/* Every kernel of every PTX text of an image. */
static void analyse_image(const void *image, size_t size, const char *what) {
  ft_image_ptx_t img;
  char err[256];
  if (ft_image_ptx(image, size, &img, err, sizeof err) != 0) {
    FT_DEBUG("%s: no PTX read (%s)", what, err);
    return;
  }
  for (size_t i = 0; i < img.nptx; i++) {
    ft_ptx_module_t *m = NULL;
    if (ft_ptx_parse(img.ptx[i].text, img.ptx[i].len, &m, err, sizeof err) != 0) {
      FT_INFO("%s: PTX not analysed (%s): its kernels are treated as writing every protected "
              "allocation", what, err);
      unparsed(img.ptx[i].text, img.ptx[i].len);
      continue;
    }
    for (size_t k = 0; k < m->nfuncs; k++) {
      if (!m->funcs[k].is_entry) continue;
      ft_ptx_facts_t f;
      if (ft_ptx_facts(m, &m->funcs[k], &f, err, sizeof err) != 0) continue;
      add(m->funcs[k].name, &f, arch_bit(m->target));
    }
    ft_ptx_module_free(m);
  }
  if (img.nelf && !img.nptx) FT_DEBUG("%s: SASS only, no PTX to analyse", what);
  ft_image_ptx_free(&img);
}

static int seen(const char *path) {
  for (size_t i = 0; i < g_nseen; i++)
    if (!strcmp(g_seen[i], path)) return 1;
  char **n = realloc(g_seen, (g_nseen + 1) * sizeof *n);
  if (!n) return 1;
  g_seen = n;
  g_seen[g_nseen] = strdup(path);
  if (!g_seen[g_nseen]) return 1;
  g_nseen++;
  return 0;
}

/* One file on disk: the .nv_fatbin section of an ELF object (an executable, a
 * library), else the file as an image (a cubin, a fatbin, PTX text). */
static void analyse_file(const char *path, int any_image) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < 16) {
    close(fd);
    return;
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return;
  const uint8_t *sec;
  size_t len;
  if (ft_elf_section(map, (size_t)st.st_size, ".nv_fatbin", &sec, &len) == 0 && len)
    analyse_image(sec, len, path);
  else if (any_image)
    analyse_image(map, (size_t)st.st_size, path);
  munmap(map, (size_t)st.st_size);
}

void ft_facts_path(const char *path) { analyse_file(path, 1); }

static int each_object(struct dl_phdr_info *info, size_t size, void *ctx) {
  (void)size;
  (void)ctx;
  const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
  if (!seen(path)) analyse_file(path, 0);
  return 0;
}

void ft_facts_image(const void *image, size_t size) {
  if (image) analyse_image(image, size, "loaded module");
}

int ft_facts_lookup(const char *name, const ft_ptx_place_t **places, size_t *n, uint32_t *flags,
                    uint64_t *archs) {
  fk_t *k = find(name);
  if (!k) {
    /* libraries loaded since the last look may carry it */
    dl_iterate_phdr(each_object, NULL);
    k = find(name);
  }
  if (!k) return -1;
  *places = k->f.places;
  *n = k->f.nplaces;
  *flags = k->f.flags;
  *archs = k->archs;
  return 0;
}

const void *ft_facts_handle(const char *name) { return name ? find(name) : NULL; }

int ft_facts_range(const void *h, uint32_t off, unsigned dir, const uint8_t *params, size_t len,
                   const unsigned grid[3], const unsigned block[3], int64_t *lo, int64_t *hi) {
  const fk_t *k = h;
  /* read through k at every launch: a module loaded since may have joined in */
  if (!k || (k->f.flags & FT_PTX_K_INCOMPLETE)) return -1;
  for (size_t i = 0; i < k->f.nplaces; i++)
    if (k->f.places[i].offset == off)
      return ft_ptx_place_range_eval(&k->f, &k->f.places[i], dir, params, len, grid, block, lo, hi);
  return -1;
}
