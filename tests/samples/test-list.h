/* Sample programs (tests/samples) on the simulator's PTX interpreter, twins off:
 * each must exit 0 having checked its own result. */
TEST_ENTRY(matmul_tiled, 60)
TEST_ENTRY(reduce_shfl, 60)
TEST_ENTRY(scan, 60)
TEST_ENTRY(histogram, 60)
TEST_ENTRY(transpose, 60)
TEST_ENTRY(nbody, 60)
TEST_ENTRY(stencil2d, 60)
TEST_ENTRY(cg_csr, 60)
TEST_ENTRY(index_walk, 60)
TEST_ENTRY(shared_group, 60)
TEST_ENTRY(value_wait, 60)
TEST_ENTRY(streams, 60)
TEST_ENTRY(vote_ballot, 60)
TEST_ENTRY(reduce_ballot, 60)
/* The interpreter against host arithmetic: warp collectives under partial and
 * divergent masks, bar.red, atomics of every type and scope (diff_warp); float
 * arithmetic in every rounding mode, denormals, NaN, conversions (diff_float). */
TEST_ENTRY(diff_warp, 60)
TEST_ENTRY(diff_float, 60)
/* Integer intrinsics (diff_int): high and 64-bit products, bit counts, permutes,
 * funnel shifts, absolute differences, halving adds, 24-bit products, dp4a. */
TEST_ENTRY(diff_int, 60)
/* Scalar half and bfloat16 arithmetic against exact host arithmetic (diff_half). */
TEST_ENTRY(diff_half, 60)
/* cp.async: a double-buffered tiled SGEMM, zero-filled tails, cuda::pipeline and
 * cooperative_groups::memcpy_async against the host. */
TEST_ENTRY(gemm_cp_async, 60)
/* Tensor cores: an ldmatrix + mma.sync GEMM, one mma per shape and type with the
 * PTX ISA's fragment layouts, a wmma GEMM, against the host. */
TEST_ENTRY(gemm_mma, 60)
/* malloc/free and new/delete in kernels: objects, arrays, memory kept across
 * launches, a 1 MiB heap (cudaDeviceSetLimit) running out and reused. */
TEST_ENTRY(device_heap, 60)
/* Indirect calls: virtual functions of objects made with new, function pointers
 * chosen per lane, a __device__ table of function pointers. */
TEST_ENTRY(virtual_calls, 60)
/* Texture objects on pitched and linear memory: a tex2D box blur, bilinear and
 * point sampling with normalised coordinates in every address mode, uchar4 read
 * as normalised floats by tex1Dfetch, shorts read as integers. */
TEST_ENTRY(texture_blur, 60)
/* CUDA arrays (1-D, 2-D, 3-D, layered) written through surface objects and read
 * through texture objects, copied with cudaMemcpy2D/3D, out-of-range surface modes. */
TEST_ENTRY(surface_array, 60)
/* The same program on the simulator's own runtime (nvcc -cudart shared). */
TEST_ENTRY(surface_array_shared, 60)
/* What the UB check reports of textures and surfaces: fetches of what global stores,
 * atomics and reductions of the same launch wrote (texture_blur ub), gathers from
 * pitched memory and arrays made without cudaArrayTextureGather, queries the PTX ISA
 * gives no value for (surface_array ub); and the launches the simulator faults: a
 * query or gather on the wrong kind of object, a reduction outside or misaligned. */
TEST_ENTRY(texture_blur_ub_reported, 60)
TEST_ENTRY(surface_array_ub_reported, 60)
TEST_ENTRY(surface_array_faults, 60)
/* assert() in a kernel: cudaErrorAssert, sticky, the GPU's message on stderr. */
TEST_ENTRY(device_assert, 60)
/* Launch sizing: the runtime's and the driver's occupancy calculators agree. */
TEST_ENTRY(occupancy, 60)
/* Stream attributes set, read back, copied, refused out of range. */
TEST_ENTRY(stream_attrs, 60)
/* The default memory pool's attributes around stream-ordered allocations. */
TEST_ENTRY(mempool, 60)
/* Recursive device functions on a real call stack; a runaway one fails its launch. */
TEST_ENTRY(recursion, 60)
/* Several devices (SIMCUDA_DEVICES=2), VMM and IPC, as NVIDIA's simpleP2P,
 * simpleMultiGPU, vectorAddMMAP and simpleIPC use them: peer access and copies, a
 * kernel faulting on a peer's memory without access, a waiver with one device, a
 * halo exchange against a host reference, a range striped over two devices' memory,
 * a child process reading and writing its parent's buffer. */
TEST_ENTRY(simple_p2p, 60)
TEST_ENTRY(simple_p2p_without_peer_access, 60)
TEST_ENTRY(simple_p2p_one_device_waives, 60)
TEST_ENTRY(halo_multi_gpu, 60)
TEST_ENTRY(vector_add_mmap, 60)
TEST_ENTRY(vector_add_mmap_two_devices, 60)
TEST_ENTRY(simple_ipc, 60)
/* Graphs (built the default way, static runtime): explicit and captured graphs,
 * a Jacobi solver relaunched with updates, graph memory nodes, a Jacobi solver
 * looping in a while node until a kernel finds it converged (conditional nodes),
 * a step captured in global mode while another thread loads batches. */
TEST_ENTRY(graphs_simple, 60)
TEST_ENTRY(graph_jacobi, 60)
TEST_ENTRY(graph_memnodes, 60)
TEST_ENTRY(graph_conditional, 60)
TEST_ENTRY(capture_threads, 60)
TEST_ENTRY(vmm_pool, 60)
/* Cooperative launches (grid_sync, built with the simulator's runtime and with
 * nvcc's static one): a one-pass reduction, a conjugate-gradient solver in one
 * kernel and data moved between blocks across grid.sync(), on occupancy-sized
 * grids; one block too many refused; the same results on any number of threads; a
 * sync that cannot complete fails the launch. */
TEST_ENTRY(grid_sync, 120)
TEST_ENTRY(grid_sync_static, 120)
TEST_ENTRY(grid_sync_on_any_thread_count, 300)
TEST_ENTRY(grid_sync_failures, 120)
TEST_ENTRY(refused_launch_not_counted, 120)
TEST_ENTRY(graph_launches_protected_as_their_nodes, 120)
TEST_ENTRY(graphs_under_gpuft, 240)
TEST_ENTRY(capture_beside_other_threads, 120)
/* CUDA arrays, surfaces and textures on them pass through gpuft untouched. */
TEST_ENTRY(arrays_under_gpuft, 120)
TEST_ENTRY(devices_under_gpuft, 240)
TEST_ENTRY(injection_says_unprotected, 120)
TEST_ENTRY(restart_after_lost_context, 300)
TEST_ENTRY(campaign_restarts_lost_contexts, 300)
/* Campaigns of 1- and 2-bit faults at rest on each device of halo_multi_gpu, and in
 * both processes of simple_ipc (docs/campaign.md, "Two devices and IPC"). */
TEST_ENTRY(devices_campaign, 300)
/* A VMM-backed pool growing while its tensors live (issue 27): one protected object,
 * faults recovered (docs/design.md "Memory mapped with the VMM API"). */
TEST_ENTRY(vmm_pool_under_gpuft, 240)
TEST_ENTRY(vmm_pool_campaign, 600)
/* Faults at random calls in the graph samples (conditional nodes, host copies). */
TEST_ENTRY(graph_samples_campaign, 600)
/* NVIDIA's reduction kernel 7 reads lanes outside its ballot mask: the UB check
 * names the kernel, PC and lanes, and with SIMCUDA_CHECK_UB=2 the launch fails. */
TEST_ENTRY(reduce_ballot_ub_reported, 60)
/* Every other sample is clean under SIMCUDA_CHECK_UB=2 (no report, same verdict). */
TEST_ENTRY(clean_under_ub_check, 300)
/* Each sample with every kernel translated to host code (docs/simulator.md,
 * "Translation to host code"), at its first block and beside it: its verdict, and
 * no translation failed. */
TEST_ENTRY(all_translated, 900)
/* Each sample under gpuft: fault-free in both checking modes (same output, nothing
 * detected), and with one bit flipped in the source of its first read-back. */
TEST_ENTRY(all_under_gpuft, 300)
/* Verify before use: aimed flips at rest in index data (docs/design.md). */
TEST_ENTRY(index_walk_campaign, 600)
/* Verify before use: a repair in a group another stream writes unordered. */
TEST_ENTRY(repair_beside_unordered_writer, 300)
/* GPUFT_MODE=detect: checks before use repair nothing. */
TEST_ENTRY(detect_mode_repairs_nothing_before_use, 120)
/* Streams ordered by values in memory: checks before use only check, no deadlock,
 * no wrong answer, with and without a flip (value_wait). */
TEST_ENTRY(value_waits_do_not_deadlock_repairs, 180)
/* A kernel fault's error outlives a primary-context reset (issue 28's probe). */
TEST_ENTRY(sticky_error_survives_a_reset, 60)
