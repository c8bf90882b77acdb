/* consumer.c: uses gpuft's public C API through the installed header and library. */
#include <gpuft.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  const char *v = gpuft_version();
  printf("consumer: gpuft %s, enabled %d\n", v, gpuft_enabled());
  return v && strchr(v, '.') ? 0 : 1;
}
