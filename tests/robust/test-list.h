/* Tests of issue 13's "never harm the host program" half (tests/robust). */
TEST_ENTRY(concurrent_uploads_without_checkpoint, 300)
TEST_ENTRY(apps_without_checkpoint_budget, 300)
TEST_ENTRY(context_lifecycle, 300)
TEST_ENTRY(hostile_gpuft_options, 300)
TEST_ENTRY(hostile_simulator_options, 300)
TEST_ENTRY(stress_threads_streams_contexts, 300)
TEST_ENTRY(frees_while_commits_replay_flips, 300)
