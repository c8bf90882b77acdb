/* common/: the one fault grammar (faultspec.c) and "did you mean" (nearest.h). */
TEST_ENTRY(faultspec_one_meaning_per_key, 10)
TEST_ENTRY(faultspec_errors_name_the_field, 10)
TEST_ENTRY(faultspec_older_spelling, 10)
TEST_ENTRY(faultspec_models_placed, 10)
TEST_ENTRY(nearest_names, 10)
