/* api.h: the simulator driver's top room (cuInit, the devices, VMM, IPC, cuGetProcAddress,
 * the static runtime's export tables, the memory entry points); uses every room below.
 * Prototypes are grouped under a comment naming the file that defines them. */
#ifndef SIM_API_H
#define SIM_API_H

#include "exec.h"

/* init.c, device.c, procaddr.c, export.c, memapi.c, vmm.c and ipc.c call only the
 * rooms below and the cu* entry points (cuda.h). */

/* injection.c: at cuInit, after the simulator is up: CUDA_INJECTION64_PATH's
 * library loaded and its InitializeInjection called, once. */
void sim_injection_load(void);

#endif
