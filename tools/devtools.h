/* devtools.h: what gpuft's device tools (selftest, memtest, history) share: their entry
 * points for tools/gpuft.c and the small argument helpers. */
#ifndef FT_DEVTOOLS_H
#define FT_DEVTOOLS_H

#include <stdint.h>

int ft_selftest_main(int argc, char **argv);
int ft_memtest_main(int argc, char **argv);
int ft_history_main(int argc, char **argv);

/* "--name=value" -> "value"; NULL if arg is not that option. */
const char *ft_devtools_opt(const char *arg, const char *name);
/* Bytes ("512MiB", with the options' suffixes) or a share of `whole` ("90%"). 0 or -1. */
int ft_devtools_size(const char *s, uint64_t whole, uint64_t *out);

#endif
