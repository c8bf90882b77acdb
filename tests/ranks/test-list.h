/* An MPI job under gpuft (tests/ranks/halo_mpi.cu on two simulated devices, one per
 * rank): native; under `mpirun -np 2 gpuft -- ./halo_mpi` with per-rank reports
 * merged by `gpuft report`; a fault in rank 1 recovered; GPUFT_ON_FAIL=exit's status
 * seen by the job. Skipped, with the reason, without Open MPI or nvcc. */
TEST_ENTRY(native, 120)
TEST_ENTRY(under_gpuft, 180)
TEST_ENTRY(fault_in_rank1_recovered, 180)
TEST_ENTRY(exit_on_fail, 120)
