// graph_conditional: NVIDIA's graphConditionalNodes pattern on an iterative solver:
// a while node repeats two Jacobi sweeps of a tridiagonal system until a kernel finds
// the update below a tolerance (or an iteration cap) and clears the loop's condition
// with cudaGraphSetConditional; an if/else node after it records which way it ended.
// The loop body is filled by stream capture (cudaStreamBeginCaptureToGraph), the
// if/else bodies with cudaGraphAddNode. Each launch is checked bit for bit against
// the same iteration on the host (the kernels round each operation on its own).
#include <cmath>
#include <cstring>

#include "samples.h"

constexpr int N = 256;
constexpr int MAX_ITERS = 40;

struct State {
  unsigned long long max_delta; // the largest |update| of the iteration, as bits (>= 0 orders as integers)
  int iters;
  int outcome;                  // 1: converged, 2: stopped at the cap
  double tol;
};

// y = (b + left + right) / 4 for 4 x_i - x_{i-1} - x_{i+1} = b_i
__global__ void sweep(const double *x, double *y, const double *b, State *st) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  double left = i > 0 ? x[i - 1] : 0.0, right = i < N - 1 ? x[i + 1] : 0.0;
  double v = __dmul_rn(__dadd_rn(__dadd_rn(b[i], left), right), 0.25);
  y[i] = v;
  double d = fabs(__dsub_rn(v, x[i]));
  atomicMax(&st->max_delta, (unsigned long long)__double_as_longlong(d));
}

// The end of an iteration: counts it and decides whether the loop goes on.
__global__ void check(State *st, cudaGraphConditionalHandle loop, cudaGraphConditionalHandle converged) {
  double d = __longlong_as_double((long long)st->max_delta);
  st->max_delta = 0;
  int iters = ++st->iters;
  bool done = d < st->tol;
  cudaGraphSetConditional(loop, !done && iters < MAX_ITERS);
  cudaGraphSetConditional(converged, done);
}

__global__ void reset(State *st) {
  st->max_delta = 0;
  st->iters = 0;
  st->outcome = 0;
}

__global__ void mark(State *st, int outcome) { st->outcome = outcome; }

// The same iteration on the host: x, the iterations and whether it converged.
static int host_solve(const double *b, double tol, double *x, int *iters) {
  static double y[N];
  memset(x, 0, N * sizeof *x);
  for (*iters = 1;; ++*iters) {
    double d = 0;
    for (int s = 0; s < 2; s++) {
      const double *from = s ? y : x;
      double *to = s ? x : y;
      for (int i = 0; i < N; i++) {
        double left = i > 0 ? from[i - 1] : 0.0, right = i < N - 1 ? from[i + 1] : 0.0;
        to[i] = (b[i] + left + right) * 0.25;
        d = fmax(d, fabs(to[i] - from[i]));
      }
    }
    if (d < tol) return 1;
    if (*iters == MAX_ITERS) return 2;
  }
}

static cudaGraphNode_t kernel_node(cudaGraph_t g, const cudaGraphNode_t *dep, void *fn, void **args) {
  cudaGraphNodeParams p = {cudaGraphNodeTypeKernel};
  p.kernel.func = fn;
  p.kernel.gridDim = dim3(1);
  p.kernel.blockDim = dim3(1);
  p.kernel.kernelParams = args;
  cudaGraphNode_t n;
  CHECK(cudaGraphAddNode(&n, g, dep, NULL, dep ? 1 : 0, &p));
  return n;
}

int main() {
  double *x, *y, *b;
  State *st;
  CHECK(cudaMalloc(&x, N * sizeof(double)));
  CHECK(cudaMalloc(&y, N * sizeof(double)));
  CHECK(cudaMalloc(&b, N * sizeof(double)));
  CHECK(cudaMalloc(&st, sizeof(State)));

  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle loop, converged;
  CHECK(cudaGraphConditionalHandleCreate(&loop, graph, 1, cudaGraphCondAssignDefault)); // a do-while
  CHECK(cudaGraphConditionalHandleCreate(&converged, graph, 0, 0));                       // set by check

  void *reset_args[] = {&st};
  cudaGraphNode_t start = kernel_node(graph, NULL, (void *)reset, reset_args);
  cudaGraphNodeParams wp = {cudaGraphNodeTypeConditional};
  wp.conditional.handle = loop;
  wp.conditional.type = cudaGraphCondTypeWhile;
  wp.conditional.size = 1;
  cudaGraphNode_t while_node;
  CHECK(cudaGraphAddNode(&while_node, graph, &start, NULL, 1, &wp));
  cudaGraph_t body = wp.conditional.phGraph_out[0];

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCaptureToGraph(s, body, NULL, NULL, 0, cudaStreamCaptureModeGlobal));
  sweep<<<N / 128, 128, 0, s>>>(x, y, b, st);
  sweep<<<N / 128, 128, 0, s>>>(y, x, b, st);
  check<<<1, 1, 0, s>>>(st, loop, converged);
  CHECK(cudaStreamEndCapture(s, &body));

  cudaGraphNodeParams ip = {cudaGraphNodeTypeConditional};
  ip.conditional.handle = converged;
  ip.conditional.type = cudaGraphCondTypeIf;
  ip.conditional.size = 2; // an else body
  cudaGraphNode_t if_node;
  CHECK(cudaGraphAddNode(&if_node, graph, &while_node, NULL, 1, &ip));
  int yes = 1, no = 2;
  void *yes_args[] = {&st, &yes}, *no_args[] = {&st, &no};
  kernel_node(ip.conditional.phGraph_out[0], NULL, (void *)mark, yes_args);
  kernel_node(ip.conditional.phGraph_out[1], NULL, (void *)mark, no_args);

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));

  // three right-hand sides and tolerances: two converge, the last (tolerance 0) stops at the cap
  static const double tols[] = {1e-10, 1e-12, 0.0};
  bool ok = true;
  for (int run = 0; run < 3; run++) {
    static double hb[N], hx[N], want[N];
    for (int i = 0; i < N; i++) hb[i] = sin(0.05 * i * (run + 1)) + (run == 1 ? 0.5 : 0.0);
    State init = {0, 0, 0, tols[run]};
    CHECK(cudaMemcpyAsync(b, hb, sizeof hb, cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(st, &init, sizeof init, cudaMemcpyHostToDevice, s));
    CHECK(cudaMemsetAsync(x, 0, N * sizeof(double), s));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s)); // as NVIDIA's sample waits for each launch
    State got;
    CHECK(cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got, st, sizeof got, cudaMemcpyDeviceToHost));
    int iters, outcome = host_solve(hb, tols[run], want, &iters);
    bool same = memcmp(hx, want, sizeof hx) == 0 && got.iters == iters && got.outcome == outcome;
    printf("run %d: %d iterations (host %d), %s (host %s), x %s the host's\n", run, got.iters, iters,
           got.outcome == 1 ? "converged" : got.outcome == 2 ? "stopped at the cap" : "no outcome",
           outcome == 1 ? "converged" : "stopped at the cap", memcmp(hx, want, sizeof hx) ? "differs from" : "equals");
    ok = ok && same;
  }

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(b));
  CHECK(cudaFree(st));
  return verdict("graph_conditional", ok);
}
