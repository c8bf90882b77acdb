/* ftk_warp.h: the warp algorithm of gpuft's kernels, written once over "lanes": the
 * CUDA kernels run it with one lane per thread and real shuffles, the C twins run
 * it with 32 emulated lanes, so the simulator tests the GPU's index arithmetic. */
#ifndef FTK_WARP_H
#define FTK_WARP_H

#include <stdint.h>
#ifndef __CUDACC__
#include <string.h>
#endif

#include "ftk.h"

/* Lane-parallel code is a sequence of FTK_LANES(l) { ... } steps. A per-lane
 * variable is an array `x[FTK_NL]` indexed with FTK_AT(l): one register on the GPU,
 * 32 slots in a twin. FTK_SHFL(x, l, m) reads lane l^m's x: a twin step must never
 * write the array it shuffles from (the GPU reads all lanes at once). */
#if defined(__CUDA_ARCH__)
#define FTK_FN static __device__ __forceinline__
#define FTK_NL 1
#define FTK_AT(l) 0
#define FTK_LANES(l) \
  for ([[maybe_unused]] unsigned l = threadIdx.x & 31u, l##_once_ = 1; l##_once_; l##_once_ = 0)
#define FTK_SHFL(x, l, m) __shfl_xor_sync(0xffffffffu, (x)[0], (m))
#define FTK_UNROLL _Pragma("unroll")
#else
#define FTK_FN static inline
#define FTK_NL 32
#define FTK_AT(l) (l)
#define FTK_LANES(l) for (unsigned l = 0; l < 32u; l++)
#define FTK_SHFL(x, l, m) ((x)[(l) ^ (m)])
#define FTK_UNROLL
#endif

/* A repair writes the program's data, which a kernel on another stream of the
 * program may be reading at that moment (a read racing a write in device memory:
 * stale or torn values, as the flip itself gave). The twins tell the thread
 * sanitizer so (ftk_twins.c); nothing on the GPU. */
#ifndef FTK_REPAIR_RACY_BEGIN
#define FTK_REPAIR_RACY_BEGIN() ((void)0)
#define FTK_REPAIR_RACY_END() ((void)0)
#endif

enum {
  FTK_MODE_ENCODE = 0,
  FTK_MODE_VERIFY = 1,
  FTK_MODE_VERIFY_COPY = 2,
  FTK_MODE_VERIFY_FIX = 3,
  FTK_MODE_VERIFY_COPY_FIX = 4
};
/* What a warp reports for one group (warp-uniform). */
enum { FTK_F_CHANGED = 1u, FTK_F_BAD = 2u };

/* One launch's view of its span, with pointers the executing side can dereference
 * (device addresses on the GPU, translated host addresses in a twin). */
typedef struct {
  const uint8_t *data;
  uint8_t *dst;     /* verify_copy: the copy; verify_fix: where repairs come from (ftk.h) */
  uint32_t *v, *d;  /* level-1 arrays */
  uint32_t *l2;     /* V of V; then D of V, V of D, D of D, l2_stride bytes apart */
  uint64_t l2_stride;
  ftk_job_t *job;
  uint64_t len, g_end; /* g_end: min(g1, groups of len) */
  int fast;         /* data and dst 16-byte aligned: vector loads and stores */
} ftk_ctx_t;

/* Groups a span really covers: [g0, ftk_span_end) (empty when g0 >= end). */
FT_HD uint64_t ftk_span_end(const ftk_span_t *s) {
  uint64_t ng = ft_groups_of(s->len);
  return s->g1 < ng ? s->g1 : ng;
}

FT_HD void ftk_ctx_init(ftk_ctx_t *c, const ftk_span_t *s, const void *data, void *dst,
                        void *code, ftk_job_t *job) {
  uint64_t off[6];
  ft_code_layout(s->len, off);
  uint8_t *cb = (uint8_t *)code;
  c->data = (const uint8_t *)data;
  c->dst = (uint8_t *)dst;
  c->v = (uint32_t *)(cb + off[0]);
  c->d = (uint32_t *)(cb + off[1]);
  c->l2 = (uint32_t *)(cb + off[2]);
  c->l2_stride = off[3] - off[2]; /* equal spacing: no indexed array (GPU local memory) */
  c->job = job;
  c->len = s->len;
  c->g_end = ftk_span_end(s);
  c->fast = ((s->data | s->dst) & 15u) == 0;
}

/* First group of a warp and the grid stride (grid-stride loop over groups). */
FT_HD uint64_t ftk_warp_first(const ftk_span_t *s, unsigned block, unsigned warp,
                              unsigned warps_per_block) {
  return s->g0 + (uint64_t)block * warps_per_block + warp;
}
FT_HD uint64_t ftk_warp_stride(unsigned grid, unsigned warps_per_block) {
  return (uint64_t)grid * warps_per_block;
}

FTK_FN uint32_t ftk_rotl(uint32_t x, unsigned r) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_l(x, x, r); /* one SHF; amount taken mod 32 like ft_rotl32 */
#else
  return ft_rotl32(x, r);
#endif
}

FTK_FN int ftk_any(const uint32_t *x) {
#if defined(__CUDA_ARCH__)
  return __any_sync(0xffffffffu, x[0] != 0);
#else
  uint32_t a = 0;
  for (unsigned l = 0; l < 32u; l++) a |= x[l];
  return a != 0;
#endif
}

FTK_FN uint32_t ftk_atomic_add(uint32_t *p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicAdd((unsigned *)p, v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

/* 16 data bytes at `off` as 4 little-endian words; bytes at or beyond len read as
 * zero and are never touched (a partial last block, or a length not a multiple of
 * 16). The slow path also serves spans that are not 16-byte aligned. */
FTK_FN void ftk_ld16(const ftk_ctx_t *c, uint64_t off, uint32_t w[4]) {
  if (c->fast && off + 16 <= c->len) {
#if defined(__CUDA_ARCH__)
    uint4 q = __ldg((const uint4 *)(c->data + off));
    w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
#else
    memcpy(w, c->data + off, 16);
#endif
    return;
  }
  w[0] = w[1] = w[2] = w[3] = 0;
  FTK_UNROLL /* constant word indices: w stays in registers */
  for (unsigned t = 0; t < 16u; t++)
    if (off + t < c->len) w[t >> 2] |= (uint32_t)c->data[off + t] << (8u * (t & 3u));
}

/* The copy side of ftk_ld16: writes the bytes below len only. */
FTK_FN void ftk_st16(const ftk_ctx_t *c, uint64_t off, const uint32_t w[4]) {
  if (c->fast && off + 16 <= c->len) {
#if defined(__CUDA_ARCH__)
    __stcs((uint4 *)(c->dst + off), make_uint4(w[0], w[1], w[2], w[3])); /* streaming: not re-read soon */
#else
    memcpy(c->dst + off, w, 16);
#endif
    return;
  }
  FTK_UNROLL
  for (unsigned t = 0; t < 16u; t++)
    if (off + t < c->len) c->dst[off + t] = (uint8_t)(w[t >> 2] >> (8u * (t & 3u)));
}

/* Sum (xor) over the warp of four per-lane values a[0..3] in 6 shuffles
 * (reduce-scatter over lane bits 4 and 3, then a butterfly over bits 2..0).
 * Afterwards lane l holds the total of a[l >> 3] in out[]. */
FTK_FN void ftk_reduce4(const uint32_t a[4][FTK_NL], uint32_t out[FTK_NL]) {
  uint32_t s0[FTK_NL], s1[FTK_NL], k0[FTK_NL], k1[FTK_NL], p0[FTK_NL], p1[FTK_NL];
  uint32_t s[FTK_NL], k[FTK_NL], q[FTK_NL], r2[FTK_NL], r1[FTK_NL];
  FTK_LANES(l) {
    unsigned hi = (l >> 4) & 1u; /* keep pair (a2,a3) in the upper half-warp */
    k0[FTK_AT(l)] = hi ? a[2][FTK_AT(l)] : a[0][FTK_AT(l)];
    k1[FTK_AT(l)] = hi ? a[3][FTK_AT(l)] : a[1][FTK_AT(l)];
    s0[FTK_AT(l)] = hi ? a[0][FTK_AT(l)] : a[2][FTK_AT(l)];
    s1[FTK_AT(l)] = hi ? a[1][FTK_AT(l)] : a[3][FTK_AT(l)];
  }
  FTK_LANES(l) {
    p0[FTK_AT(l)] = k0[FTK_AT(l)] ^ FTK_SHFL(s0, l, 16u);
    p1[FTK_AT(l)] = k1[FTK_AT(l)] ^ FTK_SHFL(s1, l, 16u);
  }
  FTK_LANES(l) {
    unsigned b3 = (l >> 3) & 1u;
    k[FTK_AT(l)] = b3 ? p1[FTK_AT(l)] : p0[FTK_AT(l)];
    s[FTK_AT(l)] = b3 ? p0[FTK_AT(l)] : p1[FTK_AT(l)];
  }
  FTK_LANES(l) q[FTK_AT(l)] = k[FTK_AT(l)] ^ FTK_SHFL(s, l, 8u);
  FTK_LANES(l) r2[FTK_AT(l)] = q[FTK_AT(l)] ^ FTK_SHFL(q, l, 4u);
  FTK_LANES(l) r1[FTK_AT(l)] = r2[FTK_AT(l)] ^ FTK_SHFL(r2, l, 2u);
  FTK_LANES(l) out[FTK_AT(l)] = r1[FTK_AT(l)] ^ FTK_SHFL(r1, l, 1u);
}

/* The repair of damaged group g by ftk_verify_fix (mode FIX) and ftk_verify_copy_fix
 * (COPY_FIX), by one lane (rare: the group was found damaged): where the decoder of
 * the host codec (ft_decode_group) proves what flipped (COPY_FIX then copies the
 * repaired group to dst again), else from the known-good copy when there is one
 * (FIX with dst). Returns FTK_BAD_* flags, 0 when nothing was repaired. Not inlined
 * on the GPU: the other kernels' registers stay as they are. */
#if defined(__CUDA_ARCH__)
static __device__ __noinline__
#else
static inline
#endif
uint64_t ftk_repair(const ftk_ctx_t *c, uint64_t g, int mode) {
  const uint64_t base = ft_group_start(g), b0 = g * FT_GROUP_BLOCKS;
  const unsigned nblk = ft_group_nblocks(c->len, g);
  const uint64_t glen = ft_group_len(c->len, g);
  uint8_t *data = (uint8_t *)c->data; /* (the program's buffer: these kernels write it) */
  uint32_t *l2[4];
  for (unsigned k = 0; k < 4u; k++) l2[k] = (uint32_t *)((uint8_t *)c->l2 + c->l2_stride * k) + g;
  ft_pair_t l1[FT_GROUP_BLOCKS], cv, cd;
  uint32_t vw[FT_GROUP_BLOCKS], dw[FT_GROUP_BLOCKS];
  for (unsigned k = 0; k < nblk; k++) {
    uint32_t w[FT_BLOCK_BYTES / 4];
    for (unsigned j = 0; j < FT_BLOCK_BYTES / 4; j++) {
      uint32_t x = 0;
      for (unsigned t = 0; t < 4u; t++) {
        uint64_t at = base + (uint64_t)k * FT_BLOCK_BYTES + 4u * j + t;
        if (at < c->len) x |= (uint32_t)data[at] << (8u * t);
      }
      w[j] = x;
    }
    ft_pair_t e = ft_encode_words(w, FT_BLOCK_BYTES / 4);
    vw[k] = c->v[b0 + k];
    dw[k] = c->d[b0 + k];
    l1[k].v = e.v ^ vw[k];
    l1[k].d = e.d ^ dw[k];
  }
  cv = ft_encode_words(vw, nblk);
  cd = ft_encode_words(dw, nblk);
  ft_pair_t sv = {cv.v ^ *l2[0], cv.d ^ *l2[1]}, sd = {cd.v ^ *l2[2], cd.d ^ *l2[3]};
  ft_action_t act[FT_GROUP_MAX_ACTIONS];
  unsigned n = ft_decode_group(l1, nblk, sv, sd, act);
  /* all or nothing: every action proven, and every data bit inside the allocation */
  int proven = n > 0;
  for (unsigned i = 0; i < n && proven; i++) {
    if (act[i].kind == FT_ACT_BAD_BLOCK || act[i].kind == FT_ACT_BAD_CODE) proven = 0;
    if (act[i].kind == FT_ACT_DATA_BIT &&
        base + (uint64_t)act[i].block * FT_BLOCK_BYTES + 4u * act[i].word + act[i].bit / 8u >= c->len)
      proven = 0;
  }
  if (proven) {
    uint64_t at = 0;
    for (unsigned i = 0; i < n; i++) {
      const ft_action_t a = act[i];
      if (a.kind == FT_ACT_DATA_BIT) {
        data[base + (uint64_t)a.block * FT_BLOCK_BYTES + 4u * a.word + a.bit / 8u] ^= (uint8_t)(1u << (a.bit & 7u));
        if (!at) at = FTK_BAD_AT(a.block * (FT_BLOCK_BYTES / 4u) + a.word, a.bit);
      } else if (a.kind == FT_ACT_V_BIT) {
        vw[a.block] ^= 1u << a.bit, c->v[b0 + a.block] = vw[a.block];
      } else if (a.kind == FT_ACT_D_BIT) {
        dw[a.block] ^= 1u << a.bit, c->d[b0 + a.block] = dw[a.block];
      }
    }
    /* level-2 words recomputed where the decoder says so, from the repaired words */
    for (unsigned i = 0; i < n; i++) {
      if (act[i].kind == FT_ACT_L2V) {
        cv = ft_encode_words(vw, nblk);
        *l2[0] = cv.v, *l2[1] = cv.d;
      } else if (act[i].kind == FT_ACT_L2D) {
        cd = ft_encode_words(dw, nblk);
        *l2[2] = cd.v, *l2[3] = cd.d;
      }
    }
    if (mode == FTK_MODE_VERIFY_COPY_FIX) /* the copy made in the pass took the damage */
      for (uint64_t i = 0; i < glen; i++) c->dst[base + i] = data[base + i];
    return FTK_BAD_REPAIRED | at;
  }
  if (mode != FTK_MODE_VERIFY_FIX || !c->dst) return 0;
  /* from the copy: data then code, at the offsets the allocation's code has; where
   * its data differed first is told */
  const uint8_t *cb = c->dst + ft_blocks_bytes(c->len);
  const uint8_t *code0 = (const uint8_t *)c->v; /* the code buffer's start */
  const uint32_t *cpv = (const uint32_t *)(cb + ((const uint8_t *)c->v - code0));
  const uint32_t *cpd = (const uint32_t *)(cb + ((const uint8_t *)c->d - code0));
  uint64_t at = 0;
  for (uint64_t i = 0; i < glen; i++) {
    uint8_t x = data[base + i] ^ c->dst[base + i];
    if (x && !at) at = FTK_BAD_AT(i / 4u, 8u * (unsigned)(i % 4u) + ft_ctz32(x));
    data[base + i] = c->dst[base + i];
  }
  for (unsigned k = 0; k < nblk; k++) {
    c->v[b0 + k] = cpv[b0 + k];
    c->d[b0 + k] = cpd[b0 + k];
  }
  for (unsigned k = 0; k < 4u; k++) *l2[k] = *(const uint32_t *)(cb + ((const uint8_t *)l2[k] - code0));
  return FTK_BAD_REPAIRED | FTK_BAD_FROM_COPY | at;
}

/* Process group g with one warp. Load layout: in step i (0..7) the warp reads the
 * 512 bytes of blocks 4i..4i+3 with one 16-byte load per lane; lane l reads chunk
 * l>>2 of block 4i + (l&3), so the 8 lanes of a block share l&3 and the block's
 * code ends (after reduce-scatter on lane bit 4 and a butterfly on bits 2, 3) in
 * lanes whose index is the block's: V in bit4 = 0, D in bit4 = 1; one final
 * exchange leaves V and D of block j in lane j (3 shuffles per step, 25 per group).
 * Then lane j owns code word j of the group: coalesced loads/stores of V and D,
 * and the level-2 code over the lanes (ftk_reduce4). Returns FTK_F_* flags. */
FTK_FN unsigned ftk_warp_group(const ftk_ctx_t *c, uint64_t g, int mode) {
  const uint64_t base = ft_group_start(g), b0 = g * FT_GROUP_BLOCKS;
  const unsigned nblk = ft_group_nblocks(c->len, g);
  uint32_t w[8][FTK_NL][4];

  /* All eight loads first: 4 KiB per warp in flight. The copy's stores come after
   * all of them: a store right after its load waits for that load, and in-order
   * issue then holds back the next load (one 16-byte load in flight per lane; an
   * H200 measured 84 % of its copy bandwidth that way). */
  FTK_LANES(l) {
    FTK_UNROLL
    for (unsigned i = 0; i < 8u; i++)
      ftk_ld16(c, base + 512u * i + FT_BLOCK_BYTES * (l & 3u) + 16u * (l >> 2), w[i][FTK_AT(l)]);
  }
  if (mode == FTK_MODE_VERIFY_COPY || mode == FTK_MODE_VERIFY_COPY_FIX) {
    FTK_LANES(l) {
      FTK_UNROLL
      for (unsigned i = 0; i < 8u; i++)
        ftk_st16(c, base + 512u * i + FT_BLOCK_BYTES * (l & 3u) + 16u * (l >> 2), w[i][FTK_AT(l)]);
    }
  }

  uint32_t lo[FTK_NL], hi[FTK_NL]; /* captured in steps 0..3 and 4..7 */
  FTK_UNROLL
  for (unsigned i = 0; i < 8u; i++) {
    uint32_t keep[FTK_NL], send[FTK_NL], k1[FTK_NL], k2[FTK_NL], k3[FTK_NL];
    FTK_LANES(l) {
      const uint32_t *x = w[i][FTK_AT(l)];
      unsigned j0 = 4u * (l >> 2); /* index of word x[0] in its block */
      uint32_t pv = x[0] ^ x[1] ^ x[2] ^ x[3];
      uint32_t pd = ftk_rotl(x[0], j0) ^ ftk_rotl(x[1], j0 + 1u) ^ ftk_rotl(x[2], j0 + 2u) ^
                    ftk_rotl(x[3], j0 + 3u);
      unsigned b4 = (l >> 4) & 1u;
      keep[FTK_AT(l)] = b4 ? pd : pv;
      send[FTK_AT(l)] = b4 ? pv : pd;
    }
    FTK_LANES(l) k1[FTK_AT(l)] = keep[FTK_AT(l)] ^ FTK_SHFL(send, l, 16u);
    FTK_LANES(l) k2[FTK_AT(l)] = k1[FTK_AT(l)] ^ FTK_SHFL(k1, l, 4u);
    FTK_LANES(l) k3[FTK_AT(l)] = k2[FTK_AT(l)] ^ FTK_SHFL(k2, l, 8u);
    /* k3: V (bit4 = 0) or D (bit4 = 1) of block 4i + (l&3). */
    FTK_LANES(l) {
      if (((l >> 2) & 3u) == (i & 3u)) {
        if (i < 4u) lo[FTK_AT(l)] = k3[FTK_AT(l)];
        else hi[FTK_AT(l)] = k3[FTK_AT(l)];
      }
    }
  }
  /* lane l < 16: lo = V[l], hi = V[l+16]; lane l >= 16: lo = D[l-16], hi = D[l]. */
  uint32_t xs[FTK_NL], nv[FTK_NL], nd[FTK_NL];
  FTK_LANES(l) xs[FTK_AT(l)] = (l >> 4) ? lo[FTK_AT(l)] : hi[FTK_AT(l)];
  FTK_LANES(l) {
    uint32_t r = FTK_SHFL(xs, l, 16u);
    nv[FTK_AT(l)] = (l >> 4) ? r : lo[FTK_AT(l)];
    nd[FTK_AT(l)] = (l >> 4) ? hi[FTK_AT(l)] : r;
  }

  /* Level 1: lane j owns block b0 + j (blocks past the end: code 0, not stored). */
  uint32_t diff[FTK_NL], a[4][FTK_NL];
  FTK_LANES(l) {
    int own = l < nblk;
    uint32_t ov = 0, od = 0;
    if (own && (mode != FTK_MODE_ENCODE || c->job)) {
      ov = c->v[b0 + l];
      od = c->d[b0 + l];
    }
    diff[FTK_AT(l)] = (ov ^ nv[FTK_AT(l)]) | (od ^ nd[FTK_AT(l)]);
    if (mode == FTK_MODE_ENCODE && own) {
      c->v[b0 + l] = nv[FTK_AT(l)];
      c->d[b0 + l] = nd[FTK_AT(l)];
    }
    /* Level 2 covers the new words when encoding, the stored ones when verifying. */
    uint32_t xv = mode == FTK_MODE_ENCODE ? nv[FTK_AT(l)] : ov;
    uint32_t xd = mode == FTK_MODE_ENCODE ? nd[FTK_AT(l)] : od;
    a[0][FTK_AT(l)] = xv;
    a[1][FTK_AT(l)] = ftk_rotl(xv, l);
    a[2][FTK_AT(l)] = xd;
    a[3][FTK_AT(l)] = ftk_rotl(xd, l);
  }
  unsigned flags = 0;
  if (ftk_any(diff)) flags = mode == FTK_MODE_ENCODE ? FTK_F_CHANGED : FTK_F_BAD;

  /* Level 2: lanes 0, 8, 16, 24 hold V of V, D of V, V of D, D of D. */
  uint32_t l2[FTK_NL], bad2[FTK_NL];
  ftk_reduce4((const uint32_t(*)[FTK_NL])a, l2);
  FTK_LANES(l) {
    bad2[FTK_AT(l)] = 0;
    if ((l & 7u) == 0) {
      uint32_t *slot = (uint32_t *)((uint8_t *)c->l2 + c->l2_stride * (l >> 3)) + g;
      if (mode == FTK_MODE_ENCODE) *slot = l2[FTK_AT(l)];
      else bad2[FTK_AT(l)] = *slot ^ l2[FTK_AT(l)];
    }
  }
  if (mode != FTK_MODE_ENCODE && ftk_any(bad2)) flags = FTK_F_BAD;

  if ((flags & FTK_F_BAD) && c->job) {
    FTK_LANES(l) {
      if (l == 0) {
        uint64_t fixed = 0;
        if (mode == FTK_MODE_VERIFY_FIX || mode == FTK_MODE_VERIFY_COPY_FIX) {
          FTK_REPAIR_RACY_BEGIN();
          fixed = ftk_repair(c, g, mode);
          FTK_REPAIR_RACY_END();
        }
        if (fixed) ftk_atomic_add(&c->job->changed, 1u);
        uint32_t k = ftk_atomic_add(&c->job->n_bad, 1u);
        if (k < FTK_JOB_BAD) c->job->bad[k] = g | fixed;
      }
    }
  }
  return flags;
}

#endif
