/* hostif.h: the contract between the host library (libnic) and the NIC firmware: where the
 * host interface lives in SRAM, the VI table, the work queue rings and their descriptors, the
 * doorbells and the host signals. Both sides include this file; it is freestanding C11.
 *
 * The host writes descriptors into a VI's rings in SRAM by programmed I/O and publishes its
 * producer index (the second level of E-UDP's two-level queue, section 4.2; the first level,
 * in host memory, is libnic's overflow list for when a ring is full). It then rings doorbell
 * `vi` of the NIC window. The firmware consumes descriptors in order, moves the data, writes
 * the completion into the descriptor's slot (status last) and raises the host signal bit of
 * that work queue, HOSTIF_SIG_SQ(vi) or HOSTIF_SIG_RQ(vi).
 *
 * Byte order: every multi-byte field below is little-endian (the PCI host's order), whatever
 * the NIC's processor: hosts read and write them natively, the big-endian LANai firmware
 * converts in its SRAM accessors (firmware/nic/fw_le.h). */
#ifndef VERINIC_HOSTIF_H
#define VERINIC_HOSTIF_H

#include <stdint.h>

#define HOSTIF_MAGIC   0x31414956u   /* "VIA1" */
#define HOSTIF_VERSION 10u  /* 3: faults by id in hostif_counters; 4: a signal bit per work
                               queue; 5: the rings' rel_seq (a peer's last delivered message);
                               6: 64 VIs, sharing doorbells and signal bits 15 apart;
                               7: 16 KiB wire messages, the PANIC area moved down;
                               8: the VI's connection stamp (conn);
                               9: 256 VIs in a 4 MiB SRAM, the PANIC area and buffers above;
                               10: 33 KiB wire messages (a 32 KiB payload) */

/* SRAM map. The first 1 MiB holds the firmware image and its stack on a LANai board
 * (firmware/lanai/README.md); the host interface and the packet buffers live above it, up to
 * FW_SRAM_END (firmware/nic/fw.h), about 3.5 MiB: the firmware needs HOSTIF_SRAM, the
 * 4 MiB of the larger LANai 9 and XP boards (hw/README.md). */
#define HOSTIF_SRAM      (4u << 20)
#define HOSTIF_BASE      0x100000u   /* struct hostif_ctrl */
#define HOSTIF_NVI       256u        /* VIs per NIC; VI 0 is reserved for the firmware. A
                                        multiple of 32 (the firmware's VI masks, fw_vi.h, and
                                        libnic's L1 bits are words of 32 and 64) */
#define HOSTIF_RING      32u         /* descriptors per work queue ring (a power of two) */
#define HOSTIF_MAXSEG    4u          /* data segments per descriptor */
#define HOSTIF_MAX_PAYLOAD 33732u   /* payload bytes per wire message: 33792 (the data path's
                                        MSGLEN) - 56 (header) - 4 (trailer); firmware/nic/WIRE.md */
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
  HOSTIF_ST_REMOTE = 7,      /* Reliable Delivery: the peer refused the transfer (no receive
                                descriptor, or one too short); the connection is broken */
  HOSTIF_ST_RDMA_PROT = 8,   /* Reliable Delivery: the peer refused an RDMA Write (its VI or
                                memory does not allow it, or the range is not the handle's
                                memory); the connection is broken. PROTECTION is local. */
  HOSTIF_ST_TRANSPORT = 9,   /* Reliable Delivery: the connection broke in the network (the
                                retry limit passed without an acknowledgement, or the peer
                                gave up and reset it) */
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
  uint32_t rdma_ptag;        /* RDMA write: the peer memory's protection tag (bits 0..23) and
                                its registration key (bits 24..31; 0: any memory of the tag),
                                HOSTIF_RDMA_HANDLE */
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
/* A VI in these states still names its peer (remote_node, remote_vi): when it goes away,
 * nicd breaks that peer first (nicd/vitab.c), and no host may take the entry before. */
#define HOSTIF_VI_NAMES_PEER(state) ((state) == HOSTIF_VI_CONNECTED || (state) == HOSTIF_VI_ERROR)

/* Reliable Delivery: a send completes only when the peer NIC has acknowledged the whole
 * transfer (WIRE.md, "Acknowledgements"); a transfer the peer refuses completes with the
 * peer's reason and both VIs go to ERROR. Unreliable: a send completes when it has left. */
#define HOSTIF_REL_SEQ_VALID 0x80000000u

enum hostif_reliability {
  HOSTIF_UNRELIABLE = 0,
  HOSTIF_RELIABLE_DELIVERY = 1,
};

struct hostif_ring {
  uint32_t prod;             /* written by the host: slots published (free-running) */
  uint32_t cons;             /* written by the NIC: slots consumed (free-running) */
  uint32_t done;             /* written by the NIC: slots completed (free-running) */
  uint32_t rel_seq;          /* Reliable Delivery, HOSTIF_REL_SEQ_VALID | a sequence number,
                                0 for none (nicd clears both at connection). rq: written by
                                the NIC: the connection's last message it delivered. sq:
                                written by nicd when the peer leaves the connection: the peer
                                NIC's rq.rel_seq then, taken by the firmware as the peer's
                                last acknowledgement before it fails what is left (its ACK
                                may still be on the way: nicd/CONNECT.md) */
  struct hostif_desc slot[HOSTIF_RING];   /* slot i % HOSTIF_RING */
};

struct hostif_vi {
  uint32_t state;            /* enum hostif_vi_state; the host creates, connection set-up
                                (nicd) connects, the NIC may set ERROR */
  uint32_t reliability;      /* enum hostif_reliability */
  uint32_t ptag;             /* protection tag of the VI: every segment must carry it */
  uint16_t remote_node;      /* when CONNECTED */
  uint16_t remote_vi;
  uint32_t owner_pid;        /* the host process that owns it: its creator, or the process
                                it was handed to (a VI fork() shares, taken over) */
  uint32_t generation;       /* bumped by the host each time it creates a VI in this entry:
                                the NIC forgets all it had of an earlier one and reports
                                nothing of it into the new rings */
  uint32_t flags;            /* HOSTIF_VI_F_*, written by the host while the VI is idle */
  uint32_t port;             /* HOSTIF_VI_F_DGRAM: the UDP port it is bound to (1..65535),
                                written by the host while it is FREE; the VI table's port
                                words are the firmware's port -> VI table */
  uint32_t conn;             /* when CONNECTED: the connection's stamp, written by nicd with
                                remote_node and remote_vi, the same at both ends and new for
                                each connection. Every message of the connection carries it,
                                and a VI takes none with another: the wire cannot otherwise
                                tell a late message of an earlier connection between the
                                same two entries from one of this (WIRE.md) */
  struct hostif_ring sq;     /* send queue */
  struct hostif_ring rq;     /* receive queue */
};

/* VI flags. RDMA_WRITE: remote RDMA Writes may target this VI (VIA's EnableRdmaWrite). */
#define HOSTIF_VI_F_RDMA_WRITE 1u
/* DGRAM: a connectionless datagram endpoint (E-UDP, host/eudp/README.md): IDLE, Unreliable,
 * never connected. A send names its destination in the descriptor (rdma_addr =
 * HOSTIF_DGRAM_DEST(node, port)); it receives any datagram a NIC sends to its `port`, and the
 * receive completion names the sender (done_imm = HOSTIF_DGRAM_DEST(node, port), done_flags
 * HOSTIF_F_DGRAM). A datagram VI may be connected to one sender (remote_node, and its port in
 * remote_vi; 0: none, written by the host): datagrams from it go to that VI before one of the
 * same port connected to nobody, and it takes no datagram from anyone else. Several datagram
 * VIs may share a port (SO_REUSEADDR). A datagram is one SEND of at most HOSTIF_DGRAM_MAX bytes, fragmented into
 * wire messages and reassembled by the receiving firmware; a receive too short for it
 * completes LENGTH. Several datagrams are reassembled at once: they complete in the order
 * they end, and a receive completion's `cookie` is that of the descriptor it filled (WIRE.md,
 * "Datagrams"). */
#define HOSTIF_VI_F_DGRAM 2u
#define HOSTIF_DGRAM_MAX 65507u     /* UDP over IPv4: 65535 - 20 - 8 */
#define HOSTIF_DGRAM_FRAG 33704u    /* payload bytes per wire message of a datagram */
/* A datagram send's IPv4 addresses, for its IPv4 header and UDP checksum (WIRE.md): the
 * destination's in bits 32..63 of rdma_addr, the source's in rdma_ptag (0.0.0.0 allowed). */
#define HOSTIF_DGRAM_IP(rdma_addr) ((uint32_t)((uint64_t)(rdma_addr) >> 32))
#define HOSTIF_DGRAM_DEST(node, port) ((uint32_t)(uint16_t)(node) | (uint32_t)(uint16_t)(port) << 16)
#define HOSTIF_DGRAM_NODE(dest) ((uint16_t)((dest) & 0xffffu))
#define HOSTIF_DGRAM_PORT(dest) ((uint16_t)((dest) >> 16))
#define HOSTIF_F_DGRAM 0x4u         /* done_flags of a datagram receive: done_imm is its source */

/* What a remote RDMA Write may touch, in the region table's access word beyond hw's
 * read/write bits (iface/window.h): bit 2, the memory allows remote RDMA Writes (VIA's
 * EnableRdmaWrite on memory); bits 8..15, the key of the registration the region belongs to
 * (0: none). An RDMA Write names tag and key (HOSTIF_RDMA_HANDLE) and lands only in a region
 * with both, RDMA_WRITE set, on a VI with HOSTIF_VI_F_RDMA_WRITE. */
#define HOSTIF_REGION_RDMA_WRITE 4u
#define HOSTIF_REGION_KEY_SHIFT  8
#define HOSTIF_PTAG_MASK         0xffffffu
#define HOSTIF_RDMA_HANDLE(tag, key) (((uint32_t)(tag) & HOSTIF_PTAG_MASK) | (uint32_t)(key) << 24)

struct hostif_ctrl {
  uint32_t magic;            /* HOSTIF_MAGIC, written by the firmware when it is ready */
  uint32_t version;
  uint32_t nvi;
  uint32_t vi_off;           /* SRAM address of vi[0] */
  uint32_t counters_off;     /* SRAM address of struct hostif_counters */
  uint32_t reserved[11];
};

/* The PANIC VM's counters (firmware/vm/CONTROL.md). */
struct hostif_panic_counters {
  uint64_t rx_pkts, tx_pkts;           /* PANIC data messages received / sent on the wire */
  uint64_t rx_drop_no_prog;            /* for no program, or one not waiting for triggers */
  uint64_t rx_drop_no_trigger;         /* the program declares no block for the message */
  uint64_t rx_drop_full;               /* the activation queue was full */
  uint64_t rx_drop_bad;                /* malformed, truncated or bad checksum */
  uint64_t activations;                /* handlers run (initial blocks and triggers) */
  uint64_t dma_activations;            /* of them, run holding the host DMA engine */
  uint64_t abort_budget;               /* ended by the instruction budget (SPINE's watchdog) */
  uint64_t abort_bounds, abort_div, abort_service, abort_internal;  /* ended by a fault */
  uint64_t killed;                     /* programs stopped after too many aborts in a row */
  uint64_t instructions;               /* executed, all activations */
  uint64_t dma_bytes;                  /* moved by DELIVER and GET */
  uint64_t display_drops;              /* DISPLAY values lost to a full ring */
  uint64_t send_fail;                  /* SENDs refused: no route, queue full, too long */
  uint64_t ctl_cmds, ctl_remote;       /* host commands done; of them, forwarded to a peer */
  uint64_t ctl_timeouts;               /* forwarded commands the peer never answered */
  uint64_t ctl_served;                 /* commands from peers served */
};

/* Firmware counters the `nicstat` tool prints. */
/* The firmware's faults: its own inconsistencies, 0 on a healthy NIC. One id per place that
 * detects one (the firmware calls fw_fault(fw, HOSTIF_FAULT_<id>)); this table drives the enum,
 * the per-id counters and nicstat's names. X(id, what happened). */
#define HOSTIF_FAULTS(X)                                                                        \
  X(NONE, "no fault")                                                                           \
  X(RAISE_SEND_DONE, "send_done refused by the data path (fw_dispatch.c)")                      \
  X(RAISE_HDMA_EMPTY, "the done event of a host DMA step with nothing to move refused (fw_hal_hdma.c)") \
  X(HDMA_START, "the host DMA engine refused a chain (fw_hal_hdma.c)")                          \
  X(RAISE_HDMA_REFUSED, "the done event of a refused host DMA chain refused (fw_hal_hdma.c)")   \
  X(RAISE_HDMA_DONE, "a host DMA completion's done event refused (fw_hal_hdma.c)")              \
  X(RECV_ARM, "the receive engine refused a buffer (fw_hal_rx.c)")                              \
  X(RAISE_RX_COMPLETED, "rx_completed refused by the data path (fw_hal_rx.c)")                  \
  X(TX_LEN_NO_MESSAGE, "SDMA started a message when none was queued (fw_hal_tx.c)")             \
  X(SEND_START, "the send engine refused a fragment (fw_hal_tx.c)")                             \
  X(TX_ORDER, "a message completed out of order (fw_hal_tx.c)")                                 \
  X(SQ_DESC_INSANE, "a validated descriptor failed the splitter's check (fw_sq.c)")             \
  X(RAISE_DOORBELL_SQ, "a send queue's doorbell event refused (fw_sq.c)")                       \
  X(RAISE_DOORBELL_LOCAL, "a firmware message's doorbell event refused (fw_txlocal.c)")         \
  X(RAISE_VM_WAKE, "vm_wake refused by the data path (fw_vm_run.c)")                            \
  X(VM_NO_WORK, "the VM machine ran with no activation queued (fw_vm_run.c)")                   \
  X(RAISE_VM_DONE, "the VM's done event refused (fw_vm_run.c)")                                 \
  X(DP_ASSERT, "a machine's assert failed (esm/machines, at last_fault_where)")                 \
  X(DP_RANGE, "a machine's value left its range (at last_fault_where)")                         \
  X(DP_INDEX, "a machine's array index out of bounds (at last_fault_where)")                    \
  X(DP_QUEUE_FULL, "a machine pushed onto a full queue (at last_fault_where)")                  \
  X(DP_QUEUE_EMPTY, "a machine popped an empty queue (at last_fault_where)")                    \
  X(DP_RESOURCE, "a machine released a resource it does not hold (at last_fault_where)")        \
  X(DP_DIV_ZERO, "a machine divided by zero (at last_fault_where)")                             \
  X(DP_OTHER, "a machine reported an unknown fault code (at last_fault_where)")               \
  X(RELIAB, "a Reliable Delivery machine failed a run-time check (fw_reliab.c, at last_fault_where)") \
  X(RELIAB_RESEND, "a message to send again lies in no posted descriptor (fw_sq.c)")            \
  X(RELIAB_DELIVER, "a message classified as next in order was not taken (fw_rq.c)")

enum hostif_fault {
#define HOSTIF_FAULT_ID(id, what) HOSTIF_FAULT_##id,
  HOSTIF_FAULTS(HOSTIF_FAULT_ID)
#undef HOSTIF_FAULT_ID
  HOSTIF_FAULT_N
};
#define HOSTIF_FAULT_SLOTS 32u   /* counters reserved in SRAM, so ids can be added */
_Static_assert(HOSTIF_FAULT_N <= HOSTIF_FAULT_SLOTS, "fault ids fit their counters");

struct hostif_counters {
  uint64_t tx_msgs, tx_bytes, rx_msgs, rx_bytes;
  uint64_t rx_drop_no_vi, rx_drop_no_desc, rx_drop_malformed, rx_drop_checksum, rx_truncated;
  uint64_t protection_errors, format_errors;
  uint64_t events[32];       /* dispatched, by ESM event number */
  uint64_t hdma_busy_ns, send_busy_ns;
  uint64_t tx_acks, rx_acks, tx_nacks, rx_nacks;  /* Reliable Delivery acknowledgements */
  uint64_t conn_broken;      /* reliable connections this NIC broke (sent or got a NACK) */
  /* Reliable Delivery's retransmission (firmware/nic/fw_reliab.c) */
  uint64_t retransmits;      /* messages sent again (go-back-N) */
  uint64_t rto_expired;      /* retransmission timeouts */
  uint64_t rx_drop_dup;      /* messages dropped as already delivered (and ACKed again) */
  uint64_t rx_drop_ooo;      /* messages dropped as ahead of a missing one (and ACKed again) */
  uint64_t transport_breaks; /* connections broken by the retry limit or the peer's reset */
  uint64_t fw_faults;        /* the firmware's own inconsistencies (0 in a healthy NIC), all ids */
  uint64_t bad_doorbells;    /* doorbells rung that name no VI and no mailbox */
  uint64_t isr[14];          /* hardware events handled, by event register bit */
  struct hostif_panic_counters panic;   /* the PANIC VM (struct above) */
  uint64_t faults[HOSTIF_FAULT_SLOTS];  /* by id (HOSTIF_FAULTS) */
  uint32_t last_fault;                  /* the id of the latest fault (NONE: none yet) */
  char last_fault_where[44];            /* DP_* faults: the machine's "file.esm:LINE" */
  /* The firmware on two processors (firmware/nic/fw_cpus.c; zero with one): per processor,
   * the hardware events it handled, the data path's transitions it ran, and its passes
   * (fw_cpus_poll). */
  uint64_t cpu_isr[2], cpu_steps[2], cpu_passes[2];
};

#define HOSTIF_VI_ADDR(i) (HOSTIF_BASE + 0x100u + (uint32_t)(i) * (uint32_t)sizeof(struct hostif_vi))
#define HOSTIF_COUNTERS_ADDR (HOSTIF_VI_ADDR(HOSTIF_NVI))
/* Above the host interface: the firmware's packet buffers (its own business). */
#define HOSTIF_BUF_BASE 0x324000u

/* The window has 32 doorbells and the host signal word 32 bits (iface/WINDOW.md), fewer than
 * VIs: VIs share them by class, VI i (i >= 1) in class 1 + (i - 1) % 15, so VIs 1..15 have
 * their own and VI 16 shares VI 1's. A doorbell or a signal bit then means "one of the class
 * may have something": the firmware looks at every VI of a rung class (fw_dispatch.c), and
 * a host woken by a bit looks at its own queues and sleeps again if nothing is there. */
#define HOSTIF_NCLASS 15u
#define HOSTIF_VI_CLASS(i) ((i) ? 1u + ((unsigned)(i) - 1u) % HOSTIF_NCLASS : 0u)
/* Doorbell HOSTIF_DOORBELL_VI(i) is rung for VI i after publishing `prod`. */
#define HOSTIF_DOORBELL_VI(i) HOSTIF_VI_CLASS(i)
/* Host signal bits (wait_signal, iface/wait.h): VI i's send queue (bit c, its class) or
 * receive queue (bit 16 + c; VI 0, the firmware's, has none: bit 16 is HOSTIF_SIG_PANIC)
 * completed something that asked for a signal. One bit per queue class, so that a thread
 * waiting for a receive sleeps through its own sends' completions. HOSTIF_SIG_VI: both, for
 * those waiting for anything of the VI and for nicd's "look now" when a VI breaks. */
#define HOSTIF_SIG_SQ(i) (1u << HOSTIF_VI_CLASS(i))
#define HOSTIF_SIG_RQ(i) ((i) ? 1u << (16u + HOSTIF_VI_CLASS(i)) : 0u)
#define HOSTIF_SIG_VI(i) (HOSTIF_SIG_SQ(i) | HOSTIF_SIG_RQ(i))

_Static_assert(sizeof(struct hostif_desc) == 128, "a ring slot is 128 bytes");

/* ---- the PANIC VM's control area (firmware/vm/CONTROL.md) ----
 * PANIC section 3.3. A host controls the VM through a command mailbox in SRAM written by
 * programmed I/O: it takes the mailbox (lock word, CAS with its pid), writes the command and
 * its data (a module image, or a message), bumps cmd.seq, and rings doorbell
 * HOSTIF_DOORBELL_PANIC. The firmware runs the command, or forwards it to the NIC named by
 * cmd.node as a PANIC control packet and waits for the answer (at most HOSTIF_PANIC_REMOTE_MS),
 * then writes the result into `done` (seq last) and raises host signal HOSTIF_SIG_PANIC.
 * DISPLAY values go into a ring the host reads. Shared memory segments (registered host
 * memory) are attached by id in the segment table, which DELIVER and GET name. */
#define HOSTIF_PANIC_BASE     0x305000u   /* struct hostif_panic */
#define HOSTIF_PANIC_MAGIC    0x434e4150u /* "PANC" */
#define HOSTIF_DOORBELL_PANIC 16u         /* doorbells 16..31 are not VIs' */
#define HOSTIF_SIG_PANIC      (1u << 16)
#define HOSTIF_PANIC_DATA_MAX 0x11000u    /* bytes of cmd data: the largest module is 67623 */
#define HOSTIF_PANIC_NSEG     16u         /* segment table entries (segment ids 0..15) */
#define HOSTIF_PANIC_NPROG    8u          /* programs one NIC holds */
#define HOSTIF_PANIC_NROUTE   16u         /* PANIC address -> node entries */
#define HOSTIF_PANIC_DISPLAY  1024u       /* DISPLAY ring entries (a power of two) */
#define HOSTIF_PANIC_REMOTE_MS 500u       /* a forwarded command is answered within this */
#define HOSTIF_PANIC_MSG_MAX  4036u       /* bytes of a message to a trigger (one wire message) */
/* In a segment attached with HOSTIF_PANIC_SEG_SYNC, the first HOSTIF_PANIC_SYNC bytes are 8
 * lock words then 8 flag words (section 3.3: the host sets locks and clears flags; the NIC
 * clears locks and sets flags, and the firmware refuses a DELIVER that would do otherwise). */
#define HOSTIF_PANIC_SEG_SYNC 1u
#define HOSTIF_PANIC_SYNC     64u
#define HOSTIF_PANIC_NLOCK    8u

enum hostif_panic_op {
  HOSTIF_PANIC_LOAD = 1,     /* data = module image (len bytes); prog = the id to give it */
  HOSTIF_PANIC_UNLOAD = 2,   /* prog */
  HOSTIF_PANIC_RUN = 3,      /* prog: run the initial block */
  HOSTIF_PANIC_SEND = 4,     /* prog, trigger, data = the message (len bytes) */
  HOSTIF_PANIC_LIST = 5,     /* done.list[] = the programs, done.detail = how many */
  HOSTIF_PANIC_ROUTE = 6,    /* arg[0], arg[1] = PANIC address low, high; arg[2] = node */
};

enum hostif_panic_status {
  HOSTIF_PANIC_PENDING = 0,
  HOSTIF_PANIC_OK = 1,
  HOSTIF_PANIC_EINVAL = 2,     /* bad op, length or argument */
  HOSTIF_PANIC_ENOENT = 3,     /* no such program */
  HOSTIF_PANIC_EEXIST = 4,     /* the program id is in use */
  HOSTIF_PANIC_ENOSPC = 5,     /* no program slot, not enough program memory, a table full */
  HOSTIF_PANIC_EREJECT = 6,    /* the verifier rejected the module: result = enum vm_err,
                                  detail = byte offset in the image */
  HOSTIF_PANIC_ESTATE = 7,     /* the program's state does not allow it (started, stopped) */
  HOSTIF_PANIC_EBUSY = 8,      /* the activation queue or the send queue is full */
  HOSTIF_PANIC_ETIMEDOUT = 9,  /* the remote NIC did not answer in time */
  HOSTIF_PANIC_EUNREACH = 10,  /* the node cannot be reached */
  HOSTIF_PANIC_EABORT = 11,    /* the handler ran and was aborted: result = enum vm_result */
};

struct hostif_panic_cmd {      /* written by the host */
  uint32_t seq;                /* bumped by the host to submit, after everything else */
  uint32_t op;                 /* enum hostif_panic_op */
  uint32_t node;               /* NIC to run it on (this NIC's own node: here) */
  uint32_t prog;               /* program id (PDL's `TO prog`) */
  uint32_t trigger;            /* message number */
  uint32_t len;                /* bytes in data */
  uint32_t arg[4];
};

struct hostif_panic_prog {     /* one LIST entry */
  uint32_t id;
  uint32_t state;              /* enum vm_state: 1 loaded, 2 waiting, 3 stopped */
  uint32_t mem;                /* bytes of program memory */
  uint32_t aborts;             /* activations aborted (budget or fault) */
  uint32_t activations;
  uint32_t reserved;
  char name[16];
};

struct hostif_panic_done {     /* written by the firmware */
  uint32_t seq;                /* = cmd.seq once done; written last */
  uint32_t status;             /* enum hostif_panic_status */
  uint32_t result;             /* RUN/SEND: enum vm_result; EREJECT: enum vm_err */
  uint32_t detail;             /* EREJECT: byte offset in the image; LIST: entries */
  struct hostif_panic_prog list[HOSTIF_PANIC_NPROG];
};

struct hostif_panic_seg {      /* written by the host */
  uint32_t state;              /* 1 attached, 0 free */
  uint32_t ptag;               /* protection tag of the registered region holding it */
  uint64_t addr;               /* host address */
  uint32_t len;
  uint32_t owner_pid;
  uint32_t flags;              /* HOSTIF_PANIC_SEG_SYNC */
  uint32_t reserved;
};

struct hostif_panic_route {    /* written by the firmware (ROUTE command) */
  uint32_t used;
  uint32_t node;
  uint64_t addr;               /* PANIC address (PDL's `AT a:b:...`) */
};

struct hostif_panic_display {  /* one DISPLAY value */
  uint32_t prog;
  int32_t value;
};

struct hostif_panic {
  uint32_t magic;              /* HOSTIF_PANIC_MAGIC once the firmware serves the mailbox */
  uint32_t lock;               /* the mailbox owner's pid, 0 when free (hosts CAS it) */
  uint32_t display_head;       /* written by the firmware: values put (free-running) */
  uint32_t display_tail;       /* written by the reading host: values taken (free-running) */
  uint32_t display_drops;      /* values lost because the ring was full */
  uint32_t node;               /* this NIC's node */
  uint32_t reserved[10];
  struct hostif_panic_cmd cmd;
  struct hostif_panic_done done;
  struct hostif_panic_seg seg[HOSTIF_PANIC_NSEG];
  struct hostif_panic_route route[HOSTIF_PANIC_NROUTE];
  struct hostif_panic_display display[HOSTIF_PANIC_DISPLAY];
  uint8_t data[HOSTIF_PANIC_DATA_MAX];
};

_Static_assert(HOSTIF_COUNTERS_ADDR + sizeof(struct hostif_counters) <= HOSTIF_PANIC_BASE,
               "the counters end below the PANIC area");
_Static_assert(HOSTIF_PANIC_BASE + sizeof(struct hostif_panic) <= HOSTIF_BUF_BASE,
               "the PANIC area lies inside the host interface");


#endif
