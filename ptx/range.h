/* range.h: byte ranges a kernel may read and write through one argument place, as
 * small programs over the launch's argument bytes and geometry (docs/ptx.md, "Ranges"). */
#ifndef FT_PTX_RANGE_H
#define FT_PTX_RANGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One step of a range program. Operands a and b name earlier steps. */
typedef enum {
  FT_PTX_R_CONST = 1,  /* k */
  FT_PTX_R_PARAM,      /* integer in the parameter buffer: k = byte offset, a = size (1, 2, 4, 8),
                          b = 1 when signed (else zero-extended) */
  FT_PTX_R_NTID,       /* blockDim[a] */
  FT_PTX_R_NCTAID,     /* gridDim[a] */
  FT_PTX_R_ADD,        /* a + b */
  FT_PTX_R_SUB,        /* a - b */
  FT_PTX_R_MUL,        /* a * b */
  FT_PTX_R_MIN,        /* min(a, b) */
  FT_PTX_R_MAX,        /* max(a, b) */
  FT_PTX_R_DIV,        /* floor(a / k), k > 0 */
  FT_PTX_R_FIT,        /* a; the whole range is unbounded unless a lies in the integer type b
                          (size in bytes | FT_PTX_R_SIGNED): where a 32-bit index may wrap */
  FT_PTX_R_SEQ         /* b (a is there for its FIT checks) */
} ft_ptx_rop_code_t;
#define FT_PTX_R_SIGNED 0x80

typedef struct ft_ptx_rop_s {
  uint8_t op;                 /* ft_ptx_rop_code_t */
  uint8_t a, b;
  uint8_t pad;
  int32_t k;
} ft_ptx_rop_t;

#define FT_PTX_RANGE_OPS 32

/* Bytes [lo, hi) relative to the place's pointer value. n == 0 (all zero):
 * unbounded, the whole allocation. Every step is evaluated, in order. */
typedef struct ft_ptx_range_s {
  uint8_t n;                  /* steps; 0: unbounded */
  uint8_t lo, hi;             /* the steps giving the first byte and one past the last */
  uint8_t pad;
  ft_ptx_rop_t op[FT_PTX_RANGE_OPS];
} ft_ptx_range_t;

/* Evaluates r for one launch: params (params_size bytes, the packed parameter
 * buffer), grid = gridDim, block = blockDim. 0 and [*lo, *hi) relative to the
 * pointer (possibly negative; empty: *lo == *hi == 0); -1 when unbounded, on
 * overflow, when a check fails or a parameter lies outside params_size: the
 * caller takes the whole allocation. */
int ft_ptx_range_eval(const ft_ptx_range_t *r, const void *params, size_t params_size, const unsigned grid[3],
                      const unsigned block[3], int64_t *lo, int64_t *hi);

/* Whether r is bounded (and, for ft_ptx_range_empty, touches nothing in any launch). */
int ft_ptx_range_bounded(const ft_ptx_range_t *r);
int ft_ptx_range_empty(const ft_ptx_range_t *r);

/* dst = a range holding both dst and src (two modules with one kernel name);
 * unbounded when the two programs do not fit one. */
void ft_ptx_range_join(ft_ptx_range_t *dst, const ft_ptx_range_t *src);

/* A readable form ("[0, 4*min(ntid.x*nctaid.x, p0:s4))") into buf; returns buf. */
const char *ft_ptx_range_format(const ft_ptx_range_t *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
