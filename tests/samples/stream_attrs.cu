// stream_attrs: stream attributes as programs set them: an L2 access-policy window
// over a buffer a kernel reuses, a synchronisation policy and a priority, read
// back with cudaStreamGetAttribute, copied to another stream, and a value out of
// range refused; kernels on both streams still compute the right answer.
#include <vector>
#include "samples.h"

__global__ void scale(float *x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main() {
  bool ok = true;
  const int n = 1 << 16;
  float *d;
  CHECK(cudaMalloc(&d, n * 4));
  std::vector<float> h(n, 1.0f);
  CHECK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
  cudaStream_t s, t;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamCreate(&t));

  cudaStreamAttrValue v = {};
  v.accessPolicyWindow.base_ptr = d;
  v.accessPolicyWindow.num_bytes = n * 4;
  v.accessPolicyWindow.hitRatio = 0.6f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  cudaStreamAttrValue p = {};
  p.syncPolicy = cudaSyncPolicyBlockingSync;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &p));
  cudaStreamAttrValue q = {};
  q.priority = -3;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &q));

  cudaStreamAttrValue g = {};
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &g));
  ok &= g.accessPolicyWindow.base_ptr == d && g.accessPolicyWindow.num_bytes == (size_t)n * 4 &&
        g.accessPolicyWindow.hitRatio == 0.6f && g.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
        g.accessPolicyWindow.missProp == cudaAccessPropertyStreaming;
  size_t window = g.accessPolicyWindow.num_bytes;
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &g));
  ok &= g.syncPolicy == cudaSyncPolicyBlockingSync;
  int prio = 0;
  CHECK(cudaStreamGetPriority(s, &prio));
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &g));
  ok &= prio == -3 && g.priority == -3;
  printf("window %zu bytes, hit ratio %.1f, sync policy %d, priority %d\n", window,
         (double)v.accessPolicyWindow.hitRatio, (int)p.syncPolicy, prio);

  // A fresh stream has no window; copying the attributes gives it s's.
  CHECK(cudaStreamGetAttribute(t, cudaStreamAttributeAccessPolicyWindow, &g));
  ok &= g.accessPolicyWindow.num_bytes == 0;
  CHECK(cudaStreamCopyAttributes(t, s));
  CHECK(cudaStreamGetAttribute(t, cudaStreamAttributeAccessPolicyWindow, &g));
  ok &= g.accessPolicyWindow.base_ptr == d && g.accessPolicyWindow.hitRatio == 0.6f;

  // Out of range: a hit ratio above 1, and an attribute that is not a stream's.
  cudaStreamAttrValue bad = v;
  bad.accessPolicyWindow.hitRatio = 2.0f;
  ok &= cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &bad) == cudaErrorInvalidValue;
  ok &= cudaGetLastError() == cudaErrorInvalidValue;
  ok &= cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &q) == cudaErrorInvalidValue;
  cudaGetLastError();
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &g));
  ok &= g.accessPolicyWindow.hitRatio == 0.6f;  // unchanged

  scale<<<n / 256, 256, 0, s>>>(d, n, 3.0f);
  CHECK(cudaStreamSynchronize(s));
  scale<<<n / 256, 256, 0, t>>>(d, n, 0.5f);
  CHECK(cudaStreamSynchronize(t));
  CHECK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) ok &= h[i] == 1.5f;
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaStreamDestroy(t));
  cudaFree(d);
  return verdict("stream_attrs", ok);
}
