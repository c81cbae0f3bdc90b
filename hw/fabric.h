/* The network behind the NICs, as an ops table: an in-memory fabric joining the NICs of one
 * process (memfab.c) now, a UDP transport between machines later. A transport carries encoded
 * link frames (link.h) between node ids, keeps each (source, destination) link in FIFO order,
 * checks frames on receipt (dropping and counting malformed ones), and counts traffic. */
#ifndef HW_FABRIC_H
#define HW_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link.h"

#define FAB_ANY    (-1)        /* poll/next_due: frames from any source */
#define FAB_ALL    (-1)        /* counters: totals over every node */
#define FAB_NEVER  UINT64_MAX  /* next_due: nothing queued */

enum fab_drop {
  FAB_DROP_INJECTED,   /* a fault-injection hook dropped it */
  FAB_DROP_NO_ROUTE,   /* destination node does not exist */
  FAB_DROP_LINK_DOWN,  /* source or destination link is down */
  FAB_DROP_QUEUE_FULL, /* the link's queue is full */
  FAB_DROP_MALFORMED,  /* not a frame: short, bad magic/version/flags, wrong addresses */
  FAB_DROP_LENGTH,     /* length field disagrees with the bytes received */
  FAB_DROP_CRC,        /* CRC mismatch */
  FAB_DROP_LATE,       /* arrived after a later frame of its link (a network that reorders):
                          a link stays in FIFO order, so a late frame is a lost one */
  FAB_DROP_N
};

struct fabric_counters {
  uint64_t tx_packets, tx_bytes; /* frames accepted from the node's send engine */
  uint64_t rx_packets, rx_bytes; /* well-formed frames handed to the node */
  uint64_t drops[FAB_DROP_N];    /* send-side reasons count at the source, receive-side at
                                    the destination */
};

/* A received frame, valid until the next poll on the same node or close. */
struct fabric_rx {
  uint16_t src;
  uint8_t flags;            /* HW_LINK_EOM */
  uint32_t frame;           /* sender's frame counter */
  const uint8_t *payload;
  uint32_t len;
  uint64_t arrival_ns;
};

struct fabric;

struct fabric_ops {
  const char *name;
  /* Queue an encoded frame from src to dst at time now_ns. 0 when accepted, or a negative
   * errno-style value when refused (the frame is then counted as dropped). */
  int (*send)(struct fabric *f, uint16_t src, uint16_t dst, const uint8_t *frame, size_t len,
              uint64_t now_ns);
  /* The same for the frame hw_link_encode makes of h and h->len bytes at payload, encoded by
   * the transport into its own buffer (the send engine's path: one copy fewer). */
  int (*send_link)(struct fabric *f, const struct hw_link_hdr *h, const void *payload,
                   uint64_t now_ns);
  /* Next well-formed frame for node that has arrived by now_ns, from a given source (from >= 0)
   * or any (FAB_ANY, then the earliest arrival, lowest source id on ties): 1 and *rx filled, or
   * 0 when none. Malformed frames met on the way are dropped and counted. */
  int (*poll)(struct fabric *f, uint16_t node, int from, uint64_t now_ns, struct fabric_rx *rx);
  /* The same, and the payload's first min(len, cap) bytes copied to dst in the pass that
   * checks the frame (the receive engine's path); a frame dropped on the way may have left
   * bytes at dst. Optional: fabric_poll_copy polls and copies when it is NULL. */
  int (*poll_copy)(struct fabric *f, uint16_t node, int from, uint64_t now_ns,
                   struct fabric_rx *rx, void *dst, size_t cap);
  /* Arrival time of the next frame poll would look at, or FAB_NEVER; a transport that cannot
   * know (a real network) returns FAB_NEVER and is polled against the wall clock. */
  uint64_t (*next_due)(struct fabric *f, uint16_t node, int from);
  bool (*link_up)(struct fabric *f, uint16_t node);
  void (*counters)(struct fabric *f, int node, struct fabric_counters *out);
  void (*close)(struct fabric *f);
};

struct fabric {
  const struct fabric_ops *ops;
  unsigned nodes;
};

static inline int fabric_send(struct fabric *f, uint16_t src, uint16_t dst, const uint8_t *fr,
                              size_t len, uint64_t now) {
  return f->ops->send(f, src, dst, fr, len, now);
}
static inline int fabric_send_link(struct fabric *f, const struct hw_link_hdr *h,
                                   const void *payload, uint64_t now) {
  return f->ops->send_link(f, h, payload, now);
}
static inline int fabric_poll(struct fabric *f, uint16_t node, int from, uint64_t now,
                              struct fabric_rx *rx) {
  return f->ops->poll(f, node, from, now, rx);
}
static inline uint64_t fabric_next_due(struct fabric *f, uint16_t node, int from) {
  return f->ops->next_due(f, node, from);
}
static inline bool fabric_link_up(struct fabric *f, uint16_t node) {
  return f->ops->link_up(f, node);
}
static inline void fabric_counters(struct fabric *f, int node, struct fabric_counters *out) {
  f->ops->counters(f, node, out);
}
static inline void fabric_close(struct fabric *f) {
  if (f) f->ops->close(f);
}

/* poll, with the payload's first min(rx->len, cap) bytes copied to dst (see poll_copy). */
int fabric_poll_copy(struct fabric *f, uint16_t node, int from, uint64_t now, struct fabric_rx *rx,
                     void *dst, size_t cap);

const char *fabric_drop_name(enum fab_drop d);

#endif
