/* fw_ack.c: Reliable Delivery between two NICs (WIRE.md, "Acknowledgements and
 * retransmission"). The receiver's ACKs are owed by its Receiver machine (fw_reliab.c: every
 * message delivered, cumulative) and it refuses a message it cannot deliver (NACK naming the
 * message and the reason), breaking the connection on its side. The sender's Sender machine
 * takes the ACKs; on a NACK the sender completes the refused transfer with the peer's reason,
 * those after it DISCONNECTED, and breaks its side; a NACK of reason TRANSPORT is the peer's
 * RESET (its retry limit passed). Acknowledgements are owed per VI, the latest replacing an
 * earlier ACK (cumulative), and sent as local messages when the send queue has room and no
 * later one is about to replace them (ack_may_wait).
 * Freestanding. */
#include "fw_ack.h"

#include "fw_reliab.h"
#include "fw_rq.h"
#include "fw_sq.h"
#include "fw_txlocal.h"
#include "fw_vi.h"

void fw_ack_owe(struct fw *fw, unsigned vi, uint32_t seq, uint16_t node, uint16_t to_vi,
                uint32_t conn, uint8_t nack) {
  struct fw_vi *v = &fw->vi[vi];
  if (v->ack_due && v->nack_status && !nack) return; /* a NACK already owed ends the connection */
  if (!v->ack_due) v->ack_mark = fw->rx_msgs;
  v->ack_due = true;
  v->nack_status = nack;
  v->ack_seq = seq;
  v->ack_node = node;
  v->ack_vi = to_vi;
  v->ack_conn = conn;
  fw_vim_set(&fw->ack_work, vi);
}

static void owe(struct fw *fw, unsigned vi, const struct fw_wire_hdr *h, uint8_t nack) {
  fw_ack_owe(fw, vi, h->seq, h->src_node, h->src_vi, h->conn, nack);
}

void fw_ack_delivered(struct fw *fw, unsigned vi, const struct fw_wire_hdr *h) {
  if (h->flags & FW_WIRE_F_ACKREQ) owe(fw, vi, h, 0);
}

void fw_ack_refuse(struct fw *fw, unsigned vi, const struct fw_wire_hdr *h, uint32_t st) {
  owe(fw, vi, h, (uint8_t)st);
  fw_vi_break(fw, vi);
}

/* The reasons a NACK may carry; anything else from the wire is a transport error. The peer
 * refuses with PROTECTION only an RDMA Write: reported as RDMA_PROT, apart from local faults. */
static uint32_t nack_reason(uint32_t st) {
  if (st == HOSTIF_ST_PROTECTION) return HOSTIF_ST_RDMA_PROT;
  return st == HOSTIF_ST_REMOTE ? st : HOSTIF_ST_DISCONNECTED;
}

void fw_ack_received(struct fw *fw, const struct fw_wire_hdr *h) {
  volatile struct hostif_counters *c = fw_ctr(fw);
  unsigned vi = h->dst_vi;
  if (h->type == FW_WIRE_ACK) {
    fw_count64v(&c->rx_acks);
    if (fw->vi[vi].rel_on) fw_reliab_rx_ack(fw, vi, h->ack);
    else fw_sq_acked(fw, vi, h->ack);
  } else if (h->imm == HOSTIF_ST_TRANSPORT) { /* RESET: the peer's sender gave up */
    fw_count64v(&c->rx_nacks);
    fw_reliab_rx_rst(fw, vi);
  } else {
    fw_count64v(&c->rx_nacks);
    fw_sq_refused(fw, vi, h->ack, nack_reason(h->imm));
  }
}

/* Whether an ACK may wait: while RDMA moves a message that is whole in SRAM (and so finishes
 * with nothing more from the network), whose finish may owe a later ACK that replaces this
 * one, until FW_ACK_HOLD messages have finished since it was owed. A stream is then
 * acknowledged once per burst, or per FW_ACK_HOLD messages, not per message, as real NICs
 * coalesce; a lone message, and the last of a burst, at once. NACKs never wait. RDMA is shared
 * state on two processors (fw_cpus.c: under the semaphore, as this pump), and processor 1
 * kicks processor 0 after it, so the pump looks again once RDMA has moved on. */
static bool ack_may_wait(const struct fw *fw, const struct fw_vi *v) {
  if (v->nack_status || fw->rx_msgs - v->ack_mark >= FW_ACK_HOLD) return false;
  return fw_rq_draining(fw);
}

void fw_ack_pump(struct fw *fw) {
  for (unsigned vi = fw_vim_next(&fw->ack_work, 1); vi < HOSTIF_NVI;
       vi = fw_vim_next(&fw->ack_work, vi + 1)) {
    struct fw_vi *v = &fw->vi[vi];
    if (ack_may_wait(fw, v)) continue;
    struct fw_wire_hdr h = {0};
    h.type = v->nack_status ? FW_WIRE_NACK : FW_WIRE_ACK;
    h.dst_node = v->ack_node;
    h.src_vi = (uint16_t)vi;
    h.dst_vi = v->ack_vi;
    h.conn = v->ack_conn;
    h.ack = v->ack_seq;
    h.imm = v->nack_status;
    if (!fw_txlocal_queue(fw, &h, 0)) return; /* the send queue is full: later */
    v->ack_due = false;
    v->nack_status = 0;
    fw_vim_clear(&fw->ack_work, vi);
  }
}
