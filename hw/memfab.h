/* The in-memory fabric: N nodes in one process, a FIFO queue per (source, destination) link,
 * a fixed link latency, and fault-injection hooks for tests. Each node must be driven by one
 * thread at a time (its sends and its polls); different nodes may run on different threads.
 * memfab_set_fault, memfab_set_link and memfab_inject are for a single-threaded user. */
#ifndef HW_MEMFAB_H
#define HW_MEMFAB_H

#include "fabric.h"

struct memfab_config {
  unsigned nodes;         /* node ids 0 .. nodes-1 */
  uint64_t latency_ns;    /* from the end of a send to arrival (wire + switch) */
  unsigned queue_depth;   /* frames per link before drops (0: 4096) */
};

#define MEMFAB_DEFAULT_LATENCY_NS 300

enum memfab_fault { MEMFAB_PASS, MEMFAB_DROP };

/* Called for every frame accepted for sending, with a private copy that it may change in
 * place (corrupt) or shorten through *len (truncate); index counts frames fabric-wide from 0. */
typedef enum memfab_fault (*memfab_fault_fn)(void *ctx, uint16_t src, uint16_t dst,
                                             uint64_t index, uint8_t *frame, size_t *len);

/* Called by the sending thread after a frame is queued for dst (to wake dst's thread). */
typedef void (*memfab_arrival_fn)(void *ctx, uint16_t dst);

/* Cut-through: offered a frame at its send when it would arrive at once (no latency, nothing
 * queued before it on its link, no fault hook to pass), before it is queued. The receiving
 * side may take it straight from the sender's buffer and return true, as Myrinet's wormhole
 * routing moves a packet from one NIC's SRAM into the other's: no copy in between, and no CRC,
 * since such a frame never exists as bytes a fault could damage. false queues it. Called by
 * the sending thread, which must take only frames for nodes it drives itself. */
typedef bool (*memfab_deliver_fn)(void *ctx, const struct hw_link_hdr *h, const void *payload);

/* NULL on bad configuration or allocation failure. Free with fabric_close. */
struct fabric *memfab_create(const struct memfab_config *cfg);
void memfab_set_fault(struct fabric *f, memfab_fault_fn fn, void *ctx);
void memfab_set_arrival(struct fabric *f, memfab_arrival_fn fn, void *ctx);
void memfab_set_deliver(struct fabric *f, memfab_deliver_fn fn, void *ctx);
/* Takes a node's link down or up. Frames queued to a node whose link goes down are dropped. */
int memfab_set_link(struct fabric *f, uint16_t node, bool up);
/* Appends raw bytes to the (src, dst) link as if they had been sent; for malformed-input tests.
 * They pass no fault hook. */
int memfab_inject(struct fabric *f, uint16_t src, uint16_t dst, const uint8_t *bytes, size_t len,
                  uint64_t now_ns);

#endif
