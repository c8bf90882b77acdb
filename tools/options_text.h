/* options_text.h: the options table (shim/options.h) in words, for the launcher's
 * --help and the man page (tools/manpage.c): the same table makes both. */
#ifndef FT_OPTIONS_TEXT_H
#define FT_OPTIONS_TEXT_H

#include <stddef.h>

#include "options.h"

/* "CKPT_MAX" -> "ckpt-max" (the launcher's flag for GPUFT_CKPT_MAX) */
void ft_flag_name(const char *name, char *out, size_t cap);
/* What the flag takes: BOOL, N, SIZE, the choices, or TEXT. */
const char *ft_kind_meta(const ft_option_t *o);

#endif
