/* memtest_twins.h: the simulator image (sim/simcuda.h) of the memory-test kernels. */
#ifndef FTM_MEMTEST_TWINS_H
#define FTM_MEMTEST_TWINS_H

#include "memtest.h"
#include "simcuda.h"

extern const simcuda_image_t ftm_twin_image;

#endif
