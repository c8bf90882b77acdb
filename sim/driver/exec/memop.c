/* memop.c: stream memory operations (the CUDA 11.7+ "_v2" ABI):
 * cuStreamWriteValue32/64_v2, cuStreamWaitValue32/64_v2, cuStreamBatchMemOp_v2
 * and their _ptsz forms. Checked at the call; a write stores the word in stream
 * order; a wait spins on the word in the stream's worker until its condition
 * holds (or the context has a sticky error). */
#include <sched.h>
#include <time.h>

#include "exec.h"

#define BATCH_MAX 256 /* "count ... must be less than 256" */

/* Resolves the word [addr, addr+size): device memory or device-mapped pinned /
 * registered host memory, naturally aligned. Managed memory is refused, as
 * documented ("cannot be used with managed memory"). */
static CUresult word_get(CUdeviceptr addr, unsigned size, sim_memop_t *m) {
  if (!addr || addr % size) return CUDA_ERROR_INVALID_VALUE;
  sim_alloc_t a;
  if (!sim_mem_find(addr, size, &a) || a.freeing || a.kind == SIM_MEM_MANAGED) return CUDA_ERROR_INVALID_VALUE;
  if (a.vmm && !a.access) return CUDA_ERROR_INVALID_VALUE; /* no device may access it yet */
  bool dev = a.kind == SIM_MEM_DEVICE;
  m->host = dev ? sim_mem_alias(addr) : (uint8_t *)(uintptr_t)addr;
  m->dev = dev ? addr : 0;
  m->size = size;
  return CUDA_SUCCESS;
}

static bool satisfied(const sim_memop_t *m) {
  uint64_t v = m->size == 4 ? __atomic_load_n((uint32_t *)m->host, __ATOMIC_ACQUIRE)
                            : __atomic_load_n((uint64_t *)m->host, __ATOMIC_ACQUIRE);
  uint64_t want = m->value;
  switch (m->cond) {
    case CU_STREAM_WAIT_VALUE_GEQ:
      return m->size == 4 ? (int32_t)((uint32_t)v - (uint32_t)want) >= 0 : (int64_t)(v - want) >= 0;
    case CU_STREAM_WAIT_VALUE_EQ: return v == want;
    case CU_STREAM_WAIT_VALUE_AND: return (v & want) != 0;
    default: /* NOR */
      return m->size == 4 ? (uint32_t)~(v | want) != 0 : ~(v | want) != 0;
  }
}

void sim_memop_execute(sim_memop_t *m, sim_ctx_t *ctx) {
  if (m->wait) {
    /* A GPU would wait for ever; here a context that died (sticky error) also
     * ends the wait so that its teardown cannot hang. */
    for (unsigned spins = 0; !satisfied(m) && atomic_load(&ctx->sticky) == CUDA_SUCCESS; spins++) {
      if (spins < 64) {
        sched_yield();
      } else {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
      }
    }
    return;
  }
  if (m->size == 4) __atomic_store_n((uint32_t *)m->host, (uint32_t)m->value, __ATOMIC_RELEASE);
  else __atomic_store_n((uint64_t *)m->host, m->value, __ATOMIC_RELEASE);
  /* Counted like the fill it is: one memset of size bytes. */
  SIM_COUNT(memsets, 1);
  SIM_COUNT(bytes_memset, m->size);
  if (m->dev) sim_stuck_apply(m->dev, m->dev + m->size);
}

/* Checks one batch entry into m (no side effects). */
static CUresult memop_check(const CUstreamBatchMemOpParams *p, sim_memop_t *m) {
  *m = (sim_memop_t){0};
  switch (p->operation) {
    case CU_STREAM_MEM_OP_WRITE_VALUE_32:
    case CU_STREAM_MEM_OP_WRITE_VALUE_64: {
      bool is64 = p->operation == CU_STREAM_MEM_OP_WRITE_VALUE_64;
      /* CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER "is not supported in the v2 API". */
      if (p->writeValue.flags != 0) return CUDA_ERROR_INVALID_VALUE;
      CUresult r = word_get(p->writeValue.address, is64 ? 8 : 4, m);
      if (r) return r;
      m->value = is64 ? p->writeValue.value64 : p->writeValue.value;
      return CUDA_SUCCESS;
    }
    case CU_STREAM_MEM_OP_WAIT_VALUE_32:
    case CU_STREAM_MEM_OP_WAIT_VALUE_64: {
      bool is64 = p->operation == CU_STREAM_MEM_OP_WAIT_VALUE_64;
      unsigned f = p->waitValue.flags;
      /* Flushing remote writes needs platform support the device does not have
       * (CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES is 0). */
      if (f & CU_STREAM_WAIT_VALUE_FLUSH) return CUDA_ERROR_NOT_SUPPORTED;
      if (f > CU_STREAM_WAIT_VALUE_NOR) return CUDA_ERROR_INVALID_VALUE;
      CUresult r = word_get(p->waitValue.address, is64 ? 8 : 4, m);
      if (r) return r;
      m->value = is64 ? p->waitValue.value64 : p->waitValue.value;
      m->cond = f;
      m->wait = true;
      return CUDA_SUCCESS;
    }
    case CU_STREAM_MEM_OP_BARRIER:
      /* Stream order already makes every earlier write visible: a no-op. */
      if (p->memoryBarrier.flags != CU_STREAM_MEMORY_BARRIER_TYPE_SYS &&
          p->memoryBarrier.flags != CU_STREAM_MEMORY_BARRIER_TYPE_GPU)
        return CUDA_ERROR_INVALID_VALUE;
      m->size = 0;
      return CUDA_SUCCESS;
    case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
      if (p->flushRemoteWrites.flags != 0) return CUDA_ERROR_INVALID_VALUE;
      return CUDA_ERROR_NOT_SUPPORTED;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

/* Checks every entry first: either the whole batch is queued or none of it. */
static CUresult batch(CUstream h, unsigned count, const CUstreamBatchMemOpParams *ops, unsigned flags, int ptds) {
  sim_ctx_t *ctx;
  CUresult r = sim_ctx_current(&ctx);
  if (r) return r;
  if (!ops || count == 0 || count >= BATCH_MAX || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  sim_memop_t m[BATCH_MAX];
  for (unsigned i = 0; i < count; i++)
    if ((r = memop_check(&ops[i], &m[i]))) return r;
  sim_stream_t *s;
  if ((r = sim_stream_get(ctx, h, ptds, &s))) return r;
  for (unsigned i = 0; i < count; i++) {
    if (!m[i].size) continue; /* barrier */
    sim_op_t *op = sim_op_new(SIM_OP_MEMOP);
    op->u.memop = m[i];
    sim_stream_enqueue(s, op);
  }
  sim_obj_unref(&s->obj);
  return CUDA_SUCCESS;
}

static CUresult one(CUstream h, CUstreamBatchMemOpType type, CUdeviceptr addr, uint64_t value, unsigned flags,
                    int ptds) {
  CUstreamBatchMemOpParams p = {0};
  if (type == CU_STREAM_MEM_OP_WRITE_VALUE_32 || type == CU_STREAM_MEM_OP_WRITE_VALUE_64) {
    p.writeValue.operation = type;
    p.writeValue.address = addr;
    p.writeValue.value64 = value;
    if (type == CU_STREAM_MEM_OP_WRITE_VALUE_32) p.writeValue.value = (cuuint32_t)value;
    p.writeValue.flags = flags;
  } else {
    p.waitValue.operation = type;
    p.waitValue.address = addr;
    p.waitValue.value64 = value;
    if (type == CU_STREAM_MEM_OP_WAIT_VALUE_32) p.waitValue.value = (cuuint32_t)value;
    p.waitValue.flags = flags;
  }
  return batch(h, 1, &p, 0, ptds);
}

CUresult cuStreamBatchMemOp_v2(CUstream h, unsigned int n, CUstreamBatchMemOpParams *p, unsigned int f) {
  return batch(h, n, p, f, 0);
}
CUresult cuStreamBatchMemOp_v2_ptsz(CUstream h, unsigned int n, CUstreamBatchMemOpParams *p, unsigned int f) {
  return batch(h, n, p, f, 1);
}
CUresult cuStreamWriteValue32_v2(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f) {
  return one(h, CU_STREAM_MEM_OP_WRITE_VALUE_32, a, v, f, 0);
}
CUresult cuStreamWriteValue32_v2_ptsz(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f) {
  return one(h, CU_STREAM_MEM_OP_WRITE_VALUE_32, a, v, f, 1);
}
CUresult cuStreamWriteValue64_v2(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f) {
  return one(h, CU_STREAM_MEM_OP_WRITE_VALUE_64, a, v, f, 0);
}
CUresult cuStreamWriteValue64_v2_ptsz(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f) {
  return one(h, CU_STREAM_MEM_OP_WRITE_VALUE_64, a, v, f, 1);
}
CUresult cuStreamWaitValue32_v2(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f) {
  return one(h, CU_STREAM_MEM_OP_WAIT_VALUE_32, a, v, f, 0);
}
CUresult cuStreamWaitValue32_v2_ptsz(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f) {
  return one(h, CU_STREAM_MEM_OP_WAIT_VALUE_32, a, v, f, 1);
}
CUresult cuStreamWaitValue64_v2(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f) {
  return one(h, CU_STREAM_MEM_OP_WAIT_VALUE_64, a, v, f, 0);
}
CUresult cuStreamWaitValue64_v2_ptsz(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f) {
  return one(h, CU_STREAM_MEM_OP_WAIT_VALUE_64, a, v, f, 1);
}
