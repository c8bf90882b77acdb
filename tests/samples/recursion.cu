// recursion: recursive device functions as programs write them: Fibonacci with a
// different depth in every lane (results exchanged through shared memory in the next
// launch: after such a divergence no barrier holds a warp's early lanes back on a
// GPU), a tree walk keeping a local array in each
// activation, mutual recursion (is_even/is_odd); checked against the host. Then a
// runaway recursion must fail its launch (a stack overflow), not hang or corrupt.
#include <vector>
#include "samples.h"

struct Node {
  int value, left, right;
};

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ int tree_sum(const Node *t, int i, int depth) {
  if (i < 0) return 0;
  int local[4] = {t[i].value, depth, 0, 0};  // each activation has its own
  local[2] = tree_sum(t, t[i].left, depth + 1);
  local[3] = tree_sum(t, t[i].right, depth + 1);
  return local[0] * local[1] + local[2] + local[3];
}

__device__ bool is_odd(unsigned n);
__device__ bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__device__ bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

__global__ void fibs(int *f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  f[i] = fib(i % 20);
}

// Lanes came back from fib at different depths. On an H100 and an H200 a barrier
// after that let the block through with each warp's early lanes: __syncthreads(),
// barrier.sync and __syncwarp() before them alike (ptxas takes the warp as reconverged
// when the call returns and drops the __syncwarp), so values read after it were 0
// (docs/gpu-results.md). The exchange therefore happens in this later launch.
__global__ void recurse(const Node *t, int root, const int *f, int *out) {
  __shared__ int s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = f[i];
  __syncthreads();
  int j = (threadIdx.x + 1) % blockDim.x;
  out[(blockIdx.x * blockDim.x + j) * 3] = s[j];
  out[i * 3 + 1] = tree_sum(t, (i % 7 == 0) ? -1 : root, 1);
  out[i * 3 + 2] = is_even(i * 3 % 101);
}

__device__ int runaway(volatile int *stop, int n) { return *stop ? n : runaway(stop, n + 1) + 1; }
__global__ void overflow(int *stop, int *out) { out[threadIdx.x] = runaway(stop, 0); }

static int host_tree_sum(const Node *t, int i, int depth) {
  if (i < 0) return 0;
  return t[i].value * depth + host_tree_sum(t, t[i].left, depth + 1) + host_tree_sum(t, t[i].right, depth + 1);
}

int main() {
  // 0 -> (1, 2), 1 -> (3, -), 2 -> (-, 4), 4 -> (5, 6)
  const Node h[7] = {{5, 1, 2}, {7, 3, -1}, {11, -1, 4}, {13, -1, -1}, {17, 5, 6}, {19, -1, -1}, {23, -1, -1}};
  const int blocks = 2, threads = 96, n = blocks * threads;
  Node *t;
  int *o;
  CHECK(cudaMalloc(&t, sizeof h));
  CHECK(cudaMalloc(&o, n * 3 * 4));
  CHECK(cudaMemcpy(t, h, sizeof h, cudaMemcpyHostToDevice));
  // is_even recurses up to 101 calls deep: more than the default 1 KiB stack holds
  // (ptxas gives each call a frame of 16 bytes or more), so the program asks for more,
  // as recursive CUDA code must.
  size_t stack = 0;
  CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
  printf("stack limit: default %zu\n", stack);
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4000));
  CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
  printf("stack limit: set 4000, reads back %zu\n", stack);
  int *fv;
  CHECK(cudaMalloc(&fv, n * 4));
  fibs<<<blocks, threads>>>(fv);
  recurse<<<blocks, threads>>>(t, 0, fv, o);
  CHECK(cudaDeviceSynchronize());
  std::vector<int> r(n * 3);
  CHECK(cudaMemcpy(r.data(), o, r.size() * 4, cudaMemcpyDeviceToHost));
  int f[20] = {0, 1};
  for (int j = 2; j < 20; j++) f[j] = f[j - 1] + f[j - 2];
  int bad = 0;
  for (int i = 0; i < n; i++) {
    int ts = (i % 7 == 0) ? 0 : host_tree_sum(h, 0, 1);
    int ev = (i * 3 % 101) % 2 == 0;
    if (r[i * 3] != f[i % 20] || r[i * 3 + 1] != ts || r[i * 3 + 2] != ev) {
      if (bad++ < 5) printf("thread %d: fib %d (%d), tree %d (%d), even %d (%d)\n", i, r[i * 3], f[i % 20], r[i * 3 + 1], ts,
                            r[i * 3 + 2], ev);
    }
  }
  // Never told to stop: the stack runs out and the launch fails.
  int *stop;
  CHECK(cudaMalloc(&stop, 4));
  CHECK(cudaMemset(stop, 0, 4));
  overflow<<<1, 32>>>(stop, o);
  cudaError_t e = cudaDeviceSynchronize();
  printf("runaway recursion: %s\n", cudaGetErrorName(e));
  return verdict("recursion", bad == 0 && e != cudaSuccess);
}
