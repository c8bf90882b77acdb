/* printf.c: device printf (nvcc's call to the external vprintf): the format string
 * and the argument buffer are read through the checked memory path, formatted per
 * lane in lane order and written to stdout at once (a GPU prints at the next
 * synchronisation; the order of lines between warps is not defined there either);
 * device assert (the external __assertfail): its message, then a failed launch. */
#include <stdio.h>
#include <string.h>

#include "interp.h"

/* Reads n bytes at a generic address, false after a fault. */
static bool rd(sim_warp_t *w, uint32_t lane, uint64_t addr, void *out, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    const uint8_t *p = sim_interp_resolve(w, FT_PTX_SP_GENERIC, lane, addr + i, 1, false);
    if (!p) return false;
    ((uint8_t *)out)[i] = *p;
  }
  return true;
}

/* One lane's line; returns its length or -1 after a fault. */
static int format_lane(sim_warp_t *w, uint32_t lane, uint64_t fmt, uint64_t args, char *out, size_t cap) {
  size_t o = 0;
  uint64_t ap = 0; /* offset in the argument buffer */
  for (;;) {
    char c;
    if (!rd(w, lane, fmt++, &c, 1)) return -1;
    if (!c) break;
    if (c != '%') {
      if (o + 1 < cap) out[o++] = c;
      continue;
    }
    char spec[32] = "%";
    size_t k = 1;
    unsigned lng = 0;
    for (;;) {
      if (!rd(w, lane, fmt++, &c, 1)) return -1;
      if (!c || k + 2 >= sizeof spec) return (int)o;
      if (c == 'l') {
        lng++;
        continue;
      }
      if (c == 'h' || c == 'z' || c == 't' || c == 'j') continue;
      spec[k++] = c;
      if (strchr("diouxXcfFeEgGaAsp%", c)) break;
    }
    spec[k] = 0;
    char buf[512];
    int n = 0;
    if (c == '%') {
      buf[0] = '%';
      n = 1;
    } else {
      unsigned size = strchr("fFeEgGaAsp", c) || lng ? 8 : 4;
      ap = (ap + size - 1) & ~(uint64_t)(size - 1);
      uint64_t v = 0;
      if (!rd(w, lane, args + ap, &v, size)) return -1;
      ap += size;
      if (strchr("fFeEgGaA", c)) {
        double d;
        memcpy(&d, &v, 8);
        n = snprintf(buf, sizeof buf, spec, d);
      } else if (c == 's') {
        char s[256];
        size_t i = 0;
        for (; i + 1 < sizeof s; i++)
          if (!rd(w, lane, v + i, &s[i], 1)) return -1;
          else if (!s[i]) break;
        s[i] = 0;
        n = snprintf(buf, sizeof buf, spec, s);
      } else if (c == 'p') {
        n = snprintf(buf, sizeof buf, spec, (void *)(uintptr_t)v);
      } else {
        /* Integers with their length: rebuild the spec with ll for 8 bytes. */
        char s2[40];
        snprintf(s2, sizeof s2, "%.*sll%c", (int)(k - 1), spec, c);
        bool sgn = c == 'd' || c == 'i';
        if (size == 4) v = sgn ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
        if (c == 'c') n = snprintf(buf, sizeof buf, spec, (int)(unsigned char)v);
        else if (sgn) n = snprintf(buf, sizeof buf, s2, (long long)v);
        else n = snprintf(buf, sizeof buf, s2, (unsigned long long)v);
      }
    }
    for (int i = 0; i < n && i < (int)sizeof buf - 1 && o + 1 < cap; i++) out[o++] = buf[i];
  }
  out[o] = 0;
  return (int)o;
}

/* Lowered call: off = local offset of the format parameter, target = of the
 * argument-buffer parameter, a[3] = of the return value (all per-thread local). */
static void vprintf_exec(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  SIM_FOR_LANES(m, l) {
    uint64_t fmt, args;
    if (!rd(w, l, SIM_WIN_LOCAL + (uint64_t)in->off, &fmt, 8) ||
        !rd(w, l, SIM_WIN_LOCAL + in->target, &args, 8))
      return;
    char line[2048];
    int n = format_lane(w, l, fmt, args, line, sizeof line);
    if (n < 0) return;
    fwrite(line, 1, (size_t)n, stdout);
    int32_t *ret = sim_interp_resolve(w, FT_PTX_SP_LOCAL, l, in->a[3], 4, true);
    if (!ret) return;
    memcpy(ret, &n, 4);
  }
}

sim_exec_fn sim_choose_printf(void) { return vprintf_exec; }

/* Reads a string at a generic address (truncated to cap), false after a fault. */
static bool rd_str(sim_warp_t *w, uint32_t lane, uint64_t addr, char *out, size_t cap) {
  size_t i = 0;
  for (; i + 1 < cap; i++) {
    if (!rd(w, lane, addr + i, &out[i], 1)) return false;
    if (!out[i]) return true;
  }
  out[i] = 0;
  return true;
}

#define SIM_CUDA_ERROR_ASSERT 710

/* Device assert: each failing lane prints what a GPU prints, then the launch fails
 * with CUDA_ERROR_ASSERT (sticky, as on a GPU). Lowered call: off, target, a[1],
 * a[2], a[3] = local offsets of message, file, line, function, charSize. */
static void assertfail_exec(sim_warp_t *w, const sim_insn_t *in, uint32_t m) {
  const sim_grid_t *g = w->blk->g;
  const sim_block_t *b = w->blk;
  uint32_t first = (uint32_t)__builtin_ctz(m);
  char msg[256] = "", file[256] = "", func[256] = "";
  SIM_FOR_LANES(m, l) {
    uint64_t pm, pf, pfn;
    uint32_t line;
    if (!rd(w, l, SIM_WIN_LOCAL + (uint64_t)in->off, &pm, 8) || !rd(w, l, SIM_WIN_LOCAL + in->target, &pf, 8) ||
        !rd(w, l, SIM_WIN_LOCAL + in->a[1], &line, 4) || !rd(w, l, SIM_WIN_LOCAL + in->a[2], &pfn, 8) ||
        !rd_str(w, l, pm, msg, sizeof msg) || !rd_str(w, l, pf, file, sizeof file) ||
        !rd_str(w, l, pfn, func, sizeof func))
      return;
    unsigned t = w->id * 32 + l;
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line, func,
            b->ctaid[0], b->ctaid[1], b->ctaid[2], t % g->block[0], t / g->block[0] % g->block[1],
            t / (g->block[0] * g->block[1]), msg);
  }
  w->active = 1u << first; /* the fault names the first failing thread */
  sim_interp_fault(w, SIM_CUDA_ERROR_ASSERT, "device-side assert at PTX line %u", in->line);
}

sim_exec_fn sim_choose_assertfail(void) { return assertfail_exec; }
