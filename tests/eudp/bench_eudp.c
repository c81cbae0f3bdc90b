/* bench_eudp: E-UDP beside kernel UDP in the same run (`make bench-eudp`). E-UDP: endpoints on
 * NIC 0 and NIC 1 of a private nicd; kernel: two UDP sockets on the loopback. Both measured the
 * same way by one thread: latency as half the round trip of a ping-pong, bandwidth as windows of
 * 16 datagrams sent then received (the window keeps within the receive queue: a lost datagram
 * is counted and ends the window). Every byte received is checked.
 * With $VERINIC_TIMING = a hardware profile (`make bench-eudp EUDP_PROFILE=...`), nicd runs
 * the LANai firmware in timing mode and E-UDP is measured in virtual time, beside what the
 * E-UDP paper published for that test bed (Figs. 10-11) instead of the kernel. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../common/nicd_run.h"
#include "../timing/eudp_model.h"
#include "eudp.h"

#define WIN 16
static uint8_t sbuf[EUDP_MAX], rbuf[EUDP_MAX + 1];

struct path {
  const char *name;
  int (*send)(struct path *p, int side, size_t n);
  ssize_t (*recv)(struct path *p, int side);
  struct eudp *e[2];
  uint16_t node[2];
  int fd[2];
  struct sockaddr_in addr[2];
};

static bool vt_mode;   /* timing mode: virtual time */

static double now_s(void) {
  if (vt_mode) return (double)lnic_vt_now_ns() / 1e9;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int e_send(struct path *p, int side, size_t n) {
  return eudp_sendto(p->e[side], p->node[!side], eudp_port(p->e[!side]), sbuf, n);
}
static ssize_t e_recv(struct path *p, int side) {
  return eudp_recvfrom(p->e[side], rbuf, sizeof rbuf, NULL, NULL, NULL, 200000000LL);
}
static int k_send(struct path *p, int side, size_t n) {
  return sendto(p->fd[side], sbuf, n, 0, (struct sockaddr *)&p->addr[!side], sizeof p->addr[0]) ==
                 (ssize_t)n ? 0 : -errno;
}
static ssize_t k_recv(struct path *p, int side) {
  ssize_t r = recv(p->fd[side], rbuf, sizeof rbuf, 0);
  return r < 0 ? -errno : r;
}

static void measure(struct path *p, size_t n, double *lat_us, double *mbps, unsigned *lost, unsigned *bad) {
  for (size_t i = 0; i < n; i++) sbuf[i] = (uint8_t)(i * 7 + n);
  int iters = vt_mode ? 20 : n > 16384 ? 200 : 1000;
  double t0 = now_s();
  for (int i = 0; i < iters; i++) {
    if (p->send(p, 0, n) || p->recv(p, 1) != (ssize_t)n || p->send(p, 1, n) || p->recv(p, 0) != (ssize_t)n) {
      (*lost)++;
      continue;
    }
    if (memcmp(rbuf, sbuf, n)) (*bad)++;
  }
  *lat_us = (now_s() - t0) / iters / 2 * 1e6;
  size_t bytes = 0;
  int wins = vt_mode ? 4 : n > 16384 ? 40 : 200;
  t0 = now_s();
  for (int w = 0; w < wins; w++) {
    for (int i = 0; i < WIN; i++) p->send(p, 0, n);
    for (int i = 0; i < WIN; i++) {
      ssize_t r = p->recv(p, 1);
      if (r < 0) { *lost += (unsigned)(WIN - i); break; }
      if ((size_t)r != n || memcmp(rbuf, sbuf, n)) (*bad)++;
      bytes += (size_t)r;
    }
  }
  *mbps = (double)bytes * 8 / (now_s() - t0) / 1e6;
}

/* What the E-UDP paper reports for the profile's test bed. */
static void paper(const char *prof) {
  const struct eudp_paper *pp = eudp_paper_for(prof);
  if (!pp) {
    printf("E-UDP paper: no numbers for %s\n", prof);
    return;
  }
  printf("E-UDP paper (Figs. 10-11%s):", pp->fig_lat);
  if (pp->small_lat_us) printf(" small datagrams %.2f us one way;", pp->small_lat_us);
  if (pp->peak_mbps) printf(" peak %.0f Mbit/s;", pp->peak_mbps);
  printf("%s%s\n", pp->note ? " " : "", pp->note ? pp->note : "");
}

int main(void) {
  const char *prof = getenv("VERINIC_TIMING");
  vt_mode = prof && *prof;
  pid_t nicd = nicd_start(2, true);
  if (nicd < 0) return 1;
  struct lnic_dev *d[2];
  struct path e = {.name = "E-UDP", .send = e_send, .recv = e_recv};
  struct path k = {.name = "kernel UDP (loopback)", .send = k_send, .recv = k_recv};
  for (int i = 0; i < 2; i++) {
    if (lnic_open(nicd_dev(i), &d[i]) || eudp_open(d[i], (uint16_t)(7000 + i), 0, &e.e[i])) {
      printf("E-UDP endpoints failed\n");
      nicd_stop(nicd, false);
      return 1;
    }
    e.node[i] = d[i]->node;
    k.fd[i] = socket(AF_INET, SOCK_DGRAM, 0);
    int big = 4 << 20;
    setsockopt(k.fd[i], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    struct timeval tv = {.tv_usec = 200000};
    setsockopt(k.fd[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    k.addr[i] = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof k.addr[i];
    if (bind(k.fd[i], (struct sockaddr *)&k.addr[i], l) || getsockname(k.fd[i], (struct sockaddr *)&k.addr[i], &l)) {
      perror("kernel UDP");
      return 1;
    }
  }
  static const size_t sizes[] = {64, 1024, 4008, 8192, 32768, EUDP_MAX};
  printf("%-22s %8s %12s %12s %6s %6s\n", "path", "bytes", "latency us", "Mbit/s", "lost", "bad");
  unsigned bad_all = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int w = 0; w < (vt_mode ? 1 : 2); w++) {   /* virtual time measures only the NICs */
      struct path *p = w ? &k : &e;
      double lat = 0, mbps = 0;
      unsigned lost = 0, bad = 0;
      measure(p, sizes[s], &lat, &mbps, &lost, &bad);
      bad_all += bad;
      printf("%-22s %8zu %12.1f %12.1f %6u %6u\n", p->name, sizes[s], lat, mbps, lost, bad);
    }
  if (vt_mode) paper(prof);
  for (int i = 0; i < 2; i++) eudp_close(e.e[i]);
  for (int i = 0; i < 2; i++) {   /* the devices after both endpoints: timing mode syncs all */
    lnic_close(d[i]);
    close(k.fd[i]);
  }
  nicd_stop(nicd, false);
  return bad_all ? 1 : 0;
}
