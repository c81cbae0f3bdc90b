/* preload_stdio.c: stdio streams on SOVIA sockets. glibc's streams call its internal write
 * and read, which no preloaded definition replaces, so a stream fdopen() made of a SOVIA
 * socket would write to the kernel socket that stands for it (busybox wget: EPIPE, and
 * SIGPIPE). fdopen of a SOVIA socket makes a stream whose reads and writes are the shim's
 * (fopencookie); fileno() still gives the descriptor, for the poll or select a program
 * pairs with the stream. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "preload.h"

PL_REAL(FILE *, fdopen, int, const char *)

static ssize_t cookie_read(void *cookie, char *buf, size_t n) {
  return read((int)(intptr_t)cookie, buf, n);
}

/* glibc takes a short write for an error: all of it goes, or the error. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = write((int)(intptr_t)cookie, buf + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return done ? (ssize_t)done : -1;
    done += (size_t)w;
  }
  return (ssize_t)done;
}

static int cookie_close(void *cookie) { return close((int)(intptr_t)cookie); }

FILE *fdopen(int fd, const char *mode) {
  if (!pl_sov(fd)) return PL_CALL(fdopen)(fd, mode);
  cookie_io_functions_t io = {.read = cookie_read, .write = cookie_write, .close = cookie_close};
  FILE *f = fopencookie((void *)(intptr_t)fd, mode, io);
  if (f) f->_fileno = fd;   /* the stream's I/O stays the cookie's; fileno() reports fd */
  return f;
}
