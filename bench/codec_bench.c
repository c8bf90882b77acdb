/* codec_bench: host codec throughput against the memory-speed baselines measured in
 * the same run (libc memcpy, the fastest plain copy, a read-only pass), 1 thread
 * and all threads, best of N. `codec_bench [--size MiB] [--reps N] [--json]`. */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>

#include "codec.h"
#include "pool.h"

#define CHUNK ((size_t)1 << 20)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- Baselines ---- */

__attribute__((target("avx512f"))) static uint64_t read_avx512(const uint8_t *p, size_t n) {
  __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    a0 = _mm512_xor_si512(a0, _mm512_load_si512((const void *)(p + i)));
    a1 = _mm512_xor_si512(a1, _mm512_load_si512((const void *)(p + i + 64)));
    a2 = _mm512_xor_si512(a2, _mm512_load_si512((const void *)(p + i + 128)));
    a3 = _mm512_xor_si512(a3, _mm512_load_si512((const void *)(p + i + 192)));
  }
  a0 = _mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3));
  uint64_t out[8];
  _mm512_storeu_si512((void *)out, a0);
  return out[0] ^ out[3] ^ out[7];
}

__attribute__((target("avx2"))) static uint64_t read_avx2(const uint8_t *p, size_t n) {
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  for (size_t i = 0; i + 128 <= n; i += 128) {
    a0 = _mm256_xor_si256(a0, _mm256_load_si256((const __m256i *)(p + i)));
    a1 = _mm256_xor_si256(a1, _mm256_load_si256((const __m256i *)(p + i + 32)));
    a2 = _mm256_xor_si256(a2, _mm256_load_si256((const __m256i *)(p + i + 64)));
    a3 = _mm256_xor_si256(a3, _mm256_load_si256((const __m256i *)(p + i + 96)));
  }
  a0 = _mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3));
  return (uint64_t)_mm256_extract_epi64(a0, 0) ^ (uint64_t)_mm256_extract_epi64(a0, 3);
}

static uint64_t read_scalar(const uint8_t *p, size_t n) {
  uint64_t a = 0;
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    a ^= w;
  }
  return a;
}

/* Plain copy with non-temporal stores: the fastest copy on this kind of machine. */
__attribute__((target("avx512f"))) static void ntcopy_avx512(uint8_t *d, const uint8_t *s,
                                                             size_t n) {
  for (size_t i = 0; i + 256 <= n; i += 256) {
    __m512i x0 = _mm512_load_si512((const void *)(s + i));
    __m512i x1 = _mm512_load_si512((const void *)(s + i + 64));
    __m512i x2 = _mm512_load_si512((const void *)(s + i + 128));
    __m512i x3 = _mm512_load_si512((const void *)(s + i + 192));
    _mm512_stream_si512((void *)(d + i), x0);
    _mm512_stream_si512((void *)(d + i + 64), x1);
    _mm512_stream_si512((void *)(d + i + 128), x2);
    _mm512_stream_si512((void *)(d + i + 192), x3);
  }
  _mm_sfence();
}

__attribute__((target("avx2"))) static void ntcopy_avx2(uint8_t *d, const uint8_t *s, size_t n) {
  for (size_t i = 0; i + 128 <= n; i += 128) {
    __m256i x0 = _mm256_load_si256((const __m256i *)(s + i));
    __m256i x1 = _mm256_load_si256((const __m256i *)(s + i + 32));
    __m256i x2 = _mm256_load_si256((const __m256i *)(s + i + 64));
    __m256i x3 = _mm256_load_si256((const __m256i *)(s + i + 96));
    _mm256_stream_si256((__m256i *)(d + i), x0);
    _mm256_stream_si256((__m256i *)(d + i + 32), x1);
    _mm256_stream_si256((__m256i *)(d + i + 64), x2);
    _mm256_stream_si256((__m256i *)(d + i + 96), x3);
  }
  _mm_sfence();
}

/* ---- Harness ---- */

typedef struct {
  size_t len;
  uint8_t *src, *dst;
  ft_code_t code;
  const ft_codec_kernels_t *k;
  int threads;
  volatile uint64_t sink;
} ctx_t;

enum { OP_MEMCPY, OP_NTCOPY, OP_READ, OP_ENCODE, OP_COPY_ENCODE, OP_VERIFY };

static int have(const char *f) {
  __builtin_cpu_init();
  if (!strcmp(f, "avx512")) return __builtin_cpu_supports("avx512f");
  if (!strcmp(f, "avx2")) return __builtin_cpu_supports("avx2");
  return 1;
}

typedef struct {
  ctx_t *c;
  int op, a512, a2;
  _Atomic uint64_t acc;
} chunks_t;

static void one_chunk(size_t i, void *arg) {
  chunks_t *j = arg;
  ctx_t *c = j->c;
  size_t off = i * CHUNK, n = c->len - off < CHUNK ? c->len - off : CHUNK;
  if (j->op == OP_MEMCPY) {
    memcpy(c->dst + off, c->src + off, n);
  } else if (j->op == OP_NTCOPY) {
    if (j->a512) ntcopy_avx512(c->dst + off, c->src + off, n);
    else if (j->a2) ntcopy_avx2(c->dst + off, c->src + off, n);
    else memcpy(c->dst + off, c->src + off, n);
  } else {
    atomic_fetch_xor(&j->acc, j->a512 ? read_avx512(c->src + off, n)
                              : j->a2 ? read_avx2(c->src + off, n) : read_scalar(c->src + off, n));
  }
}

/* The baselines run chunked over the same threads (codec/pool.c) as the codec does. */
static void run_chunks(ctx_t *c, int op) {
  chunks_t j = {c, op, have("avx512"), have("avx2"), 0};
  ft_pool_for((c->len + CHUNK - 1) / CHUNK, c->threads, one_chunk, &j);
  c->sink ^= atomic_load(&j.acc);
}

static double time_op(ctx_t *c, int op, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    switch (op) {
      case OP_MEMCPY:
      case OP_NTCOPY:
      case OP_READ: run_chunks(c, op); break;
      case OP_ENCODE: ft_encode(c->src, c->len, &c->code); break;
      case OP_COPY_ENCODE: ft_copy_encode(c->dst, c->src, c->len, &c->code); break;
      case OP_VERIFY: {
        uint64_t total = 0;
        ft_verify(c->src, c->len, &c->code, NULL, 0, &total);
        if (total) {
          fprintf(stderr, "codec_bench: verify found %ju mismatches on clean data\n",
                  (uintmax_t)total);
          exit(1);
        }
        break;
      }
    }
    double dt = now() - t0;
    if (dt < best) best = dt;
  }
  return (double)c->len / best / 1e9;
}

typedef struct {
  double memcpy_, ntcopy, read, verify;
  double encode[3], copy_encode[3];
} results_t;

static const char *const VARIANTS[3] = {"scalar", "avx2", "avx512"};

static void measure(ctx_t *c, int threads, int reps, results_t *r) {
  c->threads = threads;
  ft_codec_set_threads(threads);
  r->memcpy_ = time_op(c, OP_MEMCPY, reps);
  r->ntcopy = time_op(c, OP_NTCOPY, reps);
  r->read = time_op(c, OP_READ, reps);
  for (int v = 0; v < 3; v++) {
    r->encode[v] = r->copy_encode[v] = 0;
    if (ft_codec_set_variant(VARIANTS[v]) != 0) continue;
    r->encode[v] = time_op(c, OP_ENCODE, reps);
    r->copy_encode[v] = time_op(c, OP_COPY_ENCODE, reps);
  }
  for (int v = 2; v >= 0; v--)
    if (ft_codec_set_variant(VARIANTS[v]) == 0) break;
  ft_encode(c->src, c->len, &c->code);
  r->verify = time_op(c, OP_VERIFY, reps);
}

static int best_variant(const results_t *r) {
  int b = 0;
  for (int v = 1; v < 3; v++)
    if (r->copy_encode[v] + r->encode[v] > r->copy_encode[b] + r->encode[b]) b = v;
  return b;
}

int main(int argc, char **argv) {
  size_t mib = 256;
  int reps = 5, json = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc) mib = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json")) json = 1;
    else {
      fprintf(stderr, "usage: %s [--size MiB] [--reps N] [--json]\n", argv[0]);
      return 2;
    }
  }
  if (mib == 0 || reps <= 0) {
    fprintf(stderr, "codec_bench: --size and --reps must be positive\n");
    return 2;
  }
  ctx_t c = {0};
  c.len = mib << 20;
  c.src = aligned_alloc(4096, c.len);
  c.dst = aligned_alloc(4096, c.len);
  size_t cb = ft_code_bytes(c.len);
  void *cmem = aligned_alloc(4096, (cb + 4095) & ~(size_t)4095);
  if (!c.src || !c.dst || !cmem) {
    fprintf(stderr, "codec_bench: out of memory for %zu MiB buffers\n", mib);
    return 1;
  }
  for (size_t i = 0; i < c.len; i += 8) {
    uint64_t x = i * 0x9e3779b97f4a7c15ull;
    memcpy(c.src + i, &x, 8);
  }
  memset(c.dst, 1, c.len);
  memset(cmem, 0, cb);
  ft_code_bind(&c.code, cmem, c.len);

  int all = ft_pool_cpus();
  results_t r1, ra;
  measure(&c, 1, reps, &r1);
  measure(&c, all, reps, &ra);
  int b1 = best_variant(&r1), ba = best_variant(&ra);

  if (json) {
    printf("{\"size_mib\": %zu, \"reps\": %d, \"threads\": %d, \"variant\": \"%s\", "
           "\"memcpy_gbps\": %.2f, \"copy_gbps\": %.2f, \"read_gbps\": %.2f, "
           "\"encode_gbps\": %.2f, \"copy_encode_gbps\": %.2f, \"verify_gbps\": %.2f, "
           "\"encode_over_read\": %.3f, \"copy_encode_over_copy\": %.3f, "
           "\"one_thread\": {\"memcpy_gbps\": %.2f, \"copy_gbps\": %.2f, \"read_gbps\": %.2f, "
           "\"encode_gbps\": %.2f, \"copy_encode_gbps\": %.2f, \"verify_gbps\": %.2f}, "
           "\"variants\": {",
           mib, reps, all, VARIANTS[ba], ra.memcpy_, ra.ntcopy, ra.read, ra.encode[ba],
           ra.copy_encode[ba], ra.verify, ra.encode[ba] / ra.read,
           ra.copy_encode[ba] / ra.ntcopy, r1.memcpy_, r1.ntcopy, r1.read, r1.encode[b1],
           r1.copy_encode[b1], r1.verify);
    int first = 1;
    for (int v = 0; v < 3; v++) {
      if (ra.encode[v] == 0) continue;
      printf("%s\"%s\": {\"encode_gbps\": %.2f, \"copy_encode_gbps\": %.2f, "
             "\"encode_gbps_1t\": %.2f, \"copy_encode_gbps_1t\": %.2f}",
             first ? "" : ", ", VARIANTS[v], ra.encode[v], ra.copy_encode[v], r1.encode[v],
             r1.copy_encode[v]);
      first = 0;
    }
    printf("}}\n");
  } else {
    printf("codec_bench: %zu MiB buffers, best of %d, GB/s of data processed\n\n", mib, reps);
    printf("%-28s %10s %10s\n", "", "1 thread", "threads=" );
    printf("%-28s %10s %10d\n", "", "", all);
    printf("%-28s %10.2f %10.2f\n", "libc memcpy", r1.memcpy_, ra.memcpy_);
    printf("%-28s %10.2f %10.2f\n", "fastest copy (NT stores)", r1.ntcopy, ra.ntcopy);
    printf("%-28s %10.2f %10.2f\n", "read-only pass", r1.read, ra.read);
    for (int v = 0; v < 3; v++) {
      if (ra.encode[v] == 0) continue;
      char l1[40], l2[40];
      snprintf(l1, sizeof l1, "encode (%s)", VARIANTS[v]);
      snprintf(l2, sizeof l2, "copy+encode (%s)", VARIANTS[v]);
      printf("%-28s %10.2f %10.2f\n", l1, r1.encode[v], ra.encode[v]);
      printf("%-28s %10.2f %10.2f\n", l2, r1.copy_encode[v], ra.copy_encode[v]);
    }
    printf("%-28s %10.2f %10.2f\n", "verify (best variant)", r1.verify, ra.verify);
    printf("\nratios, same run (best variant: %s)\n", VARIANTS[ba]);
    printf("%-28s %10.3f %10.3f\n", "encode / read pass", r1.encode[b1] / r1.read,
           ra.encode[ba] / ra.read);
    printf("%-28s %10.3f %10.3f\n", "copy+encode / fastest copy", r1.copy_encode[b1] / r1.ntcopy,
           ra.copy_encode[ba] / ra.ntcopy);
    printf("%-28s %10.3f %10.3f\n", "copy+encode / libc memcpy", r1.copy_encode[b1] / r1.memcpy_,
           ra.copy_encode[ba] / ra.memcpy_);
  }
  free(c.src);
  free(c.dst);
  free(cmem);
  return 0;
}
