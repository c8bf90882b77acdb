/* The gpuft launcher: options from the table, validation, running programs (on the
 * simulator too), LD_PRELOAD, exit status, the report summary, the installed layout. */
TEST_ENTRY(help_lists_every_option, 30)
TEST_ENTRY(version, 30)
TEST_ENTRY(bad_values_exit_2, 30)
TEST_ENTRY(usage_errors, 30)
TEST_ENTRY(campaign_stub, 30)
TEST_ENTRY(exit_status_and_stdout, 30)
TEST_ENTRY(signal_status, 30)
TEST_ENTRY(options_become_environment, 30)
TEST_ENTRY(preload_prepended, 30)
TEST_ENTRY(cuda_program_on_simulator, 120)
TEST_ENTRY(report_option, 120)
TEST_ENTRY(installed_layout, 180)
