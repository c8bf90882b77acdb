/* The engine's mechanisms and stores called directly, the simulator as the driver
 * (issue 23; tests/engine/test_mech.c). */
TEST_ENTRY(ledger_jobs_find_and_repair_flips, 120)
TEST_ENTRY(ledger_full_refuses_and_orphans_keep_slots, 120)
