/* codec.h: the CPU cross-parity codec over buffers of any length: encode, fused
 * copy+encode, verify, correct. Knows nothing of CUDA (DESIGN.md sections 2, 3). */
#ifndef FT_CODEC_H
#define FT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Code of a buffer of `len` bytes: level-1 V and D arrays (one word per block of
 * 128 bytes; the last block zero-padded) and the level-2 code of each of them
 * (one V and one D word per group of 32 blocks). Six separate arrays, each
 * starting on a 128-byte boundary of one contiguous code buffer. */
typedef struct ft_code_s {
  size_t len;     /* data bytes covered */
  size_t nblocks; /* ceil(len / 128) */
  size_t ngroups; /* ceil(nblocks / 32) */
  uint32_t *v, *d;         /* [nblocks] */
  uint32_t *l2v_v, *l2v_d; /* [ngroups]: level-2 code of the V array */
  uint32_t *l2d_v, *l2d_d; /* [ngroups]: level-2 code of the D array */
} ft_code_t;

/* Bytes of the contiguous code buffer for `len` data bytes (0 for len 0). */
size_t ft_code_bytes(size_t len);
/* Byte offsets of the six arrays inside that buffer (v, d, l2v_v, l2v_d, l2d_v, l2d_d). */
void ft_code_offsets(size_t len, size_t off[6]);
/* Point the arrays of *code into `mem` (ft_code_bytes(len) bytes, any alignment). */
void ft_code_bind(ft_code_t *code, void *mem, size_t len);
/* The same with the arrays starting at group g0's words: a view of the code for
 * the data from group g0 on (len, nblocks and ngroups stay those of `len`). */
void ft_code_bind_at(ft_code_t *code, void *mem, size_t len, size_t g0);

/* Encode `len` bytes of `data` into *code (all levels). */
void ft_encode(const void *data, size_t len, const ft_code_t *code);
/* Copy `len` bytes from src to dst and encode them in the same pass (the
 * host-to-device staging path). Buffers must not overlap. */
void ft_copy_encode(void *dst, const void *src, size_t len, const ft_code_t *code);
/* Recompute only the level-2 words of groups [g0, g1) from the V and D arrays. */
void ft_encode_l2(const ft_code_t *code, size_t g0, size_t g1);

/* A mismatch found by verify. */
enum { FT_LVL_DATA = 1, FT_LVL_L2V = 2, FT_LVL_L2D = 3 };
typedef struct {
  uint64_t index; /* block (FT_LVL_DATA) or group (FT_LVL_L2*) */
  uint32_t sv, sd; /* syndrome: stored xor recomputed */
  uint32_t level;
} ft_mismatch_t;

/* Compare data with its code at both levels. Writes up to `cap` mismatches in
 * increasing (group, level) order and returns how many were written; *total (if
 * not NULL) receives the number found in all. */
size_t ft_verify(const void *data, size_t len, const ft_code_t *code, ft_mismatch_t *out,
                 size_t cap, uint64_t *total);

/* What ft_correct did. */
typedef struct {
  uint64_t data_bits;    /* data bits flipped back */
  uint64_t code_bits;    /* V or D bits flipped back */
  uint64_t l2_refreshed; /* level-2 words recomputed (a level-2 word was hit) */
  uint64_t bad_blocks;   /* blocks whose data could not be corrected */
  uint64_t bad_groups;   /* groups whose code could not be trusted */
} ft_repair_t;

/* One repair or failure, for reporting. `offset` is the byte offset in the data
 * (data bit) or the block's first byte (everything else). */
typedef struct {
  uint64_t offset;
  uint8_t kind; /* FT_ACT_* of xparity.h */
  uint8_t bit;  /* bit within the 32-bit word at `offset` (data / code bit) */
} ft_event_t;

/* Verify and repair in place: single data bits are flipped back, hit code words
 * repaired, anything else reported. Returns 0 when data and code now verify clean
 * (the data is exactly what was encoded, assuming at most one flipped bit per
 * group of 4 KiB, or two anywhere as long as they are in different groups), 1 when
 * some block or group is uncorrectable (those are left as they were). Up to `cap`
 * events are written to `ev` (may be NULL); *rep (may be NULL) gets the counts. */
FT_MUST_CHECK int ft_correct(void *data, size_t len, const ft_code_t *code, ft_event_t *ev,
                             size_t cap, size_t *n_ev, ft_repair_t *rep);

/* ---- Variants and threads ---- */
/* Names: "scalar", "avx2", "avx512". The default is the one named by the environment
 * variable GPUFT_CODEC, else the one that encoded fastest in a short measurement (about
 * 1-3 ms) at first use, once per process. */
const char *ft_codec_variant(void);
/* Why that variant: "GPUFT_CODEC", or the start-up measurement ("measured encode:
 * avx512 21.0 GB/s avx2 25.3 GB/s scalar 5.9 GB/s"; pick.c). */
const char *ft_codec_variant_why(void);
/* Force a variant; returns 0, or -1 if unknown or unsupported on this CPU. */
int ft_codec_set_variant(const char *name);
/* Whether a variant is available on this CPU. */
int ft_codec_variant_supported(const char *name);
/* Threads for large buffers (0 = all available: OpenMP's default). Results are
 * identical whatever the number. */
void ft_codec_set_threads(int n);
int ft_codec_threads(void);

/* Per-variant block kernels over `n` whole blocks (internal, exposed for tests and
 * the benchmark). `nt` selects non-temporal stores. */
typedef struct {
  const char *name;
  void (*encode)(const uint8_t *src, size_t n, uint32_t *v, uint32_t *d, int nt);
  void (*copy_encode)(uint8_t *dst, const uint8_t *src, size_t n, uint32_t *v, uint32_t *d,
                      int nt);
  /* Optional: `ng` whole groups from group g0 of *c, copied (when dst) and encoded
   * with their level-2 words in the same pass, so the codes can be streamed out
   * and never read back. dst and src point at group g0's first byte. */
  void (*encode_groups)(uint8_t *dst, const uint8_t *src, size_t ng, const ft_code_t *c,
                        size_t g0, int nt);
} ft_codec_kernels_t;
const ft_codec_kernels_t *ft_codec_kernels(const char *name); /* NULL if unsupported */

#ifdef __cplusplus
}
#endif
#endif
