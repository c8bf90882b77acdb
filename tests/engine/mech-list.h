/* The engine's mechanisms, stores and policy called directly, the simulator as the driver
 * (issue 23; tests/engine/test_mech.c). */
TEST_ENTRY(ledger_jobs_find_and_repair_flips, 120)
TEST_ENTRY(ledger_full_refuses_and_orphans_keep_slots, 120)
TEST_ENTRY(commit_corrects_one_bit, 120)
TEST_ENTRY(commit_restores_two_bits_from_checkpoint, 120)
TEST_ENTRY(commit_reports_two_bits_without_checkpoint, 120)
TEST_ENTRY(free_while_commit_waits, 120)
TEST_ENTRY(free_while_commit_gives_up, 120)
TEST_ENTRY(launch_protocol_and_replay, 120)
