/* sovia_xfer: moves a byte stream over SOVIA (or, with --tcp, over kernel sockets) and prints
 * what arrived: byte count, a checksum, and the rate. The demo runs a server and a client on
 * two emulated NICs with it.
 *   sovia_xfer [--tcp] serve PORT
 *   sovia_xfer [--tcp] send ADDR PORT BYTES */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sovia.h"

static int use_tcp;

/* The two APIs, picked once. */
static int x_socket(void) {
  return use_tcp ? socket(AF_INET, SOCK_STREAM, 0) : sovia_socket(AF_INET, SOCK_STREAM, 0);
}
static int x_bind(int fd, struct sockaddr_in *a) {
  return use_tcp ? bind(fd, (struct sockaddr *)a, sizeof *a)
                 : sovia_bind(fd, (struct sockaddr *)a, sizeof *a);
}
static int x_listen(int fd) { return use_tcp ? listen(fd, 4) : sovia_listen(fd, 4); }
static int x_accept(int fd) { return use_tcp ? accept(fd, NULL, NULL) : sovia_accept(fd, NULL, NULL); }
static int x_connect(int fd, struct sockaddr_in *a) {
  return use_tcp ? connect(fd, (struct sockaddr *)a, sizeof *a)
                 : sovia_connect(fd, (struct sockaddr *)a, sizeof *a);
}
static ssize_t x_read(int fd, void *b, size_t n) { return use_tcp ? read(fd, b, n) : sovia_read(fd, b, n); }
static ssize_t x_write(int fd, const void *b, size_t n) {
  return use_tcp ? write(fd, b, n) : sovia_write(fd, b, n);
}
static int x_close(int fd) { return use_tcp ? close(fd) : sovia_close(fd); }

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Fletcher-style sum over the stream, independent of how it was cut into reads. */
typedef struct {
  uint32_t a, b;
} Sum;

static void sum_bytes(Sum *s, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    s->a = (s->a + p[i]) % 65521;
    s->b = (s->b + s->a) % 65521;
  }
}

static unsigned char pattern(uint64_t off) { return (unsigned char)(off * 131 + (off >> 9)); }

static int fail(const char *what) {
  fprintf(stderr, "sovia_xfer: %s: %s\n", what, strerror(errno));
  return 1;
}

static struct sockaddr_in addr_of(const char *ip, const char *port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

static int serve(const char *port) {
  struct sockaddr_in a = addr_of("0.0.0.0", port);
  int l = x_socket();
  if (l < 0 || x_bind(l, &a) != 0 || x_listen(l) != 0)
    return fail("listen");
  printf("serving on port %s (%s)\n", port, use_tcp ? "kernel TCP" : "SOVIA");
  fflush(stdout);
  int c = x_accept(l);
  if (c < 0)
    return fail("accept");
  static unsigned char buf[1 << 16];
  Sum s = {1, 0};
  uint64_t total = 0;
  double t0 = now_s();
  for (;;) {
    ssize_t n = x_read(c, buf, sizeof buf);
    if (n < 0)
      return fail("read");
    if (n == 0)
      break;
    for (ssize_t i = 0; i < n; i++)
      if (buf[i] != pattern(total + (uint64_t)i)) {
        fprintf(stderr, "sovia_xfer: wrong byte at offset %llu\n",
                (unsigned long long)(total + (uint64_t)i));
        return 1;
      }
    sum_bytes(&s, buf, (size_t)n);
    total += (uint64_t)n;
  }
  double dt = now_s() - t0;
  printf("received %llu bytes, every byte as sent, checksum %08x, %.1f MB/s\n",
         (unsigned long long)total, (s.b << 16) | s.a, dt > 0 ? (double)total / dt / 1e6 : 0);
  x_close(c);
  x_close(l);
  return 0;
}

static int send_stream(const char *ip, const char *port, uint64_t bytes) {
  struct sockaddr_in a = addr_of(ip, port);
  int fd = x_socket();
  if (fd < 0 || x_connect(fd, &a) != 0)
    return fail("connect");
  static unsigned char buf[1 << 16];
  Sum s = {1, 0};
  uint64_t off = 0;
  double t0 = now_s();
  while (off < bytes) {
    size_t n = bytes - off < sizeof buf ? (size_t)(bytes - off) : sizeof buf;
    for (size_t i = 0; i < n; i++)
      buf[i] = pattern(off + i);
    sum_bytes(&s, buf, n);
    for (size_t done = 0; done < n;) {
      ssize_t w = x_write(fd, buf + done, n - done);
      if (w < 0)
        return fail("write");
      done += (size_t)w;
    }
    off += n;
  }
  if (x_close(fd) != 0)
    return fail("close");
  double dt = now_s() - t0;
  printf("sent %llu bytes, checksum %08x, %.1f MB/s\n", (unsigned long long)bytes,
         (s.b << 16) | s.a, dt > 0 ? (double)bytes / dt / 1e6 : 0);
  return 0;
}

int main(int argc, char **argv) {
  int i = 1;
  if (i < argc && !strcmp(argv[i], "--tcp")) {
    use_tcp = 1;
    i++;
  }
  if (argc - i == 2 && !strcmp(argv[i], "serve"))
    return serve(argv[i + 1]);
  if (argc - i == 4 && !strcmp(argv[i], "send"))
    return send_stream(argv[i + 1], argv[i + 2], strtoull(argv[i + 3], NULL, 10));
  fprintf(stderr, "usage: sovia_xfer [--tcp] serve PORT\n"
                  "       sovia_xfer [--tcp] send ADDR PORT BYTES\n");
  return 2;
}
