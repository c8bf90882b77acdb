/* report.c: what gpuft did: the summary on stderr and the JSON report at
 * GPUFT_REPORT (docs/report.md, DESIGN.md section 9), at exit and also when the
 * program is stopped by a signal (SIGTERM at a job's time limit, abort()). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "codec.h"
#include "report.h"
#include "inject.h"
#include "json_writer.h"
#include "report_path.h"

/* The report's schema version: bump it when a field changes meaning or goes away
 * (adding a field does not change it). docs/report.md documents each version. */
#define FT_REPORT_SCHEMA 1

static int g_forked_child;

/* What the process is, captured at load (the command line) or first report (GPU). */
static struct {
  double start;         /* wall-clock seconds since the epoch */
  char cmdline[4096];   /* /proc/self/cmdline: arguments separated by NUL */
  size_t cmdlen;
  int gpu_ok, device, driver_version;
  char gpu_name[128], gpu_uuid[48];
} g_proc;

/* How the run ended, as the report says it. */
typedef struct {
  int signal; /* 0: normal exit (or gpuft_write_report) */
  int locked; /* the engine lock was taken: counters and allocations consistent */
  int at_exit;
} ft_end_t;

/* The name of a sticky error (FT_STICKY_ERRORS). */
static const char *ctx_error_name(int e) {
  switch (e) {
#define FT_STICKY_NAME(x) case x: return #x;
    FT_STICKY_ERRORS(FT_STICKY_NAME)
#undef FT_STICKY_NAME
    default: return "?";
  }
}

static const char *const outcome_name[] = {"corrected", "restored", "recovered", "uncorrectable",
                                           "detected"};

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void host_name(char *out, size_t cap) {
  if (gethostname(out, cap) != 0) out[0] = 0;
  out[cap - 1] = 0;
}

/* "2026-11-24T16:03:56.123Z" without gmtime (not async-signal-safe): days to civil
 * date by Howard Hinnant's algorithm. */
static void iso_time(ft_jw_t *w, double t) {
  int64_t secs = (int64_t)t, days = secs / 86400, sod = secs % 86400;
  int64_t z = days + 719468, era = z / 146097, doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9, y = yoe + era * 400 + (m <= 2);
  int64_t parts[6] = {y, m, d, sod / 3600, sod / 60 % 60, sod % 60};
  static const char sep[6] = {'-', '-', 'T', ':', ':', '.'};
  ft_jw_raw(w, "\"");
  for (int i = 0; i < 6; i++) {
    if (i && parts[i] < 10) ft_jw_raw(w, "0");
    ft_jw_num_i(w, parts[i]);
    ft_jw_rawn(w, &sep[i], 1);
  }
  int ms = (int)((t - (double)secs) * 1000);
  ft_jw_raw(w, ms < 100 ? (ms < 10 ? "00" : "0") : "");
  ft_jw_num_i(w, ms);
  ft_jw_raw(w, "Z\"");
}

static const char *signal_name(int sig) {
  switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGABRT: return "SIGABRT";
    case SIGXCPU: return "SIGXCPU";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "signal";
  }
}

/* query_gpu's question (one thread at a time). */
static void query_gpu_once(void) {
  CUdevice dev = 0;
  if (!ft_drv.cuCtxGetDevice || ft_drv.cuCtxGetDevice(&dev) != CUDA_SUCCESS) dev = 0;
  CUuuid u;
  if (ft_drv.cuDeviceGetName(g_proc.gpu_name, sizeof g_proc.gpu_name, dev) != CUDA_SUCCESS ||
      ft_drv.cuDeviceGetUuid_v2(&u, dev) != CUDA_SUCCESS)
    return;
  /* nvidia-smi's spelling: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
  static const char hex[] = "0123456789abcdef";
  char *p = g_proc.gpu_uuid + sprintf(g_proc.gpu_uuid, "GPU-");
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
    *p++ = hex[(unsigned char)u.bytes[i] >> 4];
    *p++ = hex[(unsigned char)u.bytes[i] & 15];
  }
  *p = 0;
  if (!ft_drv.cuDriverGetVersion || ft_drv.cuDriverGetVersion(&g_proc.driver_version) != CUDA_SUCCESS)
    g_proc.driver_version = 0;
  g_proc.device = (int)dev;
  __atomic_store_n(&g_proc.gpu_ok, 1, __ATOMIC_RELEASE);
}

/* The GPU the program used (its current context's device, else device 0), asked
 * once from the driver; never from a signal handler. */
static void query_gpu(void) {
  static int asking; /* one thread asks; gpu_ok publishes the answer */
  if (__atomic_load_n(&g_proc.gpu_ok, __ATOMIC_ACQUIRE) || !ft_drv.cuDeviceGetName || !ft_drv.cuDeviceGetUuid_v2 ||
      __atomic_exchange_n(&asking, 1, __ATOMIC_ACQ_REL))
    return;
  query_gpu_once();
  __atomic_store_n(&asking, 0, __ATOMIC_RELEASE);
}

/* The GPU, asked while the program runs (its first allocation): at exit a real driver
 * may already be shutting down (an H100's report named no GPU). */
void ft_report_note_gpu(void) { query_gpu(); }

/* Exposure: close the open intervals of live allocations (engine lock held). */
static void exposure(double *cov, double *inflight, double *unprot, double *tot) FT_REQUIRES(ft_eng_lock) {
  double t = ft_now();
  *cov = ft_st.covered_byte_s, *inflight = ft_st.inflight_byte_s;
  *unprot = ft_st.unprotected_byte_s, *tot = ft_st.total_byte_s;
  for (size_t i = 0; i < ft_reg_count(); i++) {
    const ft_alloc_t *a = ft_reg_at(i);
    double bs = (double)ft_coded_bytes(a) * (t - a->t_state);
    if (a->state == FT_ST_UNINIT) continue; /* nothing written yet: nothing to protect */
    *tot += bs;
    if (a->state == FT_ST_CLEAN) *cov += bs;
    else if (a->state == FT_ST_UNPROT) *unprot += bs;
    else *inflight += bs;
  }
  /* kernels' run time, by the model: counted under a code from the launch on, but
   * what they write is in flight until they are done */
  double k = ft_st.kernel_byte_s < *cov ? ft_st.kernel_byte_s : *cov;
  *cov -= k;
  *inflight += k;
}

static double coverage(void) FT_REQUIRES(ft_eng_lock) {
  double cov, inflight, unprot, tot;
  exposure(&cov, &inflight, &unprot, &tot);
  return tot > 0 ? cov / tot : 0.0;
}

static uint64_t unprotected_ops(void) {
  uint64_t u = 0;
  for (int i = 0; i < FT_N_HOOKS; i++) u += ft_unprotected_calls((ft_hook_id_t)i);
  return u;
}

/* Per-hook counts as an object of the non-zero ones. */
static void hook_counts(ft_jw_t *w, const char *key, uint64_t (*count)(ft_hook_id_t)) {
  ft_jw_obj(w, key);
  for (int i = 0; i < FT_N_HOOKS; i++) {
    uint64_t c = count((ft_hook_id_t)i);
    if (c) ft_jw_u(w, ft_hook_names[i], c);
  }
  ft_jw_end(w);
}

/* THE list of the report's fields (docs/report.md, schema FT_REPORT_SCHEMA): a new
 * field is one line here and one row in the docs. Runs with the engine lock held
 * when end->locked (from a signal handler it may not be). */
/* The counters of one section of FT_STATS, in the list's order. */
static void stats_section(ft_jw_t *w, const ft_engine_stats_t *s, int section) {
#define FT_STAT_WRITE_U(field, key) ft_jw_u(w, key, s->field)
#define FT_STAT_WRITE_F(field, key) ft_jw_f(w, key, s->field, 6)
#define FT_STAT_WRITE(sec, type, field, key) \
  if (FT_SEC_##sec == section) FT_STAT_WRITE_##type(field, key);
  FT_STATS(FT_STAT_WRITE)
#undef FT_STAT_WRITE
#undef FT_STAT_WRITE_F
#undef FT_STAT_WRITE_U
}

static void report_fields(ft_jw_t *w, const ft_end_t *end) FT_REQUIRES(ft_eng_lock) {
  const ft_engine_stats_t *s = &ft_st;
  static const char *const modes[] = {"detect", "correct", "recover"};
  char host[256];
  host_name(host, sizeof host);
  double t_end = wall_now();

  ft_jw_i(w, "schema", FT_REPORT_SCHEMA);
  ft_jw_s(w, "gpuft_version", GPUFT_VERSION);
  ft_jw_b(w, "enabled", ft_enabled);
  /* where and when: enough to tie a finding to a process, a node and a board */
  ft_jw_i(w, "pid", (int64_t)getpid());
  const char *rank = ft_rank_env();
  if (rank) ft_jw_s(w, "rank", rank);
  else ft_jw_null(w, "rank");
  ft_jw_s(w, "host", host);
  ft_jw_arr(w, "command");
  for (size_t i = 0; i < g_proc.cmdlen; i += strlen(g_proc.cmdline + i) + 1)
    ft_jw_s(w, NULL, g_proc.cmdline + i);
  ft_jw_end(w);
  ft_jw_raw(w, ",\n  \"start\": ");
  iso_time(w, g_proc.start);
  ft_jw_raw(w, ",\n  \"end\": ");
  iso_time(w, t_end);
  ft_jw_f(w, "seconds", t_end - g_proc.start, 3);
  ft_jw_obj(w, "ended");
  ft_jw_s(w, "how", end->signal ? "signal" : end->at_exit ? "exit" : "on request");
  ft_jw_i(w, "signal", end->signal);
  ft_jw_s(w, "signal_name", end->signal ? signal_name(end->signal) : NULL);
  ft_jw_b(w, "complete", !end->signal); /* work in flight at a signal was not verified */
  ft_jw_end(w);
  if (__atomic_load_n(&g_proc.gpu_ok, __ATOMIC_ACQUIRE)) {
    ft_jw_obj(w, "gpu");
    ft_jw_i(w, "device", g_proc.device);
    ft_jw_s(w, "name", g_proc.gpu_name);
    ft_jw_s(w, "uuid", g_proc.gpu_uuid);
    ft_jw_i(w, "driver_version", g_proc.driver_version);
    ft_jw_end(w);
  } else {
    ft_jw_null(w, "gpu");
  }
  ft_jw_s(w, "mode", modes[FT_OPT(MODE) % 3]);
  ft_jw_s(w, "codec", ft_codec_variant());
  /* the GPU context lost to a sticky error: the program cannot use the GPU again */
  if (ft_context_lost()) {
    ft_jw_obj(w, "context_lost");
    ft_jw_i(w, "error", ft_context_lost());
    ft_jw_s(w, "name", ctx_error_name(ft_context_lost()));
    ft_jw_end(w);
  } else {
    ft_jw_null(w, "context_lost");
  }

  ft_jw_obj(w, "errors");
  stats_section(w, s, FT_SEC_ERRORS);
  ft_jw_end(w);
  ft_jw_obj(w, "bytes");
  stats_section(w, s, FT_SEC_BYTES);
  ft_jw_end(w);
  stats_section(w, s, FT_SEC_TOP);
  ft_jw_u(w, "unprotected_ops", unprotected_ops());
  /* the registry may be mid-change when a signal arrives without the lock */
  if (end->locked) {
    ft_jw_f(w, "coverage", coverage(), 6);
    /* device byte-seconds by state (docs/report.md "exposure") */
    double cov, inflight, unprot, tot;
    exposure(&cov, &inflight, &unprot, &tot);
    ft_jw_obj(w, "exposure");
    ft_jw_s(w, "check", FT_OPT(CHECK) == FT_CHECK_EPOCH ? "epoch" : "launch");
    ft_jw_f(w, "under_code_byte_s", cov, 6);
    ft_jw_f(w, "in_flight_byte_s", inflight, 6);
    ft_jw_f(w, "unprotected_byte_s", unprot, 6);
    ft_jw_f(w, "under_code_share", tot > 0 ? cov / tot : 0.0, 6);
    ft_jw_f(w, "kernel_in_flight_byte_s", s->kernel_byte_s, 6);
    ft_jw_f(w, "kernel_model_bytes_per_s", s->kernel_model_bps, 0);
    ft_jw_end(w);
  } else {
    ft_jw_null(w, "coverage");
  }
  /* where the access classes of kernel arguments came from (DESIGN.md 5) */
  ft_jw_obj(w, "analysis");
  stats_section(w, s, FT_SEC_ANALYSIS);
  ft_jw_u(w, "kernels_reaching_beyond_arguments", s->kernels_reach_scan + s->kernels_reach_all);
  ft_jw_arr(w, "kernels_beyond");
  ft_access_report(w);
  ft_jw_end(w);
  ft_jw_end(w);
  /* restore points for device-produced data (DESIGN.md 6.8) */
  ft_jw_obj(w, "snapshots");
  ft_jw_u(w, "enabled", (uint64_t)ft_snap_logging());
  stats_section(w, s, FT_SEC_SNAPSHOTS);
  ft_jw_end(w);
  ft_inject_report(w);
  ft_jw_arr(w, "events");
  for (int i = 0; i < ft_nevents && i < FT_MAX_EVENTS; i++) {
    const ft_error_event_t *e = &ft_events[i];
    char base[24] = "0x";
    ft_jw_t hb;
    ft_jw_fixed(&hb, base + 2, sizeof base - 2);
    for (int sh = 60, started = 0; sh >= 0; sh -= 4) { /* "%#jx" without stdio */
      unsigned nib = (unsigned)(e->alloc_base >> sh) & 15;
      if (!nib && !started && sh) continue;
      started = 1;
      ft_jw_rawn(&hb, &"0123456789abcdef"[nib], 1);
    }
    ft_jw_obj(w, NULL);
    ft_jw_u(w, "allocation", e->alloc_id);
    ft_jw_s(w, "base", base);
    ft_jw_u(w, "size", e->alloc_size);
    ft_jw_u(w, "offset", e->offset);
    ft_jw_i(w, "bit", e->bit);
    ft_jw_s(w, "kind", e->kind);
    ft_jw_s(w, "outcome", outcome_name[e->outcome % 5]);
    ft_jw_s(w, "where", e->where);
    ft_jw_end(w);
  }
  ft_jw_end(w);
  ft_jw_u(w, "driver_calls", ft_total_calls());
  hook_counts(w, "calls", ft_calls);
  hook_counts(w, "unprotected", ft_unprotected_calls);
  ft_jw_arr(w, "unhooked_entry_points");
  const char *names[128];
  int n = end->signal ? 0 : ft_unhooked_names(names, 128); /* it takes a lock */
  for (int i = 0; i < n; i++) ft_jw_s(w, NULL, names[i]);
  ft_jw_end(w);
}

static void report_json(ft_jw_t *w, const ft_end_t *end) FT_REQUIRES(ft_eng_lock) {
  ft_jw_obj(w, NULL);
  report_fields(w, end);
  ft_jw_end(w);
}

/* Written beside the path and renamed over it: a process that ends while a
 * report is being written (another thread's exit) leaves the previous report
 * whole, never half of one. Async-signal-safe (the signal handler uses it). */
static int write_into(int fd, const char *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t k = write(fd, buf + done, len - done);
    if (k <= 0) break;
    done += (size_t)k;
  }
  return close(fd) != 0 || done != len ? -1 : 0;
}

static int write_all(const char *path, const char *buf, size_t len) {
  /* A device, FIFO or socket the user named (/dev/null, /dev/stdout, a pipe to a
   * reader) is written into, never replaced: renaming over /dev/null made it a
   * regular file for the whole machine when run as root. A FIFO nobody reads is
   * not waited for (the open fails). */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
      close(fd);
      return -1;
    }
    return write_into(fd, buf, len);
  }
  char tmp[4200];
  size_t n = 0;
  for (const char *p = path; *p && n < sizeof tmp - 32; p++) tmp[n++] = *p;
  const char suffix[] = ".tmp.";
  for (size_t i = 0; suffix[i]; i++) tmp[n++] = suffix[i];
  /* pid and a count: two threads (an error's report, the one at exit) never share it */
  static unsigned long seq;
  unsigned long parts[2] = {(unsigned long)getpid(), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED)};
  for (int k = 0; k < 2; k++) {
    char digits[24];
    int nd = 0;
    for (unsigned long v = parts[k]; v || !nd; v /= 10) digits[nd++] = (char)('0' + v % 10);
    if (k) tmp[n++] = '.';
    while (nd) tmp[n++] = digits[--nd];
  }
  tmp[n] = 0;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  if (write_into(fd, buf, len) != 0 || rename(tmp, path) != 0) {
    unlink(tmp);
    return -1;
  }
  return 0;
}

static int write_report(const char *path, const ft_end_t *end) {
  ft_jw_t w;
  ft_jw_heap(&w);
  query_gpu();
  ft_lock();
  report_json(&w, end);
  ft_unlock();
  int rc = w.truncated ? -1 : write_all(path, w.buf, w.len);
  free(w.buf);
  return rc;
}

/* The report so far, written at once (engine lock held): an error the program is
 * now told about may make it exit from several threads at a time, and glibc then
 * ends the process while another thread still runs the at-exit handlers. The
 * report at exit, when it gets written, replaces this one. */
static int report_path(char *out, size_t cap);

void ft_report_checkpoint(void) FT_REQUIRES(ft_eng_lock) {
  char path[4096];
  if (report_path(path, sizeof path) != 0) return;
  ft_end_t end = {.locked = 1};
  ft_jw_t w;
  ft_jw_heap(&w);
  query_gpu();
  report_json(&w, &end);
  if (!w.truncated) (void)write_all(path, w.buf, w.len);
  free(w.buf);
}

/* gpuft_write_report(path): the report so far, on the program's request. */
int ft_report_write_json(const char *path) {
  ft_end_t end = {.locked = 1};
  return write_report(path, &end);
}

/* ---- The summary: one, in words a user can act on ---- */

/* Every line names the rank when there is one: the lines of many ranks interleave
 * in a job's output. */
static void line(ft_jw_t *w, const char *s) {
  const char *rank = ft_rank_env();
  ft_jw_raw(w, "gpuft: ");
  if (rank) ft_jw_raw(w, "[rank "), ft_jw_raw(w, rank), ft_jw_raw(w, "] ");
  ft_jw_raw(w, s);
}

static void mib(ft_jw_t *w, uint64_t bytes) {
  int kib = bytes < 1048576;
  ft_jw_num_f(w, (double)bytes / (kib ? 1024.0 : 1048576.0), 1);
  ft_jw_raw(w, kib ? " KiB" : " MiB");
}

/* The summary's text (engine lock held, or a signal's best effort). */
static void summary(ft_jw_t *w, const ft_end_t *end, const char *report_path) {
  const ft_engine_stats_t *s = &ft_st;
  line(w, "pid ");
  ft_jw_num_i(w, (int64_t)getpid());
  ft_jw_raw(w, ": errors: ");
  ft_jw_num_u(w, s->detected), ft_jw_raw(w, " detected, ");
  ft_jw_num_u(w, s->corrected), ft_jw_raw(w, " corrected, ");
  ft_jw_num_u(w, s->recovered), ft_jw_raw(w, " recovered, ");
  ft_jw_num_u(w, s->uncorrectable), ft_jw_raw(w, " uncorrectable; ");
  mib(w, s->bytes_protected_peak);
  ft_jw_raw(w, " protected in ");
  ft_jw_num_u(w, s->allocations - s->allocations_unprotected);
  ft_jw_raw(w, " of ");
  ft_jw_num_u(w, s->allocations);
  ft_jw_raw(w, " allocations");
  if (s->bytes_written_peak < s->bytes_protected_peak) {
    /* the rest was never written: nothing there to protect (a pool's free part) */
    ft_jw_raw(w, " (");
    mib(w, s->bytes_written_peak);
    ft_jw_raw(w, " of it written)");
  }
  ft_jw_raw(w, ", ");
  ft_jw_num_u(w, s->launches_protected);
  ft_jw_raw(w, " of ");
  ft_jw_num_u(w, s->launches);
  ft_jw_raw(w, " launches checked; ");
  ft_jw_num_u(w, unprotected_ops());
  ft_jw_raw(w, " unprotected operations\n");
  for (int i = 0; i < ft_nevents && i < 5; i++) {
    const ft_error_event_t *e = &ft_events[i];
    line(w, "  allocation ");
    ft_jw_num_u(w, e->alloc_id);
    ft_jw_raw(w, ", offset ");
    ft_jw_num_u(w, e->offset);
    ft_jw_raw(w, ", bit ");
    ft_jw_num_i(w, e->bit);
    ft_jw_raw(w, ": ");
    ft_jw_raw(w, e->kind ? e->kind : "?");
    ft_jw_raw(w, ", ");
    ft_jw_raw(w, outcome_name[e->outcome % 5]);
    ft_jw_raw(w, " (");
    ft_jw_raw(w, e->where ? e->where : "?");
    ft_jw_raw(w, ")\n");
  }
  if (ft_nevents > 5) {
    line(w, "  ... and ");
    ft_jw_num_i(w, ft_nevents - 5);
    ft_jw_raw(w, " more events in the report\n");
  }
  /* Nothing reached protection: say why it matters and what to do. */
  if (!s->allocations) {
    line(w, "nothing was protected: the program made ");
    ft_jw_num_u(w, ft_total_calls());
    ft_jw_raw(w, " driver calls through gpuft but no device allocation reached it. If the "
                 "program does use GPU memory, its calls bypass gpuft: link it with the shared "
                 "CUDA runtime (nvcc -cudart=shared) and run with GPUFT_LOG=debug to see what "
                 "gpuft intercepts\n");
  } else if (s->allocations == s->allocations_unprotected) {
    line(w, "nothing was protected: every allocation was left unprotected (managed memory, "
            "memory exported to other processes or mapped twice, or no room for the code: see the warnings "
            "above, GPUFT_SHADOW_MAX and GPUFT_CKPT_MAX)\n");
  } else if (s->launches && !s->launches_protected) {
    line(w, "no kernel launch was checked: gpuft could not read these kernels' arguments "
            "(library kernels, or no parameter information); their outputs are re-encoded, "
            "not verified. GPUFT_LOG=debug names the kernels\n");
  }
  if (s->uncorrectable) {
    line(w, "");
    ft_jw_num_u(w, s->uncorrectable);
    ft_jw_raw(w, " error(s) could not be repaired: results computed from that memory may be "
                 "wrong; rerun the job (GPUFT_ON_FAIL decides what the program was told)\n");
  }
  if (ft_context_lost()) {
    line(w, "the GPU context was lost (");
    ft_jw_raw(w, ctx_error_name(ft_context_lost()));
    ft_jw_raw(w, ", a kernel's fault: the process cannot use the GPU again; a corrupted index or "
                 "pointer, or the program's own bug); `gpuft --restarts=N` reruns the program\n");
  }
  if (end->signal) {
    line(w, "the program was stopped by ");
    ft_jw_raw(w, signal_name(end->signal));
    ft_jw_raw(w, end->signal == SIGABRT ? " (abort)" : "");
    ft_jw_raw(w, ": work still in flight was not verified\n");
  }
  if (report_path) {
    line(w, "report: ");
    ft_jw_raw(w, report_path);
    ft_jw_raw(w, "\n");
  }
}

/* The report's path for this process: the template expanded; a forked child that
 * would overwrite its parent's report adds .PID. */
static int report_path(char *out, size_t cap) {
  const char *tmpl = FT_OPT_S(REPORT);
  if (!tmpl || !tmpl[0] || ft_report_path_for(tmpl, (long)getpid(), out, cap) != 0) return -1;
  if (g_forked_child && !strstr(tmpl, "%p")) {
    ft_jw_t w;
    ft_jw_fixed(&w, out + strlen(out), cap - strlen(out));
    ft_jw_raw(&w, ".");
    ft_jw_num_i(&w, (int64_t)getpid());
    if (w.truncated) return -1;
  }
  return 0;
}

static int used_cuda(void) {
  return __atomic_load_n(&ft_ready, __ATOMIC_ACQUIRE) && ft_enabled && ft_total_calls() > 0;
}

/* GPUFT_ERROR_EXITCODE / GPUFT_DETECTION_EXITCODE: the exit status that tells a
 * script what happened without reading the report; 0 when neither applies. */
static int exit_code_for(const ft_engine_stats_t *s) {
  int unrepaired = s->uncorrectable > 0 || s->detected > s->corrected + s->recovered;
  if (FT_OPT(ERROR_EXITCODE) && unrepaired) return (int)FT_OPT(ERROR_EXITCODE);
  if (FT_OPT(DETECTION_EXITCODE) && (s->detected || s->uncorrectable))
    return (int)FT_OPT(DETECTION_EXITCODE);
  return 0;
}

static void at_exit(void) {
  if (!used_cuda()) return; /* a program that never used CUDA: say nothing */
  /* results still in flight are part of the run */
  ft_commit_all();
  ft_inject_warn_unapplied();
  char path[4096];
  ft_end_t end = {.locked = 1, .at_exit = 1};
  int have_path = report_path(path, sizeof path) == 0;
  int written = have_path && write_report(path, &end) == 0;
  /* the launcher's temporary report, removed when the program ends: not worth naming */
  const char *tmp = getenv("GPUFT_REPORT_TEMPORARY");
  int name_it = written && !(tmp && tmp[0] == '1');
  if (have_path && !written) FT_WARN("cannot write the report to %s", path);
  ft_jw_t w;
  ft_jw_heap(&w);
  ft_lock();
  if (FT_OPT(SUMMARY) && ft_log_level >= FT_LOG_WARN) summary(&w, &end, name_it ? path : NULL);
  int code = exit_code_for(&ft_st);
  ft_unlock();
  if (w.len) {
    ssize_t k = write(STDERR_FILENO, w.buf, w.len);
    (void)k;
  }
  free(w.buf);
  if (ft_log_level >= FT_LOG_WARN) ft_lock_profile_print();
  if (code) { /* the status a script checks; handlers registered before ours are skipped */
    FT_INFO("exit status %d (GPUFT_%s_EXITCODE)", code,
            code == FT_OPT(ERROR_EXITCODE) ? "ERROR" : "DETECTION");
    fflush(NULL);
    _exit(code);
  }
}

/* ---- Stopped by a signal: the report from a handler ---- */

/* Pre-allocated: a handler may not call malloc. 1 MiB holds the largest report
 * (256 events, every hook). */
static char g_sigbuf[1 << 20], g_sigpath[4096];
static const int g_catch[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU, SIGABRT};

/* The report at a signal is written by a thread of its own, woken through a pipe:
 * a handler may call only async-signal-safe functions (no locks, no stdio), and
 * building the report needs both. The handler writes the signal and whether its
 * thread holds the engine lock, and waits for the answer (read and write are
 * async-signal-safe); the reporter takes the lock unless the stopped thread holds
 * it (then it reads the state as it is, as a handler would have), waiting at most
 * 2 s for another thread to let it go. */
static int g_sig_req[2] = {-1, -1}, g_sig_ack[2] = {-1, -1};
static volatile sig_atomic_t g_reporter_up;

/* (outside the analysis: it reads the state unlocked on purpose when the stopped
 * thread holds the lock or another one keeps it past the deadline) */
static void write_signal_report(int sig, int held) FT_NO_TSA {
  int locked = 0;
  if (!held) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    locked = pthread_mutex_timedlock(&ft_eng_lock, &until) == 0;
  }
  ft_end_t end = {.signal = sig, .locked = locked};
  ft_jw_t w;
  ft_jw_fixed(&w, g_sigbuf, sizeof g_sigbuf);
  int have_path = report_path(g_sigpath, sizeof g_sigpath) == 0, written = 0;
  if (have_path) {
    report_json(&w, &end);
    written = !w.truncated && write_all(g_sigpath, w.buf, w.len) == 0;
  }
  const char *tmp = getenv("GPUFT_REPORT_TEMPORARY");
  if (tmp && tmp[0] == '1') written = 0;
  ft_jw_fixed(&w, g_sigbuf, sizeof g_sigbuf);
  if (FT_OPT(SUMMARY) && ft_log_level >= FT_LOG_WARN) summary(&w, &end, written ? g_sigpath : NULL);
  if (locked) pthread_mutex_unlock(&ft_eng_lock);
  ssize_t k = write(STDERR_FILENO, w.buf, w.len);
  (void)k;
}

static void *reporter(void *unused) {
  (void)unused;
  for (;;) {
    unsigned char msg[2];
    ssize_t k = read(g_sig_req[0], msg, sizeof msg);
    if (k < 0 && errno == EINTR) continue;
    if (k != (ssize_t)sizeof msg) return NULL;
    write_signal_report(msg[0], msg[1]);
    while (write(g_sig_ack[1], "", 1) < 0 && errno == EINTR) {
    }
  }
}

/* The pipes and the reporter, with every signal blocked in it: a handler run there
 * would wait for itself. */
static void arm(void) {
  if (pipe2(g_sig_req, O_CLOEXEC) != 0) return;
  if (pipe2(g_sig_ack, O_CLOEXEC) != 0) return;
  sigset_t all, was;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &was);
  pthread_t t;
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &at, reporter, NULL) == 0) g_reporter_up = 1;
  pthread_attr_destroy(&at);
  pthread_sigmask(SIG_SETMASK, &was, NULL);
}

void ft_report_arm(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, arm);
}

static void on_signal(int sig) {
  static volatile sig_atomic_t busy;
  int saved = errno;
  if (!busy && g_reporter_up && used_cuda()) {
    busy = 1;
    unsigned char msg[2] = {(unsigned char)sig, (unsigned char)(ft_tls_holds_lock != 0)};
    if (write(g_sig_req[1], msg, sizeof msg) == (ssize_t)sizeof msg) {
      char c;
      while (read(g_sig_ack[0], &c, 1) < 0 && errno == EINTR) {
      }
    }
  }
  errno = saved;
  /* SA_RESETHAND restored the default action: the signal, raised again, ends the
   * process as it would have without gpuft once this handler returns. */
  raise(sig);
}

/* Only signals whose action is the default (termination): a program's own
 * handlers, and signals it ignores, are left alone. */
static void catch_signals(void) {
  for (size_t i = 0; i < sizeof g_catch / sizeof *g_catch; i++) {
    struct sigaction old;
    if (sigaction(g_catch[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
        old.sa_handler != SIG_DFL)
      continue;
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND | SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(g_catch[i], &sa, NULL);
  }
}

static void atfork_child(void) {
  g_forked_child = 1;
  g_reporter_up = 0; /* the reporter stayed in the parent */
  ft_stats_atfork_child();
}

static void read_cmdline(void) {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, g_proc.cmdline, sizeof g_proc.cmdline - 1);
  close(fd);
  g_proc.cmdlen = n > 0 ? (size_t)n : 0;
  g_proc.cmdline[g_proc.cmdlen] = 0;
  /* a command line cut short ends with a whole argument */
  while (g_proc.cmdlen && g_proc.cmdline[g_proc.cmdlen - 1]) g_proc.cmdlen--;
}

/* Load time (the hooks' constructor): nothing visible, only what must exist before
 * any CUDA call. */
void ft_report_load(void) {
  ft_obs.lost = ft_report_checkpoint; /* an error nothing recovered: the report so far */
  g_proc.start = wall_now();
  read_cmdline();
  /* loaded by the driver at cuInit (CUDA_INJECTION64_PATH), not preloaded: gpuft
   * sees none of the program's calls, so it keeps no report and catches nothing
   * (hooks/injection.c says so) */
  if (ft_loaded_late()) return;
  pthread_atfork(NULL, NULL, atfork_child);
  atexit(at_exit);
  const char *e = getenv("GPUFT_ENABLE");
  if (!e || (strcmp(e, "0") && strcasecmp(e, "false") && strcasecmp(e, "off") && strcasecmp(e, "no")))
    catch_signals();
}
