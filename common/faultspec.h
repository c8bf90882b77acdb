/* faultspec.h: THE fault grammar, parsed once (faultspec.c) for gpuft's GPUFT_INJECT
 * (shim/engine/inject.c), the simulator's SIMCUDA_FLIP and simcudaInject
 * (sim/driver/mem/inject.c) and `gpuft campaign` (tools/campaign.c): one meaning per key.
 * Each injector then refuses, by name, the parts it cannot do. */
#ifndef FTC_FAULTSPEC_H
#define FTC_FAULTSPEC_H

#include <stddef.h>
#include <stdint.h>

/* The grammar, as every message shows it. */
#define FTC_FAULT_GRAMMAR                                                                    \
  "at=launch:<kernel>:<k>|d2h:<k>|h2d:<k>|call:<n>|sync:<k>,"                                \
  "target=arg:<i>[.<byte>]|src|dst|random|addr:<a>,"                                         \
  "bits=1|2|burst:<k>|byte|word|sector|zero,bit=<b>[+<b>...],offset=<byte>,seed=<s>[,stuck]"

enum { FTC_AT_NONE, FTC_AT_LAUNCH, FTC_AT_D2H, FTC_AT_H2D, FTC_AT_CALL, FTC_AT_SYNC };
enum { FTC_TG_NONE, FTC_TG_RANDOM, FTC_TG_ARG, FTC_TG_SRC, FTC_TG_DST, FTC_TG_ADDR };
/* The fault models (bits=): single, double and adjacent-bit flips in one 128-byte
 * block; a random pattern of at least two bits of one aligned byte, 32-bit word or
 * 32-byte sector (multi-bit errors cluster in field data); a 128-byte block zeroed. */
enum { FTC_MODEL_BITS, FTC_MODEL_BYTE, FTC_MODEL_WORD, FTC_MODEL_SECTOR, FTC_MODEL_ZERO };
#define FTC_MAX_BITS 16
#define FTC_BLOCK 128 /* the block bits= counts in (gpuft's code block) */

typedef struct {
  int at;              /* FTC_AT_*: the event */
  char kernel[128];    /* launch: a substring of the kernel's name */
  uint64_t k;          /* the k-th such event (call: the n-th driver call), from 1 */
  int target;          /* FTC_TG_*; NONE when not given */
  int arg, field;      /* arg:<i>[.<byte>]: argument i, or the pointer at that byte of it (-1: none) */
  uint64_t addr;       /* addr:<a> */
  int nbits, burst;    /* bits=: how many bits (1, 2: two in one 128-byte block; burst:<k>: k adjacent) */
  int model;           /* FTC_MODEL_*: bits=byte|word|sector|zero (BITS: a count, above) */
  int have_nbits;
  int bit[FTC_MAX_BITS], nbit; /* bit=: bit b is bit b%8 of the byte at offset + b/8, b in 0..1023 */
  int64_t offset;      /* offset=: the byte, from the target's pointer */
  int have_offset;
  uint64_t seed;       /* seed=: what is not given is drawn from it (default 1) */
  int stuck;           /* stuck: the bits stay at their new value after every write (simulator) */
  int old_spelling;    /* written with before= (bits= named bit numbers) */
} ftc_fault_t;

/* One fault (no ';'). Returns 0, or -1 with err (size cap) naming the field and what
 * it takes, e.g. "bits=3: a count of bits: 1, 2 or burst:<k> (bit=3 names bit 3)".
 * The older spelling "before=<event>,arg=<i>|src|dst|addr=<a>,bits=<b>[+<b>...]" is
 * read as it always was: with before=, bits= names bit numbers (0..7). */
int ftc_fault_parse(const char *spec, ftc_fault_t *f, char *err, size_t cap);

/* Where a fault lands: one byte of the window and the bits changed in it (flipped;
 * for FTC_MODEL_ZERO, cleared). */
typedef struct {
  uint64_t byte; /* from the window's start */
  uint8_t mask;
} ftc_hit_t;
#define FTC_MAX_HITS FTC_BLOCK

/* Places fault f in a window of `size` bytes of device memory starting at address
 * `addr` (an allocation, or the bytes a copy reads): the byte (offset=, clipped to the
 * last byte, or drawn from seed=), then the bits of the model around it, all inside
 * the window; units and blocks are aligned by address. Both injectors call it, so one
 * text with one seed flips the same bits in both. Fills hits (by byte, at most
 * FTC_MAX_HITS), sets *at to the byte chosen; returns the number of hits (0: size 0). */
int ftc_fault_place(const ftc_fault_t *f, uint64_t addr, uint64_t size, uint64_t *at, ftc_hit_t *hits);

/* splitmix64: the draws of faults and campaigns. */
uint64_t ftc_mix(uint64_t *state);

/* The model in the grammar's words: "1", "burst:4", "sector", ... */
void ftc_model_text(const ftc_fault_t *f, char *out, size_t cap);

/* The event in words, for messages: "launch 2 of a kernel matching \"sgemm\"". */
void ftc_fault_event_text(const ftc_fault_t *f, char *out, size_t cap);

#endif
