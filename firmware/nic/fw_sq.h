/* fw_sq.h: NIC-side VIA, send queues (fw_sq.c): doorbells, descriptor fetch, splitting into
 * messages, completions in ring order. Its handlers carry the dispatcher's handler contract (fw_ok kept, fw.h).
 * Freestanding. */
#ifndef FW_SQ_H
#define FW_SQ_H

#include "fw_sram.h"

/* Doorbell vi: the VI has new send work. */
/*@ requires fw_ok(fw) && vi < HOSTIF_NVI;
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_sq_doorbell(struct fw *fw, unsigned vi);
/* Splits the new descriptors of the VIs with work into messages, round-robin, as far as the
 * send pipeline has room; sends the ACKs and NACKs due first. It also counts descriptors that
 * fail validation (protection_errors, format_errors). */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1], *fw_counters(fw->sram);
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_sq_pump(struct fw *fw);
/* tx_complete for a message of a send queue: counts it, and completes its descriptor when it
 * was the last. */
void fw_sq_msg_done(struct fw *fw, struct fw_txe *e);
/* The peer acknowledged every message of the VI up to and including seq; or refused the
 * transfer holding seq with status st (the connection is broken). */
void fw_sq_acked(struct fw *fw, unsigned vi, uint32_t seq);
void fw_sq_refused(struct fw *fw, unsigned vi, uint32_t seq, uint32_t st);
/* Sends of the VI awaiting an acknowledgement complete with status st (their connection is
 * gone: no acknowledgement can come). */
/*@ requires fw_sram_ok(fw) && vi < HOSTIF_NVI;
    assigns fw->vi[vi], fw->ack_watch, fw->sram[HOSTIF_VI_ADDR(vi) .. fw_sram_vi_end(vi) - 1]; */
void fw_sq_unack_all(struct fw *fw, unsigned vi, uint32_t st);

#endif
