/* bench_spine: SPINE's IP router (`make bench-spine`): packets per second forwarded by one
 * router NIC and the latency through the router, A (nic0) -> B (nic1 in, nic2 out) -> C
 * (nic3), for the forwarding firmware over the fabric (SPINE's "Wire") and by peer DMA
 * (SPINE's "PCI"), beside a host-based forwarder: a process on B that receives each packet on
 * nic1, runs the same lookup (fw_lpm.c on the same table) and TTL update (fw_ipv4.c) and sends
 * it again on nic2. The three run interleaved, round after round; medians and spread (min-max)
 * are printed, with the CPU time of B's processes. The table holds ROUTES random routes
 * besides C's.
 *
 * Options: --rounds R, --count N (packets per rate measurement), --size S (IP packet bytes),
 * --window W[,W...] (packets in flight; with several, each configuration's figure is the
 * best rate among them that drops at most 0.5 % of the packets, SPINE's rule), --lat K
 * (latency samples). With VERINIC_TIMING=PROFILE (and
 * the LANai image) the run is in nicd's virtual time: the figures are what this firmware does
 * on that hardware, printed beside the SPINE paper's (33 MHz LANai, 200 MHz Pentium Pro). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../bench/stats.h"
#include "../../bench/summary.h"
#include "../common/nicd_run.h"
#include "fw_ipv4.h"
#include "fw_lpm.h"
#include "ippkt.h"
#include "proc_cpu.h"
#include "spine.h"

#define ROUTES 1000
#define A_ADDR IP4(10, 0, 0, 1)
#define C_ADDR IP4(10, 3, 0, 1)
#define C_HOP SPINE_HOP(3, 1, 0)

enum { FABRIC, PEER, HOST, NCFG };
static const char *const cfg_name[NCFG] = {"NIC router, fabric", "NIC router, peer DMA",
                                           "host forwarder"};

static int rounds = 5, count = 2000, size = 64, window = 8, nlat = 200;
static int wins[4] = {8}, nwin = 1;
static struct spine_route routes[ROUTES + 1];
static uint8_t pkt[SPINE_IP_MAX], got[SPINE_IP_MAX];
static struct spine_ep *EA, *EC;
static struct lnic_dev *B1, *B2;   /* the router's ports, for their counters */

/* C's route and ROUTES random others out of port 0, none covering C's /16, no two alike. */
static void make_routes(void) {
  srandom(60);
  routes[0] = (struct spine_route){IP4(10, 3, 0, 0), 16, C_HOP};
  for (int i = 1; i <= ROUTES; i++) {
    uint32_t p = (uint32_t)random() << 8 ^ (uint32_t)random();
    uint8_t len = (uint8_t)(8 + random() % 25);
    p &= ~0u << (32 - len);
    if (p >> 24 == 10) p ^= 0x40000000u;
    routes[i] = (struct spine_route){p, len, SPINE_HOP(random() % 32, 0, 0)};
    for (int j = 0; j < i; j++)
      if (routes[j].prefix == p && routes[j].len == len) i--, j = i;   /* drawn again */
  }
}

static struct lnic_dev *open_pair(const char *dev1, const char *dev2, struct lnic_dev **p) {
  int rc = lnic_open(dev1, &p[0]);
  if (!rc && (rc = lnic_open(dev2, &p[1])) != 0) lnic_close(p[0]);
  if (rc) printf("  cannot open %s, %s: %s\n", dev1, dev2, strerror(-rc));
  return rc ? NULL : p[0];
}

/* The router program (bench_spine --router MODE DEV1 DEV2): loads the table and leaves (the
 * NICs go on forwarding), or, for the host forwarder's runs (MODE 2), turns routing off. */
static int router_main(int mode, const char *dev1, const char *dev2) {
  struct lnic_dev *p[2];
  struct spine_router *r = NULL;
  if (!open_pair(dev1, dev2, p)) return 1;
  int rc = spine_router_open(p, 2, mode == PEER ? SPINE_MODE_PEER : SPINE_MODE_FABRIC, &r);
  if (rc) {
    printf("  the router program: %s\n", strerror(-rc));
    return 1;
  }
  if (mode == HOST) {
    spine_router_close(r);
  } else if ((rc = spine_route_add_many(r, routes, ROUTES + 1)) != 0) {
    printf("  the router program: %s\n", strerror(-rc));
    spine_router_close(r);
  } else {
    printf("  (table: %u routes in %zu bytes)\n", spine_route_count(r), spine_table_size(r));
    spine_router_detach(r);   /* the table stays in use */
  }
  lnic_close(p[0]);
  lnic_close(p[1]);
  return rc ? 1 : 0;
}

/* The host-based forwarder (bench_spine --forward DEV1 DEV2): receives on DEV1, looks up,
 * decrements TTL, sends on DEV2, until SIGTERM. */
static volatile sig_atomic_t fwd_stop;
static void on_term(int s) { (void)s; fwd_stop = 1; }

static int forwarder_main(const char *dev1, const char *dev2) {
  struct lnic_dev *p[2];
  struct spine_ep *in = NULL, *out = NULL;
  static uint8_t table[SPINE_BANK_SIZE], b[SPINE_IP_MAX];
  signal(SIGTERM, on_term);
  if (!open_pair(dev1, dev2, p) || spine_ep_open(p[0], &in) || spine_ep_open(p[1], &out) ||
      spine_lpm_build(routes, ROUTES + 1, 1, table, sizeof table) < 0)
    return 1;
  while (!fwd_stop) {
    ssize_t n = spine_recv(in, b, sizeof b, 20000000);
    uint32_t hop;
    if (n < 0) continue;
    if (fw_ipv4_check(b, (uint32_t)n) != FW_IPV4_OK || !fw_lpm_lookup(table, fw_ipv4_dst(b), &hop)) continue;
    fw_ipv4_ttl_dec(b);
    (void)spine_send(out, SPINE_HOP_NODE(hop), b, (size_t)n);
  }
  spine_ep_close(in);
  spine_ep_close(out);
  lnic_close(p[0]);
  lnic_close(p[1]);
  return 0;
}

/* Runs this program again (a fresh process: in timing mode each is a logical process of its
 * own) as `--router MODE` or `--forward` on nic1 and nic2. */
static pid_t spawn(const char *role, int mode) {
  char m[16];
  snprintf(m, sizeof m, "%d", mode);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    char *argv[] = {"bench_spine", (char *)role, m, (char *)nicd_dev(1), (char *)nicd_dev(2), NULL};
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  return pid;
}

static int reap(pid_t pid) {
  int st = 0;
  lnic_vt_outside(true);
  waitpid(pid, &st, 0);
  lnic_vt_outside(false);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) printf("  (process %d: status %#x)\n", (int)pid, st);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

struct result {
  double pps, lat_med, lat_p10, lat_p90, lost, cpu;
  int win;
};

/* Packets per second A -> C with at most `window` in flight (a packet not back within 50 ms
 * is counted lost), and the latency of single packets; every packet received is checked. */
static struct result measure(pid_t busy) {
  struct result r = {0};
  unsigned sent = 0, done = 0, lost = 0, bad = 0;
  long long c0 = busy > 0 ? proc_cpu_ns(busy) : 0;
  double w0 = stats_now_us(), t0 = w0;
  struct timespec rt0;
  clock_gettime(CLOCK_MONOTONIC, &rt0);
  while (done < (unsigned)count) {
    while (sent < (unsigned)count && sent - done < (unsigned)window) {
      ippkt_make(pkt, (size_t)size, A_ADDR, C_ADDR, 64, sent);
      if (spine_send(EA, 1, pkt, (size_t)size) == 0) sent++;
    }
    ssize_t g = spine_recv(EC, got, sizeof got, 50000000);
    if (g == -EAGAIN) lost += sent - done, done = sent;
    else if (g > 0 && (done++, g != size || ippkt_csum(got, 20) != 0 || got[8] != 63)) bad++;
  }
  double el = stats_now_us() - t0;
  struct timespec rt1;
  clock_gettime(CLOCK_MONOTONIC, &rt1);
  double wall = (double)(rt1.tv_sec - rt0.tv_sec) + (double)(rt1.tv_nsec - rt0.tv_nsec) / 1e9;
  r.pps = (double)(count - lost) / (el / 1e6);
  r.lost = lost;
  if (busy > 0) r.cpu = (double)(proc_cpu_ns(busy) - c0) / 1e9 / wall * 100.0;
  if (bad) printf("  %u packets damaged\n", bad);
  double *lat = calloc((size_t)nlat, sizeof *lat);
  int k = 0;
  for (int i = 0; i < nlat; i++) {
    ippkt_make(pkt, (size_t)size, A_ADDR, C_ADDR, 64, 1000000u + (unsigned)i);
    double s = stats_now_us();
    if (spine_send(EA, 1, pkt, (size_t)size) != 0) continue;
    if (spine_recv(EC, got, sizeof got, 50000000) == size) lat[k++] = stats_now_us() - s;
  }
  stats_sort(lat, (size_t)k);
  if (k) {
    r.lat_med = lat[k / 2];
    r.lat_p10 = lat[k / 10];
    r.lat_p90 = lat[k * 9 / 10];
  }
  free(lat);
  (void)w0;
  return r;
}

static struct result run_cfg(int c) {
  struct result r = {0};
  pid_t fwd = -1;
  int rc = reap(spawn("--router", c));
  if (rc != 0) {
    printf("  %s: the router program failed\n", cfg_name[c]);
    return r;
  }
  if (c == HOST) {
    fwd = spawn("--forward", 0);
    usleep(200000);
  }
  struct spine_counters k1, k2, e1, e2;
  spine_nic_counters(B1, &k1);
  spine_nic_counters(B2, &k2);
  for (int w = 0; w < nwin; w++) {   /* the best rate that drops at most 0.5 % */
    window = wins[w];
    struct result x = measure(c == HOST ? fwd : -1);
    x.win = window;
    bool ok = x.lost <= count * 0.005, was_ok = w > 0 && r.lost <= count * 0.005;
    if (w == 0 || (ok && (!was_ok || x.pps > r.pps)) || (!ok && !was_ok && x.lost < r.lost)) r = x;
  }
  spine_nic_counters(B1, &e1);
  spine_nic_counters(B2, &e2);
  if (c != HOST)
    printf("  B, every window: forwarded %llu, sent on %llu, dropped busy %llu (in) %llu (out), damaged %llu\n",
           (unsigned long long)(e1.forwarded - k1.forwarded), (unsigned long long)(e2.transit - k2.transit),
           (unsigned long long)(e1.busy - k1.busy), (unsigned long long)(e2.busy - k2.busy),
           (unsigned long long)(e1.damaged - k1.damaged + e2.damaged - k2.damaged));
  if (fwd > 0) {
    kill(fwd, SIGTERM);
    (void)reap(fwd);
  }
  return r;
}

static double med(double *v, int n) {
  stats_sort(v, (size_t)n);
  return v[n / 2];
}

int main(int argc, char **argv) {
  make_routes();
  if (argc == 5 && !strcmp(argv[1], "--router")) return router_main(atoi(argv[2]), argv[3], argv[4]);
  if (argc == 5 && !strcmp(argv[1], "--forward")) return forwarder_main(argv[3], argv[4]);
  for (int i = 1; i + 1 < argc; i += 2) {
    int v = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--rounds")) rounds = v;
    else if (!strcmp(argv[i], "--count")) count = v;
    else if (!strcmp(argv[i], "--size")) size = v;
    else if (!strcmp(argv[i], "--window")) {
      nwin = 0;
      for (const char *t = argv[i + 1]; t && nwin < 4; t = strchr(t, ',')) {
        if (*t == ',') t++;
        wins[nwin++] = atoi(t);
      }
    }
    else if (!strcmp(argv[i], "--lat")) nlat = v;
    else {
      fprintf(stderr, "usage: bench_spine [--rounds R] [--count N] [--size S] [--window W] [--lat K]\n");
      return 2;
    }
  }
  if (size < 28 || size > (int)SPINE_IP_MAX || rounds < 1 || count < 1) return 2;
  for (int w = 0; w < nwin; w++)
    if (wins[w] < 1) return 2;
  const char *timing = getenv("VERINIC_TIMING");
  pid_t nicd = nicd_start(4, false);
  if (nicd < 0) return 1;
  struct lnic_dev *a = NULL, *c = NULL;
  if (lnic_open(nicd_dev(0), &a) || lnic_open(nicd_dev(3), &c) || lnic_open(nicd_dev(1), &B1) ||
      lnic_open(nicd_dev(2), &B2) || spine_ep_open(a, &EA) ||
      spine_ep_open(c, &EC)) {
    printf("cannot open the endpoints\n");
    nicd_stop(nicd, false);
    return 1;
  }
  printf("SPINE router: %d-byte IP packets A -> B -> C, %d per run, %d rounds%s%s; in flight:",
         size, count, rounds, timing ? ", timing mode: " : "", timing ? timing : "");
  for (int w = 0; w < nwin; w++) printf(" %d", wins[w]);
  printf("\n");
  static double pps[NCFG][64], lat[NCFG][64], cpu[NCFG][64], lost[NCFG][64];
  int nr = rounds > 64 ? 64 : rounds;
  for (int r = 0; r < nr; r++)
    for (int k = 0; k < NCFG; k++) {
      struct result x = run_cfg(k);
      pps[k][r] = x.pps;
      lat[k][r] = x.lat_med;
      cpu[k][r] = x.cpu;
      lost[k][r] = x.lost;
      printf("  round %d %-22s %9.0f pkts/s (%d in flight)  latency %7.1f us (p10 %.1f, p90 %.1f)  lost %.0f\n",
             r + 1, cfg_name[k], x.pps, x.win, x.lat_med, x.lat_p10, x.lat_p90, x.lost);
      if (k == HOST && !timing) printf("      host forwarder CPU %.0f %%\n", x.cpu);
    }
  double m[NCFG], l[NCFG];
  printf("\n%-22s %12s %12s %12s %12s %10s\n", "", "pkts/s", "(min-max)", "latency us", "(min-max)",
         timing ? "" : "B's CPU");
  for (int k = 0; k < NCFG; k++) {
    double lo = 1e30, hi = 0, llo = 1e30, lhi = 0;
    for (int r = 0; r < nr; r++) {
      lo = pps[k][r] < lo ? pps[k][r] : lo, hi = pps[k][r] > hi ? pps[k][r] : hi;
      llo = lat[k][r] < llo ? lat[k][r] : llo, lhi = lat[k][r] > lhi ? lat[k][r] : lhi;
    }
    m[k] = med(pps[k], nr);
    l[k] = med(lat[k], nr);
    double cp = med(cpu[k], nr);
    printf("%-22s %12.0f %5.0f-%-6.0f %12.1f %5.1f-%-6.1f", cfg_name[k], m[k], lo, hi, l[k], llo, lhi);
    if (!timing) printf(" %8.0f %%", k == HOST ? cp : 0.0);
    printf("\n");
  }
  if (timing) {
    printf("\nSPINE paper (33 MHz LANai, 200 MHz Pentium Pro): 14,100 pkts/s over the switch "
           "fabric, 11,300 over PCI, host-based router 12,000 at 100%% CPU\n");
    printf("this firmware on %s: %.0f (fabric), %.0f (peer DMA), host forwarder %.0f\n", timing,
           m[FABRIC], m[PEER], m[HOST]);
  }
  summary_header();
  summary_row(timing ? "SPINE fabric pkts/s (timing)" : "SPINE fabric pkts/s per NIC", m[FABRIC],
              "host forwarder", m[HOST], 1.0, true);
  summary_row(timing ? "SPINE peer DMA pkts/s (timing)" : "SPINE peer DMA pkts/s per NIC", m[PEER],
              "host forwarder", m[HOST], 1.0, true);
  if (timing) {
    summary_row("SPINE fabric pkts/s vs paper", m[FABRIC], "SPINE paper, Wire", 14100, 1.0, true);
    summary_row("SPINE peer DMA pkts/s vs paper", m[PEER], "SPINE paper, PCI", 11300, 1.0, true);
  }
  spine_ep_close(EA);
  spine_ep_close(EC);
  lnic_close(a);
  lnic_close(c);
  lnic_close(B1);
  lnic_close(B2);
  nicd_stop(nicd, false);
  (void)lost;
  return 0;
}
