/* fw_rq.c: NIC-side VIA, receive side. RDMA handles receive buffers strictly in order, and a
 * buffer is classified when RDMA first touches it, so the VI state it sees is that left by
 * every earlier message. Classification decides where the payload goes:
 *   DATA        the target VI must be CONNECTED to the sender (node from the link, VI from
 *               the header); the first packet of a transfer takes the VI's next receive
 *               descriptor (none posted: drop and count), which is validated like a send
 *               descriptor (a bad one completes with PROTECTION/FORMAT, one too short with
 *               LENGTH, and the transfer is dropped); later packets must continue at the
 *               reassembly offset. The payload goes to the descriptor's segments at msg_off.
 *   RDMA_WRITE  the target VI must allow RDMA Writes (HOSTIF_VI_F_RDMA_WRITE) and the range
 *               rdma_addr + msg_off must lie in one region registered with the VI's protection
 *               tag and the registration key the sender named (rdma_handle, HOSTIF_RDMA_HANDLE),
 *               writable and open to RDMA Writes (hostif.h).
 *   anything else is dropped and counted, and nothing is written to host memory.
 * When the buffer is finished (rx_complete) the message is judged: ended properly, length as
 * the header says, host DMA clean, payload checksum (summed by the host DMA engine as it
 * copied) matching the trailer. A failed packet abandons its transfer: the descriptor is not
 * completed and stays posted for the next transfer. The last packet of a good transfer
 * completes the descriptor (length, immediate data); an RDMA Write with immediate data
 * consumes a receive descriptor at its last packet.
 *   ACK, NACK   from a VI connected to the sender: handed to fw_ack.c.
 *   datagrams   DATA to VI 0 (WIRE.md, "Datagrams"): the VI is the datagram VI bound to the
 *               destination port (the VI table's port words), from any sender; reassembled
 *               in one of the VI's contexts (fw_dgctx.c), several datagrams at once, a
 *               message that continues none dropped (malformed); the last message's tail
 *               (IPv4 and UDP headers) must match and its UDP checksum check over the whole
 *               datagram (fw_dgram.c); the completion names the sender.
 * On a Reliable Delivery VI only the message the Receiver expects next is taken (fw_reliab.c):
 * a duplicate or one ahead is dropped at classification, before any of it moves, and answered
 * with the last ACK again; a damaged one is dropped and sent again by its sender; a delivered
 * one is acknowledged; a refused one (no descriptor, too short, protection) is NACKed with the
 * reason, which breaks the connection (fw_ack.c). Freestanding. */
#include "fw_rq.h"

#include "fw_ack.h"
#include "fw_check.h"
#include "fw_dgctx.h"
#include "fw_dgram.h"
#include "fw_reliab.h"
#include "fw_spine.h"
#include "fw_vi.h"
#include "fw_vm_wire.h"

static void count_drop(struct fw *fw, unsigned reason) {
  volatile struct hostif_counters *c = fw_ctr(fw);
  switch (reason) {
  case FW_DROP_NO_VI: fw_count64v(&c->rx_drop_no_vi); break;
  case FW_DROP_NO_DESC: fw_count64v(&c->rx_drop_no_desc); break;
  case FW_DROP_CHECKSUM: fw_count64v(&c->rx_drop_checksum); break;
  case FW_DROP_PROTECTION: fw_count64v(&c->protection_errors); break;
  case FW_DROP_TRUNCATED: fw_count64v(&c->rx_truncated); break;
  case FW_DROP_DUP: fw_count64v(&c->rx_drop_dup); break;
  case FW_DROP_OOO: fw_count64v(&c->rx_drop_ooo); break;
  default: fw_count64v(&c->rx_drop_malformed); break;
  }
}

void fw_rq_complete(struct fw *fw, unsigned vi, uint32_t st, uint32_t len, uint32_t imm,
                    uint16_t flags) {
  struct fw_vi *v = &fw->vi[vi];
  fw_sram_complete(fw, FW_SLOT_ADDR(vi, rq, v->rq_done), st, len, imm, flags);
  v->rq_done = ring_next(v->rq_done);
  fw_sram_release();
  fw_sram_wr32(fw, FW_RING_CONS(vi, rq), v->rq_done);
  fw_sram_wr32(fw, FW_RING_DONE(vi, rq), v->rq_done);
  if (!fw->sig_held) fw->sig_mark = fw->rx_msgs;
  fw->sig_held |= HOSTIF_SIG_RQ(vi);
  if (st != HOSTIF_ST_DONE) fw_rq_signal_pump(fw); /* errors and flushes at once */
}

bool fw_rq_draining(const struct fw *fw) {
  switch (fw->dp.m.RDMA.state) {
  case datapath_RDMA_S_WaitCoarse: case datapath_RDMA_S_CoarseRdma:
  case datapath_RDMA_S_WaitLast: case datapath_RDMA_S_RdmaLastFragment:
  case datapath_RDMA_S_Complete: case datapath_RDMA_S_Completing:
    return true;
  default:
    return false;
  }
}

/* The host's signal for a receive completion (its interrupt) waits while RDMA moves another
 * message whole in SRAM, until FW_SIG_HOLD messages have finished since the first signal
 * held: a host that sleeps through a stream wakes once per burst, or per FW_SIG_HOLD
 * messages, and takes them all, where it woke once per message (each wake-up a system call
 * of the NIC's and a sleeping thread woken), as real NICs moderate interrupts. A lone
 * message, the last of a burst and a failed receive signal at once; the completion itself
 * is in SRAM at once for a host that polls. */
void fw_rq_signal_pump(struct fw *fw) {
  if (!fw->sig_held) return;
  if (fw_rq_draining(fw) && fw->rx_msgs - fw->sig_mark < FW_SIG_HOLD) return;
  fwb_signal_host(fw->board, fw->sig_held);
  fw->sig_held = 0;
}

/* Snapshot of the VI's next receive descriptor; false if none is posted. A producer index
 * more than a ring ahead is not this VI's (the host re-created it since the firmware last
 * looked): nothing is posted as far as the firmware knows. */
static bool rq_peek(struct fw *fw, unsigned vi, struct hostif_desc *d) {
  struct fw_vi *v = &fw->vi[vi];
  uint32_t prod = fw_sram_rd32(fw, FW_RING_PROD(vi, rq));
  fw_sram_acquire();
  if (!ring_nonempty(prod, v->rq_done) || ring_count(prod, v->rq_done) > HOSTIF_RING) return false;
  fw_sram_desc_in(fw, d, FW_SLOT_ADDR(vi, rq, v->rq_done));
  return true;
}

static bool is_dgram(struct fw *fw, unsigned vi) {
  return fw_sram_rd32(fw, FW_VI_FIELD(vi, flags)) & HOSTIF_VI_F_DGRAM;
}

static void classify_data(struct fw *fw, struct fw_rxi *ri, unsigned vi,
                          const struct fw_vi_view *w) {
  struct fw_vi *v = &fw->vi[vi];
  const struct fw_wire_hdr *h = &ri->hdr;
  if (h->msg_off == 0) {
    if (v->rx_active) { /* the previous transfer never finished */
      v->rx_active = false;
      count_drop(fw, FW_DROP_MALFORMED);
    }
    if (!rq_peek(fw, vi, &v->rdesc)) {
      ri->drop_reason = FW_DROP_NO_DESC;
      return;
    }
    uint32_t st = fw_check_desc(fw, &v->rdesc, w->ptag, false);
    if (st == HOSTIF_ST_DONE && h->msg_len > v->rdesc.length) st = HOSTIF_ST_LENGTH;
    if (st != HOSTIF_ST_DONE) {
      fw_rq_complete(fw, vi, st, 0, 0, 0);
      if (st == HOSTIF_ST_FORMAT) fw_count64v(&fw_ctr(fw)->format_errors);
      ri->drop_reason = st == HOSTIF_ST_LENGTH ? FW_DROP_TRUNCATED : FW_DROP_PROTECTION;
      return;
    }
    v->rx_active = true;
    v->rx_next_off = 0;
    v->rx_msg_len = h->msg_len;
    fw_sram_wr32(fw, FW_RING_CONS(vi, rq), ring_next(v->rq_done));
  } else if (!v->rx_active || h->msg_off != v->rx_next_off || h->msg_len != v->rx_msg_len) {
    ri->drop_reason = FW_DROP_MALFORMED;
    return;
  }
  ri->npiece = (uint8_t)fw_check_pieces(&v->rdesc, h->msg_off, h->len, ri->piece, HOSTIF_MAXSEG);
  ri->verdict = FW_RX_DATA;
}

/* The datagram VI for a datagram to `port` from (node, sport), or 0: the one connected to
 * that sender if there is one, else the first one bound to the port and connected to nobody
 * (a socket connected to another sender takes nothing from this one). */
static unsigned dgram_vi(struct fw *fw, uint16_t port, uint16_t node, uint16_t sport) {
  unsigned any = 0;
  for (unsigned vi = 1; vi < HOSTIF_NVI; vi++) {
    if (fw_sram_rd32(fw, FW_VI_FIELD(vi, state)) != HOSTIF_VI_IDLE) continue;
    fw_sram_acquire();
    if (!(fw_sram_rd32(fw, FW_VI_FIELD(vi, flags)) & HOSTIF_VI_F_DGRAM) ||
        fw_sram_rd32(fw, FW_VI_FIELD(vi, port)) != port ||
        fw_sram_rd32(fw, FW_VI_FIELD(vi, reliability)) != HOSTIF_UNRELIABLE)
      continue;
    uint16_t rn = fw_sram_rd16(fw, FW_VI_FIELD(vi, remote_node));
    uint16_t rp = fw_sram_rd16(fw, FW_VI_FIELD(vi, remote_vi));
    if (rp == 0 && !any) any = vi;
    else if (rp != 0 && rn == node && rp == sport) return vi;
  }
  return any;
}

/* A datagram message: found by port, then reassembled in one of the VI's contexts
 * (fw_dgctx.c). dst_vi in the firmware's copy of the header becomes the VI found, so that what
 * follows treats it as that VI's message. */
static void classify_dgram(struct fw *fw, struct fw_rxi *ri) {
  struct fw_wire_hdr *h = &ri->hdr;
  uint16_t port = (uint16_t)(h->rdma_handle >> 16), sport = (uint16_t)h->rdma_handle;
  ri->drop_reason = FW_DROP_NO_VI;
  if (h->rdma_addr != 0 || (h->flags & FW_WIRE_F_ACKREQ) || h->msg_len > HOSTIF_DGRAM_MAX) {
    ri->drop_reason = FW_DROP_MALFORMED;
    return;
  }
  unsigned vi = port ? dgram_vi(fw, port, h->src_node, sport) : 0;
  if (!vi) return;
  struct fw_vi_view w;
  fw_vi_sync(fw, vi, &w);
  if (w.state != HOSTIF_VI_IDLE) return;
  struct fw_vi *v = &fw->vi[vi];
  h->dst_vi = (uint16_t)vi;
  ri->vi_gen = w.gen;
  ri->vi_key = v->conn_key;
  ri->vi_conn = v->conn;
  ri->drop_reason = FW_DROP_NONE;
  fw_dgctx_classify(fw, ri, vi, &w);
}

static void classify_rdma(struct fw *fw, struct fw_rxi *ri, const struct fw_vi_view *w) {
  const struct fw_wire_hdr *h = &ri->hdr;
  uint64_t at = h->rdma_addr + h->msg_off;
  ri->drop_reason = FW_DROP_PROTECTION;
  if (at < h->rdma_addr || at + h->len < at) return;
  uint32_t tag = h->rdma_handle & HOSTIF_PTAG_MASK, key = h->rdma_handle >> 24;
  if (tag != w->ptag) return;
  if (!(fw_sram_rd32(fw, FW_VI_FIELD(h->dst_vi, flags)) & HOSTIF_VI_F_RDMA_WRITE)) return;
  uint32_t acc = FWB_ACC_WRITE | HOSTIF_REGION_RDMA_WRITE | key << HOSTIF_REGION_KEY_SHIFT;
  if (h->len && fwb_region_check(fw->board, at, h->len, tag, acc) != FWB_REGION_OK) return;
  ri->piece[0].addr = at;
  ri->piece[0].len = h->len;
  ri->piece[0].ptag = tag;
  ri->npiece = h->len ? 1 : 0;
  ri->verdict = FW_RX_RDMA;
  ri->drop_reason = FW_DROP_NONE;
}

void fw_rq_classify(struct fw *fw, unsigned buf) {
  struct fw_rxi *ri = &fw->rxi[buf];
  const struct fw_wire_hdr *h = &ri->hdr;
  ri->verdict = FW_RX_DROP;
  ri->drop_reason = FW_DROP_MALFORMED;
  ri->reliable = false;
  if (!ri->hdr_ok) return;
  if (h->type == FW_WIRE_PANIC) { /* the PANIC VM's packets: judged by fw_vm_wire_rx */
    fw_vm_wire_classify(fw, ri);
    return;
  }
  /* IP: the router's, or else a datagram to this host's IP endpoint (WIRE.md, "IP packets") */
  bool ip = h->type == FW_WIRE_IP;
  if (ip && h->dst_node == fw->node && h->src_node == ri->src && fw_spine_classify(fw, ri)) return;
  bool ctrl = h->type == FW_WIRE_ACK || h->type == FW_WIRE_NACK;
  if (h->type != FW_WIRE_DATA && h->type != FW_WIRE_RDMA_WRITE && !(ctrl && h->len == 0) && !ip)
    return;
  if (h->dst_node != fw->node || h->src_node != ri->src || (ip && h->dst_vi != 0)) return;
  if ((h->type == FW_WIRE_DATA || ip) && h->dst_vi == 0) {
    classify_dgram(fw, ri);
    if (ri->drop_reason == FW_DROP_NONE) ri->verdict = FW_RX_DATA;
    return;
  }
  ri->drop_reason = FW_DROP_NO_VI;
  if (h->dst_vi == 0 || h->dst_vi >= HOSTIF_NVI) return;
  struct fw_vi_view w;
  fw_vi_sync(fw, h->dst_vi, &w);
  /* A message of an earlier connection between the same two entries (its stamp) is of a
   * connection gone. */
  if (w.state != HOSTIF_VI_CONNECTED || w.remote_node != h->src_node ||
      w.remote_vi != h->src_vi || w.conn != h->conn)
    return;
  ri->vi_gen = w.gen;
  ri->vi_key = fw->vi[h->dst_vi].conn_key;
  ri->vi_conn = w.conn;
  ri->drop_reason = FW_DROP_NONE;
  if (ctrl) {
    /* an ACK on a reliable connection names a message modulo FW_NSEQ */
    ri->verdict = fw->vi[h->dst_vi].rel_on && h->type == FW_WIRE_ACK && h->ack >= FW_NSEQ
                      ? FW_RX_DROP : FW_RX_CTRL;
    ri->drop_reason = ri->verdict == FW_RX_DROP ? FW_DROP_MALFORMED : FW_DROP_NONE;
    return;
  }
  ri->reliable = w.reliability == HOSTIF_RELIABLE_DELIVERY;
  if (ri->reliable) {
    /* Go-back-N: only the next message in order is taken; nothing of another one moves. A
     * sequence number outside FW_NSEQ is no message of this connection. */
    uint32_t expect = fw_reliab_expect(fw, h->dst_vi);
    if (h->seq >= FW_NSEQ || !fw->vi[h->dst_vi].rel_on) {
      ri->verdict = FW_RX_DROP;
      ri->drop_reason = FW_DROP_MALFORMED;
      ri->reliable = false;
      return;
    }
    if (h->seq != expect) {
      ri->verdict = FW_RX_DROP;
      ri->drop_reason = fw_reliab_seq_lt(h->seq, expect) ? FW_DROP_DUP : FW_DROP_OOO;
      return;
    }
  }
  if (h->type == FW_WIRE_DATA) classify_data(fw, ri, h->dst_vi, &w);
  else classify_rdma(fw, ri, &w);
  if (ri->drop_reason != FW_DROP_NONE) ri->verdict = FW_RX_DROP;
}

/* What the sender of a refused message on a reliable VI reports. */
static uint32_t refusal(const struct fw_wire_hdr *h, unsigned reason) {
  switch (reason) {
  case FW_DROP_NO_DESC:
  case FW_DROP_TRUNCATED: return HOSTIF_ST_REMOTE;
  case FW_DROP_PROTECTION: return h->type == FW_WIRE_RDMA_WRITE ? HOSTIF_ST_PROTECTION : HOSTIF_ST_REMOTE;
  default: return HOSTIF_ST_DISCONNECTED;
  }
}

static bool checksum_ok(struct fw *fw, unsigned buf, const struct fw_rxi *ri) {
  return fw_wire_trailer_ok(fw->sram + FW_RBUF_ADDR(buf) + FW_WIRE_HDR_LEN + ri->hdr.len, ri->sum);
}

void fw_rq_finish(struct fw *fw, unsigned buf) {
  struct fw_rxi *ri = &fw->rxi[buf];
  fw->rx_msgs++;
  if (ri->verdict == FW_RX_UNKNOWN) fw_rq_classify(fw, buf);
  if (ri->verdict == FW_RX_PANIC) {
    fw_vm_wire_rx(fw, buf);
    return;
  }
  if (ri->verdict == FW_RX_IP) {
    fw_spine_rx(fw, buf);
    return;
  }
  unsigned reason = ri->drop_reason;
  bool damaged = false;
  if (ri->verdict == FW_RX_DATA || ri->verdict == FW_RX_RDMA || ri->verdict == FW_RX_CTRL) {
    if (!ri->complete_ok) reason = FW_DROP_MALFORMED, damaged = true;
    else if (ri->dma_err) reason = FW_DROP_PROTECTION;
    else if (!checksum_ok(fw, buf, ri)) reason = FW_DROP_CHECKSUM, damaged = true;
    else if (ri->verdict == FW_RX_DATA) reason = fw_dgram_rx_check(fw, buf);
  }
  const struct fw_wire_hdr *h = &ri->hdr;
  if (ri->verdict == FW_RX_DATA || ri->verdict == FW_RX_RDMA || ri->verdict == FW_RX_CTRL ||
      ri->reliable) {
    /* The VI may have been disconnected, or destroyed and created again by its host, since
     * the message was classified: then it belongs to a connection that is gone, and nothing
     * of it (completion, acknowledgement, refusal) may touch the VI now in the entry. */
    struct fw_vi_view w;
    fw_vi_sync(fw, h->dst_vi, &w);
    if (w.gen != ri->vi_gen || fw->vi[h->dst_vi].conn_key != ri->vi_key ||
        fw->vi[h->dst_vi].conn != ri->vi_conn) {
      count_drop(fw, FW_DROP_NO_VI);
      return;
    }
  }
  if (ri->reliable && (reason == FW_DROP_DUP || reason == FW_DROP_OOO || damaged)) {
    /* Reliable Delivery repairs these: a damaged message is sent again, a duplicate or one
     * ahead is answered with the last ACK again (the Receiver). A damaged first message
     * gives its receive descriptor back; a later one leaves the transfer where it was. */
    count_drop(fw, reason);
    if (damaged && h->msg_off == 0 && ri->verdict == FW_RX_DATA) {
      struct fw_vi *v = &fw->vi[h->dst_vi];
      v->rx_active = false;
      fw_sram_wr32(fw, FW_RING_CONS(h->dst_vi, rq), v->rq_done);
    }
    fw_reliab_rx_data(fw, h->dst_vi, h->seq, !damaged, buf);
    return;
  }
  if (reason != FW_DROP_NONE) {
    count_drop(fw, reason);
    if (ri->verdict == FW_RX_DATA && is_dgram(fw, h->dst_vi)) {
      fw_dgctx_abandon(fw, buf);
    } else if (ri->verdict == FW_RX_DATA) { /* abandon the transfer; its descriptor stays posted */
      struct fw_vi *v = &fw->vi[h->dst_vi];
      v->rx_active = false;
      fw_sram_wr32(fw, FW_RING_CONS(h->dst_vi, rq), v->rq_done);
    }
    if (ri->reliable) fw_ack_refuse(fw, h->dst_vi, h, refusal(h, reason));
    return;
  }
  if (ri->verdict == FW_RX_CTRL) {
    fw_ack_received(fw, h);
    return;
  }
  if (ri->reliable) {
    /* the Receiver takes it (it is the one it expects: classified so) and calls
     * fw_rq_deliver, then owes the ACK */
    uint32_t n = (uint32_t)fw->rel[h->dst_vi].dispatched[reliab_EV_rx_data];
    uint32_t exp = fw_reliab_expect(fw, h->dst_vi);
    fw_reliab_rx_data(fw, h->dst_vi, h->seq, true, buf);
    if (fw->rel[h->dst_vi].dispatched[reliab_EV_rx_data] != n + 1u ||
        fw_reliab_expect(fw, h->dst_vi) == exp)
      fw_fault(fw, HOSTIF_FAULT_RELIAB_DELIVER);
    return;
  }
  fw_rq_deliver(fw, buf);
}

void fw_rq_deliver(struct fw *fw, unsigned buf) {
  struct fw_rxi *ri = &fw->rxi[buf];
  const struct fw_wire_hdr *h = &ri->hdr;
  unsigned vi = h->dst_vi;
  struct fw_vi *v = &fw->vi[vi];
  bool last = h->msg_off + h->len == h->msg_len;
  uint16_t imm_flag = (h->flags & FW_WIRE_F_IMM) ? HOSTIF_F_IMMEDIATE : 0;
  fw_count64v(&fw_ctr(fw)->rx_msgs);
  fw_ctr_add(&fw_ctr(fw)->rx_bytes, h->len);
  if (ri->verdict == FW_RX_DATA && is_dgram(fw, vi)) {
    fw_dgctx_deliver(fw, buf);
  } else if (ri->verdict == FW_RX_DATA) {
    v->rx_next_off += h->len;
    if (last) {
      v->rx_active = false;
      fw_rq_complete(fw, vi, HOSTIF_ST_DONE, h->msg_len, imm_flag ? h->imm : 0, imm_flag);
    }
  } else if (last && imm_flag) {
    struct hostif_desc d = {0};
    if (!rq_peek(fw, vi, &d)) {
      count_drop(fw, FW_DROP_NO_DESC);
      if (ri->reliable) {
        fw_ack_refuse(fw, vi, h, HOSTIF_ST_REMOTE);
        return;
      }
    } else if (d.op != HOSTIF_OP_RECV) {
      fw_rq_complete(fw, vi, HOSTIF_ST_FORMAT, 0, 0, 0);
    } else {
      fw_rq_complete(fw, vi, HOSTIF_ST_DONE, 0, h->imm, imm_flag);
    }
  }
}

void fw_rq_flush(struct fw *fw, unsigned vi) {
  struct fw_vi *v = &fw->vi[vi];
  struct hostif_desc d;
  v->rx_active = false;
  for (unsigned n = 0; n < HOSTIF_RING && rq_peek(fw, vi, &d); n++)
    fw_rq_complete(fw, vi, HOSTIF_ST_FLUSHED, 0, 0, 0);
  fw_dgctx_reset(fw, vi);
}
