/* texture.c: tex.1d, .2d, .3d, .a1d and .a2d on texture objects (the handle in a
 * register; 3-D and layered ones on CUDA arrays): .v4 results (.f32, .s32, .u32),
 * .f32 or .s32 coordinates (a layer index is an integer, clamped to the layers),
 * point and linear (bilinear, trilinear) filtering, normalised coordinates, address modes wrap/clamp/mirror/border, the
 * element formats 8/16/32-bit integers, half and float, 1, 2 or 4 channels, read
 * as integers or as normalised floats. The rules are the CUDA Programming Guide's
 * ("Texture Fetching"): linear filtering at x - 0.5 with the fraction kept in 8
 * bits, wrap and mirror only with normalised coordinates (clamp otherwise);
 * integer coordinates fetch the texel itself; a linear resource (tex1Dfetch)
 * reads 0 outside its size. Missing channels read 0. tld4.2d gathers one component
 * of the four texels of a bilinear footprint. Under the UB check, a texel a surface
 * store, or (on linear and pitched memory) a global store, of the same launch wrote
 * is reported (texwrite.c). */
#include <math.h>
#include <string.h>

#include "texsurf.h"

#define ERR_ILLEGAL_ADDRESS 700

static unsigned fmt_size(unsigned f) {
  switch (f) {
    case SIM_TEXFMT_U8: case SIM_TEXFMT_S8: return 1;
    case SIM_TEXFMT_U16: case SIM_TEXFMT_S16: case SIM_TEXFMT_F16: return 2;
    default: return 4;
  }
}

unsigned sim_tex_elem_bytes(const sim_tex_t *t) { return fmt_size(t->fmt) * t->channels; }

/* One channel's raw value: as an integer (sign-extended) or as its float. */
static void channel(const sim_tex_t *t, const uint8_t *p, int64_t *iv, double *fv) {
  int64_t i = 0;
  double f = 0;
  switch (t->fmt) {
    case SIM_TEXFMT_U8: i = p[0]; f = t->as_integer ? (double)i : i / 255.0; break;
    case SIM_TEXFMT_S8: i = (int8_t)p[0]; f = t->as_integer ? (double)i : fmax(i / 127.0, -1.0); break;
    case SIM_TEXFMT_U16: { uint16_t u; memcpy(&u, p, 2); i = u; f = t->as_integer ? (double)i : i / 65535.0; break; }
    case SIM_TEXFMT_S16: { int16_t s; memcpy(&s, p, 2); i = s; f = t->as_integer ? (double)i : fmax(i / 32767.0, -1.0); break; }
    case SIM_TEXFMT_U32: { uint32_t u; memcpy(&u, p, 4); i = u; f = (double)u; break; }
    case SIM_TEXFMT_S32: { int32_t s; memcpy(&s, p, 4); i = s; f = (double)s; break; }
    case SIM_TEXFMT_F16: f = sim_half_value((uint64_t)p[0] | (uint64_t)p[1] << 8, false); i = (int64_t)f; break;
    default: { float x; memcpy(&x, p, 4); f = x; i = (int64_t)x; break; }
  }
  *iv = i, *fv = f;
}

/* Texel index i of a dimension of n texels under address mode m (the coordinate
 * was normalised when m is wrap or mirror); -1: outside (border). */
static int64_t address(int64_t i, int64_t n, unsigned m) {
  if (i >= 0 && i < n) return i;
  switch (m) {
    case SIM_TEXADDR_WRAP: return ((i % n) + n) % n;
    case SIM_TEXADDR_MIRROR: {
      int64_t p = ((i % (2 * n)) + 2 * n) % (2 * n);
      return p < n ? p : 2 * n - 1 - p;
    }
    case SIM_TEXADDR_BORDER: return -1;
    default: return i < 0 ? 0 : n - 1;
  }
}

/* The address mode of dimension d: wrap and mirror need normalised coordinates
 * (clamp otherwise, as the Programming Guide says). */
static unsigned addr_mode(const sim_tex_t *t, unsigned d) {
  if (t->normalized || t->addr[d] == SIM_TEXADDR_BORDER) return t->addr[d];
  return SIM_TEXADDR_CLAMP;
}

/* A float coordinate (its bits in raw) in texels of a dimension of n. */
static double texels(const sim_tex_t *t, uint64_t raw, int64_t n) {
  float c;
  uint32_t u = (uint32_t)raw;
  memcpy(&c, &u, 4);
  return t->normalized ? (double)c * (double)n : (double)c;
}

/* A result register: the f32 bits (fout), else the integer read (as_integer) or the
 * float's integer part. */
static uint64_t result(const sim_tex_t *t, bool fout, int64_t iv, double fv) {
  if (!fout) return (uint32_t)(t->as_integer ? iv : (int64_t)fv);
  float f = (float)fv;
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* Texel (x, y, z) into four channels; false after raising a fault. op: the
 * instruction, for the UB check's reports. */
static bool texel(sim_warp_t *w, uint32_t lane, const sim_tex_t *t, int64_t x, int64_t y, int64_t z, int64_t iv[4],
                  double fv[4], const char *op) {
  for (unsigned c = 0; c < 4; c++) iv[c] = 0, fv[c] = 0;
  if (x < 0 || y < 0 || z < 0) {
    for (unsigned c = 0; c < 4 && !t->linear_res; c++) fv[c] = t->border[c], iv[c] = (int64_t)t->border[c];
    return true;
  }
  unsigned es = fmt_size(t->fmt);
  uint64_t a = t->ptr + (uint64_t)z * t->slice + (uint64_t)y * t->pitch + (uint64_t)x * es * t->channels;
  const uint8_t *p = sim_interp_resolve(w, FT_PTX_SP_GLOBAL, lane, a, es * t->channels, false);
  if (!p) return false;
  if (w->blk->g->check_ub && sim_texw_hit(w->blk->g, a, es * t->channels))
    sim_interp_ub(w, 1u << lane, "%s: %s", op, SIM_UB_TEXW_WORDS);
  else if (w->blk->g->check_ub && !t->dims && sim_texw_hit_global(w->blk->g, a, es * t->channels))
    sim_interp_ub(w, 1u << lane, "%s: %s", op, SIM_UB_TEXW_GLOBAL_WORDS);
  for (unsigned c = 0; c < t->channels; c++) channel(t, p + c * es, &iv[c], &fv[c]);
  return true;
}

unsigned sim_tex_dims(unsigned geom, bool *layered) {
  *layered = geom == FT_PTX_GEOM_A1D || geom == FT_PTX_GEOM_A2D;
  return geom == FT_PTX_GEOM_3D ? 3 : geom == FT_PTX_GEOM_2D || geom == FT_PTX_GEOM_A2D ? 2 : 1;
}

bool sim_tex_lookup(sim_warp_t *w, uint32_t lane, uint64_t h, unsigned geom, bool surface, sim_tex_t *t) {
  const sim_mem_iface_t *mem = w->blk->g->mem;
  bool layered;
  sim_tex_dims(geom, &layered);
  bool valid = mem && mem->tex && mem->tex(mem->ctx, h, t) && t->surface == surface;
  const char *why = valid ? NULL : surface ? "is not a surface object of this context" : "is not a texture object of this context";
  if (valid && geom && t->layered != layered) why = layered ? "is not layered" : "is layered (the .a1d/.a2d forms address it)";
  else if (valid && geom == FT_PTX_GEOM_3D && t->dims != 3) why = "is not a 3-D array";
  if (!why) return true;
  w->active = 1u << lane;
  const char *op = !geom ? (surface ? "suq" : "txq") : surface ? "suld/sust/sured" : "tex/tld4";
  sim_interp_fault(w, ERR_ILLEGAL_ADDRESS, "%s: 0x%llx %s", op, (unsigned long long)h, why);
  return false;
}

bool sim_tex_cached(sim_warp_t *w, uint32_t lane, uint64_t h, unsigned geom, bool surface, sim_tex_cache_t *c) {
  if (c->valid && c->h == h) return true;
  c->h = h;
  return c->valid = sim_tex_lookup(w, lane, h, geom, surface, &c->t);
}

/* tex.<geom>.v4.<d>.<c> {d0..d3}, [a0, {a1..}]: a[0] the handle, a[1..] the
 * coordinates (layered: the layer first); in->type the result type, in->type2
 * the coordinates'. */
static void tex(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  const uint64_t *H = SIM_R(w, in->a[0]);
  bool layered;
  unsigned dims = sim_tex_dims(in->mode, &layered);
  unsigned c0 = 1 + layered; /* the first coordinate's operand */
  bool fcoord = in->type2 == FT_PTX_T_F32, fout = in->type == FT_PTX_T_F32;
  sim_tex_cache_t tc = {0};
  SIM_FOR_LANES(m, l) {
    if (!sim_tex_cached(w, l, H[l], in->mode, false, &tc)) return;
    const sim_tex_t t = tc.t;
    int64_t n[3] = {(int64_t)t.width, (int64_t)t.height, (int64_t)t.depth};
    int64_t i0[3] = {0, 0, 0}, i1[3] = {0, 0, 0};
    double frac[3] = {0, 0, 0};
    bool lin = t.linear_filter && fcoord && fout;
    if (layered) { /* the layer: an integer, clamped */
      int64_t k = (int32_t)SIM_R(w, in->a[1])[l];
      i0[2] = i1[2] = k < 0 ? 0 : k >= n[2] ? n[2] - 1 : k;
    }
    for (unsigned d = 0; d < dims; d++) {
      uint64_t raw = SIM_R(w, in->a[c0 + d])[l];
      unsigned mode = addr_mode(&t, d);
      if (!fcoord) {
        i0[d] = (int32_t)raw;
        i0[d] = t.linear_res ? (i0[d] >= 0 && i0[d] < n[d] ? i0[d] : -1) : address(i0[d], n[d], mode);
        continue;
      }
      double x = texels(&t, raw, n[d]);
      if (lin) {
        x -= 0.5;
        double f = floor(x);
        frac[d] = round((x - f) * 256.0) / 256.0;
        i0[d] = address((int64_t)f, n[d], mode);
        i1[d] = address((int64_t)f + 1, n[d], mode);
      } else {
        i0[d] = address((int64_t)floor(x), n[d], mode);
      }
    }
    int64_t iv[4], acc_i[4] = {0};
    double fv[4], acc_f[4] = {0};
    if (!lin) {
      if (!texel(w, l, &t, i0[0], i0[1], i0[2], iv, fv, "tex")) return;
      memcpy(acc_i, iv, sizeof iv), memcpy(acc_f, fv, sizeof fv);
    } else {
      /* 2, 4 or 8 texels: bit d of k picks i1 over i0 in dimension d */
      for (unsigned k = 0; k < 1u << dims; k++) {
        int64_t at[3];
        double wt = 1;
        for (unsigned d = 0; d < 3; d++) {
          bool hi = d < dims && (k >> d & 1);
          at[d] = hi ? i1[d] : i0[d];
          if (d < dims) wt *= hi ? frac[d] : 1 - frac[d];
        }
        if (!texel(w, l, &t, at[0], at[1], at[2], iv, fv, "tex")) return;
        for (unsigned c = 0; c < 4; c++) acc_f[c] += wt * fv[c];
      }
    }
    for (unsigned c = 0; c < 4 && c < in->nd; c++) SIM_R(w, in->d[c])[l] = result(&t, fout, acc_i[c], acc_f[c]);
  }
}

/* tld4.<c>.2d.v4.<d>.f32 {d0..d3}, [a0, {x, y}]: component c (in->mode, 1-4: r, g,
 * b, a) of the four texels linear filtering at (x, y) blends, in the PTX ISA's
 * order, counter-clockwise from the lower left: (i, j+1), (i+1, j+1), (i+1, j),
 * (i, j), where i = floor(x - 0.5) and j = floor(y - 0.5) (x, y scaled by the
 * size when normalised), each addressed as tex addresses it; the texture's filter
 * mode plays no part. The texture must be 2-D: a 2-D CUDA array or pitched memory.
 * The Programming Guide supports gathers only on arrays made with
 * cudaArrayTextureGather: the UB check reports the others (the simulator gathers
 * from them all the same). */
static void gather(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  static const uint8_t corner[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}}; /* (x + this, y + this) */
  const uint64_t *H = SIM_R(w, in->a[0]);
  unsigned comp = in->mode - 1u;
  bool fout = in->type == FT_PTX_T_F32;
  uint32_t unsupported = 0;
  sim_tex_cache_t tc = {0};
  SIM_FOR_LANES(m, l) {
    if (!sim_tex_cached(w, l, H[l], FT_PTX_GEOM_2D, false, &tc)) return;
    const sim_tex_t t = tc.t;
    if (t.dims != 2 && (t.dims || t.linear_res)) {
      w->active = 1u << l;
      sim_interp_fault(w, ERR_ILLEGAL_ADDRESS, "tld4: 0x%llx is not a 2-D texture (a 2-D CUDA array or pitched memory)",
                       (unsigned long long)H[l]);
      return;
    }
    if (!t.gather) unsupported |= 1u << l;
    int64_t n[2] = {(int64_t)t.width, (int64_t)t.height}, at[2][2];
    for (unsigned d = 0; d < 2; d++) {
      int64_t i = (int64_t)floor(texels(&t, SIM_R(w, in->a[1 + d])[l], n[d]) - 0.5);
      at[d][0] = address(i, n[d], addr_mode(&t, d));
      at[d][1] = address(i + 1, n[d], addr_mode(&t, d));
    }
    uint64_t v[4];
    for (unsigned k = 0; k < 4; k++) {
      int64_t iv[4];
      double fv[4];
      if (!texel(w, l, &t, at[0][corner[k][0]], at[1][corner[k][1]], 0, iv, fv, "tld4")) return;
      v[k] = result(&t, fout, iv[comp], fv[comp]);
    }
    for (unsigned k = 0; k < 4; k++) SIM_R(w, in->d[k])[l] = v[k];
  }
  if (unsupported && w->blk->g->check_ub)
    sim_interp_ub(w, unsupported,
                  "tld4 of a texture that is not a CUDA array made with cudaArrayTextureGather: the CUDA "
                  "Programming Guide supports texture gather only there (what a GPU returns is not documented)");
}

/* Operands: the handle, then 1 (1d), 2 (2d, a1d) or 4 (3d, a2d: the last unused);
 * tld4: the handle and 2. */
sim_exec_fn sim_choose_texture(sim_insn_t *in) {
  static const uint8_t na[] = {[FT_PTX_GEOM_1D] = 2, [FT_PTX_GEOM_2D] = 3, [FT_PTX_GEOM_3D] = 5,
                               [FT_PTX_GEOM_A1D] = 3, [FT_PTX_GEOM_A2D] = 5};
  bool dims_ok = in->mode < sizeof na && na[in->mode] && in->na == na[in->mode];
  bool types_ok = (in->type == FT_PTX_T_F32 || in->type == FT_PTX_T_S32 || in->type == FT_PTX_T_U32) &&
                  (in->type2 == FT_PTX_T_F32 || in->type2 == FT_PTX_T_S32);
  if (in->op == FT_PTX_OP_TLD4) /* .2d only (lower.c): the component in mode, float coordinates */
    return in->mode >= 1 && in->mode <= 4 && in->na == 3 && types_ok && in->type2 == FT_PTX_T_F32 && in->nd == 4
               ? gather
               : NULL;
  return in->op == FT_PTX_OP_TEX && dims_ok && types_ok && in->nd == 4 ? tex : NULL;
}
