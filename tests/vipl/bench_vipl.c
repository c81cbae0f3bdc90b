/* `make bench-vipl`: native VIPL over nicd (--fast: transfers take no emulated time, so this
 * measures the host library, the firmware and the emulation) beside kernel TCP over loopback,
 * measured in the same run. Ping-pong latency (RTT/2, median and p99) for 4 B..32 KiB and
 * streaming bandwidth for 4 B..1 MiB, printed as one table; streaming again with nicd's NICs on
 * two threads (nicd --threads 2); streaming is the median of three interleaved rounds. Not part
 * of `make test`.
 * `bench_vipl --lanai` (`make bench-lanai`, bench_lanai.c) compares the two firmwares;
 * `--vipl-lat` and `--vipl-bw [SIZE [GIB]]` run one part of VIPL alone, without TCP and the
 * floors (for profiling the wait path or the data path; GIB: stream that many GiB per size, for
 * a profile's steady state). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../bench/stats.h"
#include "../../bench/summary.h"
#include "../common/nicd_run.h"
#include "bench_floor.h"
#include "bench_vipl.h"

#define WINDOW 24           /* sends ahead of the receiver's credit (its ring holds 32) */

const uint32_t lat_sizes[NLAT] = {4, 64, 256, 1024, 4096, 16384, 32768};
const uint32_t bw_sizes[NBW] = {4, 64, 1024, 4096, 16384, 65536, 262144, 1u << 20};


static unsigned iters_lat(uint32_t sz) { return sz <= 4096 ? 2000 : 500; }
static unsigned bw_gib = 1;   /* --vipl-bw SIZE GIB: stream longer (a profile's steady state) */
static unsigned iters_bw(uint32_t sz) {
  unsigned n = (unsigned)((1024u << 20) / sz);   /* a GiB at the large sizes: long enough
                                                     to outlast a scheduling hiccup */
  return (n < 200 ? 200 : n > 20000 ? 20000 : n) * bw_gib;
}

/* ---- VIPL ---- */
static void die(const char *what) {
  fprintf(stderr, "bench-vipl: %s\n", what);
  exit(1);
}

void vep_open(struct vep *e, int node) {
  VIP_PROTECTION_HANDLE pt;
  if (VipOpenNic(nicd_dev(node), &e->nic) || VipCreatePtag(e->nic, &pt)) die("open");
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY,
                         .MaxTransferSize = MAXMSG, .Ptag = pt};
  if (VipCreateVi(e->nic, &a, NULL, NULL, &e->vi)) die("create vi");
  size_t len = 2 * (size_t)MAXMSG + 2 * NPOST * sizeof(VIP_DESCRIPTOR);
  e->buf = aligned_alloc(4096, len);
  memset(e->buf, 0, len);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = pt};
  if (VipRegisterMem(e->nic, e->buf, len, &ma, &e->mh)) die("register");
  e->rd = (VIP_DESCRIPTOR *)(e->buf + 2 * (size_t)MAXMSG);
  e->sd = e->rd + NPOST;
  uint8_t raw[16];
  VIP_NET_ADDRESS *ad = (VIP_NET_ADDRESS *)raw;
  ad->HostAddressLen = 2, ad->DiscriminatorLen = 1;
  ad->HostAddress[0] = 0, ad->HostAddress[2] = 7;
  if (node == 0) {
    ad->HostAddress[1] = 0;
    uint8_t rraw[16];
    VIP_CONN_HANDLE c;
    VIP_VI_ATTRIBUTES ra;
    for (int i = 0; i < NPOST; i++) {   /* receives first: Reliable Delivery */
      VIP_DESCRIPTOR *d = &e->rd[i];
      d->CS.SegCount = 1;
      d->DS[0].Local.Data.Address = e->buf;
      d->DS[0].Local.Handle = e->mh;
      d->DS[0].Local.Length = MAXMSG;
      VipPostRecv(e->vi, d, e->mh);
    }
    if (VipConnectWait(e->nic, ad, 20000, (VIP_NET_ADDRESS *)rraw, &ra, &c)) die("wait");
    if (VipConnectAccept(c, e->vi)) die("accept");
  } else {
    for (int i = 0; i < NPOST; i++) {
      VIP_DESCRIPTOR *d = &e->rd[i];
      d->CS.SegCount = 1;
      d->DS[0].Local.Data.Address = e->buf;
      d->DS[0].Local.Handle = e->mh;
      d->DS[0].Local.Length = MAXMSG;
      VipPostRecv(e->vi, d, e->mh);
    }
    ad->HostAddress[1] = 0;
    VIP_VI_ATTRIBUTES ra;
    if (VipConnectRequest(e->vi, NULL, ad, 20000, &ra)) die("connect");
  }
}

void vsend(struct vep *e, unsigned k, uint32_t len, uint32_t imm) {
  VIP_DESCRIPTOR *d = &e->sd[k % NPOST];
  d->CS.Control = VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE;
  d->CS.ImmediateData = imm;
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = e->buf + MAXMSG;
  d->DS[0].Local.Handle = e->mh;
  d->DS[0].Local.Length = len;
  if (VipPostSend(e->vi, d, e->mh)) die("post send");
}

void vreap_sends(struct vep *e, bool all, unsigned *outstanding) {
  VIP_DESCRIPTOR *d;
  while (*outstanding && (all ? VipSendWait(e->vi, 10000, &d) : VipSendDone(e->vi, &d)) == VIP_SUCCESS) {
    if (d->CS.Status != VIP_STATUS_DONE) die("send failed");
    (*outstanding)--;
  }
}

uint32_t vrecv(struct vep *e) {
  VIP_DESCRIPTOR *d;
  if (VipRecvWait(e->vi, 10000, &d) != VIP_SUCCESS || (d->CS.Status & VIP_STATUS_ERROR_MASK))
    die("recv");
  uint32_t imm = d->CS.ImmediateData;
  d->CS.Control = 0;
  if (VipPostRecv(e->vi, d, e->mh)) die("repost");
  return imm;
}

/* Which parts vipl_side runs (--vipl-lat, --vipl-bw: one part alone, for profiling). */
static bool run_lat = true, run_bw = true;
static uint32_t bw_only;   /* --vipl-bw SIZE: that size alone */

/* node 0 echoes; node 1 measures and writes its results to fd. */
static void vipl_side(int node, int fd) {
  struct vep e;
  vep_open(&e, node);
  struct result res = {0};
  unsigned out = 0;
  double *s = malloc(sizeof(double) * 2000);
  for (unsigned li = 0; run_lat && li < NLAT; li++) {
    uint32_t sz = lat_sizes[li];
    unsigned n = iters_lat(sz);
    for (unsigned i = 0; i < n + 10; i++) {
      if (node == 1) {
        double t0 = stats_now_us();
        vsend(&e, i, sz, i), out++;
        vrecv(&e);
        if (i >= 10) s[i - 10] = (stats_now_us() - t0) / 2;
      } else {
        vrecv(&e);
        vsend(&e, i, sz, i), out++;
      }
      vreap_sends(&e, false, &out);
    }
    if (node == 1) stats_med_p99(s, n, &res.lat_med[li], &res.lat_p99[li]);
  }
  vreap_sends(&e, true, &out);
  /* Streaming, node 1 -> node 0; node 0 returns a credit every 8 messages. */
  for (unsigned bi = 0; run_bw && bi < NBW; bi++) {
    uint32_t sz = bw_sizes[bi];
    unsigned n = iters_bw(sz);
    if (bw_only && sz != bw_only) continue;
    if (node == 1) {
      double t0 = stats_now_us();
      unsigned credit = 0;
      for (unsigned i = 0; i < n; i++) {
        while (i >= credit + WINDOW) credit = vrecv(&e);
        vsend(&e, i, sz, i), out++;
        vreap_sends(&e, false, &out);
      }
      while (credit < n) credit = vrecv(&e);
      res.bw[bi] = (double)sz * n / (stats_now_us() - t0);   /* bytes/us = MB/s */
      vreap_sends(&e, true, &out);
    } else {
      for (unsigned i = 0; i < n; i++) {
        vrecv(&e);
        if ((i + 1) % 8 == 0 || i + 1 == n) {
          vsend(&e, i, 0, i + 1), out++;
          vreap_sends(&e, false, &out);
        }
      }
      vreap_sends(&e, true, &out);
    }
  }
  if (node == 1 && write(fd, &res, sizeof res) != sizeof res) die("result");
  free(s);
  if (node == 0) {
    struct timespec ts = {0, 200000000};
    nanosleep(&ts, NULL);
  }
}

/* ---- TCP over loopback ---- */
static void full_write(int fd, const void *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) die("tcp write");
    p = (const char *)p + w, n -= (size_t)w;
  }
}
static void full_read(int fd, void *p, size_t n) {
  while (n) {
    ssize_t r = read(fd, p, n);
    if (r <= 0) die("tcp read");
    p = (char *)p + r, n -= (size_t)r;
  }
}

static void tcp_side(int node, int port, int fd) {
  int s;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (node == 0) {
    int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1)) die("tcp listen");
    if (write(fd, "l", 1) != 1) die("pipe");
    s = accept(l, NULL, NULL);
    close(l);
  } else {
    s = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(s, (struct sockaddr *)&a, sizeof a)) die("tcp connect");
  }
  int one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  uint8_t *buf = calloc(1, MAXMSG);
  struct result res = {0};
  double *smp = malloc(sizeof(double) * 2000);
  for (unsigned li = 0; li < NLAT; li++) {
    uint32_t sz = lat_sizes[li];
    unsigned n = iters_lat(sz);
    for (unsigned i = 0; i < n + 10; i++) {
      if (node == 1) {
        double t0 = stats_now_us();
        full_write(s, buf, sz);
        full_read(s, buf, sz);
        if (i >= 10) smp[i - 10] = (stats_now_us() - t0) / 2;
      } else {
        full_read(s, buf, sz);
        full_write(s, buf, sz);
      }
    }
    if (node == 1) stats_med_p99(smp, n, &res.lat_med[li], &res.lat_p99[li]);
  }
  for (unsigned bi = 0; bi < NBW; bi++) {
    uint32_t sz = bw_sizes[bi];
    unsigned n = iters_bw(sz);
    if (node == 1) {
      double t0 = stats_now_us();
      for (unsigned i = 0; i < n; i++) full_write(s, buf, sz);
      char ack;
      full_read(s, &ack, 1);
      res.bw[bi] = (double)sz * n / (stats_now_us() - t0);
    } else {
      for (unsigned i = 0; i < n; i++) full_read(s, buf, sz);
      full_write(s, "a", 1);
    }
  }
  if (node == 1 && write(fd, &res, sizeof res) != sizeof res) die("result");
  close(s);
  free(buf);
  free(smp);
}

int run_pair(void (*fn)(int, int, int), int port, struct result *out) {
  int p[2];
  if (pipe(p)) return -1;
  pid_t a = fork();
  if (a == 0) {
    fn(0, port, p[1]);
    _exit(0);
  }
  if (port) {   /* TCP: wait until the listener is up */
    char c;
    if (read(p[0], &c, 1) != 1) return -1;
  }
  pid_t b = fork();
  if (b == 0) {
    fn(1, port, p[1]);
    _exit(0);
  }
  int ok = read(p[0], out, sizeof *out) == sizeof *out ? 0 : -1;
  waitpid(a, NULL, 0);
  waitpid(b, NULL, 0);
  close(p[0]), close(p[1]);
  return ok;
}

void vipl_fn(int node, int port, int fd) { (void)port, vipl_side(node, fd); }
static void tcp_fn(int node, int port, int fd) { tcp_side(node, port, fd); }

/* VIPL's run on a nicd of `threads` threads (0: nicd's default); lat/bw: the parts run. */
static int vipl_run(unsigned threads, bool lat, bool bw, struct result *v) {
  char n[8];
  snprintf(n, sizeof n, "%u", threads);
  if (threads) setenv("VERINIC_NICD_THREADS", n, 1);
  run_lat = lat, run_bw = bw;
  pid_t nicd = nicd_start(2, true);
  unsetenv("VERINIC_NICD_THREADS");
  if (nicd <= 0) return 1;
  int rv = run_pair(vipl_fn, 0, v);
  nicd_stop(nicd, false);
  return rv;
}

#define NROUND 3

/* Per size, the median of the rounds' bandwidths into med, and their least and greatest. */
static void median_bw(const struct result *r, double *med, double *lo, double *hi) {
  for (unsigned i = 0; i < NBW; i++) {
    double x[NROUND], p99;
    lo[i] = hi[i] = r[0].bw[i];
    for (unsigned k = 0; k < NROUND; k++) {
      x[k] = r[k].bw[i];
      if (x[k] < lo[i]) lo[i] = x[k];
      if (x[k] > hi[i]) hi[i] = x[k];
    }
    stats_med_p99(x, NROUND, &med[i], &p99);
  }
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc == 2 && strcmp(argv[1], "--lanai") == 0) return bench_lanai();
  bool lat = argc == 2 && strcmp(argv[1], "--vipl-lat") == 0, bw = false;
  if (argc >= 2 && argc <= 4 && strcmp(argv[1], "--vipl-bw") == 0) {
    bw = true;
    if (argc >= 3) bw_only = (uint32_t)strtoul(argv[2], NULL, 0);
    if (argc == 4) bw_gib = (unsigned)strtoul(argv[3], NULL, 0);
    if (bw_gib < 1 || bw_gib > 64) bw = false;
  }
  if (argc != 1 && !lat && !bw) {
    fprintf(stderr, "usage: bench_vipl [--lanai | --vipl-lat | --vipl-bw [SIZE [GIB]]]\n");
    return 2;
  }
  struct result v = {0}, v2 = {0}, t = {0};
  if (lat || bw) {   /* VIPL alone: the part asked for, no TCP, no floors */
    if (vipl_run(0, lat, bw, &v)) return 1;
    for (unsigned i = 0; lat && i < NLAT; i++)
      printf("lat %6u B  median %8.2f us  p99 %8.2f us\n", lat_sizes[i], v.lat_med[i],
             v.lat_p99[i]);
    for (unsigned i = 0; bw && i < NBW; i++)
      if (!bw_only || bw_sizes[i] == bw_only) printf("bw %8u B  %10.1f MB/s\n", bw_sizes[i], v.bw[i]);
    return 0;
  }
  /* Streaming three times over, the runs interleaved (one VIPL, one on 2 threads, one TCP per
   * round): a shared 2-vCPU machine's neighbours come and go, and a median of rounds that
   * took turns is fairer than one run of each. Latency is the first round's. */
  struct result vr[NROUND], v2r[NROUND], tr[NROUND];
  for (unsigned r = 0; r < NROUND; r++) {
    int rv = vipl_run(0, r == 0, true, &vr[r]);
    int rv2 = vipl_run(2, false, true, &v2r[r]);
    int rt = run_pair(tcp_fn, 20000 + (getpid() + (int)r) % 20000, &tr[r]);
    if (rv || rv2 || rt) {
      fprintf(stderr, "bench-vipl: a run failed (vipl %d, vipl on 2 threads %d, tcp %d)\n", rv,
              rv2, rt);
      return 1;
    }
  }
  double lo[NBW], hi[NBW], lo2[NBW], hi2[NBW], tlo[NBW], thi[NBW];
  v = vr[0], t = tr[0];
  median_bw(vr, v.bw, lo, hi);
  median_bw(v2r, v2.bw, lo2, hi2);
  median_bw(tr, t.bw, tlo, thi);
  printf("Ping-pong latency, RTT/2 in microseconds (nicd --fast; TCP over loopback)\n");
  printf("%10s | %12s %12s | %12s %12s\n", "size (B)", "VIPL median", "VIPL p99", "TCP median",
         "TCP p99");
  for (unsigned i = 0; i < NLAT; i++)
    printf("%10u | %12.2f %12.2f | %12.2f %12.2f\n", lat_sizes[i], v.lat_med[i], v.lat_p99[i],
           t.lat_med[i], t.lat_p99[i]);
  printf("\nStreaming bandwidth, MB/s (10^6 bytes/s), median of %u interleaved rounds [min-max];\n"
         "VIPL on nicd's default threads, and on 2\n", NROUND);
  printf("%10s | %24s | %24s | %24s\n", "size (B)", "VIPL", "VIPL 2 thr", "TCP");
  for (unsigned i = 0; i < NBW; i++)
    printf("%10u | %8.1f [%6.0f-%6.0f] | %8.1f [%6.0f-%6.0f] | %8.1f [%6.0f-%6.0f]\n",
           bw_sizes[i], v.bw[i], lo[i], hi[i], v2.bw[i], lo2[i], hi2[i], t.bw[i], tlo[i],
           thi[i]);
  double cp = floor_memcpy_mbs(), awake = floor_relay_us(true), polite = floor_relay_us(false);
  printf("\nFloors in the same run: memcpy %.0f MB/s; 3-process relay RTT/2 %.2f us with every "
         "process spinning, %.2f us with the product's wait strategy\n", cp, awake, polite);
  summary_header();
  summary_row("VIPL 1 MiB streaming, MB/s", v.bw[NBW - 1], "memcpy 32 KiB chunks", cp, 0.25, true);
  summary_row("VIPL 1 MiB streaming, 2 threads", v2.bw[NBW - 1], "memcpy 32 KiB chunks", cp,
              0.25, true);
  summary_row("VIPL 4 B one-way, us", v.lat_med[0], "relay floor, spinning", awake, 2.0, false);
  summary_row("VIPL 4 B one-way, us", v.lat_med[0], "relay floor, product wait", polite, 2.0,
              false);
  return 0;
}
