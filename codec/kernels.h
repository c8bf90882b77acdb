/* kernels.h: the per-variant block kernels of the CPU codec (internal to codec/). */
#ifndef FT_CODEC_KERNELS_H
#define FT_CODEC_KERNELS_H

#include "codec.h"

extern const ft_codec_kernels_t ft_kernels_scalar;
#if defined(__x86_64__)
extern const ft_codec_kernels_t ft_kernels_avx2;
extern const ft_codec_kernels_t ft_kernels_avx512;
#define FT_CODEC_HAVE_X86 1
#endif

/* pick.c: the fastest supported variant, measured; and what was measured. */
const ft_codec_kernels_t *ft_codec_pick(void);
const char *ft_codec_pick_report(void);

#endif
