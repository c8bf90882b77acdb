/* campaign_outcome.c: what one campaign run was (masked, corrected, ..., hang), from
 * its exit, its output, gpuft's report and its stderr; and the Wilson interval. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"

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
  if (o->timed_out) return FT_OUT_HANG;
  /* Reported first: a program that stopped on gpuft's verdict (an ECC error returned
   * by a synchronising call, or GPUFT_ON_FAIL=abort) failed safely, whatever its
   * output; with GPUFT_ON_FAIL=warn it may even have finished. */
  if (o->uncorrectable > 0 || o->gpuft_abort || (o->ecc_failure && !o->signal))
    return FT_OUT_DUE;
  if (o->signal) return FT_OUT_CRASH;
  if (o->code != golden_code) return o->code != 0 ? FT_OUT_CRASH : FT_OUT_SDC;
  if (!o->same_output) return FT_OUT_SDC;
  /* Identical output: how much work did gpuft have to do for it? Replay (or a
   * restore from a checkpoint) outranks a correction in place done on the way. */
  if (o->replays > 0 || o->recovered > 0) return FT_OUT_RECOVERED;
  if (o->corrected > 0) return FT_OUT_CORRECTED;
  return FT_OUT_MASKED;
}

/* The number after "key": at or after from (within the object that starts there). */
static uint64_t num_after(const char *from, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = from ? strstr(from, pat) : NULL;
  return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

int ft_obs_add_report(ft_obs_t *o, const char *json, int *listed_out, int *applied_out) {
  const char *errs = json ? strstr(json, "\"errors\": {") : NULL;
  if (!errs || !strstr(json, "\"gpuft_version\"")) return -1;
  o->reports++;
  o->detected += num_after(errs, "detected");
  o->corrected += num_after(errs, "corrected");
  o->recovered += num_after(errs, "recovered");
  o->uncorrectable += num_after(errs, "uncorrectable");
  o->replays += num_after(json, "replays");
  int listed = 0, applied = 0;
  const char *inj = strstr(json, "\"injections\": [");
  const char *end = NULL; /* the matching ']' (each entry has a "bits" array) */
  int depth = 0;
  for (const char *q = inj ? strchr(inj, '[') : NULL; q && *q && !end; q++) {
    if (*q == '[') depth++;
    else if (*q == ']' && --depth == 0) end = q;
  }
  for (const char *p = inj; p && p < end && (p = strstr(p, "{\"applied\": ")) && p < end; p++) {
    listed++;
    if (!strncmp(p + 12, "true", 4)) applied++;
  }
  if (listed_out) *listed_out += listed;
  if (applied_out) *applied_out += applied;
  return 0;
}

static int count(const char *s, const char *needle) {
  int n = 0;
  for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

int ft_obs_scan_stderr(ft_obs_t *o, const char *err, int sim, int *dropped) {
  if (!err) return 0;
  /* The runtime's name and string for CUDA_ERROR_ECC_UNCORRECTABLE, and the driver
   * enum itself for programs that print that. */
  if (strstr(err, "cudaErrorECCUncorrectable") || strstr(err, "CUDA_ERROR_ECC_UNCORRECTABLE") ||
      strstr(err, "uncorrectable ECC error"))
    o->ecc_failure = 1;
  if (strstr(err, "(GPUFT_ON_FAIL=abort)")) o->gpuft_abort = 1;
  if (dropped) *dropped = sim && strstr(err, "simcuda: fault \"") && strstr(err, "\" dropped: ");
  return sim ? count(err, "simcuda: flip before=") : count(err, "gpuft: GPUFT_INJECT: flipped");
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
