/* memtest_nofatbin.c: stands in for the memtest fatbin when built without nvcc. */
#include <stddef.h>
const unsigned char ftm_fatbin[1] = {0};
const size_t ftm_fatbin_size = 0;
