/* Tests of gpuft's protection (registry, uploads, verification, correction,
 * report) on the simulator. */
TEST_ENTRY(fault_free_apps_identical, 300)
TEST_ENTRY(single_flip_at_rest_corrected, 300)
TEST_ENTRY(double_flip_one_block_never_miscorrected, 300)
TEST_ENTRY(double_flip_two_groups_both_corrected, 120)
TEST_ENTRY(on_fail_abort, 60)
TEST_ENTRY(read_only_input_flip_detected_after_launch, 300)
TEST_ENTRY(code_array_flips_are_code_errors, 120)
TEST_ENTRY(bad_input_same_as_driver, 60)
TEST_ENTRY(unaligned_sizes_and_offsets, 120)
TEST_ENTRY(checkpoint_budget, 60)
TEST_ENTRY(detect_mode_does_not_modify, 120)
TEST_ENTRY(report_json_fields, 60)
