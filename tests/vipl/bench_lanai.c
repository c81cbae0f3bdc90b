/* bench_lanai.c: `make bench-lanai` (bench_vipl --lanai): the firmware deployed onto LANai
 * (nicd --lanai, the image on the instruction-set simulator) beside the native firmware.
 *   1. Firmware instructions and cycles per VIPL message by event class, for 4 B, 1 KiB,
 *      4 KiB and 32 KiB messages (reliable VI, node 1 sends a burst of BURST to node 0): the
 *      sending NIC and the receiving NIC, from the processor counters nicd keeps in each NIC's
 *      window (iface/window.h, struct hw_cpu). Idle polling is left out (it depends on time).
 *   2. The simulator's speed inside nicd: instructions over nicd's processor time while it
 *      streams 1 MiB messages.
 *   3. VIPL 4 B ping-pong latency (median, p99) and 1 MiB streaming bandwidth, native and
 *      LANai, in the same run (nicd --fast).
 *   4. The PANIC ping of the paper's Fig. 2 (tests/pdl/examples/ping.pdl on NIC 0, an echo
 *      program on NIC 1, 100 round trips): instructions and cycles per round trip on each NIC.
 * Not part of `make test`. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../bench/stats.h"
#include "../common/nicd_run.h"
#include "bench_vipl.h"
#include "libnic.h"
#include "panic.h"

#define BURST 24            /* messages per measured burst (the receive ring holds 32) */
#define ROUNDS 4            /* bursts per size: the counts are summed over them */
#define LAT_N 1000
#define BW_N 64

static const uint32_t count_sizes[] = {4, 1024, 4096, 32768};
#define NCOUNT (sizeof count_sizes / sizeof count_sizes[0])

struct snap { uint64_t insns[HW_CPU_NCLASS], cycles[HW_CPU_NCLASS]; };

static void take(int node, struct snap *s) {
  struct hwin w;
  if (hwin_open(&w, nicd_dev(node)) != 0) { memset(s, 0, sizeof *s); return; }
  for (unsigned k = 0; k < HW_CPU_NCLASS; k++) {
    s->insns[k] = w.regs->cpu.class_insns[k];
    s->cycles[k] = w.regs->cpu.class_cycles[k];
  }
  hwin_close(&w);
}

static uint64_t total_insns(int nnics) {
  uint64_t t = 0;
  for (int i = 0; i < nnics; i++) {
    struct hwin w;
    if (hwin_open(&w, nicd_dev(i)) != 0) continue;
    t += w.regs->cpu.insns;
    hwin_close(&w);
  }
  return t;
}

/* nicd's processor time (user + system) in seconds. */
static double cpu_seconds(pid_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  unsigned long ut = 0, st = 0;
  if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
  return 0;
}

/* ---- 1. per-message counts ---- */
static void byte_io(int fd, bool out) {
  char c = 'x';
  if ((out ? write(fd, &c, 1) : read(fd, &c, 1)) != 1) exit(1);
}

/* Node 1 sends BURST messages per step, node 0 receives them; each step starts when the
 * parent says go (down) and is reported done (up). */
static void count_side(int node, int up, int down) {
  struct vep e;
  vep_open(&e, node);
  unsigned out = 0;
  for (unsigned s = 0; s < NCOUNT * ROUNDS; s++) {
    byte_io(up, true);
    byte_io(down, false);
    for (unsigned i = 0; i < BURST; i++) {
      if (node == 1) vsend(&e, i, count_sizes[s / ROUNDS], i), out++;
      else (void)vrecv(&e);
    }
    if (node == 1) vreap_sends(&e, true, &out);
    byte_io(up, true);
  }
  struct timespec ts = {0, 200000000};
  nanosleep(&ts, NULL);
}

static int counts(struct snap sent[NCOUNT], struct snap recv[NCOUNT]) {
  int up[2], down[2][2];
  if (pipe(up) || pipe(down[0]) || pipe(down[1])) return -1;
  pid_t pid[2];
  for (int n = 0; n < 2; n++)
    if ((pid[n] = fork()) == 0) {
      count_side(n, up[1], down[n][0]);
      _exit(0);
    }
  memset(sent, 0, NCOUNT * sizeof *sent);
  memset(recv, 0, NCOUNT * sizeof *recv);
  for (unsigned s = 0; s < NCOUNT * ROUNDS; s++) {
    struct snap a0, a1, b0, b1;
    byte_io(up[0], false), byte_io(up[0], false);   /* both ready */
    take(0, &a0), take(1, &a1);
    byte_io(down[0][1], true), byte_io(down[1][1], true);
    byte_io(up[0], false), byte_io(up[0], false);   /* both done */
    struct timespec ts = {0, 20000000};             /* acknowledgements settle */
    nanosleep(&ts, NULL);
    take(0, &b0), take(1, &b1);
    for (unsigned k = 0; k < HW_CPU_NCLASS; k++) {
      recv[s / ROUNDS].insns[k] += b0.insns[k] - a0.insns[k];
      recv[s / ROUNDS].cycles[k] += b0.cycles[k] - a0.cycles[k];
      sent[s / ROUNDS].insns[k] += b1.insns[k] - a1.insns[k];
      sent[s / ROUNDS].cycles[k] += b1.cycles[k] - a1.cycles[k];
    }
  }
  int st0, st1;
  waitpid(pid[0], &st0, 0), waitpid(pid[1], &st1, 0);
  return WIFEXITED(st0) && !WEXITSTATUS(st0) && WIFEXITED(st1) && !WEXITSTATUS(st1) ? 0 : -1;
}

static void print_counts(const char *side, const struct snap c[NCOUNT]) {
  printf("\n%s NIC: firmware instructions / cycles per message, by event class\n", side);
  printf("%-14s", "class");
  for (unsigned i = 0; i < NCOUNT; i++) printf(" | %8u B insns   cycles", count_sizes[i]);
  printf("\n");
  uint64_t ti[NCOUNT] = {0}, tc[NCOUNT] = {0};
  for (unsigned k = 1; k < HW_CPU_NCLASS; k++) {
    bool any = false;
    for (unsigned i = 0; i < NCOUNT; i++) any |= c[i].insns[k] != 0;
    if (!any) continue;
    printf("%-14s", hw_cpu_class_name(k));
    for (unsigned i = 0; i < NCOUNT; i++) {
      uint64_t n = (uint64_t)BURST * ROUNDS;
      printf(" | %16" PRIu64 " %8" PRIu64, c[i].insns[k] / n, c[i].cycles[k] / n);
      ti[i] += c[i].insns[k], tc[i] += c[i].cycles[k];
    }
    printf("\n");
  }
  printf("%-14s", "total");
  for (unsigned i = 0; i < NCOUNT; i++)
    printf(" | %16" PRIu64 " %8" PRIu64, ti[i] / (BURST * ROUNDS), tc[i] / (BURST * ROUNDS));
  printf("\n");
}

/* ---- 4. the PANIC ping ---- */
#define PING_TRIPS 100

static int pdl(const char *src, const char *out) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s -o %s %s", getenv("PDLC") ? getenv("PDLC") : "build/bin/pdlc",
           out, src);
  return system(cmd) == 0 ? 0 : -1;
}

/* Ping on NIC 0, echo on NIC 1, as the e2e test's Fig. 2; the counts of the ping's run. */
static int ping_counts(struct snap *n0, struct snap *n1) {
  char ping[64], echo[64];
  snprintf(ping, sizeof ping, "/tmp/bench-lanai-%d-ping.pvm", (int)getpid());
  snprintf(echo, sizeof echo, "/tmp/bench-lanai-%d-echo.pvm", (int)getpid());
  struct panic_dev *p;
  struct panic_res r;
  int rc = -1;
  if (pdl("tests/pdl/examples/ping.pdl", ping) || pdl("tests/panic/echo.pdl", echo) ||
      panic_open(nicd_dev(0), &p) != 0)
    goto out;
  uint16_t a = panic_node(p), b = (uint16_t)(a + 1);
  struct snap a0, a1, b0, b1;
  struct hostif_panic_display d[2 * PING_TRIPS];
  int got = 0;
  if (panic_load_file(p, b, 415, echo, &r) || panic_run(p, b, 415, &r) ||
      panic_route(p, 0x00000060dd7fff8cull, b, false, &r) || panic_load_file(p, a, 1, ping, &r))
    goto close;
  take(0, &a0), take(1, &b0);
  if (panic_run(p, a, 1, &r)) goto close;
  for (int tries = 0; tries < 1000 && got < 2 * PING_TRIPS; tries++) {
    int n = panic_display_read(p, d + got, (unsigned)(2 * PING_TRIPS - got));
    got += n > 0 ? n : 0;
    if (got < 2 * PING_TRIPS) usleep(10000);
  }
  take(0, &a1), take(1, &b1);
  for (unsigned k = 0; k < HW_CPU_NCLASS; k++) {
    n0->insns[k] = a1.insns[k] - a0.insns[k], n0->cycles[k] = a1.cycles[k] - a0.cycles[k];
    n1->insns[k] = b1.insns[k] - b0.insns[k], n1->cycles[k] = b1.cycles[k] - b0.cycles[k];
  }
  rc = got == 2 * PING_TRIPS ? 0 : -1;
close:
  panic_close(p);
out:
  unlink(ping), unlink(echo);
  return rc;
}

static void print_ping(const struct snap *n0, const struct snap *n1) {
  printf("\nPANIC ping (Fig. 2, %u round trips): firmware instructions / cycles per round trip\n",
         PING_TRIPS);
  printf("%-14s | %16s %8s | %16s %8s\n", "class", "NIC 0 (ping) insns", "cycles",
         "NIC 1 (echo) insns", "cycles");
  uint64_t t[4] = {0};
  for (unsigned k = 1; k < HW_CPU_NCLASS; k++) {
    if (!n0->insns[k] && !n1->insns[k]) continue;
    printf("%-14s | %18" PRIu64 " %8" PRIu64 " | %18" PRIu64 " %8" PRIu64 "\n", hw_cpu_class_name(k),
           n0->insns[k] / PING_TRIPS, n0->cycles[k] / PING_TRIPS, n1->insns[k] / PING_TRIPS,
           n1->cycles[k] / PING_TRIPS);
    t[0] += n0->insns[k], t[1] += n0->cycles[k], t[2] += n1->insns[k], t[3] += n1->cycles[k];
  }
  printf("%-14s | %18" PRIu64 " %8" PRIu64 " | %18" PRIu64 " %8" PRIu64 "\n", "total",
         t[0] / PING_TRIPS, t[1] / PING_TRIPS, t[2] / PING_TRIPS, t[3] / PING_TRIPS);
}

/* ---- 2./3. latency and bandwidth ---- */
struct quick { double lat_med, lat_p99, bw; };

static void quick_side(int node, int port, int fd) {
  (void)port;
  struct vep e;
  vep_open(&e, node);
  unsigned out = 0;
  double *s = malloc(sizeof(double) * LAT_N);
  struct quick q = {0};
  for (unsigned i = 0; i < LAT_N + 10; i++) {
    double t0 = stats_now_us();
    if (node == 1) vsend(&e, i, 4, i), out++, vrecv(&e);
    else vrecv(&e), vsend(&e, i, 4, i), out++;
    if (node == 1 && i >= 10) s[i - 10] = (stats_now_us() - t0) / 2;
    vreap_sends(&e, false, &out);
  }
  vreap_sends(&e, true, &out);
  if (node == 1) stats_med_p99(s, LAT_N, &q.lat_med, &q.lat_p99);
  double t0 = stats_now_us();
  unsigned credit = 0;
  for (unsigned i = 0; i < BW_N; i++) {   /* node 0 returns a credit every 8 messages */
    if (node == 1) {
      while (i >= credit + 24) credit = vrecv(&e);
      vsend(&e, i, MAXMSG, i), out++;
    } else {
      vrecv(&e);
      if ((i + 1) % 8 == 0 || i + 1 == BW_N) vsend(&e, i, 0, i + 1), out++;
    }
    vreap_sends(&e, false, &out);
  }
  if (node == 1) {
    while (credit < BW_N) credit = vrecv(&e);
    q.bw = (double)MAXMSG * BW_N / (stats_now_us() - t0);
  }
  vreap_sends(&e, true, &out);
  struct result r = {.lat_med = {q.lat_med}, .lat_p99 = {q.lat_p99}, .bw = {q.bw}};
  if (node == 1 && write(fd, &r, sizeof r) != sizeof r) exit(1);
  free(s);
  if (node == 0) {
    struct timespec ts = {0, 200000000};
    nanosleep(&ts, NULL);
  }
}

struct lanai_counts { struct snap sent[NCOUNT], recv[NCOUNT], ping0, ping1; };

static int run_firmware(bool lanai, struct result *r, double *mips, struct lanai_counts *lc) {
  if (lanai) setenv("VERINIC_FIRMWARE", "lanai", 1);
  else unsetenv("VERINIC_FIRMWARE");
  pid_t nicd = nicd_start(2, true);
  if (nicd <= 0) return -1;
  int rc = 0;
  if (lanai) rc |= counts(lc->sent, lc->recv) | ping_counts(&lc->ping0, &lc->ping1);
  double c0 = cpu_seconds(nicd);
  uint64_t i0 = total_insns(2);
  rc |= run_pair(quick_side, 0, r);
  if (lanai) *mips = (double)(total_insns(2) - i0) / (cpu_seconds(nicd) - c0) / 1e6;
  nicd_stop(nicd, false);
  return rc;
}

int bench_lanai(void) {
  struct result nat, lan;
  static struct lanai_counts lc;
  double mips = 0;
  if (run_firmware(false, &nat, NULL, NULL) || run_firmware(true, &lan, &mips, &lc)) {
    fprintf(stderr, "bench-lanai: a run failed\n");
    return 1;
  }
  printf("The firmware deployed onto LANai (nicd --lanai build/lanai/firmware.img) beside the\n"
         "native firmware, nicd --fast, one run. Reliable VI, node 1 -> node 0, %u x %u "
         "messages per size.\n", ROUNDS, BURST);
  print_counts("Sending", lc.sent);
  print_counts("Receiving", lc.recv);
  print_ping(&lc.ping0, &lc.ping1);
  printf("\nSimulator speed inside nicd, streaming 1 MiB messages: %.1f M LANai instructions per "
         "second of nicd processor time\n", mips);
  printf("\n%-22s | %12s | %12s\n", "VIPL (nicd --fast)", "native", "LANai (ISS)");
  printf("%-22s | %12.2f | %12.2f\n", "4 B latency median us", nat.lat_med[0], lan.lat_med[0]);
  printf("%-22s | %12.2f | %12.2f\n", "4 B latency p99 us", nat.lat_p99[0], lan.lat_p99[0]);
  printf("%-22s | %12.1f | %12.1f\n", "1 MiB bandwidth MB/s", nat.bw[0], lan.bw[0]);
  return 0;
}
