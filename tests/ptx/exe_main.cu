// exe_main: the host main of the corpus executables (tests/ptx): they are only
// read by the tests (their .nv_fatbin), never run.
#include <cstdio>
int main() {
  std::printf("ptx corpus executable\n");
  return 0;
}
