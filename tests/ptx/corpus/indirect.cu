// Indirect access through index arrays, and pointer chasing.

// expect gather: 0=WRITE 8=READ 16=READ
__global__ void gather(float *out, const float *in, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}

// expect scatter: 0=WRITE 8=READ 16=READ
__global__ void scatter(float *out, const float *in, const long long *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[idx[i]] = in[i];
}

struct Node { int value; Node *next; };
// Follows pointers stored in the nodes: memory reached not through an argument.
// expect list_sum: 0=READ* 8=WRITE! +loaded +unk
__global__ void list_sum(const Node *head, int *out) {
  int s = 0;
  for (const Node *p = head; p; p = p->next) s += p->value;
  *out = s;
}

// An array of pointers: the array is read, the rows are reached through loaded pointers.
// expect rows_fill: 0=READ* +loaded
__global__ void rows_fill(float **rows, int w) {
  rows[blockIdx.x][threadIdx.x % w] = 1.0f;
}

// A table of pointers beside a data buffer (index_walk's through_table): only the
// table holds the pointers the kernel dereferences; the data buffer's values are
// loaded, added to and stored back, never used as addresses.
// expect table_add: 0=READ* 8=READ_WRITE! +loaded
__global__ void table_add(const double *const *table, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += table[i % 4][i];
}

// The rules' breakers. A pointer loaded from one buffer, stored into another and
// loaded back from there before it is dereferenced: it came from the first; the
// second is a source and a sink at once (the shim then scans every buffer).
// expect copy_then_follow: 0=READ 8=READ_WRITE*! +loaded
__global__ void copy_then_follow(float *const *from, float **via) {
  via[threadIdx.x] = from[threadIdx.x];
  __syncthreads();
  *via[threadIdx.x ^ 1] = 2.0f;
}

// Stored through a pointer it loaded (not through a place): into what the scan of
// the sources reaches (SINK_REACHED: where that leads back into a source, every
// buffer is scanned).
// expect store_through_loaded: 0=READ* 8=READ +loaded +reached
__global__ void store_through_loaded(float **const *outs, float *const *vals) {
  *outs[threadIdx.x] = vals[threadIdx.x];
}

// A pointer taken out of memory by an atomic (no plain load): from where no place
// names it.
// expect swap_and_follow: 0=READ_WRITE 8=ESCAPES~ +loaded +unk
__global__ void swap_and_follow(unsigned long long *slots, unsigned long long fresh) {
  float *old = (float *)atomicExch(&slots[threadIdx.x], fresh);
  *old = 3.0f;
}
