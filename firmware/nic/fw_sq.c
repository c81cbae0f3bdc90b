/* fw_sq.c: NIC-side VIA, send queues. A doorbell marks a VI as having work; the pump takes
 * the VIs round-robin, fetches each new descriptor once (a snapshot: what the host writes
 * afterwards does not matter), validates it (fw_check.c), and splits the transfer into
 * data-path messages of at most FW_MAX_PAYLOAD bytes (FW_FINE_PAYLOAD when pipelining finely),
 * each queued with its wire header and the host pieces it comes from, and announced to SDMA
 * with a `doorbell` event. When the last message of a descriptor has left (tx_complete), its
 * completion is written; completions are published in ring order (`done`), a failed
 * descriptor waiting for earlier ones. On a Reliable Delivery VI the Sender machine
 * (fw_reliab.c) decides what goes: a new message when its window has room, or, going back
 * after a timeout, one sent before, re-split from its descriptor in the ring; a descriptor
 * also waits for the peer's acknowledgement of its last message; a connection that breaks
 * meanwhile completes it DISCONNECTED, or TRANSPORT when the retry limit broke it.
 *
 * Annotated for Frama-C/WP, not yet proved (no fw-sq line in proofs/modules.conf: two of
 * sq_emit's postconditions do not prove): fw_sq_doorbell and fw_sq_pump meet the handler
 * contracts of fw_sq.h with no run-time error; sq_fetch takes a slot only when no descriptor of
 * [sq_done, sq_cons) holds it, and sq_retire moves sq_done forward, never past sq_cons.
 * Freestanding. */
#include "fw_sq.h"

#include "fw_ack.h"
#include "fw_check.h"
#include "fw_reliab.h"
#include "fw_vi.h"

/*@ // A caller's local VI view, apart from everything the helpers write.
    predicate view_ok(struct fw *fw, struct fw_vi_view *w) =
      \valid(w) && \separated(w, fw) && \separated(w, fw->sram + (0 .. FW_SRAM_END - 1));
*/

static void sq_retire(struct fw *fw, unsigned vi);

/* A datagram VI (HOSTIF_VI_F_DGRAM): never connected, sends go where each descriptor says. */
static bool sq_dgram(struct fw *fw, unsigned vi, const struct fw_vi_view *w) {
  return w->state == HOSTIF_VI_IDLE && w->reliability == HOSTIF_UNRELIABLE &&
         (fw_sram_rd32(fw, FW_VI_FIELD(vi, flags)) & HOSTIF_VI_F_DGRAM);
}

/* Payload bytes per message of a connection: GM's 4 KiB when pipelining finely (fw.h). */
static uint32_t sq_payload_max(const struct fw *fw) {
  return fw->cfg.fine_mode ? FW_FINE_PAYLOAD : FW_MAX_PAYLOAD;
}

/* Payload bytes per message: a datagram leaves room for its tail (fw.h); an IP packet of
 * SPINE's router is one message with no tail (WIRE.md). */
static uint32_t sq_frag_max(struct fw *fw, unsigned vi, const struct fw_vi_view *w) {
  bool ip = fw_sram_rd32(fw, FW_VI_FIELD(vi, port)) == SPINE_IP_PORT;
  uint32_t max = sq_payload_max(fw);
  return sq_dgram(fw, vi, w) && !ip ? FW_DGRAM_FRAG_OF(max) : max;
}

/* What a datagram VI's send descriptor must be beyond fw_check_desc: a SEND without immediate
 * data, at most HOSTIF_DGRAM_MAX bytes, to a port. */
static uint32_t sq_dgram_check(const struct hostif_desc *d) {
  if (d->op != HOSTIF_OP_SEND || (d->flags & HOSTIF_F_IMMEDIATE) || d->length > HOSTIF_DGRAM_MAX ||
      HOSTIF_DGRAM_PORT(d->rdma_addr) == 0)
    return HOSTIF_ST_FORMAT;
  return HOSTIF_ST_DONE;
}

void fw_sq_unack_all(struct fw *fw, unsigned vi, uint32_t st) {
  struct fw_vi *v = &fw->vi[vi];
  /*@ loop assigns i, v->slot[0 .. HOSTIF_RING - 1];
      loop variant ring_dist(v->sq_cons, i); */
  for (uint32_t i = v->sq_done; i != v->sq_cons; i = ring_next(i)) {
    struct fw_sqslot *sl = &v->slot[ring_slot(i)];
    if (!sl->await_ack) continue;
    sl->await_ack = false;
    if (sl->status == HOSTIF_ST_DONE) sl->status = (uint8_t)st;
  }
  fw_vim_clear(&fw->ack_watch, vi);
  sq_retire(fw, vi);
}

/* Publishes the completions that are ready, in ring order: sq_done moves forward one index at
 * a time, and never past sq_cons. */
/*@ requires fw_sram_ok(fw) && vi < HOSTIF_NVI;
    assigns fw->vi[vi].sq_done, fw->sram[HOSTIF_VI_ADDR(vi) .. fw_sram_vi_end(vi) - 1];
    ensures ring_dist(fw->vi[vi].sq_cons, fw->vi[vi].sq_done) +
            ring_dist(fw->vi[vi].sq_done, \old(fw->vi[vi].sq_done)) ==
            ring_dist(fw->vi[vi].sq_cons, \old(fw->vi[vi].sq_done)); */
static void sq_retire(struct fw *fw, unsigned vi) {
  struct fw_vi *v = &fw->vi[vi];
  bool any = false;
  /*@ loop invariant ring_dist(v->sq_cons, v->sq_done) + ring_dist(v->sq_done, \at(fw->vi[vi].sq_done, Pre)) ==
                     ring_dist(v->sq_cons, \at(fw->vi[vi].sq_done, Pre));
      loop assigns any, v->sq_done, fw->sram[HOSTIF_VI_ADDR(vi) .. fw_sram_vi_end(vi) - 1];
      loop variant ring_dist(v->sq_cons, v->sq_done); */
  while (ring_nonempty(v->sq_cons, v->sq_done)) {
    struct fw_sqslot *sl = &v->slot[ring_slot(v->sq_done)];
    if (!sl->queued || sl->inflight || sl->await_ack) break;
    fw_sram_complete(fw, FW_SLOT_ADDR(vi, sq, v->sq_done), sl->status,
                     sl->status == HOSTIF_ST_DONE ? sl->len : 0, 0, 0);
    v->sq_done = ring_next(v->sq_done);
    fw_sram_release();
    fw_sram_wr32(fw, FW_RING_DONE(vi, sq), v->sq_done);
    any = true;
  }
  if (any) fwb_signal_host(fw->board, HOSTIF_SIG_SQ(vi));
}

/*@ requires fw_ok(fw);
    assigns fw_counters(fw->sram)->protection_errors, fw_counters(fw->sram)->format_errors; */
static void count_error(struct fw *fw, uint32_t st) {
  if (st == HOSTIF_ST_PROTECTION) fw_count64v(&fw_ctr(fw)->protection_errors);
  if (st == HOSTIF_ST_FORMAT) fw_count64v(&fw_ctr(fw)->format_errors);
}

/* Ends the descriptor being split with status st (after the messages already queued). */
/*@ requires fw_ok(fw) && vi < HOSTIF_NVI;
    assigns fw->vi[vi].have, fw->vi[vi].slot[0 .. HOSTIF_RING - 1], fw->vi[vi].sq_done,
            fw->sram[HOSTIF_VI_ADDR(vi) .. fw_sram_vi_end(vi) - 1],
            fw_counters(fw->sram)->protection_errors, fw_counters(fw->sram)->format_errors;
    ensures fw_ok(fw) && !fw->vi[vi].have;
    ensures ring_dist(fw->vi[vi].sq_cons, fw->vi[vi].sq_done) +
            ring_dist(fw->vi[vi].sq_done, \old(fw->vi[vi].sq_done)) ==
            ring_dist(fw->vi[vi].sq_cons, \old(fw->vi[vi].sq_done)); */
static void sq_abort(struct fw *fw, unsigned vi, uint32_t st) {
  struct fw_vi *v = &fw->vi[vi];
  struct fw_sqslot *sl = &v->slot[ring_slot(ring_prev(v->sq_cons))];
  v->have = false;
  sl->queued = true;
  if (sl->status == HOSTIF_ST_DONE) sl->status = (uint8_t)st;
  count_error(fw, st);
  sq_retire(fw, vi);
  //@ assert datapath_INV((&fw->dp));
  //@ assert FW_BOUNDS(fw);
}

/* Fetches the next descriptor of a VI if none is being split. false: nothing to fetch. It
 * takes slot sq_cons only when ring_may_produce(sq_cons, sq_done): no descriptor of
 * [sq_done, sq_cons), not yet completed, has the same slot. prod was read before the view w
 * (sq_step), so w is at least as new as every descriptor up to prod: a host posts on a VI
 * it has seen connected, and a view read before its post could still say IDLE. A producer
 * index more than a ring ahead is not this VI's (the entry was re-created): nothing. */
/*@ requires fw_ok(fw) && vi < HOSTIF_NVI && view_ok(fw, w);
    assigns fw->vi[vi], fw->sram[HOSTIF_VI_ADDR(vi) .. fw_sram_vi_end(vi) - 1],
            fw_counters(fw->sram)->protection_errors, fw_counters(fw->sram)->format_errors;
    ensures fw_ok(fw);
    ensures !\result ==> fw->vi[vi].sq_cons == \old(fw->vi[vi].sq_cons);
    ensures \result ==> fw->vi[vi].sq_cons == ring_add(\old(fw->vi[vi].sq_cons), 1) &&
      ring_dist(\old(fw->vi[vi].sq_cons), \old(fw->vi[vi].sq_done)) < HOSTIF_RING &&
      \forall integer k; 0 <= k < ring_dist(\old(fw->vi[vi].sq_cons), \old(fw->vi[vi].sq_done)) ==>
        ring_slot_of(ring_add(\old(fw->vi[vi].sq_done), k)) != ring_slot_of(\old(fw->vi[vi].sq_cons)); */
static bool sq_fetch(struct fw *fw, unsigned vi, struct fw_vi_view *w, uint32_t prod) {
  struct fw_vi *v = &fw->vi[vi];
  if (!ring_nonempty(prod, v->sq_cons) || ring_count(prod, v->sq_cons) > HOSTIF_RING) return false;
  if (!ring_may_produce(v->sq_cons, v->sq_done)) return false; /* every slot awaits completion */
  uint32_t at = FW_SLOT_ADDR(vi, sq, v->sq_cons);
  fw_sram_desc_in(fw, &v->desc, at);
  struct fw_sqslot *sl = &v->slot[ring_slot(v->sq_cons)];
  sl->inflight = 0;
  sl->queued = false;
  sl->await_ack = false;
  sl->status = HOSTIF_ST_DONE;
  sl->len = v->desc.length;
  sl->first_seq = v->tx_seq;
  sl->nmsg = 0;
  v->sq_cons = ring_next(v->sq_cons);
  fw_sram_wr32(fw, FW_RING_CONS(vi, sq), v->sq_cons);
  v->have = true;
  v->off = 0;
  //@ assert datapath_INV((&fw->dp));
  //@ assert FW_BOUNDS(fw);
  //@ assert fw_ok(fw);
  uint32_t st = fw_check_desc(fw, &v->desc, w->ptag, true);
  bool dgram = sq_dgram(fw, vi, w);
  if (st == HOSTIF_ST_DONE && dgram) st = sq_dgram_check(&v->desc);
  else if (st == HOSTIF_ST_DONE && w->state != HOSTIF_VI_CONNECTED) st = v->brk_st;
  if (st != HOSTIF_ST_DONE) sq_abort(fw, vi, st);
  return true;
}

/* Whether the descriptor being split is one fw_check_desc accepts, with off inside it. Always
 * true (sq_fetch keeps only accepted descriptors, sq_emit keeps off <= length); checked since
 * the proofs assume nothing of the state between two pumps beyond fw_ok. */
/*@ requires \valid_read(d);
    assigns \nothing;
    ensures \result ==> fw_desc_ok(d) && off <= d->length; */
static bool desc_sane(const struct hostif_desc *d, uint32_t off) {
  if (d->nseg > HOSTIF_MAXSEG || d->length > HOSTIF_MAX_XFER || off > d->length) return false;
  if (d->op == HOSTIF_OP_RDMA_WRITE && d->length > UINT64_MAX - d->rdma_addr) return false;
  uint32_t total = 0;
  /*@ loop invariant 0 <= i <= d->nseg && total == fw_seg_sum(d, i) && total <= d->length;
      loop invariant \forall integer j; 0 <= j <= i ==> fw_seg_sum(d, j) <= total;
      loop invariant \forall integer j; 0 <= j < i ==>
        d->seg[j].addr + d->seg[j].len <= 18446744073709551615;
      loop assigns i, total;
      loop variant d->nseg - i; */
  for (unsigned i = 0; i < d->nseg; i++) {
    if (d->seg[i].len > d->length - total || d->seg[i].len > UINT64_MAX - d->seg[i].addr)
      return false;
    total += d->seg[i].len;
  }
  return total == d->length;
}

/* Queues message `seq` of descriptor d (the one in send queue slot `slot`): its payload from
 * offset off. The caller raises `doorbell`. */
/*@ requires fw_sram_ok(fw) && vi < HOSTIF_NVI && view_ok(fw, w) && slot < HOSTIF_RING;
    requires fw_desc_ok(d) && off <= d->length && \separated(d, fw);
    requires datapath_INV((&fw->dp)) && fw_bounds(fw);
    assigns fw->txq[fw->tx_head % FW_TXQ], fw->tx_head, fw->vi[vi].slot[slot].inflight;
    ensures fw->tx_head == ring_add(\old(fw->tx_head), 1);
    ensures datapath_INV((&fw->dp)) && FW_BOUNDS(fw); */
static void sq_queue(struct fw *fw, unsigned vi, const struct fw_vi_view *w,
                     const struct hostif_desc *d, uint32_t off, uint32_t seq, unsigned slot) {
  struct fw_vi *v = &fw->vi[vi];
  uint32_t left = d->length - off, max = sq_frag_max(fw, vi, w);
  uint32_t plen = left < max ? left : max;
  struct fw_txe *e = &fw->txq[fw->tx_head % FW_TXQ];
  /* first: fw_desc_ok(d) is then the precondition itself, before any write to the state */
  e->npiece = (uint8_t)fw_check_pieces(d, off, plen, e->piece, HOSTIF_MAXSEG);
  e->vi = (uint16_t)vi;
  e->slot = (uint8_t)slot;
  e->status = HOSTIF_ST_DONE;
  e->trailer_done = false;
  e->local = false;
  e->stage = FW_LOCAL_SLOTS;
  e->gen = v->gen;
  e->sum = 0;
  struct fw_wire_hdr *h = &e->hdr;
  h->type = d->op == HOSTIF_OP_SEND ? FW_WIRE_DATA : FW_WIRE_RDMA_WRITE;
  h->flags = (uint16_t)((off == 0 ? FW_WIRE_F_FIRST : 0) |
                        (off + plen == d->length ? FW_WIRE_F_LAST : 0) |
                        ((d->flags & HOSTIF_F_IMMEDIATE) ? FW_WIRE_F_IMM : 0));
  /* Reliable Delivery: every message is acknowledged (WIRE.md) */
  if (w->reliability == HOSTIF_RELIABLE_DELIVERY) h->flags |= FW_WIRE_F_ACKREQ;
  h->src_node = fw->node;
  h->dst_node = w->remote_node;
  h->src_vi = (uint16_t)vi;
  h->dst_vi = w->remote_vi;
  h->conn = w->conn;
  h->seq = seq;
  h->ack = 0;
  h->len = plen;
  h->imm = (d->flags & HOSTIF_F_IMMEDIATE) ? d->imm : 0;
  h->msg_off = off;
  h->msg_len = d->length;
  h->rdma_handle = d->op == HOSTIF_OP_RDMA_WRITE ? d->rdma_ptag : 0;
  h->rdma_addr = d->op == HOSTIF_OP_RDMA_WRITE ? d->rdma_addr : 0;
  if (sq_dgram(fw, vi, w)) {
    /* a datagram (WIRE.md, "Datagrams"): to the receiver's port table, VI 0 */
    h->dst_node = HOSTIF_DGRAM_NODE(d->rdma_addr);
    h->dst_vi = 0;
    h->conn = 0;
    if (fw_sram_rd32(fw, FW_VI_FIELD(vi, port)) == SPINE_IP_PORT) h->type = FW_WIRE_IP;  /* WIRE.md */
    h->rdma_handle = (uint32_t)HOSTIF_DGRAM_PORT(d->rdma_addr) << 16 |
                     (uint16_t)fw_sram_rd32(fw, FW_VI_FIELD(vi, port));
    h->imm = v->dg_id;   /* its number, the IPv4 identification of its tail */
    e->ip_dst = HOSTIF_DGRAM_IP(d->rdma_addr);
    e->ip_src = d->rdma_ptag;
  }
  fw->tx_head = ring_next(fw->tx_head);
  v->slot[slot].inflight++;
}

/* Queues the next message of the descriptor being split (the caller raises `doorbell`). */
/*@ requires fw_sram_ok(fw) && vi < HOSTIF_NVI && view_ok(fw, w);
    requires fw_desc_ok(&fw->vi[vi].desc) && fw->vi[vi].off <= fw->vi[vi].desc.length;
    requires datapath_INV((&fw->dp)) && fw_bounds(fw);
    assigns fw->txq[fw->tx_head % FW_TXQ], fw->tx_head, fw->vi[vi].tx_seq, fw->vi[vi].off, fw->vi[vi].dg_id,
            fw->vi[vi].have, fw->vi[vi].slot[0 .. HOSTIF_RING - 1], fw->ack_watch;
    ensures fw->tx_head == ring_add(\old(fw->tx_head), 1);
    // the frame of fw_ok, proved here where the writes are known fields
    ensures datapath_INV((&fw->dp)) && FW_BOUNDS(fw); */
static void sq_emit(struct fw *fw, unsigned vi, const struct fw_vi_view *w) {
  struct fw_vi *v = &fw->vi[vi];
  const struct hostif_desc *d = &v->desc;
  unsigned slot = ring_slot(ring_prev(v->sq_cons));
  uint32_t left = d->length - v->off, max = sq_frag_max(fw, vi, w);
  uint32_t plen = left < max ? left : max;
  uint32_t seq = v->tx_seq;
  sq_queue(fw, vi, w, d, v->off, seq, slot);
  /* modulo FW_NSEQ (WIRE.md): the Sender's numbers on a reliable VI */
  v->tx_seq = (v->tx_seq + 1u) & (FW_NSEQ - 1u);
  v->slot[slot].nmsg++;
  if (w->reliability == HOSTIF_RELIABLE_DELIVERY && v->off + plen == d->length) {
    v->slot[slot].await_ack = true;
    v->slot[slot].last_seq = seq;
    fw_vim_set(&fw->ack_watch, vi);
  }
  v->off += plen;
  if (v->off == d->length) {
    v->have = false;
    v->slot[slot].queued = true;
    v->dg_id++;   /* a datagram's messages share its number (used by datagram VIs only) */
  }
}

/* Reliable Delivery, going back: queues message `seq` again, re-split from its descriptor in
 * the ring (the host's memory stays put until the send completes). The descriptor is read and
 * checked again: one the host changed under the send fails it with the check's status, and the
 * connection breaks. false if nothing was queued. */
static bool sq_resend(struct fw *fw, unsigned vi, const struct fw_vi_view *w, uint32_t seq) {
  struct fw_vi *v = &fw->vi[vi];
  for (uint32_t i = v->sq_done; i != v->sq_cons; i = ring_next(i)) {
    struct fw_sqslot *sl = &v->slot[ring_slot(i)];
    uint32_t k = (seq - sl->first_seq) & (FW_NSEQ - 1u);
    if (k >= sl->nmsg) continue;
    struct hostif_desc d;
    fw_sram_desc_in(fw, &d, FW_SLOT_ADDR(vi, sq, i));
    uint32_t off = k * sq_payload_max(fw);
    uint32_t st = fw_check_desc(fw, &d, w->ptag, true);
    if (st == HOSTIF_ST_DONE &&
        (d.length != sl->len || !desc_sane(&d, off) || (off >= d.length && off != 0)))
      st = HOSTIF_ST_FORMAT;
    if (st != HOSTIF_ST_DONE) {
      if (sl->status == HOSTIF_ST_DONE) sl->status = (uint8_t)st;
      count_error(fw, st);
      fw_reliab_transport_break(fw, vi);
      return false;
    }
    sq_queue(fw, vi, w, &d, off, seq, ring_slot(i));
    fw_count64v(&fw_ctr(fw)->retransmits);
    return true;
  }
  /* Not held: an acknowledgement that came after the Sender asked for it retired its
   * descriptor (the request waits for this step), so the peer has it and nothing need go.
   * Anything else is a fault. */
  uint32_t oldest = v->sq_done == v->sq_cons ? v->tx_seq : v->slot[ring_slot(v->sq_done)].first_seq;
  if (!fw_reliab_seq_lt(seq, oldest)) fw_fault(fw, HOSTIF_FAULT_RELIAB_RESEND);
  return false;
}

/* A reliable VI's step: the Sender decides what goes (a new message when the window has
 * room, or one again after a timeout); the queue offers it new messages. */
static bool sq_step_reliable(struct fw *fw, unsigned vi, struct fw_vi_view *w, uint32_t prod) {
  struct fw_vi *v = &fw->vi[vi];
  if (v->tx_want) {
    bool queued = false;
    if (w->state != HOSTIF_VI_CONNECTED) {
      /* broken: nothing more goes */
    } else if (v->tx_want_seq == v->tx_seq) {
      if (v->have && desc_sane(&v->desc, v->off)) {
        sq_emit(fw, vi, w);
        queued = true;
      }
    } else {
      queued = sq_resend(fw, vi, w, v->tx_want_seq);
    }
    v->tx_want = false;
    if (queued && !datapath_raise(&fw->dp, datapath_EV_doorbell))
      fw_fault(fw, HOSTIF_FAULT_RAISE_DOORBELL_SQ);
    fw_reliab_tx_taken(fw, vi);
    return true;
  }
  if (!v->have && !sq_fetch(fw, vi, w, prod)) return false;
  if (!v->have) return true; /* fetched, and it failed validation */
  if (w->state != HOSTIF_VI_CONNECTED || !v->rel_on) {
    sq_abort(fw, vi, v->brk_st);
    return true;
  }
  if (!desc_sane(&v->desc, v->off)) { /* never: see desc_sane */
    fw_fault(fw, HOSTIF_FAULT_SQ_DESC_INSANE);
    sq_abort(fw, vi, HOSTIF_ST_FORMAT);
    return true;
  }
  fw_reliab_offer(fw, vi);
  return v->tx_want;
}

/* One step of work for a VI: false when it has nothing more to do. */
/*@ requires fw_ok(fw) && vi < HOSTIF_NVI;
    assigns fw->vi[vi], fw->ack_watch, fw->ack_work, fw->rst_work, fw->txq[0 .. FW_TXQ - 1], fw->tx_head,
            fw->dp.pending[datapath_EV_doorbell], fw->dp.overflow[datapath_EV_doorbell],
            fw->faults, fw->fault_n[0 .. HOSTIF_FAULT_N - 1], fw->fault_last, fw->sram[HOSTIF_VI_ADDR(vi) .. fw_sram_vi_end(vi) - 1],
            fw_counters(fw->sram)->protection_errors, fw_counters(fw->sram)->format_errors;
    ensures fw_ok(fw); */
static bool sq_step(struct fw *fw, unsigned vi) {
  struct fw_vi *v = &fw->vi[vi];
  struct fw_vi_view w;
  uint32_t prod = fw_sram_rd32(fw, FW_RING_PROD(vi, sq));
  fw_sram_acquire();
  uint32_t gen = v->gen;
  fw_vi_sync(fw, vi, &w);
  if (w.gen != gen) return true; /* a new VI in the entry: prod may be the old one's; again */
  //@ assert datapath_INV((&fw->dp));
  //@ assert FW_BOUNDS(fw);
  //@ assert fw_ok(fw);
  if (v->rel_on || v->tx_want) return sq_step_reliable(fw, vi, &w, prod);
  if (!v->have && !sq_fetch(fw, vi, &w, prod)) return false;
  if (!v->have) return true; /* fetched, and it failed validation */
  if (w.state != HOSTIF_VI_CONNECTED && !sq_dgram(fw, vi, &w)) {
    sq_abort(fw, vi, v->brk_st);
    return true;
  }
  if (!desc_sane(&v->desc, v->off)) { /* never: see desc_sane */
    fw_fault(fw, HOSTIF_FAULT_SQ_DESC_INSANE);
    sq_abort(fw, vi, HOSTIF_ST_FORMAT);
    return true;
  }
  sq_emit(fw, vi, &w);
  if (!datapath_raise(&fw->dp, datapath_EV_doorbell)) fw_fault(fw, HOSTIF_FAULT_RAISE_DOORBELL_SQ);
  //@ assert FW_BOUNDS(fw);
  //@ assert fw_ok(fw);
  return true;
}

void fw_sq_doorbell(struct fw *fw, unsigned vi) {
  if (vi == 0 || vi >= HOSTIF_NVI) return;
  fw_vim_set(&fw->sq_work, vi);
}

/* A connection with sends awaiting acknowledgement is watched, so that one broken by nicd
 * (peer gone) completes them. */
/*@ requires fw_ok(fw);
    assigns fw->vi[1 .. HOSTIF_NVI - 1], fw->ack_watch, fw->ack_work, fw->rst_work,
            fw->sram[HOSTIF_VI_ADDR(1) .. HOSTIF_VI_ADDR(HOSTIF_NVI) - 1];
    ensures fw_ok(fw); */
static void sq_watch(struct fw *fw) {
  /*@ loop invariant 1 <= vi <= HOSTIF_NVI && fw_ok(fw);
      loop assigns vi, fw->vi[1 .. HOSTIF_NVI - 1], fw->ack_watch, fw->ack_work, fw->rst_work,
                   fw->sram[HOSTIF_VI_ADDR(1) .. HOSTIF_VI_ADDR(HOSTIF_NVI) - 1];
      loop variant HOSTIF_NVI - vi; */
  for (unsigned vi = fw_vim_next(&fw->ack_watch, 1); vi < HOSTIF_NVI;
       vi = fw_vim_next(&fw->ack_watch, vi + 1)) {
    struct fw_vi_view w;
    fw_vi_sync(fw, vi, &w);
    //@ assert datapath_INV((&fw->dp));
    //@ assert FW_BOUNDS(fw);
    //@ assert fw_ok(fw);
  }
}

/* tx_head and tx_done are free-running: ring_count is the number of queued messages. The
 * round-robin start sq_rr % HOSTIF_NVI gives the same VI as sq_rr + i would (2^32 is a
 * multiple of HOSTIF_NVI) without the wrap. No loop variant for the outer loop: it runs while
 * hosts post descriptors that fail at once (each completes, freeing its slot). */
void fw_sq_pump(struct fw *fw) {
  fw_reliab_pump(fw);
  fw_ack_pump(fw);
  sq_watch(fw);
  /*@ loop invariant fw_ok(fw) && fw_same{Pre, Here}(fw);
      loop assigns *fw, \at(fw->sram, Pre)[0 .. FW_SRAM_END - 1], *fw_counters(\at(fw->sram, Pre)); */
  while (fw_vim_any(&fw->sq_work) && ring_count(fw->tx_head, fw->tx_done) < FW_TXQ) {
    /*@ loop invariant 0 <= i <= HOSTIF_NVI && fw_ok(fw) && fw_same{Pre, Here}(fw);
        loop assigns i, *fw, \at(fw->sram, Pre)[0 .. FW_SRAM_END - 1],
                     *fw_counters(\at(fw->sram, Pre));
        loop variant HOSTIF_NVI - i; */
    for (unsigned i = 0; i < HOSTIF_NVI && ring_count(fw->tx_head, fw->tx_done) < FW_TXQ; i++) {
      unsigned vi = (fw->sq_rr % HOSTIF_NVI + i) % HOSTIF_NVI;
      unsigned next = fw_vim_next(&fw->sq_work, vi);
      if (next != vi) {   /* on at the next VI with work, or at VI 0 (an empty mask: to the end) */
        unsigned skip = next - vi - 1u;
        i = i + skip < HOSTIF_NVI ? i + skip : HOSTIF_NVI - 1u;
        continue;
      }
      if (!sq_step(fw, vi)) fw_vim_clear(&fw->sq_work, vi);
    }
    fw->sq_rr = (fw->sq_rr % HOSTIF_NVI + 1) % HOSTIF_NVI;
  }
}

void fw_sq_msg_done(struct fw *fw, struct fw_txe *e) {
  struct fw_vi *v = &fw->vi[e->vi];
  struct fw_sqslot *sl = &v->slot[e->slot];
  fw_count64v(&fw_ctr(fw)->tx_msgs);
  fw_ctr_add(&fw_ctr(fw)->tx_bytes, e->hdr.len);
  if (e->gen != v->gen) return; /* its VI is gone */
  if (sl->inflight) sl->inflight--;
  if (e->status != HOSTIF_ST_DONE && sl->status == HOSTIF_ST_DONE) {
    sl->status = e->status;
    count_error(fw, e->status);
  }
  sq_retire(fw, e->vi);
  fw_vim_set(&fw->sq_work, e->vi); /* a slot may have come free for a waiting descriptor */
}

/* Sequence numbers are modulo FW_NSEQ: a is at or before b. */
static bool seq_le(uint32_t a, uint32_t b) { return a == b || fw_reliab_seq_lt(a, b); }

void fw_sq_acked(struct fw *fw, unsigned vi, uint32_t seq) {
  struct fw_vi *v = &fw->vi[vi];
  bool waiting = false;
  for (uint32_t i = v->sq_done; i != v->sq_cons; i = ring_next(i)) {
    struct fw_sqslot *sl = &v->slot[ring_slot(i)];
    if (sl->await_ack && seq_le(sl->last_seq, seq)) sl->await_ack = false;
    waiting |= sl->await_ack;
  }
  if (!waiting) fw_vim_clear(&fw->ack_watch, vi);
  sq_retire(fw, vi);
}

void fw_sq_refused(struct fw *fw, unsigned vi, uint32_t seq, uint32_t st) {
  struct fw_vi *v = &fw->vi[vi];
  bool hit = false;
  for (uint32_t i = v->sq_done; i != v->sq_cons; i = ring_next(i)) {
    struct fw_sqslot *sl = &v->slot[ring_slot(i)];
    /* arrived whole: its last message comes before the refused one (FIFO), or it was
     * acknowledged already (every message queued, none awaited: a message of it resent may
     * still be in the pipeline, so it is not yet retired) */
    bool before = sl->await_ack ? fw_reliab_seq_lt(sl->last_seq, seq) : sl->queued;
    sl->await_ack = false;
    if (before || sl->status != HOSTIF_ST_DONE) continue; /* arrived whole, or failed here */
    /* the transfer holding the refused message, then those after it: the connection broke */
    sl->status = (uint8_t)(hit ? HOSTIF_ST_DISCONNECTED : st);
    hit = true;
  }
  fw_vim_clear(&fw->ack_watch, vi);
  fw_vi_break(fw, vi);
  sq_retire(fw, vi);
}
