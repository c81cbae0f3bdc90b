/* fw_cpus.c: the firmware's pass on one of two processors (fw_cpus.h).
 *
 * What the two share is struct fw and the SRAM structures both sides touch: the data path's
 * pending events and the host DMA engine (datapath_t), the send pipeline (a receive raises
 * ACKs and NACKs into it, and an acknowledgement completes sends), the VIs, Reliable
 * Delivery's instances. All of it is under one lock, the card's firmware semaphore
 * (hw/cpus.c, FWB_R_SEM on the LANai card). Processor 0 holds it while it handles events,
 * pumps and runs its machines. Processor 1 holds it only for what reaches the shared state:
 * RDMA (the engine's grant, the receive descriptor it classifies into, the completion,
 * Reliable Delivery's Receiver and Sender) and the PANIC VM. Without it, processor 1 handles
 * its hardware events (the receive engine's progress and the header it parses, RDMA's DMA
 * done, the receive stall timer) and runs RECV: what they touch (fw->rxi, rx_cur, rx_timer,
 * hreq[1], the receive ring rbuf_state/rfill, RECV's variables, the pending counts of its
 * events) no code of processor 0 reads or writes, and nothing there is work for processor 0
 * (esm/tigon/README.md, "In the firmware"). The counters each processor keeps it publishes
 * itself, without the lock (publish_side: every SRAM counter has one writer). The handlers
 * reach the hardware through fw->board, which each pass points at its own board (on the
 * LANai both processors' is the same register page; natively the passes take turns on one
 * thread). Freestanding. */
#include "fw_cpus.h"

#include "fw_dispatch.h"
#include "fw_rq.h"
#include "fw_sq.h"
#include "fw_vm_ctl.h"

_Static_assert((FW_CPU1_ISR & ~FW_ISR_UNMASKED) == 0, "processor 1 handles what fw_init unmasks");

/* Each start rings the other processor's doorbell, so that each runs a first pass whatever
 * happens: its machines' first steps (RECV arms the receive engine there). */
void fw_cpus_start(struct fw *fw, struct fw_board *b, unsigned cpu) {
  (void)fw;
  if (cpu == 1) fwb_imr_set(b, FW_ISR_UNMASKED & FW_CPU1_ISR);
  fwb_kick(b);
}

static unsigned popcount(uint32_t v) {
  unsigned n = 0;
  for (; v; v &= v - 1u) n++;
  return n;
}

/* One transition (and its run to completion) of machine fire: its events in priority order,
 * then its when and acquire transitions, as the generated dispatcher takes them. */
static bool fire_one(datapath_t *s, bool (*fire)(datapath_t *, int), const int *ev, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (s->pending[ev[i]] > 0 && fire(s, ev[i])) return true;
  return fire(s, -1);
}

static const int rdma_ev[] = {datapath_EV_rdma_done, datapath_EV_rx_completed,
                              datapath_EV_rdma_wake};
static const int vm_ev[] = {datapath_EV_vm_ran, datapath_EV_vm_wake};
static const int send_ev[] = {datapath_EV_send_done, datapath_EV_tx_wake};
static const int sdma_ev[] = {datapath_EV_sdma_done, datapath_EV_doorbell};

/* SEND and SDMA until neither moves. */
static unsigned send_side_run(datapath_t *s) {
  unsigned n = 0;
  for (bool moved = true; moved && n < 0xffffu;) {
    moved = false;
    if (fire_one(s, datapath_SEND_fire, send_ev, 2)) moved = true, n++;
    if (fire_one(s, datapath_SDMA_fire, sdma_ev, 2)) moved = true, n++;
  }
  return n;
}

/* Processor 0, under the semaphore: events, pumps, machines. Whether anything happened. */
static bool work0(struct fw *fw, struct fw_board *b, uint32_t ev) {
  bool any = ev != 0;
  fwb_lock(b);
  fw->board = b;
  if (ev) fw_dispatch_events(fw, ev);
  uint32_t queued = fw->tx_head;
  fw_vm_ctl_pump(fw);
  fw_sq_pump(fw);
  fw_rq_signal_pump(fw);
  if (fw->tx_head != queued) any = true;
  unsigned steps = send_side_run(&fw->dp);
  fwb_unlock(b);
  fw->cpu_steps[0] += steps;
  return any || steps != 0;
}

/* RECV run to completion, without the semaphore: its recv_frag, then its when transitions
 * (arming the next free buffer). It yields at Recv, so each fire is short. */
static unsigned recv_run(struct fw *fw) {
  datapath_t *s = &fw->dp;
  unsigned n = 0;
  for (; n < 0xffffu; n++) {
    bool f = s->pending[datapath_EV_recv_frag] > 0 && datapath_RECV_fire(s, datapath_EV_recv_frag);
    if (!f && !datapath_RECV_fire(s, -1)) break;
  }
  return n;
}

/* Whether RDMA may have a transition to take: an event of its pending, or a state that moves
 * without one (a when or an acquire). */
static bool rdma_due(const datapath_t *s) {
  unsigned r = s->m.RDMA.state;
  return s->pending[datapath_EV_rdma_done] || s->pending[datapath_EV_rx_completed] ||
         s->pending[datapath_EV_rdma_wake] || r == datapath_RDMA_S_Check ||
         r == datapath_RDMA_S_WaitCoarse || r == datapath_RDMA_S_WaitFine ||
         r == datapath_RDMA_S_WaitLast || r == datapath_RDMA_S_Complete;
}

/* The VM likewise. A vm_wake that processor 0 raises after this look comes with its doorbell. */
static bool vm_due(const datapath_t *s) {
  unsigned v = s->m.VM.state;
  return s->pending[datapath_EV_vm_ran] || s->pending[datapath_EV_vm_wake] ||
         v == datapath_VM_S_Check || v == datapath_VM_S_WantDma;
}

/* RDMA and the VM, under the semaphore, until neither moves. */
static unsigned shared_run(datapath_t *s) {
  unsigned n = 0;
  for (bool moved = true; moved && n < 0xffffu;) {
    moved = false;
    if (rdma_due(s) && fire_one(s, datapath_RDMA_fire, rdma_ev, 3)) moved = true, n++;
    if (vm_due(s) && fire_one(s, datapath_VM_fire, vm_ev, 2)) moved = true, n++;
  }
  return n;
}

/* Processor 1: its events and RECV without the semaphore, RDMA and the VM under it (*locked
 * then), and RECV again for the buffers RDMA freed. Whether anything happened. */
static bool work1(struct fw *fw, struct fw_board *b, uint32_t ev, bool *locked) {
  bool any = ev != 0;
  if (ev) fw_dispatch_events(fw, ev);
  unsigned steps = recv_run(fw);
  if (rdma_due(&fw->dp) || vm_due(&fw->dp)) {
    *locked = true;
    fwb_lock(b);
    fw->board = b;
    unsigned n = shared_run(&fw->dp);
    fwb_unlock(b);
    if (n) steps += n + recv_run(fw);
  }
  fw->cpu_steps[1] += steps;
  return any || steps != 0;
}

/* The counters of hostif_counters that processor cpu keeps: the data path's events its
 * machines handle, the event register bits routed to it, its own counts; processor 0 also
 * the firmware's faults, unknown doorbells and the engines' busy time. Written by it alone,
 * so without the semaphore. A counter still 0 is skipped: fw_init cleared it in SRAM (on the
 * LANai each 64-bit store is a byte swap, and most event bits and fault ids never count). */
static void publish_side(struct fw *fw, unsigned cpu) {
  volatile struct hostif_counters *c = fw_ctr(fw);
  for (unsigned e = 0; e < datapath_NEVENTS && e < 32; e++)
    if (fw->dp.dispatched[e] && datapath_event_on((int)cpu, (int)e))
      fw_ctr_set(&c->events[e], fw->dp.dispatched[e]);
  uint32_t mine = cpu ? FW_CPU1_ISR : ~(uint32_t)FW_CPU1_ISR;
  for (unsigned i = 0; i < FWB_ISR_NBITS; i++)
    if (((mine >> i) & 1u) && fw->isr_handled[i]) fw_ctr_set(&c->isr[i], fw->isr_handled[i]);
  fw_ctr_set(&c->cpu_isr[cpu], fw->cpu_isr[cpu]);
  fw_ctr_set(&c->cpu_steps[cpu], fw->cpu_steps[cpu]);
  fw_ctr_set(&c->cpu_passes[cpu], fw->cpu_passes[cpu]);
  if (cpu) return;
  if (fw->faults) {
    fw_ctr_set(&c->fw_faults, fw->faults);
    for (unsigned i = 0; i < HOSTIF_FAULT_N; i++)
      if (fw->fault_n[i]) fw_ctr_set(&c->faults[i], fw->fault_n[i]);
    c->last_fault = FW_LE32(fw->fault_last);
  }
  if (fw->bad_doorbells) fw_ctr_set(&c->bad_doorbells, fw->bad_doorbells);
  fw_ctr_set(&c->hdma_busy_ns, fwb_hdma_busy_ns(fw->board));
  fw_ctr_set(&c->send_busy_ns, fwb_send_busy_ns(fw->board));
}

bool fw_cpus_poll(struct fw *fw, struct fw_board *b, unsigned cpu) {
  if (cpu > 1) return false;
  bool did = false, locked = false;
  /* After a pass that did something, one more: its machines may have freed what the pumps
   * wait for (as fw_dispatch_poll loops). */
  for (bool again = false;;) {
    uint32_t ev = fwb_events(b);
    bool kicked = fwb_kicked(b);
    if (!ev && !kicked && !again) break;
    fw->cpu_isr[cpu] += popcount(ev);
    fw->cpu_passes[cpu]++;
    fw->board = b;
    /* Out of the idle class before the next EVENTS read: timing mode takes a read that finds
     * nothing while idle for the end of the poll, and the doorbell that ends it would be lost. */
    fwb_class(b, cpu ? FWB_CLASS_RECV : FWB_CLASS_DOORBELL);
    bool any;
    if (cpu == 1) {
      any = work1(fw, b, ev, &locked);
    } else {
      any = work0(fw, b, ev);
      locked = true;
    }
    if (!any) break;
    again = did = true;
  }
  if (did) {
    /* Processor 1's work without the semaphore is none of processor 0's business. */
    if (locked) fwb_kick(b);
    publish_side(fw, cpu);
  }
  fwb_class(b, FWB_CLASS_IDLE);
  return did;
}
