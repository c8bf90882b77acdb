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

#endif
