/* The analysis check (SIMCUDA_CHECK_ACCESS=1) over every program of the tests, on
 * the PTX interpreter: no READ-classified argument place's allocation was stored to,
 * and no load or store outside the byte ranges of the places (docs/ptx.md "Ranges"). */
TEST_ENTRY(apps_no_read_place_written, 240)
TEST_ENTRY(samples_no_read_place_written, 240)
TEST_ENTRY(static_runtime_no_read_place_written, 60)
/* The same programs under gpuft (GPUFT_CHECK=launch and epoch): no store into an
 * allocation gpuft declared it treats as unwritten by that launch (issue 21). */
TEST_ENTRY(apps_under_gpuft_no_unwritten_store, 300)
TEST_ENTRY(samples_under_gpuft_no_unwritten_store, 300)
TEST_ENTRY(static_runtime_under_gpuft_no_unwritten_store, 120)
/* Graph launches (explicit, captured, conditional and memory nodes, a capture beside
 * another thread): every kernel node checked against what gpuft declared for the
 * graph launch (issue 24). */
TEST_ENTRY(graphs_under_gpuft_no_unwritten_store, 300)
/* The check sees stores: with every place taken as READ (SIMCUDA_CHECK_ACCESS=2),
 * each program that writes through an argument is reported. */
TEST_ENTRY(self_test_reports_every_written_argument, 120)
