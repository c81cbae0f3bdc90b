/* hostif.h: the contract between the host library (libnic) and the NIC firmware: where the
 * host interface lives in SRAM, the VI table, the work queue rings and their descriptors, the
 * doorbells and the host signals. Both sides include this file; it is freestanding C11.
 *
 * The host writes descriptors into a VI's rings in SRAM by programmed I/O and publishes its
 * producer index (the second level of E-UDP's two-level queue, section 4.2; the first level,
 * in host memory, is libnic's overflow list for when a ring is full). It then rings doorbell
 * `vi` of the NIC window. The firmware consumes descriptors in order, moves the data, writes
 * the completion into the descriptor's slot (status last) and raises host signal bit
 * HOSTIF_SIG_VI(vi). All fields are in the NIC's byte order (native in the emulated NIC; the
 * LANai board HAL converts). */
#ifndef VERINIC_HOSTIF_H
#define VERINIC_HOSTIF_H

#include <stdint.h>

#define HOSTIF_MAGIC   0x31414956u   /* "VIA1" */
#define HOSTIF_VERSION 1u

/* SRAM map. The first 1.5 MiB hold the firmware image and its stack on a LANai board
 * (firmware/lanai/README.md); the host interface and the packet buffers live above it. */
#define HOSTIF_BASE      0x180000u   /* struct hostif_ctrl */
#define HOSTIF_NVI       16u         /* VIs per NIC; VI 0 is reserved for the firmware */
#define HOSTIF_RING      32u         /* descriptors per work queue ring (a power of two) */
#define HOSTIF_MAXSEG    4u          /* data segments per descriptor */
#define HOSTIF_MTU       4096u       /* payload bytes per wire message (the data path's MSGLEN) */
#define HOSTIF_MAX_XFER  (1u << 20)  /* the largest transfer one descriptor may describe */

/* ---- descriptors ---- */

enum hostif_op {
  HOSTIF_OP_SEND = 1,        /* send queue: send, matched by a receive at the peer */
  HOSTIF_OP_RDMA_WRITE = 2,  /* send queue: write into the peer's registered memory */
  HOSTIF_OP_RECV = 3,        /* receive queue: a buffer for one incoming send */
};

#define HOSTIF_F_IMMEDIATE 0x1u /* imm is carried to the peer's receive completion */
#define HOSTIF_F_SIGNAL    0x2u /* raise the VI's host signal when this completes */

/* Completion status, written by the NIC into `status` last (0 while pending). */
enum hostif_status {
  HOSTIF_ST_PENDING = 0,
  HOSTIF_ST_DONE = 1,
  HOSTIF_ST_PROTECTION = 2,  /* a segment outside registered memory, or a wrong protection tag */
  HOSTIF_ST_LENGTH = 3,      /* the message did not fit the receive buffer (truncated) */
  HOSTIF_ST_FORMAT = 4,      /* malformed descriptor (bad op, segment count, length) */
  HOSTIF_ST_DISCONNECTED = 5,/* the VI is not connected, or the connection broke */
  HOSTIF_ST_FLUSHED = 6,     /* the VI was destroyed or disconnected with this pending */
};

struct hostif_seg {
  uint64_t addr;             /* host virtual address, inside a registered region */
  uint32_t len;
  uint32_t ptag;             /* protection tag of the region */
};

/* One ring slot: 128 bytes. The host fills everything above `status` and sets status to
 * PENDING before publishing the producer index; the NIC writes the fields from `status` on. */
struct hostif_desc {
  uint16_t op;               /* enum hostif_op */
  uint16_t flags;            /* HOSTIF_F_* */
  uint16_t nseg;             /* 0..HOSTIF_MAXSEG */
  uint16_t reserved;
  uint32_t length;           /* sum of the segments' lengths */
  uint32_t imm;              /* immediate data (HOSTIF_F_IMMEDIATE) */
  uint64_t rdma_addr;        /* RDMA write: the peer's host address */
  uint32_t rdma_ptag;        /* RDMA write: the peer region's protection tag */
  uint32_t cookie;           /* the host's, returned untouched */
  struct hostif_seg seg[HOSTIF_MAXSEG];
  /* written by the NIC */
  uint32_t status;           /* enum hostif_status; written last */
  uint32_t done_len;         /* bytes sent, or received into this buffer */
  uint32_t done_imm;         /* receive: the sender's immediate data */
  uint16_t done_flags;       /* receive: HOSTIF_F_IMMEDIATE if imm was sent */
  uint16_t reserved2;
  uint64_t reserved3[2];
};

/* ---- VIs ---- */

enum hostif_vi_state {
  HOSTIF_VI_FREE = 0,
  HOSTIF_VI_IDLE = 1,        /* created, not connected */
  HOSTIF_VI_CONNECTED = 2,
  HOSTIF_VI_ERROR = 3,       /* the connection broke; pending work is flushed */
};

enum hostif_reliability {
  HOSTIF_UNRELIABLE = 0,
  HOSTIF_RELIABLE_DELIVERY = 1,
};

struct hostif_ring {
  uint32_t prod;             /* written by the host: slots published (free-running) */
  uint32_t cons;             /* written by the NIC: slots consumed (free-running) */
  uint32_t done;             /* written by the NIC: slots completed (free-running) */
  uint32_t reserved;
  struct hostif_desc slot[HOSTIF_RING];   /* slot i % HOSTIF_RING */
};

struct hostif_vi {
  uint32_t state;            /* enum hostif_vi_state; the host creates, connection set-up
                                (nicd) connects, the NIC may set ERROR */
  uint32_t reliability;      /* enum hostif_reliability */
  uint32_t ptag;             /* protection tag of the VI: every segment must carry it */
  uint16_t remote_node;      /* when CONNECTED */
  uint16_t remote_vi;
  uint32_t owner_pid;        /* the host process that created it */
  uint32_t reserved[3];
  struct hostif_ring sq;     /* send queue */
  struct hostif_ring rq;     /* receive queue */
};

struct hostif_ctrl {
  uint32_t magic;            /* HOSTIF_MAGIC, written by the firmware when it is ready */
  uint32_t version;
  uint32_t nvi;
  uint32_t vi_off;           /* SRAM address of vi[0] */
  uint32_t counters_off;     /* SRAM address of struct hostif_counters */
  uint32_t reserved[11];
};

/* Firmware counters the `nicstat` tool prints. */
struct hostif_counters {
  uint64_t tx_msgs, tx_bytes, rx_msgs, rx_bytes;
  uint64_t rx_drop_no_vi, rx_drop_no_desc, rx_drop_malformed, rx_drop_checksum, rx_truncated;
  uint64_t protection_errors, format_errors;
  uint64_t events[32];       /* dispatched, by ESM event number */
  uint64_t hdma_busy_ns, send_busy_ns;
};

#define HOSTIF_VI_ADDR(i) (HOSTIF_BASE + 0x100u + (uint32_t)(i) * (uint32_t)sizeof(struct hostif_vi))
#define HOSTIF_COUNTERS_ADDR (HOSTIF_VI_ADDR(HOSTIF_NVI))
/* Above the host interface: the firmware's packet buffers (its own business). */
#define HOSTIF_BUF_BASE 0x1c0000u

/* Doorbell i of the NIC window (hw/MEMORY-MAP.md) is rung for VI i after publishing `prod`. */
#define HOSTIF_DOORBELL_VI(i) (i)
/* Host signal bits (hwin_wait_irq): VI i completed something that asked for a signal. */
#define HOSTIF_SIG_VI(i) (1u << (i))

_Static_assert(sizeof(struct hostif_desc) == 128, "a ring slot is 128 bytes");

#endif
