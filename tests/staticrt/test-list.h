/* The static CUDA runtime (nvcc's default link) on the simulator (tests/staticrt). */
/* The program runs, its kernels on the PTX interpreter, through a device reset. */
TEST_ENTRY(runs_on_interpreter, 60)
/* A private driver entry the simulator does not emulate names itself and the fix. */
TEST_ENTRY(unemulated_entry_named, 60)
/* Under gpuft: fault-free in both checking modes with zero detections; a flipped
 * bit at rest is detected and corrected. */
TEST_ENTRY(under_gpuft, 120)
/* GPUFT_MODE=detect with the same flip: the error reaches the program, which exits
 * with its own code (its library unloaded at exit with a launch still queued). */
TEST_ENTRY(detect_mode_flip_exits_cleanly, 120)
/* Every sample of tests/samples built the default way runs and checks out, on the
 * interpreter and under gpuft (zero detections). */
TEST_ENTRY(samples_linked_statically, 240)
/* The samples of several devices, VMM and IPC built the default way, on two devices. */
TEST_ENTRY(device_samples_linked_statically, 120)
