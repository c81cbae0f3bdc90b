/* sv_proto.c: the SOVIA protocol engine, the C of esm/sovia/conn.esm (connection states, close
 * protocol) and window.esm (credits, delayed ACKs): taking completions, acting on each received
 * packet (WAKEUP, DATA, ACK, FIN, FINACK; kind and piggybacked ACK count in the immediate data),
 * re-posting the descriptor (a DATA's once it is read), sending what the credits allow, and
 * waiting. Every packet but ACK takes a credit; WAKEUP and DATA are acknowledged, explicitly
 * after T or piggybacked on the next DATA; DATA also needs room in the DATA window Wd (less than
 * W only for w = 1). DATA stays in its descriptor, unacknowledged, until a recv() takes it
 * (straight into the caller's buffer) or one waits with its buffer lent; a FIN waits behind it.
 * The sender thus runs out of credits while the application does not read, and a reader copies
 * each byte once. Called with G.mu held. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sv_int.h"
#include "vipl_ext.h"

#define CHECK_NS 20000000ull   /* how often a waiting connection looks at its VI's state */

static bool closing_state(enum sv_state s) {
  return s == SV_FIN_WAIT1 || s == SV_FIN_WAIT2 || s == SV_CLOSING || s == SV_LAST_ACK ||
         s == SV_TIME_WAIT;
}

static void keep_held(struct sv_conn *c);

void sv_fail(struct sv_conn *c, int err) {
  if (c->st == SV_CLOSED) return;
  keep_held(c);
  if (getenv("SOVIA_DEBUG"))
    fprintf(stderr, "sovia %d: connection fails in state %d: %s (peer_fin %d)\n", (int)getpid(),
            (int)c->st, strerror(err), c->peer_fin);
  /* Only the peer's FIN ends its stream: without it, an application that may still read
   * gets the error (our own FIN sent, FIN_WAIT, does not make the peer's stream whole). A
   * closed socket (an orphan) has nobody to tell. */
  if (c->st == SV_TEARDOWN ||
      (closing_state(c->st) && (c->peer_fin || c->app_closed || c->rd_shut))) {
    c->st = SV_CLOSED;      /* the peer is gone after (or while) closing: nothing is lost */
    c->evseq++;
    return;
  }
  if (!c->err) c->err = err;
  c->st = SV_CLOSED;
  c->evseq++;
}

static void reap_sq(struct sv_conn *c) {
  VIP_DESCRIPTOR *d;
  while (VipSendDone(c->vi, &d) == VIP_SUCCESS && d) {
    c->posted_sends--;
    c->evseq++;
    if (d->CS.Status & VIP_STATUS_ERROR_MASK) {
      if (getenv("SOVIA_DEBUG")) fprintf(stderr, "send status %#x\n", d->CS.Status);
      sv_fail(c, sv_broken_errno());
    }
    if (d >= c->sd && d < c->sd + c->ns) {
      unsigned i = (unsigned)(d - c->sd);
      if (c->suser[i]) {
        c->suser[i] = false;
        c->user_out--;
      }
      c->sfree[c->nsfree++] = i;
    } else if (d >= c->cd && d < c->cd + SV_NCTL) {
      c->cbusy[d - c->cd] = false;
      c->cfree_n++;
    }
  }
}

int sv_post_ctl(struct sv_conn *c, unsigned kind, unsigned acks, const void *p, unsigned len) {
  uint64_t until = sv_now_ns() + 2000000000ull;
  while (c->cfree_n == 0) {   /* control packets are small and complete fast */
    reap_sq(c);
    if (c->cfree_n) break;
    if (sv_now_ns() > until || c->st == SV_CLOSED) return -ENOBUFS;
    sched_yield();
  }
  unsigned i = 0;
  while (c->cbusy[i]) i++;
  c->cbusy[i] = true;
  c->cfree_n--;
  VIP_DESCRIPTOR *d = &c->cd[i];
  memset(d, 0, sizeof *d);
  d->CS.Control = VIP_CONTROL_IMMEDIATE;
  d->CS.ImmediateData = SV_IMM(kind, acks);
  if (len) {
    uint8_t *b = c->cbufs + (size_t)i * 64;
    memcpy(b, p, len);
    d->CS.SegCount = 1;
    d->CS.Length = len;
    d->DS[0].Local.Data.Address = b;
    d->DS[0].Local.Handle = c->mh;
    d->DS[0].Local.Length = len;
  }
  c->posted_sends++;
  if (VipPostSend(c->vi, d, c->mh) != VIP_SUCCESS) {
    c->posted_sends--;
    c->cbusy[i] = false;
    c->cfree_n++;
    return -ECONNRESET;
  }
  return 0;
}

static void ack_if_due(struct sv_conn *c) {
  if (c->hello && c->dack >= c->T) {
    if (sv_post_ctl(c, SV_ACK, c->dack, NULL, 0) == 0) c->dack = 0;
  }
}

static void took_acks(struct sv_conn *c, unsigned acks) {
  c->credit += acks;
  c->unacked = acks < c->unacked ? c->unacked - acks : 0;
  if (acks) c->wakeup_acked = true;
  if (c->comb >= 0 && !sv_data_in_flight(c)) sv_comb_flush(c);   /* as Nagle's: all acked */
}

/* DATA into the ring (dropped, but acknowledged, after close or SHUT_RD). */
static void take_data(struct sv_conn *c, VIP_DESCRIPTOR *d) {
  uint32_t len = d->CS.Length;
  if (!c->app_closed && !c->rd_shut) sv_rx_data(c, d->DS[0].Local.Data.Address, len);
  if (c->app_closed && len) c->reset_wanted = true;   /* nobody will read it: say so */
  c->rx_bytes += len;
  sv_conn_repost(c, d);
  c->dack++;
  ack_if_due(c);
}

static void take_fin(struct sv_conn *c, VIP_DESCRIPTOR *d) {
  sv_conn_repost(c, d);
  c->peer_fin = true;
  c->evseq++;
  c->finack_owed = true;
  if (c->st == SV_NORMAL) c->st = SV_CLOSE_WAIT;
  else if (c->st == SV_FIN_WAIT1) c->st = SV_CLOSING;
  else if (c->st == SV_FIN_WAIT2) c->st = SV_TIME_WAIT;
}

static bool is_fin(const VIP_DESCRIPTOR *d) { return d->CS.ImmediateData % SV_KINDS == SV_FIN; }

static void hold(struct sv_conn *c, VIP_DESCRIPTOR *d) {
  c->held[(c->held_head + c->nheld) % c->nr] = d;   /* at most nr descriptors exist */
  c->nheld++;
}

static VIP_DESCRIPTOR *unhold(struct sv_conn *c) {
  VIP_DESCRIPTOR *d = c->held[c->held_head];
  c->held_head = (c->held_head + 1) % c->nr;
  c->nheld--;
  return d;
}

size_t sv_rx_pending(const struct sv_conn *c) {
  size_t n = c->rb_len;
  for (unsigned i = 0; i < c->nheld; i++) {
    const VIP_DESCRIPTOR *d = c->held[(c->held_head + i) % c->nr];
    if (!is_fin(d)) n += d->CS.Length;
  }
  return n;
}

/* Whether the oldest held packet may be taken now: a FIN always, DATA after close or SHUT_RD
 * (dropped, acknowledged), into a recv()'s lent buffer while it has room, or when `force`
 * asks for it; what does not fit the lent buffer must fit the ring. */
static bool may_take(struct sv_conn *c, const VIP_DESCRIPTOR *d, bool force) {
  if (is_fin(d) || c->app_closed || c->rd_shut) return true;
  bool lent = c->ubuf && c->ugot < c->ulen;
  if (!lent && !force) return false;
  size_t room = lent ? c->ulen - c->ugot : 0, len = d->CS.Length;
  return len <= room || sv_rx_room(c, len - room);
}

void sv_rx_release(struct sv_conn *c, unsigned force) {
  while (c->nheld && c->st != SV_CLOSED) {
    VIP_DESCRIPTOR *d = c->held[c->held_head];
    bool forced = force > 0;
    if (!may_take(c, d, forced)) return;
    if (forced) force--;
    unhold(c);
    if (is_fin(d)) take_fin(c, d);
    else take_data(c, d);
  }
}

/* A connection that breaks keeps what arrived: held DATA go to the ring (it grows past its
 * bound if it must), a FIN behind them still ends the stream. Nothing is re-posted. */
static void keep_held(struct sv_conn *c) {
  while (c->nheld) {
    VIP_DESCRIPTOR *d = unhold(c);
    if (is_fin(d)) c->peer_fin = true;
    else if (!c->app_closed && !c->rd_shut)
      sv_rx_data(c, d->DS[0].Local.Data.Address, d->CS.Length);
  }
}

static void on_packet(struct sv_conn *c, VIP_DESCRIPTOR *d) {
  uint32_t imm = d->CS.ImmediateData, len = d->CS.Length;
  unsigned kind = imm % SV_KINDS, acks = imm / SV_KINDS;
  const uint8_t *payload = d->DS[0].Local.Data.Address;
  c->evseq++;
  switch (kind) {
  case SV_WAKEUP: {
    struct sv_hello h = {0};
    if (len >= sizeof h) memcpy(&h, payload, sizeof h);
    if (h.magic != SV_MAGIC || !h.w || !h.t) {
      sv_fail(c, EPROTO);
      return;
    }
    unsigned Wd = h.w < c->w ? h.w : c->w, T = h.t > c->t ? h.t : c->t;
    unsigned W = sv_credit_w(Wd);   /* both posted >= 2 + 2/1; the close needs W >= T + 1 */
    if (T > W - 1) T = W - 1;
    c->W = W;
    c->Wd = Wd;
    c->T = T;
    c->hello = true;
    c->credit += W - 1;     /* our WAKEUP holds the other one */
    sv_conn_repost(c, d);
    c->dack++;
    ack_if_due(c);
    return;
  }
  case SV_DATA:
    took_acks(c, acks);
    hold(c, d);
    sv_rx_release(c, 0);
    return;
  case SV_ACK:
    took_acks(c, acks);
    sv_conn_repost(c, d);
    return;
  case SV_FIN:
    if (c->nheld) {         /* end-of-file comes after the held data */
      hold(c, d);
      return;
    }
    take_fin(c, d);
    return;
  case SV_FINACK:
    if (c->st == SV_LAST_ACK) c->st = SV_TEARDOWN;
    else if (c->st == SV_FIN_WAIT1) c->st = SV_FIN_WAIT2;
    else if (c->st == SV_CLOSING) c->st = SV_TIME_WAIT;
    if (c->st != SV_TEARDOWN) sv_conn_repost(c, d);
    return;
  default:
    sv_fail(c, EPROTO);
  }
}

static void reap_rq(struct sv_conn *c) {
  VIP_DESCRIPTOR *d;
  while (c->st != SV_CLOSED && c->st != SV_TEARDOWN && VipRecvDone(c->vi, &d) == VIP_SUCCESS && d) {
    if (d->CS.Status & VIP_STATUS_ERROR_MASK) {
      sv_fail(c, sv_broken_errno());
      return;
    }
    on_packet(c, d);
  }
}

static void post_data(struct sv_conn *c) {
  unsigned i = c->sq[c->sq_head];
  VIP_DESCRIPTOR *d = &c->sd[i];
  d->CS.ImmediateData = SV_IMM(SV_DATA, c->dack);
  d->CS.Status = 0;
  c->posted_sends++;
  if (VipPostSend(c->vi, d, c->mh) != VIP_SUCCESS) {
    c->posted_sends--;
    sv_fail(c, sv_broken_errno());
    return;
  }
  c->dack = 0;
  c->credit--;
  if (++c->unacked > c->inflight_max) c->inflight_max = c->unacked;
  c->tx_bytes += d->CS.Length;
  c->sq_head = (c->sq_head + 1) % c->ns;
  c->sq_len--;
}

void sv_pump(struct sv_conn *c) {
  if (c->st == SV_CONNECTING || c->st == SV_CLOSED || !c->hello) return;
  if (c->reset_wanted && c->comb < 0 && !sv_data_in_flight(c)) {
    c->st = SV_CLOSED;        /* sv_conn_free disconnects the VI: the peer's reset */
    c->evseq++;
    return;
  }
  if (c->finack_owed && c->credit > 0 &&
      (c->st == SV_CLOSE_WAIT || c->st == SV_CLOSING || c->st == SV_TIME_WAIT)) {
    if (sv_post_ctl(c, SV_FINACK, 0, NULL, 0) == 0) {
      c->credit--;
      c->finack_owed = false;
    }
  }
  if (c->comb >= 0 && sv_now_ns() >= c->comb_deadline) sv_comb_flush(c);
  if ((c->st == SV_NORMAL || c->st == SV_CLOSE_WAIT) && !c->finack_owed)
    while (c->sq_len && c->credit > 0 && c->unacked < c->Wd && c->st != SV_CLOSED) post_data(c);
  if (c->fin_wanted && !c->reset_wanted && !c->sq_len && c->comb < 0 && c->credit > 0 &&
      !c->finack_owed &&
      (c->st == SV_NORMAL || c->st == SV_CLOSE_WAIT)) {
    if (sv_post_ctl(c, SV_FIN, 0, NULL, 0) == 0) {
      c->credit--;
      c->st = c->st == SV_NORMAL ? SV_FIN_WAIT1 : SV_LAST_ACK;
    }
  }
  if (c->st == SV_TIME_WAIT && !c->finack_owed) c->st = SV_TEARDOWN;
  if (c->st == SV_TEARDOWN) {
    reap_sq(c);
    if (c->posted_sends == 0) c->st = SV_CLOSED;
  }
}

static void check_vi(struct sv_conn *c, uint64_t now) {
  if (c->st == SV_CLOSED || now - c->last_check < CHECK_NS) return;
  c->last_check = now;
  VIP_VI_STATE st;
  VIP_RETURN r = VipQueryVi(c->vi, &st, NULL, NULL, NULL);
  if (r != VIP_SUCCESS || st == VIP_STATE_ERROR) {
    reap_rq(c);             /* what arrived before the peer went away still counts */
    if (r != VIP_SUCCESS) sv_nic_gone();
    sv_fail(c, sv_broken_errno());
  }
}

static void progress_one(struct sv_conn *c, uint64_t now) {
  if (c->st == SV_CONNECTING) return;
  reap_sq(c);
  sv_rx_release(c, 0);
  reap_rq(c);
  sv_pump(c);
  check_vi(c, now);
  if (c->st == SV_CLOSED && c->orphan) sv_conn_free(c);
}

void sv_progress(struct sv_conn *only) {
  VIP_VI_HANDLE vh;
  VIP_BOOLEAN rq;
  bool took = false;
  while (VipCQDone(G.cq, &vh, &rq) == VIP_SUCCESS) took = true;
  uint64_t now = sv_now_ns();
  if (only) {
    progress_one(only, now);
  } else {
    for (struct sv_conn *c = G.conns, *next; c; c = next) {
      next = c->next;
      if (sv_usable(c)) progress_one(c, now);
    }
  }
  /* The completions taken here are ones the notifier's watcher will not report: a caller
   * asleep in poll or epoll (a server's event loop, while its close thread or another of its
   * threads progresses) looks now, not when its slice ends. */
  if (took) sv_notify();
}

unsigned sv_signals(bool all) { return G.sig_count ? G.sig_count(all) : 0; }

void sovia_set_signal_probe(unsigned (*count)(int all)) {
  sv_lock();
  G.sig_count = count;
  sv_unlock();
}

/* How long one sleep on the CQ lasts at most: what wakes nobody (a dead peer's VI, checked
 * every CHECK_NS; a state another thread changed without a packet, e.g. its close) is looked
 * at this often (1 ms while a connection from before a fork is in use: legacy_in_use).
 * Longer than the kernel's clock tick: 1 ms sleeps made every wake-up of
 * SOVIA's ping-pong slower (README, "Latency"). A signal or a completion another thread took
 * ends a sleep at once (VIPX_CQ_ONCE). */
#define SLICE_MS 5

/* A connection that existed at a fork is not on this process's CQ (sv_fork.c): nothing wakes
 * a sleep for it, so while one is in use sleeps stay at 1 ms. */
static bool legacy_in_use(void) {
  for (struct sv_conn *c = G.conns; c; c = c->next)
    if (c->legacy && c->st != SV_CLOSED && sv_usable(c)) return true;
  return false;
}

/* sends: wake on send completions too (a free slot, a registered send done, a teardown);
 * false: only a received packet ends the sleep (sends are reaped by each progress pass).
 * slice_ms: the longest sleep (a deadline shortens it). */
static int wait_any(bool (*pred)(void *), void *arg, uint64_t deadline, bool intr, bool sends,
                    unsigned slice_ms, bool fresh) {
  unsigned sig0 = sv_signals(false);
  bool legacy = legacy_in_use();
  for (bool first = true;; first = false) {
    /* fresh: the caller progressed just now; a completion since is still unreported on the
     * CQ and ends the sleep at once, so the first pass need not look again */
    if (!first || !fresh || legacy) sv_progress(NULL);
    if (pred(arg)) return 0;
    uint64_t now = sv_now_ns();
    if (deadline && now >= deadline) return -ETIMEDOUT;
    if (intr && sv_signals(false) != sig0) return -EINTR;
    unsigned ms = legacy ? 1 : slice_ms;
    if (deadline && (deadline - now) / 1000000 + 1 < ms) ms = (unsigned)((deadline - now) / 1000000 + 1);
    sv_unlock();
    VIP_VI_HANDLE vh;
    VIP_BOOLEAN rq;
    VipxCQWaitEx(G.cq, ms, VIPX_CQ_ONCE | (sends ? 0 : VIPX_CQ_RECV_ONLY), &vh, &rq);
    sv_lock();
  }
}

/* No spin of its own with sched_yield: on a loaded machine a yield hands the CPU to a
 * CPU-bound neighbour for a whole slice; libnic sleeps at once (iface/wait.h, host spin). */
int sv_wait(bool (*pred)(void *), void *arg, uint64_t deadline) {
  return wait_any(pred, arg, deadline, false, true, SLICE_MS, false);
}
int sv_wait_intr(bool (*pred)(void *), void *arg, uint64_t deadline) {
  return wait_any(pred, arg, deadline, true, true, SLICE_MS, false);
}
int sv_wait_rx(bool (*pred)(void *), void *arg, uint64_t deadline) {
  return wait_any(pred, arg, deadline, true, false, SLICE_MS, true);
}
uint64_t sv_deadline(uint64_t ns) { return ns ? sv_now_ns() + ns : 0; }

int sv_wait_poll(bool (*pred)(void *), void *arg, uint64_t deadline) {
  return wait_any(pred, arg, deadline, true, true, 1, false);
}
