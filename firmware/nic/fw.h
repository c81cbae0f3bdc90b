/* fw.h: the firmware's state for one NIC and the interfaces between its parts. One struct fw
 * per NIC (nicd hosts several in one process); the generated data path (gen/datapath) reaches
 * it through datapath_t.user. Freestanding C11.
 *
 *   fw_init.c      boot: SRAM layout, hostif control block, VI table, data path
 *   fw_dispatch.c  the event loop: ISR bits -> data path events, run to completion, counters
 *   fw_sq.c        NIC-side VIA, send queues: doorbells, descriptor fetch, split, completions
 *   fw_txlocal.c   messages the firmware itself sends (acknowledgements, VM packets)
 *   fw_ack.c       Reliable Delivery: acknowledging transfers, and acting on the peer's ACK/NACK
 *   fw_rq.c        NIC-side VIA, receive side: classify messages, match receive descriptors,
 *                  reassemble, RDMA Write, completions
 *   fw_check.c     descriptor validation against registered memory and protection tags
 *   fw_hal_tx.c    datapath HAL, send side (tx_len, binding a message to its buffer,
 *                  send_start, tx_complete)
 *   fw_hal_rx.c    datapath HAL, receive side (recv_arm, rx_bytes, rx_eom, rx_complete)
 *   fw_hal_hdma.c  datapath HAL, host DMA (hdma_start and its completion), fine_mode, fault
 *   fw_wire.c      the wire codec: header, trailer, PANIC view, checksum (WIRE.md)
 *   fw_vm*.c       the PANIC VM: programs, activations, services, packets, host control
 *                  (fw_vm.h)
 *   fw_sram.h      SRAM access (volatile, for fields hosts write concurrently) */
#ifndef FW_H
#define FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datapath.h"
#include "fw_board.h"
#include "fw_vm.h"
#include "fw_wire.h"
#include "hostif.h"

/* ---- sizes ---- */
#define FW_NSBUF     datapath_CONST_NSBUF
#define FW_NRBUF     datapath_CONST_NRBUF
#define FW_MSGLEN    datapath_CONST_MSGLEN          /* a data-path message: header+payload+trailer */
#define FW_TRAILER   FW_WIRE_TRAILER_LEN            /* payload checksum, after the payload */
#define FW_MAX_PAYLOAD (FW_MSGLEN - FW_WIRE_HDR_LEN - FW_TRAILER)  /* 4036 bytes */
_Static_assert(FW_MAX_PAYLOAD == HOSTIF_MAX_PAYLOAD, "hosts are told the firmware's payload limit");
#define FW_TXQ       32u                            /* messages queued for the send pipeline */
#define FW_CHAIN_MAX 8u                             /* host DMA descriptors per chain */
/* A message idle this long is aborted (its sender died). Longer than the sender's firmware may
 * spend between two fragments: a PANIC activation of FW_VM_BUDGET instructions takes about
 * 10 ms on a LANai (bench-lanai), which a 5 ms timeout cut short. */
#define FW_RX_STALL_NS 50000000ull

/* Host DMA channels: SDMA and RDMA each have their own (the machines already exclude each
 * other on the engine; separate channels keep their chains apart). */
#define FW_CH_SDMA 0u
#define FW_CH_RDMA 1u
#define FW_TIMER_RX 0u

/* The ISR bits fw_init unmasks: those the dispatcher handles (fw_dispatch.c), and the link
 * and memory errors it counts. */
#define FW_ISR_UNMASKED                                                                       \
  (FWB_ISR_HOST_SIG | FWB_ISR_SEND | FWB_ISR_RECV | FWB_ISR_HEAD | FWB_ISR_BUFF |             \
   FWB_ISR_WAKE(FW_CH_SDMA) | FWB_ISR_WAKE(FW_CH_RDMA) | FWB_ISR_TIMER(FW_TIMER_RX) |         \
   FWB_ISR_TIMER(FW_TIMER_VM) | FWB_ISR_LINK_DOWN | FWB_ISR_MEMORY)

/* ---- SRAM layout above HOSTIF_BUF_BASE ----
 * Send buffers, then receive buffers, each FW_BUF_STRIDE apart: a whole message (FW_MSGLEN;
 * the receive engine is armed with that capacity and SDMA fills at most that) and a 64-byte
 * gap, one cache line, that no engine writes: nothing needs it, it keeps a buffer's neighbour
 * intact should a length check ever be wrong. Then the host DMA chains, then the staging. */
#define FW_BUF_GAP    64u
#define FW_BUF_STRIDE 4160u   /* FW_MSGLEN + FW_BUF_GAP, as a literal: WP's provers handle the
                                 SRAM layout's arithmetic far better with one constant */
_Static_assert(FW_BUF_STRIDE == FW_MSGLEN + FW_BUF_GAP, "a buffer holds a message and the gap");
_Static_assert(FW_BUF_STRIDE % 64u == 0 && HOSTIF_BUF_BASE % 64u == 0, "buffers line-aligned");
#define FW_SBUF_ADDR(i) (HOSTIF_BUF_BASE + (uint32_t)(i) * FW_BUF_STRIDE)
#define FW_RBUF_ADDR(i) (HOSTIF_BUF_BASE + (uint32_t)(FW_NSBUF + (i)) * FW_BUF_STRIDE)
#define FW_CHAIN_ADDR(ch) \
  (HOSTIF_BUF_BASE + (uint32_t)(FW_NSBUF + FW_NRBUF) * FW_BUF_STRIDE + \
   (uint32_t)(ch) * FWB_HDMA_DESC_SIZE * FW_CHAIN_MAX)
/* Staging for the payloads of firmware-originated messages (fw_txlocal.c). */
#define FW_LOCAL_SLOTS 4u
#define FW_LOCAL_ADDR(i) (FW_CHAIN_ADDR(2) + (uint32_t)(i) * FW_MAX_PAYLOAD)
#define FW_SRAM_END FW_LOCAL_ADDR(FW_LOCAL_SLOTS)

/* A host range one message's payload comes from or goes to. */
struct fw_piece {
  uint64_t addr;
  uint32_t len;
  uint32_t ptag;
};

/* One data-path message on its way out: queued by fw_sq.c, bound to a send buffer by tx_len,
 * filled by SDMA, sent by SEND, retired by tx_complete. */
struct fw_txe {
  uint8_t vi;
  uint8_t slot;             /* send queue slot (index % HOSTIF_RING) */
  uint8_t status;           /* HOSTIF_ST_DONE, or the error to report */
  uint8_t npiece;
  bool trailer_done;
  bool local;               /* the firmware's own message: no send queue slot, no host pieces */
  uint8_t stage;            /* local with payload: its staging slot, else FW_LOCAL_SLOTS */
  uint32_t gen;             /* the VI's generation when queued */
  uint16_t sum;             /* payload ones'-complement sum so far */
  struct fw_wire_hdr hdr;   /* hdr.len is the payload length */
  struct fw_piece piece[HOSTIF_MAXSEG];
};

/* What the firmware knows of a message in a receive buffer. */
enum fw_rx_verdict { FW_RX_UNKNOWN, FW_RX_DROP, FW_RX_DATA, FW_RX_RDMA, FW_RX_CTRL, FW_RX_PANIC };

struct fw_rxi {
  uint8_t verdict;          /* enum fw_rx_verdict */
  uint8_t drop_reason;      /* counter to bump when dropped (enum fw_drop) */
  bool eom;                 /* the receive engine finished this message */
  bool complete_ok;         /* EOM, not truncated, length as the header says */
  bool dma_err;             /* a host DMA into host memory failed */
  bool hdr_seen, hdr_ok;    /* the header has arrived; it parsed and checked */
  uint8_t npiece;
  uint16_t sum;             /* payload sum of what was moved to the host */
  uint32_t bytes;           /* bytes of the message in SRAM (capped at FW_MSGLEN) */
  uint32_t last_len;        /* for stall detection */
  uint16_t src;             /* link source */
  bool reliable;            /* for a VI connected to its sender with Reliable Delivery */
  uint32_t vi_gen, vi_key;  /* the VI's incarnation and connection when it was classified */
  struct fw_wire_hdr hdr;
  struct fw_piece piece[HOSTIF_MAXSEG];  /* where the payload goes in host memory */
};

enum fw_drop { FW_DROP_NONE, FW_DROP_NO_VI, FW_DROP_NO_DESC, FW_DROP_MALFORMED, FW_DROP_CHECKSUM,
               FW_DROP_PROTECTION, FW_DROP_TRUNCATED };

/* Send queue slot bookkeeping (slot = index % HOSTIF_RING). */
struct fw_sqslot {
  uint16_t inflight;        /* messages of it in the send pipeline */
  bool queued;              /* every message of it queued (or it failed before) */
  bool await_ack;           /* Reliable Delivery: completes when the peer acknowledges last_seq */
  uint8_t status;
  uint32_t len;
  uint32_t last_seq;        /* wire seq of its last message */
};

/* The firmware's private state of a VI (the shared one is struct hostif_vi in SRAM). */
struct fw_vi {
  /* send queue */
  uint32_t sq_cons, sq_done;   /* copies of what the firmware wrote into the ring */
  bool have;                   /* desc = the snapshot of slot sq_cons, being split */
  uint32_t off;                /* bytes of it queued */
  struct hostif_desc desc;
  struct fw_sqslot slot[HOSTIF_RING];
  uint32_t tx_seq;
  /* receive queue */
  uint32_t rq_done;            /* next receive descriptor (cons == done in SRAM between msgs) */
  bool rx_active;              /* a transfer is being reassembled into rdesc */
  uint32_t rx_next_off, rx_msg_len;
  struct hostif_desc rdesc;
  /* Reliable Delivery */
  bool ack_due;                /* an ACK (ack_seq) or NACK (nack_status) is to be sent */
  uint8_t nack_status;         /* 0: ACK; else the hostif status the sender is to report */
  uint32_t ack_seq;
  uint16_t ack_node, ack_vi;   /* where it goes (the connection may be broken by then) */
  uint32_t gen;                /* hostif_vi.generation the state above belongs to */
  /* the connection the state above belongs to */
  uint32_t conn_key;
};

struct fw_config {
  bool fine_mode;              /* SDMA moves messages in CHUNK pieces (fine-grained) */
};

struct fw {
  struct fw_board *board;
  struct fw_config cfg;
  uint8_t *sram;
  uint16_t node;
  datapath_t dp;
  /* send pipeline */
  struct fw_txe txq[FW_TXQ];
  uint32_t tx_head, tx_fetch, tx_done;   /* queued / bound to a buffer / retired */
  uint8_t sbuf_txe[FW_NSBUF];            /* txq index held by each send buffer */
  uint32_t sq_work;                      /* VIs whose send queue may have work */
  unsigned sq_rr;
  uint32_t ack_work;                     /* VIs with an ACK or NACK to send */
  uint32_t ack_watch;                    /* VIs with sends awaiting an acknowledgement */
  bool stage_busy[FW_LOCAL_SLOTS];       /* staging slots in use (not a bit mask: provable) */
  /* receive pipeline */
  struct fw_rxi rxi[FW_NRBUF];
  int rx_cur;                            /* buffer the receive engine fills, -1 if none */
  bool rx_timer;
  /* host DMA requests in flight, by channel */
  struct {
    bool busy;
    uint8_t buf;
    uint32_t p0, p1;                     /* payload range it covers */
    datapath_event_t done;
  } hreq[2];
  struct fw_vi vi[HOSTIF_NVI];
  uint32_t faults;                       /* the firmware's own inconsistencies (fw_fault) */
  uint32_t fault_last;                   /* the latest one's id */
  uint32_t fault_n[HOSTIF_FAULT_N];      /* by id */
  uint32_t bad_doorbells;                /* doorbells that name no VI and no mailbox */
  uint64_t isr_handled[FWB_ISR_NBITS];   /* hardware ISR bits handled, by bit */
  struct fw_vm vm;                       /* the PANIC VM (fw_vm.h) */
};

/* ---- what the proofs assume of the firmware state (proofs/README.md, module fw-dispatch) ----
 * fw_ok: the state is valid memory, its SRAM is valid up to FW_SRAM_END and apart from it,
 * the data path keeps esmc's invariant, and the indices the handlers follow are in bounds
 * (fw_bounds; tests/nic/test_fw.c checks it after every poll). Every event handler the dispatcher calls keeps it
 * and keeps the board and the SRAM it was given (fw_same). The handlers' contracts are the
 * dispatcher's interface to the rest of the firmware: assumed there, not proved (they write
 * the whole firmware state and SRAM through the board HAL). */
/*@ axiomatic fw_counters {
      logic struct hostif_counters *fw_counters(uint8_t *sram);
    }
    predicate fw_bounds(struct fw *fw) =
      -1 <= fw->rx_cur < FW_NRBUF &&
      (\forall integer c; 0 <= c <= FW_CH_RDMA ==>
         fw->hreq[c].buf < FW_NSBUF && fw->hreq[c].buf < FW_NRBUF &&
         0 <= fw->hreq[c].done < datapath_NEVENTS) &&
      (\forall integer b; 0 <= b < FW_NSBUF ==> fw->sbuf_txe[b] < FW_TXQ);
    predicate fw_ok(struct fw *fw) =
      \valid(fw) && datapath_inv(&fw->dp) && fw_bounds(fw) &&
      \valid(fw->sram + (0 .. FW_SRAM_END - 1)) &&
      \separated(fw, fw->sram + (0 .. FW_SRAM_END - 1)) &&
      \valid(fw_counters(fw->sram)) && \separated(fw, fw_counters(fw->sram));
    predicate fw_same{L1, L2}(struct fw *fw) =
      \at(fw->sram, L1) == \at(fw->sram, L2) && \at(fw->board, L1) == \at(fw->board, L2);
*/

/* Statistics counters saturate instead of wrapping. */
/*@ requires \valid(c);
    assigns *c; */
static inline void fw_count32(uint32_t *c) {
  if (*c < UINT32_MAX) (*c)++;
}
/*@ requires \valid(c);
    assigns *c; */
static inline void fw_count64(uint64_t *c) {
  if (*c < UINT64_MAX) (*c)++;
}
/* A counter in SRAM (struct hostif_counters): read once, as it is volatile; little-endian
 * (fw_le.h). */
/*@ requires \valid(c);
    assigns *c; */
static inline void fw_count64v(volatile uint64_t *c) {
#ifdef __lanai__ /* little-endian in SRAM (fw_le.h) */
  uint64_t n = __builtin_bswap64(*c);
  if (n < UINT64_MAX) *c = __builtin_bswap64(n + 1u);
#else
  uint64_t n = *c;
  if (n < UINT64_MAX) *c = n + 1u;
#endif
}

/* Counts fault `id` (hostif.h's HOSTIF_FAULTS) and remembers it as the latest. */
/*@ requires \valid(&fw->faults) && \valid(&fw->fault_last) && \valid(&fw->fault_n[id]);
    requires id < HOSTIF_FAULT_N;
    assigns fw->faults, fw->fault_n[id], fw->fault_last;
    ensures fw->fault_last == id;
    ensures \old(fw_ok(fw)) ==> fw_ok(fw); */
static inline void fw_fault(struct fw *fw, unsigned id) {
  fw_count32(&fw->faults);
  fw_count32(&fw->fault_n[id]);
  fw->fault_last = id;
}

/* fw_init.c */
/* 0, or -1 when the SRAM is too small for the host interface and the buffers. */
int fw_init(struct fw *fw, struct fw_board *board, const struct fw_config *cfg);

/* fw_dispatch.c: handles every pending event, runs the data path until nothing is enabled;
 * returns true if it did anything. Call after the hardware has moved (nic_advance). */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1], *fw_counters(fw->sram), fwb_isr_cleared;
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
bool fw_poll(struct fw *fw);

/* fw_sq.c */
/*@ requires fw_ok(fw) && vi < HOSTIF_NVI;
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_sq_doorbell(struct fw *fw, unsigned vi);
/* It also counts descriptors that fail validation (protection_errors, format_errors). */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1], *fw_counters(fw->sram);
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_sq_pump(struct fw *fw);
void fw_sq_msg_done(struct fw *fw, struct fw_txe *e);
/* The peer acknowledged every message of the VI up to and including seq; or refused the
 * transfer holding seq with status st (the connection is broken). */
void fw_sq_acked(struct fw *fw, unsigned vi, uint32_t seq);
void fw_sq_refused(struct fw *fw, unsigned vi, uint32_t seq, uint32_t st);

/* fw_txlocal.c (proofs/modules.conf, module fw-txlocal). A local message with a payload holds
 * a staging slot (FW_LOCAL_ADDR) from fw_tx_local until fw_tx_local_bind. fw_stage_ok: each
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
bool fw_tx_local(struct fw *fw, const struct fw_wire_hdr *h, const uint8_t *payload);
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
void fw_tx_local_bind(struct fw *fw, struct fw_txe *e, unsigned buf);
/* tx_complete for a local message: counts ACKs and NACKs sent. */
/*@ requires fw_ok(fw) && fw_stage_ok(fw) && \exists integer k; 0 <= k < FW_TXQ && e == &fw->txq[k];
    assigns e->local, fw_counters(fw->sram)->tx_acks, fw_counters(fw->sram)->tx_nacks;
    ensures fw_ok(fw) && fw_stage_ok(fw) && !e->local; */
void fw_tx_local_done(struct fw *fw, struct fw_txe *e);

/* fw_ack.c */
/* A good DATA/RDMA_WRITE message for a reliable VI has been delivered; or one was refused
 * (st: the status the sender reports). Queues the ACK or NACK and, for a NACK, breaks the
 * connection on this side. */
void fw_ack_delivered(struct fw *fw, unsigned vi, const struct fw_wire_hdr *h);
void fw_ack_refuse(struct fw *fw, unsigned vi, const struct fw_wire_hdr *h, uint32_t st);
/* An ACK or NACK arrived (header checked, addressed to a VI connected to its sender). */
void fw_ack_received(struct fw *fw, const struct fw_wire_hdr *h);
/* Sends the ACKs and NACKs that are due, as far as the send queue has room. */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_ack_pump(struct fw *fw);
/* Sets a connected VI to ERROR (this NIC broke the connection). */
void fw_vi_break(struct fw *fw, unsigned vi);

/* fw_rq.c */
void fw_rx_classify(struct fw *fw, unsigned buf);
void fw_rx_finish(struct fw *fw, unsigned buf);
/* Completes every receive descriptor posted on the VI FLUSHED (its connection broke): at most
 * a ring's worth, and none when the host's producer index is not within a ring of the
 * firmware's (the entry holds a VI created since). */
void fw_rq_flush(struct fw *fw, unsigned vi);

/* fw_hal_tx.c: SDMA's first host DMA into send buffer buf (hdma_start, offset 0) binds the
 * oldest queued message to it and writes its header there. */
void fw_tx_bind(struct fw *fw, uint8_t buf);

/* fw_hal_rx.c */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_rx_progress(struct fw *fw);
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_rx_tick(struct fw *fw);

/* fw_hal_hdma.c */
/*@ requires fw_ok(fw) && ch <= FW_CH_RDMA;
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_hdma_wake(struct fw *fw, unsigned ch);
/* The ones'-complement sum total + piece, piece being the sum of bytes at payload offset
 * `offset` (byte-swapped when odd). */
/*@ assigns \nothing; */
uint16_t fw_sum_at(uint16_t total, uint16_t piece, uint32_t offset);

/* fw_check.c */
/* ACSL (module fw-check): a descriptor fw_check_desc accepts; fw_desc_pieces requires it (also
 * fw_sq.c's sq_emit). No length sum or address range overflows. */
/*@ logic integer fw_seg_sum{L}(struct hostif_desc *d, integer n) =
      n <= 0 ? 0 : fw_seg_sum(d, n - 1) + d->seg[n - 1].len;

    predicate fw_desc_ok{L}(struct hostif_desc *d) =
      d->nseg <= HOSTIF_MAXSEG && d->length <= HOSTIF_MAX_XFER &&
      fw_seg_sum(d, d->nseg) == d->length &&
      (\forall integer j; 0 <= j <= d->nseg ==> fw_seg_sum(d, j) <= d->length) &&
      (\forall integer j; 0 <= j < d->nseg ==> d->seg[j].addr + d->seg[j].len <= 18446744073709551615) &&
      (d->op == HOSTIF_OP_RDMA_WRITE ==> d->rdma_addr + d->length <= 18446744073709551615);
*/
/* Validates a descriptor snapshot for a VI: HOSTIF_ST_DONE if it may be used, else the
 * status to complete it with. want_op: the op expected (SEND/RDMA_WRITE for the send queue). */
uint32_t fw_check_desc(struct fw *fw, const struct hostif_desc *d, uint32_t vi_ptag, bool send_q);
/* Maps bytes [off, off + len) of a descriptor's data to host pieces. */
unsigned fw_desc_pieces(const struct hostif_desc *d, uint32_t off, uint32_t len,
                        struct fw_piece *out, unsigned max);

/* fw_vm_ctl.c: the VM's event handlers (declared here for their contracts, which need
 * struct fw). */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_vm_doorbell(struct fw *fw);                   /* doorbell HOSTIF_DOORBELL_PANIC */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_vm_tick(struct fw *fw);                       /* timer FW_TIMER_VM */
/* Sends what a forwarded LOAD has left to send, as far as the send queue has room. */
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_vm_pump(struct fw *fw);

/* Counters in SRAM (struct hostif_counters). A cast into SRAM, outside WP's typed memory
 * model: its contract is assumed (proofs/README.md). */
/*@ requires fw_ok(fw);
    assigns \nothing;
    ensures \result == fw_counters(fw->sram); */
static inline volatile struct hostif_counters *fw_ctr(struct fw *fw) {
  return (volatile struct hostif_counters *)(void *)(fw->sram + HOSTIF_COUNTERS_ADDR);
}

static inline struct fw *fw_of(datapath_t *sys) { return (struct fw *)sys->user; }

#endif
