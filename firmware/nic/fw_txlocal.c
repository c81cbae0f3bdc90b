/* fw_txlocal.c: messages the firmware sends of its own accord (acknowledgements, PANIC VM
 * packets). They share the send queue and the data path with VIA messages: SDMA's host DMA
 * step finds no host pieces and completes at once, so the payload must already be in the
 * send buffer. It is copied into an SRAM staging slot when queued (the caller's buffer may
 * change right after) and from there into the send buffer when SDMA binds the message.
 * Contracts in fw_txlocal.h (proofs/modules.conf, module fw-txlocal). Freestanding. */
#include "fw_txlocal.h"

#include "fw_sram.h"

/* The parts of fw_ok (fw.h) that a write to the firmware state could break, spelled out for
 * `-wp-split`: the bounds (FW_BOUNDS, fw.h) and the data path invariant (datapath_INV reads
 * only 8- and 16-bit fields). */
#define FW_OK_SPELLED(fw) (datapath_INV((&(fw)->dp)) && FW_BOUNDS(fw))

/* The lowest free staging slot, now busy; -1 if all are busy. */
/*@ requires \valid(fw);
    assigns fw->stage_busy[0 .. FW_LOCAL_SLOTS - 1];
    behavior full:
      assumes \forall integer s; 0 <= s < FW_LOCAL_SLOTS ==> fw->stage_busy[s];
      assigns \nothing;
      ensures \result == -1;
      ensures \forall integer s; 0 <= s < FW_LOCAL_SLOTS ==>
                fw->stage_busy[s] == \old(fw->stage_busy[s]);
    behavior taken:
      assumes \exists integer s; 0 <= s < FW_LOCAL_SLOTS && !fw->stage_busy[s];
      ensures 0 <= \result < FW_LOCAL_SLOTS;
      ensures !\old(fw->stage_busy[\result]) && fw->stage_busy[\result];
      ensures \forall integer s; 0 <= s < FW_LOCAL_SLOTS && s != \result ==>
                fw->stage_busy[s] == \old(fw->stage_busy[s]);
    complete behaviors;
    disjoint behaviors; */
static int stage_take(struct fw *fw) {
  /*@ loop invariant 0 <= i <= FW_LOCAL_SLOTS;
      loop invariant \forall integer s; 0 <= s < i ==> fw->stage_busy[s];
      loop assigns i;
      loop variant FW_LOCAL_SLOTS - i; */
  for (unsigned i = 0; i < FW_LOCAL_SLOTS; i++)
    if (!fw->stage_busy[i]) {
      fw->stage_busy[i] = true;
      return (int)i;
    }
  return -1;
}

/* Copies n payload bytes from src to SRAM address at. */
/*@ requires fw_ok(fw) && fw_stage_ok(fw) && at + n <= FW_SRAM_END;
    requires \valid_read(src + (0 .. n - 1)) &&
             \separated(src + (0 .. n - 1), fw->sram + (at .. at + n - 1));
    assigns fw->sram[at .. at + n - 1];
    ensures fw_ok(fw) && fw_stage_ok(fw);
    ensures fw_copied{Here, Old}(fw->sram + at, src, n); */
static void sram_put(struct fw *fw, uint32_t at, const uint8_t *src, uint32_t n) {
  uint8_t *dst = fw->sram + at;
  /* fw_ok in the loop invariant: one byte's write is cheaper to frame than the whole range */
  /*@ loop invariant 0 <= i <= n && fw_ok(fw) && fw_stage_ok(fw);
      loop invariant fw_copied{Here, Pre}(dst, src, i);
      loop assigns i, dst[0 .. n - 1];
      loop variant n - i; */
  for (uint32_t i = 0; i < n; i++) {
    //@ assert \separated(dst + i, fw);
    dst[i] = src[i];
  }
}

/* The header of a local message: h as given, from node, one message of h->len bytes. */
/*@ requires \valid(d) && \valid_read(h) && \separated(d, h);
    assigns *d;
    ensures d->len == \old(h->len) && d->src_node == node; */
static void hdr_put(struct fw_wire_hdr *d, const struct fw_wire_hdr *h, uint16_t node) {
  *d = *h;
  d->src_node = node;
  d->msg_off = 0;
  d->msg_len = h->len;
}

/* Fills a queue entry with a local message: header h from node, its payload in staging slot
 * stage (FW_LOCAL_SLOTS: none). This and hdr_put are functions of their own so that the
 * caller's proof sees one write of the whole entry, whose frame is quick to prove. */
/*@ requires \valid(e) && \valid_read(h) && \separated(e, h) && stage <= FW_LOCAL_SLOTS;
    assigns *e;
    ensures e->local && e->stage == stage && e->hdr.len == \old(h->len) &&
            e->hdr.src_node == node; */
static void txe_fill(struct fw_txe *e, const struct fw_wire_hdr *h, unsigned stage,
                     uint16_t node) {
  hdr_put(&e->hdr, h, node);
  e->vi = 0;
  e->slot = 0;
  e->status = HOSTIF_ST_DONE;
  e->npiece = 0;
  e->trailer_done = false;
  e->local = true;
  e->stage = (uint8_t)stage;
  e->sum = 0;
}

/* Entry idx of the send queue gets header h and staging slot stage, held by no other entry. */
/*@ requires fw_ok(fw) && fw_stage_ok(fw) && idx < FW_TXQ;
    requires \valid_read(h) && \separated(h, fw) && h->len <= FW_MAX_PAYLOAD;
    requires stage <= FW_LOCAL_SLOTS;
    requires stage < FW_LOCAL_SLOTS ==> fw->stage_busy[stage] &&
             \forall integer k; 0 <= k < FW_TXQ && fw->txq[k].local ==> fw->txq[k].stage != stage;
    assigns fw->txq[idx];
    ensures fw_ok(fw) && fw_stage_ok(fw);
    ensures fw->txq[idx].local && fw->txq[idx].stage == stage &&
            fw->txq[idx].hdr.len == \old(h->len); */
static void entry_put(struct fw *fw, uint32_t idx, const struct fw_wire_hdr *h, unsigned stage) {
  txe_fill(&fw->txq[idx], h, stage, fw->node);
  /* The other entries and the slots' states are as they were, hence fw_stage_ok. */
  /*@ assert \forall integer k; 0 <= k < FW_TXQ && k != idx ==>
        fw->txq[k].local == \at(fw->txq[k].local, Pre) &&
        fw->txq[k].stage == \at(fw->txq[k].stage, Pre) &&
        fw->txq[k].hdr.len == \at(fw->txq[k].hdr.len, Pre); */
  /*@ assert \forall integer t; 0 <= t < FW_LOCAL_SLOTS ==>
        fw->stage_busy[t] == \at(fw->stage_busy[t], Pre); */
  //@ assert fw_stage_held(fw);
  //@ assert fw_stage_unique(fw);
  //@ assert FW_OK_SPELLED(fw);
}

/* The queued message becomes visible: tx_head moves on, the data path hears the doorbell. */
/*@ requires fw_ok(fw) && fw_stage_ok(fw);
    assigns fw->tx_head, fw->dp.pending[datapath_EV_doorbell],
            fw->dp.overflow[datapath_EV_doorbell], fw->faults, fw->fault_n[0 .. HOSTIF_FAULT_N - 1], fw->fault_last;
    ensures fw_ok(fw) && fw_stage_ok(fw);
    ensures fw->tx_head == (\old(fw->tx_head) + 1) % 4294967296; */
static void publish(struct fw *fw) {
  fw->tx_head = ring_next(fw->tx_head);
  if (!datapath_raise(&fw->dp, datapath_EV_doorbell)) fw_fault(fw, HOSTIF_FAULT_RAISE_DOORBELL_LOCAL);
  /*@ assert \forall integer k; 0 <= k < FW_TXQ ==>
        fw->txq[k].stage == \at(fw->txq[k].stage, Pre) &&
        fw->txq[k].hdr.len == \at(fw->txq[k].hdr.len, Pre); */
  //@ assert FW_BOUNDS(fw);
}

/* Queues the message: the entry at tx_head gets header h and staging slot stage, the slot
 * gets the payload, and the entry is published. */
/*@ requires fw_ok(fw) && fw_stage_ok(fw);
    requires \valid_read(h) && \separated(h, fw) && h->len <= FW_MAX_PAYLOAD;
    requires stage <= FW_LOCAL_SLOTS && (h->len > 0 ==> stage < FW_LOCAL_SLOTS);
    requires stage < FW_LOCAL_SLOTS ==> fw->stage_busy[stage] &&
             \forall integer k; 0 <= k < FW_TXQ && fw->txq[k].local ==> fw->txq[k].stage != stage;
    requires \valid_read(payload + (0 .. h->len - 1)) &&
             \separated(payload + (0 .. h->len - 1), fw) &&
             \separated(payload + (0 .. h->len - 1),
                        fw->sram + (FW_LOCAL_ADDR(stage) .. FW_LOCAL_ADDR(stage) + h->len - 1));
    assigns fw->txq[fw->tx_head % FW_TXQ], fw->tx_head,
            fw->sram[FW_LOCAL_ADDR(stage) .. FW_LOCAL_ADDR(stage) + h->len - 1],
            fw->dp.pending[datapath_EV_doorbell], fw->dp.overflow[datapath_EV_doorbell],
            fw->faults, fw->fault_n[0 .. HOSTIF_FAULT_N - 1], fw->fault_last;
    ensures fw_ok(fw) && fw_stage_ok(fw);
    ensures fw->tx_head == (\old(fw->tx_head) + 1) % 4294967296;
    ensures fw->txq[\old(fw->tx_head) % FW_TXQ].local &&
            fw->txq[\old(fw->tx_head) % FW_TXQ].stage == stage &&
            fw->txq[\old(fw->tx_head) % FW_TXQ].hdr.len == h->len;
    ensures fw_copied{Here, Old}(fw->sram + FW_LOCAL_ADDR(stage), payload, h->len); */
static void queue(struct fw *fw, const struct fw_wire_hdr *h, const uint8_t *payload,
                  unsigned stage) {
  uint32_t len = h->len;
  entry_put(fw, fw->tx_head % FW_TXQ, h, stage);
  sram_put(fw, FW_LOCAL_ADDR(stage), payload, len); /* nothing when len is 0 */
  publish(fw);
}

bool fw_txlocal_queue(struct fw *fw, const struct fw_wire_hdr *h, const uint8_t *payload) {
  /* tx_head and tx_done are free-running: ring_count is tx_head - tx_done modulo 2^32. */
  if (ring_count(fw->tx_head, fw->tx_done) >= FW_TXQ || h->len > FW_MAX_PAYLOAD) return false;
  int stage = FW_LOCAL_SLOTS;
  if (h->len) {
    stage = stage_take(fw);
    if (stage < 0) return false;
  }
  queue(fw, h, payload, (unsigned)stage);
  return true;
}

void fw_txlocal_bind(struct fw *fw, struct fw_txe *e, unsigned buf) {
  unsigned stage = e->stage;
  uint32_t len = e->hdr.len;
  if (stage >= FW_LOCAL_SLOTS) return;
  const uint8_t *src = fw->sram + FW_LOCAL_ADDR(stage);
  sram_put(fw, FW_SBUF_ADDR(buf) + FW_WIRE_HDR_LEN, src, len);
  e->sum = fw_wire_csum(src, len);
  fw->stage_busy[stage] = false;
  e->stage = FW_LOCAL_SLOTS;
  //@ assert FW_OK_SPELLED(fw);
}

void fw_txlocal_done(struct fw *fw, struct fw_txe *e) {
  volatile struct hostif_counters *c = fw_ctr(fw);
  if (e->hdr.type == FW_WIRE_ACK) fw_count64v(&c->tx_acks); /* saturating */
  else if (e->hdr.type == FW_WIRE_NACK) fw_count64v(&c->tx_nacks);
  e->local = false;
}
