// multistream: several host threads, each with two streams: stream A uploads a chunk
// from pinned memory and squares it, records an event; stream B waits for the event,
// adds an offset, downloads into pinned memory and runs a host function. Checked exactly.
// Usage: multistream [threads] [chunks per thread] [n per chunk]  (defaults 2 4 65536).
#include <atomic>
#include <thread>
#include <vector>

#include "app_common.h"

__global__ void square_kernel(const int *x, int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}

__global__ void add_offset(const int *y, int *z, int n, int off) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = y[i] + off;
}

static std::atomic<int> g_host_fn_calls{0};
static void host_done(void *p) { static_cast<std::atomic<int> *>(p)->fetch_add(1); }

struct Worker {
  int id, chunks, n;
  long bad = 0;
  uint64_t sum = APP_FNV_INIT;
};

static int value(int t, int c, int i) { return (t * 7 + c * 3 + i) % 46341; }  // x*x fits in int

static void work(Worker *wk) {
  const int C = wk->chunks, n = wk->n;
  const size_t bytes = (size_t)n * sizeof(int);
  cudaStream_t sa, sb;
  APP_CK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
  APP_CK(cudaStreamCreate(&sb));
  std::vector<cudaEvent_t> ev(C);
  std::vector<int *> hx(C), hz(C), dx(C), dy(C), dz(C);
  cudaEvent_t t0, t1;
  APP_CK(cudaEventCreate(&t0));
  APP_CK(cudaEventCreate(&t1));
  APP_CK(cudaEventRecord(t0, sa));
  for (int c = 0; c < C; c++) {
    APP_CK(cudaEventCreateWithFlags(&ev[c], cudaEventDisableTiming));
    APP_CK(cudaMallocHost(&hx[c], bytes));
    APP_CK(cudaHostAlloc(&hz[c], bytes, cudaHostAllocDefault));
    APP_CK(cudaMalloc(&dx[c], bytes));
    APP_CK(cudaMalloc(&dy[c], bytes));
    APP_CK(cudaMalloc(&dz[c], bytes));
    for (int i = 0; i < n; i++) hx[c][i] = value(wk->id, c, i);
  }
  const int threads = 128, blocks = (n + threads - 1) / threads;
  for (int c = 0; c < C; c++) {
    APP_CK(cudaMemcpyAsync(dx[c], hx[c], bytes, cudaMemcpyHostToDevice, sa));
    square_kernel<<<blocks, threads, 0, sa>>>(dx[c], dy[c], n);
    APP_CK_LAUNCH();
    APP_CK(cudaEventRecord(ev[c], sa));
    APP_CK(cudaStreamWaitEvent(sb, ev[c], 0));
    add_offset<<<blocks, threads, 0, sb>>>(dy[c], dz[c], n, wk->id * 1000 + c);
    APP_CK_LAUNCH();
    APP_CK(cudaMemcpyAsync(hz[c], dz[c], bytes, cudaMemcpyDeviceToHost, sb));
    APP_CK(cudaLaunchHostFunc(sb, host_done, &g_host_fn_calls));
  }
  APP_CK(cudaEventRecord(t1, sa));
  APP_CK(cudaStreamSynchronize(sb));
  APP_CK(cudaEventSynchronize(t1));
  float ms = -1.0f;
  APP_CK(cudaEventElapsedTime(&ms, t0, t1));
  if (!(ms >= 0.0f)) {
    fprintf(stderr, "multistream: elapsed time %g ms\n", ms);
    wk->bad++;
  }
  APP_CK(cudaStreamQuery(sb));
  for (int c = 0; c < C; c++) {
    for (int i = 0; i < n; i++) {
      const int x = value(wk->id, c, i), want = x * x + wk->id * 1000 + c;
      if (hz[c][i] != want) {
        if (wk->bad < 5)
          fprintf(stderr, "multistream: thread %d chunk %d [%d] = %d, expected %d\n", wk->id, c,
                  i, hz[c][i], want);
        wk->bad++;
      }
    }
    wk->sum = app_fnv1a(wk->sum, hz[c], bytes);
    APP_CK(cudaEventDestroy(ev[c]));
    APP_CK(cudaFreeHost(hx[c]));
    APP_CK(cudaFreeHost(hz[c]));
    APP_CK(cudaFree(dx[c]));
    APP_CK(cudaFree(dy[c]));
    APP_CK(cudaFree(dz[c]));
  }
  APP_CK(cudaEventDestroy(t0));
  APP_CK(cudaEventDestroy(t1));
  APP_CK(cudaStreamDestroy(sa));
  APP_CK(cudaStreamDestroy(sb));
}

int main(int argc, char **argv) {
  const int T = (int)app_arg(argc, argv, 1, 2, 1, 64);
  const int C = (int)app_arg(argc, argv, 2, 4, 1, 1024);
  const int n = (int)app_arg(argc, argv, 3, 65536, 1, 1 << 24);
  std::vector<Worker> wk(T);
  std::vector<std::thread> th;
  for (int t = 0; t < T; t++) {
    wk[t].id = t;
    wk[t].chunks = C;
    wk[t].n = n;
    th.emplace_back(work, &wk[t]);
  }
  for (auto &t : th) t.join();
  long bad = 0;
  uint64_t sum = APP_FNV_INIT;
  for (auto &w : wk) {
    bad += w.bad;
    sum = app_fnv1a(sum, &w.sum, sizeof w.sum);
  }
  if (g_host_fn_calls.load() != T * C) {
    fprintf(stderr, "multistream: %d host functions ran, expected %d\n", g_host_fn_calls.load(),
            T * C);
    bad++;
  }
  printf("checksum: %016llx\n", (unsigned long long)sum);
  if (bad) {
    fprintf(stderr, "multistream: %ld mismatches\n", bad);
    return 1;
  }
  printf("multistream: threads=%d chunks=%d n=%d ok\n", T, C, n);
  return 0;
}
