/* Bad input through the driver API: gpuft changes nothing (tests/badinput). */
TEST_ENTRY(bad_calls_identical_with_gpuft, 600)
