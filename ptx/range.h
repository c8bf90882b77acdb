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
 * unbounded, the whole allocation. Every step is evaluated, in order. The working
 * form (264 bytes): facts keep their programs in a pool (below). */
typedef struct ft_ptx_range_s {
  uint8_t n;                  /* steps; 0: unbounded */
  uint8_t lo, hi;             /* the steps giving the first byte and one past the last */
  uint8_t pad;
  ft_ptx_rop_t op[FT_PTX_RANGE_OPS];
} ft_ptx_range_t;

/* Range programs out of line: one pool of steps per set of facts
 * (ft_ptx_facts_t.ranges). A place holds one handle (ft_ptx_place_t.range; 0: no
 * program in either direction) to a record: its read program, then its write
 * program, each a header step {op 0, a = lo, b = hi, k = number of steps} and
 * those steps; a header with k == 0 holds no program. Only places with a bounded
 * direction take space, and only as many steps as their programs have. */
typedef struct ft_ptx_range_pool_s {
  ft_ptx_rop_t *op;
  uint32_t n, cap;
} ft_ptx_range_pool_t;

/* Evaluates r for one launch: params (params_size bytes, the packed parameter
 * buffer), grid = gridDim, block = blockDim. 0 and [*lo, *hi) relative to the
 * pointer (possibly negative; empty: *lo == *hi == 0); -1 when unbounded, on
 * overflow, when a check fails or a parameter lies outside params_size: the
 * caller takes the whole allocation. */
int ft_ptx_range_eval(const ft_ptx_range_t *r, const void *params, size_t params_size, const unsigned grid[3],
                      const unsigned block[3], int64_t *lo, int64_t *hi);

/* ft_ptx_range_eval on direction dir (0 read, 1 write) of record h of pool, where
 * it lies (no copy): -1 too when h holds no program there (unbounded). */
int ft_ptx_range_eval_at(const ft_ptx_range_pool_t *pool, uint32_t h, unsigned dir, const void *params,
                         size_t params_size, const unsigned grid[3], const unsigned block[3], int64_t *lo,
                         int64_t *hi);

/* Appends a record of read and write (a program for each bounded one) to pool: its
 * handle, or 0 when neither is bounded or memory runs out (unbounded: sound). */
uint32_t ft_ptx_range_store(ft_ptx_range_pool_t *pool, const ft_ptx_range_t *read, const ft_ptx_range_t *write);
/* Direction dir of record h of pool into out; unbounded when there is none. */
void ft_ptx_range_load(const ft_ptx_range_pool_t *pool, uint32_t h, unsigned dir, ft_ptx_range_t *out);
/* Gives back the pool's spare capacity; frees the pool (empty again). */
void ft_ptx_range_pool_trim(ft_ptx_range_pool_t *pool);
void ft_ptx_range_pool_free(ft_ptx_range_pool_t *pool);

/* Whether r is bounded (and, for ft_ptx_range_empty, touches nothing in any launch). */
int ft_ptx_range_bounded(const ft_ptx_range_t *r);
int ft_ptx_range_empty(const ft_ptx_range_t *r);

/* dst = a range holding both dst and src (two modules with one kernel name): dst
 * when the programs are the same, else the span of both; unbounded when that
 * does not fit one program. */
void ft_ptx_range_join(ft_ptx_range_t *dst, const ft_ptx_range_t *src);

/* A readable form ("[0, 4*min(ntid.x*nctaid.x, p0:s4))") into buf; returns buf. */
const char *ft_ptx_range_format(const ft_ptx_range_t *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
