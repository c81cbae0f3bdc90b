/* eudp: E-UDP's datagram endpoints over the NIC (host/eudp/README.md). An endpoint is a
 * datagram VI (HOSTIF_VI_F_DGRAM) bound to a UDP port: sends name their destination (node,
 * port) per datagram, receives take datagrams from any sender; the firmware fragments and
 * reassembles datagrams of up to EUDP_MAX bytes, the host DMA engine sums each fragment's
 * payload as it copies, and the receiving firmware drops a datagram that fails its checksum.
 * Datagram semantics: message boundaries kept, a receive buffer too short gets the front and
 * the datagram's full length (MSG_TRUNC), a datagram finding no receive buffer posted is
 * dropped and counted by the receiving NIC, and a sender never waits on a receiver. Every call
 * returns 0 (or a length) or -errno. One thread per endpoint. */
#ifndef EUDP_H
#define EUDP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libnic.h"

#define EUDP_MAX   HOSTIF_DGRAM_MAX   /* 65507: the largest UDP/IPv4 datagram */
#define EUDP_NSEND 16u                /* datagrams in the send pipeline at once */
#define EUDP_NRECV HOSTIF_RING        /* receive buffers posted: the NIC's receive queue */

struct eudp;

struct eudp_stats {
  uint64_t tx_dgrams, tx_bytes, rx_dgrams, rx_bytes;
  uint64_t rx_truncated;     /* delivered to a buffer shorter than the datagram (MSG_TRUNC) */
  uint64_t tx_errors;        /* sends the NIC completed with an error (counted, not retried) */
};

/* Binds a datagram endpoint to `port` (1..65535) on NIC d. -EADDRINUSE if a datagram VI of
 * this NIC is bound to it (unless flags has EUDP_REUSE: SO_REUSEADDR), -EINVAL for port 0,
 * -ENOSPC when no VI is free. */
#define EUDP_REUSE 1u
int eudp_open(struct lnic_dev *d, uint16_t port, unsigned flags, struct eudp **out);
/* Connects it to (node, port), or to nobody (port 0): a connected endpoint receives only from
 * its peer, before any endpoint of the port connected to nobody. */
int eudp_connect(struct eudp *e, uint16_t node, uint16_t port);
/* Closes it once the datagrams sent have left the NIC (at most 10 s: the NIC would read host memory already given back), as a kernel socket's
 * datagrams leave after close or exit. */
void eudp_close(struct eudp *e);
/* Waits until every datagram sent has left the NIC: 0, -ETIMEDOUT, -EPIPE. */
int eudp_flush(struct eudp *e, int64_t timeout_ns);
uint16_t eudp_port(const struct eudp *e);
unsigned eudp_vi(const struct eudp *e);

/* Sends one datagram of len (0..EUDP_MAX) bytes to (node, port). Returns once the data is in
 * the send pipeline (it waits only for the NIC to finish earlier sends of this endpoint, never
 * for a receiver). -EMSGSIZE when too long, -EINVAL for port 0, -EPIPE if the NIC died. */
int eudp_sendto(struct eudp *e, uint16_t node, uint16_t port, const void *buf, size_t len);
/* The same, naming the destination's IPv4 address (host byte order) for the datagram's IPv4
 * header and UDP checksum (firmware/nic/WIRE.md, "Datagrams"); eudp_sendto names 0.0.0.0. */
int eudp_sendto_ip(struct eudp *e, uint16_t node, uint16_t port, uint32_t ip, const void *buf,
                   size_t len);
/* The endpoint's own IPv4 address (host byte order), its datagrams' source; 0.0.0.0 until set. */
void eudp_set_ip(struct eudp *e, uint32_t ip);

/* Receives one datagram: copies at most cap bytes to buf and returns how many; *full (if not
 * NULL) gets the datagram's length (> the return: truncated), *node and *port its sender.
 * Waits at most timeout_ns (0: not at all, < 0: no limit): -EAGAIN when nothing came. */
ssize_t eudp_recvfrom(struct eudp *e, void *buf, size_t cap, size_t *full, uint16_t *node,
                      uint16_t *port, int64_t timeout_ns);

/* How many datagrams the NIC has delivered that no receive has taken yet (no waiting). */
unsigned eudp_pending(struct eudp *e);

void eudp_stats(const struct eudp *e, struct eudp_stats *out);

#endif
