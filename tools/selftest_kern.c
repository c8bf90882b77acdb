/* selftest_kern.c: `gpuft selftest`, part 1: gpuft's device kernels (encode, verify, fused
 * verify+copy) against the CPU codec, bit for bit, on the device at hand: random data of
 * every size class, 1- and 2-bit flips in data and in codes, and the CPU correction of
 * what the kernels flag (gpuft corrects on the host: there is no device correct kernel). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "selftest.h"

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
uint64_t st_rand(void) { /* xorshift64* */
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return g_rng * 0x2545F4914F6CDD1Dull;
}

typedef struct {
  size_t len, code_bytes;
  uint8_t *host, *ref;    /* data, CPU code of it */
  uint8_t *got, *gotc;    /* read back */
  CUdeviceptr data, code, dst;
} buf_t;

static int fail(st_env_t *e, const char *what, size_t len, long detail) {
  e->kern_fail++;
  if (e->kern_fail <= 10)
    fprintf(stderr, "selftest: FAIL %s (length %zu, %ld)\n", what, len, detail);
  return -1;
}

static int run(st_env_t *e, int which, const buf_t *b, uint64_t g0, uint64_t g1, ftk_job_t *out) {
  ftk_span_t s = {b->data, b->len, b->code, g0, g1, which == FTK_VERIFY_COPY ? b->dst : 0, e->job_dev,
                  e->djob};
  CUresult r = ftk_launch(&e->mod, &e->g.kdrv, which, &s, e->job, e->stream);
  if (!r) r = e->g.cuStreamSynchronize(e->stream);
  if (r) return st_cuda_fail(e, "kernel launch", r);
  *out = *e->job;
  if (out->done != 1 || out->blocks_done != out->blocks_total) return fail(e, "job protocol", b->len, out->done);
  return 0;
}

static int put(st_env_t *e, CUdeviceptr d, const void *h, size_t n) {
  CUresult r = n ? e->g.cuMemcpyHtoD(d, h, n) : CUDA_SUCCESS;
  return r ? st_cuda_fail(e, "copy to the device", r) : 0;
}
static int get(st_env_t *e, void *h, CUdeviceptr d, size_t n) {
  CUresult r = n ? e->g.cuMemcpyDtoH(h, d, n) : CUDA_SUCCESS;
  return r ? st_cuda_fail(e, "copy from the device", r) : 0;
}

/* Verify must flag exactly group `g` (one flip there); verify_copy too, copying the
 * (damaged) data exactly. Then the CPU codec must repair what a 1-bit flip did, and
 * never "repair" a 2-bit flip into wrong data. */
static int check_flagged(st_env_t *e, buf_t *b, uint64_t g, int nbits, const char *what) {
  uint64_t ng = ft_groups_of(b->len);
  ftk_job_t j;
  for (int which = FTK_VERIFY; which <= FTK_VERIFY_COPY; which++) {
    if (run(e, which, b, 0, ng, &j)) return -1;
    if (j.n_bad != 1 || j.bad[0] != g) return fail(e, what, b->len, (long)j.n_bad);
    e->kern_checks++;
  }
  if (get(e, b->got, b->dst, b->len) || get(e, b->gotc, b->code, b->code_bytes)) return -1;
  uint8_t *dev_data = malloc(b->len);
  if (!dev_data || get(e, dev_data, b->data, b->len)) return free(dev_data), -1;
  if (memcmp(dev_data, b->got, b->len)) return free(dev_data), fail(e, "verify_copy copy", b->len, 0);
  free(dev_data);
  ft_code_t c;
  ft_code_bind(&c, b->gotc, b->len);
  int bad = ft_correct(b->got, b->len, &c, NULL, 0, NULL, NULL);
  int exact = !memcmp(b->got, b->host, b->len) && !memcmp(b->gotc, b->ref, b->code_bytes);
  if (nbits == 1 && (bad || !exact)) return fail(e, "CPU correction of a 1-bit flip", b->len, bad);
  if (nbits == 2 && !bad && !exact) return fail(e, "2-bit flip miscorrected", b->len, 0);
  e->kern_checks++;
  return 0;
}

static void flip_host(uint8_t *p, uint64_t bit) { p[bit / 8] ^= (uint8_t)(1u << (bit % 8)); }

static int one_length(st_env_t *e, size_t len, int flips) {
  buf_t b = {.len = len, .code_bytes = ft_code_bytes(len)};
  int rc = -1;
  b.host = malloc(len);
  b.got = malloc(len);
  b.ref = calloc(1, b.code_bytes);
  b.gotc = malloc(b.code_bytes);
  if (!b.host || !b.got || !b.ref || !b.gotc) goto out;
  for (size_t i = 0; i < len; i++) b.host[i] = (uint8_t)st_rand();
  ft_code_t c;
  ft_code_bind(&c, b.ref, len);
  ft_encode(b.host, len, &c);
  if (st_alloc(e, &b.data, len) || st_alloc(e, &b.code, b.code_bytes) || st_alloc(e, &b.dst, len) ||
      put(e, b.data, b.host, len) || e->g.cuMemsetD8(b.code, 0, b.code_bytes))
    goto out;
  uint64_t ng = ft_groups_of(len);
  ftk_job_t j;
  /* encode: the device's code equals the CPU's, bit for bit */
  if (run(e, FTK_ENCODE, &b, 0, ng, &j) || get(e, b.gotc, b.code, b.code_bytes)) goto out;
  if (memcmp(b.gotc, b.ref, b.code_bytes) || !j.changed) {
    fail(e, "encode differs from the CPU codec", len, j.changed);
    goto out;
  }
  e->kern_checks++;
  if (run(e, FTK_VERIFY, &b, 0, ng, &j)) goto out;
  if (j.n_bad) {
    fail(e, "verify of clean data", len, (long)j.n_bad);
    goto out;
  }
  e->kern_checks++;
  /* 1- and 2-bit flips in data (the second in the same group), at random places and at
   * both ends; each undone on the device afterwards */
  for (int f = 0; f < flips; f++) {
    for (int nbits = 1; nbits <= 2; nbits++) {
      uint64_t bit = f == 0 ? 0 : f == 1 ? len * 8 - 1 : st_rand() % (len * 8);
      uint64_t g = ft_group_of(bit / 8), glen = ft_group_len(len, g);
      uint64_t bit2 = ft_group_start(g) * 8 + st_rand() % (glen * 8);
      if (nbits == 2 && (glen * 8 < 2 || bit2 == bit)) continue;
      uint8_t *damaged = malloc(len);
      if (!damaged) goto out;
      memcpy(damaged, b.host, len);
      flip_host(damaged, bit);
      if (nbits == 2) flip_host(damaged, bit2);
      int r = put(e, b.data, damaged, len) ||
              check_flagged(e, &b, g, nbits, nbits == 1 ? "1-bit data flip" : "2-bit data flip");
      free(damaged);
      if (r || put(e, b.data, b.host, len)) goto out;
    }
  }
  /* flips in codes: a V word, a D word, each level-2 word; verify flags the group, the
   * CPU repairs the code */
  size_t off[6];
  ft_code_offsets(len, off);
  uint64_t nb = ft_blocks_of(len);
  for (int arr = 0; arr < 6; arr++) {
    uint64_t words = arr < 2 ? nb : ng, w = st_rand() % words;
    uint64_t g = arr < 2 ? w / 32 : w;
    size_t at = off[arr] + 4 * w;
    uint32_t word;
    memcpy(&word, b.ref + at, 4);
    word ^= 1u << (st_rand() % 32);
    if (put(e, b.code + at, &word, 4)) goto out;
    if (check_flagged(e, &b, g, 1, "code flip") || put(e, b.code + at, b.ref + at, 4)) goto out;
  }
  rc = 0;
out:
  st_free(e, b.data);
  st_free(e, b.code);
  st_free(e, b.dst);
  free(b.host);
  free(b.got);
  free(b.ref);
  free(b.gotc);
  return rc;
}

int st_kernels(st_env_t *e, int quick) {
  /* every size class: under a block, around block and group edges, several groups,
   * a partial last group, past one kernel grid's reach (512 blocks x 8 groups) */
  static const size_t lengths[] = {1, 3, 127, 128, 129, 1000, 4095, 4096, 4097, 8320, 98309,
                                   (1u << 20), (1u << 20) + 77, (5u << 20) + 1234,
                                   (17u << 20) + 4100, (64u << 20) + 12};
  size_t n = sizeof lengths / sizeof *lengths;
  if (quick || e->g.sim) n -= 2; /* the CPU stands in for the GPU: keep it short */
  for (size_t i = 0; i < n; i++) {
    if (one_length(e, lengths[i], lengths[i] > (1u << 20) ? 3 : 6) && e->kern_fail == 0) return -1;
    e->kern_lengths++;
  }
  return e->kern_fail ? -1 : 0;
}
