/* loop.c: nicd's firmware loop: one thread drives every NIC (the in-memory fabric is not
 * thread-safe): move the emulated hardware to the wall clock, run each NIC's firmware
 * dispatcher, and when nothing happened poll briefly, then sleep on all the NICs' doorbell
 * futexes at once (futex_waitv) until the next engine event is due (at most 100 ms). A host
 * that rings a doorbell while nicd sleeps wakes it (hwin_doorbell does FUTEX_WAKE when
 * nic_sleeping is set). Nothing busy-waits for long. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
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

#define IDLE_POLLS   2000             /* empty passes before sleeping */
#define MIN_SLEEP_NS 50000ull         /* closer than this, keep polling */
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

void nicd_loop(struct nicd *d) {
  unsigned idle = 0;
  while (!nicd_stop) {
    uint64_t now = hw_mono_ns() - d->t0;
    nic_advance_all(d->nic, d->n, now);
    bool did = false;
    for (unsigned i = 0; i < d->n; i++) did |= fw_poll(&d->fw[i]);
    if (did) {
      idle = 0;
      continue;
    }
    uint64_t next = NIC_NEVER;
    for (unsigned i = 0; i < d->n; i++) {
      uint64_t t = nic_next_due(d->nic[i]);
      if (t < next) next = t;
    }
    now = hw_mono_ns() - d->t0;
    if (next <= now + MIN_SLEEP_NS || ++idle < IDLE_POLLS) continue;
    idle = 0;
    uint64_t wait = next == NIC_NEVER || next - now > MAX_SLEEP_NS ? MAX_SLEEP_NS : next - now;
    sleep_until(d, hw_mono_ns() + wait);
  }
}
