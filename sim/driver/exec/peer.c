/* peer.c: peer access between contexts of different devices (cuCtxEnablePeerAccess,
 * cuCtxDisablePeerAccess) and the rule kernels follow when they touch memory. */
#include "exec.h"

#define MAX_PEERS 8 /* a device supports at most eight peer connections */

void sim_ctx_peers_clear(sim_ctx_t *ctx) {
  for (int i = 0; i < MAX_PEERS; i++) atomic_store(&ctx->peers[i], 0);
}

static int peer_slot(sim_ctx_t *ctx, unsigned long long id) {
  for (int i = 0; i < MAX_PEERS; i++)
    if (atomic_load(&ctx->peers[i]) == id) return i;
  return -1;
}

bool sim_ctx_reaches(sim_ctx_t *ctx, const sim_alloc_t *a) {
  if (a->vmm || a->ipc) return (a->access >> ctx->dev) & 1u;
  if (a->kind != SIM_MEM_DEVICE || a->dev == ctx->dev) return true;
  /* Another device's memory: its context must be a peer of ctx. The owning
   * context's id is read from the allocation's context, which lives while the
   * allocation does (a context's teardown frees its memory first). */
  return a->ctx && peer_slot(ctx, a->ctx->id) >= 0;
}

/* The peer argument: a live context other than the current one. */
static CUresult peer_args(CUcontext h, sim_ctx_t **cur, sim_ctx_t **peer) {
  CUresult r = sim_ctx_current(cur);
  if (r) return r;
  sim_obj_t *o = h ? sim_handle_get(h, SIM_OBJ_CTX) : NULL;
  if (!o) return CUDA_ERROR_INVALID_CONTEXT;
  *peer = (sim_ctx_t *)o;
  bool ok = atomic_load(&(*peer)->alive) && *peer != *cur;
  sim_obj_unref(o); /* the handle table keeps it while it is alive */
  return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuCtxEnablePeerAccess(CUcontext h, unsigned int flags) {
  sim_ctx_t *cur, *peer;
  CUresult r = peer_args(h, &cur, &peer);
  if (r) return r;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  /* cuDeviceCanAccessPeer: every pair of distinct devices, never a device itself. */
  if (peer->dev == cur->dev) return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&cur->mu);
  if (peer_slot(cur, peer->id) >= 0) r = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  else {
    int free_slot = peer_slot(cur, 0);
    if (free_slot < 0) r = CUDA_ERROR_TOO_MANY_PEERS;
    else atomic_store(&cur->peers[free_slot], peer->id);
  }
  pthread_mutex_unlock(&cur->mu);
  return r;
}

CUresult cuCtxDisablePeerAccess(CUcontext h) {
  sim_ctx_t *cur, *peer;
  CUresult r = peer_args(h, &cur, &peer);
  if (r) return r;
  pthread_mutex_lock(&cur->mu);
  int i = peer_slot(cur, peer->id);
  if (i < 0) r = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
  else atomic_store(&cur->peers[i], 0);
  pthread_mutex_unlock(&cur->mu);
  return r;
}
