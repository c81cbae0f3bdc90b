/* bs_vipl.c: the microbenchmarks over native VIPL, the paper's "native VIA": one VI with
 * Reliable Delivery between node 1 (measures) and node 0. Latency: ping-pong of m-byte
 * messages, each echo compared with what was sent. Bandwidth: per repetition a header message
 * announces (m, n), the receiver answers, then n sends of m bytes with credit-based flow
 * control (the receiver returns a credit every 8 messages; the NIC drops messages that find
 * no posted descriptor, so the sender stays within the receiver's posted ring) and the clock
 * stops at the credit for the last message: the ACK of Fig. 2(b). */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bs.h"
#include "stats.h"
#include "vipl.h"

#define NPOST 64            /* receive and send descriptors each */
#define WINDOW 24           /* messages beyond the last credit (the NIC's ring holds 32) */
#define CREDIT_EVERY 8
#define TMO 20000           /* ms: any single wait; a lost message fails the run */

struct vep {
  VIP_NIC_HANDLE nic;
  VIP_VI_HANDLE vi;
  VIP_MEM_HANDLE mh;
  uint8_t *buf;             /* [0, MAX): receives; [MAX, 2 MAX): sends; descriptors; ctl */
  VIP_DESCRIPTOR *rd, *sd;
  uint8_t *ctl;             /* 64 bytes for the bandwidth header */
  unsigned sent, out;       /* sends posted; not yet completed */
};

static void post_recv(struct vep *e, VIP_DESCRIPTOR *d) {
  memset(d, 0, sizeof *d);
  d->CS.SegCount = 1;
  d->CS.Length = BS_MAXMSG;
  d->DS[0].Local.Data.Address = e->buf;
  d->DS[0].Local.Handle = e->mh;
  d->DS[0].Local.Length = BS_MAXMSG;
  VipPostRecv(e->vi, d, e->mh);
}

static int vopen(struct vep *e, int node, const char *dev) {
  VIP_PROTECTION_HANDLE pt;
  memset(e, 0, sizeof *e);
  if (VipOpenNic(dev, &e->nic) != VIP_SUCCESS || VipCreatePtag(e->nic, &pt) != VIP_SUCCESS) return -1;
  VIP_VI_ATTRIBUTES a = {.ReliabilityLevel = VIP_SERVICE_RELIABLE_DELIVERY,
                         .MaxTransferSize = BS_MAXMSG, .Ptag = pt};
  if (VipCreateVi(e->nic, &a, NULL, NULL, &e->vi) != VIP_SUCCESS) return -1;
  size_t len = (2 * (size_t)BS_MAXMSG + 2 * NPOST * sizeof(VIP_DESCRIPTOR) + 64 + 4095) & ~(size_t)4095;
  e->buf = aligned_alloc(4096, len);
  if (!e->buf) return -1;
  memset(e->buf, 0, len);
  VIP_MEM_ATTRIBUTES ma = {.Ptag = pt};
  if (VipRegisterMem(e->nic, e->buf, len, &ma, &e->mh) != VIP_SUCCESS) return -1;
  e->rd = (VIP_DESCRIPTOR *)(e->buf + 2 * (size_t)BS_MAXMSG);
  e->sd = e->rd + NPOST;
  e->ctl = (uint8_t *)(e->sd + NPOST);
  for (int i = 0; i < NPOST; i++) post_recv(e, &e->rd[i]);   /* before connecting */
  struct { VIP_NET_ADDRESS a; uint8_t more[16]; } me, peer;
  me.a.HostAddressLen = 2, me.a.DiscriminatorLen = 2;
  uint8_t *hb = (uint8_t *)&me + offsetof(VIP_NET_ADDRESS, HostAddress);
  hb[0] = 0, hb[1] = 0, hb[2] = 'B', hb[3] = 'S';            /* node 0 serves */
  VIP_VI_ATTRIBUTES ra;
  if (node == 0) {
    VIP_CONN_HANDLE c;
    if (VipConnectWait(e->nic, &me.a, TMO, &peer.a, &ra, &c) != VIP_SUCCESS) return -1;
    return VipConnectAccept(c, e->vi) == VIP_SUCCESS ? 0 : -1;
  }
  for (int tries = 0; tries < 200; tries++) {   /* until node 0 waits */
    if (VipConnectRequest(e->vi, NULL, &me.a, TMO, &ra) == VIP_SUCCESS) return 0;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  return -1;
}

static int reap(struct vep *e, bool block) {
  VIP_DESCRIPTOR *d;
  while (e->out) {
    VIP_RETURN r = block ? VipSendWait(e->vi, TMO, &d) : VipSendDone(e->vi, &d);
    if (r == VIP_NOT_DONE) return 0;
    if (r != VIP_SUCCESS || d->CS.Status != VIP_STATUS_DONE) {
      fprintf(stderr, "bench: send completion: return %d, status %#x\n", (int)r,
              r == VIP_SUCCESS ? (unsigned)d->CS.Status : 0u);
      return -1;
    }
    e->out--;
    block = false;
  }
  return 0;
}

static int vsend(struct vep *e, const uint8_t *src, uint32_t len, uint32_t imm) {
  while (e->out >= NPOST)
    if (reap(e, true)) return -1;
  VIP_DESCRIPTOR *d = &e->sd[e->sent++ % NPOST];
  memset(d, 0, sizeof *d);
  d->CS.Control = VIP_CONTROL_OP_SENDRECV | VIP_CONTROL_IMMEDIATE;
  d->CS.ImmediateData = imm;
  d->CS.SegCount = len ? 1 : 0;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = (void *)src;
  d->DS[0].Local.Handle = e->mh;
  d->DS[0].Local.Length = len;
  if (VipPostSend(e->vi, d, e->mh) != VIP_SUCCESS) return -1;
  e->out++;
  return reap(e, false);
}

/* Waits for a message: its immediate data and length, the descriptor re-posted. */
static int vrecv(struct vep *e, uint32_t *imm, uint32_t *len) {
  VIP_DESCRIPTOR *d;
  VIP_RETURN r = VipRecvWait(e->vi, TMO, &d);
  if (r != VIP_SUCCESS || (d->CS.Status & VIP_STATUS_ERROR_MASK)) {
    fprintf(stderr, "bench: VipRecvWait: return %d, status %#x\n", (int)r,
            r == VIP_SUCCESS ? (unsigned)d->CS.Status : 0u);
    return -1;
  }
  if (imm) *imm = d->CS.ImmediateData;
  if (len) *len = d->CS.Length;
  post_recv(e, d);
  return 0;
}

static int lat(struct vep *e, int node, const struct bs_params *p, struct bs_result *r) {
  uint8_t *tx = e->buf + BS_MAXMSG, *rx = e->buf;
  double *s = malloc(sizeof(double) * (p->lat_iters + 1));
  int rc = s ? 0 : -1;
  for (unsigned k = 0; k < p->nsizes && !rc; k++) {
    uint32_t m = bs_sizes[k], len;
    unsigned n = bs_lat_iters(p, m), w = p->smoke ? 1 : 20;
    for (unsigned i = 0; i < w + n && !rc; i++) {
      if (node == 0) {
        rc = vrecv(e, NULL, &len) || len != m || vsend(e, rx, m, i) ? -1 : 0;
        continue;
      }
      for (uint32_t j = 0; j < m; j++) tx[j] = bs_pat(i, j);
      double t0 = stats_now_us();
      rc = vsend(e, tx, m, i) || vrecv(e, NULL, &len) ? -1 : 0;
      double dt = stats_now_us() - t0;
      if (!rc && (len != m || memcmp(tx, rx, m))) rc = -1;
      r->bytes_checked += m;
      if (i >= w) s[i - w] = dt / 2;
    }
    if (node == 1 && !rc) r->lat_us[k] = bs_percentiles(s, n);
  }
  free(s);
  return rc || reap(e, true) ? -1 : 0;
}

/* One repetition on the sender: microseconds, or < 0. */
static double bw_once(struct vep *e, uint32_t m, uint32_t n) {
  uint8_t *tx = e->buf + BS_MAXMSG;
  uint32_t hdr[2] = {m, n}, imm, len;
  memcpy(e->ctl, hdr, sizeof hdr);
  if (vsend(e, e->ctl, sizeof hdr, 0) || vrecv(e, &imm, NULL) || imm != 'r') return -1;
  double t0 = stats_now_us();
  uint32_t credit = 0;
  for (uint32_t i = 0; i < n; i++) {
    while (i >= credit + WINDOW)
      if (vrecv(e, &credit, &len)) return -1;
    if (vsend(e, tx, m, i)) return -1;
  }
  while (credit < n)
    if (vrecv(e, &credit, &len)) return -1;
  return stats_now_us() - t0;
}

static int bw_sender(struct vep *e, const struct bs_params *p, struct bs_result *r) {
  double v[64];
  unsigned reps = p->bw_reps < 64 ? p->bw_reps : 64;
  uint8_t *tx = e->buf + BS_MAXMSG;
  for (unsigned k = 0; k < p->nsizes; k++) {
    uint32_t m = bs_sizes[k];
    for (uint32_t j = 0; j < m; j++) tx[j] = bs_pat(m, j);
    uint32_t n0 = p->smoke ? 4 : (uint32_t)((256u << 10) / m);
    if (n0 < 64 && !p->smoke) n0 = 64;
    if (n0 > 4096) n0 = 4096;
    double d0 = bw_once(e, m, n0);
    if (d0 < 0) return -1;
    double want = p->bw_ms * 1000.0 * n0 / (d0 > 1 ? d0 : 1);
    uint32_t n = p->smoke ? n0 : want < 64 ? 64 : want > 2e6 ? 2000000u : (uint32_t)want;
    for (unsigned i = 0; i < reps; i++) {
      double d = bw_once(e, m, n);
      if (d <= 0) return -1;
      v[i] = 8.0 * m * n / d;
    }
    r->bw_mbps[k] = bs_median_range(v, reps);
  }
  uint32_t end[2] = {0, 0};
  memcpy(e->ctl, end, sizeof end);
  return vsend(e, e->ctl, sizeof end, 0) || reap(e, true) ? -1 : 0;
}

static int bw_receiver(struct vep *e, const struct bs_params *p) {
  for (;;) {
    uint32_t hdr[2], len, imm;
    if (vrecv(e, NULL, &len) || len != sizeof hdr) return -1;
    memcpy(hdr, e->buf, sizeof hdr);
    uint32_t m = hdr[0], n = hdr[1];
    if (n == 0) return reap(e, true);
    if (vsend(e, NULL, 0, 'r')) return -1;
    for (uint32_t i = 0; i < n; i++) {
      if (vrecv(e, &imm, &len) || len != m || imm != i) return -1;
      if (i == 0 || p->smoke)
        for (uint32_t j = 0; j < m; j++)
          if (e->buf[j] != bs_pat(m, j)) return -1;
      if ((i + 1) % CREDIT_EVERY == 0 || i + 1 == n)
        if (vsend(e, NULL, 0, i + 1)) return -1;
    }
  }
}

int bs_vipl_side(int node, const char *dev, unsigned what, const struct bs_params *p,
                 struct bs_result *r) {
  struct vep e;
  int rc = vopen(&e, node, dev);
  if (rc) fprintf(stderr, "bench: VIPL set-up failed on node %d (%s)\n", node, dev);
  if (!rc && (what & BS_LAT)) rc = lat(&e, node, p, r);
  if (!rc && (what & BS_BW)) rc = node == 1 ? bw_sender(&e, p, r) : bw_receiver(&e, p);
  if (node == 1) {
    r->ok = rc == 0;
  } else {   /* let the last credit reach the sender before the VI goes */
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
  }
  VipDisconnect(e.vi);
  return rc;
}
