/* options.h: THE table of gpuft's options (GPUFT_<NAME> environment variables),
 * read once at initialisation; options.c parses, validates and prints them. */
#ifndef FT_OPTIONS_H
#define FT_OPTIONS_H

#include <stdint.h>

/* X(NAME, kind, default, min, max, choices, one-line doc)
 * kind: BOOL (1/0/true/false/on/off/yes/no), INT (decimal, >= 0), SIZE (bytes, with
 * optional K/KiB/M/MiB/G/GiB), ENUM (one of `choices`, stored as its index), STR.
 * [min, max]: the validated range of INT and SIZE values (a value outside it warns
 * once and takes the nearest bound); unparsable values warn and keep the default. */
#define FT_GiB(n) ((int64_t)(n) << 30)
#define FT_TiB(n) ((int64_t)(n) << 40)
#define FT_OPTIONS(X)                                                                              \
  X(ENABLE, BOOL, "1", 0, 1, 0, "0 makes gpuft a pure pass-through")                               \
  X(MODE, ENUM, "recover", 0, 0, "detect|correct|recover",                                         \
    "detect only; also correct single-bit errors; also roll back and replay")                      \
  X(CKPT_MAX, SIZE, "4GiB", 0, FT_TiB(64), 0, "host memory for checkpoints of uploaded data")      \
  X(EPOCH_LAUNCHES, INT, "64", 0, 1000000, 0, "commit at least every this many launches")          \
  X(SHADOW_MAX, SIZE, "2GiB", 0, FT_TiB(64), 0, "device memory for shadow copies (restore points)")\
  X(MAX_RETRIES, INT, "3", 0, 100, 0, "replays of one epoch before giving up")                     \
  X(ON_FAIL, ENUM, "error", 0, 0, "abort|error|warn|exit",                                         \
    "on an unrecoverable error: abort, return CUDA_ERROR_ECC_UNCORRECTABLE, warn, or exit 75")     \
  X(LOG, ENUM, "warn", 0, 0, "error|warn|info|debug", "log level on stderr (debug prints options)")\
  X(REPORT, STR, "", 0, 0, 0, "write the JSON report to this path at exit")                        \
  X(THREADS, INT, "0", 0, 1024, 0, "CPU threads for encoding (0: all)")                            \
  X(CHUNK, SIZE, "8MiB", 4096, FT_GiB(1), 0, "host-to-device pipeline chunk")                      \
  X(SKIP_KERNELS, STR, "", 0, 0, 0, "comma-separated kernel-name substrings left unprotected")     \
  X(INJECT, STR, "", 0, 0, 0, "fault injection into real device memory (see docs/options.md)")     \
  X(CODEC, STR, "", 0, 0, 0, "force a host codec variant: scalar, avx2 or avx512") \
  X(CHECK, ENUM, "launch", 0, 0, "launch|epoch",                                             \
    "check after every launch, or once per epoch (data written inside one stays in flight)") \
  X(VERIFY_BEFORE_USE, BOOL, "1", 0, 1, 0,                                                        \
    "verify data at rest right before a kernel reads it, repairing it on the device (else after)") \
  X(SUMMARY, BOOL, "1", 0, 1, 0, "print the summary on stderr at exit")                         \
  X(LOCK_PROFILE, BOOL, "0", 0, 1, 0, "at exit, print where gpuft's engine lock was held (file:line)") \
  X(ERROR_EXITCODE, INT, "0", 0, 255, 0, "exit status when errors were not repaired (0: unchanged)") \
  X(DETECTION_EXITCODE, INT, "0", 0, 255, 0, "exit status when any error was detected (0: unchanged)") \
  X(HISTORY_DIR, STR, "", 0, 0, 0, "per-GPU error history folder (default ~/.cache/gpuft)")   \
  X(QUARANTINE, BOOL, "0", 0, 1, 0, "hold the 2 MiB pages of known bad addresses away from the program") \
  X(SNAPSHOT, BOOL, "1", 0, 1, 0, "snapshots of device-produced data plus a log, for recovering it (recover mode)") \
  X(SNAPSHOT_INTERVAL_MS, INT, "2000", 0, 86400000, 0, "at most one snapshot per this many milliseconds") \
  X(SNAPSHOT_EPOCHS, INT, "4096", 1, 10000000, 0, "a snapshot at least every this many epochs (bounds replay)") \
  X(SNAPSHOT_HOST_MAX, SIZE, "4GiB", 0, FT_TiB(64), 0, "pinned host memory for snapshot copies") \
  X(SNAPSHOT_LOG_MAX, SIZE, "256MiB", 0, FT_TiB(1), 0, "host memory for the log since the snapshot") \
  X(FREE_HOLD_MAX, SIZE, "256MiB", 0, FT_TiB(64), 0, "device memory the program freed that gpuft may hold while the snapshot's log needs it") \
  X(RESTARTS, INT, "0", 0, 100, 0, "the launcher reruns the program, up to this many times, when it lost its GPU context")

typedef enum {
#define FT_OPT_ID_(name, kind, def, lo, hi, choices, doc) FT_OPT_##name,
  FT_OPTIONS(FT_OPT_ID_)
#undef FT_OPT_ID_
  FT_N_OPTIONS
} ft_opt_id_t;

enum { FT_OPTK_BOOL, FT_OPTK_INT, FT_OPTK_SIZE, FT_OPTK_ENUM, FT_OPTK_STR };

typedef struct {
  const char *name;   /* without the GPUFT_ prefix */
  int kind;
  const char *def;
  int64_t min, max; /* INT and SIZE */
  const char *choices;
  const char *doc;
} ft_option_t;

extern const ft_option_t ft_options[FT_N_OPTIONS];

/* Parsed values: integers (BOOL, INT, SIZE, ENUM index) and strings (STR). */
extern int64_t ft_opt_int[FT_N_OPTIONS];
extern const char *ft_opt_str[FT_N_OPTIONS];
#define FT_OPT(name) (ft_opt_int[FT_OPT_##name])
#define FT_OPT_S(name) (ft_opt_str[FT_OPT_##name])

enum { FT_MODE_DETECT, FT_MODE_CORRECT, FT_MODE_RECOVER };
enum { FT_ONFAIL_ABORT, FT_ONFAIL_ERROR, FT_ONFAIL_WARN, FT_ONFAIL_EXIT };
/* GPUFT_ON_FAIL=exit's status (sysexits.h's EX_TEMPFAIL: a rerun may succeed), for the
 * job launcher or the application's own fault tolerance to act on. */
#define FT_ONFAIL_EXIT_STATUS 75
enum { FT_CHECK_LAUNCH, FT_CHECK_EPOCH };

/* Read every GPUFT_<NAME> once; invalid values warn and keep the default, values out
 * of range warn and take the nearest bound. */
void ft_options_init(void);
/* Start-up checks, shared by the library and the launcher: one warning for each
 * GPUFT_* variable that names no option (with the nearest option's name), returning
 * how many; one warning for an invalid value of option `id` (with the nearest choice). */
int ft_options_warn_unknown(void);
void ft_option_warn_invalid(int id, const char *value);
/* The option named exactly `name` (without GPUFT_), or -1; the nearest to a misspelt
 * name, or -1 when none is near. */
int ft_option_lookup(const char *name);
int ft_option_nearest(const char *name);
/* Parse one value as option `id` would; 0 on success. (Also used by the tests.) */
int ft_option_parse(int id, const char *text, int64_t *out_int);

#endif
