/* The L1 drainer: E-UDP's two-level queue refills the NIC's ring from the interrupt handler
 * of each completion. In user space that is a thread, started the first time a queue
 * overflows into L1: it sleeps on the window's host signal word (without taking the signal
 * bits, which belong to the program's waiters), and at every NIC signal moves L1 descriptors
 * into the ring slots the NIC freed. With nothing in L1 it sleeps on a condition variable.
 * Without it, a receive queue whose program is busy elsewhere would leave the NIC with
 * empty rings while thousands of descriptors wait in L1. */
#include <errno.h>

#include "futex.h"
#include "nic_internal.h"

#define DRAIN_SLICE_NS 2000000   /* liveness and lost wake-ups: at most this long asleep */

static void *drainer_main(void *arg) {
  struct lnic_dev *d = arg;
  struct hw_regs *r = d->win.regs;
  lnic_lock(d);
  while (!d->drainer_stop && !d->dead) {
    uint32_t seq = atomic_load(&r->host_seq);
    uint32_t mask = lnic_drain_all(d);
    if (!mask) {
      pthread_cond_wait(&d->drain_cond, &d->lock);
      continue;
    }
    lnic_unlock(d);
    atomic_fetch_add(&r->host_waiters, 1);
    futex_wait(&r->host_seq, seq, DRAIN_SLICE_NS);
    atomic_fetch_sub(&r->host_waiters, 1);
    lnic_dead_check(d, false);
    lnic_lock(d);
  }
  lnic_unlock(d);
  return NULL;
}

void lnic_drainer_kick(struct lnic_dev *d) {
  if (d->dead || d->drainer_stop) return;
  if (!d->drainer_running) {
    if (pthread_create(&d->drainer, NULL, drainer_main, d) != 0) return;   /* callers drain */
    d->drainer_running = true;
  }
  pthread_cond_signal(&d->drain_cond);
}

void lnic_drainer_stop(struct lnic_dev *d) {
  lnic_lock(d);
  bool running = d->drainer_running;
  d->drainer_stop = true;
  pthread_cond_signal(&d->drain_cond);
  lnic_unlock(d);
  if (running) pthread_join(d->drainer, NULL);
  d->drainer_running = false;
}
