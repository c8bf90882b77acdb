/* nocuda.c: a program that never touches CUDA (but uses dlsym). Under gpuft it
 * must behave exactly as without: same output, same exit code, nothing on stderr. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  size_t (*f)(const char *) = (size_t (*)(const char *))dlsym(RTLD_DEFAULT, "strlen");
  printf("hello %zu\n", f ? f("gpuft") : 0);
  return 3;
}
