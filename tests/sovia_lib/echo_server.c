/* echo_server.c: an ordinary TCP echo server written against plain BSD sockets (it knows
 * nothing of SOVIA and is not linked with it); tests/sovia_lib/echo.sh runs it unchanged
 * under the LD_PRELOAD shim. One thread, poll() over the listening socket and every client,
 * non-blocking sockets, each client's bytes written back in order (kept while the client is
 * not writable). Exits 0 after serving `nclients` clients to end-of-file.
 *   echo_server PORT NCLIENTS */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAXC 16
#define BUF (256 * 1024)

struct client { int fd; unsigned char *buf; size_t len; bool eof; };

static void nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: echo_server PORT NCLIENTS\n");
    return 2;
  }
  int want = atoi(argv[2]), served = 0, one = 1;
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
                          .sin_addr.s_addr = htonl(INADDR_ANY)};
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 8)) {
    perror("echo_server: listen");
    return 1;
  }
  nonblock(l);
  struct client c[MAXC];
  int nc = 0;
  while (served < want) {
    struct pollfd p[MAXC + 1];
    p[0] = (struct pollfd){.fd = l, .events = POLLIN};
    for (int i = 0; i < nc; i++)
      p[i + 1] = (struct pollfd){.fd = c[i].fd,
                                 .events = (short)((c[i].len ? POLLOUT : 0) |
                                                   (!c[i].eof && c[i].len < BUF ? POLLIN : 0))};
    if (poll(p, (nfds_t)nc + 1, 30000) <= 0) {
      fprintf(stderr, "echo_server: poll: %s\n", errno ? strerror(errno) : "30 s timeout");
      return 1;
    }
    if ((p[0].revents & POLLIN) && nc < MAXC) {
      int s = accept(l, NULL, NULL);
      if (s >= 0) {
        nonblock(s);
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        c[nc++] = (struct client){s, malloc(BUF), 0, false};
      } else if (errno != EAGAIN) {
        perror("echo_server: accept");
        return 1;
      }
    }
    for (int i = 0; i < nc; i++) {
      struct client *k = &c[i];
      short re = p[i + 1].revents;
      if ((re & (POLLIN | POLLHUP | POLLERR)) && !k->eof && k->len < BUF) {
        ssize_t r = read(k->fd, k->buf + k->len, BUF - k->len);
        if (r > 0) k->len += (size_t)r;
        else if (r == 0) k->eof = true;
        else if (errno != EAGAIN) {
          perror("echo_server: read");
          return 1;
        }
      }
      if (k->len) {
        ssize_t w = write(k->fd, k->buf, k->len);
        if (w > 0) {
          memmove(k->buf, k->buf + w, k->len - (size_t)w);
          k->len -= (size_t)w;
        } else if (w < 0 && errno != EAGAIN) {
          perror("echo_server: write");
          return 1;
        }
      }
      if (k->eof && !k->len) {
        close(k->fd);
        free(k->buf);
        k->fd = -1;
        served++;
      }
    }
    int kept = 0;
    for (int i = 0; i < nc; i++)
      if (c[i].fd >= 0) c[kept++] = c[i];
    nc = kept;
  }
  close(l);
  return 0;
}
