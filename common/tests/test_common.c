/* test_common.c: the fault grammar parsed once (common/faultspec.c): each key has one
 * meaning, errors name the field and what it takes, the older spelling still reads;
 * and the nearest-name search behind every "did you mean". */
#include <string.h>

#include "faultspec.h"
#include "nearest.h"
#include "runner.h"

#define HAS(text, needle)                                                                  \
  do {                                                                                     \
    if (!strstr((text), (needle))) FT_FAIL_("\"%s\" not in: %s", (needle), (text));        \
  } while (0)

TEST_IMPL(faultspec_one_meaning_per_key) {
  ftc_fault_t f;
  char err[320] = "";
  /* bit= names bits: b is bit b%8 of the byte at offset + b/8, up to 1023 (the
   * simulator's parser stopped at 7, gpuft's at 1023) */
  ASSERT_EQ(ftc_fault_parse("at=launch:sgemm:2,target=arg:1,offset=100,bit=3+9+1023", &f, err, sizeof err), 0);
  ASSERT_EQ(f.at, FTC_AT_LAUNCH);
  ASSERT_STR_EQ(f.kernel, "sgemm");
  ASSERT_EQ(f.k, (uint64_t)2);
  ASSERT_EQ(f.target, FTC_TG_ARG);
  ASSERT_EQ(f.arg, 1);
  ASSERT_EQ(f.field, -1);
  ASSERT_EQ(f.offset, 100);
  ASSERT_EQ(f.nbit, 3);
  ASSERT_EQ(f.bit[1], 9);
  ASSERT_EQ(f.bit[2], 1023);
  /* bits= counts bits, everywhere */
  ASSERT_EQ(ftc_fault_parse("at=d2h:1,target=src,bits=2,seed=7", &f, err, sizeof err), 0);
  ASSERT_EQ(f.nbits, 2);
  ASSERT_EQ(f.nbit, 0);
  ASSERT_EQ(f.seed, (uint64_t)7);
  ASSERT_EQ(ftc_fault_parse("at=call:5,bits=burst:8", &f, err, sizeof err), 0);
  ASSERT_EQ(f.burst, 1);
  ASSERT_EQ(f.nbits, 8);
  ASSERT_EQ(f.at, FTC_AT_CALL);
  /* a struct field: the pointer at byte 8 of argument 0 */
  ASSERT_EQ(ftc_fault_parse("at=launch:k:1,target=arg:0.8,offset=4,bit=0", &f, err, sizeof err), 0);
  ASSERT_EQ(f.field, 8);
  /* the simulator's events and targets read the same way */
  ASSERT_EQ(ftc_fault_parse("at=sync:3,target=addr:0x1000,offset=0,bit=7,stuck", &f, err, sizeof err), 0);
  ASSERT_EQ(f.at, FTC_AT_SYNC);
  ASSERT_EQ(f.addr, (uint64_t)0x1000);
  ASSERT_EQ(f.stuck, 1);
  return TEST_OK;
}

TEST_IMPL(faultspec_errors_name_the_field) {
  static const struct {
    const char *spec, *says;
  } cases[] = {
      {"at=d2h:1,bits=3", "bits=3: bits= is how many bits: 1, 2"},
      {"at=launch:step", "at=launch:step: launch:<kernel>:<k> needs a kernel-name substring and a count"},
      {"at=launch:step:0", "at=launch:step:0: the count must be a number from 1"},
      {"at=h2d:x,target=dst", "at=h2d:x: the count must be a number from 1"},
      {"at=later:2", "at=later:2: the event is launch:<kernel>:<k>, d2h:<k>"},
      {"at=d2h:1,tarket=src", "unknown field \"tarket\" (did you mean target=?)"},
      {"at=d2h:1,bit=1024", "bit=1024: bit numbers are 0..1023"},
      {"at=d2h:1,bit=3+3", "bit 3 is named twice"},
      {"at=d2h:1,target=arg:0", "target=arg:0: an argument exists only at at=launch"},
      {"at=launch:k:1,target=src", "target=src: a copy's source or destination exists only at"},
      {"target=src,offset=1", "no at=<event>"},
      {"at=d2h:1,target=elsewhere", "target=elsewhere: the target is arg:<i>[.<byte>], src, dst, random or addr:<a>"},
      {"at=d2h:1,offset=zz", "offset=zz: offset=<byte> needs a number"},
      {"at=d2h:1;at=d2h:2", "';' separates faults"}, /* one fault at a time */
      {"at=d2h:1,bits=words", "bits=words: bits= is how many bits: 1, 2"},
      {"at=d2h:1,bits=sector,bit=3", "bits=sector with bit=: the model draws its bits"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ftc_fault_t f;
    char err[320] = "";
    if (ftc_fault_parse(cases[i].spec, &f, err, sizeof err) == 0) FT_FAIL_("\"%s\" was accepted", cases[i].spec);
    HAS(err, cases[i].says);
  }
  return TEST_OK;
}

TEST_IMPL(faultspec_older_spelling) {
  ftc_fault_t f;
  char err[320] = "";
  /* with before=, bits= names bit numbers 0..7 as it always did */
  ASSERT_EQ(ftc_fault_parse("before=launch:sgemm:1,arg=0,offset=1000,bits=3+5", &f, err, sizeof err), 0);
  ASSERT_EQ(f.at, FTC_AT_LAUNCH);
  ASSERT_EQ(f.target, FTC_TG_ARG);
  ASSERT_EQ(f.nbit, 2);
  ASSERT_EQ(f.bit[0], 3);
  ASSERT_EQ(f.have_nbits, 0);
  ASSERT_EQ(ftc_fault_parse("before=d2h:1,src,offset=0,bits=0", &f, err, sizeof err), 0);
  ASSERT_EQ(f.target, FTC_TG_SRC);
  ASSERT_NE(ftc_fault_parse("before=d2h:1,src,offset=0,bits=8", &f, err, sizeof err), 0);
  HAS(err, "bit numbers are 0..7");
  return TEST_OK;
}

/* The fault models land where their names say, in both injectors' one placement:
 * inside the window, inside one aligned unit (by address), with the bits each model
 * promises; in a loop over models, seeds, window starts and sizes. */
TEST_IMPL(faultspec_models_placed) {
  static const struct {
    const char *bits;
    unsigned unit; /* the aligned unit every changed byte lies in */
    int min_bits, max_bits, adjacent;
  } models[] = {{"1", 128, 1, 1, 0},      {"2", 128, 2, 2, 0},        {"burst:5", 128, 5, 5, 1},
                {"byte", 1, 2, 8, 0},     {"word", 4, 2, 32, 0},      {"sector", 32, 2, 256, 0},
                {"zero", 128, 8, 1024, 0}};
  static const uint64_t starts[] = {0x10000, 0x10000 + 40, 0x10000 + 127};
  static const uint64_t sizes[] = {1, 8, 100, 4096};
  for (size_t m = 0; m < sizeof models / sizeof *models; m++)
    for (uint64_t seed = 1; seed <= 40; seed++)
      for (size_t a = 0; a < sizeof starts / sizeof *starts; a++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
          char spec[96], err[320] = "";
          snprintf(spec, sizeof spec, "at=d2h:1,target=src,bits=%s,seed=%ju", models[m].bits, (uintmax_t)seed);
          ftc_fault_t f;
          ASSERT_EQ(ftc_fault_parse(spec, &f, err, sizeof err), 0);
          ftc_hit_t h[FTC_MAX_HITS], h2[FTC_MAX_HITS];
          uint64_t at, at2, w = starts[a], n = sizes[z];
          int nh = ftc_fault_place(&f, w, n, &at, h);
          ASSERT(nh >= 1);
          ASSERT(at < n);
          ASSERT_EQ(ftc_fault_place(&f, w, n, &at2, h2), nh); /* a function of the text alone */
          for (int i = 0; i < nh; i++) ASSERT(h[i].byte == h2[i].byte && h[i].mask == h2[i].mask);
          int bits = 0;
          uint64_t unit0 = (w + h[0].byte) / models[m].unit;
          for (int i = 0; i < nh; i++) {
            ASSERT(h[i].byte < n);                                   /* the program's data only */
            ASSERT_EQ((w + h[i].byte) / models[m].unit, unit0);      /* one aligned unit */
            ASSERT(i == 0 || h[i].byte > h[i - 1].byte);
            bits += __builtin_popcount(h[i].mask);
          }
          ASSERT_EQ((w + at) / models[m].unit, unit0); /* around the byte chosen */
          int room = (int)(n < 128 ? n : 128) * 8;       /* a small window holds fewer bits */
          int min = models[m].min_bits < room ? models[m].min_bits : room;
          if (bits < min || bits > models[m].max_bits)
            FT_FAIL_("%s in [%#jx, +%ju): %d bits", spec, (uintmax_t)w, (uintmax_t)n, bits);
          if (models[m].adjacent && nh > 1 && n >= 128 && (w % 128) == 0) /* no wrap: consecutive bytes */
            ASSERT(h[nh - 1].byte - h[0].byte <= 1 || h[nh - 1].byte - h[0].byte >= 126);
        }
  /* offset= chooses the byte (clipped to the window), as in GPUFT_INJECT */
  ftc_fault_t f;
  char err[320];
  ftc_hit_t h[FTC_MAX_HITS];
  uint64_t at;
  ASSERT_EQ(ftc_fault_parse("at=d2h:1,target=src,bits=word,offset=37,seed=2", &f, err, sizeof err), 0);
  int nh = ftc_fault_place(&f, 0x20000, 4096, &at, h);
  ASSERT_EQ(at, (uint64_t)37);
  for (int i = 0; i < nh; i++) ASSERT(h[i].byte >= 36 && h[i].byte < 40);
  ASSERT_EQ(ftc_fault_parse("at=d2h:1,target=src,offset=8,bit=9", &f, err, sizeof err), 0);
  ASSERT_EQ(ftc_fault_place(&f, 0x20000, 64, &at, h), 1);
  ASSERT_EQ(h[0].byte, (uint64_t)9);
  ASSERT_EQ(h[0].mask, 2);
  ASSERT_EQ(ftc_fault_parse("at=d2h:1,target=src,bits=zero,offset=5000", &f, err, sizeof err), 0);
  ASSERT_EQ(ftc_fault_place(&f, 0x20000, 4096, &at, h), 128); /* the last block, whole */
  ASSERT_EQ(at, (uint64_t)4095);
  ASSERT_EQ(h[0].byte, (uint64_t)3968);
  char text[32];
  ftc_model_text(&f, text, sizeof text);
  ASSERT_STR_EQ(text, "zero");
  return TEST_OK;
}

TEST_IMPL(nearest_names) {
  static const char *const names[] = {"MODE", "CKPT_MAX", "SHADOW_MAX", "LOG", "REPORT"};
  ASSERT_EQ(ftc_nearest("MOD", names, 5), 0);
  ASSERT_EQ(ftc_nearest("mode", names, 5), 0);
  ASSERT_EQ(ftc_nearest("CKPT_MX", names, 5), 1);
  ASSERT_EQ(ftc_nearest("REPROT", names, 5), 4);
  ASSERT_EQ(ftc_nearest("TOTALLY_UNRELATED", names, 5), -1);
  char out[32];
  ASSERT_EQ(ftc_nearest_choice("corect", "detect|correct|recover", out, sizeof out), 0);
  ASSERT_STR_EQ(out, "correct");
  ASSERT_EQ(ftc_nearest_choice("fast", "detect|correct|recover", out, sizeof out), -1);
  return TEST_OK;
}
