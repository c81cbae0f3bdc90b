/* fw_reliab.h: Reliable Delivery's retransmission (fw_reliab.c): the runtime that runs one
 * instance of the esmc-generated Sender and Receiver (esm/reliab, gen/reliab) per VI, and the
 * HAL those machines call. Freestanding. */
#ifndef FW_RELIAB_H
#define FW_RELIAB_H

#include "fw.h"
#include "fw_vi.h"

/* a is before b, modulo FW_NSEQ (the two within half the sequence space of each other). */
static inline bool fw_reliab_seq_lt(uint32_t a, uint32_t b) {
  return ((b - a) & (FW_NSEQ - 1u)) != 0 && ((b - a) & (FW_NSEQ - 1u)) < FW_NSEQ / 2u;
}

/* At boot: every instance idle. */
void fw_reliab_init(struct fw *fw);
/* The VI's entry names a new connection (or none): a reliable, connected one gets a fresh
 * instance (sequence numbers from 0); anything else stops it. */
void fw_reliab_reset(struct fw *fw, unsigned vi, const struct fw_vi_view *w);
/* The receiver's side, for the classification of a DATA or RDMA_WRITE message: the sequence
 * number it takes next. */
uint32_t fw_reliab_expect(const struct fw *fw, unsigned vi);
/* A DATA or RDMA_WRITE message for the VI was judged (fw_rq.c): intact or not, its seq. The
 * Receiver takes it if it is the next in order (calling fw_rq_deliver for receive buffer buf)
 * and owes an ACK; a duplicate or one ahead owes the last ACK again. */
void fw_reliab_rx_data(struct fw *fw, unsigned vi, uint32_t seq, bool intact, unsigned buf);
/* The peer reset the connection (a NACK of reason TRANSPORT). */
void fw_reliab_rx_rst(struct fw *fw, unsigned vi);
/* An ACK naming message `ack` arrived for the VI. */
void fw_reliab_rx_ack(struct fw *fw, unsigned vi, uint32_t ack);
/* The send queue put the message the Sender asked for on the send pipeline. (The ACK the
 * Receiver owes is taken as it is owed: reliab_hal_ack_send.) */
void fw_reliab_tx_taken(struct fw *fw, unsigned vi);
/* The send queue has a new message to offer (has_new may have become true). */
void fw_reliab_offer(struct fw *fw, unsigned vi);
/* The VI broke (fw_vi_break): the instance stops. */
void fw_reliab_broken(struct fw *fw, unsigned vi);
/* Breaks a reliable connection in the network: sends awaiting an ACK and those not yet sent
 * complete TRANSPORT, the VI goes to ERROR. */
void fw_reliab_transport_break(struct fw *fw, unsigned vi);
/* Timer FW_TIMER_RT expired: the instances whose deadline passed get `timeout`. */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_reliab_tick(struct fw *fw);
/* Sends the RSTs due, as far as the send pipeline has room (before the send queues). */
void fw_reliab_pump(struct fw *fw);

#endif
