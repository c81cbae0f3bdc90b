/* loop.c: nicd's firmware loop: one thread drives every NIC (the in-memory fabric is not
 * thread-safe): move the emulated hardware to the wall clock, run each NIC's firmware
 * dispatcher, and when a pass did nothing, wait. Nothing can then change but a doorbell from
 * a host or the clock reaching the next engine event (timers, transfers, arrivals: the
 * fabric's only writers are these NICs), so the wait watches exactly those: first a short
 * spin on the doorbell words (plain loads, no system call, no firmware pass; at most
 * $VERINIC_NICD_SPIN_US microseconds, default 20), then a sleep on all the NICs' doorbell
 * futexes at once (futex_waitv) until the next event is due (at most 100 ms). A host that
 * rings a doorbell while nicd sleeps wakes it (hwin_doorbell does FUTEX_WAKE when
 * nic_sleeping is set). The clock is read once per pass. Nothing busy-waits for long. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../hw/futex.h"
#include "nicd.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32 0x02
#endif

#define DEFAULT_SPIN_NS 20000ull      /* idle spin before sleeping */
#define MIN_SLEEP_NS 20000ull         /* an event closer than this: spin until it */
#define MAX_SLEEP_NS 100000000ull

static bool waitv_missing;

static void sleep_until(struct nicd *d, uint64_t wall_deadline) {
  struct futex_waitv w[NICD_MAX_NICS];
  bool pending = false;
  for (unsigned i = 0; i < d->n; i++) {
    struct hw_regs *r = nic_window(d->nic[i])->regs;
    atomic_store(&r->nic_sleeping, 1);
    w[i].val = atomic_load(&r->nic_seq);
    w[i].uaddr = (uint64_t)(uintptr_t)&r->nic_seq;
    w[i].flags = FUTEX2_SIZE_U32;
    w[i].__reserved = 0;
  }
  for (unsigned i = 0; i < d->n; i++)
    if (atomic_load(&nic_window(d->nic[i])->regs->db_pending)) pending = true;
  if (!pending && !nicd_stop) {
    if (!waitv_missing) {
      struct timespec ts = {(time_t)(wall_deadline / 1000000000ull),
                            (long)(wall_deadline % 1000000000ull)};
      long rc = syscall(SYS_futex_waitv, w, d->n, 0, &ts, CLOCK_MONOTONIC);
      if (rc < 0 && errno == ENOSYS) waitv_missing = true;
    }
    if (waitv_missing) { /* old kernel: NIC 0's futex, in slices short enough for the rest */
      uint64_t now = hw_mono_ns();
      int64_t t = wall_deadline > now ? (int64_t)(wall_deadline - now) : 0;
      hw_futex_wait(&nic_window(d->nic[0])->regs->nic_seq, (uint32_t)w[0].val,
                    t < 1000000 ? t : 1000000);
    }
  }
  for (unsigned i = 0; i < d->n; i++) atomic_store(&nic_window(d->nic[i])->regs->nic_sleeping, 0);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static uint64_t spin_ns(void) {
  const char *e = getenv("VERINIC_NICD_SPIN_US");
  if (!e || !*e) return DEFAULT_SPIN_NS;
  long long v = strtoll(e, NULL, 10);
  return v <= 0 ? 0 : v > 1000000 ? 1000000000ull : (uint64_t)v * 1000;
}

static bool doorbell_pending(const struct nicd *d) {
  for (unsigned i = 0; i < d->n; i++)
    if (atomic_load_explicit(&nic_window(d->nic[i])->regs->db_pending, memory_order_relaxed))
      return true;
  return false;
}

/* Idle: spins until a doorbell, the wall-clock time `due` (absolute, hw_mono_ns) or `until`;
 * true if the spin ended because something may need a pass. */
static bool spin(const struct nicd *d, uint64_t due, uint64_t until) {
  for (unsigned i = 1;; i++) {
    if (doorbell_pending(d) || nicd_stop) return true;
    if (i % 32 == 0) {
      uint64_t now = hw_mono_ns();
      if (now >= due) return true;
      if (now >= until) return false;
    }
    cpu_relax();
  }
}

void nicd_loop(struct nicd *d) {
  uint64_t spin_for = spin_ns();
  while (!nicd_stop) {
    uint64_t wall = hw_mono_ns(), now = wall - d->t0;
    nic_advance_all(d->nic, d->n, now);
    bool did = false;
    for (unsigned i = 0; i < d->n; i++) did |= fw_poll(&d->fw[i]);
    if (did) continue;
    uint64_t next = NIC_NEVER;
    for (unsigned i = 0; i < d->n; i++) {
      uint64_t t = nic_next_due(d->nic[i]);
      if (t < next) next = t;
    }
    uint64_t due = next == NIC_NEVER ? UINT64_MAX : next + d->t0;   /* wall clock */
    if (due <= wall + MIN_SLEEP_NS) {
      spin(d, due, UINT64_MAX);
      continue;
    }
    if (spin(d, due, wall + spin_for)) continue;
    wall = hw_mono_ns();
    uint64_t wait = due <= wall ? 0 : due - wall > MAX_SLEEP_NS ? MAX_SLEEP_NS : due - wall;
    if (wait) sleep_until(d, wall + wait);
  }
}
