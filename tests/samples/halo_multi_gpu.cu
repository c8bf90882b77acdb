// halo_multi_gpu.cu: a 1-D domain split over two GPUs, the way simpleMultiGPU-style
// programs decompose work: each GPU updates its half on its own stream, then the
// halo cells travel between the GPUs with peer copies every step. Integer updates,
// so the result equals the host reference bit for bit. `halo_multi_gpu one`: the
// same split with both halves on device 0 (the single-device baseline of gpuft's
// traffic per device).
#include <cstring>
#include <vector>

#include "samples.h"

__global__ void step_kernel(const unsigned *in, unsigned *out, int n, unsigned step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1; // cells 1..n; 0 and n+1 are halos
  if (i <= n) out[i] = in[i - 1] ^ (in[i] * 3u) ^ (in[i + 1] + step);
}

int main(int argc, char **argv) {
  const bool one = argc > 1 && !strcmp(argv[1], "one");
  auto dev = [one](int d) { return one ? 0 : d; };
  int gpu_n = 0;
  CHECK(cudaGetDeviceCount(&gpu_n));
  if (gpu_n < 2 && !one) {
    printf("Two or more GPUs are required.\nWaiving test.\n");
    return 2;
  }
  const int N = 1 << 16, H = N / 2, STEPS = 16;
  std::vector<unsigned> ref(N + 2);
  for (int i = 0; i < N + 2; i++) ref[i] = unsigned(i) * 2654435761u;
  unsigned *buf[2][2];
  cudaStream_t st[2];
  for (int d = 0; d < 2; d++) {
    CHECK(cudaSetDevice(dev(d)));
    CHECK(cudaStreamCreate(&st[d]));
    for (int b = 0; b < 2; b++) {
      CHECK(cudaMalloc(&buf[d][b], (H + 2) * sizeof(unsigned)));
      CHECK(cudaMemcpy(buf[d][b], ref.data() + d * H, (H + 2) * sizeof(unsigned), cudaMemcpyHostToDevice));
    }
  }
  for (int s = 0; s < STEPS; s++) {
    std::vector<unsigned> nx(ref);
    for (int i = 1; i <= N; i++) nx[i] = ref[i - 1] ^ (ref[i] * 3u) ^ (ref[i + 1] + unsigned(s));
    ref.swap(nx);
    int in = s % 2, out = 1 - in;
    for (int d = 0; d < 2; d++) {
      CHECK(cudaSetDevice(dev(d)));
      step_kernel<<<(H + 255) / 256, 256, 0, st[d]>>>(buf[d][in], buf[d][out], H, unsigned(s));
      CHECK(cudaGetLastError());
    }
    for (int d = 0; d < 2; d++) {
      CHECK(cudaSetDevice(dev(d)));
      CHECK(cudaStreamSynchronize(st[d]));
    }
    // Halos: GPU0's last cell to GPU1's left halo, GPU1's first cell to GPU0's right halo.
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpyPeerAsync(buf[1][out], dev(1), buf[0][out] + H, 0, sizeof(unsigned), st[0]));
    CHECK(cudaMemcpyPeerAsync(buf[0][out] + H + 1, 0, buf[1][out] + 1, dev(1), sizeof(unsigned), st[0]));
    CHECK(cudaStreamSynchronize(st[0]));
  }
  int fin = STEPS % 2;
  bool ok = true;
  for (int d = 0; d < 2; d++) {
    std::vector<unsigned> got(H + 2);
    CHECK(cudaSetDevice(dev(d)));
    CHECK(cudaMemcpy(got.data(), buf[d][fin], (H + 2) * sizeof(unsigned), cudaMemcpyDeviceToHost));
    ok = ok && memcmp(got.data(), ref.data() + d * H, (H + 2) * sizeof(unsigned)) == 0;
    for (int b = 0; b < 2; b++) CHECK(cudaFree(buf[d][b]));
    CHECK(cudaStreamDestroy(st[d]));
  }
  printf("%d steps over %d GPUs, %d cells each\n", STEPS, one ? 1 : 2, H);
  return verdict("halo_multi_gpu", ok);
}
