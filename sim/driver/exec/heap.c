/* heap.c: the device heap of a context (device malloc/free, new/delete): one
 * device allocation of cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE) bytes (8 MiB by
 * default, as the driver's), made at the first malloc and kept until the context
 * dies; blocks of it handed out first-fit, 16-byte aligned, NULL when none fits.
 * The bookkeeping lives on the host (a kernel's stray write or an injected flip
 * cannot corrupt it); blocks of a grid call it from several host threads at once,
 * under the heap's mutex. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

typedef struct {
  uint64_t off, len;
} ext_t;

struct sim_heap_s {
  pthread_mutex_t mu;
  uint64_t base, size;
  ext_t *fr;   /* free extents, by offset, coalesced */
  size_t nfr, capfr;
  ext_t *used; /* blocks handed out, by offset */
  size_t nused, capused;
};

static pthread_mutex_t create_mu = PTHREAD_MUTEX_INITIALIZER;

static void ins(ext_t **v, size_t *n, size_t *cap, size_t at, ext_t e) {
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 64;
    *v = realloc(*v, *cap * sizeof **v);
    if (!*v) abort();
  }
  memmove(*v + at + 1, *v + at, (*n - at) * sizeof **v);
  (*v)[at] = e;
  (*n)++;
}

static void del(ext_t *v, size_t *n, size_t at) {
  memmove(v + at, v + at + 1, (*n - at - 1) * sizeof *v);
  (*n)--;
}

/* The context's heap, made at the first call; NULL when the device is full. */
static struct sim_heap_s *heap_of(sim_ctx_t *ctx) {
  struct sim_heap_s *h = atomic_load(&ctx->heap);
  if (h) return h;
  pthread_mutex_lock(&create_mu);
  h = atomic_load(&ctx->heap);
  if (!h) {
    size_t size = ctx->limits[CU_LIMIT_MALLOC_HEAP_SIZE] & ~(size_t)15;
    uint64_t base = 0;
    if (size && sim_mem_alloc_device(ctx, ctx->dev, size, &base) == CUDA_SUCCESS) {
      h = calloc(1, sizeof *h);
      if (!h) abort();
      pthread_mutex_init(&h->mu, NULL);
      h->base = base, h->size = size;
      ins(&h->fr, &h->nfr, &h->capfr, 0, (ext_t){0, size});
      atomic_store(&ctx->heap, h);
    }
  }
  pthread_mutex_unlock(&create_mu);
  return h;
}

uint64_t sim_heap_malloc(sim_ctx_t *ctx, uint64_t n) {
  struct sim_heap_s *h = n ? heap_of(ctx) : NULL;
  if (!h || n > h->size) return 0;
  uint64_t len = (n + 15) & ~(uint64_t)15, p = 0;
  pthread_mutex_lock(&h->mu);
  for (size_t i = 0; i < h->nfr; i++) {
    if (h->fr[i].len < len) continue;
    uint64_t off = h->fr[i].off;
    h->fr[i].off += len, h->fr[i].len -= len;
    if (!h->fr[i].len) del(h->fr, &h->nfr, i);
    size_t at = 0;
    while (at < h->nused && h->used[at].off < off) at++;
    ins(&h->used, &h->nused, &h->capused, at, (ext_t){off, len});
    p = h->base + off;
    break;
  }
  pthread_mutex_unlock(&h->mu);
  return p;
}

bool sim_heap_free(sim_ctx_t *ctx, uint64_t p) {
  struct sim_heap_s *h = atomic_load(&ctx->heap);
  if (!h || p < h->base || p >= h->base + h->size) return false;
  uint64_t off = p - h->base;
  bool ok = false;
  pthread_mutex_lock(&h->mu);
  size_t lo = 0, hi = h->nused;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (h->used[mid].off < off) lo = mid + 1;
    else hi = mid;
  }
  if (lo < h->nused && h->used[lo].off == off) {
    ext_t e = h->used[lo];
    del(h->used, &h->nused, lo);
    size_t at = 0;
    while (at < h->nfr && h->fr[at].off < e.off) at++;
    ins(&h->fr, &h->nfr, &h->capfr, at, e);
    if (at + 1 < h->nfr && h->fr[at].off + h->fr[at].len == h->fr[at + 1].off) {
      h->fr[at].len += h->fr[at + 1].len;
      del(h->fr, &h->nfr, at + 1);
    }
    if (at > 0 && h->fr[at - 1].off + h->fr[at - 1].len == h->fr[at].off) {
      h->fr[at - 1].len += h->fr[at].len;
      del(h->fr, &h->nfr, at);
    }
    ok = true;
  }
  pthread_mutex_unlock(&h->mu);
  return ok;
}

/* The heap's bookkeeping; its memory goes with the context's allocations. */
void sim_heap_release(sim_ctx_t *ctx) {
  struct sim_heap_s *h = atomic_exchange(&ctx->heap, NULL);
  if (!h) return;
  pthread_mutex_destroy(&h->mu);
  free(h->fr);
  free(h->used);
  free(h);
}

/* The interpreter's services (sim_mem_iface_t.malloc/.free): ctx is the launch. */
uint64_t sim_heap_interp_malloc(void *launch, uint64_t n) {
  return sim_heap_malloc(((sim_launch_t *)launch)->ctx, n);
}
bool sim_heap_interp_free(void *launch, uint64_t p) {
  return sim_heap_free(((sim_launch_t *)launch)->ctx, p);
}
