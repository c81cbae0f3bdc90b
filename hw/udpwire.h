/* The UDP transport's datagram: a 20-byte header (magic, version, source and destination
 * node, length, the sending endpoint's epoch, and a CRC-32 of those 16 bytes) before one link
 * frame (link.h), whose own CRC covers the rest. Layout in WIRE-FORMAT.md ("UDP datagram").
 * udpwire_check is everything a receiver decides from the bytes alone, so it is what the fuzz
 * target (fuzz_udpwire) runs; the sender's address is checked by udpfab.c. */
#ifndef HW_UDPWIRE_H
#define HW_UDPWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link.h"

#define UDPWIRE_MAGIC     0x5655u /* "VU" */
#define UDPWIRE_VERSION   2
#define UDPWIRE_HDR_LEN   20
#define UDPWIRE_MAX_DGRAM 65507u  /* the largest UDP payload over IPv4 */
#define UDPWIRE_MAX_FRAME (UDPWIRE_MAX_DGRAM - UDPWIRE_HDR_LEN)

struct udpwire_hdr {
  uint16_t src, dst;
  uint32_t len;   /* bytes of the link frame that follows */
  uint32_t epoch; /* the sending endpoint's incarnation: its link frame counters restart with it */
};

enum udpwire_verdict {
  UDPWIRE_V_OK = 0,
  UDPWIRE_V_SHORT,     /* shorter than a header and an empty link frame */
  UDPWIRE_V_VERSION,   /* not ours: magic, version or reserved flags */
  UDPWIRE_V_HDR_CRC,   /* the header's CRC-32 fails */
  UDPWIRE_V_LENGTH,    /* the length field disagrees with the datagram */
  UDPWIRE_V_NODE,      /* source unknown, destination not hosted here, or the link frame's
                        addresses differ from the datagram's */
  UDPWIRE_V_FRAME,     /* the link frame is malformed (short, magic, flags) */
  UDPWIRE_V_FRAME_LEN, /* the link frame's length disagrees */
  UDPWIRE_V_CRC,       /* the link frame's CRC-32 fails */
  UDPWIRE_V_NVERDICTS
};

/* The receiver's view of the cluster: node ids below `nodes` exist; `local(ctx, node)` says
 * whether this endpoint hosts one. */
struct udpwire_nodes {
  unsigned nodes;
  bool (*local)(const void *ctx, uint16_t node);
  const void *ctx;
};

/* A datagram that passed every check. */
struct udpwire_rx {
  struct udpwire_hdr hdr;
  struct hw_link_hdr link;
  const uint8_t *frame;   /* the link frame inside the datagram (hdr.len bytes) */
  const uint8_t *payload; /* its payload (link.len bytes) */
};

/* Writes the header into out (UDPWIRE_HDR_LEN bytes). */
void udpwire_put(uint8_t *out, const struct udpwire_hdr *h);
/* Checks n received bytes completely, in the order of the verdicts above; fills *rx on OK. */
enum udpwire_verdict udpwire_check(const uint8_t *buf, size_t n, const struct udpwire_nodes *nodes,
                                   struct udpwire_rx *rx);
const char *udpwire_verdict_name(enum udpwire_verdict v);

#endif
