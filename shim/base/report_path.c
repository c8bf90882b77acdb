/* report_path.c: GPUFT_REPORT's template, as Nsight Systems' -o: %p the pid, %h the
 * host, %q{VAR} an environment variable (SLURM_PROCID, OMPI_COMM_WORLD_RANK), %%.
 * Async-signal-safe: the report is also written from a signal handler. */
#define _GNU_SOURCE
#include "report_path.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_writer.h"

int ft_report_path_for(const char *tmpl, long pid, char *out, size_t cap) {
  ft_jw_t w;
  ft_jw_fixed(&w, out, cap);
  char host[256];
  for (const char *p = tmpl; *p; p++) {
    if (*p != '%' || !p[1]) {
      ft_jw_rawn(&w, p, 1);
      continue;
    }
    p++;
    const char *close = strchr(p, '}');
    if (*p == 'p') {
      ft_jw_num_i(&w, pid);
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
    } else { /* not a template: kept as written */
      ft_jw_rawn(&w, p - 1, 2);
    }
  }
  return w.truncated ? -1 : 0;
}
