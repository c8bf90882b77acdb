/* ftk_nofatbin.c: stands in for the generated fatbin source when nvcc is absent:
 * ftk_module_load then only has the twins (simulator). */
#include "ftk_launch.h"

const unsigned char ftk_fatbin[16] = {0};
const size_t ftk_fatbin_size = 0;
