/* gpuft campaign (tools/campaign.c): the Wilson interval, the classification of runs,
 * crafted programs for each outcome, --json, and real campaigns on the simulator. */
TEST_ENTRY(wilson_known_values, 10)
TEST_ENTRY(classify_cases, 10)
TEST_ENTRY(report_and_stderr, 10)
TEST_ENTRY(usage_errors, 30)
TEST_ENTRY(crafted_sdc, 120)
TEST_ENTRY(crafted_crash, 120)
TEST_ENTRY(crafted_hang, 120)
TEST_ENTRY(not_injected, 120)
TEST_ENTRY(one_injection_grammar, 120)
TEST_ENTRY(compare_ignore_check, 200)
TEST_ENTRY(results_resume, 300)
TEST_ENTRY(progress_on_terminal, 120)
TEST_ENTRY(plot_png, 120)
TEST_ENTRY(uncorrectable_reported, 120)
TEST_ENTRY(json_fields, 120)
TEST_ENTRY(jobs_do_not_change_results, 180)
TEST_ENTRY(real_campaign_sgemm, 180)
/* Flips at a rate (--rate) and runs without gpuft (--native), issue 28. */
TEST_ENTRY(rate_native_usage, 60)
TEST_ENTRY(rate_zero_not_injected, 90)
TEST_ENTRY(rate_native_and_gpuft, 120)
TEST_ENTRY(native_placed_fault, 90)
TEST_ENTRY(rate_cg_csr, 120)
/* The CI campaign: every example program, both injectors, 1- and 2-bit faults at rest;
 * fails on any silent data corruption (docs/campaign.md has its figures). */
TEST_ENTRY(ci_campaign, 300)
