/* fw_ack.h: Reliable Delivery between two NICs (fw_ack.c, WIRE.md "Acknowledgements and
 * retransmission").
 * Freestanding. */
#ifndef FW_ACK_H
#define FW_ACK_H

#include "fw.h"

/* Owes the VI's peer (node, to_vi, under stamp conn) an ACK of message seq, or a NACK with
 * status nack (not 0), replacing an ACK owed before; a NACK owed stays. */
void fw_ack_owe(struct fw *fw, unsigned vi, uint32_t seq, uint16_t node, uint16_t to_vi,
                uint32_t conn, uint8_t nack);
/* A good DATA/RDMA_WRITE message for a reliable VI has been delivered; or one was refused
 * (st: the status the sender reports). Queues the ACK or NACK and, for a NACK, breaks the
 * connection on this side. */
void fw_ack_delivered(struct fw *fw, unsigned vi, const struct fw_wire_hdr *h);
void fw_ack_refuse(struct fw *fw, unsigned vi, const struct fw_wire_hdr *h, uint32_t st);
/* An ACK or NACK arrived (header checked, addressed to a VI connected to its sender). */
void fw_ack_received(struct fw *fw, const struct fw_wire_hdr *h);
/* Sends the ACKs and NACKs that are due, as far as the send queue has room. */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_ack_pump(struct fw *fw);

#endif
