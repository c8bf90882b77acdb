/* harness.h: runs PTX text on the interpreter without the driver: host buffers
 * stand for device memory (tests of the interpreter itself). */
#ifndef SIM_INTERP_HARNESS_H
#define SIM_INTERP_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  unsigned grid[3], block[3];
  size_t dyn_shared;
} hz_launch_t;

/* The UB check for the next hz_run calls (0 off, 1 report, 2 report and fail):
 * reports of the last run are appended to hz_ub_log and counted in hz_ub_reports. */
extern int hz_check_ub;
extern char hz_ub_log[8192];
extern uint64_t hz_ub_reports;

/* Host threads running the blocks of the next hz_run calls (default 1), each
 * taking the next block index, as the driver's pool does. */
extern unsigned hz_threads;
/* The next hz_run calls are cooperative launches (every block resident, a grid
 * workspace: gridsync.c); default false. */
extern bool hz_coop;
/* Wall-clock and process CPU seconds the blocks of the last hz_run took (parsing
 * and lowering left out). */
extern double hz_run_seconds, hz_run_cpu_seconds;

/* Each hz_run runs the kernel twice, on the reference interpreter (sim_interp_plain:
 * no register reuse, no AVX2 executors) and then as lowered by default, from the
 * same buffer contents, and fails (-3, msg saying what differs) unless both give
 * the same buffers, result, message, instruction count, UB reports and bytes
 * counted for the driver (runs on
 * one host thread; blocks on several may race as GPU blocks do). On by
 * default (every test kernel checks the faster paths); interp_bench turns it off. */
extern int hz_compare_plain;

/* In the last run (the default lowering's, after the reference's): the times the
 * interpreter asked for the allocation holding an address, and handed a count of
 * bytes over (the driver takes its registry lock for each). */
#include <stdatomic.h>
extern atomic_uint_fast64_t hz_lookups, hz_hand_overs;
/* ... and the bytes it counted as loaded [0] and stored [1]. */
extern atomic_uint_fast64_t hz_counted[2];

/* Makes buf (n bytes) addressable by kernels; returns 0. */
int hz_add_buffer(void *buf, size_t n);
void hz_clear_buffers(void);
/* Parses ptx, lowers `kernel`, runs it with the packed params (param bytes as the
 * PTX declares them). Returns the CUresult of the launch (0 ok); msg gets the
 * error text (parse, lowering or fault). *insns: thread-instructions executed. */
int hz_run(const char *ptx, const char *kernel, const hz_launch_t *l, const void *params, char *msg,
           size_t msglen, uint64_t *insns);

#endif
