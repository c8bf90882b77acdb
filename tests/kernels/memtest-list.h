/* Memory-test kernel tests from PTX (tests/kernels/test_memtest_ptx.c): TEST_ENTRY(name, timeout_s). */
TEST_ENTRY(memtest_patterns_from_ptx, 180)
