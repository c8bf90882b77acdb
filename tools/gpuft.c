/* gpuft.c: the `gpuft` launcher: runs a program with libgpuft.so preloaded, turns its
 * options (generated from the options table) into GPUFT_* variables checked by the
 * library's own parser, and summarises gpuft's report when the program exits. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign.h"
#include "devtools.h"
#include "options.h"

#ifndef GPUFT_VERSION
#define GPUFT_VERSION "unknown"
#endif
#ifndef GPUFT_REL_LIB /* the library relative to the launcher's folder (install layout) */
#define GPUFT_REL_LIB "../lib/libgpuft.so"
#endif

/* ---- Subcommands: `gpuft NAME ...` ---- */
static int find_library(const char *override, char *out);
static int cmd_campaign(int argc, char **argv) { /* tools/campaign.c */
  return ft_campaign_main(argc, argv, find_library);
}
static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
} subcommands[] = {{"campaign", cmd_campaign}, FT_DEVTOOLS_SUBCOMMANDS};

/* ---- Options ---- */

/* "CKPT_MAX" -> "ckpt-max" */
static void flag_name(const char *name, char *out, size_t cap) {
  size_t i = 0;
  for (; name[i] && i + 1 < cap; i++)
    out[i] = name[i] == '_' ? '-' : (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
  out[i] = 0;
}

static const char *kind_meta(const ft_option_t *o) {
  switch (o->kind) {
    case FT_OPTK_BOOL: return "BOOL";
    case FT_OPTK_INT: return "N";
    case FT_OPTK_SIZE: return "SIZE";
    case FT_OPTK_ENUM: return o->choices;
    default: return "TEXT";
  }
}

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
  fprintf(f,
          "usage: gpuft [options] [--] program [args...]\n"
          "       gpuft campaign ...   fault-injection campaigns (gpuft campaign --help)\n");
}

static void help(const char *lib_override) {
  char lib[PATH_MAX];
  usage(stdout);
  printf("\nRuns program with libgpuft.so preloaded (prepended to LD_PRELOAD), so that its\n"
         "GPU memory is protected against bit flips; prints a summary of gpuft's report\n"
         "when it exits. The program's exit status is gpuft's.\n\n"
         "launcher options:\n"
         "  --lib=PATH\n      the libgpuft.so to preload [default %s]\n"
         "  -q, --quiet\n      no summary after the program exits\n"
         "  -h, --help\n      this help\n"
         "  -V, --version\n      version and library\n\n"
         "gpuft options (each sets the environment variable shown; the command line wins):\n",
         find_library(lib_override, lib) == 0 ? lib : "(not found)");
  for (int i = 0; i < FT_N_OPTIONS; i++) {
    const ft_option_t *o = &ft_options[i];
    char flag[64];
    flag_name(o->name, flag, sizeof flag);
    printf("  --%s=%s  [GPUFT_%s, default %s]\n      %s\n", flag, kind_meta(o), o->name,
           o->def[0] ? o->def : "\"\"", o->doc);
  }
  printf("\nBOOL: 1/0/true/false/on/off/yes/no (--flag alone means 1); SIZE: bytes with an\n"
         "optional K/KiB/M/MiB/G/GiB suffix; N: a non-negative integer.\n");
}

/* ---- Report summary ---- */

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *s = malloc(cap);
  size_t got;
  while (s && (got = fread(s + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (len + 1 == cap) {
      char *t = realloc(s, cap *= 2);
      if (!t) free(s);
      s = t;
    }
  }
  fclose(f);
  if (s) s[len] = 0;
  return s;
}

/* First `"key": <number>` at or after `from`; 0 if absent. */
static double jnum(const char *from, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(from, pat);
  return p ? strtod(p + strlen(pat), NULL) : 0;
}

/* `"key": "<text>"` into out. */
static void jstr(const char *from, const char *key, char *out, size_t cap) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": \"", key);
  const char *p = strstr(from, pat);
  out[0] = 0;
  if (!p) return;
  p += strlen(pat);
  size_t n = strcspn(p, "\"");
  if (n >= cap) n = cap - 1;
  memcpy(out, p, n);
  out[n] = 0;
}

static void summarise(const char *path, int keep) {
  char *js = slurp(path);
  if (!js) {
    fprintf(stderr, "gpuft: no report (the program did not use CUDA, gpuft was disabled, "
                    "or the program did not exit normally)\n");
    return;
  }
  char mode[32], codec[32];
  jstr(js, "mode", mode, sizeof mode);
  jstr(js, "codec", codec, sizeof codec);
  const char *errs = strstr(js, "\"errors\":");
  errs = errs ? errs : js;
  fprintf(stderr,
          "gpuft: report: mode %s, codec %s; %.0f of %.0f launches checked, %.1f MiB protected "
          "at peak, coverage %.1f%%\n",
          mode, codec, jnum(js, "launches_protected"), jnum(js, "launches"),
          jnum(js, "protected") / 1048576.0, 100.0 * jnum(js, "coverage"));
  fprintf(stderr,
          "gpuft: errors: %.0f detected, %.0f corrected, %.0f recovered, %.0f uncorrectable, "
          "%.0f permanent; %.0f unprotected operations\n",
          jnum(errs, "detected"), jnum(errs, "corrected"), jnum(errs, "recovered"),
          jnum(errs, "uncorrectable"), jnum(errs, "permanent"), jnum(js, "unprotected_ops"));
  const char *ev = strstr(js, "\"events\":");
  int shown = 0, total = 0;
  for (const char *p = ev ? strstr(ev, "{\"allocation\":") : NULL; p;
       p = strstr(p + 1, "{\"allocation\":"), total++) {
    if (shown >= 5) continue;
    char kind[64], outcome[32], where[96];
    jstr(p, "kind", kind, sizeof kind);
    jstr(p, "outcome", outcome, sizeof outcome);
    jstr(p, "where", where, sizeof where);
    fprintf(stderr, "gpuft:   allocation %.0f, offset %.0f, bit %.0f: %s, %s (%s)\n",
            jnum(p, "allocation"), jnum(p, "offset"), jnum(p, "bit"), kind, outcome, where);
    shown++;
  }
  if (total > shown) fprintf(stderr, "gpuft:   ... and %d more events\n", total - shown);
  if (keep) fprintf(stderr, "gpuft: full report: %s\n", path);
  free(js);
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

/* Returns the program's wait status, or -1 if it could not be started. */
static int run(char **prog, const char *report, int summary, int keep_report) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "gpuft: fork: %s\n", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    execvp(prog[0], prog);
    int e = errno;
    fprintf(stderr, "gpuft: cannot run %s: %s\n", prog[0], strerror(e));
    _exit(e == ENOENT ? 127 : 126);
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
  if (summary) summarise(report, keep_report);
  return st;
}

static int missing_value(const char *opt) {
  fprintf(stderr, "gpuft: option '%s' needs a value\n", opt);
  return 2;
}

int main(int argc, char **argv) {
  for (size_t s = 0; argc > 1 && s < sizeof subcommands / sizeof *subcommands; s++)
    if (!strcmp(argv[1], subcommands[s].name)) return subcommands[s].run(argc - 1, argv + 1);

  const char *value[FT_N_OPTIONS] = {0}, *lib_override = NULL;
  int quiet = 0, i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) {
      i++;
      break;
    }
    if (a[0] != '-' || !a[1]) break; /* the program */
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(lib_override);
      return 0;
    }
    if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
      char lib[PATH_MAX];
      printf("gpuft %s\nlibrary: %s\n", GPUFT_VERSION,
             find_library(lib_override, lib) == 0 ? lib : "(not found)");
      return 0;
    }
    if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = 1;
      continue;
    }
    const char *eq = strchr(a, '=');
    size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
    if (nlen == 5 && !strncmp(a, "--lib", 5)) {
      if (!eq && i + 1 >= argc) return missing_value(a);
      lib_override = eq ? eq + 1 : argv[++i];
      continue;
    }
    int id = -1;
    for (int k = 0; k < FT_N_OPTIONS && id < 0; k++) {
      char flag[64];
      flag_name(ft_options[k].name, flag, sizeof flag);
      if (a[0] == '-' && a[1] == '-' && nlen - 2 == strlen(flag) && !strncmp(a + 2, flag, nlen - 2))
        id = k;
    }
    if (id < 0) {
      fprintf(stderr, "gpuft: unknown option '%s' (gpuft --help lists them)\n", a);
      return 2;
    }
    if (eq) value[id] = eq + 1;
    else if (ft_options[id].kind == FT_OPTK_BOOL) value[id] = "1";
    else if (i + 1 < argc) value[id] = argv[++i];
    else return missing_value(a);
  }
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
    if (!value[k]) continue;
    int64_t parsed;
    snprintf(env, sizeof env, "GPUFT_%s", ft_options[k].name);
    setenv(env, value[k], 1);
    if (ft_option_parse(k, value[k], &parsed) != 0) bad = 1;
  }
  if (bad) {
    ft_options_init();
    fprintf(stderr, "gpuft: error: invalid option value; the program was not started\n");
    return 2;
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

  /* The report: where the user asked (option or environment), else a temporary file. */
  char tmpdir[PATH_MAX] = "", report[PATH_MAX + 32] = "";
  const char *given = value[FT_OPT_REPORT] ? value[FT_OPT_REPORT] : getenv("GPUFT_REPORT");
  if (given && *given) {
    snprintf(report, sizeof report, "%s", given);
  } else if (!quiet) {
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/gpuft.XXXXXX", t && *t ? t : "/tmp");
    if (mkdtemp(tmpdir)) {
      snprintf(report, sizeof report, "%s/report.json", tmpdir);
      setenv("GPUFT_REPORT", report, 1);
    } else {
      tmpdir[0] = 0;
    }
  }
  int st = run(argv + i, report, !quiet && report[0], !tmpdir[0]);
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
