// capture_threads: a training step captured into a graph in global mode (as
// torch.cuda.graph does by default) while another thread, a data loader, keeps
// uploading batches, normalising them with a kernel and reading them back. Its
// launches and copies are legal during another thread's global capture; its waits
// (a stream synchronisation, an event polled) are not, so it makes them in the
// thread-local capture mode, as PyTorch's NCCL watchdog does for its event queries.
// Whatever runs beside the program's calls must be legal there too: an allocation,
// an event query or a context-wide synchronisation on the loader's thread in global
// mode would invalidate the capture. The step graph is then replayed and checked.
#include <atomic>
#include <cstring>
#include <thread>
#include "samples.h"

#define N 4096
#define BATCHES 12

__global__ void step(const float *w, float *x, int n) {  // x = 0.5 x + w
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.5f * x[i] + w[i];
}

__global__ void square_sum(const float *x, float *out, int n) {  // out[i] = x[i]^2
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * x[i];
}

__global__ void normalise(const float *in, float *out, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * scale + 1.0f;
}

static std::atomic<int> phase{0};  // 1: capture begun, 2: loader done, 3: capture ended
static std::atomic<bool> loader_ready{false};  // its allocations made

static void wait_for(int p) {
  while (phase.load() < p) std::this_thread::yield();
}

// The loader: its buffers are made before the capture (an allocation during
// another thread's global capture is refused natively), the batches run during it.
static bool loader(bool *ok) {
  cudaStream_t ls;
  cudaEvent_t done;
  float *in_h, *out_h, *in_d, *out_d;
  CHECK(cudaStreamCreateWithFlags(&ls, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CHECK(cudaMallocHost(&in_h, N * sizeof(float)));
  CHECK(cudaMallocHost(&out_h, N * sizeof(float)));
  CHECK(cudaMalloc(&in_d, N * sizeof(float)));
  CHECK(cudaMalloc(&out_d, N * sizeof(float)));
  loader_ready.store(true);
  wait_for(1);
  bool good = true;
  for (int b = 0; b < BATCHES; b++) {
    for (int i = 0; i < N; i++) in_h[i] = (float)((i * 7 + b) % 31);
    CHECK(cudaMemcpyAsync(in_d, in_h, N * sizeof(float), cudaMemcpyHostToDevice, ls));
    normalise<<<N / 256, 256, 0, ls>>>(in_d, out_d, 0.25f, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(out_h, out_d, N * sizeof(float), cudaMemcpyDeviceToHost, ls));
    CHECK(cudaEventRecord(done, ls));
    cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal;
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    if (b % 2) {  // a watchdog's way: poll the event
      cudaError_t q;
      while ((q = cudaEventQuery(done)) == cudaErrorNotReady) std::this_thread::yield();
      CHECK(q);
    } else {
      CHECK(cudaStreamSynchronize(ls));
    }
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));  // (back to global)
    for (int i = 0; i < N; i++)
      if (out_h[i] != in_h[i] * 0.25f + 1.0f) {
        if (good) printf("batch %d: out[%d] = %g, expected %g\n", b, i, out_h[i], in_h[i] * 0.25f + 1.0f);
        good = false;
      }
  }
  phase.store(2);
  wait_for(3);
  CHECK(cudaFree(in_d));  // after the capture: legal again
  CHECK(cudaFree(out_d));
  CHECK(cudaFreeHost(in_h));
  CHECK(cudaFreeHost(out_h));
  CHECK(cudaEventDestroy(done));
  CHECK(cudaStreamDestroy(ls));
  *ok = good;
  return good;
}

// CAPTURE_BLOCKING=1: the step is captured on a blocking stream, right after a
// memset on the legacy stream that nothing waited for (the legacy stream cannot even
// be asked about while a blocking stream captures).
int main() {
  const char *b = getenv("CAPTURE_BLOCKING");
  bool blocking = b && !strcmp(b, "1");
  float *w_h, *x_h, *w_d, *x_d, *sq_d;
  CHECK(cudaMallocHost(&w_h, N * sizeof(float)));
  CHECK(cudaMallocHost(&x_h, N * sizeof(float)));
  CHECK(cudaMalloc(&w_d, N * sizeof(float)));
  CHECK(cudaMalloc(&x_d, N * sizeof(float)));
  CHECK(cudaMalloc(&sq_d, N * sizeof(float)));
  for (int i = 0; i < N; i++) w_h[i] = (float)(i % 13) * 0.125f;
  CHECK(cudaMemcpy(w_d, w_h, N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(x_d, 0, N * sizeof(float)));
  if (!blocking) CHECK(cudaDeviceSynchronize());  // (as torch.cuda.graph does before capturing)

  bool loader_ok = false;
  std::thread t([&] { loader(&loader_ok); });

  // warm-up on a side stream, then the capture (torch.cuda.graph's order)
  cudaStream_t cs;
  CHECK(cudaStreamCreateWithFlags(&cs, blocking ? cudaStreamDefault : cudaStreamNonBlocking));
  step<<<N / 256, 256, 0, cs>>>(w_d, x_d, N);
  if (blocking) CHECK(cudaMemsetAsync(sq_d, 0, N * sizeof(float), 0));
  else CHECK(cudaStreamSynchronize(cs));
  cudaGraph_t g;
  while (!loader_ready.load()) std::this_thread::yield();
  CHECK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal));
  phase.store(1);
  step<<<N / 256, 256, 0, cs>>>(w_d, x_d, N);
  square_sum<<<N / 256, 256, 0, cs>>>(x_d, sq_d, N);
  wait_for(2);  // the loader's batches ran while the capture was open
  CHECK(cudaStreamEndCapture(cs, &g));
  phase.store(3);
  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  const int launches = 20;
  for (int l = 0; l < launches; l++) CHECK(cudaGraphLaunch(ge, cs));
  CHECK(cudaStreamSynchronize(cs));
  CHECK(cudaMemcpy(x_h, sq_d, N * sizeof(float), cudaMemcpyDeviceToHost));
  t.join();

  bool ok = loader_ok;
  for (int i = 0; i < N; i++) {  // the same steps on the host: warm-up + launches
    float x = 0, w = w_h[i];
    for (int l = 0; l < launches + 1; l++) x = 0.5f * x + w;
    if (x_h[i] != x * x) {
      if (ok) printf("x[%d]^2 = %g, expected %g\n", i, x_h[i], x * x);
      ok = false;
    }
  }
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(cs));
  return verdict("capture_threads", ok);
}
