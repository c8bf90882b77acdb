/* probe_b.c: the library after libprobe_a that also defines probe_name(). */
__attribute__((visibility("default"))) const char *probe_name(void) { return "b"; }
