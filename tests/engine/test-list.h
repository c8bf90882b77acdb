/* The engine's floors tested directly, below the hooks (issue 23; tests/engine). */
TEST_ENTRY(registry_interval_map, 60)
TEST_ENTRY(order_and_uses, 60)
TEST_ENTRY(issuing_keeps_from_rest, 60)
TEST_ENTRY(coded_groups_map, 60)
TEST_ENTRY(runs_merge_and_cover, 60)
