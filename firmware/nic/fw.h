/* fw.h: the firmware's state for one NIC, and what every part of the firmware shares: sizes,
 * the SRAM layout, the invariant the proofs assume (fw_ok), saturating counters and faults.
 * One struct fw per NIC (nicd hosts several in one process); the generated data path
 * (gen/datapath) reaches it through datapath_t.user. Freestanding C11.
 *
 * Every other interface is its module's: the functions of fw_X.c are named fw_X_* and declared
 * in fw_X.h (README.md, "Files"); a bare fw_ prefix is this header's. */
#ifndef FW_H
#define FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datapath.h"
#include "fw_board.h"
#include "fw_le.h"
#include "fw_spine.h"
#include "fw_vm.h"
#include "fw_wire.h"
#include "hostif.h"
#include "reliab.h"

/* ---- sizes ---- */
#define FW_NSBUF     datapath_CONST_NSBUF
#define FW_NRBUF     datapath_CONST_NRBUF
#define FW_MSGLEN    datapath_CONST_MSGLEN          /* a data-path message: header+payload+trailer */
#define FW_TRAILER   FW_WIRE_TRAILER_LEN            /* payload checksum, after the payload */
#define FW_MAX_PAYLOAD (FW_MSGLEN - FW_WIRE_HDR_LEN - FW_TRAILER)  /* 33732 bytes */
_Static_assert(FW_MAX_PAYLOAD == HOSTIF_MAX_PAYLOAD, "hosts are told the firmware's payload limit");
/* Payload bytes per message a sender cuts when it pipelines finely (fw_config.fine_mode):
 * GM's 4 KiB messages. Such a message leaves as CHUNK-sized link frames, and a 33 KiB one
 * would be 33 of them, any of which lost loses the message (a lossy link's connections then
 * break, tests/nic/test_reliab.c); the timing figures are GM's packets too. A receiver takes
 * up to FW_MAX_PAYLOAD either way. */
#define FW_FINE_PAYLOAD (4096u - FW_WIRE_HDR_LEN - FW_TRAILER)     /* 4036 bytes */
_Static_assert(FW_FINE_PAYLOAD <= FW_MAX_PAYLOAD, "a fine-grained message fits a buffer");
/* Payload bytes per message of a datagram whose messages carry at most p: room for the
 * datagram tail (IPv4 + UDP headers, fw_wire.h) behind the last one, and a multiple of 8 as
 * IPv4 fragment offsets are. */
#define FW_DGRAM_FRAG_OF(p) (((p) - FW_WIRE_UDP_LEN) & ~7u)
#define FW_DGRAM_FRAG FW_DGRAM_FRAG_OF(FW_MAX_PAYLOAD)
_Static_assert(FW_DGRAM_FRAG == HOSTIF_DGRAM_FRAG, "hosts are told the datagram fragment size");
#define FW_TXQ       32u                            /* messages queued for the send pipeline */
#define FW_ACK_HOLD  8u                             /* messages an ACK may wait for (fw_ack.c) */
#define FW_SIG_HOLD  8u                             /* messages a host signal may wait (fw_rq.c) */
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
#define FW_TIMER_RT 1u   /* Reliable Delivery's retransmission deadlines (fw_reliab.c) */
/* Sequence numbers of Reliable Delivery are modulo FW_NSEQ (WIRE.md): the machines' NSEQ. */
#define FW_NSEQ ((uint32_t)reliab_CONST_NSEQ)
_Static_assert((FW_NSEQ & (FW_NSEQ - 1u)) == 0, "sequence numbers wrap at a power of two");

/* The ISR bits fw_init unmasks: those the dispatcher handles (fw_dispatch.c), and the link
 * and memory errors it counts. */
#define FW_ISR_UNMASKED                                                                       \
  (FWB_ISR_HOST_SIG | FWB_ISR_SEND | FWB_ISR_RECV | FWB_ISR_HEAD | FWB_ISR_BUFF |             \
   FWB_ISR_WAKE(FW_CH_SDMA) | FWB_ISR_WAKE(FW_CH_RDMA) | FWB_ISR_TIMER(FW_TIMER_RX) |         \
   FWB_ISR_TIMER(FW_TIMER_VM) | FWB_ISR_TIMER(FW_TIMER_RT) | FWB_ISR_LINK_DOWN | FWB_ISR_MEMORY)

/* ---- SRAM layout above HOSTIF_BUF_BASE ----
 * Send buffers, then receive buffers, each FW_BUF_STRIDE apart: a whole message (FW_MSGLEN;
 * the receive engine is armed with that capacity and SDMA fills at most that) and a 64-byte
 * gap, one cache line, that no engine writes: nothing needs it, it keeps a buffer's neighbour
 * intact should a length check ever be wrong. Then the host DMA chains, then the staging. */
#define FW_BUF_GAP    64u
#define FW_BUF_STRIDE 33856u   /* FW_MSGLEN + FW_BUF_GAP, as a literal: WP's provers handle the
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
_Static_assert(FW_SRAM_END <= HOSTIF_SRAM, "the firmware's SRAM fits the board it asks for");

/* A host range one message's payload comes from or goes to. */
struct fw_piece {
  uint64_t addr;
  uint32_t len;
  uint32_t ptag;
};

/* One data-path message on its way out: queued by fw_sq.c, bound to a send buffer by tx_len,
 * filled by SDMA, sent by SEND, retired by tx_complete. */
struct fw_txe {
  uint16_t vi;
  uint8_t slot;             /* send queue slot (index % HOSTIF_RING) */
  uint8_t status;           /* HOSTIF_ST_DONE, or the error to report */
  uint8_t npiece;
  bool trailer_done;
  bool local;               /* the firmware's own message: no send queue slot, no host pieces */
  uint8_t stage;            /* local with payload: its staging slot, else FW_LOCAL_SLOTS */
  uint32_t gen;             /* the VI's generation when queued */
  uint16_t sum;             /* payload ones'-complement sum so far */
  uint32_t ip_src, ip_dst;  /* a datagram's: its IPv4 addresses (the descriptor's) */
  struct fw_wire_hdr hdr;   /* hdr.len is the payload length */
  struct fw_piece piece[HOSTIF_MAXSEG];
};

/* What the firmware knows of a message in a receive buffer. */
enum fw_rx_verdict { FW_RX_UNKNOWN, FW_RX_DROP, FW_RX_DATA, FW_RX_RDMA, FW_RX_CTRL, FW_RX_PANIC,
                      FW_RX_IP };  /* IP: judged by the router, fw_spine.c */

struct fw_rxi {
  uint8_t verdict;          /* enum fw_rx_verdict */
  uint8_t drop_reason;      /* counter to bump when dropped (enum fw_drop) */
  bool eom;                 /* the receive engine finished this message */
  bool complete_ok;         /* EOM, not truncated, length as the header says */
  bool dma_err;             /* a host DMA into host memory failed */
  bool hdr_seen, hdr_ok;    /* the header has arrived; it parsed and checked */
  uint8_t tail;             /* bytes after the trailer (fw_wire_tail_len of the header) */
  uint8_t dgctx;            /* a datagram's: its reassembly context (fw_dgctx.c) */
  uint8_t npiece;
  uint16_t sum;             /* payload sum of what was moved to the host */
  uint32_t bytes;           /* bytes of the message in SRAM (capped at FW_MSGLEN) */
  uint32_t last_len;        /* for stall detection */
  uint16_t src;             /* link source */
  bool reliable;            /* for a VI connected to its sender with Reliable Delivery */
  uint32_t vi_gen, vi_key, vi_conn;  /* the VI's incarnation and connection when it was classified */
  struct fw_wire_hdr hdr;
  struct fw_piece piece[HOSTIF_MAXSEG];  /* where the payload goes in host memory */
};

enum fw_drop { FW_DROP_NONE, FW_DROP_NO_VI, FW_DROP_NO_DESC, FW_DROP_MALFORMED, FW_DROP_CHECKSUM,
               FW_DROP_PROTECTION, FW_DROP_TRUNCATED,
               FW_DROP_DUP, FW_DROP_OOO };  /* Reliable Delivery: delivered already, ahead */

/* Send queue slot bookkeeping (slot = index % HOSTIF_RING). */
struct fw_sqslot {
  uint16_t inflight;        /* messages of it in the send pipeline */
  bool queued;              /* every message of it queued (or it failed before) */
  bool await_ack;           /* Reliable Delivery: completes when the peer acknowledges last_seq */
  uint8_t status;
  uint32_t len;
  uint32_t last_seq;        /* wire seq of its last message */
  uint32_t first_seq;       /* wire seq of its first message (Reliable Delivery: resending) */
  uint32_t nmsg;            /* messages of it queued so far (0: it failed before any) */
};

/* A datagram VI's reassembly context (fw_dgctx.c): a receive descriptor taken from the ring
 * and, while BUSY, the datagram being reassembled into it. */
#define FW_DG_NCTX 4u
enum fw_dgctx_state { FW_DG_FREE, FW_DG_IDLE, FW_DG_BUSY };
struct fw_dgctx {
  uint8_t state;               /* enum fw_dgctx_state; IDLE and BUSY hold desc */
  uint16_t node, sport, id;    /* the datagram: its sender and its number there */
  uint16_t sum;                /* ones'-complement sum of its payload delivered so far */
  uint32_t next_off, msg_len;
  uint64_t last_ns;            /* when its latest message arrived */
  struct hostif_desc desc;
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
  uint32_t ack_conn;           /* and the stamp it carries */
  uint32_t ack_mark;           /* fw->rx_msgs when it was first owed (fw_ack.c: coalescing) */
  uint32_t gen;                /* hostif_vi.generation the state above belongs to */
  /* the connection the state above belongs to */
  uint32_t conn_key, conn;
  /* Reliable Delivery's retransmission (fw_reliab.c): the instance of the machines is
   * fw->rel[vi]; these are its runtime's */
  bool rel_on;                 /* a reliable connection: the instance runs */
  bool rel_dead;               /* the connection broke while the instance ran */
  bool tx_want;                /* the Sender asked to transmit DATA message tx_want_seq */
  bool rt_armed;               /* the retransmission timer runs, due at rt_due */
  bool rst_want;               /* an RST is to go to rst_node/rst_vi */
  uint8_t brk_st;              /* what sends not yet queued complete with once it broke */
  uint16_t rt_gen;             /* the Sender's tgen when the deadline was set */
  uint16_t peer_node, peer_vi; /* the connection's other end */
  uint16_t rst_node, rst_vi;
  uint32_t peer_conn, rst_conn; /* the stamps of the connection and of the RST */
  uint32_t tx_want_seq;
  uint32_t base_seen;          /* the Sender's base when completions were last written */
  uint64_t rt_due;             /* clock (ns) when the timer expires */
  /* the round trip (fw_reliab.c): one message at a time is timed, from its first transmission
   * to the ACK that covers it; srtt and rttvar (ns) lengthen every deadline, and after a
   * timeout the backed-off length (rt_hold, ns) stays until the next measurement */
  bool rtt_timing;             /* message rtt_seq is being timed since rtt_t0 */
  uint32_t rtt_seq;
  uint64_t rtt_t0;
  uint32_t srtt, rttvar, rt_hold;
  /* a datagram VI (HOSTIF_VI_F_DGRAM): its reassembly contexts and the next receive
   * descriptor none of them has taken (fw_dgctx.c); the next datagram's number and the sum of
   * the payload sent of the one being sent (fw_dgram.c) */
  struct fw_dgctx dg[FW_DG_NCTX];
  uint32_t dg_claimed;
  uint16_t dg_id, dg_tx_sum;
};

struct fw_config {
  bool fine_mode;              /* SDMA moves messages in CHUNK pieces (fine-grained) */
};

/* A set of VIs, as the firmware's work lists keep them: bit vi % 32 of word vi / 32 (fw_vi.h's
 * fw_vim_* read and write it). */
#define FW_VIM_WORDS (HOSTIF_NVI / 32u)
_Static_assert(HOSTIF_NVI % 32u == 0, "a VI mask is whole words");
struct fw_vimask {
  uint32_t w[FW_VIM_WORDS];
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
  struct fw_vimask sq_work;              /* VIs whose send queue may have work */
  unsigned sq_rr;
  struct fw_vimask ack_work;             /* VIs with an ACK or NACK to send */
  struct fw_vimask ack_watch;            /* VIs with sends awaiting an acknowledgement */
  struct fw_vimask rst_work;             /* VIs with an RST to send (their rst_want) */
  bool stage_busy[FW_LOCAL_SLOTS];       /* staging slots in use (not a bit mask: provable) */
  /* receive pipeline */
  struct fw_rxi rxi[FW_NRBUF];
  int rx_cur;                            /* buffer the receive engine fills, -1 if none */
  uint32_t rx_msgs;                      /* messages the receive path has finished (free-running) */
  uint32_t sig_held;                     /* host signal bits of receive completions not yet
                                            raised (fw_rq_signal_pump) */
  uint32_t sig_mark;                     /* rx_msgs when the first of them was held */
  bool rx_timer;
  /* host DMA requests in flight, by channel */
  struct {
    bool busy;
    uint8_t buf;
    uint32_t p0, p1;                     /* payload range it covers */
    datapath_event_t done;
  } hreq[2];
  struct fw_vi vi[HOSTIF_NVI];
  /* Reliable Delivery (fw_reliab.c): one Sender + Receiver instance per VI */
  reliab_t rel[HOSTIF_NVI];
  int rel_cur;                           /* the VI whose instance is running, -1 if none */
  unsigned rel_buf;                      /* receive buffer of the message being judged */
  struct { uint32_t seq, ack; uint8_t kind; bool intact; } rel_in;  /* the frame it reads */
  bool rt_hw;                            /* timer FW_TIMER_RT is set, to expire at rt_hw_due */
  uint64_t rt_hw_due;
  uint32_t faults;                       /* the firmware's own inconsistencies (fw_fault) */
  uint32_t fault_last;                   /* the latest one's id */
  uint32_t fault_n[HOSTIF_FAULT_N];      /* by id */
  uint32_t bad_doorbells;                /* doorbells that name no VI and no mailbox */
  uint64_t isr_handled[FWB_ISR_NBITS];   /* hardware ISR bits handled, by bit */
  struct fw_vm vm;                       /* the PANIC VM (fw_vm.h) */
  struct fw_spine spine;                 /* SPINE's IP router (fw_spine.h) */
  /* Two processors (fw_cpus.c): what each handled; element c is written by processor c only */
  uint64_t cpu_isr[2];                   /* hardware ISR bits */
  uint64_t cpu_steps[2];                 /* the data path's transitions */
  uint64_t cpu_passes[2];                /* passes of fw_cpus_poll */
};

/* ---- what the proofs assume of the firmware state (proofs/README.md, module fw-dispatch) ----
 * fw_ok: the state is valid memory, its SRAM is valid up to FW_SRAM_END and apart from it,
 * the data path keeps esmc's invariant, and the indices the handlers follow are in bounds
 * (fw_bounds; tests/nic/test_fw.c checks it after every poll). Every event handler the
 * dispatcher calls keeps it and keeps the board and the SRAM it was given (fw_same). The
 * handlers' contracts are the dispatcher's interface to the rest of the firmware: assumed
 * there, not proved (they write the whole firmware state and SRAM through the board HAL).
 *
 * FW_BOUNDS is fw_bounds written out, its one definition, for annotations only (it is ACSL, not
 * C). Where a handler has written fields of the state, `assert FW_BOUNDS(fw)` restates the
 * bounds spelled out, which the provers take apart quickly (under -wp-split, fw-txlocal, as
 * one goal per conjunct); an assert of the predicate itself was one slow goal. */
#define FW_BOUNDS(fw)                                                                         \
  (-1 <= (fw)->rx_cur < FW_NRBUF &&                                                          \
   (\forall integer c; 0 <= c <= FW_CH_RDMA ==>                                               \
      (fw)->hreq[c].buf < FW_NSBUF && (fw)->hreq[c].buf < FW_NRBUF &&                        \
      0 <= (fw)->hreq[c].done < datapath_NEVENTS) &&                                         \
   (\forall integer b; 0 <= b < FW_NSBUF ==> (fw)->sbuf_txe[b] < FW_TXQ))
/*@ axiomatic fw_counters {
      logic struct hostif_counters *fw_counters(uint8_t *sram);
    }
    predicate fw_bounds(struct fw *fw) = FW_BOUNDS(fw);
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
/* Counters in SRAM (struct hostif_counters): little-endian (fw_le.h), each read once, as it is
 * volatile. */
/*@ requires \valid(c);
    assigns *c; */
static inline void fw_count64v(volatile uint64_t *c) {
  uint64_t n = FW_LE64(*c);
  if (n < UINT64_MAX) *c = FW_LE64(n + 1u);
}
/*@ requires \valid(c);
    assigns *c; */
static inline void fw_ctr_set(volatile uint64_t *c, uint64_t v) { *c = FW_LE64(v); }
/*@ requires \valid(c);
    assigns *c; */
static inline void fw_ctr_add(volatile uint64_t *c, uint64_t n) {
  uint64_t v = FW_LE64(*c);
  *c = FW_LE64(v > UINT64_MAX - n ? UINT64_MAX : v + n);
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
