/* report_path.c: GPUFT_REPORT's template, as Nsight Systems' -o: %p the pid, %h the
 * host, %r the MPI / Slurm rank, %q{VAR} an environment variable, %%; in a job of
 * several ranks, a template that names neither rank nor pid gets ".<rank>" appended,
 * so that no two ranks write one file. Async-signal-safe: the report is also written
 * from a signal handler. */
#define _GNU_SOURCE
#include "report_path.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_writer.h"

const char *ft_rank_env(void) {
  static const char *const vars[] = {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                     "PMIX_RANK", "MV2_COMM_WORLD_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) return v;
  }
  return NULL;
}

/* A job of several ranks: a launcher's world size above 1. */
static int several_ranks(void) {
  static const char *const vars[] = {"SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                     "MV2_COMM_WORLD_SIZE"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i]);
    long n = 0;
    for (; v && *v >= '0' && *v <= '9' && n < 1000000; v++) n = n * 10 + (*v - '0');
    if (n > 1) return 1;
  }
  return 0;
}

int ft_report_path_for(const char *tmpl, long pid, char *out, size_t cap) {
  ft_jw_t w;
  ft_jw_fixed(&w, out, cap);
  char host[256];
  int per_process = 0; /* the template names the rank, the pid or a variable */
  for (const char *p = tmpl; *p; p++) {
    if (*p != '%' || !p[1]) {
      ft_jw_rawn(&w, p, 1);
      continue;
    }
    p++;
    const char *close = strchr(p, '}');
    if (*p == 'p') {
      ft_jw_num_i(&w, pid);
      per_process = 1;
    } else if (*p == 'r') {
      const char *r = ft_rank_env();
      ft_jw_raw(&w, r ? r : ""); /* no rank: empty, as %q{VAR} of an unset variable */
      per_process = 1;
    } else if (*p == 'h') {
      if (gethostname(host, sizeof host) != 0) host[0] = 0;
      host[sizeof host - 1] = 0;
      ft_jw_raw(&w, host);
    } else if (*p == '%') {
      ft_jw_raw(&w, "%");
    } else if (*p == 'q' && p[1] == '{' && close && close - p - 2 < 128) {
      char var[128];
      memcpy(var, p + 2, (size_t)(close - p - 2));
      var[close - p - 2] = 0;
      const char *v = getenv(var);
      ft_jw_raw(&w, v ? v : ""); /* unset: empty, as Nsight Systems */
      p = close;
      per_process = 1;
    } else { /* not a template: kept as written */
      ft_jw_rawn(&w, p - 1, 2);
    }
  }
  const char *rank = ft_rank_env();
  if (!per_process && rank && several_ranks()) {
    ft_jw_raw(&w, ".");
    ft_jw_raw(&w, rank);
  }
  return w.truncated ? -1 : 0;
}
