/* preload_io.c: the shim's data calls on SOVIA sockets: read/write, recv/send (and the
 * _chk variants), recvfrom/sendto (an address on the connected socket is ignored, as Linux
 * does for TCP), readv/writev and recvmsg/sendmsg (iovecs gathered and scattered; ancillary
 * data refused with EOPNOTSUPP), sendfile to a SOVIA socket (copied through the library).
 * MSG_OOB is refused. Every other descriptor goes to libc. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload.h"
#include "preload_udp.h"
#include "sovia.h"

PL_REAL(ssize_t, read, int, void *, size_t)
PL_REAL(ssize_t, write, int, const void *, size_t)
PL_REAL(ssize_t, recv, int, void *, size_t, int)
PL_REAL(ssize_t, send, int, const void *, size_t, int)
PL_REAL(ssize_t, recvfrom, int, void *, size_t, int, struct sockaddr *, socklen_t *)
PL_REAL(ssize_t, sendto, int, const void *, size_t, int, const struct sockaddr *, socklen_t)
PL_REAL(ssize_t, readv, int, const struct iovec *, int)
PL_REAL(ssize_t, writev, int, const struct iovec *, int)
PL_REAL(ssize_t, recvmsg, int, struct msghdr *, int)
PL_REAL(ssize_t, sendmsg, int, const struct msghdr *, int)
PL_REAL(ssize_t, sendfile, int, int, off_t *, size_t)
PL_REAL(ssize_t, sendfile64, int, int, off_t *, size_t)

#define SV_FLAGS_OK (MSG_DONTWAIT | MSG_NOSIGNAL | MSG_PEEK | MSG_WAITALL | MSG_MORE)

/* E-UDP sockets (preload_udp.c): one datagram per call. A UDP candidate's send may turn it
 * into one (*done false: it stays the kernel's). */
static ssize_t udp_send(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to,
                        socklen_t tl, bool *done) {
  struct iovec v = {.iov_base = (void *)buf, .iov_len = n};
  struct msghdr m = {.msg_name = (void *)to, .msg_namelen = to ? tl : 0, .msg_iov = &v, .msg_iovlen = 1};
  return pl_udp_sendmsg(fd, &m, flags, done);
}
static ssize_t udp_recv(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
                        socklen_t *fl) {
  struct iovec v = {.iov_base = buf, .iov_len = n};
  struct msghdr m = {.msg_name = from && fl ? from : NULL, .msg_namelen = from && fl ? *fl : 0,
                     .msg_iov = &v, .msg_iovlen = 1};
  ssize_t r = pl_udp_recvmsg(fd, &m, flags);
  if (r >= 0 && from && fl) *fl = m.msg_namelen;
  return r;
}

static ssize_t sv_send(struct pfd *p, const void *buf, size_t n, int flags) {
  if (flags & MSG_OOB) return pl_unsupported("send(MSG_OOB)", "no urgent data", EOPNOTSUPP);
  int fd = (int)(p - pl_tab);
  ssize_t r = sovia_send(p->sfd, buf, n, flags & SV_FLAGS_OK);
  if (r < 0 && ((errno == EBADF && pl_relay_adopt(fd)) || (errno == EXDEV && pl_relay_now(fd))))
    return PL_CALL(send)(fd, buf, n, flags);   /* shared with another process: a relay's now */
  return r;
}
static ssize_t sv_recv(struct pfd *p, void *buf, size_t n, int flags) {
  if (flags & MSG_OOB) return pl_unsupported("recv(MSG_OOB)", "no urgent data", EOPNOTSUPP);
  int fd = (int)(p - pl_tab);
  ssize_t r = sovia_recv(p->sfd, buf, n, flags & SV_FLAGS_OK);
  if (r < 0 && ((errno == EBADF && pl_relay_adopt(fd)) || (errno == EXDEV && pl_relay_now(fd))))
    return PL_CALL(recv)(fd, buf, n, flags);
  return r;
}

ssize_t read(int fd, void *buf, size_t n) {
  if (pl_udp(fd)) return udp_recv(fd, buf, n, 0, NULL, NULL);
  struct pfd *p = pl_sov(fd);
  return p ? sv_recv(p, buf, n, 0) : PL_CALL(read)(fd, buf, n);
}
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen) {
  (void)buflen;
  return read(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n) {
  bool done = false;
  ssize_t u = pl_udp(fd) ? udp_send(fd, buf, n, 0, NULL, 0, &done) : 0;
  if (done) return u;
  struct pfd *p = pl_sov(fd);
  return p ? sv_send(p, buf, n, 0) : PL_CALL(write)(fd, buf, n);
}

ssize_t recv(int fd, void *buf, size_t n, int flags) {
  if (pl_udp(fd)) return udp_recv(fd, buf, n, flags, NULL, NULL);
  struct pfd *p = pl_sov(fd);
  return p ? sv_recv(p, buf, n, flags) : PL_CALL(recv)(fd, buf, n, flags);
}
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags) {
  (void)buflen;
  return recv(fd, buf, n, flags);
}

ssize_t send(int fd, const void *buf, size_t n, int flags) {
  bool done = false;
  ssize_t u = pl_udp(fd) ? udp_send(fd, buf, n, flags, NULL, 0, &done) : 0;
  if (done) return u;
  struct pfd *p = pl_sov(fd);
  return p ? sv_send(p, buf, n, flags) : PL_CALL(send)(fd, buf, n, flags);
}

/* The peer's name for recvfrom/recvmsg (a connected stream: as the kernel gives it). */
static void peer_of(struct pfd *p, struct sockaddr *addr, socklen_t *len) {
  if (!addr || !len) return;
  int e = errno;
  struct sockaddr_in a;
  socklen_t n = sizeof a;
  if (sovia_getpeername(p->sfd, (struct sockaddr *)&a, &n)) *len = 0;
  else pl_name_out(p, (struct sockaddr *)&a, addr, len);
  errno = e;
}

ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *addr, socklen_t *len) {
  if (pl_udp(fd)) return udp_recv(fd, buf, n, flags, addr, len);
  struct pfd *p = pl_sov(fd);
  if (!p) return PL_CALL(recvfrom)(fd, buf, n, flags, addr, len);
  ssize_t r = sv_recv(p, buf, n, flags);
  if (r >= 0) peer_of(p, addr, len);
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
  bool done = false;
  ssize_t u = pl_udp(fd) || pl_udp_cand(fd) ? udp_send(fd, buf, n, flags, addr, len, &done) : 0;
  if (done) return u;
  struct pfd *p = pl_sov(fd);
  if (!p) return PL_CALL(sendto)(fd, buf, n, flags, addr, len);
  return sv_send(p, buf, n, flags);   /* connected: the address is ignored, as Linux does */
}

static size_t iov_total(const struct iovec *iov, size_t cnt) {
  size_t t = 0;
  for (size_t i = 0; i < cnt; i++) t += iov[i].iov_len;
  return t;
}

/* Gathers the iovecs and sends them as one request (one piece, in order). */
static ssize_t send_iov(struct pfd *p, const struct iovec *iov, size_t cnt, int flags) {
  if (cnt == 1) return sv_send(p, iov[0].iov_base, iov[0].iov_len, flags);
  uint8_t stack[16384];
  size_t t = iov_total(iov, cnt), off = 0;
  uint8_t *b = t <= sizeof stack ? stack : malloc(t);
  if (!b) {
    errno = ENOMEM;
    return -1;
  }
  for (size_t i = 0; i < cnt; i++) {
    if (iov[i].iov_len) memcpy(b + off, iov[i].iov_base, iov[i].iov_len);
    off += iov[i].iov_len;
  }
  ssize_t r = sv_send(p, b, t, flags);
  if (b != stack) free(b);
  return r;
}

static ssize_t recv_iov(struct pfd *p, const struct iovec *iov, size_t cnt, int flags) {
  if (cnt == 1) return sv_recv(p, iov[0].iov_base, iov[0].iov_len, flags);
  uint8_t stack[16384];
  size_t t = iov_total(iov, cnt);
  uint8_t *b = t <= sizeof stack ? stack : malloc(t);
  if (!b) {
    errno = ENOMEM;
    return -1;
  }
  ssize_t r = sv_recv(p, b, t, flags);
  size_t off = 0;
  for (size_t i = 0; r > 0 && i < cnt && off < (size_t)r; i++) {
    size_t k = iov[i].iov_len < (size_t)r - off ? iov[i].iov_len : (size_t)r - off;
    memcpy(iov[i].iov_base, b + off, k);
    off += k;
  }
  if (b != stack) free(b);
  return r;
}

ssize_t readv(int fd, const struct iovec *iov, int cnt) {
  if (pl_udp(fd)) {
    if (cnt < 0) return errno = EINVAL, -1;
    struct msghdr m = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)cnt};
    return pl_udp_recvmsg(fd, &m, 0);
  }
  struct pfd *p = pl_sov(fd);
  if (!p) return PL_CALL(readv)(fd, iov, cnt);
  if (cnt < 0) return errno = EINVAL, -1;
  return recv_iov(p, iov, (size_t)cnt, 0);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  if (pl_udp(fd)) {
    if (cnt < 0) return errno = EINVAL, -1;
    bool done;
    struct msghdr m = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)cnt};
    return pl_udp_sendmsg(fd, &m, 0, &done);
  }
  struct pfd *p = pl_sov(fd);
  if (!p) return PL_CALL(writev)(fd, iov, cnt);
  if (cnt < 0) return errno = EINVAL, -1;
  return send_iov(p, iov, (size_t)cnt, 0);
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags) {
  bool done = false;
  ssize_t u = pl_udp(fd) || pl_udp_cand(fd) ? pl_udp_sendmsg(fd, m, flags, &done) : 0;
  if (done) return u;
  struct pfd *p = pl_sov(fd);
  if (!p && m && m->msg_controllen) pl_relay_rights(m);   /* SOVIA sockets passed: relayed */
  if (!p) return PL_CALL(sendmsg)(fd, m, flags);
  if (!m) return errno = EFAULT, -1;
  if (m->msg_controllen)
    return pl_unsupported("sendmsg", "ancillary data (SCM_RIGHTS, ...) does not cross SOVIA", EOPNOTSUPP);
  return send_iov(p, m->msg_iov, m->msg_iovlen, flags);   /* msg_name: connected, ignored */
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags) {
  if (pl_udp(fd)) return pl_udp_recvmsg(fd, m, flags);
  struct pfd *p = pl_sov(fd);
  if (!p) return PL_CALL(recvmsg)(fd, m, flags);
  if (!m) return errno = EFAULT, -1;
  ssize_t r = recv_iov(p, m->msg_iov, m->msg_iovlen, flags);
  if (r >= 0) {
    if (m->msg_name) peer_of(p, m->msg_name, &m->msg_namelen);
    m->msg_controllen = 0;   /* no ancillary data ever arrives */
    m->msg_flags = 0;
  }
  return r;
}

/* sendfile to a SOVIA socket: read from the file and send, in 64 KB pieces. Bytes read but
 * not taken (a non-blocking socket filled up) are given back to the file offset. The piece is
 * on the heap: thread-local storage of the preloaded shim is reserved in every thread's stack,
 * and 64 KB of it made programs' small-stack threads fail (node's, EINVAL). */
#define SENDFILE_PIECE 65536
static ssize_t sendfile_pieces(struct pfd *p, int in, off_t *off, size_t count, uint8_t *buf) {
  size_t done = 0;
  while (done < count) {
    size_t want = count - done < SENDFILE_PIECE ? count - done : SENDFILE_PIECE;
    ssize_t got = off ? pread(in, buf, want, *off) : PL_CALL(read)(in, buf, want);
    if (got < 0) return done ? (ssize_t)done : -1;
    if (got == 0) break;
    ssize_t sent = sv_send(p, buf, (size_t)got, 0);
    if (sent < 0) {
      if (!off) lseek(in, -(off_t)got, SEEK_CUR);
      return done ? (ssize_t)done : -1;
    }
    if (off) *off += sent;
    else if (sent < got) lseek(in, -(off_t)(got - sent), SEEK_CUR);
    done += (size_t)sent;
    if (sent < got) break;
  }
  return (ssize_t)done;
}

static ssize_t sendfile_sovia(struct pfd *p, int in, off_t *off, size_t count) {
  uint8_t *buf = malloc(SENDFILE_PIECE);
  if (!buf) return errno = ENOMEM, -1;
  ssize_t r = sendfile_pieces(p, in, off, count, buf);
  int e = errno;
  free(buf);
  errno = e;
  return r;
}

ssize_t sendfile(int out, int in, off_t *off, size_t count) {
  struct pfd *p = pl_sov(out);
  if (pl_sov(in)) return pl_unsupported("sendfile", "the input must be a file", EINVAL);
  return p ? sendfile_sovia(p, in, off, count) : PL_CALL(sendfile)(out, in, off, count);
}
ssize_t sendfile64(int out, int in, off_t *off, size_t count) {
  struct pfd *p = pl_sov(out);
  if (pl_sov(in)) return pl_unsupported("sendfile", "the input must be a file", EINVAL);
  return p ? sendfile_sovia(p, in, off, count) : PL_CALL(sendfile64)(out, in, off, count);
}
