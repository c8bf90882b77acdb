// adversarial.cu: kernels written to break a PTX pointer analysis (issue 21): each
// writes memory through a pointer the analysis can lose (integer arithmetic with
// two origins, pieces, shuffles, tables, module variables, packed structs, a
// pointer just outside its allocation...). `adversarial CASE` runs one case and
// checks its own result against values computed on the host; `adversarial --list`
// names them. Exit 0 and "CASE: ok <checksum>" when right, 1 when wrong.
// `adversarial CASE MIB` first uploads MIB MiB of other data the case never
// touches (a model's weights, a solver's matrix): what gpuft's conservative paths
// cost shows against it (bench/reach_bench).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define N 1024
#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(2);                                                                         \
    }                                                                                  \
  } while (0)

// ---- the kernels: each writes out[i] = i * 3 + 1 (or a variant) through a lost pointer

// a + (b - a): the written pointer comes back through arithmetic with another one
__global__ void k_rebase(const int *a, int *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  intptr_t d = ((intptr_t)b - (intptr_t)a) >> 2;   // shifts make it an integer
  int *p = (int *)((intptr_t)a + (d << 2));
  p[i] = a[i] * 3 + 1;
}

// the pointer to write laundered through xor with a key and back
__global__ void k_xor(const int *in, int *out, uint64_t key) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  uint64_t h = (uint64_t)out ^ key;
  int *p = (int *)(h ^ key);
  p[i] = in[i] * 3 + 1;
}

// stored in two 4-byte halves to global scratch, reloaded and rebuilt
__global__ void k_halves_global(const int *in, int *out, unsigned *scratch) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  if (threadIdx.x == 0) {
    scratch[2 * blockIdx.x] = (unsigned)(uintptr_t)out;
    scratch[2 * blockIdx.x + 1] = (unsigned)((uintptr_t)out >> 32);
  }
  __syncthreads();
  volatile unsigned *s = scratch;
  int *p = (int *)((uint64_t)s[2 * blockIdx.x + 1] << 32 | s[2 * blockIdx.x]);
  p[i] = in[i] * 3 + 1;
}

// the same round trip through shared memory
__global__ void k_halves_shared(const int *in, int *out) {
  __shared__ unsigned h[2];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    h[0] = (unsigned)(uintptr_t)out;
    h[1] = (unsigned)((uintptr_t)out >> 32);
  }
  __syncthreads();
  int *p = (int *)((uint64_t)h[1] << 32 | h[0]);
  if (i < N) p[i] = in[i] * 3 + 1;
}

// a packed struct: the pointer at byte 1
struct __attribute__((packed)) Packed1 {
  char tag;
  int *p;
};
__global__ void k_packed1(const int *in, Packed1 s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) s.p[i] = in[i] * 3 + s.tag;
}

// a 4-byte aligned struct: the pointer at byte 4
#pragma pack(push, 4)
struct Pack4 {
  int n;
  int *p;
};
#pragma pack(pop)
__global__ void k_pack4(const int *in, Pack4 s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n) s.p[i] = in[i] * 3 + 1;
}

// a pointer split over two 32-bit parameters (high word first)
__global__ void k_split_params(const int *in, unsigned hi, unsigned lo) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = (int *)((uint64_t)hi << 32 | lo);
  if (i < N) p[i] = in[i] * 3 + 1;
}

// a pointer passed as a double
__global__ void k_double(const int *in, double d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = (int *)__double_as_longlong(d);
  if (i < N) p[i] = in[i] * 3 + 1;
}

// an array of device pointers uploaded by the host (batched GEMM style)
__global__ void k_table(const int *in, int *const *table, int nt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  for (int t = 0; t < nt; t++) table[t][i] = in[i] * 3 + t;
}

// a table of pointers filled by a kernel, used by the next one
__global__ void k_fill_table(int **table, int *a, int *b) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    table[0] = a;
    table[1] = b;
  }
}

// a pointer loaded from a table, stored into a second buffer and loaded back from
// there before it is used: the second buffer holds it only while the kernel runs
// (for the analysis a pointer source and a sink at once: every buffer is scanned)
__global__ void k_copy_follow(const int *in, int *const *from, int **via) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) via[blockIdx.x] = from[0];
  __syncthreads();
  int *p = *(int *volatile *)&via[blockIdx.x];
  if (i < N) p[i] = in[i] * 3 + 1;
}

// a pointer loaded from one table, stored through a pointer loaded from another,
// loaded back through a third argument whose buffer that pointer points into: the
// first table is a source although nothing is dereferenced through it
__global__ void k_store_loaded(const int *in, int **const *slots, int *const *vals, int **via) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) *slots[blockIdx.x] = vals[0];
  __syncthreads();
  int *p = *(int *volatile *)&via[blockIdx.x];
  if (i < N) p[i] = in[i] * 3 + 1;
}

// pointers held in module variables
__device__ int *g_dev_ptr;
__constant__ int *c_const_ptr;
__global__ void k_device_var(const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) g_dev_ptr[i] = in[i] * 3 + 1;
}
__global__ void k_const_var(const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) c_const_ptr[i] = in[i] * 3 + 1;
}

// one past the end, written backwards
__global__ void k_past_end(const int *in, int *end) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) end[-1 - i] = in[i] * 3 + 1;
}

// before the start, written forwards from an offset
__global__ void k_before_start(const int *in, int *before, int skip) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) before[skip + i] = in[i] * 3 + 1;
}

// lane 0's pointer halves handed to the warp by shuffles
__global__ void k_shfl_halves(const int *in, int *out, int *decoy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int *mine = (threadIdx.x % 32 == 0) ? out : decoy;
  unsigned lo = __shfl_sync(0xffffffffu, (unsigned)(uintptr_t)mine, 0);
  unsigned hi = __shfl_sync(0xffffffffu, (unsigned)((uintptr_t)mine >> 32), 0);
  int *p = (int *)((uint64_t)hi << 32 | lo);
  if (i < N) p[i] = in[i] * 3 + 1;
}

// bytes of the pointer permuted twice (identity) with prmt
__global__ void k_prmt(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t v = (uint64_t)out;
  unsigned lo = (unsigned)v, hi = (unsigned)(v >> 32);
  lo = __byte_perm(__byte_perm(lo, 0, 0x0123), 0, 0x0123);
  hi = __byte_perm(__byte_perm(hi, 0, 0x0123), 0, 0x0123);
  int *p = (int *)((uint64_t)hi << 32 | lo);
  if (i < N) p[i] = in[i] * 3 + 1;
}

// a pointer published through atomicExch and read back
__global__ void k_atomic_exch(const int *in, int *out, unsigned long long *slot) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) atomicExch(slot + blockIdx.x, (unsigned long long)out);
  __syncthreads();
  int *p = (int *)atomicAdd(slot + blockIdx.x, 0ull);
  if (i < N) p[i] = in[i] * 3 + 1;
}

// a device function that returns one of its arguments
__device__ __noinline__ int *pick(int *a, int *b, int which) { return which ? b : a; }
__global__ void k_device_fn(const int *in, int *a, int *b, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = pick(a, b, which);
  if (i < N) p[i] = in[i] * 3 + 1;
}

// two __restrict__ arguments into one allocation (disjoint halves): in place of a copy
__global__ void k_restrict_alias(const int *__restrict__ in, int *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N / 2) out[i] = in[i] * 3 + 1;
}

// the pointer chosen by data loaded from memory
__global__ void k_data_select(const int *in, const int *flags, int *a, int *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  int *p = flags[i] ? a : b;
  p[i] = in[i] * 3 + 1;
}

// a linked list of nodes in one pool allocation
struct Node {
  Node *next;
  int value;
};
__global__ void k_list(Node *head, int add) {
  if (threadIdx.x || blockIdx.x) return;
  for (Node *n = head; n; n = n->next) n->value = n->value * 3 + add;
}

// an array of structs in device memory, each holding an output pointer
struct Job {
  const int *src;
  int *dst;
  int n;
};
__global__ void k_jobs(const Job *jobs, int njobs) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < njobs; j++)
    if (i < jobs[j].n) jobs[j].dst[i] = jobs[j].src[i] * 3 + j;
}

// a local array of pointers indexed at run time
__global__ void k_local_table(const int *in, int *a, int *b, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int *t[2] = {a, b};
  volatile int w = which;
  if (i < N) t[w & 1][i] = in[i] * 3 + 1;
}

// a pointer carried in a 64-bit integer parameter
__global__ void k_uintptr(const int *in, uint64_t addr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) ((int *)addr)[i] = in[i] * 3 + 1;
}

// a pointer in a struct passed by pointer (the struct in device memory)
struct Params {
  int *out;
  int scale;
};
__global__ void k_struct_by_ptr(const int *in, const Params *prm) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) prm->out[i] = in[i] * prm->scale + 1;
}

// a relative offset between two buffers, passed as an 8-byte integer
__global__ void k_offset_param(const int *base, long long delta_words) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = (int *)base + delta_words;
  if (i < N) p[i] = base[i] * 3 + 1;
}

// ---- byte ranges (issue 22): tensors carved out of one allocation. gpuft checks and
// encodes only the bytes a launch's range facts cover: each case writes a part of a
// pool and checks that the whole pool holds what it should, the bytes it did not
// write included.

// the input and the output in one allocation
__global__ void k_r_pool(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 3 + 1;
}
// a grid-stride loop over more elements than threads
__global__ void k_r_stride(const int *in, int *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i] * 3 + 1;
}
// the guarded elements, and one more at an offset the host passes
__global__ void k_r_extra(const int *in, int *out, int n, int extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 3 + 1;
  if (i == 0) out[n + extra] = 77;
}
// a scatter through an index array (no bound but the allocation)
__global__ void k_r_scatter(const int *in, int *out, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[idx[i]] = in[i] * 3 + 1;
}
// a 2-D tile of a larger row-major matrix (leading dimension ld)
__global__ void k_r_tile(const int *in, int *out, int ld, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * ld + x] = in[y * cols + x] * 3 + 1;
}
// a pointer past the output, indexed backwards from it
__global__ void k_r_negative(const int *in, int *end, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) end[i - n] = in[i] * 3 + 1;
}

// block sums of the input into a workspace carved from the same pool (as a library
// takes scratch from a framework's allocator), then their total
__global__ void k_r_ws_partial(const int *in, int *ws, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) ws[blockIdx.x] = s[0];
}
__global__ void k_r_ws_total(const int *ws, int *out, int nb) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int t = 0;
    for (int b = 0; b < nb; b++) t += ws[b];
    out[0] = t;
  }
}
// a gather through an index table: its reads have no bound but the allocation
__global__ void k_r_gather(const int *in, int *out, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]] * 3 + 1;
}

// ---- host side ----

static int *dev_copy(const std::vector<int> &h) {
  int *d;
  CK(cudaMalloc(&d, h.size() * sizeof(int)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  return d;
}
static std::vector<int> host_of(const int *d, size_t n) {
  std::vector<int> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  return h;
}
static std::vector<int> iota_in() {
  std::vector<int> v(N);
  for (int i = 0; i < N; i++) v[i] = i * 7 - 300;
  return v;
}
static std::vector<int> filled(size_t n, int x) { return std::vector<int>(n, x); }

// Checks out[i] == in[i] * mul + add for i < n; sums into *sum.
static int check(const std::vector<int> &out, const std::vector<int> &in, size_t n, int mul, int add,
                 uint64_t *sum) {
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    int want = in[i] * mul + add;
    if (out[i] != want) {
      if (bad < 3) fprintf(stderr, "  [%zu] = %d, want %d\n", i, out[i], want);
      bad++;
    }
    *sum = *sum * 31 + (uint32_t)out[i];
  }
  return bad;
}

#define GRID (N / 256), 256

typedef int (*case_fn)(uint64_t *sum);

static int c_rebase(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  k_rebase<<<GRID>>>(a, b);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_xor(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  k_xor<<<GRID>>>(a, b, 0x5a5a5a5a12345678ull);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_halves_global(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  int *scratch = dev_copy(filled(2 * (N / 256), 0));
  k_halves_global<<<GRID>>>(a, b, (unsigned *)scratch);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_halves_shared(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  k_halves_shared<<<GRID>>>(a, b);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_packed1(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  Packed1 p;
  p.tag = 5;
  p.p = b;
  k_packed1<<<GRID>>>(a, p);
  return check(host_of(b, N), in, N, 3, 5, s);
}
static int c_pack4(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  Pack4 p;
  p.n = N;
  p.p = b;
  k_pack4<<<GRID>>>(a, p);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_split_params(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  k_split_params<<<GRID>>>(a, (unsigned)((uintptr_t)b >> 32), (unsigned)(uintptr_t)b);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_double(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  double d;
  uint64_t v = (uint64_t)b;
  memcpy(&d, &v, 8);
  k_double<<<GRID>>>(a, d);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_table(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *o0 = dev_copy(filled(N, -1)), *o1 = dev_copy(filled(N, -1)),
      *o2 = dev_copy(filled(N, -1));
  int *h[3] = {o0, o1, o2};
  int **t;
  CK(cudaMalloc(&t, sizeof h));
  CK(cudaMemcpy(t, h, sizeof h, cudaMemcpyHostToDevice));
  k_table<<<GRID>>>(a, t, 3);
  int bad = 0;
  for (int k = 0; k < 3; k++) bad += check(host_of(h[k], N), in, N, 3, k, s);
  return bad;
}
// the matrices behind a pointer table were written by a kernel (no host copy of them)
__global__ void k_fill(int *p, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) p[i] = v;
}
static int c_table_written(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *o0 = dev_copy(filled(N, -1)), *o1 = dev_copy(filled(N, -1));
  k_fill<<<GRID>>>(o0, 5);
  k_fill<<<GRID>>>(o1, 6);
  CK(cudaDeviceSynchronize());
  int *h[2] = {o0, o1};
  int **t;
  CK(cudaMalloc(&t, sizeof h));
  CK(cudaMemcpy(t, h, sizeof h, cudaMemcpyHostToDevice));
  k_table<<<GRID>>>(a, t, 2);
  return check(host_of(o0, N), in, N, 3, 0, s) + check(host_of(o1, N), in, N, 3, 1, s);
}
static int c_device_table(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *o0 = dev_copy(filled(N, -1)), *o1 = dev_copy(filled(N, -1));
  int **t;
  CK(cudaMalloc(&t, 2 * sizeof(int *)));
  CK(cudaMemset(t, 0, 2 * sizeof(int *)));
  k_fill_table<<<1, 1>>>(t, o0, o1);
  CK(cudaDeviceSynchronize());
  k_table<<<GRID>>>(a, t, 2);
  return check(host_of(o0, N), in, N, 3, 0, s) + check(host_of(o1, N), in, N, 3, 1, s);
}
static int c_copy_follow(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *out = dev_copy(filled(N, -1));
  int **from, **via;
  CK(cudaMalloc(&from, sizeof out));
  CK(cudaMemcpy(from, &out, sizeof out, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&via, (N / 256) * sizeof(int *)));
  CK(cudaMemset(via, 0, (N / 256) * sizeof(int *)));
  k_copy_follow<<<GRID>>>(a, from, via);
  return check(host_of(out, N), in, N, 3, 1, s);
}
static int c_store_loaded(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *out = dev_copy(filled(N, -1));
  int **vals, **via, ***slots;
  CK(cudaMalloc(&vals, sizeof out));
  CK(cudaMemcpy(vals, &out, sizeof out, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&via, (N / 256) * sizeof(int *)));
  CK(cudaMemset(via, 0, (N / 256) * sizeof(int *)));
  std::vector<int **> h(N / 256);
  for (int b = 0; b < N / 256; b++) h[b] = via + b;
  CK(cudaMalloc(&slots, h.size() * sizeof h[0]));
  CK(cudaMemcpy(slots, h.data(), h.size() * sizeof h[0], cudaMemcpyHostToDevice));
  k_store_loaded<<<GRID>>>(a, slots, vals, via);
  return check(host_of(out, N), in, N, 3, 1, s);
}
static int c_device_var(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  CK(cudaMemcpyToSymbol(g_dev_ptr, &b, sizeof b));
  k_device_var<<<GRID>>>(a);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_const_var(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  CK(cudaMemcpyToSymbol(c_const_ptr, &b, sizeof b));
  k_const_var<<<GRID>>>(a);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_past_end(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  k_past_end<<<GRID>>>(a, b + N);
  auto out = host_of(b, N);
  std::vector<int> rev(N);
  for (int i = 0; i < N; i++) rev[i] = out[N - 1 - i];
  return check(rev, in, N, 3, 1, s);
}
static int c_before_start(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  k_before_start<<<GRID>>>(a, b - 64, 64);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_shfl_halves(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1)), *decoy = dev_copy(filled(N, 9));
  k_shfl_halves<<<GRID>>>(a, b, decoy);
  return check(host_of(b, N), in, N, 3, 1, s) + check(host_of(decoy, N), filled(N, 0), N, 0, 9, s);
}
static int c_prmt(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  k_prmt<<<GRID>>>(a, b);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_atomic_exch(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  int *slot = dev_copy(filled(2 * (N / 256), 0));
  k_atomic_exch<<<GRID>>>(a, b, (unsigned long long *)slot);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_device_fn(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *x = dev_copy(filled(N, -1)), *y = dev_copy(filled(N, -1));
  k_device_fn<<<GRID>>>(a, x, y, 1);
  return check(host_of(y, N), in, N, 3, 1, s) + check(host_of(x, N), filled(N, 0), N, 0, -1, s);
}
static int c_restrict_alias(uint64_t *s) {
  auto in = iota_in();
  int *buf = dev_copy(in);
  k_restrict_alias<<<GRID>>>(buf, buf + N / 2);
  auto out = host_of(buf, N);
  std::vector<int> hi(out.begin() + N / 2, out.end());
  return check(hi, in, N / 2, 3, 1, s);
}
static int c_data_select(uint64_t *s) {
  auto in = iota_in();
  std::vector<int> fl(N);
  for (int i = 0; i < N; i++) fl[i] = i % 3 == 0;
  int *a = dev_copy(in), *f = dev_copy(fl), *x = dev_copy(filled(N, -1)), *y = dev_copy(filled(N, -1));
  k_data_select<<<GRID>>>(a, f, x, y);
  auto hx = host_of(x, N), hy = host_of(y, N);
  std::vector<int> got(N);
  for (int i = 0; i < N; i++) got[i] = fl[i] ? hx[i] : hy[i];
  return check(got, in, N, 3, 1, s);
}
static int c_list(uint64_t *s) {
  const int nn = 64;
  Node *pool;
  CK(cudaMalloc(&pool, nn * sizeof(Node)));
  std::vector<Node> h(nn);
  for (int i = 0; i < nn; i++) {  // a shuffled order through the pool
    int at = (i * 37) % nn, next = ((i + 1) * 37) % nn;
    h[at].value = i;
    h[at].next = i + 1 < nn ? pool + next : nullptr;
  }
  CK(cudaMemcpy(pool, h.data(), nn * sizeof(Node), cudaMemcpyHostToDevice));
  k_list<<<1, 32>>>(pool, 2);
  std::vector<Node> o(nn);
  CK(cudaMemcpy(o.data(), pool, nn * sizeof(Node), cudaMemcpyDeviceToHost));
  std::vector<int> got(nn), base(nn);
  for (int i = 0; i < nn; i++) got[i] = o[(i * 37) % nn].value, base[i] = i;
  return check(got, base, nn, 3, 2, s);
}
static int c_jobs(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *x = dev_copy(filled(N, -1)), *y = dev_copy(filled(N, -1));
  Job h[2] = {{a, x, N}, {a, y, N}};
  Job *d;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  k_jobs<<<GRID>>>(d, 2);
  return check(host_of(x, N), in, N, 3, 0, s) + check(host_of(y, N), in, N, 3, 1, s);
}
static int c_local_table(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *x = dev_copy(filled(N, -1)), *y = dev_copy(filled(N, -1));
  k_local_table<<<GRID>>>(a, x, y, 1);
  return check(host_of(y, N), in, N, 3, 1, s);
}
static int c_uintptr(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  k_uintptr<<<GRID>>>(a, (uint64_t)b);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_struct_by_ptr(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  Params h = {b, 3};
  Params *d;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
  k_struct_by_ptr<<<GRID>>>(a, d);
  return check(host_of(b, N), in, N, 3, 1, s);
}
static int c_offset_param(uint64_t *s) {
  auto in = iota_in();
  int *a = dev_copy(in), *b = dev_copy(filled(N, -1));
  k_offset_param<<<GRID>>>(a, (long long)(b - a));
  return check(host_of(b, N), in, N, 3, 1, s);
}

// ---- byte ranges: a pool of 8 N ints (8 groups of 4 KiB), the input at its start
// (what flips_in_inputs_repaired flips), every other int a sentinel
#define POOL (8 * N)
static int *pool_new(std::vector<int> *h) {
  h->assign(POOL, 0);
  for (int i = 0; i < POOL; i++) (*h)[i] = i < N ? i * 7 - 300 : -1000 - i;
  return dev_copy(*h);
}
// The pool read back against `want` (the sentinels, the input and what the case wrote).
static int pool_check(const int *d, const std::vector<int> &want, uint64_t *s) {
  auto got = host_of(d, POOL);
  int bad = 0;
  for (int i = 0; i < POOL; i++) {
    if (got[i] != want[i]) {
      if (bad < 3) fprintf(stderr, "  pool[%d] = %d, want %d\n", i, got[i], want[i]);
      bad++;
    }
    *s = *s * 31 + (uint32_t)got[i];
  }
  return bad;
}
static void want_out(std::vector<int> *w, int at, int n) {
  for (int i = 0; i < n; i++) (*w)[at + i] = (*w)[i] * 3 + 1;
}
static int c_r_pool(uint64_t *s) {
  std::vector<int> h;
  int *p = pool_new(&h);
  k_r_pool<<<GRID>>>(p, p + 4 * N + 5, N);
  want_out(&h, 4 * N + 5, N);
  return pool_check(p, h, s);
}
static int c_r_stride(uint64_t *s) {
  std::vector<int> h;
  int *p = pool_new(&h);
  k_r_stride<<<2, 64>>>(p, p + 3 * N, N);
  want_out(&h, 3 * N, N);
  return pool_check(p, h, s);
}
static int c_r_extra(uint64_t *s) {
  std::vector<int> h;
  int *p = pool_new(&h);
  k_r_extra<<<GRID>>>(p, p + 2 * N, N, 3 * N + 17); /* the extra one four groups on */
  want_out(&h, 2 * N, N);
  h[2 * N + N + 3 * N + 17] = 77;
  return pool_check(p, h, s);
}
static int c_r_scatter(uint64_t *s) {
  std::vector<int> h, idx(N);
  int *p = pool_new(&h);
  for (int i = 0; i < N; i++) idx[i] = (i * 389) % N * 5; /* spread over five groups */
  int *d = dev_copy(idx);
  k_r_scatter<<<GRID>>>(p, p + 2 * N, d, N);
  for (int i = 0; i < N; i++) h[2 * N + idx[i]] = h[i] * 3 + 1;
  return pool_check(p, h, s);
}
static int c_r_tile(uint64_t *s) {
  std::vector<int> h;
  int *p = pool_new(&h);
  const int ld = 1024, rows = 4, cols = 256; /* 4 rows of a 1024-wide matrix at 2 N */
  k_r_tile<<<dim3(cols / 32, rows), dim3(32, 1)>>>(p, p + 2 * N + 100, ld, rows, cols);
  for (int y = 0; y < rows; y++)
    for (int x = 0; x < cols; x++) h[2 * N + 100 + y * ld + x] = h[y * cols + x] * 3 + 1;
  return pool_check(p, h, s);
}
static int c_r_negative(uint64_t *s) {
  std::vector<int> h;
  int *p = pool_new(&h);
  k_r_negative<<<GRID>>>(p, p + 6 * N + 3, N);
  want_out(&h, 5 * N + 3, N);
  return pool_check(p, h, s);
}
// A pool written only in part, as a caching allocator's is: tensors uploaded, set,
// copied and written between groups nothing ever wrote. Only the tensors are
// checked (the rest of the pool holds whatever the memory held). The input lies at
// the pool's start, where the faults of flips_in_inputs_repaired land.
#define BIG (64 * N)
static int *part_pool(void) {
  int *p;
  CK(cudaMalloc(&p, BIG * sizeof(int)));
  return p;
}
static void put(int *d, const std::vector<int> &h) {
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
}
static int part_check(const int *d, const std::vector<int> &want, uint64_t *s) {
  auto got = host_of(d, want.size());
  int bad = 0;
  for (size_t i = 0; i < want.size(); i++) {
    if (got[i] != want[i] && bad++ < 3) fprintf(stderr, "  [%zu] = %d, want %d\n", i, got[i], want[i]);
    *s = *s * 31 + (uint32_t)got[i];
  }
  return bad;
}
static std::vector<int> times3(const std::vector<int> &in) {
  std::vector<int> o(in.size());
  for (size_t i = 0; i < in.size(); i++) o[i] = in[i] * 3 + 1;
  return o;
}
static int c_r_carved(uint64_t *s) {
  int *p = part_pool();
  auto in = iota_in();
  put(p, in); /* the input at the start: faults are aimed there */
  k_r_pool<<<GRID>>>(p, p + 40 * N + 5, N);
  CK(cudaMemset(p + 50 * N + 3, 0x11, N * sizeof(int)));
  CK(cudaMemcpy(p + 56 * N, p, N * sizeof(int), cudaMemcpyDeviceToDevice));
  return part_check(p + 40 * N + 5, times3(in), s) +
         part_check(p + 50 * N + 3, std::vector<int>(N, 0x11111111), s) + part_check(p + 56 * N, in, s) +
         part_check(p, in, s);
}
static int c_r_workspace(uint64_t *s) {
  int *p = part_pool();
  auto in = iota_in();
  put(p, in);
  const int nb = N / 256;
  k_r_ws_partial<<<GRID>>>(p, p + 30 * N, N);
  k_r_ws_total<<<1, 32>>>(p + 30 * N, p + 31 * N + 7, nb);
  int total = 0;
  for (int v : in) total += v;
  return part_check(p + 31 * N + 7, std::vector<int>(1, total), s) + part_check(p, in, s);
}
static int c_r_gather(uint64_t *s) {
  int *p = part_pool();
  auto in = iota_in();
  std::vector<int> idx(N), want(N);
  for (int i = 0; i < N; i++) idx[i] = (i * 389) % N;
  for (int i = 0; i < N; i++) want[i] = in[idx[i]] * 3 + 1;
  put(p, in);
  put(p + 20 * N, idx);
  k_r_gather<<<GRID>>>(p, p + 33 * N, p + 20 * N, N);
  return part_check(p + 33 * N, want, s) + part_check(p, in, s);
}
static int c_r_streams(uint64_t *s) {
  std::vector<int> h;
  int *p = pool_new(&h);
  cudaStream_t st[2];
  for (int k = 0; k < 2; k++) CK(cudaStreamCreateWithFlags(&st[k], cudaStreamNonBlocking));
  for (int k = 0; k < 2; k++) k_r_pool<<<GRID, 0, st[k]>>>(p, p + (3 + 2 * k) * N, N); /* two tensors, two streams */
  for (int k = 0; k < 2; k++) CK(cudaStreamSynchronize(st[k]));
  for (int k = 0; k < 2; k++) CK(cudaStreamDestroy(st[k]));
  want_out(&h, 3 * N, N);
  want_out(&h, 5 * N, N);
  return pool_check(p, h, s);
}

static const struct {
  const char *name;
  case_fn fn;
} cases[] = {
    {"rebase", c_rebase},           {"xor", c_xor},
    {"halves_global", c_halves_global}, {"halves_shared", c_halves_shared},
    {"packed1", c_packed1},         {"pack4", c_pack4},
    {"split_params", c_split_params}, {"double", c_double},
    {"table", c_table},             {"table_written", c_table_written},
    {"device_table", c_device_table}, {"copy_follow", c_copy_follow},
    {"store_loaded", c_store_loaded},
    {"device_var", c_device_var},   {"const_var", c_const_var},
    {"past_end", c_past_end},       {"before_start", c_before_start},
    {"shfl_halves", c_shfl_halves}, {"prmt", c_prmt},
    {"atomic_exch", c_atomic_exch}, {"device_fn", c_device_fn},
    {"restrict_alias", c_restrict_alias}, {"data_select", c_data_select},
    {"list", c_list},               {"jobs", c_jobs},
    {"local_table", c_local_table}, {"uintptr", c_uintptr},
    {"struct_by_ptr", c_struct_by_ptr}, {"offset_param", c_offset_param},
    {"r_pool", c_r_pool},           {"r_stride", c_r_stride},
    {"r_extra", c_r_extra},         {"r_scatter", c_r_scatter},
    {"r_tile", c_r_tile},           {"r_negative", c_r_negative},
    {"r_streams", c_r_streams},     {"r_carved", c_r_carved},
    {"r_workspace", c_r_workspace}, {"r_gather", c_r_gather},
};

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CASE | --list\n", argv[0]);
    return 2;
  }
  for (const auto &c : cases) {
    if (!strcmp(argv[1], "--list")) {
      printf("%s\n", c.name);
      continue;
    }
    if (strcmp(argv[1], c.name)) continue;
    if (argc > 2) {
      size_t mib = strtoul(argv[2], NULL, 10);
      std::vector<int> ballast(mib << 18, 7);
      if (mib) dev_copy(ballast);
    }
    uint64_t sum = 0;
    int bad = c.fn(&sum);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("%s: %s %016llx\n", c.name, bad ? "WRONG" : "ok", (unsigned long long)sum);
    return bad ? 1 : 0;
  }
  if (!strcmp(argv[1], "--list")) return 0;
  fprintf(stderr, "no case %s\n", argv[1]);
  return 2;
}
