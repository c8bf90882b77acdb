/* campaign.c: `gpuft campaign`: a golden run, then N runs with one fault each
 * (GPUFT_INJECT, the simulator's SIMCUDA_FLIP) or random flips at a rate
 * (SIMCUDA_FLIP_RATE), under gpuft or without it (--native), each classified
 * (campaign_outcome.c), and a table of outcomes with Wilson 95 % intervals, or JSON. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "campaign.h"
#include "faultspec.h"
#include "report_json.h"

#define MAX_AT 16
#define MAX_ARGS 16
#define MAX_COMPARE 16
#define MAX_IGNORE 16
#define PROBE_OFFSET "1152921504606846976" /* 2^60: clipped to the allocation's last byte */

#define FT_STR_(x) #x
#define FT_STR(x) FT_STR_(x)
enum { AT_CALL, AT_LAUNCH, AT_D2H };

typedef struct { /* one --at alternative */
  const char *text;
  int kind;
  char kernel[128];
  uint64_t k_lo, k_hi; /* k drawn uniformly in [k_lo, k_hi]; call with 0: in [1, calls counted] */
  int args[MAX_ARGS], nargs; /* launch: target argument drawn among these; 0: random */
  int fields[MAX_ARGS];      /* arg:<i>.<byte>: the pointer at that byte of it (-1: the argument) */
  int random_target;         /* d2h: any allocation instead of the copy's source */
} at_t;

typedef struct {
  int n, jobs, json, verbose, fail_on_sdc;
  ft_injector_t inj;
  int inj_named;    /* --injector was given */
  int native;       /* --native: the program alone, without gpuft (the baseline) */
  const char *rate; /* --rate: flips per GiB per second, as given (SIMCUDA_FLIP_RATE) */
  double rate_value;
  const char *bits; /* --bits: bits= of the fault grammar, maybe with ",stuck" */
  int bits_named;
  int stuck;
  uint64_t seed;
  double tfactor;
  at_t at[MAX_AT];
  int nat;
  const char *compare[MAX_COMPARE]; /* --compare=file:PATH */
  int ncompare, cmp_stdout;          /* cmp_stdout: stdout compared too (the default) */
  regex_t ignore[MAX_IGNORE];        /* --ignore: lines left out of every comparison */
  const char *ignore_text[MAX_IGNORE];
  int nignore;
  const char *check;   /* --check=SCRIPT GOLDEN RUN: the user's own comparison */
  const char *results; /* --results=FILE: one line per finished run, resumable */
  const char *plot;    /* --plot=FILE.png */
  int progress;        /* a progress line on stderr (a terminal) */
  const char *lib_override;
  char **prog;
  char lib[PATH_MAX], tmp[PATH_MAX / 2];
  int log_info; /* GPUFT_LOG is ours (info): "GPUFT_INJECT: flipped" is on stderr */
  int restarts; /* --restarts: a run that failed after losing its GPU context runs again */
} cfg_t;

static const char *const inj_names[] = {"gpuft", "sim", "rate"}; /* --json, --results */

typedef struct {
  char spec[2048]; /* GPUFT_INJECT, SIMCUDA_FLIP or SIMCUDA_FLIP_RATE; "" for the golden run */
  const char *probe; /* a probe's GPUFT_INJECT (sim: sizes the target allocation) */
  char dir[PATH_MAX];
  pid_t pid;
  double start, deadline;
  int status;
  ft_obs_t obs;
  ft_outcome_t out;
  char *out_text, *err_text, *report;
  size_t out_len;
  char *file_text[MAX_COMPARE]; /* the --compare files, NULL if not written */
  size_t file_len[MAX_COMPARE];
  int skip; /* finished in an earlier, interrupted campaign (--results) */
  int done; /* classified (in this campaign or the earlier one) */
  int restarted;          /* --restarts: times it ran again from the start */
  int first_injected, first_faults; /* the first attempt's (the fault was there) */
} run_t;

static volatile sig_atomic_t g_stop;
static void on_stop(int sig) { g_stop = sig; }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 14, n = 0, got;
  char *s = malloc(cap);
  while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (cap - n < 2) {
      char *t = realloc(s, cap *= 2);
      if (!t) free(s);
      s = t;
    }
  }
  fclose(f);
  if (s) s[n] = 0;
  if (len) *len = n;
  return s;
}

/* ---- Parsing ---- */

static int parse_u64(const char *s, uint64_t *out) {
  char *end;
  if (!s || !*s || *s == '-') return -1;
  errno = 0;
  *out = strtoull(s, &end, 10);
  return *end || errno ? -1 : 0;
}

/* "<k>" or "<lo>-<hi>"; err says what is wrong */
static int parse_range(const char *s, uint64_t *lo, uint64_t *hi, char *err, size_t cap) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", s);
  char *dash = strchr(buf, '-');
  if (dash) *dash = 0;
  if (parse_u64(buf, lo) || (dash ? parse_u64(dash + 1, hi) : (*hi = *lo, 0)))
    return snprintf(err, cap, "\"%s\": the count is a number from 1, or a range LO-HI", s), -1;
  if (*lo < 1) return snprintf(err, cap, "\"%s\": counts start at 1 (the first event)", s), -1;
  if (*hi < *lo) return snprintf(err, cap, "\"%s\": a range LO-HI needs LO <= HI", s), -1;
  return 0;
}

#define AT_GRAMMAR                                                                           \
  "call[:N] | launch:KERNEL:K[,target=arg:I[.BYTE][|J...]] | d2h:K[,target=src|random]"     \
  " (K, N: a number from 1 or a range LO-HI; the targets as in GPUFT_INJECT)"

/* target=arg:<i>[.<byte>][|<j>...] (GPUFT_INJECT's spelling; arg=<i>|<j> the older one) */
static int parse_args_target(char *list, at_t *a, char *err, size_t cap) {
  for (char *save = NULL, *t = strtok_r(list, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
    if (!strncmp(t, "arg:", 4)) t += 4;
    char *dot = strchr(t, '.');
    uint64_t v, f = 0;
    if (dot) *dot = 0;
    if (a->nargs == MAX_ARGS) return snprintf(err, cap, "at most %d arguments", MAX_ARGS), -1;
    if (parse_u64(t, &v) || v >= 128 || (dot && (parse_u64(dot + 1, &f) || f > 4096 - 8)))
      return snprintf(err, cap, "target=arg:<i>[.<byte>]: the argument's index (0..127), and the byte "
                                "of a pointer inside a struct argument"), -1;
    a->fields[a->nargs] = dot ? (int)f : -1;
    a->args[a->nargs++] = (int)v;
  }
  return a->nargs ? 0 : (snprintf(err, cap, "target=arg: names no argument"), -1);
}

/* --at: call[:<n>] | launch:<kernel>:<k>[,target=arg:<i>[.<byte>][|<j>...]] |
 * d2h:<k>[,target=src|random]; k and n may be ranges lo-hi. err: why not. */
static int parse_at(const char *text, at_t *a, char *err, size_t cap) {
  memset(a, 0, sizeof *a);
  a->text = text;
  char buf[256], *opt;
  if (strlen(text) >= sizeof buf) return snprintf(err, cap, "too long"), -1;
  if (strchr(text, ';'))
    return snprintf(err, cap, "one alternative per --at: repeat --at for each"), -1;
  strcpy(buf, text);
  if (!strncmp(buf, "at=", 3)) memmove(buf, buf + 3, strlen(buf + 3) + 1); /* GPUFT_INJECT's key */
  if ((opt = strchr(buf, ','))) *opt++ = 0;
  if (!strcmp(buf, "call")) {
    a->kind = AT_CALL;
  } else if (!strncmp(buf, "call:", 5)) {
    a->kind = AT_CALL;
    if (parse_range(buf + 5, &a->k_lo, &a->k_hi, err, cap)) return -1;
  } else if (!strncmp(buf, "d2h:", 4)) {
    a->kind = AT_D2H;
    if (parse_range(buf + 4, &a->k_lo, &a->k_hi, err, cap)) return -1;
  } else if (!strncmp(buf, "launch:", 7)) {
    a->kind = AT_LAUNCH;
    char *colon = strrchr(buf + 7, ':');
    if (!colon || colon == buf + 7)
      return snprintf(err, cap, "launch:KERNEL:K needs a kernel-name substring and a count"), -1;
    if ((size_t)(colon - buf - 7) >= sizeof a->kernel) return snprintf(err, cap, "kernel name too long"), -1;
    memcpy(a->kernel, buf + 7, (size_t)(colon - buf - 7));
    if (parse_range(colon + 1, &a->k_lo, &a->k_hi, err, cap)) return -1;
  } else if (!strncmp(buf, "h2d", 3) || !strncmp(buf, "sync", 4)) {
    return snprintf(err, cap, "\"%s\": campaigns aim at call, launch or d2h events", buf), -1;
  } else {
    return snprintf(err, cap, "\"%s\": the event is call, launch or d2h", buf), -1;
  }
  if (!opt) return 0;
  if (!strncmp(opt, "target=", 7)) opt += 7;
  if (!strcmp(opt, "src") || !strcmp(opt, "random")) {
    if (a->kind != AT_D2H)
      return snprintf(err, cap, "target=%s: only with d2h (a launch's target is arg:<i>)", opt), -1;
    a->random_target = opt[0] == 'r';
    return 0;
  }
  if (!strncmp(opt, "arg=", 4) || !strncmp(opt, "arg:", 4)) {
    if (a->kind != AT_LAUNCH) return snprintf(err, cap, "target=arg: only with launch events"), -1;
    return parse_args_target(opt + (opt[3] == '=' ? 4 : 0), a, err, cap);
  }
  return snprintf(err, cap, "\"%s\": the target is target=arg:I[.BYTE][|J...] (launch) or target=src|random (d2h)", opt), -1;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: gpuft campaign -n N [--bits MODEL] [--at SPEC]... [--seed S]\n"
          "                      [--injector gpuft|sim] [--rate R] [--native] [--restarts N]\n"
          "                      [--compare stdout|exit|file:PATH]...\n"
          "                      [--ignore REGEX]... [--check SCRIPT] [--results FILE]\n"
          "                      [--plot FILE.png] [--timeout-factor F] [-j JOBS] [--json]\n"
          "                      [--fail-on-sdc] [-v] [--lib PATH] -- program [args...]\n");
}

static void help(void) {
  usage(stdout);
  printf(
      "\nRuns program once without a fault (the golden run, twice, to check that its output\n"
      "is deterministic), then N times with one fault each, under gpuft; classifies every\n"
      "run and prints counts, percentages and 95 %% Wilson intervals (docs/campaign.md).\n\n"
      "  -n, --runs N          runs with a fault [required]\n"
      "  --bits MODEL          the fault model, bits= of GPUFT_INJECT [1]:\n"
      "      1 | 2 | burst:K        one bit, two, or K adjacent bits of one 128-byte block\n"
      "      byte | word | sector   a random pattern (2 bits or more) of one aligned byte,\n"
      "                             32-bit word or 32-byte sector\n"
      "      zero                   a 128-byte block zeroed\n"
      "      MODEL,stuck            the cells keep their new value after every write\n"
      "                             (--injector sim only)\n"
      "  --at SPEC             where (repeat: each run picks one alternative) [call]\n"
      "      call[:N]               at the N-th intercepted driver call (default: uniform\n"
      "                             over the golden run's calls), a random allocation\n"
      "      launch:KERNEL:K[,target=arg:I[.BYTE][|J...]]  before the K-th launch of a\n"
      "                             kernel whose name contains KERNEL, in the allocation\n"
      "                             argument I points into (arg:I.BYTE: the pointer at\n"
      "                             byte BYTE of a struct argument; default: a random\n"
      "                             allocation); the targets are GPUFT_INJECT's\n"
      "      d2h:K[,target=src|random]  before the K-th device-to-host copy, in its source\n"
      "      K and N may be ranges LO-HI (drawn uniformly per run)\n"
      "  --seed S              campaign seed; run i uses a seed derived from S and i [1]\n"
      "  --injector gpuft|sim  GPUFT_INJECT (any GPU), or the simulator's SIMCUDA_FLIP\n"
      "                        (launch:...,target=arg:I and d2h: only) [gpuft]\n"
      "  --rate R              instead of one placed fault, random flips at R per GiB of\n"
      "                        device memory per second, seeded per run (the simulator's\n"
      "                        SIMCUDA_FLIP_RATE; not with --at, --bits, --injector gpuft);\n"
      "                        a run with no flip is \"not injected\"\n"
      "  --native              run the program without gpuft (the baseline): outcomes are\n"
      "                        masked, sdc, crash or hang (with --rate or --injector sim)\n"
      "  --restarts N          a run that failed after losing its GPU context (the report's\n"
      "                        context_lost) runs again from the start, up to N times, as\n"
      "                        gpuft --restarts does (the placed fault is not given again;\n"
      "                        random flips go on); its outcome is the last attempt's, and\n"
      "                        recovered where that one is right [0]\n"
      "  --compare stdout|exit|file:PATH\n"
      "                        what is compared with the golden run (repeatable) [stdout]:\n"
      "                        exit: the status only; file:PATH: a file the program writes\n"
      "                        (the runs then go one at a time, since they all write PATH)\n"
      "  --ignore REGEX        leave out the lines it matches (POSIX extended; timings,\n"
      "                        dates) in every compared output (repeatable)\n"
      "  --check SCRIPT        judge each output with SCRIPT GOLDEN RUN (exit 0: acceptable)\n"
      "                        instead of comparing bytes\n"
      "  --results FILE        one JSON line per finished run; the same command resumes an\n"
      "                        interrupted campaign\n"
      "  --plot FILE.png       the outcome bars with their 95 %% intervals (matplotlib)\n"
      "  --timeout-factor F    a run is a hang after F x the golden time (at least 1 s) [10]\n"
      "  -j, --jobs J          runs at a time [2]\n"
      "  --json                one JSON object on stdout instead of the table\n"
      "  --fail-on-sdc         exit 1 if any run ended in silent data corruption\n"
      "  -v, --verbose         one line per run on stderr\n"
      "  --lib PATH            the libgpuft.so to preload\n"
      "Exit status: 0, 1 (--fail-on-sdc and a silent data corruption), 2 (the campaign\n"
      "could not run).\n");
}

/* ---- Running programs ---- */

/* environ without the variables the campaign owns, plus ours; report NULL: the program
 * alone (--native), without gpuft, its report or its log. */
static char **make_env(const cfg_t *c, const char *report, const char *var, const char *spec) {
  extern char **environ;
  static const char *const owned[] = {"LD_PRELOAD", "GPUFT_INJECT", "GPUFT_REPORT", "SIMCUDA_FLIP",
                                      "SIMCUDA_FLIP_RATE", "SIMCUDA_LOG", "GPUFT_LOG"};
  int sim_log = c->inj != FT_INJ_GPUFT && var; /* the simulator logs its flips: they are counted */
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 8, sizeof *env);
  if (!env) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int drop = 0;
    for (size_t j = 0; j < sizeof owned / sizeof *owned; j++) {
      size_t l = strlen(owned[j]);
      if (!strncmp(environ[i], owned[j], l) && environ[i][l] == '=') drop = 1;
    }
    /* GPUFT_LOG and SIMCUDA_LOG are the user's unless the campaign needs them; so is a
     * background SIMCUDA_FLIP_RATE under placed faults */
    if (drop && !strncmp(environ[i], "GPUFT_LOG=", 10) && !(c->log_info && report)) drop = 0;
    if (drop && !strncmp(environ[i], "SIMCUDA_LOG=", 12) && !sim_log) drop = 0;
    if (drop && !strncmp(environ[i], "SIMCUDA_FLIP_RATE=", 18) && c->inj != FT_INJ_RATE) drop = 0;
    if (!drop) env[k++] = strdup(environ[i]);
  }
  const char *old = getenv("LD_PRELOAD"), *san = "";
#ifdef GPUFT_SAN_RUNTIME
  san = GPUFT_SAN_RUNTIME ":";
#endif
  if (!report) {
    if (old && asprintf(&env[k++], "LD_PRELOAD=%s", old) < 0) env[k - 1] = NULL;
  } else {
    if (asprintf(&env[k++], "LD_PRELOAD=%s%s%s%s", san, c->lib, old && *old ? ":" : "",
                 old && *old ? old : "") < 0)
      env[k - 1] = NULL;
    if (asprintf(&env[k++], "GPUFT_REPORT=%s", report) < 0) env[k - 1] = NULL;
    if (c->log_info) env[k++] = strdup("GPUFT_LOG=info");
  }
  if (var && asprintf(&env[k++], "%s=%s", var, spec) < 0) env[k - 1] = NULL;
  if (sim_log) env[k++] = strdup("SIMCUDA_LOG=1");
  env[k] = NULL;
  for (size_t i = 0; i < k; i++)
    if (!env[i]) return NULL; /* out of memory: leaks, the campaign stops anyway */
  return env;
}

static void free_env(char **env) {
  for (size_t i = 0; env && env[i]; i++) free(env[i]);
  free(env);
}

/* Starts r in its own process group (a hang is killed with all its children), stdin
 * from /dev/null, stdout and stderr into files of the run's folder. */
static int start(const cfg_t *c, run_t *r, double timeout) {
  char report[PATH_MAX + 16], out[PATH_MAX + 16], err[PATH_MAX + 16];
  /* per process: a child the program forks and execs (simpleIPC's pattern) runs
   * with the same GPUFT_REPORT, and would overwrite the program's report */
  snprintf(report, sizeof report, "%s/report-%%p.json", r->dir);
  snprintf(out, sizeof out, "%s/stdout", r->dir);
  snprintf(err, sizeof err, "%s/stderr", r->dir);
  if (mkdir(r->dir, 0700) != 0 && errno != EEXIST) return -1;
  for (int i = 0; i < c->ncompare; i++) unlink(c->compare[i]);
  static const char *const vars[] = {"GPUFT_INJECT", "SIMCUDA_FLIP", "SIMCUDA_FLIP_RATE"};
  const char *var = r->probe ? "GPUFT_INJECT" : !r->spec[0] ? NULL : vars[c->inj];
  /* a restart (--restarts): a placed fault does not strike twice; random flips go on,
   * drawn afresh (another seed), as a GPU's would */
  char spec[sizeof r->spec + 32];
  snprintf(spec, sizeof spec, "%s", r->probe ? r->probe : r->spec);
  if (r->restarted && c->inj != FT_INJ_RATE) var = NULL;
  char *seed = r->restarted && c->inj == FT_INJ_RATE ? strstr(spec, ",seed=") : NULL;
  if (seed) snprintf(seed, sizeof spec - (size_t)(seed - spec), ",seed=%ju",
                     (uintmax_t)(strtoull(seed + 6, NULL, 10) ^ (0x9e3779b97f4a7c15ull * (uint64_t)r->restarted)) | 1);
  /* a probe asks gpuft where an --at event is, also for a native campaign */
  char **env = make_env(c, c->native && !r->probe ? NULL : report, var, spec);
  if (!env) return -1;
  fflush(NULL);
  r->start = now_s();
  r->deadline = timeout > 0 ? r->start + timeout : 0;
  pid_t pid = fork();
  if (pid < 0) {
    free_env(env);
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY), o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600),
        e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || o < 0 || e < 0) _exit(126);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execvpe(c->prog[0], c->prog, env);
    fprintf(stderr, "gpuft campaign: cannot run %s: %s\n", c->prog[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
  }
  setpgid(pid, pid); /* both sides: no race with a kill at the timeout */
  free_env(env);
  r->pid = pid;
  return 0;
}

void ft_remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char p[PATH_MAX + 256];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
      }
    closedir(d);
  }
  rmdir(dir);
}

/* The program exited: read what it left and remove its folder. */
static void collect(const cfg_t *c, run_t *r, int status) {
  ft_obs_t *o = &r->obs;
  o->seconds = now_s() - r->start;
  if (WIFSIGNALED(status) && !o->timed_out) o->signal = WTERMSIG(status);
  else if (WIFEXITED(status)) o->code = WEXITSTATUS(status);
  char p[PATH_MAX + 300];
  snprintf(p, sizeof p, "%s/stdout", r->dir);
  r->out_text = slurp(p, &r->out_len);
  snprintf(p, sizeof p, "%s/stderr", r->dir);
  r->err_text = slurp(p, NULL);
  for (int i = 0; i < c->ncompare; i++) r->file_text[i] = slurp(c->compare[i], &r->file_len[i]);
  /* gpuft's reports, one per process (report-<pid>.json): the program's (the one it
   * started, or the only one when it started CUDA through a wrapper), and those of
   * the children it started, forked or executed */
  int listed = 0, applied = 0, main_found = 0;
  char main_name[64];
  snprintf(main_name, sizeof main_name, "report-%d.json", (int)r->pid);
  DIR *d = opendir(r->dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strncmp(e->d_name, "report-", 7)) continue;
    snprintf(p, sizeof p, "%s/%s", r->dir, e->d_name);
    char *js = slurp(p, NULL);
    int is_main = !strcmp(e->d_name, main_name);
    if (js && ft_obs_add_report(o, js, &listed, &applied) == 0 && !main_found && (is_main || !r->report)) {
      free(r->report);
      r->report = js;
      js = NULL;
      main_found = is_main;
    }
    free(js);
  }
  if (d) closedir(d);
  ft_remove_dir(r->dir);
  int dropped = 0, flips = ft_obs_scan_stderr(r->err_text, r->probe ? FT_INJ_GPUFT : c->inj, &dropped);
  int sim = c->inj != FT_INJ_GPUFT && !r->probe;
  o->native = c->native && !r->probe;
  o->faults = c->inj == FT_INJ_RATE && !r->probe ? flips : applied;
  if (!r->spec[0] && !r->probe) o->injected = 0;
  else if (sim) o->injected = flips > 0; /* the simulator logs every flip */
  else if (applied || flips) o->injected = 1;
  else if (listed || c->log_info) o->injected = 0; /* the report or the log would say so */
  else o->injected = -1;
}

static void free_run(run_t *r);

/* --restarts: a run that failed (an exit status other than 0, a signal, no hang) after
 * its report said the GPU context was lost (`context_lost`) starts again from the
 * start, as `gpuft --restarts` would run it; 1 if it did. Its outcome is then the last
 * attempt's, its fault the first one's. */
static int restart(const cfg_t *c, run_t *r, double timeout) {
  if (!c->restarts || r->probe || c->native || r->restarted >= c->restarts || r->obs.timed_out) return 0;
  if (!r->obs.signal && r->obs.code == 0) return 0;
  char jerr[256];
  json_t *js = r->report ? ft_report_parse(r->report, jerr, sizeof jerr) : NULL;
  int lost = ft_report_context_lost(js) != NULL;
  json_decref(js);
  if (!lost) return 0;
  if (!r->restarted) r->first_injected = r->obs.injected, r->first_faults = r->obs.faults;
  r->restarted++;
  free_run(r);
  memset(&r->obs, 0, sizeof r->obs);
  if (start(c, r, timeout) != 0) {
    fprintf(stderr, "gpuft campaign: cannot restart a run: %s\n", strerror(errno));
    g_stop = SIGTERM;
    return 0;
  }
  return 1;
}

/* Runs runs[0..n) at most jobs at a time; a run past its timeout is killed with its
 * process group. Returns 0, or -1 if interrupted. */
static int run_all(const cfg_t *c, run_t *runs, int n, int jobs, double timeout,
                   void (*done)(const cfg_t *, run_t *, int)) {
  run_t *active[64] = {0};
  int next = 0, nactive = 0, finished = 0;
  if (jobs > 64) jobs = 64;
  while (finished < n) {
    while (next < n && runs[next].skip) { /* done in an earlier campaign (--results) */
      next++;
      finished++;
    }
    while (nactive < jobs && next < n && !g_stop && !runs[next].skip) {
      run_t *r = &runs[next];
      snprintf(r->dir, sizeof r->dir, "%s/run%d", c->tmp, next);
      if (start(c, r, timeout) != 0) {
        fprintf(stderr, "gpuft campaign: cannot start a run: %s\n", strerror(errno));
        g_stop = SIGTERM;
        break;
      }
      for (int s = 0; s < jobs; s++)
        if (!active[s]) {
          active[s] = r;
          break;
        }
      nactive++;
      next++;
    }
    if (g_stop) {
      for (int s = 0; s < jobs; s++)
        if (active[s]) {
          kill(-active[s]->pid, SIGKILL);
          while (waitpid(active[s]->pid, NULL, 0) < 0 && errno == EINTR) {
          }
          ft_remove_dir(active[s]->dir);
        }
      return -1;
    }
    int st;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid > 0) {
      for (int s = 0; s < jobs; s++)
        if (active[s] && active[s]->pid == pid) {
          kill(-pid, SIGKILL); /* what the program left running in its group */
          collect(c, active[s], st);
          if (restart(c, active[s], timeout)) continue; /* the same slot, running again */
          if (active[s]->restarted) { /* the fault struck the first attempt */
            if (active[s]->first_injected) active[s]->obs.injected = active[s]->first_injected;
            active[s]->obs.faults += active[s]->first_faults;
          }
          if (done) done(c, active[s], (int)(active[s] - runs));
          active[s] = NULL;
          nactive--;
          finished++;
        }
      continue;
    }
    double t = now_s();
    for (int s = 0; s < jobs; s++)
      if (active[s] && active[s]->deadline && t > active[s]->deadline && !active[s]->obs.timed_out) {
        active[s]->obs.timed_out = 1;
        kill(-active[s]->pid, SIGKILL);
      }
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  return 0;
}

static void free_run(run_t *r) {
  free(r->out_text);
  free(r->err_text);
  free(r->report);
  r->out_text = r->err_text = r->report = NULL;
  for (int i = 0; i < MAX_COMPARE; i++) {
    free(r->file_text[i]);
    r->file_text[i] = NULL;
  }
}

/* ---- The faults ---- */

/* The fault of run i: a function of the campaign's seed and i only, so the results do
 * not depend on how many runs go at a time. */
static void make_spec(const cfg_t *c, int i, uint64_t calls, char *out, size_t cap) {
  uint64_t rs = c->seed * 0x2545f4914f6cdd1dull + (uint64_t)i + 1;
  ftc_mix(&rs);
  if (c->inj == FT_INJ_RATE) { /* seed 0 would be the simulator's "seed from the clock" */
    snprintf(out, cap, "%s,seed=%ju", c->rate, (uintmax_t)(ftc_mix(&rs) >> 1 | 1));
    return;
  }
  const at_t *a = &c->at[ftc_mix(&rs) % (uint64_t)c->nat];
  uint64_t k = a->k_lo + (a->k_hi > a->k_lo ? ftc_mix(&rs) % (a->k_hi - a->k_lo + 1) : 0);
  if (a->kind == AT_CALL && !a->k_lo) k = 1 + ftc_mix(&rs) % (calls ? calls : 1);
  int ai = a->nargs ? (int)(ftc_mix(&rs) % (uint64_t)a->nargs) : -1;
  uint64_t seed = ftc_mix(&rs) >> 1;
  char event[200];
  /* the same text for both injectors: the simulator draws the byte and the bits as
   * GPUFT_INJECT does (common/faultspec.c), in the target's bytes from its pointer, or
   * in the bytes the copy reads */
  char target[32] = "random";
  if (ai >= 0 && a->fields[ai] >= 0) snprintf(target, sizeof target, "arg:%d.%d", a->args[ai], a->fields[ai]);
  else if (ai >= 0) snprintf(target, sizeof target, "arg:%d", a->args[ai]);
  else if (a->kind == AT_D2H && !a->random_target) strcpy(target, "src");
  if (a->kind == AT_LAUNCH) snprintf(event, sizeof event, "launch:%s:%ju", a->kernel, (uintmax_t)k);
  else snprintf(event, sizeof event, "%s:%ju", a->kind == AT_D2H ? "d2h" : "call", (uintmax_t)k);
  snprintf(out, cap, "at=%s,target=%s,bits=%s,seed=%ju", event, target, c->bits, (uintmax_t)seed);
}

/* --injector sim: the simulator aims at a launch argument or a copy source only. */
static int check_sim_at(const cfg_t *c) {
  for (int a = 0; a < c->nat; a++) {
    const at_t *at = &c->at[a];
    int field = 0;
    for (int i = 0; i < at->nargs; i++) field |= at->fields[i] >= 0;
    if (at->kind == AT_CALL || at->random_target || (at->kind == AT_LAUNCH && !at->nargs) || field) {
      fprintf(stderr, "gpuft campaign: --injector sim: --at %s: the simulator aims at a pointer "
                      "argument (launch:KERNEL:K,target=arg:I) or a copy source (d2h:K) only\n", at->text);
      return -1;
    }
  }
  return 0;
}

/* One probe run per --at alternative (and launch argument) before the campaign: a
 * GPUFT_INJECT fault at the first event of the alternative, at an offset past the
 * end, which gpuft clips to the allocation's last byte. Its report says whether the
 * event happens at all (an --at that never matches stops the campaign here, not after
 * N runs that inject nothing) and, for the simulator, the target's size (it cannot
 * aim at a random byte of an allocation by itself). */
static int probe_at(cfg_t *c, double timeout) {
  for (int a = 0; a < c->nat; a++) {
    at_t *at = &c->at[a];
    if (at->kind == AT_CALL && !at->k_lo) continue; /* drawn among the golden run's calls */
    for (int i = 0; i < (at->nargs ? at->nargs : 1); i++) {
      char spec[300];
      char field[16] = "";
      if (at->kind == AT_LAUNCH && at->nargs && at->fields[i] >= 0) snprintf(field, sizeof field, ".%d", at->fields[i]);
      if (at->kind == AT_LAUNCH && at->nargs)
        snprintf(spec, sizeof spec, "at=launch:%s:%ju,target=arg:%d%s,offset=" PROBE_OFFSET,
                 at->kernel, (uintmax_t)at->k_lo, at->args[i], field);
      else if (at->kind == AT_LAUNCH)
        snprintf(spec, sizeof spec, "at=launch:%s:%ju,target=random,offset=" PROBE_OFFSET,
                 at->kernel, (uintmax_t)at->k_lo);
      else if (at->kind == AT_D2H)
        snprintf(spec, sizeof spec, "at=d2h:%ju,target=src,offset=" PROBE_OFFSET, (uintmax_t)at->k_lo);
      else
        snprintf(spec, sizeof spec, "at=call:%ju,target=random,offset=" PROBE_OFFSET, (uintmax_t)at->k_lo);
      run_t r = {.probe = spec};
      if (run_all(c, &r, 1, 1, timeout, NULL) != 0) return -1;
      char err[256];
      json_t *js = r.report ? ft_report_parse(r.report, err, sizeof err) : NULL;
      json_t *inj = json_array_get(json_object_get(js, "injections"), 0);
      /* the report, or gpuft's log if the fault killed the program before it */
      int applied = json_is_true(json_object_get(inj, "applied")) || r.obs.injected == 1;
      json_decref(js);
      free_run(&r);
      if (!applied) {
        fprintf(stderr, "gpuft campaign: --at %s never happens in this program: ", at->text);
        if (at->kind == AT_LAUNCH)
          fprintf(stderr, "no launch %ju of a kernel whose name contains \"%s\"%s (GPUFT_LOG=debug "
                          "names the kernels gpuft sees)\n", (uintmax_t)at->k_lo, at->kernel,
                  at->nargs ? " with a device pointer in that argument" : "");
        else if (at->kind == AT_D2H)
          fprintf(stderr, "fewer than %ju device-to-host copies of protected memory\n", (uintmax_t)at->k_lo);
        else
          fprintf(stderr, "fewer than %ju intercepted driver calls\n", (uintmax_t)at->k_lo);
        return -1;
      }
    }
  }
  return 0;
}

/* ---- Output ---- */

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

typedef struct {
  uint64_t count[FT_N_OUTCOMES], injected;
  uint64_t several_faults; /* injected runs with faults in several processes */
  uint64_t restarted;      /* --restarts: runs that ran again after losing their context */
  uint64_t flips;          /* --rate: the flips that landed, over all runs */
  double golden_s, timeout_s, wall_s;
  int golden_code;
  uint64_t driver_calls, calls; /* calls: those GPUFT_INJECT's at=call:N counts */
  char gpu[128];                /* the golden run's GPU, as its report names it */
} summary_t;

/* Without gpuft nothing is corrected, recovered or reported: no such class. */
static int impossible(const cfg_t *c, int k) {
  return c->native && (k == FT_OUT_CORRECTED || k == FT_OUT_RECOVERED || k == FT_OUT_DUE);
}

static void print_table(const cfg_t *c, const summary_t *s) {
  int rate = c->inj == FT_INJ_RATE;
  printf("gpuft campaign:");
  for (char **a = c->prog; *a; a++) printf(" %s", *a);
  if (rate) {
    printf("\n  %d runs, random flips at %s per GiB per second (simulator), seed %ju", c->n, c->rate,
           (uintmax_t)c->seed);
  } else {
    printf("\n  %d runs, faults bits=%s (%s injector), seed %ju, at", c->n, c->bits,
           c->inj == FT_INJ_SIM ? "simulator" : "gpuft", (uintmax_t)c->seed);
    for (int i = 0; i < c->nat; i++) printf("%s %s", i ? " or" : "", c->at[i].text);
  }
  if (c->native)
    printf(", without gpuft (native)\n  golden run without gpuft: exit %d, %.3f s; hang timeout %.2f s\n\n",
           s->golden_code, s->golden_s, s->timeout_s);
  else
    printf("%s\n  golden run on %s: exit %d, %.3f s, %ju driver calls (%ju for at=call); hang timeout %.2f s\n\n",
           rate ? ", under gpuft" : "", s->gpu[0] ? s->gpu : "an unnamed GPU", s->golden_code, s->golden_s,
           (uintmax_t)s->driver_calls, (uintmax_t)s->calls, s->timeout_s);
  printf("  %-24s %6s %7s   %s\n", "outcome", "runs", "%", "95 % CI (Wilson)");
  for (int k = 0; k < FT_OUT_NOT_INJECTED; k++) {
    double lo, hi, pct = s->injected ? 100.0 * (double)s->count[k] / (double)s->injected : 0;
    ft_wilson(s->count[k], s->injected, 1.96, &lo, &hi);
    if (impossible(c, k))
      printf("  %-24s %6s %7s   %s\n", ft_outcome_names[k], "-", "-", "(needs gpuft)");
    else if (!s->injected) /* no run to estimate from: no percentage, no interval */
      printf("  %-24s %6ju %7s   %s\n", ft_outcome_names[k], (uintmax_t)s->count[k], "-", "-");
    else
      printf("  %-24s %6ju %6.1f%%   [%5.1f%%, %5.1f%%]\n", ft_outcome_names[k],
             (uintmax_t)s->count[k], pct, 100 * lo, 100 * hi);
  }
  printf("  %-24s %6ju\n", rate ? "total (faulted runs)" : "total (injected)", (uintmax_t)s->injected);
  if (rate) printf("  %-24s %6ju   (in the faulted runs)\n", "flips", (uintmax_t)s->flips);
  printf("  %-24s %6ju   (%s: not in the percentages)\n", "not injected",
         (uintmax_t)s->count[FT_OUT_NOT_INJECTED], rate ? "no flip landed" : "the fault was never applied");
  if (rate && !s->injected && s->count[FT_OUT_NOT_INJECTED] && c->rate_value > 0)
    printf("  (no flip in any run: SIMCUDA_FLIP_RATE needs the simulator (gpuft --sim campaign ...),\n"
           "   and a program that keeps device memory longer than the flips' 5 ms ticks)\n");
  if (s->several_faults)
    printf("  %-24s %6ju   (children the program started inherited GPUFT_INJECT and were struck too:\n"
           "  %-24s %6s   each such run's outcome is that of all its faults together)\n",
           "several processes hit", (uintmax_t)s->several_faults, "", "");
  if (c->restarts)
    printf("  %-24s %6ju   (lost their GPU context and ran again from the start, up to %d times;\n"
           "  %-24s %6s   the outcome is the last run's)\n", "restarted", (uintmax_t)s->restarted, c->restarts, "", "");
  printf("  campaign time %.1f s, %d run(s) at a time\n", s->wall_s, c->jobs);
  uint64_t finished = s->injected + s->count[FT_OUT_NOT_INJECTED];
  if (finished < (uint64_t)c->n) printf("  (interrupted: %ju of %d runs finished)\n", (uintmax_t)finished, c->n);
}

static void print_json(FILE *f, const cfg_t *c, const summary_t *s, const run_t *runs) {
  fprintf(f, "{\"program\": [");
  for (char **a = c->prog; *a; a++) {
    if (a != c->prog) fprintf(f, ", ");
    json_str(f, *a);
  }
  fprintf(f, "], \"gpu\": ");
  json_str(f, s->gpu);
  char rate[40] = "null"; /* a JSON number, however it was spelt (".5", "1e5") */
  if (c->rate) snprintf(rate, sizeof rate, "%.17g", c->rate_value);
  fprintf(f, ", \"injector\": \"%s\", \"gpuft\": %s, \"rate\": %s, \"bits\": \"%s\", \"seed\": %ju, \"at\": [",
          inj_names[c->inj], c->native ? "false" : "true", rate, c->bits, (uintmax_t)c->seed);
  for (int i = 0; i < c->nat; i++) {
    if (i) fprintf(f, ", ");
    json_str(f, c->at[i].text);
  }
  fprintf(f, "],\n \"runs\": %d, \"injected\": %ju, \"not_injected\": %ju,\n", c->n,
         (uintmax_t)s->injected, (uintmax_t)s->count[FT_OUT_NOT_INJECTED]);
  if (c->inj == FT_INJ_RATE) fprintf(f, " \"flips\": %ju,\n", (uintmax_t)s->flips);
  fprintf(f, " \"golden\": {\"exit\": %d, \"seconds\": %.4f, \"driver_calls\": %ju}, "
         "\"calls_counted\": %ju, \"timeout_seconds\": %.3f, \"wall_seconds\": %.2f, \"jobs\": %d,\n \"outcomes\": {",
         s->golden_code, s->golden_s, (uintmax_t)s->driver_calls, (uintmax_t)s->calls, s->timeout_s, s->wall_s, c->jobs);
  for (int k = 0, first = 1; k < FT_OUT_NOT_INJECTED; k++) {
    double lo, hi, pct = s->injected ? 100.0 * (double)s->count[k] / (double)s->injected : 0;
    ft_wilson(s->count[k], s->injected, 1.96, &lo, &hi);
    if (impossible(c, k)) continue; /* not a class of this campaign, as "-" in the table */
    fprintf(f, "%s\n  \"%s\": {\"count\": %ju, \"percent\": %.2f, \"ci95\": [%.2f, %.2f]}", first ? "" : ",",
           ft_outcome_keys[k], (uintmax_t)s->count[k], pct, 100 * lo, 100 * hi);
    first = 0;
  }
  fprintf(f, "},\n \"sdc\": %ju, \"runs_with_several_faults\": %ju, \"restarts\": %d, \"restarted\": %ju,\n \"run_list\": [",
          (uintmax_t)s->count[FT_OUT_SDC], (uintmax_t)s->several_faults, c->restarts, (uintmax_t)s->restarted);
  for (int i = 0, first = 1; i < c->n; i++) {
    const run_t *r = &runs[i];
    if (!r->done) continue; /* an interrupted campaign lists what finished */
    fprintf(f, "%s\n  {\"run\": %d, \"outcome\": \"%s\", \"exit\": %d, \"signal\": %d, \"seconds\": %.3f, "
           "\"faults_applied\": %d, \"restarts\": %d, \"fault\": ", first ? "" : ",", i + 1, ft_outcome_keys[r->out],
           r->obs.code, r->obs.signal, r->obs.seconds, r->obs.faults, r->restarted);
    first = 0;
    json_str(f, r->spec);
    fprintf(f, "}");
  }
  fprintf(f, "\n ]}\n");
}

/* ---- The campaign ---- */

/* cuGetProcAddress calls of a report: counted in driver_calls but not by GPUFT_INJECT's
 * at=call:N (they go through their own door), so a random call is drawn without them. */
static uint64_t resolve_calls(json_t *report) {
  const char *name;
  json_t *v;
  uint64_t n = 0;
  json_object_foreach(json_object_get(report, "calls"), name, v)
    if (!strncmp(name, "cuGetProcAddress", 16) && json_is_integer(v)) n += (uint64_t)json_integer_value(v);
  return n;
}

static const run_t *g_golden;
static int g_bad_spec; /* gpuft did not understand GPUFT_INJECT: every run would be "not injected" */

/* text without the lines that match an --ignore expression (malloc'ed) */
static char *kept_lines(const cfg_t *c, const char *text, size_t len, size_t *out_len) {
  char *out = malloc(len + 1), *line = malloc(len + 1);
  size_t n = 0;
  for (size_t i = 0; out && line && i < len;) {
    size_t e = i;
    while (e < len && text[e] != '\n') e++;
    memcpy(line, text + i, e - i);
    line[e - i] = 0;
    int drop = 0;
    for (int k = 0; k < c->nignore && !drop; k++) drop = regexec(&c->ignore[k], line, 0, NULL, 0) == 0;
    if (!drop) {
      memcpy(out + n, text + i, e - i + (e < len));
      n += e - i + (e < len);
    }
    i = e + 1;
  }
  free(line);
  if (out) out[n] = 0;
  *out_len = n;
  return out;
}

static int write_file(const char *path, const char *s, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(s, 1, n, f);
  return fclose(f) == 0 && w == n ? 0 : -1;
}

/* One output of the golden run and of a run: the same, after --ignore, by bytes or
 * by the user's --check script (exit 0: acceptable). */
static int same_text(const cfg_t *c, const char *g, size_t gl, const char *r, size_t rl) {
  if (!g || !r) return !g && !r;
  size_t ga, ra;
  char *gk = kept_lines(c, g, gl, &ga), *rk = kept_lines(c, r, rl, &ra);
  int same = 0;
  if (gk && rk && !c->check) {
    same = ga == ra && !memcmp(gk, rk, ga);
  } else if (gk && rk) {
    char gp[PATH_MAX], rp[PATH_MAX];
    snprintf(gp, sizeof gp, "%s/check-golden", c->tmp);
    snprintf(rp, sizeof rp, "%s/check-run", c->tmp);
    if (write_file(gp, gk, ga) == 0 && write_file(rp, rk, ra) == 0) {
      fflush(NULL);
      pid_t pid = fork();
      if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) dup2(nul, 1);
        execl("/bin/sh", "sh", "-c", "exec \"$0\" \"$1\" \"$2\"", c->check, gp, rp, (char *)NULL);
        _exit(127);
      }
      int st = 0;
      while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
      same = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
      if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) >= 126)
        fprintf(stderr, "gpuft campaign: --check %s could not run (status %d)\n", c->check, WEXITSTATUS(st));
    }
  }
  free(gk);
  free(rk);
  return same;
}

/* --compare: stdout (default), exit (the status only, compared in ft_classify), and
 * file:PATH outputs. */
static int same_output(const cfg_t *c, const run_t *g, const run_t *r) {
  if (c->cmp_stdout && !same_text(c, g->out_text ? g->out_text : "", g->out_len,
                                  r->out_text ? r->out_text : "", r->out_len))
    return 0;
  for (int i = 0; i < c->ncompare; i++)
    if (!r->file_text[i] || !same_text(c, g->file_text[i], g->file_len[i], r->file_text[i], r->file_len[i]))
      return 0;
  return 1;
}

/* ---- Progress and the results file ---- */

static FILE *g_results;
static uint64_t g_count[FT_N_OUTCOMES];
static int g_done, g_todo; /* runs finished in this invocation, and to run in it */
static double g_t0;

static void progress(const cfg_t *c, int final) {
  if (!c->progress) return;
  if (final) {
    fprintf(stderr, "\r\033[K");
    return;
  }
  double t = now_s() - g_t0, eta = g_done ? t / g_done * (g_todo - g_done) : 0;
  fprintf(stderr, "\r\033[K  run %d/%d:", g_done, g_todo);
  for (int k = 0; k < FT_N_OUTCOMES; k++)
    if (g_count[k]) fprintf(stderr, " %ju %s,", (uintmax_t)g_count[k], ft_outcome_keys[k]);
  fprintf(stderr, " ETA %dm%02ds", (int)eta / 60, (int)eta % 60);
}

/* One line per finished run, flushed at once: an interrupted campaign loses only the
 * runs in flight, and the same command resumes it. */
static void record(const run_t *r, int i) {
  if (!g_results) return;
  json_t *o = json_pack("{s:i, s:s, s:i, s:i, s:f, s:i, s:i, s:s}", "run", i + 1, "outcome",
                        ft_outcome_keys[r->out], "exit", r->obs.code, "signal", r->obs.signal,
                        "seconds", r->obs.seconds, "faults_applied", r->obs.faults, "restarts", r->restarted,
                        "fault", r->spec);
  if (o) json_dumpf(o, g_results, JSON_COMPACT);
  json_decref(o);
  fputc('\n', g_results);
  fflush(g_results);
}

/* What a results file must match to be resumed: everything that decides the faults
 * and the classes (not -n, -j, the output format). */
static json_t *identity(const cfg_t *c) {
  json_t *id = json_object(), *a = json_array();
  for (char **p = c->prog; *p; p++) json_array_append_new(a, json_string(*p));
  json_object_set_new(id, "program", a);
  json_object_set_new(id, "injector", json_string(inj_names[c->inj]));
  /* only when given: the results files of earlier campaigns keep their identity */
  if (c->rate) json_object_set_new(id, "rate", json_string(c->rate));
  if (c->native) json_object_set_new(id, "native", json_true());
  if (c->restarts) json_object_set_new(id, "restarts", json_integer(c->restarts));
  json_object_set_new(id, "bits", json_string(c->bits));
  json_object_set_new(id, "seed", json_integer((json_int_t)c->seed));
  json_object_set_new(id, "at", a = json_array());
  for (int i = 0; i < c->nat; i++) json_array_append_new(a, json_string(c->at[i].text));
  json_object_set_new(id, "compare", a = json_array());
  if (c->cmp_stdout) json_array_append_new(a, json_string("stdout"));
  for (int i = 0; i < c->ncompare; i++) json_array_append_new(a, json_string(c->compare[i]));
  json_object_set_new(id, "ignore", a = json_array());
  for (int i = 0; i < c->nignore; i++) json_array_append_new(a, json_string(c->ignore_text[i]));
  json_object_set_new(id, "check", c->check ? json_string(c->check) : json_null());
  return id;
}

/* Opens --results: reads the runs an earlier campaign with the same identity
 * finished (marking them skip) and appends from there. -1 if it is another's. */
static int open_results(const cfg_t *c, run_t *runs, int *resumed) {
  *resumed = 0;
  json_t *id = identity(c);
  FILE *f = fopen(c->results, "r");
  int rc = 0;
  if (f) {
    char *line = NULL;
    size_t cap = 0;
    int first = 1;
    while (getline(&line, &cap, f) > 0) {
      json_t *o = json_loads(line, 0, NULL);
      if (first) {
        first = 0;
        if (!json_equal(json_object_get(o, "campaign"), id)) {
          fprintf(stderr, "gpuft campaign: %s holds the results of another campaign (other program, "
                          "faults or comparison): remove it or name another --results file\n", c->results);
          rc = -1;
        }
      } else if (o) { /* a line cut short by a kill is not a run */
        int i = (int)json_integer_value(json_object_get(o, "run")) - 1;
        const char *key = json_string_value(json_object_get(o, "outcome"));
        for (int k = 0; key && i >= 0 && i < c->n && k < FT_N_OUTCOMES; k++)
          if (!strcmp(key, ft_outcome_keys[k]) && !runs[i].skip) {
            runs[i].skip = runs[i].done = 1;
            runs[i].out = (ft_outcome_t)k;
            runs[i].obs.code = (int)json_integer_value(json_object_get(o, "exit"));
            runs[i].obs.signal = (int)json_integer_value(json_object_get(o, "signal"));
            runs[i].obs.seconds = json_number_value(json_object_get(o, "seconds"));
            runs[i].obs.faults = (int)json_integer_value(json_object_get(o, "faults_applied"));
            runs[i].restarted = (int)json_integer_value(json_object_get(o, "restarts"));
            (*resumed)++;
          }
      }
      json_decref(o);
      if (rc) break;
    }
    free(line);
    fclose(f);
    if (first) f = NULL; /* empty: start it */
  }
  if (!rc) {
    g_results = fopen(c->results, "a");
    if (!g_results) {
      fprintf(stderr, "gpuft campaign: cannot write %s: %s\n", c->results, strerror(errno));
      rc = -1;
    } else if (!f) {
      json_t *h = json_pack("{s:i, s:O}", "gpuft_campaign_results", 1, "campaign", id);
      json_dumpf(h, g_results, JSON_COMPACT);
      fputc('\n', g_results);
      fflush(g_results);
      json_decref(h);
    }
  }
  json_decref(id);
  return rc;
}

static void classify_run(const cfg_t *c, run_t *r, int i) {
  r->obs.same_output = same_output(c, g_golden, r);
  r->out = ft_classify(g_golden->obs.code, &r->obs);
  /* restarted after the fault cost the context, and right then: recovered (by the restart) */
  if (r->restarted && r->out == FT_OUT_MASKED && r->obs.injected > 0) r->out = FT_OUT_RECOVERED;
  if (r->err_text && strstr(r->err_text, "GPUFT_INJECT: cannot understand")) g_bad_spec = 1;
  if (c->verbose)
    fprintf(stderr, "gpuft campaign: run %d: %s (exit %d, signal %d, %.3f s) %s\n", i + 1,
            ft_outcome_names[r->out], r->obs.code, r->obs.signal, r->obs.seconds, r->spec);
  record(r, i);
  r->done = 1;
  g_count[r->out]++;
  g_done++;
  progress(c, 0);
  /* keep only what the summary needs: 1,000 runs of a chatty program add up */
  free_run(r);
}

/* ---- Command line ---- */

enum { O_BITS = 1000, O_AT, O_SEED, O_INJECTOR, O_COMPARE, O_IGNORE, O_CHECK, O_RESULTS, O_PLOT,
       O_TFACTOR, O_LIB, O_JSON, O_FAIL_SDC, O_RATE, O_NATIVE, O_RESTARTS };

/* The option as the user wrote it, for messages ("-n", "--runs"). */
static void given_name(char **argv, int optind_now, const char *optarg_now, char *out, size_t cap) {
  const char *a = argv[optind_now - 1];
  if (optarg_now && a == optarg_now && optind_now >= 2) a = argv[optind_now - 2];
  size_t n = strcspn(a, "=");
  if (a[0] == '-' && a[1] != '-' && n > 2) n = 2; /* -n5 */
  snprintf(out, cap, "%.*s", (int)n, a);
}

static int parse_args(cfg_t *c, int argc, char **argv) {
  static const struct option opts[] = {
      {"runs", required_argument, NULL, 'n'},     {"jobs", required_argument, NULL, 'j'},
      {"verbose", no_argument, NULL, 'v'},        {"help", no_argument, NULL, 'h'},
      {"bits", required_argument, NULL, O_BITS},  {"at", required_argument, NULL, O_AT},
      {"seed", required_argument, NULL, O_SEED},  {"injector", required_argument, NULL, O_INJECTOR},
      {"compare", required_argument, NULL, O_COMPARE}, {"ignore", required_argument, NULL, O_IGNORE},
      {"check", required_argument, NULL, O_CHECK}, {"results", required_argument, NULL, O_RESULTS},
      {"plot", required_argument, NULL, O_PLOT},  {"timeout-factor", required_argument, NULL, O_TFACTOR},
      {"lib", required_argument, NULL, O_LIB},    {"json", no_argument, NULL, O_JSON},
      {"fail-on-sdc", no_argument, NULL, O_FAIL_SDC}, {"rate", required_argument, NULL, O_RATE},
      {"native", no_argument, NULL, O_NATIVE},    {"restarts", required_argument, NULL, O_RESTARTS},
      {0, 0, 0, 0}};
  int opt, stdout_named = 0, exit_named = 0;
  optind = 1;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, "+:n:j:vh", opts, NULL)) != -1) {
    char name[64];
    given_name(argv, optind, optarg, name, sizeof name);
    const char *v = optarg;
    uint64_t u;
    char *end;
    int bad = 0;
    switch (opt) {
      case 'h': help(); exit(0);
      case 'v': c->verbose = 1; break;
      case O_JSON: c->json = 1; break;
      case O_FAIL_SDC: c->fail_on_sdc = 1; break;
      case 'n': bad = parse_u64(v, &u) || u < 1 || u > 10000000; c->n = (int)u; break;
      case 'j': bad = parse_u64(v, &u) || u < 1 || u > 64; c->jobs = (int)u; break;
      case O_SEED: bad = parse_u64(v, &c->seed); break;
      case O_BITS: { /* bits= of the fault grammar, read by its parser */
        char spec[128], err[320];
        ftc_fault_t f = {0};
        snprintf(spec, sizeof spec, "at=call:1,bits=%s", v);
        if (strlen(v) > 48 || ftc_fault_parse(spec, &f, err, sizeof err) != 0 || f.nbit || f.have_offset ||
            f.target || f.seed != 1) {
          fprintf(stderr, "gpuft campaign: --bits %s: %s\n  --bits takes: 1 | 2 | burst:K | byte | word | "
                          "sector | zero, then ,stuck for the simulator's stuck cells\n", v,
                  strlen(v) > 48 ? "too long" : f.nbit || f.have_offset || f.target || f.seed != 1
                  ? "the model only (the campaign draws the rest)" : err);
          return -1;
        }
        c->bits = v;
        c->bits_named = 1;
        c->stuck = f.stuck;
        break;
      }
      case O_AT: {
        char err[256] = "at most " FT_STR(MAX_AT) " alternatives";
        if (c->nat == MAX_AT || parse_at(v, &c->at[c->nat], err, sizeof err) != 0) {
          fprintf(stderr, "gpuft campaign: --at %s: %s\n  --at takes: " AT_GRAMMAR "\n", v, err);
          return -1;
        }
        c->nat++;
        break;
      }
      case O_INJECTOR:
        bad = strcmp(v, "gpuft") && strcmp(v, "sim");
        c->inj = strcmp(v, "sim") ? FT_INJ_GPUFT : FT_INJ_SIM;
        c->inj_named = 1;
        break;
      case O_RATE: { /* read as the simulator reads it (strtod), so that it means the same */
        c->rate_value = strtod(v, &end);
        bad = end == v || *end || !(c->rate_value >= 0) || isinf(c->rate_value) || strlen(v) > 32;
        c->rate = v;
        break;
      }
      case O_NATIVE: c->native = 1; break;
      case O_RESTARTS: bad = parse_u64(v, &u) || u > 100; c->restarts = (int)u; break;
      case O_COMPARE: /* stdout | exit | file:PATH (a bare PATH: the old spelling) */
        if (!strcmp(v, "stdout")) stdout_named = 1;
        else if (!strcmp(v, "exit")) exit_named = 1;
        else if (!(bad = c->ncompare == MAX_COMPARE || !v[0] || !strcmp(v, "file:")))
          c->compare[c->ncompare++] = strncmp(v, "file:", 5) ? v : v + 5;
        break;
      case O_IGNORE:
        bad = c->nignore == MAX_IGNORE || regcomp(&c->ignore[c->nignore], v, REG_EXTENDED | REG_NOSUB) != 0;
        if (!bad) c->ignore_text[c->nignore++] = v;
        break;
      case O_CHECK: c->check = v; break;
      case O_RESULTS: c->results = v; break;
      case O_PLOT: c->plot = v; break;
      case O_TFACTOR: c->tfactor = strtod(v, &end); bad = *end || !(c->tfactor > 0); break;
      case O_LIB: c->lib_override = v; break;
      case ':':
        fprintf(stderr, "gpuft campaign: option '%s' needs a value\n", name);
        return -1;
      default:
        fprintf(stderr, "gpuft campaign: unknown option '%s' (gpuft campaign --help)\n", name);
        return -1;
    }
    if (bad) {
      fprintf(stderr, "gpuft campaign: invalid value for %s: '%s'\n", name, v);
      return -1;
    }
  }
  /* stdout is compared unless only files or the exit status were named */
  c->cmp_stdout = stdout_named || (!exit_named && !c->ncompare);
  if (optind >= argc || !c->n) {
    usage(stderr);
    fprintf(stderr, "gpuft campaign: %s\n", optind >= argc ? "no program given" : "-n N is required");
    return -1;
  }
  c->prog = argv + optind;
  return 0;
}

/* --rate and --native against the other options: what each combination would mean,
 * refused by name where it means nothing. */
static int check_modes(cfg_t *c) {
  const char *clash = NULL;
  if (c->rate && c->inj_named && c->inj == FT_INJ_GPUFT) clash = "--injector gpuft";
  else if (c->rate && c->nat) clash = "--at";
  else if (c->rate && c->bits_named) clash = "--bits";
  if (clash) {
    fprintf(stderr, "gpuft campaign: --rate: the simulator flips random bits at random times "
                    "(SIMCUDA_FLIP_RATE), not one placed fault: not with %s\n", clash);
    return -1;
  }
  if (c->rate) c->inj = FT_INJ_RATE;
  if (c->native && c->inj == FT_INJ_GPUFT) {
    fprintf(stderr, "gpuft campaign: --native runs the program without gpuft, so %s has nothing to "
                    "place its faults with (GPUFT_INJECT is gpuft's): use --injector sim or --rate R\n",
            c->inj_named ? "--injector gpuft" : "the default injector (gpuft)");
    return -1;
  }
  const char *pre = getenv("LD_PRELOAD");
  if (c->native && pre && strstr(pre, "libgpuft")) {
    fprintf(stderr, "gpuft campaign: --native: LD_PRELOAD already loads gpuft (%s): unset it for a "
                    "baseline without gpuft\n", pre);
    return -1;
  }
  return 0;
}

/* --plot: tools/campaign_plot.py (matplotlib) draws the outcome bars and their
 * intervals from the --json document; installed in share/gpuft next to bin/. */
static int plot(const cfg_t *c, const summary_t *s, const run_t *runs) {
  char script[PATH_MAX + 64] = "", json[PATH_MAX + 32], exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(script, sizeof script, "%s/../share/gpuft/campaign_plot.py", exe);
  }
#ifdef GPUFT_PLOT_SCRIPT
  if (!script[0] || access(script, R_OK) != 0) snprintf(script, sizeof script, "%s", GPUFT_PLOT_SCRIPT);
#endif
  snprintf(json, sizeof json, "%s/campaign.json", c->tmp);
  FILE *f = fopen(json, "w");
  if (!f) return -1;
  print_json(f, c, s, runs);
  fclose(f);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    /* the distribution's interpreter first: python3-matplotlib is installed for it,
     * and a python3 earlier in PATH (a virtual environment, pyenv) may lack it */
    const char *py = getenv("GPUFT_PYTHON");
    if (py && *py) execlp(py, py, script, json, c->plot, (char *)NULL);
    if (access("/usr/bin/python3", X_OK) == 0) execl("/usr/bin/python3", "python3", script, json, c->plot, (char *)NULL);
    execlp("python3", "python3", script, json, c->plot, (char *)NULL);
    fprintf(stderr, "gpuft campaign: --plot needs python3 (and matplotlib): %s\n", strerror(errno));
    _exit(127);
  }
  int st = 0;
  while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  unlink(json);
  return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int ft_campaign_main(int argc, char **argv, int (*find_lib)(const char *override, char *out)) {
  static cfg_t cfg;
  cfg_t *c = &cfg;
  *c = (cfg_t){.jobs = 2, .bits = "1", .seed = 1, .tfactor = 10};
  if (parse_args(c, argc, argv) != 0) return 2;
  if (check_modes(c) != 0) return 2;
  if (c->stuck && c->inj != FT_INJ_SIM) {
    fprintf(stderr, "gpuft campaign: --bits %s: stuck cells are the simulator's (--injector sim); "
                    "GPUFT_INJECT writes through the driver and cannot keep a cell stuck\n", c->bits);
    return 2;
  }
  char at_err[64];
  if (!c->nat && c->inj != FT_INJ_RATE) parse_at("call", &c->at[c->nat++], at_err, sizeof at_err);
  if (c->inj == FT_INJ_SIM && check_sim_at(c) != 0) return 2;
  if (c->ncompare && c->jobs > 1) {
    if (c->verbose) fprintf(stderr, "gpuft campaign: --compare: one run at a time\n");
    c->jobs = 1; /* every run writes the same files */
  }
  /* a native campaign preloads gpuft only for the probes of its --at events */
  if ((!c->native || c->nat) && (!find_lib || find_lib(c->lib_override, c->lib) != 0)) {
    fprintf(stderr, "gpuft campaign: cannot find libgpuft.so; use --lib PATH\n");
    return 2;
  }
  c->progress = !c->verbose && isatty(STDERR_FILENO);
  const char *log = getenv("GPUFT_LOG");
  c->log_info = !log || !*log || !strcasecmp(log, "warn") || !strcasecmp(log, "error");
  const char *t = getenv("TMPDIR");
  snprintf(c->tmp, sizeof c->tmp, "%s/gpuft-campaign.XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(c->tmp)) {
    fprintf(stderr, "gpuft campaign: cannot create a folder in %s: %s\n", t && *t ? t : "/tmp",
            strerror(errno));
    return 2;
  }
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);

  int rc = 2;
  run_t golden[2] = {{.spec = ""}, {.spec = ""}};
  run_t *runs = NULL;
  summary_t s = {0};
  double t0 = now_s();
  /* Golden run, twice: an output that changes from run to run would make every
   * fault look like a silent data corruption. */
  if (run_all(c, golden, 1, 1, 0, NULL) != 0 || run_all(c, golden + 1, 1, 1, 0, NULL) != 0) goto out;
  g_golden = &golden[0];
  for (int g = 0; g < 2; g++)
    if (golden[g].obs.signal || golden[g].obs.code == 126 || golden[g].obs.code == 127) {
      fprintf(stderr, "gpuft campaign: the golden run %s %d:\n%s", golden[g].obs.signal ? "died of signal" : "exited with",
              golden[g].obs.signal ? golden[g].obs.signal : golden[g].obs.code,
              golden[g].err_text ? golden[g].err_text : "");
      goto out;
    }
  for (int i = 0; i < c->ncompare; i++)
    if (!golden[0].file_text[i]) {
      fprintf(stderr, "gpuft campaign: the golden run did not write %s\n", c->compare[i]);
      goto out;
    }
  if (golden[0].obs.code != golden[1].obs.code || !same_output(c, &golden[0], &golden[1])) {
    fprintf(stderr, "gpuft campaign: the program's %s differs between two runs without a fault: "
                    "leave the lines that legitimately vary (timings, dates) out with "
                    "--ignore=REGEX, compare what does not vary (--compare=exit or "
                    "--compare=file:PATH), or judge the output with --check=SCRIPT\n",
            golden[0].obs.code != golden[1].obs.code ? "exit status" : c->ncompare ? "output" : "stdout");
    goto out;
  }
  char jerr[256];
  json_t *gjs = golden[0].report ? ft_report_parse(golden[0].report, jerr, sizeof jerr) : NULL;
  s.driver_calls = ft_ju64(gjs, "driver_calls");
  /* nothing to inject into: every run would be "not injected" (no report to tell natively) */
  if (!c->native && (!gjs || !s.driver_calls)) {
    fprintf(stderr, "gpuft campaign: the golden run (exit %d) %s: no fault can be injected\n%s",
            golden[0].obs.code,
            !gjs ? "wrote no gpuft report (did it use CUDA?)" : "made no CUDA call",
            golden[0].err_text ? golden[0].err_text : "");
    if (!gjs) fprintf(stderr, "gpuft campaign: (the library: %s)\n", c->lib);
    if (!ft_tools_driver_loadable()) ft_tools_no_driver_hint("gpuft campaign", "gpuft --sim campaign ...");
    json_decref(gjs);
    goto out;
  }
  snprintf(s.gpu, sizeof s.gpu, "%s", ft_jstr(gjs, "gpu.name", ""));
  s.calls = s.driver_calls - resolve_calls(gjs);
  json_decref(gjs);
  s.golden_code = golden[0].obs.code;
  s.golden_s = golden[0].obs.seconds > golden[1].obs.seconds ? golden[0].obs.seconds : golden[1].obs.seconds;
  /* A floor: tiny programs vary by more than 10x with the load of the machine. */
  s.timeout_s = c->tfactor * s.golden_s < 1.0 ? 1.0 : c->tfactor * s.golden_s;
  if (probe_at(c, s.timeout_s) != 0) goto out;

  runs = calloc((size_t)c->n, sizeof *runs);
  if (!runs) goto out;
  for (int i = 0; i < c->n; i++)
    make_spec(c, i, s.calls, runs[i].spec, sizeof runs[i].spec);
  int resumed = 0;
  if (c->results && open_results(c, runs, &resumed) != 0) goto out;
  if (resumed)
    fprintf(stderr, "gpuft campaign: %d of %d runs already done (%s): running the rest\n", resumed,
            c->n, c->results);
  g_todo = c->n - resumed;
  g_t0 = now_s();
  int interrupted = run_all(c, runs, c->n, c->jobs, s.timeout_s, classify_run) != 0;
  progress(c, 1);
  if (g_bad_spec) {
    fprintf(stderr, "gpuft campaign: the library did not understand GPUFT_INJECT (e.g. \"%s\"): "
                    "is it older than this launcher?\n", runs[0].spec);
    goto out;
  }
  s.wall_s = now_s() - t0;
  int done = 0;
  for (int i = 0; i < c->n; i++) {
    if (!runs[i].done) continue;
    done++;
    s.count[runs[i].out]++;
    s.injected += runs[i].out != FT_OUT_NOT_INJECTED;
    if (c->inj == FT_INJ_RATE) s.flips += (uint64_t)runs[i].obs.faults;
    else s.several_faults += runs[i].out != FT_OUT_NOT_INJECTED && runs[i].obs.faults > 1;
    s.restarted += runs[i].restarted > 0;
  }
  if (interrupted) { /* what is finished is a result too */
    fprintf(stderr, "gpuft campaign: interrupted after %d of %d runs; %s\n", done, c->n,
            c->results ? "they are kept: the same command resumes the campaign"
                       : "--results=FILE keeps finished runs and resumes an interrupted campaign");
    rc = 130;
    if (!done) goto out;
  }
  if (c->json) print_json(stdout, c, &s, runs);
  else print_table(c, &s);
  fflush(stdout);
  if (c->plot && plot(c, &s, runs) != 0) rc = 2;
  else if (!interrupted) rc = c->fail_on_sdc && s.count[FT_OUT_SDC] ? 1 : 0;
out:
  free_run(&golden[0]);
  free_run(&golden[1]);
  free(runs);
  if (g_results) fclose(g_results);
  g_results = NULL;
  ft_remove_dir(c->tmp);
  return rc;
}
