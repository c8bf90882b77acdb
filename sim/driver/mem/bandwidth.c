/* bandwidth.c: the PCIe model (SIMCUDA_PCIE_GBPS): a host<->device copy occupies its
 * direction's DMA engine for bytes/rate; copies in one direction queue behind each
 * other, the two directions overlap (two copy engines). */

#include "mem.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static double busy_until[2];

void sim_bandwidth_charge(sim_dir_t dir, size_t bytes, double start) {
  if (sim_opt.pcie_bps <= 0 || (dir != SIM_DIR_H2D && dir != SIM_DIR_D2H)) return;
  int e = dir == SIM_DIR_H2D ? 0 : 1;
  pthread_mutex_lock(&mu);
  double begin = start > busy_until[e] ? start : busy_until[e];
  double end = begin + (double)bytes / sim_opt.pcie_bps;
  busy_until[e] = end;
  pthread_mutex_unlock(&mu);
  sim_sleep_until(end);
}
