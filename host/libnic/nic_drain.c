/* The L1 drainer: E-UDP's two-level queue refills the NIC's ring from the interrupt handler
 * of each completion. In user space that is a thread, started the first time a queue
 * overflows into L1: it sleeps on the window's host signal word (without taking the signal
 * bits, which belong to the program's waiters), and at a NIC signal of a VI with L1
 * descriptors moves them into the ring slots the NIC freed. With nothing in L1 it sleeps on a
 * condition variable. Without it, a receive queue whose program is busy elsewhere would leave
 * the NIC with empty rings while thousands of descriptors wait in L1.
 * It stands in for the program, and is no second waiter on the fast path: while the program
 * calls libnic (VIPL drains every queue at each post, poll and wake-up) the drainer sleeps
 * DRAIN_ACTIVE_NS on its condition variable and looks again; only when the program made no
 * drain for that long does it sleep on the signals, and then only on those of the VIs with
 * L1 descriptors (the futex's bit set). Woken at every completion as well, it cost the
 * ping-pong a third of its time (a second thread woken, the device lock contended). Under
 * nicd --timing it still wakes at every signal: its locks cost virtual time, and when they
 * come must not depend on real time. */
#include <errno.h>
#include <time.h>

#include "futex.h"
#include "nic_internal.h"

#define DRAIN_SLICE_NS 2000000   /* liveness and lost wake-ups: at most this long asleep */
#define DRAIN_ACTIVE_NS 1000000  /* a program that drained within this is left to it */

static void sleep_cond(struct lnic_dev *d, long ns) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += ns;
  if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
  pthread_cond_timedwait(&d->drain_cond, &d->lock, &ts);
}

static void *drainer_main(void *arg) {
  struct lnic_dev *d = arg;
  struct hw_regs *r = d->win.regs;
  lnic_lock(d);
  uint64_t seen = d->drains;   /* drains up to the drainer's last */
  while (!d->drainer_stop && !d->dead) {
    bool active = d->drains != seen;   /* the program drained since */
    uint32_t seq = atomic_load(&r->host_seq);
    uint32_t mask = lnic_drain_all(d);
    seen = d->drains;
    if (!mask) {
      d->drainer_idle = true;
      pthread_cond_wait(&d->drain_cond, &d->lock);
      d->drainer_idle = false;
      continue;
    }
    if (active && !lnic_vt_on(d)) {   /* timing mode: each lock costs virtual time */
      sleep_cond(d, DRAIN_ACTIVE_NS);
      continue;
    }
    if (lnic_vt_on(d)) mask = ~0u;   /* timing mode: woken as every waiter of nic_vt.c is */
    lnic_unlock(d);
    atomic_fetch_add(&r->host_waiters, 1);
    atomic_fetch_or(&r->host_wait_bits, mask);
    futex_wait_bits(&r->host_seq, seq, DRAIN_SLICE_NS, mask);
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
    if (lnic_thread_start(&d->drainer, false, drainer_main, d) != 0) return;   /* callers drain */
    d->drainer_running = true;
  }
  if (d->drainer_idle) pthread_cond_signal(&d->drain_cond);   /* else it looks by itself */
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
