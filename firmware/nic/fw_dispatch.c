/* fw_dispatch.c: the event dispatcher, the firmware's main loop body (as in Tigon and GM
 * firmware: hardware events become firmware events, handlers run to completion).
 *
 * ISR bits (class)   -> what the firmware does                  -> ESM event (datapath.esm)
 * SEND               send DMA finished a fragment               -> send_done
 * WAKE0 (SDMA chan)  host->SRAM chain done: fold checksum       -> sdma_done
 * WAKE1 (RDMA chan)  SRAM->host chain done: fold checksum       -> rdma_done
 * HEAD, RECV, BUFF   receive engine progress / end of message   -> recv_frag (coalesced)
 * TIMER0             a message stopped arriving: abort it       -> recv_frag
 * HOST_SIG           doorbells: VIs with new send work; the     -> doorbell, one per message
 *                    pump splits descriptors into messages
 * TIMER1             Reliable Delivery: a retransmission       -> timeout (fw_reliab.c)
 *                    deadline passed
 * TIMER2             a PANIC command forwarded to a peer is overdue
 * anything else      counted only (LINK_DOWN, MEMORY)
 * All the bits read are cleared at once, before any handler reads its hardware state, so that
 * an edge that comes later raises its bit again and no edge is lost. Then the classes run in the
 * ESM events' priority order (completions before new work), and the data path runs until no
 * transition is enabled (datapath_step picks the highest-priority pending event). The firmware's
 * own events (tx_wake, rdma_wake, rx_completed) are raised by the machines and the HAL.
 *
 * Proved with Frama-C/WP (module fw-dispatch): the data path invariant holds across every
 * handler and the whole loop, every index is in bounds, every bit read is cleared, and every
 * class has a handler (the class table below; its coverage of the ISR is checked at compile
 * time). Freestanding. */
#include "fw_dispatch.h"

#include "fw_hal_hdma.h"
#include "fw_hal_rx.h"
#include "fw_reliab.h"
#include "fw_rq.h"
#include "fw_sq.h"
#include "fw_vm_ctl.h"

enum fw_isr_class {
  FW_ISR_C_SEND,
  FW_ISR_C_SDMA,
  FW_ISR_C_RDMA,
  FW_ISR_C_RX,
  FW_ISR_C_RX_TIMER,
  FW_ISR_C_DOORBELL,
  FW_ISR_C_VM_TIMER,
  FW_ISR_C_RT_TIMER,
  FW_ISR_NCLASS
};

#define FW_ISR_RX (FWB_ISR_HEAD | FWB_ISR_RECV | FWB_ISR_BUFF)
#define FW_ISR_HANDLED                                                                        \
  (FWB_ISR_SEND | FWB_ISR_WAKE(FW_CH_SDMA) | FWB_ISR_WAKE(FW_CH_RDMA) | FW_ISR_RX |          \
   FWB_ISR_TIMER(FW_TIMER_RX) | FWB_ISR_HOST_SIG | FWB_ISR_TIMER(FW_TIMER_VM) |               \
   FWB_ISR_TIMER(FW_TIMER_RT))

/* Counted only: link and memory errors, and the wakes and timers of channels and timers the
 * dispatcher does not own (the VM waits for its DMA channel itself, fwb_hdma_wait). */
#define FW_ISR_COUNTED                                                                        \
  (FWB_ISR_WAKE(FW_CH_VM) | FWB_ISR_WAKE(3) | FWB_ISR_LINK_DOWN | FWB_ISR_MEMORY)

/* The ISR bits of each class, in priority order. */
static const uint32_t fw_isr_class_bits[FW_ISR_NCLASS] = {
    [FW_ISR_C_SEND] = FWB_ISR_SEND,
    [FW_ISR_C_SDMA] = FWB_ISR_WAKE(FW_CH_SDMA),
    [FW_ISR_C_RDMA] = FWB_ISR_WAKE(FW_CH_RDMA),
    [FW_ISR_C_RX] = FW_ISR_RX,
    [FW_ISR_C_RX_TIMER] = FWB_ISR_TIMER(FW_TIMER_RX),
    [FW_ISR_C_DOORBELL] = FWB_ISR_HOST_SIG,
    [FW_ISR_C_VM_TIMER] = FWB_ISR_TIMER(FW_TIMER_VM),
    [FW_ISR_C_RT_TIMER] = FWB_ISR_TIMER(FW_TIMER_RT),
};

/* The classes are apart (their bits add up to their union) and, with the bits counted only,
 * cover every ISR bit; fw_init unmasks only those. */
_Static_assert(FWB_ISR_SEND + FWB_ISR_WAKE(FW_CH_SDMA) + FWB_ISR_WAKE(FW_CH_RDMA) + FWB_ISR_HEAD +
                       FWB_ISR_RECV + FWB_ISR_BUFF + FWB_ISR_TIMER(FW_TIMER_RX) +
                       FWB_ISR_HOST_SIG + FWB_ISR_TIMER(FW_TIMER_VM) + FWB_ISR_TIMER(FW_TIMER_RT) ==
                   FW_ISR_HANDLED,
               "ISR classes overlap");
_Static_assert((FW_ISR_HANDLED & FW_ISR_COUNTED) == 0 &&
                   (FW_ISR_HANDLED | FW_ISR_COUNTED) == FWB_ISR_ALL,
               "an ISR bit has no class, or two");
_Static_assert(sizeof((struct hostif_counters *)0)->isr ==
                   FWB_ISR_NBITS * sizeof((struct hostif_counters *)0)->isr[0],
               "hostif_counters.isr has one counter per ISR bit");
_Static_assert((FW_ISR_UNMASKED & ~FWB_ISR_ALL) == 0 &&
                   (FW_ISR_HANDLED & ~FW_ISR_UNMASKED) == 0,
               "fw_init's mask and the classes disagree");

/*@ requires fw_ok(fw);
    assigns fw->isr_handled[0 .. FWB_ISR_NBITS - 1]; */
static void count_bits(struct fw *fw, uint32_t bits) {
  /*@ loop invariant 0 <= b <= FWB_ISR_NBITS;
      loop assigns b, fw->isr_handled[0 .. FWB_ISR_NBITS - 1];
      loop variant FWB_ISR_NBITS - b; */
  for (unsigned b = 0; b < FWB_ISR_NBITS; b++)
    if ((bits >> b) & 1u) fw_count64(&fw->isr_handled[b]);
}

/* Doorbell c (1 <= c <= HOSTIF_NCLASS) means a VI of class c (VIs c, c + 15, ...: hostif.h)
 * has new send work; HOSTIF_DOORBELL_PANIC is the VM's mailbox; a host ringing any other
 * doorbell is counted and otherwise ignored. */
/*@ requires fw_ok(fw) && 1 <= c <= HOSTIF_NCLASS;
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
static void ring_class(struct fw *fw, unsigned c) {
  /*@ loop invariant 1 <= vi < HOSTIF_NVI + HOSTIF_NCLASS && fw_ok(fw) && fw_same{Pre, Here}(fw);
      loop assigns vi, *fw, \at(fw->sram, Pre)[0 .. FW_SRAM_END - 1];
      loop variant HOSTIF_NVI - vi; */
  for (unsigned vi = c; vi < HOSTIF_NVI; vi += HOSTIF_NCLASS) fw_sq_doorbell(fw, vi);
}

/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
static void ring_doorbells(struct fw *fw, uint32_t db) {
  /*@ loop invariant 0 <= i <= 32 && fw_ok(fw) && fw_same{Pre, Here}(fw);
      loop assigns i, *fw, \at(fw->sram, Pre)[0 .. FW_SRAM_END - 1];
      loop variant 32 - i; */
  for (unsigned i = 0; i < 32; i++) {
    if (!((db >> i) & 1u)) continue;
    if (i >= 1 && i <= HOSTIF_NCLASS) ring_class(fw, i);
    else if (i == HOSTIF_DOORBELL_PANIC) fw_vm_ctl_doorbell(fw);
    else if (fw->bad_doorbells < UINT32_MAX) /* saturating, on the field itself: WP sees */
      fw->bad_doorbells++;                    /* at once that nothing else changes */
  }
}

/*@ requires fw_ok(fw) && 0 <= c < FW_ISR_NCLASS;
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
static void run_class(struct fw *fw, unsigned c) {
  switch (c) {
  case FW_ISR_C_SEND:
    fwb_class(fw->board, FWB_CLASS_SEND);
    if (!datapath_raise(&fw->dp, datapath_EV_send_done)) fw_fault(fw, HOSTIF_FAULT_RAISE_SEND_DONE);
    break;
  case FW_ISR_C_SDMA:
    fwb_class(fw->board, FWB_CLASS_HDMA);
    fw_hal_hdma_wake(fw, FW_CH_SDMA);
    break;
  case FW_ISR_C_RDMA:
    fwb_class(fw->board, FWB_CLASS_HDMA);
    fw_hal_hdma_wake(fw, FW_CH_RDMA);
    break;
  case FW_ISR_C_RX:
    fwb_class(fw->board, FWB_CLASS_RECV);
    fw_hal_rx_progress(fw);
    break;
  case FW_ISR_C_RX_TIMER:
    fwb_class(fw->board, FWB_CLASS_TIMER);
    fw_hal_rx_tick(fw);
    break;
  case FW_ISR_C_DOORBELL:
    fwb_class(fw->board, FWB_CLASS_DOORBELL);
    ring_doorbells(fw, fwb_doorbells_take(fw->board));
    break;
  case FW_ISR_C_VM_TIMER:
    fwb_class(fw->board, FWB_CLASS_TIMER);
    fw_vm_ctl_tick(fw);
    break;
  case FW_ISR_C_RT_TIMER:
    fwb_class(fw->board, FWB_CLASS_TIMER);
    fw_reliab_tick(fw);
    break;
  default: /*@ assert \false; */ break; /* every class has its case */
  }
}

/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1], fwb_isr_cleared;
    ensures fw_ok(fw) && fw_same{Old, Here}(fw);
    ensures fwb_isr_cleared == (\old(fwb_isr_cleared) | ev); */
static void handle(struct fw *fw, uint32_t ev) {
  count_bits(fw, ev);
  fwb_isr_clear(fw->board, ev);
  /*@ loop invariant 0 <= c <= FW_ISR_NCLASS && fw_ok(fw) && fw_same{Pre, Here}(fw);
      loop invariant fwb_isr_cleared == (\at(fwb_isr_cleared, Pre) | ev);
      loop assigns c, *fw, \at(fw->sram, Pre)[0 .. FW_SRAM_END - 1];
      loop variant FW_ISR_NCLASS - c; */
  for (unsigned c = 0; c < FW_ISR_NCLASS; c++)
    if (ev & fw_isr_class_bits[c]) run_class(fw, c);
}

/*@ requires fw_ok(fw);
    assigns *fw_counters(fw->sram); */
static void publish_counters(struct fw *fw) {
  volatile struct hostif_counters *c = fw_ctr(fw);
  /*@ loop invariant 0 <= e <= datapath_NEVENTS;
      loop assigns e, c->events[0 .. datapath_NEVENTS - 1];
      loop variant datapath_NEVENTS - e; */
  for (unsigned e = 0; e < datapath_NEVENTS && e < 32; e++)
    fw_ctr_set(&c->events[e], fw->dp.dispatched[e]);
  /*@ loop invariant 0 <= b <= FWB_ISR_NBITS;
      loop assigns b, c->isr[0 .. FWB_ISR_NBITS - 1];
      loop variant FWB_ISR_NBITS - b; */
  for (unsigned b = 0; b < FWB_ISR_NBITS; b++) fw_ctr_set(&c->isr[b], fw->isr_handled[b]);
  fw_ctr_set(&c->fw_faults, fw->faults);
  /*@ loop invariant 0 <= i <= HOSTIF_FAULT_N;
      loop assigns i, c->faults[0 .. HOSTIF_FAULT_N - 1];
      loop variant HOSTIF_FAULT_N - i; */
  for (unsigned i = 0; i < HOSTIF_FAULT_N; i++) fw_ctr_set(&c->faults[i], fw->fault_n[i]);
  c->last_fault = FW_LE32(fw->fault_last);
  fw_ctr_set(&c->bad_doorbells, fw->bad_doorbells);
  fw_ctr_set(&c->hdma_busy_ns, fwb_hdma_busy_ns(fw->board));
  fw_ctr_set(&c->send_busy_ns, fwb_send_busy_ns(fw->board));
}

/* The machines run until nothing is enabled; they change only the data path. */
/*@ requires fw_ok(fw);
    assigns fw->dp;
    ensures fw_ok(fw); */
static bool run_machines(struct fw *fw) {
  bool r = datapath_run(&fw->dp, 0xffffffffu) != 0;
  /* fw_bounds spelled out (FW_BOUNDS, fw.h): quick to prove, where fw_bounds itself is slow */
  //@ assert FW_BOUNDS(fw);
  return r;
}

/* The parts for the two-processor firmware (fw_cpus.c); the loop below keeps its own calls. */
void fw_dispatch_events(struct fw *fw, uint32_t ev) { handle(fw, ev); }
void fw_dispatch_publish(struct fw *fw) { publish_counters(fw); }

bool fw_dispatch_poll(struct fw *fw) {
  bool did = false;
  /*@ loop invariant fw_ok(fw) && fw_same{Pre, Here}(fw);
      loop assigns did, *fw, \at(fw->sram, Pre)[0 .. FW_SRAM_END - 1],
                   *fw_counters(\at(fw->sram, Pre)), fwb_isr_cleared; */
  for (;;) {
    bool any = false;
    uint32_t ev = fwb_events(fw->board);
    if (ev) {
      handle(fw, ev);
      any = true;
    }
    uint32_t queued = fw->tx_head;
    /* The VM's forwarded commands first: a host streaming on a VI keeps its send queue full,
     * and would otherwise take every free entry of the send pipeline before them. */
    fw_vm_ctl_pump(fw);
    fw_sq_pump(fw);
    fw_rq_signal_pump(fw);
    if (fw->tx_head != queued) any = true;
    if (run_machines(fw)) any = true;
    if (!any) break;
    did = true;
  }
  if (did) publish_counters(fw);
  /* What follows, until an event is handled, is polling with nothing to do. The machines'
   * work after an event is charged to that event's class (the last one handled). */
  fwb_class(fw->board, FWB_CLASS_IDLE);
  return did;
}
