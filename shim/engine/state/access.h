/* access.h: per-function parameter layout and access table (access.c). */
#ifndef FT_ACCESS_H
#define FT_ACCESS_H

#include "state.h"

#define FT_MAX_PARAMS 128
#define FT_MAX_PARAM_BYTES 4096
#define FT_MAX_SLOTS (FT_MAX_PARAM_BYTES / 8)

struct ft_func_s {
  void *handle; /* CUfunction, or CUkernel cast to CUfunction */
  struct ft_func_s *next;
  int layout_ok;
  int nparams;
  uint32_t param_bytes;
  uint32_t param_off[FT_MAX_PARAMS], param_size[FT_MAX_PARAMS];
  char name[256];
  int skip, skip_known;
  uint8_t slot_acc[FT_MAX_SLOTS]; /* FT_ACC_* per 8-byte slot of the parameter buffer */
  uint8_t slot_esc[FT_MAX_SLOTS]; /* its place escapes: stored, or an integer that may offset
                                     another argument's pointer (reach.c) */
  uint8_t slot_ptr[FT_MAX_SLOTS]; /* FT_SLOT_PTR_*: pointers loaded through it are used; loaded
                                     values are stored through it (reach.c) */
  int facts;       /* 1: slot_acc from the kernel's PTX; 0: conservative (and const hints) */
  uint32_t kflags; /* FT_PTX_K_*: memory it reaches not through its arguments, ... */
  int places_exact, places_conservative;
  int reach;        /* FT_REACH_*: what it may write besides its argument places */
  int scan_unplaced; /* may use parameter bytes that are no place as a pointer */
  const char *why;  /* why it reaches beyond its arguments (report), or NULL */
  int other_arch;   /* its facts come from PTX of another architecture than the device's */
  const void *ranges; /* ft_facts_handle: the byte ranges of its places, or NULL (unbounded) */
};
enum { FT_SLOT_PTR_SRC = 1, FT_SLOT_PTR_SINK = 2 };
enum {
  FT_REACH_ARGS = 0, /* only through its argument places */
  FT_REACH_SCAN,     /* also through pointers loaded from what those point to */
  FT_REACH_ALL       /* anything: every protected allocation of the context */
};

/* The function's record (layout queried once); NULL if out of memory. Lock held. */
ft_func_t *ft_func_get(CUfunction f);
/* Whether GPUFT_SKIP_KERNELS names this function. */
int ft_func_skipped(ft_func_t *fn);

#endif
