// texture_blur: texture objects the way image code uses them, checked against a
// host reference written from the CUDA Programming Guide's "Texture Fetching"
// rules: a 3x3 box blur reading a pitched float image through tex2D (point
// filtering, clamp); bilinear sampling with normalised coordinates under wrap,
// mirror, clamp and border; uchar4 pixels read as normalised floats through
// tex1Dfetch on linear memory; 16-bit integers read as integers (element type).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include "samples.h"

enum { W = 37, H = 23 };

__global__ void blur(cudaTextureObject_t tex, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) s += tex2D<float>(tex, x + dx + 0.5f, y + dy + 0.5f);
  out[y * w + x] = s / 9.0f;
}

__global__ void sample(cudaTextureObject_t tex, const float2 *uv, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(tex, uv[i].x, uv[i].y);
}

__global__ void fetch4(cudaTextureObject_t tex, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float4>(tex, i - 2);  // two indexes below 0, two past the end
}

__global__ void fetch_int(cudaTextureObject_t tex, int *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * w + x] = tex2D<short>(tex, x + 0.5f, y + 0.5f);
}

// ---- host reference ----
struct Tex2D {
  const float *img;
  int w, h;
  cudaTextureAddressMode mode;
  bool linear, normalized;
  float border;
};
static int addr(int i, int n, cudaTextureAddressMode m) {
  if (i >= 0 && i < n) return i;
  if (m == cudaAddressModeWrap) return ((i % n) + n) % n;
  if (m == cudaAddressModeMirror) {
    int p = ((i % (2 * n)) + 2 * n) % (2 * n);
    return p < n ? p : 2 * n - 1 - p;
  }
  if (m == cudaAddressModeBorder) return -1;
  return i < 0 ? 0 : n - 1;
}
static float at(const Tex2D &t, int x, int y) {
  cudaTextureAddressMode m = t.normalized ? t.mode : (t.mode == cudaAddressModeBorder ? t.mode : cudaAddressModeClamp);
  x = addr(x, t.w, m), y = addr(y, t.h, m);
  return x < 0 || y < 0 ? t.border : t.img[y * t.w + x];
}
// The texel (or bilinear blend) at (u, v); *spread: how far apart the four texels of a
// blend are (0 for a point sample).
static float ref(const Tex2D &t, float u, float v, float *spread) {
  double x = t.normalized ? (double)u * t.w : u, y = t.normalized ? (double)v * t.h : v;
  *spread = 0;
  if (!t.linear) return at(t, (int)floor(x), (int)floor(y));
  x -= 0.5, y -= 0.5;
  double fx = floor(x), fy = floor(y);
  double a = round((x - fx) * 256) / 256, b = round((y - fy) * 256) / 256;  // 8-bit fractions
  int i = (int)fx, j = (int)fy;
  float q[4] = {at(t, i, j), at(t, i + 1, j), at(t, i, j + 1), at(t, i + 1, j + 1)};
  *spread = fmaxf(fmaxf(q[0], q[1]), fmaxf(q[2], q[3])) - fminf(fminf(q[0], q[1]), fminf(q[2], q[3]));
  return (float)((1 - a) * (1 - b) * q[0] + a * (1 - b) * q[1] + (1 - a) * b * q[2] + a * b * q[3]);
}

int main() {
  bool ok = true;
  std::vector<float> img(W * H);
  for (int i = 0; i < W * H; i++) img[i] = (float)((i * 7919) % 1000) / 10.0f;
  float *dimg;
  size_t pitch;
  CHECK(cudaMallocPitch(&dimg, &pitch, W * sizeof(float), H));
  CHECK(cudaMemcpy2D(dimg, pitch, img.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypePitch2D;
  rd.res.pitch2D.devPtr = dimg;
  rd.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  rd.res.pitch2D.width = W;
  rd.res.pitch2D.height = H;
  rd.res.pitch2D.pitchInBytes = pitch;

  // 1. blur: point filtering, unnormalised, clamp.
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
  float *dout;
  CHECK(cudaMalloc(&dout, W * H * sizeof(float)));
  blur<<<dim3((W + 15) / 16, (H + 15) / 16), dim3(16, 16)>>>(tex, dout, W, H);
  CHECK(cudaGetLastError());
  std::vector<float> out(W * H);
  CHECK(cudaMemcpy(out.data(), dout, W * H * sizeof(float), cudaMemcpyDeviceToHost));
  Tex2D ht = {img.data(), W, H, cudaAddressModeClamp, false, false, 0};
  int bad = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      float s = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) s += at(ht, x + dx, y + dy);
      float want = s / 9.0f;
      if (fabsf(out[y * W + x] - want) > 1e-4f * fabsf(want) + 1e-5f && bad++ < 5)
        printf("blur (%d,%d): got %g, expected %g\n", x, y, out[y * W + x], want);
    }
  CHECK(cudaDestroyTextureObject(tex));
  ok &= bad == 0;

  // 2. bilinear, normalised coordinates, each address mode, points in and around [0, 1).
  const int n = 512;
  std::vector<float2> uv(n);
  for (int i = 0; i < n; i++) uv[i] = make_float2(-1.3f + 3.7f * (float)((i * 37) % n) / n, -0.9f + 2.9f * (float)((i * 91) % n) / n);
  float2 *duv;
  float *dres;
  CHECK(cudaMalloc(&duv, n * sizeof(float2)));
  CHECK(cudaMalloc(&dres, n * sizeof(float)));
  CHECK(cudaMemcpy(duv, uv.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  const cudaTextureAddressMode modes[] = {cudaAddressModeWrap, cudaAddressModeMirror, cudaAddressModeClamp,
                                          cudaAddressModeBorder};
  for (int lin = 0; lin < 2; lin++)
    for (cudaTextureAddressMode m : modes) {
      memset(&td, 0, sizeof td);
      td.addressMode[0] = td.addressMode[1] = m;
      td.filterMode = lin ? cudaFilterModeLinear : cudaFilterModePoint;
      td.normalizedCoords = 1;
      td.borderColor[0] = 42.0f;
      CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
      sample<<<n / 128, 128>>>(tex, duv, dres, n);
      CHECK(cudaGetLastError());
      std::vector<float> res(n);
      CHECK(cudaMemcpy(res.data(), dres, n * sizeof(float), cudaMemcpyDeviceToHost));
      Tex2D t = {img.data(), W, H, m, (bool)lin, true, 42.0f};
      bad = 0;
      for (int i = 0; i < n; i++) {
        float spread, want = ref(t, uv[i].x, uv[i].y, &spread);
        // The programming guide gives the blend's weights 8 fractional bits, not how the
        // hardware derives them from the coordinate: an H100 differs from this reference
        // by up to 0.4 of a weight step (docs/gpu-results.md), so a blend may be off by
        // one step (1/256) of its texels' spread.
        if (fabsf(res[i] - want) > spread / 256 + 1e-4f * fabsf(want) + 1e-4f && bad++ < 3)
          printf("%s mode %d (%g,%g): got %g, expected %g\n", lin ? "linear" : "point", (int)m, uv[i].x, uv[i].y,
                 res[i], want);
      }
      ok &= bad == 0;
      CHECK(cudaDestroyTextureObject(tex));
    }

  // 3. uchar4 pixels in linear memory, read as normalised floats by tex1Dfetch.
  const int np = 100;
  std::vector<uchar4> px(np);
  for (int i = 0; i < np; i++) px[i] = make_uchar4(i, 255 - i, (i * 13) & 255, 200);
  uchar4 *dpx;
  float4 *df4;
  CHECK(cudaMalloc(&dpx, np * sizeof(uchar4)));
  CHECK(cudaMalloc(&df4, (np + 4) * sizeof(float4)));
  CHECK(cudaMemcpy(dpx, px.data(), np * sizeof(uchar4), cudaMemcpyHostToDevice));
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = dpx;
  rd.res.linear.desc = cudaCreateChannelDesc<uchar4>();
  rd.res.linear.sizeInBytes = np * sizeof(uchar4);
  memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeNormalizedFloat;
  CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
  fetch4<<<1, np + 4>>>(tex, df4, np + 4);
  CHECK(cudaGetLastError());
  std::vector<float4> f4(np + 4);
  CHECK(cudaMemcpy(f4.data(), df4, (np + 4) * sizeof(float4), cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < np + 4; i++) {
    int k = i - 2;
    float4 want = k < 0 || k >= np ? make_float4(0, 0, 0, 0)
                                   : make_float4(px[k].x / 255.0f, px[k].y / 255.0f, px[k].z / 255.0f, px[k].w / 255.0f);
    if ((fabsf(f4[i].x - want.x) > 1e-6f || fabsf(f4[i].y - want.y) > 1e-6f || fabsf(f4[i].z - want.z) > 1e-6f ||
         fabsf(f4[i].w - want.w) > 1e-6f) && bad++ < 5)
      printf("tex1Dfetch [%d]: got %g %g %g %g\n", k, f4[i].x, f4[i].y, f4[i].z, f4[i].w);
  }
  ok &= bad == 0;
  CHECK(cudaDestroyTextureObject(tex));

  // 4. signed 16-bit texels read as integers.
  std::vector<short> sh(16 * 8);
  for (int i = 0; i < 16 * 8; i++) sh[i] = (short)(i * 517 - 30000);
  short *dsh;
  size_t spitch;
  int *dint;
  CHECK(cudaMallocPitch(&dsh, &spitch, 16 * sizeof(short), 8));
  CHECK(cudaMemcpy2D(dsh, spitch, sh.data(), 16 * sizeof(short), 16 * sizeof(short), 8, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&dint, 16 * 8 * sizeof(int)));
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypePitch2D;
  rd.res.pitch2D.devPtr = dsh;
  rd.res.pitch2D.desc = cudaCreateChannelDesc<short>();
  rd.res.pitch2D.width = 16;
  rd.res.pitch2D.height = 8;
  rd.res.pitch2D.pitchInBytes = spitch;
  memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeElementType;
  CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
  fetch_int<<<8, 16>>>(tex, dint, 16, 8);
  CHECK(cudaGetLastError());
  std::vector<int> iv(16 * 8);
  CHECK(cudaMemcpy(iv.data(), dint, 16 * 8 * sizeof(int), cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < 16 * 8; i++)
    if (iv[i] != sh[i] && bad++ < 5) printf("short [%d]: got %d, expected %d\n", i, iv[i], sh[i]);
  ok &= bad == 0;
  CHECK(cudaDestroyTextureObject(tex));
  return verdict("texture_blur", ok);
}
