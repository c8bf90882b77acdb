// Pointers inside by-value struct and array parameters.

struct Axpy { const float *x; float *y; float a; };
// expect struct_axpy: 0=READ 8=READ_WRITE
__global__ void struct_axpy(Axpy p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p.y[i] += p.a * p.x[i];
}

struct Dims { int nx, ny; const float *src; float *dst; double scale; };
// expect struct_mixed: 8=READ 16=WRITE
__global__ void struct_mixed(Dims d) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < d.nx && y < d.ny) d.dst[y * d.nx + x] = (float)(d.scale * d.src[y * d.nx + x]);
}

struct Three { float *p[3]; };
// expect three_static: 0=READ 8=READ 16=WRITE
__global__ void three_static(Three t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t.p[2][i] = t.p[0][i] + t.p[1][i];
}

// A pointer picked from a by-value array with a run-time index: which one is
// written cannot be told, so every field is conservative.
// expect three_dynamic: 0=ESCAPES~ 8=ESCAPES~ 16=ESCAPES~
__global__ void three_dynamic(Three t, int which, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t.p[which % 3][i] = 1.0f;
}

struct Csr { const int *rowptr; const int *col; const float *val; int rows; };
// CG-style SpMV with the matrix in a struct and the vectors as plain pointers.
// expect spmv_csr: 0=READ 8=READ 16=READ 32=READ 40=WRITE
__global__ void spmv_csr(Csr A, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= A.rows) return;
  float s = 0;
  for (int k = A.rowptr[r]; k < A.rowptr[r + 1]; k++) s += A.val[k] * x[A.col[k]];
  y[r] = s;
}

struct Pair { float *a; float *b; };
struct Outer { int n; Pair in; float *out; };
// expect nested_struct: 8=READ 16=READ 24=WRITE
__global__ void nested_struct(Outer o) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < o.n) o.out[i] = o.in.a[i] * o.in.b[i];
}
