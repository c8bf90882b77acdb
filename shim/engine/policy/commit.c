/* commit.c: reading the ledger (DESIGN.md 6.3). Results of finished jobs are
 * processed in issue order: single-bit errors corrected in place, hit code words
 * repaired, uncorrectable groups restored from a valid checkpoint. When damaged
 * data was consumed during the epoch (read by a kernel, copied), the epoch is
 * rolled back and replayed (GPUFT_MODE=recover), at most GPUFT_MAX_RETRIES times;
 * a read-only argument whose "damage" the replay reproduces bit for bit was
 * written by its kernel and becomes written. Anything left is reported per
 * GPUFT_ON_FAIL. */
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "access.h"
#include "quarantine.h"

static CUresult g_verdict = CUDA_SUCCESS;
/* Damaged data was used, but the commit that found it ran inside an operation:
 * the next commit at a synchronisation point replays. */
static int g_pending_groups;
static int g_replay_snap; /* that replay starts from the snapshot (snapshot.c) */
static uint64_t g_replay_gen; /* replays done: a thread that waited sees whether one ran */
/* Jobs in the ledger, as last seen (a hint for the lock-free fast path). */
#define g_jobs_hint ft_jobs_pending_hint

/* ---- one final outcome per damaged group ----
 * When found, a damaged group is repaired where it lies (counted corrected, or
 * recovered and restored_from_checkpoint) or not (uncorrectable). A group whose
 * damaged bytes had been used (read by a kernel, copied) gets its final outcome when
 * the epoch is settled: recovered if a replay recomputed what used it, else
 * uncorrectable; the count it was given when found is moved there, and its events
 * follow. So detected == corrected + recovered + uncorrectable (docs/report.md). */
enum { IN_CORRECTED, IN_RESTORED, IN_UNCORRECTABLE, IN_NONE, IN_KINDS };
#define MAX_USED 64
static uint64_t g_used_by[IN_KINDS]; /* used groups awaiting their outcome, by count given */
static struct {
  uint64_t alloc, group;
} g_used[MAX_USED];
static int g_nused;
static int g_used_ev0 = -1; /* first event that may belong to them */
static int g_commit_ev0;    /* events when the current commit began */

static void used_group(const ft_alloc_t *a, uint64_t g, int outcome);

/* A bounded set of places seen (allocation, position, bit): whether one was seen
 * already, adding it if not (beyond cap: never seen, not kept). */
typedef struct {
  uint64_t alloc, at;
  int bit;
} seen_t;
static int seen_add(seen_t *set, int *n, int cap, uint64_t alloc, uint64_t at, int bit) {
  for (int i = 0; i < *n; i++)
    if (set[i].alloc == alloc && set[i].at == at && set[i].bit == bit) return 1;
  if (*n < cap) set[(*n)++] = (seen_t){alloc, at, bit};
  return 0;
}

/* ---- permanent faults: the same bit corrected again after a rewrite ---- */
#define MAX_SEEN 256
static seen_t g_seen[MAX_SEEN];
static int g_nseen;

static int seen_before(const ft_alloc_t *a, uint64_t off, int bit) {
  return seen_add(g_seen, &g_nseen, MAX_SEEN, a->id, off, bit);
}

static const char *why_name(int why) {
  static const char *const n[] = {"after launch (read-only argument)", "before launch (written argument)",
                                  "device-to-host copy", "device-to-device copy source",
                                  "at rest, before a write re-encoded it",
                                  "before launch (read-only, verified before use)"};
  return why >= 0 && why < (int)(sizeof n / sizeof *n) ? n[why] : "?";
}

/* By id and address, not by record: the allocation may have been freed since. */
static void fail(uint64_t id, CUdeviceptr base, uint64_t off, const char *what) FT_REQUIRES(ft_eng_lock) {
  switch ((int)FT_OPT(ON_FAIL)) {
    case FT_ONFAIL_ABORT:
      FT_ERROR("uncorrectable memory error in allocation #%ju (%#llx + %ju): %s; aborting "
               "(GPUFT_ON_FAIL=abort)",
               (uintmax_t)id, (unsigned long long)base, (uintmax_t)off, what);
      abort();
    case FT_ONFAIL_ERROR:
      __atomic_store_n(&g_verdict, CUDA_ERROR_ECC_UNCORRECTABLE, __ATOMIC_RELAXED);
      FT_WARN_CAPPED(8, "uncorrectable memory error in allocation #%ju (%#llx + %ju): %s",
                     (uintmax_t)id, (unsigned long long)base, (uintmax_t)off, what);
      break;
    case FT_ONFAIL_EXIT: {
      /* The process ends, so that the job launcher (mpirun, srun) or the program's
       * own fault tolerance (ULFM, torchft) takes over from a rank that lost data.
       * exit(), not _exit(): the at-exit handlers, gpuft's (the report, the summary)
       * and the program's, run. They take the engine lock, which this commit holds
       * and never resumes to let go. A failure found by the commit at that exit is
       * only logged (exit is not called twice). */
      static int exiting;
      __atomic_store_n(&g_verdict, CUDA_ERROR_ECC_UNCORRECTABLE, __ATOMIC_RELAXED);
      if (__atomic_exchange_n(&exiting, 1, __ATOMIC_ACQ_REL)) {
        FT_WARN_CAPPED(8, "uncorrectable memory error in allocation #%ju (%#llx + %ju): %s",
                       (uintmax_t)id, (unsigned long long)base, (uintmax_t)off, what);
        break;
      }
      FT_ERROR("uncorrectable memory error in allocation #%ju (%#llx + %ju): %s; exiting with "
               "status %d (GPUFT_ON_FAIL=exit)",
               (uintmax_t)id, (unsigned long long)base, (uintmax_t)off, what, FT_ONFAIL_EXIT_STATUS);
      if (ft_obs.lost) ft_obs.lost(); /* the report so far, should the exit not get to write it */
      ft_unlock();
      exit(FT_ONFAIL_EXIT_STATUS);
    }
    default:
      FT_WARN_CAPPED(8, "uncorrectable memory error in allocation #%ju (%#llx + %ju): %s",
                     (uintmax_t)id, (unsigned long long)base, (uintmax_t)off, what);
  }
}

/* ---- groups a replay is to regenerate: do their cells take writes? ----
 * A group of an epoch's output found damaged beyond the code is regenerated by a
 * replay, which writes it again and encodes what it wrote. A bit that does not take
 * writes would come out of the replay as it went in, and the encode after the
 * replay would take it in as data: the program would read it as recovered. So
 * before a replay, with the context idle, each such group is tested: all zeros,
 * then all ones written and read back, its bytes put back. */
#define MAX_REGEN 16
static struct {
  uint64_t id, g;
  CUdeviceptr base;
} g_regen[MAX_REGEN];
static int g_nregen;

static void regen_add(const ft_alloc_t *a, uint64_t g) {
  for (int i = 0; i < g_nregen; i++)
    if (g_regen[i].id == a->id && g_regen[i].g == g) return;
  if (g_nregen < MAX_REGEN) /* (beyond: not tested) */
    g_regen[g_nregen].id = a->id, g_regen[g_nregen].base = a->base, g_regen[g_nregen++].g = g;
}

/* 1 if group g of a holds a bit that does not take writes, 0 if not, -1 if it
 * could not be tested. On d's stream, the context idle. */
static int stuck_cells(ft_dev_t *d, const ft_alloc_t *a, uint64_t g) {
  size_t len = ft_groups_len(a->size, g, g + 1);
  CUdeviceptr p = a->base + ft_group_start(g);
  uint8_t *save = malloc(2 * len);
  if (!save) return -1;
  uint8_t *back = save + len;
  int stuck = 0, ok = ft_real.cuMemcpyDtoHAsync_v2(save, p, len, d->stream) == CUDA_SUCCESS;
  for (int k = 0; ok && k < 2 && !stuck; k++) {
    unsigned char v = k ? 0xff : 0x00;
    ok = ft_real.cuMemsetD8Async(p, v, len, d->stream) == CUDA_SUCCESS &&
         ft_real.cuMemcpyDtoHAsync_v2(back, p, len, d->stream) == CUDA_SUCCESS &&
         ft_own_stream_sync(d->stream) == CUDA_SUCCESS;
    for (size_t i = 0; ok && i < len && !stuck; i++) stuck = back[i] != v;
  }
  ok = ok && ft_real.cuMemcpyHtoDAsync_v2(p, save, len, d->stream) == CUDA_SUCCESS &&
       ft_own_stream_sync(d->stream) == CUDA_SUCCESS;
  free(save);
  return ok ? stuck : -1;
}

/* The first group to regenerate whose cells do not take writes (its allocation in
 * *out), or -1. The list is emptied. */
static int64_t regen_stuck(ft_dev_t *d, ft_alloc_t **out) FT_REQUIRES(ft_eng_lock) {
  int64_t bad = -1;
  for (int i = 0; i < g_nregen && bad < 0; i++) {
    ft_alloc_t *a = ft_reg_find_base(g_regen[i].base);
    if (!a || a->id != g_regen[i].id || a->dev != d) continue;
    if (stuck_cells(d, a, g_regen[i].g) == 1) {
      bad = (int64_t)g_regen[i].g;
      *out = a;
    }
  }
  g_nregen = 0;
  return bad;
}

/* ---- reading and repairing one group, of an allocation or of its shadow ---- */

typedef struct {
  CUdeviceptr data, code; /* where the group's bytes and the code buffer are */
} place_t;

static place_t place_of(const ft_alloc_t *a) { return (place_t){a->base, a->code}; }
static place_t shadow_of(const ft_alloc_t *a) {
  return (place_t){a->shadow, a->shadow + ft_mirror_code_off(a)};
}

static CUresult fetch_group(ft_dev_t *d, const ft_alloc_t *a, place_t pl, uint64_t g,
                            uint8_t *data, size_t *len, uint32_t v[32], uint32_t dd[32],
                            uint32_t l2[4], unsigned *nblk) {
  uint64_t off[6];
  ft_code_group_offsets(a->size, g, off);
  uint64_t start = ft_group_start(g);
  *len = ft_group_len(a->size, g);
  *nblk = ft_group_nblocks(a->size, g);
  CUresult r = ft_real.cuMemcpyDtoHAsync_v2(data, pl.data + start, *len, d->stream);
  if (!r) r = ft_real.cuMemcpyDtoHAsync_v2(v, pl.code + off[0], *nblk * 4, d->stream);
  if (!r) r = ft_real.cuMemcpyDtoHAsync_v2(dd, pl.code + off[1], *nblk * 4, d->stream);
  for (int k = 0; k < 4 && !r; k++)
    r = ft_real.cuMemcpyDtoHAsync_v2(&l2[k], pl.code + off[2 + k], 4, d->stream);
  if (!r) r = ft_own_stream_sync(d->stream);
  return r;
}

/* Write back the words of [0, bytes) that differ (never the whole group: other
 * streams may be writing elsewhere in it), without going past `bytes`. */
static CUresult put_diff(ft_dev_t *d, CUdeviceptr dst, const uint32_t *now, const uint32_t *was,
                         size_t bytes) {
  CUresult r = CUDA_SUCCESS;
  for (size_t i = 0; i * 4 < bytes && r == CUDA_SUCCESS; i++)
    if (now[i] != was[i])
      r = ft_real.cuMemcpyHtoDAsync_v2(dst + i * 4, &now[i], bytes - i * 4 < 4 ? bytes - i * 4 : 4,
                                       d->stream);
  return r;
}

enum { GROUP_CLEAN, GROUP_REPAIRED, GROUP_RESTORED, GROUP_BAD, GROUP_STUCK };

/* Group g at pl, just rewritten, read back: 1 if it now matches its code. */
static int takes_write(ft_dev_t *d, const ft_alloc_t *a, place_t pl, uint64_t g) {
  uint32_t chk[FT_GROUP_BYTES / 4] = {0}, cv[32] = {0}, cd[32] = {0}, cl[4] = {0};
  size_t clen;
  unsigned cn;
  uint64_t ctotal = 1;
  if (fetch_group(d, a, pl, g, (uint8_t *)chk, &clen, cv, cd, cl, &cn) == CUDA_SUCCESS) {
    ft_code_t cc = {clen, cn, 1, cv, cd, &cl[0], &cl[1], &cl[2], &cl[3]};
    ft_verify(chk, clen, &cc, NULL, 0, &ctotal);
  }
  return ctotal == 0;
}

/* Before a repair writes `a` on d's stream: a snapshot copy of it still in flight
 * (snapshot.c) reads it first, as the program's own writes wait for it. */
static void after_snapshot_copy(ft_dev_t *d, const ft_alloc_t *a) {
  CUevent ev = ft_snap_copying(a);
  if (ev) ft_drv.cuStreamWaitEvent(d->stream, ev, 0);
}

/* Repair group g at place pl (the allocation, or its shadow). Returns GROUP_*. */
static int repair_group(ft_dev_t *d, ft_alloc_t *a, place_t pl, uint64_t g, int why) {
  uint32_t data[FT_GROUP_BYTES / 4], data0[FT_GROUP_BYTES / 4];
  uint32_t v[32] = {0}, dv[32] = {0}, l2[4] = {0}, v0[32], dv0[32], l20[4];
  size_t len;
  unsigned nblk;
  int is_shadow = pl.data != a->base;
  const uint64_t at = ft_group_start(g); /* its first byte */
  memset(data, 0, sizeof data);
  if (fetch_group(d, a, pl, g, (uint8_t *)data, &len, v, dv, l2, &nblk) != CUDA_SUCCESS)
    return GROUP_BAD;
  memcpy(data0, data, sizeof data);
  memcpy(v0, v, sizeof v);
  memcpy(dv0, dv, sizeof dv);
  memcpy(l20, l2, sizeof l2);
  /* the group as a buffer of its own: its code is exactly the group's words */
  ft_code_t c = {len, nblk, 1, v, dv, &l2[0], &l2[1], &l2[2], &l2[3]};
  ft_event_t ev[40];
  size_t nev = 0;
  ft_repair_t rep;
  uint64_t total = 0;
  ft_verify(data, len, &c, NULL, 0, &total);
  if (total == 0) {
    ft_st.unconfirmed++;
    return GROUP_CLEAN; /* rewritten meanwhile: nothing left to repair */
  }
  ft_st.detected++;
  const char *where = why_name(why);
  if (FT_OPT(MODE) == FT_MODE_DETECT) {
    /* nothing is repaired, but a single flipped data bit is located (on these local
     * copies only) so that the report names it rather than the group */
    if (!ft_correct(data, len, &c, ev, 40, &nev, &rep) && nev == 1 && ev[0].kind == FT_ACT_DATA_BIT)
      ft_event(a, at + ev[0].offset, ev[0].bit, "data bit", FT_OUT_DETECTED, where);
    else
      ft_event(a, at, -1, "detected", FT_OUT_DETECTED, where);
    return GROUP_BAD;
  }
  if (!ft_correct(data, len, &c, ev, 40, &nev, &rep)) {
    uint64_t o[6];
    ft_code_group_offsets(a->size, g, o);
    if (!is_shadow) after_snapshot_copy(d, a);
    CUresult r = put_diff(d, pl.data + at, data, data0, len);
    if (!r) r = put_diff(d, pl.code + o[0], v, v0, nblk * 4);
    if (!r) r = put_diff(d, pl.code + o[1], dv, dv0, nblk * 4);
    for (int k = 0; k < 4 && !r; k++) r = put_diff(d, pl.code + o[2 + k], &l2[k], &l20[k], 4);
    if (!r) r = ft_own_stream_sync(d->stream);
    if (r) {
      ft_st.uncorrectable++;
      ft_event(a, at, -1, "write-back failed", FT_OUT_UNCORRECTABLE, where);
      return GROUP_BAD;
    }
    /* read it back: a bit that does not take the write is stuck (a permanent fault) */
    if (!takes_write(d, a, pl, g)) {
      ft_st.permanent++;
      ft_st.uncorrectable++;
      for (size_t i = 0; i < nev && i < 40; i++) {
        ft_event(a, at + ev[i].offset, ev[i].bit,
                 "bit does not take a write (permanent fault)", FT_OUT_UNCORRECTABLE, where);
        if (!is_shadow) ft_history_record_permanent(d->ctx, a->base + at + ev[i].offset, ev[i].bit);
      }
      return GROUP_STUCK;
    }
    for (size_t i = 0; i < nev && i < 40; i++) {
      int data_bit = ev[i].kind == FT_ACT_DATA_BIT;
      int code_bit = ev[i].kind == FT_ACT_V_BIT || ev[i].kind == FT_ACT_D_BIT;
      const char *kind = data_bit ? "data bit" : code_bit ? "code bit" : "level-2 code";
      uint64_t off = at + ev[i].offset;
      int listed = 0; /* in the device's error history (quarantine.c) */
      if (data_bit && !is_shadow &&
          (seen_before(a, off, ev[i].bit) || (listed = ft_history_is_bad(a->base + off)))) {
        ft_st.permanent++;
        ft_history_record_permanent(d->ctx, a->base + off, ev[i].bit);
        ft_event(a, off, ev[i].bit, listed ? "data bit in a word of the error history (permanent fault)"
                                           : "data bit, again after a rewrite (permanent fault)",
                 FT_OUT_CORRECTED, where);
      } else {
        ft_event(a, off, data_bit || code_bit ? ev[i].bit : -1, kind, FT_OUT_CORRECTED, where);
      }
      if (!data_bit) ft_st.code_errors++;
    }
    ft_st.corrected++;
    return GROUP_REPAIRED;
  }
  if (!is_shadow && a->mirror && a->mirror_valid) {
    /* the checkpoint still equals what should be there */
    uint64_t o[6];
    ft_code_group_offsets(a->size, g, o);
    const uint8_t *mc = a->mirror + ft_mirror_code_off(a);
    after_snapshot_copy(d, a);
    CUresult r = ft_real.cuMemcpyHtoDAsync_v2(a->base + at, a->mirror + at, len, d->stream);
    if (!r) r = ft_real.cuMemcpyHtoDAsync_v2(a->code + o[0], mc + o[0], nblk * 4, d->stream);
    if (!r) r = ft_real.cuMemcpyHtoDAsync_v2(a->code + o[1], mc + o[1], nblk * 4, d->stream);
    for (int k = 0; k < 4 && !r; k++)
      r = ft_real.cuMemcpyHtoDAsync_v2(a->code + o[2 + k], mc + o[2 + k], 4, d->stream);
    if (!r) r = ft_own_stream_sync(d->stream);
    if (!r && !takes_write(d, a, pl, g)) {
      /* the checkpoint's bytes did not take: bits stuck there (DESIGN.md 6.3), never
       * to be taken for data a kernel wrote */
      ft_st.permanent++;
      ft_st.uncorrectable++;
      ft_event(a, at, -1, "group does not take a write from its checkpoint (permanent fault)",
               FT_OUT_UNCORRECTABLE, where);
      return GROUP_STUCK;
    }
    if (!r) {
      ft_st.restored++;
      ft_st.recovered++; /* restored_from_checkpoint counts a part of recovered */
      ft_event(a, at, -1, "multi-bit", FT_OUT_RESTORED, where);
      return GROUP_RESTORED;
    }
  }
  ft_st.uncorrectable++;
  ft_event(a, at, -1, "multi-bit", FT_OUT_UNCORRECTABLE, where);
  return GROUP_BAD;
}

/* Groups of [g0, g1) at place pl with a mismatch, found on the host (when the
 * job's list overflowed). */
static size_t host_scan(ft_dev_t *d, ft_alloc_t *a, place_t pl, uint64_t g0, uint64_t g1,
                        uint64_t *out, size_t cap) {
  size_t n = 0;
  for (uint64_t g = g0; g < g1 && n < cap; g++) {
    uint32_t data[FT_GROUP_BYTES / 4] = {0}, v[32] = {0}, dv[32] = {0}, l2[4] = {0};
    size_t len;
    unsigned nblk;
    if (fetch_group(d, a, pl, g, (uint8_t *)data, &len, v, dv, l2, &nblk) != CUDA_SUCCESS) break;
    ft_code_t c = {len, nblk, 1, v, dv, &l2[0], &l2[1], &l2[2], &l2[3]};
    uint64_t total = 0;
    ft_verify(data, len, &c, NULL, 0, &total);
    if (total) out[n++] = g;
  }
  return n;
}

/* A read-only argument with more damaged groups than this after one launch was
 * most likely written by the kernel (used when replay cannot tell). */
#define WRITE_SUSPECT_GROUPS 4

/* ---- one commit ---- */

/* What a commit found that the epoch must answer for. Its allocation records are
 * kept with their id and base: where the commit drops the lock, another thread may
 * free an allocation and its record, and `refresh` looks them up again. */
#define MAX_SUSPECTS 32
typedef struct {
  ft_alloc_t *a; /* NULL once it is gone */
  uint64_t id;
  CUdeviceptr base;
} aref_t;

typedef struct {
  int consumed;         /* damaged data was read during the epoch */
  int consumed_groups;  /* how many groups */
  int lost;             /* something could not be repaired */
  aref_t lost_a;
  uint64_t lost_off;
  const char *lost_what;
  int nsus;             /* read-only arguments found changed after a launch */
  struct {
    ft_func_t *fn;
    int slot;
    aref_t a;
    uint64_t groups[8];
    int ngroups;
  } sus[MAX_SUSPECTS];
  aref_t watch;
  aref_t used_a;        /* the first allocation whose damage was consumed */
  int watch_repaired;
  int snap; /* damage only the snapshot and its log can undo */
} findings_t;

static aref_t aref(ft_alloc_t *a) { return a ? (aref_t){a, a->id, a->base} : (aref_t){NULL, 0, 0}; }

static void refresh_one(aref_t *r) FT_REQUIRES(ft_eng_lock) {
  if (!r->a) return;
  ft_alloc_t *a = ft_reg_find_base(r->base);
  r->a = a && a->id == r->id ? a : NULL;
}

/* After the lock was dropped: the records still registered, by id. */
static void refresh(findings_t *f) FT_REQUIRES(ft_eng_lock) {
  refresh_one(&f->lost_a);
  refresh_one(&f->watch);
  refresh_one(&f->used_a);
  for (int i = 0; i < f->nsus; i++) refresh_one(&f->sus[i].a);
}

/* The allocation a loss is charged to: the first found damaged and used, even when
 * it was freed while the commit had let go of its lock (its id and address still
 * say which: charging another reported a loss in memory that had none,
 * mech_test.free_while_commit_gives_up), else the one watched, else, when nothing
 * names one, the first registered. */
static aref_t blame(const findings_t *f) FT_REQUIRES(ft_eng_lock) {
  if (f->sus[0].a.id) return f->sus[0].a;
  if (f->used_a.id) return f->used_a;
  if (f->watch.id) return f->watch;
  return aref(ft_reg_count() ? ft_reg_at(0) : NULL);
}

static void lost(findings_t *f, aref_t a, uint64_t off, const char *what) {
  if (!f->lost) {
    f->lost_a = a;
    f->lost_off = off;
    f->lost_what = what;
  }
  f->lost = 1;
}

/* Damaged group g of a was used; `outcome` is what repair_group did (GROUP_*), -1
 * for nothing (seen only before a kernel rewrote it). */
static void used_group(const ft_alloc_t *a, uint64_t g, int outcome) {
  int in = outcome == GROUP_REPAIRED ? IN_CORRECTED
           : outcome == GROUP_RESTORED ? IN_RESTORED
           : outcome == GROUP_BAD || outcome == GROUP_STUCK ? IN_UNCORRECTABLE : IN_NONE;
  g_used_by[in]++;
  if (g_used_ev0 < 0) g_used_ev0 = g_commit_ev0;
  for (int i = 0; i < g_nused; i++)
    if (g_used[i].alloc == a->id && g_used[i].group == g) return;
  if (g_nused < MAX_USED) {
    g_used[g_nused].alloc = a->id;
    g_used[g_nused].group = g;
    g_nused++;
  }
}

/* The used groups' final outcome: FT_OUT_RECOVERED or FT_OUT_UNCORRECTABLE. */
static void settle_used(int out) {
  uint64_t n = 0;
  for (int k = 0; k < IN_KINDS; k++) n += g_used_by[k];
  if (!n) return;
  ft_st.corrected -= g_used_by[IN_CORRECTED];
  ft_st.recovered -= g_used_by[IN_RESTORED];
  ft_st.uncorrectable -= g_used_by[IN_UNCORRECTABLE];
  if (out == FT_OUT_RECOVERED) {
    ft_st.recovered += n;
  } else {
    ft_st.restored -= g_used_by[IN_RESTORED]; /* its restore did not save what used it */
    ft_st.uncorrectable += n;
  }
  for (int e = g_used_ev0 < 0 ? 0 : g_used_ev0; e < ft_nevents; e++) {
    ft_error_event_t *ev = &ft_events[e];
    if (ev->outcome == FT_OUT_RECOVERED) continue;
    for (int i = 0; i < g_nused; i++)
      if (g_used[i].alloc == ev->alloc_id && g_used[i].group == ft_group_of(ev->offset))
        ev->outcome = out;
  }
  memset(g_used_by, 0, sizeof g_used_by);
  g_nused = 0;
  g_used_ev0 = -1;
}

/* Whether a kernel of the job's epoch may have read the damage it found: a read
 * checked before it (verify before use) but not ordered after this job. Readers
 * issued before it may have; of those issued after it, only the launch the check
 * was for is known ordered after it, when every such read came on its stream. Only
 * a replay of the epoch answers for what they computed (an earlier epoch's readers
 * were checked after them, at its commit). */
static int read_unchecked(const ft_job_rec_t *j) {
  const ft_alloc_t *a = j->a;
  if (a->cr_epoch != j->epoch) return a->cr_epoch > j->epoch; /* (counted anew since) */
  if (j->reads_before > 0) return 1;
  int after = a->cr_n - j->reads_before - (j->fix ? 1 : 0); /* (its own launch) */
  return after > 0 && (a->cr_mixed || a->cr_stream != j->ord_s || !j->fix);
}

/* Verify before use: damage the device repaired before the kernel read it; used only
 * if an earlier reader of the epoch read it unchecked (a replay re-runs it). */
static int fixed_used(const ft_job_rec_t *j, findings_t *f) {
  if (!read_unchecked(j)) return 0;
  f->consumed = 1;
  f->consumed_groups++;
  if (!f->used_a.id && j->a) f->used_a = aref(j->a);
  return 1;
}

static void fixed_group(ft_job_rec_t *j, uint64_t g, uint64_t how, findings_t *f) FT_REQUIRES(ft_eng_lock) {
  ft_alloc_t *a = j->a;
  int copy = (how & FTK_BAD_FROM_COPY) != 0;
  ft_st.detected++;
  ft_st.repaired_before_use++;
  if (copy) {
    ft_st.restored++;
    ft_st.recovered++; /* restored_from_checkpoint counts a part of recovered */
  } else {
    ft_st.corrected++;
  }
  /* where the first data bit it repaired was, when the device could tell */
  int at = (how & FTK_BAD_LOCATED) != 0;
  ft_event(a, ft_group_start(g) + (at ? 4u * FTK_BAD_WORD(how) : 0), at ? (int)FTK_BAD_BIT(how) : -1,
           copy ? "restored from the checkpoint on the device" : at ? "data bit, corrected on the device"
                                                                  : "code word, corrected on the device",
           copy ? FT_OUT_RESTORED : FT_OUT_CORRECTED, why_name(j->why));
  if (fixed_used(j, f)) used_group(a, g, copy ? GROUP_RESTORED : GROUP_REPAIRED);
}

/* The same when more groups were damaged than the job lists: the device counted its
 * repairs (job->changed); the host scan sees only what it left. */
static void fixed_unlisted(ft_job_rec_t *j, const ftk_job_t *res, findings_t *f) FT_REQUIRES(ft_eng_lock) {
  uint32_t k = __atomic_load_n(&res->changed, __ATOMIC_RELAXED);
  if (!k) return;
  ft_st.detected += k;
  ft_st.corrected += k;
  ft_st.repaired_before_use += k;
  ft_event(j->a, ft_group_start(j->g0), -1, "groups corrected or restored on the device", FT_OUT_CORRECTED,
           why_name(j->why));
  if (fixed_used(j, f)) f->consumed_groups += (int)k - 1;
}

/* GPUFT_MODE=detect repairs nothing: a group two checks of one commit find damaged
 * (a read-back's source, then the check after its reader) is one damaged group, and
 * counted once. Reset at every commit. */
#define MAX_SEEN_COMMIT 64
static seen_t g_seen_commit[MAX_SEEN_COMMIT];
static int g_nseen_commit;

static int seen_in_commit(const ft_alloc_t *a, uint64_t g) {
  return seen_add(g_seen_commit, &g_nseen_commit, MAX_SEEN_COMMIT, a->id, g, 0);
}

static void process(ft_job_rec_t *j, ftk_job_t *res, findings_t *f) FT_REQUIRES(ft_eng_lock) {
  ft_alloc_t *a = j->a;
  ft_dev_t *d = a->dev;
  if (j->voided == 2) {
    /* another stream writes it after it: what it repaired before the read is counted,
     * what it left says nothing (the write may have changed it since) */
    uint32_t nb = __atomic_load_n(&res->n_bad, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < nb && i < FTK_JOB_BAD; i++)
      if ((res->bad[i] & FTK_BAD_REPAIRED) && FTK_BAD_GROUP(res->bad[i]) >= j->g0 &&
          FTK_BAD_GROUP(res->bad[i]) < j->g1)
        fixed_group(j, FTK_BAD_GROUP(res->bad[i]), res->bad[i], f);
    return;
  }
  if (j->voided) return; /* another stream wrote it meanwhile: says nothing */
  uint32_t nbad = __atomic_load_n(&res->n_bad, __ATOMIC_ACQUIRE);
  if (!nbad) return;
  FT_DEBUG("job %ju (epoch %ju, %s) found %u damaged groups in allocation #%ju", (uintmax_t)j->seq,
           (uintmax_t)j->epoch, why_name(j->why), nbad, (uintmax_t)a->id);
  /* The damage was seen before the kernel overwrote it: the copy made then (the
   * shadow) holds it too; the allocation itself has been rewritten since. */
  int before = j->why == FT_WHY_BEFORE_WRITE;
  place_t pl = before && j->kind == FT_JOB_VERIFY_COPY ? shadow_of(a) : place_of(a);
  uint64_t list[256], fixed[256] = {0};
  size_t n = 0;
  /* the list came through device memory (ftk.h): an index outside the span is a
   * flip there, and the span is scanned instead */
  uint64_t gend = ft_groups_of(a->size) < j->g1 ? ft_groups_of(a->size) : j->g1;
  int listed = nbad <= FTK_JOB_BAD, fix = j->fix;
  for (uint32_t i = 0; listed && i < nbad; i++) {
    uint64_t g = fix ? FTK_BAD_GROUP(res->bad[i]) : res->bad[i];
    listed = g >= j->g0 && g < gend;
  }
  if (listed)
    for (uint32_t i = 0; i < nbad; i++) {
      fixed[n] = fix && (res->bad[i] & FTK_BAD_REPAIRED) ? res->bad[i] : 0;
      list[n++] = fix ? FTK_BAD_GROUP(res->bad[i]) : res->bad[i];
    }
  else if (!before || j->kind == FT_JOB_VERIFY_COPY) {
    n = host_scan(d, a, pl, j->g0, j->g1, list, 256); /* (what the device repaired: below) */
    if (!fix && n < nbad && n < 256) ft_st.unconfirmed += nbad - n;
  }
  if (fix && !listed) fixed_unlisted(j, res, f);
  if (j->why == FT_WHY_READ_AFTER && j->fn && FT_OPT(MODE) != FT_MODE_RECOVER &&
      nbad > WRITE_SUSPECT_GROUPS) {
    /* Without replay to tell, many damaged groups after one launch mean the kernel
     * wrote through a pointer declared const: bit flips are rare and sparse.
     * Correcting them would undo its output. */
    ft_access_learn_write(j->fn, j->argslot);
    FT_INFO("kernel %s writes its argument at offset %d although it is declared const: now "
            "treated as written", j->fn->name, j->argslot * 8);
    ft_reencode(d, a, 0, ft_groups_of(a->size), d->stream);
    ft_own_stream_sync(d->stream);
    return;
  }
  /* in increasing order, so that two findings can be compared */
  for (size_t i = 1; i < n; i++)
    for (size_t k = i; k > 0 && list[k - 1] > list[k]; k--) {
      uint64_t t = list[k];
      list[k] = list[k - 1];
      list[k - 1] = t;
    }
  int suspect = j->why == FT_WHY_READ_AFTER && j->fn && f->nsus < MAX_SUSPECTS;
  if (suspect) {
    f->sus[f->nsus].fn = j->fn;
    f->sus[f->nsus].slot = j->argslot;
    f->sus[f->nsus].a = aref(a);
    f->sus[f->nsus].ngroups = 0;
  }
  for (size_t i = 0; i < n; i++) {
    if (list[i] < j->g0 || list[i] >= j->g1) continue;
    if (FT_OPT(MODE) == FT_MODE_DETECT && seen_in_commit(a, list[i])) continue;
    int outcome;
    if (fixed[i]) {
      fixed_group(j, list[i], fixed[i], f);
      continue;
    }
    if (before && j->kind != FT_JOB_VERIFY_COPY) {
      /* No copy of the damaged content was made (the restore point is the
       * checkpoint, or there is none): the kernel has rewritten it since. */
      ft_st.detected++;
      ft_event(a, ft_group_start(list[i]), -1, "damaged before a kernel wrote it", FT_OUT_DETECTED,
               why_name(j->why));
      outcome = a->rp == FT_RP_MIRROR || FT_OPT(MODE) != FT_MODE_RECOVER ? GROUP_RESTORED : GROUP_BAD;
    } else {
      outcome = repair_group(d, a, pl, list[i], j->why);
    }
    if (outcome == GROUP_CLEAN) continue;
    /* Damage the code cannot undo in what the epoch itself wrote (from a restore
     * point) is undone by replaying the epoch: it is written again. Not in a part
     * the epoch only read (a tensor beside the one written, in the same pool): the
     * replay would find it again, and take it for the kernel's own output. */
    int regenerated = outcome == GROUP_BAD && pl.data == a->base &&
                      FT_OPT(MODE) == FT_MODE_RECOVER && ft_restore_point_covers(a, list[i]) &&
                      ft_epoch_replayable();
    /* Data the GPU produced in an earlier epoch: the snapshot and the log since
     * hold what it takes to produce it again (DESIGN.md 6.8). */
    if (outcome == GROUP_BAD && !regenerated && FT_OPT(MODE) == FT_MODE_RECOVER &&
        ft_snap_can_recover(a)) {
      regenerated = 1;
      f->snap = 1;
    }
    if (outcome == GROUP_BAD && regenerated) regen_add(a, list[i]);
    if (outcome == GROUP_STUCK)
      lost(f, aref(a), ft_group_start(list[i]), "a bit that does not take writes (permanent fault)");
    else if (outcome == GROUP_BAD && !regenerated && FT_OPT(MODE) == FT_MODE_DETECT)
      ft_st.uncorrectable++; /* the program is told it is uncorrectable: so is the count */
    if (outcome == GROUP_BAD && !regenerated)
      lost(f, aref(a), ft_group_start(list[i]),
           FT_OPT(MODE) == FT_MODE_DETECT
               ? "damaged data detected (GPUFT_MODE=detect: nothing is repaired)"
           : before ? "damaged before a kernel wrote it, and its restore point is damaged too"
                    : "more than one bit flipped in a 4 KiB group, no checkpoint, and not rewritten "
                      "since the last synchronisation");
    /* the program's read-back copies again only what a repair changed */
    if (a == f->watch.a && (outcome == GROUP_REPAIRED || outcome == GROUP_RESTORED)) f->watch_repaired = 1;
    /* repaired where it lies, before any use (but a kernel's of the epoch unchecked) */
    if (j->why == FT_WHY_AT_REST && !read_unchecked(j)) continue;
    /* a synchronous read-back is copied again by its caller, unless only a replay
     * can give the right bytes back */
    if (j->why == FT_WHY_D2H && a == f->watch.a && !regenerated && !read_unchecked(j)) continue;
    /* read by work of an epoch already closed (a check owed until the allocation came
     * to rest): replaying this epoch redoes nothing; the snapshot and the log since
     * do, or nothing does (before, such damage was counted recovered by a replay of
     * the empty epoch after it: value_waits_do_not_deadlock_repairs) */
    if (j->reads_epoch < ft_epoch) f->snap = 1;
    /* consumed: read by the kernel, copied to the host, or copied on the device */
    f->consumed = 1;
    f->consumed_groups++;
    if (!f->used_a.id) f->used_a = aref(a);
    used_group(a, list[i], before && j->kind != FT_JOB_VERIFY_COPY ? -1 : outcome);
    if (suspect && outcome != GROUP_BAD && outcome != GROUP_STUCK && f->sus[f->nsus].ngroups < 8)
      f->sus[f->nsus].groups[f->sus[f->nsus].ngroups++] = list[i];
  }
  if (suspect && f->sus[f->nsus].ngroups) f->nsus++;
}

/* Process every finished job. */
static void drain(findings_t *f) FT_REQUIRES(ft_eng_lock) {
  ft_job_rec_t *prev = NULL, *j = ft_job_head();
  while (j) {
    ft_job_rec_t *next = j->next;
    ftk_job_t *res = ft_job_result(j);
    /* (a job whose count a flip lowered never completes: it keeps its slot, and
     * its kernel's verification is lost; telling that its kernel has ended would
     * need an event per job, ftk.h) */
    if (__atomic_load_n(&res->done, __ATOMIC_ACQUIRE)) {
      if (j->a) { /* (an orphan's allocation is gone: nothing to repair) */
        int in = ft_dev_enter(j->dev); /* its repairs run in its context */
        process(j, res, f);
        ft_dev_leave(in);
      }
      ft_job_retire(prev, j);
    } else {
      prev = j;
    }
    j = next;
  }
}

/* After a replay: a suspect whose damage came back at the same groups was written
 * by its kernel. */
static int learned(const findings_t *before, findings_t *after) {
  int any = 0;
  for (int i = 0; i < after->nsus; i++)
    for (int k = 0; k < before->nsus; k++) {
      if (before->sus[k].fn != after->sus[i].fn || before->sus[k].slot != after->sus[i].slot ||
          before->sus[k].ngroups != after->sus[i].ngroups)
        continue;
      if (memcmp(before->sus[k].groups, after->sus[i].groups,
                 sizeof(uint64_t) * (size_t)after->sus[i].ngroups))
        continue;
      ft_func_t *fn = after->sus[i].fn;
      ft_alloc_t *a = after->sus[i].a.a;
      ft_access_learn_write(fn, after->sus[i].slot);
      FT_INFO("kernel %s writes its argument at offset %d although it is declared const: now "
              "treated as written", fn->name, after->sus[i].slot * 8);
      ft_event(a, ft_group_start(after->sus[i].groups[0]), -1,
               "const argument written by its kernel", FT_OUT_DETECTED, "learned by replay");
      any = 1;
    }
  return any;
}

static ft_dev_t *any_dev(void) FT_REQUIRES(ft_eng_lock) {
  for (size_t i = 0; i < ft_reg_count(); i++)
    if (ft_reg_at(i)->dev) return ft_reg_at(i)->dev;
  return NULL;
}

static void commit_relocking(ft_alloc_t *watch, int *watch_repaired) FT_REQUIRES(ft_eng_lock) {
  double t0 = ft_cpu_now();
  findings_t f;
  memset(&f, 0, sizeof f);
  f.watch = aref(watch);
  g_commit_ev0 = ft_nevents;
  g_nseen_commit = 0;
  int replayed = 0;
  /* the results first: what came to rest is encoded next, and an encode over damage
   * a finished verification found (in a part another stream did not write) would
   * make its code agree with the damage before the result is read */
  drain(&f);
  ft_rest_commit(); /* encode what came to rest, verify what was read in the epoch */
  drain(&f);
  if (f.consumed && FT_OPT(MODE) != FT_MODE_RECOVER && !f.lost) {
    /* The damaged data was corrected, but a kernel or a copy had already used it:
     * what it produced is not repaired, and only a replay could (MODE=recover). */
    lost(&f, blame(&f), 0, FT_OPT(MODE) == FT_MODE_DETECT
                        ? "damaged data was used by a kernel or copy (GPUFT_MODE=detect repairs nothing); "
                          "GPUFT_MODE=recover re-executes what used it"
                        : "damaged data was used by a kernel or copy before it was corrected; "
                          "only GPUFT_MODE=recover re-executes what used it");
  }
  if (f.consumed && FT_OPT(MODE) == FT_MODE_RECOVER && !f.lost) {
    /* from now on nobody closes the epoch before it is replayed */
    __atomic_store_n(&ft_replay_pending, 1, __ATOMIC_RELAXED);
    g_pending_groups += f.consumed_groups;
    g_replay_snap |= f.snap;
  }
  int exclusive = 0;
  if (ft_replay_pending && FT_OPT(MODE) == FT_MODE_RECOVER && !ft_in_op()) {
    /* damaged data was used: roll back and replay, once every operation issued so
     * far is logged and finished, and none can start meanwhile */
    uint64_t gen = g_replay_gen;
    ft_unlock();
    exclusive = ft_op_exclusive_begin() == 0;
    uint64_t vc[FT_ORD_STREAMS];
    ft_lock();
    ft_ord_snap_all(vc); /* nothing new is issued while the operation lock is exclusive */
    ft_unlock();
    int synced = exclusive && ft_dev_sync_all(); /* (every device's jobs) */
    ft_lock();
    refresh(&f); /* others' operations ran while the lock was dropped: frees too */
    if (synced) ft_ord_synced(vc, 1);
    if (!exclusive) {
      FT_WARN_CAPPED(4, "replay postponed: another thread's operation is still running");
      goto out;
    }
    if (!synced && __atomic_load_n(&ft_captures_open, __ATOMIC_ACQUIRE) > 0) {
      /* the program's work may still run, and waiting for it would invalidate the
       * capture: the replay waits for a commit after it */
      FT_WARN_CAPPED(4, "replay postponed: a stream capture is open and work of the program has not finished");
      goto out;
    }
    if (g_replay_gen != gen || !ft_replay_pending) goto out; /* another thread replayed */
    drain(&f);
    f.consumed = 1;
    f.consumed_groups = g_pending_groups;
    __atomic_store_n(&ft_replay_pending, 0, __ATOMIC_RELAXED);
    g_pending_groups = 0;
    g_replay_gen++;
    int snap = g_replay_snap;
    g_replay_snap = 0;
    /* the replay runs on the stream of the context the epoch was issued in */
    ft_dev_t *d = ft_epoch_ctx() ? ft_dev_find(ft_epoch_ctx()) : NULL;
    if (!d) d = any_dev();
    int ok = 0;
    const char *snap_why = NULL;
    findings_t first = f;
    /* (the context is idle: the groups to regenerate can be tested in place) */
    ft_alloc_t *sa = NULL;
    int64_t sg = -1;
    if (d && synced) sg = regen_stuck(d, &sa);
    g_nregen = 0;
    if (sg >= 0) {
      lost(&f, aref(sa), ft_group_start((uint64_t)sg), "a bit that does not take writes (permanent fault)");
      d = NULL; /* a replay would write it again in vain, and take it in as data */
    }
    ft_replaying = 1;
    for (int attempt = 1; d && attempt <= (int)FT_OPT(MAX_RETRIES); attempt++) {
      if (snap ? ft_snap_recover(d, &snap_why) != 0 : ft_epoch_replay(d) != 0) break;
      findings_t again;
      memset(&again, 0, sizeof again);
      again.watch = f.watch;
      drain(&again);
      if (again.watch_repaired) f.watch_repaired = 1;
      if (!again.consumed) {
        ok = 1;
        break;
      }
      if (again.lost) {
        /* a bit that does not take writes, or damage without a repair: replaying
         * more will not help */
        lost(&f, again.lost_a, again.lost_off, again.lost_what);
        break;
      }
      if (learned(&first, &again)) {
        /* its output was taken for damage and undone: run the epoch once more,
         * with the argument now known to be written */
        findings_t third;
        memset(&third, 0, sizeof third);
        if ((snap ? ft_snap_recover(d, &snap_why) : ft_epoch_replay(d)) == 0) {
          drain(&third);
          ok = !third.consumed;
        }
        break;
      }
    }
    ft_replaying = 0;
    if (ok) {
      /* what looked unrecoverable before the replay is recovered now */
      replayed = 1;
      f.watch_repaired = 1; /* a replay rewrote what the program reads back */
    } else if (!f.lost) {
      lost(&f, blame(&f), 0,
           snap_why               ? snap_why
           : ft_epoch_replayable() ? "damaged data was used and the replay did not repair it"
                                   : "damaged data was used and the operations since the last "
                                     "synchronisation cannot be replayed");
    }
  }
out:
  /* the damaged groups that were used: recomputed by the replay, or not at all */
  if (replayed) settle_used(FT_OUT_RECOVERED);
  else if (!ft_replay_pending) settle_used(FT_OUT_UNCORRECTABLE);
  if (!ft_replay_pending) g_nregen = 0; /* no replay owed: nothing to test */
  if (f.lost && f.lost_a.id) {
    fail(f.lost_a.id, f.lost_a.base, f.lost_off, f.lost_what);
    if (ft_obs.lost) ft_obs.lost(); /* the report so far: the program may end abruptly now */
  }
  /* the program may look at every read-back that has completed once this returns */
  if (!ft_replay_pending && !ft_jobs_pending()) ft_epoch_close();
  else ft_epoch_settle();
  if (exclusive) ft_op_exclusive_end();
  if (watch_repaired) *watch_repaired = f.watch_repaired;
  ft_st.cpu_seconds += ft_cpu_now() - t0;
}

CUresult ft_commit_ex(ft_alloc_t *watch, int *watch_repaired) {
  if (watch_repaired) *watch_repaired = 0;
  /* Nothing in flight, nothing logged, nothing owed: a synchronisation the program
   * makes often (stream queries) costs no more than this. Reading these without
   * the lock is fine: a job issued meanwhile is not this commit's to see. */
  if (!__atomic_load_n(&g_jobs_hint, __ATOMIC_RELAXED) && !ft_epoch_ops() &&
      !__atomic_load_n(&ft_replay_pending, __ATOMIC_RELAXED) && !ft_host_fn_deferred() &&
      !__atomic_load_n(&ft_rest_owed_hint, __ATOMIC_RELAXED) &&
      __atomic_load_n(&g_verdict, __ATOMIC_RELAXED) == CUDA_SUCCESS)
    return CUDA_SUCCESS;
  ft_lock();
  ft_hostfn_t *held = ft_host_fn_take_held(); /* before the jobs are looked at */
  commit_relocking(watch, watch_repaired);
  CUresult v = __atomic_exchange_n(&g_verdict, CUDA_SUCCESS, __ATOMIC_RELAXED);
  int settled = !__atomic_load_n(&ft_replay_pending, __ATOMIC_RELAXED);
  ft_unlock();
  /* host functions held back from damaged data: what they may look at is settled */
  if (settled) ft_host_fn_run(held);
  else ft_host_fn_put_back(held);
  /* freed memory gpuft held for the snapshot's log, which no log needs since */
  if (settled) ft_held_release(0);
  return v;
}

CUresult ft_commit(void) { return ft_commit_ex(NULL, NULL); }

/* The context synchronised when something of gpuft's is pending (always: whatever
 * the program issued is then seen done too), then a commit. */
static CUresult commit_synced(int always) {
  CUresult r = CUDA_SUCCESS;
  if ((always || __atomic_load_n(&ft_jobs_pending_hint, __ATOMIC_RELAXED) ||
       __atomic_load_n(&ft_rest_owed_hint, __ATOMIC_RELAXED)) &&
      ft_real.cuCtxSynchronize) {
    uint64_t vc[FT_ORD_STREAMS];
    ft_lock();
    ft_ord_snap_all(vc);
    ft_unlock();
    r = ft_dev_sync_all() ? CUDA_SUCCESS : ft_dev_ctx_sync();
    if (r == CUDA_SUCCESS) {
      ft_lock();
      ft_ord_synced(vc, 1);
      ft_unlock();
    } else if (r == CUDA_ERROR_NOT_READY) {
      r = CUDA_SUCCESS; /* a capture is open: what is done is committed, the rest later */
    }
  }
  CUresult v = ft_commit();
  return r != CUDA_SUCCESS ? r : v;
}

CUresult ft_commit_all(void) { return commit_synced(0); }

CUresult ft_commit_settled(void) { return commit_synced(1); }

void ft_jobs_make_room(void) {
  if (FT_LEDGER_SLOTS - __atomic_load_n(&ft_jobs_pending_hint, __ATOMIC_RELAXED) >= FT_JOBS_PER_OP)
    return;
  CUresult v = ft_commit_all();
  if (v == CUDA_ERROR_ECC_UNCORRECTABLE) __atomic_store_n(&g_verdict, v, __ATOMIC_RELAXED);
}

CUresult ft_commit_quiet(void) {
  if (ft_in_op()) return ft_commit_all();
  int exclusive = ft_op_exclusive_begin() == 0;
  CUresult r = ft_commit_all();
  if (exclusive) ft_op_exclusive_end();
  return r;
}

CUresult ft_after_sync(CUresult r) {
  if (r != CUDA_SUCCESS) return ft_note_result(r);
  return ft_commit();
}
