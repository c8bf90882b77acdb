// graph_conditional: the graphConditionalNodes pattern: a while loop as a
// conditional graph node whose body decrements a counter and sets the condition
// from device code (cudaGraphSetConditional). The simulator does not run
// conditional nodes: it refuses the handle by name, and this program says so.
#include "samples.h"

__global__ void loop_body(int *count, cudaGraphConditionalHandle handle) {
  if (--*count == 0) cudaGraphSetConditional(handle, 0);
}

int main() {
  int *count, start = 10, left = -1;
  CHECK(cudaMalloc(&count, sizeof(int)));
  CHECK(cudaMemcpy(count, &start, sizeof start, cudaMemcpyHostToDevice));
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle handle;
  CHECK(cudaGraphConditionalHandleCreate(&handle, g, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams cp = {cudaGraphNodeTypeConditional};
  cp.conditional.handle = handle;
  cp.conditional.type = cudaGraphCondTypeWhile;
  cp.conditional.size = 1;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddNode(&node, g, NULL, NULL, 0, &cp));
  cudaGraph_t body = cp.conditional.phGraph_out[0];
  cudaGraphNodeParams kp = {cudaGraphNodeTypeKernel};
  void *args[] = {&count, &handle};
  kp.kernel.func = (void *)loop_body;
  kp.kernel.gridDim = dim3(1);
  kp.kernel.blockDim = dim3(1);
  kp.kernel.kernelParams = args;
  cudaGraphNode_t kn;
  CHECK(cudaGraphAddNode(&kn, body, NULL, NULL, 0, &kp));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, 0));
  CHECK(cudaMemcpy(&left, count, sizeof left, cudaMemcpyDeviceToHost));
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(count));
  return verdict("graph_conditional", left == 0);
}
