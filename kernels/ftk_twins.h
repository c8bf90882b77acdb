/* ftk_twins.h: the simulator image (sim/simcuda.h) of gpuft's kernels: their
 * C twins under the kernels' names, one parameter of sizeof(ftk_span_t), align 8. */
#ifndef FTK_TWINS_H
#define FTK_TWINS_H

#include "ftk.h"
#include "simcuda.h"

extern const simcuda_image_t ftk_twin_image;

#endif
