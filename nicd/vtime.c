/* vtime.c: nicd's timing mode (--timing PROFILE): a discrete-event simulation in virtual
 * time. The actors are each NIC's hardware (engines, timers, arrivals: nic_next_due), each
 * NIC's LANai processor (its time is the cycles the simulator counts at the profile's clock),
 * and the host processes, whose slots in the windows (iface/window.h, struct hw_vt) give their
 * virtual times. The loop always moves the earliest actor, and never past the time of a host
 * process that is RUNNING (it could still post work at that time): there it publishes
 * done_ns, the time up to which everything is done, and sleeps until a host moves. A host
 * WAITING for signal bits bounds nothing; the processor's write of the host signal register
 * makes it RUNNING at that time plus the profile's wake-up cost, and its timeout is an actor
 * too. Nothing depends on the wall clock, so a run gives the same times on any machine.
 * With --cpus 2 each NIC has two processors, each an actor with its own virtual time over the
 * NIC's one SRAM and hardware. --trace writes each engine's and processor's busy intervals
 * (scripts/timeline.sh; a second processor is `cpu1`). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../hw/cpus.h"
#include "../hw/lanai/iss.h"
#include "futex.h"
#include "nicd.h"
#include "wait.h"

#define REAP_NS 100000000ull   /* a blocked loop looks for dead host processes this often */

bool vt_signal(struct hw_regs *r, uint32_t bits, uint64_t t, uint64_t wake_ns) {
  bool woke = false;
  for (unsigned i = 0; i < HW_VT_SLOTS; i++) {
    struct hw_vt_slot *s = &r->vt.slot[i];
    if (atomic_load(&s->state) != HW_VT_WAITING || !(atomic_load(&s->mask) & bits)) continue;
    atomic_store(&s->t_ns, t + wake_ns);
    atomic_store(&s->state, HW_VT_RUNNING);
    woke = true;
  }
  return woke;
}

/* The earliest time a RUNNING host may act at (*bound), and the earliest timeout of a WAITING
 * one (*until); NIC_NEVER when none. */
static void hosts(struct nicd *d, uint64_t *bound, uint64_t *until) {
  *bound = *until = NIC_NEVER;
  for (unsigned n = 0; n < d->n; n++)
    for (unsigned i = 0; i < HW_VT_SLOTS; i++) {
      struct hw_vt_slot *s = &nic_window(d->nic[n])->regs->vt.slot[i];
      if (!atomic_load(&s->pid)) continue;
      uint32_t st = atomic_load(&s->state);
      uint64_t t = st == HW_VT_RUNNING ? atomic_load(&s->t_ns) : atomic_load(&s->until_ns);
      if (st == HW_VT_RUNNING && t < *bound) *bound = t;
      if (st == HW_VT_WAITING && t < *until) *until = t;
    }
}

/* Waits whose timeout is due by t end: the host runs again at its timeout. */
static void expire(struct nicd *d, uint64_t t) {
  for (unsigned n = 0; n < d->n; n++) {
    struct hw_regs *r = nic_window(d->nic[n])->regs;
    for (unsigned i = 0; i < HW_VT_SLOTS; i++) {
      struct hw_vt_slot *s = &r->vt.slot[i];
      if (atomic_load(&s->state) != HW_VT_WAITING || atomic_load(&s->until_ns) > t) continue;
      atomic_store(&s->t_ns, atomic_load(&s->until_ns));
      atomic_store(&s->state, HW_VT_RUNNING);
    }
    wait_wake_hosts(r);
  }
}

/* Slots of processes that died (they would bound the loop forever). */
static void reap(struct nicd *d) {
  for (unsigned n = 0; n < d->n; n++)
    for (unsigned i = 0; i < HW_VT_SLOTS; i++) {
      struct hw_vt_slot *s = &nic_window(d->nic[n])->regs->vt.slot[i];
      int32_t pid = atomic_load(&s->pid);
      if (pid > 0 && vitab_owner_gone(pid)) {
        atomic_store(&s->state, HW_VT_FREE);
        atomic_store(&s->pid, 0);
      }
    }
}

static uint64_t clock_max(struct nicd *d) {
  uint64_t t = 0;
  for (unsigned i = 0; i < d->n; i++)
    if (nic_clock(d->nic[i]) > t) t = nic_clock(d->nic[i]);
  return t;
}

/* ---- the processors: k < d->n is NIC k's (processor 0), k >= d->n NIC k - n's processor 1
 * (--cpus 2) ---- */
static unsigned nprocs(const struct nicd *d) { return d->cpus == 2 ? 2 * d->n : d->n; }
static struct lanai_nic *proc(struct nicd *d, unsigned k) {
  return k < d->n ? &d->cpu[k] : &d->cpu1[k - d->n];
}
/* Its events, or a doorbell from the other processor, wake an idle processor. */
static bool pending(const struct lanai_nic *l) {
  int id = (int)l->bd.id;
  return nic_cpu_events(l->nic, id) != 0 || nic_cpu_kicked(l->nic, id);
}

/* ---- trace: busy intervals of each processor (here) and engine (vt_trace_engine) ---- */
static uint64_t cpu_since[2 * NICD_MAX_NICS];

static void tr_cpu(struct nicd *d, unsigned k, bool busy, uint64_t t) {
  if (!d->vt_trace) return;
  if (busy) cpu_since[k] = t;
  else if (t > cpu_since[k])
    fprintf(d->vt_trace, "%u %s %llu %llu\n", (unsigned)d->node[k % d->n], k < d->n ? "cpu" : "cpu1",
            (unsigned long long)cpu_since[k], (unsigned long long)t);
}

void vt_trace_engine(void *ctx, uint16_t node, enum nic_engine e, uint64_t start, uint64_t end) {
  static const char *const name[NIC_ENG_N] = {"hdma", "send", "recv"};
  struct nicd *d = ctx;
  if (d->vt_trace && e < NIC_ENG_N)
    fprintf(d->vt_trace, "%u %s %llu %llu\n", (unsigned)node, name[e], (unsigned long long)start,
            (unsigned long long)end);
}

/* Everything up to t is done: hosts waiting for it go on; sleep until one of them moves
 * (seq: the windows' nic_seq, read before the loop last looked at the slots). */
static void block(struct nicd *d, struct wait_set *ws, const uint32_t *seq, uint64_t t) {
  for (unsigned i = 0; i < d->n; i++) {
    struct hw_regs *r = nic_window(d->nic[i])->regs;
    atomic_store(&r->vt.done_ns, t);
    atomic_store(&r->vt.booted, 1);
    wait_wake_hosts(r);
  }
  if (d->vt_trace) fflush(d->vt_trace);
  uint64_t start = futex_now_ns();
  wait_doorbell_sleep_seq(ws, seq, start + REAP_NS);
  if (futex_now_ns() - start >= REAP_NS) reap(d);
  /* Doorbells rung meanwhile (at this time) raise their events. */
  for (unsigned i = 0; i < d->n; i++) nic_advance(d->nic[i], nic_clock(d->nic[i]));
}

void nicd_timing_loop(struct nicd *d) {
  struct wait_set ws = {.n = d->n, .stop = &nicd_stop};
  for (unsigned i = 0; i < d->n; i++) ws.r[i] = nic_window(d->nic[i])->regs;
  uint64_t slack = (8ull * 1000000000ull + d->nic_hz - 1) / d->nic_hz; /* 8 cycles */
  uint32_t seq[NICD_MAX_NICS];
  unsigned np = nprocs(d);
  for (unsigned k = 0; k < np; k++) {   /* booting */
    struct lanai_nic *l = proc(d, k);
    l->vt_busy = true;
    tr_cpu(d, k, true, 0);
    l->bd.t0 = 0;
    l->bd.c0 = iss_stats(l->cpu)->cycles;
  }
  while (!nicd_stop) {
    for (unsigned i = 0; i < d->n; i++) seq[i] = atomic_load(&ws.r[i]->nic_seq);
    uint64_t bound, until;
    hosts(d, &bound, &until);
    /* A processor idle since it last found nothing wakes at the first event. */
    for (unsigned k = 0; k < np; k++) {
      struct lanai_nic *l = proc(d, k);
      if (l->faulted || l->vt_busy || !pending(l)) continue;
      l->vt_busy = true;
      if (l->vt_ns < nic_clock(l->nic)) l->vt_ns = nic_clock(l->nic);
      l->bd.t0 = l->vt_ns;
      l->bd.c0 = iss_stats(l->cpu)->cycles;
      tr_cpu(d, k, true, l->vt_ns);
    }
    uint64_t t_hw = NIC_NEVER, t_cpu = NIC_NEVER;
    unsigned ci = 0;
    for (unsigned i = 0; i < d->n; i++) {
      uint64_t t = nic_next_due(d->nic[i]);
      if (t < t_hw) t_hw = t;
    }
    for (unsigned k = 0; k < np; k++) {
      struct lanai_nic *l = proc(d, k);
      if (l->vt_busy && l->vt_ns + slack < t_cpu) t_cpu = l->vt_ns + slack, ci = k;
    }
    uint64_t t_min = t_hw < t_cpu ? t_hw : t_cpu;
    if (until < t_min) t_min = until;
    if (t_min == NIC_NEVER || t_min > bound) {
      uint64_t t = bound == NIC_NEVER ? clock_max(d) : bound;
      if (bound != NIC_NEVER) nic_advance_all(d->nic, d->n, bound);
      block(d, &ws, seq, t);
      continue;
    }
    if (until == t_min) {
      nic_advance_all(d->nic, d->n, until);
      expire(d, until);
      continue;
    }
    if (t_hw == t_min) {
      nic_advance_all(d->nic, d->n, t_hw);
      continue;
    }
    uint64_t limit = bound < t_hw ? bound : t_hw;
    if (until < limit) limit = until;
    for (unsigned k = 0; k < np; k++) {
      struct lanai_nic *o = proc(d, k);
      if (k != ci && o->vt_busy && o->vt_ns + slack < limit) limit = o->vt_ns + slack;
    }
    struct lanai_nic *l = proc(d, ci);
    l->bd.wake_ns = d->wake_ns;
    bool idle = lanai_run_timed(l, d->node[ci % d->n], limit, d->nic_hz);
    if (idle) {
      l->vt_busy = false;
      tr_cpu(d, ci, false, l->vt_ns);
    }
  }
  if (!d->vt_trace) return;
  for (unsigned k = 0; k < np; k++)
    if (proc(d, k)->vt_busy) tr_cpu(d, k, false, proc(d, k)->vt_ns);
  fclose(d->vt_trace);
}
