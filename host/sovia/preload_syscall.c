/* preload_syscall.c: syscall(2) for the calls programs make through it rather than through
 * libc's functions: close and close_range (libuv, so node, closes that way), sendmmsg and
 * recvmmsg (libuv again, so dig), which go to the shim's own; and a fork made with a bare
 * clone (no CLONE_VM, no new stack: vsftpd's), which runs no fork handlers, so SOVIA's state
 * would be copied half-made and taken for a vfork child's. A plain one is fork(); one into new
 * namespaces, while SOVIA is in use, is refused with EINVAL, which such a program takes for
 * a kernel without them (vsftpd forks instead). Every other call goes to libc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"
#include "sovia.h"

static long (*real_syscall)(long, ...);

#define NEW_NAMESPACES (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWPID | \
                        CLONE_NEWUSER | CLONE_NEWCGROUP)

/* A bare clone that makes a copy of the process, as fork does: the result, or 1 if it is no
 * such call (*handled false). */
static long fork_like(unsigned long flags, long stack, bool *handled) {
  *handled = false;
  if (stack || (flags & ~(unsigned long)(CSIGNAL | NEW_NAMESPACES)) || (flags & CSIGNAL) != SIGCHLD)
    return 1;
  if (!(flags & NEW_NAMESPACES)) {
    *handled = true;
    return fork();
  }
  if (!sovia_active()) return 1;
  *handled = true;
  pl_unsupported("clone", "a fork into new namespaces (the program may fork instead)", EINVAL);
  return -1;
}

long syscall(long nr, ...) {
  va_list ap;
  va_start(ap, nr);
  long a[6];
  for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  switch (nr) {
  case SYS_close: return close((int)a[0]);
  case SYS_close_range: return close_range((unsigned)a[0], (unsigned)a[1], (int)a[2]);
  case SYS_sendmmsg: return sendmmsg((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2], (int)a[3]);
  case SYS_recvmmsg:
    return recvmmsg((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2], (int)a[3], (struct timespec *)a[4]);
  case SYS_clone: {
    bool handled;
    long r = fork_like((unsigned long)a[0], a[1], &handled);
    if (handled) return r;
    break;
  }
  default: break;
  }
  if (!real_syscall) *(void **)&real_syscall = dlsym(RTLD_NEXT, "syscall");
  return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
