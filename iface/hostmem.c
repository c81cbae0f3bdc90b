/* Host memory segments over shm_open. Names carry the pid and a counter seeded from the clock,
 * so a stale NIC-side mapping of an old segment is never mistaken for a new one. */
#include "hostmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "futex.h"

static _Atomic uint32_t seg_counter;

int hostmem_create(struct hostmem *m, size_t len) {
  long page = sysconf(_SC_PAGESIZE);
  memset(m, 0, sizeof *m);
  if (len == 0 || len > ((size_t)1 << 40)) return -EINVAL;
  len = (len + (size_t)page - 1) & ~((size_t)page - 1);
  uint32_t zero = 0;
  atomic_compare_exchange_strong(&seg_counter, &zero, (uint32_t)futex_now_ns() | 1u);
  for (int tries = 0; tries < 16; tries++) {
    snprintf(m->name, sizeof m->name, HOSTMEM_PREFIX "%x.%x", (unsigned)getpid(),
             (unsigned)atomic_fetch_add(&seg_counter, 1));
    int fd = shm_open(m->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return -errno;
    if (ftruncate(fd, (off_t)len) != 0) {
      int e = errno;
      close(fd);
      shm_unlink(m->name);
      return -e;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) {
      shm_unlink(m->name);
      return -e;
    }
    m->base = p;
    m->len = len;
    return 0;
  }
  return -EEXIST;
}

void hostmem_destroy(struct hostmem *m) {
  if (m->base) {
    munmap(m->base, m->len);
    shm_unlink(m->name);
  }
  memset(m, 0, sizeof *m);
}

long hostmem_owner(const char *name) {
  const char *prefix = HOSTMEM_PREFIX + 1; /* the name without its '/' */
  if (name[0] == '/') name++;
  if (strncmp(name, prefix, strlen(prefix)) != 0) return -1;
  const char *digits = name + strlen(prefix);
  char *end;
  long pid = strtol(digits, &end, 16);
  if (end == digits || *end != '.' || pid <= 0) return -1;
  return pid;
}
