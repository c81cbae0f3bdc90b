/* loop.c: nicd's firmware loop: move the emulated hardware to the wall clock, run each NIC's
 * firmware dispatcher (or a slice of its LANai processor, lanai.c), and when a pass did
 * nothing, wait. The NICs are split into parts (--threads), each run by one thread; the
 * in-memory fabric lets each node be driven by its own thread (hw/memfab.h).
 * Nothing can change a part's NICs but a doorbell from a host, a frame from another part, or
 * the clock reaching the next engine event (timers, transfers, arrivals), so the wait
 * (iface/wait.h) watches exactly those: first a short spin on the doorbell words (no firmware
 * pass; at most $VERINIC_NICD_SPIN_US microseconds, default 20), then a sleep on the part's
 * doorbell futexes at once until the next event is due (at most 100 ms). A frame for another
 * part raises db_pending of that part's own register page (in its wait set), and wakes it if
 * it sleeps. The clock is read once per pass. Over UDP (--udp, one part) datagrams arrive
 * from outside too: udpwake.c's thread wakes the sleep through a page of its own in the wait
 * set, the loop then drains the socket, and the frames the passes sent leave in one batch
 * (udpfab_flush) before the loop waits, or after 20 us of busy passes. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "futex.h"
#include "fw_dispatch.h"
#include "../hw/udpfab.h"
#include "nicd.h"
#include "wait.h"
#include "window.h"

#define MIN_SLEEP_NS 20000ull         /* an event closer than this: spin until it */
#define MAX_SLEEP_NS 100000000ull
#define FLUSH_EVERY_NS 20000ull

_Static_assert(NICD_MAX_NICS + 2 <= WAIT_SET_MAX, "a part waits on its windows and two pages");

struct part {
  struct nicd *d;
  unsigned first, n;            /* its NICs: d->nic[first .. first + n) */
  struct hw_regs *wake;         /* raised by other parts' frames for its NICs (NULL: one part) */
  pthread_t thr;
};

static struct part parts[NICD_MAX_NICS];
static unsigned part_of[NICD_MAX_NICS];   /* by NIC index */
static _Thread_local const struct part *self;

/* Over UDP: frames waiting in the socket go to the fabric's queues (next_due drains). */
static void udp_in(struct nicd *d) {
  if (d->udp && udpwake_take(d->wake)) fabric_next_due(d->fab, d->node[0], FAB_ANY);
}

static void wake_part(struct part *p) {
  if (!atomic_exchange(&p->wake->db_pending, 1)) wait_wake_nic(p->wake);
}

/* memfab's arrival hook: a frame for a NIC of another part wakes that part. */
static void on_arrival(void *ctx, uint16_t dst) {
  int i = nicd_local(ctx, dst);
  if (i >= 0 && &parts[part_of[i]] != self) wake_part(&parts[part_of[i]]);
}

/* memfab's cut-through: a frame for a NIC this thread drives goes straight from the sender's
 * SRAM into its receive engine, when that engine would take it next (nic_recv_direct). */
static bool on_deliver(void *ctx, const struct hw_link_hdr *h, const void *payload) {
  struct nicd *d = ctx;
  int i = nicd_local(d, h->dst);
  return i >= 0 && &parts[part_of[i]] == self && nic_recv_direct(d->nic[i], h, payload);
}

static bool pass(struct nicd *d, unsigned i) {
  return d->lanai      ? lanai_run(&d->cpu[i], i) | (d->cpus == 2 && lanai_run(&d->cpu1[i], i))
         : d->cpus == 2 ? nicd_cpus2_pass(d, i)
                        : fw_dispatch_poll(&d->fw[i]);
}

static void run_part(const struct part *p) {
  struct nicd *d = p->d;
  self = p;
  uint64_t spin_for = wait_spin_env(WAIT_NICD_SPIN_ENV, WAIT_NICD_SPIN_NS);
  struct wait_set ws = {.n = p->n, .stop = &nicd_stop};
  for (unsigned i = 0; i < p->n; i++) ws.r[i] = nic_window(d->nic[p->first + i])->regs;
  if (d->udp) ws.r[ws.n++] = d->wake;
  if (p->wake) ws.r[ws.n++] = p->wake;
  struct nic **nics = &d->nic[p->first];
  uint64_t flushed = 0;
  while (!nicd_stop) {
    if (p->wake) atomic_exchange(&p->wake->db_pending, 0);   /* before the fabric is read */
    udp_in(d);
    uint64_t wall = futex_now_ns(), now = wall - d->t0;
    nic_advance_all(nics, p->n, now);
    bool did = false;
    for (unsigned i = p->first; i < p->first + p->n; i++) did |= pass(d, i);
    /* What the passes sent leaves before any wait, and while busy at least every
     * FLUSH_EVERY_NS, so a busy loop batches its datagrams without holding one back long. */
    if (d->udp && (!did || wall - flushed >= FLUSH_EVERY_NS)) {
      udpfab_flush(d->fab);
      flushed = wall;
    }
    if (did) continue;
    uint64_t next = NIC_NEVER;
    for (unsigned i = 0; i < p->n; i++) {
      uint64_t t = nic_next_due(nics[i]);
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

static void *part_main(void *arg) {
  run_part(arg);
  return NULL;
}

/* Parts of nearly equal size, in NIC order: a pair of NICs that talk (a benchmark's two
 * ends, NICs 0 and 1) lands in two parts when there are two. */
static void split(struct nicd *d, unsigned k) {
  for (unsigned j = 0, first = 0; j < k; j++) {
    unsigned n = d->n / k + (j < d->n % k);
    parts[j] = (struct part){.d = d, .first = first, .n = n};
    for (unsigned i = first; i < first + n; i++) part_of[i] = j;
    first += n;
  }
}

void nicd_loop(struct nicd *d) {
  unsigned k = d->threads < 1 ? 1 : d->threads > d->n ? d->n : d->threads;
  split(d, k);
  if (!d->udp) memfab_set_deliver(d->fab, on_deliver, d);
  if (k == 1) {
    run_part(&parts[0]);
    return;
  }
  for (unsigned j = 0; j < k; j++) {
    parts[j].wake = calloc(1, sizeof *parts[j].wake);
    if (!parts[j].wake) {
      fprintf(stderr, "nicd: --threads: out of memory; one thread runs every NIC\n");
      for (unsigned i = 0; i < j; i++) free(parts[i].wake);
      split(d, 1);
      run_part(&parts[0]);
      return;
    }
  }
  memfab_set_arrival(d->fab, on_arrival, d);
  sigset_t s, old;   /* SIGTERM and SIGINT end the sleep of the main thread, which runs part 0 */
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  pthread_sigmask(SIG_BLOCK, &s, &old);
  unsigned started = 1;
  for (; started < k; started++)
    if (pthread_create(&parts[started].thr, NULL, part_main, &parts[started]) != 0) break;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (started < k) {
    fprintf(stderr, "nicd: --threads: cannot start a thread; stopping\n");
    nicd_stop = 1;
  }
  run_part(&parts[0]);
  for (unsigned j = 1; j < started; j++) {
    wake_part(&parts[j]);
    pthread_join(parts[j].thr, NULL);
  }
  memfab_set_arrival(d->fab, NULL, NULL);
  for (unsigned j = 0; j < k; j++) free(parts[j].wake);
}
