/* report_path.h: GPUFT_REPORT's path template (%p, %h, %r, %q{VAR}, %%), shared by the
 * library and the launcher so that both name the same file. */
#ifndef FT_REPORT_PATH_H
#define FT_REPORT_PATH_H

#include <stddef.h>

/* Expands tmpl for process pid into out; async-signal-safe. 0, or -1 if too long. */
int ft_report_path_for(const char *tmpl, long pid, char *out, size_t cap);

/* The MPI / Slurm rank of this process: the first of SLURM_PROCID,
 * OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, MV2_COMM_WORLD_RANK that is set; NULL if
 * none. */
const char *ft_rank_env(void);

#endif
