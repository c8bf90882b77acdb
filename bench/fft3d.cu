// fft3d: the paper's second workload (section 4.2): an n^3 single-precision complex 3-D
// FFT, forward then inverse, with cuFFT and with the project's own kernels, in place and
// out of place; kernel-only (events) and end-to-end (H2D + both FFTs + D2H) times.
//   fft3d [--n 256] [--reps 5] [--impl own,cufft,own-graph] [--place in,out] [--json]
// own-graph (not in the default list): the own kernels' forward and inverse passes
// captured once into a CUDA graph (the driver's capture calls) and the graph launched
// every repetition, as programs written for graphs run (issue 24).
// Own kernels: each pass FFTs every line along the fastest axis (radix-2 Stockham in
// shared memory) and transposes (n*n x n -> n x n*n), which rotates the axes; three
// passes transform all three axes and restore the layout.
#include <cuda.h>
#include <cufft.h>
#include <math.h>

#include "common/bench.h"

#define TD 32 /* transpose tile */
#define TR 8  /* rows of threads per transpose tile */

static __host__ __device__ inline float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// FFT of `lines` contiguous lines of length n (power of two): blockDim = (n/2, L), one
// butterfly per thread per stage, L lines per block, 2*L*n float2 of dynamic shared
// memory (ping-pong). tw[k] = exp(-2 pi i k / n), k < n/2; conjugated for the inverse.
// src and dst may be the same buffer (a block reads its lines before writing them).
__global__ void fft_lines(const float2 *src, float2 *dst, const float2 *tw, int n, int lines,
                          int inverse) {
  extern __shared__ float2 sh[];
  const int half = n >> 1, tx = threadIdx.x, ty = threadIdx.y;
  const size_t line = (size_t)blockIdx.x * blockDim.y + ty;
  const bool live = line < (size_t)lines;
  float2 *x = sh + (size_t)ty * 2 * n, *y = x + n;
  if (live) {
    x[tx] = src[line * n + tx];
    x[tx + half] = src[line * n + tx + half];
  }
  __syncthreads();
  for (int ns = 1; ns < n; ns <<= 1) {  // Stockham autosort: output in natural order
    const int k = tx & (ns - 1);
    float2 w = tw[k * (half / ns)];
    if (inverse) w.y = -w.y;
    const float2 v0 = x[tx], v1 = cmul(x[tx + half], w);
    const int d = ((tx - k) << 1) + k;
    y[d] = make_float2(v0.x + v1.x, v0.y + v1.y);
    y[d + ns] = make_float2(v0.x - v1.x, v0.y - v1.y);
    __syncthreads();
    float2 *t = x;
    x = y;
    y = t;
  }
  if (live) {
    dst[line * n + tx] = x[tx];
    dst[line * n + tx + half] = x[tx + half];
  }
}

// dst (cols x rows) = transpose of src (rows x cols), through a padded shared tile so
// that both the reads and the writes are coalesced.
__global__ void transpose_c(const float2 *src, float2 *dst, int rows, int cols) {
  __shared__ float2 tile[TD][TD + 1];
  int c = blockIdx.x * TD + threadIdx.x, r = blockIdx.y * TD + threadIdx.y;
  for (int j = 0; j < TD; j += TR)
    if (c < cols && r + j < rows) tile[threadIdx.y + j][threadIdx.x] = src[(size_t)(r + j) * cols + c];
  __syncthreads();
  r = blockIdx.y * TD + threadIdx.x;
  c = blockIdx.x * TD + threadIdx.y;
  for (int j = 0; j < TD; j += TR)
    if (r < rows && c + j < cols) dst[(size_t)(c + j) * rows + r] = tile[threadIdx.x][threadIdx.y + j];
}

namespace {

// One 3-D transform with the own kernels: in -> out (may be the same), tmp is scratch.
void own_fft3d(const float2 *in, float2 *out, float2 *tmp, const float2 *tw, int n, int inverse,
               cudaStream_t s = 0) {
  const int lines = n * n, per_block = n >= 256 ? 1 : 256 / n;
  dim3 fb(n / 2, per_block), fg((lines + per_block - 1) / per_block);
  const size_t shmem = 2 * (size_t)per_block * n * sizeof(float2);
  dim3 tb(TD, TR), tg((n + TD - 1) / TD, (lines + TD - 1) / TD);
  const float2 *src = in;
  for (int pass = 0; pass < 3; pass++) {
    fft_lines<<<fg, fb, shmem, s>>>(src, tmp, tw, n, lines, inverse);
    BENCH_CK(cudaGetLastError());
    transpose_c<<<tg, tb, 0, s>>>(tmp, out, lines, n);
    BENCH_CK(cudaGetLastError());
    src = out;
  }
}

struct variant {
  bool cufft, inplace;
  const char *name;
  bool graph; /* own kernels, forward + inverse captured into one graph */
};

struct ctx {
  int n;
  size_t count, bytes;
  std::vector<float2> x, back;
  float2 *dIn = nullptr, *dOut = nullptr, *dTmp = nullptr, *dTw = nullptr;
  cufftHandle plan = 0;
  cudaEvent_t e0, e1;
  cudaStream_t gs = nullptr; /* (blocking: ordered with the legacy stream's copies) */
};

void transform(ctx &c, const variant &v, int inverse) {
  float2 *src = inverse && !v.inplace ? c.dOut : c.dIn;
  float2 *dst = v.inplace ? c.dIn : inverse ? c.dIn : c.dOut;
  if (v.cufft) {
    cufftResult r = cufftExecC2C(c.plan, (cufftComplex *)src, (cufftComplex *)dst,
                                 inverse ? CUFFT_INVERSE : CUFFT_FORWARD);
    if (r != CUFFT_SUCCESS) {
      fprintf(stderr, "fft3d: cufftExecC2C failed: %d\n", (int)r);
      exit(2);
    }
  } else {
    own_fft3d(src, dst, c.dTmp, c.dTw, c.n, inverse);
  }
}

// Error of a few spectrum points against a direct DFT (double), relative to ||x||_2.
double spot_check(const ctx &c, const std::vector<float2> &X) {
  const int n = c.n;
  std::vector<double> cs(n), sn(n);
  for (int m = 0; m < n; m++) cs[m] = cos(2 * M_PI * m / n), sn[m] = -sin(2 * M_PI * m / n);
  double norm = 0;
  for (const float2 &v : c.x) norm += (double)v.x * v.x + (double)v.y * v.y;
  norm = sqrt(norm);
  const int pts[4][3] = {{0, 0, 0}, {1, 2, 3}, {n - 1, n / 2, 1}, {n / 3, 5 % n, n - 2}};
  double worst = 0;
  for (const auto &p : pts) {
    const int kz = p[0] % n, ky = p[1] % n, kx = p[2] % n;
    double re = 0, im = 0;
    size_t i = 0;
    for (int z = 0; z < n; z++)
      for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++, i++) {
          const int m = (int)(((long)kz * z + (long)ky * y + (long)kx * x) & (n - 1));
          re += c.x[i].x * cs[m] - c.x[i].y * sn[m];
          im += c.x[i].x * sn[m] + c.x[i].y * cs[m];
        }
    const float2 got = X[((size_t)kz * n + ky) * n + kx];
    const double e = hypot(got.x - re, got.y - im) / (norm > 0 ? norm : 1);
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

#define CU_CK(call)                                                                   \
  do {                                                                                \
    CUresult r_ = (call);                                                             \
    if (r_ != CUDA_SUCCESS) {                                                         \
      fprintf(stderr, "fft3d: %s: CUresult %d\n", #call, (int)r_);                     \
      exit(2);                                                                        \
    }                                                                                 \
  } while (0)

// The forward and the inverse transform of v, captured on c.gs into one executable graph.
CUgraphExec capture(ctx &c, const variant &v) {
  CUgraph g;
  CUgraphExec e;
  CU_CK(cuStreamBeginCapture((CUstream)c.gs, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  for (int inverse = 0; inverse < 2; inverse++) {
    float2 *src = inverse && !v.inplace ? c.dOut : c.dIn;
    float2 *dst = v.inplace ? c.dIn : inverse ? c.dIn : c.dOut;
    own_fft3d(src, dst, c.dTmp, c.dTw, c.n, inverse, c.gs);
  }
  CU_CK(cuStreamEndCapture((CUstream)c.gs, &g));
  CU_CK(cuGraphInstantiate(&e, g, 0));
  CU_CK(cuGraphDestroy(g));
  return e;
}

bool measure(ctx &c, const variant &v, int reps, bench_row *row) {
  // Not timed: the forward transform alone, checked against a direct DFT.
  BENCH_CK(cudaMemcpy(c.dIn, c.x.data(), c.bytes, cudaMemcpyHostToDevice));
  transform(c, v, 0);
  std::vector<float2> X(c.count);
  BENCH_CK(cudaMemcpy(X.data(), v.inplace ? c.dIn : c.dOut, c.bytes, cudaMemcpyDeviceToHost));
  const double spot = spot_check(c, X);

  std::vector<double> k, e;
  CUgraphExec ge = v.graph ? capture(c, v) : nullptr;
  for (int r = 0; r <= reps; r++) {  // repetition 0 warms up
    const double t0 = bench_now();
    BENCH_CK(cudaMemcpy(c.dIn, c.x.data(), c.bytes, cudaMemcpyHostToDevice));
    BENCH_CK(cudaEventRecord(c.e0));
    if (ge) {
      CU_CK(cuGraphLaunch(ge, (CUstream)c.gs));
    } else {
      transform(c, v, 0);
      transform(c, v, 1);
    }
    BENCH_CK(cudaEventRecord(c.e1));
    BENCH_CK(cudaMemcpy(c.back.data(), c.dIn, c.bytes, cudaMemcpyDeviceToHost));
    const double t1 = bench_now();
    float ms = 0;
    BENCH_CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
    if (r > 0) k.push_back(ms), e.push_back((t1 - t0) * 1e3);
  }
  if (ge) CU_CK(cuGraphExecDestroy(ge));
  // Round trip: inverse(forward(x)) = n^3 x (neither library nor kernels normalise).
  double peak = 0, err = 0;
  const double scale = 1.0 / (double)c.count;
  for (size_t i = 0; i < c.count; i++) {
    peak = fmax(peak, fmax(fabs(c.x[i].x), fabs(c.x[i].y)));
    const double d = fmax(fabs(c.back[i].x * scale - c.x[i].x), fabs(c.back[i].y * scale - c.x[i].y));
    if (!(d <= err)) err = d;
  }
  err /= peak > 0 ? peak : 1;
  row->impl = v.name;
  row->n = c.n;
  row->kernel_ms = bench_summarise(k);
  row->e2e_ms = bench_summarise(e);
  row->work = 2 * 5.0 * (double)c.count * log2((double)c.count);
  row->max_err = fmax(err, spot);
  row->ok = err <= 1e-4 && spot <= 1e-4;  // float FFTs stay near 1e-6; a wrong one is O(1)
  return row->ok;
}

void usage(const char *argv0) {
  fprintf(stderr,
          "usage: %s [--n N] [--reps R] [--impl own,cufft,own-graph] [--place in,out] [--json]\n"
          "  N^3 complex single-precision 3-D FFT, forward then inverse (default N 256, 5 reps;\n"
          "  the own kernels need N a power of two in [2, 1024])\n",
          argv0);
}

}  // namespace

int main(int argc, char **argv) {
  long n = 256;
  int reps = 5;
  bool json = false;
  std::string impls = "own,cufft", places = "in,out";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc) {
      n = strtol(argv[++i], nullptr, 10);
      if (n < 2 || n > 1024 || (n & (n - 1))) {
        fprintf(stderr, "fft3d: --n must be a power of two in [2, 1024]\n");
        return 64;
      }
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
      if (reps < 1 || reps > 1000) {
        fprintf(stderr, "fft3d: --reps must be in [1, 1000]\n");
        return 64;
      }
    } else if (!strcmp(argv[i], "--impl") && i + 1 < argc) {
      impls = argv[++i];
    } else if (!strcmp(argv[i], "--place") && i + 1 < argc) {
      places = argv[++i];
    } else if (!strcmp(argv[i], "--json")) {
      json = true;
    } else {
      usage(argv[0]);
      return !strcmp(argv[i], "--help") ? 0 : 64;
    }
  }

  ctx c;
  c.n = (int)n;
  c.count = (size_t)n * n * n;
  c.bytes = c.count * sizeof(float2);
  c.x.resize(c.count);
  c.back.resize(c.count);
  unsigned s = 7;
  for (float2 &v : c.x) {
    s = s * 1664525u + 1013904223u;
    v.x = (float)((int)(s >> 9) % 2001 - 1000) / 1000.0f;
    s = s * 1664525u + 1013904223u;
    v.y = (float)((int)(s >> 9) % 2001 - 1000) / 1000.0f;
  }
  std::vector<float2> tw(n / 2);
  for (long k = 0; k < n / 2; k++)
    tw[k] = make_float2((float)cos(-2 * M_PI * k / n), (float)sin(-2 * M_PI * k / n));
  BENCH_CK(cudaMalloc(&c.dIn, c.bytes));
  BENCH_CK(cudaMalloc(&c.dOut, c.bytes));
  BENCH_CK(cudaMalloc(&c.dTmp, c.bytes));
  BENCH_CK(cudaMalloc(&c.dTw, tw.size() * sizeof(float2)));
  BENCH_CK(cudaMemcpy(c.dTw, tw.data(), tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
  BENCH_CK(cudaEventCreate(&c.e0));
  BENCH_CK(cudaEventCreate(&c.e1));

  std::vector<bench_row> rows;
  std::vector<bench_skip> skips;
  bool use_cufft = bench_list_has(impls, "cufft");
  if (use_cufft && bench_on_simulator()) {
    skips.push_back({"cufft", "cuFFT needs a real GPU (the simulator runs only kernels with C twins)"});
    use_cufft = false;
  } else if (use_cufft) {
    cufftResult r = cufftPlan3d(&c.plan, c.n, c.n, c.n, CUFFT_C2C);
    if (r != CUFFT_SUCCESS) {
      skips.push_back({"cufft", "cufftPlan3d failed (status " + std::to_string((int)r) +
                                    "): no usable GPU for cuFFT"});
      use_cufft = false;
    }
  }
  if (!json)
    for (const bench_skip &sk : skips) fprintf(stderr, "fft3d: %s skipped: %s\n", sk.impl.c_str(), sk.reason.c_str());

  const variant all[] = {{false, true, "own-inplace", false},       {false, false, "own-outofplace", false},
                         {true, true, "cufft-inplace", false},      {true, false, "cufft-outofplace", false},
                         {false, true, "own-graph-inplace", true},  {false, false, "own-graph-outofplace", true}};
  BENCH_CK(cudaStreamCreate(&c.gs));
  bool all_ok = true;
  for (const variant &v : all) {
    if (v.cufft ? !use_cufft : !bench_list_has(impls, v.graph ? "own-graph" : "own")) continue;
    if (!bench_list_has(places, v.inplace ? "in" : "out")) continue;
    bench_row row;
    all_ok = measure(c, v, reps, &row) && all_ok;
    rows.push_back(row);
  }
  if (c.plan) cufftDestroy(c.plan);
  BENCH_CK(cudaStreamDestroy(c.gs));
  BENCH_CK(cudaFree(c.dIn));
  BENCH_CK(cudaFree(c.dOut));
  BENCH_CK(cudaFree(c.dTmp));
  BENCH_CK(cudaFree(c.dTw));
  if (json)
    bench_print_json("fft3d", reps, rows, skips);
  else
    bench_print_table("fft3d: n^3 complex single-precision 3-D FFT, forward + inverse", reps, rows,
                      skips);
  return all_ok ? 0 : 1;
}
