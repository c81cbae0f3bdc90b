/* test_eudp: E-UDP datagram endpoints end to end over a private nicd with two NICs (one process
 * opens both): datagrams of 0 B to 65507 B both ways with every byte checked and the sender
 * named, message boundaries, MSG_TRUNC, a port in use, a send too long, datagrams to a port
 * nobody holds and beyond the receive queue dropped and counted by the receiving NIC while
 * the sender never waits, a non-blocking receive, and two senders of 60000-byte datagrams into
 * one endpoint at once. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/nicd_run.h"
#include "../vipl/vtest.h"
#include "eudp.h"

VT_GLOBALS;

static struct lnic_dev *D[2];
static struct eudp *A, *B;   /* nic0 port 5353, nic1 port 9000 */
static uint8_t sbuf[70000], rbuf[70000];

static void fill(uint8_t *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

#define SEC 2000000000LL

static void t_sizes_both_ways(void) {
  static const size_t sizes[] = {0, 1, 100, 4008, 4009, 8017, 8073, 30000, 60000, EUDP_MAX};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (int dir = 0; dir < 2; dir++) {
      struct eudp *s = dir ? B : A, *r = dir ? A : B;
      size_t n = sizes[k];
      fill(sbuf, n, (unsigned)(k * 2 + (unsigned)dir));
      memset(rbuf, 0xee, n + 1);
      CHECK_EQ(eudp_sendto(s, D[!dir]->node, eudp_port(r), sbuf, n), 0);
      size_t full = 0;
      uint16_t node = 0, port = 0;
      ssize_t got = eudp_recvfrom(r, rbuf, sizeof rbuf, &full, &node, &port, SEC);
      CHECK_EQ(got, (ssize_t)n);
      CHECK_EQ(full, n);
      CHECK_EQ(node, D[dir]->node);
      CHECK_EQ(port, eudp_port(s));
      CHECK(memcmp(sbuf, rbuf, n) == 0 && rbuf[n] == 0xee);
    }
}

/* Three datagrams stay three, in order; a short buffer gets the front and the full length,
 * and the rest of that datagram is gone (the next receive gets the next datagram). */
static void t_boundaries_and_trunc(void) {
  static const size_t n[3] = {10, 5000, 3};
  for (int i = 0; i < 3; i++) {
    fill(sbuf, n[i], 50u + (unsigned)i);
    CHECK_EQ(eudp_sendto(A, D[1]->node, 9000, sbuf, n[i]), 0);
  }
  for (int i = 0; i < 3; i++) {
    size_t full = 0, cap = i == 1 ? 100 : sizeof rbuf;
    ssize_t got = eudp_recvfrom(B, rbuf, cap, &full, NULL, NULL, SEC);
    fill(sbuf, n[i], 50u + (unsigned)i);
    CHECK_EQ(full, n[i]);
    CHECK_EQ(got, (ssize_t)(n[i] < cap ? n[i] : cap));
    CHECK(got > 0 && memcmp(sbuf, rbuf, (size_t)got) == 0);
  }
  struct eudp_stats st;
  eudp_stats(B, &st);
  CHECK(st.rx_truncated >= 1);
  CHECK_EQ(eudp_recvfrom(B, rbuf, sizeof rbuf, NULL, NULL, NULL, 0), -EAGAIN);
}

static void t_errors(void) {
  struct eudp *x = NULL;
  CHECK_EQ(eudp_open(D[1], 9000, 0, &x), -EADDRINUSE);
  CHECK_EQ(eudp_open(D[1], 0, 0, &x), -EINVAL);
  CHECK_EQ(eudp_sendto(A, D[1]->node, 9000, sbuf, EUDP_MAX + 1), -EMSGSIZE);
  CHECK_EQ(eudp_sendto(A, D[1]->node, 0, sbuf, 1), -EINVAL);
  /* a port closed and bound again works */
  CHECK_EQ(eudp_open(D[1], 9001, 0, &x), 0);
  eudp_close(x);
  CHECK_EQ(eudp_open(D[1], 9001, 0, &x), 0);
  CHECK_EQ(eudp_sendto(A, D[1]->node, 9001, "hi", 2), 0);
  CHECK_EQ(eudp_recvfrom(x, rbuf, sizeof rbuf, NULL, NULL, NULL, SEC), 2);
  eudp_close(x);
  /* to a port of the own NIC */
  CHECK_EQ(eudp_open(D[0], 9002, 0, &x), 0);
  CHECK_EQ(eudp_sendto(A, D[0]->node, 9002, "self", 4), 0);
  CHECK_EQ(eudp_recvfrom(x, rbuf, sizeof rbuf, NULL, NULL, NULL, SEC), 4);
  eudp_close(x);
}

/* Nobody on the port, then far more datagrams than the receiver has buffers: the sender never
 * waits on the receiver, the receiving NIC drops and counts what it cannot place, and what is
 * received is whole. */
static void t_drops(void) {
  volatile struct hostif_counters *c = lnic_hostif_counters(D[1]);
  uint64_t novi = c->rx_drop_no_vi, nodesc = c->rx_drop_no_desc;
  CHECK_EQ(eudp_sendto(A, D[1]->node, 9999, sbuf, 100), 0);
  enum { N = 4 * EUDP_NRECV };
  uint64_t t0 = lnic_now_ns();
  for (unsigned i = 0; i < N; i++) {
    fill(sbuf, 1000, 200u + i);
    CHECK_EQ(eudp_sendto(A, D[1]->node, 9000, sbuf, 1000), 0);
  }
  uint64_t took = lnic_now_ns() - t0;
  CHECK(took < 5000000000ull);
  unsigned got = 0, wrong = 0;
  ssize_t n;
  while ((n = eudp_recvfrom(B, rbuf, sizeof rbuf, NULL, NULL, NULL, 200000000LL)) >= 0) {
    got++;
    bool match = false;
    for (unsigned i = 0; i < N && !match; i++) {
      fill(sbuf, 1000, 200u + i);
      match = n == 1000 && memcmp(sbuf, rbuf, 1000) == 0;
    }
    wrong += !match;
  }
  uint64_t dropped = c->rx_drop_no_desc - nodesc;
  printf("queue full: %u sent in %.1f ms, %u received, %llu dropped by the NIC\n", (unsigned)N,
         (double)took / 1e6, got, (unsigned long long)dropped);
  CHECK_EQ(wrong, 0);
  CHECK(got >= 1 && got <= N);
  CHECK_EQ(got + dropped, N);
  CHECK(c->rx_drop_no_vi >= novi + 1);
}

/* Two senders of 60000-byte datagrams into one endpoint at once (their messages interleave
 * on the wire): every datagram arrives whole and right, each sender's in its order, none
 * counted dropped. */
static void t_two_senders(void) {
  enum { N = 6, LEN = 60000 };
  struct eudp *C;
  CHECK_EQ(eudp_open(D[0], 5354, 0, &C), 0);
  if (!C) return;
  static uint8_t s2[LEN];
  fill(sbuf, LEN, 71);
  fill(s2, LEN, 72);
  volatile struct hostif_counters *c = lnic_hostif_counters(D[1]);
  uint64_t mal = c->rx_drop_malformed;
  for (int i = 0; i < N; i++) {
    CHECK_EQ(eudp_sendto(A, D[1]->node, 9000, sbuf, LEN), 0);
    CHECK_EQ(eudp_sendto(C, D[1]->node, 9000, s2, LEN), 0);
  }
  int from[2] = {0, 0}, wrong = 0;
  for (int i = 0; i < 2 * N; i++) {
    uint16_t port = 0;
    ssize_t got = eudp_recvfrom(B, rbuf, sizeof rbuf, NULL, NULL, &port, SEC);
    int k = port == eudp_port(C);
    if (got != LEN || memcmp(rbuf, k ? s2 : sbuf, LEN) != 0) wrong++;
    else from[k]++;
  }
  printf("two senders: %d + %d of %d datagrams of %d B, %d wrong, %llu dropped\n", from[0],
         from[1], 2 * N, LEN, wrong, (unsigned long long)(c->rx_drop_malformed - mal));
  CHECK_EQ(wrong, 0);
  CHECK_EQ(from[0], N);
  CHECK_EQ(from[1], N);
  CHECK_EQ(c->rx_drop_malformed, mal);
  eudp_close(C);
}

int main(void) {
  pid_t nicd = nicd_start(2, true);
  if (nicd < 0) return 1;
  for (int i = 0; i < 2; i++)
    if (lnic_open(nicd_dev(i), &D[i])) {
      printf("lnic_open failed\n");
      nicd_stop(nicd, false);
      return 1;
    }
  if (eudp_open(D[0], 5353, 0, &A) || eudp_open(D[1], 9000, 0, &B)) {
    printf("eudp_open failed\n");
    return 1;
  }
  RUN(t_sizes_both_ways);
  RUN(t_boundaries_and_trunc);
  RUN(t_errors);
  RUN(t_drops);
  RUN(t_two_senders);
  eudp_close(A);
  eudp_close(B);
  lnic_close(D[0]);
  lnic_close(D[1]);
  nicd_stop(nicd, false);
  return vt_summary();
}
