/* Timing mode on the host side (nicd --timing; iface/window.h's struct hw_vt, WINDOW.md):
 * this process is a logical process of nicd's discrete-event simulation. Its virtual time
 * grows by the profile's cost of each library call (lnic_lock) and memcpy, and jumps to the
 * time nicd signalled it plus the wake-up cost when a wait ends. Before each call touches the
 * NIC it waits until nicd has done everything up to its time (conservative synchronisation),
 * and its slot tells nicd not to pass that time meanwhile; so what the call sees and does is
 * the same on every run, however loaded the machine. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "futex.h"
#include "nic_internal.h"
#include "wait.h"

#define VT_MAX_DEVS 8
#define VT_SPIN 2000               /* looks at done_ns before a futex sleep */

static _Atomic uint64_t vt_h;     /* this process's virtual time */
static _Atomic unsigned vt_ndev;
static struct lnic_dev *_Atomic vt_dev[VT_MAX_DEVS];

bool lnic_vt_on(const struct lnic_dev *d) { return d && atomic_load(&d->win.regs->vt.on); }

uint64_t lnic_vt_now_ns(void) {
  return atomic_load(&vt_ndev) ? atomic_load(&vt_h) : futex_now_ns();
}

static struct hw_vt_slot *slot_of(struct lnic_dev *d) {
  return d->vt_slot ? &d->win.regs->vt.slot[d->vt_slot - 1] : NULL;
}

static bool caught_up(struct hw_regs *r, uint64_t h) { return atomic_load(&r->vt.done_ns) >= h; }
static bool has_booted(struct hw_regs *r, uint64_t h) { (void)h; return atomic_load(&r->vt.booted); }

/* Waits until done(r, h) or nicd stops: VT_SPIN looks, then sleeps on host_seq. */
static void await_nicd(struct lnic_dev *d, bool (*done)(struct hw_regs *, uint64_t), uint64_t h) {
  struct hw_regs *r = d->win.regs;
  for (unsigned i = 0;; i++) {
    uint32_t seq = atomic_load(&r->host_seq);
    if (done(r, h) || atomic_load(&r->state) != HW_NIC_RUNNING) return;
    if (i < VT_SPIN) {
      wait_relax();
      continue;
    }
    if (lnic_dead_check(d, false)) return;
    atomic_fetch_add(&r->host_waiters, 1);
    atomic_fetch_or(&r->host_wait_bits, ~0u);   /* a plain futex wait: every bit */
    if (!done(r, h)) futex_wait(&r->host_seq, seq, 10000000);
    atomic_fetch_sub(&r->host_waiters, 1);
  }
}

/* The first call on a timing-mode device claims a slot; the process starts at nicd's time. */
static struct hw_vt_slot *claim(struct lnic_dev *d) {
  struct hw_vt *vt = &d->win.regs->vt;
  for (unsigned i = 0; i < HW_VT_SLOTS; i++) {
    int32_t free_pid = 0;
    if (!atomic_compare_exchange_strong(&vt->slot[i].pid, &free_pid, (int32_t)getpid())) continue;
    atomic_store(&vt->slot[i].state, HW_VT_OUTSIDE);
    d->vt_slot = (int)i + 1;
    /* one that came while the NICs were booting starts once they have: at the same virtual
     * time however early it came */
    await_nicd(d, has_booted, 0);
    unsigned n = atomic_fetch_add(&vt_ndev, 1);
    if (n < VT_MAX_DEVS) atomic_store(&vt_dev[n], d);
    return &vt->slot[i];
  }
  fprintf(stderr, "libnic: timing mode: all %d host slots of %s are taken\n", HW_VT_SLOTS,
          d->devname);
  return NULL;
}

void lnic_vt_forget(struct lnic_dev *d) {
  unsigned n = atomic_load(&vt_ndev);
  for (unsigned i = 0; i < n && i < VT_MAX_DEVS; i++)
    if (atomic_load(&vt_dev[i]) == d) {
      unsigned last = (n < VT_MAX_DEVS ? n : VT_MAX_DEVS) - 1;
      atomic_store(&vt_dev[i], atomic_load(&vt_dev[last]));
      atomic_store(&vt_dev[last], NULL);
      atomic_store(&vt_ndev, n - 1);
      return;
    }
}

static void raise_h(uint64_t t) {
  uint64_t h = atomic_load(&vt_h);
  while (h < t && !atomic_compare_exchange_weak(&vt_h, &h, t)) {}
}

/* A process using several NICs of one nicd has one virtual time: the slot of the device it
 * works with speaks for it, the others bound nothing meanwhile (nicd's bound is over all its
 * windows). */
static void others_outside(struct lnic_dev *d) {
  unsigned n = atomic_load(&vt_ndev);
  for (unsigned i = 0; i < n && i < VT_MAX_DEVS; i++) {
    struct lnic_dev *o = atomic_load(&vt_dev[i]);
    struct hw_vt_slot *s = o && o != d ? slot_of(o) : NULL;
    if (s && atomic_load(&s->state) != HW_VT_OUTSIDE) {
      atomic_store(&s->state, HW_VT_OUTSIDE);
      wait_wake_nic(o->win.regs);
    }
  }
}

/* RUNNING at this process's time, then wait until nicd is done up to it. */
static void sync_to(struct lnic_dev *d, struct hw_vt_slot *s) {
  struct hw_regs *r = d->win.regs;
  if (atomic_load(&s->state) != HW_VT_RUNNING) raise_h(atomic_load(&r->vt.done_ns));
  uint64_t h = atomic_load(&vt_h);
  atomic_store(&s->t_ns, h);
  atomic_store(&s->state, HW_VT_RUNNING);
  others_outside(d);
  if (caught_up(r, h)) return;
  wait_wake_nic(r);
  await_nicd(d, caught_up, h);
}

void lnic_vt_call(struct lnic_dev *d) {
  if (!lnic_vt_on(d)) return;
  struct hw_vt_slot *s = slot_of(d);
  if (!s && !(s = claim(d))) return;
  atomic_fetch_add(&vt_h, d->win.regs->vt.call_ns);
  sync_to(d, s);
}

void lnic_vt_copy(size_t bytes) {
  struct lnic_dev *d = atomic_load(&vt_ndev) ? atomic_load(&vt_dev[0]) : NULL;
  if (!d || !d->win.regs->vt.copy_bps) return;
  atomic_fetch_add(&vt_h, (uint64_t)((unsigned __int128)bytes * 1000000000u / d->win.regs->vt.copy_bps));
}

/* Connection set-up and teardown are not simulated (nicd's connection manager acts at once):
 * before one, the process lets the simulated NICs run this long, so that what is in flight
 * (the last message's acknowledgement) lands before a disconnection flushes the VI. */
#define VT_SETTLE_NS 2000000ull

void lnic_vt_settle(void) {
  struct lnic_dev *d = atomic_load(&vt_ndev) ? atomic_load(&vt_dev[0]) : NULL;
  struct hw_vt_slot *s = d ? slot_of(d) : NULL;
  if (!s) return;
  atomic_fetch_add(&vt_h, VT_SETTLE_NS);
  sync_to(d, s);
}

void lnic_vt_outside(bool on) {
  unsigned n = atomic_load(&vt_ndev);
  if (on) lnic_vt_settle();
  for (unsigned i = 0; i < n && i < VT_MAX_DEVS; i++) {
    struct lnic_dev *d = atomic_load(&vt_dev[i]);
    struct hw_vt_slot *s = d ? slot_of(d) : NULL;
    if (!s) continue;
    if (on) {
      atomic_store(&s->state, HW_VT_OUTSIDE);
      wait_wake_nic(d->win.regs);
    } else {
      sync_to(d, s);
    }
  }
}

/* Takes the mask's bits if one is up. */
static uint32_t take(struct hw_regs *r, uint32_t mask) {
  if (!(atomic_load(&r->host_irq) & mask)) return 0;
  return atomic_fetch_and(&r->host_irq, ~mask) & mask;
}

int lnic_vt_wait(struct lnic_dev *d, uint32_t mask, int64_t timeout_ns) {
  struct hw_regs *r = d->win.regs;
  struct hw_vt_slot *s = slot_of(d);
  if (!s && !(s = claim(d))) return -EAGAIN;
  sync_to(d, s);
  if (take(r, mask)) return 0;
  uint64_t h = atomic_load(&vt_h);
  atomic_store(&s->mask, mask);
  atomic_store(&s->until_ns, timeout_ns < 0 ? UINT64_MAX : h + (uint64_t)timeout_ns);
  atomic_store(&s->state, HW_VT_WAITING);
  others_outside(d);
  wait_wake_nic(r);
  for (unsigned i = 0;; i++) {
    uint32_t seq = atomic_load(&r->host_seq);
    if (atomic_load(&s->state) == HW_VT_RUNNING) break;
    if (atomic_load(&r->state) != HW_NIC_RUNNING) return -EPIPE;
    if (i < VT_SPIN) {
      wait_relax();
      continue;
    }
    if (lnic_dead_check(d, false)) return -EPIPE;
    atomic_fetch_add(&r->host_waiters, 1);
    atomic_fetch_or(&r->host_wait_bits, ~0u);   /* a plain futex wait: every bit */
    if (atomic_load(&s->state) != HW_VT_RUNNING) futex_wait(&r->host_seq, seq, 10000000);
    atomic_fetch_sub(&r->host_waiters, 1);
  }
  raise_h(atomic_load(&s->t_ns));
  sync_to(d, s); /* nicd may still be short of the wake-up time: what follows must see it all */
  return take(r, mask) ? 0 : -ETIMEDOUT;
}
