/* fft3d_twins.c: host twins of fft3d.cu's own kernels (batched Stockham line FFTs and
 * the tiled transpose), so that the benchmark runs on the simulator. */
#include <stddef.h>

#include "twin_util.h"

typedef struct {
  float x, y;
} cf; /* float2 */

#define TD 32

/* fft_lines(const float2 *src, float2 *dst, const float2 *tw, int n, int lines, int inverse),
 * blockDim = (n/2, L): L lines per block, the same butterflies in the same order. */
static void fft_lines_twin(const simcuda_block_t *blk, void **params) {
  const int n = TWIN_ARG(params, 3, int), lines = TWIN_ARG(params, 4, int);
  const int inverse = TWIN_ARG(params, 5, int), half = n / 2;
  if (n < 2 || (n & (n - 1)) || blk->blockDim.x != (unsigned)half) return;
  const size_t bytes = (size_t)lines * n * sizeof(cf);
  const cf *src = twin_span(blk, TWIN_ARG(params, 0, const cf *), bytes);
  cf *dst = twin_span(blk, TWIN_ARG(params, 1, cf *), bytes);
  const cf *tw = twin_span(blk, TWIN_ARG(params, 2, const cf *), (size_t)half * sizeof(cf));
  if (!src || !dst || !tw || blk->shared_bytes < 2 * (size_t)blk->blockDim.y * n * sizeof(cf)) return;
  for (unsigned ty = 0; ty < blk->blockDim.y; ty++) {
    const size_t line = (size_t)blk->blockIdx.x * blk->blockDim.y + ty;
    if (line >= (size_t)lines) continue;
    cf *x = (cf *)blk->shared + (size_t)ty * 2 * n, *y = x + n;
    for (int i = 0; i < n; i++) x[i] = src[line * n + i];
    for (int ns = 1; ns < n; ns <<= 1) {
      for (int tx = 0; tx < half; tx++) {
        const int k = tx & (ns - 1), d = ((tx - k) << 1) + k;
        cf w = tw[k * (half / ns)];
        if (inverse) w.y = -w.y;
        const cf v0 = x[tx], a = x[tx + half];
        const cf v1 = {a.x * w.x - a.y * w.y, a.x * w.y + a.y * w.x};
        y[d] = (cf){v0.x + v1.x, v0.y + v1.y};
        y[d + ns] = (cf){v0.x - v1.x, v0.y - v1.y};
      }
      cf *t = x;
      x = y;
      y = t;
    }
    for (int i = 0; i < n; i++) dst[line * n + i] = x[i];
  }
}

/* transpose_c(const float2 *src, float2 *dst, int rows, int cols): one 32 x 32 tile. */
static void transpose_twin(const simcuda_block_t *blk, void **params) {
  const int rows = TWIN_ARG(params, 2, int), cols = TWIN_ARG(params, 3, int);
  const size_t bytes = (size_t)rows * cols * sizeof(cf);
  const cf *src = twin_span(blk, TWIN_ARG(params, 0, const cf *), bytes);
  cf *dst = twin_span(blk, TWIN_ARG(params, 1, cf *), bytes);
  if (!src || !dst) return;
  const int r0 = (int)blk->blockIdx.y * TD, c0 = (int)blk->blockIdx.x * TD;
  for (int r = r0; r < r0 + TD && r < rows; r++)
    for (int c = c0; c < c0 + TD && c < cols; c++) dst[(size_t)c * rows + r] = src[(size_t)r * cols + c];
}

static const uint16_t fft_size[] = {8, 8, 8, 4, 4, 4}, fft_align[] = {8, 8, 8, 4, 4, 4};
static const uint16_t tr_size[] = {8, 8, 4, 4}, tr_align[] = {8, 8, 4, 4};
static const simcuda_kernel_t twins[] = {
    SIMCUDA_KERNEL("_Z9fft_linesPK6float2PS_S1_iii", fft_lines_twin, fft_size, fft_align),
    SIMCUDA_KERNEL("_Z11transpose_cPK6float2PS_ii", transpose_twin, tr_size, tr_align),
};
SIMCUDA_REGISTER_TWINS(twins)
