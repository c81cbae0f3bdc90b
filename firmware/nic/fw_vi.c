/* fw_vi.c: the firmware's private state of each VI kept in step with its entry in the SRAM VI
 * table, which a host may destroy and re-create and nicd may connect or disconnect while the
 * firmware runs; and breaking a connection from this side. Freestanding. */
#include "fw_vi.h"

#include "fw_dgctx.h"
#include "fw_reliab.h"
#include "fw_rq.h"
#include "fw_sq.h"

/* The connection a VI entry describes (the remote VI's top bits do not fit; the product is
 * the shift the compiler emits). */
/*@ requires \valid_read(w);
    assigns \nothing; */
static uint32_t conn_key(const struct fw_vi_view *w) {
  return w->state | (uint32_t)w->remote_node * 16u | (uint32_t)(w->remote_vi % 4096u) * 1048576u;
}

/* A new VI in the entry: what the firmware had of the old one is dropped, never reported
 * into the new one's rings (its messages still in the pipeline retire silently). */
/*@ requires fw_sram_ok(fw) && vi < HOSTIF_NVI;
    assigns fw->vi[vi], fw->ack_watch, fw->ack_work; */
static void vi_forget(struct fw *fw, unsigned vi, uint32_t gen) {
  struct fw_vi *v = &fw->vi[vi];
  /*@ loop invariant 0 <= i <= HOSTIF_RING;
      loop assigns i, v->slot[0 .. HOSTIF_RING - 1];
      loop variant HOSTIF_RING - i; */
  for (unsigned i = 0; i < HOSTIF_RING; i++) {
    v->slot[i].inflight = 0;
    v->slot[i].queued = false;
    v->slot[i].await_ack = false;
  }
  v->have = false;
  v->rx_active = false;
  v->ack_due = false;
  v->nack_status = 0;
  v->rst_want = false;
  fw_vim_clear(&fw->rst_work, vi);
  v->gen = gen;
  v->sq_cons = v->sq_done = fw_sram_rd32(fw, FW_RING_CONS(vi, sq));
  v->rq_done = fw_sram_rd32(fw, FW_RING_DONE(vi, rq));
  fw_dgctx_reset(fw, vi);
  fw_vim_clear(&fw->ack_watch, vi);
  fw_vim_clear(&fw->ack_work, vi);
}

/* The peer left the connection (nicd set this VI ERROR): what the peer's NIC had delivered by
 * then, which nicd copied into sq.rel_seq, is the peer's last acknowledgement, so that a send
 * its host received completes DONE even when the ACK itself is still on the way. */
static void peer_delivered(struct fw *fw, unsigned vi) {
  uint32_t s = fw_sram_rd32(fw, FW_RING_REL_SEQ(vi, sq));
  if (!(s & HOSTIF_REL_SEQ_VALID)) return;
  fw_sram_wr32(fw, FW_RING_REL_SEQ(vi, sq), 0);
  fw_reliab_rx_ack(fw, vi, s & ~HOSTIF_REL_SEQ_VALID);
}

void fw_vi_sync(struct fw *fw, unsigned vi, struct fw_vi_view *w) {
  struct fw_vi *v = &fw->vi[vi];
  fw_vi_read(fw, vi, w);
  bool fresh = w->gen != v->gen;
  if (fresh) vi_forget(fw, vi, w->gen);
  uint32_t key = conn_key(w);
  if (fresh || key != v->conn_key || w->conn != v->conn) {
    if (!fresh && w->state == HOSTIF_VI_ERROR) peer_delivered(fw, vi);
    v->conn_key = key;
    v->conn = w->conn;
    v->tx_seq = 0;
    v->rx_active = false;
    if (fw_vim_has(&fw->ack_watch, vi)) fw_sq_unack_all(fw, vi, HOSTIF_ST_DISCONNECTED);
    fw_reliab_reset(fw, vi, w);
  }
  /* Rings re-initialised by the host (a new VI in this entry): adopt them when idle. */
  uint32_t sc = fw_sram_rd32(fw, FW_RING_CONS(vi, sq)), sd = fw_sram_rd32(fw, FW_RING_DONE(vi, sq));
  uint32_t rd = fw_sram_rd32(fw, FW_RING_DONE(vi, rq));
  /* A host making a new VI in the entry bumps the generation, then zeroes the rings: indices
   * read after the generation may be the new VI's. Adopted as this VI's, they let the old
   * producer index (read before) take the new ring's first slot as posted; its send was
   * aborted unseen and the host's first descriptor skipped (a SOVIA WAKEUP: its request then
   * went out in its place). So nothing is adopted unless the generation is still the one
   * read; the next sync finds the new VI and forgets the old one whole. */
  fw_sram_acquire();
  if (fw_sram_rd32(fw, FW_VI_FIELD(vi, generation)) != w->gen) return;
  if ((sc != v->sq_cons || sd != v->sq_done) && !v->have && v->sq_cons == v->sq_done) {
    v->sq_cons = sc;
    v->sq_done = sc;
    fw_sram_wr32(fw, FW_RING_DONE(vi, sq), sc);
  }
  if (rd != v->rq_done && !v->rx_active) {
    v->rq_done = rd;
    fw_sram_wr32(fw, FW_RING_CONS(vi, rq), rd);
  }
}

void fw_vi_break(struct fw *fw, unsigned vi) {
  if (fw_sram_rd32(fw, FW_VI_FIELD(vi, state)) != HOSTIF_VI_CONNECTED) return;
  fw_sram_release();
  fw_sram_wr32(fw, FW_VI_FIELD(vi, state), HOSTIF_VI_ERROR);
  fw_count64v(&fw_ctr(fw)->conn_broken);
  fw_rq_flush(fw, vi);
  fw_reliab_broken(fw, vi);
}
