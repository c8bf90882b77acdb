/* harness.h: runs PTX text on the interpreter without the driver: host buffers
 * stand for device memory (tests of the interpreter itself). */
#ifndef SIM_INTERP_HARNESS_H
#define SIM_INTERP_HARNESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  unsigned grid[3], block[3];
  size_t dyn_shared;
} hz_launch_t;

/* Makes buf (n bytes) addressable by kernels; returns 0. */
int hz_add_buffer(void *buf, size_t n);
void hz_clear_buffers(void);
/* Parses ptx, lowers `kernel`, runs it with the packed params (param bytes as the
 * PTX declares them). Returns the CUresult of the launch (0 ok); msg gets the
 * error text (parse, lowering or fault). *insns: thread-instructions executed. */
int hz_run(const char *ptx, const char *kernel, const hz_launch_t *l, const void *params, char *msg,
           size_t msglen, uint64_t *insns);

#endif
