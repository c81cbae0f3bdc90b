/* Opening a NIC: device name -> window, mapping, the host interface check; liveness. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "futex.h"
#include "wait.h"
#include "nic_internal.h"

int lnic_window_name(const char *devname, char *out, size_t outlen) {
  if (!devname || !out) return -EINVAL;
  if (devname[0] == '/') {
    if (strlen(devname) >= outlen) return -EINVAL;
    snprintf(out, outlen, "%s", devname);
    return 0;
  }
  if (strncmp(devname, "nic", 3) != 0 || !devname[3]) return -EINVAL;
  for (const char *c = devname + 3; *c; c++)
    if (*c < '0' || *c > '9') return -EINVAL;
  if (strlen(devname) > 8) return -EINVAL;
  if ((size_t)snprintf(out, outlen, "/verinic-%s", devname) >= outlen) return -EINVAL;
  return 0;
}

static int check_hostif(struct lnic_dev *d) {
  if (d->win.sram_size < HOSTIF_BUF_BASE) return -EPROTO;
  const volatile struct hostif_ctrl *c = (const volatile void *)(d->win.sram + HOSTIF_BASE);
  uint32_t magic = sram_ld32(&c->magic);
  if (magic != HOSTIF_MAGIC) return magic == 0 ? -EAGAIN : -EPROTO;
  if (c->version != HOSTIF_VERSION || c->nvi != HOSTIF_NVI || c->vi_off != HOSTIF_VI_ADDR(0))
    return -EPROTO;
  return 0;
}

/* A NIC whose processor is running but whose firmware has not yet published the host
 * interface is still booting (a LANai image on a loaded machine takes a while): wait for it, as
 * a driver waits for its card, but never longer than LNIC_BOOT_WAIT_MS. */
static int wait_booted(struct lnic_dev *d) {
  struct timespec t0, now, nap = {0, 1000000};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    int rc = check_hostif(d);
    if (rc != -EAGAIN || !hwin_nic_alive(&d->win)) return rc;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >= LNIC_BOOT_WAIT_MS)
      return rc;
    nanosleep(&nap, NULL);
  }
}

static int finish_open(struct lnic_dev *d, const char *devname, struct lnic_dev **out) {
  snprintf(d->devname, sizeof d->devname, "%s", devname ? devname : "nic?");
  d->node = (uint16_t)d->win.regs->node;
  int rc = wait_booted(d);
  if (rc == 0 && !hwin_nic_alive(&d->win)) rc = -EPIPE;
  if (rc != 0) return rc;
  pthread_mutex_init(&d->lock, NULL);
  pthread_cond_init(&d->drain_cond, NULL);
  lnic_fork_track(d);
  *out = d;
  return 0;
}

int lnic_open(const char *devname, struct lnic_dev **out) {
  char wname[64];
  if (!out) return -EINVAL;
  *out = NULL;
  int rc = lnic_window_name(devname, wname, sizeof wname);
  if (rc) return rc;
  struct lnic_dev *d = calloc(1, sizeof *d);
  if (!d) return -ENOMEM;
  rc = hwin_open(&d->win, wname);
  if (rc == -ENOENT) rc = -ENODEV;
  if (rc == 0) {
    rc = finish_open(d, devname, out);
    if (rc) hwin_close(&d->win);
  }
  if (rc) free(d);
  return rc;
}

int lnic_open_window(const struct hwin *w, const char *devname, struct lnic_dev **out) {
  if (!w || !out || !w->base) return -EINVAL;
  *out = NULL;
  struct lnic_dev *d = calloc(1, sizeof *d);
  if (!d) return -ENOMEM;
  /* A second mapping of the same object, so that lnic_close never unmaps the caller's. */
  int rc = w->fd >= 0 ? hwin_open_fd(&d->win, w->fd) : hwin_open(&d->win, w->name);
  if (rc == 0) {
    rc = finish_open(d, devname, out);
    if (rc) hwin_close(&d->win);
  }
  if (rc) free(d);
  return rc;
}

void lnic_close(struct lnic_dev *d) {
  if (!d) return;
  lnic_fork_untrack(d);
  lnic_drainer_stop(d);
  if (d->vt_slot) {   /* timing mode: this process no longer bounds nicd */
    struct hw_vt_slot *s = &d->win.regs->vt.slot[d->vt_slot - 1];
    lnic_vt_forget(d);
    atomic_store(&s->state, HW_VT_FREE);
    atomic_store(&s->pid, 0);
    wait_wake_nic(d->win.regs);
  }
  for (unsigned i = 0; i < HOSTIF_NVI; i++)
    if (d->vi[i]) lnic_vi_destroy(d->vi[i], true);
  for (int i = 0; i < NIC_MAX_MR; i++)
    if (d->mr[i].used) lnic_mem_deregister(d, i);
  hwin_close(&d->win);
  pthread_cond_destroy(&d->drain_cond);
  pthread_mutex_destroy(&d->lock);
  free(d);
}

/* The clock of the probe's rate limit: the kernel's tick-grained one (a few ms resolution,
 * fine for 10 ms), which costs a load where CLOCK_MONOTONIC reads the TSC (5 against 38 ns
 * on the VM it was measured on). VipSendDone/VipRecvDone ask twice per call, SOVIA's progress
 * pass makes several such calls per message: 17 clock reads per round trip and side. */
static uint64_t coarse_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The liveness check costs a kill(2); done at most every 10 ms unless forced. */
bool lnic_dead_check(struct lnic_dev *d, bool force) {
  if (d->dead) return true;
  if (atomic_load(&d->win.regs->state) != HW_NIC_RUNNING) {
    d->dead = true;
    return true;
  }
  uint64_t now = coarse_now_ns();
  if (!force && now - d->last_alive_check < 10000000u) return false;
  d->last_alive_check = now;
  if (!hwin_nic_alive(&d->win)) d->dead = true;
  return d->dead;
}

int lnic_alive(struct lnic_dev *d) {
  if (!d) return -EINVAL;
  return lnic_dead_check(d, true) ? -EPIPE : 0;
}

bool lnic_is_dead(struct lnic_dev *d) { return lnic_dead_check(d, false); }

volatile struct hostif_vi *lnic_hostif_vi(struct lnic_dev *d, unsigned idx) {
  if (idx >= HOSTIF_NVI) return NULL;
  return (volatile struct hostif_vi *)(void *)(d->win.sram + HOSTIF_VI_ADDR(idx));
}

volatile struct hostif_counters *lnic_hostif_counters(struct lnic_dev *d) {
  return (volatile struct hostif_counters *)(void *)(d->win.sram + HOSTIF_COUNTERS_ADDR);
}

void lnic_lock(struct lnic_dev *d) {
  pthread_mutex_lock(&d->lock);
  lnic_vt_call(d);
}
void lnic_unlock(struct lnic_dev *d) { pthread_mutex_unlock(&d->lock); }
uint64_t lnic_now_ns(void) { return futex_now_ns(); }
