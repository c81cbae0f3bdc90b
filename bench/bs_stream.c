/* bs_stream.c: the microbenchmarks of the paper's Fig. 2 over a connected byte stream, for
 * SOVIA (sovia_send/recv) and kernel TCP alike. Latency: the client sends m bytes, the server
 * returns them, RTT/2 per round trip; every echo is compared with what was sent (outside the
 * timed part). Bandwidth: per repetition the client announces (m, n), waits for the server's
 * go, sends n messages of m bytes and stops the clock when the server's one-byte ACK for the
 * last byte arrives; n is sized from a first, unrecorded repetition so that one lasts about
 * bw_ms. The server checks the first message of each repetition (every byte in smoke mode). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "bs.h"
#include "stats.h"

struct hdr { uint32_t m, n; };

static int send_all(const struct bs_ops *o, int fd, const void *p, size_t n) {
  while (n) {
    ssize_t w = o->send(fd, p, n, 0);
    if (w <= 0) return -1;
    p = (const uint8_t *)p + w;
    n -= (size_t)w;
  }
  return 0;
}

static int recv_all(const struct bs_ops *o, int fd, void *p, size_t n) {
  while (n) {
    ssize_t r = o->recv(fd, p, n, 0);
    if (r <= 0) return -1;
    p = (uint8_t *)p + r;
    n -= (size_t)r;
  }
  return 0;
}

static void fill(uint8_t *b, size_t n, uint32_t seq) {
  for (size_t i = 0; i < n; i++) b[i] = bs_pat(seq, i);
}

static unsigned warmup(const struct bs_params *p) { return p->smoke ? 1 : 20; }

static int lat_client(const struct bs_ops *o, int fd, const struct bs_params *p,
                      struct bs_result *r, uint8_t *tx, uint8_t *rx) {
  double *s = malloc(sizeof(double) * (p->lat_iters + 1));
  if (!s) return -1;
  for (unsigned k = 0; k < p->nsizes; k++) {
    uint32_t m = bs_sizes[k];
    unsigned n = bs_lat_iters(p, m), w = warmup(p);
    for (unsigned i = 0; i < w + n; i++) {
      fill(tx, m, i);
      double t0 = stats_now_us();
      if (send_all(o, fd, tx, m) || recv_all(o, fd, rx, m)) goto fail;
      double dt = stats_now_us() - t0;
      if (memcmp(tx, rx, m)) goto fail;
      r->bytes_checked += m;
      if (i >= w) s[i - w] = dt / 2;
    }
    r->lat_us[k] = bs_percentiles(s, n);
  }
  free(s);
  return 0;
fail:
  free(s);
  return -1;
}

static int lat_server(const struct bs_ops *o, int fd, const struct bs_params *p, uint8_t *buf) {
  for (unsigned k = 0; k < p->nsizes; k++) {
    uint32_t m = bs_sizes[k];
    unsigned n = bs_lat_iters(p, m) + warmup(p);
    for (unsigned i = 0; i < n; i++)
      if (recv_all(o, fd, buf, m) || send_all(o, fd, buf, m)) return -1;
  }
  return 0;
}

/* One repetition: n messages of m bytes; microseconds from the first send to the ACK. */
static double bw_once(const struct bs_ops *o, int fd, uint32_t m, uint32_t n, const uint8_t *tx) {
  struct hdr h = {m, n};
  char c;
  if (send_all(o, fd, &h, sizeof h) || recv_all(o, fd, &c, 1) || c != 'r') return -1;
  double t0 = stats_now_us();
  if (o->burst) o->burst(fd, false);
  for (uint32_t i = 0; i < n; i++)
    if (send_all(o, fd, tx, m)) return -1;
  if (o->burst) o->burst(fd, true);
  if (recv_all(o, fd, &c, 1) || c != 'a') return -1;
  return stats_now_us() - t0;
}

static int bw_client(const struct bs_ops *o, int fd, const struct bs_params *p,
                     struct bs_result *r, uint8_t *tx) {
  double v[64];
  unsigned reps = p->bw_reps < 64 ? p->bw_reps : 64;
  for (unsigned k = 0; k < p->nsizes; k++) {
    uint32_t m = bs_sizes[k];
    fill(tx, m, m);
    uint32_t n0 = p->smoke ? 4 : (uint32_t)((256u << 10) / m);
    if (n0 < 16 && !p->smoke) n0 = 16;
    if (n0 > 4096) n0 = 4096;
    double d0 = bw_once(o, fd, m, n0, tx);
    if (d0 < 0) return -1;
    double want = p->bw_ms * 1000.0 * n0 / (d0 > 1 ? d0 : 1);
    uint32_t n = p->smoke ? n0 : want < 16 ? 16 : want > 2e6 ? 2000000u : (uint32_t)want;
    for (unsigned i = 0; i < reps; i++) {
      double d = bw_once(o, fd, m, n, tx);
      if (d <= 0) return -1;
      v[i] = 8.0 * m * n / d;   /* bits per microsecond = Mbps */
    }
    r->bw_mbps[k] = bs_median_range(v, reps);
  }
  struct hdr end = {0, 0};
  return send_all(o, fd, &end, sizeof end);
}

static int bw_server(const struct bs_ops *o, int fd, const struct bs_params *p, uint8_t *buf) {
  for (;;) {
    struct hdr h;
    if (recv_all(o, fd, &h, sizeof h)) return -1;
    if (h.n == 0) return 0;
    if (h.m == 0 || h.m > BS_MAXMSG || send_all(o, fd, "r", 1)) return -1;
    uint64_t left = (uint64_t)h.m * h.n, at = 0;
    while (left) {
      ssize_t got = o->recv(fd, buf, left < h.m ? (size_t)left : h.m, 0);
      if (got <= 0) return -1;
      for (ssize_t i = 0; i < got && (p->smoke || at + (uint64_t)i < h.m); i++)
        if (buf[i] != bs_pat(h.m, (size_t)((at + (uint64_t)i) % h.m))) return -1;
      at += (uint64_t)got;
      left -= (uint64_t)got;
    }
    if (send_all(o, fd, "a", 1)) return -1;
  }
}

int bs_stream_client(const struct bs_ops *o, int fd, unsigned what, const struct bs_params *p,
                     struct bs_result *r) {
  uint8_t *tx = malloc(BS_MAXMSG), *rx = malloc(BS_MAXMSG);
  int rc = tx && rx ? 0 : -1;
  if (!rc && (what & BS_LAT)) rc = lat_client(o, fd, p, r, tx, rx);
  if (!rc && (what & BS_BW)) rc = bw_client(o, fd, p, r, tx);
  free(tx);
  free(rx);
  r->ok = rc == 0;
  return rc;
}

int bs_stream_server(const struct bs_ops *o, int fd, unsigned what, const struct bs_params *p) {
  uint8_t *buf = malloc(BS_MAXMSG);
  int rc = buf ? 0 : -1;
  if (!rc && (what & BS_LAT)) rc = lat_server(o, fd, p, buf);
  if (!rc && (what & BS_BW)) rc = bw_server(o, fd, p, buf);
  free(buf);
  return rc;
}
