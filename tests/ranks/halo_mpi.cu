// halo_mpi.cu: a 1-D domain decomposed over MPI ranks, one GPU per rank, written the
// way MPI+CUDA programs are without a CUDA-aware MPI: each rank picks its device from
// its rank on the node, updates its part on it, copies its edge cells to the host,
// exchanges them with its neighbours (MPI_Sendrecv) and copies the halos it received
// back to the device, every step. Integer updates: every rank checks its part against
// a host reference of the whole domain bit for bit, and rank 0 prints the verdict
// and a checksum of the whole result (gathered with MPI_Gather).
//   mpirun -np 2 ./halo_mpi [cells_per_rank [steps]]
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                           \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "rank %d: %s:%d: %s: %s\n", g_rank, __FILE__, __LINE__, #call,          \
              cudaGetErrorString(e_));                                                        \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                           \
    }                                                                                         \
  } while (0)

static int g_rank;

__global__ void step_kernel(const unsigned *in, unsigned *out, int n, unsigned step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1; // cells 1..n; 0 and n+1 are halos
  if (i <= n) out[i] = in[i - 1] ^ (in[i] * 3u) ^ (in[i + 1] + step);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int H = argc > 1 ? atoi(argv[1]) : 4096, STEPS = argc > 2 ? atoi(argv[2]) : 8;
  const int N = H * size;

  // One GPU per rank: the rank among those on this node picks it.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
  int local = 0, gpus = 0;
  MPI_Comm_rank(node, &local);
  CHECK(cudaGetDeviceCount(&gpus));
  CHECK(cudaSetDevice(local % gpus));

  // The whole domain on the host, for the reference; cells 0 and N+1 stay fixed.
  std::vector<unsigned> ref(N + 2);
  for (int i = 0; i < N + 2; i++) ref[i] = unsigned(i) * 2654435761u;
  const int first = g_rank * H; // this rank's cells are first+1 .. first+H
  unsigned *buf[2];
  for (int b = 0; b < 2; b++) {
    CHECK(cudaMalloc(&buf[b], (H + 2) * sizeof(unsigned)));
    CHECK(cudaMemcpy(buf[b], ref.data() + first, (H + 2) * sizeof(unsigned), cudaMemcpyHostToDevice));
  }
  const int left = g_rank > 0 ? g_rank - 1 : MPI_PROC_NULL;
  const int right = g_rank + 1 < size ? g_rank + 1 : MPI_PROC_NULL;
  for (int s = 0; s < STEPS; s++) {
    std::vector<unsigned> nx(ref);
    for (int i = 1; i <= N; i++) nx[i] = ref[i - 1] ^ (ref[i] * 3u) ^ (ref[i + 1] + unsigned(s));
    ref.swap(nx);
    int in = s % 2, out = 1 - in;
    step_kernel<<<(H + 255) / 256, 256>>>(buf[in], buf[out], H, unsigned(s));
    CHECK(cudaGetLastError());
    // Edges to the host, halos from the neighbours, halos to the device.
    unsigned edge[2], halo[2];
    CHECK(cudaMemcpy(&edge[0], buf[out] + 1, sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&edge[1], buf[out] + H, sizeof(unsigned), cudaMemcpyDeviceToHost));
    MPI_Sendrecv(&edge[0], 1, MPI_UNSIGNED, left, 0, &halo[1], 1, MPI_UNSIGNED, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&edge[1], 1, MPI_UNSIGNED, right, 1, &halo[0], 1, MPI_UNSIGNED, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (left != MPI_PROC_NULL)
      CHECK(cudaMemcpy(buf[out], &halo[0], sizeof(unsigned), cudaMemcpyHostToDevice));
    if (right != MPI_PROC_NULL)
      CHECK(cudaMemcpy(buf[out] + H + 1, &halo[1], sizeof(unsigned), cudaMemcpyHostToDevice));
  }
  std::vector<unsigned> got(H + 2);
  CHECK(cudaMemcpy(got.data(), buf[STEPS % 2], (H + 2) * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int ok = memcmp(got.data(), ref.data() + first, (H + 2) * sizeof(unsigned)) == 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  std::vector<unsigned> whole(g_rank == 0 ? N : 0);
  MPI_Gather(got.data() + 1, H, MPI_UNSIGNED, whole.data(), H, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
  if (g_rank == 0) {
    unsigned sum = 0;
    for (int i = 0; i < N; i++) sum = sum * 31u + whole[i];
    printf("%d steps over %d ranks, %d cells each, checksum %08x\n", STEPS, size, H, sum);
    printf("halo_mpi: %s\n", all_ok ? "PASSED" : "FAILED");
  }
  for (int b = 0; b < 2; b++) CHECK(cudaFree(buf[b]));
  MPI_Comm_free(&node);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
