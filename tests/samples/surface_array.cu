// surface_array: CUDA arrays the way NVIDIA's simpleSurfaceWrite, simpleLayeredTexture
// and bindlessTexture samples use them, checked against values computed on the host:
// a kernel writes a 2-D float array through a surface object, another reads it back
// through a texture object on the same array (point and bilinear filtering), the
// array is copied back with cudaMemcpy2DFromArray; a layered array filled by
// cudaMemcpy3D is read through tex2DLayered; a 3-D uchar4 array written by
// surf3Dwrite is read by tex3D as normalised floats; a 1-D layered array through
// surf1DLayeredwrite/tex1DLayered; a 1-D surface read and written past its end
// under cudaBoundaryModeZero and cudaBoundaryModeClamp.
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

static cudaTextureObject_t texture_of(cudaArray_t a, cudaTextureFilterMode f, cudaTextureReadMode r) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = f;
  td.readMode = r;
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
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

int main() {
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
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(lay.data(), W * sizeof(float), W, H);
  p.dstArray = al;
  p.extent = make_cudaExtent(W, H, L);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
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
  return verdict("surface_array", ok);
}
