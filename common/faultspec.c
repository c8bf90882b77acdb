/* faultspec.c: the one parser of the fault grammar (faultspec.h), compiled into
 * libgpuft.so, the simulator and the launcher alike. */
#define _GNU_SOURCE
#include "faultspec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nearest.h"

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...) {
  if (err && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static int u64_of(const char *s, uint64_t *out) {
  if (!*s || *s == '-' || *s == '+' || *s == ' ') return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

static int i64_of(const char *s, int64_t *out) {
  if (!*s || *s == ' ') return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 0);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

/* at=<event>:<k> (or the older before=). key: how the user spelt it. */
static int parse_event(const char *key, char *v, ftc_fault_t *f, char *err, size_t cap) {
  if (f->at) return fail(err, cap, "%s=%s: a second event (one fault has one)", key, v);
  char *colon = strrchr(v, ':');
  if (!colon)
    return fail(err, cap, "%s=%s: the event needs its count: launch:<kernel>:<k>, d2h:<k>, h2d:<k>, call:<n> or sync:<k>",
                key, v);
  *colon = 0;
  const char *kind = v, *num = colon + 1;
  int rc = u64_of(num, &f->k);
  if (!strncmp(kind, "launch:", 7) || !strcmp(kind, "launch")) {
    if (strlen(kind) <= 7)
      return fail(err, cap, "%s=%s:%s: launch:<kernel>:<k> needs a kernel-name substring and a count",
                  key, kind, num);
    if (strlen(kind + 7) >= sizeof f->kernel)
      return fail(err, cap, "%s=launch:...: the kernel-name substring is too long (at most %zu characters)",
                  key, sizeof f->kernel - 1);
    strcpy(f->kernel, kind + 7);
    f->at = FTC_AT_LAUNCH;
  } else if (!strcmp(kind, "d2h")) {
    f->at = FTC_AT_D2H;
  } else if (!strcmp(kind, "h2d")) {
    f->at = FTC_AT_H2D;
  } else if (!strcmp(kind, "call")) {
    f->at = FTC_AT_CALL;
  } else if (!strcmp(kind, "sync")) {
    f->at = FTC_AT_SYNC;
  } else {
    return fail(err, cap, "%s=%s:%s: the event is launch:<kernel>:<k>, d2h:<k>, h2d:<k>, call:<n> or sync:<k>",
                key, kind, num);
  }
  if (rc || f->k == 0)
    return fail(err, cap, "%s=%s:%s: the count must be a number from 1 (the first such event is 1)", key, kind, num);
  return 0;
}

/* target=arg:<i>[.<byte>]|src|dst|random|addr:<a>; old: arg=<i>, addr=<a>, src, dst. */
static int parse_target(const char *tok, const char *v, ftc_fault_t *f, char *err, size_t cap) {
  if (f->target) return fail(err, cap, "%s: a second target (one fault has one)", tok);
  uint64_t u;
  if (!strncmp(v, "arg:", 4) || !strncmp(v, "arg=", 4)) {
    char num[32];
    snprintf(num, sizeof num, "%s", v + 4);
    char *dot = strchr(num, '.');
    f->field = -1;
    if (dot) {
      *dot = 0;
      if (u64_of(dot + 1, &u) || u > 4096 - 8)
        return fail(err, cap, "%s: arg:<i>.<byte>: the byte of the pointer inside argument <i> is a number in 0..4088",
                    tok);
      f->field = (int)u;
    }
    if (u64_of(num, &u) || u >= 4096)
      return fail(err, cap, "%s: arg:<i> needs the argument's index (0 is the first)", tok);
    f->arg = (int)u;
    f->target = FTC_TG_ARG;
  } else if (!strncmp(v, "addr:", 5) || !strncmp(v, "addr=", 5)) {
    if (u64_of(v + 5, &u) || !u) return fail(err, cap, "%s: addr:<a> needs a device address", tok);
    f->addr = u;
    f->target = FTC_TG_ADDR;
  } else if (!strcmp(v, "src")) {
    f->target = FTC_TG_SRC;
  } else if (!strcmp(v, "dst")) {
    f->target = FTC_TG_DST;
  } else if (!strcmp(v, "random")) {
    f->target = FTC_TG_RANDOM;
  } else {
    return fail(err, cap, "%s: the target is arg:<i>[.<byte>], src, dst, random or addr:<a>", tok);
  }
  return 0;
}

/* bit=<b>[+<b>...] (max: 1023 here, 7 for the older bits=). */
static int parse_bits(const char *tok, char *v, int max, ftc_fault_t *f, char *err, size_t cap) {
  if (f->nbit) return fail(err, cap, "%s: bits named twice", tok);
  char *save = NULL;
  for (char *b = strtok_r(v, "+", &save); b; b = strtok_r(NULL, "+", &save)) {
    uint64_t u;
    if (u64_of(b, &u) || u > (uint64_t)max)
      return fail(err, cap, "%s: bit numbers are 0..%d joined by + (bit b is bit b%%8 of the byte at offset + b/8)",
                  tok, max);
    for (int i = 0; i < f->nbit; i++)
      if (f->bit[i] == (int)u) return fail(err, cap, "%s: bit %d is named twice", tok, (int)u);
    if (f->nbit == FTC_MAX_BITS) return fail(err, cap, "%s: at most %d bits", tok, FTC_MAX_BITS);
    f->bit[f->nbit++] = (int)u;
  }
  if (!f->nbit) return fail(err, cap, "%s: names no bit", tok);
  return 0;
}

static const char *const keys[] = {"at", "target", "bits", "bit", "offset", "seed", "stuck"};
/* bits= of each model, by FTC_MODEL_*, and the unit it strikes in */
static const char *const model_names[] = {"", "byte", "word", "sector", "zero"};
static const unsigned model_unit[] = {FTC_BLOCK, 1, 4, 32, FTC_BLOCK};

int ftc_fault_parse(const char *spec, ftc_fault_t *f, char *err, size_t cap) {
  memset(f, 0, sizeof *f);
  f->nbits = 1;
  f->seed = 1;
  f->field = -1;
  f->offset = -1;
  char buf[512];
  if (!spec || !*spec) return fail(err, cap, "an empty fault");
  if (strlen(spec) >= sizeof buf) return fail(err, cap, "a fault longer than %zu characters", sizeof buf - 1);
  strcpy(buf, spec);
  if (strchr(spec, ';'))
    return fail(err, cap, "\"%s\": ';' separates faults; this parses one at a time", spec);
  /* the older spelling: before= says that bits= names bit numbers */
  int legacy = !strncmp(spec, "before=", 7) || strstr(spec, ",before=") != NULL;
  f->old_spelling = legacy;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char whole[512];
    snprintf(whole, sizeof whole, "%s", tok);
    char *eq = strchr(tok, '=');
    char *v = eq ? eq + 1 : NULL;
    if (eq) *eq = 0;
    int rc;
    if (!strcmp(tok, "at") || !strcmp(tok, "before")) {
      rc = v ? parse_event(tok, v, f, err, cap) : -1;
    } else if (!strcmp(tok, "target")) {
      rc = parse_target(whole, v, f, err, cap);
    } else if ((!strcmp(tok, "arg") || !strcmp(tok, "addr")) && v) { /* older: arg=<i>, addr=<a> */
      rc = parse_target(whole, whole, f, err, cap);
    } else if ((!strcmp(tok, "src") || !strcmp(tok, "dst")) && !v) { /* older: a bare src, dst */
      rc = parse_target(whole, tok, f, err, cap);
    } else if (!strcmp(tok, "stuck") && !v) {
      if (f->stuck) return fail(err, cap, "stuck: given twice");
      f->stuck = 1;
      rc = 0;
    } else if (!v) {
      int near = ftc_nearest(tok, keys, (int)(sizeof keys / sizeof *keys));
      return fail(err, cap, "\"%s\": a field is <key>=<value>%s%s%s", whole, near >= 0 ? " (did you mean " : "",
                  near >= 0 ? keys[near] : "", near >= 0 ? "=...?)" : "");
    } else if (!strcmp(tok, "bits") && legacy) {
      rc = parse_bits(whole, v, 7, f, err, cap);
    } else if (!strcmp(tok, "bits")) {
      uint64_t u;
      if (f->have_nbits) return fail(err, cap, "%s: bits= given twice", whole);
      f->have_nbits = 1;
      rc = 0;
      for (int m = FTC_MODEL_BYTE; m <= FTC_MODEL_ZERO; m++)
        if (!strcmp(v, model_names[m])) f->model = m;
      if (f->model) continue;
      f->burst = !strncmp(v, "burst:", 6);
      if (u64_of(f->burst ? v + 6 : v, &u) || u < 1 || u > (f->burst ? 64u : 2u))
        return fail(err, cap, "%s: bits= is how many bits: 1, 2 (two in one 128-byte block) or burst:<k> "
                              "(k adjacent bits, 1..64), or a model: byte, word, sector (a random pattern "
                              "of that aligned unit) or zero (a 128-byte block zeroed); bit=<b> names "
                              "the bits themselves", whole);
      f->nbits = (int)u;
    } else if (!strcmp(tok, "bit")) {
      rc = parse_bits(whole, v, 1023, f, err, cap);
    } else if (!strcmp(tok, "offset")) {
      if (f->have_offset) return fail(err, cap, "%s: offset= given twice", whole);
      if (i64_of(v, &f->offset)) return fail(err, cap, "%s: offset=<byte> needs a number", whole);
      f->have_offset = 1;
      rc = 0;
    } else if (!strcmp(tok, "seed")) {
      rc = u64_of(v, &f->seed) ? fail(err, cap, "%s: seed=<s> needs a non-negative number", whole) : 0;
    } else {
      int near = ftc_nearest(tok, keys, (int)(sizeof keys / sizeof *keys));
      return fail(err, cap, "%s: unknown field \"%s\"%s%s%s", whole, tok, near >= 0 ? " (did you mean " : "",
                  near >= 0 ? keys[near] : "", near >= 0 ? "=?)" : "");
    }
    if (rc) return rc;
  }
  if (!f->at) return fail(err, cap, "no at=<event> (when the fault strikes)");
  if (f->model && f->nbit)
    return fail(err, cap, "bits=%s with bit=: the model draws its bits from the seed; bit= names single "
                          "bits (give one or the other)", model_names[f->model]);
  if (f->target == FTC_TG_ARG && f->at != FTC_AT_LAUNCH)
    return fail(err, cap, "target=arg:%d: an argument exists only at at=launch:<kernel>:<k>", f->arg);
  if ((f->target == FTC_TG_SRC || f->target == FTC_TG_DST) && f->at != FTC_AT_D2H && f->at != FTC_AT_H2D)
    return fail(err, cap, "target=%s: a copy's source or destination exists only at at=d2h:<k> or at=h2d:<k>",
                f->target == FTC_TG_SRC ? "src" : "dst");
  return 0;
}

void ftc_fault_event_text(const ftc_fault_t *f, char *out, size_t cap) {
  static const char *const what[] = {"?", "launch", "device-to-host copy", "host-to-device copy",
                                     "driver call", "synchronisation"};
  if (f->at == FTC_AT_LAUNCH)
    snprintf(out, cap, "launch %ju of a kernel whose name contains \"%s\"", (uintmax_t)f->k, f->kernel);
  else
    snprintf(out, cap, "%s %ju", what[f->at >= 0 && f->at <= FTC_AT_SYNC ? f->at : 0], (uintmax_t)f->k);
}

uint64_t ftc_mix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void ftc_model_text(const ftc_fault_t *f, char *out, size_t cap) {
  if (f->model) snprintf(out, cap, "%s", model_names[f->model]);
  else if (f->burst) snprintf(out, cap, "burst:%d", f->nbits);
  else snprintf(out, cap, "%d", f->nbits);
}

/* The bits of bits=1|2|burst:<k> and bit=, in the block [lo, lo+len) of the window
 * (bit b of the block: bit b%8 of its byte b/8); off is the byte chosen. The draws
 * are those gpuft's injector always made, so seeds keep their faults. */
static void place_bits(const ftc_fault_t *f, uint64_t *seed, uint64_t off, uint64_t lo, uint64_t len,
                       uint8_t *m) {
  unsigned nbits = (unsigned)len * 8, at = (unsigned)((off - lo) * 8);
  if (f->nbit > 1) { /* exactly the bits named, wrapping inside the block */
    for (int i = 0; i < f->nbit; i++) {
      unsigned b = (at + (unsigned)f->bit[i]) % nbits;
      m[b / 8] |= (uint8_t)(1u << (b % 8));
    }
    return;
  }
  unsigned first = (at + (f->nbit ? (unsigned)f->bit[0] : (unsigned)(ftc_mix(seed) % 8))) % nbits;
  for (int i = 0; i < f->nbits; i++) {
    unsigned b;
    if (f->burst) b = (first + (unsigned)i) % nbits; /* adjacent bits */
    else if (i == 0) b = first;
    else if (nbits > 1) do b = (unsigned)(ftc_mix(seed) % nbits); while (b == first);
    else break;
    m[b / 8] ^= (uint8_t)(1u << (b % 8));
  }
}

int ftc_fault_place(const ftc_fault_t *f, uint64_t addr, uint64_t size, uint64_t *at, ftc_hit_t *hits) {
  if (!size) return 0;
  uint64_t seed = f->seed;
  uint64_t off = f->have_offset && f->offset >= 0 ? (uint64_t)f->offset : ftc_mix(&seed) % size;
  if (off >= size) off = size - 1;
  *at = off;
  /* the unit holding the byte, aligned by address, clipped to the window */
  uint64_t unit = model_unit[f->model], a0 = (addr + off) / unit * unit;
  uint64_t lo = a0 < addr ? 0 : a0 - addr, hi = a0 + unit - addr < size ? a0 + unit - addr : size;
  uint8_t m[FTC_BLOCK] = {0};
  if (f->model == FTC_MODEL_BITS) {
    place_bits(f, &seed, off, lo, hi - lo, m);
  } else if (f->model == FTC_MODEL_ZERO) {
    memset(m, 0xff, hi - lo);
  } else { /* a random pattern of the unit's bits, at least two of them (one is bits=1) */
    int n = 0;
    for (int tries = 0; n < 2 && tries < 64; tries++) {
      n = 0;
      for (uint64_t i = 0; i < hi - lo; i += 8) {
        uint64_t r = ftc_mix(&seed);
        for (uint64_t j = 0; j < 8 && i + j < hi - lo; j++) {
          m[i + j] = (uint8_t)(r >> (8 * j));
          n += __builtin_popcount(m[i + j]);
        }
      }
    }
    if (n < 2) m[0] = 3; /* 64 draws with fewer than two bits: not with this generator */
  }
  int nh = 0;
  for (uint64_t i = 0; i < hi - lo; i++)
    if (m[i]) hits[nh++] = (ftc_hit_t){lo + i, m[i]};
  return nh;
}
