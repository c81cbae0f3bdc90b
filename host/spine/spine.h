/* spine.h: SPINE's IP router, host side (host/spine/README.md).
 *
 * IP endpoints: a host sends and receives IPv4 packets on a NIC through an IP endpoint (a
 * datagram VI bound to SPINE_IP_PORT: each packet is one wire message of type IP). A packet
 * goes to a node on the fabric, normally its gateway: a router port's NIC.
 *
 * The router program: spine_router_open configures the forwarding firmware on each of the
 * router's NICs (its ports); spine_route_add/del change the route set, and each call returns
 * once every port's NIC has switched to the new table and no packet routed by the old one is
 * still waiting to leave it. The program does no work per packet: the NICs forward on their
 * own. Every call returns 0 or -errno. */
#ifndef SPINE_H
#define SPINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "eudp.h"
#include "libnic.h"
#include "spine_if.h"
#include "spine_lpm.h"

/* ---- IP endpoints ---- */
struct spine_ep;
/* -EADDRINUSE if the NIC has one already, -ENOSPC without a free VI. */
int spine_ep_open(struct lnic_dev *d, struct spine_ep **out);
void spine_ep_close(struct spine_ep *e);
/* Sends the IPv4 packet pkt (len bytes, 20..SPINE_IP_MAX; its header is sent as it is) to
 * node. -EMSGSIZE when too long or shorter than a header. */
int spine_send(struct spine_ep *e, uint16_t node, const void *pkt, size_t len);
/* Receives one packet (as spine_recvfrom without the sender). */
ssize_t spine_recv(struct spine_ep *e, void *buf, size_t cap, int64_t timeout_ns);
/* Receives one packet: at most cap bytes into buf, the NIC it came from in *node (may be
 * NULL). timeout_ns as eudp_recvfrom's; -EAGAIN when nothing came. */
ssize_t spine_recvfrom(struct spine_ep *e, void *buf, size_t cap, uint16_t *node,
                       int64_t timeout_ns);

/* ---- the router ---- */
#define SPINE_MAX_ROUTES 4096u
struct spine_router;
/* Configures the router on ports d[0..nport-1] (its NICs), mode SPINE_MODE_FABRIC or
 * SPINE_MODE_PEER, with no routes. -EINVAL (nport 0 or > SPINE_NPORT, a bad mode),
 * -ENODEV (a NIC without the router firmware), -ETIMEDOUT, -EPIPE (a NIC died). */
int spine_router_open(struct lnic_dev *const *d, unsigned nport, unsigned mode,
                      struct spine_router **out);
/* Stops routing on every port (IP packets then go to each NIC's host) and frees r. */
void spine_router_close(struct spine_router *r);
/* Frees r and leaves the ports routing by the table in use (a router program that exits once
 * its routes are loaded). */
void spine_router_detach(struct spine_router *r);
/* Adds a route: prefix/len leaves by port towards next-hop node (hop = SPINE_HOP(node, port,
 * 0)), or is this host's (SPINE_HOP(0, 0, SPINE_HOP_LOCAL)). -EINVAL (len > 32, port beyond
 * the router's), -EEXIST (that prefix is routed: delete it first), -ENOSPC (the route limit,
 * the next-hop limit or the table's bank), -EPROTO (a NIC refused the table), -ETIMEDOUT,
 * -EPIPE. */
int spine_route_add(struct spine_router *r, uint32_t prefix, unsigned len, uint32_t hop);
/* Deletes the route of prefix/len: -ENOENT if there is none; errors as spine_route_add. Once
 * it returns 0, no port forwards a packet by it. */
int spine_route_del(struct spine_router *r, uint32_t prefix, unsigned len);
/* Many routes in one update (each as spine_route_add; none added if one is refused). */
int spine_route_add_many(struct spine_router *r, const struct spine_route *rt, size_t n);
unsigned spine_route_count(const struct spine_router *r);
/* The size of the table now in use (bytes of its bank). */
size_t spine_table_size(const struct spine_router *r);
/* Port i's counters (a snapshot). */
void spine_counters(struct spine_router *r, unsigned port, struct spine_counters *out);
/* A NIC's router counters, read from its control block. */
void spine_nic_counters(struct lnic_dev *d, struct spine_counters *out);

#endif
