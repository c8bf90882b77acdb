// graph_switch: written to break gpuft's rule for conditional nodes (what every body
// may do counts). A switch node picks one of three bodies from a value a kernel
// computes from device data; each body writes a buffer no other node touches, the
// third through an if node nested in it (its own buffer again) and a while node that
// repeats a kernel a data-dependent number of times. Between launches the host
// changes the selector and the input. If gpuft read only the nodes it sees at the
// top, a body's output would keep a stale code and be "repaired" back: the program's
// own check against the host fails. Every buffer is read back after every launch.
#include <cstring>

#include "samples.h"

constexpr int N = 2048;

struct Sel {
  int which; // the switch's value: body 0, 1 or 2 (3: none runs)
  int deep;  // body 2's if node: 1 runs it
  int reps;  // body 2's while node: how many times its kernel runs
  int done;  // the while loop's count so far
};

__global__ void choose(Sel *s, cudaGraphConditionalHandle sw, cudaGraphConditionalHandle deep,
                       cudaGraphConditionalHandle loop) {
  s->done = 0;
  cudaGraphSetConditional(sw, (unsigned)s->which);
  cudaGraphSetConditional(deep, s->deep);
  cudaGraphSetConditional(loop, s->reps > 0);
}

__global__ void scale(const float *in, float *out, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = in[i] * k;
}

__global__ void bump(float *acc, Sel *s, cudaGraphConditionalHandle loop) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) acc[i] += 1.0f;
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    // (one thread counts the rounds: every block of a round ends before the next)
    int d = atomicAdd(&s->done, 1) + 1;
    cudaGraphSetConditional(loop, d < s->reps);
  }
}

static cudaGraphNode_t kernel_node(cudaGraph_t g, void *fn, void **args, unsigned blocks) {
  cudaGraphNodeParams p = {cudaGraphNodeTypeKernel};
  p.kernel.func = fn;
  p.kernel.gridDim = dim3(blocks);
  p.kernel.blockDim = dim3(blocks > 1 ? 256 : 1);
  p.kernel.kernelParams = args;
  cudaGraphNode_t n;
  CHECK(cudaGraphAddNode(&n, g, NULL, NULL, 0, &p));
  return n;
}

static cudaGraph_t *conditional(cudaGraph_t g, const cudaGraphNode_t *dep, cudaGraphConditionalHandle h,
                                cudaGraphConditionalNodeType type, unsigned size, cudaGraphNodeParams *p) {
  *p = {cudaGraphNodeTypeConditional};
  p->conditional.handle = h;
  p->conditional.type = type;
  p->conditional.size = size;
  cudaGraphNode_t n;
  CHECK(cudaGraphAddNode(&n, g, dep, NULL, dep ? 1 : 0, p));
  return p->conditional.phGraph_out;
}

int main() {
  float *in, *out[3], *inner, *acc;
  Sel *sel;
  CHECK(cudaMalloc(&in, N * sizeof(float)));
  for (int k = 0; k < 3; k++) CHECK(cudaMalloc(&out[k], N * sizeof(float)));
  CHECK(cudaMalloc(&inner, N * sizeof(float)));
  CHECK(cudaMalloc(&acc, N * sizeof(float)));
  CHECK(cudaMalloc(&sel, sizeof(Sel)));
  static float h_in[N], h_out[3][N], h_inner[N], h_acc[N], back[N];
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < N; i++) h_out[k][i] = -1.0f;
    CHECK(cudaMemcpy(out[k], h_out[k], sizeof h_out[k], cudaMemcpyHostToDevice));
  }
  for (int i = 0; i < N; i++) h_inner[i] = -2.0f, h_acc[i] = 0.0f;
  CHECK(cudaMemcpy(inner, h_inner, sizeof h_inner, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(acc, h_acc, sizeof h_acc, cudaMemcpyHostToDevice));

  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle sw, deep, loop;
  CHECK(cudaGraphConditionalHandleCreate(&sw, graph, 3, cudaGraphCondAssignDefault));
  CHECK(cudaGraphConditionalHandleCreate(&deep, graph, 0, cudaGraphCondAssignDefault));
  CHECK(cudaGraphConditionalHandleCreate(&loop, graph, 0, cudaGraphCondAssignDefault));
  void *choose_args[] = {&sel, &sw, &deep, &loop};
  cudaGraphNode_t first = kernel_node(graph, (void *)choose, choose_args, 1);
  cudaGraphNodeParams sp = {cudaGraphNodeTypeConditional}, ip = sp, wp = sp;
  cudaGraph_t *body = conditional(graph, &first, sw, cudaGraphCondTypeSwitch, 3, &sp);
  float ks[3] = {2.0f, 3.0f, 5.0f}, kin = 7.0f;
  void *scale_args[3][3] = {{&in, &out[0], &ks[0]}, {&in, &out[1], &ks[1]}, {&in, &out[2], &ks[2]}};
  for (int k = 0; k < 3; k++) kernel_node(body[k], (void *)scale, scale_args[k], N / 256);
  // body 2: an if node (its own buffer) and a while node (an accumulator), nested
  cudaGraph_t *deep_body = conditional(body[2], NULL, deep, cudaGraphCondTypeIf, 1, &ip);
  void *inner_args[] = {&in, &inner, &kin};
  kernel_node(deep_body[0], (void *)scale, inner_args, N / 256);
  cudaGraph_t *loop_body = conditional(body[2], NULL, loop, cudaGraphCondTypeWhile, 1, &wp);
  void *bump_args[] = {&acc, &sel, &loop};
  kernel_node(loop_body[0], (void *)bump, bump_args, N / 256);

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph)); // (as programs do: the executable graph lives on)
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  static const Sel plan[] = {{0, 0, 0, 0}, {2, 1, 3, 0}, {1, 0, 0, 0}, {3, 0, 0, 0}, {2, 0, 1, 0}, {0, 0, 0, 0}};
  bool ok = true;
  for (int run = 0; run < (int)(sizeof plan / sizeof *plan); run++) {
    Sel p = plan[run];
    for (int i = 0; i < N; i++) h_in[i] = (float)((i * 37 + run * 11) % 101) - 50.0f;
    CHECK(cudaMemcpyAsync(in, h_in, sizeof h_in, cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(sel, &p, sizeof p, cudaMemcpyHostToDevice, s));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    // the host's model of the same launch
    if (p.which < 3)
      for (int i = 0; i < N; i++) h_out[p.which][i] = h_in[i] * ks[p.which];
    if (p.which == 2 && p.deep)
      for (int i = 0; i < N; i++) h_inner[i] = h_in[i] * kin;
    if (p.which == 2)
      for (int i = 0; i < N; i++) h_acc[i] += (float)p.reps;
    float *dev[5] = {out[0], out[1], out[2], inner, acc};
    const float *want[5] = {h_out[0], h_out[1], h_out[2], h_inner, h_acc};
    for (int b = 0; b < 5; b++) {
      CHECK(cudaMemcpy(back, dev[b], sizeof back, cudaMemcpyDeviceToHost));
      if (memcmp(back, want[b], sizeof back)) {
        fprintf(stderr, "graph_switch: launch %d (body %d): buffer %d differs from the host's\n", run, p.which, b);
        ok = false;
      }
    }
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaStreamDestroy(s));
  printf("graph_switch: %s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
