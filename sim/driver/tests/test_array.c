/* test_array.c: CUDA arrays, their copies and surface objects through the driver
 * API: the argument errors the driver documents, copies in and out of arrays in
 * every form, and surface instructions (suld/sust from PTX text) in the
 * out-of-range modes the other tests do not reach (.trap, .clamp on rows, .b64). */
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

static CUDA_ARRAY3D_DESCRIPTOR desc3(size_t w, size_t h, size_t d, CUarray_format f, unsigned ch, unsigned flags) {
  CUDA_ARRAY3D_DESCRIPTOR a = {w, h, d, f, ch, flags};
  return a;
}

TEST_IMPL(array_create_errors) {
  st_setup();
  CUarray a;
  CUDA_ARRAY3D_DESCRIPTOR d = desc3(16, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0);
  ASSERT_CU(cuArray3DCreate(NULL, &d), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuArray3DCreate(&a, NULL), CUDA_ERROR_INVALID_VALUE);
  static const struct {
    size_t w, h, d;
    unsigned ch, flags;
    CUresult want;
  } bad[] = {
      {0, 8, 0, 1, 0, CUDA_ERROR_INVALID_VALUE},                           /* no width */
      {16, 8, 0, 3, 0, CUDA_ERROR_INVALID_VALUE},                          /* 3 channels */
      {16, 0, 4, 1, 0, CUDA_ERROR_INVALID_VALUE},                          /* depth without height, not layered */
      {16, 8, 0, 1, CUDA_ARRAY3D_LAYERED, CUDA_ERROR_INVALID_VALUE},       /* layered without layers */
      {131073, 0, 0, 1, 0, CUDA_ERROR_INVALID_VALUE},                      /* past maxTexture1D */
      {16, 65537, 0, 1, 0, CUDA_ERROR_INVALID_VALUE},                      /* past maxTexture2D */
      {16, 16, 16385, 1, 0, CUDA_ERROR_INVALID_VALUE},                     /* past maxTexture3D */
      {32769, 0, 0, 1, CUDA_ARRAY3D_SURFACE_LDST, CUDA_ERROR_INVALID_VALUE}, /* past maxSurface1D */
      {16, 16, 2049, 1, CUDA_ARRAY3D_LAYERED, CUDA_ERROR_INVALID_VALUE},   /* too many layers */
      {16, 8, 0, 1, 0x10000, CUDA_ERROR_INVALID_VALUE},                    /* unknown flag */
      {16, 16, 6, 1, CUDA_ARRAY3D_CUBEMAP, CUDA_ERROR_NOT_SUPPORTED},      /* cubemaps: refused by name */
      {16, 16, 0, 1, CUDA_ARRAY3D_SPARSE, CUDA_ERROR_NOT_SUPPORTED},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    d = desc3(bad[i].w, bad[i].h, bad[i].d, CU_AD_FORMAT_FLOAT, bad[i].ch, bad[i].flags);
    CUresult r = cuArray3DCreate(&a, &d);
    if (r != bad[i].want) FT_FAIL_("case %zu: %s, expected %s", i, st_errname(r), st_errname(bad[i].want));
  }
  d = desc3(16, 8, 0, CU_AD_FORMAT_UNORM_INT_101010_2, 1, 0); /* a format the simulator does not model */
  ASSERT_CU(cuArray3DCreate(&a, &d), CUDA_ERROR_NOT_SUPPORTED);
  CUDA_ARRAY_DESCRIPTOR d2 = {0, 4, CU_AD_FORMAT_UNSIGNED_INT8, 1};
  ASSERT_CU(cuArrayCreate(&a, &d2), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuArrayCreate(&a, NULL), CUDA_ERROR_INVALID_VALUE);

  /* Descriptors read back as created; a destroyed handle is no array. */
  d2 = (CUDA_ARRAY_DESCRIPTOR){33, 7, CU_AD_FORMAT_SIGNED_INT16, 2};
  CK(cuArrayCreate(&a, &d2));
  CUDA_ARRAY_DESCRIPTOR g2;
  CUDA_ARRAY3D_DESCRIPTOR g3;
  CK(cuArrayGetDescriptor(&g2, a));
  ASSERT(g2.Width == 33 && g2.Height == 7 && g2.Format == CU_AD_FORMAT_SIGNED_INT16 && g2.NumChannels == 2);
  CK(cuArray3DGetDescriptor(&g3, a));
  ASSERT(g3.Width == 33 && g3.Height == 7 && g3.Depth == 0 && g3.Flags == 0);
  ASSERT_CU(cuArrayGetDescriptor(NULL, a), CUDA_ERROR_INVALID_VALUE);
  CK(cuArrayDestroy(a));
  ASSERT_CU(cuArrayDestroy(a), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuArray3DGetDescriptor(&g3, a), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuArrayDestroy(NULL), CUDA_ERROR_INVALID_VALUE);
  d = desc3(9, 0, 5, CU_AD_FORMAT_HALF, 4, CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST);
  CK(cuArray3DCreate(&a, &d));
  CK(cuArray3DGetDescriptor(&g3, a));
  ASSERT(memcmp(&g3, &d, sizeof d) == 0);
  CK(cuArrayDestroy(a));
  /* The limits the arrays are checked against are the device's attributes. */
  int v;
  CK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, 0));
  ASSERT_EQ(v, 16384);
  CK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS, 0));
  ASSERT_EQ(v, 2048);
  return TEST_OK;
}

TEST_IMPL(array_copies) {
  st_setup();
  enum { W = 13, H = 6, D = 3, ES = 4 }; /* uchar4 elements */
  CUarray a;
  CUDA_ARRAY3D_DESCRIPTOR d = desc3(W, H, D, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0);
  CK(cuArray3DCreate(&a, &d));
  uint8_t src[D][H][W * ES], back[D][H][W * ES + 8];
  for (int z = 0; z < D; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W * ES; x++) src[z][y][x] = (uint8_t)(z * 70 + y * 11 + x);
  CUDA_MEMCPY3D c = {0};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = src;
  c.srcPitch = W * ES;
  c.srcHeight = H;
  c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  c.dstArray = a;
  c.WidthInBytes = W * ES;
  c.Height = H;
  c.Depth = D;
  CK(cuMemcpy3D(&c));
  /* back into a padded host box, from element (1, 2, 1) on */
  memset(back, 0xEE, sizeof back);
  CUDA_MEMCPY3D r = {0};
  r.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  r.srcArray = a;
  r.srcXInBytes = ES;
  r.srcY = 2;
  r.srcZ = 1;
  r.dstMemoryType = CU_MEMORYTYPE_HOST;
  r.dstHost = back;
  r.dstPitch = W * ES + 8;
  r.dstHeight = H;
  r.WidthInBytes = (W - 1) * ES;
  r.Height = H - 2;
  r.Depth = D - 1;
  CK(cuMemcpy3D(&r));
  for (int z = 0; z < D - 1; z++)
    for (int y = 0; y < H - 2; y++)
      for (int x = 0; x < (W - 1) * ES; x++)
        if (back[z][y][x] != src[z + 1][y + 2][x + ES]) FT_FAIL_("3-D (%d,%d,%d): %u", x, y, z, back[z][y][x]);
  ASSERT_EQ(back[0][0][(W - 1) * ES], (uint8_t)0xEE); /* nothing past the width */
  /* Out of the array, x not a whole element, a width of part of an element. */
  r.Depth = D;
  ASSERT_CU(cuMemcpy3D(&r), CUDA_ERROR_INVALID_VALUE);
  r.Depth = D - 1;
  r.srcXInBytes = 2;
  ASSERT_CU(cuMemcpy3D(&r), CUDA_ERROR_INVALID_VALUE);
  r.srcXInBytes = 0;
  r.WidthInBytes = W * ES - 2;
  ASSERT_CU(cuMemcpy3D(&r), CUDA_ERROR_INVALID_VALUE);
  r.WidthInBytes = W * ES + ES;
  ASSERT_CU(cuMemcpy3D(&r), CUDA_ERROR_INVALID_VALUE);
  r.WidthInBytes = W * ES;
  r.srcArray = (CUarray)(uintptr_t)0x1234; /* no array */
  ASSERT_CU(cuMemcpy3D(&r), CUDA_ERROR_INVALID_VALUE);

  /* 2-D: a slice of a 2-D array to device memory and back into a second array,
   * asynchronously; then the linear forms (byte offsets into the packed rows). */
  CUarray b;
  CUDA_ARRAY_DESCRIPTOR d2 = {W, H, CU_AD_FORMAT_UNSIGNED_INT8, 4};
  CK(cuArrayCreate(&b, &d2));
  CUDA_MEMCPY2D c2 = {0};
  c2.srcMemoryType = CU_MEMORYTYPE_HOST;
  c2.srcHost = src[2];
  c2.srcPitch = W * ES;
  c2.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  c2.dstArray = b;
  c2.WidthInBytes = W * ES;
  c2.Height = H;
  CK(cuMemcpy2D(&c2));
  CUdeviceptr dev;
  CK(cuMemAlloc(&dev, W * ES * H));
  c2 = (CUDA_MEMCPY2D){0};
  c2.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  c2.srcArray = b;
  c2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c2.dstDevice = dev;
  c2.dstPitch = W * ES;
  c2.WidthInBytes = W * ES;
  c2.Height = H;
  CK(cuMemcpy2DAsync(&c2, NULL));
  c2.Height = H + 1;
  ASSERT_CU(cuMemcpy2DAsync(&c2, NULL), CUDA_ERROR_INVALID_VALUE);
  uint8_t lin[H * W * ES];
  CK(cuMemcpyDtoH(lin, dev, sizeof lin));
  ASSERT(memcmp(lin, src[2], sizeof lin) == 0);
  CK(cuMemcpyAtoH(lin, a, W * ES * H, sizeof lin)); /* the second slice of a */
  ASSERT(memcmp(lin, src[1], sizeof lin) == 0);
  CK(cuMemcpyHtoA(b, 0, src[0], sizeof lin));
  CK(cuMemcpyAtoD(dev, b, 0, sizeof lin));
  CK(cuMemcpyDtoA(a, 0, dev, sizeof lin));
  CK(cuMemcpyAtoA(b, ES, a, 0, ES)); /* element 0 of a to element 1 of b */
  CK(cuMemcpyAtoH(lin, b, 0, sizeof lin));
  ASSERT(memcmp(lin, src[0], ES) == 0 && memcmp(lin + ES, src[0], ES) == 0 && lin[2 * ES] == src[0][0][2 * ES]);
  CK(cuMemcpyAtoH(lin, a, 0, sizeof lin));
  ASSERT(memcmp(lin, src[0], sizeof lin) == 0);
  ASSERT_CU(cuMemcpyHtoA(b, 1, src[0], sizeof lin), CUDA_ERROR_INVALID_VALUE); /* one byte past the end */
  ASSERT_CU(cuMemcpyAtoH(lin, b, sizeof lin + 1, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemcpyAtoD(dev, NULL, 0, 4), CUDA_ERROR_INVALID_VALUE);
  CK(cuMemcpyHtoAAsync(b, 0, src[1], sizeof lin, NULL));
  CK(cuMemcpyAtoHAsync(lin, b, 0, sizeof lin, NULL));
  CK(cuCtxSynchronize());
  ASSERT(memcmp(lin, src[1], sizeof lin) == 0);
  CK(cuArrayDestroy(b));
  ASSERT_CU(cuMemcpyAtoH(lin, b, 0, 4), CUDA_ERROR_INVALID_VALUE);
  CK(cuArrayDestroy(a));
  CK(cuMemFree(dev));
  return TEST_OK;
}

TEST_IMPL(surf_object_errors) {
  st_setup();
  CUarray plain, ldst;
  CUDA_ARRAY3D_DESCRIPTOR d = desc3(8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0);
  CK(cuArray3DCreate(&plain, &d));
  d.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  CK(cuArray3DCreate(&ldst, &d));
  CUDA_RESOURCE_DESC rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = CU_RESOURCE_TYPE_ARRAY;
  rd.res.array.hArray = plain;
  CUsurfObject s;
  ASSERT_CU(cuSurfObjectCreate(&s, &rd), CUDA_ERROR_INVALID_VALUE); /* no SURFACE_LDST */
  ASSERT_CU(cuSurfObjectCreate(NULL, &rd), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuSurfObjectCreate(&s, NULL), CUDA_ERROR_INVALID_VALUE);
  rd.res.array.hArray = ldst;
  rd.flags = 1;
  ASSERT_CU(cuSurfObjectCreate(&s, &rd), CUDA_ERROR_INVALID_VALUE);
  rd.flags = 0;
  rd.resType = CU_RESOURCE_TYPE_LINEAR;
  ASSERT_CU(cuSurfObjectCreate(&s, &rd), CUDA_ERROR_INVALID_VALUE);
  rd.resType = CU_RESOURCE_TYPE_ARRAY;
  CK(cuSurfObjectCreate(&s, &rd));
  CUDA_RESOURCE_DESC got;
  CK(cuSurfObjectGetResourceDesc(&got, s));
  ASSERT(got.resType == CU_RESOURCE_TYPE_ARRAY && got.res.array.hArray == ldst);
  /* a surface is no texture, and the other way round */
  ASSERT_CU(cuTexObjectDestroy(s), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuTexObjectGetResourceDesc(&got, s), CUDA_ERROR_INVALID_VALUE);
  CUDA_TEXTURE_DESC td;
  memset(&td, 0, sizeof td);
  rd.res.array.hArray = plain;
  CUtexObject t;
  CK(cuTexObjectCreate(&t, &rd, &td, NULL)); /* a texture needs no SURFACE_LDST */
  ASSERT_CU(cuSurfObjectDestroy(t), CUDA_ERROR_INVALID_VALUE);
  CK(cuTexObjectDestroy(t));
  CK(cuSurfObjectDestroy(s));
  ASSERT_CU(cuSurfObjectDestroy(s), CUDA_ERROR_INVALID_VALUE);
  rd.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
  ASSERT_CU(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_NOT_SUPPORTED);
  CK(cuArrayDestroy(plain));
  rd.resType = CU_RESOURCE_TYPE_ARRAY;
  ASSERT_CU(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE); /* destroyed array */
  CK(cuArrayDestroy(ldst));
  return TEST_OK;
}

/* loads(s, out, x, y): thread i loads the b64 at (x + 8i, y) with .clamp and with
 * .zero into out[2i], out[2i + 1]; surf: the same, then stores 8i+1 as a .v2.b32
 * at (x + 8i, y) with .trap. */
#define SURF_LOADS                                                                                        \
  ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n"                                                                 \
  "ld.param.u64 %rd0, [s];\nld.param.u64 %rd1, [out];\nld.param.u32 %r0, [x];\nld.param.u32 %r1, [y];\n" \
  "mov.u32 %r2, %tid.x;\nshl.b32 %r3, %r2, 3;\nadd.s32 %r4, %r0, %r3;\n"                                \
  "suld.b.2d.b64.clamp %rd2, [%rd0, {%r4, %r1}];\n"                                                      \
  "suld.b.2d.b64.zero %rd3, [%rd0, {%r4, %r1}];\n"                                                       \
  "mul.wide.u32 %rd4, %r2, 16;\nadd.s64 %rd4, %rd1, %rd4;\nst.global.v2.u64 [%rd4], {%rd2, %rd3};\n"
static const char ptx_surf[] =
    ".version 7.5\n.target sm_75\n.address_size 64\n"
    ".visible .entry loads(.param .u64 s, .param .u64 out, .param .u32 x, .param .u32 y)\n{\n" SURF_LOADS
    "ret;\n}\n"
    ".visible .entry surf(.param .u64 s, .param .u64 out, .param .u32 x, .param .u32 y)\n{\n" SURF_LOADS
    "add.s32 %r5, %r3, 1;\n"
    "sust.b.2d.v2.b32.trap [%rd0, {%r4, %r1}], {%r5, %r5};\n"
    "ret;\n}\n";

enum { SW = 4, SH = 3 }; /* the arrays of these tests: 4 texels of 8 bytes per row, 3 rows */

/* The test image: texel (x, y) holds 0x1000 y + x + add. */
static void image(uint64_t img[SH][SW], unsigned add) {
  for (int y = 0; y < SH; y++)
    for (int x = 0; x < SW; x++) img[y][x] = 0x1000u * (unsigned)y + (unsigned)x + add;
}

/* A surface over a new array of format f (2 channels of 4 bytes) holding img, the
 * kernel `name` of ptx_surf, and a device buffer of SW * 16 bytes for its results. */
static CUsurfObject surface_setup(CUarray_format f, uint64_t img[SH][SW], const char *name, CUfunction *fn,
                                  CUdeviceptr *out) {
  CUarray a;
  CUDA_ARRAY3D_DESCRIPTOR d = desc3(SW, SH, 0, f, 2, CUDA_ARRAY3D_SURFACE_LDST);
  CK(cuArray3DCreate(&a, &d));
  CK(cuMemcpyHtoA(a, 0, img, SH * SW * 8));
  CUDA_RESOURCE_DESC rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = CU_RESOURCE_TYPE_ARRAY;
  rd.res.array.hArray = a;
  CUsurfObject s;
  CK(cuSurfObjectCreate(&s, &rd));
  CUmodule m;
  CK(cuModuleLoadData(&m, ptx_surf));
  *fn = st_func(m, name);
  CK(cuMemAlloc(out, SW * 16));
  return s;
}

static CUarray array_of(CUsurfObject s) {
  CUDA_RESOURCE_DESC rd;
  CK(cuSurfObjectGetResourceDesc(&rd, s));
  return rd.res.array.hArray;
}

TEST_IMPL(surf_ptx_modes) {
  st_setup();
  uint64_t img[SH][SW];
  image(img, 0);
  CUfunction f;
  CUdeviceptr out;
  CUsurfObject s = surface_setup(CU_AD_FORMAT_FLOAT, img, "surf", &f, &out);
  /* row 1 from texel 0: in range; loads see the row, stores write 8i+1 twice */
  unsigned x = 0, y = 1;
  void *args[] = {&s, &out, &x, &y};
  CK(cuLaunchKernel(f, 1, 1, 1, SW, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  uint64_t got[SW][2], after[SH][SW];
  CK(cuMemcpyDtoH(got, out, sizeof got));
  for (int i = 0; i < SW; i++) ASSERT(got[i][0] == img[1][i] && got[i][1] == img[1][i]);
  CK(cuMemcpyAtoH(after, array_of(s), 0, sizeof after));
  for (int i = 0; i < SW; i++) ASSERT_EQ(after[1][i], (uint64_t)(8 * i + 1) << 32 | (uint64_t)(8 * i + 1));
  ASSERT_EQ(after[0][0], img[0][0]);
  /* y = 5 (rows 0..2): the loads are fine, the .trap store faults */
  y = 5;
  CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CK(cuDevicePrimaryCtxReset(0));
  st_setup();
  s = surface_setup(CU_AD_FORMAT_FLOAT, img, "surf", &f, &out);
  /* x = 4: inside the row, but not a multiple of the 8-byte access */
  x = 4, y = 0;
  CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_MISALIGNED_ADDRESS);
  CK(cuDevicePrimaryCtxReset(0));
  return TEST_OK;
}

/* The .clamp and .zero loads past the end of a row and above the first row
 * (x = 8 * SW - 8 + 8i: thread 0 the last texel, the others past it); then the
 * surface of a destroyed array. */
TEST_IMPL(surf_ptx_out_of_range_loads) {
  st_setup();
  uint64_t img[SH][SW];
  image(img, 7);
  CUfunction f;
  CUdeviceptr out;
  CUsurfObject s = surface_setup(CU_AD_FORMAT_UNSIGNED_INT32, img, "loads", &f, &out);
  int x = 8 * SW - 8, y = -2; /* row -2: clamped to row 0 */
  void *args[] = {&s, &out, &x, &y};
  CK(cuLaunchKernel(f, 1, 1, 1, SW, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  uint64_t got[SW][2];
  CK(cuMemcpyDtoH(got, out, sizeof got));
  for (int i = 0; i < SW; i++) {
    ASSERT_EQ(got[i][0], img[0][SW - 1]);
    ASSERT_EQ(got[i][1], (uint64_t)0);
  }
  y = 2;
  CK(cuLaunchKernel(f, 1, 1, 1, SW, 1, 1, 0, NULL, args, NULL));
  CK(cuCtxSynchronize());
  CK(cuMemcpyDtoH(got, out, sizeof got));
  ASSERT(got[0][0] == img[2][SW - 1] && got[0][1] == img[2][SW - 1]); /* thread 0: in range */
  for (int i = 1; i < SW; i++) ASSERT(got[i][0] == img[2][SW - 1] && got[i][1] == 0);
  /* A surface whose array is gone faults (its memory may be another allocation's). */
  CK(cuArrayDestroy(array_of(s)));
  CK(cuLaunchKernel(f, 1, 1, 1, SW, 1, 1, 0, NULL, args, NULL));
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CK(cuDevicePrimaryCtxReset(0));
  return TEST_OK;
}

/* store_load(s, t, out, w, y): thread i stores 8i+1 twice (.v2.b32) at texel (i, w)
 * through the surface, then reads texel (i, y) through the surface (suld) and the
 * texture (tex, integer coordinates) into out[2i], out[2i + 1]. */
static const char ptx_store_load[] =
    ".version 7.5\n.target sm_75\n.address_size 64\n"
    ".visible .entry store_load(.param .u64 s, .param .u64 t, .param .u64 out, .param .u32 w, .param .u32 y)\n{\n"
    ".reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd0, [s];\nld.param.u64 %rd5, [t];\nld.param.u64 %rd1, [out];\n"
    "ld.param.u32 %r0, [w];\nld.param.u32 %r1, [y];\n"
    "mov.u32 %r2, %tid.x;\nshl.b32 %r3, %r2, 3;\nadd.s32 %r5, %r3, 1;\n"
    "sust.b.2d.v2.b32.trap [%rd0, {%r3, %r0}], {%r5, %r5};\n"
    "suld.b.2d.b64.trap %rd2, [%rd0, {%r3, %r1}];\n"
    "tex.2d.v4.u32.s32 {%r6, %r7, %r8, %r9}, [%rd5, {%r2, %r1}];\n"
    "mov.b64 %rd3, {%r6, %r7};\n"
    "mul.wide.u32 %rd4, %r2, 16;\nadd.s64 %rd4, %rd1, %rd4;\nst.global.v2.u64 [%rd4], {%rd2, %rd3};\nret;\n}\n";

/* Within a launch the texture cache is not kept coherent with surface writes: a
 * texture fetch or surface read of a texel a surface store of the same launch wrote
 * is undefined (CUDA programming guide; an H200 read zeros, docs/gpu-results.md).
 * The UB check reports each such read; reads of other rows, and of the row a
 * previous launch wrote, are not reported. */
TEST_IMPL(surf_read_after_store_in_one_launch_reported) {
  setenv("SIMCUDA_CHECK_UB", "1", 1); /* read at cuInit: reported, run on */
  st_setup();
  uint64_t img[SH][SW];
  image(img, 0);
  CUfunction unused;
  CUdeviceptr out;
  CUsurfObject s = surface_setup(CU_AD_FORMAT_UNSIGNED_INT32, img, "loads", &unused, &out);
  CUDA_RESOURCE_DESC rd;
  CK(cuSurfObjectGetResourceDesc(&rd, s));
  CUDA_TEXTURE_DESC td;
  memset(&td, 0, sizeof td);
  CUtexObject t;
  CK(cuTexObjectCreate(&t, &rd, &td, NULL));
  CUmodule m;
  CK(cuModuleLoadData(&m, ptx_store_load));
  CUfunction f = st_func(m, "store_load");
  static const struct {
    unsigned w, y;
    uint64_t reports;
  } cases[] = {{0, 0, 2 * SW}, {0, 1, 0}, {2, 0, 0}};
  for (unsigned c = 0; c < sizeof cases / sizeof *cases; c++) {
    unsigned w = cases[c].w, y = cases[c].y;
    void *args[] = {&s, &t, &out, &w, &y};
    st_reset_stats();
    CK(cuLaunchKernel(f, 1, 1, 1, SW, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    if (st_stats().ub_reports != cases[c].reports)
      FT_FAIL_("case %u: %ju reports, expected %ju", c, (uintmax_t)st_stats().ub_reports, (uintmax_t)cases[c].reports);
    uint64_t got[SW][2];
    CK(cuMemcpyDtoH(got, out, sizeof got));
    for (int i = 0; i < SW; i++) {
      /* row 0 holds what case 0 stored from then on; row 1 the image */
      uint64_t want = y == 0 ? (uint64_t)(8 * i + 1) << 32 | (uint64_t)(8 * i + 1) : img[y][i];
      ASSERT_EQ(got[i][0], want);
      ASSERT_EQ(got[i][1], want);
    }
  }
  CK(cuTexObjectDestroy(t));
  CK(cuSurfObjectDestroy(s));
  return TEST_OK;
}
