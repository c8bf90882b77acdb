/* Sample programs (tests/samples) on the simulator's PTX interpreter, twins off:
 * each must exit 0 having checked its own result. */
TEST_ENTRY(matmul_tiled, 60)
TEST_ENTRY(reduce_shfl, 60)
TEST_ENTRY(scan, 60)
TEST_ENTRY(histogram, 60)
TEST_ENTRY(transpose, 60)
TEST_ENTRY(nbody, 60)
TEST_ENTRY(stencil2d, 60)
TEST_ENTRY(cg_csr, 60)
TEST_ENTRY(streams, 60)
TEST_ENTRY(vote_ballot, 60)
/* Each sample under gpuft: fault-free in both checking modes (same output, nothing
 * detected), and with one bit flipped in the source of its first read-back. */
TEST_ENTRY(all_under_gpuft, 300)
