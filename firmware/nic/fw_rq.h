/* fw_rq.h: NIC-side VIA, receive side (fw_rq.c): classification, receive descriptor matching,
 * reassembly, RDMA Write, completions. Freestanding. */
#ifndef FW_RQ_H
#define FW_RQ_H

#include "fw.h"

/* Decides where the message in receive buffer buf goes (its header parsed): rxi[buf].verdict,
 * drop_reason and the host pieces. RDMA's first host DMA on the buffer calls it. */
void fw_rq_classify(struct fw *fw, unsigned buf);
/* The message in receive buffer buf is complete (rx_complete): judged, delivered or dropped,
 * its descriptor completed, an ACK or NACK owed. */
void fw_rq_finish(struct fw *fw, unsigned buf);
/* The good message in receive buffer buf is delivered: counted, its transfer continued or its
 * descriptor completed (fw_rq_finish; on a reliable VI, the Receiver's `deliver`). */
void fw_rq_deliver(struct fw *fw, unsigned buf);
/* Completes the VI's next receive slot (status, length, immediate data, flags) and signals
 * the host: at once when the status is not DONE, else through fw_rq_signal_pump. */
void fw_rq_complete(struct fw *fw, unsigned vi, uint32_t st, uint32_t len, uint32_t imm,
                    uint16_t flags);
/* Completes every receive descriptor posted on the VI FLUSHED (its connection broke): at most
 * a ring's worth, and none when the host's producer index is not within a ring of the
 * firmware's (the entry holds a VI created since). */
void fw_rq_flush(struct fw *fw, unsigned vi);
/* Whether RDMA is moving a message that is whole in SRAM: it finishes with nothing more
 * from the network. */
bool fw_rq_draining(const struct fw *fw);
/* Raises the host signals of the receive completions held, unless they may wait longer
 * (fw_rq.c). The dispatcher calls it on every pass; on two processors processor 0, under
 * the semaphore (RDMA's state is shared), kicked by processor 1 after its locked work. */
/*@ requires fw_ok(fw);
    assigns fw->sig_held;
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_rq_signal_pump(struct fw *fw);

#endif
