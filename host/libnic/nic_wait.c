/* Blocking until the NIC signals: iface/wait.c's protocol, spinning for
 * $VERINIC_HOST_SPIN_US microseconds (default 0: one look, then sleep; why in iface/wait.h),
 * with this device's rate-limited liveness probe (a kill(2) at most every 10 ms). A stopped
 * or vanished NIC is -EPIPE. */
#include <errno.h>

#include "nic_internal.h"
#include "wait.h"

#define LNIC_UNTIL_SPIN 2000  /* looks at the condition before the first sleep */

static bool gone(void *d) { return lnic_dead_check(d, false); }

static int host_wait(struct lnic_dev *d, uint32_t vi_mask, int64_t timeout_ns, bool once) {
  static _Atomic int64_t spin = -1;   /* read from the environment once */
  if (!d || !vi_mask) return -EINVAL;
  if (lnic_vt_on(d)) return lnic_vt_wait(d, vi_mask, timeout_ns);
  int64_t s = atomic_load_explicit(&spin, memory_order_relaxed);
  if (s < 0) {
    s = (int64_t)wait_spin_env(WAIT_HOST_SPIN_ENV, WAIT_HOST_SPIN_NS);
    atomic_store_explicit(&spin, s, memory_order_relaxed);
  }
  return once ? wait_signal_once(d->win.regs, vi_mask, timeout_ns, (uint64_t)s, gone, d, NULL)
              : wait_signal(d->win.regs, vi_mask, timeout_ns, (uint64_t)s, gone, d, NULL);
}

int lnic_wait(struct lnic_dev *d, uint32_t vi_mask, int64_t timeout_ns) {
  return host_wait(d, vi_mask, timeout_ns, false);
}

int lnic_wait_once(struct lnic_dev *d, uint32_t vi_mask, int64_t timeout_ns) {
  return host_wait(d, vi_mask, timeout_ns, true);
}

void lnic_wake(struct lnic_dev *d, uint32_t bits) {
  if (d && bits) wait_poke_hosts(d->win.regs, bits);
}

/* Deadlines in the process's time, so that under nicd --timing a timeout is virtual and the
 * NICs run meanwhile; a signal that never comes (DISPLAY, flags) is polled every step_ns. */
int lnic_wait_until(struct lnic_dev *d, uint32_t mask, int64_t timeout_ns, int64_t step_ns,
                    bool (*ready)(void *), void *arg) {
  if (!d || !mask || !ready || step_ns <= 0) return -EINVAL;
  bool vt = lnic_vt_on(d);
  uint64_t end = lnic_vt_now_ns() + (uint64_t)(timeout_ns > 0 ? timeout_ns : 0);
  for (unsigned spin = 0;; spin++) {
    if (ready(arg)) return 0;
    uint64_t now = lnic_vt_now_ns();
    if (now >= end) return -ETIMEDOUT;
    if (!vt && spin < LNIC_UNTIL_SPIN) continue;
    int64_t left = (int64_t)(end - now);
    if (lnic_wait(d, mask, left < step_ns ? left : step_ns) == -EPIPE) return -EPIPE;
  }
}

struct word_is {
  const volatile uint32_t *word;
  uint32_t want;
};

static bool word_is(void *arg) {
  const struct word_is *w = arg;
  return __atomic_load_n(w->word, __ATOMIC_ACQUIRE) == w->want;
}

int lnic_wait_word(struct lnic_dev *d, uint32_t mask, const volatile uint32_t *word, uint32_t want,
                   int64_t timeout_ns, int64_t step_ns) {
  struct word_is w = {word, want};
  return lnic_wait_until(d, mask, timeout_ns, step_ns, word_is, &w);
}
