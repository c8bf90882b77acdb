/* The PTX interpreter on its own (host buffers for device memory). */
TEST_ENTRY(ops_edge_values, 60)
TEST_ENTRY(divergence_and_shfl, 30)
TEST_ENTRY(votes_and_bar_red, 30)
TEST_ENTRY(calls, 30)
TEST_ENTRY(faults, 30)
TEST_ENTRY(library_forms_refused, 30)
TEST_ENTRY(envreg_reads_zero, 30)
TEST_ENTRY(cp_async_lands_at_wait, 30)
/* Undefined results and the UB check (test_ub.c). */
TEST_ENTRY(shfl_outside_mask_gives_zero, 30)
TEST_ENTRY(mask_naming_diverged_lanes_refused, 30)
TEST_ENTRY(partial_barrier_reported, 30)
TEST_ENTRY(shared_race_reported, 30)
TEST_ENTRY(collective_member_predicated_off_reported, 30)
TEST_ENTRY(barrier_after_divergent_recursion_reported, 30)
/* Blocks on several host threads (test_par.c). */
TEST_ENTRY(parallel_atomics_exact, 60)
TEST_ENTRY(parallel_equals_serial, 60)
TEST_ENTRY(parallel_fault_lowest_block, 60)
/* Cooperative grids and their grid barrier (test_gridsync.c). */
TEST_ENTRY(grid_barrier_orders_blocks, 60)
TEST_ENTRY(grid_barrier_needs_cooperative_launch, 30)
TEST_ENTRY(grid_barrier_left_early_fails, 30)
/* The faster paths against the reference interpreter (test_fast.c). */
TEST_ENTRY(fast_paths_match_reference, 30)
TEST_ENTRY(fast_faults_match_reference, 30)
TEST_ENTRY(register_reuse_shares_slots, 30)
TEST_ENTRY(special_registers_every_block, 30)
