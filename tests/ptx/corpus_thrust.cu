// corpus_thrust.cu: Thrust and CUB algorithms whose PTX the parser must read
// completely (issue 25): sort, inclusive scan, reduce, segmented reduce.
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

int main() {
  thrust::device_vector<int> v(1000, 1);
  thrust::device_vector<float> f(1000, 0.5f);
  thrust::sort(v.begin(), v.end());
  thrust::sort(f.begin(), f.end());
  thrust::inclusive_scan(v.begin(), v.end(), v.begin());
  int s = thrust::reduce(v.begin(), v.end());
  thrust::device_vector<int> off(11);
  for (int i = 0; i <= 10; i++) off[i] = i * 100;
  thrust::device_vector<int> out(10);
  size_t tmp = 0;
  cub::DeviceSegmentedReduce::Sum(nullptr, tmp, thrust::raw_pointer_cast(v.data()),
                                  thrust::raw_pointer_cast(out.data()), 10,
                                  thrust::raw_pointer_cast(off.data()), thrust::raw_pointer_cast(off.data()) + 1);
  thrust::device_vector<char> t(tmp);
  cub::DeviceSegmentedReduce::Sum(thrust::raw_pointer_cast(t.data()), tmp, thrust::raw_pointer_cast(v.data()),
                                  thrust::raw_pointer_cast(out.data()), 10,
                                  thrust::raw_pointer_cast(off.data()), thrust::raw_pointer_cast(off.data()) + 1);
  return s > 0 ? 0 : 1;
}
