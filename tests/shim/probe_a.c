/* probe_a.c: a library defining probe_name() that looks up the next definition
 * with dlsym(RTLD_NEXT), as interposing libraries do. */
#define _GNU_SOURCE
#include <dlfcn.h>

__attribute__((visibility("default"))) const char *probe_name(void) { return "a"; }

__attribute__((visibility("default"))) const char *probe_a_next(void) {
  const char *(*next)(void) = (const char *(*)(void))dlsym(RTLD_NEXT, "probe_name");
  return next ? next() : 0;
}
