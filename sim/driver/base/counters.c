/* counters.c: the simulator's counters, which every room adds to (SIM_COUNT);
 * simcudaGetStats and the summary at exit read them (mem/stats.c). */
#include "base.h"

sim_stats_t sim_stats;
