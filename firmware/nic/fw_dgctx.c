/* fw_dgctx.c: a datagram VI's reassembly contexts (WIRE.md, "Datagrams"). Datagrams from
 * several senders interleave their messages; up to FW_DG_NCTX of them are reassembled at once,
 * each in its own context keyed by (source node, source port, datagram number) and holding
 * the receive descriptor its first message took from the ring. A datagram completes when its
 * last message is delivered, into the ring's next slot, naming the descriptor it filled by the
 * descriptor's cookie (the host matches it to its buffer, host/libnic/nic_queue.c): datagrams
 * complete in the order they end, not the order they began. A datagram given up (a message
 * dropped) leaves its descriptor in its context for the next one. A context whose datagram
 * has had no message for FW_RX_STALL_NS, or the stalest one when all are busy and another
 * datagram begins, is evicted: its datagram is given up and counted (rx_drop_malformed).
 * Freestanding. */
#include "fw_dgctx.h"

#include "fw_check.h"
#include "fw_dgram.h"
#include "fw_rq.h"

/* The context reassembling the datagram message h belongs to, or FW_DG_NCTX. */
static unsigned find(const struct fw_vi *v, const struct fw_wire_hdr *h) {
  for (unsigned i = 0; i < FW_DG_NCTX; i++) {
    const struct fw_dgctx *c = &v->dg[i];
    if (c->state == FW_DG_BUSY && c->node == h->src_node && c->sport == (uint16_t)h->rdma_handle &&
        c->id == (uint16_t)h->imm)
      return i;
  }
  return FW_DG_NCTX;
}

static void evict(struct fw *fw, struct fw_dgctx *c) {
  c->state = FW_DG_IDLE;
  fw_count64v(&fw_ctr(fw)->rx_drop_malformed);
}

/* A context for a new datagram: one holding a descriptor, else a free one, else the stalest
 * busy one evicted. Stale ones are evicted first. */
static unsigned pick(struct fw *fw, struct fw_vi *v, uint64_t now) {
  unsigned idle = FW_DG_NCTX, free = FW_DG_NCTX, stalest = FW_DG_NCTX;
  for (unsigned i = 0; i < FW_DG_NCTX; i++) {
    struct fw_dgctx *c = &v->dg[i];
    if (c->state == FW_DG_BUSY && now - c->last_ns > FW_RX_STALL_NS) evict(fw, c);
    if (c->state == FW_DG_IDLE && idle == FW_DG_NCTX) idle = i;
    else if (c->state == FW_DG_FREE && free == FW_DG_NCTX) free = i;
    else if (c->state == FW_DG_BUSY &&
             (stalest == FW_DG_NCTX || c->last_ns < v->dg[stalest].last_ns))
      stalest = i;
  }
  if (idle < FW_DG_NCTX) return idle;
  if (free < FW_DG_NCTX) return free;
  evict(fw, &v->dg[stalest]);
  return stalest;
}

/* Takes the ring's next receive descriptor no context holds into c; false if none is posted.
 * Indices that do not fit what the contexts hold (the host re-created the rings) start over. */
static bool claim(struct fw *fw, unsigned vi, struct fw_dgctx *c) {
  struct fw_vi *v = &fw->vi[vi];
  if (ring_count(v->dg_claimed, v->rq_done) > FW_DG_NCTX) fw_dgctx_reset(fw, vi);
  uint32_t prod = fw_sram_rd32(fw, FW_RING_PROD(vi, rq));
  fw_sram_acquire();
  if (!ring_nonempty(prod, v->dg_claimed) || ring_count(prod, v->rq_done) > HOSTIF_RING)
    return false;
  fw_sram_desc_in(fw, &c->desc, FW_SLOT_ADDR(vi, rq, v->dg_claimed));
  v->dg_claimed = ring_next(v->dg_claimed);
  fw_sram_wr32(fw, FW_RING_CONS(vi, rq), v->dg_claimed);
  c->state = FW_DG_IDLE;
  return true;
}

/* Completes the ring's next slot for the descriptor c holds, which is free again. */
static void complete(struct fw *fw, unsigned vi, struct fw_dgctx *c, uint32_t st, uint32_t len,
                     uint32_t imm, uint16_t flags) {
  struct fw_vi *v = &fw->vi[vi];
  fw_sram_wr32(fw, FW_SLOT_ADDR(vi, rq, v->rq_done) + offsetof(struct hostif_desc, cookie),
               c->desc.cookie);
  fw_rq_complete(fw, vi, st, len, imm, flags);
  fw_sram_wr32(fw, FW_RING_CONS(vi, rq), v->dg_claimed);   /* what the contexts hold stays taken */
  c->state = FW_DG_FREE;
}

/* A first message: a context and a descriptor for its datagram; FW_DG_NCTX if it is dropped
 * (ri->drop_reason says why). */
static unsigned begin(struct fw *fw, struct fw_rxi *ri, unsigned vi, const struct fw_vi_view *w,
                      uint64_t now) {
  struct fw_vi *v = &fw->vi[vi];
  const struct fw_wire_hdr *h = &ri->hdr;
  unsigned again = find(v, h);
  if (again < FW_DG_NCTX) evict(fw, &v->dg[again]);   /* its first message again: start over */
  unsigned i = pick(fw, v, now);
  struct fw_dgctx *c = &v->dg[i];
  if (c->state == FW_DG_FREE && !claim(fw, vi, c)) {
    ri->drop_reason = FW_DROP_NO_DESC;
    return FW_DG_NCTX;
  }
  uint32_t st = fw_check_desc(fw, &c->desc, w->ptag, false);
  if (st == HOSTIF_ST_DONE && h->msg_len > c->desc.length) st = HOSTIF_ST_LENGTH;
  if (st != HOSTIF_ST_DONE) {
    complete(fw, vi, c, st, 0, 0, 0);
    if (st == HOSTIF_ST_FORMAT) fw_count64v(&fw_ctr(fw)->format_errors);
    ri->drop_reason = st == HOSTIF_ST_LENGTH ? FW_DROP_TRUNCATED : FW_DROP_PROTECTION;
    return FW_DG_NCTX;
  }
  *c = (struct fw_dgctx){.state = FW_DG_BUSY, .node = h->src_node,
                         .sport = (uint16_t)h->rdma_handle, .id = (uint16_t)h->imm,
                         .msg_len = h->msg_len, .desc = c->desc};
  return i;
}

void fw_dgctx_classify(struct fw *fw, struct fw_rxi *ri, unsigned vi, const struct fw_vi_view *w) {
  struct fw_vi *v = &fw->vi[vi];
  const struct fw_wire_hdr *h = &ri->hdr;
  uint64_t now = fwb_clock_ns(fw->board);
  unsigned i = h->msg_off == 0 ? begin(fw, ri, vi, w, now) : find(v, h);
  if (i == FW_DG_NCTX) {
    if (h->msg_off != 0) ri->drop_reason = FW_DROP_MALFORMED;   /* no datagram it continues */
    return;
  }
  struct fw_dgctx *c = &v->dg[i];
  if (h->msg_off != c->next_off || h->msg_len != c->msg_len) {
    ri->drop_reason = FW_DROP_MALFORMED;
    return;
  }
  c->last_ns = now;
  ri->dgctx = (uint8_t)i;
  ri->npiece = (uint8_t)fw_check_pieces(&c->desc, h->msg_off, h->len, ri->piece, HOSTIF_MAXSEG);
  ri->verdict = FW_RX_DATA;
}

void fw_dgctx_abandon(struct fw *fw, unsigned buf) {
  const struct fw_rxi *ri = &fw->rxi[buf];
  struct fw_dgctx *c = &fw->vi[ri->hdr.dst_vi].dg[ri->dgctx % FW_DG_NCTX];
  if (c->state == FW_DG_BUSY) c->state = FW_DG_IDLE;
}

void fw_dgctx_deliver(struct fw *fw, unsigned buf) {
  const struct fw_rxi *ri = &fw->rxi[buf];
  const struct fw_wire_hdr *h = &ri->hdr;
  struct fw_dgctx *c = &fw->vi[h->dst_vi].dg[ri->dgctx % FW_DG_NCTX];
  if (c->state != FW_DG_BUSY) return;
  c->sum = fw_dgram_rx_sum(fw, ri);
  c->next_off += h->len;
  if (c->next_off == c->msg_len)   /* the completion names the sender */
    complete(fw, h->dst_vi, c, HOSTIF_ST_DONE, c->msg_len,
             HOSTIF_DGRAM_DEST(h->src_node, (uint16_t)h->rdma_handle), HOSTIF_F_DGRAM);
}

void fw_dgctx_reset(struct fw *fw, unsigned vi) {
  struct fw_vi *v = &fw->vi[vi];
  for (unsigned i = 0; i < FW_DG_NCTX; i++) v->dg[i].state = FW_DG_FREE;
  v->dg_claimed = v->rq_done;
}
