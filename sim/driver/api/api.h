/* api.h: the simulator driver's top room (cuInit, the devices, VMM, IPC, cuGetProcAddress,
 * the static runtime's export tables, the memory entry points); uses every room below.
 * Prototypes are grouped under a comment naming the file that defines them. */
#ifndef SIM_API_H
#define SIM_API_H

#include "exec.h"

/* Nothing here is shared yet: init.c, device.c, procaddr.c, export.c, memapi.c,
 * vmm.c and ipc.c call only the rooms below and the cu* entry points (cuda.h). */

#endif
