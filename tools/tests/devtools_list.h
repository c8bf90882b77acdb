/* gpuft's device tools on the simulator: selftest, memtest (stuck bits found where they
 * are, a clean run finds nothing), the error history (format, concurrent writers,
 * printing, records from the engine) and the quarantine of known bad pages. */
TEST_ENTRY(selftest_passes, 300)
TEST_ENTRY(selftest_fails_on_a_stuck_bit, 300)
TEST_ENTRY(memtest_clean_run_finds_nothing, 300)
TEST_ENTRY(memtest_finds_stuck_bits, 600)
TEST_ENTRY(memtest_usage_errors, 60)
TEST_ENTRY(history_concurrent_appends, 60)
TEST_ENTRY(history_printed_volatile_and_aggregate, 60)
TEST_ENTRY(engine_records_permanent_faults, 120)
TEST_ENTRY(quarantine_keeps_bad_pages_from_the_program, 120)
