/* oplock.c: the operation lock (state.h): operations the epoch log records hold it
 * shared, a replay exclusively; an operation that ends has issued its writes (uses.c). */
#define _GNU_SOURCE
#include <time.h>

#include "state.h"

/* Reader-preferring (glibc's default): an operation blocked in a driver call on an
 * event another thread has yet to enable must not hold up that thread's next
 * operation behind a waiting replay. */
static pthread_rwlock_t g_op_lock = PTHREAD_RWLOCK_INITIALIZER;
static __thread int g_in_op;

void ft_op_begin(void) {
  if (g_in_op++ == 0) pthread_rwlock_rdlock(&g_op_lock);
}
void ft_op_end(void) {
  if (--g_in_op == 0) {
    pthread_rwlock_unlock(&g_op_lock);
    ft_rest_issued(); /* what the operation wrote is issued now (engine lock not held) */
  }
}
int ft_in_op(void) { return g_in_op > 0; }
static __thread int g_exclusive; /* depth: a replay inside a quiet commit nests */
int ft_op_exclusive_begin(void) {
  if (g_exclusive) return g_exclusive++, 0;
  /* Bounded: an operation may be blocked on work that the thread asking for the
   * replay has yet to enable (an event it will record after its own sync). */
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += 2;
  if (pthread_rwlock_timedwrlock(&g_op_lock, &t) != 0) return -1;
  g_exclusive = 1;
  return 0;
}
void ft_op_exclusive_end(void) {
  if (--g_exclusive == 0) pthread_rwlock_unlock(&g_op_lock);
}

