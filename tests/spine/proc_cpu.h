/* proc_cpu.h: a process's CPU time from /proc, for the router's test and benchmark: the router
 * program's must stay near zero while packets flow; the host forwarder's is reported. */
#ifndef SPINE_PROC_CPU_H
#define SPINE_PROC_CPU_H

#include <stdio.h>
#include <sys/types.h>

/* Nanoseconds on a CPU (/proc/PID/schedstat: finer than the ticks); -1 if unreadable. */
static inline long long proc_cpu_ns(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
  FILE *f = fopen(path, "r");
  long long ns = -1;
  if (!f) return -1;
  if (fscanf(f, "%lld", &ns) != 1) ns = -1;
  fclose(f);
  return ns;
}

#endif
