/* The UDP fabric: one non-blocking datagram socket per endpoint. Sends go into a batch that
 * sendmmsg sends at the next poll/next_due/flush (or when full); fault injection may drop,
 * damage, duplicate or hold back each datagram on the way. Receives are drained with recvmmsg,
 * checked (udpwire_check, then the sender's address) and queued per (source, destination)
 * link, stamped with the time of the poll that drained them. A link stays in FIFO order as
 * the fabric interface promises, over a network that may reorder: a frame whose link frame
 * counter is not after the last one taken from the same sender's epoch is dropped as late
 * (the receive engine appends a message's fragments in arrival order, and the payload's
 * Internet checksum cannot tell two fragments swapped; a dropped frame is a lost one, which
 * Reliable Delivery sends again). */
#define _GNU_SOURCE
#include "udpfab.h"

#include <errno.h>
#include <stdarg.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "link.h"

#define LINK_DEPTH   4096u /* frames queued per link before drops */
#define DRAIN_ROUNDS 8     /* recvmmsg calls per drain, so that a flood cannot hold a poll */
#define BUF_LEN      65536u

struct pkt {
  struct pkt *next;
  uint64_t arrival;
  struct hw_link_hdr h;
  uint8_t bytes[]; /* the link frame */
};

struct link {
  struct pkt *head, *tail;
  unsigned depth;
  bool seen;              /* a frame was taken: epoch and last are set */
  uint32_t epoch, last;   /* the sender's epoch, and the counter of the last frame taken */
};

struct peer {
  bool known;
  struct sockaddr_storage sa;
  socklen_t len;
};

struct txslot {
  uint16_t src, dst;
  size_t len;
  uint8_t *buf;
};

struct udpfab {
  struct fabric f;
  int fd;
  int family;
  uint16_t port;
  struct peer *peer;           /* [nodes] */
  int *lidx;                   /* [nodes]: index among the local nodes, or -1 */
  unsigned nlocal;
  uint16_t first_local;
  struct link *links;          /* [lidx * nodes + src] */
  struct pkt **held;           /* [nlocal]: the frame the last poll returned */
  struct fabric_counters *cnt; /* [nodes] */
  struct udpfab_peer_stats *ps; /* [nodes]: traffic with each node */
  struct udpfault fault;
  bool faulty, caller_flushes;
  unsigned batch, ntx;
  struct txslot *tx;           /* [batch] */
  struct txslot hold;          /* a datagram held back to be sent after the next one */
  bool holding;
  uint8_t *scratch;            /* the datagram being built */
  uint8_t **rxbuf;             /* [batch] */
  struct mmsghdr *msgs;        /* [batch], for both directions */
  struct iovec *iov;           /* [batch] */
  struct sockaddr_storage *from; /* [batch] */
  uint64_t last_now;
  uint32_t epoch;              /* this endpoint's incarnation, in every datagram it sends */
  struct udpfab_stats st;
};

static struct udpfab *U(struct fabric *f) { return (struct udpfab *)f; }

static bool is_local(const void *ctx, uint16_t node) {
  const struct udpfab *u = ctx;
  return node < u->f.nodes && u->lidx[node] >= 0;
}

static int resolve(const char *host, uint16_t port, int family, struct peer *p, char *err,
                   size_t errcap, unsigned node) {
  char ps[8];
  snprintf(ps, sizeof ps, "%u", (unsigned)port);
  struct addrinfo hints = {.ai_family = family, .ai_socktype = SOCK_DGRAM,
                           .ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG};
  struct addrinfo *res = NULL;
  int rc = getaddrinfo(host, ps, &hints, &res);
  if (rc == EAI_ADDRFAMILY || rc == EAI_NONAME || rc == EAI_NODATA) {
    hints.ai_flags = AI_NUMERICSERV; /* loopback-only machines: AI_ADDRCONFIG hides ::1 */
    rc = getaddrinfo(host, ps, &hints, &res);
  }
  if (rc != 0) {
    snprintf(err, errcap, "node %u: %s: %s", node, host, gai_strerror(rc));
    return -EHOSTUNREACH;
  }
  memcpy(&p->sa, res->ai_addr, res->ai_addrlen);
  p->len = res->ai_addrlen;
  p->known = true;
  freeaddrinfo(res);
  return 0;
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
  if (a->ss_family != b->ss_family) return false;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
  return x->sin6_port == y->sin6_port && !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr);
}

static void set_port(struct sockaddr_storage *sa, uint16_t port) {
  if (sa->ss_family == AF_INET) ((struct sockaddr_in *)sa)->sin_port = htons(port);
  else ((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

/* --- sending --------------------------------------------------------------------------------- */

static void send_batch(struct udpfab *u) {
  unsigned done = 0;
  for (unsigned i = 0; i < u->ntx; i++) {
    struct peer *p = &u->peer[u->tx[i].dst];
    u->iov[i] = (struct iovec){.iov_base = u->tx[i].buf, .iov_len = u->tx[i].len};
    u->msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_name = &p->sa, .msg_namelen = p->len,
                                              .msg_iov = &u->iov[i], .msg_iovlen = 1}};
  }
  while (done < u->ntx) {
    int r = sendmmsg(u->fd, u->msgs + done, u->ntx - done, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) { /* this datagram is refused (unreachable, buffer full): count it, go on */
      u->st.tx_errors++;
      u->cnt[u->tx[done].src].drops[FAB_DROP_LINK_DOWN]++;
      done++;
      continue;
    }
    u->st.tx_batches++;
    u->st.tx_datagrams += (unsigned)r;
    done += (unsigned)r;
  }
  u->ntx = 0;
}

static void queue_dgram(struct udpfab *u, uint16_t src, uint16_t dst, const uint8_t *d,
                        size_t len) {
  if (u->ntx == u->batch) send_batch(u);
  struct txslot *s = &u->tx[u->ntx++];
  s->src = src;
  s->dst = dst;
  s->len = len;
  memcpy(s->buf, d, len);
}

int udpfab_flush(struct fabric *f) {
  struct udpfab *u = U(f);
  uint64_t errors = u->st.tx_errors;
  if (u->holding) { /* nothing overtook it: it just goes last */
    queue_dgram(u, u->hold.src, u->hold.dst, u->hold.buf, u->hold.len);
    u->holding = false;
  }
  if (u->ntx) send_batch(u);
  return u->st.tx_errors == errors ? 0 : -EIO;
}

/* The frame of len bytes at u->scratch + UDPWIRE_HDR_LEN, from src to dst, onto the wire. */
static int uf_post(struct udpfab *u, uint16_t src, uint16_t dst, size_t len) {
  struct fabric *f = &u->f;
  if (!is_local(u, src)) return -EINVAL;
  struct fabric_counters *c = &u->cnt[src];
  if (dst >= f->nodes || !u->peer[dst].known) {
    c->drops[FAB_DROP_NO_ROUTE]++;
    return -EHOSTUNREACH;
  }
  if (len > UDPWIRE_MAX_FRAME) {
    c->drops[FAB_DROP_MALFORMED]++;
    return -EMSGSIZE;
  }
  c->tx_packets++;
  c->tx_bytes += len;
  u->ps[dst].tx_frames++;
  u->ps[dst].tx_bytes += len;
  size_t dlen = UDPWIRE_HDR_LEN + len;
  struct udpfault_verdict v = {0};
  if (u->faulty) udpfault_decide(&u->fault, dlen, &v);
  if (v.drop) {
    c->drops[FAB_DROP_INJECTED]++;
    return 0; /* lost in the network: the sender cannot tell */
  }
  udpwire_put(u->scratch, &(struct udpwire_hdr){.src = src, .dst = dst, .len = (uint32_t)len,
                                                 .epoch = u->epoch});
  if (v.corrupt) u->scratch[v.corrupt_at] ^= v.corrupt_xor;
  if (v.hold && !u->holding) {
    u->hold.src = src;
    u->hold.dst = dst;
    u->hold.len = dlen;
    memcpy(u->hold.buf, u->scratch, dlen);
    u->holding = true;
  } else {
    queue_dgram(u, src, dst, u->scratch, dlen);
    if (u->holding) { /* this one overtook the held one */
      queue_dgram(u, u->hold.src, u->hold.dst, u->hold.buf, u->hold.len);
      u->holding = false;
      u->fault.reorder++;
    }
  }
  if (v.dup) queue_dgram(u, src, dst, u->scratch, dlen);
  return 0;
}

static int uf_send(struct fabric *f, uint16_t src, uint16_t dst, const uint8_t *frame, size_t len,
                   uint64_t now) {
  struct udpfab *u = U(f);
  (void)now;
  if (len <= UDPWIRE_MAX_FRAME) memcpy(u->scratch + UDPWIRE_HDR_LEN, frame, len);
  return uf_post(u, src, dst, len);
}

static int uf_send_link(struct fabric *f, const struct hw_link_hdr *h, const void *payload,
                        uint64_t now) {
  struct udpfab *u = U(f);
  (void)now;
  size_t n = hw_link_encode(u->scratch + UDPWIRE_HDR_LEN, UDPWIRE_MAX_FRAME, h, payload);
  if (!n && is_local(u, h->src)) {   /* larger than a datagram takes, or flags it cannot carry */
    u->cnt[h->src].drops[FAB_DROP_MALFORMED]++;
    return -EMSGSIZE;
  }
  return uf_post(u, h->src, h->dst, n);
}

/* --- receiving ------------------------------------------------------------------------------- */

static void count_bad(struct udpfab *u, const uint8_t *buf, size_t n, enum udpwire_verdict v) {
  u->st.bad[v]++;
  uint16_t claimed = n >= 6 ? (uint16_t)(buf[4] << 8 | buf[5]) : UINT16_MAX;
  if (claimed < u->f.nodes) u->ps[claimed].rx_bad++;
  /* Charged to the node it was for when that is one of ours, else to the first local node. */
  uint16_t dst = n >= 8 ? (uint16_t)(buf[6] << 8 | buf[7]) : 0;
  unsigned node = is_local(u, dst) ? dst : u->first_local;
  enum fab_drop why = v == UDPWIRE_V_CRC ? FAB_DROP_CRC
                    : v == UDPWIRE_V_LENGTH || v == UDPWIRE_V_FRAME_LEN ? FAB_DROP_LENGTH
                                                                     : FAB_DROP_MALFORMED;
  u->cnt[node].drops[why]++;
}

static void accept_dgram(struct udpfab *u, const uint8_t *buf, size_t n,
                         const struct sockaddr_storage *from, uint64_t now) {
  struct udpwire_nodes nodes = {.nodes = u->f.nodes, .local = is_local, .ctx = u};
  struct udpwire_rx rx;
  enum udpwire_verdict v = udpwire_check(buf, n, &nodes, &rx);
  if (v != UDPWIRE_V_OK) {
    count_bad(u, buf, n, v);
    return;
  }
  const struct peer *p = &u->peer[rx.hdr.src];
  if (!p->known || !same_addr(&p->sa, from)) {
    u->st.bad_addr++;
    u->ps[rx.hdr.src].rx_bad++;
    u->cnt[rx.hdr.dst].drops[FAB_DROP_MALFORMED]++;
    return;
  }
  struct link *l = &u->links[(size_t)u->lidx[rx.hdr.dst] * u->f.nodes + rx.hdr.src];
  if (l->seen && l->epoch == rx.hdr.epoch && (int32_t)(rx.link.frame - l->last) <= 0) {
    u->st.late++;
    u->cnt[rx.hdr.dst].drops[FAB_DROP_LATE]++;
    return;
  }
  l->seen = true;
  l->epoch = rx.hdr.epoch;
  l->last = rx.link.frame;
  struct pkt *k = l->depth < LINK_DEPTH ? malloc(sizeof *k + rx.hdr.len) : NULL;
  if (!k) {
    u->cnt[rx.hdr.dst].drops[FAB_DROP_QUEUE_FULL]++;
    return;
  }
  k->next = NULL;
  k->arrival = now;
  k->h = rx.link;
  memcpy(k->bytes, rx.frame, rx.hdr.len);
  if (l->tail) l->tail->next = k; else l->head = k;
  l->tail = k;
  l->depth++;
}

static void drain(struct udpfab *u, uint64_t now) {
  for (int round = 0; round < DRAIN_ROUNDS; round++) {
    for (unsigned i = 0; i < u->batch; i++) {
      u->iov[i] = (struct iovec){.iov_base = u->rxbuf[i], .iov_len = BUF_LEN};
      u->msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_name = &u->from[i],
                                                .msg_namelen = sizeof u->from[i],
                                                .msg_iov = &u->iov[i], .msg_iovlen = 1}};
    }
    int r = recvmmsg(u->fd, u->msgs, u->batch, MSG_DONTWAIT, NULL);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;
    u->st.rx_batches++;
    u->st.rx_datagrams += (unsigned)r;
    for (int i = 0; i < r; i++) {
      size_t n = u->msgs[i].msg_len;
      if (u->msgs[i].msg_hdr.msg_flags & MSG_TRUNC) n = 0; /* cannot be ours: short */
      accept_dgram(u, u->rxbuf[i], n, &u->from[i], now);
    }
    if ((unsigned)r < u->batch) return;
  }
}

static struct link *pick(struct udpfab *u, int li, int from, unsigned *src) {
  struct link *best = NULL;
  for (unsigned s = 0; s < u->f.nodes; s++) {
    if (from >= 0 && (unsigned)from != s) continue;
    struct link *l = &u->links[(size_t)li * u->f.nodes + s];
    if (l->head && (!best || l->head->arrival < best->head->arrival)) {
      best = l;
      *src = s;
    }
  }
  return best;
}

static int uf_poll(struct fabric *f, uint16_t node, int from, uint64_t now, struct fabric_rx *rx) {
  struct udpfab *u = U(f);
  if (!is_local(u, node)) return -EINVAL;
  int li = u->lidx[node];
  u->last_now = now;
  if (!u->caller_flushes) udpfab_flush(f);
  drain(u, now);
  free(u->held[li]);
  u->held[li] = NULL;
  unsigned src = 0;
  struct link *l = pick(u, li, from, &src);
  if (!l || l->head->arrival > now) return 0;
  struct pkt *k = l->head;
  l->head = k->next;
  if (!l->head) l->tail = NULL;
  l->depth--;
  u->held[li] = k;
  u->ps[src].rx_frames++;
  u->ps[src].rx_bytes += k->h.len + HW_LINK_OVERHEAD;
  u->cnt[node].rx_packets++;
  u->cnt[node].rx_bytes += k->h.len + HW_LINK_OVERHEAD;
  *rx = (struct fabric_rx){.src = (uint16_t)src, .flags = k->h.flags, .frame = k->h.frame,
                           .payload = k->bytes + HW_LINK_HDR_LEN, .len = k->h.len,
                           .arrival_ns = k->arrival};
  return 1;
}

static uint64_t uf_next_due(struct fabric *f, uint16_t node, int from) {
  struct udpfab *u = U(f);
  if (!is_local(u, node)) return FAB_NEVER;
  if (!u->caller_flushes) udpfab_flush(f);
  drain(u, u->last_now);
  unsigned src;
  struct link *l = pick(u, u->lidx[node], from, &src);
  return l ? l->head->arrival : FAB_NEVER;
}

static bool uf_link_up(struct fabric *f, uint16_t node) {
  return node < f->nodes && U(f)->peer[node].known;
}

static void uf_counters(struct fabric *f, int node, struct fabric_counters *out) {
  struct udpfab *u = U(f);
  memset(out, 0, sizeof *out);
  for (unsigned n = 0; n < f->nodes; n++) {
    if (node >= 0 && (unsigned)node != n) continue;
    const struct fabric_counters *c = &u->cnt[n];
    out->tx_packets += c->tx_packets;
    out->tx_bytes += c->tx_bytes;
    out->rx_packets += c->rx_packets;
    out->rx_bytes += c->rx_bytes;
    for (int d = 0; d < FAB_DROP_N; d++) out->drops[d] += c->drops[d];
  }
}

static void destroy(struct udpfab *u) {
  if (u->fd >= 0) close(u->fd);
  if (u->links)
    for (size_t i = 0; i < (size_t)u->nlocal * u->f.nodes; i++)
      for (struct pkt *k = u->links[i].head, *nx; k; k = nx) {
        nx = k->next;
        free(k);
      }
  for (unsigned i = 0; u->held && i < u->nlocal; i++) free(u->held[i]);
  for (unsigned i = 0; u->tx && i < u->batch; i++) free(u->tx[i].buf);
  for (unsigned i = 0; u->rxbuf && i < u->batch; i++) free(u->rxbuf[i]);
  free(u->hold.buf);
  free(u->scratch);
  free(u->peer);
  free(u->lidx);
  free(u->links);
  free(u->held);
  free(u->cnt);
  free(u->ps);
  free(u->tx);
  free(u->rxbuf);
  free(u->msgs);
  free(u->iov);
  free(u->from);
  free(u);
}

static void uf_close(struct fabric *f) {
  udpfab_flush(f);
  destroy(U(f));
}

static const struct fabric_ops udpfab_ops = {
    .name = "udp",
    .send = uf_send,
    .send_link = uf_send_link,
    .poll = uf_poll,
    .next_due = uf_next_due,
    .link_up = uf_link_up,
    .counters = uf_counters,
    .close = uf_close,
};

/* --- set-up ---------------------------------------------------------------------------------- */

static int alloc_all(struct udpfab *u, unsigned n) {
  u->peer = calloc(n, sizeof *u->peer);
  u->lidx = malloc(n * sizeof *u->lidx);
  u->links = calloc((size_t)u->nlocal * n, sizeof *u->links);
  u->held = calloc(u->nlocal, sizeof *u->held);
  u->cnt = calloc(n, sizeof *u->cnt);
  u->ps = calloc(n, sizeof *u->ps);
  u->tx = calloc(u->batch, sizeof *u->tx);
  u->rxbuf = calloc(u->batch, sizeof *u->rxbuf);
  u->msgs = calloc(u->batch, sizeof *u->msgs);
  u->iov = calloc(u->batch, sizeof *u->iov);
  u->from = calloc(u->batch, sizeof *u->from);
  u->scratch = malloc(BUF_LEN);
  u->hold.buf = malloc(BUF_LEN);
  if (!u->peer || !u->lidx || !u->links || !u->held || !u->cnt || !u->ps || !u->tx || !u->rxbuf ||
      !u->msgs || !u->iov || !u->from || !u->scratch || !u->hold.buf)
    return -ENOMEM;
  for (unsigned i = 0; i < u->batch; i++) {
    u->tx[i].buf = malloc(BUF_LEN);
    u->rxbuf[i] = malloc(BUF_LEN);
    if (!u->tx[i].buf || !u->rxbuf[i]) return -ENOMEM;
  }
  for (unsigned i = 0; i < n; i++) u->lidx[i] = -1;
  return 0;
}

/* Frees u and returns NULL; err gets the message unless fmt is NULL (err already says why). */
static struct fabric *fail(struct udpfab *u, char *err, size_t errcap, const char *fmt, ...) {
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errcap, fmt, ap);
    va_end(ap);
  }
  destroy(u);
  return NULL;
}

struct fabric *udpfab_create(const struct udpfab_config *cfg, char *err, size_t errcap) {
  char dummy[UDPFAB_ERR_LEN];
  if (!err || !errcap) {
    err = dummy;
    errcap = sizeof dummy;
  }
  err[0] = 0;
  if (!cfg || cfg->nodes == 0 || cfg->nodes > UDPFAB_NODES_MAX || cfg->nlocal == 0) {
    snprintf(err, errcap, "udp fabric: 1..%u nodes and at least one local node", UDPFAB_NODES_MAX);
    return NULL;
  }
  struct udpfab *u = calloc(1, sizeof *u);
  if (!u) return NULL;
  u->fd = -1;
  u->f.ops = &udpfab_ops;
  u->f.nodes = cfg->nodes;
  u->nlocal = cfg->nlocal;
  u->batch = cfg->batch ? cfg->batch : 32;
  if (u->batch > 1024) u->batch = 1024;
  if (alloc_all(u, cfg->nodes)) return fail(u, err, errcap, "udp fabric: out of memory");
  if (udpfault_init(&u->fault, &cfg->faults))
    return fail(u, err, errcap, "udp fabric: fault probabilities must be in 0..1");
  u->faulty = udpfault_active(&u->fault);
  if (getrandom(&u->epoch, sizeof u->epoch, GRND_NONBLOCK) != (ssize_t)sizeof u->epoch)
    u->epoch = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
  u->caller_flushes = cfg->caller_flushes;
  for (unsigned i = 0; i < cfg->nlocal; i++) {
    uint16_t n = cfg->local[i];
    if (n >= cfg->nodes || u->lidx[n] >= 0)
      return fail(u, err, errcap, "udp fabric: local node %u out of range or twice", n);
    u->lidx[n] = (int)i;
  }
  u->first_local = cfg->local[0];
  /* The local address first: it fixes the family every peer must have. */
  const struct udpfab_addr *mine = NULL;
  for (unsigned i = 0; i < cfg->naddrs && !mine; i++)
    if (cfg->addrs[i].node == cfg->local[0]) mine = &cfg->addrs[i];
  if (!mine) return fail(u, err, errcap, "udp fabric: node %u has no address", cfg->local[0]);
  struct peer me = {0};
  if (resolve(mine->host, mine->port, AF_UNSPEC, &me, err, errcap, mine->node))
    return fail(u, err, errcap, NULL);
  u->family = me.sa.ss_family;
  for (unsigned i = 0; i < cfg->naddrs; i++) {
    const struct udpfab_addr *a = &cfg->addrs[i];
    if (a->node >= cfg->nodes)
      return fail(u, err, errcap, "udp fabric: node %u out of range", a->node);
    if (u->peer[a->node].known)
      return fail(u, err, errcap, "udp fabric: node %u has two addresses", a->node);
    if (resolve(a->host, a->port, u->family, &u->peer[a->node], err, errcap, a->node))
      return fail(u, err, errcap, NULL);
    if (u->lidx[a->node] >= 0 && !same_addr(&u->peer[a->node].sa, &me.sa))
      return fail(u, err, errcap, "udp fabric: local node %u is not at %s:%u with node %u", a->node,
                  mine->host, (unsigned)mine->port, mine->node);
  }
  for (unsigned i = 0; i < cfg->nlocal; i++)
    if (!u->peer[cfg->local[i]].known)
      return fail(u, err, errcap, "udp fabric: node %u has no address", cfg->local[i]);
  u->fd = socket(u->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (u->fd < 0) return fail(u, err, errcap, "udp fabric: socket: %s", strerror(errno));
  int one = 1, big = 4 << 20;
  if (u->family == AF_INET6) setsockopt(u->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  setsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  if (bind(u->fd, (struct sockaddr *)&me.sa, me.len) < 0)
    return fail(u, err, errcap, "udp fabric: bind to node %u's address %s:%u: %s", mine->node,
                mine->host, (unsigned)mine->port, strerror(errno));
  struct sockaddr_storage got;
  socklen_t gl = sizeof got;
  if (getsockname(u->fd, (struct sockaddr *)&got, &gl) < 0)
    return fail(u, err, errcap, "udp fabric: getsockname: %s", strerror(errno));
  u->port = ntohs(got.ss_family == AF_INET ? ((struct sockaddr_in *)&got)->sin_port
                                           : ((struct sockaddr_in6 *)&got)->sin6_port);
  for (unsigned i = 0; i < cfg->nlocal; i++) set_port(&u->peer[cfg->local[i]].sa, u->port);
  return &u->f;
}

int udpfab_fd(struct fabric *f) { return U(f)->fd; }
uint16_t udpfab_port(struct fabric *f) { return U(f)->port; }

int udpfab_set_addr(struct fabric *f, const struct udpfab_addr *a) {
  struct udpfab *u = U(f);
  char err[UDPFAB_ERR_LEN];
  if (a->node >= f->nodes || is_local(u, a->node)) return -EINVAL;
  struct peer p = {0};
  int rc = resolve(a->host, a->port, u->family, &p, err, sizeof err, a->node);
  if (rc == 0) u->peer[a->node] = p;
  return rc;
}

void udpfab_stats(struct fabric *f, struct udpfab_stats *out) {
  struct udpfab *u = U(f);
  *out = u->st;
  out->inj_loss = u->fault.loss;
  out->inj_dup = u->fault.dup;
  out->inj_reorder = u->fault.reorder;
  out->inj_corrupt = u->fault.corrupt;
}

int udpfab_peer_stats(struct fabric *f, unsigned node, struct udpfab_peer_stats *out) {
  if (node >= f->nodes) return -EINVAL;
  *out = U(f)->ps[node];
  return 0;
}
