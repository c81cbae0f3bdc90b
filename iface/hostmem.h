/* DMA-able host memory: a POSIX shared memory segment that the host process maps and the NIC
 * (in nicd, or the same process) maps too, by name, once a region of it is registered in the
 * window (window.h). Host addresses in DMA descriptors are the host process's own virtual
 * addresses inside such a segment. */
#ifndef IFACE_HOSTMEM_H
#define IFACE_HOSTMEM_H

#include <stddef.h>
#include <stdint.h>

#define HOSTMEM_NAME_LEN 24
#define HOSTMEM_PREFIX   "/vh"

struct hostmem {
  uint8_t *base;
  size_t len;
  char name[HOSTMEM_NAME_LEN];
};

/* Creates and maps a zeroed segment of len bytes (rounded up to a page). 0 or -errno. */
int hostmem_create(struct hostmem *m, size_t len);
/* Unmaps and unlinks it. A NIC that has mapped it keeps its mapping until it lets go. */
void hostmem_destroy(struct hostmem *m);
/* The pid of the process that created segment `name` (HOSTMEM_PREFIX "<pid hex>.<counter hex>",
 * with or without the leading '/', as /dev/shm lists it), or -1 if it is not a segment's name. */
long hostmem_owner(const char *name);

#endif
