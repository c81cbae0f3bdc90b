/* segreap.c: what a dead process leaves behind in host memory. A host process unlinks its
 * segments and removes its registrations when it exits normally; one that is killed cannot,
 * and a driver releases what a dead process had pinned, so nicd does it: the segments' names
 * (the memory itself stays mapped wherever it is still in use), and the NICs' memory regions
 * (HW_REGIONS each, which a few killed servers would otherwise use up). Which process a
 * segment belongs to is in its name (hostmem_owner, iface/hostmem.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* ---- regions ---- */

#define MAPPED_MAX 4096   /* segment names remembered from one look at /proc */

struct mapped {
  unsigned n;
  bool full;              /* more than MAPPED_MAX: treat every segment as mapped */
  char name[MAPPED_MAX][HOSTMEM_NAME_LEN];
};

/* name: with or without its leading '/'; the list holds them without. */
static bool mapped_has(const struct mapped *m, const char *name) {
  if (m->full) return true;
  if (name[0] == '/') name++;
  for (unsigned i = 0; i < m->n; i++)
    if (strncmp(m->name[i], name, HOSTMEM_NAME_LEN) == 0) return true;
  return false;
}

/* Adds the segments one process maps (/proc/PID/maps lines naming /dev/shm/NAME). */
static void mapped_scan(struct mapped *m, const char *pid) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%s/maps", pid);
  FILE *f = fopen(path, "r");
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    const char *p = strstr(line, "/dev/shm/");
    if (!p) continue;
    p += strlen("/dev/shm/");
    size_t len = strcspn(p, " \n");
    if (len == 0 || len >= HOSTMEM_NAME_LEN || hostmem_owner(p) <= 0) continue;
    char name[HOSTMEM_NAME_LEN] = "";
    memcpy(name, p, len);
    if (mapped_has(m, name)) continue;
    if (m->n == MAPPED_MAX) {
      m->full = true;
      break;
    }
    memcpy(m->name[m->n++], name, HOSTMEM_NAME_LEN);
  }
  fclose(f);
}

/* The segments every process but this one (nicd maps them all for the NICs' DMA) maps. */
static void mapped_all(struct mapped *m) {
  m->n = 0;
  m->full = false;
  DIR *d = opendir("/proc");
  if (!d) {
    m->full = true;
    return;
  }
  char self[24];
  snprintf(self, sizeof self, "%ld", (long)getpid());
  struct dirent *e;
  while ((e = readdir(d)) != NULL && !m->full)
    if (isdigit((unsigned char)e->d_name[0]) && strcmp(e->d_name, self) != 0)
      mapped_scan(m, e->d_name);
  closedir(d);
}

/* A region whose segment's owner is dead: a candidate. */
static bool orphan(const struct hw_region *g) {
  if (atomic_load_explicit(&g->state, memory_order_acquire) != HW_REGION_VALID) return false;
  char name[HOSTMEM_NAME_LEN + 1];
  memcpy(name, g->seg, HOSTMEM_NAME_LEN);
  name[HOSTMEM_NAME_LEN] = 0;
  long pid = hostmem_owner(name);
  return pid > 0 && vitab_owner_gone((pid_t)pid);
}

/* A region goes once its segment's owner is dead and no other process maps the segment: a
 * fork child may still use its parent's registrations, and a live process removes a region
 * before it unmaps the segment (lnic_mem_deregister), so no live process can hold a region
 * removed here. At most one look at /proc per second while candidates stay. */
unsigned regions_reap(struct nicd *d, uint64_t now) {
  static uint64_t last;
  static struct mapped m;
  bool any = false;
  for (unsigned k = 0; k < d->n && !any; k++) {
    struct hwin *w = nic_window(d->nic[k]);
    for (int i = 0; i < HW_REGIONS && !any; i++) any = orphan(&w->regions[i]);
  }
  if (!any || (last && now - last < 1000000000ull)) return 0;
  last = now;
  mapped_all(&m);
  unsigned gone = 0;
  for (unsigned k = 0; k < d->n; k++) {
    struct hwin *w = nic_window(d->nic[k]);
    for (int i = 0; i < HW_REGIONS; i++) {
      struct hw_region *g = &w->regions[i];
      /* orphan() again: while /proc was read, a fork child may have deregistered the region
       * and a live process registered another in its entry */
      if (orphan(g) && !mapped_has(&m, g->seg) && hwin_region_remove(w, i) == 0) gone++;
    }
  }
  return gone;
}
