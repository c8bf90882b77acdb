/* campaign_outcome.c: what one campaign run was (masked, corrected, ..., hang), from
 * its exit, its output, gpuft's report and its stderr; and the Wilson interval. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "report_json.h"

const char *const ft_outcome_names[FT_N_OUTCOMES] = {
#define X(id, name) name,
    FT_OUTCOMES(X)
#undef X
};
const char *const ft_outcome_keys[FT_N_OUTCOMES] = {
    "masked", "corrected", "recovered", "detected_uncorrectable", "sdc", "crash", "hang",
    "not_injected"};

ft_outcome_t ft_classify(int golden_code, const ft_obs_t *o) {
  /* A fault that never landed says nothing about gpuft: keep it out of the rates. */
  if (o->injected == 0) return FT_OUT_NOT_INJECTED;
  /* Without gpuft (--native) nothing was detected, corrected or recovered, even if a
   * stray report says so: the same rules, on what the program itself did. */
  if (o->native) {
    ft_obs_t bare = *o;
    bare.native = 0;
    bare.detected = bare.corrected = bare.recovered = bare.uncorrectable = bare.replays = 0;
    return ft_classify(golden_code, &bare);
  }
  if (o->timed_out) return FT_OUT_HANG;
  /* Reported first: a program that stopped on gpuft's verdict (an ECC error returned
   * by a synchronising call, or GPUFT_ON_FAIL=abort, whose report is written at the
   * abort) failed safely, whatever its output; with GPUFT_ON_FAIL=warn it may even
   * have finished. The report says so, not the program's messages. */
  if (o->uncorrectable > 0 || o->detected > o->corrected + o->recovered) return FT_OUT_DUE;
  if (o->signal) return FT_OUT_CRASH;
  if (o->code != golden_code) return o->code != 0 ? FT_OUT_CRASH : FT_OUT_SDC;
  if (!o->same_output) return FT_OUT_SDC;
  /* Identical output: how much work did gpuft have to do for it? Replay (or a
   * restore from a checkpoint) outranks a correction in place done on the way. */
  if (o->replays > 0 || o->recovered > 0) return FT_OUT_RECOVERED;
  if (o->corrected > 0) return FT_OUT_CORRECTED;
  return FT_OUT_MASKED;
}

int ft_obs_add_report(ft_obs_t *o, const char *text, int *listed_out, int *applied_out) {
  char err[256];
  json_t *js = ft_report_parse(text, err, sizeof err);
  if (!js) return -1;
  o->reports++;
  o->detected += ft_ju64(js, "errors.detected");
  o->corrected += ft_ju64(js, "errors.corrected");
  o->recovered += ft_ju64(js, "errors.recovered");
  o->uncorrectable += ft_ju64(js, "errors.uncorrectable");
  o->replays += ft_ju64(js, "replays");
  size_t i;
  json_t *inj;
  int listed = 0, applied = 0;
  json_array_foreach(json_object_get(js, "injections"), i, inj) {
    listed++;
    applied += json_is_true(json_object_get(inj, "applied"));
  }
  if (listed_out) *listed_out += listed;
  if (applied_out) *applied_out += applied;
  json_decref(js);
  return 0;
}

static int count(const char *s, const char *needle) {
  int n = 0;
  for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* The injectors' own logs: whether a fault landed when no report says it (the
 * simulator's flips, or a program that died before writing its report). Never used
 * to decide an outcome. */
int ft_obs_scan_stderr(const char *err, ft_injector_t inj, int *dropped) {
  int sim = inj != FT_INJ_GPUFT;
  if (dropped) *dropped = err && sim && strstr(err, "simcuda: fault \"") && strstr(err, "\" dropped: ");
  if (!err) return 0;
  /* the simulator logs "flip <fault spec>: ..." per placed fault it applied, and
   * "flip rate: ..." per spontaneous flip of SIMCUDA_FLIP_RATE ("flip rate <r>
   * flips/GiB/s", without the colon, is its setting, not a flip) */
  int rate = count(err, "simcuda: flip rate:");
  if (inj == FT_INJ_RATE) return rate;
  return sim ? count(err, "simcuda: flip ") - rate - count(err, "simcuda: flip rate ")
             : count(err, "gpuft: GPUFT_INJECT: flipped");
}

void ft_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi) {
  if (!n) {
    *lo = *hi = 0;
    return;
  }
  double N = (double)n, p = (double)k / N, z2 = z * z;
  double den = 1 + z2 / N, centre = (p + z2 / (2 * N)) / den;
  double half = z / den * sqrt(p * (1 - p) / N + z2 / (4 * N * N));
  *lo = centre - half < 0 ? 0 : centre - half;
  *hi = centre + half > 1 ? 1 : centre + half;
  /* exact at the ends (rounding would leave 1e-17 instead of 0) */
  if (k == 0) *lo = 0;
  if (k == n) *hi = 1;
}
