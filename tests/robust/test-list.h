/* Tests of issue 13's "never harm the host program" half (tests/robust). */
TEST_ENTRY(concurrent_uploads_without_checkpoint, 300)
