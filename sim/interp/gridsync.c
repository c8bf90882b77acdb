/* gridsync.c: cooperative grids: the grid workspace cooperative groups find through
 * %envreg1:%envreg2, and grid-wide barriers, with every block co-resident on a host
 * thread of its own that waits at the barrier until all blocks have arrived. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "interp.h"

#define SIM_CUDA_ERROR_OUT_OF_MEMORY 2
#define SIM_CUDA_ERROR_LAUNCH_TIMEOUT 702

/* The host thread's stack of a block: the interpreter keeps warps, registers and
 * call stacks on the heap, so a block needs little (the default 8 MiB, times
 * thousands of blocks, is address space for nothing). */
#define SIM_COOP_STACK ((size_t)1 << 20)

enum { B_READY, B_RUNNING, B_WAITING, B_DONE };

/* The grid's workspace as cooperative groups (their driver ABI header) read it: the
 * workspace's size, then the barrier word the blocks' masters add to. */
enum { WS_SIZE, WS_BARRIER };

typedef struct sim_coop_s {
  pthread_mutex_t mu;
  sim_grid_t *g;
  uint64_t n;          /* blocks */
  unsigned slots;      /* blocks that may run at once (SIMCUDA_THREADS) */
  unsigned running;
  uint64_t next;       /* the lowest block that may still be waiting for a slot */
  uint64_t arrived;    /* blocks waiting at the barrier: they arrived in this round */
  uint64_t done;       /* blocks that ended */
  /* The barrier can never complete (a block ended without arriving): waiters stop;
   * quiet: because the launch faulted (that fault is the one reported). */
  bool broken, quiet;
  uint64_t gone;       /* the lowest block that ended, named in the report */
  uint8_t *state;      /* B_* per block */
  pthread_cond_t *cv;  /* per block: its state changed */
  uint32_t ws[SIM_GRIDWS_BYTES / 4];
} sim_coop_t;

typedef struct {
  sim_coop_t *c;
  uint64_t i;
} sim_coop_arg_t;

/* Hands free slots to waiting blocks in block order, so that the order blocks run
 * in (floating-point atomics) is the serial one on one host thread. Under c->mu.
 * Every block from c->next on is ready: all are at the start and at each release,
 * and slots go out in order. */
static void grant(sim_coop_t *c) {
  if (c->broken) return; /* nothing runs on */
  while (c->running < c->slots && c->next < c->n) {
    uint64_t i = c->next++;
    c->state[i] = B_RUNNING;
    c->running++;
    pthread_cond_signal(&c->cv[i]);
  }
}

/* Every block is waiting or has ended, some of each: the waiters would wait forever
 * (the barrier counts every block of the grid). Under c->mu. */
static void check_stuck(sim_coop_t *c) {
  if (!c->arrived || c->arrived + c->done != c->n || c->broken) return;
  c->broken = true;
  c->quiet = atomic_load_explicit(&c->g->fault_block, memory_order_relaxed) != 0;
  for (uint64_t i = 0; i < c->n; i++)
    if (c->state[i] == B_DONE) {
      c->gone = i;
      break;
    }
  for (uint64_t i = 0; i < c->n; i++)
    if (c->state[i] == B_WAITING) pthread_cond_signal(&c->cv[i]);
}

void *sim_coop_ws(sim_warp_t *w, uint64_t addr, unsigned n, bool store) {
  sim_coop_t *c = w->blk->g->coop;
  uint64_t off = addr - SIM_WIN_GRIDWS;
  if (!c || off + n > SIM_GRIDWS_BYTES) return NULL;
  /* cooperative groups arrive with an atomic add to the barrier word */
  if (store && w->atomic_access && off <= WS_BARRIER * 4 && off + n > WS_BARRIER * 4) w->grid_arrived = true;
  return (uint8_t *)c->ws + off;
}

void sim_coop_arrive(sim_warp_t *w) {
  w->grid_arrived = false;
  sim_block_t *b = w->blk;
  sim_coop_t *c = b->g->coop;
  uint64_t me = b->index;
  pthread_mutex_lock(&c->mu);
  c->state[me] = B_WAITING;
  c->running--;
  if (++c->arrived == c->n) {
    /* the last one: every block goes on, in block order */
    for (uint64_t i = 0; i < c->n; i++) c->state[i] = B_READY;
    c->arrived = 0;
    c->next = 0;
  } else {
    check_stuck(c);
  }
  grant(c);
  while (c->state[me] != B_RUNNING && !c->broken) pthread_cond_wait(&c->cv[me], &c->mu);
  bool stop = c->state[me] != B_RUNNING, quiet = c->quiet;
  uint64_t gone = c->gone;
  pthread_mutex_unlock(&c->mu);
  if (!stop) return;
  if (quiet) {
    b->faulted = true; /* the launch's fault is reported; this block stops with it */
    return;
  }
  const sim_grid_t *g = b->g;
  unsigned gx = g->grid[0], gy = g->grid[1];
  /* a GPU waits forever (until a watchdog, where there is one, ends the kernel) */
  sim_interp_fault(w, SIM_CUDA_ERROR_LAUNCH_TIMEOUT,
                   "grid-wide barrier never completes: block (%u,%u,%u) ended without arriving at it",
                   (unsigned)(gone % gx), (unsigned)(gone / gx % gy), (unsigned)(gone / ((uint64_t)gx * gy)));
}

static void *block_main(void *p) {
  const sim_coop_arg_t *a = p;
  sim_coop_t *c = a->c;
  uint64_t i = a->i;
  pthread_mutex_lock(&c->mu);
  while (c->state[i] != B_RUNNING && !c->broken) pthread_cond_wait(&c->cv[i], &c->mu);
  bool run = c->state[i] == B_RUNNING;
  pthread_mutex_unlock(&c->mu);
  if (run) sim_interp_run_block(c->g, i);
  pthread_mutex_lock(&c->mu);
  if (c->state[i] == B_RUNNING) c->running--;
  c->state[i] = B_DONE;
  c->done++;
  check_stuck(c);
  grant(c);
  pthread_mutex_unlock(&c->mu);
  return NULL;
}

void sim_interp_run_coop(sim_grid_t *g, unsigned slots) {
  uint64_t n = (uint64_t)g->grid[0] * g->grid[1] * g->grid[2];
  sim_coop_t *c = calloc(1, sizeof *c);
  pthread_t *th = calloc(n, sizeof *th);
  sim_coop_arg_t *args = calloc(n, sizeof *args);
  if (!c || !th || !args) abort();
  c->state = calloc(n, 1);
  c->cv = calloc(n, sizeof *c->cv);
  if (!c->state || !c->cv) abort();
  pthread_mutex_init(&c->mu, NULL);
  c->g = g;
  c->n = n;
  c->slots = slots ? slots : 1;
  c->ws[WS_SIZE] = SIM_GRIDWS_BYTES;
  g->coop = c;
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setstacksize(&at, SIM_COOP_STACK);
  uint64_t started = 0;
  pthread_mutex_lock(&c->mu);
  for (; started < n; started++) {
    pthread_cond_init(&c->cv[started], NULL);
    args[started] = (sim_coop_arg_t){c, started};
    if (pthread_create(&th[started], &at, block_main, &args[started])) {
      pthread_cond_destroy(&c->cv[started]);
      break;
    }
  }
  if (started < n) {
    /* Not every block can be resident: none runs (those started end at once). */
    c->broken = c->quiet = true;
    for (uint64_t i = 0; i < started; i++) pthread_cond_signal(&c->cv[i]);
  } else {
    grant(c);
  }
  pthread_mutex_unlock(&c->mu);
  pthread_attr_destroy(&at);
  for (uint64_t i = 0; i < started; i++) pthread_join(th[i], NULL);
  if (started < n) {
    /* no block ran: nothing else can have raised a fault */
    atomic_store(&g->error, SIM_CUDA_ERROR_OUT_OF_MEMORY);
    atomic_store(&g->fault_block, 1);
    snprintf(g->msg, sizeof g->msg, "kernel %s: cannot start a host thread for each of the %ju blocks of the cooperative grid (%ju started)",
             g->prog->name, (uintmax_t)n, (uintmax_t)started);
  }
  for (uint64_t i = 0; i < started; i++) pthread_cond_destroy(&c->cv[i]);
  pthread_mutex_destroy(&c->mu);
  g->coop = NULL;
  free(c->state);
  free(c->cv);
  free(c);
  free(th);
  free(args);
}
