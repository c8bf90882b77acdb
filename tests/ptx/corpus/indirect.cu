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
// expect list_sum: 0=READ 8=WRITE +loaded
__global__ void list_sum(const Node *head, int *out) {
  int s = 0;
  for (const Node *p = head; p; p = p->next) s += p->value;
  *out = s;
}

// An array of pointers: the array is read, the rows are reached through loaded pointers.
// expect rows_fill: 0=READ +loaded
__global__ void rows_fill(float **rows, int w) {
  rows[blockIdx.x][threadIdx.x % w] = 1.0f;
}
