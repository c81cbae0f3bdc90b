/* fw_cpus.h: the firmware on a card with two processors (as the Tigon's), partitioned as
 * esm/tigon/partition.esm partitions the data path: processor 0 takes the host's doorbells and
 * the send side (SDMA, SEND, the send queues' pump, Reliable Delivery's retransmission timer,
 * the PANIC mailbox's timer), processor 1 the receive side (RECV, RDMA, the receive stall
 * timer) and the PANIC VM. Each processor runs fw_cpus_poll with its own board (its own event
 * register). Freestanding. */
#ifndef FW_CPUS_H
#define FW_CPUS_H

#include "fw.h"

/* The event register bits routed to processor 1 (hw/cpus.h, nic_cpus_set); the rest are
 * processor 0's. */
#define FW_CPU1_ISR                                                                           \
  (FWB_ISR_HEAD | FWB_ISR_RECV | FWB_ISR_BUFF | FWB_ISR_WAKE(FW_CH_RDMA) |                     \
   FWB_ISR_TIMER(FW_TIMER_RX))

/* Processor cpu's side of fw_init (which processor 0 runs first), before its first poll:
 * processor 1 unmasks its events on its board; each rings the other's doorbell, so that both
 * run a first pass. */
void fw_cpus_start(struct fw *fw, struct fw_board *b, unsigned cpu);
/* One poll of processor cpu on board b: while it has events, the other processor rang its
 * doorbell or the last pass did something, a pass: processor 0 takes the firmware semaphore,
 * handles its events, pumps the send queues and runs SEND and SDMA until neither moves, and
 * gives the semaphore back; processor 1 handles its events and runs RECV without it, and
 * takes it only to run RDMA and the VM (fw_cpus.c says why that split is safe). If the poll
 * did anything, the processor publishes the counters it keeps and rings the other's doorbell
 * (processor 1 only after work under the semaphore). True if it did anything. */
bool fw_cpus_poll(struct fw *fw, struct fw_board *b, unsigned cpu);

#endif
