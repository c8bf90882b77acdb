/* test_graph_cond.c: conditional graph nodes on the simulator: if, if/else, while
 * and switch driven by kernels that call cudaGraphSetConditional, handle defaults,
 * nesting, stream capture into bodies, updates, and the errors the driver gives. */
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

/* Single-thread kernels: setcond(h, p, mask) sets h to *p & mask; addk(p, k) adds k
 * to *p; collatz(n, steps, h) takes one Collatz step of *n, counts it and keeps h
 * set while *n is not 1. setlanes(h, mask): every thread sets h to tid & mask. */
static const char ptx[] =
    ".version 7.5\n.target sm_75\n.address_size 64\n"
    ".extern .func cudaGraphSetConditional\n(\n.param .b64 cudaGraphSetConditional_param_0,\n"
    ".param .b32 cudaGraphSetConditional_param_1\n)\n;\n"
    ".visible .entry setcond(.param .u64 h, .param .u64 p, .param .u32 mask)\n{\n"
    ".reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n"
    "ld.param.u64 %rd0, [h];\nld.param.u64 %rd1, [p];\nld.param.u32 %r1, [mask];\n"
    "ld.global.u32 %r0, [%rd1];\nand.b32 %r2, %r0, %r1;\n"
    "{\n.param .b64 param0;\nst.param.b64 [param0+0], %rd0;\n.param .b32 param1;\nst.param.b32 [param1+0], %r2;\n"
    "call.uni cudaGraphSetConditional, (param0, param1);\n}\nret;\n}\n"
    ".visible .entry addk(.param .u64 p, .param .u32 k)\n{\n"
    ".reg .b32 %r<3>;\n.reg .b64 %rd<1>;\n"
    "ld.param.u64 %rd0, [p];\nld.param.u32 %r0, [k];\nld.global.u32 %r1, [%rd0];\n"
    "add.u32 %r2, %r1, %r0;\nst.global.u32 [%rd0], %r2;\nret;\n}\n"
    ".visible .entry collatz(.param .u64 n, .param .u64 steps, .param .u64 h)\n{\n"
    ".reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<3>;\n"
    "ld.param.u64 %rd0, [n];\nld.param.u64 %rd1, [steps];\nld.param.u64 %rd2, [h];\n"
    "ld.global.u32 %r0, [%rd0];\nand.b32 %r1, %r0, 1;\nsetp.eq.u32 %p0, %r1, 0;\n"
    "shr.u32 %r2, %r0, 1;\nmul.lo.u32 %r3, %r0, 3;\nadd.u32 %r3, %r3, 1;\n"
    "selp.u32 %r4, %r2, %r3, %p0;\nst.global.u32 [%rd0], %r4;\n"
    "ld.global.u32 %r5, [%rd1];\nadd.u32 %r5, %r5, 1;\nst.global.u32 [%rd1], %r5;\n"
    "setp.ne.u32 %p1, %r4, 1;\nselp.u32 %r6, 1, 0, %p1;\n"
    "{\n.param .b64 param0;\nst.param.b64 [param0+0], %rd2;\n.param .b32 param1;\nst.param.b32 [param1+0], %r6;\n"
    "call.uni cudaGraphSetConditional, (param0, param1);\n}\nret;\n}\n"
    ".visible .entry setlanes(.param .u64 h, .param .u32 mask)\n{\n"
    ".reg .b32 %r<3>;\n.reg .b64 %rd<1>;\n"
    "ld.param.u64 %rd0, [h];\nld.param.u32 %r1, [mask];\nmov.u32 %r0, %tid.x;\nand.b32 %r2, %r0, %r1;\n"
    "{\n.param .b64 param0;\nst.param.b64 [param0+0], %rd0;\n.param .b32 param1;\nst.param.b32 [param1+0], %r2;\n"
    "call.uni cudaGraphSetConditional, (param0, param1);\n}\nret;\n}\n";

typedef struct {
  CUfunction setcond, addk, collatz, setlanes;
  CUdeviceptr words; /* 8 words of scratch, zeroed */
} cond_kernels_t;

static cond_kernels_t setup(void) {
  st_setup();
  cond_kernels_t k;
  CUmodule m;
  if (cuModuleLoadData(&m, ptx) != CUDA_SUCCESS || cuModuleGetFunction(&k.setcond, m, "setcond") ||
      cuModuleGetFunction(&k.addk, m, "addk") || cuModuleGetFunction(&k.collatz, m, "collatz") ||
      cuModuleGetFunction(&k.setlanes, m, "setlanes") ||
      cuMemAlloc(&k.words, 32) || cuMemsetD32(k.words, 0, 8) || cuCtxSynchronize())
    /* (a memset may return before it runs: non-blocking streams would race with it) */
    FT_FAIL_("cannot load the conditional test kernels");
  return k;
}

static CUdeviceptr word(const cond_kernels_t *k, unsigned i) { return k->words + 4u * i; }

static void set_word(const cond_kernels_t *k, unsigned i, unsigned v) {
  if (cuMemcpyHtoD(word(k, i), &v, 4) != CUDA_SUCCESS) FT_FAIL_("cannot set word %u", i);
}

static unsigned get_word(const cond_kernels_t *k, unsigned i) {
  unsigned v = 0;
  if (cuCtxSynchronize() != CUDA_SUCCESS || cuMemcpyDtoH(&v, word(k, i), 4) != CUDA_SUCCESS)
    FT_FAIL_("cannot read word %u", i);
  return v;
}

/* A one-thread kernel node after dep (if any). */
static CUgraphNode knode(CUgraph g, CUgraphNode dep, CUfunction f, void **args) {
  CUDA_KERNEL_NODE_PARAMS p = {0};
  p.func = f;
  p.gridDimX = p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = p.blockDimY = p.blockDimZ = 1;
  p.kernelParams = args;
  CUgraphNode n;
  if (cuGraphAddKernelNode(&n, g, dep ? &dep : NULL, dep ? 1 : 0, &p) != CUDA_SUCCESS) FT_FAIL_("kernel node");
  return n;
}

static CUgraphNode node_setcond(const cond_kernels_t *k, CUgraph g, CUgraphNode dep, CUgraphConditionalHandle h,
                                unsigned i, unsigned mask) {
  CUdeviceptr p = word(k, i);
  void *args[] = {&h, &p, &mask};
  return knode(g, dep, k->setcond, args);
}

static CUgraphNode node_addk(const cond_kernels_t *k, CUgraph g, CUgraphNode dep, unsigned i, unsigned add) {
  CUdeviceptr p = word(k, i);
  void *args[] = {&p, &add};
  return knode(g, dep, k->addk, args);
}

/* cuGraphAddNode of a conditional node; its bodies in body[] (size of them). */
static CUresult cond_node(CUgraph g, CUgraphNode dep, CUgraphConditionalHandle h, CUgraphConditionalNodeType t,
                          unsigned size, CUgraphNode *n, CUgraph *body) {
  CUgraphNodeParams np;
  memset(&np, 0, sizeof np);
  np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  np.conditional.handle = h;
  np.conditional.type = t;
  np.conditional.size = size;
  CUresult r = cuGraphAddNode(n, g, dep ? &dep : NULL, NULL, dep ? 1 : 0, &np);
  for (unsigned i = 0; !r && body && i < size; i++) body[i] = np.conditional.phGraph_out[i];
  return r;
}

static void launch(CUgraphExec e) {
  if (cuGraphLaunch(e, NULL) != CUDA_SUCCESS || cuCtxSynchronize() != CUDA_SUCCESS) FT_FAIL_("graph launch");
}

/* IF: a kernel upstream sets the value; IF/ELSE with two bodies. */
TEST_IMPL(graph_cond_if_else) {
  cond_kernels_t k = setup();
  for (unsigned size = 1; size <= 2; size++) {
    CUgraph g, body[2];
    CK(cuGraphCreate(&g, 0));
    CUgraphConditionalHandle h;
    CK(cuGraphConditionalHandleCreate(&h, g, NULL, 0, 0));
    CUgraphNode a = node_setcond(&k, g, NULL, h, 0, ~0u), c;
    CK(cond_node(g, a, h, CU_GRAPH_COND_TYPE_IF, size, &c, body));
    CUgraphNodeType t;
    CK(cuGraphNodeGetType(c, &t));
    ASSERT_EQ((int)t, (int)CU_GRAPH_NODE_TYPE_CONDITIONAL);
    node_addk(&k, body[0], NULL, 1, 1);
    if (size == 2) {
      ASSERT(body[1] != body[0]);
      node_addk(&k, body[1], NULL, 1, 100);
    }
    size_t nn = 0;
    CK(cuGraphGetNodes(body[0], NULL, &nn));
    ASSERT_EQ(nn, 1u);
    CUgraphExec e;
    CK(cuGraphInstantiate(&e, g, 0));
    set_word(&k, 1, 0);
    unsigned want = 0;
    for (unsigned x = 0; x < 4; x++) { /* 0, 1, 2, 3: false, true, true, true */
      set_word(&k, 0, x);
      launch(e);
      want += x ? 1 : size == 2 ? 100 : 0;
      ASSERT_EQ(get_word(&k, 1), want);
    }
    CK(cuGraphExecDestroy(e));
    CK(cuGraphDestroy(g));
  }
  return TEST_OK;
}

/* WHILE: the value is read before every iteration (the first included); a kernel of
 * the body computes it (Collatz steps until 1), the default starts the loop. */
TEST_IMPL(graph_cond_while_loop) {
  cond_kernels_t k = setup();
  static const unsigned start[] = {27, 6, 1}, steps[] = {111, 8, 3}; /* 1 -> 4 -> 2 -> 1 */
  CUgraph g, body;
  CK(cuGraphCreate(&g, 0));
  CUgraphConditionalHandle h;
  CK(cuGraphConditionalHandleCreate(&h, g, NULL, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
  CUgraphNode c;
  CK(cond_node(g, NULL, h, CU_GRAPH_COND_TYPE_WHILE, 1, &c, &body));
  CUdeviceptr n = word(&k, 0), cnt = word(&k, 1);
  void *args[] = {&n, &cnt, &h};
  knode(body, NULL, k.collatz, args);
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  for (unsigned i = 0; i < 3; i++) { /* the default (1) is assigned again at each launch */
    set_word(&k, 0, start[i]);
    set_word(&k, 1, 0);
    launch(e);
    ASSERT_EQ(get_word(&k, 0), 1u);
    ASSERT_EQ(get_word(&k, 1), steps[i]);
  }
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));

  /* default 0: the body never runs */
  CK(cuGraphCreate(&g, 0));
  CK(cuGraphConditionalHandleCreate(&h, g, NULL, 0, CU_GRAPH_COND_ASSIGN_DEFAULT));
  CK(cond_node(g, NULL, h, CU_GRAPH_COND_TYPE_WHILE, 1, &c, &body));
  knode(body, NULL, k.collatz, args);
  CK(cuGraphInstantiate(&e, g, 0));
  set_word(&k, 0, 27);
  set_word(&k, 1, 0);
  launch(e);
  ASSERT_EQ(get_word(&k, 1), 0u);
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));
  return TEST_OK;
}

/* SWITCH: the value picks one body; out of range runs none. */
TEST_IMPL(graph_cond_switch) {
  cond_kernels_t k = setup();
  CUgraph g, body[4];
  CK(cuGraphCreate(&g, 0));
  CUgraphConditionalHandle h;
  CK(cuGraphConditionalHandleCreate(&h, g, NULL, 0, 0));
  CUgraphNode a = node_setcond(&k, g, NULL, h, 0, ~0u), c;
  CK(cond_node(g, a, h, CU_GRAPH_COND_TYPE_SWITCH, 4, &c, body));
  for (unsigned i = 0; i < 4; i++) node_addk(&k, body[i], NULL, 1, 1u << i);
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  static const unsigned added[] = {1, 2, 4, 8, 0, 0};
  for (unsigned x = 0; x < 6; x++) {
    set_word(&k, 0, x == 5 ? 0x80000000u : x);
    set_word(&k, 1, 0);
    launch(e);
    ASSERT_EQ(get_word(&k, 1), added[x]);
  }
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));
  return TEST_OK;
}

/* CU_GRAPH_COND_ASSIGN_DEFAULT: the default again at each launch; without it the
 * value is what it was left at (here: set to 0 by the body of the first launch). */
TEST_IMPL(graph_cond_default_reset) {
  cond_kernels_t k = setup();
  for (int flag = 0; flag < 2; flag++) {
    CUgraph g, body;
    CK(cuGraphCreate(&g, 0));
    CUgraphConditionalHandle h;
    CK(cuGraphConditionalHandleCreate(&h, g, NULL, 1, flag ? CU_GRAPH_COND_ASSIGN_DEFAULT : 0));
    CUgraphNode c;
    CK(cond_node(g, NULL, h, CU_GRAPH_COND_TYPE_IF, 1, &c, &body));
    node_setcond(&k, body, node_addk(&k, body, NULL, 1, 1), h, 7, ~0u); /* word 7 stays 0 */
    CUgraphExec e;
    CK(cuGraphInstantiate(&e, g, 0));
    set_word(&k, 1, 0);
    for (int i = 0; i < 3; i++) launch(e);
    ASSERT_EQ(get_word(&k, 1), flag ? 3u : 1u);
    CK(cuGraphExecDestroy(e));
    CK(cuGraphDestroy(g));
  }
  return TEST_OK;
}

/* Nesting: a while loop whose body holds an if node (its handle made for the body
 * graph) and a child graph; each launch counts the odd values a Collatz run meets.
 * A kernel node inside a body is set like any node of the executable graph. */
TEST_IMPL(graph_cond_nested) {
  cond_kernels_t k = setup();
  CUgraph g, loop, odd;
  CK(cuGraphCreate(&g, 0));
  CUgraphConditionalHandle hw, hi;
  CK(cuGraphConditionalHandleCreate(&hw, g, NULL, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
  CUgraphNode w, ifn;
  CK(cond_node(g, NULL, hw, CU_GRAPH_COND_TYPE_WHILE, 1, &w, &loop));
  CK(cuGraphConditionalHandleCreate(&hi, loop, NULL, 0, 0));
  CUgraphNode a = node_setcond(&k, loop, NULL, hi, 0, 1); /* odd? */
  CK(cond_node(loop, a, hi, CU_GRAPH_COND_TYPE_IF, 1, &ifn, &odd));
  CUgraph child;
  CK(cuGraphCreate(&child, 0));
  node_addk(&k, child, NULL, 2, 1);
  CUgraphNode cn, add_odd = node_addk(&k, odd, NULL, 3, 1);
  CK(cuGraphAddChildGraphNode(&cn, odd, NULL, 0, child));
  CUdeviceptr n = word(&k, 0), cnt = word(&k, 1);
  void *args[] = {&n, &cnt, &hw};
  knode(loop, ifn, k.collatz, args);
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  /* 6 3 10 5 16 8 4 2 -> 1: odd values met before a step: 3 and 5 */
  set_word(&k, 0, 6);
  launch(e);
  ASSERT_EQ(get_word(&k, 1), 8u);
  ASSERT_EQ(get_word(&k, 2), 2u);
  ASSERT_EQ(get_word(&k, 3), 2u);
  /* the body's add node of the executable graph now adds 10 */
  CUdeviceptr p3 = word(&k, 3);
  unsigned ten = 10;
  void *targs[] = {&p3, &ten};
  CUDA_KERNEL_NODE_PARAMS kp = {0};
  kp.func = k.addk;
  kp.gridDimX = kp.gridDimY = kp.gridDimZ = kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1;
  kp.kernelParams = targs;
  CK(cuGraphExecKernelNodeSetParams(e, add_odd, &kp));
  set_word(&k, 0, 7); /* 7 22 11 34 17 52 26 13 40 20 10 5 16 8 4 2 1: odd 7 11 17 13 5 */
  set_word(&k, 1, 0);
  launch(e);
  ASSERT_EQ(get_word(&k, 1), 16u);
  ASSERT_EQ(get_word(&k, 2), 7u);
  ASSERT_EQ(get_word(&k, 3), 52u);
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(child));
  CK(cuGraphDestroy(g));
  return TEST_OK;
}

/* Stream capture, as NVIDIA's capturedWhileGraph: a handle made for the capture's
 * graph, a conditional node added to it and made the capture's dependency, the
 * body filled by cuStreamBeginCaptureToGraph. */
TEST_IMPL(graph_cond_captured) {
  cond_kernels_t k = setup();
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUstreamCaptureStatus st;
  CUgraph g, body;
  const CUgraphNode *deps;
  size_t nd;
  CK(cuStreamGetCaptureInfo(s, &st, NULL, &g, &deps, NULL, &nd));
  CUgraphConditionalHandle h;
  CK(cuGraphConditionalHandleCreate(&h, g, NULL, 0, 0));
  CUdeviceptr p0 = word(&k, 0);
  unsigned all = ~0u;
  void *sargs[] = {&h, &p0, &all};
  CK(cuLaunchKernel(k.setcond, 1, 1, 1, 1, 1, 1, 0, s, sargs, NULL)); /* while, not do-while */
  CK(cuStreamGetCaptureInfo(s, &st, NULL, &g, &deps, NULL, &nd));
  ASSERT_EQ(nd, 1u);
  CUgraphNode c;
  CK(cond_node(g, deps[0], h, CU_GRAPH_COND_TYPE_WHILE, 1, &c, &body));
  CK(cuStreamUpdateCaptureDependencies(s, &c, NULL, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
  CUdeviceptr p2 = word(&k, 2);
  unsigned hundred = 100;
  void *aargs[] = {&p2, &hundred};
  CK(cuLaunchKernel(k.addk, 1, 1, 1, 1, 1, 1, 0, s, aargs, NULL)); /* after the loop */
  CK(cuStreamEndCapture(s, &g));
  /* the body: count down word 0 (a Collatz step would do too; this one is plainer) */
  CK(cuStreamBeginCaptureToGraph(s, body, NULL, NULL, 0, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUdeviceptr p1 = word(&k, 1);
  unsigned one = 1, minus1 = ~0u;
  void *inc[] = {&p1, &one}, *dec[] = {&p0, &minus1};
  CK(cuLaunchKernel(k.addk, 1, 1, 1, 1, 1, 1, 0, s, inc, NULL));
  CK(cuLaunchKernel(k.addk, 1, 1, 1, 1, 1, 1, 0, s, dec, NULL));
  CK(cuLaunchKernel(k.setcond, 1, 1, 1, 1, 1, 1, 0, s, sargs, NULL));
  CUgraph same;
  CK(cuStreamEndCapture(s, &same));
  ASSERT(same == body);
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  for (unsigned start = 0; start <= 10; start += 10) {
    set_word(&k, 0, start);
    set_word(&k, 1, 0);
    set_word(&k, 2, 0);
    CK(cuGraphLaunch(e, s));
    CK(cuStreamSynchronize(s));
    ASSERT_EQ(get_word(&k, 1), start); /* iterations */
    ASSERT_EQ(get_word(&k, 0), 0u);
    ASSERT_EQ(get_word(&k, 2), 100u);
  }
  /* a graph with conditional nodes launched into a capture: refused (it cannot be a child graph) */
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ASSERT_CU(cuGraphLaunch(e, s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CUgraph bad;
  ASSERT_CU(cuStreamEndCapture(s, &bad), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));
  CK(cuStreamDestroy(s));
  return TEST_OK;
}

/* A graph of one conditional node of type t whose body adds `add` to word 1 and
 * sets the handle (default 1, assigned at each launch) to word 7 (0). */
static CUgraph once_graph(const cond_kernels_t *k, unsigned add, CUgraphConditionalNodeType t, CUgraphNode *c,
                          CUgraph *body_out) {
  CUgraph g, body;
  CUgraphConditionalHandle h;
  if (cuGraphCreate(&g, 0) || cuGraphConditionalHandleCreate(&h, g, NULL, 1, CU_GRAPH_COND_ASSIGN_DEFAULT) ||
      cond_node(g, NULL, h, t, 1, c, &body))
    FT_FAIL_("cannot make the graph");
  node_setcond(k, body, node_addk(k, body, NULL, 1, add), h, 7, ~0u);
  if (body_out) *body_out = body;
  return g;
}

/* cuGraphExecUpdate: the bodies' nodes follow the update, and so does the handle
 * (its default and flag, documented); a conditional node's own parameters cannot
 * change. */
TEST_IMPL(graph_cond_exec_update) {
  cond_kernels_t k = setup();
  CUgraphNode c1, c2, c3;
  CUgraph g1 = once_graph(&k, 1, CU_GRAPH_COND_TYPE_WHILE, &c1, NULL);
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g1, 0));
  launch(e);
  ASSERT_EQ(get_word(&k, 1), 1u);
  CUgraph g2 = once_graph(&k, 5, CU_GRAPH_COND_TYPE_WHILE, &c2, NULL);
  CUgraphExecUpdateResultInfo info;
  CK(cuGraphExecUpdate(e, g2, &info));
  ASSERT_EQ((int)info.result, (int)CU_GRAPH_EXEC_UPDATE_SUCCESS);
  launch(e);
  launch(e);
  ASSERT_EQ(get_word(&k, 1), 11u);
  CUgraph g3 = once_graph(&k, 5, CU_GRAPH_COND_TYPE_IF, &c3, NULL);
  ASSERT_CU(cuGraphExecUpdate(e, g3, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  ASSERT_EQ((int)info.result, (int)CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED);
  ASSERT(info.errorNode == c3);
  /* a body of another shape */
  CUgraph body4, g4 = once_graph(&k, 5, CU_GRAPH_COND_TYPE_WHILE, &c2, &body4);
  node_addk(&k, body4, NULL, 2, 1);
  ASSERT_CU(cuGraphExecUpdate(e, g4, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  ASSERT_EQ((int)info.result, (int)CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
  launch(e); /* as updated by g2 */
  ASSERT_EQ(get_word(&k, 1), 16u);
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g1));
  CK(cuGraphDestroy(g2));
  CK(cuGraphDestroy(g3));
  CK(cuGraphDestroy(g4));
  return TEST_OK;
}

/* The driver's errors: handles, node parameters, what a graph with conditional
 * nodes cannot do (be cloned, be a child graph, have two executable graphs), what
 * a body may not hold, handles no node uses, changing a conditional node. */
TEST_IMPL(graph_cond_errors) {
  cond_kernels_t k = setup();
  CUgraph g, other, body[2];
  CK(cuGraphCreate(&g, 0));
  CK(cuGraphCreate(&other, 0));
  CUgraphConditionalHandle h, ho;
  ASSERT_CU(cuGraphConditionalHandleCreate(NULL, g, NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuGraphConditionalHandleCreate(&h, g, NULL, 0, 2), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuGraphConditionalHandleCreate(&h, NULL, NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuGraphConditionalHandleCreate(&h, g, (CUcontext)&k, 0, 0), CUDA_ERROR_INVALID_CONTEXT);
  CK(cuGraphConditionalHandleCreate(&h, g, NULL, 0, 0));
  CK(cuGraphConditionalHandleCreate(&ho, other, NULL, 0, 0));
  CUgraphNode c;
  ASSERT_CU(cond_node(g, NULL, 12345, CU_GRAPH_COND_TYPE_IF, 1, &c, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cond_node(g, NULL, ho, CU_GRAPH_COND_TYPE_IF, 1, &c, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cond_node(g, NULL, h, CU_GRAPH_COND_TYPE_WHILE, 2, &c, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cond_node(g, NULL, h, CU_GRAPH_COND_TYPE_IF, 3, &c, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cond_node(g, NULL, h, CU_GRAPH_COND_TYPE_SWITCH, 0, &c, NULL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cond_node(g, NULL, h, (CUgraphConditionalNodeType)7, 1, &c, NULL), CUDA_ERROR_INVALID_VALUE);
  CK(cond_node(g, NULL, h, CU_GRAPH_COND_TYPE_IF, 2, &c, body));
  node_addk(&k, body[0], NULL, 1, 1);
  /* a handle of the graph's own: a conditional node of a body may use it too */
  CUgraphNode inner;
  CUgraph ib;
  CK(cond_node(body[1], NULL, h, CU_GRAPH_COND_TYPE_IF, 1, &inner, &ib));
  CK(cuGraphDestroyNode(inner));
  ASSERT_CU(cuGraphDestroy(body[0]), CUDA_ERROR_INVALID_VALUE); /* the node owns it */
  /* documented: no clone, no child graph, one executable graph at a time */
  CUgraph cl, holder;
  ASSERT_CU(cuGraphClone(&cl, g), CUDA_ERROR_NOT_SUPPORTED);
  CK(cuGraphCreate(&holder, 0));
  CUgraphNode cn;
  ASSERT_CU(cuGraphAddChildGraphNode(&cn, holder, NULL, 0, g), CUDA_ERROR_NOT_SUPPORTED);
  CUgraphExec e, e2;
  CK(cuGraphInstantiate(&e, g, 0));
  ASSERT_CU(cuGraphInstantiate(&e2, g, 0), CUDA_ERROR_INVALID_VALUE);
  /* a conditional node's parameters cannot be set */
  CUgraphNodeParams np;
  memset(&np, 0, sizeof np);
  np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  np.conditional.handle = h;
  np.conditional.type = CU_GRAPH_COND_TYPE_IF;
  np.conditional.size = 1;
  ASSERT_CU(cuGraphNodeSetParams(c, &np), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_CU(cuGraphExecNodeSetParams(e, c, &np), CUDA_ERROR_NOT_SUPPORTED);
  CK(cuGraphExecDestroy(e));
  /* a host node in a body */
  static atomic_int never;
  CUDA_HOST_NODE_PARAMS hp = {st_gate_fn, &never};
  CUgraphNode hn;
  CK(cuGraphAddHostNode(&hn, body[1], NULL, 0, &hp));
  CUDA_GRAPH_INSTANTIATE_PARAMS ip = {0};
  ASSERT_CU(cuGraphInstantiateWithParams(&e, g, &ip), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_EQ((int)ip.result_out, (int)CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED);
  ASSERT(ip.hErrNode_out == hn);
  CK(cuGraphDestroyNode(hn));
  /* a handle made for the graph that no node uses */
  CUgraphConditionalHandle spare;
  CK(cuGraphConditionalHandleCreate(&spare, g, NULL, 0, 0));
  ASSERT_CU(cuGraphInstantiateWithParams(&e, g, &ip), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ((int)ip.result_out, (int)CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED);
  CUgraphNode c2;
  CK(cond_node(g, c, spare, CU_GRAPH_COND_TYPE_WHILE, 1, &c2, NULL)); /* an empty loop body */
  CK(cuGraphInstantiateWithParams(&e, g, &ip));
  ASSERT_EQ((int)ip.result_out, (int)CUDA_GRAPH_INSTANTIATE_SUCCESS);
  launch(e); /* spare is 0: the loop does not run */
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(holder));
  CK(cuGraphDestroy(other));
  CK(cuGraphDestroy(g));
  return TEST_OK;
}

/* A kernel setting something that is no live handle faults like a stray store:
 * CUDA_ERROR_ILLEGAL_ADDRESS, the context's sticky error (a while loop stops). */
TEST_IMPL(graph_cond_bad_handle_faults) {
  cond_kernels_t k = setup();
  CUgraph g, body;
  CK(cuGraphCreate(&g, 0));
  CUgraphConditionalHandle h;
  CK(cuGraphConditionalHandleCreate(&h, g, NULL, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
  CUgraphNode c;
  CK(cond_node(g, NULL, h, CU_GRAPH_COND_TYPE_WHILE, 1, &c, &body));
  node_setcond(&k, body, node_addk(&k, body, NULL, 1, 1), h + 8, 0, ~0u);
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  CK(cuGraphLaunch(e, NULL));
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CK(cuDevicePrimaryCtxReset(0));
  return TEST_OK;
}

/* Launches of one executable graph are ordered (documented), whatever their
 * streams: the second waits for the first, held back by a gate on its stream, so
 * the handle's value belongs to one launch at a time. */
TEST_IMPL(graph_cond_launches_ordered) {
  cond_kernels_t k = setup();
  CUgraphNode c;
  CUgraph g = once_graph(&k, 1, CU_GRAPH_COND_TYPE_WHILE, &c, NULL);
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  CUstream s1, s2;
  CK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  st_gate_t gate = {0};
  CK(cuLaunchHostFunc(s1, st_gate_fn, &gate));
  CK(cuGraphLaunch(e, s1));
  CK(cuGraphLaunch(e, s2));
  st_sleep_ms(50);
  ASSERT_CU(cuStreamQuery(s2), CUDA_ERROR_NOT_READY);
  st_gate_open(&gate);
  CK(cuStreamSynchronize(s2));
  ASSERT_CU(cuStreamQuery(s1), CUDA_SUCCESS);
  ASSERT_EQ(get_word(&k, 1), 2u);
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));
  CK(cuStreamDestroy(s1));
  CK(cuStreamDestroy(s2));
  return TEST_OK;
}

/* Racing calls are undefined (documented): the lanes of one instruction setting
 * different values are reported under SIMCUDA_CHECK_UB (here 1: reported, run on);
 * the same value from every lane is not. */
TEST_IMPL(graph_cond_racing_sets_reported) {
  setenv("SIMCUDA_CHECK_UB", "1", 1); /* read at cuInit */
  cond_kernels_t k = setup();
  for (unsigned mask = 0; mask < 2; mask++) {
    CUgraph g, body;
    CK(cuGraphCreate(&g, 0));
    CUgraphConditionalHandle h;
    CK(cuGraphConditionalHandleCreate(&h, g, NULL, 0, 0));
    void *args[] = {&h, &mask};
    CUDA_KERNEL_NODE_PARAMS p = {0};
    p.func = k.setlanes;
    p.gridDimX = p.gridDimY = p.gridDimZ = p.blockDimY = p.blockDimZ = 1;
    p.blockDimX = 32;
    p.kernelParams = args;
    CUgraphNode a, c;
    CK(cuGraphAddKernelNode(&a, g, NULL, 0, &p));
    CK(cond_node(g, a, h, CU_GRAPH_COND_TYPE_IF, 1, &c, &body));
    node_addk(&k, body, NULL, 1, 1);
    CUgraphExec e;
    CK(cuGraphInstantiate(&e, g, 0));
    st_reset_stats();
    launch(e);
    ASSERT_EQ(st_stats().ub_reports, (uint64_t)mask);
    ASSERT_EQ(get_word(&k, 1), mask); /* the highest lane's value (31 & 1) stayed */
    CK(cuGraphExecDestroy(e));
    CK(cuGraphDestroy(g));
  }
  return TEST_OK;
}
