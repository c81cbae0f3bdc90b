/* proc_cpu.h: a process's CPU time (user + system, clock ticks) from /proc, for the router's
 * test and benchmark: the router program's must stay near zero while packets flow. */
#ifndef SPINE_PROC_CPU_H
#define SPINE_PROC_CPU_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* -1 if it cannot be read. */
static inline long proc_cpu_ticks(pid_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *s = strrchr(buf, ')');   /* the command name may hold anything */
  long ut = 0, st = 0;
  if (!s || sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &ut, &st) != 2) return -1;
  return ut + st;
}

#endif
