/* preload.c: LD_PRELOAD shim (build/lib/libsovia_preload.so) running unmodified socket
 * programs over SOVIA. socket(AF_INET, SOCK_STREAM) makes a kernel socket as usual and marks
 * it a candidate; at bind (port in $SOVIA_PRELOAD_PORTS, or a fabric address) or connect (an
 * address in the Verinic hosts file, or a port in $SOVIA_PRELOAD_PORTS on a loopback/any
 * address) it turns into a SOVIA socket: the kernel descriptor stays open as the number the
 * application holds (unique, close() works) and maps to the SOVIA socket's own descriptor.
 * Every other socket and descriptor goes to the kernel (dlsym RTLD_NEXT). Accepted SOVIA
 * connections are handed out under SOVIA's own descriptor (a real eventfd). Intercepted:
 * socket, bind, listen, accept/accept4, connect, read/write, recv/send, recvfrom/sendto (NULL
 * address), readv/writev, close, shutdown, set/getsockopt, getsockname/getpeername, fcntl,
 * poll, select, dup2/dup3 onto a SOVIA descriptor. Not thread-safe in the table updates
 * (one thread creating/closing sockets at a time). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sovia.h"

#define PMAXFD 4096
#define NOPT   8

enum { K_KERNEL = 0, K_CAND, K_SOVIA };

struct pfd {
  unsigned char kind;
  unsigned char nopt;
  int sfd;                                    /* SOVIA descriptor (K_SOVIA) */
  struct { int level, name, val; } opt[NOPT]; /* options set while a candidate, replayed */
};
static struct pfd tab[PMAXFD];

/* The next definition of each call (libc). */
#define REAL(ret, name, ...)                                                              \
  static ret (*real_##name)(__VA_ARGS__);                                                 \
  static void load_##name(void) {                                                         \
    if (!real_##name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name);                   \
  }
REAL(int, socket, int, int, int)
REAL(int, bind, int, const struct sockaddr *, socklen_t)
REAL(int, listen, int, int)
REAL(int, accept, int, struct sockaddr *, socklen_t *)
REAL(int, accept4, int, struct sockaddr *, socklen_t *, int)
REAL(int, connect, int, const struct sockaddr *, socklen_t)
REAL(ssize_t, read, int, void *, size_t)
REAL(ssize_t, write, int, const void *, size_t)
REAL(ssize_t, recv, int, void *, size_t, int)
REAL(ssize_t, send, int, const void *, size_t, int)
REAL(ssize_t, recvfrom, int, void *, size_t, int, struct sockaddr *, socklen_t *)
REAL(ssize_t, sendto, int, const void *, size_t, int, const struct sockaddr *, socklen_t)
REAL(ssize_t, readv, int, const struct iovec *, int)
REAL(ssize_t, writev, int, const struct iovec *, int)
REAL(int, close, int)
REAL(int, shutdown, int, int)
REAL(int, setsockopt, int, int, int, const void *, socklen_t)
REAL(int, getsockopt, int, int, int, void *, socklen_t *)
REAL(int, getsockname, int, struct sockaddr *, socklen_t *)
REAL(int, getpeername, int, struct sockaddr *, socklen_t *)
REAL(int, fcntl, int, int, ...)
REAL(int, poll, struct pollfd *, nfds_t, int)
REAL(int, select, int, fd_set *, fd_set *, fd_set *, struct timeval *)
REAL(int, dup2, int, int)
REAL(int, dup3, int, int, int)
#define CALL(name) (load_##name(), real_##name)

static struct pfd *sov(int fd) {
  return fd >= 0 && fd < PMAXFD && tab[fd].kind == K_SOVIA ? &tab[fd] : NULL;
}
static void mark(int fd, int kind) {
  if (fd >= 0 && fd < PMAXFD) {
    memset(&tab[fd], 0, sizeof tab[fd]);
    tab[fd].kind = (unsigned char)kind;
  }
}

/* ---- configuration: $SOVIA_PRELOAD_PORTS and the hosts file ---- */

static bool cfg_loaded;
static uint8_t port_bits[65536 / 8];
static uint32_t hosts_ip[256];                /* network order */
static unsigned nhosts;

static void cfg_load(void) {
  if (cfg_loaded) return;
  cfg_loaded = true;
  const char *p = getenv("SOVIA_PRELOAD_PORTS");
  while (p && *p) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p) { p++; continue; }
    if (v > 0 && v < 65536) port_bits[v / 8] |= (uint8_t)(1u << (v % 8));
    p = end;
  }
  char path[512];
  const char *h = getenv("VERINIC_HOSTS"), *run = getenv("VERINIC_RUN");
  if (h && *h) snprintf(path, sizeof path, "%s", h);
  else if (run && *run) snprintf(path, sizeof path, "%s/hosts", run);
  else snprintf(path, sizeof path, "/tmp/verinic-%u/hosts", (unsigned)getuid());
  FILE *f = fopen(path, "re");
  if (!f) return;
  char line[512], name[256];
  unsigned node;
  while (fgets(line, sizeof line, f) && nhosts < 256) {
    struct in_addr ia;
    if (line[0] != '#' && sscanf(line, "%255s %u", name, &node) == 2 &&
        inet_pton(AF_INET, name, &ia) == 1)
      hosts_ip[nhosts++] = ia.s_addr;
  }
  fclose(f);
}

static bool port_on(unsigned port) {
  cfg_load();
  return port && (port_bits[port / 8] >> (port % 8)) & 1u;
}
static bool ip_local(uint32_t ip_be) {
  uint32_t ip = ntohl(ip_be);
  return ip == 0 || (ip >> 24) == 127;
}
static bool ip_on(uint32_t ip_be) {
  cfg_load();
  for (unsigned i = 0; i < nhosts; i++)
    if (hosts_ip[i] == ip_be) return true;
  return false;
}
static const struct sockaddr_in *as_in(const struct sockaddr *a, socklen_t len) {
  return a && len >= sizeof(struct sockaddr_in) && a->sa_family == AF_INET
             ? (const struct sockaddr_in *)a : NULL;
}

/* Candidate fd becomes a SOVIA socket: 0, or -1 and errno. */
static int to_sovia(int fd) {
  int fl = CALL(fcntl)(fd, F_GETFL);
  int s = sovia_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC |
                       (fl >= 0 && (fl & O_NONBLOCK) ? SOCK_NONBLOCK : 0), 0);
  if (s < 0) return -1;
  for (unsigned i = 0; i < tab[fd].nopt; i++)   /* best effort: most are no-ops in SOVIA */
    sovia_setsockopt(s, tab[fd].opt[i].level, tab[fd].opt[i].name, &tab[fd].opt[i].val,
                     sizeof(int));
  tab[fd].kind = K_SOVIA;
  tab[fd].sfd = s;
  return 0;
}

/* ---- the calls ---- */

int socket(int domain, int type, int protocol) {
  int fd = CALL(socket)(domain, type, protocol);
  bool cand = domain == AF_INET && (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_STREAM &&
              (protocol == 0 || protocol == IPPROTO_TCP);
  if (fd >= 0) mark(fd, cand ? K_CAND : K_KERNEL);
  return fd;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
  const struct sockaddr_in *a = as_in(addr, len);
  if (fd >= 0 && fd < PMAXFD && tab[fd].kind == K_CAND && a &&
      (port_on(ntohs(a->sin_port)) || (!ip_local(a->sin_addr.s_addr) && ip_on(a->sin_addr.s_addr))))
    if (to_sovia(fd)) return -1;
  struct pfd *p = sov(fd);
  return p ? sovia_bind(p->sfd, addr, len) : CALL(bind)(fd, addr, len);
}

int listen(int fd, int backlog) {
  struct pfd *p = sov(fd);
  return p ? sovia_listen(p->sfd, backlog) : CALL(listen)(fd, backlog);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
  struct pfd *p = sov(fd);
  if (!p) {
    int r = CALL(accept4)(fd, addr, len, flags);
    if (r >= 0) mark(r, K_KERNEL);
    return r;
  }
  int r = sovia_accept4(p->sfd, addr, len, flags);
  if (r >= 0) {
    if (r >= PMAXFD) {   /* cannot happen (SOVIA's table is as large), but never leak */
      sovia_close(r);
      errno = EMFILE;
      return -1;
    }
    mark(r, K_SOVIA);
    tab[r].sfd = r;      /* handed out under SOVIA's own descriptor */
  }
  return r;
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
  return sov(fd) ? accept4(fd, addr, len, 0) : CALL(accept)(fd, addr, len);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len) {
  const struct sockaddr_in *a = as_in(addr, len);
  if (fd >= 0 && fd < PMAXFD && tab[fd].kind == K_CAND && a) {
    bool loc = ip_local(a->sin_addr.s_addr);
    if ((!loc && ip_on(a->sin_addr.s_addr)) || (loc && port_on(ntohs(a->sin_port))))
      if (to_sovia(fd)) return -1;
  }
  struct pfd *p = sov(fd);
  return p ? sovia_connect(p->sfd, addr, len) : CALL(connect)(fd, addr, len);
}

ssize_t read(int fd, void *buf, size_t n) {
  struct pfd *p = sov(fd);
  return p ? sovia_recv(p->sfd, buf, n, 0) : CALL(read)(fd, buf, n);
}
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen) {
  (void)buflen;
  return read(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n) {
  struct pfd *p = sov(fd);
  return p ? sovia_send(p->sfd, buf, n, 0) : CALL(write)(fd, buf, n);
}

ssize_t recv(int fd, void *buf, size_t n, int flags) {
  struct pfd *p = sov(fd);
  return p ? sovia_recv(p->sfd, buf, n, flags) : CALL(recv)(fd, buf, n, flags);
}
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags) {
  (void)buflen;
  return recv(fd, buf, n, flags);
}

ssize_t send(int fd, const void *buf, size_t n, int flags) {
  struct pfd *p = sov(fd);
  return p ? sovia_send(p->sfd, buf, n, flags) : CALL(send)(fd, buf, n, flags);
}

ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *addr, socklen_t *len) {
  struct pfd *p = sov(fd);
  if (!p) return CALL(recvfrom)(fd, buf, n, flags, addr, len);
  ssize_t r = sovia_recv(p->sfd, buf, n, flags);
  if (r >= 0 && addr && len) {   /* a connected stream: the peer, as the kernel gives it */
    int e = errno;
    if (sovia_getpeername(p->sfd, addr, len)) *len = 0;
    errno = e;
  }
  return r;
}
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
                       struct sockaddr *addr, socklen_t *len);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
                       struct sockaddr *addr, socklen_t *len) {
  (void)buflen;
  return recvfrom(fd, buf, n, flags, addr, len);
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *addr,
               socklen_t len) {
  struct pfd *p = sov(fd);
  if (!p) return CALL(sendto)(fd, buf, n, flags, addr, len);
  if (addr) {
    errno = EISCONN;
    return -1;
  }
  return sovia_send(p->sfd, buf, n, flags);
}

static size_t iov_total(const struct iovec *iov, int cnt) {
  size_t t = 0;
  for (int i = 0; i < cnt; i++) t += iov[i].iov_len;
  return t;
}

ssize_t readv(int fd, const struct iovec *iov, int cnt) {
  struct pfd *p = sov(fd);
  if (!p) return CALL(readv)(fd, iov, cnt);
  size_t t = iov_total(iov, cnt);
  uint8_t *b = malloc(t ? t : 1);
  if (!b) {
    errno = ENOMEM;
    return -1;
  }
  ssize_t r = sovia_recv(p->sfd, b, t, 0);
  size_t off = 0;
  for (int i = 0; r > 0 && i < cnt && off < (size_t)r; i++) {
    size_t k = iov[i].iov_len < (size_t)r - off ? iov[i].iov_len : (size_t)r - off;
    memcpy(iov[i].iov_base, b + off, k);
    off += k;
  }
  free(b);
  return r;
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  struct pfd *p = sov(fd);
  if (!p) return CALL(writev)(fd, iov, cnt);
  size_t t = iov_total(iov, cnt), off = 0;
  uint8_t *b = malloc(t ? t : 1);
  if (!b) {
    errno = ENOMEM;
    return -1;
  }
  for (int i = 0; i < cnt; i++) {
    memcpy(b + off, iov[i].iov_base, iov[i].iov_len);
    off += iov[i].iov_len;
  }
  ssize_t r = sovia_send(p->sfd, b, t, 0);
  free(b);
  return r;
}

/* Closes the SOVIA side of fd (the table entry first: SOVIA's own close() of its descriptor
 * comes back through this shim and must reach the kernel). */
static int sovia_drop(int fd) {
  int s = tab[fd].sfd;
  mark(fd, K_KERNEL);
  int r = sovia_close(s);
  int e = errno;
  if (s != fd) CALL(close)(fd);
  errno = e;
  return r;
}

int close(int fd) {
  if (sov(fd)) return sovia_drop(fd);
  mark(fd, K_KERNEL);
  return CALL(close)(fd);
}

int shutdown(int fd, int how) {
  struct pfd *p = sov(fd);
  return p ? sovia_shutdown(p->sfd, how) : CALL(shutdown)(fd, how);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len) {
  struct pfd *p = sov(fd);
  if (p) return sovia_setsockopt(p->sfd, level, name, val, len);
  if (level == SOL_SOVIA && fd >= 0 && fd < PMAXFD && tab[fd].kind == K_CAND) {
    /* SOVIA's own options on a candidate: kept for the switch, never sent to the kernel */
    if (!val || len < sizeof(int) || tab[fd].nopt >= NOPT) {
      errno = EINVAL;
      return -1;
    }
  } else {
    int r = CALL(setsockopt)(fd, level, name, val, len);
    if (r || fd < 0 || fd >= PMAXFD || tab[fd].kind != K_CAND) return r;
    if (!val || len != sizeof(int) || tab[fd].nopt >= NOPT) return r;
  }
  struct pfd *c = &tab[fd];
  c->opt[c->nopt].level = level;
  c->opt[c->nopt].name = name;
  memcpy(&c->opt[c->nopt].val, val, sizeof(int));
  c->nopt++;
  return 0;
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len) {
  struct pfd *p = sov(fd);
  return p ? sovia_getsockopt(p->sfd, level, name, val, len)
           : CALL(getsockopt)(fd, level, name, val, len);
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len) {
  struct pfd *p = sov(fd);
  return p ? sovia_getsockname(p->sfd, addr, len) : CALL(getsockname)(fd, addr, len);
}

int getpeername(int fd, struct sockaddr *addr, socklen_t *len) {
  struct pfd *p = sov(fd);
  return p ? sovia_getpeername(p->sfd, addr, len) : CALL(getpeername)(fd, addr, len);
}

static int fcntl_any(int fd, int cmd, void *arg) {
  struct pfd *p = sov(fd);
  if (!p) return CALL(fcntl)(fd, cmd, arg);
  switch (cmd) {
  case F_GETFL:
  case F_SETFL: return sovia_fcntl(p->sfd, cmd, (int)(intptr_t)arg);
  case F_GETFD:
  case F_SETFD: return CALL(fcntl)(fd, cmd, arg);   /* the descriptor the application holds */
  default:
    errno = EINVAL;   /* F_DUPFD and the rest: not for SOVIA sockets */
    return -1;
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

int poll(struct pollfd *fds, nfds_t n, int timeout_ms) {
  bool any = false;
  for (nfds_t i = 0; i < n && !any; i++) any = sov(fds[i].fd) != NULL;
  if (!any) return CALL(poll)(fds, n, timeout_ms);
  struct pollfd *t = malloc(n * sizeof *t);
  if (!t) {
    errno = ENOMEM;
    return -1;
  }
  for (nfds_t i = 0; i < n; i++) {
    t[i] = fds[i];
    struct pfd *p = sov(fds[i].fd);
    if (p) t[i].fd = p->sfd;
  }
  int r = sovia_poll(t, n, timeout_ms);
  for (nfds_t i = 0; i < n; i++) fds[i].revents = r >= 0 ? t[i].revents : 0;
  free(t);
  return r;
}
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout_ms, size_t fdslen);
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout_ms, size_t fdslen) {
  (void)fdslen;
  return poll(fds, n, timeout_ms);
}

/* select over SOVIA sockets: turned into poll. */
int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv) {
  bool any = false;
  for (int fd = 0; fd < nfds && fd < PMAXFD && !any; fd++)
    any = sov(fd) && ((rd && FD_ISSET(fd, rd)) || (wr && FD_ISSET(fd, wr)) ||
                      (ex && FD_ISSET(fd, ex)));
  if (!any) return CALL(select)(nfds, rd, wr, ex, tv);
  struct pollfd *pf = calloc((size_t)nfds, sizeof *pf);
  if (!pf) {
    errno = ENOMEM;
    return -1;
  }
  nfds_t n = 0;
  for (int fd = 0; fd < nfds; fd++) {
    short ev = (short)((rd && FD_ISSET(fd, rd) ? POLLIN : 0) |
                       (wr && FD_ISSET(fd, wr) ? POLLOUT : 0) | (ex && FD_ISSET(fd, ex) ? POLLPRI : 0));
    if (ev) pf[n++] = (struct pollfd){.fd = fd, .events = ev};
  }
  int ms = tv ? (int)(tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000) : -1;
  int r = poll(pf, n, ms);
  if (r >= 0) {
    if (rd) FD_ZERO(rd);
    if (wr) FD_ZERO(wr);
    if (ex) FD_ZERO(ex);
    r = 0;
    for (nfds_t i = 0; i < n; i++) {
      short re = pf[i].revents;
      int hit = 0;
      if (rd && (pf[i].events & POLLIN) && (re & (POLLIN | POLLHUP | POLLERR))) FD_SET(pf[i].fd, rd), hit = 1;
      if (wr && (pf[i].events & POLLOUT) && (re & (POLLOUT | POLLERR))) FD_SET(pf[i].fd, wr), hit = 1;
      if (ex && (pf[i].events & POLLPRI) && (re & POLLPRI)) FD_SET(pf[i].fd, ex), hit = 1;
      r += hit;
    }
    if (tv) tv->tv_sec = 0, tv->tv_usec = 0;
  }
  free(pf);
  return r;
}

/* dup2/dup3 onto a SOVIA descriptor close it first; duplicating a SOVIA socket is refused. */
int dup2(int oldfd, int newfd) {
  if (sov(oldfd) && oldfd != newfd) {
    errno = EOPNOTSUPP;
    return -1;
  }
  if (oldfd != newfd && sov(newfd)) sovia_drop(newfd);
  int r = CALL(dup2)(oldfd, newfd);
  if (r >= 0 && oldfd != newfd) mark(r, K_KERNEL);
  return r;
}
int dup3(int oldfd, int newfd, int flags) {
  if (sov(oldfd)) {
    errno = EOPNOTSUPP;
    return -1;
  }
  if (oldfd != newfd && sov(newfd)) sovia_drop(newfd);
  int r = CALL(dup3)(oldfd, newfd, flags);
  if (r >= 0) mark(r, K_KERNEL);
  return r;
}
