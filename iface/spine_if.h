/* spine_if.h: the contract between the SPINE router's host program (host/spine) and the
 * forwarding firmware (firmware/nic/fw_spine.c) on each of the router's NICs: the router's
 * control block in SRAM (mailbox, ports, counters), the two forwarding-table banks and the
 * table's layout (host/spine/README.md). Little-endian, like everything in hostif.h.
 *
 * A route update: the host writes a whole new table into the bank not in use by programmed
 * I/O, then posts TABLE(bank, gen) in the mailbox and rings doorbell HOSTIF_DOORBELL_PANIC
 * (the NIC's command doorbell). The firmware checks the table (fw_lpm_check), switches to it,
 * waits until no packet it routed with the old table is still waiting to leave, and only then
 * writes `done` (seq last). So once the host sees TABLE done, no packet is forwarded by a
 * route the new table no longer has. Freestanding C11. */
#ifndef VERINIC_SPINE_IF_H
#define VERINIC_SPINE_IF_H

#include <stdint.h>

#include "hostif.h"

#define SPINE_MAGIC      0x454e4950u   /* "PINE" once the firmware serves the block */
#define SPINE_BASE       0x319000u     /* struct spine_ctl */
#define SPINE_BANK0      0x31c000u     /* forwarding table banks */
#define SPINE_BANK_SIZE  0x4000u       /* 16 KiB each */
#define SPINE_BANK(i)    (SPINE_BANK0 + (uint32_t)(i) * SPINE_BANK_SIZE)
#define SPINE_NPORT      8u            /* router ports (NICs of the router host) */
#define SPINE_IP_PORT    0xfffeu       /* the UDP port word of IP endpoints (datagram VIs) */
#define SPINE_IP_MAX     4036u         /* the router's MTU: an IP packet is one wire message */

/* ---- the forwarding table (a bank) ----
 * Longest-prefix match as a range table: the address space cut into intervals, each with the
 * next hop of the longest prefix covering it; every /8 starts an interval, and idx[b] is the
 * first interval of /8 number b (idx[256] = n). A lookup is one index read and a binary
 * search among that /8's intervals. */
#define SPINE_LPM_MAGIC  0x314c5053u   /* "SPL1" */
#define SPINE_LPM_NHOP   64u           /* next-hop entries */
#define SPINE_LPM_NONE   0xffu         /* interval hop: no route */
#define SPINE_LPM_IDX    16u           /* u16 idx[257] */
#define SPINE_LPM_HOPS   532u          /* u32 hop[SPINE_LPM_NHOP] */
#define SPINE_LPM_START  (SPINE_LPM_HOPS + 4u * SPINE_LPM_NHOP)   /* u32 start[n] */
#define SPINE_LPM_SIZE(n) (SPINE_LPM_START + 5u * (uint32_t)(n))  /* then u8 hop[n] */
#define SPINE_LPM_MAXN   ((SPINE_BANK_SIZE - SPINE_LPM_START) / 5u)
struct spine_lpm_head {
  uint32_t magic;
  uint32_t n;                  /* intervals, 256..SPINE_LPM_MAXN */
  uint32_t nhop;               /* next-hop entries used, 0..SPINE_LPM_NHOP */
  uint32_t gen;                /* the table's generation (the host's count of updates) */
};
/* A next-hop entry: the next hop's node, the router port it leaves by, LOCAL: for this host. */
#define SPINE_HOP(node, port, flags) \
  ((uint32_t)(uint16_t)(node) | (uint32_t)(uint8_t)(port) << 16 | (uint32_t)(uint8_t)(flags) << 24)
#define SPINE_HOP_NODE(h)  ((uint16_t)((h) & 0xffffu))
#define SPINE_HOP_PORT(h)  ((uint8_t)((h) >> 16))
#define SPINE_HOP_FLAGS(h) ((uint8_t)((h) >> 24))
#define SPINE_HOP_LOCAL    1u

/* ---- the mailbox ---- */
enum spine_op {
  SPINE_OP_CONFIG = 1,   /* arg[0] nport, arg[1] this NIC's port, arg[2] mode; port_node[] */
  SPINE_OP_TABLE = 2,    /* arg[0] bank, arg[1] gen: switch to that bank's table */
  SPINE_OP_OFF = 3,      /* stop routing: every IP packet goes to this host */
};
enum spine_mode {
  SPINE_MODE_FABRIC = 0, /* to another port's NIC over the fabric (SPINE's "Wire") */
  SPINE_MODE_PEER = 1,   /* by peer DMA into its SRAM (SPINE's "PCI") */
};
enum spine_status {
  SPINE_ST_PENDING = 0,
  SPINE_ST_OK = 1,
  SPINE_ST_EINVAL = 2,   /* bad op or argument */
  SPINE_ST_EBADTABLE = 3,/* the bank's table failed its check: detail = what (fw_lpm.h) */
  SPINE_ST_EBUSY = 4,    /* the bank named is the one in use */
  SPINE_ST_ESTATE = 5,   /* TABLE before CONFIG */
};

/* Counters the firmware keeps (nicstat-style; saturating). */
struct spine_counters {
  uint64_t rx_ip;        /* IP packets the router judged */
  uint64_t forwarded;    /* sent towards their next hop by this NIC (as ingress) */
  uint64_t transit;      /* sent on from another port (as egress) */
  uint64_t to_host;      /* handed up to this host */
  uint64_t no_route;     /* dropped: no route */
  uint64_t ttl_expired;  /* dropped: TTL 0 or 1 */
  uint64_t bad_header;   /* dropped: not IPv4, bad length, options beyond the packet */
  uint64_t bad_csum;     /* dropped: IP header checksum */
  uint64_t damaged;      /* dropped: the wire message was truncated or failed its trailer */
  uint64_t busy;         /* dropped: the send queue or the staging was full */
  uint64_t peer_out, peer_in;   /* packets moved by peer DMA, sent and received */
  uint64_t updates;      /* tables switched to */
  uint64_t drain_waits;  /* updates that waited for packets routed by the old table */
};

struct spine_ctl {
  uint32_t magic;              /* SPINE_MAGIC once the firmware serves the block */
  uint32_t node;               /* this NIC's node */
  uint32_t bank;               /* the bank in use (2: none) */
  uint32_t gen;                /* the generation of the table in use */
  struct { uint32_t seq, op, arg[4]; } cmd;
  struct { uint32_t seq, status, detail, reserved; } done;
  uint32_t port_node[SPINE_NPORT];   /* CONFIG: the node of each router port's NIC */
  struct spine_counters ctr;
};
#define SPINE_BANK_NONE 2u

/* Peer DMA inbox: slots another port's NIC fills by peer DMA (a 16-byte slot head, then the
 * packet); the slot head's `state` is written last by the engine. */
#define SPINE_INBOX      0x196400u
#define SPINE_INBOX_N    2u
#define SPINE_INBOX_SLOT 0x1400u
#define SPINE_INBOX_AT(i) (SPINE_INBOX + (uint32_t)(i) * SPINE_INBOX_SLOT)
struct spine_slot {
  uint32_t state;        /* 0 free, 1 full */
  uint32_t len;          /* packet bytes */
  uint32_t hop;          /* SPINE_HOP of the next hop */
  uint32_t reserved;
};

_Static_assert(sizeof(struct spine_ctl) <= SPINE_INBOX - SPINE_BASE, "the control block fits");
_Static_assert(SPINE_INBOX_AT(SPINE_INBOX_N) <= SPINE_BANK0, "the inbox ends below the banks");
_Static_assert(SPINE_BASE >= HOSTIF_PANIC_BASE + sizeof(struct hostif_panic),
               "the router's area lies above the PANIC area");
_Static_assert(SPINE_BANK(2) <= HOSTIF_BUF_BASE, "the banks end below the packet buffers");
_Static_assert(SPINE_INBOX_SLOT >= 16u + SPINE_IP_MAX, "an inbox slot holds the largest packet");
_Static_assert(SPINE_IP_MAX <= HOSTIF_MAX_PAYLOAD, "an IP packet fits one wire message");

#endif
