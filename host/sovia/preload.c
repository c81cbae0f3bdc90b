/* preload.c: LD_PRELOAD shim (build/lib/libsovia_preload.so) running unmodified socket
 * programs over SOVIA (README, "LD_PRELOAD shim"). socket(AF_INET or AF_INET6, SOCK_STREAM)
 * makes a kernel socket as usual and marks it a candidate; at bind (port in
 * $SOVIA_PRELOAD_PORTS, or a fabric address) or connect (an address in the Verinic hosts
 * file, or a port in $SOVIA_PRELOAD_PORTS on a loopback/any address) it turns into a SOVIA
 * socket: the kernel descriptor stays open as the number the application holds (unique,
 * close() works) and maps to the SOVIA socket's own descriptor. An AF_INET6 socket takes
 * ::, ::1 and v4-mapped addresses (dual stack) and sees its names v4-mapped. Accepted SOVIA
 * connections are handed out under SOVIA's own descriptor (an unbound unix socket). This file: the
 * table, addressing and the socket calls (socket, bind, listen, accept, connect, close,
 * shutdown, options, names, fcntl, ioctl, dup, and the other ways to close: close_range,
 * closefrom); preload_io.c the data calls, preload_wait.c
 * poll, select and epoll. What SOVIA cannot do fails with an errno and one stderr line. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "naming.h"
#include "preload.h"
#include "preload_udp.h"
#include "sovia.h"

struct pfd pl_tab[PMAXFD];

PL_REAL(int, socket, int, int, int)
PL_REAL(int, close_range, unsigned, unsigned, int)
PL_REAL(void, closefrom, int)
PL_REAL(int, bind, int, const struct sockaddr *, socklen_t)
PL_REAL(int, listen, int, int)
PL_REAL(int, accept, int, struct sockaddr *, socklen_t *)
PL_REAL(int, accept4, int, struct sockaddr *, socklen_t *, int)
PL_REAL(int, connect, int, const struct sockaddr *, socklen_t)
PL_REAL(int, close, int)
PL_REAL(int, shutdown, int, int)
PL_REAL(int, setsockopt, int, int, int, const void *, socklen_t)
PL_REAL(int, getsockopt, int, int, int, void *, socklen_t *)
PL_REAL(int, getsockname, int, struct sockaddr *, socklen_t *)
PL_REAL(int, getpeername, int, struct sockaddr *, socklen_t *)
PL_REAL(int, fcntl, int, int, ...)
PL_REAL(int, ioctl, int, unsigned long, ...)
PL_REAL(int, dup, int)
PL_REAL(int, dup2, int, int)
PL_REAL(int, dup3, int, int, int)

struct pfd *pl_sov(int fd) {
  return fd >= 0 && fd < PMAXFD && pl_tab[fd].kind == K_SOVIA ? &pl_tab[fd] : NULL;
}
void pl_mark(int fd, int kind) {
  if (fd >= 0 && fd < PMAXFD) {
    memset(&pl_tab[fd], 0, sizeof pl_tab[fd]);
    pl_tab[fd].kind = (unsigned char)kind;
  }
}

int pl_unsupported(const char *call, const char *what, int err) {
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  static const char *told[64];
  static unsigned ntold;
  pthread_mutex_lock(&mu);
  bool seen = false;
  for (unsigned i = 0; i < ntold && !seen; i++) seen = told[i] == call;
  if (!seen && ntold < 64) told[ntold++] = call;
  pthread_mutex_unlock(&mu);
  if (!seen)
    fprintf(stderr, "sovia shim (pid %d): %s on a SOVIA socket: %s (%s)\n", (int)getpid(), call,
            what, strerror(err));
  errno = err;
  return -1;
}

/* How many of the application's descriptors name each SOVIA descriptor: dup, dup2, dup3 and
 * F_DUPFD make more than one (an inetd-style server puts its connection on stdin and stdout,
 * busybox httpd's child so). Indexed by SOVIA's descriptor. */
static unsigned short refs[PMAXFD];

static void sov_mark(int fd, int sfd, bool v6) {
  pl_mark(fd, K_SOVIA);
  pl_tab[fd].sfd = sfd;
  pl_tab[fd].v6 = v6;
  refs[sfd]++;
}

/* SOVIA closes one of its descriptors (at exit, or an accepted socket): every application
 * descriptor naming it is the kernel's again. Called with SOVIA's lock held. */
static void sovia_closed(int fd) {
  if (fd < 0 || fd >= PMAXFD || !refs[fd]) return;
  for (int x = 0; x < PMAXFD && refs[fd]; x++)
    if (pl_tab[x].kind == K_SOVIA && pl_tab[x].sfd == fd) {
      pl_mark(x, K_KERNEL);
      refs[fd]--;
    }
  refs[fd] = 0;
}
__attribute__((constructor)) static void pl_init(void) {
  sovia_set_fd_hook(sovia_closed);
  sovia_relay_capable(1);   /* a connection another process would share goes to a relay */
}

/* ---- configuration: $SOVIA_PRELOAD_PORTS and the hosts file ---- */

void pl_ports_parse(const char *var, uint8_t *bits) {
  const char *p = getenv(var);
  while (p && *p) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p) { p++; continue; }
    if (v > 0 && v < 65536) bits[v / 8] |= (uint8_t)(1u << (v % 8));
    p = end;
  }
}

bool pl_port_in(const uint8_t *bits, unsigned port) {
  return port && port < 65536 && (bits[port / 8] >> (port % 8)) & 1u;
}

bool pl_ip_local(uint32_t ip_be) {
  uint32_t ip = ntohl(ip_be);
  return ip == 0 || (ip >> 24) == 127;
}

static uint8_t port_bits[PL_PORT_BYTES];
static uint32_t hosts_ip[NAMING_ENTRIES_MAX]; /* network order */
static unsigned nhosts;

/* Once per process, whichever thread comes first; the others wait for it (threads that
 * connect at once took the half-read table for empty and went to the kernel: ENETUNREACH). */
static void cfg_read(void) {
  pl_ports_parse("SOVIA_PRELOAD_PORTS", port_bits);
  char path[512], err[NAMING_ERR_LEN];
  struct naming_hosts h;
  if (naming_hosts_path(path, sizeof path)) return;
  int rc = naming_hosts_load(path, &h, err, sizeof err);
  if (rc == -EINVAL) fprintf(stderr, "sovia preload: %s\n", err);   /* a missing file is normal */
  for (unsigned i = 0; rc == 0 && i < h.n; i++) {
    struct in_addr ia;
    if (inet_pton(AF_INET, h.e[i].name, &ia) == 1) hosts_ip[nhosts++] = ia.s_addr;
  }
  if (rc == 0) naming_hosts_free(&h);
}

static void cfg_load(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, cfg_read);
}

static bool port_on(unsigned port) {
  cfg_load();
  return pl_port_in(port_bits, port);
}
static bool ip_on(uint32_t ip_be) {
  cfg_load();
  for (unsigned i = 0; i < nhosts; i++)
    if (hosts_ip[i] == ip_be) return true;
  return false;
}

bool pl_to_v4(const struct sockaddr *a, socklen_t len, struct sockaddr_in *out) {
  memset(out, 0, sizeof *out);
  out->sin_family = AF_INET;
  if (a && len >= sizeof(struct sockaddr_in) && a->sa_family == AF_INET) {
    memcpy(out, a, sizeof *out);
    return true;
  }
  if (!a || len < sizeof(struct sockaddr_in6) || a->sa_family != AF_INET6) return false;
  const struct sockaddr_in6 *b = (const struct sockaddr_in6 *)a;
  const uint8_t *x = b->sin6_addr.s6_addr;
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  out->sin_port = b->sin6_port;
  if (IN6_IS_ADDR_UNSPECIFIED(&b->sin6_addr)) out->sin_addr.s_addr = htonl(INADDR_ANY);
  else if (IN6_IS_ADDR_LOOPBACK(&b->sin6_addr)) out->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  else if (!memcmp(x, mapped, 12)) memcpy(&out->sin_addr, x + 12, 4);
  else return false;
  return true;
}

void pl_name_out(const struct pfd *p, const struct sockaddr *in, struct sockaddr *out,
                 socklen_t *len) {
  if (!out || !len) return;
  const struct sockaddr_in *a = (const struct sockaddr_in *)in;
  if (p && p->v6) {
    struct sockaddr_in6 b = {.sin6_family = AF_INET6, .sin6_port = a->sin_port};
    if (a->sin_addr.s_addr != htonl(INADDR_ANY)) {   /* the wildcard stays :: */
      b.sin6_addr.s6_addr[10] = b.sin6_addr.s6_addr[11] = 0xff;
      memcpy(b.sin6_addr.s6_addr + 12, &a->sin_addr, 4);
    }
    socklen_t n = *len < sizeof b ? *len : (socklen_t)sizeof b;
    memcpy(out, &b, n);
    *len = sizeof b;
  } else {
    socklen_t n = *len < sizeof *a ? *len : (socklen_t)sizeof *a;
    memcpy(out, a, n);
    *len = sizeof *a;
  }
}

/* Candidate fd becomes a SOVIA socket: 0, or -1 and errno. */
static int to_sovia(int fd) {
  int fl = PL_CALL(fcntl)(fd, F_GETFL);
  int s = sovia_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC |
                       (fl >= 0 && (fl & O_NONBLOCK) ? SOCK_NONBLOCK : 0), 0);
  if (s < 0) return -1;
  for (unsigned i = 0; i < pl_tab[fd].nopt; i++)   /* best effort: most are no-ops in SOVIA */
    sovia_setsockopt(s, pl_tab[fd].opt[i].level, pl_tab[fd].opt[i].name, &pl_tab[fd].opt[i].val,
                     sizeof(int));
  static const int timeos[] = {SO_RCVTIMEO, SO_SNDTIMEO};   /* timevals: the kernel kept them */
  for (unsigned i = 0; i < 2; i++) {
    struct timeval tv;
    socklen_t tl = sizeof tv;
    if (PL_CALL(getsockopt)(fd, SOL_SOCKET, timeos[i], &tv, &tl) == 0 && (tv.tv_sec || tv.tv_usec))
      sovia_setsockopt(s, SOL_SOCKET, timeos[i], &tv, sizeof tv);
  }
  pl_tab[fd].kind = K_SOVIA;
  pl_tab[fd].sfd = s;
  refs[s] = 1;
  return 0;
}

static bool cand(int fd) { return fd >= 0 && fd < PMAXFD && pl_tab[fd].kind == K_CAND; }

/* An IPV6_V6ONLY socket takes no IPv4 peer, and the fabric is IPv4: it stays the kernel's
 * (a server listening on 0.0.0.0 and [::] with V6ONLY, as redis does, keeps both). */
static bool v6only(int fd) {
  for (unsigned i = 0; i < pl_tab[fd].nopt; i++)
    if (pl_tab[fd].opt[i].level == IPPROTO_IPV6 && pl_tab[fd].opt[i].name == IPV6_V6ONLY)
      return pl_tab[fd].opt[i].val != 0;
  return false;
}

/* ---- the calls ---- */

int socket(int domain, int type, int protocol) {
  int fd = PL_CALL(socket)(domain, type, protocol);
  bool c = (domain == AF_INET || domain == AF_INET6) &&
           (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_STREAM &&
           (protocol == 0 || protocol == IPPROTO_TCP);
  bool u = (domain == AF_INET || domain == AF_INET6) &&
           (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_DGRAM &&
           (protocol == 0 || protocol == IPPROTO_UDP);
  if (fd >= 0) {
    pl_mark(fd, c ? K_CAND : K_KERNEL);
    if (u) pl_udp_mark(fd);
    if (fd < PMAXFD) pl_tab[fd].v6 = domain == AF_INET6;
  }
  return fd;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
  if (pl_udp_cand(fd) || pl_udp(fd)) {
    bool done;
    int r = pl_udp_bind(fd, addr, len, &done);
    return done ? r : PL_CALL(bind)(fd, addr, len);
  }
  struct sockaddr_in a;
  if (cand(fd) && !v6only(fd) && pl_to_v4(addr, len, &a) &&
      (port_on(ntohs(a.sin_port)) || (!pl_ip_local(a.sin_addr.s_addr) && ip_on(a.sin_addr.s_addr))))
    if (to_sovia(fd)) return -1;
  struct pfd *p = pl_sov(fd);
  if (!p) return PL_CALL(bind)(fd, addr, len);
  if (!pl_to_v4(addr, len, &a)) return pl_unsupported("bind", "an IPv6 address off the fabric", EADDRNOTAVAIL);
  return sovia_bind(p->sfd, (struct sockaddr *)&a, sizeof a);
}

int listen(int fd, int backlog) {
  struct pfd *p = pl_sov(fd);
  return p ? sovia_listen(p->sfd, backlog) : PL_CALL(listen)(fd, backlog);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
  struct pfd *p = pl_sov(fd);
  if (!p) {
    int r = PL_CALL(accept4)(fd, addr, len, flags);
    if (r >= 0) pl_mark(r, K_KERNEL);
    return r;
  }
  struct sockaddr_in peer;
  socklen_t plen = sizeof peer;
  int r = sovia_accept4(p->sfd, (struct sockaddr *)&peer, &plen, flags);
  if (r >= 0) {
    if (r >= PMAXFD) {   /* cannot happen (SOVIA's table is as large), but never leak */
      sovia_close(r);
      errno = EMFILE;
      return -1;
    }
    refs[r] = 0;
    sov_mark(r, r, p->v6);   /* handed out under SOVIA's own descriptor */
    pl_name_out(&pl_tab[r], (struct sockaddr *)&peer, addr, len);
  }
  return r;
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
  return pl_sov(fd) ? accept4(fd, addr, len, 0) : PL_CALL(accept)(fd, addr, len);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len) {
  if (pl_udp_cand(fd) || pl_udp(fd)) {
    bool done;
    int r = pl_udp_connect(fd, addr, len, &done);
    return done ? r : PL_CALL(connect)(fd, addr, len);
  }
  struct sockaddr_in a;
  if (cand(fd) && !v6only(fd) && pl_to_v4(addr, len, &a)) {
    bool loc = pl_ip_local(a.sin_addr.s_addr);
    if ((!loc && ip_on(a.sin_addr.s_addr)) || (loc && port_on(ntohs(a.sin_port))))
      if (to_sovia(fd)) return -1;
  }
  struct pfd *p = pl_sov(fd);
  if (!p) return PL_CALL(connect)(fd, addr, len);
  if (!pl_to_v4(addr, len, &a)) return pl_unsupported("connect", "an IPv6 address off the fabric", ENETUNREACH);
  return sovia_connect(p->sfd, (struct sockaddr *)&a, sizeof a);
}

/* The application closes SOVIA's own descriptor s of a socket another of its descriptors
 * still names (a duplicate of it, so the same kernel socket): the socket moves to that one. */
static int renumber(int s) {
  int a = -1;
  for (int x = 0; x < PMAXFD && a < 0; x++)
    if (x != s && pl_tab[x].kind == K_SOVIA && pl_tab[x].sfd == s) a = x;
  if (a < 0 || sovia_renumber(s, a) != 0) return 0;   /* cannot be: the socket stays at s */
  for (int x = 0; x < PMAXFD; x++)
    if (pl_tab[x].kind == K_SOVIA && pl_tab[x].sfd == s) pl_tab[x].sfd = a;
  refs[a] = refs[s];
  refs[s] = 0;
  return PL_CALL(close)(s);
}

/* Closes fd, a SOVIA socket's descriptor (the table entry first: SOVIA's own close() of its
 * descriptor comes back through the hook and must find a kernel descriptor); the socket
 * itself only with the last descriptor naming it. */
static int sovia_drop(int fd) {
  int s = pl_tab[fd].sfd;
  pl_epoll_forget(fd);
  pl_mark(fd, K_KERNEL);
  if (refs[s] > 1) {
    refs[s]--;
    return fd == s ? renumber(s) : PL_CALL(close)(fd);
  }
  refs[s] = 0;
  int r = sovia_close(s);
  int e = errno;
  if (s != fd) PL_CALL(close)(fd);
  errno = e;
  return r;
}

int close(int fd) {
  if (sovia_vfork_child()) return PL_CALL(close)(fd);
  if (pl_sov(fd)) return sovia_drop(fd);
  if (pl_udp(fd)) return pl_udp_close(fd);
  if (fd >= 0 && fd < PMAXFD && pl_tab[fd].ep) pl_epoll_free(fd);
  pl_mark(fd, K_KERNEL);
  return PL_CALL(close)(fd);
}

int shutdown(int fd, int how) {
  struct pfd *p = pl_sov(fd);
  return p ? sovia_shutdown(p->sfd, how) : PL_CALL(shutdown)(fd, how);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len) {
  struct pfd *p = pl_sov(fd);
  if (p) return sovia_setsockopt(p->sfd, level, name, val, len);
  if (level == SOL_SOVIA && cand(fd)) {
    /* SOVIA's own options on a candidate: kept for the switch, never sent to the kernel */
    if (!val || len < sizeof(int) || pl_tab[fd].nopt >= NOPT) {
      errno = EINVAL;
      return -1;
    }
  } else {
    int r = PL_CALL(setsockopt)(fd, level, name, val, len);
    if (r && pl_relay_ip_level(fd, level)) return 0;   /* TCP_NODELAY and its kin: no-ops */
    if (r || !(cand(fd) || pl_udp_cand(fd))) return r;   /* a UDP candidate's SO_REUSEADDR counts */
    if (!val || len != sizeof(int) || pl_tab[fd].nopt >= NOPT) return r;
  }
  struct pfd *c = &pl_tab[fd];
  c->opt[c->nopt].level = level;
  c->opt[c->nopt].name = name;
  memcpy(&c->opt[c->nopt].val, val, sizeof(int));
  c->nopt++;
  return 0;
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len) {
  struct pfd *p = pl_sov(fd);
  if (p) return sovia_getsockopt(p->sfd, level, name, val, len);
  int r = PL_CALL(getsockopt)(fd, level, name, val, len);
  if (r && val && len && pl_relay_ip_level(fd, level)) {   /* zero, and no IP options (sshd asks) */
    if (level == IPPROTO_IP && name == IP_OPTIONS) {
      *len = 0;
      return 0;
    }
    if (*len < sizeof(int)) return errno = EINVAL, -1;
    memset(val, 0, sizeof(int));
    *len = sizeof(int);
    return 0;
  }
  return r;
}

static int name_of(int fd, struct sockaddr *addr, socklen_t *len, bool peer) {
  if (pl_udp(fd)) return pl_udp_name(fd, addr, len, peer);
  struct pfd *p = pl_sov(fd);
  if (!p) {
    socklen_t cap = len ? *len : 0;
    int r = peer ? PL_CALL(getpeername)(fd, addr, len) : PL_CALL(getsockname)(fd, addr, len);
    if (r == 0 && addr && len && cap >= sizeof(sa_family_t) && addr->sa_family == AF_UNIX) {
      socklen_t got = *len;
      *len = cap;
      int t = pl_relay_name(fd, addr, len, peer);   /* a relayed connection's names */
      if (t != 1) return t;
      *len = got;
    }
    return r;
  }
  struct sockaddr_in a;
  socklen_t n = sizeof a;
  int r = peer ? sovia_getpeername(p->sfd, (struct sockaddr *)&a, &n)
               : sovia_getsockname(p->sfd, (struct sockaddr *)&a, &n);
  if (r == 0) {
    if (!addr || !len) {
      errno = EFAULT;
      return -1;
    }
    pl_name_out(p, (struct sockaddr *)&a, addr, len);
  }
  return r;
}
int getsockname(int fd, struct sockaddr *addr, socklen_t *len) { return name_of(fd, addr, len, false); }
int getpeername(int fd, struct sockaddr *addr, socklen_t *len) { return name_of(fd, addr, len, true); }

/* A kernel duplicate r of oldfd: a SOVIA socket's names the same socket, an E-UDP socket's
 * the same endpoint. */
static int dup_done(int oldfd, int r) {
  if (r < 0) return r;
  if (pl_udp(oldfd)) return pl_udp_dup(oldfd, r);
  struct pfd *p = pl_sov(oldfd);
  if (p && r >= PMAXFD) {
    PL_CALL(close)(r);
    errno = EMFILE;
    return -1;
  }
  if (p) sov_mark(r, p->sfd, p->v6);
  else pl_mark(r, K_KERNEL);
  return r;
}

static int fcntl_any(int fd, int cmd, void *arg) {
  struct pfd *p = pl_sov(fd);
  if ((pl_udp(fd) || p) && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
    return dup_done(fd, PL_CALL(fcntl)(fd, cmd, arg));
  if (!p) return PL_CALL(fcntl)(fd, cmd, arg);
  switch (cmd) {
  case F_GETFL:
  case F_SETFL: return sovia_fcntl(p->sfd, cmd, (int)(intptr_t)arg);
  case F_GETFD:
  case F_SETFD: return PL_CALL(fcntl)(fd, cmd, arg);   /* the descriptor the application holds */
  default: return pl_unsupported("fcntl", "only F_GETFL/F_SETFL/F_GETFD/F_SETFD", EINVAL);
  }
}

/* The third argument is an int or a pointer: taken as a pointer (the registers/slots of
 * the ABIs this runs on carry either). */
int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return fcntl_any(fd, cmd, arg);
}
int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return fcntl_any(fd, cmd, arg);
}

/* FIONBIO (nginx sets non-blocking mode so), FIONREAD, and FIOCLEX/FIONCLEX (libuv sets
 * close-on-exec so: the descriptor the application holds, as F_SETFD); nothing else on SOVIA
 * sockets. */
int ioctl(int fd, unsigned long req, ...) {
  va_list ap;
  va_start(ap, req);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  struct pfd *p = pl_sov(fd);
  if (!p || req == FIOCLEX || req == FIONCLEX) return PL_CALL(ioctl)(fd, req, arg);
  if (req == FIONBIO && arg) {
    int fl = sovia_fcntl(p->sfd, F_GETFL, 0);
    if (fl < 0) return -1;
    return sovia_fcntl(p->sfd, F_SETFL, *(int *)arg ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
  }
  if (req == FIONREAD && arg) {
    int n = sovia_nread(p->sfd);
    if (n < 0) return -1;
    *(int *)arg = n;
    return 0;
  }
  return pl_unsupported("ioctl", "only FIONBIO, FIONREAD, FIOCLEX and FIONCLEX", ENOTTY);
}

/* dup2/dup3 onto a SOVIA or E-UDP descriptor close it first; a duplicate of either names the
 * same socket or endpoint. */
int dup(int oldfd) { return dup_done(oldfd, PL_CALL(dup)(oldfd)); }
int dup2(int oldfd, int newfd) {
  if (oldfd == newfd || sovia_vfork_child()) return PL_CALL(dup2)(oldfd, newfd);
  if (pl_udp(newfd)) pl_udp_close(newfd);
  if (pl_sov(newfd)) sovia_drop(newfd);
  return dup_done(oldfd, PL_CALL(dup2)(oldfd, newfd));
}
int dup3(int oldfd, int newfd, int flags) {
  if (sovia_vfork_child()) return PL_CALL(dup3)(oldfd, newfd, flags);
  if (oldfd != newfd && pl_udp(newfd)) pl_udp_close(newfd);
  if (oldfd != newfd && pl_sov(newfd)) sovia_drop(newfd);
  return dup_done(oldfd, PL_CALL(dup3)(oldfd, newfd, flags));
}

/* The other ways to close: a SOVIA or E-UDP descriptor among them is closed as close() does.
 * Past the table, the connection would stay open and the table would go on naming a number
 * the kernel gives out again (a file opened next would send its writes to the connection).
 * syscall(SYS_close) and syscall(SYS_close_range) come here too (preload_mmsg.c): libuv, so
 * node, closes that way. */
static void close_ours(unsigned first, unsigned last) {
  if (sovia_vfork_child()) return;
  for (unsigned fd = first; fd <= last && fd < PMAXFD; fd++)
    if (pl_sov((int)fd) || pl_udp((int)fd)) close((int)fd);
}

int close_range(unsigned first, unsigned last, int flags) {
  if (!(flags & CLOSE_RANGE_CLOEXEC)) close_ours(first, last);
  return PL_CALL(close_range)(first, last, flags);
}

void closefrom(int lowfd) {
  close_ours(lowfd < 0 ? 0 : (unsigned)lowfd, PMAXFD - 1);
  PL_CALL(closefrom)(lowfd);
}

