/* fw_dispatch.c: the event dispatcher, the firmware's main loop body (as in Tigon and GM
 * firmware: hardware events become firmware events, handlers run to completion).
 *
 * ISR bit            -> what the firmware does                  -> ESM event (datapath.esm)
 * SEND               send DMA finished a fragment               -> send_done
 * WAKE0 (SDMA chan)  host->SRAM chain done: fold checksum       -> sdma_done
 * WAKE1 (RDMA chan)  SRAM->host chain done: fold checksum       -> rdma_done
 * HEAD, RECV, BUFF   receive engine progress / end of message   -> recv_frag (coalesced)
 * TIMER0             a message stopped arriving: abort it       -> recv_frag
 * HOST_SIG           doorbells: VIs with new send work; the     -> doorbell, one per message
 *                    pump splits descriptors into messages
 * The bits are taken in the ESM events' priority order (completions before new work), each
 * cleared before its hardware state is read so that no edge is lost; then the data path runs
 * until no transition is enabled (datapath_step picks the highest-priority pending event).
 * The firmware's own events (tx_wake, rdma_wake, rx_completed) are raised by the machines and
 * the HAL. Freestanding. */
#include "fw.h"

#define FW_ISR_RX (FWB_ISR_HEAD | FWB_ISR_RECV | FWB_ISR_BUFF)

static void count_bits(struct fw *fw, uint32_t bits) {
  for (unsigned b = 0; b < 14; b++)
    if (bits & (1u << b)) fw->isr_handled[b]++;
}

static void handle(struct fw *fw, uint32_t ev) {
  struct fw_board *b = fw->board;
  count_bits(fw, ev);
  if (ev & FWB_ISR_SEND) {
    fwb_isr_clear(b, FWB_ISR_SEND);
    if (!datapath_raise(&fw->dp, datapath_EV_send_done)) fw->faults++;
  }
  if (ev & FWB_ISR_WAKE(FW_CH_SDMA)) {
    fwb_isr_clear(b, FWB_ISR_WAKE(FW_CH_SDMA));
    fw_hdma_wake(fw, FW_CH_SDMA);
  }
  if (ev & FWB_ISR_WAKE(FW_CH_RDMA)) {
    fwb_isr_clear(b, FWB_ISR_WAKE(FW_CH_RDMA));
    fw_hdma_wake(fw, FW_CH_RDMA);
  }
  if (ev & FW_ISR_RX) {
    fwb_isr_clear(b, ev & FW_ISR_RX);
    fw_rx_progress(fw);
  }
  if (ev & FWB_ISR_TIMER(FW_TIMER_RX)) {
    fwb_isr_clear(b, FWB_ISR_TIMER(FW_TIMER_RX));
    fw_rx_tick(fw);
  }
  if (ev & FWB_ISR_HOST_SIG) {
    fwb_isr_clear(b, FWB_ISR_HOST_SIG);
    uint32_t db = fwb_doorbells_take(b);
    for (unsigned i = 0; i < HOSTIF_NVI; i++)
      if (db & (1u << HOSTIF_DOORBELL_VI(i))) fw_sq_doorbell(fw, i);
    if (db & (1u << HOSTIF_DOORBELL_PANIC)) fw_vm_doorbell(fw); /* the PANIC VM's mailbox */
  }
  if (ev & FWB_ISR_TIMER(FW_TIMER_VM)) { /* a command forwarded to a peer is overdue */
    fwb_isr_clear(b, FWB_ISR_TIMER(FW_TIMER_VM));
    fw_vm_tick(fw);
  }
  uint32_t rest = ev & ~(FWB_ISR_SEND | FWB_ISR_WAKE(FW_CH_SDMA) | FWB_ISR_WAKE(FW_CH_RDMA) |
                         FW_ISR_RX | FWB_ISR_TIMER(FW_TIMER_RX) | FWB_ISR_HOST_SIG |
                         FWB_ISR_TIMER(FW_TIMER_VM));
  if (rest) fwb_isr_clear(b, rest); /* LINK_DOWN, MEMORY: counted only */
}

static void publish_counters(struct fw *fw) {
  volatile struct hostif_counters *c = fw_ctr(fw);
  for (unsigned e = 0; e < datapath_NEVENTS && e < 32; e++) c->events[e] = fw->dp.dispatched[e];
  c->hdma_busy_ns = fwb_hdma_busy_ns(fw->board);
  c->send_busy_ns = fwb_send_busy_ns(fw->board);
}

bool fw_poll(struct fw *fw) {
  bool did = false;
  for (;;) {
    bool any = false;
    uint32_t ev = fwb_events(fw->board);
    if (ev) {
      handle(fw, ev);
      any = true;
    }
    uint32_t queued = fw->tx_head;
    fw_sq_pump(fw);
    fw_vm_pump(fw);
    if (fw->tx_head != queued) any = true;
    if (datapath_run(&fw->dp, 0xffffffffu)) any = true;
    if (!any) break;
    did = true;
  }
  if (did) publish_counters(fw);
  return did;
}
