/* segreap.c: removes the names of host memory segments whose process has died. A host
 * process unlinks its segments when it exits normally; one that is killed cannot, and a
 * driver releases what a dead process had pinned, so nicd does it (the memory itself stays
 * mapped wherever it is still in use). Which process a segment belongs to is in its name
 * (hostmem_owner, iface/hostmem.h). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>

#include "hostmem.h"
#include "nicd.h"

void segs_reap(void) {
  DIR *d = opendir("/dev/shm");
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    long pid = hostmem_owner(e->d_name);
    if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    char path[300];
    snprintf(path, sizeof path, "/%s", e->d_name);
    shm_unlink(path);
  }
  closedir(d);
}
