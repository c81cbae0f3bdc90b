/* The UDP fabric: the fabric interface (fabric.h) over UDP, so that NICs in nicds on different
 * machines reach each other. One socket per endpoint (IPv4 or IPv6), bound to the address of
 * the nodes it hosts; each link frame travels as one datagram (udpwire.h) to the address of its
 * destination node. Sends are batched and leave with sendmmsg at the next poll, next_due or
 * udpfab_flush (or when the batch is full; with caller_flushes only at the last two); receives are drained with recvmmsg into per-link
 * FIFO queues. Every datagram is checked (udpwire_check, and its sender's address against the
 * source node's) and a bad one is dropped and counted, never handed on. Faults can be
 * injected (udpfault.h). Not thread-safe: one thread drives the endpoint. */
#ifndef HW_UDPFAB_H
#define HW_UDPFAB_H

#include "fabric.h"
#include "udpfault.h"
#include "udpwire.h"

#define UDPFAB_NODES_MAX 1024u
#define UDPFAB_ERR_LEN   256u

/* Where a node is: a numeric IPv4 or IPv6 address or a host name, and a UDP port. Port 0 for
 * a local node: the kernel picks one (udpfab_port tells which). */
struct udpfab_addr {
  uint16_t node;
  const char *host;
  uint16_t port;
};

struct udpfab_config {
  unsigned nodes;                   /* node ids 0 .. nodes-1 (at most UDPFAB_NODES_MAX) */
  const struct udpfab_addr *addrs;  /* every node's address, local ones included */
  unsigned naddrs;
  const uint16_t *local;            /* the nodes this endpoint hosts: all at one address */
  unsigned nlocal;
  struct udpfault_cfg faults;
  unsigned batch;                   /* datagrams per sendmmsg/recvmmsg, 0: 32 */
  bool caller_flushes;              /* sends leave only when the batch is full or at
                                       udpfab_flush (a daemon's loop flushes before it waits),
                                       not at every poll/next_due */
};

/* What the endpoint counted besides fabric_counters. */
struct udpfab_stats {
  uint64_t tx_datagrams, tx_batches, tx_errors; /* tx_errors: sendmmsg refused a datagram */
  uint64_t rx_datagrams, rx_batches;
  uint64_t bad[UDPWIRE_V_NVERDICTS];              /* received and dropped, by verdict */
  uint64_t bad_addr;                            /* from an address not its source node's */
  uint64_t inj_loss, inj_dup, inj_reorder, inj_corrupt;
};

/* NULL with err = why (an address that does not resolve, a bind that fails, ...). */
struct fabric *udpfab_create(const struct udpfab_config *cfg, char *err, size_t errcap);
/* The socket (for a daemon's wait), and the port it is bound to. */
int udpfab_fd(struct fabric *f);
uint16_t udpfab_port(struct fabric *f);
/* Changes a node's address (a peer that learned its port late, as the tests do). 0 or -errno. */
int udpfab_set_addr(struct fabric *f, const struct udpfab_addr *a);
/* Sends what is batched and what fault injection held back. 0, or -errno of a failed send. */
int udpfab_flush(struct fabric *f);
void udpfab_stats(struct fabric *f, struct udpfab_stats *out);

/* Traffic between this endpoint's nodes and one other node, as the datagrams went: frames
 * and bytes (link frames) sent to it and accepted from it, and datagrams claiming to come from
 * it that were dropped (any verdict, or a wrong sender address). */
struct udpfab_peer_stats {
  uint64_t tx_frames, tx_bytes, rx_frames, rx_bytes, rx_bad;
};
/* 0, or -EINVAL for a node out of range. */
int udpfab_peer_stats(struct fabric *f, unsigned node, struct udpfab_peer_stats *out);

#endif
