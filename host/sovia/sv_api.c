/* sv_api.c: the sovia_ entry points. Each SOVIA socket holds a real descriptor (an unbound
 * unix socket: fstat says socket, as inetd-style programs check of their stdin) so its number
 * is unique in the process; the table G.socks maps it to the socket. Every call takes the
 * library lock; blocking calls progress every connection while they wait (single-threaded
 * progress inside calls). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sv_int.h"

#define FAIL(e) do { errno = (e); ret = -1; goto out; } while (0)

int sovia_is_socket(int fd) {
  sv_lock();
  int r = sv_sock_get(fd) != NULL;
  sv_unlock();
  return r;
}

int sovia_active(void) {
  sv_lock();
  int r = G.ready;
  sv_unlock();
  return r;
}

int sovia_renumber(int from, int to) {
  int ret = 0;
  sv_lock();
  if (from < 0 || from >= SV_MAXFD || to < 0 || to >= SV_MAXFD || !G.socks[from] || G.socks[to])
    FAIL(EBADF);
  G.socks[to] = G.socks[from];
  G.socks[from] = NULL;
out:
  sv_unlock();
  return ret;
}

/* cloexec as asked: an accepted socket the application execs with, on the number accept()
 * gave it (tcpserver's, when its stdin was closed), goes to a relay (the shim). */
static int new_sock(struct sv_sock **out, bool nonblock, bool cloexec) {
  int fd = socket(AF_UNIX, SOCK_STREAM | (cloexec ? SOCK_CLOEXEC : 0), 0);
  if (fd < 0) return -1;
  if (fd >= SV_MAXFD) {
    sv_sys_close(fd);
    errno = EMFILE;
    return -1;
  }
  struct sv_sock *s = calloc(1, sizeof *s);
  if (!s) {
    sv_sys_close(fd);
    errno = ENOMEM;
    return -1;
  }
  s->kind = SV_NEW;
  s->nonblock = nonblock;
  s->cfg = sv_defaults;
  G.socks[fd] = s;
  *out = s;
  return fd;
}

int sovia_socket(int domain, int type, int protocol) {
  int ret;
  sv_lock();
  int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (domain != AF_INET) FAIL(EAFNOSUPPORT);
  if (base != SOCK_STREAM || (protocol && protocol != IPPROTO_TCP)) FAIL(EPROTONOSUPPORT);
  int e = sv_init();
  if (e) FAIL(-e);
  struct sv_sock *s;
  ret = new_sock(&s, type & SOCK_NONBLOCK, type & SOCK_CLOEXEC);
out:
  sv_unlock();
  return ret;
}

int sovia_bind(int fd, const struct sockaddr *addr, socklen_t len) {
  int ret = 0;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  const struct sockaddr_in *a = (const struct sockaddr_in *)addr;
  if (!s) FAIL(EBADF);
  if (!a || len < sizeof *a || a->sin_family != AF_INET) FAIL(EINVAL);
  if (s->kind != SV_NEW || s->bound) FAIL(EINVAL);
  unsigned node;
  if (sv_addr_node(a, &node) || node != G.node) FAIL(EADDRNOTAVAIL);
  if (ntohs(a->sin_port) && sv_listener_alive(G.node, ntohs(a->sin_port))) FAIL(EADDRINUSE);
  s->local = *a;
  s->bound = true;
out:
  sv_unlock();
  return ret;
}

int sovia_listen(int fd, int backlog) {
  int ret = 0;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) FAIL(EBADF);
  if (s->kind == SV_LISTEN) goto out;
  if (s->kind != SV_NEW) FAIL(EINVAL);
  if (!s->bound) {
    s->local.sin_family = AF_INET;
    s->local.sin_port = 0;
  }
  int e = sv_listen_start(s, backlog);
  if (e) FAIL(-e);
  s->kind = SV_LISTEN;
out:
  sv_unlock();
  return ret;
}

static bool backlog_ready(void *arg) {
  struct sv_listener *l = arg;
  return sv_backlog_ready(l) || l->thr_done;
}

int sovia_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
  int ret;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) FAIL(EBADF);
  if (s->kind != SV_LISTEN) FAIL(EINVAL);
  struct sv_listener *l = s->l;
  sv_listen_run(l);
  struct sv_conn *c;
  uint64_t deadline = sv_deadline(s->rcvtimeo_ns);
  while (!(c = sv_backlog_take(l))) {
    bool dead = sv_listen_dead(l);
    if (s->nonblock && !dead) FAIL(EAGAIN);
    if (l->thr_done) {
      l->dead_told |= dead;
      FAIL(sv_nic_gone() ? ENETDOWN : ECONNABORTED);
    }
    int wr = sv_wait_poll(backlog_ready, l, deadline);
    if (wr == -EINTR && !sv_backlog_ready(l)) FAIL(EINTR);
    if (wr == -ETIMEDOUT && !sv_backlog_ready(l)) FAIL(EAGAIN);   /* SO_RCVTIMEO */
  }
  struct sv_sock *ns;
  ret = new_sock(&ns, flags & SOCK_NONBLOCK, flags & SOCK_CLOEXEC);
  if (ret < 0) {             /* back to the front of the backlog, which has room for it */
    l->qh = (l->qh + l->qcap - 1) % l->qcap;
    l->q[l->qh] = c;
    l->qn++;
    goto out;
  }
  ns->kind = SV_CONN;
  ns->connect_told = true;
  ns->c = c;
  ns->cfg = s->cfg;
  ns->local = c->local;
  ns->bound = true;
  if (addr && len) {
    socklen_t n = *len < sizeof c->peer ? *len : (socklen_t)sizeof c->peer;
    memcpy(addr, &c->peer, n);
    *len = sizeof c->peer;
  }
out:
  sv_unlock();
  return ret;
}

int sovia_accept(int fd, struct sockaddr *addr, socklen_t *len) {
  return sovia_accept4(fd, addr, len, 0);
}

int sovia_connect(int fd, const struct sockaddr *addr, socklen_t len) {
  int ret = 0;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  const struct sockaddr_in *a = (const struct sockaddr_in *)addr;
  if (!s) FAIL(EBADF);
  if (s->kind == SV_CONNECTING_SOCK) FAIL(EALREADY);
  if (s->kind == SV_CONN) {
    if (s->connect_told) FAIL(EISCONN);
    s->connect_told = true;   /* a non-blocking connect finished: the first look says so */
    goto out;
  }
  if (s->kind != SV_NEW) FAIL(EINVAL);
  if (!a || len < sizeof *a || a->sin_family != AF_INET) FAIL(EAFNOSUPPORT);
  unsigned node, port = ntohs(a->sin_port);
  if (sv_addr_node(a, &node)) FAIL(ENETUNREACH);
  if (!port || (!sv_node_elsewhere(node) && !sv_listener_alive(node, port))) FAIL(ECONNREFUSED);
  int e = sv_connect_start(s, a, node);
  if (e) FAIL(-e);
out:
  sv_unlock();
  return ret;
}

ssize_t sovia_send(int fd, const void *buf, size_t n, int flags) {
  ssize_t ret;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) FAIL(EBADF);
  if (s->kind == SV_CONNECTING_SOCK) FAIL(EAGAIN);
  if (s->kind != SV_CONN) FAIL(ENOTCONN);
  if (!sv_claim(s->c)) FAIL(EBADF);
  if (sv_relay_due(s->c)) FAIL(EXDEV);   /* another process asked to share it */
  if (!buf && n) FAIL(EFAULT);
  ret = sv_send(s, buf, n, s->nonblock || (flags & MSG_DONTWAIT));
out:
  sv_unlock();
  return ret;
}

ssize_t sovia_recv(int fd, void *buf, size_t n, int flags) {
  ssize_t ret;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) FAIL(EBADF);
  if (s->kind == SV_CONNECTING_SOCK) FAIL(EAGAIN);
  if (s->kind != SV_CONN) FAIL(ENOTCONN);
  if (!sv_claim(s->c)) FAIL(EBADF);
  if (sv_relay_due(s->c)) FAIL(EXDEV);   /* another process asked to share it */
  if (!buf && n) FAIL(EFAULT);
  ret = n ? sv_recv(s, buf, n, flags, s->nonblock) : 0;
out:
  sv_unlock();
  return ret;
}

ssize_t sovia_write(int fd, const void *buf, size_t n) { return sovia_send(fd, buf, n, 0); }
ssize_t sovia_read(int fd, void *buf, size_t n) { return sovia_recv(fd, buf, n, 0); }

int sovia_close(int fd) {
  int ret = 0;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) FAIL(EBADF);
  G.socks[fd] = NULL;
  if (s->kind == SV_LISTEN) sv_listen_stop(s->l);
  else if (s->kind == SV_CONNECTING_SOCK) sv_connect_abandon(s);
  else if (s->kind == SV_CONN && s->c && sv_release(s->c)) sv_conn_forget(s->c);
  else if (s->kind == SV_CONN && s->c) {
    s->c->reset_wanted |= s->linger0;
    sv_conn_close(s->c);
  }
  free(s);
  sv_sys_close(fd);
out:
  sv_unlock();
  return ret;
}

int sovia_shutdown(int fd, int how) {
  int ret = 0;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) FAIL(EBADF);
  if (s->kind != SV_CONN || !s->c) FAIL(ENOTCONN);
  if (!sv_claim(s->c)) FAIL(EBADF);
  if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) FAIL(EINVAL);
  if (how != SHUT_WR) s->c->rd_shut = true;
  if (how != SHUT_RD) {
    s->c->fin_wanted = true;
    sv_comb_flush(s->c);
    sv_progress(s->c);
  }
out:
  sv_unlock();
  return ret;
}

static int name_of(int fd, struct sockaddr *addr, socklen_t *len, bool peer) {
  int ret = 0;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) FAIL(EBADF);
  if (!addr || !len) FAIL(EFAULT);
  if (peer && (s->kind != SV_CONN || !s->c)) FAIL(ENOTCONN);
  struct sockaddr_in a = peer ? s->c->peer : s->local;
  a.sin_family = AF_INET;   /* a listener: the address it was bound to (0.0.0.0 for any) */
  socklen_t n = *len < sizeof a ? *len : (socklen_t)sizeof a;
  memcpy(addr, &a, n);
  *len = sizeof a;
out:
  sv_unlock();
  return ret;
}
int sovia_getsockname(int fd, struct sockaddr *addr, socklen_t *len) {
  return name_of(fd, addr, len, false);
}
int sovia_getpeername(int fd, struct sockaddr *addr, socklen_t *len) {
  return name_of(fd, addr, len, true);
}

int sovia_fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  int arg = va_arg(ap, int);
  va_end(ap);
  int ret = 0;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) FAIL(EBADF);
  switch (cmd) {
  case F_GETFL: ret = O_RDWR | (s->nonblock ? O_NONBLOCK : 0); break;
  case F_SETFL: s->nonblock = (arg & O_NONBLOCK) != 0; break;
  case F_GETFD: case F_SETFD: ret = fcntl(fd, cmd, arg); break;
  default: FAIL(EINVAL);
  }
out:
  sv_unlock();
  return ret;
}

int sovia_nread(int fd) {
  int ret;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) FAIL(EBADF);
  if (s->kind == SV_LISTEN) FAIL(EINVAL);
  if (s->kind != SV_CONN || !s->c || !sv_claim(s->c)) {
    ret = 0;
    goto out;
  }
  sv_progress(s->c);
  size_t pending = sv_rx_pending(s->c);
  ret = pending > 0x7fffffff ? 0x7fffffff : (int)pending;
out:
  sv_unlock();
  return ret;
}
