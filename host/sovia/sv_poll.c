/* sv_poll.c: readiness. sovia_poll waits on SOVIA sockets and ordinary descriptors together;
 * sovia_readiness answers for the shim's epoll. A listening socket is readable exactly when
 * its backlog holds a connection (asking starts its connection thread), or readable with
 * POLLERR once its connection thread gave up (the NIC went away), until accept() has said
 * why (as a pending socket error is said once); a connected one when
 * bytes, end-of-file or an error wait (POLLRDHUP once the peer sent FIN), writable when a
 * send slot is free; a connecting one neither, until it is connected (or failed: POLLERR); a
 * connection another process claimed after a fork is POLLNVAL here. Waiting progresses the
 * connections and sleeps on the completion queue (only SOVIA sockets) or, for mixed sets and
 * for callers holding signals (sovia_ppoll), in poll(2) with the readiness notifier
 * (sv_notify.c) among the descriptors. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sv_int.h"

#define MIXED_SLICE_MS 50   /* dead peers and timers are looked at this often while asleep */

static short sv_revents(struct sv_sock *s) {
  short r = 0;
  if (s->kind == SV_LISTEN) {
    sv_listen_run(s->l);
    if (sv_backlog_ready(s->l)) r |= POLLIN;
    else if (sv_listen_dead(s->l) && !s->l->dead_told)
      r |= POLLIN | POLLERR;   /* accept() then says why, once: a loop that ignores it sleeps */
  } else if (s->kind == SV_CONN && s->c) {
    struct sv_conn *c = s->c;
    if (!sv_claim(c)) return POLLNVAL;
    if (sv_relay_due(c)) return POLLIN | POLLOUT;   /* a call then hands it to a relay */
    if (sv_readable(c)) r |= POLLIN;
    if (sv_writable(c)) r |= POLLOUT;
    if (c->peer_fin) r |= POLLRDHUP;
    if (c->err) r |= POLLERR | POLLHUP;
    if (c->peer_fin && (c->fin_wanted || c->err)) r |= POLLHUP;
  } else if (s->kind == SV_NEW && s->so_error) {
    r |= POLLOUT | POLLERR | POLLHUP;   /* a non-blocking connect failed (TCP: the same) */
  } else if (s->kind == SV_NEW) {
    r |= POLLOUT;
  }
  return r;
}

static unsigned sv_seq(struct sv_sock *s) {
  if (s->kind == SV_LISTEN) return s->l->evseq;
  if (s->kind == SV_CONN && s->c) return s->c->evseq;
  return 0;
}

int sovia_readiness(struct pollfd *fds, unsigned *seq, nfds_t n) {
  int ready = 0;
  sv_lock();
  if (G.ready) sv_progress(NULL);
  for (nfds_t i = 0; i < n; i++) {
    struct sv_sock *s = sv_sock_get(fds[i].fd);
    fds[i].revents = s ? sv_revents(s) : POLLNVAL;
    if (seq) seq[i] = s ? sv_seq(s) : 0;
    if (fds[i].revents) ready++;
  }
  sv_unlock();
  return ready;
}

/* One look at every descriptor: how many are ready, or -1. k/kmap collect the kernel ones. */
static int look(struct pollfd *fds, nfds_t n, struct pollfd *k, nfds_t *kmap, nfds_t *nk) {
  int ready = 0;
  *nk = 0;
  sv_lock();
  if (G.ready) sv_progress(NULL);
  for (nfds_t i = 0; i < n; i++) {
    fds[i].revents = 0;
    struct sv_sock *s = sv_sock_get(fds[i].fd);
    if (s) {
      fds[i].revents = sv_revents(s) & (short)(fds[i].events | POLLERR | POLLHUP | POLLNVAL);
      if (fds[i].revents) ready++;
    } else if (fds[i].fd >= 0) {
      k[*nk] = fds[i];
      kmap[(*nk)++] = i;
    }
  }
  sv_unlock();
  int kr = *nk ? poll(k, *nk, 0) : 0;
  if (kr < 0) return -1;
  for (nfds_t j = 0; j < *nk; j++)
    if (k[j].revents) {
      fds[kmap[j]].revents = k[j].revents;
      ready++;
    }
  return ready;
}

/* Sleeps until a kernel descriptor or the notifier is ready, at most ms, under mask if any. */
static int sleep_mixed(struct pollfd *k, nfds_t nk, int ms, const sigset_t *mask) {
  int ev = sovia_notify_fd();
  if (ev >= 0) k[nk++] = (struct pollfd){.fd = ev, .events = POLLIN};
  else if (ms > 1) ms = 1;
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
  int r = mask ? ppoll(k, nk, &ts, mask) : poll(k, nk, ms);
  if (ev >= 0 && k[nk - 1].revents) {
    uint64_t v;
    ssize_t rd = read(ev, &v, sizeof v);
    (void)rd;
  }
  return r < 0 && errno != EINTR ? -1 : 0;
}

int sovia_poll(struct pollfd *fds, nfds_t n, int timeout_ms) {
  return sovia_ppoll(fds, n, timeout_ms, NULL);
}

/* sleepmask: the caller holds signals; they arrive only in the kernel's sleep (sleep_mixed),
 * never on the CQ's futex, where they would wait for the sleep's end. */
int sovia_ppoll(struct pollfd *fds, nfds_t n, int timeout_ms, const sigset_t *sleepmask) {
  struct pollfd *k = calloc(n + 1, sizeof *k);
  nfds_t *kmap = calloc(n + 1, sizeof *kmap);
  if (!k || !kmap) {
    free(k), free(kmap);
    errno = ENOMEM;
    return -1;
  }
  uint64_t deadline = timeout_ms < 0 ? 0 : sv_now_ns() + (uint64_t)timeout_ms * 1000000ull;
  unsigned sig0 = sv_signals(true);
  int ready;
  for (;;) {
    nfds_t nk;
    ready = look(fds, n, k, kmap, &nk);
    if (ready || timeout_ms == 0) break;
    uint64_t now = sv_now_ns();
    if (deadline && now >= deadline) break;
    if (sv_signals(true) != sig0) {
      errno = EINTR;
      ready = -1;
      break;
    }
    int ms = MIXED_SLICE_MS;
    if (deadline && (deadline - now) / 1000000 + 1 < (uint64_t)ms) ms = (int)((deadline - now) / 1000000 + 1);
    if (nk > 0 || n == 0 || sleepmask) {
      sovia_notify_arm(1);
      ready = look(fds, n, k, kmap, &nk);   /* armed: nothing that changes now is missed */
      if (!ready) ready = sleep_mixed(k, nk, ms, sleepmask);
      sovia_notify_arm(0);
      if (ready) break;
    } else if (G.ready) {
      VIP_VI_HANDLE vh;
      VIP_BOOLEAN rq;
      VipCQWait(G.cq, 1, &vh, &rq);
    } else {
      break;
    }
  }
  free(k);
  free(kmap);
  return ready;
}
