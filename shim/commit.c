/* commit.c: reading the ledger (DESIGN.md 6.3, issue-5 scope): results of finished
 * jobs are processed in issue order — single-bit errors corrected in place, hit
 * code words repaired, uncorrectable groups restored from a valid checkpoint or
 * reported per GPUFT_ON_FAIL; encode results teach the access table. */
#include <stdlib.h>
#include <string.h>

#include "access.h"

#define G ((uint64_t)FT_GROUP_BYTES)
/* A read-only argument with more damaged groups than this after one launch was
 * most likely written by the kernel (through a pointer declared const): bit flips
 * are rare and sparse. */
#define WRITE_SUSPECT_GROUPS 4

ft_job_rec_t *ft_job_head(void);
void ft_job_retire(ft_job_rec_t *prev, ft_job_rec_t *j);
ftk_job_t *ft_job_result(ft_job_rec_t *j);

static CUresult g_verdict = CUDA_SUCCESS;

/* Bits corrected before: the same bit again after a rewrite is a permanent fault. */
#define MAX_SEEN 256
static struct {
  uint64_t alloc, offset;
  int bit;
} g_seen[MAX_SEEN];
static int g_nseen;

static int seen_before(const ft_alloc_t *a, uint64_t off, int bit) {
  for (int i = 0; i < g_nseen; i++)
    if (g_seen[i].alloc == a->id && g_seen[i].offset == off && g_seen[i].bit == bit) return 1;
  if (g_nseen < MAX_SEEN) {
    g_seen[g_nseen].alloc = a->id;
    g_seen[g_nseen].offset = off;
    g_seen[g_nseen].bit = bit;
    g_nseen++;
  }
  return 0;
}

static const char *why_name(int why) {
  static const char *const n[] = {"after launch (read-only argument)", "before launch (written argument)",
                                  "after launch (written argument)", "device-to-host copy",
                                  "device-to-device copy source", "re-encode"};
  return why >= 0 && why < 6 ? n[why] : "?";
}

static void fail(const ft_alloc_t *a, uint64_t off, const char *what) {
  switch ((int)FT_OPT(ON_FAIL)) {
    case FT_ONFAIL_ABORT:
      FT_ERROR("uncorrectable memory error in allocation #%ju (%#llx + %ju): %s; aborting "
               "(GPUFT_ON_FAIL=abort)",
               (uintmax_t)a->id, (unsigned long long)a->base, (uintmax_t)off, what);
      abort();
    case FT_ONFAIL_ERROR:
      g_verdict = CUDA_ERROR_ECC_UNCORRECTABLE;
      FT_WARN_CAPPED(8, "uncorrectable memory error in allocation #%ju (%#llx + %ju): %s",
                     (uintmax_t)a->id, (unsigned long long)a->base, (uintmax_t)off, what);
      break;
    default:
      FT_WARN_CAPPED(8, "uncorrectable memory error in allocation #%ju (%#llx + %ju): %s",
                     (uintmax_t)a->id, (unsigned long long)a->base, (uintmax_t)off, what);
  }
}

/* Copy group g of a (data and code words) to the host: buffers of one group. */
static CUresult fetch_group(ft_dev_t *d, const ft_alloc_t *a, uint64_t g, uint8_t *data,
                            size_t *len, uint32_t v[32], uint32_t dd[32], uint32_t l2[4],
                            unsigned *nblk) {
  uint64_t off[6];
  ft_code_layout(a->size, off);
  uint64_t start = g * G;
  *len = a->size - start < G ? a->size - start : G;
  uint64_t nb_all = (a->size + FT_BLOCK_BYTES - 1) / FT_BLOCK_BYTES;
  *nblk = (unsigned)(nb_all - g * 32 < 32 ? nb_all - g * 32 : 32);
  CUresult r = ft_real.cuMemcpyDtoHAsync_v2(data, a->base + start, *len, d->stream);
  if (!r) r = ft_real.cuMemcpyDtoHAsync_v2(v, a->code + off[0] + g * 128, *nblk * 4, d->stream);
  if (!r) r = ft_real.cuMemcpyDtoHAsync_v2(dd, a->code + off[1] + g * 128, *nblk * 4, d->stream);
  for (int k = 0; k < 4 && !r; k++)
    r = ft_real.cuMemcpyDtoHAsync_v2(&l2[k], a->code + off[2 + k] + g * 4, 4, d->stream);
  if (!r) r = ft_real.cuStreamSynchronize(d->stream);
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

/* Repair group g of a; returns 1 if it is fine now, 0 if not. */
static int repair_group(ft_dev_t *d, ft_alloc_t *a, uint64_t g, int why, int *repaired) {
  uint32_t data[FT_GROUP_BYTES / 4], data0[FT_GROUP_BYTES / 4];
  uint32_t v[32] = {0}, dv[32] = {0}, l2[4] = {0}, v0[32], dv0[32], l20[4];
  size_t len;
  unsigned nblk;
  memset(data, 0, sizeof data);
  if (fetch_group(d, a, g, (uint8_t *)data, &len, v, dv, l2, &nblk) != CUDA_SUCCESS) {
    fail(a, g * G, "cannot read the damaged memory back");
    return 0;
  }
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
  ft_mismatch_t mm[1];
  ft_verify(data, len, &c, mm, 0, &total);
  if (total == 0) return 1; /* changed back meanwhile (a later write): nothing to do */
  ft_st.detected++;
  if (FT_OPT(MODE) == FT_MODE_DETECT) {
    ft_event(a, g * G, -1, "detected", FT_OUT_DETECTED, why_name(why));
    fail(a, g * G, "detected (GPUFT_MODE=detect: not corrected)");
    return 0;
  }
  int bad = ft_correct(data, len, &c, ev, 40, &nev, &rep);
  if (!bad) {
    uint64_t o[6];
    ft_code_layout(a->size, o);
    CUresult r = put_diff(d, a->base + g * G, data, data0, len);
    if (!r) r = put_diff(d, a->code + o[0] + g * 128, v, v0, nblk * 4);
    if (!r) r = put_diff(d, a->code + o[1] + g * 128, dv, dv0, nblk * 4);
    for (int k = 0; k < 4 && !r; k++) r = put_diff(d, a->code + o[2 + k] + g * 4, &l2[k], &l20[k], 4);
    if (!r) r = ft_real.cuStreamSynchronize(d->stream);
    if (r) {
      ft_st.uncorrectable++;
      ft_event(a, g * G, -1, "write-back failed", FT_OUT_UNCORRECTABLE, why_name(why));
      fail(a, g * G, "the corrected data could not be written back");
      return 0;
    }
    for (size_t i = 0; i < nev && i < 40; i++) {
      const char *kind = ev[i].kind == FT_ACT_DATA_BIT ? "data bit"
                         : ev[i].kind == FT_ACT_V_BIT || ev[i].kind == FT_ACT_D_BIT ? "code bit"
                                                                                     : "level-2 code";
      uint64_t off = g * G + ev[i].offset;
      if (ev[i].kind == FT_ACT_DATA_BIT && seen_before(a, off, ev[i].bit)) {
        ft_st.permanent++;
        ft_event(a, off, ev[i].bit, "data bit (again: permanent?)", FT_OUT_CORRECTED, why_name(why));
      } else {
        ft_event(a, off, ev[i].kind == FT_ACT_DATA_BIT || ev[i].kind == FT_ACT_V_BIT ||
                                 ev[i].kind == FT_ACT_D_BIT ? ev[i].bit : -1,
                 kind, FT_OUT_CORRECTED, why_name(why));
      }
      if (ev[i].kind != FT_ACT_DATA_BIT) ft_st.code_errors++;
    }
    ft_st.corrected++;
    *repaired = 1;
    return 1;
  }
  if (a->mirror && a->mirror_valid) {
    /* the checkpoint still equals what should be there */
    uint64_t o[6];
    ft_code_layout(a->size, o);
    const uint8_t *mc = a->mirror + a->size;
    ft_real.cuMemcpyHtoDAsync_v2(a->base + g * G, a->mirror + g * G, len, d->stream);
    ft_real.cuMemcpyHtoDAsync_v2(a->code + o[0] + g * 128, mc + o[0] + g * 128, nblk * 4, d->stream);
    ft_real.cuMemcpyHtoDAsync_v2(a->code + o[1] + g * 128, mc + o[1] + g * 128, nblk * 4, d->stream);
    for (int k = 0; k < 4; k++)
      ft_real.cuMemcpyHtoDAsync_v2(a->code + o[2 + k] + g * 4, mc + o[2 + k] + g * 4, 4, d->stream);
    ft_real.cuStreamSynchronize(d->stream);
    ft_st.restored++;
    ft_st.recovered++;
    ft_event(a, g * G, -1, "multi-bit", FT_OUT_RESTORED, why_name(why));
    *repaired = 1;
    return 1;
  }
  ft_st.uncorrectable++;
  ft_event(a, g * G, -1, "multi-bit", FT_OUT_UNCORRECTABLE, why_name(why));
  fail(a, g * G, "more than one bit flipped in a 4 KiB group and no checkpoint");
  return 0;
}

/* Groups of [g0, g1) with a mismatch, found on the host (when the job's list
 * overflowed). Returns how many were written to out. */
static size_t host_scan(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, uint64_t *out,
                        size_t cap) {
  size_t n = 0;
  for (uint64_t g = g0; g < g1 && n < cap; g++) {
    uint32_t data[FT_GROUP_BYTES / 4] = {0}, v[32] = {0}, dv[32] = {0}, l2[4] = {0};
    size_t len;
    unsigned nblk;
    if (fetch_group(d, a, g, (uint8_t *)data, &len, v, dv, l2, &nblk) != CUDA_SUCCESS) break;
    ft_code_t c = {len, nblk, 1, v, dv, &l2[0], &l2[1], &l2[2], &l2[3]};
    uint64_t total = 0;
    ft_verify(data, len, &c, NULL, 0, &total);
    if (total) out[n++] = g;
  }
  return n;
}

static void process(ft_job_rec_t *j, ftk_job_t *res, ft_alloc_t *watch, int *watch_repaired) {
  ft_alloc_t *a = j->a;
  ft_dev_t *d = a->dev;
  if (j->kind == FT_JOB_ENCODE) {
    ft_access_observe(j->fn, j->argslot, res->changed != 0);
    return;
  }
  uint32_t nbad = __atomic_load_n(&res->n_bad, __ATOMIC_ACQUIRE);
  if (!nbad) return;
  if (j->why == FT_WHY_READ_AFTER && j->fn && nbad > WRITE_SUSPECT_GROUPS) {
    /* the kernel wrote through a pointer declared const: learn it, re-encode */
    ft_access_learn_write(j->fn, j->argslot);
    FT_INFO("kernel %s writes its argument %d although it is declared const: now treated as "
            "written", j->fn->name, j->argslot);
    ft_reencode(d, a, 0, (a->size + G - 1) / G, d->stream);
    ft_real.cuStreamSynchronize(d->stream);
    return;
  }
  uint64_t list[256];
  size_t n = 0;
  if (nbad <= FTK_JOB_BAD) {
    for (uint32_t i = 0; i < nbad; i++) list[n++] = res->bad[i];
  } else {
    n = host_scan(d, a, j->g0, j->g1, list, 256);
  }
  int repaired = 0;
  for (size_t i = 0; i < n; i++) {
    if (list[i] < j->g0 || list[i] >= j->g1) continue;
    repair_group(d, a, list[i], j->why, &repaired);
  }
  if (repaired && a == watch && watch_repaired) *watch_repaired = 1;
}

static void commit_locked(ft_alloc_t *watch, int *watch_repaired) {
  double t0 = ft_cpu_now();
  ft_job_rec_t *prev = NULL, *j = ft_job_head();
  while (j) {
    ft_job_rec_t *next = j->next;
    ftk_job_t *res = ft_job_result(j);
    if (__atomic_load_n(&res->done, __ATOMIC_ACQUIRE)) {
      process(j, res, watch, watch_repaired);
      ft_job_retire(prev, j);
    } else {
      prev = j;
    }
    j = next;
  }
  ft_st.cpu_seconds += ft_cpu_now() - t0;
}

CUresult ft_commit_ex(ft_alloc_t *watch, int *watch_repaired) {
  if (watch_repaired) *watch_repaired = 0;
  ft_lock();
  commit_locked(watch, watch_repaired);
  CUresult v = g_verdict;
  g_verdict = CUDA_SUCCESS;
  ft_unlock();
  return v;
}

CUresult ft_commit(void) { return ft_commit_ex(NULL, NULL); }

CUresult ft_commit_all(void) {
  if (!ft_jobs_pending()) return ft_commit();
  CUresult r = ft_real.cuCtxSynchronize ? ft_real.cuCtxSynchronize() : CUDA_SUCCESS;
  CUresult v = ft_commit();
  return r != CUDA_SUCCESS ? r : v;
}

CUresult ft_after_sync(CUresult r) {
  if (r != CUDA_SUCCESS) return r;
  return ft_commit();
}
