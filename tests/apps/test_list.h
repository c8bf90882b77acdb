/* Example programs on the simulator: right answers at several sizes, bit-exact
 * reruns, and injected bit flips that each program's own check must catch. */
TEST_ENTRY(vecadd_sizes, 60)
TEST_ENTRY(sgemm_sizes, 120)
TEST_ENTRY(jacobi_sizes, 120)
TEST_ENTRY(multistream_runs, 120)
TEST_ENTRY(multistream_ptds, 60)
TEST_ENTRY(deterministic_reruns, 120)
TEST_ENTRY(vecadd_flip_d2h, 60)
TEST_ENTRY(sgemm_flip_d2h_c, 120)
TEST_ENTRY(sgemm_flip_launch_ab, 120)
TEST_ENTRY(jacobi_flip_launch_u, 120)
TEST_ENTRY(multistream_flip, 120)
TEST_ENTRY(flip_off_target_is_harmless, 60)
