/* Rest intervals and access facts (issue 12): multi-stream programs without false
 * alarms, inputs only read through pointers gpuft used to misjudge. */
TEST_ENTRY(simplestreams_fault_free_both_modes, 300)
TEST_ENTRY(simplestreams_flip_at_rest, 300)
TEST_ENTRY(streams_still_overlap, 120)
TEST_ENTRY(read_only_inputs_flipped_before_read, 300)
TEST_ENTRY(struct_field_flips_recovered, 300)
TEST_ENTRY(module_loaded_at_run_time_is_analysed, 120)
TEST_ENTRY(stream_handle_reused_by_another_context, 120)
TEST_ENTRY(userpatterns_fault_free_both_modes, 120)
TEST_ENTRY(facts_from_ptx_not_names, 60)
