/* sv_regcache.c: the memory registration cache (paper section 4.1, after MVICH). A send
 * larger than the copy threshold registers its whole buffer; the registration is kept (up to
 * SV_REG_ENTRIES, least recently used evicted) so a buffer sent again costs no registration.
 * The hazard the paper names, memory freed and mapped again while its registration is cached,
 * is caught without hooking malloc: registration leaves the pages in a shared mapping, so a
 * hit whose pages /proc/self/pagemap shows present but private-anonymous (bit 61 clear) is
 * stale and is registered afresh. Called with G.mu held. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "sv_int.h"

#define SV_REG_ENTRIES 48

static struct ent {
  bool used;
  uintptr_t addr;
  size_t len;
  VIP_MEM_HANDLE h;
  uint64_t lru;
  unsigned refs;
} ents[SV_REG_ENTRIES];
static uint64_t tick;
static int pagemap_fd = -2;

/* false if a page of [a, a+len) was replaced by ordinary private memory. */
static bool still_shared(uintptr_t a, size_t len) {
  if (pagemap_fd == -2) pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap_fd < 0) return true;
  uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t probe[3] = {a, a + len / 2, a + len - 1};
  for (int i = 0; i < 3; i++) {
    uint64_t e;
    if (pread(pagemap_fd, &e, sizeof e, (off_t)(probe[i] / pg * 8)) != (ssize_t)sizeof e) continue;
    bool present = e >> 63 & 1, shared = e >> 61 & 1;
    if (present && !shared) return false;
  }
  return true;
}

static void drop(struct ent *e) {
  VipDeregisterMem(G.nic, (void *)e->addr, e->h);
  e->used = false;
}

int sv_reg_get(void *buf, size_t len, VIP_MEM_HANDLE *h) {
  uintptr_t a = (uintptr_t)buf;
  for (int i = 0; i < SV_REG_ENTRIES; i++) {
    struct ent *e = &ents[i];
    if (!e->used || a < e->addr || a + len > e->addr + e->len) continue;
    if (!e->refs && !still_shared(a, len)) {
      drop(e);
      continue;
    }
    e->lru = ++tick;
    e->refs++;
    *h = e->h;
    return 0;
  }
  /* A range that grows over pages registered before would become a registration of several
   * shared segments, and a descriptor crossing from one to the next reads wrong data (see
   * README: reported against libnic/the NIC). Dropping the overlapping idle entries first
   * makes the new registration one segment. */
  uintptr_t pg = 4096;
  for (int i = 0; i < SV_REG_ENTRIES; i++) {
    struct ent *e = &ents[i];
    if (e->used && !e->refs && e->addr < (a + len + pg) && a < e->addr + e->len + pg) drop(e);
  }
  struct ent *slot = NULL;
  for (int i = 0; i < SV_REG_ENTRIES; i++)
    if (!ents[i].used) {
      slot = &ents[i];
      break;
    }
  if (!slot) {
    for (int i = 0; i < SV_REG_ENTRIES; i++)
      if (!ents[i].refs && (!slot || ents[i].lru < slot->lru)) slot = &ents[i];
    if (!slot) return -ENOBUFS;
    drop(slot);
  }
  VIP_MEM_ATTRIBUTES ma = {.Ptag = G.ptag};
  VIP_RETURN r = VipRegisterMem(G.nic, buf, len, &ma, h);
  if (r != VIP_SUCCESS) {
    /* the region table may be full of cached entries: free the idle ones and retry once */
    for (int i = 0; i < SV_REG_ENTRIES; i++)
      if (ents[i].used && !ents[i].refs) drop(&ents[i]);
    r = VipRegisterMem(G.nic, buf, len, &ma, h);
    if (r != VIP_SUCCESS) return -EFAULT;   /* e.g. a stack buffer: the caller copies */
  }
  *slot = (struct ent){true, a, len, *h, ++tick, 1};
  return 0;
}

void sv_reg_put(void *buf) {
  uintptr_t a = (uintptr_t)buf;
  for (int i = 0; i < SV_REG_ENTRIES; i++)
    if (ents[i].used && ents[i].refs && a >= ents[i].addr && a < ents[i].addr + ents[i].len) {
      ents[i].refs--;
      return;
    }
}
