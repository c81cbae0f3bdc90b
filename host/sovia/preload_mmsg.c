/* preload_mmsg.c: sendmmsg/recvmmsg on the shim's sockets, as loops of its sendmsg/recvmsg
 * (preload_io.c), for libc's functions and for syscall(SYS_sendmmsg/SYS_recvmmsg, ...)
 * (preload_syscall.c), which libuv (so dig, through BIND's network manager) calls instead.
 * recvmmsg's MSG_WAITFORONE makes every receive after the first non-blocking; its timeout is
 * honoured only between messages (each receive blocks as the socket says). Every other
 * descriptor goes to libc. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "preload.h"
#include "preload_udp.h"

PL_REAL(int, sendmmsg, int, struct mmsghdr *, unsigned int, int)
PL_REAL(int, recvmmsg, int, struct mmsghdr *, unsigned int, int, struct timespec *)

static bool ours(int fd) { return pl_udp(fd) || pl_udp_cand(fd) || pl_sov(fd); }

static int send_all(int fd, struct mmsghdr *v, unsigned n, int flags) {
  unsigned i = 0;
  for (; i < n; i++) {
    ssize_t r = sendmsg(fd, &v[i].msg_hdr, flags);
    if (r < 0) return i ? (int)i : -1;
    v[i].msg_len = (unsigned)r;
  }
  return (int)i;
}

static bool past(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->tv_sec ||
         (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

static int recv_all(int fd, struct mmsghdr *v, unsigned n, int flags, struct timespec *t) {
  struct timespec deadline = {0};
  if (t) {
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += t->tv_sec + (deadline.tv_nsec + t->tv_nsec) / 1000000000;
    deadline.tv_nsec = (deadline.tv_nsec + t->tv_nsec) % 1000000000;
  }
  int each = flags & ~MSG_WAITFORONE;
  unsigned i = 0;
  for (; i < n; i++) {
    ssize_t r = recvmsg(fd, &v[i].msg_hdr, each);
    if (r < 0) return i ? (int)i : -1;
    v[i].msg_len = (unsigned)r;
    if (flags & MSG_WAITFORONE) each |= MSG_DONTWAIT;
    if (t && past(&deadline)) return (int)i + 1;
  }
  return (int)i;
}

int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags) {
  if (!ours(fd)) return PL_CALL(sendmmsg)(fd, v, n, flags);
  return send_all(fd, v, n, flags);
}

int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags, struct timespec *t) {
  if (!ours(fd)) return PL_CALL(recvmmsg)(fd, v, n, flags, t);
  return recv_all(fd, v, n, flags, t);
}
