/* The wait/wake protocol over a window's register page: waking, spinning, futex sleeps
 * (one window for hosts, several at once for the NIC process), liveness. See wait.h. */
#define _GNU_SOURCE
#include "wait.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "futex.h"
#include "window.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32 0x02
#endif

void wait_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

uint64_t wait_spin_env(const char *var, uint64_t dflt_ns) {
  const char *e = getenv(var);
  if (!e || !*e) return dflt_ns;
  long long us = strtoll(e, NULL, 10);
  if (us <= 0) return 0;
  return (uint64_t)us >= WAIT_SPIN_MAX_NS / 1000 ? WAIT_SPIN_MAX_NS : (uint64_t)us * 1000;
}

void wait_wake_nic(struct hw_regs *r) {
  atomic_fetch_add(&r->nic_seq, 1);
  if (atomic_load(&r->nic_sleeping)) futex_wake(&r->nic_seq);
}

void wait_wake_hosts(struct hw_regs *r) {
  atomic_fetch_add(&r->host_seq, 1);
  if (atomic_load(&r->host_waiters)) futex_wake(&r->host_seq);
}

/* Wakes the sleepers on bits, if one announced itself; clear: takes their announcement (only
 * a waker whose host_irq bits are already up may: iface/README.md). */
static void wake_bits(struct hw_regs *r, uint32_t bits, bool clear) {
  atomic_fetch_add(&r->host_seq, 1);
  if (!bits || !atomic_load(&r->host_waiters)) return;
  if (!(atomic_load(&r->host_wait_bits) & bits)) return;   /* nobody sleeps on these */
  if (clear) atomic_fetch_and(&r->host_wait_bits, ~bits);   /* sleepers that go on announce again */
  futex_wake_bits(&r->host_seq, bits);
}

void wait_wake_hosts_bits(struct hw_regs *r, uint32_t bits) { wake_bits(r, bits, true); }

void wait_poke_hosts(struct hw_regs *r, uint32_t bits) { wake_bits(r, bits, false); }

bool wait_nic_gone(struct hw_regs *r) {
  if (atomic_load(&r->state) != HW_NIC_RUNNING) return true;
  pid_t pid = (pid_t)r->nic_pid;
  return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

/* --- host side ------------------------------------------------------------------------ */

/* Takes the mask's bits if one is up; the bits taken (0 if another taker was first). */
static uint32_t take(struct hw_regs *r, uint32_t mask) {
  if (!(atomic_load_explicit(&r->host_irq, memory_order_acquire) & mask)) return 0;
  return atomic_fetch_and(&r->host_irq, ~mask) & mask;
}

/* Spins until bits are taken, the NIC stops or spin_ns pass: the bits, or 0. */
static uint32_t spin_take(struct hw_regs *r, uint32_t mask, uint64_t start, uint64_t spin_ns) {
  for (unsigned i = 1; spin_ns; i++) {
    uint32_t bits = take(r, mask);
    if (bits) return bits;
    if (i % WAIT_CLOCK_EVERY == 0 &&
        (atomic_load_explicit(&r->state, memory_order_relaxed) != HW_NIC_RUNNING ||
         futex_now_ns() - start >= spin_ns))
      return 0;
    wait_relax();
  }
  return 0;
}

static int signal_wait(struct hw_regs *r, uint32_t mask, int64_t timeout_ns, uint64_t spin_ns,
                       bool (*gone)(void *ctx), void *ctx, uint32_t *got, bool once) {
  uint32_t bits = take(r, mask);
  uint64_t start = futex_now_ns();
  if (timeout_ns >= 0 && (uint64_t)timeout_ns < spin_ns) spin_ns = (uint64_t)timeout_ns;
  if (!bits) bits = spin_take(r, mask, start, spin_ns);
  while (!bits) {
    uint32_t seq = atomic_load(&r->host_seq);
    if ((bits = take(r, mask))) break;
    if (gone ? gone(ctx) : wait_nic_gone(r)) return -EPIPE; /* the probe: only before a sleep */
    uint64_t waited = futex_now_ns() - start;
    if (timeout_ns >= 0 && waited >= (uint64_t)timeout_ns) return -ETIMEDOUT;
    int64_t slice = WAIT_SLICE_NS;
    if (timeout_ns >= 0 && (uint64_t)timeout_ns - waited < (uint64_t)slice)
      slice = (int64_t)((uint64_t)timeout_ns - waited);
    atomic_fetch_add(&r->host_waiters, 1);
    atomic_fetch_or(&r->host_wait_bits, mask);
    int rc = -EAGAIN;
    if (!(atomic_load(&r->host_irq) & mask)) rc = futex_wait_bits(&r->host_seq, seq, slice, mask);
    atomic_fetch_sub(&r->host_waiters, 1);
    if (!once || rc == -EAGAIN || rc == -ETIMEDOUT) continue;
    if ((bits = take(r, mask))) break;
    return rc == -EINTR ? -EINTR : -EAGAIN;   /* a signal, or our bits went to another waiter */
  }
  if (got) *got = bits;
  return 0;
}

int wait_signal(struct hw_regs *r, uint32_t mask, int64_t timeout_ns, uint64_t spin_ns,
                bool (*gone)(void *ctx), void *ctx, uint32_t *got) {
  return signal_wait(r, mask, timeout_ns, spin_ns, gone, ctx, got, false);
}

int wait_signal_once(struct hw_regs *r, uint32_t mask, int64_t timeout_ns, uint64_t spin_ns,
                     bool (*gone)(void *ctx), void *ctx, uint32_t *got) {
  return signal_wait(r, mask, timeout_ns, spin_ns, gone, ctx, got, true);
}

/* --- NIC side ------------------------------------------------------------------------- */

static bool stopped(const struct wait_set *s) { return s->stop && *s->stop; }

bool wait_doorbell_pending(const struct wait_set *s) {
  for (unsigned i = 0; i < s->n; i++)
    if (atomic_load_explicit(&s->r[i]->db_pending, memory_order_relaxed)) return true;
  return false;
}

bool wait_doorbell_spin(const struct wait_set *s, uint64_t due, uint64_t until) {
  for (unsigned i = 1;; i++) {
    if (wait_doorbell_pending(s) || stopped(s)) return true;
    if (i % WAIT_CLOCK_EVERY == 0) {
      uint64_t now = futex_now_ns();
      if (now >= due) return true;
      if (now >= until) return false;
    }
    wait_relax();
  }
}

static bool waitv_missing; /* the kernel has no futex_waitv (before Linux 5.16) */

static void sleep_all(struct futex_waitv *w, unsigned n, uint64_t deadline) {
  struct timespec ts = {(time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull)};
  if (syscall(SYS_futex_waitv, w, n, 0, deadline == UINT64_MAX ? NULL : &ts, CLOCK_MONOTONIC) <
          0 &&
      errno == ENOSYS)
    waitv_missing = true;
}

/* Without futex_waitv: the first window's futex, in slices short enough for the rest. */
static void sleep_first(struct futex_waitv *w, uint64_t deadline) {
  uint64_t now = futex_now_ns();
  int64_t t = deadline > now ? (int64_t)(deadline - now) : 0;
  futex_wait((_Atomic uint32_t *)(uintptr_t)w[0].uaddr, (uint32_t)w[0].val,
                t < 1000000 ? t : 1000000);
}

void wait_doorbell_sleep(const struct wait_set *s, uint64_t deadline) {
  wait_doorbell_sleep_seq(s, NULL, deadline);
}

void wait_doorbell_sleep_seq(const struct wait_set *s, const uint32_t *seq, uint64_t deadline) {
  struct futex_waitv w[WAIT_SET_MAX];
  for (unsigned i = 0; i < s->n; i++) {
    atomic_store(&s->r[i]->nic_sleeping, 1);  /* announced before the last look */
    w[i] = (struct futex_waitv){.val = seq ? seq[i] : atomic_load(&s->r[i]->nic_seq),
                                .uaddr = (uint64_t)(uintptr_t)&s->r[i]->nic_seq,
                                .flags = FUTEX2_SIZE_U32};
  }
  if (s->n && (seq || !wait_doorbell_pending(s)) && !stopped(s)) {
    if (!waitv_missing) sleep_all(w, s->n, deadline);
    if (waitv_missing) sleep_first(w, deadline);
  }
  for (unsigned i = 0; i < s->n; i++) atomic_store(&s->r[i]->nic_sleeping, 0);
}

int wait_doorbell(const struct wait_set *s, uint64_t spin_ns, int64_t timeout_ns) {
  uint64_t start = futex_now_ns();
  uint64_t end = timeout_ns < 0 ? UINT64_MAX : start + (uint64_t)timeout_ns;
  uint64_t spin_end = end - start < spin_ns ? end : start + spin_ns;
  wait_doorbell_spin(s, end, spin_end);
  for (;;) {
    if (wait_doorbell_pending(s)) return 1;
    if (stopped(s) || futex_now_ns() >= end) return 0;
    wait_doorbell_sleep(s, end);
  }
}
