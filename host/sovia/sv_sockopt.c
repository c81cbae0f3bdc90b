/* sv_sockopt.c: socket options. SOL_SOVIA: window w and threshold t (before the connection
 * exists: they size its descriptors), copy threshold, combining and its timer (any time), the
 * most DATA seen in flight (read only). IPPROTO_TCP TCP_NODELAY switches combining off (and
 * sends what is combined). SOL_SOCKET: SO_ERROR (a failed non-blocking connect, once; then a
 * broken connection's error), SO_TYPE, SO_ACCEPTCONN, SO_RCVBUF (the receive ring's bound);
 * SO_RCVTIMEO and SO_SNDTIMEO (blocking recv and accept, send, end with EAGAIN);
 * SO_LINGER {1, 0} (close resets); SO_REUSEADDR, SO_KEEPALIVE, SO_REUSEPORT (read back as
 * set), SO_SNDBUF and other lingers are accepted and have no effect (documented in README.md); IPPROTO_TCP TCP_INFO and TCP_MAXSEG
 * answer in TCP's terms. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/time.h>

#include "sv_int.h"

static bool is_timeo(int level, int name) {
  return level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO);
}

static unsigned flag_bit(int level, int name) {
  if (level != SOL_SOCKET) return 0;
  return name == SO_REUSEADDR ? 1u : name == SO_KEEPALIVE ? 2u : name == SO_REUSEPORT ? 4u : 0u;
}

/* A timeout as the kernel takes it: a struct timeval, 0 for none; EDOM when out of range. */
static int timeo_set(struct sv_sock *s, int name, const void *val, socklen_t len) {
  struct timeval tv;
  if (!val || len < (socklen_t)sizeof tv) return EINVAL;
  memcpy(&tv, val, sizeof tv);
  if (tv.tv_usec < 0 || tv.tv_usec >= 1000000) return EDOM;
  uint64_t ns = tv.tv_sec < 0 ? 0 : (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
  *(name == SO_RCVTIMEO ? &s->rcvtimeo_ns : &s->sndtimeo_ns) = ns;
  return 0;
}

int sovia_setsockopt(int fd, int level, int name, const void *val, socklen_t len) {
  int ret = 0, v = 0;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) { errno = EBADF; ret = -1; goto out; }
  if (is_timeo(level, name)) {
    int e = timeo_set(s, name, val, len);
    if (e) { errno = e; ret = -1; }
    goto out;
  }
  if (level == SOL_SOCKET && name == SO_LINGER) {
    struct linger lg;
    if (!val || len < (socklen_t)sizeof lg) { errno = EINVAL; ret = -1; goto out; }
    memcpy(&lg, val, sizeof lg);
    s->linger0 = lg.l_onoff && lg.l_linger == 0;
    goto out;
  }
  if (!val || len < (socklen_t)sizeof(int)) {
    errno = EINVAL;
    ret = -1;
    goto out;
  }
  memcpy(&v, val, sizeof v);
  if (level == SOL_SOVIA) {
    bool fresh = s->kind == SV_NEW;
    switch (name) {
    case SOVIA_SO_W:
      if (!fresh) { errno = EISCONN; ret = -1; break; }
      if (v < 1 || v > SV_WMAX) { errno = EINVAL; ret = -1; break; }
      s->cfg.w = (unsigned)v;
      s->cfg.t = sv_credit_t(s->cfg.w, s->cfg.t);
      break;
    case SOVIA_SO_T:
      if (!fresh) { errno = EISCONN; ret = -1; break; }
      if (v < 1 || (unsigned)v > sv_credit_t(s->cfg.w, SV_WMAX)) { errno = EINVAL; ret = -1; break; }
      s->cfg.t = (unsigned)v;
      break;
    case SOVIA_SO_COPY_THRESHOLD:
      if (v < 0) { errno = EINVAL; ret = -1; break; }
      s->cfg.copy_threshold = (unsigned)v;
      break;
    case SOVIA_SO_COMBINE:
      s->cfg.combine = v != 0;
      if (!v && s->c) sv_comb_flush(s->c), sv_pump(s->c);
      break;
    case SOVIA_SO_COMBINE_US:
      if (v < 1) { errno = EINVAL; ret = -1; break; }
      s->cfg.combine_us = (unsigned)v;
      break;
    default: errno = ENOPROTOOPT; ret = -1;
    }
  } else if (level == IPPROTO_TCP && name == TCP_NODELAY) {
    s->cfg.combine = v == 0;
    if (v && s->c) sv_comb_flush(s->c), sv_pump(s->c);
  } else if (level == SOL_SOCKET && name == SO_RCVBUF) {
    if (v < 0) { errno = EINVAL; ret = -1; goto out; }
    s->cfg.rcvbuf = (unsigned)v < 65536 ? 65536 : (unsigned)v;
    if (s->c) s->c->rb_max = s->cfg.rcvbuf;   /* shrinking: the ring drains to it */
  } else if (flag_bit(level, name)) {
    if (v) s->flagopts |= flag_bit(level, name);   /* no effect; read back as set */
    else s->flagopts &= ~flag_bit(level, name);
  } else if (level == SOL_SOCKET && name == SO_SNDBUF) {
    /* accepted, no effect */
  } else if (level == IPPROTO_TCP || level == SOL_SOCKET || level == IPPROTO_IP ||
             level == IPPROTO_IPV6) {
    /* other TCP/IP tuning: accepted, no effect (programs set them by habit) */
  } else {
    errno = ENOPROTOOPT;
    ret = -1;
  }
out:
  sv_unlock();
  return ret;
}

/* TCP_INFO: what SOVIA knows, in TCP's terms: the state, the chunk as the segment size, the
 * credit window as the congestion window, the receive ring as its space; no retransmissions (the NIC's Reliable
 * Delivery repairs nothing it reports), a nominal 100 us round trip. */
static void tcp_info_of(const struct sv_sock *s, struct tcp_info *ti) {
  memset(ti, 0, sizeof *ti);
  ti->tcpi_state = s->kind == SV_LISTEN ? 10 /* TCP_LISTEN */
                   : s->kind == SV_CONN && s->c && !s->c->err ? 1 /* TCP_ESTABLISHED */
                   : 7 /* TCP_CLOSE */;
  ti->tcpi_rto = 200000;
  ti->tcpi_ato = 40000;
  ti->tcpi_snd_mss = ti->tcpi_rcv_mss = ti->tcpi_advmss = SV_CHUNK;
  ti->tcpi_pmtu = SV_CHUNK;
  ti->tcpi_rtt = 100;
  ti->tcpi_rttvar = 50;
  ti->tcpi_snd_ssthresh = 0x7fffffff;
  ti->tcpi_reordering = 3;
  if (s->kind == SV_CONN && s->c) {
    const struct sv_conn *c = s->c;
    ti->tcpi_snd_cwnd = c->hello ? c->W : 1;
    ti->tcpi_unacked = c->unacked;
    ti->tcpi_rcv_space = (uint32_t)c->rb_max;
  }
}

int sovia_getsockopt(int fd, int level, int name, void *val, socklen_t *len) {
  int ret = 0, v = 0;
  sv_lock();
  struct sv_sock *s = sv_sock_get(fd);
  if (!s) { errno = EBADF; ret = -1; goto out; }
  if (level == IPPROTO_TCP && name == TCP_INFO && val && len) {
    struct tcp_info ti;
    tcp_info_of(s, &ti);
    socklen_t n = *len < sizeof ti ? *len : (socklen_t)sizeof ti;
    memcpy(val, &ti, n);
    *len = n;
    goto out;
  }
  if (is_timeo(level, name) && val && len && *len >= (socklen_t)sizeof(struct timeval)) {
    uint64_t ns = name == SO_RCVTIMEO ? s->rcvtimeo_ns : s->sndtimeo_ns;
    struct timeval tv = {(time_t)(ns / 1000000000ull), (suseconds_t)(ns % 1000000000ull / 1000)};
    memcpy(val, &tv, sizeof tv);
    *len = sizeof tv;
    goto out;
  }
  if (!val || !len || *len < (socklen_t)sizeof(int)) { errno = EINVAL; ret = -1; goto out; }
  if (level == SOL_SOVIA) {
    switch (name) {
    case SOVIA_SO_W: v = (int)(s->c && s->c->hello ? s->c->Wd : s->cfg.w); break;
    case SOVIA_SO_T: v = (int)(s->c && s->c->hello ? s->c->T : s->cfg.t); break;
    case SOVIA_SO_COPY_THRESHOLD: v = (int)s->cfg.copy_threshold; break;
    case SOVIA_SO_COMBINE: v = s->cfg.combine; break;
    case SOVIA_SO_COMBINE_US: v = (int)s->cfg.combine_us; break;
    case SOVIA_SO_INFLIGHT_MAX: v = s->c ? (int)s->c->inflight_max : 0; break;
    default: errno = ENOPROTOOPT; ret = -1;
    }
  } else if (level == IPPROTO_TCP && name == TCP_NODELAY) {
    v = !s->cfg.combine;
  } else if (level == IPPROTO_TCP && name == TCP_MAXSEG) {
    v = SV_CHUNK;
  } else if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY) {
    v = 0;                     /* a SOVIA listener takes IPv4 and IPv4-mapped peers alike */
  } else if (flag_bit(level, name)) {
    v = (s->flagopts & flag_bit(level, name)) != 0;
  } else if (level == SOL_SOCKET && name == SO_ERROR) {
    if (s->so_error) {
      v = s->so_error;
      s->so_error = 0;
    } else if (s->c && s->c->err) {
      v = s->c->err;
    }
  } else if (level == SOL_SOCKET && name == SO_TYPE) {
    v = SOCK_STREAM;
  } else if (level == SOL_SOCKET && name == SO_ACCEPTCONN) {
    v = s->kind == SV_LISTEN;
  } else if (level == SOL_SOCKET && name == SO_RCVBUF) {
    v = (int)(s->c ? s->c->rb_max : s->cfg.rcvbuf ? s->cfg.rcvbuf : SV_RING_MAX);
  } else if (level == SOL_SOCKET && name == SO_SNDBUF) {
    unsigned wd, cw, ct;
    sv_window(s->cfg.w, s->cfg.t, &wd, &cw, &ct);
    v = (int)(cw * SV_CHUNK);
  } else {
    errno = ENOPROTOOPT;
    ret = -1;
  }
  if (!ret) {
    memcpy(val, &v, sizeof v);
    *len = sizeof v;
  }
out:
  sv_unlock();
  return ret;
}
