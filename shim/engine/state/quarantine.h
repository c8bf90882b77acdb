/* quarantine.h: the engine's side of the per-GPU error history (docs/gpu.md): known bad
 * addresses read at context start, permanent faults recorded, bad 2 MiB pages held. */
#ifndef FT_QUARANTINE_H
#define FT_QUARANTINE_H

#include "ft.h" /* cuda.h as the shim includes it */

/* A context of gpuft's became ready: load its device's history (once per device) and,
 * with GPUFT_QUARANTINE=1, allocate the 2 MiB pages holding its bad words so the
 * program never gets them. */
void ft_history_ctx_start(CUcontext ctx);
/* Whether the 32-bit word holding device address `addr` is known bad (history). */
int ft_history_is_bad(uint64_t addr);
/* A permanent fault at device address `addr` (bit within its 32-bit word, or -1) was
 * found in context ctx: append it to that device's history. */
void ft_history_record_permanent(CUcontext ctx, uint64_t addr, int bit);

#endif
