/* device.c: the simulated devices (SIMCUDA_DEVICES sm_89-class boards, each with
 * its own name, UUID and PCI location) and what links them (peer attributes). */
#include <stdio.h>
#include <string.h>

#include "api.h"

CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
  SIM_CHECK_INIT();
  if (!dev) return CUDA_ERROR_INVALID_VALUE;
  if (!sim_dev_ok(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *dev = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  SIM_CHECK_INIT();
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = sim_opt.devices;
  return CUDA_SUCCESS;
}

#define CHECK_DEV(d) \
  do { if (!sim_dev_ok(d)) return CUDA_ERROR_INVALID_DEVICE; } while (0)

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  SIM_CHECK_INIT();
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  CHECK_DEV(dev);
  /* Device 0 keeps the name of the one-device simulator. */
  if (dev == 0) snprintf(name, (size_t)len, "simcuda virtual GPU (sm_%d)", sim_opt.sm);
  else snprintf(name, (size_t)len, "simcuda virtual GPU %d (sm_%d)", (int)dev, sim_opt.sm);
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  SIM_CHECK_INIT();
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  CHECK_DEV(dev);
  *bytes = sim_opt.mem_bytes;
  return CUDA_SUCCESS;
}

static const CUuuid sim_uuid = {{0x53, 0x49, 0x4d, 0x43, 0x55, 0x44, 0x41, 0x2d,
                                 0x67, 0x70, 0x75, 0x66, 0x74, 0x2d, 0x00, 0x01}};

/* The CUDA 9.2 ABI (cuda.h maps the name to _v2; same signature). */
#undef cuDeviceGetUuid
CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
  SIM_CHECK_INIT();
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  CHECK_DEV(dev);
  *uuid = sim_uuid;
  uuid->bytes[15] = (char)(1 + dev); /* device 0 keeps the one-device UUID */
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) { return cuDeviceGetUuid(uuid, dev); }

CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev) {
  SIM_CHECK_INIT();
  if (!pciBusId || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  CHECK_DEV(dev);
  snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", 1 + (int)dev);
  return CUDA_SUCCESS;
}

CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
  SIM_CHECK_INIT();
  if (!can) return CUDA_ERROR_INVALID_VALUE;
  CHECK_DEV(dev);
  CHECK_DEV(peer);
  *can = dev != peer; /* every pair of devices is linked; a device is not its own peer */
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice src, CUdevice dst) {
  SIM_CHECK_INIT();
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  CHECK_DEV(src);
  CHECK_DEV(dst);
  if (src == dst) return CUDA_ERROR_INVALID_DEVICE; /* a device is not its own peer */
  switch (attrib) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; return CUDA_SUCCESS;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED: *value = 1; return CUDA_SUCCESS;
    /* Kernels' atomics on a peer's memory are the host's atomics: all of them work. */
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED: *value = 1; return CUDA_SUCCESS;
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = 0; return CUDA_SUCCESS; /* no arrays */
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: *value = 0; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

/* Values of an RTX 4090-like board; everything not listed is 0 (not supported). */
static int attr_value(CUdevice_attribute a) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 49152;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 65536;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 2520000;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: return 512;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: return 32;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: return 1;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return SIM_SM_COUNT;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 10501000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 384;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 75497472;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 1536;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 2;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return sim_opt.sm / 10;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return sim_opt.sm % 10;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return 102400;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: return 1;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 101376;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 24;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: return 51904512;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: return 134213632;
    case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: return 1;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS: return 1; /* memop.c */
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR: return 1;
    /* mem/vmm.c, api/vmmapi.c: cuMemCreate, cuMemMap, POSIX file descriptor handles */
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: return 1;
    default: { /* texture and surface limits: exec/array.c checks arrays against them */
      int v = sim_array_limit(a);
      return v < 0 ? 0 : v;
    }
  }
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  SIM_CHECK_INIT();
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  CHECK_DEV(dev);
  if ((int)attrib < 1 || attrib >= CU_DEVICE_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
  *pi = attrib == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID ? 1 + (int)dev : attr_value(attrib);
  return CUDA_SUCCESS;
}

/* The device's default memory pool: allocations from it are ordinary device
 * allocations (no release threshold, no reuse across streams modelled). */
static sim_obj_t default_pool = {SIM_OBJ_POOL, 1, NULL, NULL};
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static void pool_register(void) { sim_handle_add(&default_pool); }

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev) {
  SIM_CHECK_INIT();
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  CHECK_DEV(dev);
  /* The pool's sizes (exec/memasync.c) are device 0's: other devices' pools are
   * refused rather than sharing its numbers. Their cuMemAllocAsync works. */
  if (dev != 0) {
    sim_log("the default memory pool of device %d is not simulated (only device 0's)", (int)dev);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  pthread_once(&pool_once, pool_register);
  sim_obj_ref(&default_pool); /* never reaches zero: the static object is not freed */
  *pool = (CUmemoryPool)&default_pool;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) { return cuDeviceGetDefaultMemPool(pool, dev); }

