/* sv_data.c: SOVIA's send and receive paths. send(): requests up to the copy threshold are
 * copied into pre-registered bounce slots (with combining on, appended to the open slot, which
 * goes out when its timer expires, when it is full, before a larger send, or on recv/close);
 * larger requests are registered (through the registration cache) and sent in place in 32 KB
 * chunks, send() returning when their descriptors have completed (the NIC has read the bytes).
 * When the DATA window allows more than one DATA in flight, the last 128 KB of a registered
 * request are copied into slots instead: send() then waits only for the chunks before them
 * and returns while the copy is still in flight, so consecutive sends keep the window full
 * (a registered send's last chunk would otherwise drain it at every call). Non-blocking
 * sockets always copy. recv(): DATA waits in its receive descriptor (sv_proto.c) and recv()
 * copies it straight into the caller's buffer, then re-posts and acknowledges it; a recv()
 * that waits lends its buffer to the engine, which copies arriving DATA into it. What a read
 * leaves of a DATA (and peeked DATA) goes to a ring (bounded: SO_RCVBUF), read first next
 * time. Each byte is copied once, unless reads are smaller than the DATA. Called with G.mu
 * held. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sv_int.h"

/* libnic's timing mode (nicd --timing) charges each copy at the profile's host memcpy rate;
 * weak, so SOVIA keeps depending on VIPL's interface only. */
void lnic_vt_copy(size_t bytes) __attribute__((weak));
static void charge_copy(size_t bytes) {
  if (lnic_vt_copy) lnic_vt_copy(bytes);
}

static void queue_slot(struct sv_conn *c, unsigned i, const void *addr, uint32_t len,
                       VIP_MEM_HANDLE h) {
  VIP_DESCRIPTOR *d = &c->sd[i];
  memset(d, 0, sizeof *d);
  d->CS.Control = VIP_CONTROL_IMMEDIATE;
  d->CS.SegCount = 1;
  d->CS.Length = len;
  d->DS[0].Local.Data.Address = (void *)addr;
  d->DS[0].Local.Handle = h;
  d->DS[0].Local.Length = len;
  c->sq[(c->sq_head + c->sq_len) % c->ns] = i;
  c->sq_len++;
}

bool sv_data_in_flight(const struct sv_conn *c) {
  return c->sq_len || c->unacked > (c->wakeup_acked ? 0u : 1u);
}

void sv_comb_flush(struct sv_conn *c) {
  if (c->comb < 0) return;
  unsigned i = (unsigned)c->comb;
  c->comb = -1;
  queue_slot(c, i, c->sbufs + (size_t)i * SV_CHUNK, c->slen[i], c->mh);
}

static bool conn_broken(const struct sv_conn *c) {
  return c->err || c->st == SV_CLOSED || c->fin_wanted;
}
/* A thread waiting in a call on c while another thread of the process forked left it
 * unclaimed (the fork hands connections to their first user): this thread uses it. */
static bool still_used(struct sv_conn *c) { return sv_claim_quiet(c); }

static bool slot_or_error(void *arg) {
  struct sv_conn *c = arg;
  return !still_used(c) || c->nsfree > 0 || conn_broken(c) || sv_relay_due(c);
}
static bool user_sent(void *arg) {
  struct sv_conn *c = arg;
  return c->user_out == 0 || c->err || c->st == SV_CLOSED;
}

/* A sender out of credits whose peer sends too while this application only sends would wait
 * for good once the peer is out of credits as well (its DATA held here: W x 32 KB), where
 * TCP's buffers take megabytes (a client writing 3 MB to `ncat --exec cat` before reading
 * any echo). So while it waits, held DATA move to the receive ring (up to its bound,
 * SO_RCVBUF), their descriptors go back to the NIC and their credits to the peer. */
static bool spill_then_credit(void *arg) {
  struct sv_conn *c = arg;
  if (c->nheld) {
    sv_rx_release(c, c->nheld);
    sv_pump(c);
  }
  return c->credit > 0 || slot_or_error(arg);
}

/* A free data slot, waiting if blocking (until deadline, if not 0: then -EAGAIN, as a
 * SO_SNDTIMEO ends a send): its index, or -errno. Out of credits, it waits for the peer's
 * ACK alone: a slot our own completions free meanwhile could take a copy but not go, and
 * waking for each one cost more than the copy (a wake-up per 32 KB message). */
static int take_slot(struct sv_conn *c, bool nonblock, uint64_t deadline) {
  if (!c->nsfree) {
    sv_progress(c);
    if (!c->nsfree && nonblock) return conn_broken(c) ? -EPIPE : -EAGAIN;
    while (!c->nsfree && !conn_broken(c)) {
      bool acks = c->hello && c->credit == 0;
      int r = acks ? sv_wait_rx(spill_then_credit, c, deadline)
                   : sv_wait_intr(slot_or_error, c, deadline);
      if (r == -EINTR && !c->nsfree) return -EINTR;
      if (r == -ETIMEDOUT && !c->nsfree) return -EAGAIN;
      if (sv_relay_due(c) && !c->nsfree) return -EXDEV;   /* the shim relays it, then sends on */
      if (!sv_claim_quiet(c)) return -EBADF;   /* another thread forked meanwhile */
    }
  }
  if (conn_broken(c)) return c->err ? -c->err : -EPIPE;
  return (int)c->sfree[--c->nsfree];
}

/* Combining holds small sends only while DATA is in flight, as Nagle's algorithm does: a small
 * send on an idle connection (a request, a reply) leaves at once, and the ones that follow it
 * while it is unacknowledged gather in one slot, which goes when everything is acknowledged,
 * when its timer expires, when full, before a larger send, or on recv(). */
static ssize_t send_copy(struct sv_sock *s, const uint8_t *buf, size_t n, bool nonblock) {
  struct sv_conn *c = s->c;
  uint64_t deadline = sv_deadline(s->sndtimeo_ns);
  bool combine = s->cfg.combine && n <= s->cfg.copy_threshold && n < SV_CHUNK;
  size_t done = 0;
  while (done < n) {
    size_t piece = n - done < SV_CHUNK ? n - done : SV_CHUNK;
    if (combine && c->comb >= 0 && c->slen[c->comb] + piece <= SV_CHUNK) {
      unsigned i = (unsigned)c->comb;
      memcpy(c->sbufs + (size_t)i * SV_CHUNK + c->slen[i], buf + done, piece);
      charge_copy(piece);
      c->slen[i] += (uint32_t)piece;
      done += piece;
      if (c->slen[i] == SV_CHUNK) sv_comb_flush(c);
      continue;
    }
    sv_comb_flush(c);
    sv_pump(c);
    int i = take_slot(c, nonblock, deadline);
    if (i < 0) {
      if (done) break;
      errno = -i;
      return -1;
    }
    uint8_t *b = c->sbufs + (size_t)i * SV_CHUNK;
    memcpy(b, buf + done, piece);
    charge_copy(piece);
    c->slen[i] = (uint32_t)piece;
    done += piece;
    if (combine && sv_data_in_flight(c)) {
      c->comb = i;
      c->comb_deadline = sv_now_ns() + (uint64_t)s->cfg.combine_us * 1000;
      sv_closer_comb(c->comb_deadline, (uint64_t)s->cfg.combine_us * 1000);
    } else {
      queue_slot(c, (unsigned)i, b, (uint32_t)piece, c->mh);
    }
  }
  sv_pump(c);
  /* queued before the peer's WAKEUP: the close thread sends it once that is in, whatever
   * this process does next (it may sleep, or wait on something else) */
  if (c->sq_len && !c->hello) sv_closer_kick();
  return (ssize_t)done;
}

/* The copied tail of a registered request: its last SV_TAIL_CHUNKS chunks (at most Wd) when
 * the DATA window lets them be in flight behind the registered chunks, none for w = 1. They
 * keep the link busy while send() returns and the next one registers: with one copied chunk
 * a 128 KB send (iperf3's) drained the window at every call, 1.2-1.8 GB/s against 2.2-3.3
 * with four; 1 MiB sends measured the same either way. */
static size_t reg_tail(const struct sv_conn *c, size_t n) {
  if (!c->hello || c->Wd < 2) return 0;
  size_t chunks = c->Wd < SV_TAIL_CHUNKS ? c->Wd : SV_TAIL_CHUNKS, tail = chunks * SV_CHUNK;
  return n < tail ? n : tail;
}

static ssize_t send_reg(struct sv_sock *s, const uint8_t *buf, size_t n) {
  struct sv_conn *c = s->c;
  size_t tail = reg_tail(c, n), head = n - tail;
  VIP_MEM_HANDLE h;
  if (!head || sv_reg_get((void *)buf, head, &h) != 0) return send_copy(s, buf, n, false);
  sv_comb_flush(c);
  size_t done = 0;
  int err = 0;
  while (done < head) {
    size_t piece = head - done < SV_CHUNK ? head - done : SV_CHUNK;
    int i = take_slot(c, false, 0);
    if (i < 0) {
      err = -i;
      break;
    }
    c->suser[i] = true;
    c->user_out++;
    queue_slot(c, (unsigned)i, buf + done, (uint32_t)piece, h);
    done += piece;
    sv_pump(c);
  }
  if (!err && tail) {         /* queued behind the registered chunks, so the order holds */
    ssize_t r = send_copy(s, buf + head, tail, false);
    if (r < 0) err = errno;
    else done += (size_t)r;
  }
  sv_wait(user_sent, c, 0);
  sv_reg_put((void *)buf);
  if (c->user_out) {          /* broken while our pages were queued: never touch them again */
    c->sq_len = 0;
    if (!err) err = c->err ? c->err : EPIPE;
  }
  if (err && !c->user_out && done == n && !c->err) err = 0;
  if (err) {
    errno = err;
    return -1;
  }
  return (ssize_t)n;
}

ssize_t sv_send(struct sv_sock *s, const uint8_t *buf, size_t n, bool nonblock) {
  struct sv_conn *c = s->c;
  if (c->err) {
    errno = c->err == ECONNRESET || c->err == ENETDOWN ? c->err : EPIPE;
    return -1;
  }
  if (c->fin_wanted || c->st == SV_CLOSED) {
    errno = EPIPE;
    return -1;
  }
  if (n == 0) return 0;
  /* a registered send returns only once the NIC has read the buffer: none under a timeout */
  if (nonblock || n <= s->cfg.copy_threshold || s->sndtimeo_ns)
    return send_copy(s, buf, n, nonblock);
  ssize_t total = 0;
  while ((size_t)total < n) {   /* register at most 64 MB at a time */
    size_t part = n - (size_t)total > (64u << 20) ? (64u << 20) : n - (size_t)total;
    ssize_t r = send_reg(s, buf + total, part);
    if (r < 0) return total ? total : -1;
    total += r;
  }
  return total;
}

bool sv_rx_room(struct sv_conn *c, size_t n) { return c->rb_len + n <= c->rb_max; }

void sv_rx_data(struct sv_conn *c, const uint8_t *p, size_t n) {
  c->evseq++;
  /* A waiting recv()'s buffer first. The order holds: it was lent on an empty ring, and the
   * ring takes bytes only once the buffer is full. */
  if (c->ubuf) {
    size_t k = c->ulen - c->ugot < n ? c->ulen - c->ugot : n;
    memcpy(c->ubuf + c->ugot, p, k);
    charge_copy(k);
    c->ugot += k;
    p += k;
    n -= k;
    if (!n) return;
  }
  if (c->rb_len + n > c->rb_cap) {
    size_t cap = c->rb_cap;
    while (cap < c->rb_len + n) cap *= 2;
    uint8_t *nb = malloc(cap);
    if (!nb) {
      sv_fail(c, ENOMEM);
      return;
    }
    size_t first = c->rb_cap - c->rb_head < c->rb_len ? c->rb_cap - c->rb_head : c->rb_len;
    memcpy(nb, c->rb + c->rb_head, first);
    memcpy(nb + first, c->rb, c->rb_len - first);
    free(c->rb);
    c->rb = nb;
    c->rb_cap = cap;
    c->rb_head = 0;
  }
  size_t tail = (c->rb_head + c->rb_len) % c->rb_cap;
  size_t first = c->rb_cap - tail < n ? c->rb_cap - tail : n;
  memcpy(c->rb + tail, p, first);
  memcpy(c->rb, p + first, n - first);
  charge_copy(n);
  c->rb_len += n;
}

static size_t rb_take(struct sv_conn *c, uint8_t *out, size_t n, bool peek) {
  if (n > c->rb_len) n = c->rb_len;
  size_t first = c->rb_cap - c->rb_head < n ? c->rb_cap - c->rb_head : n;
  memcpy(out, c->rb + c->rb_head, first);
  memcpy(out + first, c->rb, n - first);
  charge_copy(n);
  if (!peek) {
    c->rb_head = (c->rb_head + n) % c->rb_cap;
    c->rb_len -= n;
    if (!c->rb_len) c->rb_head = 0;
  }
  return n;
}

bool sv_readable(struct sv_conn *c) {
  return c->rb_len > 0 || c->nheld > 0 || c->peer_fin || c->err || c->st == SV_CLOSED ||
         c->rd_shut;
}

bool sv_writable(struct sv_conn *c) {
  if (c->err || c->st == SV_CLOSED || c->fin_wanted) return true;   /* the error shows */
  if (c->st != SV_NORMAL && c->st != SV_CLOSE_WAIT) return false;
  return c->nsfree > 0 || (c->comb >= 0 && c->slen[c->comb] < SV_CHUNK);
}

/* Held DATA for a reader, oldest first: copied straight into out (what does not fit goes to
 * the ring behind it), or, for a peek or while another thread's recv() has lent its buffer,
 * taken into the ring and read from there. The bytes put in out. */
static size_t take_held(struct sv_conn *c, uint8_t *out, size_t n, bool peek) {
  if (peek || c->ubuf) {
    sv_rx_release(c, 1);
    return rb_take(c, out, n, peek);
  }
  c->ubuf = out;
  c->ulen = n;
  c->ugot = 0;
  sv_rx_release(c, 0);
  size_t k = c->ugot;
  c->ubuf = NULL;
  return k;
}

struct rx_wait { struct sv_conn *c; bool lent; };

static bool readable_pred(void *arg) {
  struct rx_wait *w = arg;
  return !still_used(w->c) || sv_readable(w->c) || (w->lent && w->c->ugot) || sv_relay_due(w->c);
}

ssize_t sv_recv(struct sv_sock *s, uint8_t *buf, size_t n, int flags, bool nonblock) {
  struct sv_conn *c = s->c;
  uint64_t deadline = sv_deadline(s->rcvtimeo_ns);
  if (c->comb >= 0) sv_comb_flush(c);    /* a reply is awaited: what we combined must go */
  size_t got = 0;
  sv_progress(NULL);
  for (;;) {
    /* the ring first (what earlier reads left of a DATA), then the held DATA in order */
    while ((c->rb_len || c->nheld) && !c->rd_shut) {
      size_t k = c->rb_len ? rb_take(c, buf + got, n - got, flags & MSG_PEEK)
                           : take_held(c, buf + got, n - got, flags & MSG_PEEK);
      got += k;
      if (got == n || !(flags & MSG_WAITALL) || (flags & MSG_PEEK)) return (ssize_t)got;
      if (!k) break;
    }
    if (c->rd_shut || c->peer_fin) return (ssize_t)got;
    if (c->err || c->st == SV_CLOSED) {
      if (got) return (ssize_t)got;
      errno = c->err ? c->err : ENOTCONN;
      return -1;
    }
    if (nonblock || (flags & MSG_DONTWAIT)) {
      if (got) return (ssize_t)got;
      errno = EAGAIN;
      return -1;
    }
    /* The ring is empty: lend the rest of the buffer while waiting (not when peeking, nor
     * when another thread waiting on this socket lent its own). */
    struct rx_wait w = {c, !(flags & MSG_PEEK) && !c->ubuf};
    if (w.lent) {
      c->ubuf = buf + got;
      c->ulen = n - got;
      c->ugot = 0;
    }
    int wr = sv_wait_rx(readable_pred, &w, deadline);
    if (w.lent) {
      got += c->ugot;
      c->ubuf = NULL;
      if (got == n || (got && !(flags & MSG_WAITALL))) return (ssize_t)got;
    }
    if (!sv_claim_quiet(c)) {   /* another thread forked meanwhile: this one still reads */
      if (got) return (ssize_t)got;
      errno = EBADF;
      return -1;
    }
    if ((wr == -EINTR || wr == -ETIMEDOUT) && !sv_readable(c)) {
      if (got) return (ssize_t)got;
      errno = wr == -EINTR ? EINTR : EAGAIN;   /* SO_RCVTIMEO: as the kernel, EAGAIN */
      return -1;
    }
    if (sv_relay_due(c) && !sv_readable(c)) {   /* the shim relays it, then reads on */
      if (got) return (ssize_t)got;
      errno = EXDEV;
      return -1;
    }
  }
}
