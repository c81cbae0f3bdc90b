/* Tests of the UDP fabric (hw/udpfab.c) with real sockets on loopback: two endpoints in this
 * process (nodes 0 and 1, and node 2 sharing node 1's socket), IPv4 and IPv6, each injected
 * fault kind with its counter, determinism of a seed, batching, and bad datagrams from a raw
 * socket (short, wrong version, wrong node, bad length, a forged source), which are dropped
 * and counted. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../hw/link.h"
#include "../../hw/udpfab.h"

struct pair {
  struct fabric *a, *b; /* a hosts node 0; b hosts nodes 1 and 2 */
  const char *host;
};

static struct fabric *endpoint(const char *host, uint16_t port_other, const uint16_t *local,
                               unsigned nlocal, const struct udpfault_cfg *faults, unsigned batch) {
  struct udpfab_addr addrs[3] = {{0, host, 0}, {1, host, 0}, {2, host, 0}};
  if (local[0] == 0) addrs[1].port = addrs[2].port = port_other;
  else addrs[0].port = port_other;
  struct udpfab_config c = {.nodes = 3, .addrs = addrs, .naddrs = 3, .local = local,
                            .nlocal = nlocal, .batch = batch};
  if (faults) c.faults = *faults;
  char err[UDPFAB_ERR_LEN];
  struct fabric *f = udpfab_create(&c, err, sizeof err);
  if (!f) print_message("udpfab_create: %s\n", err);
  return f;
}

/* b first (port picked by the kernel), then a knowing b's port, then b told a's. */
static bool make_pair(struct pair *p, const char *host, const struct udpfault_cfg *fa,
                      unsigned batch) {
  static const uint16_t la[] = {0}, lb[] = {1, 2};
  p->host = host;
  p->b = endpoint(host, 1, lb, 2, NULL, batch); /* node 0's port is set below */
  if (!p->b) return false;
  p->a = endpoint(host, udpfab_port(p->b), la, 1, fa, batch);
  if (!p->a) {
    fabric_close(p->b);
    return false;
  }
  assert_int_equal(udpfab_set_addr(p->b, &(struct udpfab_addr){0, host, udpfab_port(p->a)}), 0);
  return true;
}

static void close_pair(struct pair *p) {
  fabric_close(p->a);
  fabric_close(p->b);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t frame(uint8_t *out, uint16_t src, uint16_t dst, uint32_t n, uint32_t len) {
  uint8_t payload[2048];
  for (uint32_t i = 0; i < len; i++) payload[i] = (uint8_t)(n * 7 + i);
  struct hw_link_hdr h = {.dst = dst, .src = src, .flags = HW_LINK_EOM, .len = len, .frame = n};
  return hw_link_encode(out, HW_LINK_MAX_FRAME, &h, payload);
}

static int send_n(struct fabric *f, uint16_t src, uint16_t dst, uint32_t first, uint32_t n) {
  static uint8_t buf[HW_LINK_MAX_FRAME];
  for (uint32_t i = first; i < first + n; i++) {
    size_t len = frame(buf, src, dst, i, 16 + i % 200);
    int rc = fabric_send(f, src, dst, buf, len, 0);
    if (rc) return rc;
  }
  return udpfab_flush(f);
}

/* Polls node on f until `want` frames came or 500 ms without one; their counters in order. */
static unsigned recv_all(struct fabric *f, uint16_t node, unsigned want, uint32_t *got,
                         unsigned cap) {
  unsigned n = 0;
  uint64_t last = now_ns();
  while (n < want && now_ns() - last < 500000000u) {
    struct fabric_rx rx;
    int r = fabric_poll(f, node, FAB_ANY, UINT64_MAX - 1, &rx);
    assert_true(r >= 0);
    if (r == 0) {
      usleep(200);
      continue;
    }
    last = now_ns();
    for (uint32_t i = 0; i < rx.len; i++) assert_int_equal(rx.payload[i], (uint8_t)(rx.frame * 7 + i));
    if (n < cap) got[n] = rx.frame;
    n++;
  }
  return n;
}

static void exchange(const char *host) {
  struct pair p;
  if (!make_pair(&p, host, NULL, 0)) {
    skip();
    return;
  }
  uint32_t got[200];
  assert_int_equal(send_n(p.a, 0, 1, 0, 100), 0);
  assert_int_equal(send_n(p.a, 0, 2, 100, 50), 0);
  assert_int_equal(recv_all(p.b, 1, 100, got, 200), 100);
  for (unsigned i = 0; i < 100; i++) assert_int_equal(got[i], i);
  assert_int_equal(recv_all(p.b, 2, 50, got, 200), 50);
  for (unsigned i = 0; i < 50; i++) assert_int_equal(got[i], 100 + i);
  assert_int_equal(send_n(p.b, 2, 0, 7, 3), 0); /* and back, from the shared socket */
  assert_int_equal(recv_all(p.a, 0, 3, got, 200), 3);
  assert_int_equal(got[0], 7);
  struct fabric_counters c;
  fabric_counters(p.b, FAB_ALL, &c);
  assert_int_equal(c.rx_packets, 150);
  for (int d = 0; d < FAB_DROP_N; d++) assert_int_equal(c.drops[d], 0);
  struct udpfab_stats s;
  udpfab_stats(p.a, &s);
  assert_int_equal(s.tx_datagrams, 150);
  assert_true(s.tx_batches < 20); /* 32 per sendmmsg */
  /* Per peer: a sent 150 frames to nodes 1 and 2 and took 3 from node 2; b the reverse. */
  struct udpfab_peer_stats ps;
  assert_int_equal(udpfab_peer_stats(p.a, 1, &ps), 0);
  assert_int_equal(ps.tx_frames, 100);
  assert_int_equal(ps.rx_frames, 0);
  assert_int_equal(udpfab_peer_stats(p.a, 2, &ps), 0);
  assert_int_equal(ps.tx_frames, 50);
  assert_int_equal(ps.rx_frames, 3);
  assert_true(ps.rx_bytes > 3 * HW_LINK_OVERHEAD);
  assert_int_equal(udpfab_peer_stats(p.b, 0, &ps), 0);
  assert_int_equal(ps.rx_frames, 150);
  assert_int_equal(ps.tx_frames, 3);
  assert_int_equal(ps.rx_bad, 0);
  assert_int_equal(udpfab_peer_stats(p.b, 3, &ps), -EINVAL);
  close_pair(&p);
}

static void test_ipv4(void **state) { (void)state; exchange("127.0.0.1"); }
static void test_ipv6(void **state) { (void)state; exchange("::1"); }
static void test_hostname(void **state) { (void)state; exchange("localhost"); }

/* One fault kind at probability 1 (reorder: 1 too, so every other datagram is swapped). */
static void fault_run(struct udpfault_cfg fc, unsigned n, uint32_t *got, unsigned *ngot,
                      struct udpfab_stats *s, struct fabric_counters *rxc) {
  struct pair p;
  assert_true(make_pair(&p, "127.0.0.1", &fc, 0));
  assert_int_equal(send_n(p.a, 0, 1, 0, n), 0);
  *ngot = recv_all(p.b, 1, 3 * n, got, 3 * n);
  udpfab_stats(p.a, s);
  fabric_counters(p.b, FAB_ALL, rxc);
  close_pair(&p);
}

static void test_loss(void **state) {
  (void)state;
  uint32_t got[300];
  unsigned n;
  struct udpfab_stats s;
  struct fabric_counters c;
  fault_run((struct udpfault_cfg){.loss = 1, .seed = 1}, 50, got, &n, &s, &c);
  assert_int_equal(n, 0);
  assert_int_equal(s.inj_loss, 50);
  assert_int_equal(s.tx_datagrams, 0);
}

static void test_dup(void **state) {
  (void)state;
  uint32_t got[300];
  unsigned n;
  struct udpfab_stats s;
  struct fabric_counters c;
  fault_run((struct udpfault_cfg){.dup = 1, .seed = 2}, 50, got, &n, &s, &c);
  assert_int_equal(n, 100);
  assert_int_equal(s.inj_dup, 50);
  for (unsigned i = 0; i < 100; i++) assert_int_equal(got[i], i / 2);
}

static void test_reorder(void **state) {
  (void)state;
  uint32_t got[300];
  unsigned n;
  struct udpfab_stats s;
  struct fabric_counters c;
  fault_run((struct udpfault_cfg){.reorder = 1, .seed = 3}, 50, got, &n, &s, &c);
  assert_int_equal(n, 50);
  assert_int_equal(s.inj_reorder, 25);
  for (unsigned i = 0; i < 50; i++) assert_int_equal(got[i], i ^ 1u); /* pairs swapped */
}

static void test_corrupt(void **state) {
  (void)state;
  uint32_t got[300];
  unsigned n;
  struct udpfab_stats s;
  struct fabric_counters c;
  fault_run((struct udpfault_cfg){.corrupt = 1, .seed = 4}, 50, got, &n, &s, &c);
  assert_int_equal(n, 0); /* one bit anywhere: the header's checks or the CRC catch it */
  assert_int_equal(s.inj_corrupt, 50);
  uint64_t dropped = 0;
  for (int d = 0; d < FAB_DROP_N; d++) dropped += c.drops[d];
  assert_int_equal(dropped, 50);
}

/* The same seed gives the same faults; another seed other ones. */
static void test_seed(void **state) {
  (void)state;
  uint32_t g1[300], g2[300], g3[300];
  unsigned n1, n2, n3;
  struct udpfab_stats s;
  struct fabric_counters c;
  struct udpfault_cfg fc = {.loss = 0.3, .dup = 0.2, .reorder = 0.3, .seed = 42};
  fault_run(fc, 100, g1, &n1, &s, &c);
  fault_run(fc, 100, g2, &n2, &s, &c);
  assert_int_equal(n1, n2);
  assert_memory_equal(g1, g2, n1 * sizeof g1[0]);
  fc.seed = 43;
  fault_run(fc, 100, g3, &n3, &s, &c);
  assert_true(n3 != n1 || memcmp(g1, g3, n1 * sizeof g1[0]));
  assert_int_equal(udpfault_init(&(struct udpfault){0}, &(struct udpfault_cfg){.loss = 1.5}),
                   -EINVAL);
}

/* Raw datagrams at node 1's socket from a socket that is not node 0's address. */
static void test_bad_datagrams(void **state) {
  (void)state;
  struct pair p;
  assert_true(make_pair(&p, "127.0.0.1", NULL, 0));
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  assert_true(s >= 0);
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(udpfab_port(p.b))};
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  uint8_t good[256], d[300];
  size_t fl = frame(good + UDPWIRE_HDR_LEN, 0, 1, 9, 32);
  udpwire_put(good, &(struct udpwire_hdr){.src = 0, .dst = 1, .len = (uint32_t)fl});
  size_t gl = UDPWIRE_HDR_LEN + fl;
  struct {
    const char *what;
    size_t len;
    int at;
    uint8_t val;
  } bad[] = {
      {"short", 10, -1, 0},
      {"magic", 0, 0, 0x00},
      {"version", 0, 2, 2},
      {"flags", 0, 3, 1},
      {"dst not here", 0, 7, 0},   /* node 0 lives elsewhere */
      {"dst unknown", 0, 6, 0x7f}, /* node 0x7f01 */
      {"length", 0, 11, 0x10},
      {"link crc", 0, UDPWIRE_HDR_LEN + 20, 0xaa},
      {"forged source", 0, -1, 0}, /* well-formed, but not from node 0's address */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memcpy(d, good, gl);
    if (bad[i].at >= 0) d[bad[i].at] = bad[i].val;
    size_t len = bad[i].len ? bad[i].len : gl;
    assert_true(sendto(s, d, len, 0, (struct sockaddr *)&to, sizeof to) == (ssize_t)len);
  }
  sendto(s, "", 0, 0, (struct sockaddr *)&to, sizeof to); /* empty */
  uint32_t got[4];
  assert_int_equal(recv_all(p.b, 1, 1, got, 4), 0);
  struct udpfab_stats st;
  udpfab_stats(p.b, &st);
  assert_int_equal(st.rx_datagrams, 10);
  assert_int_equal(st.bad[UDPWIRE_V_SHORT], 2);
  assert_int_equal(st.bad[UDPWIRE_V_VERSION], 3);
  assert_int_equal(st.bad[UDPWIRE_V_NODE], 2);
  assert_int_equal(st.bad[UDPWIRE_V_LENGTH], 1);
  assert_int_equal(st.bad[UDPWIRE_V_CRC], 1);
  assert_int_equal(st.bad_addr, 1);
  /* Charged to the node they claim to come from (node 0) when its field is there: all but
   * the empty datagram. */
  struct udpfab_peer_stats ps;
  assert_int_equal(udpfab_peer_stats(p.b, 0, &ps), 0);
  assert_int_equal(ps.rx_bad, 9);
  assert_int_equal(ps.rx_frames, 0);
  struct fabric_counters c;
  fabric_counters(p.b, FAB_ALL, &c);
  assert_int_equal(c.rx_packets, 0);
  assert_int_equal(c.drops[FAB_DROP_MALFORMED] + c.drops[FAB_DROP_LENGTH] + c.drops[FAB_DROP_CRC],
                   10);
  /* still alive: a good one from the real node 0 */
  assert_int_equal(send_n(p.a, 0, 1, 5, 1), 0);
  assert_int_equal(recv_all(p.b, 1, 1, got, 4), 1);
  close(s);
  close_pair(&p);
}

static void test_errors(void **state) {
  (void)state;
  struct pair p;
  assert_true(make_pair(&p, "127.0.0.1", NULL, 0));
  static uint8_t big[UDPWIRE_MAX_FRAME + 1];
  assert_int_equal(fabric_send(p.a, 0, 1, big, sizeof big, 0), -EMSGSIZE);
  assert_int_equal(fabric_send(p.a, 1, 0, big, 20, 0), -EINVAL);       /* node 1 is not here */
  assert_int_equal(fabric_send(p.a, 0, 9, big, 20, 0), -EHOSTUNREACH); /* no node 9 */
  struct fabric_rx rx;
  assert_int_equal(fabric_poll(p.a, 1, FAB_ANY, 0, &rx), -EINVAL);
  close_pair(&p);
  char err[UDPFAB_ERR_LEN];
  struct udpfab_addr a[] = {{0, "no-such-host.invalid", 5000}};
  uint16_t l = 0;
  assert_null(udpfab_create(&(struct udpfab_config){.nodes = 1, .addrs = a, .naddrs = 1,
                                                    .local = &l, .nlocal = 1},
                            err, sizeof err));
  assert_non_null(strstr(err, "node 0: no-such-host.invalid"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ipv4),        cmocka_unit_test(test_ipv6),
      cmocka_unit_test(test_hostname),    cmocka_unit_test(test_loss),
      cmocka_unit_test(test_dup),         cmocka_unit_test(test_reorder),
      cmocka_unit_test(test_corrupt),     cmocka_unit_test(test_seed),
      cmocka_unit_test(test_bad_datagrams), cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
