/* sim_path.h: files installed next to the launcher (tools/sim_path.c). */
#ifndef FT_SIM_PATH_H
#define FT_SIM_PATH_H

/* A file installed at `rel` from the launcher's folder (e.g. "../libexec/gpuft/sgemm"),
 * else `built` (its place in the build tree, may be ""): its real path in out
 * (PATH_MAX). ft_tools_find_sim: the simulator's folder (holding libcuda.so.1).
 * 0, or -1 when absent. (tools/sim_path.c) */
int ft_tools_find(const char *rel, const char *built, char *out);
int ft_tools_find_sim(char *out);
/* On stderr, "who: no NVIDIA driver here ...", what to do, and `rerun` (the same
 * command on the simulator, e.g. "gpuft --sim -- ./app") when the simulator is installed. */
void ft_tools_no_driver_hint(const char *who, const char *rerun);
/* 1 when libcuda.so.1 can be loaded with the current environment (tried in a child). */
int ft_tools_driver_loadable(void);

#endif
