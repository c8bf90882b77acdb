/* The report and the summary: writer, templates, traceability, signals, exit codes,
 * advice, ranks merged by `gpuft report`, the launcher's own words. */
TEST_ENTRY(writer_roundtrip, 30)
TEST_ENTRY(path_templates, 10)
TEST_ENTRY(traceability_fields, 120)
TEST_ENTRY(signals_write_report, 120)
TEST_ENTRY(abort_mode_report, 120)
TEST_ENTRY(exit_mode_report, 120)
TEST_ENTRY(exit_codes, 300)
TEST_ENTRY(summary_advice, 120)
TEST_ENTRY(log_kernels_and_corrections, 120)
TEST_ENTRY(ranks_merged, 120)
TEST_ENTRY(launcher_says_what_happened, 120)
TEST_ENTRY(lock_profile_printed, 120)
