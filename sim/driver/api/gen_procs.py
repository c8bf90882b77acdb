#!/usr/bin/env python3
"""gen_procs.py: regenerates procs.def (the cuGetProcAddress table) from cudaTypedefs.h.

Each PFN_<base>_v<ver>[_ptds|_ptsz] typedef of NVIDIA's header names one ABI of a
driver entry point. The oldest plain ABI is exported as <base>, the next ones as
<base>_v2, _v3...; a per-thread ABI is the plain symbol of its version + _ptds/_ptsz.
Only the symbols listed in IMPLEMENTED get a pointer; the others are listed with
their version so that cuGetProcAddress can answer VERSION_NOT_SUFFICIENT.
Usage: gen_procs.py /usr/local/cuda/include/cudaTypedefs.h
                   /usr/local/cuda/include/cudaProfilerTypedefs.h > procs.def"""
import re, sys

IMPLEMENTED = """
cuInit cuDriverGetVersion cuDeviceGet cuDeviceGetCount cuDeviceGetName cuDeviceGetAttribute
cuDeviceTotalMem_v2 cuDeviceGetUuid cuDeviceGetUuid_v2 cuDeviceGetDefaultMemPool cuDeviceGetMemPool
cuDeviceCanAccessPeer cuDeviceGetPCIBusId cuDeviceGetP2PAttribute cuGetErrorName cuGetErrorString
cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease_v2 cuDevicePrimaryCtxReset
cuDevicePrimaryCtxReset_v2 cuProfilerStart cuProfilerStop
cuDevicePrimaryCtxGetState cuDevicePrimaryCtxSetFlags_v2
cuCtxCreate_v2 cuCtxCreate_v3 cuCtxCreate_v4 cuCtxDestroy_v2 cuCtxGetCurrent cuCtxSetCurrent
cuCtxPushCurrent_v2 cuCtxPopCurrent_v2 cuCtxGetDevice cuCtxSynchronize cuCtxGetApiVersion cuCtxGetFlags
cuTexObjectCreate cuTexObjectDestroy cuTexObjectGetResourceDesc cuTexObjectGetTextureDesc
cuTexObjectGetResourceViewDesc
cuCtxGetLimit cuCtxSetLimit cuCtxGetCacheConfig cuCtxSetCacheConfig cuCtxGetStreamPriorityRange cuCtxGetId
cuCtxResetPersistingL2Cache
cuCtxGetDevice_v2 cuCtxSynchronize_v2 cuStreamGetCtx_v2 cuStreamGetCtx_v2_ptsz
cuMemAlloc_v2 cuMemAllocPitch_v2 cuMemFree_v2 cuMemAllocAsync cuMemAllocAsync_ptsz cuMemFreeAsync
cuMemFreeAsync_ptsz cuMemAllocFromPoolAsync cuMemAllocFromPoolAsync_ptsz cuMemAllocManaged
cuMemPoolGetAttribute cuMemPoolSetAttribute cuMemPoolTrimTo
cuMemGetInfo_v2 cuMemGetAddressRange_v2 cuPointerGetAttribute cuPointerGetAttributes
cuMemAllocHost_v2 cuMemHostAlloc cuMemFreeHost cuMemHostGetDevicePointer_v2 cuMemHostRegister_v2
cuMemHostUnregister cuMemHostGetFlags
cuMemcpy cuMemcpy_ptds cuMemcpyAsync cuMemcpyAsync_ptsz cuMemcpyHtoD_v2 cuMemcpyHtoD_v2_ptds
cuMemcpyDtoH_v2 cuMemcpyDtoH_v2_ptds cuMemcpyDtoD_v2 cuMemcpyDtoD_v2_ptds
cuMemcpyHtoDAsync_v2 cuMemcpyHtoDAsync_v2_ptsz cuMemcpyDtoHAsync_v2 cuMemcpyDtoHAsync_v2_ptsz
cuMemcpyDtoDAsync_v2 cuMemcpyDtoDAsync_v2_ptsz cuMemcpy2D_v2 cuMemcpy2D_v2_ptds
cuMemcpy2DUnaligned_v2 cuMemcpy2DUnaligned_v2_ptds cuMemcpy2DAsync_v2 cuMemcpy2DAsync_v2_ptsz
cuMemcpy3D_v2 cuMemcpy3D_v2_ptds cuMemcpy3DAsync_v2 cuMemcpy3DAsync_v2_ptsz
cuMemcpyPeer cuMemcpyPeer_ptds cuMemcpyPeerAsync cuMemcpyPeerAsync_ptsz
cuMemsetD8_v2 cuMemsetD8_v2_ptds cuMemsetD16_v2 cuMemsetD16_v2_ptds cuMemsetD32_v2 cuMemsetD32_v2_ptds
cuMemsetD2D8_v2 cuMemsetD2D8_v2_ptds cuMemsetD2D16_v2 cuMemsetD2D16_v2_ptds
cuMemsetD2D32_v2 cuMemsetD2D32_v2_ptds
cuMemsetD8Async cuMemsetD8Async_ptsz cuMemsetD16Async cuMemsetD16Async_ptsz
cuMemsetD32Async cuMemsetD32Async_ptsz cuMemsetD2D8Async cuMemsetD2D8Async_ptsz
cuMemsetD2D16Async cuMemsetD2D16Async_ptsz cuMemsetD2D32Async cuMemsetD2D32Async_ptsz
cuStreamCreate cuStreamCreateWithPriority cuStreamDestroy_v2 cuStreamSynchronize cuStreamSynchronize_ptsz
cuStreamQuery cuStreamQuery_ptsz cuStreamWaitEvent cuStreamWaitEvent_ptsz cuStreamGetFlags
cuStreamGetFlags_ptsz cuStreamGetPriority cuStreamGetPriority_ptsz cuStreamGetCtx cuStreamGetCtx_ptsz
cuStreamGetId cuStreamGetId_ptsz cuStreamGetAttribute cuStreamGetAttribute_ptsz cuStreamSetAttribute
cuStreamSetAttribute_ptsz cuStreamCopyAttributes cuStreamCopyAttributes_ptsz
cuStreamAddCallback cuStreamAddCallback_ptsz cuLaunchHostFunc cuLaunchHostFunc_ptsz
cuEventCreate cuEventDestroy_v2 cuEventRecord cuEventRecord_ptsz cuEventRecordWithFlags
cuEventRecordWithFlags_ptsz cuEventSynchronize cuEventQuery cuEventElapsedTime cuEventElapsedTime_v2
cuModuleLoadData cuModuleLoadDataEx cuModuleLoadFatBinary cuModuleUnload cuModuleGetFunction
cuModuleGetGlobal_v2 cuModuleGetLoadingMode cuLibraryLoadData cuLibraryUnload cuLibraryGetKernel
cuModuleLoad cuLibraryLoadFromFile
cuLibraryGetModule cuLibraryGetGlobal cuLibraryGetKernelCount cuLibraryEnumerateKernels
cuKernelGetFunction cuKernelGetName cuKernelGetParamInfo cuKernelGetAttribute cuKernelSetAttribute
cuKernelSetCacheConfig cuKernelGetLibrary
cuFuncGetParamInfo cuFuncGetName cuFuncGetAttribute cuFuncSetAttribute cuFuncSetCacheConfig
cuFuncGetModule cuFuncIsLoaded cuFuncLoad
cuLaunchKernel cuLaunchKernel_ptsz cuLaunchKernelEx cuLaunchKernelEx_ptsz cuLaunchCooperativeKernel
cuLaunchCooperativeKernel_ptsz cuOccupancyMaxActiveBlocksPerMultiprocessor
cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags cuOccupancyMaxPotentialBlockSize
cuOccupancyMaxPotentialBlockSizeWithFlags cuOccupancyAvailableDynamicSMemPerBlock
cuGraphCreate cuGraphAddKernelNode_v2 cuGraphInstantiateWithFlags cuGraphLaunch cuGraphLaunch_ptsz
cuGraphExecDestroy cuGraphDestroy
cuGetProcAddress cuGetProcAddress_v2 cuGetExportTable
cuStreamWriteValue32_v2 cuStreamWriteValue32_v2_ptsz cuStreamWriteValue64_v2 cuStreamWriteValue64_v2_ptsz
cuStreamBatchMemOp_v2 cuStreamBatchMemOp_v2_ptsz cuMemcpy3DPeer cuMemcpy3DPeer_ptds cuMemcpy3DPeerAsync
cuMemcpy3DPeerAsync_ptsz cuMemcpyBatchAsync cuMemcpyBatchAsync_ptsz cuMemcpyBatchAsync_v2 cuMemcpyBatchAsync_v2_ptsz cuMemcpy3DBatchAsync cuMemcpy3DBatchAsync_ptsz cuMemcpy3DBatchAsync_v2
cuMemcpy3DBatchAsync_v2_ptsz cuStreamWaitValue32_v2 cuStreamWaitValue32_v2_ptsz
cuStreamWaitValue64_v2 cuStreamWaitValue64_v2_ptsz cuMemcpyAtoD_v2 cuMemcpyAtoD_v2_ptds cuLaunchCooperativeKernelMultiDevice
""".split()

# Entry points added by one piece of work, emitted as one block of procs.def after
# the others under its comment (so that parallel work touches different lines).
GROUPS = [
    ("devices, peers, VMM, IPC", """
cuCtxEnablePeerAccess cuCtxDisablePeerAccess
cuMemGetAllocationGranularity cuMemCreate cuMemRelease cuMemGetAllocationPropertiesFromHandle
cuMemAddressReserve cuMemAddressFree cuMemMap cuMemUnmap cuMemSetAccess cuMemGetAccess
cuMemRetainAllocationHandle cuMemExportToShareableHandle cuMemImportFromShareableHandle
cuIpcGetMemHandle cuIpcOpenMemHandle cuIpcOpenMemHandle_v2 cuIpcCloseMemHandle
"""),
    ("graphs and capture", """
cuGraphClone cuGraphNodeFindInClone cuGraphNodeGetType cuGraphGetNodes cuGraphGetRootNodes
cuGraphGetEdges cuGraphGetEdges_v2 cuGraphNodeGetDependencies cuGraphNodeGetDependencies_v2
cuGraphNodeGetDependentNodes cuGraphNodeGetDependentNodes_v2 cuGraphAddDependencies cuGraphAddDependencies_v2
cuGraphRemoveDependencies cuGraphRemoveDependencies_v2 cuGraphDestroyNode cuGraphDebugDotPrint
cuGraphAddMemcpyNode cuGraphAddMemsetNode cuGraphAddHostNode cuGraphAddEmptyNode cuGraphAddChildGraphNode
cuGraphAddEventRecordNode cuGraphAddEventWaitNode cuGraphAddMemAllocNode cuGraphAddMemFreeNode
cuGraphKernelNodeGetParams_v2 cuGraphKernelNodeSetParams_v2 cuGraphMemcpyNodeGetParams cuGraphMemcpyNodeSetParams
cuGraphMemsetNodeGetParams cuGraphMemsetNodeSetParams cuGraphHostNodeGetParams cuGraphHostNodeSetParams
cuGraphChildGraphNodeGetGraph cuGraphEventRecordNodeGetEvent cuGraphEventRecordNodeSetEvent
cuGraphEventWaitNodeGetEvent cuGraphEventWaitNodeSetEvent cuGraphMemAllocNodeGetParams cuGraphMemFreeNodeGetParams
cuGraphAddNode cuGraphAddNode_v2 cuGraphNodeSetParams cuGraphConditionalHandleCreate
cuGraphExecKernelNodeSetParams_v2 cuGraphExecMemcpyNodeSetParams cuGraphExecMemsetNodeSetParams
cuGraphExecHostNodeSetParams cuGraphExecChildGraphNodeSetParams cuGraphExecEventRecordNodeSetEvent
cuGraphExecEventWaitNodeSetEvent cuGraphExecNodeSetParams cuGraphExecUpdate_v2 cuGraphExecGetFlags
cuGraphInstantiateWithParams cuGraphInstantiateWithParams_ptsz cuGraphUpload cuGraphUpload_ptsz
cuStreamBeginCapture_v2 cuStreamBeginCapture_v2_ptsz
cuStreamBeginCaptureToGraph cuStreamBeginCaptureToGraph_ptsz cuStreamEndCapture cuStreamEndCapture_ptsz
cuStreamGetCaptureInfo cuStreamGetCaptureInfo_ptsz cuStreamGetCaptureInfo_v2 cuStreamGetCaptureInfo_v2_ptsz
cuStreamGetCaptureInfo_v3 cuStreamGetCaptureInfo_v3_ptsz cuStreamIsCapturing cuStreamIsCapturing_ptsz
cuStreamUpdateCaptureDependencies cuStreamUpdateCaptureDependencies_ptsz cuStreamUpdateCaptureDependencies_v2
cuStreamUpdateCaptureDependencies_v2_ptsz cuThreadExchangeStreamCaptureMode
cuDeviceGetGraphMemAttribute cuDeviceSetGraphMemAttribute cuDeviceGraphMemTrim cuGraphNodeSetEnabled cuGraphNodeGetEnabled
"""),
    ("CUDA arrays and surface objects", """
cuArrayCreate_v2 cuArray3DCreate_v2 cuArrayGetDescriptor_v2 cuArray3DGetDescriptor_v2 cuArrayDestroy
cuMemcpyHtoA_v2 cuMemcpyHtoA_v2_ptds cuMemcpyHtoAAsync_v2 cuMemcpyHtoAAsync_v2_ptsz cuMemcpyDtoA_v2 cuMemcpyDtoA_v2_ptds
cuMemcpyAtoH_v2 cuMemcpyAtoH_v2_ptds cuMemcpyAtoHAsync_v2 cuMemcpyAtoHAsync_v2_ptsz cuMemcpyAtoA_v2 cuMemcpyAtoA_v2_ptds
cuSurfObjectCreate cuSurfObjectDestroy cuSurfObjectGetResourceDesc
"""),
]

def emit(base, by_base, impl, used):
    plain = [v for v, pt in by_base[base] if not pt]
    names = {v: (base if i == 0 else "%s_v%d" % (base, i + 1)) for i, v in enumerate(plain)}
    for ver, pt in by_base[base]:
        if pt:
            below = [v for v in plain if v <= ver]
            sym = names[below[-1]] + pt if below else base + pt
        else:
            sym = names[ver]
        ok = sym in impl
        if ok:
            used.add(sym)
        print("SIM_PROC(%s, %d, %s, PFN_%s_v%d%s, %d, %d)" %
              (base, ver, sym, base, ver, pt, 1 if pt else 0, 1 if ok else 0))

def bases_of(by_base, names):
    return sorted({b for b in by_base
                   if any(s == b or re.fullmatch(re.escape(b) + r"(_v\d+)?(_ptds|_ptsz)?", s)
                          for s in names)})

def main():
    text = "".join(open(f).read() for f in sys.argv[1:])
    pfns = sorted(set(re.findall(r"\bPFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?\b", text)),
                  key=lambda t: (t[0], int(t[1]), t[2]))
    by_base = {}
    for base, ver, pt in pfns:
        by_base.setdefault(base, []).append((int(ver), pt))
    groups = [(c, n.split()) for c, n in GROUPS]
    impl = set(IMPLEMENTED).union(*(set(n) for _, n in groups))
    grouped = set().union(*(set(bases_of(by_base, n)) for _, n in groups))
    print("/* procs.def: GENERATED by gen_procs.py from cudaTypedefs.h and cudaProfilerTypedefs.h (CUDA 13.0); do not edit.\n"
          " * SIM_PROC(base name, ABI version, exported symbol, PFN type, per-thread, implemented) */")
    used = set()
    for base in bases_of(by_base, IMPLEMENTED):
        if base not in grouped:
            emit(base, by_base, impl, used)
    for comment, names in groups:
        print("/* %s */" % comment)
        for base in bases_of(by_base, names):
            emit(base, by_base, impl, used)
    missing = impl - used
    if missing:
        sys.exit("gen_procs.py: no PFN typedef for " + " ".join(sorted(missing)))

main()
