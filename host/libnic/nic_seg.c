/* Making host memory DMA-able. The NIC reaches only shared memory segments (iface/hostmem.h),
 * so ordinary pages (malloc, static data) are moved into a segment *in place*: libnic checks
 * the pages in /proc/self/maps, copies them into a fresh segment, and maps the segment over
 * them with MAP_FIXED | MAP_SHARED. The addresses the program holds stay valid and now name
 * memory the NIC can map too. Limits are in README.md. The map of such segments is global to
 * the process (any NIC may register the same pages). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nic_internal.h"

static pthread_mutex_t seg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lnic_seg *seg_list;  /* sorted by address */

static uintptr_t seg_start(const struct lnic_seg *s) { return (uintptr_t)s->hm.base; }
static uintptr_t seg_end(const struct lnic_seg *s) { return (uintptr_t)s->hm.base + s->hm.len; }

/* A program that exits without deregistering must not leave segment names behind. Only the
 * segments this process made (the pid in the name): the NIC maps a region's segment by its name
 * at the region's first DMA, so a fork child that unlinked the names it inherited left its
 * parent's memory registered before the fork, and not yet touched by the NIC, valid in the
 * region table and out of the NIC's reach (a SOVIA server's pooled memory: the first message
 * of its next connection was refused, PROTECTION). Their owner unlinks them at its own exit,
 * nicd when it dies (nicd/segreap.c). Under the lock: another thread (SOVIA's close thread)
 * may still be releasing segments at exit. */
static void unlink_all_at_exit(void) {
  long me = (long)getpid();
  pthread_mutex_lock(&seg_lock);
  for (struct lnic_seg *s = seg_list; s; s = s->next)
    if (hostmem_owner(s->hm.name) == me) shm_unlink(s->hm.name);
  pthread_mutex_unlock(&seg_lock);
}

static void seg_insert(struct lnic_seg *s) {
  static bool hooked;
  if (!hooked) hooked = atexit(unlink_all_at_exit) == 0;
  struct lnic_seg **pp = &seg_list;
  while (*pp && seg_start(*pp) < seg_start(s)) pp = &(*pp)->next;
  s->next = *pp;
  *pp = s;
}

static void seg_unlist(struct lnic_seg *s) {
  for (struct lnic_seg **pp = &seg_list; *pp; pp = &(*pp)->next)
    if (*pp == s) {
      *pp = s->next;
      return;
    }
}

/* Checks that [start, end) is entirely covered by private, readable and writable mappings
 * that are not a stack: 0, -EINVAL (a hole), -EACCES (unsuitable). */
static int check_maps(uintptr_t start, uintptr_t end) {
  FILE *f = fopen("/proc/self/maps", "re");
  if (!f) return -errno;
  char line[512];
  uintptr_t at = start;
  int rc = -EINVAL;
  while (at < end && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char perms[8] = {0};
    int pathpos = 0;
    if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &pathpos) < 3) continue;
    if (hi <= at) continue;
    if (lo > at) break;                                  /* a hole */
    const char *path = pathpos > 0 ? line + pathpos : "";
    if (perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p' ||
        strncmp(path, "[stack", 6) == 0 || strncmp(path, "[v", 2) == 0) {
      rc = -EACCES;
      break;
    }
    at = hi;
  }
  fclose(f);
  if (at >= end) rc = 0;
  return rc;
}

/* Copies whole pages. Not memcpy: under AddressSanitizer the pages around a malloc'd buffer
 * hold allocator redzones, which are the program's memory all the same and must move too. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ASAN __attribute__((no_sanitize("address")))
#endif
#endif
#if !defined(NO_ASAN) && defined(__SANITIZE_ADDRESS__)
#define NO_ASAN __attribute__((no_sanitize_address))
#endif
#ifndef NO_ASAN
#define NO_ASAN
#endif

NO_ASAN static void copy_pages(void *dst, uintptr_t src, size_t len) {
  volatile uint64_t *d = dst;
  const volatile uint64_t *s = (const volatile uint64_t *)src;
  for (size_t i = 0; i < len / 8; i++) d[i] = s[i];
}

/* Moves [start, start+len) into a new shared segment mapped at the same address. */
static int make_shared(uintptr_t start, size_t len, struct lnic_seg **out) {
  int rc = check_maps(start, start + len);
  if (rc) return rc;
  struct lnic_seg *s = calloc(1, sizeof *s);
  if (!s) return -ENOMEM;
  rc = hostmem_create(&s->hm, len);
  if (rc) {
    free(s);
    return rc;
  }
  copy_pages(s->hm.base, start, len);
  int fd = shm_open(s->hm.name, O_RDWR, 0);
  void *p = fd < 0 ? MAP_FAILED
                   : mmap((void *)start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  int e = errno;
  if (fd >= 0) close(fd);
  if (p == MAP_FAILED) {
    hostmem_destroy(&s->hm);
    free(s);
    return -e;
  }
  munmap(s->hm.base, s->hm.len);
  s->hm.base = (uint8_t *)start;
  s->hm.len = len;
  *out = s;
  return 0;
}

static void seg_release_locked(struct lnic_seg *s) {
  if (--s->refs) return;
  seg_unlist(s);
  if (s->allocated) {
    hostmem_destroy(&s->hm);          /* libnic's own memory: unmap too */
  } else {
    shm_unlink(s->hm.name);              /* in-place pages stay mapped (the program's) */
  }
  free(s);
}

int lnic_seg_cover(uintptr_t start, size_t len, struct lnic_seg **segs, unsigned max) {
  uintptr_t end = start + len;
  unsigned n = 0;
  int rc = 0;
  pthread_mutex_lock(&seg_lock);
  uintptr_t at = start;
  while (at < end) {
    struct lnic_seg *s = seg_list, *next = NULL;
    for (; s; s = s->next) {
      if (seg_start(s) <= at && at < seg_end(s)) break;
      if (seg_start(s) > at && !next) next = s;
    }
    if (n == max) {
      rc = -E2BIG;
      break;
    }
    if (!s) {
      uintptr_t gap_end = next && seg_start(next) < end ? seg_start(next) : end;
      rc = make_shared(at, gap_end - at, &s);
      if (rc) break;
      seg_insert(s);
    }
    s->refs++;
    segs[n++] = s;
    at = seg_end(s);
  }
  if (rc)
    while (n) seg_release_locked(segs[--n]);
  pthread_mutex_unlock(&seg_lock);
  return rc ? rc : (int)n;
}

void lnic_seg_put(struct lnic_seg *s) {
  pthread_mutex_lock(&seg_lock);
  seg_release_locked(s);
  pthread_mutex_unlock(&seg_lock);
}

int lnic_seg_region(struct hwin *w, struct lnic_seg *s, uintptr_t addr, size_t len,
                   uint32_t ptag) {
  return hwin_region_add(w, &s->hm, addr - seg_start(s), len, ptag,
                         HW_ACC_NIC_READ | HW_ACC_NIC_WRITE, NULL);
}

void *lnic_alloc(size_t len) {
  struct lnic_seg *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  if (hostmem_create(&s->hm, len) != 0) {
    free(s);
    return NULL;
  }
  s->allocated = true;
  s->refs = 1;
  pthread_mutex_lock(&seg_lock);
  seg_insert(s);
  pthread_mutex_unlock(&seg_lock);
  return s->hm.base;
}

void lnic_free(void *p) {
  if (!p) return;
  pthread_mutex_lock(&seg_lock);
  for (struct lnic_seg *s = seg_list; s; s = s->next)
    if (s->allocated && s->hm.base == p) {
      seg_release_locked(s);   /* registrations still holding it keep it until they go */
      break;
    }
  pthread_mutex_unlock(&seg_lock);
}
