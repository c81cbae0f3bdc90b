/* segreap.c: removes the names of host memory segments whose process has died. A host
 * process unlinks its segments when it exits normally; one that is killed cannot, and a
 * driver releases what a dead process had pinned, so nicd does it (the memory itself stays
 * mapped wherever it is still in use). Names are iface/hostmem.c's: /vh<pid hex>.<counter hex>. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nicd.h"

/* The pid in a segment name, or -1 if the name is not a segment's. */
static long segment_pid(const char *name) {
  if (strncmp(name, "vh", 2) != 0)
    return -1;
  char *end;
  long pid = strtol(name + 2, &end, 16);
  if (end == name + 2 || *end != '.' || pid <= 0)
    return -1;
  return pid;
}

void segs_reap(void) {
  DIR *d = opendir("/dev/shm");
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    long pid = segment_pid(e->d_name);
    if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    char path[300];
    snprintf(path, sizeof path, "/%s", e->d_name);
    shm_unlink(path);
  }
  closedir(d);
}
