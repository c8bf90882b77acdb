// surface_array: CUDA arrays the way NVIDIA's simpleSurfaceWrite, simpleLayeredTexture
// and bindlessTexture samples use them, checked against values computed on the host:
// a kernel writes a 2-D float array through a surface object, another reads it back
// through a texture object on the same array (point and bilinear filtering), the
// array is copied back with cudaMemcpy2DFromArray; a layered array filled by
// cudaMemcpy3D is read through tex2DLayered; a 3-D uchar4 array written by
// surf3Dwrite is read by tex3D as normalised floats; a 1-D layered array through
// surf1DLayeredwrite/tex1DLayered; a 1-D surface read and written past its end
// under cudaBoundaryModeZero and cudaBoundaryModeClamp; then tex2Dgather on arrays
// made with cudaArrayTextureGather (every component, every address mode), surface
// reductions (sured, by inline PTX) from many blocks into the same elements, and
// what txq and suq give for arrays of every kind. With "ub", what the simulator's
// UB check reports (gathers from other arrays, queries the PTX ISA gives no value
// for); with "fault:<case>", a launch the simulator faults.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include "samples.h"

enum { W = 29, H = 17, L = 3, D3 = 5, N1 = 40 };

static float val2d(int x, int y) { return (float)((x * 31 + y * 17) % 101) / 4.0f; }

__global__ void write2d(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) surf2Dwrite((float)((x * 31 + y * 17) % 101) / 4.0f, s, x * (int)sizeof(float), y);
}

__global__ void sample2d(cudaTextureObject_t t, const float2 *uv, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, uv[i].x, uv[i].y);
}

// simpleLayeredTexture: each layer's texel negated and offset by the layer.
__global__ void layered(cudaTextureObject_t t, float *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x, layer = blockIdx.y;
  out[(layer * h + y) * w + x] = -tex2DLayered<float>(t, x + 0.5f, y + 0.5f, layer) + layer;
}

__global__ void write3d(cudaSurfaceObject_t s, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d)
    surf3Dwrite(make_uchar4(x * 8, y * 15, z * 50, 255 - x), s, x * (int)sizeof(uchar4), y, z);
}

__global__ void read3d(cudaTextureObject_t t, float4 *out, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  out[(z * h + y) * w + x] = tex3D<float4>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}

// The write and the read are two launches: within one launch the texture cache is not
// kept coherent with surface writes (CUDA programming guide, "Texture and surface
// memory"). One kernel doing both read zeros for texels written moments before on an
// H200 (docs/gpu-results.md); the simulator reports it (SIMCUDA_CHECK_UB).
__global__ void layered1d_write(cudaSurfaceObject_t s) {
  int x = threadIdx.x, layer = blockIdx.x;
  surf1DLayeredwrite(x * 100 + layer, s, x * (int)sizeof(int), layer);
}

__global__ void layered1d_read(cudaTextureObject_t t, int *out, int w) {
  int x = threadIdx.x, layer = blockIdx.x;
  out[layer * w + x] = tex1DLayered<int>(t, (float)(w - 1 - x) + 0.5f, layer);
}

// Indexes from -4 to n+3: reads under zero and clamp, then a write under zero that
// must drop everything outside.
__global__ void edges(cudaSurfaceObject_t s, short *zero, short *clamp, int n) {
  int i = threadIdx.x - 4;
  zero[i + 4] = surf1Dread<short>(s, i * (int)sizeof(short), cudaBoundaryModeZero);
  clamp[i + 4] = surf1Dread<short>(s, i * (int)sizeof(short), cudaBoundaryModeClamp);
  __syncthreads();
  if (i < 0 || i >= n) surf1Dwrite((short)-1, s, i * (int)sizeof(short), cudaBoundaryModeZero);
}

static cudaSurfaceObject_t surface_of(cudaArray_t a) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaSurfaceObject_t s;
  CHECK(cudaCreateSurfaceObject(&s, &rd));
  return s;
}

// A texture object on array a, sampled as td says.
static cudaTextureObject_t array_texture(cudaArray_t a, const cudaTextureDesc &td) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static cudaTextureObject_t texture_of(cudaArray_t a, cudaTextureFilterMode f, cudaTextureReadMode r) {
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = f;
  td.readMode = r;
  return array_texture(a, td);
}

// cudaMemcpy3D between host memory (elements of size elem, packed) and an array.
static void copy3d(cudaArray_t a, void *host, size_t elem, cudaExtent e, cudaMemcpyKind kind) {
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  cudaPitchedPtr hp = make_cudaPitchedPtr(host, e.width * elem, e.width, e.height);
  if (kind == cudaMemcpyHostToDevice) p.srcPtr = hp, p.dstArray = a;
  else p.srcArray = a, p.dstPtr = hp;
  p.extent = e;
  p.kind = kind;
  CHECK(cudaMemcpy3D(&p));
}

// Bilinear blend of the host image at unnormalised (u, v), clamped, with 8-bit
// weights (the Programming Guide's rule); *spread: the four texels' range.
static float bilinear(const std::vector<float> &img, float u, float v, float *spread) {
  double x = u - 0.5, y = v - 0.5, fx = floor(x), fy = floor(y);
  double a = round((x - fx) * 256) / 256, b = round((y - fy) * 256) / 256;
  auto at = [&](int i, int j) {
    i = i < 0 ? 0 : i >= W ? W - 1 : i;
    j = j < 0 ? 0 : j >= H ? H - 1 : j;
    return img[j * W + i];
  };
  int i = (int)fx, j = (int)fy;
  float q[4] = {at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)};
  *spread = fmaxf(fmaxf(q[0], q[1]), fmaxf(q[2], q[3])) - fminf(fminf(q[0], q[1]), fminf(q[2], q[3]));
  return (float)((1 - a) * (1 - b) * q[0] + a * (1 - b) * q[1] + (1 - a) * b * q[2] + a * b * q[3]);
}

// ---- texture gather (tex2Dgather: PTX tld4) ----
// Component comp of the four texels a bilinear fetch at (u, v) would blend.
__global__ void gather4(cudaTextureObject_t t, const float2 *uv, float4 *out, int n, int comp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<float4>(t, uv[i].x, uv[i].y, comp);
}
__global__ void gather_int(cudaTextureObject_t t, const float2 *uv, int4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<int4>(t, uv[i].x, uv[i].y, 0);
}
__global__ void gather_alpha(cudaTextureObject_t t, const float2 *uv, uchar4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<uchar4>(t, uv[i].x, uv[i].y, 3);
}

static uchar4 gpix(int x, int y) {
  return make_uchar4(x * 9 + y, y * 7 + x * 3, (x * y) & 255, 255 - x - y);
}
static int gint(int x, int y) { return x * 1000 - y * 77 - 5000; }

// The four texels tex2Dgather returns for texel-space (x, y), in the PTX ISA's order
// for tld4 (counter-clockwise from the lower left): (i, j+1), (i+1, j+1), (i+1, j),
// (i, j) with i = floor(x - 0.5), j = floor(y - 0.5); -1 coordinates: the border.
static void footprint(double x, double y, cudaTextureAddressMode m, int at[4][2]) {
  int i = (int)floor(x - 0.5), j = (int)floor(y - 0.5);
  const int dx[4] = {0, 1, 1, 0}, dy[4] = {1, 1, 0, 0};
  for (int k = 0; k < 4; k++) {
    at[k][0] = tex_address(i + dx[k], W, m);
    at[k][1] = tex_address(j + dy[k], H, m);
  }
}

// n points around and inside the image, each half a texel plus a quarter, a half or
// three quarters off a texel centre (never where the hardware's 8-bit fraction
// could round to the next texel); normalised (divided by the size) when norm.
static std::vector<float2> gather_points(int n, bool norm, std::vector<double2> *texel_space) {
  std::vector<float2> uv(n);
  texel_space->resize(n);
  for (int k = 0; k < n; k++) {
    double x = -3 + (k * 7) % (W + 6) + 0.5 + 0.25 * (1 + k % 3);
    double y = -3 + (k * 5) % (H + 6) + 0.5 + 0.25 * (1 + (k / 3) % 3);
    uv[k] = norm ? make_float2((float)(x / W), (float)(y / H)) : make_float2((float)x, (float)y);
    (*texel_space)[k] = make_double2(norm ? (double)uv[k].x * W : x, norm ? (double)uv[k].y * H : y);
  }
  return uv;
}

static cudaTextureObject_t gather_texture(cudaArray_t a, cudaTextureAddressMode m, bool norm, cudaTextureReadMode r) {
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = m;
  td.filterMode = cudaFilterModePoint; // a gather ignores the filter mode
  td.readMode = r;
  td.normalizedCoords = norm;
  td.borderColor[0] = 0.25f, td.borderColor[1] = 0.5f, td.borderColor[2] = 0.75f, td.borderColor[3] = 1.0f;
  return array_texture(a, td);
}

// A W x H array of uchar4 (gpix) and one of int (gint), made with flags.
static void gather_arrays(unsigned flags, cudaArray_t *a4, cudaArray_t *ai) {
  std::vector<uchar4> px(W * H);
  std::vector<int> iv(W * H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) px[y * W + x] = gpix(x, y), iv[y * W + x] = gint(x, y);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>(), id = cudaCreateChannelDesc<int>();
  CHECK(cudaMallocArray(a4, &cd, W, H, flags));
  CHECK(cudaMallocArray(ai, &id, W, H, flags));
  CHECK(cudaMemcpy2DToArray(*a4, 0, 0, px.data(), W * sizeof(uchar4), W * sizeof(uchar4), H, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(*ai, 0, 0, iv.data(), W * sizeof(int), W * sizeof(int), H, cudaMemcpyHostToDevice));
}

// Every component of uchar4 texels read as normalised floats under clamp and border
// (unnormalised) and wrap and mirror (normalised), int texels and uchar4 alphas
// read as integers, against the footprint computed here.
static bool gathers(unsigned flags) {
  bool ok = true;
  cudaArray_t a4, ai;
  gather_arrays(flags, &a4, &ai);
  const int n = 256;
  float2 *duv;
  float4 *df;
  int4 *di;
  uchar4 *du;
  CHECK(cudaMalloc(&duv, n * sizeof(float2)));
  CHECK(cudaMalloc(&df, n * sizeof(float4)));
  CHECK(cudaMalloc(&di, n * sizeof(int4)));
  CHECK(cudaMalloc(&du, n * sizeof(uchar4)));
  const struct {
    cudaTextureAddressMode m;
    bool norm;
  } cfg[] = {{cudaAddressModeClamp, false}, {cudaAddressModeBorder, false}, {cudaAddressModeWrap, true},
             {cudaAddressModeMirror, true}};
  const float border[4] = {0.25f, 0.5f, 0.75f, 1.0f};
  for (const auto &c : cfg) {
    std::vector<double2> xy;
    std::vector<float2> uv = gather_points(n, c.norm, &xy);
    CHECK(cudaMemcpy(duv, uv.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    cudaTextureObject_t t = gather_texture(a4, c.m, c.norm, cudaReadModeNormalizedFloat);
    for (int comp = 0; comp < 4; comp++) {
      gather4<<<n / 64, 64>>>(t, duv, df, n, comp);
      CHECK(cudaGetLastError());
      std::vector<float4> got(n);
      CHECK(cudaMemcpy(got.data(), df, n * sizeof(float4), cudaMemcpyDeviceToHost));
      int bad = 0;
      for (int k = 0; k < n; k++) {
        int at[4][2];
        footprint(xy[k].x, xy[k].y, c.m, at);
        float g[4] = {got[k].x, got[k].y, got[k].z, got[k].w};
        for (int q = 0; q < 4; q++) {
          float want = border[comp];
          if (at[q][0] >= 0 && at[q][1] >= 0) {
            uchar4 p = gpix(at[q][0], at[q][1]);
            const unsigned char ch[4] = {p.x, p.y, p.z, p.w};
            want = ch[comp] / 255.0f;
          }
          if (fabsf(g[q] - want) > 1e-6f && bad++ < 3)
            printf("gather mode %d comp %d (%g,%g) [%d]: got %g, expected %g\n", (int)c.m, comp, uv[k].x, uv[k].y,
                   q, g[q], want);
        }
      }
      ok &= bad == 0;
    }
    CHECK(cudaDestroyTextureObject(t));
  }
  // integers: int texels (s32 results) and uchar4 alphas (u32 results), clamp
  std::vector<double2> xy;
  std::vector<float2> uv = gather_points(n, false, &xy);
  CHECK(cudaMemcpy(duv, uv.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  cudaTextureObject_t ti = gather_texture(ai, cudaAddressModeClamp, false, cudaReadModeElementType);
  cudaTextureObject_t tu = gather_texture(a4, cudaAddressModeClamp, false, cudaReadModeElementType);
  gather_int<<<n / 64, 64>>>(ti, duv, di, n);
  gather_alpha<<<n / 64, 64>>>(tu, duv, du, n);
  CHECK(cudaGetLastError());
  std::vector<int4> gi(n);
  std::vector<uchar4> gu(n);
  CHECK(cudaMemcpy(gi.data(), di, n * sizeof(int4), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gu.data(), du, n * sizeof(uchar4), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int k = 0; k < n; k++) {
    int at[4][2];
    footprint(xy[k].x, xy[k].y, cudaAddressModeClamp, at);
    int g[4] = {gi[k].x, gi[k].y, gi[k].z, gi[k].w};
    unsigned char u[4] = {gu[k].x, gu[k].y, gu[k].z, gu[k].w};
    for (int q = 0; q < 4; q++)
      if ((g[q] != gint(at[q][0], at[q][1]) || u[q] != gpix(at[q][0], at[q][1]).w) && bad++ < 3)
        printf("gather integers (%g,%g) [%d]: got %d and %d\n", uv[k].x, uv[k].y, q, g[q], u[q]);
  }
  ok &= bad == 0;
  CHECK(cudaDestroyTextureObject(ti));
  CHECK(cudaDestroyTextureObject(tu));
  CHECK(cudaFree(duv));
  CHECK(cudaFree(df));
  CHECK(cudaFree(di));
  CHECK(cudaFree(du));
  CHECK(cudaFreeArray(a4));
  CHECK(cudaFreeArray(ai));
  return ok;
}

// ---- surface reductions (PTX sured.b: no CUDA C++ function compiles to it) ----
#define SURED(name, text, type, cons)                                                              \
  __device__ void name(cudaSurfaceObject_t s, int x, int y, type v) {                                \
    asm volatile(text " [%0, {%1, %2}], %3;" ::"l"(s), "r"(x), "r"(y), cons(v) : "memory");       \
  }
SURED(add_u32, "sured.b.add.2d.u32.trap", unsigned, "r")
SURED(add_s32, "sured.b.add.2d.s32.trap", int, "r")
SURED(min_u32, "sured.b.min.2d.u32.trap", unsigned, "r")
SURED(max_u32, "sured.b.max.2d.u32.trap", unsigned, "r")
SURED(min_s32, "sured.b.min.2d.s32.trap", int, "r")
SURED(max_s32, "sured.b.max.2d.s32.trap", int, "r")
SURED(and_b32, "sured.b.and.2d.b32.trap", unsigned, "r")
SURED(or_b32, "sured.b.or.2d.b32.trap", unsigned, "r")
SURED(add_zero, "sured.b.add.2d.u32.zero", unsigned, "r")
SURED(add_clamp, "sured.b.add.2d.u32.clamp", unsigned, "r")
SURED(add_u64, "sured.b.add.2d.u64.trap", unsigned long long, "l")
SURED(min_u64, "sured.b.min.2d.u64.trap", unsigned long long, "l")
SURED(max_u64, "sured.b.max.2d.u64.trap", unsigned long long, "l")
SURED(min_s64, "sured.b.min.2d.s64.trap", long long, "l")
SURED(max_s64, "sured.b.max.2d.s64.trap", long long, "l")
__device__ void add_1d(cudaSurfaceObject_t s, int x, unsigned v) {
  asm volatile("sured.b.add.1d.u32.trap [%0, {%1}], %2;" ::"l"(s), "r"(x), "r"(v) : "memory");
}
__device__ void add_3d(cudaSurfaceObject_t s, int x, int y, int z, unsigned v) {
  asm volatile("sured.b.add.3d.u32.trap [%0, {%1, %2, %3, %3}], %4;" ::"l"(s), "r"(x), "r"(y), "r"(z), "r"(v) : "memory");
}

enum { RW = 29, RH = 12, R64H = 5, RB = 37, RBH = 3, RTHREADS = 48 * 128 };
__host__ __device__ static unsigned rhash(unsigned t) { return t * 2654435761u ^ (t >> 7) * 40503u; }
__host__ __device__ static unsigned long long rhash64(unsigned t) {
  return (unsigned long long)rhash(t) << 29 ^ rhash(t + 77) * 0x9E3779B97F4A7C15ull;
}

// Every thread of every block reduces into the same few elements, so lanes and
// blocks (on several host threads in the simulator) contend for each one.
__global__ void reduce_all(cudaSurfaceObject_t s32, cudaSurfaceObject_t s64, cudaSurfaceObject_t sb,
                           cudaSurfaceObject_t s1, cudaSurfaceObject_t s3) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int x = (int)(t % RW) * 4, h = (int)rhash(t);
  add_u32(s32, x, 0, t + 1);
  add_s32(s32, x, 1, -(int)(t % 5));
  min_u32(s32, x, 2, (unsigned)h);
  max_u32(s32, x, 3, (unsigned)h);
  min_s32(s32, x, 4, h);
  max_s32(s32, x, 5, h);
  and_b32(s32, x, 6, ~(1u << (t % 31)));
  or_b32(s32, x, 7, 1u << (t % 29));
  add_zero(s32, ((int)(t % (RW + 6)) - 3) * 4, 8, 1);   // x outside: dropped
  add_zero(s32, x, (t & 1) ? RH : -1, 1);               // a row outside: dropped
  add_clamp(s32, ((int)(t % (RW + 6)) - 3) * 4, 9, 1);  // x outside: the row's first or last element
  add_clamp(s32, x, RH + 5, 1);                         // below the last row: the last row
  unsigned long long g = rhash64(t);
  int x8 = (int)(t % RW) * 8;
  add_u64(s64, x8, 0, 0xFFFFFFFFull + t);
  min_u64(s64, x8, 1, g);
  max_u64(s64, x8, 2, g);
  min_s64(s64, x8, 3, (long long)g);
  max_s64(s64, x8, 4, (long long)g);
  add_u32(sb, (int)(t % 9) * 4, (int)(t % RBH), 1); // a byte array: 4-byte words at any alignment
  add_1d(s1, (int)(t % N1) * 4, 2);
  add_3d(s3, (int)(t % W) * 4, (int)(t / W % H), (int)(t / (W * H) % D3), 3);
}

template <typename T> static cudaArray_t filled_array(cudaChannelFormatDesc d, int w, int h, const std::vector<T> &v) {
  cudaArray_t a;
  CHECK(cudaMallocArray(&a, &d, w, h, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(a, 0, 0, v.data(), w * sizeof(T), w * sizeof(T), h ? h : 1, cudaMemcpyHostToDevice));
  return a;
}

// Each reduction's result against the same reductions done here in order.
static bool reductions() {
  bool ok = true;
  std::vector<unsigned> r32(RW * RH, 0);
  for (int x = 0; x < RW; x++) r32[2 * RW + x] = 0xFFFFFFFFu, r32[4 * RW + x] = 0x7FFFFFFF,
                                 r32[5 * RW + x] = 0x80000000u, r32[6 * RW + x] = 0xFFFFFFFFu;
  std::vector<unsigned long long> r64(RW * R64H, 0);
  for (int x = 0; x < RW; x++) r64[RW + x] = ~0ull, r64[3 * RW + x] = 0x7FFFFFFFFFFFFFFFull, r64[4 * RW + x] = 1ull << 63;
  std::vector<unsigned char> rb(RB * RBH, 7);
  std::vector<unsigned> r1(N1, 5), r3(W * H * D3, 11);
  cudaArray_t a32 = filled_array(cudaCreateChannelDesc<unsigned>(), RW, RH, r32);
  cudaArray_t a64 = filled_array(cudaCreateChannelDesc<uint2>(), RW, R64H, r64);
  cudaArray_t ab = filled_array(cudaCreateChannelDesc<unsigned char>(), RB, RBH, rb);
  cudaArray_t a1 = filled_array(cudaCreateChannelDesc<unsigned>(), N1, 0, r1);
  cudaChannelFormatDesc ud = cudaCreateChannelDesc<unsigned>();
  cudaArray_t a3;
  CHECK(cudaMalloc3DArray(&a3, &ud, make_cudaExtent(W, H, D3), cudaArraySurfaceLoadStore));
  copy3d(a3, r3.data(), sizeof(unsigned), make_cudaExtent(W, H, D3), cudaMemcpyHostToDevice);
  cudaSurfaceObject_t s32 = surface_of(a32), s64 = surface_of(a64), sb = surface_of(ab), s1 = surface_of(a1),
                      s3 = surface_of(a3);
  reduce_all<<<RTHREADS / 128, 128>>>(s32, s64, sb, s1, s3);
  CHECK(cudaGetLastError());
  // the same here
  for (unsigned t = 0; t < RTHREADS; t++) {
    int x = (int)(t % RW), h = (int)rhash(t);
    unsigned long long g = rhash64(t);
    unsigned *row = r32.data();
    row[x] += t + 1;
    row[RW + x] = (unsigned)((int)row[RW + x] - (int)(t % 5));
    row[2 * RW + x] = std::min(row[2 * RW + x], (unsigned)h);
    row[3 * RW + x] = std::max(row[3 * RW + x], (unsigned)h);
    row[4 * RW + x] = (unsigned)std::min((int)row[4 * RW + x], h);
    row[5 * RW + x] = (unsigned)std::max((int)row[5 * RW + x], h);
    row[6 * RW + x] &= ~(1u << (t % 31));
    row[7 * RW + x] |= 1u << (t % 29);
    int xo = (int)(t % (RW + 6)) - 3;
    if (xo >= 0 && xo < RW) row[8 * RW + xo] += 1;
    row[9 * RW + (xo < 0 ? 0 : xo >= RW ? RW - 1 : xo)] += 1;
    row[(RH - 1) * RW + x] += 1;
    r64[x] += 0xFFFFFFFFull + t;
    r64[RW + x] = std::min(r64[RW + x], g);
    r64[2 * RW + x] = std::max(r64[2 * RW + x], g);
    r64[3 * RW + x] = (unsigned long long)std::min((long long)r64[3 * RW + x], (long long)g);
    r64[4 * RW + x] = (unsigned long long)std::max((long long)r64[4 * RW + x], (long long)g);
    unsigned char *w = &rb[(t % RBH) * RB + (t % 9) * 4];
    unsigned word = (unsigned)w[0] | (unsigned)w[1] << 8 | (unsigned)w[2] << 16 | (unsigned)w[3] << 24;
    word += 1;
    for (int k = 0; k < 4; k++) w[k] = (unsigned char)(word >> 8 * k);
    r1[t % N1] += 2;
    r3[(t / (W * H) % D3) * W * H + (t / W % H) * W + t % W] += 3;
  }
  std::vector<unsigned> g32(RW * RH), g1(N1), g3(W * H * D3);
  std::vector<unsigned long long> g64(RW * R64H);
  std::vector<unsigned char> gb(RB * RBH);
  CHECK(cudaMemcpy2DFromArray(g32.data(), RW * 4, a32, 0, 0, RW * 4, RH, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy2DFromArray(g64.data(), RW * 8, a64, 0, 0, RW * 8, R64H, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy2DFromArray(gb.data(), RB, ab, 0, 0, RB, RBH, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy2DFromArray(g1.data(), N1 * 4, a1, 0, 0, N1 * 4, 1, cudaMemcpyDeviceToHost));
  copy3d(a3, g3.data(), sizeof(unsigned), make_cudaExtent(W, H, D3), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < RW * RH; i++)
    if (g32[i] != r32[i] && bad++ < 5) printf("sured 32-bit row %d x %d: got 0x%x, expected 0x%x\n", i / RW, i % RW, g32[i], r32[i]);
  for (int i = 0; i < RW * R64H; i++)
    if (g64[i] != r64[i] && bad++ < 5)
      printf("sured 64-bit row %d x %d: got 0x%llx, expected 0x%llx\n", i / RW, i % RW, g64[i], r64[i]);
  for (int i = 0; i < RB * RBH; i++)
    if (gb[i] != rb[i] && bad++ < 5) printf("sured bytes [%d]: got %d, expected %d\n", i, gb[i], rb[i]);
  for (int i = 0; i < N1; i++)
    if (g1[i] != r1[i] && bad++ < 5) printf("sured 1-D [%d]: got %u, expected %u\n", i, g1[i], r1[i]);
  for (int i = 0; i < W * H * D3; i++)
    if (g3[i] != r3[i] && bad++ < 5) printf("sured 3-D [%d]: got %u, expected %u\n", i, g3[i], r3[i]);
  ok &= bad == 0;
  for (cudaSurfaceObject_t s : {s32, s64, sb, s1, s3}) CHECK(cudaDestroySurfaceObject(s));
  for (cudaArray_t a : {a32, a64, ab, a1, a3}) CHECK(cudaFreeArray(a));
  return ok;
}

// ---- texture and surface queries (PTX txq, suq: no CUDA C++ function compiles to them) ----
#define QUERY(name, text)                                                  \
  __device__ unsigned name(unsigned long long h) {                         \
    unsigned r;                                                            \
    asm volatile(text " %0, [%1];" : "=r"(r) : "l"(h));                    \
    return r;                                                              \
  }
QUERY(txq_width, "txq.width.b32")
QUERY(txq_height, "txq.height.b32")
QUERY(txq_depth, "txq.depth.b32")
QUERY(txq_array_size, "txq.array_size.b32")
QUERY(txq_normalized, "txq.normalized_coords.b32")
QUERY(txq_data_type, "txq.channel_data_type.b32")
QUERY(txq_order, "txq.channel_order.b32")
QUERY(txq_filter, "txq.filter_mode.b32")
QUERY(txq_addr0, "txq.addr_mode_0.b32")
QUERY(suq_width, "suq.width.b32")
QUERY(suq_height, "suq.height.b32")
QUERY(suq_depth, "suq.depth.b32")
QUERY(suq_array_size, "suq.array_size.b32")
QUERY(suq_layout, "suq.memory_layout.b32")
QUERY(suq_data_type, "suq.channel_data_type.b32")
QUERY(suq_order, "suq.channel_order.b32")

// What the PTX ISA defines for objects of every kind: out[] in the order main checks.
__global__ void queries(const unsigned long long *h, unsigned *out) {
  int k = 0;
  // h[0..4] textures: 1-D, 2-D (normalised), 3-D, 2-D layered, 1-D layered
  out[k++] = txq_width(h[0]);
  out[k++] = txq_normalized(h[0]);
  out[k++] = txq_width(h[1]);
  out[k++] = txq_height(h[1]);
  out[k++] = txq_normalized(h[1]);
  out[k++] = txq_width(h[2]);
  out[k++] = txq_height(h[2]);
  out[k++] = txq_depth(h[2]);
  out[k++] = txq_width(h[3]);
  out[k++] = txq_height(h[3]);
  out[k++] = txq_array_size(h[3]);
  out[k++] = txq_width(h[4]);
  out[k++] = txq_array_size(h[4]);
  // h[5..9] surfaces on the same arrays
  out[k++] = suq_width(h[5]);
  out[k++] = suq_layout(h[5]);
  out[k++] = suq_width(h[6]);
  out[k++] = suq_height(h[6]);
  out[k++] = suq_width(h[7]);
  out[k++] = suq_height(h[7]);
  out[k++] = suq_depth(h[7]);
  out[k++] = suq_width(h[8]);
  out[k++] = suq_height(h[8]);
  out[k++] = suq_array_size(h[8]);
  out[k++] = suq_width(h[9]);
  out[k++] = suq_array_size(h[9]);
  out[k++] = suq_layout(h[9]);
}

// The arrays of every kind, a texture and a surface on each (handles: textures
// first); *arrays gets the arrays.
static void query_objects(unsigned long long h[10], cudaArray_t arrays[5]) {
  cudaChannelFormatDesc sd = cudaCreateChannelDesc<short>(), fd = cudaCreateChannelDesc<float>(),
                        cd = cudaCreateChannelDesc<uchar4>(), id = cudaCreateChannelDesc<int>();
  CHECK(cudaMallocArray(&arrays[0], &sd, N1, 0, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&arrays[1], &fd, W, H, cudaArraySurfaceLoadStore));
  CHECK(cudaMalloc3DArray(&arrays[2], &cd, make_cudaExtent(W, H, D3), cudaArraySurfaceLoadStore));
  CHECK(cudaMalloc3DArray(&arrays[3], &fd, make_cudaExtent(W, H, L), cudaArrayLayered | cudaArraySurfaceLoadStore));
  CHECK(cudaMalloc3DArray(&arrays[4], &id, make_cudaExtent(N1, 0, L), cudaArrayLayered | cudaArraySurfaceLoadStore));
  for (int i = 0; i < 5; i++) {
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
    td.normalizedCoords = i == 1;
    td.readMode = i == 2 ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
    h[i] = array_texture(arrays[i], td);
    h[5 + i] = surface_of(arrays[i]);
  }
}

static void query_objects_free(const unsigned long long h[10], cudaArray_t arrays[5]) {
  for (int i = 0; i < 5; i++) {
    CHECK(cudaDestroyTextureObject(h[i]));
    CHECK(cudaDestroySurfaceObject(h[5 + i]));
    CHECK(cudaFreeArray(arrays[i]));
  }
}

// Runs a query kernel k on the objects of every kind; its n results against want.
static bool run_queries(void (*k)(const unsigned long long *, unsigned *), const unsigned *want, int n,
                        const char *what) {
  unsigned long long h[10], *dh;
  cudaArray_t arrays[5];
  query_objects(h, arrays);
  std::vector<unsigned> got(n);
  unsigned *dout;
  CHECK(cudaMalloc(&dh, sizeof h));
  CHECK(cudaMalloc(&dout, n * sizeof(unsigned)));
  CHECK(cudaMemcpy(dh, h, sizeof h, cudaMemcpyHostToDevice));
  k<<<1, 1>>>(dh, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) printf("%s %d: got 0x%x, expected 0x%x\n", what, i, got[i], want[i]), ok = false;
  CHECK(cudaFree(dh));
  CHECK(cudaFree(dout));
  query_objects_free(h, arrays);
  return ok;
}

static bool query_checks() {
  const unsigned want[] = {N1, 0, W, H, 1, W, H, D3, W, H, L, N1, L,  // textures
                           N1, 0, W, H, W, H, D3, W, H, L, N1, L, 0}; // surfaces
  return run_queries(queries, want, sizeof want / sizeof *want, "query");
}

// ---- what the simulator runs but reports under SIMCUDA_CHECK_UB (argument "ub") ----
// Queries the PTX ISA gives no value for: a dimension or array size the object lacks,
// channel types and orders (defined for OpenCL only), filter and address modes
// (named, not numbered).
__global__ void undefined_queries(const unsigned long long *h, unsigned *out) {
  int k = 0;
  out[k++] = txq_height(h[0]);     // 1-D
  out[k++] = txq_depth(h[1]);      // 2-D
  out[k++] = txq_array_size(h[1]); // not layered
  out[k++] = txq_data_type(h[2]);  // uchar4 read as normalised floats
  out[k++] = txq_order(h[2]);
  out[k++] = txq_filter(h[1]);
  out[k++] = txq_addr0(h[1]);
  out[k++] = suq_depth(h[6]);      // 2-D
  out[k++] = suq_data_type(h[6]);  // float
  out[k++] = suq_order(h[9]);      // int, one channel
}

static bool undefined_parts() {
  // the simulator's values: 0 for what is missing, OpenCL 1.0's codes, the CUDA API's modes
  const unsigned want[] = {0, 0, 0, 0x10D2, 0x10B5, 0, 1, 0, 0x10DE, 0x10B0};
  bool ok = run_queries(undefined_queries, want, sizeof want / sizeof *want, "undefined query");
  // gathers from arrays made without cudaArrayTextureGather: the values a gather
  // gives, each tld4 reported
  return gathers(cudaArrayDefault) && ok;
}

// ---- what faults the launch in the simulator (argument "fault:<case>"): a query or
// gather on the wrong kind of object, a reduction outside the surface or misaligned ----
__global__ void faulting(int which, const unsigned long long *h, unsigned *out) {
  switch (which) {
    case 0: out[0] = txq_width(h[6]); break;                                  // a surface handle
    case 1: out[0] = suq_width(h[1]); break;                                  // a texture handle
    case 2: out[0] = (unsigned)tex2Dgather<float4>(h[2], 1.f, 1.f, 0).x; break; // 3-D
    case 3: out[0] = (unsigned)tex2Dgather<float4>(h[3], 1.f, 1.f, 0).x; break; // layered
    case 4: add_u32(h[6], W * 4, 0, 1); break;                                // x past the row, .trap
    case 5: add_u32(h[6], 2, 0, 1); break;                                    // x not a multiple of 4
    case 6: add_u32(h[1], 0, 0, 1); break;                                    // a texture handle
  }
}

static int fault_case(const char *name) {
  static const char *const names[] = {"txq_on_surface", "suq_on_texture", "tld4_on_3d", "tld4_on_layered",
                                      "sured_outside",  "sured_misaligned", "sured_on_texture"};
  int which = -1;
  for (int i = 0; i < 7; i++)
    if (strcmp(name, names[i]) == 0) which = i;
  if (which < 0) return verdict("surface_array (no such fault case)", false);
  unsigned long long h[10], *dh;
  cudaArray_t arrays[5];
  query_objects(h, arrays);
  unsigned *dout;
  CHECK(cudaMalloc(&dh, sizeof h));
  CHECK(cudaMalloc(&dout, 4));
  CHECK(cudaMemcpy(dh, h, sizeof h, cudaMemcpyHostToDevice));
  faulting<<<1, 1>>>(which, dh, dout);
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s: %s\n", name, cudaGetErrorName(e));
  return e != cudaSuccess ? 3 : 0; // 3: the launch failed (what the simulator does)
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "ub") == 0) return verdict("surface_array ub", undefined_parts());
  if (strncmp(mode, "fault:", 6) == 0) return fault_case(mode + 6);
  bool ok = true;
  int bad;

  // 1. simpleSurfaceWrite: a kernel fills a 2-D array through a surface, another
  // samples it through a texture; the array is copied back too.
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t a2;
  CHECK(cudaMallocArray(&a2, &fd, W, H, cudaArraySurfaceLoadStore));
  cudaSurfaceObject_t s2 = surface_of(a2);
  write2d<<<dim3((W + 15) / 16, (H + 7) / 8), dim3(16, 8)>>>(s2, W, H);
  CHECK(cudaGetLastError());
  std::vector<float> img(W * H), back(W * H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) img[y * W + x] = val2d(x, y);
  CHECK(cudaMemcpy2DFromArray(back.data(), W * sizeof(float), a2, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < W * H; i++)
    if (back[i] != img[i] && bad++ < 5) printf("2-D array [%d]: got %g, expected %g\n", i, back[i], img[i]);
  ok &= bad == 0;
  const int n = 256;
  std::vector<float2> uv(n);
  for (int i = 0; i < n; i++) uv[i] = make_float2(-2.0f + (W + 4.0f) * (float)((i * 37) % n) / n, -2.0f + (H + 4.0f) * (float)((i * 91) % n) / n);
  float2 *duv;
  float *dres;
  CHECK(cudaMalloc(&duv, n * sizeof(float2)));
  CHECK(cudaMalloc(&dres, n * sizeof(float)));
  CHECK(cudaMemcpy(duv, uv.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  for (int lin = 0; lin < 2; lin++) {
    cudaTextureObject_t t = texture_of(a2, lin ? cudaFilterModeLinear : cudaFilterModePoint, cudaReadModeElementType);
    sample2d<<<n / 64, 64>>>(t, duv, dres, n);
    CHECK(cudaGetLastError());
    std::vector<float> res(n);
    CHECK(cudaMemcpy(res.data(), dres, n * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) {
      float spread = 0, want;
      if (lin) {
        want = bilinear(img, uv[i].x, uv[i].y, &spread);
      } else {
        int x = (int)floorf(uv[i].x), y = (int)floorf(uv[i].y);
        x = x < 0 ? 0 : x >= W ? W - 1 : x;
        y = y < 0 ? 0 : y >= H ? H - 1 : y;
        want = img[y * W + x];
      }
      // One 8-bit weight step of the texels' spread (see texture_blur).
      if (fabsf(res[i] - want) > spread / 256 + 1e-4f * fabsf(want) + 1e-4f && bad++ < 3)
        printf("%s (%g,%g): got %g, expected %g\n", lin ? "linear" : "point", uv[i].x, uv[i].y, res[i], want);
    }
    ok &= bad == 0;
    CHECK(cudaDestroyTextureObject(t));
  }
  CHECK(cudaDestroySurfaceObject(s2));
  CHECK(cudaFreeArray(a2));

  // 2. simpleLayeredTexture: L layers of W x H filled from the host by cudaMemcpy3D.
  std::vector<float> lay(W * H * L), lout(W * H * L);
  for (int i = 0; i < W * H * L; i++) lay[i] = (float)(i % 251) * 0.5f;
  cudaArray_t al;
  CHECK(cudaMalloc3DArray(&al, &fd, make_cudaExtent(W, H, L), cudaArrayLayered));
  copy3d(al, lay.data(), sizeof(float), make_cudaExtent(W, H, L), cudaMemcpyHostToDevice);
  cudaTextureObject_t tl = texture_of(al, cudaFilterModePoint, cudaReadModeElementType);
  float *dl;
  CHECK(cudaMalloc(&dl, W * H * L * sizeof(float)));
  layered<<<dim3(H, L), W>>>(tl, dl, W, H);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(lout.data(), dl, W * H * L * sizeof(float), cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < W * H * L; i++) {
    float want = -lay[i] + (float)(i / (W * H));
    if (lout[i] != want && bad++ < 5) printf("layered [%d]: got %g, expected %g\n", i, lout[i], want);
  }
  ok &= bad == 0;
  CHECK(cudaDestroyTextureObject(tl));
  CHECK(cudaFreeArray(al));

  // 3. A 3-D uchar4 array written through a surface, read by tex3D as normalised floats.
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a3;
  CHECK(cudaMalloc3DArray(&a3, &cd, make_cudaExtent(W, H, D3), cudaArraySurfaceLoadStore));
  cudaSurfaceObject_t s3 = surface_of(a3);
  write3d<<<dim3(H, D3), W>>>(s3, W, H, D3);
  CHECK(cudaGetLastError());
  cudaTextureObject_t t3 = texture_of(a3, cudaFilterModePoint, cudaReadModeNormalizedFloat);
  float4 *d4;
  CHECK(cudaMalloc(&d4, W * H * D3 * sizeof(float4)));
  read3d<<<dim3(H, D3), W>>>(t3, d4, W, H, D3);
  CHECK(cudaGetLastError());
  std::vector<float4> o4(W * H * D3);
  CHECK(cudaMemcpy(o4.data(), d4, W * H * D3 * sizeof(float4), cudaMemcpyDeviceToHost));
  bad = 0;
  for (int z = 0; z < D3; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        const float4 &g = o4[(z * H + y) * W + x];
        float want[4] = {(x * 8 & 255) / 255.0f, (y * 15 & 255) / 255.0f, (z * 50 & 255) / 255.0f, (255 - x) / 255.0f};
        if ((fabsf(g.x - want[0]) > 1e-6f || fabsf(g.y - want[1]) > 1e-6f || fabsf(g.z - want[2]) > 1e-6f ||
             fabsf(g.w - want[3]) > 1e-6f) && bad++ < 5)
          printf("3-D (%d,%d,%d): got %g %g %g %g\n", x, y, z, g.x, g.y, g.z, g.w);
      }
  ok &= bad == 0;
  // The same array read back through cudaMemcpy3D into a padded host box.
  const int hp = W + 3;
  std::vector<uchar4> h4(hp * H * D3);
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcArray = a3;
  p.dstPtr = make_cudaPitchedPtr(h4.data(), hp * sizeof(uchar4), hp, H);
  p.extent = make_cudaExtent(W, H, D3);
  p.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&p));
  bad = 0;
  for (int z = 0; z < D3; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        uchar4 g = h4[(z * H + y) * hp + x];
        if ((g.x != (unsigned char)(x * 8) || g.y != (unsigned char)(y * 15) || g.z != (unsigned char)(z * 50) ||
             g.w != (unsigned char)(255 - x)) && bad++ < 5)
          printf("3-D copy (%d,%d,%d): got %d %d %d %d\n", x, y, z, g.x, g.y, g.z, g.w);
      }
  ok &= bad == 0;
  CHECK(cudaDestroyTextureObject(t3));
  CHECK(cudaDestroySurfaceObject(s3));
  CHECK(cudaFreeArray(a3));

  // 4. 1-D layered ints: written through a surface, read reversed through a texture.
  cudaChannelFormatDesc id = cudaCreateChannelDesc<int>();
  cudaArray_t a1l;
  CHECK(cudaMalloc3DArray(&a1l, &id, make_cudaExtent(N1, 0, L), cudaArrayLayered | cudaArraySurfaceLoadStore));
  cudaSurfaceObject_t s1l = surface_of(a1l);
  cudaTextureObject_t t1l = texture_of(a1l, cudaFilterModePoint, cudaReadModeElementType);
  int *dli;
  CHECK(cudaMalloc(&dli, N1 * L * sizeof(int)));
  layered1d_write<<<L, N1>>>(s1l);
  layered1d_read<<<L, N1>>>(t1l, dli, N1);
  CHECK(cudaGetLastError());
  std::vector<int> li(N1 * L);
  CHECK(cudaMemcpy(li.data(), dli, N1 * L * sizeof(int), cudaMemcpyDeviceToHost));
  bad = 0;
  for (int l = 0; l < L; l++)
    for (int x = 0; x < N1; x++)
      if (li[l * N1 + x] != (N1 - 1 - x) * 100 + l && bad++ < 5)
        printf("1-D layered (%d, layer %d): got %d\n", x, l, li[l * N1 + x]);
  ok &= bad == 0;
  CHECK(cudaDestroyTextureObject(t1l));
  CHECK(cudaDestroySurfaceObject(s1l));
  CHECK(cudaFreeArray(a1l));

  // 5. Out of range: cudaBoundaryModeZero reads 0 and drops writes, Clamp reads the edge.
  cudaChannelFormatDesc sd = cudaCreateChannelDesc<short>();
  cudaArray_t a1;
  CHECK(cudaMallocArray(&a1, &sd, N1, 0, cudaArraySurfaceLoadStore));
  std::vector<short> sh(N1);
  for (int i = 0; i < N1; i++) sh[i] = (short)(i * 997 - 20000);
  CHECK(cudaMemcpy2DToArray(a1, 0, 0, sh.data(), N1 * sizeof(short), N1 * sizeof(short), 1, cudaMemcpyHostToDevice));
  cudaSurfaceObject_t s1 = surface_of(a1);
  short *dz, *dc;
  CHECK(cudaMalloc(&dz, (N1 + 8) * sizeof(short)));
  CHECK(cudaMalloc(&dc, (N1 + 8) * sizeof(short)));
  edges<<<1, N1 + 8>>>(s1, dz, dc, N1);
  CHECK(cudaGetLastError());
  std::vector<short> z(N1 + 8), c(N1 + 8), after(N1);
  CHECK(cudaMemcpy(z.data(), dz, (N1 + 8) * sizeof(short), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(c.data(), dc, (N1 + 8) * sizeof(short), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy2DFromArray(after.data(), N1 * sizeof(short), a1, 0, 0, N1 * sizeof(short), 1, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int k = 0; k < N1 + 8; k++) {
    int i = k - 4, e = i < 0 ? 0 : i >= N1 ? N1 - 1 : i;
    short wz = i < 0 || i >= N1 ? 0 : sh[i];
    if ((z[k] != wz || c[k] != sh[e]) && bad++ < 5) printf("edges [%d]: zero %d (want %d), clamp %d (want %d)\n", i, z[k], wz, c[k], sh[e]);
  }
  for (int i = 0; i < N1; i++)
    if (after[i] != sh[i] && bad++ < 5) printf("edges: element %d changed to %d\n", i, after[i]);
  ok &= bad == 0;
  CHECK(cudaDestroySurfaceObject(s1));
  CHECK(cudaFreeArray(a1));

  // 6. tex2Dgather on arrays made for it; the flag on anything but a 2-D array, or
  // past the gather limits, is refused (cudaMalloc3DArray's documentation).
  ok &= gathers(cudaArrayTextureGather);
  cudaArray_t refused;
  cudaChannelFormatDesc gd = cudaCreateChannelDesc<float>();
  ok &= EXPECT(cudaMalloc3DArray(&refused, &gd, make_cudaExtent(W, H, D3), cudaArrayTextureGather) == cudaErrorInvalidValue);
  ok &= EXPECT(cudaMalloc3DArray(&refused, &gd, make_cudaExtent(W, H, L), cudaArrayTextureGather | cudaArrayLayered) ==
               cudaErrorInvalidValue);
  int gmax = 0;
  CHECK(cudaDeviceGetAttribute(&gmax, cudaDevAttrMaxTexture2DGatherWidth, 0));
  ok &= EXPECT(gmax > 0) && EXPECT(cudaMallocArray(&refused, &gd, gmax + 1, 4, cudaArrayTextureGather) == cudaErrorInvalidValue);
  cudaGetLastError();
  // 7. Surface reductions from many blocks at once.
  ok &= reductions();
  // 8. What txq and suq give for arrays of every kind.
  ok &= query_checks();
  return verdict("surface_array", ok);
}
