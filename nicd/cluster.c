/* cluster.c: nicd --udp: reads where every node of the cluster is from the cluster file (the
 * hosts file with addresses, iface/README.md) and decides which nodes this nicd hosts: those
 * given with --node, else those whose address is one of this machine's (a bind to it
 * succeeds). They must share one address and port, the fabric's socket; every other address
 * is a peer nicd (peer.c dials it). */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../hw/udpfab.h"
#include "naming.h"
#include "nicd.h"

int nicd_local(const struct nicd *d, unsigned node) {
  for (unsigned i = 0; i < d->n; i++)
    if (d->node[i] == node) return (int)i;
  return -1;
}

/* Whether host is an address of this machine: a socket binds to it. */
static bool host_is_mine(const char *host) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *res = NULL;
  if (getaddrinfo(host, "0", &hints, &res) != 0) return false;
  bool mine = false;
  for (struct addrinfo *a = res; a && !mine; a = a->ai_next) {
    int fd = socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    mine = bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    close(fd);
  }
  freeaddrinfo(res);
  return mine;
}

static bool same_place(const struct naming_entry *a, const struct naming_entry *b) {
  return a->port == b->port && !strcmp(a->host, b->host);
}

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return -1;
}

int cluster_setup(struct nicd *d, const struct naming_hosts *h, const uint16_t *want,
                  unsigned nwant, struct udpfab_addr **addrs, unsigned *naddrs, char *err,
                  size_t cap) {
  struct cluster *c = &d->clu;
  unsigned nodes = 0;
  for (unsigned i = 0; i < h->n; i++)
    if (h->e[i].node + 1u > nodes) nodes = h->e[i].node + 1u;
  if (nodes == 0) return fail(err, cap, "the cluster file names no node");
  if (nodes > UDPFAB_NODES_MAX)
    return fail(err, cap, "node %u: a cluster has node ids 0..%u", nodes - 1, UDPFAB_NODES_MAX - 1);
  c->nodes = nodes;
  c->peer_of = malloc(nodes * sizeof *c->peer_of);
  c->peers = calloc(nodes, sizeof *c->peers);
  *addrs = calloc(nodes, sizeof **addrs);
  if (!c->peer_of || !c->peers || !*addrs) return fail(err, cap, "out of memory");
  *naddrs = 0;
  d->n = 0;
  const struct naming_entry *me = NULL;
  if (nwant) {
    for (unsigned k = 0; k < nwant; k++) {
      const struct naming_entry *e = naming_addr(h, want[k]);
      if (!e) return fail(err, cap, "--node %u: the cluster file gives no address for node %u",
                          want[k], want[k]);
      if (me && !same_place(me, e))
        return fail(err, cap, "--node %u and %u: one nicd hosts nodes of one address, but node %u "
                    "is at %s:%u and node %u at %s:%u", me->node, e->node, me->node, me->host,
                    (unsigned)me->port, e->node, e->host, (unsigned)e->port);
      if (nicd_local(d, want[k]) >= 0) continue;
      if (d->n == NICD_MAX_NICS - 1)
        return fail(err, cap, "--node: at most %d NICs per nicd over UDP", NICD_MAX_NICS - 1);
      me = e;
      d->node[d->n++] = want[k];
    }
  } else {
    for (unsigned node = 0; node < nodes; node++) {
      const struct naming_entry *e = naming_addr(h, node);
      if (!e || !host_is_mine(e->host)) continue;
      if (me && !same_place(me, e))
        return fail(err, cap, "nodes %u (%s:%u) and %u (%s:%u) both have an address of this "
                    "machine: say which this nicd hosts with --node", me->node, me->host,
                    (unsigned)me->port, node, e->host, (unsigned)e->port);
      if (d->n == NICD_MAX_NICS - 1)
        return fail(err, cap, "at most %d NICs per nicd over UDP", NICD_MAX_NICS - 1);
      me = e;
      d->node[d->n++] = (uint16_t)node;
    }
    if (!me)
      return fail(err, cap, "no node of the cluster file has an address of this machine "
                  "(say which this nicd hosts with --node)");
  }
  snprintf(c->host, sizeof c->host, "%s", me->host);
  c->port = me->port;
  for (unsigned node = 0; node < nodes; node++) {
    c->peer_of[node] = -1;
    const struct naming_entry *e = naming_addr(h, node);
    if (!e) continue;
    (*addrs)[(*naddrs)++] = (struct udpfab_addr){.node = (uint16_t)node, .host = e->host,
                                                 .port = e->port};
    if (nicd_local(d, node) >= 0) continue;
    if (same_place(e, me))
      return fail(err, cap, "node %u is at this nicd's address %s:%u but not among its nodes "
                  "(--node)", node, me->host, (unsigned)me->port);
    unsigned p = 0;
    while (p < c->npeers && !(c->peers[p].port == e->port && !strcmp(c->peers[p].host, e->host)))
      p++;
    if (p == c->npeers) {
      snprintf(c->peers[p].host, sizeof c->peers[p].host, "%s", e->host);
      c->peers[p].port = e->port;
      c->npeers++;
    }
    c->peer_of[node] = (int)p;
  }
  return 0;
}

void cluster_free(struct cluster *c) {
  free(c->peer_of);
  free(c->peers);
  c->peer_of = NULL;
  c->peers = NULL;
}
