/* matmul_twins.c: the twins of matmul.cu's own kernels (the tiled kernel is the one
 * of tests/apps/sgemm), so that the benchmark runs on the simulator. */
#include "sgemm_tiled_twin.h"

static const simcuda_kernel_t twins[] = {SGEMM_TILED_TWIN};
SIMCUDA_REGISTER_TWINS(twins)
