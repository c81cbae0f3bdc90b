/* The window: creation and mapping, doorbells and host signals (their wake-ups and every
 * wait are iface/wait.c's), and the host memory region table. */
#define _GNU_SOURCE
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
_Static_assert(sizeof(struct hw_regs) <= HW_REGIONS_OFF, "regs fit their page");
_Static_assert(sizeof(struct hw_region) == 64, "region entry size");
_Static_assert(HW_REGIONS_OFF + HW_REGIONS * 64 <= HW_SRAM_OFF, "regions fit below SRAM");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2,
               "atomics in shared memory must be lock-free");

static size_t win_size_for(uint32_t sram_size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (HW_SRAM_OFF + (size_t)sram_size + page - 1) & ~(page - 1);
}

static void set_views(struct hwin *w) {
  w->regs = (struct hw_regs *)w->base;
  w->regions = (struct hw_region *)(w->base + HW_REGIONS_OFF);
  w->sram = w->base + HW_SRAM_OFF;
  w->sram_size = w->regs->sram_size;
}

int hwin_create(struct hwin *w, const char *name, uint32_t sram_size, uint16_t node) {
  memset(w, 0, sizeof *w);
  w->fd = -1;
  if (sram_size < HW_SRAM_MIN || sram_size > HW_SRAM_MAX || sram_size % 8) return -EINVAL;
  if (name && (name[0] != '/' || strlen(name) >= sizeof w->name)) return -EINVAL;
  int fd = name ? shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600)
                : memfd_create("verinic-nic", MFD_CLOEXEC);
  if (fd < 0) return -errno;
  size_t size = win_size_for(sram_size);
  if (ftruncate(fd, (off_t)size) != 0) goto fail;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) goto fail;
  w->base = p;
  w->size = size;
  w->fd = fd;
  w->owner = true;
  if (name) snprintf(w->name, sizeof w->name, "%s", name);
  struct hw_regs *r = (struct hw_regs *)p;
  r->version = HW_WIN_VERSION;
  r->sram_off = HW_SRAM_OFF;
  r->sram_size = sram_size;
  r->win_size = size;
  r->regions_off = HW_REGIONS_OFF;
  r->nregions = HW_REGIONS;
  r->node = node;
  r->nic_pid = (int32_t)getpid();
  atomic_store(&r->state, HW_NIC_RUNNING);
  r->magic = HW_WIN_MAGIC;
  set_views(w);
  return 0;
fail:;
  int e = errno;
  close(fd);
  if (name) shm_unlink(name);
  return -e;
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
      win_size_for(r->sram_size) != size) {
    munmap(p, size);
    return -EPROTO;
  }
  w->base = p;
  w->size = size;
  set_views(w);
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
  if (w->owner) {
    atomic_store(&w->regs->state, HW_NIC_STOPPED);
    wait_wake_hosts(w->regs);
    if (w->name[0]) shm_unlink(w->name);
  }
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

void hwin_signal_host(struct hwin *w, uint32_t bits) {
  struct hw_regs *r = w->regs;
  atomic_fetch_or(&r->host_irq, bits);
  atomic_fetch_add_explicit(&r->ctr[HW_CTR_HOST_SIGNALS], 1, memory_order_relaxed);
  wait_wake_hosts(r);
}

void hwin_fault(struct hwin *w) {
  atomic_store(&w->regs->state, HW_NIC_FAULTED);
  wait_wake_hosts(w->regs);
}

int hwin_region_add(struct hwin *w, const struct hw_hostmem *m, size_t off, size_t len,
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
