/* pick.c: which codec variant this process uses: the fastest encoder measured on the
 * CPU at hand (a few ms, once), not the widest the feature bits allow: on some CPUs
 * AVX2 encodes faster than AVX-512 (docs/codec.md). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec.h"
#include "kernels.h"

/* 2 MiB: past the L2 of most CPUs, so the loads come from where a copy's would, and
 * 4 runs per variant stay within about 1 ms each on the slowest (scalar). */
#define PICK_BYTES ((size_t)2 << 20)
#define PICK_RUNS 4

static char g_report[256];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

const ft_codec_kernels_t *ft_codec_pick(void) {
  static const char *const names[] = {"avx512", "avx2", "scalar"};
  size_t nb = PICK_BYTES / FT_BLOCK_BYTES;
  uint8_t *buf = aligned_alloc(64, PICK_BYTES);
  uint32_t *vd = aligned_alloc(64, 2 * nb * sizeof *vd);
  const ft_codec_kernels_t *best = &ft_kernels_scalar;
  if (!buf || !vd) {
    free(buf);
    free(vd);
    snprintf(g_report, sizeof g_report, "scalar (no memory to measure)");
    return best;
  }
  for (size_t i = 0; i < PICK_BYTES; i++) buf[i] = (uint8_t)(i * 131u + (i >> 9));
  double best_gbs = 0;
  int n = snprintf(g_report, sizeof g_report, "measured encode:");
  for (size_t v = 0; v < sizeof names / sizeof *names; v++) {
    const ft_codec_kernels_t *k = ft_codec_kernels(names[v]);
    if (!k) continue;
    k->encode(buf, nb, vd, vd + nb, 0); /* warm: caches, page tables */
    double t_min = 1e9;
    for (int r = 0; r < PICK_RUNS; r++) {
      double t0 = now();
      k->encode(buf, nb, vd, vd + nb, 0);
      double t = now() - t0;
      if (t < t_min) t_min = t;
    }
    double gbs = t_min > 0 ? PICK_BYTES / t_min * 1e-9 : 0;
    if (n > 0 && (size_t)n < sizeof g_report)
      n += snprintf(g_report + n, sizeof g_report - (size_t)n, " %s %.1f GB/s", names[v], gbs);
    if (gbs > best_gbs) best_gbs = gbs, best = k;
  }
  free(buf);
  free(vd);
  return best;
}

const char *ft_codec_pick_report(void) { return g_report; }
