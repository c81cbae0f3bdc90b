/* loop.c: nicd's firmware loop: one thread drives every NIC (the in-memory fabric is not
 * thread-safe): move the emulated hardware to the wall clock, run each NIC's firmware
 * dispatcher (or a slice of its LANai processor, lanai.c), and when a pass did nothing, wait.
 * Nothing can then change but a doorbell from a host or the clock reaching the next engine
 * event (timers, transfers, arrivals: the fabric's only writers are these NICs), so the wait
 * (iface/wait.h) watches exactly those: first a short spin on the doorbell words (no firmware
 * pass; at most $VERINIC_NICD_SPIN_US microseconds, default 20), then a sleep on all the NICs'
 * doorbell futexes at once until the next event is due (at most 100 ms). The clock is read
 * once per pass. Over UDP (--udp) datagrams arrive from outside too: udpwake.c's thread wakes
 * the sleep through a page of its own in the wait set, the loop then drains the socket, and
 * the frames the passes sent leave in one batch (udpfab_flush) before the loop waits, or after
 * 20 us of busy passes. */
#include <stdint.h>

#include "futex.h"
#include "fw_dispatch.h"
#include "../hw/udpfab.h"
#include "nicd.h"
#include "wait.h"

#define MIN_SLEEP_NS 20000ull         /* an event closer than this: spin until it */
#define MAX_SLEEP_NS 100000000ull
#define FLUSH_EVERY_NS 20000ull

_Static_assert(NICD_MAX_NICS <= WAIT_SET_MAX, "nicd waits on every NIC's window at once");

/* Over UDP: frames waiting in the socket go to the fabric's queues (next_due drains). */
static void udp_in(struct nicd *d) {
  if (d->udp && udpwake_take(d->wake)) fabric_next_due(d->fab, d->node[0], FAB_ANY);
}

void nicd_loop(struct nicd *d) {
  uint64_t spin_for = wait_spin_env(WAIT_NICD_SPIN_ENV, WAIT_NICD_SPIN_NS);
  struct wait_set ws = {.n = d->n, .stop = &nicd_stop};
  for (unsigned i = 0; i < d->n; i++) ws.r[i] = nic_window(d->nic[i])->regs;
  if (d->udp) ws.r[ws.n++] = d->wake;
  uint64_t flushed = 0;
  while (!nicd_stop) {
    udp_in(d);
    uint64_t wall = futex_now_ns(), now = wall - d->t0;
    nic_advance_all(d->nic, d->n, now);
    bool did = false;
    for (unsigned i = 0; i < d->n; i++)
      did |= d->lanai      ? lanai_run(&d->cpu[i], i) | (d->cpus == 2 && lanai_run(&d->cpu1[i], i))
             : d->cpus == 2 ? nicd_cpus2_pass(d, i)
                            : fw_dispatch_poll(&d->fw[i]);
    /* What the passes sent leaves before any wait, and while busy at least every
     * FLUSH_EVERY_NS, so a busy loop batches its datagrams without holding one back long. */
    if (d->udp && (!did || wall - flushed >= FLUSH_EVERY_NS)) {
      udpfab_flush(d->fab);
      flushed = wall;
    }
    if (did) continue;
    uint64_t next = NIC_NEVER;
    for (unsigned i = 0; i < d->n; i++) {
      uint64_t t = nic_next_due(d->nic[i]);
      if (t < next) next = t;
    }
    uint64_t due = next == NIC_NEVER ? UINT64_MAX : next + d->t0;   /* wall clock */
    if (due <= wall + MIN_SLEEP_NS) {
      wait_doorbell_spin(&ws, due, UINT64_MAX);
      continue;
    }
    if (wait_doorbell_spin(&ws, due, wall + spin_for)) continue;
    wall = futex_now_ns();
    uint64_t wait = due <= wall ? 0 : due - wall > MAX_SLEEP_NS ? MAX_SLEEP_NS : due - wall;
    if (wait) wait_doorbell_sleep(&ws, wall + wait);
  }
}
