/* test_spine: SPINE's IP router end to end over a private nicd with four NICs: host A on
 * nic0 (node 0), the router host B with ports nic1 and nic2 (nodes 1, 2), host C on nic3
 * (node 3); A's gateway is node 1, C's is node 2. The router program runs in a process of
 * its own (it only loads routes) and the test checks, over the fabric and then by peer DMA:
 * packets A -> C and C -> A of 28..4036 bytes arrive whole with TTL one less and a right
 * header checksum; a packet for B's own address reaches B's host; bad checksum, TTL 1, not
 * IPv4, no route are dropped and counted on B; a route deleted while A streams to C: nothing A
 * sends after the delete returned reaches C (counted as no route), and no packet arrives
 * twice; the router process used no CPU time while packets flowed; and the router program's
 * misuse errors. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/nicd_run.h"
#include "../vipl/vtest.h"
#include "ippkt.h"
#include "proc_cpu.h"
#include "spine.h"

VT_GLOBALS;

#define SEC 2000000000LL
#define A_ADDR IP4(10, 0, 0, 1)
#define C_ADDR IP4(10, 3, 0, 1)
#define B_ADDR IP4(10, 1, 0, 1)

static struct lnic_dev *D[4];
static struct spine_ep *EA, *EB, *EC;   /* A on nic0, B's host on nic1, C on nic3 */
static unsigned mode;
static pid_t router;
static int to_router[2], from_router[2];
static uint8_t pkt[SPINE_IP_MAX], got[SPINE_IP_MAX];

/* The router program: configures ports nic1 and nic2, loads the routes, then serves the
 * test's requests: 'd' deletes C's route, 'a' adds it again, 'q' quits. */
static int router_main(void) {
  struct lnic_dev *p[2];
  struct spine_router *r = NULL;
  char c = 'E';
  if (lnic_open(nicd_dev(1), &p[0]) || lnic_open(nicd_dev(2), &p[1]) ||
      spine_router_open(p, 2, mode, &r) ||
      spine_route_add(r, IP4(10, 3, 0, 0), 16, SPINE_HOP(3, 1, 0)) ||
      spine_route_add(r, IP4(10, 0, 0, 0), 16, SPINE_HOP(0, 0, 0)) ||
      spine_route_add(r, B_ADDR, 32, SPINE_HOP(0, 0, SPINE_HOP_LOCAL)))
    c = 'E';
  else
    c = 'R';
  if (write(from_router[1], &c, 1) != 1 || c != 'R') return 1;
  while (read(to_router[0], &c, 1) == 1 && c != 'q') {
    int rc = c == 'd' ? spine_route_del(r, IP4(10, 3, 0, 0), 16)
                      : spine_route_add(r, IP4(10, 3, 0, 0), 16, SPINE_HOP(3, 1, 0));
    c = rc ? 'E' : 'D';
    if (write(from_router[1], &c, 1) != 1) return 1;
  }
  spine_router_close(r);
  lnic_close(p[0]);
  lnic_close(p[1]);
  return 0;
}

static char ask(char c) {
  if (write(to_router[1], &c, 1) != 1 || read(from_router[0], &c, 1) != 1) return 'E';
  return c;
}

static bool router_start(void) {
  if (pipe(to_router) || pipe(from_router)) return false;
  router = fork();
  if (router == 0) {
    close(to_router[1]);
    close(from_router[0]);
    _exit(router_main());
  }
  close(to_router[0]);
  close(from_router[1]);
  char c = 0;
  return router > 0 && read(from_router[0], &c, 1) == 1 && c == 'R';
}

static void router_stop(void) {
  char q = 'q';
  CHECK(write(to_router[1], &q, 1) == 1);
  int st = 0;
  waitpid(router, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  close(to_router[1]);
  close(from_router[0]);
}


static struct spine_counters ctr(int nic) {
  struct spine_counters c;
  spine_nic_counters(D[nic], &c);
  return c;
}

/* Sends n packets from one endpoint to the other through the router in windows of 8, each
 * checked on arrival. */
static void stream(struct spine_ep *s, uint16_t gw, struct spine_ep *r, uint16_t from, uint32_t src,
                   uint32_t dst, unsigned n, uint32_t seq0) {
  for (unsigned i = 0; i < n; i += 8) {
    unsigned w = n - i < 8 ? n - i : 8;
    for (unsigned k = 0; k < w; k++) {
      size_t len = 28 + ((i + k) * 997u) % (SPINE_IP_MAX - 27);
      ippkt_make(pkt, len, src, dst, 64, seq0 + i + k);
      CHECK_EQ(spine_send(s, gw, pkt, len), 0);
    }
    for (unsigned k = 0; k < w; k++) {
      size_t len = 28 + ((i + k) * 997u) % (SPINE_IP_MAX - 27);
      uint16_t node = 0xffff;
      ssize_t g = spine_recvfrom(r, got, sizeof got, &node, SEC);
      CHECK_EQ(g, (ssize_t)len);
      CHECK_EQ(node, from);
      CHECK(g == (ssize_t)len && ippkt_ok(got, len, dst, 63, seq0 + i + k));
    }
  }
}

static void t_forward_both_ways(void) {
  struct spine_counters b1 = ctr(1), b2 = ctr(2);
  long long t0 = proc_cpu_ns(router);
  stream(EA, 1, EC, 2, A_ADDR, C_ADDR, 400, 0);
  stream(EC, 2, EA, 1, C_ADDR, A_ADDR, 400, 1000);
  long long t1 = proc_cpu_ns(router);
  struct spine_counters a1 = ctr(1), a2 = ctr(2);
  CHECK_EQ(a1.forwarded - b1.forwarded, 400);   /* A -> C routed by port 0 */
  CHECK_EQ(a2.transit - b2.transit, 400);       /* ... and sent on by port 1 */
  CHECK_EQ(a2.forwarded - b2.forwarded, 400);   /* C -> A routed by port 1 */
  CHECK_EQ(a1.transit - b1.transit, 400);
  if (mode == SPINE_MODE_PEER) CHECK_EQ(a1.peer_out - b1.peer_out, 400);
  printf("  router process CPU while 800 packets were forwarded: %lld ns\n", t1 - t0);
  CHECK(t0 >= 0 && t1 - t0 < 10000000);   /* it waits on its pipe: nothing per packet */
}

static void t_to_router_host(void) {
  ippkt_make(pkt, 100, A_ADDR, B_ADDR, 5, 7);
  CHECK_EQ(spine_send(EA, 1, pkt, 100), 0);
  uint16_t node = 0;
  ssize_t g = spine_recvfrom(EB, got, sizeof got, &node, SEC);
  CHECK_EQ(g, 100);
  CHECK_EQ(node, 1);
  CHECK(ippkt_ok(got, 100, B_ADDR, 5, 7));   /* handed up: its TTL is untouched */
}

/* Each bad packet is dropped with its reason counted; C gets nothing. */
static void t_bad_packets(void) {
  struct spine_counters b = ctr(1);
  ippkt_make(pkt, 60, A_ADDR, C_ADDR, 64, 1);
  pkt[12] ^= 1;                                   /* header checksum */
  CHECK_EQ(spine_send(EA, 1, pkt, 60), 0);
  ippkt_make(pkt, 60, A_ADDR, C_ADDR, 1, 2);      /* TTL 1 */
  CHECK_EQ(spine_send(EA, 1, pkt, 60), 0);
  ippkt_make(pkt, 60, A_ADDR, C_ADDR, 0, 3);      /* TTL 0 */
  CHECK_EQ(spine_send(EA, 1, pkt, 60), 0);
  ippkt_make(pkt, 60, A_ADDR, C_ADDR, 64, 4);
  pkt[0] = 0x65;                                  /* IPv6's version */
  CHECK_EQ(spine_send(EA, 1, pkt, 60), 0);
  ippkt_make(pkt, 60, A_ADDR, C_ADDR, 64, 5);
  pkt[3] = 61;                                    /* total length beyond the packet */
  CHECK_EQ(spine_send(EA, 1, pkt, 60), 0);
  ippkt_make(pkt, 60, A_ADDR, IP4(192, 168, 1, 1), 64, 6);   /* no route */
  CHECK_EQ(spine_send(EA, 1, pkt, 60), 0);
  CHECK_EQ(spine_send(EA, 1, pkt, 19), -EMSGSIZE);
  CHECK_EQ(spine_send(EA, 1, pkt, SPINE_IP_MAX + 1), -EMSGSIZE);
  CHECK_EQ(spine_recv(EC, got, sizeof got, 200000000), -EAGAIN);
  struct spine_counters a = ctr(1);
  CHECK_EQ(a.bad_csum - b.bad_csum, 1);
  CHECK_EQ(a.ttl_expired - b.ttl_expired, 2);
  CHECK_EQ(a.bad_header - b.bad_header, 2);
  CHECK_EQ(a.no_route - b.no_route, 1);
  CHECK_EQ(a.forwarded - b.forwarded, 0);
}

static atomic_uint sent;
static atomic_bool stop;

static void *streamer(void *arg) {
  (void)arg;
  static uint8_t p[64];
  for (uint32_t k = 0; !atomic_load(&stop); k++) {
    ippkt_make(p, 64, A_ADDR, C_ADDR, 64, k);
    if (spine_send(EA, 1, p, 64) != 0) break;
    atomic_store(&sent, k + 1);
    if (k % 4 == 3) usleep(200);
  }
  return NULL;
}

/* A streams to C while the router deletes C's route and then adds it back: what A sends after
 * the delete returned never arrives while the route is gone (it is counted as no route, unless
 * it was still on its way when the route came back); what A sends after the add returned
 * arrives; nothing arrives twice. */
static void t_delete_add_while_flowing(void) {
  static uint8_t seen[1u << 16];
  memset(seen, 0, sizeof seen);
  struct spine_counters b = ctr(1);
  atomic_store(&sent, 0);
  atomic_store(&stop, false);
  pthread_t th;
  pthread_create(&th, NULL, streamer, NULL);
  unsigned dups = 0, late = 0, revived = 0, after_add = 0, arrived = 0;
  uint32_t cut = UINT32_MAX, before_add = UINT32_MAX, added = UINT32_MAX;
  uint64_t t_end = lnic_now_ns() + 6000000000ull;
  while (lnic_now_ns() < t_end) {
    uint32_t n = atomic_load(&sent);
    if (cut == UINT32_MAX && n >= 300) {
      CHECK_EQ(ask('d'), 'D');
      cut = atomic_load(&sent) + 1;   /* packets from cut on were posted after the delete */
    } else if (cut != UINT32_MAX && before_add == UINT32_MAX && n >= cut + 300) {
      before_add = atomic_load(&sent);
      CHECK_EQ(ask('a'), 'D');
      added = atomic_load(&sent) + 1; /* posted after the add */
    } else if (added != UINT32_MAX && n >= added + 300) {
      atomic_store(&stop, true);
    }
    ssize_t g = spine_recv(EC, got, sizeof got, 20000000);
    if (g == -EAGAIN && atomic_load(&stop)) break;
    if (g != 64) continue;
    uint32_t k = ippkt_get32(got + 20);
    arrived++;
    if (k < sizeof seen && seen[k]++) dups++;
    if (k >= cut && before_add == UINT32_MAX) late++;          /* the route was gone */
    else if (k >= cut && k < before_add) revived++;            /* on its way at the add */
    else if (k >= added && added != UINT32_MAX) after_add++;
  }
  atomic_store(&stop, true);
  pthread_join(th, NULL);
  struct spine_counters a = ctr(1);
  printf("  %u sent, %u arrived; deleted after %u, added back after %u; %llu counted no route, "
         "%u arrived of those sent after the add\n", atomic_load(&sent), arrived, cut - 1,
         before_add, (unsigned long long)(a.no_route - b.no_route), after_add);
  CHECK(cut != UINT32_MAX && added != UINT32_MAX && arrived > 0);
  CHECK_EQ(dups, 0);
  CHECK_EQ(late, 0);
  CHECK(before_add != UINT32_MAX && a.no_route - b.no_route + revived >= before_add - cut);
  CHECK(after_add > 0);
  stream(EA, 1, EC, 2, A_ADDR, C_ADDR, 8, 50000);
}

/* nicstat shows the router's counters of port 0. */
static void t_nicstat(void) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "build/bin/nicstat %s | grep -Eq 'dropped: no route [1-9].*TTL expired [1-9]'",
           nicd_dev(1));
  CHECK_EQ(system(cmd), 0);
}

/* The router program's errors, on a router of its own over the same ports. */
static void t_misuse(void) {
  struct spine_router *r = NULL;
  struct lnic_dev *p[2] = {D[1], D[2]};
  CHECK_EQ(spine_router_open(p, 0, SPINE_MODE_FABRIC, &r), -EINVAL);
  CHECK_EQ(spine_router_open(p, 2, 7, &r), -EINVAL);
  CHECK_EQ(spine_router_open(p, 2, mode, &r), 0);
  CHECK_EQ(spine_route_add(r, 0, 33, SPINE_HOP(3, 1, 0)), -EINVAL);
  CHECK_EQ(spine_route_add(r, 0, 8, SPINE_HOP(3, 2, 0)), -EINVAL);     /* no port 2 */
  CHECK_EQ(spine_route_add(r, 0, 8, SPINE_HOP(3, 1, 0x80)), -EINVAL);  /* unknown flag */
  CHECK_EQ(spine_route_add(r, IP4(10, 9, 0, 0), 16, SPINE_HOP(3, 1, 0)), 0);
  CHECK_EQ(spine_route_add(r, IP4(10, 9, 7, 7), 16, SPINE_HOP(0, 0, 0)), -EEXIST);
  CHECK_EQ(spine_route_del(r, IP4(10, 8, 0, 0), 16), -ENOENT);
  CHECK_EQ(spine_route_del(r, IP4(10, 9, 0, 0), 16), 0);
  CHECK_EQ(spine_route_count(r), 0);
  static struct spine_route many[SPINE_LPM_NHOP + 1];
  for (unsigned i = 0; i <= SPINE_LPM_NHOP; i++)
    many[i] = (struct spine_route){IP4(20, i, 0, 0), 16, SPINE_HOP(100 + i, 0, 0)};
  CHECK_EQ(spine_route_add_many(r, many, SPINE_LPM_NHOP + 1), -ENOSPC);   /* next hops */
  CHECK_EQ(spine_route_count(r), 0);
  spine_router_close(r);
}

static void run_mode(unsigned m) {
  mode = m;
  printf("%s\n", m == SPINE_MODE_PEER ? "-- by peer DMA" : "-- over the fabric");
  if (!router_start()) {
    printf("the router program did not start\n");
    vt_failed++;
    return;
  }
  RUN(t_forward_both_ways);
  RUN(t_to_router_host);
  RUN(t_bad_packets);
  RUN(t_nicstat);
  RUN(t_delete_add_while_flowing);
  router_stop();
  RUN(t_misuse);
}

int main(void) {
  pid_t nicd = nicd_start(4, false);
  if (nicd < 0) return 1;
  for (int i = 0; i < 4; i++)
    if (lnic_open(nicd_dev(i), &D[i])) {
      printf("lnic_open failed\n");
      nicd_stop(nicd, false);
      return 1;
    }
  if (spine_ep_open(D[0], &EA) || spine_ep_open(D[1], &EB) || spine_ep_open(D[3], &EC)) {
    printf("spine_ep_open failed\n");
    nicd_stop(nicd, false);
    return 1;
  }
  struct spine_ep *x = NULL;
  CHECK_EQ(spine_ep_open(D[0], &x), -EADDRINUSE);
  run_mode(SPINE_MODE_FABRIC);
  run_mode(SPINE_MODE_PEER);
  spine_ep_close(EA);
  spine_ep_close(EB);
  spine_ep_close(EC);
  for (int i = 0; i < 4; i++) lnic_close(D[i]);
  nicd_stop(nicd, false);
  return vt_summary();
}
