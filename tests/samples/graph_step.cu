// graph_step.cu: a training-step-like loop launched as one CUDA graph, the way
// PyTorch's CUDA graphs and Megatron do it: a step of three kernels on small
// activation buffers and a 256-byte scale vector, captured once from a side stream,
// the graph relaunched `steps` times, the result read back at the end and checked
// against the same steps on the host; meanwhile the program holds `weights_mib` MiB
// of other uploaded data the step never touches (a model's frozen weights).
//   graph_step [weights_mib] [steps]
#include <cstring>
#include <vector>

#include "samples.h"

__global__ void forward(const float *x, const float *scale, float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] = __fadd_rn(__fmul_rn(x[i], scale[i % 64]), 1.0f); // (no fused multiply-add: the host checks)
}
__global__ void activate(float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] = h[i] > 0.0f ? h[i] * 0.5f : h[i] * 0.25f;
}
__global__ void update(float *x, const float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __fadd_rn(__fmul_rn(0.75f, x[i]), __fmul_rn(0.125f, h[i]));
}

int main(int argc, char **argv) {
  int weights_mib = argc > 1 ? atoi(argv[1]) : 16, steps = argc > 2 ? atoi(argv[2]) : 50;
  const int n = 4096; // 16 KiB per activation buffer
  size_t wbytes = (size_t)weights_mib << 20;
  std::vector<float> hw(wbytes / sizeof(float)), hx(n);
  for (size_t i = 0; i < hw.size(); i++) hw[i] = 0.5f + float(i % 7) * 0.125f;
  for (int i = 0; i < n; i++) hx[i] = float(i % 100) * 0.01f - 0.3f;
  float *w, *scale, *x, *h;
  CHECK(cudaMalloc(&w, wbytes));
  CHECK(cudaMalloc(&scale, 64 * sizeof(float)));
  CHECK(cudaMemcpy(scale, hw.data(), 64 * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&h, n * sizeof(float)));
  CHECK(cudaMemcpy(w, hw.data(), wbytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  // capture the step on a side stream (as torch.cuda.graph does)
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  forward<<<n / 256, 256, 0, s>>>(x, scale, h, n);
  activate<<<n / 256, 256, 0, s>>>(h, n);
  update<<<n / 256, 256, 0, s>>>(x, h, n);
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  for (int k = 0; k < steps; k++) CHECK(cudaGraphLaunch(ge, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<float> out(n);
  CHECK(cudaMemcpy(out.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  // the same steps on the host, in the same float operations
  std::vector<float> rx(hx), rh(n);
  for (int k = 0; k < steps; k++) {
    for (int i = 0; i < n; i++) {
      float v = rx[i] * hw[i % 64] + 1.0f;
      rh[i] = v > 0.0f ? v * 0.5f : v * 0.25f;
    }
    for (int i = 0; i < n; i++) rx[i] = 0.75f * rx[i] + 0.125f * rh[i];
  }
  bool ok = memcmp(out.data(), rx.data(), n * sizeof(float)) == 0;
  printf("%d MiB of weights, %d steps as one graph: x[7] = %.6f\n", weights_mib, steps, out[7]);
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(w));
  CHECK(cudaFree(scale));
  CHECK(cudaFree(x));
  CHECK(cudaFree(h));
  return verdict("graph_step", ok);
}
