/* The PTX interpreter on its own (host buffers for device memory). */
TEST_ENTRY(ops_edge_values, 60)
TEST_ENTRY(divergence_and_shfl, 30)
TEST_ENTRY(votes_and_bar_red, 30)
TEST_ENTRY(calls, 30)
TEST_ENTRY(faults, 30)
TEST_ENTRY(library_forms_refused, 30)
