/* manpage.c: writes gpuft(1) in troff on stdout, at build time, from the options
 * table (shim/base/options.h) that also makes `gpuft --help`: the two cannot drift. */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "options_text.h"
#include "subcommands.h"

#ifndef GPUFT_VERSION
#define GPUFT_VERSION "unknown"
#endif

/* Text with troff's special characters escaped (-, \, a leading . or '). */
static void text(const char *s) {
  if (*s == '.' || *s == '\'') fputs("\\&", stdout);
  for (; *s; s++) {
    if (*s == '-') fputs("\\-", stdout);
    else if (*s == '\\') fputs("\\e", stdout);
    else putchar(*s);
  }
}

static void para(const char *s) {
  text(s);
  putchar('\n');
}

/* A list of (term, text) pairs as indented paragraphs. */
static void items(const char *const (*l)[2], size_t n) {
  for (size_t i = 0; i < n; i++) {
    printf(".TP\n.B %s\n", l[i][0]);
    para(l[i][1]);
  }
}

int main(void) {
  printf(".TH GPUFT 1 \"\" \"gpuft %s\" \"User Commands\"\n", GPUFT_VERSION);
  printf(".SH NAME\ngpuft \\- run a CUDA program with its GPU memory protected against bit flips\n");
  printf(".SH SYNOPSIS\n.B gpuft\n[\\fIoptions\\fR] [\\fB\\-\\-\\fR] \\fIprogram\\fR [\\fIargs\\fR...]\n.br\n"
         ".B gpuft campaign\n\\fB\\-n\\fR \\fIN\\fR [\\fIcampaign options\\fR] \\fB\\-\\-\\fR \\fIprogram\\fR "
         "[\\fIargs\\fR...]\n.br\n.B gpuft report\n\\fIFILE\\fR...\n.br\n.B gpuft demo\n.br\n"
         ".B gpuft selftest\n.br\n.B gpuft memtest\n.br\n.B gpuft history\n.br\n"
         ".B gpuft \\-\\-sim\n[\\fIoptions\\fR] [\\fB\\-\\-\\fR] \\fIprogram\\fR | \\fIsubcommand\\fR\n");
  printf(".SH DESCRIPTION\n");
  para("gpuft runs program with libgpuft.so preloaded (prepended to LD_PRELOAD). The library "
       "keeps host checkpoints of the data the program uploads, protects device memory with "
       "cross-parity codes, verifies it around kernel launches, corrects single-bit errors and "
       "replays the work that used damaged data. At exit it prints one summary on stderr and, "
       "with --report, writes a JSON report. Each option below sets the environment variable "
       "shown; LD_PRELOAD with the same variables does the same without the launcher.");
  printf(".SH LAUNCHER OPTIONS\n");
  static const char *const own[][2] = {
      {"\\-\\-lib=\\fIPATH\\fR", "the libgpuft.so to preload (default: ../lib/libgpuft.so next to the launcher)"},
      {"\\-\\-sim", "run on gpuft's CPU simulator (lib/gpuft/sim of the install, first in LD_LIBRARY_PATH): "
                  "no GPU needed; before a subcommand too (gpuft \\-\\-sim selftest)"},
      {"\\-q, \\-\\-quiet", "no summary (sets GPUFT_SUMMARY=0)"},
      {"\\-h, \\-\\-help", "usage and every option"},
      {"\\-V, \\-\\-version", "version and the library it would preload"}};
  items(own, sizeof own / sizeof *own);
  printf(".SH GPUFT OPTIONS\n");
  para("Generated from the library's options table; the command line wins over the environment. "
       "BOOL: 1/0/true/false/on/off/yes/no (the flag alone means 1); SIZE: bytes with an optional "
       "K/KiB/M/MiB/G/GiB suffix; N: a non-negative integer. An invalid value, given as a flag or "
       "in the environment, stops the launcher with status 2 before the program starts.");
  for (int i = 0; i < FT_N_OPTIONS; i++) {
    const ft_option_t *o = &ft_options[i];
    char flag[64];
    ft_flag_name(o->name, flag, sizeof flag);
    printf(".TP\n.BR \\-\\-");
    text(flag);
    printf(" =\\fI");
    text(ft_kind_meta(o));
    printf("\\fR\n");
    text(o->doc);
    printf(". Environment: \\fBGPUFT_%s\\fR; default: ", o->name);
    text(o->def[0] ? o->def : "(empty)");
    printf(".\n");
  }
  printf(".SH REPORT PATH TEMPLATES\n");
  para("In --report (GPUFT_REPORT): %p the process id, %h the host name, %r the MPI or Slurm rank "
       "(SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK or MV2_COMM_WORLD_RANK), %q{VAR} the "
       "environment variable VAR, %% a percent sign. In a job of several ranks, a path that names "
       "neither rank nor pid gets .RANK appended. Under MPI: mpirun -np 4 gpuft "
       "--report='run-%r.json' -- ./app; then gpuft report run-*.json prints one table of all ranks.");
  printf(".SH SUBCOMMANDS\n");
  static const char *const sub[][2] = {
#define FT_SUB_ITEM_(name, fn, doc) {#name, doc},
      FT_SUBCOMMANDS(FT_SUB_ITEM_) /* tools/subcommands.h: every one */
#undef FT_SUB_ITEM_
  };
  items(sub, sizeof sub / sizeof *sub);
  printf(".SH EXIT STATUS\n");
  para("The program's exit status; if it dies of a signal, the launcher dies of the same signal. "
       "With --error-exitcode=N, N when gpuft detected an error it did not repair; with "
       "--detection-exitcode=N, N when it detected any error; with --on-fail=exit, 75 as soon as an "
       "error cannot be repaired. 2: invalid options; 126/127: the program could not be started.");
  printf(".SH FILES\n");
  para("lib/libgpuft.so, include/gpuft.h, lib/cmake/gpuft (find_package(gpuft): the imported target "
       "gpuft::gpuft), lib/pkgconfig/gpuft.pc, share/doc/gpuft (the documentation), "
       "share/gpuft/campaign_plot.py, and with the simulator component lib/gpuft/sim and libexec/gpuft.");
  printf(".SH SEE ALSO\n");
  para("share/doc/gpuft/README.md, launcher.md, options.md, report.md, campaign.md");
  return 0;
}
