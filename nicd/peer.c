/* peer.c: the control connections between the nicds of a cluster (--udp; CONNECT.md, "Between
 * nicds"). Each nicd listens on TCP at its own UDP address and port; a CONNECT for a node of
 * another nicd dials that nicd (once: the connection stays for later requests) and the answers,
 * DISCONNECTs and owner deaths of the VIs paired through it travel back on the same connection.
 * Lines as in the host protocol; a heartbeat every HB_MS, and a connection silent for DEAD_MS
 * (or closed, or refused, or not established within DIAL_MS) is lost: what went through it
 * fails and every local VI paired through it goes ERROR, its host signalled. Runs in the
 * connection manager's thread, so it shares cm.c's tables without locks. A connection from an
 * address that is no peer's host is refused (counted); like the datagrams, the lines of a peer
 * are trusted (the cluster's network is). */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "futex.h"
#include "nicd.h"

#define MAXCONN  64
#define IN_LINE  512
#define OUT_BUF  16384
#define HB_MS    250
#define DEAD_MS  1500
#define DIAL_MS  1000
#define MS       1000000ull

struct conn {
  int fd;                  /* -1: free */
  uint32_t gen;
  int peer;                /* the peer (cluster.peers) it was dialed to, -1 when accepted */
  bool dialing;            /* the non-blocking connect has not finished */
  char who[64];            /* the peer's address, for the log */
  uint64_t since, last_rx, last_tx;
  char in[IN_LINE];
  size_t inlen;
  char out[OUT_BUF];
  size_t outlen;
};

struct vbind {
  int conn;
  uint32_t gen;
};

static struct nicd *D;
static int lfd = -1;
static struct conn C[MAXCONN];
static uint32_t next_gen = 1;
static struct vbind vb[NICD_MAX_NICS][HOSTIF_NVI];
/* The addresses control connections are accepted from: the peers' hosts. */
static struct sockaddr_storage *allow;
static unsigned nallow;
static uint64_t refused;

static void lose(int i, const char *why);

static bool live(int i, uint32_t gen) { return i >= 0 && i < MAXCONN && C[i].fd >= 0 && C[i].gen == gen; }

/* Sends what is buffered, as far as the socket takes it. */
static void push(int i) {
  struct conn *c = &C[i];
  if (c->dialing || !c->outlen) return;
  ssize_t n = send(c->fd, c->out, c->outlen, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n < 0) {
    lose(i, strerror(errno));
    return;
  }
  memmove(c->out, c->out + n, c->outlen - (size_t)n);
  c->outlen -= (size_t)n;
}

static void vput(int i, const char *fmt, va_list ap) {
  struct conn *c = &C[i];
  char line[IN_LINE];
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  if (n < 0) return;
  if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
  line[n++] = '\n';
  if (c->outlen + (size_t)n > sizeof c->out) {   /* the peer does not read: it is stuck */
    lose(i, "the peer nicd does not read its control connection");
    return;
  }
  memcpy(c->out + c->outlen, line, (size_t)n);
  c->outlen += (size_t)n;
  c->last_tx = futex_now_ns();
  push(i);
}

void peer_send(int conn, uint32_t gen, const char *fmt, ...) {
  if (!live(conn, gen)) return;
  va_list ap;
  va_start(ap, fmt);
  vput(conn, fmt, ap);
  va_end(ap);
}

static int new_slot(int fd, int peer, bool dialing, const char *who) {
  for (int i = 0; i < MAXCONN; i++)
    if (C[i].fd < 0) {
      uint64_t now = futex_now_ns();
      C[i] = (struct conn){.fd = fd, .gen = next_gen++, .peer = peer, .dialing = dialing,
                           .since = now, .last_rx = now, .last_tx = now};
      snprintf(C[i].who, sizeof C[i].who, "%s", who);
      if (next_gen == 0) next_gen = 1;
      return i;
    }
  return -1;
}

/* "address:port" of a connected socket's peer. */
static void peer_name(int fd, char *out, size_t cap) {
  struct sockaddr_storage a;
  socklen_t len = sizeof a;
  char host[INET6_ADDRSTRLEN] = "?";
  unsigned port = 0;
  if (getpeername(fd, (struct sockaddr *)&a, &len) == 0) {
    if (a.ss_family == AF_INET) {
      inet_ntop(AF_INET, &((struct sockaddr_in *)&a)->sin_addr, host, sizeof host);
      port = ntohs(((struct sockaddr_in *)&a)->sin_port);
    } else {
      inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a)->sin6_addr, host, sizeof host);
      port = ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
    }
  }
  snprintf(out, cap, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, port);
}

static void peer_addr(int p, char *out, size_t cap) {
  const struct cluster_peer *cp = &D->clu.peers[p];
  snprintf(out, cap, strchr(cp->host, ':') ? "[%s]:%u" : "%s:%u", cp->host, (unsigned)cp->port);
}

/* The connection to peer p: the live dialed one, or a new non-blocking dial. */
static int dial(int p, char *why, size_t cap) {
  for (int i = 0; i < MAXCONN; i++)
    if (C[i].fd >= 0 && C[i].peer == p) return i;
  const struct cluster_peer *cp = &D->clu.peers[p];
  char ps[8], where[300];
  peer_addr(p, where, sizeof where);
  snprintf(ps, sizeof ps, "%u", (unsigned)cp->port);
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_NUMERICSERV}, *res = NULL;
  int rc = getaddrinfo(cp->host, ps, &hints, &res);
  if (rc) {
    snprintf(why, cap, "the nicd at %s: %s", where, gai_strerror(rc));
    return -1;
  }
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(why, cap, "socket: %s", strerror(errno));
    freeaddrinfo(res);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  rc = connect(fd, res->ai_addr, res->ai_addrlen);
  int e = errno;
  freeaddrinfo(res);
  if (rc != 0 && e != EINPROGRESS) {
    snprintf(why, cap, "the nicd at %s is not reachable: %s", where, strerror(e));
    close(fd);
    return -1;
  }
  int i = new_slot(fd, p, rc != 0, where);
  if (i < 0) {
    snprintf(why, cap, "too many control connections");
    close(fd);
    return -1;
  }
  peer_send(i, C[i].gen, "HELLO 3");
  return i;
}

int peer_send_connect(unsigned rnode, unsigned id, unsigned node, unsigned vi, const char *rdisc,
                      const char *mydisc, unsigned rel, int *conn, uint32_t *gen, char *why,
                      size_t cap) {
  int p = rnode < D->clu.nodes ? D->clu.peer_of[rnode] : -1;
  if (p < 0) {
    snprintf(why, cap, "node %u has no address in the cluster file", rnode);
    return -1;
  }
  int i = dial(p, why, cap);
  if (i < 0) return -1;
  *conn = i;
  *gen = C[i].gen;
  peer_send(i, C[i].gen, "CONN %u %u %u %u %s %s %u", id, node, vi, rnode, rdisc, mydisc, rel);
  return live(i, *gen) ? 0 : (snprintf(why, cap, "the control connection failed"), -1);
}

void peer_bind_vi(unsigned lnode, unsigned vi, int conn, uint32_t gen) {
  int li = nicd_local(D, lnode);
  if (li < 0 || vi >= HOSTIF_NVI) return;
  vb[li][vi] = (struct vbind){.conn = conn, .gen = gen};
}

void peer_vi_broken(unsigned lnode, unsigned vi, unsigned rnode, unsigned rvi, uint32_t got) {
  int li = nicd_local(D, lnode);
  if (li < 0 || vi >= HOSTIF_NVI) return;
  struct vbind *b = &vb[li][vi];
  peer_send(b->conn, b->gen, "DISC %u %u %u %u %u", rnode, rvi, lnode, vi, got);
  *b = (struct vbind){.conn = -1};
}

static void lose(int i, const char *why) {
  struct conn *c = &C[i];
  if (c->fd < 0) return;
  uint32_t gen = c->gen;
  bool was_up = !c->dialing;
  close(c->fd);
  c->fd = -1;
  if (was_up || D->verbose)   /* a failed dial is the requester's error to report */
    fprintf(stderr, "nicd: control connection with the nicd at %s lost: %s\n", c->who, why);
  for (unsigned li = 0; li < D->n; li++)
    for (unsigned vi = 1; vi < HOSTIF_NVI; vi++) {
      if (vb[li][vi].conn != i || vb[li][vi].gen != gen) continue;
      vb[li][vi] = (struct vbind){.conn = -1};
      struct hostif_vi *v = vitab_vi(D, D->node[li], vi);
      if (__atomic_load_n(&v->state, __ATOMIC_ACQUIRE) == HOSTIF_VI_CONNECTED &&
          nicd_local(D, v->remote_node) < 0) {
        __atomic_store_n(&v->state, HOSTIF_VI_ERROR, __ATOMIC_RELEASE);
        nic_signal_host(D->nic[li], HOSTIF_SIG_VI(vi));
      }
    }
  cm_remote_lost(i, gen, why);
}

static bool same_ip(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
  if (a->ss_family != b->ss_family) return false;
  if (a->ss_family == AF_INET)
    return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
           ((const struct sockaddr_in *)b)->sin_addr.s_addr;
  return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                 &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

static bool allowed(int fd) {
  struct sockaddr_storage from;
  socklen_t len = sizeof from;
  if (getpeername(fd, (struct sockaddr *)&from, &len) != 0) return false;
  for (unsigned i = 0; i < nallow; i++)
    if (same_ip(&allow[i], &from)) return true;
  return false;
}

/* Every address of every peer's host. */
static int allow_peers(char *err, size_t cap) {
  for (unsigned p = 0; p < D->clu.npeers; p++) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(D->clu.peers[p].host, NULL, &hints, &res);
    if (rc) {
      snprintf(err, cap, "peer %s: %s", D->clu.peers[p].host, gai_strerror(rc));
      return -1;
    }
    for (struct addrinfo *a = res; a; a = a->ai_next) {
      struct sockaddr_storage *m = realloc(allow, (nallow + 1) * sizeof *allow);
      if (!m) {
        freeaddrinfo(res);
        snprintf(err, cap, "out of memory");
        return -1;
      }
      allow = m;
      memset(&allow[nallow], 0, sizeof *allow);
      memcpy(&allow[nallow++], a->ai_addr, a->ai_addrlen);
    }
    freeaddrinfo(res);
  }
  return 0;
}

/* One line from a peer nicd (peerparse.c). A line that is not the protocol ends the
 * connection. */
static void handle(int i, char *line) {
  struct conn *c = &C[i];
  struct peer_msg m;
  const unsigned *a = m.n;
  switch (peer_parse(line, &m)) {
  case PEER_HB: return;
  case PEER_HELLO:
    if (a[0] == 3) return;
    break;   /* another version of the protocol */
  case PEER_CONN:
    cm_remote_request(i, c->gen, a[0], a[1], a[2], a[3], m.s[0], m.s[1], a[4]);
    return;
  case PEER_WDRAW: cm_remote_withdraw(i, c->gen, a[0]); return;
  case PEER_ACC: {
    bool ok = cm_remote_accepted(i, c->gen, a[0], a[2], a[3], a[4]) == 0;
    peer_send(i, c->gen, "DONE %u %u", a[1], ok ? 1u : 0u);
    return;
  }
  case PEER_REJ: cm_remote_answer(i, c->gen, a[0], "ERR REJECTED rejected by the peer"); return;
  case PEER_FAIL: {
    const char *msg = !strcmp(m.s[0], "NONIC") ? "ERR NONIC no such NIC at the peer nicd, or it faulted"
                      : !strcmp(m.s[0], "BUSY") ? "ERR BUSY too many pending requests at the peer nicd"
                                                : "ERR INVAL refused by the peer nicd";
    cm_remote_answer(i, c->gen, a[0], msg);
    return;
  }
  case PEER_DONE:
    if (a[1] > 1) break;
    cm_remote_done(i, c->gen, a[0], a[1] == 1);
    return;
  case PEER_DISC: vitab_peer_gone(D, a[0], a[1], a[2], a[3], a[4]); return;
  default: break;
  }
  lose(i, "a line that is not the nicd control protocol");
}

static void input(int i) {
  struct conn *c = &C[i];
  ssize_t n = recv(c->fd, c->in + c->inlen, sizeof c->in - 1 - c->inlen, MSG_DONTWAIT);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    lose(i, n == 0 ? "closed by the peer nicd" : strerror(errno));
    return;
  }
  if (n < 0) return;
  c->inlen += (size_t)n;
  c->last_rx = futex_now_ns();
  uint32_t gen = c->gen;
  char *nl;
  while (live(i, gen) && (nl = memchr(c->in, '\n', c->inlen))) {
    *nl = 0;
    char line[IN_LINE];
    memcpy(line, c->in, (size_t)(nl - c->in) + 1);
    size_t used = (size_t)(nl + 1 - c->in);
    memmove(c->in, nl + 1, c->inlen - used);
    c->inlen -= used;
    handle(i, line);
  }
  if (live(i, gen) && c->inlen == sizeof c->in - 1) lose(i, "a control line too long");
}

int peer_pollfds(struct pollfd *p, int max, int *timeout_ms) {
  int np = 0;
  uint64_t now = futex_now_ns();
  if (lfd >= 0 && np < max) p[np++] = (struct pollfd){.fd = lfd, .events = POLLIN};
  for (int i = 0; i < MAXCONN && np < max; i++) {
    struct conn *c = &C[i];
    if (c->fd < 0) continue;
    if (c->dialing && now - c->since > DIAL_MS * MS) {
      lose(i, "no answer from the peer nicd (host unreachable?)");
      continue;
    }
    if (!c->dialing && now - c->last_rx > DEAD_MS * MS) {
      lose(i, "the peer nicd is silent (dead or unreachable)");
      continue;
    }
    if (!c->dialing && now - c->last_tx >= HB_MS * MS) peer_send(i, c->gen, "HB");
    if (c->fd < 0) continue;
    short ev = POLLIN;
    if (c->dialing || c->outlen) ev |= POLLOUT;
    p[np++] = (struct pollfd){.fd = c->fd, .events = ev};
  }
  if (*timeout_ms > HB_MS / 2) *timeout_ms = HB_MS / 2;
  return np;
}

void peer_serve(const struct pollfd *p, int n) {
  for (int k = 0; k < n; k++) {
    if (!p[k].revents) continue;
    if (p[k].fd == lfd) {
      int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) continue;
      if (!allowed(fd)) {
        refused++;
        if (D->verbose) fprintf(stderr, "nicd: a control connection from no peer's host: refused\n");
        close(fd);
        continue;
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      char who[64];
      peer_name(fd, who, sizeof who);
      if (new_slot(fd, -1, false, who) < 0) close(fd);
      continue;
    }
    int i = -1;
    for (int j = 0; j < MAXCONN; j++)
      if (C[j].fd == p[k].fd) i = j;
    if (i < 0) continue;
    struct conn *c = &C[i];
    if (c->dialing) {
      int e = 0;
      socklen_t l = sizeof e;
      getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &l);
      if (e) {
        char why[400], where[300];
        peer_addr(c->peer, where, sizeof where);
        snprintf(why, sizeof why, "the nicd at %s is not reachable: %s", where, strerror(e));
        lose(i, why);
        continue;
      }
      if (!(p[k].revents & POLLOUT)) continue;
      c->dialing = false;
      c->last_rx = futex_now_ns();
    }
    if (p[k].revents & POLLOUT) push(i);
    if (c->fd >= 0 && (p[k].revents & (POLLIN | POLLHUP | POLLERR))) input(i);
  }
}

uint64_t peer_refused(void) { return refused; }

unsigned peer_live(void) {
  unsigned n = 0;
  for (int i = 0; i < MAXCONN; i++) n += C[i].fd >= 0 && !C[i].dialing;
  return n;
}

int peer_start(struct nicd *d, char *err, size_t cap) {
  D = d;
  for (int i = 0; i < MAXCONN; i++) C[i].fd = -1;
  for (unsigned li = 0; li < NICD_MAX_NICS; li++)
    for (unsigned vi = 0; vi < HOSTIF_NVI; vi++) vb[li][vi].conn = -1;
  if (allow_peers(err, cap) != 0) return -1;
  char ps[8];
  snprintf(ps, sizeof ps, "%u", (unsigned)d->clu.port);
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_NUMERICSERV}, *res = NULL;
  int rc = getaddrinfo(d->clu.host, ps, &hints, &res);
  if (rc) {
    snprintf(err, cap, "control socket %s:%s: %s", d->clu.host, ps, gai_strerror(rc));
    return -1;
  }
  lfd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  if (lfd >= 0) {
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (res->ai_family == AF_INET6) setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  }
  if (lfd < 0 || bind(lfd, res->ai_addr, res->ai_addrlen) != 0 || listen(lfd, 64) != 0) {
    snprintf(err, cap, "control socket: bind to %s port %s (TCP): %s", d->clu.host, ps,
             strerror(errno));
    if (lfd >= 0) close(lfd);
    lfd = -1;
    freeaddrinfo(res);
    return -1;
  }
  freeaddrinfo(res);
  return 0;
}

void peer_stop(void) {
  for (int i = 0; i < MAXCONN; i++)
    if (C[i].fd >= 0) close(C[i].fd);
  if (lfd >= 0) close(lfd);
  lfd = -1;
  free(allow);
  allow = NULL;
  nallow = 0;
}
