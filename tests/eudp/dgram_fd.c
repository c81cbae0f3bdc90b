/* dgram_fd: an unmodified C program's UDP descriptor calls beyond send/recv, run under the
 * shim against dgram_check.py's echo server (apps.sh): a dup'd descriptor sends and receives
 * after the original is closed, dup2 and F_DUPFD name the same socket, sendmmsg sends three
 * datagrams that the server echoes and recvmmsg takes them back, each checked. Prints one
 * "ok"/"FAIL" line per check and exits non-zero if any failed.
 *   dgram_fd HOST PORT */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int fails;

static void check(int cond, const char *what) {
  printf("%s%s\n", cond ? "ok   " : "FAIL ", what);
  fflush(stdout);
  fails += !cond;
}

/* Sends msg on fd and whether the echo on fd is msg. */
static int echo(int fd, const char *msg) {
  char buf[256];
  if (send(fd, msg, strlen(msg), 0) != (ssize_t)strlen(msg)) return 0;
  ssize_t n = recv(fd, buf, sizeof buf, 0);
  return n == (ssize_t)strlen(msg) && memcmp(buf, msg, (size_t)n) == 0;
}

static void mmsg(int fd) {
  static const char *const msg[3] = {"first", "second datagram", "3"};
  struct iovec iov[3], riov[3];
  struct mmsghdr out[3], in[3];
  char rbuf[3][64];
  memset(out, 0, sizeof out);
  memset(in, 0, sizeof in);
  for (int i = 0; i < 3; i++) {
    iov[i] = (struct iovec){(void *)msg[i], strlen(msg[i])};
    out[i].msg_hdr.msg_iov = &iov[i];
    out[i].msg_hdr.msg_iovlen = 1;
    riov[i] = (struct iovec){rbuf[i], sizeof rbuf[i]};
    in[i].msg_hdr.msg_iov = &riov[i];
    in[i].msg_hdr.msg_iovlen = 1;
  }
  check(sendmmsg(fd, out, 3, 0) == 3 && out[1].msg_len == strlen(msg[1]), "sendmmsg: 3 datagrams");
  int got = 0;
  while (got < 3) {
    int n = recvmmsg(fd, in + got, 3u - (unsigned)got, MSG_WAITFORONE, NULL);
    if (n <= 0) break;
    got += n;
  }
  int same = got == 3;
  for (int i = 0; i < got && same; i++)
    same = in[i].msg_len == strlen(msg[i]) && memcmp(rbuf[i], msg[i], in[i].msg_len) == 0;
  check(same, "recvmmsg: the 3 echoes, each whole and in order");
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: dgram_fd HOST PORT\n");
    return 2;
  }
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
  inet_pton(AF_INET, argv[1], &to.sin_addr);
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  check(connect(fd, (struct sockaddr *)&to, sizeof to) == 0, "connect");
  check(echo(fd, "before dup"), "echo on the socket");
  int d = dup(fd);
  check(d >= 0 && echo(d, "on the dup"), "echo on a dup");
  close(fd);
  check(echo(d, "after close"), "echo on the dup after the original is closed");
  int d2 = dup2(d, 40);
  check(d2 == 40 && echo(40, "dup2"), "echo on dup2's descriptor");
  int d3 = fcntl(40, F_DUPFD_CLOEXEC, 50);
  check(d3 >= 50 && echo(d3, "F_DUPFD"), "echo on F_DUPFD_CLOEXEC's descriptor");
  close(40);
  close(d3);
  mmsg(d);
  check(send(d, "quit", 4, 0) == 4, "quit sent");
  close(d);
  return fails ? 1 : 0;
}
