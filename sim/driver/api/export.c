/* export.c: cuGetExportTable, the driver's private tables (identified by UUIDs)
 * that NVIDIA's static CUDA runtime (nvcc's default link, libcudart_static.a)
 * needs before it makes any public call. Only what CUDA 13.0's runtime was
 * observed to use is emulated (docs/simulator.md, "The static CUDA runtime");
 * every other slot of these tables names itself when called and fails, so a
 * newer runtime that needs more says what instead of misbehaving. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md2.h"
#include "api.h"

/* A slot the simulator does not emulate: say which, once, and fail. The runtime
 * turns the failure into an error of its own (often cudaErrorNotSupported), so
 * the message is the user's only clue. */
static CUresult unemulated(const char *table, int slot) {
  static atomic_int said;
  if (atomic_fetch_add(&said, 1) < 8)
    fprintf(stderr,
            "simcuda: the static CUDA runtime called private driver entry %s[%d], which the "
            "simulator does not emulate; rebuild the program with -cudart shared\n",
            table, slot);
  return CUDA_ERROR_NOT_SUPPORTED;
}
#define SIM_UNEMULATED(tab, i) \
  static CUresult tab##_##i(void) { return unemulated(#tab, i); }

/* ---- CUDART_INTERFACE: slot 2 retains the primary context ---- */
static CUresult cudart_retain_primary(CUcontext *pctx, CUdevice dev) { return cuDevicePrimaryCtxRetain(pctx, dev); }
SIM_UNEMULATED(cudart, 1)
SIM_UNEMULATED(cudart, 3)
SIM_UNEMULATED(cudart, 4)
SIM_UNEMULATED(cudart, 5)
SIM_UNEMULATED(cudart, 6)
SIM_UNEMULATED(cudart, 7)
SIM_UNEMULATED(cudart, 8)
SIM_UNEMULATED(cudart, 9)
static const void *cudart_tab[10] = {(void *)(10 * sizeof(void *)), cudart_1, cudart_retain_primary, cudart_3,
                                     cudart_4, cudart_5, cudart_6, cudart_7, cudart_8, cudart_9};

/* ---- TOOLS_RUNTIME_CALLBACK_HOOKS: slots 2 and 6 hand out buffers the runtime
 * fills for profiling tools (none attach to the simulator) ---- */
static uint64_t hooks_buf1[1024], hooks_buf2[16];
static void hooks_buffer1(void **p, size_t *n) {
  *p = hooks_buf1;
  *n = 1024; /* what the real driver reports is unknown: the buffer is larger either way */
}
static void hooks_buffer2(void **p, size_t *n) {
  *p = hooks_buf2;
  *n = 14;
}
SIM_UNEMULATED(hooks, 1)
SIM_UNEMULATED(hooks, 3)
SIM_UNEMULATED(hooks, 4)
SIM_UNEMULATED(hooks, 5)
static const void *hooks_tab[7] = {(void *)(7 * sizeof(void *)), hooks_1, hooks_buffer1, hooks_3, hooks_4, hooks_5,
                                   hooks_buffer2};

/* ---- TOOLS_TLS: must exist; CUDA 13.0 calls none of its slots ---- */
SIM_UNEMULATED(tools_tls, 1)
SIM_UNEMULATED(tools_tls, 2)
SIM_UNEMULATED(tools_tls, 3)
static const void *tls_tab[4] = {(void *)(4 * sizeof(void *)), tools_tls_1, tools_tls_2, tools_tls_3};

/* ---- CONTEXT_LOCAL_STORAGE: the runtime keeps its per-context state here, keyed
 * by (context, key); a destructor runs when the context is destroyed or reset
 * (sim_export_forget_ctx), so a re-created primary context starts clean. ---- */
typedef void (*cls_dtor_t)(CUcontext, void *, void *);
typedef struct {
  CUcontext ctx;
  void *key, *value;
  cls_dtor_t dtor;
} cls_entry_t;
static pthread_mutex_t cls_mu = PTHREAD_MUTEX_INITIALIZER;
static cls_entry_t *cls;
static size_t n_cls, cap_cls;

static CUresult cls_context(CUcontext *c) {
  if (*c) return CUDA_SUCCESS;
  CUresult r = cuCtxGetCurrent(c);
  return r != CUDA_SUCCESS ? r : *c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult cls_put(CUcontext ctx, void *key, void *value, cls_dtor_t dtor) {
  CUresult r = cls_context(&ctx);
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&cls_mu);
  size_t i = 0;
  while (i < n_cls && !(cls[i].ctx == ctx && cls[i].key == key)) i++;
  if (i == n_cls) {
    if (n_cls == cap_cls) {
      size_t cap = cap_cls ? 2 * cap_cls : 16;
      cls_entry_t *n = realloc(cls, cap * sizeof *n);
      if (!n) {
        pthread_mutex_unlock(&cls_mu);
        return CUDA_ERROR_OUT_OF_MEMORY;
      }
      cls = n, cap_cls = cap;
    }
    n_cls++;
  }
  cls[i] = (cls_entry_t){ctx, key, value, dtor};
  pthread_mutex_unlock(&cls_mu);
  return CUDA_SUCCESS;
}

static CUresult cls_delete(CUcontext ctx, void *key) {
  CUresult r = cls_context(&ctx);
  if (r != CUDA_SUCCESS) return r;
  pthread_mutex_lock(&cls_mu);
  for (size_t i = 0; i < n_cls; i++)
    if (cls[i].ctx == ctx && cls[i].key == key) {
      cls[i] = cls[--n_cls];
      break;
    }
  pthread_mutex_unlock(&cls_mu);
  return CUDA_SUCCESS;
}

static CUresult cls_get(void **value, CUcontext ctx, void *key) {
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  *value = NULL;
  CUresult r = cls_context(&ctx);
  if (r != CUDA_SUCCESS) return r;
  r = CUDA_ERROR_INVALID_HANDLE; /* nothing stored yet: the runtime then creates its state */
  pthread_mutex_lock(&cls_mu);
  for (size_t i = 0; i < n_cls; i++)
    if (cls[i].ctx == ctx && cls[i].key == key) {
      *value = cls[i].value;
      r = CUDA_SUCCESS;
      break;
    }
  pthread_mutex_unlock(&cls_mu);
  return r;
}
SIM_UNEMULATED(cls, 3)
static const void *cls_tab[4] = {cls_put, cls_delete, cls_get, cls_3}; /* no size word: slot 0 is a function */

static void sim_export_forget_ctx(sim_ctx_t *c) {
  CUcontext ctx = (CUcontext)c;
  for (;;) {
    cls_entry_t e = {0};
    pthread_mutex_lock(&cls_mu);
    for (size_t i = 0; i < n_cls; i++)
      if (cls[i].ctx == ctx) {
        e = cls[i];
        cls[i] = cls[--n_cls];
        break;
      }
    pthread_mutex_unlock(&cls_mu);
    if (!e.ctx) return;
    if (e.dtor) e.dtor(ctx, e.key, e.value); /* outside the lock: it may call the driver */
  }
}

/* Registered at load: every context teardown (exec/ctx.c) runs it first. */
__attribute__((constructor)) static void forget_on_teardown(void) { sim_ctx_on_teardown(sim_export_forget_ctx); }

/* ---- a table of context checks: no context is ever in the state they look for ---- */
static CUresult check_context(CUcontext ctx, unsigned *flags, void **extra) {
  (void)ctx, (void)extra;
  if (flags) *flags = 0;
  return CUDA_SUCCESS;
}
static unsigned check_none(void) { return 0; }
SIM_UNEMULATED(checks, 1)
static const void *checks_tab[4] = {(void *)(4 * sizeof(void *)), checks_1, check_context, check_none};

/* ---- INTEGRITY_CHECK: the runtime asks for a keyed hash (HMAC-MD2) of facts it
 * can check itself: versions, process and thread, these tables' addresses, the
 * time it passes, and each device's UUID and PCI location. Versions ending in 0
 * and 1 answer constants. ---- */
static CUresult integrity_check(unsigned version, uint64_t unix_seconds, uint64_t result[2]);
SIM_UNEMULATED(integrity, 2)
static const void *integrity_tab[3] = {(void *)(3 * sizeof(void *)), integrity_check, integrity_2};

static CUresult integrity_check(unsigned version, uint64_t unix_seconds, uint64_t result[2]) {
  static const uint8_t key[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                                  0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};
  if (!result) return CUDA_ERROR_INVALID_VALUE;
  if (version % 10 < 2) {
    result[0] = version % 10 ? 0x1841181C03CB675Cull : 0x3341181C03CB675Cull;
    result[1] = 0x8ED383AA1F4CD1E8ull;
    return CUDA_SUCCESS;
  }
  int driver = 0, ndev = 0;
  cuDriverGetVersion(&driver);
  CUresult r = cuDeviceGetCount(&ndev);
  if (r != CUDA_SUCCESS) return r;
  if (ndev > 16) ndev = 16;
  uint8_t msg[48 + 16 * 28];
  uint32_t words[4] = {(uint32_t)driver, version, (uint32_t)getpid(), (uint32_t)pthread_self()};
  const void *addrs[3] = {cudart_tab, integrity_tab, (const void *)integrity_check};
  memcpy(msg, words, 16);
  memcpy(msg + 16, addrs, 24);
  memcpy(msg + 40, &unix_seconds, 8);
  size_t n = 48;
  for (int d = 0; d < ndev; d++, n += 28) {
    CUuuid uuid;
    int pci[3] = {0, 0, 0};
    cuDeviceGetUuid_v2(&uuid, d);
    cuDeviceGetAttribute(&pci[0], CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d);
    cuDeviceGetAttribute(&pci[1], CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d);
    cuDeviceGetAttribute(&pci[2], CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d);
    memcpy(msg + n, uuid.bytes, 16);
    memcpy(msg + n + 16, pci, 12);
  }
  uint8_t out[16];
  sim_hmac_md2(key, msg, n, out);
  memcpy(result, out, 16);
  return CUDA_SUCCESS;
}

/* ---- lookup ---- */
typedef struct {
  uint8_t id[16];
  const char *name;
  const void *const *table;
} export_t;

static const export_t exports[] = {
    {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9},
     "CUDART_INTERFACE", cudart_tab},
    {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66},
     "TOOLS_RUNTIME_CALLBACK_HOOKS", hooks_tab},
    {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc},
     "TOOLS_TLS", tls_tab},
    {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93},
     "CONTEXT_LOCAL_STORAGE", cls_tab},
    {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e},
     "CONTEXT_CHECKS", checks_tab},
    {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2},
     "INTEGRITY_CHECK", integrity_tab},
};

CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId) {
  if (!ppExportTable || !pExportTableId) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < sizeof exports / sizeof *exports; i++)
    if (!memcmp(exports[i].id, pExportTableId->bytes, 16)) {
      *ppExportTable = exports[i].table;
      return CUDA_SUCCESS;
    }
  /* Others exist in NVIDIA's driver (CUDA 13.0's runtime asks for one more and
   * does without it); an unknown id is an error there too. */
  *ppExportTable = NULL;
  if (sim_opt.log) {
    char hex[33];
    for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", (unsigned char)pExportTableId->bytes[i]);
    sim_log("cuGetExportTable: table %s is not emulated", hex);
  }
  return CUDA_ERROR_INVALID_VALUE;
}
