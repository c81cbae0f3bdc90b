/* fw_dgram.h: a datagram's IPv4 and UDP headers (the datagram tail, WIRE.md "Datagrams"),
 * built and checked from the payload sums the host DMA engines computed (fw_dgram.c).
 * Freestanding. */
#ifndef FW_DGRAM_H
#define FW_DGRAM_H

#include "fw.h"

/* The send message in buffer buf has all its payload in SRAM and its trailer written: a
 * datagram's message adds its payload sum to the datagram's, and its last one gets the tail
 * after the trailer. Contract assumed by fw-hal-hdma (proofs/README.md). */
/*@ requires fw_ok(fw) && buf < FW_NSBUF;
    assigns fw->vi[0 .. HOSTIF_NVI - 1].dg_tx_sum,
            fw->sram[FW_SBUF_ADDR(buf) .. FW_SBUF_ADDR(buf) + FW_BUF_STRIDE - 1];
    ensures fw_ok(fw); */
void fw_dgram_tx_sealed(struct fw *fw, unsigned buf);

/* For a datagram message in receive buffer buf that passed every other check: its payload
 * sum added to its datagram's (ri->sum) and, at its last message, the tail checked.
 * FW_DROP_NONE, or FW_DROP_MALFORMED (a tail that is no IPv4/UDP header of this datagram) or
 * FW_DROP_CHECKSUM (the UDP checksum fails). Nothing changes until the message is
 * delivered (fw_dgram_rx_take). */
unsigned fw_dgram_rx_check(struct fw *fw, unsigned buf);
/* The datagram message in receive buffer buf is delivered: its sum counts. */
void fw_dgram_rx_take(struct fw *fw, unsigned buf);

#endif
