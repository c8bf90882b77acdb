/* Runtime unit tests: each runs one mode of rt_probe (an nvcc-built program) on the
 * simulator, plus checks of the library file itself. */
TEST_ENTRY(exports_versioned, 30)
TEST_ENTRY(error_strings_match_real, 30)
TEST_ENTRY(errors_non_sticky, 60)
TEST_ENTRY(no_twin_launch, 60)
TEST_ENTRY(sticky_illegal_address, 60)
TEST_ENTRY(device_properties, 60)
TEST_ENTRY(streams_events_memory, 60)
TEST_ENTRY(func_queries_and_launch_apis, 60)
TEST_ENTRY(late_twin_registration, 60)
/* cudaMallocArray and friends: channel descriptions, extents, 2-D copies, surfaces */
TEST_ENTRY(arrays_and_surfaces, 60)
/* launch, cudaDeviceReset, launch again; a launch still queued at exit */
TEST_ENTRY(launch_reset_launch, 60)
TEST_ENTRY(no_driver_insufficient, 30)
