// simple_ipc.cu: device memory shared between processes, the way NVIDIA's simpleIPC
// shares it: the parent allocates and fills a buffer, exports it with
// cudaIpcGetMemHandle and starts a child process (fork + exec of itself) that opens
// the handle, checks the parent's values and writes its own; the parent then sees
// the child's writes. The handle travels over a pipe (simpleIPC: shared memory).
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

#include "samples.h"

__global__ void simpleKernel(int *dst, int *src, int num) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  dst[idx] = src[idx] / num;
}

__global__ void fill(int *p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}

static const int DATA_SIZE = 64 * 1024;

static int child(int in, int out) {
  cudaIpcMemHandle_t h;
  if (read(in, &h, sizeof h) != (ssize_t)sizeof h) return 3;
  int *d = nullptr;
  CHECK(cudaSetDevice(0));
  CHECK(cudaIpcOpenMemHandle((void **)&d, h, cudaIpcMemLazyEnablePeerAccess));
  int *tmp;
  CHECK(cudaMalloc(&tmp, DATA_SIZE * sizeof(int)));
  simpleKernel<<<DATA_SIZE / 256, 256>>>(tmp, d, 1); // reads the parent's values
  fill<<<DATA_SIZE / 256, 256>>>(d, 1000, DATA_SIZE); // writes the parent's buffer
  CHECK(cudaDeviceSynchronize());
  int *host = (int *)malloc(DATA_SIZE * sizeof(int));
  CHECK(cudaMemcpy(host, tmp, DATA_SIZE * sizeof(int), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < DATA_SIZE; i++) ok = ok && host[i] == 7 + i;
  CHECK(cudaIpcCloseMemHandle(d));
  CHECK(cudaFree(tmp));
  free(host);
  char r = ok ? 'y' : 'n';
  return write(out, &r, 1) == 1 && ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "child") == 0) return child(atoi(argv[2]), atoi(argv[3]));
  int p2c[2], c2p[2];
  if (pipe(p2c) || pipe(c2p)) return 2;
  fflush(stdout);
  pid_t pid = fork(); // before the parent touches CUDA, as simpleIPC spawns
  if (pid == 0) {
    char a[16], b[16];
    snprintf(a, sizeof a, "%d", p2c[0]);
    snprintf(b, sizeof b, "%d", c2p[1]);
    execl("/proc/self/exe", argv[0], "child", a, b, (char *)nullptr);
    _exit(127);
  }
  CHECK(cudaSetDevice(0));
  int *d;
  CHECK(cudaMalloc(&d, DATA_SIZE * sizeof(int)));
  fill<<<DATA_SIZE / 256, 256>>>(d, 7, DATA_SIZE);
  CHECK(cudaDeviceSynchronize());
  cudaIpcMemHandle_t h;
  CHECK(cudaIpcGetMemHandle(&h, d));
  if (write(p2c[1], &h, sizeof h) != (ssize_t)sizeof h) return 2;
  char r = 0;
  bool ok = read(c2p[0], &r, 1) == 1 && r == 'y';
  int status = 0;
  waitpid(pid, &status, 0);
  ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  int *host = (int *)malloc(DATA_SIZE * sizeof(int));
  CHECK(cudaMemcpy(host, d, DATA_SIZE * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < DATA_SIZE; i++) ok = ok && host[i] == 1000 + i;
  printf("child process %s the parent's buffer\n", ok ? "read and wrote" : "failed on");
  free(host);
  CHECK(cudaFree(d));
  return verdict("simple_ipc", ok);
}
