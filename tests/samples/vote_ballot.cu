// vote_ballot: warp votes (__all_sync, __any_sync, __ballot_sync), __activemask
// inside a divergent branch, __match_any_sync and __popc, checked per warp on the host.
#include <vector>
#include "samples.h"

__global__ void votes(const int *x, unsigned *ballot, int *all, int *any, unsigned *active, unsigned *match) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[i];
  unsigned b = __ballot_sync(0xffffffffu, v > 0);
  int a = __all_sync(0xffffffffu, v > 0);
  int y = __any_sync(0xffffffffu, v > 100);
  unsigned m = __match_any_sync(0xffffffffu, v % 4);
  unsigned act = 0;
  if (v % 3 == 0) act = __activemask();  // the lanes taking this branch
  ballot[i] = b;
  all[i] = a;
  any[i] = y;
  active[i] = act;
  match[i] = m;
}

int main() {
  const int n = 256;
  std::vector<int> x(n);
  for (int i = 0; i < n; i++) x[i] = (i / 32 == 2) ? (i % 7) + 1 : ((i * 37) % 11) - 3 + (i / 32 == 5 ? 200 : 0);
  int *dx, *dall, *dany;
  unsigned *dballot, *dactive, *dmatch;
  CHECK(cudaMalloc(&dx, n * 4));
  CHECK(cudaMalloc(&dall, n * 4));
  CHECK(cudaMalloc(&dany, n * 4));
  CHECK(cudaMalloc(&dballot, n * 4));
  CHECK(cudaMalloc(&dactive, n * 4));
  CHECK(cudaMalloc(&dmatch, n * 4));
  CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  votes<<<2, 128>>>(dx, dballot, dall, dany, dactive, dmatch);
  CHECK(cudaGetLastError());
  std::vector<unsigned> ballot(n), active(n), match(n);
  std::vector<int> all(n), any(n);
  CHECK(cudaMemcpy(ballot.data(), dballot, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(all.data(), dall, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(any.data(), dany, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(active.data(), dactive, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(match.data(), dmatch, n * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int w = 0; w < n / 32 && ok; w++) {
    unsigned eb = 0, ea = 0;
    bool eall = true, eany = false;
    for (int l = 0; l < 32; l++) {
      int v = x[w * 32 + l];
      if (v > 0) eb |= 1u << l;
      else eall = false;
      if (v > 100) eany = true;
      if (v % 3 == 0) ea |= 1u << l;
    }
    for (int l = 0; l < 32 && ok; l++) {
      int i = w * 32 + l, v = x[i];
      unsigned em = 0;
      for (int k = 0; k < 32; k++)
        if (x[w * 32 + k] % 4 == v % 4) em |= 1u << k;
      unsigned eact = v % 3 == 0 ? ea : 0;
      if (ballot[i] != eb || (all[i] != 0) != eall || (any[i] != 0) != eany || active[i] != eact ||
          match[i] != em || __builtin_popcount(ballot[i]) != __builtin_popcount(eb)) {
        printf("warp %d lane %d: ballot %08x/%08x all %d/%d any %d/%d active %08x/%08x match %08x/%08x\n", w, l,
               ballot[i], eb, all[i], eall, any[i], eany, active[i], eact, match[i], em);
        ok = false;
      }
    }
  }
  cudaFree(dx);
  cudaFree(dall);
  cudaFree(dany);
  cudaFree(dballot);
  cudaFree(dactive);
  cudaFree(dmatch);
  return verdict("vote_ballot", ok);
}
