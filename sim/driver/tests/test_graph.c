/* test_graph.c: CUDA graphs and stream capture on the simulator: every node type,
 * dependencies, instantiation and updates, memory nodes, capture modes and the
 * errors the driver gives during capture, relaunch loops checked on the host. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

#define N 1000u

typedef struct {
  CUmodule m;
  CUfunction fill, copy, vecadd;
} kernels_t;

static kernels_t kernels(void) {
  kernels_t k;
  st_setup();
  if (cuModuleLoadData(&k.m, &st_image) != CUDA_SUCCESS) abort();
  k.fill = st_func(k.m, ST_FILL);
  k.copy = st_func(k.m, ST_COPY);
  k.vecadd = st_func(k.m, ST_VECADD);
  return k;
}

static CUDA_KERNEL_NODE_PARAMS kparams(CUfunction f, unsigned grid, void **args) {
  CUDA_KERNEL_NODE_PARAMS p = {0};
  p.func = f;
  p.gridDimX = grid, p.gridDimY = 1, p.gridDimZ = 1;
  p.blockDimX = 128, p.blockDimY = 1, p.blockDimZ = 1;
  p.kernelParams = args;
  return p;
}

static CUDA_MEMCPY3D copy1d(CUdeviceptr dst, void *dst_host, CUdeviceptr src, const void *src_host, size_t bytes) {
  CUDA_MEMCPY3D c = {0};
  c.srcMemoryType = src_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
  c.srcHost = src_host;
  c.srcDevice = src;
  c.dstMemoryType = dst_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
  c.dstHost = dst_host;
  c.dstDevice = dst;
  c.WidthInBytes = bytes;
  c.Height = 1;
  c.Depth = 1;
  return c;
}

static void count_fn(void *p) { atomic_fetch_add((atomic_int *)p, 1); }

static int check_all(const unsigned *v, unsigned n, unsigned want) {
  for (unsigned i = 0; i < n; i++)
    if (v[i] != want) return (int)i;
  return -1;
}

/* Every node type a program adds explicitly, with dependencies, and the queries. */
TEST_IMPL(graph_node_types) {
  kernels_t k = kernels();
  unsigned n = N, v = 7;
  CUdeviceptr a, b;
  CK(cuMemAlloc(&a, N * 4));
  CK(cuMemAlloc(&b, N * 4));
  unsigned *host;
  CK(cuMemAllocHost((void **)&host, N * 4));
  memset(host, 0, N * 4);
  atomic_int hits = 0;
  CUevent ev;
  CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));

  CUgraph g, child;
  CK(cuGraphCreate(&g, 0));
  CK(cuGraphCreate(&child, 0));
  /* child: fill b with v + 1 (its arguments copied at node creation) */
  unsigned v1 = v + 1;
  void *cargs[] = {&b, &v1, &n};
  CUDA_KERNEL_NODE_PARAMS cp = kparams(k.fill, 8, cargs);
  CUgraphNode cn;
  CK(cuGraphAddKernelNode(&cn, child, NULL, 0, &cp));

  CUgraphNode ms, kf, cpy, hn, em, ch, rec, d2h;
  CUDA_MEMSET_NODE_PARAMS sp = {.dst = a, .pitch = 0, .value = 0xdeadbeef, .elementSize = 4, .width = N, .height = 1};
  CK(cuGraphAddMemsetNode(&ms, g, NULL, 0, &sp, NULL));
  void *fargs[] = {&a, &v, &n};
  CUDA_KERNEL_NODE_PARAMS fp = kparams(k.fill, 8, fargs);
  CK(cuGraphAddKernelNode(&kf, g, &ms, 1, &fp));
  CK(cuGraphAddChildGraphNode(&ch, g, NULL, 0, child));
  CUgraphNode both[] = {kf, ch};
  CK(cuGraphAddEmptyNode(&em, g, both, 2));
  /* b <- a (overwrites the child's fill, which must have run first) */
  CUDA_MEMCPY3D c1 = copy1d(b, NULL, a, NULL, N * 4);
  CK(cuGraphAddMemcpyNode(&cpy, g, &em, 1, &c1, NULL));
  CUDA_MEMCPY3D c2 = copy1d(0, host, b, NULL, N * 4);
  CK(cuGraphAddMemcpyNode(&d2h, g, &cpy, 1, &c2, NULL));
  CUDA_HOST_NODE_PARAMS hp = {count_fn, &hits};
  CK(cuGraphAddHostNode(&hn, g, &d2h, 1, &hp));
  CK(cuGraphAddEventRecordNode(&rec, g, &hn, 1, ev));

  /* queries */
  size_t cnt = 0;
  CK(cuGraphGetNodes(g, NULL, &cnt));
  ASSERT_EQ(cnt, 8u);
  CUgraphNode roots[4];
  cnt = 4;
  CK(cuGraphGetRootNodes(g, roots, &cnt));
  ASSERT_EQ(cnt, 2u);
  ASSERT(roots[0] == ms && roots[1] == ch);
  CK(cuGraphGetEdges(g, NULL, NULL, NULL, &cnt));
  ASSERT_EQ(cnt, 7u);
  CUgraphNodeType t;
  CK(cuGraphNodeGetType(cpy, &t));
  ASSERT_EQ((int)t, (int)CU_GRAPH_NODE_TYPE_MEMCPY);
  CK(cuGraphNodeGetType(rec, &t));
  ASSERT_EQ((int)t, (int)CU_GRAPH_NODE_TYPE_EVENT_RECORD);
  CUDA_KERNEL_NODE_PARAMS got;
  CK(cuGraphKernelNodeGetParams(kf, &got));
  ASSERT_EQ(got.gridDimX, 8u);
  ASSERT_EQ(*(unsigned *)got.kernelParams[1], v);
  CUgraphNode deps[2];
  cnt = 2;
  CK(cuGraphNodeGetDependencies(em, deps, NULL, &cnt));
  ASSERT_EQ(cnt, 2u);
  CUgraph inner;
  CK(cuGraphChildGraphNodeGetGraph(ch, &inner));
  CK(cuGraphGetNodes(inner, NULL, &cnt));
  ASSERT_EQ(cnt, 1u);
  /* a cycle and a duplicate edge are refused */
  ASSERT_CU(cuGraphAddDependencies(g, &rec, &ms, NULL, 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuGraphAddDependencies(g, &ms, &kf, NULL, 1), CUDA_ERROR_INVALID_VALUE);

  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  for (int rep = 0; rep < 3; rep++) {
    memset(host, 0, N * 4);
    CK(cuGraphLaunch(e, s));
    CK(cuStreamSynchronize(s));
    ASSERT_EQ(check_all(host, N, v), -1);
    ASSERT_EQ(atomic_load(&hits), rep + 1);
    CK(cuEventQuery(ev)); /* the record node completed */
  }
  /* a wait node on that event in another graph orders that graph after it */
  CUgraph g2;
  CUgraphNode wn;
  CK(cuGraphCreate(&g2, 0));
  CK(cuGraphAddEventWaitNode(&wn, g2, NULL, 0, ev));
  CUgraphExec e2;
  CK(cuGraphInstantiate(&e2, g2, 0));
  CK(cuGraphLaunch(e, s));
  CK(cuGraphLaunch(e2, NULL));
  CK(cuCtxSynchronize());
  ASSERT_EQ(atomic_load(&hits), 4);
  CK(cuGraphExecDestroy(e2));
  CK(cuGraphDestroy(g2));
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));
  CK(cuGraphDestroy(child));
  CK(cuStreamDestroy(s));
  CK(cuEventDestroy(ev));
  CK(cuMemFreeHost(host));
  CK(cuMemFree(a));
  CK(cuMemFree(b));
  return TEST_OK;
}

/* A graph launch is one operation of its stream: what follows waits for all of it. */
TEST_IMPL(graph_launch_stream_order) {
  st_setup();
  st_gate_t gate = {0};
  atomic_int after = 0;
  CUgraph g;
  CK(cuGraphCreate(&g, 0));
  CUgraphNode h1, h2;
  CUDA_HOST_NODE_PARAMS gp = {st_gate_fn, &gate}, cp = {count_fn, &after};
  CK(cuGraphAddHostNode(&h1, g, NULL, 0, &gp));
  CK(cuGraphAddHostNode(&h2, g, NULL, 0, &gp)); /* a second root: still before what follows */
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  CUstream s;
  CK(cuStreamCreate(&s, 0));
  CK(cuGraphLaunch(e, s));
  CK(cuLaunchHostFunc(s, count_fn, &after));
  while (!atomic_load(&gate.entered)) st_sleep_ms(1);
  st_sleep_ms(20);
  ASSERT_EQ(atomic_load(&after), 0);
  ASSERT_CU(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
  st_gate_open(&gate);
  CK(cuStreamSynchronize(s));
  ASSERT_EQ(atomic_load(&after), 1);
  (void)cp;
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));
  CK(cuStreamDestroy(s));
  return TEST_OK;
}

/* Parameters changed between launches: exec node setters, whole-graph update, clone. */
TEST_IMPL(graph_exec_updates) {
  kernels_t k = kernels();
  unsigned n = N, v = 1;
  CUdeviceptr a;
  CK(cuMemAlloc(&a, N * 4));
  unsigned back[N];
  void *args[] = {&a, &v, &n};
  CUDA_KERNEL_NODE_PARAMS p = kparams(k.fill, 8, args);
  CUgraph g;
  CUgraphNode kn;
  CK(cuGraphCreate(&g, 0));
  CK(cuGraphAddKernelNode(&kn, g, NULL, 0, &p));
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  for (v = 1; v <= 5; v++) {
    CK(cuGraphExecKernelNodeSetParams(e, kn, &p)); /* arguments copied at the call */
    CK(cuGraphLaunch(e, NULL));
    CK(cuMemcpyDtoH(back, a, sizeof back));
    ASSERT_EQ(check_all(back, N, v), -1);
  }
  /* a disabled node does nothing until enabled again */
  unsigned on = 0;
  CK(cuGraphNodeGetEnabled(e, kn, &on));
  ASSERT_EQ(on, 1u);
  CK(cuGraphNodeSetEnabled(e, kn, 0));
  CK(cuMemsetD32(a, 0, N));
  CK(cuGraphLaunch(e, NULL));
  CK(cuMemcpyDtoH(back, a, sizeof back));
  ASSERT_EQ(check_all(back, N, 0), -1);
  CK(cuGraphNodeSetEnabled(e, kn, 1));
  /* the graph itself kept its own arguments */
  CUDA_KERNEL_NODE_PARAMS got;
  CK(cuGraphKernelNodeGetParams(kn, &got));
  ASSERT_EQ(*(unsigned *)got.kernelParams[1], 1u);
  /* whole-graph update from a graph of the same shape */
  CUgraph g2;
  CUgraphNode kn2, extra;
  v = 42;
  CK(cuGraphCreate(&g2, 0));
  CK(cuGraphAddKernelNode(&kn2, g2, NULL, 0, &p));
  CUgraphExecUpdateResultInfo info;
  CK(cuGraphExecUpdate(e, g2, &info));
  ASSERT_EQ((int)info.result, (int)CU_GRAPH_EXEC_UPDATE_SUCCESS);
  CK(cuGraphLaunch(e, NULL));
  CK(cuMemcpyDtoH(back, a, sizeof back));
  ASSERT_EQ(check_all(back, N, 42), -1);
  /* a changed topology is refused, and the executable graph is unchanged */
  CK(cuGraphAddEmptyNode(&extra, g2, &kn2, 1));
  ASSERT_CU(cuGraphExecUpdate(e, g2, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  ASSERT_EQ((int)info.result, (int)CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
  /* a changed node type too */
  CUgraph g3;
  CUgraphNode en;
  CK(cuGraphCreate(&g3, 0));
  CK(cuGraphAddEmptyNode(&en, g3, NULL, 0));
  ASSERT_CU(cuGraphExecUpdate(e, g3, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  ASSERT_EQ((int)info.result, (int)CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED);
  /* clone: independent parameters, nodes found by their originals */
  CUgraph cl;
  CUgraphNode ckn;
  CK(cuGraphClone(&cl, g));
  CK(cuGraphNodeFindInClone(&ckn, kn, cl));
  ASSERT(ckn != kn);
  v = 9;
  CK(cuGraphKernelNodeSetParams(ckn, &p));
  CUgraphExec ce;
  CK(cuGraphInstantiateWithFlags(&ce, cl, 0));
  CK(cuGraphUpload(ce, NULL));
  CK(cuGraphLaunch(ce, NULL));
  CK(cuMemcpyDtoH(back, a, sizeof back));
  ASSERT_EQ(check_all(back, N, 9), -1);
  CK(cuGraphLaunch(e, NULL));
  CK(cuMemcpyDtoH(back, a, sizeof back));
  ASSERT_EQ(check_all(back, N, 42), -1);
  /* instantiate with params, upload flag */
  CUDA_GRAPH_INSTANTIATE_PARAMS ip = {.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD, .hUploadStream = NULL};
  CUgraphExec pe;
  CK(cuGraphInstantiateWithParams(&pe, g, &ip));
  ASSERT_EQ((int)ip.result_out, (int)CUDA_GRAPH_INSTANTIATE_SUCCESS);
  cuuint64_t fl;
  CK(cuGraphExecGetFlags(pe, &fl));
  ASSERT_EQ(fl, (cuuint64_t)CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD);
  ASSERT_CU(cuGraphInstantiateWithFlags(&pe, g, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD), CUDA_ERROR_INVALID_VALUE);
  CK(cuGraphExecDestroy(pe));
  CK(cuGraphExecDestroy(ce));
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(cl));
  CK(cuGraphDestroy(g3));
  CK(cuGraphDestroy(g2));
  CK(cuGraphDestroy(g));
  CK(cuMemFree(a));
  return TEST_OK;
}

/* Memory nodes: memory that lives from the alloc node to the free node. */
TEST_IMPL(graph_mem_nodes) {
  kernels_t k = kernels();
  unsigned n = N, v = 3;
  unsigned *host;
  CK(cuMemAllocHost((void **)&host, N * 4));
  CUgraph g;
  CK(cuGraphCreate(&g, 0));
  CUDA_MEM_ALLOC_NODE_PARAMS ap = {0};
  ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  ap.bytesize = N * 4;
  CUgraphNode an, kn, cn, fn;
  CK(cuGraphAddMemAllocNode(&an, g, NULL, 0, &ap));
  ASSERT(ap.dptr != 0);
  CUdeviceptr d = ap.dptr;
  void *args[] = {&d, &v, &n};
  CUDA_KERNEL_NODE_PARAMS p = kparams(k.fill, 8, args);
  CK(cuGraphAddKernelNode(&kn, g, &an, 1, &p));
  CUDA_MEMCPY3D c = copy1d(0, host, d, NULL, N * 4);
  CK(cuGraphAddMemcpyNode(&cn, g, &kn, 1, &c, NULL));
  CK(cuGraphAddMemFreeNode(&fn, g, &cn, 1, d));
  CUDA_MEM_ALLOC_NODE_PARAMS back;
  CK(cuGraphMemAllocNodeGetParams(an, &back));
  ASSERT_EQ(back.dptr, d);
  ASSERT_CU(cuGraphAddMemFreeNode(&fn, g, NULL, 0, 12345), CUDA_ERROR_INVALID_VALUE); /* not graph memory */
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  CUgraphExec e2;
  ASSERT_CU(cuGraphInstantiate(&e2, g, 0), CUDA_ERROR_INVALID_VALUE); /* one at a time */
  CUgraph cl;
  ASSERT_CU(cuGraphClone(&cl, g), CUDA_ERROR_NOT_SUPPORTED);
  for (int rep = 0; rep < 3; rep++) {
    memset(host, 0, N * 4);
    CK(cuGraphLaunch(e, NULL));
    CK(cuCtxSynchronize());
    ASSERT_EQ(check_all(host, N, v), -1);
  }
  /* the device's graph memory: freed by the graph, its physical memory still mapped
   * (32 MiB at a time) until a trim, as an H100 reports it */
  const cuuint64_t chunk = (cuuint64_t)32 << 20;
  cuuint64_t used = 1, reserved = 0, high = 0;
  CK(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used));
  CK(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &reserved));
  CK(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &high));
  ASSERT_EQ(used, chunk);
  ASSERT_EQ(reserved, chunk);
  ASSERT_EQ(high, chunk);
  ASSERT_CU(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used), CUDA_ERROR_INVALID_VALUE);
  high = 1;
  ASSERT_CU(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &high), CUDA_ERROR_INVALID_VALUE);
  high = 0; /* a reset: to what is used now */
  CK(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &high));
  CK(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &high));
  ASSERT_EQ(high, chunk);
  CK(cuDeviceGraphMemTrim(0));
  CK(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used));
  CK(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &reserved));
  ASSERT_EQ(used, 0u); /* nothing live: all of it unmapped */
  ASSERT_EQ(reserved, 0u);
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));

  /* Captured cuMemAllocAsync with no free in the graph: the program frees it
   * after the launch; relaunching before that is an error. */
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUdeviceptr m;
  CK(cuMemAllocAsync(&m, N * 4, s));
  void *margs[] = {&m, &v, &n};
  CK(cuLaunchKernel(k.fill, 8, 1, 1, 128, 1, 1, 0, s, margs, NULL));
  CK(cuMemcpyDtoHAsync(host, m, N * 4, s));
  CK(cuStreamEndCapture(s, &g));
  size_t cnt;
  CK(cuGraphGetNodes(g, NULL, &cnt));
  ASSERT_EQ(cnt, 3u);
  CK(cuGraphInstantiate(&e, g, 0));
  v = 0; /* captured at the launch call */
  memset(host, 0, N * 4);
  CK(cuGraphLaunch(e, s));
  CK(cuStreamSynchronize(s));
  ASSERT_EQ(check_all(host, N, 3), -1);
  ASSERT_CU(cuGraphLaunch(e, s), CUDA_ERROR_INVALID_VALUE); /* still allocated */
  CK(cuMemFreeAsync(m, s));
  ASSERT_CU(cuMemFreeAsync(m, s), CUDA_ERROR_INVALID_VALUE); /* freed already */
  CK(cuGraphLaunch(e, s));
  CK(cuMemFreeAsync(m, s));
  CK(cuStreamSynchronize(s));
  /* cuMemFree outside any graph frees it too, after the work queued so far (NVIDIA's
   * graphMemoryNodes does so): the graph can be launched again */
  CK(cuGraphLaunch(e, s));
  CK(cuMemFree(m));
  ASSERT_CU(cuMemFree(m), CUDA_ERROR_INVALID_VALUE); /* freed already */
  ASSERT_EQ(check_all(host, N, 3), -1);
  CK(cuGraphLaunch(e, s));
  CK(cuMemFreeAsync(m, s));
  CK(cuStreamSynchronize(s));
  CK(cuGraphExecDestroy(e));
  /* the same graph, freed on each launch */
  CK(cuGraphInstantiate(&e, g, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
  for (int rep = 0; rep < 3; rep++) CK(cuGraphLaunch(e, s));
  CK(cuStreamSynchronize(s));
  ASSERT_EQ(check_all(host, N, 3), -1);
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));

  /* Captured alloc and free in one graph */
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  CK(cuMemAllocAsync(&m, N * 4, s));
  v = 11;
  CK(cuLaunchKernel(k.fill, 8, 1, 1, 128, 1, 1, 0, s, margs, NULL));
  CK(cuMemcpyDtoHAsync(host, m, N * 4, s));
  CK(cuMemFreeAsync(m, s));
  CK(cuStreamEndCapture(s, &g));
  CK(cuGraphInstantiate(&e, g, 0));
  for (int rep = 0; rep < 3; rep++) CK(cuGraphLaunch(e, s));
  CK(cuStreamSynchronize(s));
  ASSERT_EQ(check_all(host, N, 11), -1);
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));
  CK(cuStreamDestroy(s));
  CK(cuMemFreeHost(host));
  return TEST_OK;
}

/* Captured operations become nodes and do not run; the graph relaunched many
 * times (a captured loop), with results checked against the host. */
TEST_IMPL(capture_loop_relaunch) {
  kernels_t k = kernels();
  int n = (int)N;
  CUdeviceptr x, y, b;
  CK(cuMemAlloc(&x, N * 4));
  CK(cuMemAlloc(&y, N * 4));
  CK(cuMemAlloc(&b, N * 4));
  float *hx;
  CK(cuMemAllocHost((void **)&hx, N * 4));
  for (unsigned i = 0; i < N; i++) hx[i] = (float)(i % 7);
  CK(cuMemcpyHtoD(b, hx, N * 4));
  CUstream s;
  CK(cuStreamCreate(&s, 0));
  atomic_int hits = 0;
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUstreamCaptureStatus st;
  CK(cuStreamIsCapturing(s, &st));
  ASSERT_EQ((int)st, (int)CU_STREAM_CAPTURE_STATUS_ACTIVE);
  CK(cuMemsetD32Async(x, 0, N, s));
  void *a1[] = {&x, &b, &y, &n}, *a2[] = {&y, &b, &x, &n};
  for (int it = 0; it < 10; it++) { /* x += 2 b per iteration */
    CK(cuLaunchKernel(k.vecadd, 8, 1, 1, 128, 1, 1, 0, s, a1, NULL));
    CK(cuLaunchKernel(k.vecadd, 8, 1, 1, 128, 1, 1, 0, s, a2, NULL));
  }
  CK(cuMemcpyDtoHAsync(hx, x, N * 4, s));
  CK(cuLaunchHostFunc(s, count_fn, &hits));
  cuuint64_t id;
  CUgraph cg;
  const CUgraphNode *deps;
  size_t nd;
  CK(cuStreamGetCaptureInfo(s, &st, &id, &cg, &deps, NULL, &nd));
  ASSERT_EQ(nd, 1u);
  CUgraphNodeType t;
  CK(cuGraphNodeGetType(deps[0], &t));
  ASSERT_EQ((int)t, (int)CU_GRAPH_NODE_TYPE_HOST);
  CUgraph g;
  CK(cuStreamEndCapture(s, &g));
  ASSERT(g == cg);
  CK(cuStreamIsCapturing(s, &st));
  ASSERT_EQ((int)st, (int)CU_STREAM_CAPTURE_STATUS_NONE);
  CK(cuStreamSynchronize(s));
  ASSERT_EQ(atomic_load(&hits), 0); /* nothing ran */
  ASSERT_EQ(hx[1], 1.0f);
  size_t cnt;
  CK(cuGraphGetNodes(g, NULL, &cnt));
  ASSERT_EQ(cnt, 23u);
  CUgraphExec e;
  CK(cuGraphInstantiate(&e, g, 0));
  for (int rep = 1; rep <= 200; rep++) CK(cuGraphLaunch(e, s));
  CK(cuStreamSynchronize(s));
  ASSERT_EQ(atomic_load(&hits), 200);
  for (unsigned i = 0; i < N; i++)
    if (hx[i] != 20.0f * (float)(i % 7)) FT_FAIL_("x[%u] = %g", i, (double)hx[i]);
  CK(cuGraphExecDestroy(e));
  CK(cuGraphDestroy(g));
  CK(cuStreamDestroy(s));
  CK(cuMemFreeHost(hx));
  CK(cuMemFree(x));
  CK(cuMemFree(y));
  CK(cuMemFree(b));
  return TEST_OK;
}

/* Fork and join through events; an unjoined fork fails the end of the capture. */
TEST_IMPL(capture_cross_stream) {
  kernels_t k = kernels();
  unsigned n = N, v1 = 5, v2 = 6;
  CUdeviceptr a, b;
  CK(cuMemAlloc(&a, N * 4));
  CK(cuMemAlloc(&b, N * 4));
  CUstream s1, s2;
  CK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  CUevent fork, joinev;
  CK(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
  CK(cuEventCreate(&joinev, CU_EVENT_DISABLE_TIMING));
  void *fa[] = {&a, &v1, &n}, *fb[] = {&b, &v2, &n};
  for (int joined = 1; joined >= 0; joined--) {
    CK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CK(cuEventRecord(fork, s1));
    ASSERT_CU(cuEventQuery(fork), CUDA_ERROR_CAPTURED_EVENT);
    CK(cuStreamWaitEvent(s2, fork, 0));
    CUstreamCaptureStatus st;
    CK(cuStreamIsCapturing(s2, &st));
    ASSERT_EQ((int)st, (int)CU_STREAM_CAPTURE_STATUS_ACTIVE);
    CK(cuLaunchKernel(k.fill, 8, 1, 1, 128, 1, 1, 0, s1, fa, NULL));
    CK(cuLaunchKernel(k.fill, 8, 1, 1, 128, 1, 1, 0, s2, fb, NULL));
    if (joined) {
      CK(cuEventRecord(joinev, s2));
      CK(cuStreamWaitEvent(s1, joinev, 0));
    }
    CUgraph g;
    if (!joined) {
      ASSERT_CU(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
      ASSERT(g == NULL);
      CK(cuStreamIsCapturing(s2, &st));
      ASSERT_EQ((int)st, (int)CU_STREAM_CAPTURE_STATUS_NONE);
      break;
    }
    CK(cuStreamEndCapture(s1, &g));
    CK(cuEventQuery(fork)); /* no longer a captured event */
    size_t cnt;
    CUgraphNode roots[2];
    CK(cuGraphGetNodes(g, NULL, &cnt));
    ASSERT_EQ(cnt, 2u); /* the two kernels, in parallel */
    cnt = 2;
    CK(cuGraphGetRootNodes(g, roots, &cnt));
    ASSERT_EQ(cnt, 2u);
    CUgraphExec e;
    CK(cuGraphInstantiate(&e, g, 0));
    CK(cuGraphLaunch(e, s1));
    unsigned back[N];
    CK(cuStreamSynchronize(s1));
    CK(cuMemcpyDtoH(back, a, sizeof back));
    ASSERT_EQ(check_all(back, N, 5), -1);
    CK(cuMemcpyDtoH(back, b, sizeof back));
    ASSERT_EQ(check_all(back, N, 6), -1);
    CK(cuGraphExecDestroy(e));
    CK(cuGraphDestroy(g));
  }
  /* a forked stream destroyed before the capture ends (as NVIDIA's graphMemoryNodes
   * does): joined back first, the capture ends well with its node; not joined, the
   * end says so */
  for (int joined = 1; joined >= 0; joined--) {
    CUstream s3;
    CK(cuStreamCreate(&s3, CU_STREAM_NON_BLOCKING));
    CK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CK(cuEventRecord(fork, s1));
    CK(cuStreamWaitEvent(s3, fork, 0));
    CK(cuLaunchKernel(k.fill, 8, 1, 1, 128, 1, 1, 0, s3, fb, NULL));
    if (joined) {
      CK(cuEventRecord(joinev, s3));
      CK(cuStreamWaitEvent(s1, joinev, 0));
    }
    CK(cuStreamDestroy(s3));
    CK(cuLaunchKernel(k.fill, 8, 1, 1, 128, 1, 1, 0, s1, fa, NULL));
    CUgraph g = NULL;
    if (!joined) {
      ASSERT_CU(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
      break;
    }
    CK(cuStreamEndCapture(s1, &g));
    size_t cnt;
    CK(cuGraphGetNodes(g, NULL, &cnt));
    ASSERT_EQ(cnt, 2u);
    CK(cuGraphDestroy(g));
  }
  CK(cuEventDestroy(fork));
  CK(cuEventDestroy(joinev));
  CK(cuStreamDestroy(s1));
  CK(cuStreamDestroy(s2));
  CK(cuMemFree(a));
  CK(cuMemFree(b));
  return TEST_OK;
}

static void callback_fn(CUstream s, CUresult r, void *p) { (void)s, (void)r, (void)p; }

/* Ends a capture expected to be invalidated: INVALIDATED and no graph. */
static void end_invalidated(CUstream s) {
  CUstreamCaptureStatus st;
  CK(cuStreamIsCapturing(s, &st));
  ASSERT_EQ((int)st, (int)CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  CUgraph g = (CUgraph)1;
  ASSERT_CU(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  ASSERT(g == NULL);
}

typedef struct {
  CUcontext ctx;
  CUstream s;
  CUresult end, alloc;
  CUstream own;  /* not captured */
  CUevent ev;    /* recorded before the capture */
  CUresult query, sync, host;
} other_t;

static void *other_thread(void *arg) {
  other_t *o = arg;
  cuCtxSetCurrent(o->ctx);
  CUdeviceptr p = 0;
  o->alloc = cuMemAlloc(&p, 256);
  if (p) cuMemFree(p);
  /* waits and queries of work outside the capture, pinned memory: "potentially
   * unsafe" too (PyTorch's NCCL watchdog met the query, vLLM cuMemHostRegister) */
  o->query = cuEventQuery(o->ev);
  o->sync = cuStreamSynchronize(o->own);
  void *h = NULL;
  o->host = cuMemHostAlloc(&h, 64, 0);
  if (h) cuMemFreeHost(h);
  CUgraph g = NULL;
  o->end = cuStreamEndCapture(o->s, &g);
  if (g) cuGraphDestroy(g);
  return NULL;
}

/* What is illegal during capture: the errors, and the capture invalidated. */
TEST_IMPL(capture_errors) {
  kernels_t k = kernels();
  (void)k;
  CUcontext ctx;
  CK(cuCtxGetCurrent(&ctx));
  CUdeviceptr a;
  CK(cuMemAlloc(&a, N * 4));
  CUstream s, nb;
  CK(cuStreamCreate(&s, 0)); /* blocking: the legacy stream would depend on it */
  CK(cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING));
  ASSERT_CU(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CUgraph g;
  ASSERT_CU(cuStreamEndCapture(s, &g), CUDA_ERROR_ILLEGAL_STATE);

  /* synchronising a capturing stream */
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ASSERT_CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
  CK(cuMemsetD32Async(a, 1, N, s));
  ASSERT_CU(cuStreamSynchronize(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  ASSERT_CU(cuMemsetD32Async(a, 1, N, s), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  end_invalidated(s);
  /* querying it */
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ASSERT_CU(cuStreamQuery(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  end_invalidated(s);
  /* the legacy stream while a blocking stream captures (a synchronous call uses it) */
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
  ASSERT_CU(cuMemsetD32Async(a, 2, N, NULL), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  CUstreamCaptureStatus st;
  ASSERT_CU(cuStreamIsCapturing(NULL, &st), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  end_invalidated(s);
  /* ... but not while only a non-blocking stream captures */
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_RELAXED));
  CK(cuMemsetD32(a, 2, N));
  CK(cuStreamEndCapture(nb, &g));
  CK(cuGraphDestroy(g));
  /* a context synchronisation */
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ASSERT_CU(cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  end_invalidated(nb);
  /* waiting on an event recorded outside the capture (without the external flag) */
  CUevent ev;
  CK(cuEventCreate(&ev, 0));
  CK(cuEventRecord(ev, NULL));
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ASSERT_CU(cuStreamWaitEvent(nb, ev, 0), CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
  end_invalidated(nb);
  /* with it: an event wait node; a record with the external flag: a record node */
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CK(cuStreamWaitEvent(nb, ev, CU_EVENT_WAIT_EXTERNAL));
  CK(cuEventRecordWithFlags(ev, nb, CU_EVENT_RECORD_EXTERNAL));
  CK(cuStreamEndCapture(nb, &g));
  CUgraphNode nodes[2];
  size_t cnt = 2;
  CK(cuGraphGetNodes(g, nodes, &cnt));
  ASSERT_EQ(cnt, 2u);
  CUgraphNodeType t0, t1;
  CK(cuGraphNodeGetType(nodes[0], &t0));
  CK(cuGraphNodeGetType(nodes[1], &t1));
  ASSERT_EQ((int)t0, (int)CU_GRAPH_NODE_TYPE_WAIT_EVENT);
  ASSERT_EQ((int)t1, (int)CU_GRAPH_NODE_TYPE_EVENT_RECORD);
  CK(cuGraphDestroy(g));
  /* asynchronous copies with pageable host memory are captured (NVIDIA's
   * simpleCudaGraphs and graphMemoryNodes do it): memcpy nodes that read and write
   * the host memory when the graph runs, not at the call */
  static unsigned pageable[N], back[N];
  for (unsigned i = 0; i < N; i++) pageable[i] = i, back[i] = 0;
  CK(cuCtxSynchronize()); /* (the legacy stream's earlier memsets of a are done: nb does not wait for them) */
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CK(cuMemcpyHtoDAsync(a, pageable, sizeof pageable, nb));
  CK(cuMemcpyDtoHAsync(back, a, sizeof back, nb));
  CK(cuStreamEndCapture(nb, &g));
  for (unsigned i = 0; i < N; i++) pageable[i] = 3 * i + 1; /* after the capture */
  ASSERT_EQ(back[N - 1], 0u); /* nothing ran yet */
  {
    CUgraphExec pe;
    CK(cuGraphInstantiate(&pe, g, 0));
    CK(cuGraphLaunch(pe, nb));
    CK(cuStreamSynchronize(nb));
    for (unsigned i = 0; i < N; i++) ASSERT_EQ(back[i], 3 * i + 1);
    CK(cuGraphExecDestroy(pe));
  }
  CK(cuGraphDestroy(g));
  /* cuStreamAddCallback (cuLaunchHostFunc is the form graphs hold) */
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ASSERT_CU(cuStreamAddCallback(nb, NULL, NULL, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamAddCallback(nb, callback_fn, NULL, 0), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  end_invalidated(nb);
  /* cuMemAlloc (potentially unsafe) during a global capture of this thread */
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUdeviceptr p;
  ASSERT_CU(cuMemAlloc(&p, 256), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  end_invalidated(nb);
  /* relaxed for this thread: allowed */
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  CK(cuThreadExchangeStreamCaptureMode(&mode));
  ASSERT_EQ((int)mode, (int)CU_STREAM_CAPTURE_MODE_GLOBAL);
  CK(cuMemAlloc(&p, 256));
  CK(cuMemFree(p));
  CK(cuThreadExchangeStreamCaptureMode(&mode));
  CK(cuStreamEndCapture(nb, &g));
  CK(cuGraphDestroy(g));
  /* another thread: in global mode its cuMemAlloc is refused, and ending a
   * global-mode capture there is the wrong thread */
  other_t o = {ctx, nb, CUDA_SUCCESS, CUDA_SUCCESS, NULL, NULL, CUDA_SUCCESS, CUDA_SUCCESS, CUDA_SUCCESS};
  CK(cuStreamCreate(&o.own, CU_STREAM_NON_BLOCKING));
  CK(cuEventCreate(&o.ev, 0));
  CK(cuEventRecord(o.ev, o.own));
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  pthread_t th;
  ASSERT_EQ(pthread_create(&th, NULL, other_thread, &o), 0);
  pthread_join(th, NULL);
  ASSERT_EQ((int)o.alloc, (int)CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  ASSERT_EQ((int)o.query, (int)CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  ASSERT_EQ((int)o.sync, (int)CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  ASSERT_EQ((int)o.host, (int)CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  ASSERT_EQ((int)o.end, (int)CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
  end_invalidated(nb);
  /* thread-local capture: the other thread may allocate; relaxed: may end it */
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  ASSERT_EQ(pthread_create(&th, NULL, other_thread, &o), 0);
  pthread_join(th, NULL);
  ASSERT_EQ((int)o.alloc, (int)CUDA_SUCCESS);
  ASSERT_EQ((int)o.query, (int)CUDA_SUCCESS);
  ASSERT_EQ((int)o.sync, (int)CUDA_SUCCESS);
  ASSERT_EQ((int)o.host, (int)CUDA_SUCCESS);
  ASSERT_EQ((int)o.end, (int)CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
  CK(cuStreamEndCapture(nb, &g));
  CK(cuGraphDestroy(g));
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_RELAXED));
  ASSERT_EQ(pthread_create(&th, NULL, other_thread, &o), 0);
  pthread_join(th, NULL);
  ASSERT_EQ((int)o.end, (int)CUDA_SUCCESS);
  CK(cuEventDestroy(o.ev));
  CK(cuStreamDestroy(o.own));
  /* ending on a stream that joined but did not begin the capture */
  CUevent fe;
  CK(cuEventCreate(&fe, CU_EVENT_DISABLE_TIMING));
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CK(cuEventRecord(fe, nb));
  CK(cuStreamWaitEvent(s, fe, 0));
  ASSERT_CU(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
  ASSERT_CU(cuEventSynchronize(fe), CUDA_ERROR_CAPTURED_EVENT);
  end_invalidated(nb);
  /* capture dependencies set by hand */
  CK(cuStreamBeginCapture(nb, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CK(cuMemsetD32Async(a, 1, N, nb));
  CK(cuMemsetD32Async(a, 2, N, nb));
  CK(cuStreamUpdateCaptureDependencies(nb, NULL, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
  CK(cuMemsetD32Async(a, 3, N, nb)); /* a root again */
  CK(cuStreamEndCapture(nb, &g));
  cnt = 2;
  CK(cuGraphGetRootNodes(g, nodes, &cnt));
  ASSERT_EQ(cnt, 2u);
  CK(cuGraphDestroy(g));
  CK(cuEventDestroy(fe));
  CK(cuEventDestroy(ev));
  CK(cuStreamDestroy(s));
  CK(cuStreamDestroy(nb));
  CK(cuMemFree(a));
  return TEST_OK;
}

/* What the simulator does not run is refused by name, never run wrongly. */
TEST_IMPL(graph_refused_by_name) {
  st_setup();
  CUgraph g;
  CK(cuGraphCreate(&g, 0));
  CUgraphNodeParams np;
  memset(&np, 0, sizeof np);
  np.type = CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL;
  CUgraphNode n;
  ASSERT_CU(cuGraphAddNode(&n, g, NULL, NULL, 0, &np), CUDA_ERROR_NOT_SUPPORTED);
  CUgraphExec e;
  ASSERT_CU(cuGraphInstantiate(&e, g, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH), CUDA_ERROR_NOT_SUPPORTED);
  /* the generic form of a supported type works */
  np.type = CU_GRAPH_NODE_TYPE_EMPTY;
  CK(cuGraphAddNode(&n, g, NULL, NULL, 0, &np));
  CK(cuGraphDestroy(g));
  return TEST_OK;
}
