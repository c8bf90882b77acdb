/* sgemm_twins.c: the twins of sgemm.cu's kernels. */
#include "sgemm_tiled_twin.h"

static const simcuda_kernel_t twins[] = {SGEMM_TILED_TWIN};
SIMCUDA_REGISTER_TWINS(twins)
