/* history.h: the per-GPU error history (docs/gpu.md): one append-only JSON-lines file
 * per device UUID in the user's cache directory, written by `gpuft memtest` and by the
 * engine when it finds a permanent fault; read by `gpuft history` and at start-up. */
#ifndef FT_HISTORY_H
#define FT_HISTORY_H

#include <stddef.h>
#include <stdint.h>

/* The file of device `uuid` ("GPU-..."): <dir>/<uuid>.jsonl, where dir is `dir` if
 * non-empty, else $XDG_CACHE_HOME/gpuft, else $HOME/.cache/gpuft. 0, or -1 (no home). */
int ft_history_path(const char *dir, const char *uuid, char *out, size_t cap);

/* Append one record: `fields` is the inside of a JSON object ("\"type\": ...") to which
 * the time, the boot id and the format version are added. The directory is created
 * if needed; the line goes out in one write() on an O_APPEND descriptor, so concurrent
 * writers (processes or threads) never interleave. 0, or -1 with errno. */
int ft_history_append(const char *path, const char *fields);

/* A bad 32-bit word: the records naming it, merged. */
typedef struct {
  uint64_t addr;          /* device address of the word (4-byte aligned) */
  uint32_t bits;          /* union of the bits seen wrong */
  uint64_t n_volatile;    /* records since this boot */
  uint64_t n_aggregate;   /* records of all time */
  double first, last;     /* unix times */
  char src[32];           /* source of the last record: "memtest:<pattern>" or "runtime" */
} ft_hist_fault_t;

typedef struct {
  ft_hist_fault_t *faults; /* sorted by address */
  size_t n_faults;
  uint64_t runs_volatile, runs_aggregate;     /* memtest runs */
  uint64_t errors_volatile, errors_aggregate; /* words found bad by memtest */
  uint64_t runtime_volatile, runtime_aggregate; /* permanent faults found at run time */
  uint64_t bytes_last;                        /* bytes the last memtest run covered */
  double t_last;                              /* time of the last memtest run */
  uint64_t bad_lines;                         /* lines that could not be read (skipped) */
} ft_hist_t;

/* Read and merge a history file; a missing file is an empty history. 0, or -1. */
int ft_history_read(const char *path, ft_hist_t *h);
void ft_history_free(ft_hist_t *h);

/* This boot's id (/proc/sys/kernel/random/boot_id), "" if unknown. */
const char *ft_history_boot_id(void);

#endif
