// virtual_calls: indirect calls the way C++ device code makes them: virtual
// functions of objects made with new in a kernel (a different class per thread),
// function pointers chosen per lane, and a table of function pointers in a
// __device__ array; results checked against the host.
#include <cstdio>
#include <vector>
#include "samples.h"

struct Shape {
  float s;
  __device__ Shape(float s) : s(s) {}
  __device__ virtual float area() const { return 0.0f; }
  __device__ virtual int sides() const { return 0; }
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  __device__ Square(float s) : Shape(s) {}
  __device__ float area() const override { return s * s; }
  __device__ int sides() const override { return 4; }
};
struct Triangle : Shape {
  __device__ Triangle(float s) : Shape(s) {}
  __device__ float area() const override { return 0.5f * s * s; }
  __device__ int sides() const override { return 3; }
};
struct Hexagon : Square {  // two levels: overrides one function, inherits the other
  __device__ Hexagon(float s) : Square(s) {}
  __device__ int sides() const override { return 6; }
};

__global__ void shapes(float *area, int *sides) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  Shape *p;
  switch (t % 4) {
    case 0: p = new Square(t); break;
    case 1: p = new Triangle(t); break;
    case 2: p = new Hexagon(t); break;
    default: p = new Shape(t); break;
  }
  area[t] = p ? p->area() : -1.0f;
  sides[t] = p ? p->sides() : -1;
  delete p;
}

typedef int (*op_t)(int, int);
__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_sub(int a, int b) { return a - b; }
__device__ int op_mul(int a, int b) { return a * b; }
__device__ int op_max(int a, int b) { return a > b ? a : b; }
__device__ op_t table[4] = {op_add, op_sub, op_mul, op_max};

__global__ void pointers(const int *x, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  op_t f = (x[t] & 1) ? op_mul : op_sub;      // chosen per lane
  out[2 * t] = f(x[t], t);
  out[2 * t + 1] = table[x[t] % 4](x[t], 7);  // through the table
}

int main() {
  const int n = 256;
  float *darea;
  int *dsides, *dx, *dout;
  CHECK(cudaMalloc(&darea, n * sizeof(float)));
  CHECK(cudaMalloc(&dsides, n * sizeof(int)));
  shapes<<<n / 64, 64>>>(darea, dsides);
  CHECK(cudaGetLastError());
  std::vector<float> area(n);
  std::vector<int> sides(n), x(n), out(2 * n);
  CHECK(cudaMemcpy(area.data(), darea, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sides.data(), dsides, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < n; t++) {
    float s = (float)t;
    float wa = t % 4 == 0 || t % 4 == 2 ? s * s : t % 4 == 1 ? 0.5f * s * s : 0.0f;
    int ws = t % 4 == 0 ? 4 : t % 4 == 1 ? 3 : t % 4 == 2 ? 6 : 0;
    if ((area[t] != wa || sides[t] != ws) && bad++ < 5)
      printf("shape [%d]: got %g %d, expected %g %d\n", t, area[t], sides[t], wa, ws);
  }
  for (int i = 0; i < n; i++) x[i] = (i * 37 + 11) % 101;
  CHECK(cudaMalloc(&dx, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, 2 * n * sizeof(int)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  pointers<<<n / 128, 128>>>(dx, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, 2 * n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < n; t++) {
    int a = x[t];
    int w0 = (a & 1) ? a * t : a - t;
    int w1 = a % 4 == 0 ? a + 7 : a % 4 == 1 ? a - 7 : a % 4 == 2 ? a * 7 : (a > 7 ? a : 7);
    if ((out[2 * t] != w0 || out[2 * t + 1] != w1) && bad++ < 10)
      printf("pointer [%d]: got %d %d, expected %d %d\n", t, out[2 * t], out[2 * t + 1], w0, w1);
  }
  return verdict("virtual_calls", bad == 0);
}
