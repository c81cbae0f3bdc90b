/* takeover.c: starting after a nicd that was killed. A killed nicd leaves its windows
 * (shared memory objects), its socket and its pid file behind. A new nicd takes over a
 * window whose owner process is gone (removes it, so it can be created afresh; programs still
 * mapping the old one see its owner dead and fail their calls) and refuses, naming the live
 * process, a window or run directory that a running nicd still serves. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nicd.h"

/* A process that exists and is a nicd (a recycled pid running something else does not count). */
static bool nicd_running(pid_t pid) {
  if (pid <= 0 || pid == getpid()) return false;
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  char path[64], comm[32] = "";
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return true;   /* no /proc: trust kill(2) */
  bool is_nicd = fgets(comm, sizeof comm, f) && strncmp(comm, "nicd", 4) == 0;
  fclose(f);
  return is_nicd;
}

int takeover_window(const char *name, char *why, size_t cap) {
  struct hwin w;
  int rc = hwin_open(&w, name);
  if (rc == -ENOENT) return 0;
  pid_t pid = rc == 0 ? (pid_t)w.regs->nic_pid : 0;
  bool live = rc == 0 && atomic_load(&w.regs->state) == HW_NIC_RUNNING && nicd_running(pid);
  if (rc == 0) hwin_close(&w);
  if (live) {
    snprintf(why, cap, "window %s belongs to nicd pid %d, which is still running (stop it, or "
             "give this nicd another --prefix)", name, (int)pid);
    return -EBUSY;
  }
  if (shm_unlink(name) != 0 && errno != ENOENT) {
    snprintf(why, cap, "window %s is left by a nicd that died and cannot be removed: %s", name,
             strerror(errno));
    return -errno;
  }
  fprintf(stderr, "nicd: took over %s, left by %s\n", name,
          rc == 0 ? "a nicd that is no longer running" : "an unfinished or foreign window");
  return 0;
}

int takeover_rundir(const char *pidfile, char *why, size_t cap) {
  FILE *f = fopen(pidfile, "r");
  if (!f) return 0;
  long pid = 0;
  int n = fscanf(f, "%ld", &pid);
  fclose(f);
  if (n == 1 && pid > 0 && pid < (1L << 22) && nicd_running((pid_t)pid)) {
    snprintf(why, cap, "nicd pid %ld is still running with this run directory (%s)", pid, pidfile);
    return -EBUSY;
  }
  return 0;
}

const char *nicd_nic_error(int nic_err) {
  switch (nic_err) {
  case NIC_EINVAL: return "invalid configuration (window name or SRAM size)";
  case NIC_ENOMEM: return "out of memory";
  case NIC_ESYS: return "the shared memory window could not be set up";
  default: return "unknown error";
  }
}
