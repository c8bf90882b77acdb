/* forker.c: uses CUDA, then forks a child that never touches CUDA; the parent
 * goes on using CUDA. Under gpuft the child stays silent and the parent's report
 * is the parent's. Prints the parent's pid. */
#include <cuda.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  CUdeviceptr d;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
      cuCtxSetCurrent(ctx) || cuMemAlloc(&d, 1024))
    return 1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int ok = printf("child\n") > 0 && fflush(stdout) == 0;
    _exit(ok ? 0 : 1);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 1;
  if (cuMemFree(d) || cuDevicePrimaryCtxRelease(dev)) return 1;
  printf("parent %d\n", (int)getpid());
  return 0;
}
