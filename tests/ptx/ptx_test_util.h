/* ptx_test_util.h: helpers of the ptx/ tests: files, the corpus's expectation
 * comments, checking a module's access facts against them. */
#ifndef FT_PTX_TEST_UTIL_H
#define FT_PTX_TEST_UTIL_H

#include <stddef.h>

#include "access.h"
#include "ptx_ir.h"

/* Whole file, NUL-terminated (malloc'd), NULL when unreadable. */
char *pt_read_file(const char *path, size_t *len);

#define PT_MAX_PLACES 16
typedef struct {
  char name[64];                  /* source name of the kernel */
  unsigned n;
  unsigned offset[PT_MAX_PLACES];
  unsigned access[PT_MAX_PLACES];
  int may_be_conservative[PT_MAX_PLACES];
  int ptr_src[PT_MAX_PLACES], ptr_sink[PT_MAX_PLACES]; /* '*', '!' after the class */
  unsigned flags;                 /* FT_PTX_K_LOADED_PTR / GLOBAL_VAR / UNKNOWN_CALL */
  unsigned seen;                  /* kernels matched (set by pt_check_module) */
  char file[64];
} pt_expect_t;

/* Appends the "// expect" lines of the .cu file at path to *ex (realloc'd). */
void pt_load_expectations(const char *path, pt_expect_t **ex, size_t *n);

/* Every expectation of the corpus directory (all *.cu), sorted by file. */
void pt_load_corpus(const char *dir, pt_expect_t **ex, size_t *n);

/* Checks every entry of m against ex (each entry must have an expectation);
 * fails the test with the kernel and place on a mismatch. `where` names the
 * container in messages. Returns the number of kernels checked. */
size_t pt_check_module(const ft_ptx_module_t *m, pt_expect_t *ex, size_t n, const char *where);

/* Parses text or fails the test with the parser's message. */
ft_ptx_module_t *pt_parse_or_fail(const char *text, size_t len, const char *where);

/* The corpus files ("basics", ...) found in dir: names[] (static storage). */
size_t pt_corpus_names(const char *dir, char names[][64], size_t max);

#endif

/* A sample PTX module (nvcc 13 style) used where nvcc output is not at hand. */
extern const char pt_sample_ptx[];

/* Builds a fatbin container in memory: one ELF stub entry, then the PTX text
 * once per compression (FT_FATBIN_COMP_NONE, _ZSTD, _LZ4) in `comps`. */
unsigned char *pt_make_fatbin(const char *ptx, const unsigned *comps, size_t ncomps, size_t *len);
