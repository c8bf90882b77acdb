// simplestreams: NVIDIA's simpleStreams pattern. One device allocation; each of N
// streams increments its own part with a kernel and reads that part back
// asynchronously, all concurrently; a kernel on the legacy stream does the whole
// array first. The factor is a non-const pointer the kernel only reads.
// Usage: simplestreams [n ints] [streams] [reps] [pinned 1|0]  (defaults 1048576 4 3 1).
#include <string.h>

#include "app_common.h"

__global__ void init_array(int *g_data, int *factor, int num_iterations) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < num_iterations; i++) g_data[idx] += *factor;
}

int main(int argc, char **argv) {
  const int n = (int)app_arg(argc, argv, 1, 1 << 20, 512, 1 << 26);
  const int nstreams = (int)app_arg(argc, argv, 2, 4, 1, 16);
  const int nreps = (int)app_arg(argc, argv, 3, 3, 1, 100);
  const int pinned = (int)app_arg(argc, argv, 4, 1, 0, 1);
  const int niterations = 5, c = 5, threads = 512;
  if (n % (nstreams * threads)) {
    fprintf(stderr, "simplestreams: n must be a multiple of streams x %d\n", threads);
    return 64;
  }
  const size_t nbytes = (size_t)n * sizeof(int);
  int *a = NULL, *d_a = NULL, *d_c = NULL;
  if (pinned) APP_CK(cudaMallocHost((void **)&a, nbytes));
  else a = (int *)malloc(nbytes);
  if (!a) return 2;
  APP_CK(cudaMalloc((void **)&d_a, nbytes));
  APP_CK(cudaMalloc((void **)&d_c, sizeof(int)));
  APP_CK(cudaMemcpy(d_c, &c, sizeof(int), cudaMemcpyHostToDevice));
  cudaStream_t *streams = (cudaStream_t *)malloc(nstreams * sizeof(cudaStream_t));
  for (int i = 0; i < nstreams; i++) APP_CK(cudaStreamCreate(&streams[i]));
  cudaEvent_t start_event, stop_event;
  APP_CK(cudaEventCreate(&start_event));
  APP_CK(cudaEventCreate(&stop_event));

  // the non-streamed version first: one kernel over all of it, one read-back
  APP_CK(cudaMemset(d_a, 0, nbytes));
  init_array<<<n / threads, threads>>>(d_a, d_c, niterations);
  APP_CK_LAUNCH();
  APP_CK(cudaMemcpyAsync(a, d_a, nbytes, cudaMemcpyDeviceToHost, 0));
  APP_CK(cudaDeviceSynchronize());
  long bad = 0;
  for (int i = 0; i < n; i++) bad += a[i] != c * niterations;

  // the streamed version: each stream its part, kernels and copies overlapping
  APP_CK(cudaMemset(d_a, 0, nbytes));
  APP_CK(cudaEventRecord(start_event, 0));
  for (int k = 0; k < nreps; k++) {
    for (int i = 0; i < nstreams; i++)
      init_array<<<n / (nstreams * threads), threads, 0, streams[i]>>>(d_a + i * n / nstreams, d_c,
                                                                       niterations);
    APP_CK_LAUNCH();
    for (int i = 0; i < nstreams; i++)
      APP_CK(cudaMemcpyAsync(a + i * n / nstreams, d_a + i * n / nstreams, nbytes / nstreams,
                             cudaMemcpyDeviceToHost, streams[i]));
  }
  APP_CK(cudaEventRecord(stop_event, 0));
  APP_CK(cudaEventSynchronize(stop_event));
  float ms = 0;
  APP_CK(cudaEventElapsedTime(&ms, start_event, stop_event));
  const int want = c * niterations * nreps;
  for (int i = 0; i < n; i++) {
    if (a[i] != want && bad++ < 5)
      fprintf(stderr, "simplestreams: a[%d] = %d, expected %d\n", i, a[i], want);
  }
  printf("simplestreams: %d streams, %d reps, %.2f ms\n", nstreams, nreps, ms);
  printf("checksum: %016llx\n", (unsigned long long)app_fnv1a(APP_FNV_INIT, a, nbytes));
  for (int i = 0; i < nstreams; i++) APP_CK(cudaStreamDestroy(streams[i]));
  APP_CK(cudaEventDestroy(start_event));
  APP_CK(cudaEventDestroy(stop_event));
  APP_CK(cudaFree(d_a));
  APP_CK(cudaFree(d_c));
  if (pinned) APP_CK(cudaFreeHost(a));
  else free(a);
  free(streams);
  if (bad) {
    fprintf(stderr, "simplestreams: %ld wrong values\n", bad);
    return 1;
  }
  return 0;
}
