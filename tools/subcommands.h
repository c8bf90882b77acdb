/* subcommands.h: THE list of `gpuft SUBCOMMAND`s, for the launcher's dispatch and
 * usage (tools/gpuft.c) and the man page (tools/manpage.c): none can be left out.
 * X(name, function(argc, argv) with argv[0] the name, one-line description) */
#ifndef FT_SUBCOMMANDS_H
#define FT_SUBCOMMANDS_H

#define FT_SUBCOMMANDS(X)                                                                         \
  X(campaign, ft_campaign_cmd, "fault-injection campaigns (gpuft campaign --help)")              \
  X(report, ft_report_cmd_main, "print or merge gpuft's JSON reports (one per rank)")            \
  X(demo, ft_demo_main, "a bit flip in an SGEMM on the simulator, without and with gpuft")       \
  X(selftest, ft_selftest_main, "check gpuft on the GPU at hand: kernels, hooks, bandwidth")     \
  X(memtest, ft_memtest_main, "test the card's memory for bad bits (kept in its error history)") \
  X(history, ft_history_main, "the card's error history (bad words, quarantine)")

#endif
