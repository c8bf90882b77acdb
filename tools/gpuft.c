/* gpuft.c: the `gpuft` launcher: runs a program with libgpuft.so preloaded, turns its
 * options (generated from the options table) into GPUFT_* variables checked by the
 * library's own parser, and summarises gpuft's report when the program exits. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/nearest.h"
#include "campaign.h"
#include "report_json.h"
#include "report_path.h"
#include "devtools.h"
#include "subcommands.h"
#include "options.h"
#include "options_text.h"

#ifndef GPUFT_VERSION
#define GPUFT_VERSION "unknown"
#endif
#ifndef GPUFT_REL_LIB /* the library relative to the launcher's folder (install layout) */
#define GPUFT_REL_LIB "../lib/libgpuft.so"
#endif

/* ---- Subcommands: `gpuft NAME ...` ---- */
static int find_library(const char *override, char *out);
static int ft_campaign_cmd(int argc, char **argv) { /* tools/campaign.c */
  return ft_campaign_main(argc, argv, find_library);
}
static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *doc;
} subcommands[] = {
#define FT_SUB_ROW_(name, fn, doc) {#name, fn, doc},
    FT_SUBCOMMANDS(FT_SUB_ROW_) /* tools/subcommands.h */
#undef FT_SUB_ROW_
};

/* ---- Options ---- */

/* The library that --lib names, or the one installed next to this executable, or (in
 * a build tree with another layout) the one this launcher was built with. */
static int find_library(const char *override, char *out) {
  char buf[PATH_MAX + 64];
  if (override) return realpath(override, out) && access(out, R_OK) == 0 ? 0 : -1;
  ssize_t n = readlink("/proc/self/exe", buf, PATH_MAX);
  if (n > 0) {
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash) {
      snprintf(slash + 1, sizeof buf - (size_t)(slash + 1 - buf), "%s", GPUFT_REL_LIB);
      if (realpath(buf, out) && access(out, R_OK) == 0) return 0;
    }
  }
#ifdef GPUFT_BUILD_LIB
  if (realpath(GPUFT_BUILD_LIB, out) && access(out, R_OK) == 0) return 0;
#endif
  return -1;
}

static void usage(FILE *f) {
  fprintf(f, "usage: gpuft [options] [--] program [args...]\n");
  for (size_t s = 0; s < sizeof subcommands / sizeof *subcommands; s++)
    fprintf(f, "       gpuft %-10s  %s\n", subcommands[s].name, subcommands[s].doc);
  fprintf(f, "       gpuft --sim ...     a program or a subcommand on gpuft's CPU simulator\n");
}

static void help(const char *lib_override) {
  char lib[PATH_MAX];
  usage(stdout);
  printf("\nRuns program with libgpuft.so preloaded (prepended to LD_PRELOAD), so that its\n"
         "GPU memory is protected against bit flips; prints a summary of gpuft's report\n"
         "when it exits. The program's exit status is gpuft's.\n\n"
         "launcher options:\n"
         "  --lib=PATH\n      the libgpuft.so to preload [default %s]\n"
         "  --sim\n      run on gpuft's CPU simulator (lib/gpuft/sim of the install), no GPU needed\n"
         "  -q, --quiet\n      no summary after the program exits\n"
         "  -h, --help\n      this help\n"
         "  -V, --version\n      version and library\n\n"
         "gpuft options (each sets the environment variable shown; the command line wins):\n",
         find_library(lib_override, lib) == 0 ? lib : "(not found)");
  for (int i = 0; i < FT_N_OPTIONS; i++) {
    const ft_option_t *o = &ft_options[i];
    char flag[64];
    ft_flag_name(o->name, flag, sizeof flag);
    printf("  --%s=%s  [GPUFT_%s, default %s]\n      %s\n", flag, ft_kind_meta(o), o->name,
           o->def[0] ? o->def : "\"\"", o->doc);
  }
  printf("\nBOOL: 1/0/true/false/on/off/yes/no (--flag alone means 1); SIZE: bytes with an\n"
         "optional K/KiB/M/MiB/G/GiB suffix; N: a non-negative integer.\n");
}

/* ---- After the program: only what the library cannot know ---- */

/* The library prints the summary itself (one, with its advice). The launcher speaks
 * only when the library could not: no report where one was expected. */
static void after_run(const char *report, int st) {
  if (!report[0] || access(report, F_OK) == 0) return;
  if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
    fprintf(stderr, "gpuft: the program was killed by SIGKILL, which cannot be caught: gpuft "
                    "could not write its report (a batch system's time limit usually sends "
                    "SIGTERM first; give the job a grace period)\n");
  else if (WIFSIGNALED(st))
    fprintf(stderr, "gpuft: the program died of signal %d (%s) and left no report: either it "
                    "made no CUDA call that reached gpuft, or its own handler for that signal "
                    "ended it\n", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else if (!ft_tools_driver_loadable()) { /* the likeliest reason first */
    fprintf(stderr, "gpuft: no report: the program made no CUDA call that reached gpuft\n");
    ft_tools_no_driver_hint("gpuft", "gpuft --sim -- PROGRAM");
  } else {
    fprintf(stderr, "gpuft: no report: the program made no CUDA call that reached gpuft (or "
                    "GPUFT_ENABLE=0). If it uses the GPU, check that it loads the driver "
                    "libcuda.so.1 dynamically (the CUDA runtime does), and run it with "
                    "--log=debug to see what gpuft intercepts\n");
  }
}

/* ---- Restarts (--restarts=N) ---- */

/* The sticky error the program's report says its GPU context was lost to (its
 * `context_lost`), or NULL: none, or no report. */
static const char *context_lost(const char *report_tmpl, pid_t pid, char *name, size_t cap) {
  char path[PATH_MAX], err[256];
  if (!report_tmpl[0] || ft_report_path_for(report_tmpl, (long)pid, path, sizeof path) != 0) return NULL;
  json_t *js = ft_report_load(path, err, sizeof err);
  const char *lost = ft_report_context_lost(js);
  if (lost) snprintf(name, cap, "%s", lost);
  json_decref(js);
  return lost ? name : NULL;
}

/* ---- Running the program ---- */

static volatile sig_atomic_t g_child;
static void forward_signal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

/* LD_PRELOAD = lib, then whatever was preloaded before (unless lib already is). A
 * sanitized build's library needs the sanitizer runtime ahead of it. */
static int prepend_preload(const char *lib_path) {
  const char *lib = lib_path;
#ifdef GPUFT_SAN_RUNTIME
  char both[2 * PATH_MAX + 2];
  if (GPUFT_SAN_RUNTIME[0]) {
    snprintf(both, sizeof both, "%s:%s", GPUFT_SAN_RUNTIME, lib_path);
    lib = both;
  }
#endif
  const char *old = getenv("LD_PRELOAD");
  if (old && *old) {
    size_t n = strlen(lib_path);
    for (const char *p = old; *p;) {
      size_t len = strcspn(p, ": ");
      if (len == n && strncmp(p, lib_path, n) == 0) return 0;
      p += len;
      p += strspn(p, ": ");
    }
  }
  char *v;
  if (asprintf(&v, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "") < 0) return -1;
  int rc = setenv("LD_PRELOAD", v, 1);
  free(v);
  return rc;
}

/* Returns the program's wait status, or -1 if it could not be started (*pid: its
 * process id). report: the report's path template ("" for none); the launcher checks
 * it was written. */
static int run(char **prog, const char *report_tmpl, int check, pid_t *pid_out) {
  fflush(NULL);
  int ep[2]; /* closed on exec: an errno on it says the program never started */
  if (pipe2(ep, O_CLOEXEC) != 0) ep[0] = ep[1] = -1;
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "gpuft: fork: %s\n", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    execvp(prog[0], prog);
    int e = errno;
    fprintf(stderr, "gpuft: cannot run %s: %s\n", prog[0], strerror(e));
    if (ep[1] >= 0 && write(ep[1], &e, sizeof e) < 0) {
    }
    _exit(e == ENOENT ? 127 : 126);
  }
  *pid_out = pid;
  int exec_errno = 0;
  if (ep[1] >= 0) {
    close(ep[1]);
    while (read(ep[0], &exec_errno, sizeof exec_errno) < 0 && errno == EINTR) {
    }
    close(ep[0]);
  }
  /* As a shell does: ^C and ^\ reach the program (same process group), the launcher
   * waits to print the summary; termination requests sent to the launcher are passed on. */
  g_child = pid;
  struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward_signal};
  sigaction(SIGINT, &ign, NULL);
  sigaction(SIGQUIT, &ign, NULL);
  sigaction(SIGTERM, &fwd, NULL);
  sigaction(SIGHUP, &fwd, NULL);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  char report[PATH_MAX] = "";
  if (check && !exec_errno && report_tmpl[0] && ft_report_path_for(report_tmpl, (long)pid, report, sizeof report) == 0)
    after_run(report, st);
  return st;
}

static int missing_value(const char *opt) {
  fprintf(stderr, "gpuft: option '%s' needs a value\n", opt);
  return 2;
}

/* ---- Command line (getopt_long; the table's options become long options) ---- */

enum { OPT_LIB = 1000, OPT_SIM, OPT_TABLE = 2000 };

/* --sim: the program (or subcommand) runs on gpuft's CPU simulator, installed in
 * lib/gpuft/sim: its folder goes first in LD_LIBRARY_PATH. 0, or -1 (said why). */
static int use_simulator(void) {
  char sim[PATH_MAX];
  if (ft_tools_find_sim(sim) != 0) {
    fprintf(stderr, "gpuft: --sim: the simulator is not installed (lib/gpuft/sim next to bin/): "
                    "install the 'simulator' component (cmake --install BUILD --component simulator)\n");
    return -1;
  }
  const char *old = getenv("LD_LIBRARY_PATH");
  char *v;
  if (asprintf(&v, "%s%s%s", sim, old && *old ? ":" : "", old && *old ? old : "") < 0) return -1;
  setenv("LD_LIBRARY_PATH", v, 1);
  free(v);
  return 0;
}

/* getopt_long's table: the launcher's own options, then one per table row. The
 * names live in `names` (ft_flag_name of each row). */
static struct option *long_options(char names[][64]) {
  static const struct option own[] = {{"lib", required_argument, NULL, OPT_LIB},
                                      {"sim", no_argument, NULL, OPT_SIM},
                                      {"quiet", no_argument, NULL, 'q'},
                                      {"help", no_argument, NULL, 'h'},
                                      {"version", no_argument, NULL, 'V'}};
  size_t n_own = sizeof own / sizeof *own;
  struct option *o = calloc(n_own + FT_N_OPTIONS + 1, sizeof *o);
  if (!o) return NULL;
  memcpy(o, own, sizeof own);
  for (int k = 0; k < FT_N_OPTIONS; k++) {
    ft_flag_name(ft_options[k].name, names[k], 64);
    /* a boolean alone means 1 (--enable); others take a value (--x=V or --x V) */
    o[n_own + (size_t)k] = (struct option){names[k],
                                            ft_options[k].kind == FT_OPTK_BOOL ? optional_argument
                                                                               : required_argument,
                                            NULL, OPT_TABLE + k};
  }
  return o;
}

/* "unknown option '--modee' (did you mean --mode?)": the nearest long option. */
static void unknown_flag(const char *given, const struct option *opts) {
  char name[64];
  const char *g = given + strspn(given, "-");
  size_t len = strcspn(g, "=");
  snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), g);
  const char *names[FT_N_OPTIONS + 8];
  int n = 0;
  for (; opts[n].name && n < FT_N_OPTIONS + 8; n++) names[n] = opts[n].name;
  int near = ftc_nearest(name, names, n);
  if (near >= 0)
    fprintf(stderr, "gpuft: unknown option '%s' (did you mean --%s?)\n", given, names[near]);
  else
    fprintf(stderr, "gpuft: unknown option '%s' (gpuft --help lists them)\n", given);
}

int main(int argc, char **argv) {
  /* `gpuft --sim SUBCOMMAND ...`: the loader reads LD_LIBRARY_PATH at start, so the
   * launcher starts again on the simulator, without --sim */
  if (argc > 2 && !strcmp(argv[1], "--sim")) {
    for (size_t s = 0; s < sizeof subcommands / sizeof *subcommands; s++)
      if (!strcmp(argv[2], subcommands[s].name)) {
        if (use_simulator() != 0) return 2;
        argv[1] = argv[0];
        execv("/proc/self/exe", argv + 1);
        fprintf(stderr, "gpuft: cannot start again: %s\n", strerror(errno));
        return 126;
      }
  }
  for (size_t s = 0; argc > 1 && s < sizeof subcommands / sizeof *subcommands; s++)
    if (!strcmp(argv[1], subcommands[s].name)) return subcommands[s].run(argc - 1, argv + 1);

  const char *value[FT_N_OPTIONS] = {0}, *lib_override = NULL;
  int quiet = 0, version = 0, c;
  static char names[FT_N_OPTIONS][64];
  struct option *opts = long_options(names);
  if (!opts) return 126;
  opterr = 0; /* our own messages, which name the option as given */
  /* "+": stop at the program's name; ":": a missing value is reported as ':' */
  while ((c = getopt_long(argc, argv, "+:qhV", opts, NULL)) != -1) {
    const char *given = argv[optind - 1];
    switch (c) {
      case 'h': help(lib_override); free(opts); return 0;
      case 'V': version = 1; break;
      case 'q': quiet = 1; break;
      case OPT_LIB: lib_override = optarg; break;
      case OPT_SIM:
        if (use_simulator() != 0) return free(opts), 2;
        break;
      case ':': free(opts); return missing_value(given);
      case '?':
        if (optopt) fprintf(stderr, "gpuft: unknown option '-%c' (gpuft --help lists them)\n", optopt);
        else unknown_flag(given, opts);
        free(opts);
        return 2;
      default: value[c - OPT_TABLE] = optarg ? optarg : "1";
    }
  }
  free(opts);
  if (version) {
    char lib[PATH_MAX];
    printf("gpuft %s\nlibrary: %s\n", GPUFT_VERSION,
           find_library(lib_override, lib) == 0 ? lib : "(not found)");
    return 0;
  }
  int i = optind;
  if (i >= argc) {
    usage(stderr);
    fprintf(stderr, "gpuft: no program given (gpuft --help)\n");
    return 2;
  }

  /* Validate with the library's parser; on a bad value, let the library's own option
   * reader say what is wrong, exactly as the program would have heard it. */
  char env[80];
  int bad = 0;
  for (int k = 0; k < FT_N_OPTIONS; k++) {
    int64_t parsed;
    snprintf(env, sizeof env, "GPUFT_%s", ft_options[k].name);
    if (value[k]) setenv(env, value[k], 1);
    /* a value from the environment is checked as a flag's is: the same message, the
     * same refusal (the library alone can only warn and keep the default) */
    const char *v = value[k] ? value[k] : getenv(env);
    if (v && ft_option_parse(k, v, &parsed) != 0) bad = 1;
  }
  if (bad) {
    ft_options_init();
    fprintf(stderr, "gpuft: error: invalid option value; the program was not started\n");
    return 2;
  }
  if (quiet) setenv("GPUFT_SUMMARY", "0", 1); /* the library's summary is the only one */
  int64_t restarts = 0;
  {
    const char *v = value[FT_OPT_RESTARTS] ? value[FT_OPT_RESTARTS] : getenv("GPUFT_RESTARTS");
    if (v && ft_option_parse(FT_OPT_RESTARTS, v, &restarts) != 0) restarts = 0;
  }

  char lib[PATH_MAX];
  if (find_library(lib_override, lib) != 0) {
    fprintf(stderr, "gpuft: cannot find libgpuft.so (%s%s); use --lib=PATH\n",
            lib_override ? "--lib=" : "looked for " GPUFT_REL_LIB " next to the launcher",
            lib_override ? lib_override : "");
    return 127;
  }
  if (prepend_preload(lib) != 0) {
    fprintf(stderr, "gpuft: cannot set LD_PRELOAD\n");
    return 126;
  }

  /* The report: where the user asked (option or environment), else a temporary file
   * that only tells the launcher whether the library got to write one. */
  char tmpdir[PATH_MAX] = "", report[PATH_MAX + 32] = "";
  const char *given = value[FT_OPT_REPORT] ? value[FT_OPT_REPORT] : getenv("GPUFT_REPORT");
  if (given && *given) {
    snprintf(report, sizeof report, "%s", given);
  } else if (!quiet || restarts) { /* (a restart needs the report to know why it ended) */
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/gpuft.XXXXXX", t && *t ? t : "/tmp");
    if (mkdtemp(tmpdir)) {
      snprintf(report, sizeof report, "%s/report.json", tmpdir);
      setenv("GPUFT_REPORT", report, 1);
      setenv("GPUFT_REPORT_TEMPORARY", "1", 1); /* the summary does not name it */
    } else {
      tmpdir[0] = 0;
    }
  }
  /* --restarts=N: a program that failed (a non-zero exit status or a signal) after
   * losing its GPU context (a kernel's fault: the process cannot use the GPU again,
   * docs/design.md "Bringing back a lost context") runs again from the start, up to
   * N times. A flip does not strike twice: the one-shot
   * injections (GPUFT_INJECT, SIMCUDA_FLIP) are not given to a rerun; a rate of
   * random flips (SIMCUDA_FLIP_RATE) stays, as a GPU's would. */
  int st = -1;
  for (int attempt = 0;; attempt++) {
    pid_t pid = 0;
    st = run(argv + i, report, !quiet, &pid);
    char why[96];
    /* (a program that ended well after the loss, as one that handles it may, is done) */
    if (st == -1 || attempt >= restarts || (WIFEXITED(st) && WEXITSTATUS(st) == 0) ||
        !context_lost(report, pid, why, sizeof why))
      break;
    fprintf(stderr, "gpuft: the program lost its GPU context (%s): running it again from the start "
                    "(restart %d of %d)\n", why, attempt + 1, (int)restarts);
    unsetenv("GPUFT_INJECT");
    unsetenv("SIMCUDA_FLIP");
  }
  if (tmpdir[0]) ft_remove_dir(tmpdir);
  if (st == -1) return 126;
  if (WIFSIGNALED(st)) { /* die the same way, so the caller sees what the program did */
    int sig = WTERMSIG(st);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    fflush(NULL);
    raise(sig);
    return 128 + sig;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 126;
}
