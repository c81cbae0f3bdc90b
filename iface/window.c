/* The window, as every process maps it: the layout's checks, mapping an existing window,
 * doorbells, the host memory region table and programmed I/O into the SRAM (wake-ups and
 * every wait are wait.c's). Creating the window, raising host signals and stopping are the
 * NIC's alone: hw/window_nic.c. */
#include "window.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wait.h"

_Static_assert(offsetof(struct hw_regs, isr) == 0x40, "regs layout");
_Static_assert(offsetof(struct hw_regs, db_pending) == 0x80, "regs layout");
_Static_assert(offsetof(struct hw_regs, host_irq) == 0xc0, "regs layout");
_Static_assert(offsetof(struct hw_regs, mailbox) == 0x100, "regs layout");
_Static_assert(offsetof(struct hw_regs, ctr) == 0x200, "regs layout");
_Static_assert(offsetof(struct hw_regs, cpu) == 0x300 && sizeof(struct hw_cpu) == 0xb0,
               "regs layout");
_Static_assert(offsetof(struct hw_regs, vt) == 0x400 && sizeof(struct hw_vt_slot) == 32,
               "regs layout");
_Static_assert(sizeof(struct hw_regs) <= HW_REGIONS_OFF, "regs fit their page");
_Static_assert(sizeof(struct hw_region) == 64, "region entry size");
_Static_assert(HW_REGIONS_OFF + HW_REGIONS * 64 <= HW_SRAM_OFF, "regions fit below SRAM");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2,
               "atomics in shared memory must be lock-free");

size_t hwin_size(uint32_t sram_size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (HW_SRAM_OFF + (size_t)sram_size + page - 1) & ~(page - 1);
}

void hwin_views(struct hwin *w, uint8_t *base, size_t size) {
  w->base = base;
  w->size = size;
  w->regs = (struct hw_regs *)base;
  w->regions = (struct hw_region *)(base + HW_REGIONS_OFF);
  w->sram = base + HW_SRAM_OFF;
  w->sram_size = w->regs->sram_size;
}

int hwin_open_fd(struct hwin *w, int fd) {
  struct stat st;
  memset(w, 0, sizeof *w);
  w->fd = -1;
  if (fstat(fd, &st) != 0) return -errno;
  size_t size = (size_t)st.st_size;
  if (size < HW_SRAM_OFF + HW_SRAM_MIN) return -EPROTO;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return -errno;
  const struct hw_regs *r = p;
  /* The layout comes from another process: check it before trusting any offset. */
  if (r->magic != HW_WIN_MAGIC || r->version != HW_WIN_VERSION || r->sram_off != HW_SRAM_OFF ||
      r->regions_off != HW_REGIONS_OFF || r->nregions != HW_REGIONS ||
      r->sram_size < HW_SRAM_MIN || r->sram_size > HW_SRAM_MAX || r->win_size != size ||
      hwin_size(r->sram_size) != size) {
    munmap(p, size);
    return -EPROTO;
  }
  hwin_views(w, p, size);
  return 0;
}

int hwin_open(struct hwin *w, const char *name) {
  int fd = shm_open(name, O_RDWR, 0);
  if (fd < 0) return -errno;
  int rc = hwin_open_fd(w, fd);
  close(fd);
  if (rc == 0) snprintf(w->name, sizeof w->name, "%s", name);
  return rc;
}

void hwin_close(struct hwin *w) {
  if (!w->base) return;
  munmap(w->base, w->size);
  if (w->fd >= 0) close(w->fd);
  memset(w, 0, sizeof *w);
  w->fd = -1;
}

int hwin_doorbell(struct hwin *w, unsigned i, uint32_t value) {
  struct hw_regs *r = w->regs;
  if (i >= HW_DOORBELLS) return -EINVAL;
  atomic_store(&r->mailbox[i], value);
  atomic_fetch_or(&r->db_pending, 1u << i);
  wait_wake_nic(r);
  return 0;
}

bool hwin_nic_alive(struct hwin *w) { return !wait_nic_gone(w->regs); }

int hwin_region_add(struct hwin *w, const struct hostmem *m, size_t off, size_t len,
                    uint32_t ptag, uint32_t access, uint64_t *host_addr) {
  if (!m->base || off > m->len || len > m->len - off || len == 0) return -EINVAL;
  if (access == 0 || (access & ~(HW_ACC_NIC_READ | HW_ACC_NIC_WRITE))) return -EINVAL;
  for (int id = 0; id < HW_REGIONS; id++) {
    struct hw_region *g = &w->regions[id];
    uint32_t free_state = HW_REGION_FREE;
    if (!atomic_compare_exchange_strong(&g->state, &free_state, HW_REGION_BUSY)) continue;
    g->ptag = ptag;
    g->access = access;
    g->host_base = (uint64_t)(uintptr_t)(m->base + off);
    g->len = len;
    g->seg_off = off;
    memset(g->seg, 0, sizeof g->seg);
    memcpy(g->seg, m->name, strnlen(m->name, sizeof g->seg - 1));
    atomic_fetch_add(&g->gen, 1);
    atomic_store_explicit(&g->state, HW_REGION_VALID, memory_order_release);
    if (host_addr) *host_addr = g->host_base;
    return id;
  }
  return -ENOSPC;
}

int hwin_region_remove(struct hwin *w, int id) {
  if (id < 0 || id >= HW_REGIONS) return -EINVAL;
  struct hw_region *g = &w->regions[id];
  uint32_t valid = HW_REGION_VALID;
  if (!atomic_compare_exchange_strong(&g->state, &valid, HW_REGION_BUSY)) return -ENOENT;
  atomic_fetch_add(&g->gen, 1);
  atomic_store_explicit(&g->state, HW_REGION_FREE, memory_order_release);
  return 0;
}

int hwin_sram_write(struct hwin *w, uint32_t addr, const void *src, size_t len) {
  if (addr > w->sram_size || len > w->sram_size - addr) return -ERANGE;
  memcpy(w->sram + addr, src, len);
  return 0;
}

int hwin_sram_read(struct hwin *w, uint32_t addr, void *dst, size_t len) {
  if (addr > w->sram_size || len > w->sram_size - addr) return -ERANGE;
  memcpy(dst, w->sram + addr, len);
  return 0;
}
