/* fw_txlocal.h: messages the firmware sends of its own accord (fw_txlocal.c; proved, module
 * fw-txlocal). Freestanding. */
#ifndef FW_TXLOCAL_H
#define FW_TXLOCAL_H

#include "fw.h"

/* A local message with a payload holds
 * a staging slot (FW_LOCAL_ADDR) from fw_txlocal_queue until fw_txlocal_bind. fw_stage_ok: each
 * local queue entry holding a slot has it marked busy and a payload that fits it, and no two
 * such entries share a slot. fw_init establishes it (no entry local), fw_sq.c's entries hold no
 * slot, and the three functions below keep it. */
/*@ // d[0 .. n-1] at L1 holds what s[0 .. n-1] held at L2 (a predicate: quantified facts
    // indexed by arithmetic are hard for the provers to instantiate, proofs/README.md)
    predicate fw_copied{L1, L2}(uint8_t *d, uint8_t *s, integer n) =
      \forall integer j; 0 <= j < n ==> \at(d[j], L1) == \at(s[j], L2);
    predicate fw_stage_held(struct fw *fw) =
      \forall integer k; 0 <= k < FW_TXQ && fw->txq[k].local &&
        fw->txq[k].stage < FW_LOCAL_SLOTS ==>
        fw->stage_busy[fw->txq[k].stage] && fw->txq[k].hdr.len <= FW_MAX_PAYLOAD;
    predicate fw_stage_unique(struct fw *fw) =
      \forall integer k, l; 0 <= k < FW_TXQ && 0 <= l < FW_TXQ && k != l &&
        fw->txq[k].local && fw->txq[l].local && fw->txq[k].stage < FW_LOCAL_SLOTS ==>
        fw->txq[k].stage != fw->txq[l].stage;
    predicate fw_stage_ok(struct fw *fw) = fw_stage_held(fw) && fw_stage_unique(fw);
*/

/* Queues a message of the firmware's own (header as given, src_node filled in; payload copied
 * now, h->len bytes, into a staging slot). false, and nothing queued, if the send queue or the
 * payload staging is full (or h->len > FW_MAX_PAYLOAD): the caller keeps its work and retries
 * after fw_sq_pump. */
/*@ requires fw_ok(fw) && fw_stage_ok(fw);
    requires \valid_read(h) && \separated(h, fw);
    requires h->len <= FW_MAX_PAYLOAD ==> \valid_read(payload + (0 .. h->len - 1)) &&
             \separated(payload + (0 .. h->len - 1), fw) &&
             \separated(payload + (0 .. h->len - 1),
                        fw->sram + (FW_LOCAL_ADDR(0) .. FW_SRAM_END - 1));
    assigns fw->txq[fw->tx_head % FW_TXQ], fw->tx_head, fw->stage_busy[0 .. FW_LOCAL_SLOTS - 1],
            fw->sram[FW_LOCAL_ADDR(0) .. FW_SRAM_END - 1],
            fw->dp.pending[datapath_EV_doorbell], fw->dp.overflow[datapath_EV_doorbell],
            fw->faults, fw->fault_n[0 .. HOSTIF_FAULT_N - 1], fw->fault_last;
    ensures fw_ok(fw) && fw_stage_ok(fw) && fw_same{Old, Here}(fw);
    // (tx_head - tx_done) mod 2^32: the entries queued and not yet retired
    behavior refused:
      assumes (fw->tx_head - fw->tx_done + 4294967296) % 4294967296 >= FW_TXQ ||
              h->len > FW_MAX_PAYLOAD ||
              (0 < h->len && \forall integer s; 0 <= s < FW_LOCAL_SLOTS ==> fw->stage_busy[s]);
      assigns fw->stage_busy[0 .. FW_LOCAL_SLOTS - 1];
      ensures !\result && \forall integer s; 0 <= s < FW_LOCAL_SLOTS ==>
                fw->stage_busy[s] == \old(fw->stage_busy[s]);
    behavior queued:
      assumes (fw->tx_head - fw->tx_done + 4294967296) % 4294967296 < FW_TXQ &&
              h->len <= FW_MAX_PAYLOAD &&
              (h->len == 0 || \exists integer s; 0 <= s < FW_LOCAL_SLOTS && !fw->stage_busy[s]);
      ensures \result && fw->tx_head == (\old(fw->tx_head) + 1) % 4294967296;
      ensures fw->txq[\old(fw->tx_head) % FW_TXQ].local &&
              fw->txq[\old(fw->tx_head) % FW_TXQ].hdr.len == h->len;
      // With a payload: a slot that was free, now busy and holding the payload; the other
      // slots as they were.
      ensures h->len > 0 ==> \let s = fw->txq[\old(fw->tx_head) % FW_TXQ].stage;
              s < FW_LOCAL_SLOTS && !\old(fw->stage_busy[s]) && fw->stage_busy[s] &&
              (\forall integer t; 0 <= t < FW_LOCAL_SLOTS && t != s ==>
                 fw->stage_busy[t] == \old(fw->stage_busy[t])) &&
              fw_copied{Here, Old}(fw->sram + FW_LOCAL_ADDR(s), payload, h->len) &&
              (\forall integer a; FW_LOCAL_ADDR(0) <= a < FW_SRAM_END &&
                 !(FW_LOCAL_ADDR(s) <= a < FW_LOCAL_ADDR(s) + h->len) ==>
                 fw->sram[a] == \old(fw->sram[a]));
      ensures h->len == 0 ==> fw->txq[\old(fw->tx_head) % FW_TXQ].stage == FW_LOCAL_SLOTS &&
              (\forall integer t; 0 <= t < FW_LOCAL_SLOTS ==>
                 fw->stage_busy[t] == \old(fw->stage_busy[t])) &&
              (\forall integer a; FW_LOCAL_ADDR(0) <= a < FW_SRAM_END ==>
                 fw->sram[a] == \old(fw->sram[a]));
    complete behaviors;
    disjoint behaviors; */
bool fw_txlocal_queue(struct fw *fw, const struct fw_wire_hdr *h, const uint8_t *payload);
/* tx_len for a local message (e, in the send queue): copies its payload from its staging slot
 * into send buffer buf after the header, sums it, and frees the slot. */
/*@ requires fw_ok(fw) && fw_stage_ok(fw) && buf < FW_NSBUF;
    requires (\exists integer k; 0 <= k < FW_TXQ && e == &fw->txq[k]) && e->local;
    assigns fw->stage_busy[0 .. FW_LOCAL_SLOTS - 1], e->stage, e->sum,
            fw->sram[FW_SBUF_ADDR(buf) + FW_WIRE_HDR_LEN ..
                     FW_SBUF_ADDR(buf) + FW_WIRE_HDR_LEN + e->hdr.len - 1];
    ensures fw_ok(fw) && fw_stage_ok(fw) && e->stage >= FW_LOCAL_SLOTS;
    behavior staged:
      assumes e->stage < FW_LOCAL_SLOTS;
      // the payload (in the send buffer, ahead of its trailer) ...
      ensures FW_SBUF_ADDR(buf) + FW_WIRE_HDR_LEN + e->hdr.len + FW_TRAILER <=
              FW_SBUF_ADDR(buf) + FW_BUF_STRIDE <= FW_SRAM_END;
      ensures fw_copied{Here, Old}(fw->sram + FW_SBUF_ADDR(buf) + FW_WIRE_HDR_LEN,
                                   fw->sram + FW_LOCAL_ADDR(\old(e->stage)), e->hdr.len);
      // ... from a slot that was busy, now free; the others as they were
      ensures \old(fw->stage_busy[e->stage]) && !fw->stage_busy[\old(e->stage)];
      ensures \forall integer s; 0 <= s < FW_LOCAL_SLOTS && s != \old(e->stage) ==>
                fw->stage_busy[s] == \old(fw->stage_busy[s]);
      ensures e->stage == FW_LOCAL_SLOTS;
    behavior unstaged:
      assumes e->stage >= FW_LOCAL_SLOTS;
      assigns \nothing;
    complete behaviors;
    disjoint behaviors; */
void fw_txlocal_bind(struct fw *fw, struct fw_txe *e, unsigned buf);
/* tx_complete for a local message: counts ACKs and NACKs sent. */
/*@ requires fw_ok(fw) && fw_stage_ok(fw) && \exists integer k; 0 <= k < FW_TXQ && e == &fw->txq[k];
    assigns e->local, fw_counters(fw->sram)->tx_acks, fw_counters(fw->sram)->tx_nacks;
    ensures fw_ok(fw) && fw_stage_ok(fw) && !e->local; */
void fw_txlocal_done(struct fw *fw, struct fw_txe *e);

#endif
