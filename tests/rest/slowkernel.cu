// slowkernel: a kernel that computes for a while before it writes, so that work
// on its stream is still running when another context synchronises.
extern "C" __global__ void slow_fill(unsigned *out, unsigned v, int n, int spin) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = (unsigned)i;
  for (int k = 0; k < spin; k++) x = x * 1664525u + 1013904223u;
  out[i] = x ^ v;
}
