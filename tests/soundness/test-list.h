/* Adversarial kernels against gpuft's access facts (adversarial.cu), each natively
 * and under gpuft in every mode (detect, correct, recover x launch, epoch; in
 * sanitizer builds recover/launch and detect/epoch), with
 * the simulator's access check on: same output as native, 0 violations of the
 * analysis and of gpuft's launch decisions, nothing detected. */
TEST_ENTRY(every_case_native_and_under_gpuft, 600)
/* The check is not vacuous: in its self-test mode (every allocation taken as
 * declared unwritten) the same cases report gpuft violations. */
TEST_ENTRY(declaration_check_sees_stores, 120)
/* A flip at rest in the input of each case (1 and 2 bits) is found, and repaired or
 * reported: never a wrong answer. */
TEST_ENTRY(flips_in_inputs_repaired, 600)
