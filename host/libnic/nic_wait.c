/* Blocking until the NIC signals: a short spin on the signal word (plain loads and the CPU's
 * pause hint, no system call: a kill(2) liveness probe or a sched_yield per poll starved the
 * NIC daemon on two cores, and a yield hands the CPU to a CPU-bound neighbour for a whole
 * time slice), then a sleep on its futex (announced in host_waiters, so the NIC wakes us) in
 * slices that also check that the NIC process still exists. The spin lasts
 * $VERINIC_HOST_SPIN_US microseconds (default 0: one look, then sleep). On the shared two-core
 * machine this was measured on, every spin tried (3 to 200 us) made ping-pong latency worse:
 * the spinning host holds a CPU that nicd or the peer needs, and the futex wake-up costs
 * less than that; on an idle multi-core machine a spin of 10-20 us saves the wake-up. A stopped or vanished NIC is -EPIPE. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "futex.h"
#include "nic_internal.h"

#define LIVENESS_SLICE_NS 50000000
#define DEFAULT_SPIN_NS 0

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static uint64_t spin_ns(void) {
  static _Atomic int64_t cached = -1;
  int64_t v = atomic_load_explicit(&cached, memory_order_relaxed);
  if (v < 0) {
    const char *e = getenv("VERINIC_HOST_SPIN_US");
    v = e && *e ? strtoll(e, NULL, 10) * 1000 : DEFAULT_SPIN_NS;
    if (v < 0) v = 0;
    if (v > 1000000000) v = 1000000000;
    atomic_store_explicit(&cached, v, memory_order_relaxed);
  }
  return (uint64_t)v;
}

/* Takes the mask bits if one is up. */
static bool take(struct hw_regs *r, uint32_t mask) {
  if (!(atomic_load_explicit(&r->host_irq, memory_order_acquire) & mask)) return false;
  atomic_fetch_and(&r->host_irq, ~mask);
  return true;
}

int lnic_wait(struct lnic_dev *d, uint32_t vi_mask, int64_t timeout_ns) {
  if (!d || !vi_mask) return -EINVAL;
  struct hw_regs *r = d->win.regs;
  if (take(r, vi_mask)) return 0;
  uint64_t start = hw_mono_ns(), spin = spin_ns();
  if (timeout_ns >= 0 && (uint64_t)timeout_ns < spin) spin = (uint64_t)timeout_ns;
  for (unsigned i = 1; spin; i++) {   /* the spin: the clock only every 64 looks */
    if (take(r, vi_mask)) return 0;
    if (i % 64 == 0) {
      if (atomic_load_explicit(&r->state, memory_order_relaxed) != HW_NIC_RUNNING) break;
      if (hw_mono_ns() - start >= spin) break;
    }
    cpu_relax();
  }
  for (;;) {
    uint32_t seq = atomic_load(&r->host_seq);
    if (take(r, vi_mask)) return 0;
    if (lnic_dead_check(d, false)) return -EPIPE;   /* kill(2) at most every 10 ms */
    uint64_t waited = hw_mono_ns() - start;
    if (timeout_ns >= 0 && waited >= (uint64_t)timeout_ns) return -ETIMEDOUT;
    int64_t slice = LIVENESS_SLICE_NS;
    if (timeout_ns >= 0 && (uint64_t)timeout_ns - waited < (uint64_t)slice)
      slice = (int64_t)((uint64_t)timeout_ns - waited);
    atomic_fetch_add(&r->host_waiters, 1);
    if (!(atomic_load(&r->host_irq) & vi_mask)) hw_futex_wait(&r->host_seq, seq, slice);
    atomic_fetch_sub(&r->host_waiters, 1);
  }
}
