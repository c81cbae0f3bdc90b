/* Blocking until the NIC signals. Not hwin_wait_irq: its poll phase makes a liveness system
 * call per iteration, and on a two-core machine the NIC daemon and both ends of a ping-pong
 * spinning at once starve each other. Here: a short poll of the signal word (plain loads),
 * then a sleep on its futex (announced in host_waiters, so the NIC wakes us), in slices that
 * also check that the NIC process still exists. A stopped or vanished NIC is -EPIPE. */
#include <errno.h>
#include <sched.h>

#include "futex.h"
#include "nic_internal.h"

#define WAIT_POLLS 200
#define LIVENESS_SLICE_NS 50000000

int lnic_wait(struct lnic_dev *d, uint32_t vi_mask, int64_t timeout_ns) {
  if (!d || !vi_mask) return -EINVAL;
  struct hw_regs *r = d->win.regs;
  uint64_t start = hw_mono_ns();
  for (unsigned spin = 0;; spin++) {
    uint32_t seq = atomic_load(&r->host_seq);
    if (atomic_load(&r->host_irq) & vi_mask) {
      atomic_fetch_and(&r->host_irq, ~vi_mask);
      return 0;
    }
    if (lnic_dead_check(d, spin > WAIT_POLLS)) return -EPIPE;
    uint64_t waited = hw_mono_ns() - start;
    if (timeout_ns >= 0 && waited >= (uint64_t)timeout_ns) return -ETIMEDOUT;
    if (spin < WAIT_POLLS) {
      if (spin % 32 == 31) sched_yield();   /* let the NIC daemon run on a busy machine */
      continue;
    }
    int64_t slice = LIVENESS_SLICE_NS;
    if (timeout_ns >= 0 && (uint64_t)timeout_ns - waited < (uint64_t)slice)
      slice = (int64_t)((uint64_t)timeout_ns - waited);
    atomic_fetch_add(&r->host_waiters, 1);
    if (!(atomic_load(&r->host_irq) & vi_mask)) hw_futex_wait(&r->host_seq, seq, slice);
    atomic_fetch_sub(&r->host_waiters, 1);
  }
}
