/* api.h: the simulator driver's top room (cuInit and the device, cuGetProcAddress,
 * the static runtime's export tables, the memory entry points); uses every room below.
 * Prototypes are grouped under a comment naming the file that defines them. */
#ifndef SIM_API_H
#define SIM_API_H

#include "exec.h"

/* ---- export.c: runs and drops the static runtime's context-local state of a dying context
 * (the context teardown hook, which export.c installs at load) ---- */
void sim_export_forget_ctx(sim_ctx_t *c);

#endif
