/* preload_mmsg.c: sendmmsg/recvmmsg on the shim's sockets, as loops of its sendmsg/recvmsg
 * (preload_io.c), for libc's functions and for syscall(SYS_sendmmsg/SYS_recvmmsg, ...), which
 * libuv (so dig, through BIND's network manager) calls instead. recvmmsg's MSG_WAITFORONE
 * makes every receive after the first non-blocking; its timeout is honoured only between
 * messages (each receive blocks as the socket says). syscall(SYS_close) and
 * syscall(SYS_close_range), libuv's way to close, go to the shim's close and close_range
 * (preload.c). Every other descriptor and system call goes to libc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload.h"
#include "preload_udp.h"

PL_REAL(int, sendmmsg, int, struct mmsghdr *, unsigned int, int)
PL_REAL(int, recvmmsg, int, struct mmsghdr *, unsigned int, int, struct timespec *)

static long (*real_syscall)(long, ...);

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

long syscall(long nr, ...) {
  va_list ap;
  va_start(ap, nr);
  long a[6];
  for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  if (nr == SYS_close) return close((int)a[0]);
  if (nr == SYS_close_range) return close_range((unsigned)a[0], (unsigned)a[1], (int)a[2]);
  if ((nr == SYS_sendmmsg || nr == SYS_recvmmsg) && ours((int)a[0])) {
    if (nr == SYS_sendmmsg)
      return send_all((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2], (int)a[3]);
    return recv_all((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2], (int)a[3],
                    (struct timespec *)a[4]);
  }
  if (!real_syscall) *(void **)&real_syscall = dlsym(RTLD_NEXT, "syscall");
  return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
