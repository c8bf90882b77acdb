/* Snapshots of device-produced data (issue 14): two-bit flips at rest in what the
 * GPU itself produced, recovered bit for bit; and the cases that must be reported
 * instead (no snapshot, budget, non-deterministic kernels). */
TEST_ENTRY(solver_two_bits_at_rest_recovered, 600)
TEST_ENTRY(solver_long_log_recovered, 300)
TEST_ENTRY(solver_without_snapshots_is_reported, 300)
TEST_ENTRY(stencil_two_bits_at_rest_recovered, 600)
TEST_ENTRY(stencil_with_frees_never_silent, 600)
TEST_ENTRY(nondeterministic_atomics_reported, 300)
TEST_ENTRY(budget_exhausted_is_reported, 120)
TEST_ENTRY(fault_free_same_answer, 300)
