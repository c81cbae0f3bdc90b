/* echo_client.c: a client for echo_server written against plain BSD sockets (not linked
 * with SOVIA; tests/sovia_lib/echo.sh runs it under the LD_PRELOAD shim). Connects with a
 * non-blocking connect (EINPROGRESS, poll for POLLOUT, SO_ERROR), as many programs do, then
 * sends messages of 1 B to 64 KB (every size class, several hundred messages) and reads each
 * echo back completely, comparing every byte. Prints "N passed, N failed".
 *   echo_client ADDRESS PORT [MESSAGES] */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(c, ...) do { if (c) passed++; else { failed++; printf("FAIL " __VA_ARGS__); printf("\n"); } } while (0)

static int connect_nb(const char *ip, int port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) return -1;
  for (int tries = 0; tries < 300; tries++) {   /* the server may not listen yet */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
    int r = connect(s, (struct sockaddr *)&a, sizeof a), err = r ? errno : 0;
    if (r && err == EINPROGRESS) {
      struct pollfd p = {.fd = s, .events = POLLOUT};
      socklen_t len = sizeof err;
      if (poll(&p, 1, 10000) != 1 || getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len)) err = ETIMEDOUT;
    }
    if (!err) {
      fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
      return s;
    }
    close(s);
    if (err != ECONNREFUSED) {
      fprintf(stderr, "echo_client: connect: %s\n", strerror(err));
      return -1;
    }
    usleep(20000);
  }
  return -1;
}

static int write_all(int s, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t w = write(s, p, n);
    if (w <= 0) return -1;
    p += w, n -= (size_t)w;
  }
  return 0;
}

static int read_all(int s, uint8_t *p, size_t n) {
  while (n) {
    ssize_t r = read(s, p, n);
    if (r <= 0) return -1;
    p += r, n -= (size_t)r;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: echo_client ADDRESS PORT [MESSAGES]\n");
    return 2;
  }
  int nmsg = argc > 3 ? atoi(argv[3]) : 400;
  int s = connect_nb(argv[1], atoi(argv[2]));
  CHECK(s >= 0, "connect to %s:%s", argv[1], argv[2]);
  if (s < 0) goto done;
  int one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  static const size_t sizes[] = {1, 2, 3, 4, 7, 64, 100, 511, 1024, 2047, 2048, 2049, 4096,
                                 8191, 16384, 32767, 32768, 32769, 50000, 65535, 65536};
  const size_t nsizes = sizeof sizes / sizeof sizes[0];
  uint8_t *tx = malloc(65536), *rx = malloc(65536);
  int bad = 0, io = 0;
  uint64_t bytes = 0;
  for (int m = 0; m < nmsg && !io; m++) {
    size_t n = sizes[(size_t)m % nsizes];
    for (size_t i = 0; i < n; i++) tx[i] = (uint8_t)(m * 31 + i * 7 + (i >> 9));
    memset(rx, 0, n);
    if (write_all(s, tx, n) || read_all(s, rx, n)) {
      io = 1;
      fprintf(stderr, "echo_client: message %d (%zu bytes): %s\n", m, n, strerror(errno));
      break;
    }
    if (memcmp(tx, rx, n)) bad++;
    bytes += n;
  }
  CHECK(!io, "%d messages exchanged", nmsg);
  CHECK(!bad, "%d of %d echoes differ", bad, nmsg);
  CHECK(shutdown(s, SHUT_WR) == 0, "shutdown");
  uint8_t c;
  CHECK(read(s, &c, 1) == 0, "end-of-file after the echo");
  close(s);
  free(tx);
  free(rx);
  printf("echo_client: %d messages, %llu bytes echoed and compared\n", nmsg,
         (unsigned long long)bytes);
done:
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
