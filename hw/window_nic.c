/* The NIC's side of the window (iface/window.h): the NIC creates it, raises host signals in
 * it, marks its processor faulted and finally stops it. No host process does any of this; they
 * map the window with hwin_open (iface/window.c). */
#define _GNU_SOURCE
#include "window_nic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wait.h"

int hwin_create(struct hwin *w, const char *name, uint32_t sram_size, uint16_t node) {
  memset(w, 0, sizeof *w);
  w->fd = -1;
  if (sram_size < HW_SRAM_MIN || sram_size > HW_SRAM_MAX || sram_size % 8) return -EINVAL;
  if (name && (name[0] != '/' || strlen(name) >= sizeof w->name)) return -EINVAL;
  int fd = name ? shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600)
                : memfd_create("verinic-nic", MFD_CLOEXEC);
  if (fd < 0) return -errno;
  size_t size = hwin_size(sram_size);
  if (ftruncate(fd, (off_t)size) != 0) goto fail;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) goto fail;
  w->fd = fd;
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
  hwin_views(w, p, size);
  return 0;
fail:;
  int e = errno;
  close(fd);
  if (name) shm_unlink(name);
  return -e;
}

void hwin_destroy(struct hwin *w) {
  if (!w->base) return;
  atomic_store(&w->regs->state, HW_NIC_STOPPED);
  wait_wake_hosts(w->regs);
  if (w->name[0]) shm_unlink(w->name);
  hwin_close(w);
}

void hwin_signal_host(struct hwin *w, uint32_t bits) {
  struct hw_regs *r = w->regs;
  atomic_fetch_or(&r->host_irq, bits);
  atomic_fetch_add_explicit(&r->ctr[HW_CTR_HOST_SIGNALS], 1, memory_order_relaxed);
  wait_wake_hosts_bits(r, bits);
}

void hwin_fault(struct hwin *w) {
  atomic_store(&w->regs->state, HW_NIC_FAULTED);
  wait_wake_hosts(w->regs);
}
