/* codec.c: buffer-level codec: layout of the code arrays, chunking over threads
 * (pool.c), zero-padded tail blocks, level-2 codes, verify and correct. */
#define _GNU_SOURCE
#include "codec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "pool.h"

/* Work is split in chunks of whole groups, so that tails only occur at the end
 * of the buffer and every chunk owns its groups' level-2 words. */
#define CHUNK_GROUPS 64u
#define CHUNK_BYTES ((size_t)CHUNK_GROUPS * FT_GROUP_BYTES) /* 256 KiB */
/* Below this a parallel region costs more than it saves. */
#define PARALLEL_MIN_BYTES ((size_t)1 << 20)
/* Non-temporal stores once the output clearly exceeds the caches' use to us. */
#define NT_MIN_BYTES ((size_t)2 << 20)

_Static_assert(CHUNK_BYTES % FT_GROUP_BYTES == 0, "chunks hold whole groups");

/* ---- Layout ---- */

void ft_code_offsets(size_t len, size_t off[6]) {
  uint64_t o[6];
  ft_code_layout(len, o);
  for (int i = 0; i < 6; i++) off[i] = (size_t)o[i];
}

size_t ft_code_bytes(size_t len) {
  uint64_t o[6];
  return (size_t)ft_code_layout(len, o);
}

void ft_code_bind(ft_code_t *c, void *mem, size_t len) { ft_code_bind_at(c, mem, len, 0); }

void ft_code_bind_at(ft_code_t *c, void *mem, size_t len, size_t g0) {
  uint64_t off[6];
  uint8_t *m = (uint8_t *)mem;
  ft_code_group_offsets(len, g0, off);
  c->len = len;
  c->nblocks = (size_t)ft_blocks_of(len);
  c->ngroups = (size_t)ft_groups_of(len);
  c->v = (uint32_t *)(void *)(m + off[0]);
  c->d = (uint32_t *)(void *)(m + off[1]);
  c->l2v_v = (uint32_t *)(void *)(m + off[2]);
  c->l2v_d = (uint32_t *)(void *)(m + off[3]);
  c->l2d_v = (uint32_t *)(void *)(m + off[4]);
  c->l2d_d = (uint32_t *)(void *)(m + off[5]);
}

/* ---- Variant selection ---- */

static const ft_codec_kernels_t *g_kernels;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_threads;

const ft_codec_kernels_t *ft_codec_kernels(const char *name) {
  if (!name) return NULL;
  if (strcmp(name, "scalar") == 0) return &ft_kernels_scalar;
#ifdef FT_CODEC_HAVE_X86
  __builtin_cpu_init();
  if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2")) return &ft_kernels_avx2;
  if (strcmp(name, "avx512") == 0 && __builtin_cpu_supports("avx512f")) return &ft_kernels_avx512;
#endif
  return NULL;
}

int ft_codec_variant_supported(const char *name) { return ft_codec_kernels(name) != NULL; }

static const char *g_why = "";
static void select_default(void) {
  const char *env = getenv("GPUFT_CODEC");
  const ft_codec_kernels_t *k = NULL;
  if (env && *env) k = ft_codec_kernels(env);
  g_why = k ? "GPUFT_CODEC" : "";
  if (!k) k = ft_codec_pick(); /* pick.c: the fastest measured here */
  __atomic_store_n(&g_kernels, k, __ATOMIC_RELEASE);
}

const char *ft_codec_variant_why(void) {
  pthread_once(&g_once, select_default);
  return g_why[0] ? g_why : ft_codec_pick_report();
}

static const ft_codec_kernels_t *kernels(void) {
  pthread_once(&g_once, select_default);
  return __atomic_load_n(&g_kernels, __ATOMIC_ACQUIRE);
}

const char *ft_codec_variant(void) { return kernels()->name; }

int ft_codec_set_variant(const char *name) {
  const ft_codec_kernels_t *k = ft_codec_kernels(name);
  if (!k) return -1;
  pthread_once(&g_once, select_default);
  __atomic_store_n(&g_kernels, k, __ATOMIC_RELEASE);
  return 0;
}

void ft_codec_set_threads(int n) { __atomic_store_n(&g_threads, n < 0 ? 0 : n, __ATOMIC_RELAXED); }

int ft_codec_threads(void) {
  int n = __atomic_load_n(&g_threads, __ATOMIC_RELAXED);
  return n ? n : ft_pool_cpus();
}

/* ---- Encoding ---- */

/* Level-2 words of group g: the code of its (up to) 32 V words and 32 D words. */
static void encode_l2_group(const ft_code_t *c, size_t g) {
  size_t b0 = g * FT_GROUP_BLOCKS;
  unsigned n = (unsigned)(c->nblocks - b0 < FT_GROUP_BLOCKS ? c->nblocks - b0 : FT_GROUP_BLOCKS);
  ft_pair_t pv = ft_encode_words(c->v + b0, n);
  ft_pair_t pd = ft_encode_words(c->d + b0, n);
  c->l2v_v[g] = pv.v;
  c->l2v_d[g] = pv.d;
  c->l2d_v[g] = pd.v;
  c->l2d_d[g] = pd.d;
}

/* A whole group's 32 V words (and its 32 D words) are one 128-byte block of the same
 * code, so the variant's block kernel encodes level 2 too; only a partial last group
 * goes through the scalar loop. (In scalar code the pass cost a sixth of the
 * AVX-512 encode time.) */
void ft_encode_l2(const ft_code_t *c, size_t g0, size_t g1) {
  if (g1 > c->ngroups) g1 = c->ngroups;
  size_t whole = c->nblocks / FT_GROUP_BLOCKS, e = g1 < whole ? g1 : whole;
  if (g0 < e) {
    const ft_codec_kernels_t *k = kernels();
    const size_t w0 = g0 * FT_GROUP_BLOCKS;
    k->encode((const uint8_t *)(c->v + w0), e - g0, c->l2v_v + g0, c->l2v_d + g0, 0);
    k->encode((const uint8_t *)(c->d + w0), e - g0, c->l2d_v + g0, c->l2d_d + g0, 0);
    g0 = e;
  }
  for (size_t g = g0; g < g1; g++) encode_l2_group(c, g);
}

/* Encode (and copy, when dst) chunk `ci`: its whole blocks with the variant
 * kernel, a partial last block zero-padded, then its groups' level-2 words. */
static void encode_chunk(const ft_codec_kernels_t *k, uint8_t *dst, const uint8_t *src,
                         size_t len, const ft_code_t *c, size_t ci, int nt) {
  size_t off = ci * CHUNK_BYTES;
  size_t end = off + CHUNK_BYTES < len ? off + CHUNK_BYTES : len;
  size_t b0 = off / FT_BLOCK_BYTES;
  size_t full = (end - off) / FT_BLOCK_BYTES;
  size_t g0 = b0 / FT_GROUP_BLOCKS, done = 0; /* groups whose level 2 is written */
  if (k->encode_groups && full >= FT_GROUP_BLOCKS) {
    done = full / FT_GROUP_BLOCKS;
    k->encode_groups(dst ? dst + off : NULL, src + off, done, c, g0, nt);
  }
  size_t s = done * FT_GROUP_BLOCKS, so = off + s * FT_BLOCK_BYTES;
  if (dst)
    k->copy_encode(dst + so, src + so, full - s, c->v + b0 + s, c->d + b0 + s, nt);
  else
    k->encode(src + so, full - s, c->v + b0 + s, c->d + b0 + s, nt);
  size_t tail = (end - off) % FT_BLOCK_BYTES;
  if (tail) {
    uint32_t w[FT_BLOCK_WORDS] = {0};
    size_t at = off + full * FT_BLOCK_BYTES;
    memcpy(w, src + at, tail);
    if (dst) memcpy(dst + at, src + at, tail);
    ft_pair_t p = ft_encode_words(w, FT_BLOCK_WORDS);
    c->v[b0 + full] = p.v;
    c->d[b0 + full] = p.d;
  }
  ft_encode_l2(c, g0 + done, g0 + CHUNK_GROUPS);
}

typedef struct {
  const ft_codec_kernels_t *k;
  uint8_t *dst;
  const uint8_t *src;
  size_t len;
  const ft_code_t *c;
  int nt;
} encode_job_t;

static void encode_one(size_t ci, void *arg) {
  const encode_job_t *j = (const encode_job_t *)arg;
  encode_chunk(j->k, j->dst, j->src, j->len, j->c, ci, j->nt);
}

static void encode_all(uint8_t *dst, const uint8_t *src, size_t len, const ft_code_t *c) {
  if (len == 0) return;
  encode_job_t j = {kernels(), dst, src, len, c, len >= NT_MIN_BYTES};
  size_t nchunks = (len + CHUNK_BYTES - 1) / CHUNK_BYTES;
  ft_pool_for(nchunks, len >= PARALLEL_MIN_BYTES ? ft_codec_threads() : 1, encode_one, &j);
}

void ft_encode(const void *data, size_t len, const ft_code_t *code) {
  encode_all(NULL, (const uint8_t *)data, len, code);
}

void ft_copy_encode(void *dst, const void *src, size_t len, const ft_code_t *code) {
  encode_all((uint8_t *)dst, (const uint8_t *)src, len, code);
}

/* ---- Verification ---- */

/* Level-1 syndromes of group g's blocks (stored xor recomputed) and its level-2
 * syndromes. Returns the number of blocks in the group. */
static unsigned group_syndromes(const uint8_t *data, const ft_code_t *c, size_t g,
                                const ft_codec_kernels_t *k, ft_pair_t l1[FT_GROUP_BLOCKS],
                                ft_pair_t *l2v, ft_pair_t *l2d) {
  size_t b0 = g * FT_GROUP_BLOCKS;
  unsigned n = ft_group_nblocks(c->len, g);
  uint32_t v[FT_GROUP_BLOCKS], d[FT_GROUP_BLOCKS];
  size_t off = (size_t)ft_group_start(g);
  size_t bytes = (size_t)ft_group_len(c->len, g);
  size_t full = bytes / FT_BLOCK_BYTES;
  k->encode(data + off, full, v, d, 0);
  if (full < n) {
    uint32_t w[FT_BLOCK_WORDS] = {0};
    memcpy(w, data + off + full * FT_BLOCK_BYTES, bytes - full * FT_BLOCK_BYTES);
    ft_pair_t p = ft_encode_words(w, FT_BLOCK_WORDS);
    v[full] = p.v;
    d[full] = p.d;
  }
  for (unsigned i = 0; i < n; i++) {
    l1[i].v = c->v[b0 + i] ^ v[i];
    l1[i].d = c->d[b0 + i] ^ d[i];
  }
  ft_pair_t pv = ft_encode_words(c->v + b0, n);
  ft_pair_t pd = ft_encode_words(c->d + b0, n);
  l2v->v = c->l2v_v[g] ^ pv.v;
  l2v->d = c->l2v_d[g] ^ pv.d;
  l2d->v = c->l2d_v[g] ^ pd.v;
  l2d->d = c->l2d_d[g] ^ pd.d;
  return n;
}

static int group_dirty(const ft_pair_t *l1, unsigned n, ft_pair_t l2v, ft_pair_t l2d) {
  uint32_t acc = l2v.v | l2v.d | l2d.v | l2d.d;
  for (unsigned i = 0; i < n; i++) acc |= l1[i].v | l1[i].d;
  return acc != 0;
}

typedef struct {
  const ft_codec_kernels_t *k;
  const uint8_t *data;
  const ft_code_t *c;
  uint8_t *dirty;
  atomic_size_t count;
} dirty_job_t;

static void dirty_one(size_t ci, void *arg) {
  dirty_job_t *j = (dirty_job_t *)arg;
  size_t g0 = ci * CHUNK_GROUPS;
  for (size_t g = g0; g < g0 + CHUNK_GROUPS && g < j->c->ngroups; g++) {
    ft_pair_t l1[FT_GROUP_BLOCKS], l2v, l2d;
    unsigned n = group_syndromes(j->data, j->c, g, j->k, l1, &l2v, &l2d);
    if (group_dirty(l1, n, l2v, l2d)) {
      j->dirty[ci] = 1;
      atomic_fetch_add_explicit(&j->count, 1, memory_order_relaxed);
      return;
    }
  }
}

/* First pass: which chunks hold any mismatch (parallel, cheap, no output). */
static uint8_t *dirty_chunks(const uint8_t *data, const ft_code_t *c, size_t nchunks,
                             size_t *ndirty) {
  uint8_t *dirty = (uint8_t *)calloc(nchunks ? nchunks : 1, 1);
  if (!dirty) { /* no memory for the map: callers then scan every chunk */
    *ndirty = nchunks;
    return NULL;
  }
  dirty_job_t j = {kernels(), data, c, dirty, 0};
  ft_pool_for(nchunks, c->len >= PARALLEL_MIN_BYTES ? ft_codec_threads() : 1, dirty_one, &j);
  *ndirty = atomic_load(&j.count);
  return dirty;
}

size_t ft_verify(const void *data_, size_t len, const ft_code_t *c, ft_mismatch_t *out,
                 size_t cap, uint64_t *total) {
  const uint8_t *data = (const uint8_t *)data_;
  size_t nchunks = (len + CHUNK_BYTES - 1) / CHUNK_BYTES, ndirty = 0, written = 0;
  uint64_t found = 0;
  if (total) *total = 0;
  if (len == 0) return 0;
  uint8_t *dirty = dirty_chunks(data, c, nchunks, &ndirty);
  const ft_codec_kernels_t *k = kernels();
  for (size_t ci = 0; ci < nchunks && ndirty; ci++) {
    if (dirty && !dirty[ci]) continue;
    size_t g0 = ci * CHUNK_GROUPS;
    for (size_t g = g0; g < g0 + CHUNK_GROUPS && g < c->ngroups; g++) {
      ft_pair_t l1[FT_GROUP_BLOCKS], l2v, l2d;
      unsigned n = group_syndromes(data, c, g, k, l1, &l2v, &l2d);
      for (unsigned i = 0; i < n; i++) {
        if (!(l1[i].v | l1[i].d)) continue;
        if (written < cap) {
          ft_mismatch_t m = {g * FT_GROUP_BLOCKS + i, l1[i].v, l1[i].d, FT_LVL_DATA};
          out[written++] = m;
        }
        found++;
      }
      const ft_pair_t l2[2] = {l2v, l2d};
      for (unsigned s = 0; s < 2; s++) {
        if (!(l2[s].v | l2[s].d)) continue;
        if (written < cap) {
          ft_mismatch_t m = {g, l2[s].v, l2[s].d, s ? FT_LVL_L2D : FT_LVL_L2V};
          out[written++] = m;
        }
        found++;
      }
    }
  }
  free(dirty);
  if (total) *total = found;
  return written;
}

/* ---- Correction ---- */

static void add_event(ft_event_t *ev, size_t cap, size_t *n, uint64_t off, uint8_t kind,
                      uint8_t bit) {
  if (ev && *n < cap) {
    ft_event_t e = {off, kind, bit};
    ev[*n] = e;
  }
  (*n)++;
}

/* Decode group g and apply what the decoder proves. Returns 1 if something in the
 * group stays uncorrectable. */
static int correct_group(uint8_t *data, const ft_code_t *c, size_t g, const ft_codec_kernels_t *k,
                         ft_event_t *ev, size_t cap, size_t *nev, ft_repair_t *rep) {
  ft_pair_t l1[FT_GROUP_BLOCKS], l2v, l2d;
  unsigned n = group_syndromes(data, c, g, k, l1, &l2v, &l2d);
  if (!group_dirty(l1, n, l2v, l2d)) return 0;
  ft_action_t act[FT_GROUP_MAX_ACTIONS];
  unsigned na = ft_decode_group(l1, n, l2v, l2d, act);
  size_t b0 = g * FT_GROUP_BLOCKS;
  int bad = 0;
  for (unsigned i = 0; i < na; i++) {
    const ft_action_t a = act[i];
    uint64_t boff = (uint64_t)(b0 + a.block) * FT_BLOCK_BYTES;
    switch (a.kind) {
      case FT_ACT_DATA_BIT: {
        uint64_t byte = boff + a.word * 4u + a.bit / 8u;
        if (byte >= c->len) { /* a "bit" in the zero padding: not a real single flip */
          rep->bad_blocks++;
          add_event(ev, cap, nev, boff, FT_ACT_BAD_BLOCK, 0);
          bad = 1;
          break;
        }
        data[byte] ^= (uint8_t)(1u << (a.bit % 8u));
        rep->data_bits++;
        add_event(ev, cap, nev, boff + a.word * 4u, FT_ACT_DATA_BIT, a.bit);
        break;
      }
      case FT_ACT_V_BIT:
        c->v[b0 + a.block] ^= 1u << a.bit;
        rep->code_bits++;
        add_event(ev, cap, nev, boff, FT_ACT_V_BIT, a.bit);
        break;
      case FT_ACT_D_BIT:
        c->d[b0 + a.block] ^= 1u << a.bit;
        rep->code_bits++;
        add_event(ev, cap, nev, boff, FT_ACT_D_BIT, a.bit);
        break;
      case FT_ACT_L2V:
      case FT_ACT_L2D:
        rep->l2_refreshed++;
        add_event(ev, cap, nev, ft_group_start(g), a.kind, 0);
        break;
      case FT_ACT_BAD_BLOCK:
        rep->bad_blocks++;
        add_event(ev, cap, nev, boff, FT_ACT_BAD_BLOCK, 0);
        bad = 1;
        break;
      case FT_ACT_BAD_CODE:
        rep->bad_groups++;
        add_event(ev, cap, nev, ft_group_start(g), FT_ACT_BAD_CODE, 0);
        bad = 1;
        break;
    }
  }
  /* A level-2 refresh is safe only now that the V and D words are confirmed. */
  for (unsigned i = 0; i < na; i++)
    if (act[i].kind == FT_ACT_L2V || act[i].kind == FT_ACT_L2D) {
      if (!bad) encode_l2_group(c, g);
      break;
    }
  return bad;
}

int ft_correct(void *data_, size_t len, const ft_code_t *c, ft_event_t *ev, size_t cap,
               size_t *n_ev, ft_repair_t *rep_out) {
  uint8_t *data = (uint8_t *)data_;
  ft_repair_t rep = {0, 0, 0, 0, 0};
  size_t nev = 0, ndirty = 0;
  int bad = 0;
  if (len) {
    size_t nchunks = (len + CHUNK_BYTES - 1) / CHUNK_BYTES;
    uint8_t *dirty = dirty_chunks(data, c, nchunks, &ndirty);
    const ft_codec_kernels_t *k = kernels();
    for (size_t ci = 0; ci < nchunks && ndirty; ci++) {
      if (dirty && !dirty[ci]) continue;
      size_t g0 = ci * CHUNK_GROUPS;
      for (size_t g = g0; g < g0 + CHUNK_GROUPS && g < c->ngroups; g++)
        bad |= correct_group(data, c, g, k, ev, cap, &nev, &rep);
    }
    free(dirty);
  }
  if (n_ev) *n_ev = nev < cap ? nev : cap;
  if (rep_out) *rep_out = rep;
  return bad;
}
