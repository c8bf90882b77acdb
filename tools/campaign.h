/* campaign.h: `gpuft campaign`, fault-injection campaigns (docs/campaign.md): the
 * outcome classes, how one run is classified, and the Wilson score interval. */
#ifndef FT_CAMPAIGN_H
#define FT_CAMPAIGN_H

#include <stddef.h>
#include <stdint.h>

#include "sim_path.h"

/* Outcome classes, in the order of the table. */
#define FT_OUTCOMES(X)                                          \
  X(MASKED, "masked")                                           \
  X(CORRECTED, "corrected")                                     \
  X(RECOVERED, "recovered")                                     \
  X(DUE, "detected-uncorrectable")                              \
  X(SDC, "silent data corruption")                              \
  X(CRASH, "crash")                                             \
  X(HANG, "hang")                                               \
  X(NOT_INJECTED, "not injected")
typedef enum {
#define X(id, name) FT_OUT_##id,
  FT_OUTCOMES(X)
#undef X
  FT_N_OUTCOMES
} ft_outcome_t;
extern const char *const ft_outcome_names[FT_N_OUTCOMES];
/* Short keys for --json ("masked", "sdc", ...). */
extern const char *const ft_outcome_keys[FT_N_OUTCOMES];

/* What was observed of one run (or of the golden run). */
typedef struct {
  int timed_out;      /* killed at the timeout */
  int signal;         /* killed by this signal (0: exited) */
  int code;           /* exit code when it exited */
  int same_output;    /* stdout (or the --compare files) identical to the golden run's */
  int injected;       /* 1: the fault was applied, 0: never applied, -1: cannot tell */
  int native;         /* ran without gpuft (--native): no report, whatever is on disk */
  int reports;        /* gpuft reports found (the program and its forked children) */
  int faults;         /* faults applied, over those reports: above 1 when a child the
                         program started inherited GPUFT_INJECT and was struck too */
  uint64_t detected, corrected, recovered, uncorrectable, replays; /* gpuft's reports */
  double seconds;
} ft_obs_t;

/* The class of a run whose golden run exited with golden_code. */
ft_outcome_t ft_classify(int golden_code, const ft_obs_t *o);

/* Fills o's report fields from one gpuft JSON report (parsed with jansson) (summed over calls, so that a
 * program's forked children count too); injected_out gets how many injections the
 * report lists and applied_out how many were applied. Returns 0, -1 if not a report. */
int ft_obs_add_report(ft_obs_t *o, const char *json, int *listed_out, int *applied_out);
/* Where a campaign's faults come from: GPUFT_INJECT, the simulator's SIMCUDA_FLIP
 * (one placed fault each), or the simulator's SIMCUDA_FLIP_RATE (random flips). */
typedef enum { FT_INJ_GPUFT, FT_INJ_SIM, FT_INJ_RATE } ft_injector_t;

/* Scans a run's stderr for the injector's logs ("GPUFT_INJECT: flipped", "simcuda:
 * flip ...", "simcuda: flip rate:"): the number of flips it logged and whether a
 * placed fault was dropped. Evidence that a fault landed, never an outcome. */
int ft_obs_scan_stderr(const char *err, ft_injector_t inj, int *dropped);

/* Wilson score interval for k successes in n trials at normal quantile z (1.96 for
 * 95 %); lo = hi = 0 when n is 0. */
void ft_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi);

/* Removes a directory and the plain files in it (the temporary report folders). */
void ft_remove_dir(const char *dir);

/* `gpuft campaign ARGS` (argv[0] is "campaign"); find_lib resolves --lib as the
 * launcher does. Returns the exit status. */
int ft_campaign_main(int argc, char **argv, int (*find_lib)(const char *override, char *out));

/* `gpuft report FILE...` (tools/report_cmd.c). */
int ft_report_cmd_main(int argc, char **argv);
/* `gpuft demo` (tools/demo.c). */
int ft_demo_main(int argc, char **argv);

#endif
