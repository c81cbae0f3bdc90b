/* bench_paper.c: `make bench-paper`: the E-UDP paper's Figs. 10-14 reproduced in nicd's timing
 * mode (nicd --timing PROFILE --lanai), beside E-UDP's analytic model computed from the same
 * profile and the paper's numbers. VIPL messages on a reliable VI carry the pipelined data path
 * (E-UDP's datagram sockets are not built). Every number of the simulation is virtual time, so
 * a run gives the same table on any machine, loaded or not.
 *
 *   bench_paper eudp PROFILE [OUT.dat]   one profile: latency and bandwidth vs message size,
 *                                        model, paper; OUT.dat for gnuplot (bench/paper.gp)
 *   bench_paper det PROFILE              a short ping-pong: one line of virtual times (the
 *                                        determinism test runs it twice and compares)
 *   bench_paper fig9 PROFILE TRACE       E-UDP Fig. 9: 10 messages of 32 KiB with nicd --trace
 *   bench_paper tigon PROFILE [OUT.dat] [MSGS]  the Tigon paper's Fig. 10: bidirectional
 *                                        throughput on one and on two firmware processors
 *                                        (nicd --cpus 1 and 2), MSGS messages each way
 * BENCH_DETAIL=1 adds, on stderr, each round's time (tigon) and both NICs' nicstat at the end
 * of each run.
 */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../bench/stats.h"
#include "../../bench/summary.h"
#include "../../hw/profile.h"
#include "../common/nicd_run.h"
#include "eudp_model.h"
#include "vipl.h"
#include "window.h"

#define MAXMSG (64u << 10)
#define NPOST 32
#define WINDOW 16          /* sends ahead of the receiver's credit */
#define NLAT 7
#define NBW 6
static const uint32_t lat_sizes[NLAT] = {4, 256, 1024, 4096, 8192, 16384, 32768};
static const uint32_t bw_sizes[NBW] = {256, 1024, 4096, 8192, 16384, 32768};
#define LAT_ITERS 6         /* after 2 warm-up round trips; virtual time repeats itself */
#define BW_MSGS 48
static unsigned bw_first = 0, bw_msgs = BW_MSGS;   /* fig9: the largest size, 10 messages */

struct result {
  double lat[NLAT];        /* one-way, us (RTT / 2, median) */
  double cyc[NLAT];        /* LANai cycles of both NICs per round trip */
  double bw[NBW];          /* MB/s */
  double tx[NBW], rx[NBW]; /* cycles per message of the sending (1) and receiving (0) NIC */
};

static void die(const char *what) {
  fprintf(stderr, "bench-paper: %s\n", what);
  exit(1);
}

/* ---- one VIPL endpoint ---- */
struct vep {
  VIP_NIC_HANDLE nic;
  VIP_VI_HANDLE vi;
  VIP_MEM_HANDLE mh;
  uint8_t *buf;
  VIP_DESCRIPTOR *rd, *sd;
  unsigned out;
};

static void post_recvs(struct vep *e) {
  for (int i = 0; i < NPOST; i++) {
    VIP_DESCRIPTOR *d = &e->rd[i];
    d->CS.SegCount = 1;
    d->DS[0].Local.Data.Address = e->buf;
    d->DS[0].Local.Handle = e->mh;
    d->DS[0].Local.Length = MAXMSG;
    if (VipPostRecv(e->vi, d, e->mh)) die("post recv");
  }
}

static void vep_open(struct vep *e, int node) {
  VIP_PROTECTION_HANDLE pt;
  memset(e, 0, sizeof *e);
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
  uint8_t raw[16] = {0};
  VIP_NET_ADDRESS *ad = (VIP_NET_ADDRESS *)raw;
  ad->HostAddressLen = 2, ad->DiscriminatorLen = 1;
  ad->HostAddress[2] = 9;
  post_recvs(e);
  VIP_VI_ATTRIBUTES ra;
  if (node == 0) {
    uint8_t rraw[16];
    VIP_CONN_HANDLE c;
    if (VipConnectWait(e->nic, ad, 20000, (VIP_NET_ADDRESS *)rraw, &ra, &c)) die("wait");
    if (VipConnectAccept(c, e->vi)) die("accept");
  } else if (VipConnectRequest(e->vi, NULL, ad, 20000, &ra)) {
    die("connect");
  }
}

static void vsend(struct vep *e, unsigned k, uint32_t len, uint32_t imm) {
  VIP_DESCRIPTOR *d = &e->sd[k % NPOST];
  d->CS.Control = VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE;
  d->CS.ImmediateData = imm;
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = e->buf + MAXMSG;
  d->DS[0].Local.Handle = e->mh;
  d->DS[0].Local.Length = len;
  if (VipPostSend(e->vi, d, e->mh)) die("post send");
  e->out++;
}

static void reap(struct vep *e, bool all) {
  VIP_DESCRIPTOR *d;
  while (e->out && (all ? VipSendWait(e->vi, 20000, &d) : VipSendDone(e->vi, &d)) == VIP_SUCCESS) {
    if (d->CS.Status != VIP_STATUS_DONE) {
      fprintf(stderr, "bench-paper: a send completed with status 0x%x\n", (unsigned)d->CS.Status);
      exit(1);
    }
    e->out--;
  }
}

/* A receive: its immediate data, and its length into *len when len is not NULL. */
static uint32_t vrecv_len(struct vep *e, uint32_t *len) {
  VIP_DESCRIPTOR *d;
  VIP_RETURN rc = VipRecvWait(e->vi, 20000, &d);
  if (rc != VIP_SUCCESS || (d->CS.Status & VIP_STATUS_ERROR_MASK)) {
    fprintf(stderr, "bench-paper: receive: %d, status 0x%x\n", (int)rc, d ? (unsigned)d->CS.Status : 0);
    exit(1);
  }
  uint32_t imm = d->CS.ImmediateData;
  if (len) *len = d->CS.Length;
  d->CS.Control = 0;
  d->CS.Length = 0;
  if (VipPostRecv(e->vi, d, e->mh)) die("repost");
  return imm;
}

static uint32_t vrecv(struct vep *e) { return vrecv_len(e, NULL); }

/* LANai cycles both NICs' processors spent so far (their windows' cpu blocks). */
static struct hwin win[2];
static double cycles_of(int i) { return (double)atomic_load(&win[i].regs->cpu.cycles); }
static double cycles_now(void) { return cycles_of(0) + cycles_of(1); }

/* node 0 echoes; node 1 measures and writes the result to fd. */
static void side(int node, int fd, unsigned nlat, unsigned nbw) {
  struct vep e;
  vep_open(&e, node);
  if (node == 1)
    for (int i = 0; i < 2; i++)
      if (hwin_open(&win[i], nicd_dev(i)) != 0) die("window");
  struct result res = {0};
  double s[LAT_ITERS];
  for (unsigned li = 0; li < nlat; li++) {
    uint32_t sz = lat_sizes[li];
    double c0 = 0;
    for (unsigned i = 0; i < LAT_ITERS + 2; i++) {
      if (node == 1) {
        if (i == 2) c0 = cycles_now();
        double t0 = stats_now_us();
        vsend(&e, i, sz, i);
        vrecv(&e);
        if (i >= 2) s[i - 2] = (stats_now_us() - t0) / 2;
      } else {
        vrecv(&e);
        vsend(&e, i, sz, i);
      }
      reap(&e, false);
    }
    if (node == 1) {
      double p99;
      stats_med_p99(s, LAT_ITERS, &res.lat[li], &p99);
      res.cyc[li] = (cycles_now() - c0) / LAT_ITERS;
    }
  }
  reap(&e, true);
  for (unsigned bi = bw_first; bi < nbw; bi++) {
    uint32_t sz = bw_sizes[bi];
    if (node == 1) {
      double t0 = stats_now_us(), c0 = cycles_of(0), c1 = cycles_of(1);
      unsigned credit = 0;
      for (unsigned i = 0; i < bw_msgs; i++) {
        while (i >= credit + WINDOW) credit = vrecv(&e);
        vsend(&e, i, sz, i);
        reap(&e, false);
      }
      while (credit < bw_msgs) credit = vrecv(&e);
      res.bw[bi] = (double)sz * bw_msgs / (stats_now_us() - t0);
      res.tx[bi] = (cycles_of(1) - c1) / bw_msgs;
      res.rx[bi] = (cycles_of(0) - c0) / bw_msgs;
      reap(&e, true);
    } else {
      for (unsigned i = 0; i < bw_msgs; i++) {
        vrecv(&e);
        if ((i + 1) % 4 == 0 || i + 1 == bw_msgs) vsend(&e, i, 0, i + 1), reap(&e, false);
      }
      reap(&e, true);
    }
  }
  /* The last word is node 0's, once all its sends completed: node 1 then closes. */
  if (node == 0) {   /* its completion may race the peer's disconnection: not checked */
    VIP_DESCRIPTOR *d;
    vsend(&e, 0, 0, 0);
    while (e.out && VipSendWait(e.vi, 20000, &d) == VIP_SUCCESS) e.out--;
  }
  else vrecv(&e);
  if (node == 1 && write(fd, &res, sizeof res) != sizeof res) die("result");
  VipDisconnect(e.vi);
  VipCloseNic(e.nic);
}

/* Reads exactly len bytes (several writers' records). */
static bool read_all(int fd, void *buf, size_t len) {
  for (size_t got = 0; got < len;) {
    ssize_t r = read(fd, (char *)buf + got, len - got);
    if (r <= 0) return false;
    got += (size_t)r;
  }
  return true;
}

/* nicd in timing mode on profile, the two nodes' sides forked, len bytes of results read
 * from them into out. */
typedef void side_fn(int node, int fd);
static int run_with(const char *profile, bool coarse, side_fn *fn, void *out, size_t len) {
  setenv("VERINIC_TIMING", profile, 1);
  if (coarse) setenv("VERINIC_TIMING_COARSE", "1", 1);
  else unsetenv("VERINIC_TIMING_COARSE");
  pid_t nicd = nicd_start(2, false);
  if (nicd <= 0) return -1;
  int p[2];
  if (pipe(p)) return -1;
  pid_t kid[2];
  for (int n = 0; n < 2; n++) {
    if ((kid[n] = fork()) == 0) {
      close(p[0]);
      fn(n, p[1]);
      _exit(0);
    }
  }
  close(p[1]);
  int ok = read_all(p[0], out, len) ? 0 : -1;
  close(p[0]);
  for (int n = 0; n < 2; n++) waitpid(kid[n], NULL, 0);
  if (getenv("BENCH_DETAIL")) {   /* both NICs' counters, before nicd goes */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "build/bin/nicstat %s %s 1>&2", nicd_dev(0), nicd_dev(1));
    if (system(cmd) != 0) fprintf(stderr, "bench_paper: nicstat failed\n");
  }
  nicd_stop(nicd, false);
  return ok;
}

static unsigned run_nlat, run_nbw;
static void paper_side(int node, int fd) { side(node, fd, run_nlat, run_nbw); }

static int run(const char *profile, bool coarse, unsigned nlat, unsigned nbw, struct result *out) {
  run_nlat = nlat, run_nbw = nbw;
  return run_with(profile, coarse, paper_side, out, sizeof *out);
}

static int det(const char *profile) {
  struct result r;
  if (run(profile, false, 3, 1, &r) != 0) return 1;
  printf("latency us:");
  for (unsigned i = 0; i < 3; i++) printf(" %u B %.4f", lat_sizes[i], r.lat[i]);
  printf("; bandwidth %u B %.4f MB/s\n", bw_sizes[0], r.bw[0]);
  return 0;
}

/* ---- E-UDP ---- */
static void fw_cost(const struct result *r, struct eudp_fw *fw) {
  double span = bw_sizes[NBW - 1] - bw_sizes[0];
  fw->tx_per_byte = (r->tx[NBW - 1] - r->tx[0]) / span;
  fw->rx_per_byte = (r->rx[NBW - 1] - r->rx[0]) / span;
  fw->tx_cycles = r->tx[0] - fw->tx_per_byte * bw_sizes[0];
  fw->rx_cycles = r->rx[0] - fw->rx_per_byte * bw_sizes[0];
}

static int eudp(const char *path, const char *dat) {
  struct profile pf;
  char err[PROFILE_ERR_LEN];
  if (profile_load(path, &pf, err, sizeof err) != 0) {
    fprintf(stderr, "bench-paper: %s\n", err);
    return 2;
  }
  struct result r, rc;
  if (run(path, false, NLAT, NBW, &r) != 0 || run(path, true, NLAT, NBW, &rc) != 0) {
    fprintf(stderr, "bench-paper: the timing-mode run failed\n");
    return 1;
  }
  /* The firmware's per-packet and per-byte cost for the model: measured in the streaming
   * run (LANai cycles per message of the sending and the receiving NIC at the smallest and
   * the largest size), as E-UDP's model uses the per-packet overheads measured on E-UDP. */
  struct eudp_fw fw, fwc;
  fw_cost(&r, &fw);
  fw_cost(&rc, &fwc);
  struct eudp_params m, mc;   /* the firmware's cost differs between the pipelinings */
  eudp_params_from(&m, &pf, &fw);
  eudp_params_from(&mc, &pf, &fwc);
  const struct eudp_paper *pp = eudp_paper_for(path);
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  printf("\n== %s (%s)\n", pf.name, path);
  printf("Model parameters: per packet %.2f us (host %.2f; firmware %.2f sending, %.2f "
         "receiving = %.0f + %.0f cycles); per byte: I/O bus %.3f ns, link %.3f ns, firmware "
         "%.3f ns sending, %.3f ns receiving (%.2f + %.2f cycles)\n",
         eudp_model_overhead_us(&m), m.host_us, m.fw_tx_us, m.fw_rx_us, fw.tx_cycles,
         fw.rx_cycles, m.bus_ns, m.link_ns, m.fw_tx_ns, m.fw_rx_ns, fw.tx_per_byte,
         fw.rx_per_byte);
  printf("Coarse-grained firmware: %.0f + %.0f cycles per message, %.2f + %.2f cycles per byte\n",
         fwc.tx_cycles, fwc.rx_cycles, fwc.tx_per_byte, fwc.rx_per_byte);
  printf("One-way latency, us (E-UDP Figs. 10, 12a%s)\n", pp ? pp->fig_lat : "");
  printf("%8s | %10s | %10s %6s | %10s | %12s %6s | %12s\n", "size (B)", "sim fine", "model fine",
         "ratio", "sim coarse", "model coarse", "ratio", "bus minimum");
  double lat_err = 0, bw_err = 0;   /* the largest |simulated / model - 1| */
  FILE *f = dat ? fopen(dat, "w") : NULL;
  if (f) fprintf(f, "# size sim_fine model_fine model_coarse bus_min sim_coarse | bw below\n");
  for (unsigned i = 0; i < NLAT; i++) {
    double fine = eudp_latency_us(&m, lat_sizes[i], true);
    double coarse = eudp_latency_us(&mc, lat_sizes[i], false);
    double bmin = lat_sizes[i] * 1e6 / (double)pf.hdma_bps;
    printf("%8u | %10.2f | %10.2f %6.2f | %10.2f | %12.2f %6.2f | %12.2f\n", lat_sizes[i],
           r.lat[i], fine, r.lat[i] / fine, rc.lat[i], coarse, rc.lat[i] / coarse, bmin);
    if (fabs(rc.lat[i] / coarse - 1) > lat_err) lat_err = fabs(rc.lat[i] / coarse - 1);
    if (fabs(r.lat[i] / fine - 1) > lat_err) lat_err = fabs(r.lat[i] / fine - 1);
    if (f) fprintf(f, "%u %.3f %.3f %.3f %.3f %.3f\n", lat_sizes[i], r.lat[i], fine, coarse, bmin,
                   rc.lat[i]);
  }
  printf("Bandwidth, Mb/s (E-UDP Figs. 11, 12b%s)\n", pp ? pp->fig_bw : "");
  printf("%8s | %10s | %10s %6s | %10s | %10s %6s | %12s\n", "size (B)", "sim fine", "model",
         "ratio", "sim coarse", "model", "ratio", "paper");
  if (f) fprintf(f, "\n\n# size sim_fine_mbps model_fine sim_coarse_mbps model_coarse\n");
  for (unsigned i = 0; i < NBW; i++) {
    double sim = r.bw[i] * 8, mod = eudp_bandwidth_mbps(&m, bw_sizes[i]);
    double simc = rc.bw[i] * 8, modc = eudp_bandwidth_mbps(&mc, bw_sizes[i]);
    char paper[32] = "";
    if (pp && pp->peak_mbps && i == NBW - 1) snprintf(paper, sizeof paper, "%.0f (peak)", pp->peak_mbps);
    printf("%8u | %10.1f | %10.1f %6.2f | %10.1f | %10.1f %6.2f | %12s\n", bw_sizes[i], sim, mod,
           sim / mod, simc, modc, simc / modc, paper);
    if (fabs(sim / mod - 1) > bw_err) bw_err = fabs(sim / mod - 1);
    if (fabs(simc / modc - 1) > bw_err) bw_err = fabs(simc / modc - 1);
    if (f) fprintf(f, "%u %.3f %.3f %.3f %.3f\n", bw_sizes[i], sim, mod, simc, modc);
  }
  if (f) fclose(f);
  printf("Simulation vs model: at most %.0f%% apart in latency, %.0f%% in bandwidth (E-UDP: its "
         "model within 5%% of its measurements)\n", 100 * lat_err, 100 * bw_err);
  double peak = (r.bw[NBW - 1] > rc.bw[NBW - 1] ? r.bw[NBW - 1] : rc.bw[NBW - 1]) * 8;
  if (pp && pp->peak_mbps) {
    printf("Peak: simulated %.0f Mb/s, %.0f%% of the I/O bus's %.0f Mb/s; paper %.0f Mb/s "
           "(%.0f%%); ratio %.2f\n", peak, 100 * peak / (pf.hdma_bps * 8e-6),
           pf.hdma_bps * 8e-6, pp->peak_mbps, 100 * pp->peak_mbps / (pf.hdma_bps * 8e-6),
           peak / pp->peak_mbps);
    char fig[64];
    snprintf(fig, sizeof fig, "%.22s peak Mb/s", base);
    summary_row(fig, peak, pp->small_lat_us ? "GM on the card" : "E-UDP paper (Fig. 11)",
                pp->peak_mbps, 1.0, true);
  }
  if (pp && pp->small_lat_us)
    printf("Small messages: simulated %.2f us one way, paper %.2f us; ratio %.1f\n", r.lat[0],
           pp->small_lat_us, r.lat[0] / pp->small_lat_us);
  if (pp && pp->note) printf("Paper: %s\n", pp->note);
  double big = r.lat[NLAT - 1], mf = eudp_latency_us(&m, lat_sizes[NLAT - 1], true);
  char fig[64];
  snprintf(fig, sizeof fig, "%.18s 32K 1-way us", base);
  summary_row(fig, big, "E-UDP model (fine)", mf, 1.05, false);
  return 0;
}

/* E-UDP Fig. 9: 10 messages of 32 KiB streamed, every engine's busy intervals into trace. */
static int fig9(const char *profile, const char *trace) {
  struct result r;
  setenv("VERINIC_TIMING_TRACE", trace, 1);
  bw_first = NBW - 1, bw_msgs = 10;
  if (run(profile, false, 0, NBW, &r) != 0) return 1;
  printf("Fig. 9 run: 10 x %u B at %.1f Mb/s; busy intervals in %s\n", bw_sizes[NBW - 1],
         r.bw[NBW - 1] * 8, trace);
  return 0;
}

/* ---- the Tigon paper's Fig. 10: bidirectional throughput on one and two processors ----
 * Both nodes stream messages of one size to each other at once, each at most WINDOW messages
 * ahead of the credit the other returns: the count of messages it received, in the immediate
 * data of its next message, or of an empty one when it has no data to send (every 4
 * messages, and at the end). The round's tag in the immediate data keeps a late credit of the
 * previous round apart. Each round starts with a handshake (node 1 says go, node 0 answers),
 * so that the two streams start a one-way latency apart whatever the connection set-up did to
 * the processes' clocks. Payloads: 4 bytes (a 64-byte frame on the link: 56 bytes of wire
 * header, the payload, a 4-byte trailer; the paper's minimum-sized Ethernet frame) and 1472
 * bytes (the paper's maximum UDP datagram, a 1518-byte Ethernet frame). */
#define TG_NSIZE 2
#define TG_ROUNDS 3
#define TG_DONE 0xffffu
#define TG_GO 0xfffeu
static const uint32_t tg_sizes[TG_NSIZE] = {4, 1472};
static const double tg_paper[TG_NSIZE] = {1.57, 0.65};   /* Fig. 10: PARALLEL over RELEASE */
static unsigned tg_msgs = 48;

struct tg_side {
  int node;
  double us[TG_NSIZE][TG_ROUNDS];   /* virtual time until it sent and received every message */
};

#define TG_IMM(round, n) ((uint32_t)(round) << 16 | (uint32_t)(n))

static void tg_send(struct vep *e, unsigned *k, uint32_t len, uint32_t imm) {
  if (e->out >= NPOST - 4) reap(e, true);   /* never reuse a descriptor still in flight */
  vsend(e, (*k)++, len, imm);
}

static double tg_round(struct vep *e, unsigned round, uint32_t sz, unsigned *k) {
  unsigned sent = 0, got = 0, credit = 0, told = 0;
  double t0 = stats_now_us();
  while (sent < tg_msgs || got < tg_msgs) {
    bool owe = got > told && (got - told >= 4 || got == tg_msgs);
    if (sent < tg_msgs && sent < credit + WINDOW) {
      tg_send(e, k, sz, TG_IMM(round, got));
      told = got, sent++;
    } else if (owe) {
      tg_send(e, k, 0, TG_IMM(round, got));
      told = got;
    } else {
      uint32_t len = 0, imm = vrecv_len(e, &len);
      if (imm >> 16 == round && (imm & 0xffffu) > credit) credit = imm & 0xffffu;
      if (len > 0) got++;
    }
    reap(e, false);
  }
  double us = stats_now_us() - t0;
  if (told < got) tg_send(e, k, 0, TG_IMM(round, got));
  return us;
}

/* Skips late credits until a message tagged tag arrives. */
static void tg_wait(struct vep *e, uint32_t tag) {
  uint32_t len = 0;
  while (vrecv_len(e, &len) >> 16 != tag) {}
}

static void tg_go(struct vep *e, int node, unsigned *k) {
  if (node == 1) tg_send(e, k, 0, TG_IMM(TG_GO, 0));
  tg_wait(e, TG_GO);
  if (node == 0) tg_send(e, k, 0, TG_IMM(TG_GO, 0));
}

static void tg_side_run(int node, int fd) {
  struct vep e;
  vep_open(&e, node);
  struct tg_side res = {.node = node};
  unsigned k = 0;
  for (unsigned si = 0; si < TG_NSIZE; si++)
    for (unsigned r = 0; r < TG_ROUNDS; r++) {
      tg_go(&e, node, &k);
      res.us[si][r] = tg_round(&e, si * TG_ROUNDS + r, tg_sizes[si], &k);
    }
  /* The end: each says done and waits for the other's. */
  tg_send(&e, &k, 0, TG_IMM(TG_DONE, 0));
  tg_wait(&e, TG_DONE);
  VIP_DESCRIPTOR *d;   /* completions may race the peer's disconnection: not checked */
  while (e.out && VipSendWait(e.vi, 20000, &d) == VIP_SUCCESS) e.out--;
  if (write(fd, &res, sizeof res) != sizeof res) die("result");
  VipDisconnect(e.vi);
  VipCloseNic(e.nic);
}

/* Mb/s of payload both ways, the median round, with ncpus processors per NIC. */
static int tg_measure(const char *profile, const char *ncpus, double mbps[TG_NSIZE]) {
  setenv("VERINIC_CPUS", ncpus, 1);
  struct tg_side s[2];
  if (run_with(profile, false, tg_side_run, s, sizeof s) != 0) return -1;
  for (unsigned si = 0; si < TG_NSIZE; si++) {
    double r[TG_ROUNDS], p99;
    for (unsigned i = 0; i < TG_ROUNDS; i++) {
      double us = s[0].us[si][i] > s[1].us[si][i] ? s[0].us[si][i] : s[1].us[si][i];
      r[i] = 2.0 * tg_msgs * tg_sizes[si] * 8 / us;
      if (getenv("BENCH_DETAIL"))
        fprintf(stderr, "tigon: %s cpu(s), %u B, round %u: %.1f us (node 0 %.1f, node 1 %.1f)\n",
                ncpus, tg_sizes[si], i, us, s[0].us[si][i], s[1].us[si][i]);
    }
    stats_med_p99(r, TG_ROUNDS, &mbps[si], &p99);
  }
  return 0;
}

static int tigon(const char *profile, const char *dat, unsigned msgs) {
  struct profile pf;
  char err[PROFILE_ERR_LEN];
  if (profile_load(profile, &pf, err, sizeof err) != 0) {
    fprintf(stderr, "bench-tigon: %s\n", err);
    return 2;
  }
  if (msgs) tg_msgs = msgs;
  if (tg_msgs > 0xfff0u) tg_msgs = 0xfff0u;
  double one[TG_NSIZE], two[TG_NSIZE];
  if (tg_measure(profile, "1", one) != 0 || tg_measure(profile, "2", two) != 0) {
    fprintf(stderr, "bench-tigon: the timing-mode run failed\n");
    return 1;
  }
  printf("\n== Tigon Fig. 10: bidirectional throughput, one and two firmware processors\n");
  printf("%s (%s); %u messages each way at once, median of %d rounds; VIPL, reliable VI\n",
         pf.name, profile, tg_msgs, TG_ROUNDS);
  printf("%8s %8s | %12s %12s | %9s | %11s | %6s\n", "payload", "frame", "1 cpu Mb/s",
         "2 cpus Mb/s", "speed-up", "paper (Fig. 10)", "ratio");
  FILE *f = dat ? fopen(dat, "w") : NULL;
  if (f) fprintf(f, "# payload frame mbps_1cpu mbps_2cpus speedup_pct paper_pct\n");
  for (unsigned si = 0; si < TG_NSIZE; si++) {
    double up = two[si] / one[si] - 1;
    printf("%6u B %6u B | %12.2f %12.2f | %+8.0f%% | %+10.0f%% | %6.2f\n", tg_sizes[si],
           tg_sizes[si] + 60, one[si], two[si], 100 * up, 100 * tg_paper[si], up / tg_paper[si]);
    if (f) fprintf(f, "%u %u %.3f %.3f %.2f %.0f\n", tg_sizes[si], tg_sizes[si] + 60, one[si],
                   two[si], 100 * up, 100 * tg_paper[si]);
    char fig[64];
    snprintf(fig, sizeof fig, "Tigon Fig.10 %u B 2-cpu gain", tg_sizes[si]);
    summary_row(fig, 1 + up, "paper (Tigon)", 1 + tg_paper[si], 1.0, true);
  }
  if (f) fclose(f);
  printf("Why ours differs: the runtime around the machines shares the send pipeline, the VIs "
         "and Reliable Delivery's instances between the processors, so processor 0's whole pass "
         "and processor 1's RDMA and VM hold the firmware semaphore (only processor 1's "
         "hardware events and RECV run beside them, firmware/nic/fw_cpus.c), where the "
         "paper's partition shares three variables and needs no lock; the profile has no "
         "scratch pads (the paper credits them with much of its gain) and no instruction "
         "caches; the firmware is this project's VIA firmware (about 15 000 cycles a message "
         "on each NIC), not Tigon's Ethernet firmware; and the LANai ISS stands in for the "
         "MIPS cores.\n");
  return 0;
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc == 3 && strcmp(argv[1], "det") == 0) return det(argv[2]);
  if ((argc == 3 || argc == 4) && strcmp(argv[1], "eudp") == 0)
    return eudp(argv[2], argc == 4 ? argv[3] : NULL);
  if (argc == 4 && strcmp(argv[1], "fig9") == 0) return fig9(argv[2], argv[3]);
  if (argc >= 3 && argc <= 5 && strcmp(argv[1], "tigon") == 0)
    return tigon(argv[2], argc >= 4 ? argv[3] : NULL, argc == 5 ? (unsigned)atoi(argv[4]) : 0);
  fprintf(stderr, "usage: bench_paper eudp PROFILE [OUT.dat] | det PROFILE | fig9 PROFILE TRACE"
                  " | tigon PROFILE [OUT.dat] [MSGS]\n");
  return 2;
}
