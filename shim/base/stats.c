/* stats.c: call counters per hook (one cache line each: hooks are called from many
 * threads), unprotected-operation counters, and the names of entry points gpuft
 * handed out without hooking them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

#include "ft.h"

typedef struct {
  uint64_t calls, unprotected;
  char pad[64 - 2 * sizeof(uint64_t)];
} __attribute__((aligned(64))) counter_t;
_Static_assert(sizeof(counter_t) == 64, "one cache line per hook");

static counter_t g_count[FT_N_HOOKS];

void ft_count_call(ft_hook_id_t id) { __atomic_fetch_add(&g_count[id].calls, 1, __ATOMIC_RELAXED); }

void ft_count_unprotected(ft_hook_id_t id) {
  __atomic_fetch_add(&g_count[id].calls, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&g_count[id].unprotected, 1, __ATOMIC_RELAXED);
}

uint64_t ft_calls(ft_hook_id_t id) { return __atomic_load_n(&g_count[id].calls, __ATOMIC_RELAXED); }

uint64_t ft_unprotected_calls(ft_hook_id_t id) {
  return __atomic_load_n(&g_count[id].unprotected, __ATOMIC_RELAXED);
}

uint64_t ft_total_calls(void) {
  uint64_t t = 0;
  for (int i = 0; i < FT_N_HOOKS; i++) t += ft_calls((ft_hook_id_t)i);
  return t;
}

void ft_stats_reset(void) { memset(g_count, 0, sizeof g_count); }

/* Unhooked entry points handed out (names only; bounded). */
#define MAX_UNHOOKED 128
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_unhooked[MAX_UNHOOKED][48];
static int g_nunhooked;

void ft_note_unhooked(const char *symbol) {
  if (!symbol) return;
  pthread_mutex_lock(&g_lock);
  int i;
  for (i = 0; i < g_nunhooked; i++)
    if (strncmp(g_unhooked[i], symbol, sizeof g_unhooked[i] - 1) == 0) break;
  if (i == g_nunhooked && g_nunhooked < MAX_UNHOOKED) {
    strncpy(g_unhooked[g_nunhooked], symbol, sizeof g_unhooked[0] - 1);
    g_nunhooked++;
  }
  pthread_mutex_unlock(&g_lock);
}

int ft_unhooked_names(const char **out, int cap) {
  pthread_mutex_lock(&g_lock);
  int n = g_nunhooked < cap ? g_nunhooked : cap;
  for (int i = 0; i < n; i++) out[i] = g_unhooked[i];
  pthread_mutex_unlock(&g_lock);
  return n;
}

void ft_stats_atfork_child(void) {
  /* the child's report counts the child's calls only */
  ft_stats_reset();
  pthread_mutex_init(&g_lock, NULL);
  g_nunhooked = 0;
}
