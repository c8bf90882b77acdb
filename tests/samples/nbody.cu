// nbody: all-pairs gravitational accelerations, positions staged through shared
// memory tile by tile, rsqrtf for the distance (the nbody sample's force kernel).
#include <cmath>
#include <vector>
#include "samples.h"

#define BS 128

__global__ void accel(const float4 *pos, float3 *acc, int n, float soft2) {
  __shared__ float4 sh[BS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = i < n ? pos[i] : make_float4(0, 0, 0, 0);
  float3 a = make_float3(0, 0, 0);
  for (int t = 0; t < (n + BS - 1) / BS; t++) {
    int j = t * BS + threadIdx.x;
    sh[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
    __syncthreads();
    for (int k = 0; k < BS; k++) {
      float4 q = sh[k];
      float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      float d2 = dx * dx + dy * dy + dz * dz + soft2;
      float inv = rsqrtf(d2);
      float s = q.w * inv * inv * inv;
      a.x += dx * s;
      a.y += dy * s;
      a.z += dz * s;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = a;
}

int main() {
  const int n = 1000;
  const float soft2 = 0.01f;
  std::vector<float4> pos(n);
  std::vector<float3> acc(n);
  for (int i = 0; i < n; i++)
    pos[i] = make_float4(sinf(i * 0.7f) * 3, cosf(i * 1.3f) * 3, sinf(i * 0.11f) * 2, 1.0f + (i % 5) * 0.1f);
  float4 *dp;
  float3 *da;
  CHECK(cudaMalloc(&dp, n * sizeof(float4)));
  CHECK(cudaMalloc(&da, n * sizeof(float3)));
  CHECK(cudaMemcpy(dp, pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  accel<<<(n + BS - 1) / BS, BS>>>(dp, da, n, soft2);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(acc.data(), da, n * sizeof(float3), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    double ax = 0, ay = 0, az = 0;
    for (int j = 0; j < n; j++) {
      double dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y, dz = pos[j].z - pos[i].z;
      double d2 = dx * dx + dy * dy + dz * dz + soft2;
      double s = pos[j].w / (d2 * sqrt(d2));
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    double err = fabs(ax - acc[i].x) + fabs(ay - acc[i].y) + fabs(az - acc[i].z);
    double mag = fabs(ax) + fabs(ay) + fabs(az) + 1.0;
    if (err > 1e-3 * mag) {
      printf("body %d: (%f %f %f), expected (%f %f %f)\n", i, acc[i].x, acc[i].y, acc[i].z, ax, ay, az);
      ok = false;
    }
  }
  cudaFree(dp);
  cudaFree(da);
  return verdict("nbody", ok);
}
