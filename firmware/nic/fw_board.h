/* fw_board.h: the board HAL, the firmware's only view of the NIC hardware: SRAM, the event
 * register (ISR/IMR), doorbells, host signals, the host DMA engine, the send and receive DMA
 * engines, a timer, and the host memory region table. Two implementations: board_emu.c (the
 * emulated NIC of hw/, for nicd and tests) and board_lanai.c (the LANai card's memory-mapped
 * registers, fw_board_regs.h; run by nicd --lanai on the instruction-set simulator).
 * Freestanding C11.
 *
 * The formats below are the hardware's (as a LANai databook would give them): bit numbers of
 * the ISR, the 32-byte host DMA descriptor, the engine flags. board_emu.c checks at compile
 * time that they agree with hw/nic.h. */
#ifndef FW_BOARD_H
#define FW_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fw_board;

/* ---- event register bits ---- */
#define FWB_ISR_HOST_SIG (1u << 0)  /* a host rang a doorbell */
#define FWB_ISR_SEND     (1u << 1)  /* the send DMA engine finished a fragment */
#define FWB_ISR_RECV     (1u << 2)  /* the receive DMA engine finished a message */
#define FWB_ISR_HEAD     (1u << 3)  /* the first fragment of a message landed */
#define FWB_ISR_BUFF     (1u << 4)  /* the armed buffer filled before the end of the message */
#define FWB_ISR_WAKE0    (1u << 5)  /* host DMA channel n woke (WAKE descriptor, or an error) */
#define FWB_ISR_WAKE(ch) (FWB_ISR_WAKE0 << (ch))
#define FWB_ISR_TIMER0   (1u << 9)  /* interval timer n expired */
#define FWB_ISR_TIMER(t) (FWB_ISR_TIMER0 << (t))
#define FWB_ISR_LINK_DOWN (1u << 12)
#define FWB_ISR_MEMORY   (1u << 13)
#define FWB_ISR_NBITS    14u
#define FWB_ISR_ALL      ((1u << FWB_ISR_NBITS) - 1u)

/* ---- host DMA engine ---- */
#define FWB_HDMA_E2L      0x0001u /* host -> SRAM */
#define FWB_HDMA_L2E      0x0002u /* SRAM -> host */
#define FWB_HDMA_TERMINAL 0x0004u /* last descriptor of the chain */
#define FWB_HDMA_WAKE     0x0008u /* raise WAKE(channel) when this descriptor completes */

#define FWB_HDMA_DONE 1u          /* status of a clean descriptor or chain; others are errors */

/* A host DMA descriptor in SRAM, 32 bytes, 4-byte aligned, fields little-endian (the engine
 * is the PCI side's; the firmware writes it through fw_sram_hdma_desc_out, fw_sram.h). */
struct fwb_hdma_desc {
  uint32_t next;
  uint16_t flags;
  uint16_t csum;     /* written back by the engine */
  uint32_t len;
  uint32_t sram;
  uint32_t host_hi, host_lo;
  uint32_t ptag;
  uint32_t status;   /* written back by the engine */
};
#define FWB_HDMA_DESC_SIZE 32u   /* bytes of one descriptor in SRAM; chains are arrays of them */
_Static_assert(sizeof(struct fwb_hdma_desc) == FWB_HDMA_DESC_SIZE, "host DMA descriptor size");

struct fwb_hdma_status {
  bool busy;
  uint32_t error;    /* FWB_HDMA_DONE after a clean chain, else the engine's error code */
  uint16_t sum;      /* ones'-complement sum (not complemented) of the chain's bytes, in order */
};

/* ---- send / receive DMA engines ---- */
#define FWB_SEND_SML  0x1u        /* end of buffer: the message continues */
#define FWB_SEND_SMLT 0x2u        /* end of message */

#define FWB_RECV_EOM   0x1u
#define FWB_RECV_TRUNC 0x2u

enum fwb_recv_state { FWB_RECV_IDLE, FWB_RECV_ARMED, FWB_RECV_DONE };

struct fwb_recv_status {
  enum fwb_recv_state state;
  uint32_t len;      /* bytes stored so far */
  uint32_t frags;    /* fragments of this message so far */
  uint16_t src;      /* sending node, once frags > 0 */
  unsigned flags;    /* FWB_RECV_EOM, FWB_RECV_TRUNC */
};

/* ---- host memory regions ---- */
#define FWB_ACC_READ  1u          /* the NIC may read the host range (E2L) */
#define FWB_ACC_WRITE 2u          /* the NIC may write it (L2E) */
/* Further bits (HOSTIF_REGION_RDMA_WRITE) must be set too; a key in bits 8..15 must equal the
 * region's (hostif.h). */

enum fwb_region_verdict {
  FWB_REGION_OK = 0,
  FWB_REGION_OUTSIDE,             /* not inside one registered region */
  FWB_REGION_PTAG,                /* the region's protection tag differs */
  FWB_REGION_ACCESS,              /* the region does not allow this direction */
};

/* ---- event classes (the processor's cycle counters) ---- */
enum fwb_class {
  FWB_CLASS_IDLE,       /* polling with nothing to do */
  FWB_CLASS_DOORBELL,   /* a host rang a doorbell */
  FWB_CLASS_HDMA,       /* a host DMA chain completed */
  FWB_CLASS_RECV,       /* the receive engine moved */
  FWB_CLASS_SEND,       /* the send engine finished a fragment */
  FWB_CLASS_TIMER,      /* a timer expired */
  FWB_CLASS_VM,         /* a PANIC VM activation */
  FWB_CLASS_OTHER,
  FWB_NCLASS
};

/* ---- the calls ---- */
/* SRAM: a pointer to NIC address 0 (the firmware's own address space on a LANai). */
uint8_t *fwb_sram(struct fw_board *b);
uint32_t fwb_sram_size(struct fw_board *b);
uint16_t fwb_node(struct fw_board *b);

/* For the proofs (fw_dispatch.c): the ISR bits the firmware has cleared, ever. */
/*@ ghost extern uint32_t fwb_isr_cleared; */

/* The board calls the dispatcher makes change the board only (the hardware registers), none
 * of the firmware's memory. */
/*@ assigns \nothing; */
uint32_t fwb_events(struct fw_board *b);            /* ISR & IMR */
/*@ assigns fwb_isr_cleared;
    ensures fwb_isr_cleared == (\old(fwb_isr_cleared) | bits); */
void fwb_isr_clear(struct fw_board *b, uint32_t bits);
void fwb_imr_set(struct fw_board *b, uint32_t mask);

/* What the firmware handles from now on (enum fwb_class), until the next call: on the LANai
 * board the processor charges its instructions and cycles to it; natively nothing. */
/*@ assigns \nothing; */
void fwb_class(struct fw_board *b, unsigned k);

/*@ assigns \nothing; */
uint32_t fwb_doorbells_take(struct fw_board *b);    /* bit i: doorbell i rung since last take */
/*@ assigns \nothing; */
void fwb_signal_host(struct fw_board *b, uint32_t bits);

int fwb_hdma_start(struct fw_board *b, unsigned ch, uint32_t desc_addr);
/*@ requires \valid(st);
    assigns *st; */
void fwb_hdma_status(struct fw_board *b, unsigned ch, struct fwb_hdma_status *st);
/* Waits until channel ch is idle, at most timeout_ns of board time: 0, or -1 on timeout.
 * For a firmware step that cannot go on without the data (the PANIC VM's GET and DELIVER):
 * on a card it polls the channel's status register while the engine works; on the emulated
 * NIC it steps the emulated hardware (whose clock moves only when the firmware lets it). */
int fwb_hdma_wait(struct fw_board *b, unsigned ch, uint64_t timeout_ns);

int fwb_send_start(struct fw_board *b, uint16_t dst, uint32_t sram, uint32_t len,
                   unsigned flags);
int fwb_recv_arm(struct fw_board *b, uint32_t sram, uint32_t cap);
/*@ requires \valid(st);
    assigns *st; */
void fwb_recv_status(struct fw_board *b, struct fwb_recv_status *st);
/*@ assigns \nothing; */
int fwb_recv_abort(struct fw_board *b);

/*@ assigns \nothing; */
int fwb_timer_set(struct fw_board *b, unsigned t, uint64_t delay_ns);
uint64_t fwb_clock_ns(struct fw_board *b);
/* Busy time of the host DMA engine and of the send engine, for the counters. */
/*@ assigns \nothing; */
uint64_t fwb_hdma_busy_ns(struct fw_board *b);
/*@ assigns \nothing; */
uint64_t fwb_send_busy_ns(struct fw_board *b);

/* Is [host, host + len) inside one registered region with this tag and access? */
/*@ assigns \nothing; */
enum fwb_region_verdict fwb_region_check(struct fw_board *b, uint64_t host, uint32_t len,
                                         uint32_t ptag, uint32_t access);

/* Peer DMA (hw/peerdma.h): copies [from, from + len) of this SRAM into [to, to + len) of the
 * SRAM of NIC `node` on the same host, unless the word at `to` there is not 0, then rings its
 * command doorbell. 0, or negative (no such NIC, a bad range, the slot full). */
/*@ assigns \nothing; */
int fwb_peer_copy(struct fw_board *b, uint16_t node, uint32_t from, uint32_t to, uint32_t len);

/* ---- two processors (fw_cpus.c) ----
 * A board is one processor's view of the card: fwb_events, fwb_isr_clear and fwb_imr_set are
 * that processor's event register and mask (with one processor, the NIC's). */
unsigned fwb_cpu(struct fw_board *b);
unsigned fwb_ncpus(struct fw_board *b);   /* the card's processors: 1 or 2 */
/* The firmware semaphore (a hardware register): spin until this processor holds it; give it
 * back. */
void fwb_lock(struct fw_board *b);
void fwb_unlock(struct fw_board *b);
/* The doorbell between the processors: raise the other's; take this one's (was it up?). */
void fwb_kick(struct fw_board *b);
bool fwb_kicked(struct fw_board *b);

#endif
