/* sv_poll.c: sovia_poll, readiness of SOVIA sockets and of ordinary descriptors together.
 * A listening socket is readable when the backlog holds a connection; a connected one when
 * bytes, end-of-file or an error wait, writable when a send slot is free; a connecting one
 * neither, until it is connected (or failed: POLLERR). Waiting progresses
 * the connections and sleeps on the completion queue (only SOVIA sockets) or polls the kernel
 * descriptors in 1 ms slices (mixed sets). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "sv_int.h"

static short sv_revents(struct sv_sock *s, short ev) {
  short r = 0;
  if (s->kind == SV_LISTEN) {
    if (s->l->qn) r |= POLLIN;
  } else if (s->kind == SV_CONN && s->c) {
    struct sv_conn *c = s->c;
    if (sv_readable(c)) r |= POLLIN;
    if (sv_writable(c)) r |= POLLOUT;
    if (c->err) r |= POLLERR;
    if (c->peer_fin && (c->fin_wanted || c->err)) r |= POLLHUP;
    if (c->err) r |= POLLHUP;
  } else if (s->kind == SV_NEW && s->so_error) {
    r |= POLLOUT | POLLERR | POLLHUP;   /* a non-blocking connect failed (TCP: the same) */
  } else if (s->kind == SV_NEW) {
    r |= POLLOUT;
  }
  return r & (short)(ev | POLLERR | POLLHUP);
}

int sovia_poll(struct pollfd *fds, nfds_t n, int timeout_ms) {
  struct pollfd *k = n ? calloc(n, sizeof *k) : NULL;
  nfds_t *kmap = n ? calloc(n, sizeof *kmap) : NULL;
  if (n && (!k || !kmap)) {
    free(k), free(kmap);
    errno = ENOMEM;
    return -1;
  }
  uint64_t deadline = timeout_ms < 0 ? 0 : sv_now_ns() + (uint64_t)timeout_ms * 1000000ull;
  int ready;
  for (;;) {
    ready = 0;
    nfds_t nk = 0;
    bool any_sv = false;
    sv_lock();
    if (G.ready) sv_progress(NULL);
    for (nfds_t i = 0; i < n; i++) {
      fds[i].revents = 0;
      struct sv_sock *s = sv_sock_get(fds[i].fd);
      if (s) {
        any_sv = true;
        fds[i].revents = sv_revents(s, fds[i].events);
        if (fds[i].revents) ready++;
      } else if (fds[i].fd >= 0) {
        k[nk] = fds[i];
        kmap[nk++] = i;
      }
    }
    sv_unlock();
    int kr = nk ? poll(k, nk, 0) : 0;
    if (kr < 0) {
      ready = -1;
      break;
    }
    for (nfds_t j = 0; j < nk; j++)
      if (k[j].revents) {
        fds[kmap[j]].revents = k[j].revents;
        ready++;
      }
    if (ready) break;
    uint64_t now = sv_now_ns();
    if (deadline && now >= deadline) break;
    if (timeout_ms == 0) break;
    if (nk) {
      int slice = any_sv ? 1 : (deadline ? (int)((deadline - now) / 1000000 + 1) : -1);
      if (poll(k, nk, slice) < 0 && errno != EINTR) {
        ready = -1;
        break;
      }
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
