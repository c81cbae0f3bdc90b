/* preload_udp.c: SOCK_DGRAM sockets of unmodified programs over E-UDP (preload_udp.h). An
 * E-UDP socket is an eudp endpoint (host/eudp) on the NIC $SOVIA_NIC (default nic0) bound to
 * the socket's UDP port; addresses map to nodes through the Verinic hosts file, as the stream
 * side's (sv_addr.c). The descriptor the application holds stays a kernel UDP socket, bound to
 * the loopback, and serves as its readiness: a notifier thread sends it one token datagram per
 * datagram the NIC has received, so poll, select, epoll, O_NONBLOCK, SO_RCVTIMEO and blocking
 * receives all behave as the kernel makes them; a receive takes a token, then the datagram.
 * A fork's child does not inherit E-UDP sockets' endpoints (its calls on them fail EBADFD);
 * dup, dup2, dup3 and F_DUPFD give another descriptor of the same endpoint. */
#define _GNU_SOURCE
#include "preload_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eudp.h"
#include "libnic.h"
#include "naming.h"
#include "preload.h"

PL_REAL(int, bind, int, const struct sockaddr *, socklen_t)
PL_REAL(int, close, int)
PL_REAL(int, getsockname, int, struct sockaddr *, socklen_t *)
PL_REAL(ssize_t, sendto, int, const void *, size_t, int, const struct sockaddr *, socklen_t)
PL_REAL(ssize_t, recvfrom, int, void *, size_t, int, struct sockaddr *, socklen_t *)

enum { K_UCAND = 3, K_EUDP = 4 };   /* pl_tab kinds beyond preload.h's */

static uint32_t node_ip(unsigned node);

struct usock {
  struct eudp *e;
  pid_t pid;                 /* the process that made it */
  unsigned refs;             /* descriptors naming it (dup, dup2, dup3, F_DUPFD) */
  uint16_t port;             /* E-UDP port */
  uint32_t ip;               /* the address bound (network order; 0: any) */
  bool connected;
  struct sockaddr_in peer;
  struct sockaddr_storage kname;   /* the kernel socket's loopback name (tokens go there) */
  socklen_t kname_len;
  unsigned tokens;           /* tokens sent and not yet taken */
  uint8_t *held;             /* a datagram a MSG_PEEK took from the NIC (EUDP_MAX bytes) */
  bool have_held;
  size_t held_len;
  uint16_t held_node, held_port;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct usock *us[PMAXFD];
static struct lnic_dev *dev;
static int tok4 = -1, tok6 = -1;   /* the notifier's token senders */
static bool notifier_on;

/* ---- configuration: $SOVIA_PRELOAD_UDP_PORTS and the hosts file ---- */

static uint8_t port_bits[PL_PORT_BYTES];
static struct { uint32_t ip; uint16_t node; } hosts[NAMING_ENTRIES_MAX];
static unsigned nhosts;

static void cfg_read(void) {
  pl_ports_parse("SOVIA_PRELOAD_UDP_PORTS", port_bits);
  char path[512], err[NAMING_ERR_LEN];
  struct naming_hosts h;
  if (naming_hosts_path(path, sizeof path) || naming_hosts_load(path, &h, err, sizeof err)) return;
  for (unsigned i = 0; i < h.n && nhosts < NAMING_ENTRIES_MAX; i++) {
    struct in_addr ia;
    if (inet_pton(AF_INET, h.e[i].name, &ia) == 1) {
      hosts[nhosts].ip = ia.s_addr;
      hosts[nhosts++].node = (uint16_t)h.e[i].node;
    }
  }
  naming_hosts_free(&h);
}

/* Once, whichever thread comes first (as the stream side's, preload.c). */
static void cfg_load(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, cfg_read);
}

static bool port_on(unsigned port) { return pl_port_in(port_bits, port); }
static int ip_node(uint32_t ip_be) {
  for (unsigned i = 0; i < nhosts; i++)
    if (hosts[i].ip == ip_be) return hosts[i].node;
  return -1;
}

/* Whether traffic to/for this address goes over E-UDP. */
static bool on_fabric(const struct sockaddr_in *a) {
  cfg_load();
  if (pl_ip_local(a->sin_addr.s_addr)) return port_on(ntohs(a->sin_port));
  return ip_node(a->sin_addr.s_addr) >= 0;
}

static void udp_at_exit(void);

/* ---- the notifier: one token per received datagram ---- */

static void *notifier(void *arg) {
  (void)arg;
  for (;;) {
    uint32_t mask = 0;
    pthread_mutex_lock(&mu);
    for (int fd = 0; fd < PMAXFD; fd++)
      if (us[fd] && us[fd]->e) mask |= HOSTIF_SIG_VI(eudp_vi(us[fd]->e));
    pthread_mutex_unlock(&mu);
    if (!mask) {
      usleep(10000);
      continue;
    }
    if (lnic_wait(dev, mask, 5 * 1000 * 1000) == -EPIPE) return NULL;
    pthread_mutex_lock(&mu);
    for (int fd = 0; fd < PMAXFD; fd++) {
      struct usock *s = us[fd];
      if (!s || !s->e) continue;
      unsigned ready = eudp_pending(s->e) + (s->have_held ? 1u : 0u);
      int tok = s->kname.ss_family == AF_INET6 ? tok6 : tok4;
      for (; s->tokens < ready; s->tokens++)
        if (PL_CALL(sendto)(tok, "", 1, MSG_DONTWAIT, (struct sockaddr *)&s->kname, s->kname_len) != 1)
          break;
    }
    pthread_mutex_unlock(&mu);
  }
}

/* The NIC, the token senders and the notifier, on first use; mu held. */
static int udp_init(void) {
  if (dev) return 0;
  const char *nic = getenv("SOVIA_NIC");
  int rc = lnic_open(nic && *nic ? nic : "nic0", &dev);
  if (rc) {
    dev = NULL;
    return rc;
  }
  tok4 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  tok6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (tok4 >= 0) pl_mark(tok4, K_KERNEL);
  if (tok6 >= 0) pl_mark(tok6, K_KERNEL);
  pthread_t t;
  if (lnic_thread_start(&t, true, notifier, NULL) == 0) notifier_on = true;
  return notifier_on ? 0 : -EAGAIN;
}

/* ---- the socket calls ---- */

bool pl_udp(int fd) { return fd >= 0 && fd < PMAXFD && pl_tab[fd].kind == K_EUDP; }
bool pl_udp_cand(int fd) { return fd >= 0 && fd < PMAXFD && pl_tab[fd].kind == K_UCAND; }

void pl_udp_mark(int fd) { pl_mark(fd, K_UCAND); }

static int fail(int err) {
  errno = err;
  return -1;
}

/* A candidate becomes an E-UDP socket on port `port` (0: the kernel socket's own port), bound
 * to ip. 0, or -1 and errno. */
static int to_eudp(int fd, uint16_t port, uint32_t ip) {
  bool v6 = pl_tab[fd].v6;
  struct sockaddr_storage k = {0};
  socklen_t kl;
  if (v6) {
    struct sockaddr_in6 *b = (struct sockaddr_in6 *)&k;
    b->sin6_family = AF_INET6;
    b->sin6_addr = in6addr_loopback;
    kl = sizeof *b;
  } else {
    struct sockaddr_in *b = (struct sockaddr_in *)&k;
    b->sin_family = AF_INET;
    b->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    kl = sizeof *b;
  }
  /* A socket the program bound to the wildcard address and port 0 (as dig does before it
   * connects) is bound already: its tokens reach it on the loopback all the same. */
  struct sockaddr_storage cur = {0};
  socklen_t cl = sizeof cur;
  bool bound = PL_CALL(getsockname)(fd, (struct sockaddr *)&cur, &cl) == 0 &&
               (v6 ? ((struct sockaddr_in6 *)&cur)->sin6_port : ((struct sockaddr_in *)&cur)->sin_port);
  if (!bound && PL_CALL(bind)(fd, (struct sockaddr *)&k, kl)) return -1;
  struct sockaddr_storage got;
  socklen_t gl = sizeof got;
  if (PL_CALL(getsockname)(fd, (struct sockaddr *)&got, &gl)) return -1;
  uint16_t kport = v6 ? ((struct sockaddr_in6 *)&got)->sin6_port : ((struct sockaddr_in *)&got)->sin_port;
  if (v6) ((struct sockaddr_in6 *)&k)->sin6_port = kport;   /* k: the loopback, for the tokens */
  else ((struct sockaddr_in *)&k)->sin_port = kport;
  if (!port) port = ntohs(kport);
  struct usock *s = calloc(1, sizeof *s);
  if (!s) return fail(ENOMEM);
  pthread_mutex_lock(&mu);
  int rc = udp_init();
  unsigned fl = 0;
  for (unsigned i = 0; i < pl_tab[fd].nopt; i++)
    if (pl_tab[fd].opt[i].level == SOL_SOCKET && pl_tab[fd].opt[i].val &&
        (pl_tab[fd].opt[i].name == SO_REUSEADDR || pl_tab[fd].opt[i].name == SO_REUSEPORT))
      fl = EUDP_REUSE;
  if (!rc) rc = eudp_open(dev, port, fl, &s->e);
  if (!rc) eudp_set_ip(s->e, ntohl(node_ip(dev->node)));
  if (rc) {
    pthread_mutex_unlock(&mu);
    free(s);
    return fail(rc == -EADDRINUSE ? EADDRINUSE : rc == -ENOSPC ? ENOBUFS : ENETDOWN);
  }
  static bool hooked;
  if (!hooked) hooked = atexit(udp_at_exit) == 0;
  s->pid = getpid();
  s->refs = 1;
  s->port = port;
  s->ip = ip;
  s->kname = k;
  s->kname_len = kl;
  us[fd] = s;
  pl_tab[fd].kind = K_EUDP;
  pthread_mutex_unlock(&mu);
  return 0;
}

/* The socket of fd in this process, or NULL and errno (EBADFD: a fork's child). */
static struct usock *sock_of(int fd) {
  struct usock *s = us[fd];
  if (!s || s->pid != getpid()) {
    errno = EBADFD;
    return NULL;
  }
  return s;
}

int pl_udp_bind(int fd, const struct sockaddr *a, socklen_t len, bool *done) {
  struct sockaddr_in v;
  *done = false;
  if (pl_udp(fd)) {
    *done = true;
    return fail(EINVAL);   /* bound already */
  }
  if (!pl_to_v4(a, len, &v)) return 0;
  cfg_load();
  bool take = port_on(ntohs(v.sin_port)) || (!pl_ip_local(v.sin_addr.s_addr) && ip_node(v.sin_addr.s_addr) >= 0);
  if (!take) return 0;
  *done = true;
  return to_eudp(fd, ntohs(v.sin_port), pl_ip_local(v.sin_addr.s_addr) ? 0 : v.sin_addr.s_addr);
}

/* Connects an E-UDP socket to v: the NIC gives it only v's datagrams. */
static int udp_peer(struct usock *s, const struct sockaddr_in *v) {
  int node = pl_ip_local(v->sin_addr.s_addr) ? (int)dev->node : ip_node(v->sin_addr.s_addr);
  if (node < 0) return fail(ENETUNREACH);
  if (ntohs(v->sin_port) == 0) return fail(EINVAL);
  s->peer = *v;
  s->connected = true;
  eudp_connect(s->e, (uint16_t)node, ntohs(v->sin_port));
  return 0;
}

int pl_udp_connect(int fd, const struct sockaddr *a, socklen_t len, bool *done) {
  struct sockaddr_in v;
  *done = false;
  if (pl_udp(fd)) {
    *done = true;
    struct usock *s = sock_of(fd);
    if (!s) return -1;
    if (a && len >= sizeof(sa_family_t) && a->sa_family == AF_UNSPEC) {
      s->connected = false;   /* dissolves the association, as Linux does */
      return eudp_connect(s->e, 0, 0);
    }
    if (!pl_to_v4(a, len, &v)) return fail(EAFNOSUPPORT);
    return udp_peer(s, &v);
  }
  if (!pl_to_v4(a, len, &v) || !on_fabric(&v)) return 0;
  *done = true;
  if (to_eudp(fd, 0, 0)) return -1;
  return udp_peer(us[fd], &v);
}

int pl_udp_dup(int oldfd, int newfd) {
  if (newfd >= PMAXFD) {   /* beyond what the shim follows: it would be the token socket */
    PL_CALL(close)(newfd);
    return fail(EMFILE);
  }
  pthread_mutex_lock(&mu);
  struct usock *s = us[oldfd];
  if (s) {
    s->refs++;
    us[newfd] = s;
    pl_tab[newfd].kind = K_EUDP;
  }
  pthread_mutex_unlock(&mu);
  return newfd;
}

int pl_udp_close(int fd) {
  pthread_mutex_lock(&mu);
  struct usock *s = us[fd];
  us[fd] = NULL;
  pl_mark(fd, K_KERNEL);
  if (s && --s->refs > 0) s = NULL;   /* another descriptor still names it */
  if (s && s->pid == getpid()) eudp_close(s->e);
  pthread_mutex_unlock(&mu);
  if (s) free(s->held);
  free(s);
  return PL_CALL(close)(fd);
}

/* At exit the datagrams sent still leave, as the kernel's would, and the VIs are given back.
 * An atexit handler registered after libnic's (which unlinks the memory the NIC still reads),
 * so that it runs first. */
static void udp_at_exit(void) {
  pthread_mutex_lock(&mu);
  for (int fd = 0; fd < PMAXFD; fd++)
    if (us[fd] && us[fd]->pid == getpid()) {
      eudp_close(us[fd]->e);
      us[fd]->e = NULL;
      us[fd]->pid = 0;
    }
  pthread_mutex_unlock(&mu);
}

/* The IPv4 address of a node: its first dotted-quad name in the hosts file, else loopback. */
static uint32_t node_ip(unsigned node) {
  for (unsigned i = 0; i < nhosts; i++)
    if (hosts[i].node == node) return hosts[i].ip;
  return htonl(INADDR_LOOPBACK);
}

int pl_udp_name(int fd, struct sockaddr *a, socklen_t *len, bool peer) {
  struct usock *s = sock_of(fd);
  if (!s) return -1;
  if (!a || !len) return fail(EFAULT);
  struct sockaddr_in v = {.sin_family = AF_INET};
  if (peer) {
    if (!s->connected) return fail(ENOTCONN);
    v = s->peer;
  } else {
    v.sin_port = htons(s->port);
    v.sin_addr.s_addr = s->ip;
  }
  pl_name_out(&pl_tab[fd], (struct sockaddr *)&v, a, len);
  return 0;
}

static size_t iov_total(const struct iovec *iov, size_t cnt) {
  size_t t = 0;
  for (size_t i = 0; i < cnt; i++) t += iov[i].iov_len;
  return t;
}

ssize_t pl_udp_sendmsg(int fd, const struct msghdr *m, int flags, bool *done) {
  *done = true;
  if (!m) return fail(EFAULT);
  struct sockaddr_in to;
  bool named = m->msg_name && m->msg_namelen;
  if (named && !pl_to_v4(m->msg_name, m->msg_namelen, &to)) {
    if (pl_udp_cand(fd)) return *done = false, 0;
    return fail(EAFNOSUPPORT);
  }
  if (pl_udp_cand(fd)) {
    if (!named || !on_fabric(&to)) return *done = false, 0;
    if (to_eudp(fd, 0, 0)) return -1;
  }
  struct usock *s = sock_of(fd);
  if (!s) return -1;
  if (flags & MSG_OOB) return fail(EOPNOTSUPP);
  if (m->msg_controllen) return pl_unsupported("sendmsg", "ancillary data on an E-UDP socket", EOPNOTSUPP);
  if (!named) {
    if (!s->connected) return fail(EDESTADDRREQ);
    to = s->peer;
  }
  if (ntohs(to.sin_port) == 0) return fail(EINVAL);
  int node = pl_ip_local(to.sin_addr.s_addr) ? (int)dev->node : ip_node(to.sin_addr.s_addr);
  if (node < 0) return fail(ENETUNREACH);
  size_t n = iov_total(m->msg_iov, m->msg_iovlen);
  if (n > EUDP_MAX) return fail(EMSGSIZE);
  uint8_t stack[2048];
  const void *buf = m->msg_iovlen == 1 ? m->msg_iov[0].iov_base : NULL;
  uint8_t *gather = NULL;
  if (!buf && n) {
    gather = n <= sizeof stack ? stack : malloc(n);
    if (!gather) return fail(ENOMEM);
    size_t off = 0;
    for (size_t i = 0; i < m->msg_iovlen; i++) {
      if (m->msg_iov[i].iov_len) memcpy(gather + off, m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
      off += m->msg_iov[i].iov_len;
    }
    buf = gather;
  }
  int rc = eudp_sendto_ip(s->e, (uint16_t)node, ntohs(to.sin_port), ntohl(to.sin_addr.s_addr),
                          buf, n);
  if (gather && gather != stack) free(gather);
  if (rc) return fail(rc == -EPIPE ? ENETDOWN : -rc);
  return (ssize_t)n;
}

ssize_t pl_udp_recvmsg(int fd, struct msghdr *m, int flags) {
  if (!m) return fail(EFAULT);
  struct usock *s = sock_of(fd);
  if (!s) return -1;
  if (flags & (MSG_OOB | MSG_ERRQUEUE))
    return pl_unsupported("recvmsg", "MSG_OOB and MSG_ERRQUEUE on an E-UDP socket", EOPNOTSUPP);
  bool peek = flags & MSG_PEEK;
  size_t cap = iov_total(m->msg_iov, m->msg_iovlen);
  uint8_t stack[2048];
  uint8_t *b = m->msg_iovlen == 1 ? m->msg_iov[0].iov_base : cap <= sizeof stack ? stack : malloc(cap);
  if (!b && cap) return fail(ENOMEM);
  ssize_t r;
  for (;;) {
    /* the token: blocks, or not, as the kernel socket does */
    char t;
    struct sockaddr_storage from;
    socklen_t fl = sizeof from;
    if (PL_CALL(recvfrom)(fd, &t, 1, flags & (MSG_DONTWAIT | MSG_PEEK), (struct sockaddr *)&from, &fl) < 0) {
      r = -1;
      break;
    }
    pthread_mutex_lock(&mu);
    size_t full = 0;
    uint16_t node = 0, port = 0;
    r = 0;
    if (peek && !s->have_held) {   /* the next datagram, kept for the receive that takes it */
      if (!s->held) s->held = malloc(EUDP_MAX);
      ssize_t h = s->held ? eudp_recvfrom(s->e, s->held, EUDP_MAX, &s->held_len, &s->held_node,
                                          &s->held_port, 0)
                          : -ENOMEM;
      s->have_held = h >= 0;
      if (h < 0 && h != -EAGAIN) r = h;
    }
    if (s->have_held) {
      full = s->held_len;
      node = s->held_node;
      port = s->held_port;
      r = (ssize_t)(full < cap ? full : cap);
      if (r) memcpy(b, s->held, (size_t)r);
      if (!peek) s->have_held = false;
    } else if (!peek) {
      r = eudp_recvfrom(s->e, b, cap, &full, &node, &port, 0);
    } else if (r >= 0) {
      r = -EAGAIN;
    }
    if (r >= 0 && !peek && s->tokens) s->tokens--;
    pthread_mutex_unlock(&mu);
    if (r == -EAGAIN && peek) {   /* a stray kernel datagram at the head: drop it */
      PL_CALL(recvfrom)(fd, &t, 1, MSG_DONTWAIT, NULL, NULL);
      continue;
    }
    if (r == -EAGAIN) continue;   /* a stray kernel datagram, not a token */
    if (r < 0) {
      errno = r == -EPIPE ? ENETDOWN : (int)-r;
      r = -1;
      break;
    }
    struct sockaddr_in src = {.sin_family = AF_INET, .sin_port = htons(port)};
    src.sin_addr.s_addr = node == dev->node && s->connected && pl_ip_local(s->peer.sin_addr.s_addr)
                              ? s->peer.sin_addr.s_addr : node_ip(node);
    if (s->connected && (src.sin_port != s->peer.sin_port ||
                         (src.sin_addr.s_addr != s->peer.sin_addr.s_addr &&
                          !(pl_ip_local(s->peer.sin_addr.s_addr) && node == dev->node))))
      continue;   /* a connected socket takes only its peer's datagrams */
    if (m->msg_name) {
      socklen_t nl = m->msg_namelen;
      pl_name_out(&pl_tab[fd], (struct sockaddr *)&src, m->msg_name, &nl);
      m->msg_namelen = nl;
    }
    m->msg_controllen = 0;
    m->msg_flags = full > (size_t)r ? MSG_TRUNC : 0;
    if (b != m->msg_iov[0].iov_base || m->msg_iovlen != 1) {
      size_t off = 0;
      for (size_t i = 0; i < m->msg_iovlen && off < (size_t)r; i++) {
        size_t k = m->msg_iov[i].iov_len < (size_t)r - off ? m->msg_iov[i].iov_len : (size_t)r - off;
        memcpy(m->msg_iov[i].iov_base, b + off, k);
        off += k;
      }
    }
    if (flags & MSG_TRUNC) r = (ssize_t)full;   /* Linux: the datagram's real length */
    break;
  }
  if (b && b != stack && (m->msg_iovlen != 1 || b != m->msg_iov[0].iov_base)) free(b);
  return r;
}
