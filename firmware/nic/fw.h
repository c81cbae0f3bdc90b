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
 *   fw_hal_tx.c    datapath HAL, send side (tx_len, send_start, tx_complete)
 *   fw_hal_rx.c    datapath HAL, receive side (recv_arm, rx_bytes, rx_eom, rx_complete)
 *   fw_hal_hdma.c  datapath HAL, host DMA (hdma_start and its completion), fine_mode, fault
 *   fw_wire.c      the message header (hw/wire.h layout) and its checksum
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
#define FW_TRAILER   4u                             /* payload checksum, after the payload */
#define FW_MAX_PAYLOAD (FW_MSGLEN - FW_WIRE_HDR_LEN - FW_TRAILER)  /* 4036 bytes */
#define FW_TXQ       32u                            /* messages queued for the send pipeline */
#define FW_CHAIN_MAX 8u                             /* host DMA descriptors per chain */
#define FW_RX_STALL_NS 5000000ull                   /* a message idle this long is aborted */

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

/* ---- SRAM layout above HOSTIF_BUF_BASE ---- */
#define FW_BUF_STRIDE 4160u
#define FW_SBUF_ADDR(i) (HOSTIF_BUF_BASE + (uint32_t)(i) * FW_BUF_STRIDE)
#define FW_RBUF_ADDR(i) (HOSTIF_BUF_BASE + (uint32_t)(FW_NSBUF + (i)) * FW_BUF_STRIDE)
#define FW_CHAIN_ADDR(ch) \
  (HOSTIF_BUF_BASE + (uint32_t)(FW_NSBUF + FW_NRBUF) * FW_BUF_STRIDE + (uint32_t)(ch) * 32u * FW_CHAIN_MAX)
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
  uint8_t stage_busy;                    /* staging slots in use, by bit */
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
  uint32_t faults;                       /* the firmware's own inconsistencies */
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
/*@ requires fw_ok(fw);
    assigns *fw, fw->sram[0 .. FW_SRAM_END - 1];
    ensures fw_ok(fw) && fw_same{Old, Here}(fw); */
void fw_sq_pump(struct fw *fw);
void fw_sq_msg_done(struct fw *fw, struct fw_txe *e);
/* The peer acknowledged every message of the VI up to and including seq; or refused the
 * transfer holding seq with status st (the connection is broken). */
void fw_sq_acked(struct fw *fw, unsigned vi, uint32_t seq);
void fw_sq_refused(struct fw *fw, unsigned vi, uint32_t seq, uint32_t st);

/* fw_txlocal.c: queues a message of the firmware's own (header as given, src_node filled in;
 * payload copied now, h->len bytes). false, and nothing queued, if the send queue or the
 * payload staging is full: the caller keeps its work and retries after fw_sq_pump. */
bool fw_tx_local(struct fw *fw, const struct fw_wire_hdr *h, const uint8_t *payload);
/* tx_len for a local message: copies its payload into the send buffer, sums it. */
void fw_tx_local_bind(struct fw *fw, struct fw_txe *e, unsigned buf);
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
void fw_ack_pump(struct fw *fw);
/* Sets a connected VI to ERROR (this NIC broke the connection). */
void fw_vi_break(struct fw *fw, unsigned vi);

/* fw_rq.c */
void fw_rx_classify(struct fw *fw, unsigned buf);
void fw_rx_finish(struct fw *fw, unsigned buf);
/* Completes every receive descriptor posted on the VI FLUSHED (its connection broke). */
void fw_rq_flush(struct fw *fw, unsigned vi);

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
