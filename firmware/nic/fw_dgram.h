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

/* For a datagram message in receive buffer buf that passed every other check: at its
 * datagram's last message, the tail checked against the datagram's payload sum
 * (fw_dgram_rx_sum). FW_DROP_NONE, or FW_DROP_MALFORMED (a tail that is no IPv4/UDP header of
 * this datagram) or FW_DROP_CHECKSUM (the UDP checksum fails). */
unsigned fw_dgram_rx_check(struct fw *fw, unsigned buf);
/* The payload sum of the datagram up to and with the message in ri (its context's sum of
 * the messages before, and the sum the host DMA engine took of this one). */
uint16_t fw_dgram_rx_sum(const struct fw *fw, const struct fw_rxi *ri);

#endif
