/* fw_sq.c: NIC-side VIA, send queues. A doorbell marks a VI as having work; the pump takes
 * the VIs round-robin, fetches each new descriptor once (a snapshot: what the host writes
 * afterwards does not matter), validates it (fw_check.c), and splits the transfer into
 * data-path messages of at most FW_MAX_PAYLOAD bytes, each queued with its wire header and
 * the host pieces it comes from, and announced to SDMA with a `doorbell` event. When the last
 * message of a descriptor has left (tx_complete), its completion is written; completions are
 * published in ring order (`done`), a failed descriptor waiting for earlier ones. On a Reliable
 * Delivery VI a descriptor also waits for the peer's acknowledgement of its last message
 * (fw_ack.c); a connection that breaks meanwhile completes it DISCONNECTED. Freestanding. */
#include "fw_vi.h"

static void sq_retire(struct fw *fw, unsigned vi);

/* Sends awaiting an acknowledgement on a connection that is gone will never get one. */
static void sq_unack_all(struct fw *fw, unsigned vi, uint32_t st) {
  struct fw_vi *v = &fw->vi[vi];
  for (uint32_t i = v->sq_done; i != v->sq_cons; i++) {
    struct fw_sqslot *sl = &v->slot[i % HOSTIF_RING];
    if (!sl->await_ack) continue;
    sl->await_ack = false;
    if (sl->status == HOSTIF_ST_DONE) sl->status = (uint8_t)st;
  }
  fw->ack_watch &= ~(1u << vi);
  sq_retire(fw, vi);
}

static uint32_t conn_key(const struct fw_vi_view *w) {
  return w->state | (uint32_t)w->remote_node << 4 | (uint32_t)w->remote_vi << 20;
}

/* A new VI in the entry: what the firmware had of the old one is dropped, never reported
 * into the new one's rings (its messages still in the pipeline retire silently). */
static void vi_forget(struct fw *fw, unsigned vi, uint32_t gen) {
  struct fw_vi *v = &fw->vi[vi];
  for (unsigned i = 0; i < HOSTIF_RING; i++) {
    v->slot[i].inflight = 0;
    v->slot[i].queued = false;
    v->slot[i].await_ack = false;
  }
  v->have = false;
  v->rx_active = false;
  v->ack_due = false;
  v->nack_status = 0;
  v->gen = gen;
  v->sq_cons = v->sq_done = fw_rd32(fw, FW_RING_CONS(vi, sq));
  v->rq_done = fw_rd32(fw, FW_RING_DONE(vi, rq));
  fw->ack_watch &= ~(1u << vi);
  fw->ack_work &= ~(1u << vi);
}

void fw_vi_sync(struct fw *fw, unsigned vi, struct fw_vi_view *w) {
  struct fw_vi *v = &fw->vi[vi];
  fw_vi_read(fw, vi, w);
  if (w->gen != v->gen) vi_forget(fw, vi, w->gen);
  uint32_t key = conn_key(w);
  if (key != v->conn_key) {
    v->conn_key = key;
    v->tx_seq = 0;
    v->rx_active = false;
    if (fw->ack_watch & (1u << vi)) sq_unack_all(fw, vi, HOSTIF_ST_DISCONNECTED);
  }
  /* Rings re-initialised by the host (a new VI in this entry): adopt them when idle. */
  uint32_t sc = fw_rd32(fw, FW_RING_CONS(vi, sq)), sd = fw_rd32(fw, FW_RING_DONE(vi, sq));
  if ((sc != v->sq_cons || sd != v->sq_done) && !v->have && v->sq_cons == v->sq_done) {
    v->sq_cons = sc;
    v->sq_done = sc;
    fw_wr32(fw, FW_RING_DONE(vi, sq), sc);
  }
  uint32_t rd = fw_rd32(fw, FW_RING_DONE(vi, rq));
  if (rd != v->rq_done && !v->rx_active) {
    v->rq_done = rd;
    fw_wr32(fw, FW_RING_CONS(vi, rq), rd);
  }
}

/* Publishes the completions that are ready, in ring order. */
static void sq_retire(struct fw *fw, unsigned vi) {
  struct fw_vi *v = &fw->vi[vi];
  bool any = false;
  while (ring_nonempty(v->sq_cons, v->sq_done)) {
    struct fw_sqslot *sl = &v->slot[ring_slot(v->sq_done)];
    if (!sl->queued || sl->inflight || sl->await_ack) break;
    fw_complete_slot(fw, FW_SLOT_ADDR(vi, sq, v->sq_done), sl->status,
                     sl->status == HOSTIF_ST_DONE ? sl->len : 0, 0, 0);
    v->sq_done = ring_next(v->sq_done);
    fw_release();
    fw_wr32(fw, FW_RING_DONE(vi, sq), v->sq_done);
    any = true;
  }
  if (any) fwb_signal_host(fw->board, HOSTIF_SIG_VI(vi));
}

static void count_error(struct fw *fw, uint32_t st) {
  if (st == HOSTIF_ST_PROTECTION) fw_ctr(fw)->protection_errors++;
  if (st == HOSTIF_ST_FORMAT) fw_ctr(fw)->format_errors++;
}

/* Ends the descriptor being split with status st (after the messages already queued). */
static void sq_abort(struct fw *fw, unsigned vi, uint32_t st) {
  struct fw_vi *v = &fw->vi[vi];
  struct fw_sqslot *sl = &v->slot[ring_slot(ring_prev(v->sq_cons))];
  v->have = false;
  sl->queued = true;
  if (sl->status == HOSTIF_ST_DONE) sl->status = (uint8_t)st;
  count_error(fw, st);
  sq_retire(fw, vi);
}

/* Fetches the next descriptor of a VI if none is being split. false: nothing to fetch. */
static bool sq_fetch(struct fw *fw, unsigned vi, struct fw_vi_view *w) {
  struct fw_vi *v = &fw->vi[vi];
  uint32_t prod = fw_rd32(fw, FW_RING_PROD(vi, sq));
  fw_acquire();
  if (!ring_nonempty(prod, v->sq_cons)) return false;
  if (!ring_may_produce(v->sq_cons, v->sq_done)) return false; /* every slot awaits completion */
  uint32_t at = FW_SLOT_ADDR(vi, sq, v->sq_cons);
  fw_sram_in(fw, &v->desc, at, (uint32_t)offsetof(struct hostif_desc, status));
  struct fw_sqslot *sl = &v->slot[ring_slot(v->sq_cons)];
  sl->inflight = 0;
  sl->queued = false;
  sl->await_ack = false;
  sl->status = HOSTIF_ST_DONE;
  sl->len = v->desc.length;
  v->sq_cons = ring_next(v->sq_cons);
  fw_wr32(fw, FW_RING_CONS(vi, sq), v->sq_cons);
  v->have = true;
  v->off = 0;
  uint32_t st = fw_check_desc(fw, &v->desc, w->ptag, true);
  if (st == HOSTIF_ST_DONE && w->state != HOSTIF_VI_CONNECTED) st = HOSTIF_ST_DISCONNECTED;
  if (st != HOSTIF_ST_DONE) sq_abort(fw, vi, st);
  return true;
}

/* Queues the next message of the descriptor being split. */
static void sq_emit(struct fw *fw, unsigned vi, const struct fw_vi_view *w) {
  struct fw_vi *v = &fw->vi[vi];
  const struct hostif_desc *d = &v->desc;
  uint32_t left = d->length - v->off;
  uint32_t plen = left < FW_MAX_PAYLOAD ? left : FW_MAX_PAYLOAD;
  struct fw_txe *e = &fw->txq[fw->tx_head % FW_TXQ];
  e->vi = (uint8_t)vi;
  e->slot = (uint8_t)ring_slot(ring_prev(v->sq_cons));
  e->status = HOSTIF_ST_DONE;
  e->trailer_done = false;
  e->local = false;
  e->stage = FW_LOCAL_SLOTS;
  e->gen = v->gen;
  e->sum = 0;
  e->npiece = (uint8_t)fw_desc_pieces(d, v->off, plen, e->piece, HOSTIF_MAXSEG);
  struct fw_wire_hdr *h = &e->hdr;
  h->type = d->op == HOSTIF_OP_SEND ? FW_WIRE_DATA : FW_WIRE_RDMA_WRITE;
  h->flags = (uint16_t)((v->off == 0 ? FW_WIRE_F_FIRST : 0) |
                        (v->off + plen == d->length ? FW_WIRE_F_LAST : 0) |
                        ((d->flags & HOSTIF_F_IMMEDIATE) ? FW_WIRE_F_IMM : 0));
  h->src_node = fw->node;
  h->dst_node = w->remote_node;
  h->src_vi = (uint16_t)vi;
  h->dst_vi = w->remote_vi;
  h->seq = v->tx_seq++;
  h->ack = 0;
  h->len = plen;
  h->imm = (d->flags & HOSTIF_F_IMMEDIATE) ? d->imm : 0;
  h->msg_off = v->off;
  h->msg_len = d->length;
  h->rdma_handle = d->op == HOSTIF_OP_RDMA_WRITE ? d->rdma_ptag : 0;
  h->rdma_addr = d->op == HOSTIF_OP_RDMA_WRITE ? d->rdma_addr : 0;
  if (w->reliability == HOSTIF_RELIABLE_DELIVERY && (h->flags & FW_WIRE_F_LAST)) {
    h->flags |= FW_WIRE_F_ACKREQ;
    v->slot[e->slot].await_ack = true;
    v->slot[e->slot].last_seq = h->seq;
    fw->ack_watch |= 1u << vi;
  }
  fw->tx_head++;
  v->slot[e->slot].inflight++;
  v->off += plen;
  if (v->off == d->length) {
    v->have = false;
    v->slot[e->slot].queued = true;
  }
  if (!datapath_raise(&fw->dp, datapath_EV_doorbell)) fw_count32(&fw->faults);
}

/* One step of work for a VI: false when it has nothing more to do. */
static bool sq_step(struct fw *fw, unsigned vi) {
  struct fw_vi *v = &fw->vi[vi];
  struct fw_vi_view w;
  fw_vi_sync(fw, vi, &w);
  if (!v->have && !sq_fetch(fw, vi, &w)) return false;
  if (!v->have) return true; /* fetched, and it failed validation */
  if (w.state != HOSTIF_VI_CONNECTED) {
    sq_abort(fw, vi, HOSTIF_ST_DISCONNECTED);
    return true;
  }
  sq_emit(fw, vi, &w);
  return true;
}

void fw_sq_doorbell(struct fw *fw, unsigned vi) {
  if (vi == 0 || vi >= HOSTIF_NVI) return;
  fw->sq_work |= 1u << vi;
}

/* A connection with sends awaiting acknowledgement is watched, so that one broken by nicd
 * (peer gone) completes them. */
static void sq_watch(struct fw *fw) {
  for (unsigned vi = 1; vi < HOSTIF_NVI && fw->ack_watch; vi++)
    if (fw->ack_watch & (1u << vi)) {
      struct fw_vi_view w;
      fw_vi_sync(fw, vi, &w);
    }
}

void fw_sq_pump(struct fw *fw) {
  fw_ack_pump(fw);
  sq_watch(fw);
  while (fw->sq_work && fw->tx_head - fw->tx_done < FW_TXQ) {
    for (unsigned i = 0; i < HOSTIF_NVI && fw->tx_head - fw->tx_done < FW_TXQ; i++) {
      unsigned vi = (fw->sq_rr + i) % HOSTIF_NVI;
      if (!(fw->sq_work & (1u << vi))) continue;
      if (!sq_step(fw, vi)) fw->sq_work &= ~(1u << vi);
    }
    fw->sq_rr = (fw->sq_rr + 1) % HOSTIF_NVI;
  }
}

void fw_sq_msg_done(struct fw *fw, struct fw_txe *e) {
  struct fw_vi *v = &fw->vi[e->vi];
  struct fw_sqslot *sl = &v->slot[e->slot];
  fw_ctr(fw)->tx_msgs++;
  fw_ctr(fw)->tx_bytes += e->hdr.len;
  if (e->gen != v->gen) return; /* its VI is gone */
  if (sl->inflight) sl->inflight--;
  if (e->status != HOSTIF_ST_DONE && sl->status == HOSTIF_ST_DONE) {
    sl->status = e->status;
    count_error(fw, e->status);
  }
  sq_retire(fw, e->vi);
  fw->sq_work |= 1u << e->vi; /* a slot may have come free for a waiting descriptor */
}

/* Sequence numbers are free-running: a is at or before b. */
static bool seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }

void fw_sq_acked(struct fw *fw, unsigned vi, uint32_t seq) {
  struct fw_vi *v = &fw->vi[vi];
  bool waiting = false;
  for (uint32_t i = v->sq_done; i != v->sq_cons; i++) {
    struct fw_sqslot *sl = &v->slot[i % HOSTIF_RING];
    if (sl->await_ack && seq_le(sl->last_seq, seq)) sl->await_ack = false;
    waiting |= sl->await_ack;
  }
  if (!waiting) fw->ack_watch &= ~(1u << vi);
  sq_retire(fw, vi);
}

void fw_sq_refused(struct fw *fw, unsigned vi, uint32_t seq, uint32_t st) {
  struct fw_vi *v = &fw->vi[vi];
  bool hit = false;
  for (uint32_t i = v->sq_done; i != v->sq_cons; i++) {
    struct fw_sqslot *sl = &v->slot[i % HOSTIF_RING];
    bool before = sl->await_ack && (int32_t)(sl->last_seq - seq) < 0;
    sl->await_ack = false;
    if (before || sl->status != HOSTIF_ST_DONE) continue; /* arrived whole (FIFO), or failed here */
    /* the transfer holding the refused message, then those after it: the connection broke */
    sl->status = (uint8_t)(hit ? HOSTIF_ST_DISCONNECTED : st);
    hit = true;
  }
  fw->ack_watch &= ~(1u << vi);
  fw_vi_break(fw, vi);
  sq_retire(fw, vi);
}
